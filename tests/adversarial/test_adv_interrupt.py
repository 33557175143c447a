"""Interrupted runs lose nothing: SIGINT or SIGKILL mid-run, then --resume gives the bytes of an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scoring.cli import main
from tests.adversarial._inputs import mixed_rows, write_lines

ROOT = Path(__file__).resolve().parents[2]
ROWS = 3000


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_lines(tmp_path_factory.mktemp("interrupt") / "in.jsonl", mixed_rows(ROWS, seed=7))


@pytest.fixture(scope="module")
def reference(source: Path) -> bytes:
    """The output of one uninterrupted run."""
    out = source.with_name("reference.jsonl")
    assert main(["run", str(source), "-o", str(out), "--jobs", "1"]) == 0
    return out.read_bytes()


def _start(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "scoring.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _interrupt_when_started(proc: subprocess.Popen[str], partial: Path, sig: int) -> tuple[int, str]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if partial.exists() and partial.stat().st_size > 10_000:
            break
        time.sleep(0.02)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


@pytest.mark.parametrize(("sig", "jobs"), [(signal.SIGINT, "1"), (signal.SIGKILL, "2")])
def test_run_interrupted_then_resumed_equals_one_run(source: Path, reference: bytes, tmp_path: Path, sig: int,
                                                     jobs: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("the previous output\n", encoding="utf-8")
    partial = Path(f"{out}.partial")
    code, err = _interrupt_when_started(_start("run", str(source), "-o", str(out), "--jobs", jobs), partial, sig)
    assert out.read_text(encoding="utf-8") == "the previous output\n"  # never truncated or half-written
    assert partial.exists()
    if sig == signal.SIGINT:
        assert code == 130, err
        assert "stopped after input line" in err and "--resume" in err and str(partial) in err
        done = len(partial.read_bytes().splitlines())
        assert 0 < done < ROWS and partial.read_bytes().endswith(b"\n")  # only complete rows
    else:
        assert code == -signal.SIGKILL
    capsys.readouterr()
    assert main(["run", str(source), "-o", str(out), "--jobs", jobs, "--resume"]) == 0
    assert out.read_bytes() == reference
    assert not partial.exists() and not Path(f"{out}.partial.json").exists()


def test_score_interrupted_then_resumed_equals_one_run(source: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    reference, reference_report = tmp_path / "reference.jsonl", tmp_path / "reference.json"
    args = ["--bootstrap", "50", "--format", "json"]
    assert main(["score", str(source), "-o", str(reference), "--report", str(reference_report), *args]) == 0
    out, report = tmp_path / "out.jsonl", tmp_path / "report.json"
    partial = Path(f"{out}.partial")
    code, err = _interrupt_when_started(
        _start("score", str(source), "-o", str(out), "--report", str(report), "--jobs", "2", *args),
        partial, signal.SIGINT)
    assert code == 130, err
    assert not out.exists() and not report.exists()
    capsys.readouterr()
    assert main(["score", str(source), "-o", str(out), "--report", str(report), "--resume", "--jobs", "2",
                 *args]) == 0
    assert out.read_bytes() == reference.read_bytes()
    assert report.read_bytes() == reference_report.read_bytes()


def test_resume_refuses_another_input_or_pack(source: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.jsonl"
    partial = Path(f"{out}.partial")
    code, _ = _interrupt_when_started(_start("run", str(source), "-o", str(out), "--jobs", "1"), partial,
                                      signal.SIGKILL)
    assert code == -signal.SIGKILL
    other = write_lines(tmp_path / "other.jsonl", mixed_rows(10, seed=1))
    capsys.readouterr()
    assert main(["run", str(other), "-o", str(out), "--resume"]) == 2
    assert "cannot resume" in capsys.readouterr().err
    assert main(["run", str(source), "-o", str(out), "--resume", "--trace", "none"]) == 2
    assert "trace" in capsys.readouterr().err
