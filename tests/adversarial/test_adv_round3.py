"""Round 3 of the reliability attacks (issue 24): every line a row, every wait bounded.

Each test builds its attack at test time, scaled down where the issue's size would take long,
and asserts the promise (a row with its status and reason, a bounded time or memory ratio, a
one-line error naming what failed), not only that nothing crashed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from normalize import status
from normalize.core.pack import load_pack
from normalize.errors import RejectText
from normalize.rules._extract_params import JsonBlockParams
from normalize.rules.extract_json import MAX_NESTING, extract_json_block

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "scoring.cli", *args], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=timeout)


# --------------------------------------------------------------------------- deep JSON


def _deep_row_output(depth: int = 100_000) -> str:
    """About 1.1 MB of JSON nesting ``depth`` levels: objects holding arrays, in prose."""
    return "Here is the JSON: " + '{"key": [' * depth + "1" + "]}" * depth + " Hope it helps."


@pytest.mark.parametrize("alternatives", ["first", "contradictory"])
def test_deep_json_is_refused_in_one_linear_scan(alternatives: str) -> None:
    text = _deep_row_output()
    assert len(text) > 1_000_000
    started = time.process_time()
    with pytest.raises(RejectText) as refused:
        extract_json_block(text, JsonBlockParams(alternatives=alternatives))  # type: ignore[arg-type]
    assert time.process_time() - started < 0.2
    assert refused.value.status == status.INVALID
    assert f"more than {MAX_NESTING} levels deep" in refused.value.reason


def test_deep_json_row_through_the_shipped_pack_is_invalid_fast() -> None:
    pack = load_pack()
    started = time.process_time()
    result = pack.run(_deep_row_output(90_000), "json_extraction")  # under the pack's 1 MiB max_input_bytes
    assert time.process_time() - started < 0.5
    assert result.status == status.INVALID
    assert result.reason is not None and "levels deep" in result.reason


def test_nesting_up_to_the_limit_still_extracts() -> None:
    depth = MAX_NESTING
    text = "Sure: " + "[" * depth + "1" + "]" * depth + " done"
    assert extract_json_block(text) == "[" * depth + "1" + "]" * depth
    from normalize.values._json import JsonLimits

    assert JsonLimits.model_fields["max_depth"].metadata[-1].le == MAX_NESTING  # no parse_json limit is deeper


@pytest.mark.parametrize("core", ['"' + "a" * 1_000_000 + '" x', '"' + "a" * 1_000_000 + '" "b"',
                                  '"' + "a" * 1_000_000 + '\\q"'])
def test_nested_spans_that_cannot_parse_cost_one_pass(core: str) -> None:
    # 250 deep (under the limit), each nested span failing at the same place a megabyte in: the
    # contradictory search scanned and decoded every one of them (~0.9 s)
    text = "[" * 250 + core + "]" * 250
    started = time.process_time()
    assert extract_json_block(text, JsonBlockParams(alternatives="contradictory")) == text
    assert time.process_time() - started < 0.2


def test_the_stated_search_equals_the_oracle_on_nested_broken_json() -> None:
    import random

    from tests._oracles import json_block as oracle

    rng = random.Random(24)
    atoms = ["1", '"a"', '"b c"', "true", "x", '"\\q"', "'s'", " ", ",", ":", "1 2", '"k": 1', "True", '"', "or",
             "\n```json\n", "\n```\n", "Final answer:", "Alternatively"]

    def value(depth: int) -> str:
        if depth > 6 or rng.random() < 0.3:
            return rng.choice(atoms)
        pair = rng.choice(["[]", "{}"])
        inner = rng.choice([", ", " ", ",", ": "]).join(value(depth + 1) for _ in range(rng.randint(0, 3)))
        return pair[0] + inner + (pair[1] if rng.random() < 0.9 else "")

    def outcome(fn: object, *args: object) -> object:
        try:
            return fn(*args)  # type: ignore[operator]
        except RejectText as rejected:
            return ("rejected", rejected.status, rejected.reason)

    for _ in range(1500):
        text = " ".join(value(0) for _ in range(rng.randint(1, 4)))
        for alternatives in ("first", "contradictory"):
            assert outcome(extract_json_block, text, JsonBlockParams(alternatives=alternatives)) == outcome(  # type: ignore[arg-type]
                oracle.extract_json_block, text, alternatives), (alternatives, text)


# --------------------------------------------------------------------------- lm-eval logs: every line a row

_SAMPLES = "samples_gsm8k_2024-05-01T12-30-00.123456.jsonl"


def _sample(doc_id: int, response: str | None, target: str = "7", **fields: object) -> dict[str, object]:
    sample: dict[str, object] = {"doc_id": doc_id, "doc": {}, "target": target, "arguments": {},
                                 "resps": [[response]] if response is not None else [[]],
                                 "filtered_resps": [response] if response is not None else [],
                                 "filter": "strict-match", "metrics": ["exact_match"]}
    sample.update(fields)
    return sample


def test_lm_eval_every_line_is_a_row_and_a_nan_target_is_that_rows_bad_target(tmp_path: Path) -> None:
    no_filter = _sample(0, "The answer is 7.")
    del no_filter["filter"]
    lines = [
        json.dumps(no_filter),  # first: before, it made every later line "another filter's" and dropped them
        json.dumps(_sample(1, "#### 3", "3")),
        json.dumps(_sample(2, None)),  # "resps": [[]]
        json.dumps(_sample(3, "#### 4", "4")).replace('"target": "4"', '"target": NaN'),
        json.dumps(_sample(4, "#### 5", "5")),
        json.dumps(_sample(1, "#### 3", "3", filter="flexible-extract")),  # a later filter: the same rows again
        json.dumps(_sample(5, "#### 6", "6", filter="flexible-extract")),  # a doc only a later filter lists
    ]
    path = tmp_path / _SAMPLES
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = _cli("score", str(path), "--from", "lm-eval", "-o", str(out), "--jobs", "1", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row.get("id") for row in rows] == [0, 1, 2, 3, 4, 5]
    assert [row["status"] for row in rows] == ["invalid", "ok", "invalid", "ok", "ok", "ok"]
    assert f"{_SAMPLES} line 1: no filter name" in rows[0]["reason"]
    assert f"{_SAMPLES} line 3: doc 2 has no response" in rows[2]["reason"]
    assert all(row["task"] == "gsm8k" for row in rows)  # bad lines count as unparsed under their task
    assert "finite number" in rows[3]["score_note"] and rows[3]["correct"] is None
    (gsm8k,) = [g for g in json.loads(result.stdout)["groups"] if g["level"] == "task" and g["name"] == "gsm8k"]
    assert (gsm8k["n"], gsm8k["bad_target"], gsm8k["parsed"], gsm8k["a_strict"]["value"]) == (6, 1, 3, 0.6)


def _lm_eval_lines(path: Path, size: int) -> int:
    """About ``size`` bytes of ordinary samples (one line a doc)."""
    line = json.dumps(_sample(0, "Let me think. " * 80 + "The answer is 7.")) + "\n"
    count = size // len(line)
    with path.open("w", encoding="utf-8") as handle:
        for i in range(count):
            handle.write(line.replace('"doc_id": 0', f'"doc_id": {i}', 1))
    return count


_READ_PEAK = """
import argparse, json, sys, tracemalloc
from normalize.io.lm_eval_log import source_input
args = argparse.Namespace(input=sys.argv[1], more_inputs=[], source="lm-eval", source_task=None,
                          source_filter=None, resume=False)
tracemalloc.start()
name = source_input(args)
print(json.dumps({"peak": tracemalloc.get_traced_memory()[1], "rows": sum(1 for _ in open(name, "rb"))}))
"""


def test_lm_eval_reading_streams_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / _SAMPLES
    count = _lm_eval_lines(path, 12 << 20)
    child = subprocess.run([sys.executable, "-c", _READ_PEAK, str(path)], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert child.returncode == 0, child.stderr
    got = json.loads(child.stdout)
    assert got["rows"] == count
    assert got["peak"] < 1 << 20, got  # a 12 MB log: a list of every row held ~5x the file


_PEAK_RSS = """
import sys
from scoring.cli import main
code = main(sys.argv[1:])
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM")][0].split()[1]
print("PEAK", int(hwm) * 1024, code, file=sys.stderr)
"""


def _peak_rss(*args: str) -> int:
    child = subprocess.run([sys.executable, "-c", _PEAK_RSS, *args], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    peak = [line for line in child.stderr.splitlines() if line.startswith("PEAK")]
    assert peak and peak[-1].split()[2] == "0", child.stderr[-2000:]
    return int(peak[-1].split()[1])


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
@pytest.mark.parametrize("command", ["run", "score"])
def test_one_huge_lm_eval_row_peaks_near_twice_its_line(tmp_path: Path, command: str) -> None:
    # 36 MB: over glibc's largest dynamic mmap threshold (32 MiB), so freed copies leave RSS
    response = "The answer is 42. " * (36_000_000 // 18)
    for name, text in (("big", response), ("small", "The answer is 42.")):
        (tmp_path / name).mkdir()
        (tmp_path / name / _SAMPLES).write_text(json.dumps(_sample(0, text, "42", filtered_resps=["42"])) + "\n",
                                                encoding="utf-8")
    del response
    line = (tmp_path / "big" / _SAMPLES).stat().st_size
    peaks = {name: _peak_rss(command, str(tmp_path / name / _SAMPLES), "--from", "lm-eval", "--jobs", "1",
                             "-o", str(tmp_path / f"{name}.jsonl")) for name in ("small", "big")}
    ratio = (peaks["big"] - peaks["small"]) / line
    assert ratio < 2.4, f"peak {ratio:.2f}x the line"  # 5.6-7x before
    row = json.loads((tmp_path / "big.jsonl").read_text(encoding="utf-8"))
    assert len(row["output"]) == 36_000_000 and row["status"] == "error"  # written whole; over max_input_bytes


def test_encode_row_taking_writes_encode_rows_bytes() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as hs

    from normalize.io.jsonl import encode_row, encode_row_taking

    leaf = hs.one_of(hs.none(), hs.booleans(), hs.integers(), hs.floats(), hs.text(max_size=8),
                     hs.sampled_from(["x\udc80", "\ud800"]))
    value = hs.recursive(leaf, lambda inner: hs.lists(inner, max_size=3) | hs.dictionaries(hs.text(max_size=4), inner,
                                                                                           max_size=3), max_leaves=8)
    rows = hs.dictionaries(hs.sampled_from(["output", "target", "encoding_notes", "a", "é", "x\udc80"]), value,
                           max_size=5)

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(rows)
    def check(row: dict[str, object]) -> None:
        expected = encode_row(dict(row))
        taken = dict(row)
        assert encode_row_taking(taken) == expected
        assert taken == {} or any(not isinstance(k, str) or "\udc80" in k for k in row)

    check()


# --------------------------------------------------------------------------- a metric's optional extra missing

_WITHOUT = """
import importlib.abc, sys
blocked = set(sys.argv[1].split(","))

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)", name=name)
        return None

sys.meta_path.insert(0, Blocker())
for name in list(sys.modules):
    if name.split(".")[0] in blocked:
        del sys.modules[name]
from scoring.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _without(modules: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _WITHOUT, modules, *args], capture_output=True, text=True,
                          input=stdin, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)


def test_a_metric_whose_extra_is_missing_is_a_usage_error_before_any_work(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    math_row = json.dumps({"id": 2, "task": "gsm8k", "output": "#### 4", "target": "4"})
    untargeted = json.dumps({"id": 3, "task": "alpaca_eval", "output": "Dear diary"})  # no target: no metric runs
    writing = json.dumps({"id": 1, "task": "alpaca_eval", "output": "The cat sat.", "target": "A cat sat."})
    rows.write_text("\n".join([math_row, untargeted, writing]) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    refused = _without("sacrebleu", "score", str(rows), "-o", str(out), "--jobs", "1")
    assert refused.returncode == 2, refused.stderr
    assert "Traceback" not in refused.stderr
    (message,) = [line for line in refused.stderr.splitlines() if line.strip()]
    assert f"{rows} line 3" in message and "'sacrebleu'" in message and "harness-normalize[text]" in message
    assert not out.exists() and not Path(f"{out}.partial").exists()  # refused before any row was scored
    piped = _without("sacrebleu,rouge_score", "score", "-", "--jobs", "1", stdin=rows.read_text(encoding="utf-8"))
    assert piped.returncode == 2 and "Traceback" not in piped.stderr
    assert "input line 3" in piped.stderr and "harness-normalize[text]" in piped.stderr
    rows.write_text("\n".join([math_row, untargeted]) + "\n", encoding="utf-8")
    fine = _without("sacrebleu", "score", str(rows), "-o", str(out), "--jobs", "1")
    assert fine.returncode == 0, fine.stderr  # rows that need nothing missing score as before
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == [2, 3]
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(json.dumps({**json.loads(writing), "run": run}) for run in "ab") + "\n", encoding="utf-8")
    audited = _without("sacrebleu", "audit", str(runs), "--format", "json")
    assert audited.returncode == 0, audited.stderr  # run CVs: raw exact match only for such rows
    assert json.loads(audited.stdout)["run_cv"]["raw_exact"]["runs"] == {"a": 0.0, "b": 0.0}


# --------------------------------------------------------------------------- ids repeated with other targets

def test_conflicting_targets_are_counted_under_aggregate_and_refused_with_strict_ids(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(json.dumps(r) for r in [
        {"id": 1, "task": "gsm8k", "output": "#### 4", "target": "4"},
        {"id": 1, "task": "gsm8k", "output": "#### 5", "target": "5"},  # the same item, another target
        {"id": 2, "task": "gsm8k", "output": "#### 6", "target": "6"},
        {"id": 2, "task": "gsm8k", "output": "#### 6", "target": "6"},  # a sample like its first: fine
    ]) + "\n", encoding="utf-8")
    report = tmp_path / "report.json"
    warned = _cli("score", str(rows), "--aggregate", "vote", "--jobs", "1", "--report", str(report))
    assert warned.returncode == 0, warned.stderr
    assert "warning: 1 id(s) have samples with different targets" in warned.stderr
    assert 'gsm8k/1: line 1 gives "4", line 2 gives "5"' in warned.stderr
    assert json.loads(report.read_text(encoding="utf-8"))["conflicting_targets"]["ids"] == 1
    for extra in (["--aggregate", "vote"], []):
        refused = _cli("score", str(rows), *extra, "--strict-ids", "--jobs", "1")
        assert refused.returncode == 2, refused.stderr
        assert "Traceback" not in refused.stderr
        (message,) = [line for line in refused.stderr.splitlines() if line.strip()]
        assert message.startswith("normalize: error: --strict-ids: id gsm8k/1") and '"5"' in message
    rows.write_text("\n".join(rows.read_text(encoding="utf-8").splitlines()[2:]) + "\n", encoding="utf-8")
    clean = _cli("score", str(rows), "--aggregate", "vote", "--strict-ids", "--jobs", "1")
    assert clean.returncode == 0 and "warning" not in clean.stderr, clean.stderr


# --------------------------------------------------------------------------- a --jobs worker killed

def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                    reason="finds the workers through /proc (Linux)")
def test_a_killed_worker_is_named_with_its_chunk_and_resume_continues(tmp_path: Path) -> None:
    import signal

    from scoring.cli import main
    from tests.adversarial._inputs import mixed_rows, write_lines

    source = write_lines(tmp_path / "in.jsonl", mixed_rows(6000, seed=3))  # seconds of work: time to find a worker
    reference = tmp_path / "reference.jsonl"
    assert main(["run", str(source), "-o", str(reference), "--jobs", "1"]) == 0
    out = tmp_path / "out.jsonl"
    partial = Path(f"{out}.partial")
    proc = subprocess.Popen([sys.executable, "-m", "scoring.cli", "run", str(source), "-o", str(out), "--jobs", "2"],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        if len(workers) >= 2 and partial.exists() and partial.stat().st_size > 150_000:  # workers have written
            break
        time.sleep(0.01)
    assert workers, "the run ended before its workers could be found"
    os.kill(workers[-1], signal.SIGKILL)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    assert "Traceback" not in err and "BrokenProcessPool" not in err and "bug" not in err
    (message,) = [line for line in err.splitlines() if line.strip()]
    assert "died (killed by SIGKILL" in message and "input lines" in message
    assert str(partial) in message and "--resume" in message
    assert not out.exists()
    assert main(["run", str(source), "-o", str(out), "--jobs", "2", "--resume"]) == 0
    assert out.read_bytes() == reference.read_bytes()


# --------------------------------------------------------------------------- "File too large" names the file

_FSIZE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
from scoring.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize(("command", "jobs"), [("run", "1"), ("run", "2"), ("score", "2")])
def test_file_too_large_names_the_file(tmp_path: Path, command: str, jobs: str) -> None:
    from tests.adversarial._inputs import mixed_rows, write_lines

    source = write_lines(tmp_path / "in.jsonl", mixed_rows(1500, seed=5))  # > 256 KB: --jobs runs in parallel
    out = tmp_path / "out.jsonl"
    out.write_text("the previous output\n", encoding="utf-8")
    child = subprocess.run([sys.executable, "-c", _FSIZE, "100000", command, str(source), "-o", str(out),
                            "--jobs", jobs], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert child.returncode == 2, child.stderr
    (message,) = [line for line in child.stderr.splitlines() if line.strip()]
    assert message == f"normalize: error: {out}.partial: File too large"
    assert out.read_text(encoding="utf-8") == "the previous output\n"


def test_file_too_large_for_the_lm_eval_rows_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / _SAMPLES
    _lm_eval_lines(path, 300_000)
    child = subprocess.run([sys.executable, "-c", _FSIZE, "100000", "run", str(path), "--from", "lm-eval",
                            "-o", "/dev/null"], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}, timeout=120)
    assert child.returncode == 2, child.stderr
    (message,) = [line for line in child.stderr.splitlines() if line.strip()]
    assert message.startswith(f"normalize: error: {tmp_path}/lm-eval-rows-") and message.endswith(": File too large")


# --------------------------------------------------------------------------- OpenAI-compatible requests: bounded

@pytest.mark.parametrize("fault", ["trickle_headers", "trickle_body"])
def test_a_trickling_server_is_cut_off_at_the_request_timeout(fault: str) -> None:
    from scoring.lm.generate import Request, SamplingParams
    from scoring.lm.openai_backend import Client, ClientConfig, OpenAIGenerator
    from tests.openai_fake_server import FakeOpenAI, serve

    fake = FakeOpenAI(trickle_s=0.5, trickle_bytes=40)  # 20 s of bytes an attempt if nothing cuts it off
    fake.faults.extend([fault, fault])
    with serve(fake) as url:
        client = Client(ClientConfig(url, timeout=2.0, max_retries=1, backoff=0.1))
        started = time.monotonic()
        (result,) = OpenAIGenerator(client.config, "m", client=client).generate([Request("p", 0)], SamplingParams())
        elapsed = time.monotonic() - started
    assert result.text is None and "failed after 2 attempts" in str(result.error)
    assert "2 s request timeout" in str(result.error)
    assert elapsed < 2 * 2.0 + 0.1 + 2.5, elapsed  # two whole attempts and one backoff, with slack for a busy machine
    assert len(fake.requests) == 2


def test_a_reply_with_more_choices_than_asked_is_that_rows_error(tmp_path: Path) -> None:
    from scoring.lm.generate import Request, SamplingParams
    from scoring.lm.openai_backend import Client, ClientConfig, OpenAIGenerator
    from tests.openai_fake_server import FakeOpenAI, serve

    fake = FakeOpenAI()
    fake.faults.append("two_choices")
    with serve(fake) as url:
        client = Client(ClientConfig(url, max_retries=0, concurrency=1))
        first, second = OpenAIGenerator(client.config, "m", client=client).generate(
            [Request("p", 0), Request("q", 0)], SamplingParams())
    assert first.text is None and "2 choices for a request of one (n=1)" in str(first.error)
    assert second.text is not None and second.text.startswith("text:q")
