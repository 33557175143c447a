"""Built-in rules, one module per stage; importing this package registers them all."""

from normalize.rules import extract, format, semantic, structure  # noqa: F401
