"""A verl custom reward: point verl at this file.

    custom_reward_function.path=examples/rewards/verl_reward.py custom_reward_function.name=compute_score

The task comes from ``extra_info["task"]`` or the last part of ``data_source`` (``openai/gsm8k`` →
``gsm8k``); verl logs the returned ``acc`` and ``parsed`` beside ``score``.
"""

from __future__ import annotations

from scoring.integrations.rewards import NormalizeReward

_reward = NormalizeReward(no_answer=0.0)
PACK_HASH = _reward.pack_hash  # log it with the run's config


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):  # type: ignore[no-untyped-def]
    return _reward.compute_score(data_source, solution_str, ground_truth, extra_info)


if __name__ == "__main__":
    print(PACK_HASH)
    print(compute_score("openai/gsm8k", "... so she earned $10. The answer is 10.", "10"))
