"""Strict parsers, one module per parser; importing this package registers them all.

A parser turns normalized text into an answer, or ``None`` with a status and a reason.
It never guesses and never falls back to a random option.
"""

from normalize.parsers import _choice, _json, _judge, _math, _number, _ranking, _text  # noqa: F401
