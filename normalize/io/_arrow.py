"""Parquet and Arrow IPC files at the edge of ``run`` and ``score`` (the ``arrow`` extra: pyarrow).

Rows go through the very same path as JSONL rows: each Arrow row is turned into the JSON object
a JSONL line would hold (:func:`row_bytes`), normalized and scored as one, and the output lines
are written back as Arrow record batches.  So statuses and answers are those of the JSONL path
by construction, and a bad row (a missing column, a value of the wrong type) is a row with
status ``invalid``, never a crash.

Reading streams one record batch at a time (:func:`iter_rows`; ``--resume`` skips whole row
groups); a Parquet row group is read as a unit, so memory is bounded by the largest row group
(the files written here have at most :data:`WRITE_BATCH_ROWS` rows per group).  Writing goes through a JSONL spool: the output rows are written to ``OUT.partial`` as
JSONL lines, exactly as for a JSONL output (so ``--resume`` keeps its complete lines), and a
finished run converts the spool to ``OUT`` in two streaming passes (one to find each column's
type, one to write batches of at most :data:`WRITE_BATCH_ROWS` rows or about
:data:`WRITE_BATCH_BYTES` bytes) through a temporary file and a
rename: constant memory, and ``OUT`` is never half-written.

Values, Arrow to JSON: strings, numbers, booleans and nulls as they are; lists, structs and
maps as JSON arrays and objects; dates and times as ISO 8601 text; decimals as text; binary as
UTF-8 text (invalid bytes backslash-escaped).  An ``options`` column of JSON text (``'["a",
"b"]'``) and a ``schema`` column of JSON text (``'{"type": ...}'``) are read as that JSON, as
tools that flatten nested values write them.

JSON to Arrow (the output): a column whose values are all strings, all booleans, all integers
(64-bit), all numbers (integers and floats: float64) or all lists of strings keeps that Arrow
type; ``answer``, ``trace`` and ``extra`` (whose values differ in kind from task to task) and
every column with nested or mixed values are JSON text, named in the schema's metadata under
``harness_normalize.json_columns`` so that :func:`read_rows` (and ``normalize score`` given the
file) decodes them again.  A field that a row lacks is null in its column.
"""

from __future__ import annotations

import datetime
import decimal
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from normalize.errors import UsageError

#: The file formats ``--input-format``/``--output-format`` take (``auto``: by the suffix).
FORMATS: Final = ("jsonl", "parquet", "arrow")
#: Suffixes that pick a format; every other suffix is JSONL.
SUFFIXES: Final = {".parquet": "parquet", ".pq": "parquet", ".arrow": "arrow", ".feather": "arrow", ".ipc": "arrow"}
#: Columns always written as JSON text: what they hold differs in kind from task to task.
JSON_COLUMNS: Final = ("answer", "trace", "extra")
#: The schema metadata key naming the columns written as JSON text.
META_KEY: Final = b"harness_normalize.json_columns"
#: Rows read per record batch and written per batch (a Parquet row group each).
READ_BATCH_ROWS: Final = 1024
WRITE_BATCH_ROWS: Final = 4096
#: A written batch also ends once its rows' JSON holds this many bytes (huge rows do not pile up).
WRITE_BATCH_BYTES: Final = 4 << 20
#: Fields read as JSON when an Arrow file holds them as JSON text.
_JSON_TEXT_FIELDS: Final = {"options": "[", "schema": "{"}
_INT64: Final = (-(2**63), 2**63 - 1)
_EXACT_FLOAT_INT: Final = 2**53


def pyarrow() -> Any:
    """The ``pyarrow`` module, or a ``UsageError`` saying which extra installs it."""
    try:
        import pyarrow as pa
    except ImportError:
        raise UsageError("Parquet and Arrow files need pyarrow: pip install 'harness-normalize[arrow]'") from None
    return pa


def resolve_format(path: str | Path | None, explicit: str | None = None) -> str:
    """The format of ``path``: ``explicit`` unless it is None or ``auto``, else by suffix.

    >>> resolve_format("rollouts.parquet"), resolve_format("x.jsonl"), resolve_format("-", "arrow")
    ('parquet', 'jsonl', 'arrow')
    """
    if explicit not in (None, "auto"):
        if explicit not in FORMATS:
            raise UsageError(f"unknown format {explicit!r}; expected one of {', '.join(FORMATS)}")
        return str(explicit)
    if path is None or str(path) == "-":
        return "jsonl"
    return SUFFIXES.get(Path(str(path)).suffix.lower(), "jsonl")


# --------------------------------------------------------------------------- Arrow -> JSON


def _json_default(value: Any) -> Any:
    """What ``json.dumps`` writes for the Python values Arrow gives beyond JSON's own."""
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, tuple):  # a map column's (key, value) pairs
        return list(value)
    raise TypeError(f"a {type(value).__name__} value cannot be written as JSON")


def _map_pairs(value: Any) -> Any:
    """Arrow map values come back as lists of ``(key, value)`` tuples: make them objects."""
    if isinstance(value, list) and value and all(isinstance(p, tuple) and len(p) == 2 for p in value):
        return {str(k): _map_pairs(v) for k, v in value}
    if isinstance(value, list):
        return [_map_pairs(v) for v in value]
    if isinstance(value, dict):
        return {k: _map_pairs(v) for k, v in value.items()}
    return value


def decode_json_fields(row: dict[str, Any], json_columns: Iterable[str] = ()) -> dict[str, Any]:
    """Decode, in place, the columns written as JSON text, and JSON-text ``options``/``schema``.

    >>> decode_json_fields({"answer": '"B"', "options": '["x", "y"]', "schema": "person"}, ["answer"])
    {'answer': 'B', 'options': ['x', 'y'], 'schema': 'person'}
    """
    for name in json_columns:
        value = row.get(name)
        if isinstance(value, str):
            try:
                row[name] = json.loads(value)
            except ValueError:
                pass  # not ours after all: the text stays text
    for name, opener in _JSON_TEXT_FIELDS.items():
        value = row.get(name)
        if isinstance(value, str) and value.lstrip().startswith(opener):
            try:
                row[name] = json.loads(value)
            except ValueError:
                pass  # the row's reader reports the bad value
    return row


def row_bytes(row: Mapping[str, Any]) -> bytes:
    """One Arrow row as the bytes of the JSONL line that would hold it (what the workers read).

    >>> row_bytes({"id": 1, "options": ["a", "b"], "when": datetime.date(2026, 1, 2)})
    b'{"id": 1, "options": ["a", "b"], "when": "2026-01-02"}'
    """
    return json.dumps(_map_pairs(dict(row)), ensure_ascii=False, default=_json_default).encode("utf-8", "surrogatepass")


def json_columns_of(schema: Any) -> list[str]:
    """The columns an Arrow schema's metadata names as JSON text (none for other writers' files)."""
    meta = schema.metadata or {}
    raw = meta.get(META_KEY)
    if not raw:
        return []
    try:
        names = json.loads(raw)
    except ValueError:
        return []
    return [str(n) for n in names] if isinstance(names, list) else []


def iter_batches(path: str | Path, fmt: str, *, skip: int = 0) -> Iterator[tuple[Any, list[str]]]:
    """``(record batch, JSON-text columns)`` of a Parquet or Arrow IPC file, one batch at a time,
    leaving out the first ``skip`` rows (whole Parquet row groups are not read)."""
    pa = pyarrow()
    if str(path) == "-":
        raise UsageError(f"{fmt} input needs a file: stdin is read as JSONL")
    if not Path(path).exists():
        raise UsageError(f"input file not found: {path}")
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            source = pq.ParquetFile(str(path))
        except (OSError, pa.ArrowException) as exc:
            raise UsageError(f"cannot read {path} as Parquet: {exc}") from None
        json_cols = json_columns_of(source.schema_arrow)
        meta = source.metadata
        groups: list[int] = []
        left = skip
        for index in range(meta.num_row_groups):
            rows = meta.row_group(index).num_rows
            if not groups and left >= rows:  # a whole group before the first row wanted
                left -= rows
                continue
            groups.append(index)
        for group in groups:  # one group at a time: iter_batches over many groups reads ahead
            for batch in source.iter_batches(batch_size=READ_BATCH_ROWS, row_groups=[group]):
                if left:
                    if left >= batch.num_rows:
                        left -= batch.num_rows
                        continue
                    batch, left = batch.slice(left), 0
                yield batch, json_cols
        return
    import pyarrow.ipc as ipc

    try:
        source_file = pa.memory_map(str(path), "r")
    except (OSError, pa.ArrowException) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    with source_file:
        try:
            reader: Any = ipc.open_file(source_file)
            batches: Iterator[Any] = (reader.get_batch(i) for i in range(reader.num_record_batches))
        except pa.ArrowInvalid:
            source_file.seek(0)
            try:  # the streaming format (what Hugging Face datasets keeps in its cache)
                reader = ipc.open_stream(source_file)
            except pa.ArrowInvalid as exc:
                raise UsageError(f"cannot read {path} as an Arrow IPC file or stream: {exc}") from None
            batches = iter(reader)
        json_cols = json_columns_of(reader.schema)
        left = skip
        for batch in batches:
            if left:
                if left >= batch.num_rows:
                    left -= batch.num_rows
                    continue
                batch, left = batch.slice(left), 0
            for start in range(0, batch.num_rows, READ_BATCH_ROWS):
                yield batch.slice(start, READ_BATCH_ROWS), json_cols


def batch_rows(batch: Any, json_columns: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The rows of a record batch (or table) as JSON-ready dicts, JSON-text columns decoded."""
    return [decode_json_fields(row, json_columns) for row in batch.to_pylist()]


def iter_rows(path: str | Path, fmt: str, *, skip: int = 0) -> Iterator[tuple[int, bytes]]:
    """``(row number, JSON bytes)`` of every row of a Parquet or Arrow file from row ``skip + 1``:
    what :func:`normalize.io._io.iter_lines` gives for a JSONL file (row numbers count from 1)."""
    number = skip
    for batch, json_cols in iter_batches(path, fmt, skip=skip):
        for row in batch_rows(batch, json_cols):
            number += 1
            yield number, row_bytes(row)


def read_rows(path: str | Path, fmt: str | None = None) -> Iterator[dict[str, Any]]:
    """Every row of a Parquet or Arrow file (``fmt``: by the suffix) as a dict, JSON-text columns decoded.

    The way back from ``normalize run … -o OUT.parquet``: the rows are those of the JSONL output,
    a field the JSONL row lacks being ``None``.
    """
    for batch, json_cols in iter_batches(path, resolve_format(path, fmt)):
        yield from batch_rows(batch, json_cols)


# --------------------------------------------------------------------------- JSON -> Arrow


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if _INT64[0] <= value <= _INT64[1] else "json"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list) and all(isinstance(v, str) or v is None for v in value):
        return "list_str"
    return "json"


def _merge_kind(old: str | None, new: str) -> str:
    if new == "null":
        return old or "null"
    if old in (None, "null", new):
        return new
    if {old, new} == {"int", "float"}:
        return "number"
    if {old, new} <= {"int", "float", "number"}:
        return "number"
    return "json"


class ColumnPlan:
    """Each column's Arrow type, found from every output row (first-seen column order)."""

    def __init__(self, pinned_json: Iterable[str] = JSON_COLUMNS) -> None:
        self.kinds: dict[str, str] = {}
        self.pinned = set(pinned_json)
        self.big_ints: set[str] = set()

    def add(self, row: Mapping[str, Any]) -> None:
        for name, value in row.items():
            if name in self.pinned:
                self.kinds.setdefault(name, "json")
                continue
            kind = _kind(value)
            if kind == "int" and abs(value) > _EXACT_FLOAT_INT:
                self.big_ints.add(name)
            self.kinds[name] = _merge_kind(self.kinds.get(name), kind)

    def arrow_type(self, name: str) -> Any:
        pa = pyarrow()
        kind = self.kinds[name]
        if kind == "number" and name in self.big_ints:
            self.kinds[name] = kind = "json"  # float64 would round the big integers
        return {"null": pa.string(), "bool": pa.bool_(), "int": pa.int64(), "float": pa.float64(),
                "number": pa.float64(), "str": pa.string(), "list_str": pa.list_(pa.string()),
                "json": pa.string()}[kind]

    def schema(self) -> Any:
        pa = pyarrow()
        fields = [pa.field(name, self.arrow_type(name)) for name in self.kinds]
        json_cols = [name for name, kind in self.kinds.items() if kind == "json"]
        return pa.schema(fields, metadata={META_KEY: json.dumps(json_cols).encode()})

    def batch(self, rows: Sequence[Mapping[str, Any]], schema: Any) -> Any:
        """A record batch of ``rows`` under ``schema`` (:meth:`schema`)."""
        pa = pyarrow()
        arrays = []
        for field in schema:
            values = [row.get(field.name) for row in rows]
            if self.kinds[field.name] == "json":
                values = [None if v is None else json.dumps(v, ensure_ascii=False, allow_nan=False, default=str)
                          for v in values]
            elif self.kinds[field.name] == "number":
                values = [None if v is None else float(v) for v in values]
            arrays.append(pa.array(values, type=field.type))
        return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _spool_rows(path: Path) -> Iterator[tuple[dict[str, Any], int]]:
    """The spool's rows and the byte length of each line."""
    with path.open("rb") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line), len(line)


def write_from_jsonl(spool: str | Path, dest: str | Path, fmt: str) -> int:
    """Convert a JSONL file of output rows into a Parquet or Arrow IPC file at ``dest``, atomically
    (a temporary file beside it, then a rename), in two streaming passes; returns the row count."""
    pa = pyarrow()
    spool, dest = Path(spool), Path(dest)
    plan = ColumnPlan()
    count = 0
    for row, _ in _spool_rows(spool):
        plan.add(row)
        count += 1
    schema = plan.schema()
    tmp = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            writer: Any = pq.ParquetWriter(str(tmp), schema)
        elif fmt == "arrow":
            import pyarrow.ipc as ipc

            sink: Any = pa.OSFile(str(tmp), "wb")
            writer = ipc.new_file(sink, schema)
        else:
            raise ValueError(f"not an Arrow format: {fmt!r}")
        with writer:
            rows: list[dict[str, Any]] = []
            held = 0
            for row, size in _spool_rows(spool):
                rows.append(row)
                held += size
                if len(rows) >= WRITE_BATCH_ROWS or held >= WRITE_BATCH_BYTES:
                    writer.write_batch(plan.batch(rows, schema))
                    rows, held = [], 0
            if rows or count == 0:
                writer.write_batch(plan.batch(rows, schema))
        if fmt == "arrow":
            sink.close()
        with open(tmp, "rb") as done:
            os.fsync(done.fileno())
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return count


__all__ = [
    "FORMATS",
    "JSON_COLUMNS",
    "META_KEY",
    "ColumnPlan",
    "batch_rows",
    "decode_json_fields",
    "iter_batches",
    "iter_rows",
    "read_rows",
    "resolve_format",
    "row_bytes",
    "write_from_jsonl",
]
