"""An inspect_ai task scored by harness-normalize, runnable offline with inspect's mock model.

    inspect eval examples/inspect/tiny_math.py --model mockllm/model

With a real model, drop ``model=`` below and pass ``--model openai/...`` (or any provider).
"""

from __future__ import annotations

from typing import Any

import inspect_ai.model._model as _inspect_model
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.solver import generate

from scoring.integrations.inspect import normalized

# inspect estimates token counts with tiktoken's o200k_base vocabulary, downloaded on first
# use; so that this example also runs offline, count roughly four bytes per token instead.
_inspect_model.count_text_tokens = lambda text: max(1, len(text.encode("utf-8")) // 4)  # type: ignore[attr-defined]

REPLIES = {
    "q1": "Let me think. 2 + 3 = 5, so the answer is **5**.",
    "q2": "10 - 4 is 7",  # parsed, wrong
    "q3": "I cannot tell.",  # an abstention: no answer ("N"), never a guess; counted in abstention_rate
    "q4": "\\boxed{1,000}",
}


def reply(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """The mock model's answer to a sample, looked up by the sample's key in the prompt."""
    text = messages[-1].text
    key = next(k for k in REPLIES if k in text)
    return ModelOutput.from_content(model="mockllm/model", content=REPLIES[key])


@task
def tiny_math() -> Task:
    return Task(
        dataset=[
            Sample(id="q1", input="q1: What is 2 + 3?", target="5"),
            Sample(id="q2", input="q2: What is 10 - 4?", target="6"),
            Sample(id="q3", input="q3: How many legs does a dog have?", target="4"),
            Sample(id="q4", input="q4: What is 10 * 100?", target="1000"),
        ],
        solver=generate(),
        scorer=normalized("gsm8k"),
        model=get_model("mockllm/model", custom_outputs=reply),
    )
