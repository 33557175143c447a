"""verl as its users run it: its data sources (MATH-lighteval, MATH-500, DAPO, AIME...), the
naive manager's keyword call, the batch manager's call with numpy object arrays, and a logged
fallback by the ground truth's shape for sources nobody mapped."""

from __future__ import annotations

import logging
import pickle

import numpy as np
import pytest

from scoring.integrations._shared import cached_pack
from scoring.integrations.rewards import (
    NormalizeReward,
    compute_score,
    compute_score_batch,
    task_for_source,
)

# verl's examples/data_preprocess/math_dataset.py: the ground truth is the boxed answer of the solution
MATH_ROW = {"data_source": "DigitalLearningGmbH/MATH-lighteval", "ground_truth": "\\frac{1}{2}",
            "extra_info": {"split": "test", "index": 7}}


@pytest.mark.parametrize(("source", "task"), [
    ("DigitalLearningGmbH/MATH-lighteval", "hendrycks_math"),
    ("lighteval/MATH", "hendrycks_math"),
    ("HuggingFaceH4/MATH-500", "math500"),
    ("math_dapo", "math"),
    ("BytedTsinghua-SIA/DAPO-Math-17k", "math"),
    ("aime_2024", "aime"),
    ("aime25", "aime"),
    ("numina_olympiads", "math"),
    ("openai/gsm8k", "gsm8k"),
    ("hiyouga/geometry3k", "math"),
])
def test_verl_data_sources_map_to_pack_tasks(source: str, task: str) -> None:
    assert task_for_source(cached_pack(None), source) == task


def test_the_math_example_scores_with_the_naive_managers_keywords() -> None:
    # the old code looked up the task "math-lighteval" and raised
    good = compute_score(data_source=MATH_ROW["data_source"], solution_str="... so $\\boxed{\\dfrac{1}{2}}$.",
                         ground_truth=MATH_ROW["ground_truth"], extra_info=MATH_ROW["extra_info"])
    assert good == {"score": 1.0, "acc": 1.0, "parsed": 1.0}
    wrong = compute_score(data_source="HuggingFaceH4/MATH-500", solution_str="$\\boxed{3}$", ground_truth="2",
                          extra_info=None)
    assert wrong["acc"] == 0.0 and wrong["parsed"] == 1.0
    dapo = compute_score(data_source="math_dapo", solution_str="Let me think.\nAnswer: 34", ground_truth="34")
    assert dapo["acc"] == 1.0
    assert compute_score("aime_2024", "the answer is $\\boxed{033}$", "33")["acc"] == 1.0


def test_the_batch_managers_call_shape() -> None:
    # verl's BatchRewardManager: data_sources and extra_infos are numpy object arrays from non_tensor_batch
    data_sources = np.array(["DigitalLearningGmbH/MATH-lighteval", "math_dapo", "openai/gsm8k", "aime25"], dtype=object)
    extra_infos = np.array([{"split": "train", "index": i} for i in range(4)], dtype=object)
    scores = compute_score_batch(
        data_sources=data_sources,
        solution_strs=["$\\boxed{\\frac12}$", "Answer: 7", "#### 18", "I give up"],
        ground_truths=["\\frac{1}{2}", "34", "18", "204"],
        extra_infos=extra_infos,
    )
    assert [s["score"] for s in scores] == [1.0, 0.0, 1.0, 0.0]
    assert [s["parsed"] for s in scores] == [1.0, 1.0, 1.0, 0.0]
    # the reward travels to Ray workers pickled; the batch form goes with it
    reward = pickle.loads(pickle.dumps(NormalizeReward(no_answer=-1.0)))
    assert reward.compute_score_batch(["math_dapo"], ["the sky is blue"], ["3"], None)[0]["score"] == -1.0
    with pytest.raises(ValueError, match="row 1 of the batch"):
        compute_score_batch(data_sources=["math_dapo", "math_dapo"], solution_strs=["Answer: 1", "Answer: 1"],
                            ground_truths=["1", None], extra_infos=None)
    with pytest.raises(ValueError, match="2 solutions but 1 data sources"):
        compute_score_batch(data_sources=["math_dapo"], solution_strs=["a", "b"], ground_truths=["1", "2"])


def test_unknown_sources_fall_back_by_answer_shape_and_say_so(caplog: pytest.LogCaptureFixture) -> None:
    reward = NormalizeReward()
    with caplog.at_level(logging.WARNING, logger="harness_normalize.rewards"):
        assert reward.compute_score("my_org/rl_mix_v3", "so the answer is $\\boxed{12}$", "12")["acc"] == 1.0
        assert reward.compute_score("my_org/rl_mix_v3", "the answer is 5", "12")["acc"] == 0.0
        assert reward.compute_score("my_org/quiz", "The answer is (C).", "C")["acc"] == 1.0
        assert reward.compute_score("my_org/trivia", "Answer: Paris", "Paris")["acc"] == 1.0
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 3  # once per data source
    assert "'my_org/rl_mix_v3'" in warnings[0] and "'math'" in warnings[0] and "extra_info['task']" in warnings[0]
    assert "'multiple_choice'" in warnings[1] and "'extractive_qa'" in warnings[2]
    # extra_info["task"] and task= still come first
    assert reward.compute_score("my_org/rl_mix_v3", "#### 12", "12", {"task": "gsm8k"})["acc"] == 1.0
    with pytest.raises(ValueError, match="test cases"):
        reward.compute_score("codecontests", "print(1)", "[]")
