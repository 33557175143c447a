"""Turning JSONL rows into output rows: every input row appears in the output, in order."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from typing import Any

from normalize import status as st
from normalize._io import InputRow
from normalize.pack import Pack, read_options

#: Inputs with at least this many rows get a progress bar when stderr is a terminal.
PROGRESS_MIN_ROWS = 2000


def row_options(data: dict[str, Any]) -> Sequence[str] | int | None:
    """The option domain of a row: its ``options`` (texts or a count), or ``choices``; read by
    :func:`~normalize.pack.read_options` (``4.0`` → 4; anything else → ``ValueError``)."""
    return read_options(data.get("options", data.get("choices")))


def row_schema(pack: Pack, task: str, data: dict[str, Any]) -> dict[str, Any] | str | None:
    """A row's own JSON Schema (``schema``: an object, or a name in the pack's ``schemas:``),
    for task types whose chain parses JSON; other task types ignore the field (a text-to-SQL
    row's ``schema`` is a database schema, not a JSON Schema)."""
    value = data.get("schema")
    if value is None:
        return None
    if not any(spec.stage == "structure" for spec in pack.chain(task)):
        return None
    if isinstance(value, (dict, str)):
        return value
    raise ValueError(f"schema must be a JSON Schema object or a schema name, got {value!r}")


def normalize_row(pack: Pack, row: InputRow) -> dict[str, Any]:
    """Normalize and parse one row; a bad row gets status ``invalid`` with a reason."""
    if row.data is None:
        out = row.invalid_output()
        out["rules_hash"] = pack.hash
        return out
    data = row.data
    out = dict(data)

    def invalid(reason: str) -> dict[str, Any]:
        out.update(normalized=None, answer=None, status=st.INVALID, reason=reason, trace=[], rules_hash=pack.hash)
        return out

    task = data.get("task")
    if not isinstance(task, str) or not task:
        return invalid(f"line {row.line}: the row has no 'task' field")
    if "output" not in data:
        return invalid(f"line {row.line}: the row has no 'output' field")
    output = data["output"]
    if output is not None and not isinstance(output, str):
        return invalid(f"line {row.line}: 'output' must be a string or null, got {type(output).__name__}")
    try:
        pack.task_type_of(task)
        options = row_options(data)
        schema = row_schema(pack, task, data)
    except ValueError as exc:
        return invalid(f"line {row.line}: {exc}")
    result = pack.run(output, task, options=options, schema=schema)
    out.update(result.to_json())
    out["task_type"] = result.task_type
    return out


def normalize_rows(pack: Pack, rows: Sequence[InputRow], *, progress: bool | None = None) -> Iterator[dict[str, Any]]:
    """Yield one output row per input row, in order; a progress bar on a terminal for big inputs."""
    show = progress if progress is not None else (len(rows) >= PROGRESS_MIN_ROWS and sys.stderr.isatty())
    if show:
        from tqdm import tqdm

        for row in tqdm(rows, desc="normalize", unit="row", file=sys.stderr):
            yield normalize_row(pack, row)
    else:
        for row in rows:
            yield normalize_row(pack, row)
