"""``normalize score``, ``normalize compare`` and ``normalize audit``."""

from __future__ import annotations

import argparse
import difflib
import functools
import importlib.util
import json
import math
import os
import random
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from normalize import Result
from normalize.cli import (
    EXIT_FINDINGS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    add_format_option,
    add_pack_option,
    load_pack_from_args,
    use_color,
)
from normalize.core.pack import Pack, canonical_json
from normalize.errors import UsageError
from normalize.io.jsonl import (
    decode_line,
    iter_lines,
    read_jsonl,
    restore_written_values,
)
from normalize.io.lm_eval_log import add_source_options, source_input
from normalize.io.row import Row
from normalize.io.rows import Normalized, all_invalid_reason, normalize_rows_typed
from normalize.io.stream import (
    add_stream_options,
    check_jobs,
    format_meta,
    input_identity,
    interruptible,
    open_output,
    progress_bar,
    run_job,
    stopped_message,
    stream_formats,
    write_atomically,
)
from scoring._audit_order import FLIPPED, RANK, REST, WEAK, audit_flags
from scoring._items import task_label
from scoring._scorefile import Record, score_chunk, score_file, score_record
from scoring._textsim import TextSettings, paired_text_report
from scoring.aggregate import AGGREGATES, SampleAggregator, TargetConflicts
from scoring.cli._common import add_html_options, check_html_options, check_scoring
from scoring.cli._html import write_compare_html, write_score_html_from_file
from scoring.metrics import (
    METRICS,
    NO_ANSWER,
    SCORED,
    MathVerifier,
    Scored,
    ScoringConfig,
    read_scored,
    score_result,
    scoring_config,
)
from scoring.pairwise import mcnemar, minimum_detectable_difference, paired_permutation, shrunk_rate
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
    score.add_argument("--format", choices=FORMATS, default="text",
                       help="text (= table, the default), markdown, or json: one JSON document")
    score.add_argument("--aggregate", choices=AGGREGATES, default=None,
                       help="combine the samples of each id: vote on parsed answers, any, mean, median, pass@k")
    score.add_argument("--k", type=int, default=None, help="k for --aggregate pass@k")
    score.add_argument("--strict-ids", action="store_true",
                       help="refuse (exit 2) an id whose rows give different targets, aliases or options "
                            "(without it, --aggregate scores such an item against its first sample's target and "
                            "warns, counting them in the report)")
    _add_bootstrap_options(score)
    score.add_argument("--fail-on-variance", action="store_true",
                       help="exit 1 when a run-to-run coefficient of variation exceeds the threshold")
    score.add_argument("--cv-threshold", type=float, default=DEFAULT_CV_THRESHOLD, metavar="CV",
                       help=f"the coefficient of variation that is flagged (default {DEFAULT_CV_THRESHOLD})")
    score.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    score.add_argument("--signature", action="store_true",
                       help="print the full signature of the chains scored in the header (always in --format json)")
    add_stream_options(score)
    score.add_argument("--html", metavar="OUT.html",
                       help="also write the self-contained HTML report to this file (reads the input again)")
    add_html_options(score)
    score.set_defaults(func=cmd_score)

    compare = sub.add_parser("compare", help="paired bootstrap, McNemar and permutation tests of two scored files on their shared ids")
    add_pack_option(compare)
    compare.add_argument("a", metavar="A.jsonl", help="the baseline rows")
    compare.add_argument("b", metavar="B.jsonl", help="the rows compared with the baseline")
    add_source_options(compare, more_inputs=False)
    _add_bootstrap_options(compare)
    add_format_option(compare, help_json="the comparison")
    compare.add_argument("--json", action="store_const", const="json", dest="format", help="the same as --format json")
    compare.add_argument("--html", metavar="OUT.html", help="also write both runs and their comparison as HTML")
    add_html_options(compare)
    compare.set_defaults(func=cmd_compare)

    audit = sub.add_parser("audit", help="show a seeded sample of rows the rules changed, raw beside normalized")
    add_pack_option(audit)
    audit.add_argument("input", metavar="INPUT.jsonl", help="rows with id, task, output (target for run CVs)")
    add_source_options(audit)
    audit.add_argument("--n", type=int, default=30, help="how many changed rows to show (default 30)")
    audit.add_argument("--seed", type=int, default=0, help="seed of the random choice (default 0)")
    add_format_option(audit, help_json="counts, the chosen rows (raw, normalized, rules), run CVs, pack")
    audit.set_defaults(func=cmd_audit)


def _add_bootstrap_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")


def _check_bootstrap(args: argparse.Namespace) -> None:
    if args.bootstrap < 1:
        raise UsageError(f"--bootstrap must be at least 1, got {args.bootstrap}")
    if args.seed < 0:
        raise UsageError(f"--seed must be non-negative, got {args.seed}")


#: The module each metric needs beyond the core install, and the extra that brings it.
_METRIC_MODULES: Final[dict[str, tuple[str, str]]] = {
    **dict.fromkeys(("bleu", "chrf", "ter"), ("sacrebleu", "text")),
    **dict.fromkeys(("rouge1", "rouge2", "rougeL", "rougeLsum"), ("rouge_score", "text")),
    **dict.fromkeys(("wer", "cer"), ("jiwer", "text")),
    "bertscore": ("bert_score", "text"),
    "math_verify": ("math_verify", "math"),
}


def _missing_for(config: ScoringConfig) -> list[tuple[str, str, str]]:
    """``(metric, module, extra)`` for each metric of ``config`` (its row metric and its report's
    text metrics) whose module is not installed."""
    missing = []
    for name in dict.fromkeys((config.metric, *config.text.metrics)):
        needed = _METRIC_MODULES.get(name)
        if needed is not None and not _installed(needed[0]):
            missing.append((name, *needed))
    return missing


def _installed(module: str) -> bool:
    """Whether ``module`` can be found, without importing it (bert_score would import torch)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder that refuses it; a module left as None in sys.modules
        return False


def missing_extras(pack: Pack) -> dict[str, str]:
    """For each task name and task type name whose scoring needs a module that is not installed,
    the reason (naming the metric, the module and the extra to install); empty when none does."""
    names: dict[str, str] = {}
    for name in (*pack.task_types, *pack.tasks):
        kind = pack.task_type_of(name)
        if pack.family_of(kind) not in METRICS:
            continue
        missing = _missing_for(scoring_config(pack, name, kind))
        if missing:
            what = ", ".join(f"{metric} needs {module!r}" for metric, module, _ in missing)
            extras = " ".join(sorted({f"harness-normalize[{extra}]" for *_, extra in missing}))
            names[name] = (f"task {name!r} is scored with metrics from an optional extra that is not installed "
                           f"({what}): pip install '{extras}'")
    return names


def check_extras(pack: Pack, paths: Sequence[str | Path]) -> dict[str, str]:
    """Before any work: a :class:`UsageError` naming the extra when a row of ``paths`` has a task
    whose metrics need a module that is not installed.  Only when such a task exists are the
    inputs searched (a byte search for the task's name, then the lines holding it decoded), so
    a run whose rows need nothing missing pays nothing.  Returns :func:`missing_extras` (for
    stdin, which cannot be searched first, :func:`scoring._scorefile.score_chunk` refuses such a row when it comes)."""
    missing = missing_extras(pack)
    if not missing:
        return missing
    needles = {needle for name in missing for needle in (json.dumps(name).encode(),
                                                          json.dumps(name, ensure_ascii=False).encode())}
    for path in paths:
        if str(path) == "-":
            continue
        for number, raw in iter_lines(path):
            if not any(needle in raw for needle in needles):
                continue
            data = decode_line(raw, number, keep_text=False).data
            task = data.get("task") if data is not None else None
            if data is not None and isinstance(task, str) and task in missing and data.get("target") is not None:
                source = data.get("lm_eval")
                where = (f"{source.get('file')} line {source.get('line')}" if isinstance(source, dict)
                         else f"{path} line {number}")
                raise UsageError(f"{where}: {missing[task]} (or leave out its rows)")
    return missing


# --------------------------------------------------------------------------- score


def cmd_score(args: argparse.Namespace) -> int:
    _check_bootstrap(args)
    if args.aggregate == "pass@k" and (args.k is None or args.k < 1):
        raise UsageError(f"--aggregate pass@k needs --k of at least 1, got {args.k}")
    if args.k is not None and args.aggregate != "pass@k":
        raise UsageError("--k only applies to --aggregate pass@k")
    jobs = check_jobs(args.jobs)
    check_html_options(args)
    if args.html and args.input == "-":
        raise UsageError("--html needs an input file: the page reads the rows again, and stdin cannot be read "
                         "twice (normalize report - -o OUT.html reads stdin once)")
    if args.resume and args.input == "-":
        raise UsageError("--resume needs an input file: stdin cannot be read again")
    if args.resume and args.output in (None, "-"):
        raise UsageError("--resume needs -o OUT.jsonl: the scored rows written so far are what a run resumes from")
    pack = load_pack_from_args(args)
    args.input = source_input(args, pack)
    check_scoring(pack)
    needs_extras = check_extras(pack, [args.input])
    builder = ReportBuilder()
    strict_ids = bool(getattr(args, "strict_ids", False))
    samples = SampleAggregator(pack, args.aggregate, k=args.k, strict_ids=strict_ids) if args.aggregate else None
    conflicts = samples.conflicts if samples is not None else TargetConflicts(strict=True) if strict_ids else None
    keep_samples = samples is not None or conflicts is not None
    statuses: Counter[str] = Counter()  # every row's status: a run of invalid rows only is said once

    def consume(records: list[Record]) -> None:
        for sample, item in records:
            statuses[item.status] += 1
            if samples is None or sample is None:
                if conflicts is not None and sample is not None:
                    conflicts.add(sample.row)
                builder.add(item)
                continue
            samples.add(sample)
            if item.text is not None or item.ranking is not None or item.judge is not None:
                builder.add_sections(item)  # text, ranking and judge facts come from rows, not from aggregates

    in_fmt, out_fmt, rows_from = stream_formats(args)
    if args.html and in_fmt != "jsonl":
        raise UsageError(f"--html reads the input again and reads JSONL only, not {in_fmt}: convert it first "
                         "(normalize run IN.parquet -o IN.jsonl keeps every field)")
    meta = {"command": "score", "input": input_identity(args.input), "pack_hash": pack.hash, "signature": pack.signature,
            **format_meta(in_fmt, out_fmt)}
    rows_to = args.output if args.output is not None else os.devnull
    with MathVerifier() as verifier, interruptible() as interrupt, \
            open_output(None if rows_to == "-" else rows_to, meta=meta, resume=args.resume, atomic=rows_to != os.devnull,
                        output_format=out_fmt) as output:
        for line in output.kept_lines():  # the scored rows written so far, read back at the JSONL edge
            consume([score_record(read_scored(pack, restore_written_values(json.loads(line)), verifier=verifier),
                                  keep_sample=keep_samples)])
        worker = functools.partial(score_chunk, pack, args.output is not None, verifier if jobs == 1 else None,
                                   keep_samples=keep_samples, missing=needs_extras)
        with progress_bar(args.input, enabled=not args.no_progress, desc="score") as advance:
            done = run_job(args.input, output, worker, consume, jobs=jobs, interrupt=interrupt, on_chunk=advance,
                           rows_from=rows_from)
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
        if samples is not None:
            report["conflicting_targets"] = samples.conflicts.summary()
        output.commit()
    if args.html:
        write_score_html_from_file(args.html, pack, args.input, report, args)
    report_stream = sys.stderr if args.output == "-" else sys.stdout
    if args.report:
        write_atomically(args.report, json.dumps(report, ensure_ascii=False, indent=2, allow_nan=False) + "\n")
    print(render(report, args.format, color=use_color(report_stream), signature=args.signature), file=report_stream)
    if samples is not None and samples.conflicts:
        shown = samples.conflicts.summary(limit=3)
        more = f" (and {shown['ids'] - 3} more: see conflicting_targets in --report)" if shown["ids"] > 3 else ""
        print(f"normalize: warning: {shown['ids']} id(s) have samples with different targets; each was scored "
              f"against its first sample's (--strict-ids refuses them): {'; '.join(shown['first'])}{more}",
              file=sys.stderr)
    if statuses and statuses.get("invalid") == statuses.total() and (
            invalid := all_invalid_reason(args.input, pack, lines=None if rows_from is None else rows_from(0))
    ) is not None:
        print(f"normalize: every row is invalid ({invalid[2]}); the commonest reason ({invalid[1]} rows): "
              f"{invalid[0]}", file=sys.stderr)
        return EXIT_FINDINGS
    if args.fail_on_variance and report["flagged"]:
        return EXIT_FINDINGS
    return EXIT_OK


# --------------------------------------------------------------------------- compare


def _id_key(row: Row) -> str:
    """``task/id`` of a row that has an id."""
    return f"{task_label(row)}/{row.id if isinstance(row.id, str) else canonical_json(row.id)}"


#: A row's hypothesis, references and text-metric settings.
Texts = tuple[str, tuple[str, ...], TextSettings]


def per_id_texts(scored: Sequence[Scored]) -> dict[str, Texts]:
    """Hypothesis, references and text settings per ``task/id`` (the first row of an id)."""
    texts: dict[str, Texts] = {}
    for sample in scored:
        score = sample.score
        if score.texts is None or score.config is None or sample.row.id is None:
            continue
        texts.setdefault(_id_key(sample.row), (score.texts[0], score.texts[1], score.config.text))
    return texts


def paired_text_sections(a: Mapping[str, Texts], b: Mapping[str, Texts], *, n_resamples: int, seed: int) -> dict[str, Any]:
    """Per task: corpus-level B − A of each text metric on the shared ids (paired bootstrap)."""
    by_task: dict[str, list[str]] = {}
    for key in a:
        if key in b:
            by_task.setdefault(key.rsplit("/", 1)[0], []).append(key)
    out: dict[str, Any] = {}
    for task, keys in by_task.items():
        settings = {a[k][2] for k in keys} | {b[k][2] for k in keys}
        if len(settings) != 1:
            out[task] = {"note": "the two files' rows use different text-metric settings"}
            continue
        (chosen,) = settings
        out[task] = paired_text_report([a[k][0] for k in keys], [b[k][0] for k in keys], [a[k][1] for k in keys],
                                       chosen, n_resamples=n_resamples, seed=seed)
    return out


def per_id_values(scored: Sequence[Scored]) -> dict[str, float]:
    """Mean score per ``task/id`` over scorable rows (several runs or samples of an id are averaged)."""
    sums: dict[str, list[float]] = {}
    for sample in scored:
        if sample.score.outcome not in (SCORED, NO_ANSWER) or sample.row.id is None:
            continue
        sums.setdefault(_id_key(sample.row), []).append(sample.score.value)
    return {key: math.fsum(v) / len(v) for key, v in sums.items()}


def per_id_clusters(scored: Sequence[Scored]) -> dict[str, str]:
    """The ``cluster`` of each ``task/id`` that has one (the first row's): ``compare`` then resamples clusters."""
    clusters: dict[str, str] = {}
    for sample in scored:
        if sample.row.cluster is not None and sample.row.id is not None:
            clusters.setdefault(_id_key(sample.row), sample.row.cluster)
    return clusters


def cmd_compare(args: argparse.Namespace) -> int:
    _check_bootstrap(args)
    pack = load_pack_from_args(args)
    check_scoring(pack)
    check_html_options(args)
    input_a, input_b = source_input(args, pack, args.a), source_input(args, pack, args.b)
    check_extras(pack, [input_a, input_b])
    with MathVerifier() as verifier:
        scored_a = score_file(pack, input_a, verifier=verifier)
        scored_b = score_file(pack, input_b, verifier=verifier)
        if args.html:
            write_compare_html(args.html, pack, [(args.a, *scored_a), (args.b, *scored_b)], args, verifier)
    a, b = per_id_values(scored_a[1]), per_id_values(scored_b[1])
    texts = paired_text_sections(per_id_texts(scored_a[1]), per_id_texts(scored_b[1]),
                                 n_resamples=args.bootstrap, seed=args.seed)
    signature = pack.signature_for(
        {sample.row.task_type for sample in (*scored_a[1], *scored_b[1]) if sample.row.task_type})
    shared = [key for key in a if key in b]
    only_a = [key for key in a if key not in b]
    only_b = [key for key in b if key not in a]
    if not shared:
        raise UsageError(f"{args.a} and {args.b} share no scorable ids")
    clusters = per_id_clusters([*scored_a[1], *scored_b[1]])
    result = paired_bootstrap([a[k] for k in shared], [b[k] for k in shared], n_resamples=args.bootstrap, seed=args.seed,
                              clusters=[clusters.get(k) for k in shared] if clusters else None)
    mean_a = math.fsum(a[k] for k in shared) / len(shared)
    mean_b = math.fsum(b[k] for k in shared) / len(shared)
    tests = paired_tests([a[k] for k in shared], [b[k] for k in shared], n_resamples=max(args.bootstrap, 1000) * 10,
                         seed=args.seed)
    if args.format == "json":
        print(json.dumps({
            "a": args.a, "b": args.b, "shared": len(shared), "mean_a": mean_a, "mean_b": mean_b,
            "diff": result.diff, "low": result.low, "high": result.high, "p_b_le_a": result.p_b_le_a,
            "bootstrap": {"method": "paired percentile" + (" over clusters" if clusters else ""),
                          "n_resamples": args.bootstrap, "seed": args.seed, "confidence": 0.95},
            "mcnemar": tests["mcnemar"], "permutation": tests["permutation"], "mdd": tests["mdd"],
            "text_metrics": texts,
            "only_in_a": only_a, "only_in_b": only_b,
            "pack": {"signature": signature, "hash": pack.hash},
        }, ensure_ascii=False, indent=2))
        return EXIT_OK
    print(f"A: {args.a}  mean {mean_a:.3f} over {len(shared)} shared ids")
    print(f"B: {args.b}  mean {mean_b:.3f}")
    print(f"difference B − A: {result.diff:+.3f}  95% CI [{result.low:+.3f}, {result.high:+.3f}] "
          f"(paired percentile bootstrap, {args.bootstrap} resamples, seed {args.seed})")
    print(f"share of resamples with B ≤ A: {result.p_b_le_a:.3f}")
    mc = tests["mcnemar"]
    if mc["note"]:
        print(f"McNemar: {mc['note']}")
    else:
        print(f"McNemar: only A right {mc['b']}, only B right {mc['c']}; exact p {mc['p_exact']:.4f}, "
              f"χ² (continuity-corrected) {mc['statistic']:.3f}, p {mc['p_chi2']:.4f}")
    perm = tests["permutation"]
    print(f"paired permutation test: p {perm['p']:.4f} "
          f"({'exact, ' if perm['exact'] else ''}{perm['n_permutations']} sign patterns, seed {args.seed})")
    mdd = tests["mdd"]
    print(f"minimum detectable difference with {len(shared)} paired items: {mdd['paired']:.3f} "
          f"(two-sided 5 %, 80 % power; independent samples at mean A: {mdd['unpaired']:.3f})")
    for task, block in texts.items():
        if "note" in block:
            print(f"text metrics, {task}: {block['note']}")
            continue
        print(f"text metrics, {task}: corpus-level B − A, paired bootstrap over sentences:")
        for name, m in block.items():
            digits = 2 if m["scale"] == 100 else 3
            arrow = "" if m["higher_is_better"] else ", lower is better"
            print(f"  {name:<9} A {m['a']:.{digits}f}  B {m['b']:.{digits}f}  B − A {m['diff']:+.{digits}f} "
                  f"[{m['low']:+.{digits}f}, {m['high']:+.{digits}f}]  share B not better {m['p_b_not_better']:.3f}"
                  f"  ({m['signature']}{arrow})")
    for label, keys in (("A", only_a), ("B", only_b)):
        if keys:
            shown = ", ".join(keys[:_LIST_IDS]) + (f", … ({len(keys) - _LIST_IDS} more)" if len(keys) > _LIST_IDS else "")
            print(f"ids only in {label} ({len(keys)}, left out): {shown}")
    print(f"pack: {signature}")
    print(f"hash: {pack.hash}")
    return EXIT_OK

def paired_tests(a: Sequence[float], b: Sequence[float], *, n_resamples: int, seed: int) -> dict[str, Any]:
    """McNemar (when every value is 0 or 1), a paired permutation test, and the minimum
    detectable difference of this many paired items (from the observed second moment of the
    per-item differences — the discordance rate for right/wrong items — shrunk toward 1/2 by
    :func:`~scoring.pairwise.shrunk_rate`, so identical systems do not claim that every
    difference is detectable)."""
    binary = all(v in (0.0, 1.0) for v in (*a, *b))
    if binary:
        mc = mcnemar([v == 1.0 for v in a], [v == 1.0 for v in b])
        mc_json: dict[str, Any] = {**mc._asdict(), "note": None}
    else:
        mc_json = {"note": "needs right/wrong items (per-id values of 0 or 1); these are graded"}
    perm = paired_permutation(a, b, n_resamples=n_resamples, seed=seed)
    n = len(a)
    second = math.fsum((y - x) ** 2 for x, y in zip(a, b, strict=True)) / n
    mean_a = math.fsum(a) / n
    return {
        "mcnemar": mc_json,
        "permutation": {**perm._asdict(), "seed": seed},
        "mdd": {
            "paired": minimum_detectable_difference(n, discordance=shrunk_rate(min(1.0, second), n)),
            "unpaired": minimum_detectable_difference(n, accuracy=shrunk_rate(min(1.0, max(0.0, mean_a)), n)),
            "alpha": 0.05,
            "power": 0.8,
        },
    }


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


def raw_exact(row: Row) -> float | None:
    """1.0 when the raw output equals the target after stripping, 0.0 if not, None without a target.

    A target that is not a string is compared in canonical JSON (so ``1`` matches ``"1"``).

    >>> raw_exact(Row("t", " 42 ", target=42)), raw_exact(Row("t", None, target="42")), raw_exact(Row("t", "42"))
    (1.0, 0.0, None)
    """
    if row.target is None:
        return None
    wanted = row.target if isinstance(row.target, str) else canonical_json(row.target)
    return float(row.output is not None and row.output.strip() == wanted.strip())


def _run_cv(values_by_run: Mapping[str, list[float]]) -> tuple[float | None, dict[str, float], str | None]:
    means = {run: math.fsum(v) / len(v) for run, v in values_by_run.items() if v}
    if len(means) < 2:
        return None, means, "fewer than two runs with targets"
    try:
        return coefficient_of_variation(list(means.values())), means, None
    except ValueError as exc:
        return None, means, str(exc)


def _rules(result: Result) -> list[str]:
    """The rules that changed a result's text, as ``name.vN``, in order."""
    return [f"{step.rule}.v{step.version}" for step in result.trace]


def cmd_audit(args: argparse.Namespace) -> int:
    if args.n < 0:
        raise UsageError(f"--n must be non-negative, got {args.n}")
    pack = load_pack_from_args(args)
    typed = list(normalize_rows_typed(pack, read_jsonl(source_input(args, pack)), progress=False))
    changed = [i for i, n in enumerate(typed) if n.result is not None and n.result.trace]
    flags, chosen = audit_choice(pack, typed, changed, args.n, args.seed)
    # a changed or flagged row has a result: the test only narrows the type
    shown = [(typed[i].row, result, flags[i]) for i in chosen if (result := typed[i].result) is not None]
    cvs = run_cvs(pack, typed) if any(n.row.run is not None for n in typed) else None
    signature = pack.signature_for({n.row.task_type for n in typed if n.row.task_type})
    if args.format == "json":
        print(json.dumps({
            "rows": len(typed), "changed": len(changed), "seed": args.seed,
            "flipped": flags.count(FLIPPED), "weak_tier": flags.count(WEAK),
            "shown": [{
                "line": row.line, "id": row.id, "task": task_label(row), "status": result.status,
                "answer": result.answer, "rules": _rules(result), "raw": row.output, "normalized": result.text,
                "first_because": flag or None,
            } for row, result, flag in shown],
            "run_cv": cvs,
            "pack": {"signature": signature, "hash": pack.hash},
        }, ensure_ascii=False, indent=2, default=str))
        return EXIT_OK
    color = use_color()
    print(f"{len(changed)} of {len(typed)} rows were changed by the rules; showing {len(chosen)} (seed {args.seed}): "
          f"first the {flags.count(FLIPPED)} where normalization flipped the verdict, then the "
          f"{flags.count(WEAK)} parsed by a weak tier (last number), then a sample of the rest")
    for row, result, flag in shown:
        raw, normalized = row.output, result.text
        print()
        print(f"line {row.line}  id {row.id!r}  task {task_label(row)}  status {result.status}  "
              f"answer {json.dumps(result.answer, ensure_ascii=False, default=str)}"
              + (f"  [{flag}]" if flag else ""))
        print(f"  rules: {', '.join(_rules(result))}")
        print("  raw:")
        print(_indent(str(raw)))
        print("  normalized:")
        print(_indent(str(normalized)))
        if raw is not None and normalized is not None:
            print("  changes:")
            print(_indent(mark_differences(raw, normalized, color=color)))
    if cvs is not None:
        print()
        print("run-to-run spread (coefficient of variation of per-run accuracy):")
        for label, block in (("raw exact match", cvs["raw_exact"]), ("normalized score", cvs["normalized"])):
            runs = ", ".join(f"{run}={value:.3f}" for run, value in sorted(block["runs"].items()))
            shown_cv = "-" if block["cv"] is None else f"{block['cv']:.4f}"
            print(f"  {label:<17} CV {shown_cv}  ({runs})" + (f"  {block['note']}" if block["note"] else ""))
    print()
    print(f"pack: {signature}")
    print(f"hash: {pack.hash}")
    return EXIT_OK


def audit_choice(pack: Pack, typed: Sequence[Normalized], changed: Sequence[int], n: int,
                 seed: int) -> tuple[list[str], list[int]]:
    """Each row's audit flag, and the rows to show in order: those where normalization flipped the
    verdict, then those parsed by a weak tier (file order), then a seeded sample of the other
    changed rows, ``n`` in all."""
    check_scoring(pack)
    missing = missing_extras(pack)  # rows whose metric needs a module not installed: never flagged, only sampled
    scorable = [i for i, t in enumerate(typed) if not (t.row.task in missing and t.row.target is not None)]
    flags = [REST] * len(typed)
    with MathVerifier() as verifier:
        scored = [Scored(typed[i].row, typed[i].result,
                         score_result(pack, typed[i].row, typed[i].result, verifier=verifier)) for i in scorable]
        for i, flag in zip(scorable, audit_flags(pack, scored, verifier=verifier), strict=True):
            flags[i] = flag
    first = sorted((i for i, f in enumerate(flags) if f), key=lambda i: (RANK[flags[i]], i))[:n]
    taken = set(first)
    rest = [i for i in changed if i not in taken]
    return flags, first + sorted(random.Random(seed).sample(rest, min(n - len(first), len(rest))))


def run_cvs(pack: Pack, rows: Sequence[Normalized]) -> dict[str, Any]:
    """Per-run accuracy and its coefficient of variation, on raw exact match and on the score."""
    check_scoring(pack)
    missing = missing_extras(pack)  # rows whose metric needs a module not installed: raw exact match only
    raw_by_run: dict[str, list[float]] = {}
    norm_by_run: dict[str, list[float]] = {}
    with MathVerifier() as verifier:
        for normalized in rows:
            row = normalized.row
            if row.run is None:
                continue
            raw = raw_exact(row)
            if raw is not None:
                raw_by_run.setdefault(row.run, []).append(raw)
            if row.task in missing and row.target is not None:
                continue
            score = score_result(pack, row, normalized.result, verifier=verifier)
            if score.outcome in (SCORED, NO_ANSWER):
                norm_by_run.setdefault(row.run, []).append(score.value)
    document: dict[str, Any] = {}
    for key, by_run in (("raw_exact", raw_by_run), ("normalized", norm_by_run)):
        cv, means, note = _run_cv(by_run)
        document[key] = {"cv": cv, "runs": means, "note": note}
    return document
