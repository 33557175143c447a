"""The LM scorer (extra ``lm``): torch and transformers are imported lazily."""
