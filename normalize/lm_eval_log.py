"""Reading lm-evaluation-harness ``--log_samples`` files as input rows (public; no lm-eval import).

lm-eval writes one JSON line per document *and filter*: ``doc_id``, ``doc``, ``target`` (as
``str()``), ``resps`` (per request, the list of every repeat's raw text) and ``filtered_resps``
(the same after the task's filter), ``filter`` and the metric values.  Each line becomes one row
per repeat, in file order::

    {"id": doc_id, "task": ..., "output": <text>, "target": ..., "sample": k (with repeats),
     "lm_eval": {"task": <lm-eval task>, "filter": <filter>, "file": <name>, "line": n,
                 "filtered": <that repeat's filtered response>}}

Which text is normalized: by default the raw response (what the pack's rules are built for) and
only the lines of the first filter in each file (every filter has the same raw responses, so
later filters would repeat the rows); ``filter_name`` scores that filter's filtered responses
instead (or, when that filter is harness-normalize's own, the raw responses it saw).

The pack task of a row: ``task`` when given, else the task recorded by harness-normalize's
filter, else lm-eval's task name from the file name ``samples_<task>_<date>.jsonl``.
A line that cannot be read, or that holds log-likelihoods instead of generated text, becomes
an ``invalid`` row with the reason: nothing is dropped.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import glob
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from normalize._io import InputRow, parse_lines
from normalize.errors import UsageError
from normalize.pack import Pack

#: Source formats the run/score/audit/compare commands read (other harnesses' logs:
#: :mod:`normalize.harness_logs`).
SOURCES = ("jsonl", "lm-eval", "inspect", "lighteval", "opencompass", "evalscope")

_FILTER_FORMAT = "harness-normalize/lm-eval-filter/1"
_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.jsonl$")


def lm_eval_task_of(path: str | Path) -> str | None:
    """lm-eval's task name from a samples file name, or None when the name is not lm-eval's.

    >>> lm_eval_task_of("out/m/samples_gsm8k_cot_2024-05-01T12-30-00.123456.jsonl")
    'gsm8k_cot'
    >>> lm_eval_task_of("rows.jsonl") is None
    True
    """
    match = _NAME.match(Path(path).name)
    return match.group("task") if match else None


def expand_paths(spec: str | Path) -> list[Path]:
    """The samples files named by ``spec``: a file, a directory (every ``samples_*.jsonl`` under
    it) or a glob pattern; sorted.  Nothing found raises ``ValueError``.
    """
    text = str(spec)
    path = Path(text)
    if path.is_dir():
        found = sorted(path.rglob("samples_*.jsonl"))
    elif any(c in text for c in "*?["):
        found = sorted(Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file())
    elif path.is_file():
        found = [path]
    else:
        raise UsageError(f"input file not found: {text}")
    if not found:
        raise UsageError(f"no lm-eval samples files match {text!r}")
    return found


def _filter_payload(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, str) or _FILTER_FORMAT not in value:
        return None
    try:
        payload = json.loads(value)
    except json.JSONDecodeError:
        return None
    return payload if isinstance(payload, dict) and payload.get("format") == _FILTER_FORMAT else None


def _kind(pack: Pack | None, task: str | None) -> str | None:
    if pack is None or task is None:
        return None
    try:
        return pack.task_type_of(task)
    except ValueError:
        return None


def _as_target(value: Any, kind: str | None = None) -> Any:
    """lm-eval writes ``str(target)``; a printed list of strings is read back as the list, and a
    digit string is a choice index (from 0) for multiple choice.

    >>> _as_target("['Paris', 'paris']"), _as_target("1", "multiple_choice"), _as_target("1", "math")
    (['Paris', 'paris'], 1, '1')
    """
    if kind == "multiple_choice" and isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, str) and value.startswith("[") and value.endswith("]"):
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return value
        if isinstance(parsed, list) and all(isinstance(v, str) for v in parsed):
            return parsed
    return value


def _repeats(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def read_lm_eval_samples(spec: str | Path | Sequence[str | Path], *, task: str | None = None,
                         filter_name: str | None = None, pack: Pack | None = None) -> list[InputRow]:
    """Rows (see the module docstring) from every samples file ``spec`` names (one spec or
    several), in order."""
    rows: list[InputRow] = []
    number = 0
    specs = [spec] if isinstance(spec, (str, Path)) else list(spec)
    paths = [path for one in specs for path in expand_paths(one)]
    for path in dict.fromkeys(paths):
        for row in _read_file(path, task, filter_name, pack):
            number += 1
            rows.append(InputRow(number, row.data, row.error, row.raw_line))
    return rows


def _read_file(path: Path, task: str | None, filter_name: str | None, pack: Pack | None) -> Iterator[InputRow]:
    lm_task = lm_eval_task_of(path)
    first_filter: str | None = None
    seen_filter = False
    try:
        handle = open(path, encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    with handle:
        for line in parse_lines(handle):
            where = f"{path.name} line {line.line}"
            if line.data is None:
                yield InputRow(line.line, None, f"{where}: {line.error}", line.raw_line)
                continue
            data = line.data
            this_filter = data.get("filter")
            if filter_name is None:
                if not seen_filter:
                    first_filter, seen_filter = this_filter, True
                if this_filter != first_filter:
                    continue
            elif this_filter != filter_name:
                continue
            yield from _rows_of(data, line, where, path, lm_task, task, filter_name, pack)


def _rows_of(data: dict[str, Any], line: InputRow, where: str, path: Path, lm_task: str | None,
             task: str | None, filter_name: str | None, pack: Pack | None) -> Iterator[InputRow]:
    resps, filtered = data.get("resps"), data.get("filtered_resps")
    if "doc_id" not in data or not isinstance(resps, list) or not isinstance(filtered, list):
        yield InputRow(line.line, None, f"{where}: not an lm-eval sample (needs doc_id, resps, filtered_resps)",
                       line.raw_line)
        return
    if len(resps) != 1 or not isinstance(resps[0], list) or not all(isinstance(r, str) for r in resps[0]):
        yield InputRow(line.line, None, f"{where}: doc {data['doc_id']!r} holds {len(resps)} requests of "
                       "log-likelihoods, not generated text; score it with `normalize loglik`", line.raw_line)
        return
    raw = resps[0]
    kept = _repeats(filtered[0]) if filtered else []
    per_repeat = len(kept) == len(raw)
    ours = bool(kept) and all(_filter_payload(v) is not None for v in kept)
    texts: list[Any] = raw if filter_name is None or ours else kept
    for k, text in enumerate(texts):
        shown = kept[k] if per_repeat or (filter_name is not None and not ours) else (filtered[0] if filtered else None)
        payload = _filter_payload(shown)
        name = task or (str(payload["task"]) if payload and payload.get("task") else None) or lm_task
        row: dict[str, Any] = {"id": data["doc_id"]}
        if name is not None:
            row["task"] = name
        row["output"] = text if text is None or isinstance(text, str) else json.dumps(text, ensure_ascii=False)
        if data.get("target") is not None:
            row["target"] = _as_target(data["target"], _kind(pack, name))
        if payload and payload.get("options") is not None:  # the option domain harness-normalize's filter saw
            row["options"] = payload["options"]
        if len(texts) > 1:
            row["sample"] = k
        row["lm_eval"] = {"task": lm_task, "filter": data.get("filter"), "file": path.name, "line": line.line,
                          "filtered": shown}
        yield InputRow(line.line, row, None, line.raw_line)


def read_source(path: str | Path | Sequence[str | Path], source: str = "jsonl", *, task: str | None = None,
                filter_name: str | None = None, pack: Pack | None = None) -> list[InputRow]:
    """Input rows from a JSONL file of rows (``jsonl``) or lm-eval samples files (``lm-eval``)."""
    from normalize._io import read_jsonl

    if source == "jsonl":
        if task is not None or filter_name is not None:
            raise UsageError("--task and --lm-eval-filter only apply with --from lm-eval")
        if not isinstance(path, (str, Path)):
            if len(path) != 1:
                raise UsageError(f"one input file, got {len(path)}; several files only with --from lm-eval")
            path = path[0]
        return read_jsonl(path)
    if source == "lm-eval":
        return read_lm_eval_samples(path, task=task, filter_name=filter_name, pack=pack)
    if source in SOURCES:
        from normalize.harness_logs import read_harness_log

        if filter_name is not None:
            raise UsageError("--lm-eval-filter only applies with --from lm-eval")
        paths = [path] if isinstance(path, (str, Path)) else list(path)
        return [row for one in paths for row in read_harness_log(one, source, task=task)]
    raise UsageError(f"--from must be one of {', '.join(SOURCES)}, got {source!r}")


def add_source_options(parser: Any, *, more_inputs: bool = True) -> None:
    """``--from``, ``--task`` and ``--lm-eval-filter`` for a command that reads rows; with
    ``more_inputs``, further input files after the first (``samples_*.jsonl`` unquoted)."""
    if more_inputs:
        parser.add_argument("more_inputs", nargs="*", metavar="MORE",
                            help="with --from lm-eval: more samples files (a shell glob may name several)")
    parser.add_argument("--from", dest="source", choices=SOURCES, default="jsonl",
                        help="input format: rows (jsonl, default) or lm-eval --log_samples files (lm-eval: a "
                             "file, a directory or a quoted glob such as 'out/*/samples_*.jsonl'); inspect_ai "
                             "logs (inspect), lighteval details parquet (lighteval), OpenCompass predictions "
                             "(opencompass), evalscope reviews (evalscope): a file or a folder")
    parser.add_argument("--map", dest="field_map", default=None, metavar="DEST=SRC,...",
                        help="rename input fields, e.g. --map output=prediction,target=gold (SRC may be a "
                             "dotted path such as doc.answer)")
    parser.add_argument("--task", dest="source_task", default=None, metavar="NAME",
                        help="with --from lm-eval: the pack task of every row (default: the task recorded by "
                             "harness-normalize's filter, else lm-eval's task name)")
    parser.add_argument("--lm-eval-filter", dest="source_filter", default=None, metavar="NAME",
                        help="with --from lm-eval: score this filter's filtered responses (default: the raw "
                             "responses)")


def source_input(args: Any, pack: Pack | None = None, path: str | Path | None = None) -> str:
    """The JSONL path a streaming command reads: ``path`` (default ``args.input``) itself for
    ``--from jsonl``; for ``--from lm-eval`` a temporary JSONL of the rows read from the samples
    files (deleted when the process exits).  A samples line that yields no row is written as a
    row without a task, so it still comes out as an ``invalid`` row, its reason under
    ``lm_eval_error``.
    """
    given = str(args.input if path is None else path)
    more = list(getattr(args, "more_inputs", None) or [])
    source = getattr(args, "source", "jsonl")
    field_map = getattr(args, "field_map", None)
    if source == "jsonl":
        if more:
            raise UsageError(f"one input file, got {1 + len(more)}; several files only with --from lm-eval")
        if getattr(args, "source_task", None) is not None or getattr(args, "source_filter", None) is not None:
            raise UsageError("--task and --lm-eval-filter only apply with --from lm-eval (--task: with any --from)")
        if field_map is None:
            return given
    if getattr(args, "resume", False):
        raise UsageError(f"--resume needs a JSONL input: convert the {source} logs first with "
                         f"`normalize run --from {source} ... -o rows.jsonl --trace none`")
    from normalize.harness_logs import (
        HARNESS_SOURCES,
        map_fields,
        parse_field_map,
        read_harness_log,
    )

    paths = [given, *more] if path is None else [given]
    task = getattr(args, "source_task", None)
    read: Iterable[InputRow]
    if source in HARNESS_SOURCES:  # streamed into the temporary file, a sample at a time
        if getattr(args, "source_filter", None) is not None:
            raise UsageError("--lm-eval-filter only applies with --from lm-eval")
        read = (row for one in paths for row in read_harness_log(one, source, task=task))
    else:
        read = read_source(paths, source, task=task, filter_name=getattr(args, "source_filter", None), pack=pack)
    rows = map_fields(read, parse_field_map(field_map))
    handle, name = tempfile.mkstemp(prefix=f"{source}-rows-", suffix=".jsonl")
    atexit.register(_remove, name)
    with os.fdopen(handle, "w", encoding="utf-8", errors="surrogatepass") as out:
        for row in rows:
            data = row.data if row.data is not None else {f"{source.replace('-', '_')}_error": row.error,
                                                          "raw_line": row.raw_line}
            out.write(json.dumps(data, ensure_ascii=False, allow_nan=False, default=str) + "\n")
    return name


def _remove(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)
