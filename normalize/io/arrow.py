"""Parquet and Arrow rows: the public face of :mod:`normalize.io._arrow` (for ``scoring``'s Ray and
Hugging Face integrations and harnesses); pyarrow is the ``arrow`` extra."""

from __future__ import annotations

from normalize.io._arrow import (
    FORMATS,
    JSON_COLUMNS,
    batch_rows,
    decode_json_fields,
    pyarrow,
    read_rows,
    row_bytes,
    write_from_jsonl,
)

__all__ = ["FORMATS", "JSON_COLUMNS", "batch_rows", "decode_json_fields", "pyarrow", "read_rows", "row_bytes",
           "write_from_jsonl"]
