"""``normalize loglik`` and ``normalize generate``: the LM scorer's commands (extra ``lm``).

Importing this module (the CLI does, to register the commands) never imports torch or
transformers; the handlers check for them and exit 2 with an install hint when missing.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from normalize import status as st
from normalize.cli import EXIT_OK, EXIT_USAGE, add_format_option
from normalize.errors import UsageError
from normalize.io.jsonl import InputRow, read_jsonl, write_jsonl
from normalize.io.row import read_options_value
from normalize.io.stream import write_atomically
from scoring.cache import Cache
from scoring.lm._backends import (
    CachedScorer,
    add_backend_options,
    make_generator,
    make_loglik_backend,
    summary,
)

if TYPE_CHECKING:
    from scoring.lm.choice import RowResult

INSTALL_HINT = "the LM commands need torch and transformers: install harness-normalize[lm]"


def batch_size_arg(value: str) -> int | None:
    """``auto`` (None) or a positive integer.

    >>> batch_size_arg("auto") is None, batch_size_arg("8")
    (True, 8)
    """
    if value == "auto":
        return None
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'auto' or a positive integer, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected 'auto' or a positive integer, got {value!r}")
    return number


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, metavar="DIR|NAME",
                        help="a local Hugging Face causal LM directory (nothing is downloaded); with "
                             "--backend openai the served model's name")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                        help="where to run the model (default: cuda when present)")
    parser.add_argument("--dtype", choices=("auto", "float32", "bfloat16", "float16"), default="auto",
                        help="weights dtype (default: bfloat16 on cuda, float32 on cpu)")
    parser.add_argument("--batch-size", type=batch_size_arg, default=None, metavar="auto|N",
                        help="rows per forward pass (default: auto, halved on out-of-memory)")
    parser.add_argument("--cache", metavar="FILE", help="an SQLite cache file (created if missing)")
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")


def register(sub: Any) -> None:
    loglik = sub.add_parser("loglik", help="score multiple-choice rows by log-likelihood (acc, acc_norm, PMI)")
    _add_model_options(loglik)
    loglik.add_argument("input", metavar="DATA.jsonl", help="rows with id, context/question, options, target")
    loglik.add_argument("-o", "--output", metavar="OUT.jsonl",
                        help="write every row with its log-likelihoods and per-metric predictions "
                             "(- for stdout; the report then goes to stderr)")
    loglik.add_argument("--report", metavar="REPORT.json", help="also write the report as JSON to this file")
    loglik.add_argument("--format", choices=("text", "table", "markdown", "json"), default="text",
                        help="text (= table, the default), markdown, or json: one JSON document")
    loglik.add_argument("--html", metavar="OUT.html",
                        help="also write the calibration of the choice probabilities (reliability diagram) as HTML")
    loglik.set_defaults(func=cmd_loglik)
    add_backend_options(loglik, loglik=True)

    generate = sub.add_parser("generate", help="generate predictions for a prompts JSONL (greedy or sampled)")
    _add_model_options(generate)
    generate.add_argument("input", metavar="PROMPTS.jsonl", help="rows with id, prompt, task, target...")
    generate.add_argument("-o", "--output", metavar="PREDICTIONS.jsonl",
                          help="prediction rows for `normalize score` (default: stdout)")
    generate.add_argument("-n", type=int, default=1, metavar="N", help="samples per prompt (default: 1)")
    generate.add_argument("--temperature", type=float, default=0.0, help="0 = greedy (default: 0)")
    generate.add_argument("--top-p", type=float, default=1.0, help="nucleus mass (default: 1, off)")
    generate.add_argument("--top-k", type=int, default=0, help="keep the k most likely tokens (default: 0, off)")
    generate.add_argument("--seed", type=int, default=0, help="base seed; a row's 'seed' overrides it (default: 0)")
    generate.add_argument("--max-new-tokens", type=int, default=128, help="default: 128")
    generate.add_argument("--stop", action="append", default=[], metavar="STR",
                          help="stop string (repeatable; taken literally, so a newline is $'\\n' in bash); "
                               "the output is cut before the first one")
    add_format_option(generate, help_json="the summary on stderr as one JSON object (rows are always JSONL)")
    generate.set_defaults(func=cmd_generate)
    add_backend_options(generate, loglik=False)


# --------------------------------------------------------------------------- helpers


def lm_available() -> bool:
    """Whether torch and transformers import (the handlers need them right after anyway)."""
    try:
        importlib.import_module("torch")
        importlib.import_module("transformers")
    except ImportError:
        return False
    return True


def _fail(message: str) -> int:
    print("normalize: error: " + " ".join(message.split()), file=sys.stderr)
    return EXIT_USAGE


def _show_progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and sys.stderr.isatty()


# --------------------------------------------------------------------------- generate


def cmd_generate(args: argparse.Namespace) -> int:
    if args.backend == "hf" and not lm_available():
        return _fail(INSTALL_HINT)
    from scoring.lm._model import ModelLoadError
    from scoring.lm.generate import LocalGenerator, SamplingParams, generate_rows

    params = SamplingParams(n=args.n, temperature=args.temperature, top_p=args.top_p, top_k=args.top_k,
                            max_new_tokens=args.max_new_tokens, seed=args.seed, stop=tuple(args.stop))
    rows = read_jsonl(args.input)
    cache = Cache(args.cache) if args.cache else None
    started = time.monotonic()
    try:
        generator = make_generator(args, cache) or LocalGenerator(
            args.model, device=args.device, dtype=args.dtype, batch_size=args.batch_size, cache=cache)
        statuses: Counter[str] = Counter()

        def counted() -> Iterator[dict[str, Any]]:
            for out in generate_rows(rows, generator, params, progress=_show_progress(args)):
                statuses[str(out.get("status", "generated"))] += 1
                yield out

        written = write_jsonl(counted(), args.output)
    except ModelLoadError as exc:
        return _fail(str(exc))
    finally:
        if cache is not None:
            cache.close()
    statuses_text = ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
    cached = ""
    if cache is not None:
        hits = cache.stats().by_table["generations"]
        cached = f" | cache {hits['hits']} hits, {hits['misses']} misses"
    elapsed = time.monotonic() - started
    if args.format == "json":
        document: dict[str, Any] = {
            "rows": written, "statuses": dict(sorted(statuses.items())),
            "model": {"id": generator.model_id, "revision": generator.revision, "dtype": str(generator.dtype)},
            "new_tokens": generator.generated_tokens, "seconds": round(elapsed, 3),
            "cache": cache.stats().by_table["generations"] if cache is not None else None,
        }
        print(json.dumps(document, ensure_ascii=False, default=str), file=sys.stderr)
        return EXIT_OK
    speed = f" in {elapsed:.1f}s ({generator.generated_tokens / elapsed:.1f} tok/s)" if elapsed > 0 else ""
    extra = "".join(f" | {part}" for part in summary(generator))
    print(f"{written} rows ({statuses_text}) | {generator.model_id} {generator.revision} {generator.dtype}"
          f" | {generator.generated_tokens} new tokens{speed}{cached}{extra}", file=sys.stderr)
    return EXIT_OK


# --------------------------------------------------------------------------- loglik


def choice_row(data: dict[str, Any]) -> dict[str, Any]:
    """A row in the shape ``scoring.lm.choice.score_rows`` reads: ``context`` (or ``prompt`` /
    ``question``), ``choices`` (or ``options``), an integer ``target`` (a letter ``"B"`` is
    turned into its index when the row has choices).

    >>> choice_row({"question": "2+2=", "options": ["3", "4"], "target": "B"})["target"]
    1
    """
    row = dict(data)
    if "context" not in row:
        for alias in ("prompt", "question"):
            if alias in row:
                row["context"] = row[alias]
                break
    if "choices" not in row and row.get("options") is not None:
        # the one reader of ``options`` (numpy arrays and series too); a count or a bad value
        # is passed on as written, and the row check then says what is wrong with it
        try:
            options = read_options_value(row["options"])
        except ValueError:
            options = None
        row["choices"] = list(options) if isinstance(options, tuple) else row["options"]
    target, choices = row.get("target"), row.get("choices")
    if isinstance(target, str) and len(target.strip()) == 1 and isinstance(choices, list):
        index = ord(target.strip().upper()) - ord("A")
        if 0 <= index < len(choices):
            row["target"] = index
    return row


def loglik_rows(rows: Sequence[InputRow], results: Sequence[RowResult]) -> Iterator[dict[str, Any]]:
    """One output row per input row, in order: the input fields plus the scores; ``status`` is
    ``ok``, ``invalid`` (a malformed row) or ``error`` (the model could not score it)."""
    scored = iter(results)
    for row in rows:
        if row.data is None:
            yield row.invalid_output()
            continue
        result = next(scored).to_dict()
        out = dict(row.data)
        result.pop("id", None)
        error = result.get("error")
        if result.get("kind") == "choice":
            out["target_index"] = result.pop("target")
            status = st.OK if error is None else (st.INVALID if out["target_index"] is None else st.ERROR)
        else:
            status = st.OK if error is None else st.ERROR
        out.update(result)
        out["status"] = status
        out["reason"] = error
        yield out


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def render_choice_report(report: Mapping[str, Any], fmt: str) -> str:
    """The loglik report as an aligned table, a Markdown table or JSON."""
    if fmt == "json":
        return json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True)
    if fmt not in ("text", "table", "markdown"):
        raise UsageError(f"format must be table, markdown or json, got {fmt!r}")
    level = f"{round(100 * report['confidence'])}% CI"
    header = ["metric", "n", "accuracy", level]
    body = [[m["metric"], str(m["n"]), _num(m["accuracy"]), f"[{_num(m['ci_low'])}, {_num(m['ci_high'])}]"]
            for m in report["metrics"].values()]
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in body]
    else:
        widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [header, *body]]
    notes = [
        f"rows {report['n_rows']}, errors {report['n_errors']}, with whitespace warnings {report['n_warned']}",
        f"acc vs acc_norm disagreement: {_num(report['acc_vs_acc_norm_disagreement'])}"
        f" (acc_norm equals acc by construction on {report['n_acc_norm_same_as_acc']} single-letter rows)",
    ]
    cal = report.get("calibration")
    if cal and cal["n"]:
        notes.append(f"calibration of the choice probabilities over {cal['n']} rows: ECE {_num(cal['ece'], 4)}, "
                     f"RMS calibration error {_num(cal['rms_calibration_error'], 4)}, Brier {_num(cal['brier'], 4)}"
                     f" (mean confidence {_num(cal['mean_confidence'])}, accuracy {_num(cal['accuracy'])})")
    if report["n_text_rows"]:
        notes.append(f"bits per byte: {_num(report['bits_per_byte'], 4)} over {report['n_text_rows']} text rows")
    model = report.get("model")
    if model:
        notes.append(f"model: {model['model']} {model['model_revision']} {model['dtype']}")
    lines.append("")
    lines += [("- " if fmt == "markdown" else "") + n for n in notes]
    return "\n".join(lines)


def cmd_loglik(args: argparse.Namespace) -> int:
    if not lm_available():
        return _fail(INSTALL_HINT)
    from scoring.lm._model import ModelLoadError
    from scoring.lm.choice import choice_report, score_rows

    rows = read_jsonl(args.input)
    data = [choice_row(r.data) for r in rows if r.data is not None]
    cache = Cache(args.cache) if args.cache else None
    bar = None
    try:
        if _show_progress(args):
            from tqdm import tqdm

            bar = tqdm(desc="loglik", unit="req", file=sys.stderr, dynamic_ncols=True)

        def advance(done: int, total: int) -> None:
            if bar is not None:
                bar.total = total
                bar.update(done)

        chunk = 512 if bar is not None else 0
        backend = make_loglik_backend(args, cache, chunk, advance) or CachedScorer(
            args.model, device=args.device, dtype=args.dtype, batch_size=args.batch_size, cache=cache,
            chunk=chunk, on_chunk=advance)
        results = score_rows(data, backend)
    except ModelLoadError as exc:
        return _fail(str(exc))
    finally:
        if bar is not None:
            bar.close()
        if cache is not None:
            cache.close()
    if args.output is not None:
        write_jsonl(loglik_rows(rows, results), args.output)
    report = choice_report(results).to_dict()
    from scoring.calibration import calibration_of_rows, render_calibration_page

    report["calibration"] = calibration_of_rows(r.to_dict() for r in results)
    if args.html:
        write_atomically(args.html, render_calibration_page(report["calibration"], title=f"Calibration: {args.input}"))
    report["model"] = backend.describe()
    if cache is not None:
        report["cache"] = cache.stats().by_table["loglik"]
    if args.report:
        Path(args.report).parent.mkdir(parents=True, exist_ok=True)
        Path(args.report).write_text(render_choice_report(report, "json") + "\n", encoding="utf-8")
    stream = sys.stderr if args.output == "-" else sys.stdout
    print(render_choice_report(report, args.format), file=stream)
    return EXIT_OK
