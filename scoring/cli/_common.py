"""What the scoring layer's subcommand modules share: resolving a pack's scoring settings up
front and the options that shape the HTML page (``report``, ``score --html``, ``compare --html``).

A leaf of the CLI package: the subcommand modules import it, never :mod:`scoring.cli` itself.
The options and exit codes of both layers (``--pack``, ``--format``) come from :mod:`normalize.cli`.
"""

from __future__ import annotations

import argparse

from normalize.core.pack import Pack
from normalize.errors import UsageError
from scoring.html_report import DEFAULT_AUDIT_ROWS, DEFAULT_PAGE_SIZE
from scoring.metrics import METRICS, scoring_config


def check_scoring(pack: Pack) -> None:
    """Resolve every task type's and task's scoring settings now: a bad key fails before any row."""
    for name, declared in pack.task_types.items():
        if declared.family in METRICS:
            scoring_config(pack, name, name)
    for task, kind in pack.tasks.items():
        if pack.family_of(kind) in METRICS:
            scoring_config(pack, task, kind)
    unknown = sorted(set(pack.scoring) - set(pack.task_types) - set(pack.tasks) - set(METRICS))
    if unknown:
        raise UsageError(f"scoring: {', '.join(map(repr, unknown))} is neither a task type nor a task of pack {pack.name!r}")


def add_html_options(parser: argparse.ArgumentParser) -> None:
    """The options that shape the HTML page (shared by ``report`` and ``score --html``)."""
    parser.add_argument("--audit-rows", type=int, default=DEFAULT_AUDIT_ROWS, metavar="N",
                        help=f"embed at most N audit rows, a seeded stratified sample beyond that "
                             f"(default {DEFAULT_AUDIT_ROWS})")
    parser.add_argument("--audit-seed", type=int, default=0, help="seed of the audit sample (default 0)")
    parser.add_argument("--page-size", type=int, default=DEFAULT_PAGE_SIZE, metavar="N",
                        help=f"audit rows per page (default {DEFAULT_PAGE_SIZE})")
    parser.add_argument("--rule-effect-rows", type=int, default=None, metavar="N",
                        help="measure rule effects on a seeded sample of N rows (--audit-seed; default: every "
                             "row; 0 skips it)")
    parser.add_argument("--title", default=None, help="the page title (default: the run labels)")


def check_html_options(args: argparse.Namespace) -> None:
    """``ValueError`` naming a bad option value."""
    if args.audit_rows < 0:
        raise UsageError(f"--audit-rows must be non-negative, got {args.audit_rows}")
    if args.page_size < 1:
        raise UsageError(f"--page-size must be at least 1, got {args.page_size}")
    if args.rule_effect_rows is not None and args.rule_effect_rows < 0:
        raise UsageError(f"--rule-effect-rows must be non-negative, got {args.rule_effect_rows}")
