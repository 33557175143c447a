"""inspect_ai: ``inspect eval`` with the mock model on a small task scored by ``normalized``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER

from scoring.integrations._shared import cached_pack, judge
from scoring.integrations.inspect import normalized, to_score

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "inspect" / "tiny_math.py"


def _inspect_eval(tmp_path: Path, *extra: str) -> dict[str, object]:
    logs = tmp_path / "logs"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "INSPECT_LOG_DIR": str(logs), "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", str(EXAMPLE.relative_to(ROOT)), "--model", "mockllm/model",
         "--log-dir", str(logs), "--log-format", "json", "--display", "plain", *extra],
        capture_output=True, text=True, env=env, timeout=600, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (log,) = logs.glob("*tiny-math*.json")
    data: dict[str, object] = json.loads(log.read_text(encoding="utf-8"))
    return data


def _metrics(log: dict[str, object]) -> dict[str, float]:
    # inspect reports the reduced view (stderr) and the unreduced one (our metrics) apart
    views = log["results"]["scores"]  # type: ignore[index]
    return {name: m["value"] for view in views for name, m in view["metrics"].items()}


def test_inspect_eval_mock_model(tmp_path: Path) -> None:
    log = _inspect_eval(tmp_path)
    assert log["status"] == "success"
    samples = {s["id"]: s["scores"]["normalized"] for s in log["samples"]}  # type: ignore[attr-defined]
    assert [samples[k]["value"] for k in ("q1", "q2", "q3", "q4")] == [CORRECT, INCORRECT, NOANSWER, CORRECT]
    assert samples["q1"]["answer"] == "5" and samples["q4"]["answer"] == "1000"
    # q3 answers "I cannot tell.": an abstention, unparsed (N) and counted apart
    assert samples["q3"].get("answer") is None and "abstained" in samples["q3"]["explanation"]
    assert samples["q3"]["metadata"]["status"] == "abstained"
    assert samples["q1"]["metadata"]["rules_hash"] == cached_pack(None).hash
    metrics = _metrics(log)
    assert metrics["strict_accuracy"] == pytest.approx(0.5)
    assert metrics["parse_rate"] == pytest.approx(0.75)
    assert metrics["valid_accuracy"] == pytest.approx(2 / 3)
    assert metrics["abstention_rate"] == pytest.approx(0.25)
    assert metrics["stderr"] == pytest.approx((0.25 / 3) ** 0.5)  # of the strict accuracy: "N" counts 0


def test_inspect_eval_epochs_keep_no_answer_apart(tmp_path: Path) -> None:
    metrics = _metrics(_inspect_eval(tmp_path, "--epochs", "2"))  # a reducer would turn "N" into 0
    assert metrics["parse_rate"] == pytest.approx(0.75)
    assert metrics["valid_accuracy"] == pytest.approx(2 / 3)


def test_to_score_f1_and_bad_target() -> None:
    pack = cached_pack(None)
    f1 = to_score(judge(pack, "the red house", "squad", "red house"))
    assert f1.value == CORRECT  # squad_exact by default: yes/no
    with pytest.raises(ValueError, match="cannot score"):
        to_score(judge(pack, "The answer is (B)", "mmlu", {"not": "a letter"}))


def test_unknown_task_fails_when_built() -> None:
    with pytest.raises(ValueError, match="unknown task"):
        normalized("no-such-task")
