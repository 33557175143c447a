"""``normalize score``, ``normalize compare`` and ``normalize audit``."""

from __future__ import annotations

import argparse
import difflib
import functools
import json
import math
import os
import random
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from normalize.cli import EXIT_FINDINGS, EXIT_OK, add_format_option, add_pack_option, use_color
from normalize.jsonl import (
    decode_line,
    encode_row,
    read_jsonl,
    restore_written_values,
    to_input_row,
)
from normalize.lm_eval_log import add_source_options, source_input
from normalize.pack import Pack, canonical_json, load_pack
from normalize.rows import normalize_row, normalize_rows
from normalize.stream import (
    EXIT_INTERRUPTED,
    add_stream_options,
    check_jobs,
    input_identity,
    interruptible,
    open_output,
    progress_bar,
    run_job,
    stopped_message,
    write_atomically,
)
from scoring._items import item_from_row, run_label, task_name
from scoring.aggregate import AGGREGATES, SampleAggregator, slim_row
from scoring.metrics import (
    METRICS,
    NO_ANSWER,
    SCORED,
    MathVerifier,
    Score,
    score_detail,
    scoring_config,
)
from scoring.report import DEFAULT_CV_THRESHOLD, FORMATS, ReportBuilder, render
from scoring.stats import coefficient_of_variation, paired_bootstrap

#: How many one-sided ids ``compare`` lists before it only counts them.
_LIST_IDS = 20


def register(sub: Any) -> None:
    score = sub.add_parser("score", help="normalize, parse and score rows; print an honest report")
    add_pack_option(score)
    score.add_argument("input", metavar="INPUT.jsonl", help="rows with id, task, output, target (- for stdin)")
    add_source_options(score)
    score.add_argument("-o", "--output", metavar="OUT.jsonl",
                       help="write every row with 'correct' added (- for stdout; the report then goes to stderr)")
    score.add_argument("--report", metavar="REPORT.json", help="also write the report as JSON to this file")
    score.add_argument("--format", choices=FORMATS, default="table", help="how to print the report (default: table)")
    score.add_argument("--aggregate", choices=AGGREGATES, default=None,
                       help="combine the samples of each id: vote on parsed answers, any, mean, median, pass@k")
    score.add_argument("--k", type=int, default=None, help="k for --aggregate pass@k")
    _add_bootstrap_options(score)
    score.add_argument("--fail-on-variance", action="store_true",
                       help="exit 1 when a run-to-run coefficient of variation exceeds the threshold")
    score.add_argument("--cv-threshold", type=float, default=DEFAULT_CV_THRESHOLD, metavar="CV",
                       help=f"the coefficient of variation that is flagged (default {DEFAULT_CV_THRESHOLD})")
    score.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_stream_options(score)
    score.set_defaults(func=cmd_score)

    compare = sub.add_parser("compare", help="paired bootstrap of two scored files on their shared ids")
    add_pack_option(compare)
    compare.add_argument("a", metavar="A.jsonl", help="the baseline rows")
    compare.add_argument("b", metavar="B.jsonl", help="the rows compared with the baseline")
    add_source_options(compare, more_inputs=False)
    _add_bootstrap_options(compare)
    add_format_option(compare, help_json="the comparison")
    compare.add_argument("--json", action="store_const", const="json", dest="format", help="the same as --format json")
    compare.set_defaults(func=cmd_compare)

    audit = sub.add_parser("audit", help="show a seeded sample of rows the rules changed, raw beside normalized")
    add_pack_option(audit)
    audit.add_argument("input", metavar="INPUT.jsonl", help="rows with id, task, output (target for run CVs)")
    add_source_options(audit)
    audit.add_argument("--n", type=int, default=30, help="how many changed rows to show (default 30)")
    audit.add_argument("--seed", type=int, default=0, help="seed of the random choice (default 0)")
    audit.set_defaults(func=cmd_audit)


def _add_bootstrap_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")


def _check_bootstrap(args: argparse.Namespace) -> None:
    if args.bootstrap < 1:
        raise ValueError(f"--bootstrap must be at least 1, got {args.bootstrap}")
    if args.seed < 0:
        raise ValueError(f"--seed must be non-negative, got {args.seed}")


def check_scoring(pack: Pack) -> None:
    """Resolve every task type's and task's scoring settings now: a bad key fails before any row."""
    for name in pack.task_types:
        if name in METRICS:
            scoring_config(pack, name, name)
    for task, kind in pack.tasks.items():
        if kind in METRICS:
            scoring_config(pack, task, kind)
    unknown = sorted(set(pack.scoring) - set(pack.task_types) - set(pack.tasks) - set(METRICS))
    if unknown:
        raise ValueError(f"scoring: {', '.join(map(repr, unknown))} is neither a task type nor a task of pack {pack.name!r}")


# --------------------------------------------------------------------------- score


def cmd_score(args: argparse.Namespace) -> int:
    _check_bootstrap(args)
    if args.aggregate == "pass@k" and (args.k is None or args.k < 1):
        raise ValueError(f"--aggregate pass@k needs --k of at least 1, got {args.k}")
    if args.k is not None and args.aggregate != "pass@k":
        raise ValueError("--k only applies to --aggregate pass@k")
    jobs = check_jobs(args.jobs)
    if args.resume and args.input == "-":
        raise ValueError("--resume needs an input file: stdin cannot be read again")
    if args.resume and args.output in (None, "-"):
        raise ValueError("--resume needs -o OUT.jsonl: the scored rows written so far are what a run resumes from")
    pack = load_pack(args.pack)
    args.input = source_input(args, pack)
    check_scoring(pack)
    builder = ReportBuilder()
    samples = SampleAggregator(pack, args.aggregate, k=args.k) if args.aggregate else None

    def consume(records: list[Any]) -> None:
        if samples is None:
            for item in records:
                builder.add(item)
        else:
            for row, score in records:
                samples.add(row, score)

    meta = {"command": "score", "input": input_identity(args.input), "pack_hash": pack.hash, "signature": pack.signature}
    rows_to = args.output if args.output is not None else os.devnull
    with MathVerifier() as verifier, interruptible() as interrupt, \
            open_output(None if rows_to == "-" else rows_to, meta=meta, resume=args.resume, atomic=rows_to != os.devnull) \
            as output:
        for line in output.kept_lines():
            row = restore_written_values(json.loads(line))
            record = score_record(pack, row, score_detail(pack, row, verifier=verifier), args.aggregate is not None)
            consume([record])
        worker = functools.partial(score_chunk, pack, args.output is not None, args.aggregate is not None,
                                   verifier if jobs == 1 else None)
        with progress_bar(args.input, enabled=not args.no_progress, desc="score") as advance:
            done = run_job(args.input, output, worker, consume, jobs=jobs, interrupt=interrupt, on_chunk=advance)
        if done.interrupted:
            output.stop()
            message = (stopped_message(output, done) if args.output is not None else
                       f"normalize: stopped after input line {done.last_line}; no report: the run is incomplete "
                       "(with -o OUT.jsonl it could be resumed)")
            print(message, file=sys.stderr)
            return EXIT_INTERRUPTED
        if samples is not None:
            for item in samples.items(verifier=verifier):
                builder.add(item)
        report = builder.build(pack, aggregate=args.aggregate, k=args.k, n_resamples=args.bootstrap,
                               seed=args.seed, cv_threshold=args.cv_threshold)
        output.commit()
    report_stream = sys.stderr if args.output == "-" else sys.stdout
    if args.report:
        write_atomically(args.report, json.dumps(report, ensure_ascii=False, indent=2, allow_nan=False) + "\n")
    print(render(report, args.format, color=use_color(report_stream)), file=report_stream)
    if args.fail_on_variance and report["flagged"]:
        return EXIT_FINDINGS
    return EXIT_OK


_WORKER_VERIFIER: tuple[int, MathVerifier] | None = None


def _verifier_here() -> MathVerifier:
    """This process's own Math-Verify helper (started only if a row needs it; a forked worker
    never shares its parent's)."""
    global _WORKER_VERIFIER
    if _WORKER_VERIFIER is None or _WORKER_VERIFIER[0] != os.getpid():
        _WORKER_VERIFIER = (os.getpid(), MathVerifier())
    return _WORKER_VERIFIER[1]


def add_score_fields(out: dict[str, Any], score: Score) -> None:
    """What ``score -o`` adds to each row: ``correct``, ``score`` and, when useful, ``score_note``."""
    out["correct"] = score.correct
    out["score"] = score.value if score.outcome == SCORED else None
    if score.note:
        out["score_note"] = score.note


def score_record(pack: Pack, out: dict[str, Any], score: Score, aggregate: bool) -> Any:
    """What the report needs of one scored row: its item, or (for --aggregate) its slim row and score."""
    return (slim_row(out), score) if aggregate else item_from_row(out, score)


def score_chunk(pack: Pack, write_rows: bool, aggregate: bool, verifier: MathVerifier | None,
                chunk: list[tuple[int, bytes]]) -> tuple[bytes, list[Any]]:
    """Normalize and score a chunk of raw lines: their output lines (when wanted) and report records."""
    verifier = verifier if verifier is not None else _verifier_here()
    parts: list[bytes] = []
    records: list[Any] = []
    for number, raw in chunk:
        out = normalize_row(pack, to_input_row(decode_line(raw, number)))
        score = score_detail(pack, out, verifier=verifier)
        add_score_fields(out, score)
        if write_rows:
            parts.append(encode_row(out))
        records.append(score_record(pack, out, score, aggregate))
    return b"".join(parts), records


def score_file(pack: Pack, path: str | Path, *, progress: bool | None = False,
               verifier: MathVerifier) -> tuple[list[dict[str, Any]], list[Score]]:
    """Normalize and score every row of a JSONL file; each output row gains ``correct``."""
    outs = list(normalize_rows(pack, read_jsonl(path), progress=progress))
    scores = [score_detail(pack, out, verifier=verifier) for out in outs]
    for out, score in zip(outs, scores, strict=True):
        add_score_fields(out, score)
    return outs, scores


# --------------------------------------------------------------------------- compare


def per_id_values(outs: Sequence[Mapping[str, Any]], scores: Sequence[Score]) -> dict[str, float]:
    """Mean score per ``task/id`` over scorable rows (several runs or samples of an id are averaged)."""
    sums: dict[str, list[float]] = {}
    for out, score in zip(outs, scores, strict=True):
        if score.outcome not in (SCORED, NO_ANSWER) or out.get("id") is None:
            continue
        raw_id = out["id"]
        key = f"{task_name(out)}/{raw_id if isinstance(raw_id, str) else canonical_json(raw_id)}"
        sums.setdefault(key, []).append(score.value)
    return {key: math.fsum(v) / len(v) for key, v in sums.items()}


def cmd_compare(args: argparse.Namespace) -> int:
    _check_bootstrap(args)
    pack = load_pack(args.pack)
    check_scoring(pack)
    with MathVerifier() as verifier:
        a = per_id_values(*score_file(pack, source_input(args, pack, args.a), verifier=verifier))
        b = per_id_values(*score_file(pack, source_input(args, pack, args.b), verifier=verifier))
    shared = [key for key in a if key in b]
    only_a = [key for key in a if key not in b]
    only_b = [key for key in b if key not in a]
    if not shared:
        raise ValueError(f"{args.a} and {args.b} share no scorable ids")
    result = paired_bootstrap([a[k] for k in shared], [b[k] for k in shared], n_resamples=args.bootstrap, seed=args.seed)
    mean_a = math.fsum(a[k] for k in shared) / len(shared)
    mean_b = math.fsum(b[k] for k in shared) / len(shared)
    if args.format == "json":
        print(json.dumps({
            "a": args.a, "b": args.b, "shared": len(shared), "mean_a": mean_a, "mean_b": mean_b,
            "diff": result.diff, "low": result.low, "high": result.high, "p_b_le_a": result.p_b_le_a,
            "bootstrap": {"method": "paired percentile", "n_resamples": args.bootstrap, "seed": args.seed,
                          "confidence": 0.95},
            "only_in_a": only_a, "only_in_b": only_b,
            "pack": {"signature": pack.signature, "hash": pack.hash},
        }, ensure_ascii=False, indent=2))
        return EXIT_OK
    print(f"A: {args.a}  mean {mean_a:.3f} over {len(shared)} shared ids")
    print(f"B: {args.b}  mean {mean_b:.3f}")
    print(f"difference B − A: {result.diff:+.3f}  95% CI [{result.low:+.3f}, {result.high:+.3f}] "
          f"(paired percentile bootstrap, {args.bootstrap} resamples, seed {args.seed})")
    print(f"share of resamples with B ≤ A: {result.p_b_le_a:.3f}")
    for label, keys in (("A", only_a), ("B", only_b)):
        if keys:
            shown = ", ".join(keys[:_LIST_IDS]) + (f", … ({len(keys) - _LIST_IDS} more)" if len(keys) > _LIST_IDS else "")
            print(f"ids only in {label} ({len(keys)}, left out): {shown}")
    print(f"pack: {pack.signature}")
    print(f"hash: {pack.hash}")
    return EXIT_OK


# --------------------------------------------------------------------------- audit


def mark_differences(before: str, after: str, *, color: bool = False) -> str:
    """``before`` edited into ``after``: removed text as ``[-…-]``, added text as ``{+…+}``.

    >>> mark_differences("The answer is (B).", "B")
    '[-The answer is (-]B[-).-]'
    """
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append(before[i1:i2])
            continue
        if i2 > i1:
            out.append(f"\033[31m[-{before[i1:i2]}-]\033[0m" if color else f"[-{before[i1:i2]}-]")
        if j2 > j1:
            out.append(f"\033[32m{{+{after[j1:j2]}+}}\033[0m" if color else f"{{+{after[j1:j2]}+}}")
    return "".join(out)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.split("\n"))


def raw_exact(row: Mapping[str, Any]) -> float | None:
    """1.0 when the raw output equals the target after stripping, 0.0 if not, None without a target.

    A target that is not a string is compared in canonical JSON (so ``1`` matches ``"1"``).
    """
    target = row.get("target")
    if target is None:
        return None
    output = row.get("output")
    wanted = target if isinstance(target, str) else canonical_json(target)
    return float(isinstance(output, str) and output.strip() == wanted.strip())


def _run_cv(values_by_run: Mapping[str, list[float]]) -> tuple[float | None, dict[str, float], str | None]:
    means = {run: math.fsum(v) / len(v) for run, v in values_by_run.items() if v}
    if len(means) < 2:
        return None, means, "fewer than two runs with targets"
    try:
        return coefficient_of_variation(list(means.values())), means, None
    except ValueError as exc:
        return None, means, str(exc)


def cmd_audit(args: argparse.Namespace) -> int:
    if args.n < 0:
        raise ValueError(f"--n must be non-negative, got {args.n}")
    pack = load_pack(args.pack)
    rows = read_jsonl(source_input(args, pack))
    outs = list(normalize_rows(pack, rows, progress=False))
    color = use_color()
    changed = [i for i, out in enumerate(outs) if out.get("trace")]
    chosen = sorted(random.Random(args.seed).sample(changed, min(args.n, len(changed))))
    print(f"{len(changed)} of {len(outs)} rows were changed by the rules; showing {len(chosen)} (seed {args.seed})")
    for i in chosen:
        out = outs[i]
        raw = out.get("output")
        normalized = out.get("normalized")
        rules = ", ".join(f"{step['rule']}.v{step['version']}" for step in out.get("trace", []))
        print()
        print(f"line {rows[i].line}  id {out.get('id')!r}  task {task_name(out)}  status {out.get('status')}  "
              f"answer {json.dumps(out.get('answer'), ensure_ascii=False, default=str)}")
        print(f"  rules: {rules}")
        print("  raw:")
        print(_indent(str(raw)))
        print("  normalized:")
        print(_indent(str(normalized)))
        if isinstance(raw, str) and isinstance(normalized, str):
            print("  changes:")
            print(_indent(mark_differences(raw, normalized, color=color)))
    if any(out.get("run") is not None for out in outs):
        _print_run_cvs(pack, outs)
    print()
    print(f"pack: {pack.signature}")
    print(f"hash: {pack.hash}")
    return EXIT_OK


def _print_run_cvs(pack: Pack, outs: Sequence[dict[str, Any]]) -> None:
    check_scoring(pack)
    raw_by_run: dict[str, list[float]] = {}
    norm_by_run: dict[str, list[float]] = {}
    with MathVerifier() as verifier:
        for out in outs:
            run = run_label(out)
            if run is None:
                continue
            raw = raw_exact(out)
            if raw is not None:
                raw_by_run.setdefault(run, []).append(raw)
            score = score_detail(pack, out, verifier=verifier)
            if score.outcome in (SCORED, NO_ANSWER):
                norm_by_run.setdefault(run, []).append(score.value)
    print()
    print("run-to-run spread (coefficient of variation of per-run accuracy):")
    for label, by_run in (("raw exact match", raw_by_run), ("normalized score", norm_by_run)):
        cv, means, note = _run_cv(by_run)
        runs = ", ".join(f"{run}={value:.3f}" for run, value in sorted(means.items()))
        shown = "-" if cv is None else f"{cv:.4f}"
        print(f"  {label:<17} CV {shown}  ({runs})" + (f"  {note}" if note else ""))
