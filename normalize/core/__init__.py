"""The pack: YAML loading, the rule and parser registries, the chain engine."""
