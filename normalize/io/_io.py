"""JSONL input and output that never loses a row: a bad line becomes an ``invalid`` row."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from normalize import status as st
from normalize.errors import UsageError
from normalize.io._jsonl import Line, decode_line, encode_row


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
    """Every non-blank line of ``path`` (``-`` for stdin), in order; never raises on content.

    For files too big to hold, iterate :func:`iter_jsonl` instead.
    """
    return list(iter_jsonl(path))


def iter_jsonl(path: str | Path, *, skip: int = 0) -> Iterator[InputRow]:
    """Stream the rows of ``path`` (``-`` for stdin), leaving out the first ``skip`` non-blank lines."""
    for number, raw in iter_lines(path, skip=skip):
        yield to_input_row(decode_line(raw, number))


def iter_lines(path: str | Path, *, skip: int = 0) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes without the line end)`` of every non-blank line, read in binary.

    Binary reading keeps invalid UTF-8 for :func:`decode_line` to report per line, and splits
    only on ``\n`` (a ``\r`` inside a broken line never makes two rows of one).
    """
    with open_input(path) as handle:
        seen = number = 0
        for raw in handle:  # no enumerate: its reused result tuple would keep the last line alive
            number += 1
            if not raw.strip():
                continue
            seen += 1
            if seen <= skip:
                continue
            held = [raw.rstrip(b"\r\n")]
            del raw  # a huge line is held once, not twice (with and without its line end) ...
            yield number, held.pop()  # ... and not by this frame while the caller works on it


@contextmanager
def open_input(path: str | Path) -> Iterator[IO[bytes]]:
    """A binary handle on ``path``, or on stdin for ``-``; a missing file is a ``UsageError`` (a ``ValueError``)."""
    if str(path) == "-":
        yield sys.stdin.buffer
        return
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        raise UsageError(f"input file not found: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"input path is a directory: {path}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        yield handle


def to_input_row(line: Line) -> InputRow:
    return InputRow(line.number, line.data, line.error, line.text)


def parse_lines(lines: Iterable[str]) -> Iterator[InputRow]:
    """Rows of text lines (as read in text mode); blank lines are left out, line numbers kept."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        yield to_input_row(decode_line(line.rstrip("\n").encode("utf-8", "surrogateescape"), number))


def dumps_row(row: dict[str, Any]) -> str:
    """One row as JSON text (no newline), always encodable as UTF-8 (see :func:`encode_row`)."""
    return encode_row(row)[:-1].decode("utf-8")


@contextmanager
def open_output(path: str | Path | None) -> Iterator[IO[bytes]]:
    """A binary handle for ``path``, or stdout when it is None or ``-``."""
    if path is None or str(path) == "-":
        sys.stdout.flush()
        sink = stdout_bytes()
        yield sink
        sink.flush()
        return
    parent = Path(path).parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: cannot create the directory {parent}: {exc.strerror or exc}") from None
    try:
        handle = open(path, "wb")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    with handle:
        yield handle


class _TextSink(io.RawIOBase):
    """Bytes written to a text stream that has no binary buffer (a notebook's ``sys.stdout``)."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__()
        self.stream = stream

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.stream.write(bytes(data).decode("utf-8"))
        return len(data)

    def flush(self) -> None:
        self.stream.flush()


def stdout_bytes() -> IO[bytes]:
    """A binary handle on stdout, even when ``sys.stdout`` was replaced by a text-only stream."""
    buffer = getattr(sys.stdout, "buffer", None)
    return buffer if buffer is not None else _TextSink(sys.stdout)  # type: ignore[return-value]


def write_jsonl(rows: Iterable[dict[str, Any]], path: str | Path | None) -> int:
    """Write rows as JSONL (valid UTF-8 whatever they hold); returns how many were written."""
    count = 0
    with open_output(path) as handle:
        for row in rows:
            handle.write(encode_row(row))
            count += 1
    return count
