"""A verl custom reward: point verl at this file.

    custom_reward_function.path=examples/rewards/verl_reward.py custom_reward_function.name=compute_score

The task comes from ``extra_info["task"]``, else verl's data source (``DigitalLearningGmbH/MATH-lighteval``,
``HuggingFaceH4/MATH-500``, ``math_dapo``, ``aime*``, ``openai/gsm8k``...), else a logged fallback by the
ground truth's shape; verl logs the returned ``acc`` and ``parsed`` beside ``score``.  With verl's batch
reward manager (``reward_model.reward_manager=batch``) use ``custom_reward_function.name=compute_score_batch``.
"""

from __future__ import annotations

from scoring.integrations.rewards import NormalizeReward

_reward = NormalizeReward(no_answer=0.0)
PACK_HASH = _reward.pack_hash  # log it with the run's config


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):  # type: ignore[no-untyped-def]
    return _reward.compute_score(data_source, solution_str, ground_truth, extra_info)


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos=None, **kwargs):  # type: ignore[no-untyped-def]
    return _reward.compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos)


if __name__ == "__main__":
    print(PACK_HASH)
    print(compute_score("openai/gsm8k", "... so she earned $10. The answer is 10.", "10"))
