"""Reading other harnesses' stored logs as input rows, so any pack can re-score them.

Each reader streams one row per sample, in file order; a sample that cannot be read becomes an
``invalid`` row with the reason (nothing is dropped).  Every row keeps what the harness itself
made of the sample under ``harness``, beside the raw output our pack normalizes::

    {"id": ..., "task": ..., "output": <raw model text>, "target": ..., "options": [...],
     "harness": {"name": "inspect_ai", "task": <the harness's task>, "file": <name>,
                 "extracted": <the harness's own extracted answer, or null>, "score": <its score>}}

``normalize diff harness NEW IN --from inspect`` compares that extraction with a pack.

Formats (each as its harness documents or writes it):

* ``inspect``: inspect_ai logs, ``.eval`` or ``.json``, read with inspect's own reader
  (:func:`inspect_ai.log.read_eval_log_samples`, which streams the samples) when inspect_ai is
  installed; without it a ``.json`` log is read as JSON and an ``.eval`` log as the zip of
  ``header.json`` and ``samples/*.json`` it is.  The extracted answer is the first scorer's
  ``answer``; ``choices`` are the options; each epoch of a sample is a ``sample`` of its id.
* ``lighteval``: lighteval ``details_*.parquet`` files (read a row group at a time with
  pyarrow): the current layout (``doc``, ``model_response``, ``metric`` columns) and the
  earlier one (``predictions``, ``gold``, ``choices``, ``gold_index``, ``metrics``,
  ``specifics``).  The extracted answer is ``extracted_predictions`` (``specifics`` /
  ``doc.specific``) or ``model_response.text_post_processed``.
* ``opencompass``: OpenCompass prediction files, a JSON object of index → ``{origin_prompt,
  prediction, gold}`` (``pred`` when a post-processor wrote one); the task is the file name.
* ``evalscope``: evalscope review files (JSONL): the 1.x layout ``{index, input, target,
  sample_score: {score: {value, prediction, extracted_prediction}}}`` and the 0.x layout
  ``{raw_input, choices: [{message: {content}, review: {gold, pred, result}}]}``.

``--task NAME`` (``task=``) gives every row the pack task; else the harness's task name is used.
``--map DEST=SRC,...`` (:func:`map_fields`) renames fields of any rows, e.g.
``--map output=prediction,target=gold``; ``SRC`` may be a dotted path into nested objects.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from normalize.errors import UsageError
from normalize.io._io import InputRow

#: The harness log formats ``--from`` reads besides ``jsonl`` and ``lm-eval``.
HARNESS_SOURCES = ("inspect", "lighteval", "opencompass", "evalscope")
_SUFFIXES = {"inspect": (".eval", ".json"), "lighteval": (".parquet",), "opencompass": (".json",),
             "evalscope": (".jsonl",)}


# --------------------------------------------------------------------------- field maps


def parse_field_map(spec: str | None) -> dict[str, str]:
    """``output=prediction,target=gold`` as ``{"output": "prediction", "target": "gold"}``.

    >>> parse_field_map("output=prediction, target=doc.gold")
    {'output': 'prediction', 'target': 'doc.gold'}
    """
    if spec is None:
        return {}
    mapping: dict[str, str] = {}
    for part in spec.split(","):
        if not part.strip():
            continue
        dest, sep, src = (p.strip() for p in part.partition("="))
        if not sep or not dest or not src:
            raise UsageError(f"--map takes DEST=SRC pairs separated by commas, got {part.strip()!r}")
        if dest in mapping:
            raise UsageError(f"--map names {dest!r} twice")
        mapping[dest] = src
    return mapping


_ABSENT = object()


def _lookup(data: Mapping[str, Any], path: str) -> Any:
    if path in data:
        return data[path]
    node: Any = data
    for key in path.split("."):
        if isinstance(node, Mapping) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return _ABSENT
    return node


def map_fields(rows: Iterable[InputRow], mapping: Mapping[str, str]) -> Iterator[InputRow]:
    """Each row with field ``DEST`` set from ``SRC`` (a key, or a dotted path); the source field of
    a top-level rename is removed.  A row that lacks a mapped source becomes ``invalid`` naming it.

    >>> rows = [InputRow(1, {"prediction": "B", "gold": "B", "task": "mmlu"})]
    >>> next(map_fields(rows, {"output": "prediction", "target": "gold"})).data
    {'task': 'mmlu', 'output': 'B', 'target': 'B'}
    """
    for row in rows:
        if row.data is None or not mapping:
            yield row
            continue
        data = dict(row.data)
        missing = [src for src in mapping.values() if _lookup(row.data, src) is _ABSENT]
        if missing:
            yield InputRow(row.line, None, f"line {row.line}: --map source field {missing[0]!r} is missing",
                           row.raw_line or json.dumps(row.data, ensure_ascii=False, default=str)[:2000])
            continue
        for src in mapping.values():
            data.pop(src, None)
        for dest, src in mapping.items():
            data[dest] = _lookup(row.data, src)
        yield InputRow(row.line, data, None, row.raw_line)


# --------------------------------------------------------------------------- helpers


def _files(spec: str | Path, source: str) -> list[Path]:
    path = Path(spec)
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.is_file() and p.name.endswith(_SUFFIXES[source]))
        if not found:
            raise UsageError(f"no {source} logs ({', '.join(_SUFFIXES[source])}) under {path}")
        return found
    if not path.is_file():
        raise UsageError(f"input file not found: {path}")
    return [path]


def _row(number: int, data: dict[str, Any]) -> InputRow:
    return InputRow(number, data, None, "")


def _bad(number: int, where: str, reason: str, raw: Any = None) -> InputRow:
    shown = "" if raw is None else json.dumps(raw, ensure_ascii=False, default=str)[:2000]
    return InputRow(number, None, f"{where}: {reason}", shown)


def _text(value: Any) -> str | None:
    """A model output as text: a string, the first string of a list, else None."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and value:
        first = value[0]
        if isinstance(first, (list, tuple)) and first and isinstance(first[0], str):  # [text, is_greedy] pairs
            return first[0]
        return first if isinstance(first, str) else None
    return None


def _plain(value: Any) -> Any:
    """A value as plain JSON data (numpy arrays and scalars from parquet as lists and numbers)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# --------------------------------------------------------------------------- inspect_ai


def _inspect_samples(path: Path) -> tuple[str | None, Iterator[Any]]:
    """The log's task name and its samples (as inspect's objects, or as dicts without inspect)."""
    try:
        from inspect_ai.log import read_eval_log, read_eval_log_samples
    except ImportError:
        return _inspect_plain(path)
    try:
        header = read_eval_log(str(path), header_only=True)
    except Exception as exc:  # inspect raises its own and pydantic's errors for a file that is not a log
        raise UsageError(f"{path}: not an inspect_ai log: {type(exc).__name__}: {exc}") from None
    if header.eval.dataset.sample_ids is None:  # an old or hand-made log: inspect can only read it whole
        return header.eval.task, iter(read_eval_log(str(path)).samples or [])
    return header.eval.task, read_eval_log_samples(str(path), all_samples_required=False)


def _inspect_plain(path: Path) -> tuple[str | None, Iterator[Any]]:
    if path.suffix == ".eval":
        archive = zipfile.ZipFile(path)
        names = sorted(n for n in archive.namelist() if n.startswith("samples/") and n.endswith(".json"))
        try:
            header = json.loads(archive.read("header.json")) if "header.json" in archive.namelist() else {}
        except json.JSONDecodeError:
            header = {}

        def eval_samples() -> Iterator[Any]:
            with archive:
                for name in names:
                    yield json.loads(archive.read(name))

        return (header.get("eval") or {}).get("task"), eval_samples()
    data = json.loads(path.read_text(encoding="utf-8"))
    return (data.get("eval") or {}).get("task"), iter(data.get("samples") or [])


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _inspect_row(sample: Any, log_task: str | None, task: str | None, path: Path) -> dict[str, Any]:
    output = _get(sample, "output")
    completion = _get(output, "completion") if output is not None else None
    if completion is None and output is not None:
        choices = _get(output, "choices") or []
        message = _get(choices[0], "message") if choices else None
        content = _get(message, "content") if message is not None else None
        completion = content if isinstance(content, str) else None
    scores = _get(sample, "scores") or {}
    first = next(iter(scores.values()), None) if isinstance(scores, Mapping) else None
    target = _get(sample, "target")
    row: dict[str, Any] = {"id": _get(sample, "id"), "task": task or log_task or "", "output": completion,
                           "target": list(target) if isinstance(target, (list, tuple)) else target}
    choices = _get(sample, "choices")
    if choices:
        row["options"] = list(choices)
    epoch = _get(sample, "epoch")
    if isinstance(epoch, int) and epoch > 1:
        row["sample"] = epoch - 1
    row["harness"] = {"name": "inspect_ai", "task": log_task, "file": path.name, "epoch": epoch,
                      "extracted": _get(first, "answer") if first is not None else None,
                      "score": _plain(_get(first, "value")) if first is not None else None}
    error = _get(sample, "error")
    if error is not None:
        row["harness"]["error"] = str(_get(error, "message", error))
    return row


def read_inspect(spec: str | Path, *, task: str | None = None) -> Iterator[InputRow]:
    """Rows from inspect_ai logs (a file or a folder of them), streaming."""
    number = 0
    for path in _files(spec, "inspect"):
        log_task, samples = _inspect_samples(path)
        iterator = iter(samples)
        while True:
            number += 1
            try:
                sample = next(iterator)
            except StopIteration:
                number -= 1
                break
            except (ValueError, KeyError, json.JSONDecodeError, zipfile.BadZipFile) as exc:
                yield _bad(number, path.name, f"unreadable sample: {type(exc).__name__}: {exc}")
                break
            try:
                yield _row(number, _inspect_row(sample, log_task, task, path))
            except (TypeError, AttributeError) as exc:
                yield _bad(number, path.name, f"not an inspect_ai sample: {exc}", _plain(sample))


# --------------------------------------------------------------------------- lighteval


def _lighteval_row(data: Mapping[str, Any], task: str | None, path: Path, index: int) -> dict[str, Any]:
    name = task or _lighteval_task(path)
    if "model_response" in data or "doc" in data:  # lighteval ≥ 0.10: Detail(doc, model_response, metric)
        doc = data.get("doc") or {}
        response = data.get("model_response") or {}
        output = _text(response.get("text"))
        choices = list(doc.get("choices") or [])
        gold = doc.get("gold_index")
        specific = doc.get("specific") or {}
        extracted = (specific.get("extracted_predictions") if isinstance(specific, Mapping) else None) \
            or response.get("text_post_processed")
        metrics = data.get("metric") or {}
        doc_id = doc.get("id") or index
    else:  # earlier layout: predictions, gold, choices, gold_index, metrics, specifics
        output = _text(data.get("predictions"))
        choices = list(data.get("choices") or [])
        gold = data.get("gold_index")
        specifics = data.get("specifics") or {}
        extracted = specifics.get("extracted_predictions") if isinstance(specifics, Mapping) else None
        metrics = data.get("metrics") or {}
        doc_id = index
        if not choices and data.get("gold") is not None:
            choices = [g for g in (data["gold"] if isinstance(data["gold"], list) else [data["gold"]])]
    if isinstance(gold, list):
        gold = gold[0] if len(gold) == 1 else gold
    row: dict[str, Any] = {"id": doc_id, "task": name, "output": output}
    if len(choices) == 1:
        row["target"] = choices[0]
    elif choices and isinstance(gold, int) and 0 <= gold < len(choices):
        row["target"], row["options"] = gold, choices
    elif choices:
        row["target"] = choices
    row["harness"] = {"name": "lighteval", "task": _lighteval_task(path), "file": path.name,
                      "extracted": _text(extracted) if isinstance(extracted, (list, tuple)) else extracted,
                      # a parquet struct column holds every key of every row: a metric of another row is None
                      "score": {k: v for k, v in metrics.items() if v is not None} if isinstance(metrics, Mapping)
                      else metrics}
    return row


def _lighteval_task(path: Path) -> str:
    """``details_leaderboard|arc:challenge|25_2024-05-01T12-00-00.parquet`` → ``leaderboard|arc:challenge|25``."""
    stem = path.stem
    if stem.startswith("details_"):
        stem = stem[len("details_"):]
    head, sep, tail = stem.rpartition("_")
    return head if sep and tail[:4].isdigit() else stem


def read_lighteval(spec: str | Path, *, task: str | None = None) -> Iterator[InputRow]:
    """Rows from lighteval details parquet files, a row group at a time (pyarrow)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError("reading lighteval details needs pyarrow: pip install pyarrow") from None
    number = 0
    for path in _files(spec, "lighteval"):
        try:
            handle = pq.ParquetFile(path)
        except Exception as exc:  # pyarrow's ArrowInvalid and OSError for a file that is not parquet
            raise UsageError(f"{path}: not a parquet file: {exc}") from None
        index = 0
        for batch in handle.iter_batches(batch_size=256):
            for data in batch.to_pylist():
                number += 1
                try:
                    yield _row(number, _lighteval_row(data, task, path, index))
                except (TypeError, AttributeError, ValueError) as exc:
                    yield _bad(number, f"{path.name} row {index}", f"not a lighteval detail: {exc}", data)
                index += 1


# --------------------------------------------------------------------------- OpenCompass


def read_opencompass(spec: str | Path, *, task: str | None = None) -> Iterator[InputRow]:
    """Rows from OpenCompass prediction files (JSON objects of index → prediction); one file is
    one JSON document, read whole (OpenCompass writes one per dataset and shard)."""
    number = 0
    for path in _files(spec, "opencompass"):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            number += 1
            yield _bad(number, path.name, f"not a JSON file: {exc}")
            continue
        if not isinstance(document, dict):
            number += 1
            yield _bad(number, path.name, f"an OpenCompass prediction file is a JSON object, got "
                                          f"{type(document).__name__}")
            continue
        name = task or path.stem
        for key, entry in document.items():
            number += 1
            if not isinstance(entry, dict) or "prediction" not in entry:
                yield _bad(number, f"{path.name} [{key!r}]", "not an OpenCompass prediction (needs prediction)",
                           entry)
                continue
            prediction = entry["prediction"]
            row: dict[str, Any] = {"id": key, "task": name, "output": _text(prediction)
                                   if not isinstance(prediction, str) else prediction}
            if entry.get("gold") is not None:
                row["target"] = entry["gold"]
            row["harness"] = {"name": "opencompass", "task": path.stem, "file": path.name,
                              "extracted": entry.get("pred"), "score": entry.get("correct")}
            yield _row(number, row)


# --------------------------------------------------------------------------- evalscope


def _evalscope_row(data: Mapping[str, Any], task: str | None, path: Path) -> dict[str, Any]:
    name = task or path.stem
    if "sample_score" in data:  # evalscope 1.x ReviewResult
        score = (data.get("sample_score") or {}).get("score") or {}
        row: dict[str, Any] = {"id": data.get("index"), "task": name, "output": score.get("prediction")}
        if data.get("target") is not None:
            row["target"] = data["target"]
        row["harness"] = {"name": "evalscope", "task": path.stem, "file": path.name,
                          "extracted": score.get("extracted_prediction"), "score": score.get("value")}
        return row
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:  # evalscope 0.x: choices[0].message.content, .review
        raise ValueError("needs sample_score (evalscope 1.x) or choices (0.x)")
    first = choices[0]
    review = first.get("review") or {}
    message = first.get("message") or {}
    row = {"id": data.get("index", data.get("id")), "task": name, "output": message.get("content")}
    if review.get("gold") is not None:
        row["target"] = review["gold"]
    row["harness"] = {"name": "evalscope", "task": path.stem, "file": path.name, "extracted": review.get("pred"),
                      "score": review.get("result")}
    return row


def read_evalscope(spec: str | Path, *, task: str | None = None) -> Iterator[InputRow]:
    """Rows from evalscope review files (JSONL), streaming."""
    from normalize.io._io import iter_jsonl

    number = 0
    for path in _files(spec, "evalscope"):
        for line in iter_jsonl(path):
            number += 1
            if line.data is None:
                yield InputRow(number, None, f"{path.name} line {line.line}: {line.error}", line.raw_line)
                continue
            try:
                yield _row(number, _evalscope_row(line.data, task, path))
            except (ValueError, AttributeError, TypeError) as exc:
                yield InputRow(number, None, f"{path.name} line {line.line}: not an evalscope review: {exc}",
                               line.raw_line)


_READERS = {"inspect": read_inspect, "lighteval": read_lighteval, "opencompass": read_opencompass,
            "evalscope": read_evalscope}


def read_harness_log(spec: str | Path, source: str, *, task: str | None = None) -> Iterator[InputRow]:
    """Rows from the logs of harness ``source`` (one of :data:`HARNESS_SOURCES`), streaming."""
    reader = _READERS.get(source)
    if reader is None:
        raise UsageError(f"unknown log format {source!r}; known: {', '.join(HARNESS_SOURCES)}")
    return reader(spec, task=task)


__all__ = ["HARNESS_SOURCES", "map_fields", "parse_field_map", "read_evalscope", "read_harness_log",
           "read_inspect", "read_lighteval", "read_opencompass"]
