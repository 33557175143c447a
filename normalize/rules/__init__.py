"""Built-in rules, one module per stage; importing this package registers them all."""

from normalize.rules import extract, extract_math, format, semantic, structure  # noqa: F401
