"""The ``normalize`` command line.  Exit codes: 0 ok, 1 findings, 2 usage or configuration error.

Each subcommand lives in a module that exposes ``register(subparsers)``; the module list below
is the only place that names them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from normalize.errors import PackError

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2

#: Modules that add subcommands: each has ``register(subparsers) -> None`` and sets ``func``.
SUBCOMMAND_MODULES = (
    "normalize._cli_core",
    "normalize._check",
    "scoring._cli",
    "scoring._html_cli",
    "scoring.lm._cli",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    from normalize._version import __version__

    top = _Parser(prog="normalize", description="Normalize, parse and score LLM evaluation outputs.")
    top.add_argument("--version", action="version", version=f"harness-normalize {__version__}")
    sub = top.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return top


def use_color(stream: object = None) -> bool:
    """Colours only on a terminal and never when ``NO_COLOR`` is set."""
    stream = stream if stream is not None else sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
