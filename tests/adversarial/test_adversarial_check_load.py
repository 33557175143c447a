"""`normalize check` gives the same output on an idle machine and with both cores saturated."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import normalize
from normalize.check import check_safety
from tests.adversarial._helpers import register, saturated, write_pack

ROOT = Path(__file__).resolve().parents[2]


def _check() -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "normalize.cli", "check", "--only", "safety,forward"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=900, check=False,
    )
    return proc.returncode, proc.stdout


def test_check_output_is_identical_idle_and_saturated() -> None:
    idle = _check()
    with saturated():
        loaded = _check()
    assert idle == loaded
    assert idle[0] == 0, idle[1]


def _quadratic(text: str, params: object = None, *, timeout: float = 0.5) -> str:
    sum(text.count("a", i) for i in range(0, len(text), 16))
    return text


def test_a_quadratic_rule_is_found_the_same_way_idle_and_saturated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verdicts, idle and saturated, are the same and name the quadratic rule on both kinds.

    The shared CI machine is never quite idle: one clean-clone run saw an "idle" measurement
    stall and miss a finding.  A stall is not the load-dependence this test is about (that would
    differ every time), so a pair of runs that disagrees is measured again, up to three pairs;
    a check whose verdict depends on load fails all three.
    """
    register(monkeypatch, "t_quadratic", _quadratic)
    pack = normalize.load_pack(write_pack(tmp_path, ["t_quadratic"]))
    kinds = (("'answer is ' repeated", lambda size: "answer is " * (size // 10)), ("'a' repeated", lambda size: "a" * size))
    expected = [
        "rule t_quadratic on 'answer is ' repeated: superlinear: work more than ×3 when the input doubles",
        "rule t_quadratic on 'a' repeated: superlinear: work more than ×3 when the input doubles",
    ]
    pairs = []
    for _ in range(3):
        idle = [f.summary for f in check_safety(pack, inputs=kinds)]
        with saturated():
            loaded = [f.summary for f in check_safety(pack, inputs=kinds)]
        pairs.append((idle, loaded))
        if idle == loaded and [s for s in idle if s.startswith("rule t_quadratic")] == expected:
            return
    pytest.fail(f"idle and saturated verdicts differ or miss the quadratic rule in all three pairs: {pairs}")
