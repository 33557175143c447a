"""Reading and writing JSONL rows: the public face of the row edge (for ``scoring`` and harnesses).

Every line becomes a row (:func:`decode_line` gives a reason for one that cannot be read) and
every row is written as valid UTF-8 JSON (:func:`encode_row`).
"""

from __future__ import annotations

from normalize.io._io import InputRow, iter_jsonl, iter_lines, read_jsonl, to_input_row, write_jsonl
from normalize.io._jsonl import (
    MAX_JSON_DEPTH,
    Line,
    decode_held,
    decode_line,
    depth_exceeds,
    encode_row,
    encode_row_taking,
    restore_written_values,
)

__all__ = [
    "MAX_JSON_DEPTH",
    "InputRow",
    "Line",
    "decode_held",
    "decode_line",
    "depth_exceeds",
    "encode_row",
    "encode_row_taking",
    "iter_jsonl",
    "iter_lines",
    "read_jsonl",
    "restore_written_values",
    "to_input_row",
    "write_jsonl",
]
