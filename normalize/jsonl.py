"""Reading and writing JSONL rows: the public face of the row edge (for ``scoring`` and harnesses)."""

from __future__ import annotations

from normalize._io import InputRow, read_jsonl, write_jsonl

__all__ = ["InputRow", "read_jsonl", "write_jsonl"]
