"""``normalize run``, ``normalize explain`` and ``normalize hash``."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections import Counter
from typing import Any

from normalize.cli._common import (
    EXIT_INTERRUPTED,
    add_format_option,
    add_pack_option,
    load_pack_from_args,
)
from normalize.core.pack import Pack
from normalize.errors import UsageError
from normalize.io._jsonl import decode_held, encode_row, encode_row_taking
from normalize.io.lm_eval_log import add_source_options, source_input
from normalize.io.row import read_lang
from normalize.io.rows import all_invalid_reason, output_row
from normalize.io.stream import (
    BIG_ROW_BYTES,
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
    take_line,
)


def register(sub: Any) -> None:
    run = sub.add_parser("run", help="normalize and parse every row of a JSONL file")
    add_pack_option(run)
    run.add_argument("input", metavar="INPUT.jsonl", help="rows with id, task, output (- for stdin); "
                     "also .parquet or .arrow (see --input-format)")
    run.add_argument("-o", "--output", metavar="OUT.jsonl", help="where to write rows (default: stdout); "
                     "also .parquet or .arrow (see --output-format)")
    add_source_options(run)
    run.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_stream_options(run)
    run.add_argument(
        "--trace",
        choices=("full", "rules", "none"),
        default="full",
        help="full: each changing rule with the text before and after (default); rules: only "
        "their names and versions, for large files; none: no trace",
    )
    add_format_option(run, help_json="the summary on stderr as one JSON object (rows are always JSONL)")
    run.set_defaults(func=cmd_run)

    explain = sub.add_parser("explain", help="show each rule that changes a text, before and after")
    add_pack_option(explain)
    explain.add_argument("--task", required=True, help="a task name (gsm8k) or task type (math)")
    explain.add_argument("--options", type=int, default=None, help="number of options (multiple choice)")
    explain.add_argument("--lang", default=None, help="the row's language tag (ar, ja, pt-br): its answer markers apply")
    explain.add_argument("text", help="the raw model output; literal \\n stays literal; - reads it from stdin")
    add_format_option(explain, help_json="task, type, raw, trace, normalized, answer, status, reason, pack")
    explain.set_defaults(func=cmd_explain)

    hash_ = sub.add_parser("hash", help="print the pack signature and hash")
    add_pack_option(hash_)
    add_format_option(hash_, help_json="name, signature, hash and the resolved configuration")
    hash_.add_argument("--json", action="store_const", const="json", dest="format",
                       help="the same as --format json")
    hash_.set_defaults(func=cmd_hash)


def cmd_run(args: argparse.Namespace) -> int:
    pack = load_pack_from_args(args)
    args.input = source_input(args, pack)
    jobs = check_jobs(args.jobs)
    if args.resume and args.input == "-":
        raise UsageError("--resume needs an input file: stdin cannot be read again")
    statuses: Counter[str] = Counter()
    in_fmt, out_fmt, rows_from = stream_formats(args)
    meta = {"command": "run", "input": input_identity(args.input), "pack_hash": pack.hash, "trace": args.trace,
            "signature": pack.signature, **format_meta(in_fmt, out_fmt)}
    worker = functools.partial(run_chunk, pack, args.trace)

    def consume(records: list[str]) -> None:
        statuses.update(records)

    with interruptible() as interrupt, \
            open_output(args.output, meta=meta, resume=args.resume, output_format=out_fmt) as output:
        for line in output.kept_lines():
            statuses[str(json.loads(line).get("status"))] += 1
        with progress_bar(args.input, enabled=not args.no_progress, desc="normalize") as advance:
            done = run_job(args.input, output, worker, consume, jobs=jobs, interrupt=interrupt, on_chunk=advance,
                           rows_from=rows_from)
        if done.interrupted:
            output.stop()
            print(stopped_message(output, done), file=sys.stderr)
            return EXIT_INTERRUPTED
        output.commit()
    code = 0
    if done.rows and statuses.get("invalid") == done.rows:  # every row invalid: a failed run, said once
        invalid = all_invalid_reason(args.input, pack, lines=None if rows_from is None else rows_from(0))
        if invalid is not None:
            code = 1
            print(f"normalize: every row is invalid ({invalid[2]}); the commonest reason ({invalid[1]} rows): "
                  f"{invalid[0]}", file=sys.stderr)
    if args.format == "json":
        document = {"rows": done.rows, "statuses": dict(sorted(statuses.items())),
                    "pack": {"signature": pack.signature, "hash": pack.hash}}
        print(json.dumps(document, ensure_ascii=False), file=sys.stderr)
        return code
    summary = ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
    print(f"{done.rows} rows ({summary}) | {pack.signature}", file=sys.stderr)
    return code


def run_chunk(pack: Pack, trace: str, chunk: list[tuple[int, bytes]]) -> tuple[bytes, list[str]]:
    """Normalize a chunk of raw lines: their output lines and statuses, in order."""
    parts: list[bytes] = []
    statuses: list[str] = []
    for index in range(len(chunk)):
        number, held = take_line(chunk, index)
        big = len(held[0]) >= BIG_ROW_BYTES
        line = decode_held(held, number)  # a huge row's bytes go once decoded
        out = output_row(pack, line, trace)  # with --trace none, no trace is built
        del line
        statuses.append(str(out.get("status")))
        parts.append(encode_row_taking(out) if big else encode_row(out))  # a huge row's values go once written
    return b"".join(parts), statuses


def format_explanation(pack: Pack, text: str, task: str, options: int | None = None, lang: str | None = None) -> str:
    """A readable account of each rule that changed ``text``, then the result."""
    result = pack.run(text, task, options=options, lang=read_lang(lang))
    lines = [f"task: {task} (type {result.task_type})" + (f", lang {lang}" if lang else ""), f"raw: {text!r}"]
    if not result.trace:
        lines.append("no rule changed the text")
    for step in result.trace:
        lines.append(f"  [{step.index}] {step.rule} v{step.version}")
        lines.append(f"      before: {step.before!r}")
        lines.append(f"      after:  {step.after!r}")
    lines.append(f"normalized: {result.text!r}")
    lines.append(f"answer: {json.dumps(result.answer, ensure_ascii=False)}  status: {result.status}"
                 + (f"  reason: {result.reason}" if result.reason else ""))
    lines.append(f"pack: {pack.signature_for([result.task_type])}")
    return "\n".join(lines)


def explanation_json(pack: Pack, text: str, task: str, options: int | None = None, lang: str | None = None) -> dict[str, Any]:
    """What :func:`format_explanation` says, as JSON data."""
    result = pack.run(text, task, options=options, lang=read_lang(lang))
    return {
        "task": task,
        "task_type": result.task_type,
        "raw": text,
        "trace": [step.to_json() for step in result.trace],
        "normalized": result.text,
        "answer": result.answer,
        "status": result.status,
        "reason": result.reason,
        "pack": {"signature": pack.signature_for([result.task_type]), "hash": pack.hash},
    }


def cmd_explain(args: argparse.Namespace) -> int:
    pack = load_pack_from_args(args)
    text = sys.stdin.read() if args.text == "-" else args.text
    if args.format == "json":
        print(json.dumps(explanation_json(pack, text, args.task, args.options, args.lang), ensure_ascii=False, indent=2))
    else:
        print(format_explanation(pack, text, args.task, args.options, args.lang))
    return 0


def cmd_hash(args: argparse.Namespace) -> int:
    pack = load_pack_from_args(args)
    if args.format == "json":
        document = {"name": pack.name, "signature": pack.signature, "hash": pack.hash, "resolved": pack.resolved()}
        print(json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True))
        return 0
    print(pack.signature)
    print(pack.hash)
    return 0
