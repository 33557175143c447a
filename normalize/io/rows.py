"""Turning JSONL rows into output rows: every input row appears in the output, in order."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from normalize import status as st
from normalize.core.engine import Result
from normalize.core.pack import Pack
from normalize.io._io import InputRow, iter_jsonl, to_input_row
from normalize.io._jsonl import Line, decode_line
from normalize.io.row import Row, RowError, read_lang, read_options, read_reasoning

#: Inputs with at least this many rows get a progress bar when stderr is a terminal.
PROGRESS_MIN_ROWS = 2000


def row_options(data: dict[str, Any]) -> Sequence[str] | int | None:
    """The option domain of a row (kept for callers; :func:`normalize.io.row.read_options` reads it)."""
    return read_options(data)


def row_schema(pack: Pack, task_type: str, data: Mapping[str, Any]) -> dict[str, Any] | str | None:
    """A row's own JSON Schema (``schema``: an object, or a name in the pack's ``schemas:``),
    for task types whose chain parses JSON; other task types ignore the field (a text-to-SQL
    row's ``schema`` is a database schema, not a JSON Schema).  ``ValueError`` for another
    value."""
    value = data.get("schema")
    if value is None:
        return None
    if not any(spec.stage == "structure" for spec in pack.chain(task_type)):
        return None
    if isinstance(value, (dict, str)):
        return value
    raise ValueError(f"schema must be a JSON Schema object or a schema name, got {value!r}")


@dataclass(frozen=True)
class Normalized:
    """One input line, typed: its :class:`Row` (whose ``task_type`` is the one the pack ran it
    as), the pack's :class:`Result` (``None`` when the line is not a JSON object or names no
    task of the pack) and ``out``, the output row (the dict written at the JSONL edge)."""

    row: Row
    result: Result | None
    out: dict[str, Any]


def normalize_typed(pack: Pack, row: InputRow) -> Normalized:
    """Normalize and parse one row; a bad row gets status ``invalid`` with a reason (and a
    ``Result`` saying so when its task is known, so the scorer counts it as unparsed)."""
    if row.data is None:
        out = row.invalid_output()
        out["rules_hash"] = pack.hash
        return Normalized(Row.from_mapping({}, row.line), None, out)
    data = row.data
    out = dict(data)

    def invalid(reason: str) -> Normalized:
        out.update(normalized=None, answer=None, status=st.INVALID, reason=reason, trace=[], rules_hash=pack.hash)
        typed = Row.from_mapping(data, row.line)
        task = data.get("task")
        try:
            kind = pack.task_type_of(task) if isinstance(task, str) and task else None
        except ValueError:
            kind = None
        if kind is None:
            return Normalized(typed, None, out)
        result = Result(raw=None, text=None, status=st.INVALID, reason=reason, trace=(), task=str(task),
                        task_type=kind, rules_hash=pack.hash)
        return Normalized(typed, result, out)

    source_error = next((data[key] for key in SOURCE_ERROR_FIELDS if key in data), None)
    if isinstance(source_error, str) and "output" not in data:  # a log line that gave no row (lm_eval_log)
        return invalid(source_error)
    try:
        parsed = Row.parse(data, row.line)
        task_type = pack.task_type_of(parsed.task or "")  # Row.parse refuses an empty task
        schema = row_schema(pack, task_type, data)
    except RowError as exc:
        return invalid(str(exc))
    except ValueError as exc:
        return invalid(f"line {row.line}: {exc}")
    result = pack.run(
        parsed.output, parsed.task or "", options=parsed.options, task_type=task_type, schema=schema, lang=parsed.lang,
        reasoning=parsed.reasoning,
    )
    out.update(result.to_json())
    out["task_type"] = result.task_type
    return Normalized(replace(parsed, task_type=result.task_type), result, out)


def shape_trace(out: dict[str, Any], mode: str) -> dict[str, Any]:
    """Keep the full trace (``full``), only the rule names and versions (``rules``), or none of it."""
    if mode == "none":
        out.pop("trace", None)
    elif mode == "rules" and "trace" in out:
        out["trace"] = [{"index": s["index"], "rule": s["rule"], "version": s["version"]} for s in out["trace"]]
    return out


def output_row(pack: Pack, line: Line, trace: str = "full") -> dict[str, Any]:
    """The output row of one decoded line as ``normalize run --trace TRACE`` writes it: the dict
    ``shape_trace(normalize_row(pack, to_input_row(line)), trace)`` gives, without the typed
    :class:`Row` and :class:`Normalized` around it, and with ``trace="none"`` without building
    the trace at all (:meth:`Pack.run` ``trace=False``).  A line that is not a row to run (not an
    object; no task or output; bad options, task or schema) goes the typed way, for its reason.

    >>> from normalize.core.pack import load_pack
    >>> from normalize.io._jsonl import decode_line
    >>> line = decode_line(b'{"id": 1, "task": "gsm8k", "output": "#### 42"}', 1)
    >>> out = output_row(load_pack(), line, "none")
    >>> out == shape_trace(normalize_row(load_pack(), to_input_row(line)), "none"), out["answer"]
    (True, '42')
    """
    data = line.data
    task = None if data is None else data.get("task")
    if data is None or task.__class__ is not str or not task or "output" not in data:
        return shape_trace(normalize_row(pack, to_input_row(line)), trace)
    output = data["output"]
    try:
        if output is not None and output.__class__ is not str:
            raise ValueError(output)
        options = read_options(data)
        task_type = pack.task_type_of(task)
        schema = None if data.get("schema") is None else row_schema(pack, task_type, data)
    except ValueError:  # Row.parse's, task_type_of's or row_schema's refusal: its reason, the typed way
        return shape_trace(normalize_row(pack, to_input_row(line)), trace)
    result = pack.run(output, task, options=options, task_type=task_type, schema=schema,
                      lang=read_lang(data.get("lang")), reasoning=read_reasoning(data), trace=trace != "none")
    # the keys in the order (and at the places) ``out.update(result.to_json())`` puts them
    out = dict(data)
    out["normalized"] = result.text
    out["answer"] = result.answer
    out["status"] = result.status
    out["reason"] = result.reason
    if trace == "none":
        out.pop("trace", None)
    elif trace == "rules":
        out["trace"] = [{"index": s.index, "rule": s.rule, "version": s.version} for s in result.trace]
    else:
        out["trace"] = [step.to_json() for step in result.trace]
    out["rules_hash"] = result.rules_hash
    if result.extra:
        out["extra"] = dict(result.extra)
    out["task_type"] = result.task_type
    return out


def normalize_row(pack: Pack, row: InputRow) -> dict[str, Any]:
    """Normalize and parse one row into its output dict (the JSONL edge of :func:`normalize_typed`)."""
    return normalize_typed(pack, row).out


def normalize_rows(pack: Pack, rows: Sequence[InputRow], *, progress: bool | None = None) -> Iterator[dict[str, Any]]:
    """Yield one output row per input row, in order; a progress bar on a terminal for big inputs."""
    for item in normalize_rows_typed(pack, rows, progress=progress):
        yield item.out


def normalize_rows_typed(
    pack: Pack, rows: Sequence[InputRow], *, progress: bool | None = None
) -> Iterator[Normalized]:
    """:func:`normalize_typed` for every row, in order; a progress bar on a terminal for big inputs."""
    show = progress if progress is not None else (len(rows) >= PROGRESS_MIN_ROWS and sys.stderr.isatty())
    if show:
        from tqdm import tqdm

        for row in tqdm(rows, desc="normalize", unit="row", file=sys.stderr):
            yield normalize_typed(pack, row)
    else:
        for row in rows:
            yield normalize_typed(pack, row)


#: The field a log reader writes for a line it could not read (``normalize.io.lm_eval_log.source_input``).
SOURCE_ERROR_FIELDS = tuple(f"{source}_error" for source in ("lm_eval", "inspect", "lighteval", "opencompass",
                                                            "evalscope", "jsonl"))


def _invalid_reason(out: dict[str, object]) -> str:
    """The row's reason; for a row a log reader could not read, the reader's own (``*_error``)."""
    for key, value in out.items():
        if key.endswith("_error") and isinstance(value, str) and value:
            return value
    reason = out.get("reason")
    return reason if isinstance(reason, str) and reason else "no reason recorded"


def all_invalid_reason(path: str | Path, pack: Pack, *,
                       lines: Iterable[tuple[int, bytes]] | None = None) -> tuple[str, int, int] | None:
    """``(the commonest reason, rows with it, rows)`` when every row of ``path`` is ``invalid``
    under ``pack`` (and there is at least one); ``None`` as soon as one row is not.

    Reads the rows again, so it costs a row or two on a run that is not all invalid.  Line
    numbers are left out of the reasons counted (``line 3: ...`` and ``line 4: ...`` are one reason).
    """
    reasons: Counter[str] = Counter()
    # ``lines``: the rows as the run read them (a Parquet input's rows as JSON lines), else the file's lines
    rows = iter_jsonl(path) if lines is None else (to_input_row(decode_line(raw, number)) for number, raw in lines)
    for row in rows:
        out = normalize_typed(pack, row).out
        if out.get("status") != st.INVALID:
            return None
        reason = _invalid_reason(out)
        head, sep, tail = reason.partition(": ")
        if sep and head.startswith("line ") and head[5:].isdigit():
            reason = tail
        reasons[reason] += 1
    if not reasons:
        return None
    (reason, count), = reasons.most_common(1)
    return reason, count, sum(reasons.values())
