"""GRPO with TRL, rewarded by harness-normalize (needs `pip install trl datasets`; a GPU helps).

The reward is 1 for a right final answer, 0 for a wrong one and -0.2 when the strict parser finds
no answer; the pack hash goes into the run's config so every reward curve names its rules.
"""

from __future__ import annotations

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

from scoring.integrations.rewards import NormalizeReward

reward = NormalizeReward(task="gsm8k", no_answer=-0.2)
data = Dataset.from_list([
    {"prompt": "Natalia sold 48 clips in April and half as many in May. How many in total? "
               "End with 'The answer is N.'", "answer": "72"},
    {"prompt": "Weng earns $12 an hour and worked 50 minutes. How much did she earn? "
               "End with 'The answer is N.'", "answer": "10"},
])
config = GRPOConfig(output_dir="out/grpo", run_name=f"grpo-{reward.pack.short_hash}", num_generations=2,
                    per_device_train_batch_size=2, max_completion_length=128, logging_steps=1)
trainer = GRPOTrainer(model="Qwen/Qwen2.5-0.5B-Instruct", reward_funcs=[reward], args=config, train_dataset=data)
print("rewards by", reward.signature)
trainer.train()
