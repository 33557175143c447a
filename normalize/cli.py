"""The lower layer's half of the ``normalize`` command line: ``run``, ``explain``, ``hash``, ``check``.

Exit codes: 0 ok, 1 findings, 2 usage or configuration error (:class:`~normalize.errors.UsageError`
and its subclasses, a file that cannot be read), 3 an unexpected exception (a bug: reported
with its traceback, never as a usage error).  Each subcommand lives in a
module that exposes ``register(subparsers)``; :data:`COMMANDS` lists this layer's.  The console
command itself is mounted from the upper layer (:mod:`scoring.cli`), which adds the scoring
commands to these: ``normalize`` never imports ``scoring``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from normalize.errors import PackError, UsageError

if TYPE_CHECKING:
    from normalize.pack import Pack

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_BUG = 3
#: A run stopped by Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130

#: Adds subcommands to an ``argparse`` subparsers object; each subcommand sets ``func``.
Register = Callable[[Any], None]


def add_pack_option(parser: argparse.ArgumentParser) -> None:
    """``--pack FILE``, ``--allow-module MODULE`` (repeatable: the opt-in a pack's ``modules:``
    needs) and ``--allow-include DIR`` (repeatable: a folder besides the pack's own and the
    shipped packs' that its ``include``/``extends``/schema files may read)."""
    parser.add_argument("--pack", metavar="FILE", help="a pack YAML file (default: the shipped packs)")
    parser.add_argument("--allow-module", metavar="MODULE", action="append", default=[],
                        help="let the pack import rules from this Python module (it names it under "
                        "modules:); a pack alone never runs code")
    parser.add_argument("--allow-include", metavar="DIR", action="append", default=[],
                        help="let the pack read files of this folder (include, extends, schema "
                        "$ref files); a pack alone reads only its own folder and the shipped packs")


def load_pack_from_args(args: argparse.Namespace) -> Pack:
    """The pack of ``--pack``, importing only the modules ``--allow-module`` names and reading
    files only of its folder, the shipped packs' and the ``--allow-include`` folders."""
    from normalize.pack import load_pack

    return load_pack(
        args.pack,
        allow_modules=tuple(getattr(args, "allow_module", None) or ()),
        allow_includes=tuple(getattr(args, "allow_include", None) or ()),
    )


def commands() -> tuple[Register, ...]:
    """This layer's subcommands, in help order."""
    from normalize import _cli_check, _cli_core, _cli_rules

    return (_cli_core.register, _cli_check.register, _cli_rules.register)


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
    """Colours on a terminal; ``NO_COLOR`` (when non-empty) turns them off, ``FORCE_COLOR``
    (non-empty and not ``0``) turns them on anywhere.  ``NO_COLOR`` wins when both are set."""
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR")
    if force and force != "0":
        return True
    stream = stream if stream is not None else sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


def add_format_option(parser: argparse.ArgumentParser, *, help_json: str = "one JSON document") -> None:
    """The ``--format text|json`` every result-printing command takes."""
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help=f"text for people (default) or json: {help_json}")


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


if __name__ == "__main__":
    raise SystemExit(main())
