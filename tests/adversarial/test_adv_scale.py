"""Streaming and --jobs: memory does not grow with the input; N jobs write the bytes of one."""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import normalize.io.stream as stream
from scoring._items import Item
from scoring.cli import main
from scoring.report import ReportBuilder
from tests.adversarial._inputs import BAD_LINES, mixed_rows, write_lines

ROOT = Path(__file__).resolve().parents[2]

_MEASURE = """
import resource, sys
from scoring.cli import main
code = main(sys.argv[1:])
print("maxrss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
raise SystemExit(code)
"""


def _peak_rss(*args: str) -> int:
    """Peak resident memory in bytes of one CLI run in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("maxrss_kib"))
    return int(line.split()[1]) * 1024


@pytest.mark.parametrize("command", ["run", "score"])
def test_peak_memory_does_not_grow_with_the_input(tmp_path: Path, command: str) -> None:
    n = 1500
    small = write_lines(tmp_path / "small.jsonl", mixed_rows(n, seed=1, pad=6000))
    large = write_lines(tmp_path / "large.jsonl", mixed_rows(2 * n, seed=1, pad=6000))
    added = large.stat().st_size - small.stat().st_size  # ~9 MB more input
    extra = ("--bootstrap", "10") if command == "score" else ()
    peaks = [_peak_rss(command, str(path), "-o", str(tmp_path / f"{path.stem}.out"), "--jobs", "1", *extra)
             for path in (small, large)]
    # before streaming, peak memory was ~4x the input: doubling it added ~36 MB here
    assert peaks[1] - peaks[0] < 0.25 * added, (peaks, added)


def test_report_keeps_about_a_byte_per_item_and_group() -> None:
    def item(i: int) -> Item:
        return Item(task=f"t{i % 5}", task_type="multiple_choice", status="ok", outcome="scored",
                    value=float(i % 2), metric="exact", option_count=4, run=str(i % 3))

    def held(n: int) -> int:
        tracemalloc.start()
        builder = ReportBuilder()
        for i in range(n):
            builder.add(item(i))
        size = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        return size

    n = 20_000
    per_item = (held(2 * n) - held(n)) / n
    assert per_item < 40, per_item  # 3 groups x (1-byte value + 1-byte flag + option count); a dict row is ~1 KB


def _outputs(tmp_path: Path, tag: str, src: Path, jobs: str) -> tuple[bytes, bytes, bytes]:
    run_out, score_out, report = (tmp_path / f"{tag}.{name}" for name in ("run.jsonl", "score.jsonl", "report.json"))
    assert main(["run", str(src), "-o", str(run_out), "--jobs", jobs]) == 0
    assert main(["score", str(src), "-o", str(score_out), "--report", str(report), "--jobs", jobs,
                 "--bootstrap", "30", "--aggregate", "vote"]) == 0
    return run_out.read_bytes(), score_out.read_bytes(), report.read_bytes()


def test_two_jobs_write_the_bytes_of_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    lines = mixed_rows(700, seed=3)
    lines[5:5] = list(BAD_LINES.values())
    src = write_lines(tmp_path / "in.jsonl", lines)
    monkeypatch.setattr(stream, "PARALLEL_MIN_BYTES", 0)  # small input, but the parallel path all the same
    monkeypatch.setattr(stream, "CHUNK_ROWS", 64)  # several chunks in flight
    submitted: list[int] = []

    class CountingPool(ProcessPoolExecutor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
            task = args[0]  # a byte range of the input file (its line count), or the rows themselves
            submitted.append(task.lines if isinstance(task, stream.RangeTask) else len(task))
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(stream, "ProcessPoolExecutor", CountingPool)
    one = _outputs(tmp_path, "one", src, "1")
    assert not submitted
    two = _outputs(tmp_path, "two", src, "2")
    assert len(submitted) > 4 and max(submitted) <= 64
    assert one == two
    assert len(one[0].splitlines()) == len(lines)
    capsys.readouterr()


def test_chunks_are_bounded_in_rows_and_bytes() -> None:
    lines = [(i, b"x" * 100) for i in range(1000)]
    assert [len(c) for c in stream.chunks(lines, rows=300, size=1 << 20)] == [300, 300, 300, 100]
    assert max(len(c) for c in stream.chunks(lines, rows=10_000, size=1000)) == 10


def test_bad_jobs_value_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write_lines(tmp_path / "in.jsonl", mixed_rows(3))
    assert main(["run", str(src), "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err
