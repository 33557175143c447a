"""Batches of rows in, the columns ``normalize run`` / ``normalize score -o`` add out.

The engine behind :mod:`scoring.integrations.ray` and :mod:`scoring.integrations.hf`.  Every
row goes through the bytes path of ``normalize run`` on a Parquet file (:mod:`normalize.io._arrow`:
the row as the JSON object a JSONL line holds, then the same decoding, normalization and
scoring), so a row gets the very same answer, status and reason here as there.

The added columns have one type each, whatever the batch (a distributed dataset's blocks must
agree): ``normalized``, ``status``, ``reason``, ``rules_hash``, ``task_type`` and
``score_note`` are strings, ``correct`` a boolean, ``score`` a float; ``answer``, ``trace``
and ``extra`` (whose values differ in kind from task to task) are JSON text, as in a Parquet
output, decoded by :func:`decode_columns`.  A missing value is null.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from normalize.core.pack import Pack
from normalize.io.arrow import JSON_COLUMNS, batch_rows, decode_json_fields, pyarrow, row_bytes
from normalize.io.jsonl import decode_line, to_input_row
from normalize.io.rows import normalize_typed, shape_trace
from scoring.integrations._shared import cached_pack
from scoring.metrics import MathVerifier, score_result

#: The columns ``normalize run`` adds to a row, in its order (``trace`` left out with ``trace="none"``).
RUN_COLUMNS: Final = ("normalized", "answer", "status", "reason", "trace", "rules_hash", "extra", "task_type")
#: ... and those ``normalize score -o`` adds after them.
SCORE_COLUMNS: Final = (*RUN_COLUMNS, "correct", "score", "score_note")
TRACES: Final = ("full", "rules", "none")


def column_type(name: str) -> Any:
    """The Arrow type of an added column."""
    pa = pyarrow()
    if name == "correct":
        return pa.bool_()
    if name == "score":
        return pa.float64()
    return pa.string()


def _cell(name: str, value: Any) -> Any:
    if value is None:
        return None
    if name in JSON_COLUMNS:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=str)
    if name == "score":
        return float(value)
    return value


def decode_columns(row: dict[str, Any]) -> dict[str, Any]:
    """A result row with ``answer``, ``trace`` and ``extra`` decoded from JSON text (in place):
    the row ``normalize run`` writes to JSONL, a field it lacks being None.

    >>> decode_columns({"answer": '{"a": 1}', "status": "ok"})
    {'answer': {'a': 1}, 'status': 'ok'}
    """
    return decode_json_fields(row, JSON_COLUMNS)


class BatchScorer:
    """Loads the pack once (per process: cached), checks its hash, and turns rows into the
    columns ``run`` (``score=False``) or ``score -o`` (``score=True``) adds.

    ``task``: the task of every row (default: each row's ``task`` field); ``pack``: a pack file
    (default: the shipped packs); ``trace``: ``none`` (default), ``rules`` or ``full`` as
    ``normalize run --trace``; ``pack_hash``: the hash the pack must have (a node whose pack
    file differs fails at once instead of scoring with other rules); ``line_column``: a column
    holding each row's number in its file, for the ``line N`` that reasons of invalid rows name
    as ``normalize run`` does (default: the row's place in its batch, from 1).
    """

    def __init__(self, task: str | None = None, pack: Pack | str | Path | None = None, trace: str = "none", *,
                 pack_hash: str | None = None, score: bool = False, line_column: str | None = None) -> None:
        if trace not in TRACES:
            raise ValueError(f"trace must be one of {', '.join(TRACES)}, got {trace!r}")
        if task is not None and (not isinstance(task, str) or not task):
            raise ValueError(f"task must be a non-empty task name or None, got {task!r}")
        self._pack_source: Pack | str | None = pack if isinstance(pack, Pack) else (None if pack is None else str(pack))
        self.pack = cached_pack(pack)
        if pack_hash is not None and self.pack.hash != pack_hash:
            raise ValueError(f"the pack {self.pack.name!r} here has hash {self.pack.hash}, not the expected "
                             f"{pack_hash}: its file differs from the driver's")
        if task is not None:
            self.pack.task_type_of(task)  # an unknown task fails now, not row by row
        self.task, self.trace, self.score, self.line_column = task, trace, score, line_column
        base = SCORE_COLUMNS if score else RUN_COLUMNS
        self.columns: tuple[str, ...] = tuple(c for c in base if not (c == "trace" and trace == "none"))
        self._local = threading.local()

    @property
    def pack_hash(self) -> str:
        return self.pack.hash

    def __getstate__(self) -> dict[str, Any]:
        """Pickles to its settings (``datasets``' ``num_proc`` and Ray ship it to other processes);
        the other process reloads the pack and checks that it has the same hash."""
        return {"task": self.task, "pack": self._pack_source, "trace": self.trace, "pack_hash": self.pack.hash,
                "score": self.score, "line_column": self.line_column}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["task"], state["pack"], state["trace"],  # type: ignore[misc]
                      pack_hash=state["pack_hash"], score=state["score"], line_column=state["line_column"])

    def _verifier(self) -> MathVerifier:
        verifier: MathVerifier | None = getattr(self._local, "verifier", None)
        if verifier is None:
            verifier = self._local.verifier = MathVerifier()
        return verifier

    def out_rows(self, rows: Sequence[Mapping[str, Any]], numbers: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """The output rows (as ``normalize run``/``score -o`` writes them, before JSON) of ``rows``;
        ``numbers``: each row's line number (default: ``line_column``'s, else the place in the batch)."""
        from scoring._scorefile import add_score_fields

        if numbers is not None and len(numbers) != len(rows):
            raise ValueError(f"{len(rows)} rows but {len(numbers)} line numbers")
        outs: list[dict[str, Any]] = []
        for place, row in enumerate(rows, start=1):
            data = dict(row)
            number = place if numbers is None else int(numbers[place - 1])
            if self.line_column is not None and numbers is None:
                given = data.get(self.line_column)
                if isinstance(given, bool) or not isinstance(given, int):
                    raise ValueError(f"line_column {self.line_column!r} must hold integers, got {given!r}")
                number = given
            if self.task is not None:
                data["task"] = self.task
            typed = normalize_typed(self.pack, to_input_row(decode_line(row_bytes(data), number)))
            out = typed.out
            if self.score:
                add_score_fields(out, score_result(self.pack, typed.row, typed.result, verifier=self._verifier()))
            outs.append(shape_trace(out, self.trace))
        return outs

    def added(self, rows: Sequence[Mapping[str, Any]], numbers: Sequence[int] | None = None) -> dict[str, list[Any]]:
        """The added columns of ``rows``, one list per column (JSON text where the module says)."""
        outs = self.out_rows(rows, numbers)
        return {name: [_cell(name, out.get(name)) for out in outs] for name in self.columns}

    def arrow_columns(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """:meth:`added` as Arrow arrays of the columns' fixed types."""
        pa = pyarrow()
        return {name: pa.array(values, type=column_type(name)) for name, values in self.added(rows).items()}

    def table(self, batch: Any) -> Any:
        """A ``pyarrow.Table`` (or record batch) with the added columns set (replaced if present)."""
        pa = pyarrow()
        table = pa.Table.from_batches([batch]) if isinstance(batch, pa.RecordBatch) else batch
        for name, values in self.arrow_columns(batch_rows(table)).items():
            if name in table.column_names:
                table = table.set_column(table.column_names.index(name), name, values)
            else:
                table = table.append_column(name, values)
        return table

    def frame(self, frame: Any) -> Any:
        """A pandas ``DataFrame`` copy with the added columns set (rows read through Arrow, as
        a Parquet file's are: numpy values and arrays become plain numbers and lists)."""
        pa = pyarrow()
        rows = batch_rows(pa.Table.from_pandas(frame, preserve_index=False))
        out = frame.copy()
        for name, values in self.added(rows).items():
            out[name] = values
        return out

    def close(self) -> None:
        verifier: MathVerifier | None = getattr(self._local, "verifier", None)
        if verifier is not None:
            verifier.close()
            self._local.verifier = None


__all__ = ["RUN_COLUMNS", "SCORE_COLUMNS", "BatchScorer", "column_type", "decode_columns"]
