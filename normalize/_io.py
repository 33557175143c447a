"""JSONL input and output that never loses a row: a bad line becomes an ``invalid`` row."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from normalize import status as st
from normalize.errors import UsageError


@dataclass(frozen=True)
class InputRow:
    """One line of a JSONL file: the parsed object, or the error that kept it from parsing."""

    line: int
    data: dict[str, Any] | None
    error: str | None = None
    raw_line: str = ""

    def invalid_output(self) -> dict[str, Any]:
        """The output row written for a line that is not a JSON object."""
        return {
            "line": self.line,
            "raw_line": self.raw_line,
            "status": st.INVALID,
            "reason": self.error,
            "answer": None,
        }


def read_jsonl(path: str | Path) -> list[InputRow]:
    """Every non-blank line of ``path`` (``-`` for stdin), in order; never raises on content."""
    if str(path) == "-":
        return list(parse_lines(sys.stdin))
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            return list(parse_lines(handle))
    except FileNotFoundError:
        raise UsageError(f"input file not found: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"input path is a directory: {path}") from None


def parse_lines(lines: Iterable[str]) -> Iterator[InputRow]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        text = line.rstrip("\n")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            yield InputRow(number, None, f"line {number} is not valid JSON: {exc.msg} at column {exc.colno}", text)
            continue
        except UnicodeEncodeError:
            yield InputRow(number, None, f"line {number} is not valid UTF-8", text.encode("utf-8", "replace").decode())
            continue
        if not isinstance(data, dict):
            yield InputRow(number, None, f"line {number} is a JSON {type(data).__name__}, not an object", text)
            continue
        yield InputRow(number, data, None, text)


def dumps_row(row: dict[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False, allow_nan=False, default=str)


@contextmanager
def open_output(path: str | Path | None) -> Iterator[IO[str]]:
    """A text handle for ``path``, or stdout when it is None or ``-``."""
    if path is None or str(path) == "-":
        yield sys.stdout
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        yield handle


def write_jsonl(rows: Iterable[dict[str, Any]], path: str | Path | None) -> int:
    count = 0
    with open_output(path) as handle:
        for row in rows:
            handle.write(dumps_row(row) + "\n")
            count += 1
    return count
