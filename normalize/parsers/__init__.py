"""Strict parsers, one module per parser; importing this package registers them all (every
module here is imported below, so a new parser module needs no line here).

A parser turns normalized text into an answer, or ``None`` with a status and a reason.
It never guesses and never falls back to a random option.  The params models of the compiled
parsers live in ``_*_params`` modules (why: :mod:`normalize.rules`).
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
