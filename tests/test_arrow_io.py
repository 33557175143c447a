"""Parquet and Arrow I/O in ``run`` and ``score``: the rows, statuses and answers of the JSONL
path, in order, bad rows as ``invalid`` rows, atomic output, ``--resume``, constant memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import normalize.cli._core as cli_core  # noqa: E402
import normalize.io.stream as stream  # noqa: E402
from normalize.io._arrow import read_rows  # noqa: E402
from scoring.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def rows(n: int) -> list[dict[str, Any]]:
    """Rows of several task types, one Arrow type per column (options a list or null)."""
    out: list[dict[str, Any]] = []
    for i in range(n):
        kind = i % 5
        if kind == 0:
            out.append({"id": i, "task": "gsm8k", "output": f"so {i} + 1 #### {i + 1}", "target": str(i + 1),
                        "options": None})
        elif kind == 1:
            out.append({"id": i, "task": "mmlu", "output": f"The answer is ({'ABCD'[i % 4]}).",
                        "target": "ABCD"[(i // 2) % 4], "options": ["w", "x", "y", "z"]})
        elif kind == 2:
            out.append({"id": i, "task": "json_extraction", "output": f'```json\n{{"b": 1, "a": [{i % 3}]}}\n```',
                        "target": '{"a": [1], "b": 1}', "options": None})
        elif kind == 3:
            out.append({"id": i, "task": "squad", "output": "Answer: the red house", "target": "the red house",
                        "options": None})
        else:
            out.append({"id": i, "task": "gsm8k", "output": "I am not sure.", "target": "3", "options": None})
    return out


def write_pair(tmp_path: Path, data: list[dict[str, Any]], stem: str = "in") -> tuple[Path, Path]:
    jsonl = tmp_path / f"{stem}.jsonl"
    jsonl.write_text("".join(json.dumps({k: v for k, v in r.items() if v is not None}) + "\n" for r in data))
    parquet = tmp_path / f"{stem}.parquet"
    pq.write_table(pa.Table.from_pylist(data), parquet, row_group_size=37)
    return jsonl, parquet


def jsonl_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def same_fields(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> None:
    """Equal row by row, a field one side lacks being None (Arrow columns hold nulls)."""
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        keys = set(x) | set(y)
        assert {k: x.get(k) for k in keys} == {k: y.get(k) for k in keys}


def test_run_parquet_gives_the_rows_of_the_jsonl_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jsonl, parquet = write_pair(tmp_path, rows(120))
    assert main(["run", str(jsonl), "-o", str(tmp_path / "ref.jsonl"), "--jobs", "1"]) == 0
    ref = jsonl_rows(tmp_path / "ref.jsonl")
    assert {r["status"] for r in ref} >= {"ok", "no_answer"}
    # Parquet -> Parquet, JSONL -> Parquet, Parquet -> JSONL, Parquet -> Arrow IPC
    assert main(["run", str(parquet), "-o", str(tmp_path / "pp.parquet"), "--jobs", "1"]) == 0
    assert main(["run", str(jsonl), "-o", str(tmp_path / "jp.parquet"), "--jobs", "1"]) == 0
    assert main(["run", str(parquet), "-o", str(tmp_path / "pj.jsonl"), "--jobs", "1"]) == 0
    assert main(["run", str(parquet), "-o", str(tmp_path / "pa.out"), "--output-format", "arrow", "--jobs", "1"]) == 0
    same_fields(list(read_rows(tmp_path / "pp.parquet")), ref)
    same_fields(list(read_rows(tmp_path / "jp.parquet")), ref)
    same_fields(jsonl_rows(tmp_path / "pj.jsonl"), ref)
    same_fields(list(read_rows(tmp_path / "pa.out", "arrow")), ref)
    # nested values: options stay a list of strings, answer/trace/extra are JSON text named in the metadata
    schema = pq.read_schema(tmp_path / "pp.parquet")
    assert schema.field("options").type == pa.list_(pa.string())
    assert schema.field("id").type == pa.int64()
    assert schema.field("answer").type == pa.string()
    assert json.loads(schema.metadata[b"harness_normalize.json_columns"]) == ["answer", "trace", "extra"]
    json_answer = next(r for r in read_rows(tmp_path / "pp.parquet") if r["task"] == "json_extraction")["answer"]
    assert isinstance(json_answer, dict)
    # an Arrow IPC input reads as well (--input-format by hand, the suffix says nothing)
    assert main(["run", str(tmp_path / "pa.out"), "--input-format", "arrow", "-o", str(tmp_path / "again.jsonl"),
                 "--trace", "none", "--jobs", "1"]) == 0
    assert [r["status"] for r in jsonl_rows(tmp_path / "again.jsonl")] == [r["status"] for r in ref]
    capsys.readouterr()


def test_score_parquet_reports_what_jsonl_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jsonl, parquet = write_pair(tmp_path, rows(90))
    assert main(["score", str(jsonl), "--report", str(tmp_path / "a.json"), "-o", str(tmp_path / "a.jsonl"),
                 "--bootstrap", "50", "--jobs", "1"]) == 0
    assert main(["score", str(parquet), "--report", str(tmp_path / "b.json"), "-o", str(tmp_path / "b.parquet"),
                 "--bootstrap", "50", "--jobs", "1"]) == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    scored = list(read_rows(tmp_path / "b.parquet"))
    same_fields(scored, jsonl_rows(tmp_path / "a.jsonl"))
    assert pq.read_schema(tmp_path / "b.parquet").field("correct").type == pa.bool_()
    capsys.readouterr()


def test_jobs_two_on_parquet_writes_what_one_job_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    _, parquet = write_pair(tmp_path, rows(400))
    monkeypatch.setattr(stream, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(stream, "CHUNK_ROWS", 32)
    assert main(["run", str(parquet), "-o", str(tmp_path / "one.parquet"), "--jobs", "1"]) == 0
    assert main(["run", str(parquet), "-o", str(tmp_path / "two.parquet"), "--jobs", "2"]) == 0
    assert (tmp_path / "one.parquet").read_bytes() == (tmp_path / "two.parquet").read_bytes()
    capsys.readouterr()


def test_bad_rows_are_invalid_rows_never_a_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # no task column; an integer output column; a struct output; a null output
    cases = {
        "no_task": pa.table({"id": [1, 2], "output": ["#### 1", "#### 2"]}),
        "int_output": pa.table({"id": [1, 2], "task": ["gsm8k", "gsm8k"], "output": [1, 2]}),
        "struct_output": pa.table({"task": ["gsm8k"], "output": [{"text": "#### 4"}]}),
        "unknown_task": pa.table({"task": ["no_such_task", "gsm8k"], "output": ["#### 1", "#### 2"]}),
    }
    for name, table in cases.items():
        src = tmp_path / f"{name}.parquet"
        pq.write_table(table, src)
        out = tmp_path / f"{name}.out.parquet"
        every_row_invalid = name in ("no_task", "int_output", "struct_output")  # a failed run: exit 1, said once
        assert main(["run", str(src), "-o", str(out), "--jobs", "1"]) == (1 if every_row_invalid else 0), name
        said = capsys.readouterr().err
        assert ("every row is invalid" in said) == every_row_invalid, name
        got = list(read_rows(out))
        assert len(got) == table.num_rows, name
        assert got[0]["status"] == "invalid" and got[0]["reason"], (name, got[0])
    # what the JSONL path says of the same rows
    assert main(["run", str(tmp_path / "int_output.parquet"), "-o", str(tmp_path / "io.jsonl"), "--jobs", "1"]) == 1
    parquet_said = capsys.readouterr().err
    (tmp_path / "io_in.jsonl").write_text('{"id": 1, "task": "gsm8k", "output": 1}\n{"id": 2, "task": "gsm8k", "output": 2}\n')
    assert main(["run", str(tmp_path / "io_in.jsonl"), "-o", str(tmp_path / "io_ref.jsonl"), "--jobs", "1"]) == 1
    jsonl_said = capsys.readouterr().err
    assert "'output' must be a string" in parquet_said  # the reason read from the Parquet rows, not its bytes
    assert parquet_said.splitlines()[0] == jsonl_said.splitlines()[0]
    assert (tmp_path / "io.jsonl").read_bytes() == (tmp_path / "io_ref.jsonl").read_bytes()
    # not a Parquet file at all: a usage error (exit 2), not a traceback
    (tmp_path / "junk.parquet").write_bytes(b"not parquet")
    assert main(["run", str(tmp_path / "junk.parquet"), "-o", str(tmp_path / "j.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    # Parquet to stdout is refused before any work
    assert main(["run", str(tmp_path / "no_task.parquet"), "--output-format", "parquet"]) == 2
    assert "regular file" in capsys.readouterr().err


class _StopAfter(stream.Interrupt):
    """An interrupt requested once ``n`` rows are done (as if Ctrl-C came then)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.asked = 0

    @property  # type: ignore[override]
    def requested(self) -> bool:
        self.asked += 1
        return self.asked > self.n


def test_interrupted_parquet_output_is_atomic_and_resumes_to_the_same_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _, parquet = write_pair(tmp_path, rows(200))
    assert main(["run", str(parquet), "-o", str(tmp_path / "ref.parquet"), "--jobs", "1"]) == 0
    out = tmp_path / "out.parquet"

    @contextmanager
    def stop_after_70() -> Iterator[stream.Interrupt]:
        yield _StopAfter(70)

    monkeypatch.setattr(cli_core, "interruptible", stop_after_70)
    assert main(["run", str(parquet), "-o", str(out), "--jobs", "1"]) == stream.EXIT_INTERRUPTED
    assert not out.exists()  # nothing half-written where the output goes
    spool = Path(f"{out}.partial")
    assert 0 < len(spool.read_bytes().splitlines()) < 200
    assert "--resume" in capsys.readouterr().err
    monkeypatch.undo()
    # a resumed run with another output format is refused: the sidecar names the formats
    assert main(["run", str(parquet), "-o", str(out), "--output-format", "arrow", "--resume", "--jobs", "1"]) == 2
    assert "output_format" in capsys.readouterr().err
    assert main(["run", str(parquet), "-o", str(out), "--resume", "--jobs", "1"]) == 0
    same_fields(list(read_rows(out)), list(read_rows(tmp_path / "ref.parquet")))
    assert out.read_bytes() == (tmp_path / "ref.parquet").read_bytes()
    assert not spool.exists() and not Path(f"{out}.partial.json").exists()
    capsys.readouterr()


# VmHWM, not ru_maxrss: Linux keeps ru_maxrss across exec, so a child of a large pytest process
# would report pytest's own peak whatever the command does.
_MEASURE = """
import sys
from scoring.cli import main
code = main(sys.argv[1:])
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print("maxrss_kib", peak, file=sys.stderr)
raise SystemExit(code)
"""


def _peak_rss(*args: str) -> int:
    # Arrow's system pool and two malloc arenas: jemalloc's and per-thread arenas' retained pages
    # move one run's peak by ~20 MB with thread timing, which would hide what the test measures
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARROW_DEFAULT_MEMORY_POOL": "system", "MALLOC_ARENA_MAX": "2"}
    done = subprocess.run([sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("maxrss_kib"))
    return int(line.split()[1]) * 1024


def _padded(path: Path, n: int) -> int:
    """``n`` rows with 6000 random hex characters each (Parquet cannot compress them away)."""
    import random

    rng = random.Random(5)
    writer = None
    raw = 0
    for start in range(0, n, 250):
        chunk = [{**r, "meta": f"{rng.getrandbits(6000 * 4):x}"} for r in rows(min(250, n - start))]
        raw += sum(len(json.dumps(r)) for r in chunk)
        table = pa.Table.from_pylist(chunk)
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    assert writer is not None
    writer.close()
    return raw


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc (Linux)")
@pytest.mark.parametrize("command", ["run", "score"])
def test_parquet_peak_memory_does_not_grow_with_the_input(tmp_path: Path, command: str) -> None:
    n = 1500
    small = _padded(tmp_path / "small.parquet", n)
    large = _padded(tmp_path / "large.parquet", 6 * n)
    added = large - small  # ~46 MB more rows
    extra = ("--bootstrap", "10") if command == "score" else ("--trace", "none")
    # the least of two runs each: what noise is left (~6 MB) stays far under the bound
    peaks = [min(_peak_rss(command, str(tmp_path / f"{stem}.parquet"), "-o", str(tmp_path / f"{stem}.out.parquet"),
                           "--jobs", "1", *extra) for _ in range(2)) for stem in ("small", "large")]
    # holding the rows would add more than the rows' own size; the report's per-item totals and
    # allocator noise stay well under half of it
    assert peaks[1] - peaks[0] < 0.5 * added, (peaks, added)


def test_nested_input_values_as_arrow_types_or_json_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A row's schema as a struct or as JSON text, options as a list or as JSON text: the
    answers of the JSONL rows holding them as objects and arrays."""
    schema = {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]}
    plain = [{"id": 1, "task": "json_extraction", "output": '{"age": 41}', "schema": schema},
             {"id": 2, "task": "json_extraction", "output": '{"name": "x"}', "schema": schema},
             {"id": 3, "task": "mmlu", "output": "The answer is (B).", "options": ["a", "b", "c"]}]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in plain))
    assert main(["run", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "ref.jsonl"), "--jobs", "1"]) == 0
    ref = jsonl_rows(tmp_path / "ref.jsonl")
    assert ref[1]["status"] != "ok"  # the schema is applied: a missing required field
    as_text = pa.table({"id": [1, 2, 3], "task": [r["task"] for r in plain], "output": [r["output"] for r in plain],
                        "schema": [json.dumps(schema), json.dumps(schema), None],
                        "options": [None, None, json.dumps(["a", "b", "c"])]})
    pq.write_table(as_text, tmp_path / "text.parquet")
    assert main(["run", str(tmp_path / "text.parquet"), "-o", str(tmp_path / "text.out.jsonl"), "--jobs", "1"]) == 0
    got = jsonl_rows(tmp_path / "text.out.jsonl")
    assert [(r["status"], r["answer"]) for r in got] == [(r["status"], r["answer"]) for r in ref]
    assert got[0]["schema"] == schema and got[2]["options"] == ["a", "b", "c"]  # read as the JSON they hold
    as_struct = pa.Table.from_pylist(plain)  # schema: a struct column; options: list<string>
    pq.write_table(as_struct, tmp_path / "struct.parquet")
    assert main(["run", str(tmp_path / "struct.parquet"), "-o", str(tmp_path / "struct.out.parquet"), "--jobs",
                 "1"]) == 0
    back = list(read_rows(tmp_path / "struct.out.parquet"))
    assert [(r["status"], r["answer"]) for r in back] == [(r["status"], r["answer"]) for r in ref]
    capsys.readouterr()
