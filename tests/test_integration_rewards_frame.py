"""RL reward functions (TRL and verl signatures) and the data-frame view of scored rows."""

from __future__ import annotations

import json
import math
import pickle
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pytest

from scoring.integrations._shared import cached_pack
from scoring.integrations.frame import COLUMNS, results_frame, results_records
from scoring.integrations.rewards import NormalizeReward, compute_score

COMPLETIONS = ["Let me see... 6 * 7 = 42. The answer is 42.", "#### 41", "I give up", "\\boxed{42}"]
TARGETS = ["42", "42", "42", 42]


def test_trl_signature_strings_and_conversations() -> None:
    reward = NormalizeReward(task="gsm8k", no_answer=-0.5)
    assert reward(COMPLETIONS, prompts=["q"] * 4, answer=TARGETS) == [1.0, 0.0, -0.5, 1.0]
    chats = [[{"role": "assistant", "content": c}] for c in COMPLETIONS]
    assert reward(completions=chats, solution=TARGETS, completion_ids=[[1]] * 4) == [1.0, 0.0, -0.5, 1.0]
    assert reward.__name__ == "harness_normalize"
    assert reward.pack_hash == cached_pack(None).hash and reward.pack_hash[7:19] in reward.signature
    assert reward.pack_hash.startswith("sha256:")


def test_trl_per_row_task_and_errors() -> None:
    reward = NormalizeReward()
    assert reward(["The answer is (B)", "x = 3"], answer=["B", "3"], task=["mmlu", "gsm8k"]) == [1.0, 1.0]
    with pytest.raises(ValueError, match="no target column"):
        reward(["4"], prompt=["q"], task=["gsm8k"])
    with pytest.raises(ValueError, match="no task"):
        reward(["4"], answer=["4"])
    with pytest.raises(ValueError, match="needs one"):
        NormalizeReward(task="gsm8k")(["4"], answer=[None])
    with pytest.raises(ValueError, match="unknown task"):
        NormalizeReward(task="nope")
    with pytest.raises(ValueError, match="2 targets"):
        NormalizeReward(task="gsm8k")(["4"], answer=["4", "5"])


def test_f1_reward_is_scaled(tmp_path: Path) -> None:
    pack = tmp_path / "f1.yaml"
    pack.write_text("name: f1\ntasks: {qa: extractive_qa}\ntask_types:\n  extractive_qa: {chain: [], parser: text}\n"
                    "scoring:\n  extractive_qa: {metric: f1}\n", encoding="utf-8")
    reward = NormalizeReward(task="qa", pack=pack, correct=1.0, wrong=-1.0)
    (value,) = reward(["the red house"], answer=["the red barn"])
    assert value == pytest.approx(-1.0 + 2 * 0.5)  # token F1 of "red house" vs "red barn" is 0.5


def test_verl_signature() -> None:
    assert compute_score("openai/gsm8k", "The answer is $\\boxed{18}$.", "18") == {
        "score": 1.0, "acc": 1.0, "parsed": 1.0}
    assert compute_score("x", "no", "18", {"task": "gsm8k"}) == {"score": 0.0, "acc": 0.0, "parsed": 0.0}
    reward = NormalizeReward(task="gsm8k", no_answer=-1.0)
    assert reward.compute_score(data_source="anything", solution_str="hmm", ground_truth="3")["score"] == -1.0


def _score_chunk(args: tuple[NormalizeReward, list[str], list[str]]) -> list[float]:
    reward, completions, targets = args
    return reward(completions, answer=targets)


def test_thread_and_process_safe() -> None:
    reward = NormalizeReward(task="gsm8k")
    completions = COMPLETIONS * 50
    targets = TARGETS * 50
    expected = reward(completions, answer=targets)
    chunks = [(reward, completions[i:i + 20], targets[i:i + 20]) for i in range(0, len(completions), 20)]
    with ThreadPoolExecutor(4) as pool:
        threaded = [x for part in pool.map(_score_chunk, chunks) for x in part]
    assert threaded == expected
    clone = pickle.loads(pickle.dumps(reward))
    assert clone.pack_hash == reward.pack_hash and clone(COMPLETIONS, answer=TARGETS) == expected[:4]
    with ProcessPoolExecutor(2) as pool:
        in_processes = [x for part in pool.map(_score_chunk, chunks[:4]) for x in part]
    assert in_processes == expected[:80]


# --------------------------------------------------------------------------- frame

ROWS = [
    {"id": 1, "task": "gsm8k", "output": "The answer is 4", "target": 4},
    {"id": 2, "task": "gsm8k", "output": "no idea", "target": 4},
    {"id": 3, "task": "gsm8k", "output": "#### 5", "target": 4},
    {"id": 4, "task": "gsm8k", "output": "The answer is 4"},
    {"id": 5, "task": "mmlu", "output": "(B)", "target": "B", "run": "r1"},
]


def test_records_never_drop_unparsed() -> None:
    recs = results_records(ROWS)
    assert [r["id"] for r in recs] == [1, 2, 3, 4, 5]
    assert [r["correct"] for r in recs] == [True, False, False, None, True]
    valid = [r["correct_valid"] for r in recs]
    assert valid[0] == 1.0 and math.isnan(valid[1]) and valid[2] == 0.0 and math.isnan(valid[3])
    assert [r["parsed"] for r in recs] == [True, False, True, True, True]
    assert list(recs[0])[:len(COLUMNS)] == list(COLUMNS)


def test_frame_strict_and_valid_columns(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS) + "not json\n", encoding="utf-8")
    df = results_frame(path)
    assert len(df) == len(ROWS) + 1  # the bad line is a row too, status invalid
    assert df["status"].iloc[-1] == "invalid"
    assert str(df["correct"].dtype) == "boolean" and df["correct_valid"].dtype == float
    assert df.loc[1, "correct"] is False or bool(df.loc[1, "correct"]) is False  # unparsed: False, not NA
    assert pd.isna(df.loc[1, "correct_valid"])  # …and NaN in the valid-only column
    assert df["correct"].mean() == pytest.approx(2 / 4)  # strict accuracy over rows with targets
    assert df["correct_valid"].mean() == pytest.approx(2 / 3)  # among parsed answers
    assert df.attrs["pack_hash"] == cached_pack(None).hash
    assert df.groupby("task")["correct"].mean().to_dict() == pytest.approx({"gsm8k": 1 / 3, "mmlu": 1.0})
