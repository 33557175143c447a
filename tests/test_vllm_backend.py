"""The vLLM offline backend through its real code path, with a stand-in ``vllm`` module.

vLLM does not install on this machine (no CUDA), so ``sys.modules["vllm"]`` is replaced by a
module with the three names the backend uses — ``LLM(**engine_args)``, ``SamplingParams(**kw)``
and ``LLM.generate(prompts, params, use_tqdm=...)`` — whose outputs have vLLM's shapes
(``outputs[0].text`` / ``.token_ids``, ``prompt_logprobs`` as a list of ``{token_id: Logprob}``)
and whose prompt log-probabilities come from the tiny Hugging Face model.  What this checks: the
engine and sampling arguments we build, caching, and reading prompt log-probabilities under the
local scorer's boundary rules.  What it cannot check: vLLM itself.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from scoring.cache import Cache
from scoring.lm.generate import Request, SamplingParams
from scoring.lm.loglik import LogLikelihoodScorer
from scoring.lm.vllm_backend import VLLMGenerator, VLLMLoglikScorer
from tests.lm_fixtures import tiny_lm_dir

__all__ = ["tiny_lm_dir"]

SAMPLING_KEYS = {"n", "temperature", "top_p", "top_k", "max_tokens", "seed", "stop", "prompt_logprobs"}


@dataclass
class Logprob:
    logprob: float
    rank: int


@dataclass
class Completion:
    text: str
    token_ids: list[int] = field(default_factory=list)


@dataclass
class RequestOutput:
    outputs: list[Completion]
    prompt_logprobs: list[dict[int, Logprob] | None] | None = None


class StandInLLM:
    instances: ClassVar[list[StandInLLM]] = []

    def __init__(self, **engine_args: Any) -> None:
        from transformers import AutoModelForCausalLM

        self.engine_args = engine_args
        self.model = AutoModelForCausalLM.from_pretrained(engine_args["model"], local_files_only=True)
        self.calls: list[tuple[list[Any], Any]] = []
        StandInLLM.instances.append(self)

    def generate(self, prompts: list[Any], params: Any, use_tqdm: bool = False) -> list[RequestOutput]:
        import torch

        self.calls.append((prompts, params))
        outs = []
        for i, prompt in enumerate(prompts):
            p = params[i] if isinstance(params, list) else params
            if isinstance(prompt, dict):
                ids = prompt["prompt_token_ids"]
                with torch.no_grad():
                    logprobs = torch.log_softmax(self.model(torch.tensor([ids])).logits[0].float(), dim=-1)
                entries: list[dict[int, Logprob] | None] = [None]
                for j in range(1, len(ids)):
                    rank = int((logprobs[j - 1] > logprobs[j - 1, ids[j]]).sum()) + 1
                    entries.append({ids[j]: Logprob(float(logprobs[j - 1, ids[j]]), rank)})
                outs.append(RequestOutput([Completion("x", [1])], entries))
            else:
                outs.append(RequestOutput([Completion(f"{prompt}|seed={p.kw['seed']}|k={p.kw['top_k']}STOP tail",
                                                      [1, 2, 3])]))
        return outs


class StandInSamplingParams:
    def __init__(self, **kw: Any) -> None:
        unknown = set(kw) - SAMPLING_KEYS
        if unknown:
            raise TypeError(f"unexpected SamplingParams arguments {unknown}")
        self.kw = kw


@pytest.fixture
def stand_in_vllm(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType("vllm")
    module.LLM = StandInLLM  # type: ignore[attr-defined]
    module.SamplingParams = StandInSamplingParams  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", module)
    StandInLLM.instances.clear()
    return module


def test_generation_arguments_cache_and_stops(stand_in_vllm: types.ModuleType, tiny_lm_dir: Path,
                                              tmp_path: Path) -> None:
    params = SamplingParams(n=2, temperature=0.8, top_k=0, seed=4, max_new_tokens=16, stop=("STOP",))
    with Cache(tmp_path / "c.sqlite") as cache:
        gen = VLLMGenerator(tiny_lm_dir, tensor_parallel_size=2, dtype="bfloat16", cache=cache)
        first = gen.generate([Request("hi", 4, 0), Request("hi", 4, 1)], params)
        again = VLLMGenerator(tiny_lm_dir, tensor_parallel_size=2, dtype="bfloat16", cache=cache).generate(
            [Request("hi", 4, 0), Request("hi", 4, 1)], params)
    (llm,) = StandInLLM.instances  # the second generator never built an engine: all cached
    assert llm.engine_args == {"model": str(tiny_lm_dir), "tensor_parallel_size": 2, "dtype": "bfloat16", "seed": 0}
    prompts, sent = llm.calls[0]
    assert prompts == ["hi", "hi"] and [p.kw["top_k"] for p in sent] == [-1, -1]  # vLLM's "off"
    assert sent[0].kw["seed"] != sent[1].kw["seed"] and sent[0].kw["stop"] == ["STOP"]
    assert [g.text for g in first] == [g.text for g in again] and all("STOP" not in str(g.text) for g in first)
    assert all(g.cached for g in again)


def test_loglik_matches_local_scorer(stand_in_vllm: types.ModuleType, tiny_lm_dir: Path) -> None:
    pairs = [("Question: What is the capital of France? Answer:", " Paris"), ("The weather is nice ", "today"),
             ("", "The quick brown fox"), ("今天天气", "很好")]
    got = VLLMLoglikScorer(tiny_lm_dir).loglikelihood(pairs)
    want = LogLikelihoodScorer(tiny_lm_dir, device="cpu", dtype="float32").loglikelihood(pairs)
    for g, w in zip(got, want, strict=True):
        assert (g.n_tokens, g.boundary, g.is_greedy) == (w.n_tokens, w.boundary, w.is_greedy)
        assert g.logprob == pytest.approx(w.logprob, abs=1e-4)
    (_, sent), = StandInLLM.instances[0].calls
    assert sent.kw == {"max_tokens": 1, "temperature": 0.0, "prompt_logprobs": 1}
