"""The lower layer's half of the ``normalize`` command line: ``run``, ``explain``, ``hash``, ``check``, ``rules``.

Exit codes: 0 ok, 1 findings, 2 usage or configuration error (:class:`~normalize.errors.UsageError`
and its subclasses, a file that cannot be read), 3 an unexpected exception (a bug: reported
with its traceback, never as a usage error), 130 interrupted; they live in :mod:`normalize.errors`.
Each subcommand lives in a module that exposes ``register(subparsers)`` (``_core``, ``_check``,
``_rules``); :func:`commands` lists this layer's.  They share the leaf :mod:`normalize.cli._common`
(the exit codes, ``--pack``, ``--format``, colours) and never import this package back.  The
console command itself is mounted from the upper layer (:mod:`scoring.cli`), which adds the
scoring commands to these: ``normalize`` never imports ``scoring``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from normalize.cli._common import (
    EXIT_BUG,
    EXIT_FINDINGS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Register,
    add_format_option,
    add_pack_option,
    load_pack_from_args,
    use_color,
)
from normalize.errors import PackError, UsageError


def commands() -> tuple[Register, ...]:
    """This layer's subcommands, in help order."""
    from normalize.cli import _check, _core, _rules

    return (_core.register, _check.register, _rules.register)


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


def main(argv: Sequence[str] | None = None, registers: Sequence[Register] | None = None) -> int:
    """Run one command; ``registers`` as in :func:`build_parser`."""
    parser = build_parser(registers)
    args = parser.parse_args(argv)
    try:
        code = int(args.func(args))
    except PackError as exc:
        print(f"normalize: configuration error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except UsageError as exc:
        print(f"normalize: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:  # a second Ctrl-C: stop at once; a partial output stays resumable
        print("normalize: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as exc:  # an unwritable -o, a full disk, a directory where a file was expected
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"normalize: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except RecursionError:
        print("normalize: error: an input is nested too deeply to process (Python's recursion limit)", file=sys.stderr)
        return EXIT_USAGE
    except Exception:  # not the user's fault: say so, with what a bug report needs
        import traceback

        traceback.print_exc()
        print("normalize: internal error: this is a bug in harness-normalize, not a usage error; "
              "please report it with the traceback above", file=sys.stderr)
        return EXIT_BUG
    return code


__all__ = [
    "EXIT_BUG",
    "EXIT_FINDINGS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "Register",
    "add_format_option",
    "add_pack_option",
    "build_parser",
    "commands",
    "load_pack_from_args",
    "main",
    "use_color",
]
