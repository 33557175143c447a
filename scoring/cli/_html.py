"""``normalize report``: one self-contained HTML page for a scored run, or two runs compared.

``normalize score --html OUT.html`` writes the same page for the run it scored (see
:func:`write_score_html`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from normalize.cli import EXIT_OK, add_format_option, add_pack_option, load_pack_from_args
from normalize.core.pack import Pack
from normalize.errors import UsageError
from normalize.io.stream import write_atomically
from scoring._comparison import compare_runs
from scoring._items import item_of
from scoring._rule_effects import rule_effects
from scoring._scorefile import score_file
from scoring.aggregate import AGGREGATES, aggregate_rows
from scoring.cli._common import add_html_options, check_html_options, check_scoring
from scoring.html_report import ReportRun, render_html
from scoring.metrics import MathVerifier, Scored
from scoring.report import DEFAULT_CV_THRESHOLD, build_report


def register(sub: Any) -> None:
    report = sub.add_parser("report", help="write one self-contained HTML report (charts, rule effects, audit)")
    add_pack_option(report)
    report.add_argument("inputs", nargs="+", metavar="RUN.jsonl",
                        help="one run, or two (A then B) to compare; rows with id, task, output, target")
    report.add_argument("-o", "--output", required=True, metavar="OUT.html", help="the HTML file to write (- for stdout)")
    report.add_argument("--label", action="append", default=None, metavar="NAME",
                        help="a name for each run, in order (default: the file names)")
    report.add_argument("--aggregate", choices=AGGREGATES, default=None,
                        help="combine the samples of each id: vote on parsed answers, any, mean, median, pass@k")
    report.add_argument("--k", type=int, default=None, help="k for --aggregate pass@k")
    report.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples (default 1000)")
    report.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    report.add_argument("--confidence", type=float, default=0.95, help="interval confidence (default 0.95)")
    report.add_argument("--cv-threshold", type=float, default=DEFAULT_CV_THRESHOLD, metavar="CV",
                        help=f"the run-to-run coefficient of variation that is flagged (default {DEFAULT_CV_THRESHOLD})")
    add_html_options(report)
    report.add_argument("--no-progress", action="store_true",
                        help="never show a progress bar (one is shown on a terminal for long inputs)")
    add_format_option(report, help_json="what was written, with each run's overall figures")
    report.set_defaults(func=cmd_report)


def _labels(inputs: Sequence[str], given: Sequence[str] | None) -> list[str]:
    if given is not None:
        if len(given) != len(inputs):
            raise UsageError(f"--label given {len(given)} times for {len(inputs)} runs")
        return list(given)
    names = [Path(p).name if p != "-" else "stdin" for p in inputs]
    if len(set(names)) < len(names):
        names = [f"{tag}: {p}" for tag, p in zip("AB", inputs, strict=False)]
    return names


def make_run(
    pack: Pack,
    label: str,
    source: str,
    outs: list[dict[str, Any]],
    scored: list[Scored],
    args: argparse.Namespace,
    verifier: MathVerifier,
) -> ReportRun:
    """Aggregate (if asked), build the report and measure the rule effects of one scored run.

    The report counts the typed rows (``scored``); the page shows the output rows (``outs``)."""
    aggregate, k = getattr(args, "aggregate", None), getattr(args, "k", None)
    if aggregate:
        items = aggregate_rows(pack, scored, aggregate, k=k, verifier=verifier)
    else:
        items = [item_of(sample) for sample in scored]
    report = build_report(items, pack, aggregate=aggregate, k=k, n_resamples=args.bootstrap, seed=args.seed,
                          confidence=getattr(args, "confidence", 0.95),
                          cv_threshold=getattr(args, "cv_threshold", DEFAULT_CV_THRESHOLD))
    effects = None
    if args.rule_effect_rows != 0:
        effects = rule_effects(pack, scored, verifier=verifier,
                               max_rows=args.rule_effect_rows, seed=args.audit_seed)
    from scoring._audit_order import audit_flags

    return ReportRun(label, source, outs, scored, report, effects, audit_flags(pack, scored, verifier=verifier))


def _progress(args: argparse.Namespace) -> bool | None:
    """False with --no-progress; else None: a bar only on a terminal, for long inputs."""
    return False if getattr(args, "no_progress", False) else None


def _settings(args: argparse.Namespace) -> dict[str, str]:
    cap = args.rule_effect_rows
    return {"rule effects": "skipped" if cap == 0 else (
        "every row" if cap is None else f"a seeded sample of at most {cap} rows per run (seed {args.audit_seed})")}


def write_html(path: str | Path, html: str) -> None:
    """Write the page atomically (a temporary file, then a rename; see :func:`normalize.io.stream.write_atomically`)."""
    write_atomically(path, html)


def write_score_html_from_file(
    path: str | Path,
    pack: Pack,
    source: str,
    report: Mapping[str, Any],
    args: argparse.Namespace,
) -> None:
    """``normalize score --html``: the page for the run just scored, with the report it printed.

    ``score`` streams its input in constant memory; the page needs every row with its trace (for
    the audit and the rule effects), so the rows are read and normalized again here, in memory.
    """
    with MathVerifier() as verifier:
        outs, scored = score_file(pack, source, progress=_progress(args), verifier=verifier)
        effects = None
        if args.rule_effect_rows != 0:
            effects = rule_effects(pack, scored, verifier=verifier,
                                   max_rows=args.rule_effect_rows, seed=args.audit_seed)
        from scoring._audit_order import audit_flags

        flags = audit_flags(pack, scored, verifier=verifier)
    run = ReportRun(Path(source).name, source, outs, scored, report, effects, flags)
    write_html(path, render_html(pack, [run], audit_rows=args.audit_rows, audit_seed=args.audit_seed,
                                 page_size=args.page_size, settings=_settings(args), title=args.title))


def write_compare_html(
    path: str | Path,
    pack: Pack,
    scored: Sequence[tuple[str, list[dict[str, Any]], list[Scored]]],
    args: argparse.Namespace,
    verifier: MathVerifier,
) -> None:
    """``normalize compare --html``: both runs and their paired comparison on one page."""
    labels = _labels([source for source, _, _ in scored], None)
    runs = [make_run(pack, label, source, outs, samples, args, verifier)
            for label, (source, outs, samples) in zip(labels, scored, strict=True)]
    comparison = compare_runs(runs[0].scored, runs[1].scored,
                              n_resamples=args.bootstrap, seed=args.seed)
    write_html(path, render_html(pack, runs, comparison=comparison, audit_rows=args.audit_rows,
                                 audit_seed=args.audit_seed, page_size=args.page_size, settings=_settings(args),
                                 title=args.title))


def cmd_report(args: argparse.Namespace) -> int:
    if len(args.inputs) > 2:
        raise UsageError(f"normalize report takes one run or two to compare, got {len(args.inputs)}")
    if args.bootstrap < 1:
        raise UsageError(f"--bootstrap must be at least 1, got {args.bootstrap}")
    if not 0.0 < args.confidence < 1.0:
        raise UsageError(f"--confidence must be strictly between 0 and 1, got {args.confidence}")
    if args.aggregate == "pass@k" and (args.k is None or args.k < 1):
        raise UsageError(f"--aggregate pass@k needs --k of at least 1, got {args.k}")
    if args.k is not None and args.aggregate != "pass@k":
        raise UsageError("--k only applies to --aggregate pass@k")
    check_html_options(args)
    pack = load_pack_from_args(args)
    check_scoring(pack)
    labels = _labels(args.inputs, args.label)
    runs: list[ReportRun] = []
    with MathVerifier() as verifier:
        for label, source in zip(labels, args.inputs, strict=True):
            outs, scored = score_file(pack, source, progress=_progress(args), verifier=verifier)
            runs.append(make_run(pack, label, source, outs, scored, args, verifier))
    comparison = None
    if len(runs) == 2:
        comparison = compare_runs(runs[0].scored, runs[1].scored,
                                  n_resamples=args.bootstrap, seed=args.seed, confidence=args.confidence)
    html = render_html(pack, runs, comparison=comparison, audit_rows=args.audit_rows, audit_seed=args.audit_seed,
                       page_size=args.page_size, settings=_settings(args), title=args.title)
    size = len(html.encode("utf-8"))
    if args.output == "-":  # the page on stdout; what was written goes to stderr
        sys.stdout.write(html)
        sys.stdout.flush()
        print(f"wrote the page to stdout ({size:,} bytes); pack hash {pack.hash}", file=sys.stderr)
        return EXIT_OK
    write_html(args.output, html)
    if args.format == "json":
        overall = [next(g for g in run.report["groups"] if g["level"] == "overall") for run in runs]
        print(json.dumps({
            "output": args.output, "bytes": size,
            "runs": [{"label": run.label, "source": run.source, "rows": len(run.rows), "a_strict": o["a_strict"],
                      "a_valid": o["a_valid"], "parse_rate": o["parse_rate"]} for run, o in zip(runs, overall, strict=True)],
            "comparison": comparison["overall"] if comparison else None,
            "pack": {"signature": pack.signature, "hash": pack.hash},
        }, ensure_ascii=False, indent=2, allow_nan=False))
        return EXIT_OK
    print(f"wrote {args.output} ({size:,} bytes)")
    print(f"pack: {pack.signature}")
    print(f"hash: {pack.hash}")
    return EXIT_OK
