"""The ``normalize`` console command: the normalize layer's subcommands plus the scoring ones.

It lives in the upper layer so that dependencies point one way: :mod:`scoring` imports
:mod:`normalize` (its public names only), never the reverse.  ``pyproject.toml`` points the
``normalize`` script here (``scoring.cli:main``).

Each scoring subcommand lives in a module of this package exposing ``register(subparsers)``:
``_score`` (``score``, ``compare``, ``audit``), ``_diff`` (``diff``), ``_html`` (``report``)
and ``_lm`` (``loglik``, ``generate``); what they share is the leaf :mod:`scoring.cli._common`.
None of them imports this package back.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from normalize import cli as _normalize_cli
from normalize.cli import Register
from normalize.cli import build_parser as _build_parser

#: Commands of the normalize layer that need none of the scoring layer: ``normalize run ...``
#: parses with that layer's parser alone (:func:`normalize.cli.commands`), so its start-up
#: imports no scoring module (NumPy among them); the parser of ``run`` is the same either way.
_CORE_COMMANDS = frozenset({"run", "explain", "hash"})


def commands() -> tuple[Register, ...]:
    """Every subcommand of ``normalize``, in help order."""
    from scoring.cli import _diff, _html, _lm, _score

    return (*_normalize_cli.commands(), _score.register, _diff.register, _html.register, _lm.register)


def build_parser() -> argparse.ArgumentParser:
    """The full ``normalize`` argument parser."""
    return _build_parser(commands())


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``normalize`` command (the console script's entry point)."""
    given = sys.argv[1:] if argv is None else argv
    if given and given[0] in _CORE_COMMANDS:
        return _normalize_cli.main(argv, _normalize_cli.commands())
    return _normalize_cli.main(argv, commands())


__all__ = ["build_parser", "commands", "main"]
