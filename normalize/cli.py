"""The lower layer's half of the ``normalize`` command line: ``run``, ``explain``, ``hash``, ``check``.

Exit codes: 0 ok, 1 findings, 2 usage or configuration error.  Each subcommand lives in a
module that exposes ``register(subparsers)``; :data:`COMMANDS` lists this layer's.  The console
command itself is mounted from the upper layer (:mod:`scoring.cli`), which adds the scoring
commands to these: ``normalize`` never imports ``scoring``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from normalize.errors import PackError

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2

#: Adds subcommands to an ``argparse`` subparsers object; each subcommand sets ``func``.
Register = Callable[[Any], None]


def add_pack_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pack", metavar="FILE", help="a pack YAML file (default: the shipped packs)")


def commands() -> tuple[Register, ...]:
    """This layer's subcommands, in help order."""
    from normalize import _cli_check, _cli_core

    return (_cli_core.register, _cli_check.register)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser(registers: Sequence[Register] | None = None) -> argparse.ArgumentParser:
    """The parser with ``registers``' subcommands (default: this layer's, :func:`commands`)."""
    from normalize._version import __version__

    top = _Parser(prog="normalize", description="Normalize, parse and score LLM evaluation outputs.")
    top.add_argument("--version", action="version", version=f"harness-normalize {__version__}")
    sub = top.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for register in commands() if registers is None else registers:
        register(sub)
    return top


def use_color(stream: object = None) -> bool:
    """Colours only on a terminal and never when ``NO_COLOR`` is set."""
    stream = stream if stream is not None else sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ


def main(argv: Sequence[str] | None = None, registers: Sequence[Register] | None = None) -> int:
    """Run one command; ``registers`` as in :func:`build_parser`."""
    parser = build_parser(registers)
    args = parser.parse_args(argv)
    try:
        code = int(args.func(args))
    except PackError as exc:
        print(f"normalize: configuration error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, FileNotFoundError) as exc:
        print(f"normalize: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    return code


if __name__ == "__main__":
    raise SystemExit(main())
