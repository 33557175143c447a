"""Reading lm-evaluation-harness ``--log_samples`` files as input rows (public; no lm-eval import).

lm-eval writes one JSON line per document *and filter*: ``doc_id``, ``doc``, ``target`` (as
``str()``), ``resps`` (per request, the list of every repeat's raw text) and ``filtered_resps``
(the same after the task's filter), ``filter`` and the metric values.  Each line becomes one row
per repeat, in file order::

    {"id": doc_id, "task": ..., "output": <text>, "target": ..., "sample": k (with repeats),
     "lm_eval": {"task": <lm-eval task>, "filter": <filter>, "file": <name>, "line": n,
                 "filtered": <that repeat's filtered response>}}

Which text is normalized: by default the raw response (what the pack's rules are built for),
each doc's from the first line that names it (every filter has the same raw responses, so a
doc's lines under other filters would repeat its rows; a doc that only a later filter lists
still gets its rows); ``filter_name`` scores that filter's filtered responses instead (or, when
that filter is harness-normalize's own, the raw responses it saw).

The pack task of a row: ``task`` when given, else the task recorded by harness-normalize's
filter, else lm-eval's task name from the file name ``samples_<task>_<date>.jsonl``.
Every line is a row or, for a later filter's line, the same rows again (skipped): a line that
cannot be read, names no filter, holds no response (``"resps": [[]]``) or holds log-likelihoods
instead of generated text becomes an ``invalid`` row with the reason, naming the file and line.
A ``NaN`` or infinite target is kept, so it is that row's ``bad_target`` when scored.  Files are
read line by line (:func:`iter_lm_eval_samples`), each line's bytes let go once decoded.
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

from normalize.core.pack import Pack
from normalize.errors import UsageError
from normalize.io._io import InputRow
from normalize.io._jsonl import decode_held
from normalize.io.harness_logs import HARNESS_SOURCES, map_fields, parse_field_map, read_harness_log

#: Source formats the run/score/audit/compare commands read (other harnesses' logs:
#: :mod:`normalize.io.harness_logs`).
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
    """The family of ``task``'s type (how its target is read back), or None when unknown."""
    if pack is None or task is None:
        return None
    try:
        return pack.family_of(task)
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
    several), in order.  For files too big to hold, iterate :func:`iter_lm_eval_samples`."""
    return list(iter_lm_eval_samples(spec, task=task, filter_name=filter_name, pack=pack))


def iter_lm_eval_samples(spec: str | Path | Sequence[str | Path], *, task: str | None = None,
                         filter_name: str | None = None, pack: Pack | None = None) -> Iterator[InputRow]:
    """:func:`read_lm_eval_samples` one row at a time: a file is read line by line, so memory
    stays bounded by the longest line, whatever the files' size."""
    for row, _ in _rows_and_tasks(spec, task=task, filter_name=filter_name, pack=pack):
        yield row


def _rows_and_tasks(spec: str | Path | Sequence[str | Path], *, task: str | None, filter_name: str | None,
                    pack: Pack | None) -> Iterator[tuple[InputRow, dict[str, Any]]]:
    """Each row with what is known of a bad line's row (its pack task, and the doc's id and
    target when the line could be read), so it is counted where it belongs: unparsed."""
    number = 0
    specs = [spec] if isinstance(spec, (str, Path)) else list(spec)
    paths = [path for one in specs for path in expand_paths(one)]
    for path in dict.fromkeys(paths):
        for row, known in _read_file(path, task, filter_name, pack):
            number += 1
            name = task or lm_eval_task_of(path)
            yield InputRow(number, row.data, row.error, row.raw_line), ({"task": name} if name else {}) | known


def _shown(data: dict[str, Any]) -> str:
    """A line that was read but is not a usable sample, written back for ``raw_line``."""
    return json.dumps(data, ensure_ascii=False, default=str)


#: A row of one samples line, and what is known of a bad line's row (see _rows_and_tasks).
_Read = tuple[InputRow, dict[str, Any]]


def _known(data: dict[str, Any], kind: str | None = None) -> dict[str, Any]:
    """The id and target of a sample line that gives no row."""
    known: dict[str, Any] = {}
    if "doc_id" in data:
        known["id"] = data["doc_id"]
    if data.get("target") is not None:
        known["target"] = _as_target(data["target"], kind)
    return known


def _read_file(path: Path, task: str | None, filter_name: str | None, pack: Pack | None) -> Iterator[_Read]:
    lm_task = lm_eval_task_of(path)
    by_doc: dict[Any, str] = {}  # doc -> the filter whose line gave its rows (by default: the first line's)
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        number = 0
        for raw in handle:  # bytes split on b"\n" only, as `run` reads; each line is let go once decoded
            number += 1
            if not raw.strip():
                continue
            held = [raw.rstrip(b"\r\n")]
            del raw
            line = decode_held(held, number)
            where = f"{path.name} line {number}"
            if line.data is None:
                yield InputRow(number, None, f"{where}: {line.error}", line.text), {}
                continue
            data = line.data
            del line
            this_filter = data.get("filter")
            if not isinstance(this_filter, str):
                yield InputRow(number, None, f"{where}: no filter name (lm-eval writes one on every sample line, "
                               f"got {_clip(this_filter)})", _shown(data)), _known(data, _kind(pack, task or lm_task))
                continue
            if filter_name is None:
                doc = _doc_key(data.get("doc_id"))
                if by_doc.setdefault(doc, this_filter) != this_filter:
                    continue  # the same raw responses again, under another filter: its rows are out already
            elif this_filter != filter_name:
                continue
            yield from _rows_of(data, number, where, path, lm_task, task, filter_name, pack)


def _doc_key(doc_id: Any) -> Any:
    """A doc id as a key (lm-eval's are integers; anything else by its JSON)."""
    if isinstance(doc_id, (int, str)) and not isinstance(doc_id, bool):
        return doc_id
    return json.dumps(doc_id, sort_keys=True, default=str)


def _clip(value: Any, limit: int = 60) -> str:
    text = "none" if value is None else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rows_of(data: dict[str, Any], number: int, where: str, path: Path, lm_task: str | None,
             task: str | None, filter_name: str | None, pack: Pack | None) -> Iterator[_Read]:
    resps, filtered = data.get("resps"), data.get("filtered_resps")
    known = _known(data, _kind(pack, task or lm_task))
    if "doc_id" not in data or not isinstance(resps, list) or not isinstance(filtered, list):
        yield InputRow(number, None, f"{where}: not an lm-eval sample (needs doc_id, resps, filtered_resps)",
                       _shown(data)), known
        return
    if len(resps) != 1 or not isinstance(resps[0], list) or not all(isinstance(r, str) for r in resps[0]):
        yield InputRow(number, None, f"{where}: doc {_clip(data['doc_id'])} holds {len(resps)} requests of "
                       "log-likelihoods, not generated text; score it with `normalize loglik`", _shown(data)), known
        return
    raw = resps[0]
    kept = _repeats(filtered[0]) if filtered else []
    per_repeat = len(kept) == len(raw)
    ours = bool(kept) and all(_filter_payload(v) is not None for v in kept)
    texts: list[Any] = raw if filter_name is None or ours else kept
    if not texts:
        which = "resps" if texts is raw else "filtered_resps"
        yield InputRow(number, None, f"{where}: doc {_clip(data['doc_id'])} has no response ({which} holds none)",
                       _shown(data)), known
        return
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
        row["lm_eval"] = {"task": lm_task, "filter": data.get("filter"), "file": path.name, "line": number,
                          "filtered": shown}
        yield InputRow(number, row, None, ""), {}


def read_source(path: str | Path | Sequence[str | Path], source: str = "jsonl", *, task: str | None = None,
                filter_name: str | None = None, pack: Pack | None = None) -> list[InputRow]:
    """Input rows from a JSONL file of rows (``jsonl``) or lm-eval samples files (``lm-eval``)."""
    from normalize.io._io import read_jsonl

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
    files (deleted when the process exits), written as they are read (memory stays bounded by
    the longest line).  A samples line that yields no row is written as a row with its reason
    under ``lm_eval_error`` and its task (``--task`` or lm-eval's), so it comes out as an
    ``invalid`` row with that reason, counted as unparsed under that task.
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
    from normalize.io.harness_logs import (
        read_harness_log,
    )

    paths = [given, *more] if path is None else [given]
    task = getattr(args, "source_task", None)
    mapping = parse_field_map(field_map)
    read: Iterable[tuple[InputRow, dict[str, Any]]]
    if source == "lm-eval":
        read = _rows_and_tasks(paths, task=task, filter_name=getattr(args, "source_filter", None), pack=pack)
    else:
        if getattr(args, "source_filter", None) is not None:
            raise UsageError("--lm-eval-filter only applies with --from lm-eval")
        plain: Iterable[InputRow] = (  # a harness's log streamed into the temporary file, a sample at a time
            (row for one in paths for row in read_harness_log(one, source, task=task))
            if source in HARNESS_SOURCES else read_source(paths, source, task=task, pack=pack)
        )
        read = ((row, {}) for row in plain)
    handle, name = tempfile.mkstemp(prefix=f"{source}-rows-", suffix=".jsonl")
    atexit.register(_remove, name)
    error_field = f"{source.replace('-', '_')}_error"
    try:
        with os.fdopen(handle, "wb") as out:
            for given_row, known in read:
                row = next(map_fields((given_row,), mapping)) if mapping else given_row
                data = row.data
                if data is None:  # an invalid row naming the file and line, counted under its task (unparsed)
                    data = {error_field: row.error, **known, "raw_line": row.raw_line}
                _write_row(out, data)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, name) from None  # name the file: a full disk, a size limit
    return name


#: Pieces of a huge row's JSON text written at a time (no whole second copy of it as bytes).
_WRITE_PIECE = 1 << 20


def _write_row(out: Any, data: dict[str, Any]) -> None:
    """One row as a JSON line for ``run``/``score`` to read: a ``NaN`` or infinite target stays a
    literal (read back as that row's ``bad_target``), and a huge value's text goes out in pieces."""
    source = data.get("lm_eval")
    texts = [*data.values(), *(source.values() if isinstance(source, dict) else ())]
    if sum(len(v) for v in texts if isinstance(v, str)) < _WRITE_PIECE:  # the usual row: one dumps, faster
        out.write(json.dumps(data, ensure_ascii=False, allow_nan=True, default=str).encode("utf-8", "surrogatepass")
                  + b"\n")
        return
    _write_json(out, data)
    out.write(b"\n")


def _write_json(out: Any, value: Any) -> None:
    """``value`` as JSON, container by container: ``json.dumps`` of a whole row holds a huge
    string twice more (escaped, then in the row's text), this once, and writes it in pieces."""
    if isinstance(value, dict):
        out.write(b"{")
        for i, (key, child) in enumerate(value.items()):
            out.write((", " if i else "").encode() + json.dumps(str(key), ensure_ascii=False).encode("utf-8",
                      "surrogatepass") + b": ")
            _write_json(out, child)
        out.write(b"}")
    elif isinstance(value, (list, tuple)):
        out.write(b"[")
        for i, child in enumerate(value):
            if i:
                out.write(b", ")
            _write_json(out, child)
        out.write(b"]")
    else:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True, default=str)
        for start in range(0, len(text), _WRITE_PIECE):
            out.write(text[start:start + _WRITE_PIECE].encode("utf-8", "surrogatepass"))


def _remove(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)
