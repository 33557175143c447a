"""The parallel path reads its chunks by byte range and its workers write the output in turn:
the same rows and bytes as one job."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from normalize.io import stream
from normalize.io._io import iter_lines

_PIECES = st.sampled_from([b"a", b"{}", b"\n", b"\n", b"\r", b" ", b"\t", b"\xff", "é".encode()])


def _chunks_by_range(path: Path, rows: int, size: int) -> list[tuple[int, int, int, int]]:
    return list(stream.line_ranges(path, rows=rows, size=size))


@given(st.lists(_PIECES, max_size=60).map(b"".join), st.sampled_from([1, 2, 3, 256]), st.sampled_from([1, 3, 8, 1 << 20]))
@settings(max_examples=400, deadline=None)
def test_ranges_give_the_rows_iter_lines_gives(tmp_path_factory: pytest.TempPathFactory, data: bytes, rows: int,
                                               size: int) -> None:
    """Chunks read back by range are ``iter_lines`` of the file, cut anywhere between lines:
    contiguous, covering the file, each within ``rows`` lines (blank ones counted) and over
    ``size`` bytes by its last line at most."""
    path = tmp_path_factory.mktemp("ranges") / "in.jsonl"
    path.write_bytes(data)
    ranges = _chunks_by_range(path, rows, size)
    assert [r[0] for r in ranges] == ([0, *(r[1] for r in ranges[:-1])] if ranges else [])
    assert (ranges[-1][1] if ranges else 0) == len(data)
    physical = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    assert sum(r[3] for r in ranges) == physical
    line = 1
    for start, end, first, lines in ranges:
        assert first == line and 1 <= lines <= rows
        assert data[start:end].count(b"\n") in (lines, lines - 1)
        last_start = data.rfind(b"\n", start, end - 1) + 1  # where the chunk's last line starts
        assert lines == 1 or last_start - start < size  # about `size`: over it by its last line at most
        line += lines
    rows_read = [row for start, end, first, _ in ranges for row in stream.read_range(path, start, end, first)]
    assert rows_read == list(iter_lines(path))


def test_a_line_longer_than_a_block_is_one_chunk(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"x" * 50 + b"\nshort\n" + b"y" * 30)
    assert _chunks_by_range(path, 256, 8) == [(0, 51, 1, 1), (51, 87, 2, 2)]


def _echo(chunk: list[tuple[int, bytes]]) -> tuple[bytes, list[Any]]:
    return b"".join(b"%d:%s\n" % (number, raw) for number, raw in chunk), [number for number, _ in chunk]


def _job(tmp_path: Path, src: Path, name: str, jobs: int) -> tuple[bytes, list[Any]]:
    records: list[Any] = []
    with stream.open_output(tmp_path / name, meta={"input": name}, resume=False) as output:
        done = stream.run_job(src, output, _echo, records.extend, jobs=jobs, interrupt=stream.Interrupt())
        assert done.rows == len(records) and not done.interrupted
        output.commit()
    return (tmp_path / name).read_bytes(), records


@pytest.fixture
def source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(stream, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(stream, "CHUNK_ROWS", 7)  # many chunks, several in flight
    lines = [b'{"i": %d}' % i if i % 5 else b"  " for i in range(300)]
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\r\n{\"last\": 1}")
    return path


@pytest.mark.parametrize("jobs", [2, 3])
def test_parallel_output_into_a_file_is_the_bytes_of_one_job(tmp_path: Path, source: Path, jobs: int) -> None:
    """The workers write the file themselves, each chunk in its turn: the bytes of one job."""
    assert _job(tmp_path, source, "one.jsonl", 1) == _job(tmp_path, source, f"{jobs}.jsonl", jobs)


def _fails_at_line_100(chunk: list[tuple[int, bytes]]) -> tuple[bytes, list[Any]]:
    if any(number == 100 for number, _ in chunk):
        raise RuntimeError("a rule bug in the worker")
    return _echo(chunk)


def test_a_failing_chunk_stops_the_writes_after_it(tmp_path: Path, source: Path) -> None:
    """A worker that raises passes its turn on without writing, so the workers after it do not
    wait for ever; nothing after it is written, and the parent raises the failure."""
    reference, _ = _job(tmp_path, source, "one.jsonl", 1)
    with pytest.raises(RuntimeError, match="a rule bug"):
        with stream.open_output(tmp_path / "two.jsonl", meta={"input": "two"}, resume=False) as output:
            stream.run_job(source, output, _fails_at_line_100, lambda records: None, jobs=2,
                           interrupt=stream.Interrupt())
    written = stream.partial_path(tmp_path / "two.jsonl").read_bytes()
    assert written and reference.startswith(written) and b"\n100:" not in written and written.endswith(b"\n")


def test_parallel_output_into_a_pipe_sends_the_bytes(tmp_path: Path, source: Path) -> None:
    """Output that is not a regular file (here a pipe) gets the lines back from the workers."""
    one = _job(tmp_path, source, "one.jsonl", 1)
    read, write = os.pipe()
    records: list[Any] = []
    pid = os.fork()
    if pid == 0:  # the reader: copies the pipe into a file
        os.close(write)
        with open(tmp_path / "piped.jsonl", "wb") as sink:
            while chunk := os.read(read, 1 << 16):
                sink.write(chunk)
        os._exit(0)
    os.close(read)
    with open(write, "wb") as handle:
        output = stream.Output(None, handle)
        stream.run_job(source, output, _echo, records.extend, jobs=2, interrupt=stream.Interrupt())
    os.waitpid(pid, 0)
    assert ((tmp_path / "piped.jsonl").read_bytes(), records) == one


def test_ranges_of_a_longer_file_give_its_rows(tmp_path: Path) -> None:
    """Chunks of a few thousand rows of varied lengths, read back, are its rows."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(b'{"row": %d, "pad": "%s"}\n' % (i, b"x" * (i % 300)) for i in range(3000)))
    whole = list(stream.line_ranges(path, rows=5))
    assert [row for start, end, first, _ in whole for row in stream.read_range(path, start, end, first)] == list(
        iter_lines(path)
    )
