"""``normalize run``, ``normalize explain`` and ``normalize hash``."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from normalize._io import to_input_row
from normalize._jsonl import decode_line, encode_row
from normalize._stream import (
    EXIT_INTERRUPTED,
    check_jobs,
    input_identity,
    interruptible,
    open_output,
    run_job,
    stopped_message,
)
from normalize._version import __version__
from normalize.pack import Pack, load_pack
from normalize.rows import normalize_row

#: Inputs of at least this many bytes get a progress bar when stderr is a terminal.
PROGRESS_MIN_BYTES = 4 << 20


def add_pack_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pack", metavar="FILE", help="a pack YAML file (default: the shipped packs)")


def add_stream_options(parser: argparse.ArgumentParser) -> None:
    """``--jobs`` and ``--resume``, shared by ``run`` and ``score``."""
    parser.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                        help="worker processes (default: every core); the output is the same for any N")
    parser.add_argument("--resume", action="store_true",
                        help="continue an interrupted run from the complete rows of OUT.jsonl.partial")


def register(sub: Any) -> None:
    run = sub.add_parser("run", help="normalize and parse every row of a JSONL file")
    add_pack_option(run)
    run.add_argument("input", metavar="INPUT.jsonl", help="rows with id, task, output (- for stdin)")
    run.add_argument("-o", "--output", metavar="OUT.jsonl", help="where to write rows (default: stdout)")
    run.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_stream_options(run)
    run.add_argument(
        "--trace",
        choices=("full", "rules", "none"),
        default="full",
        help="full: each changing rule with the text before and after (default); rules: only "
        "their names and versions, for large files; none: no trace",
    )
    run.set_defaults(func=cmd_run)

    explain = sub.add_parser("explain", help="show each rule that changes a text, before and after")
    add_pack_option(explain)
    explain.add_argument("--task", required=True, help="a task name (gsm8k) or task type (math)")
    explain.add_argument("--options", type=int, default=None, help="number of options (multiple choice)")
    explain.add_argument("text", help="the raw model output; literal \\n stays literal")
    explain.set_defaults(func=cmd_explain)

    hash_ = sub.add_parser("hash", help="print the pack signature and hash")
    add_pack_option(hash_)
    hash_.add_argument("--json", action="store_true", help="also print the resolved configuration")
    hash_.set_defaults(func=cmd_hash)


def cmd_run(args: argparse.Namespace) -> int:
    pack = load_pack(args.pack)
    jobs = check_jobs(args.jobs)
    if args.resume and args.input == "-":
        raise ValueError("--resume needs an input file: stdin cannot be read again")
    statuses: Counter[str] = Counter()
    meta = {"command": "run", "input": input_identity(args.input), "pack_hash": pack.hash, "trace": args.trace,
            "version": __version__}
    worker = functools.partial(run_chunk, pack, args.trace)

    def consume(records: list[str]) -> None:
        statuses.update(records)

    with interruptible() as interrupt, open_output(args.output, meta=meta, resume=args.resume) as output:
        for line in output.kept_lines():
            statuses[str(json.loads(line).get("status"))] += 1
        with progress_bar(args.input, enabled=not args.no_progress, desc="normalize") as advance:
            done = run_job(args.input, output, worker, consume, jobs=jobs, interrupt=interrupt, on_chunk=advance)
        if done.interrupted:
            output.stop()
            print(stopped_message(output, done), file=sys.stderr)
            return EXIT_INTERRUPTED
        output.commit()
    summary = ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
    print(f"{done.rows} rows ({summary}) | {pack.signature}", file=sys.stderr)
    return 0


def run_chunk(pack: Pack, trace: str, chunk: list[tuple[int, bytes]]) -> tuple[bytes, list[str]]:
    """Normalize a chunk of raw lines: their output lines and statuses, in order."""
    parts: list[bytes] = []
    statuses: list[str] = []
    for number, raw in chunk:
        out = shape_trace(normalize_row(pack, to_input_row(decode_line(raw, number))), trace)
        parts.append(encode_row(out))
        statuses.append(str(out.get("status")))
    return b"".join(parts), statuses


@contextmanager
def progress_bar(path: str, *, enabled: bool, desc: str) -> Iterator[Callable[[int], None] | None]:
    """A row counter on stderr for inputs of at least :data:`PROGRESS_MIN_BYTES` when stderr is a terminal."""
    big = path != "-" and Path(path).is_file() and Path(path).stat().st_size >= PROGRESS_MIN_BYTES
    if not (enabled and big and sys.stderr.isatty()):
        yield None
        return
    from tqdm import tqdm

    with tqdm(desc=desc, unit="row", file=sys.stderr) as bar:

        def advance(rows: int) -> None:
            bar.update(rows)

        yield advance


def shape_trace(out: dict[str, Any], mode: str) -> dict[str, Any]:
    """Keep the full trace, only the rule names and versions, or none of it."""
    if mode == "none":
        out.pop("trace", None)
    elif mode == "rules" and "trace" in out:
        out["trace"] = [{"index": s["index"], "rule": s["rule"], "version": s["version"]} for s in out["trace"]]
    return out


def format_explanation(pack: Pack, text: str, task: str, options: int | None = None) -> str:
    """A readable account of each rule that changed ``text``, then the result."""
    result = pack.run(text, task, options=options)
    lines = [f"task: {task} (type {result.task_type})", f"raw: {text!r}"]
    if not result.trace:
        lines.append("no rule changed the text")
    for step in result.trace:
        lines.append(f"  [{step.index}] {step.rule} v{step.version}")
        lines.append(f"      before: {step.before!r}")
        lines.append(f"      after:  {step.after!r}")
    lines.append(f"normalized: {result.text!r}")
    lines.append(f"answer: {json.dumps(result.answer, ensure_ascii=False)}  status: {result.status}"
                 + (f"  reason: {result.reason}" if result.reason else ""))
    lines.append(f"pack: {pack.signature}")
    return "\n".join(lines)


def cmd_explain(args: argparse.Namespace) -> int:
    pack = load_pack(args.pack)
    print(format_explanation(pack, args.text, args.task, args.options))
    return 0


def cmd_hash(args: argparse.Namespace) -> int:
    pack = load_pack(args.pack)
    print(pack.signature)
    print(pack.hash)
    if args.json:
        print(json.dumps(pack.resolved(), ensure_ascii=False, indent=2, sort_keys=True))
    return 0
