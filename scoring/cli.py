"""The ``normalize`` console command: the normalize layer's subcommands plus the scoring ones.

It lives in the upper layer so that dependencies point one way: :mod:`scoring` imports
:mod:`normalize` (its public names only), never the reverse.  ``pyproject.toml`` points the
``normalize`` script here.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from normalize import cli as _normalize_cli
from normalize.cli import Register
from normalize.cli import build_parser as _build_parser
from scoring import _cli as _score_cli
from scoring import _diff_cli, _html_cli
from scoring.lm import _cli as _lm_cli


def commands() -> tuple[Register, ...]:
    """Every subcommand of ``normalize``, in help order."""
    return (*_normalize_cli.commands(), _score_cli.register, _diff_cli.register, _html_cli.register, _lm_cli.register)


def build_parser() -> argparse.ArgumentParser:
    """The full ``normalize`` argument parser."""
    return _build_parser(commands())


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``normalize`` command (the console script's entry point)."""
    return _normalize_cli.main(argv, commands())


if __name__ == "__main__":
    raise SystemExit(main())
