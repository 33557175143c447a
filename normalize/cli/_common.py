"""What every subcommand module of the CLI shares: the exit codes, the ``--pack`` and ``--format``
options, loading the pack they name, and whether to colour.

A leaf of the CLI package: the subcommand modules import it, never :mod:`normalize.cli` itself
(whose :func:`~normalize.cli.commands` imports them).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from normalize.errors import EXIT_BUG, EXIT_FINDINGS, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from normalize.core.pack import Pack

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
    from normalize.core.pack import load_pack

    return load_pack(
        args.pack,
        allow_modules=tuple(getattr(args, "allow_module", None) or ()),
        allow_includes=tuple(getattr(args, "allow_include", None) or ()),
    )


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


__all__ = [
    "EXIT_BUG",
    "EXIT_FINDINGS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "Register",
    "add_format_option",
    "add_pack_option",
    "load_pack_from_args",
    "use_color",
]
