"""vLLM's offline engine (``vllm.LLM``, tensor parallel) for generation and log-likelihoods.

Import-guarded: ``vllm`` is imported only when an engine is built, and a clear ``ValueError``
says to install it otherwise.  The request building (:func:`sampling_kwargs`) and the reading
of vLLM's prompt log-probabilities (:func:`read_prompt_logprobs`) are plain functions, tested
without vLLM; the engine calls themselves run only where vLLM is installed (a CUDA machine).

Per-sample seeds, stop handling, cache keys (backend ``vllm:<dtype>``) and the token boundary
rules are those of the other backends.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from normalize.errors import UsageError
from scoring.cache import Cache, GenerationKey, model_id_of, model_revision
from scoring.lm.generate import Generation, Request, SamplingParams, truncate_at_stop
from scoring.lm.loglik import EncodedPair, LogLikelihoodScorer, LoglikResult, ScorerStats
from scoring.lm.openai_backend import load_tokenizer, seed31

INSTALL_HINT = "--backend vllm needs vLLM on a CUDA machine: pip install vllm"


def _vllm() -> Any:
    try:
        import vllm
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    return vllm


def engine_kwargs(model_dir: str | Path, *, tensor_parallel_size: int = 1, dtype: str = "auto",
                  max_model_len: int | None = None) -> dict[str, Any]:
    """Arguments of ``vllm.LLM`` for a local model folder.

    >>> engine_kwargs("/m", tensor_parallel_size=4, dtype="bfloat16")["tensor_parallel_size"]
    4
    """
    if tensor_parallel_size < 1:
        raise UsageError(f"--tensor-parallel-size must be at least 1, got {tensor_parallel_size}")
    kwargs: dict[str, Any] = {"model": str(model_dir), "tensor_parallel_size": tensor_parallel_size,
                              "dtype": dtype, "seed": 0}
    if max_model_len is not None:
        kwargs["max_model_len"] = max_model_len
    return kwargs


def sampling_kwargs(params: SamplingParams, request: Request) -> dict[str, Any]:
    """Arguments of ``vllm.SamplingParams`` for one sample (vLLM's ``top_k=-1`` is off).

    >>> kw = sampling_kwargs(SamplingParams(temperature=0.7, top_k=0, seed=3, stop=("Q:",)), Request("p", 3, 1))
    >>> kw["n"], kw["top_k"], kw["stop"], kw["seed"] == sampling_kwargs(
    ...     SamplingParams(temperature=0.7, seed=3), Request("p", 3, 1))["seed"]
    (1, -1, ['Q:'], True)
    """
    sampled = params.do_sample
    return {
        "n": 1,
        "temperature": float(params.temperature),
        "top_p": float(params.top_p) if sampled else 1.0,
        "top_k": params.top_k if sampled and params.top_k > 0 else -1,
        "max_tokens": params.max_new_tokens,
        "seed": seed31(request.seed, request.sample_index if sampled else 0),
        "stop": list(params.stop),
    }


def read_prompt_logprobs(prompt_logprobs: Sequence[Mapping[int, Any] | None] | None,
                         ids: Sequence[int]) -> tuple[list[float | None], list[bool]]:
    """Log-probability and greedy flag of each prompt token from vLLM's ``prompt_logprobs``
    (position 0 is None; each other entry maps token ids to objects with ``logprob``/``rank``).

    >>> class L:
    ...     def __init__(self, logprob, rank): self.logprob, self.rank = logprob, rank
    >>> read_prompt_logprobs([None, {5: L(-0.5, 1)}, {6: L(-2.0, 3), 1: L(-0.1, 1)}], [9, 5, 6])
    ([None, -0.5, -2.0], [True, True, False])
    """
    if prompt_logprobs is None or len(prompt_logprobs) < len(ids):
        raise ValueError("vLLM returned no prompt log-probabilities (prompt_logprobs)")
    values: list[float | None] = []
    greedy: list[bool] = []
    for token, entry in zip(ids, prompt_logprobs, strict=False):
        if entry is None:
            values.append(None)
            greedy.append(True)
            continue
        item = entry.get(token)
        if item is None:
            raise ValueError(f"vLLM's prompt log-probabilities lack the prompt token {token}")
        logprob = item["logprob"] if isinstance(item, Mapping) else item.logprob
        rank = item.get("rank", 1) if isinstance(item, Mapping) else getattr(item, "rank", 1)
        values.append(float(logprob))
        greedy.append(int(rank) == 1)
    return values, greedy


class VLLMGenerator:
    """Generation with ``vllm.LLM`` (built on first use, so cached runs never load it)."""

    def __init__(self, model_dir: str | Path, *, tensor_parallel_size: int = 1, dtype: str = "auto",
                 cache: Cache | None = None) -> None:
        self.model_dir = Path(model_dir)
        self.engine_args = engine_kwargs(model_dir, tensor_parallel_size=tensor_parallel_size, dtype=dtype)
        self.model_id = model_id_of(model_dir)
        self.revision = model_revision(model_dir)
        self.dtype = dtype
        self.backend = f"vllm:{dtype}"
        self.cache = cache
        self.generated_tokens = 0
        self._llm: Any = None

    @property
    def llm(self) -> Any:
        if self._llm is None:
            self._llm = _vllm().LLM(**self.engine_args)
        return self._llm

    def describe(self) -> dict[str, Any]:
        return {"model": self.model_id, "model_revision": self.revision, "dtype": self.dtype, "backend": self.backend}

    def generate(self, requests: Sequence[Request], params: SamplingParams, *,
                 progress: bool = False) -> list[Generation]:
        keys = [replace(params.key(self.model_id, self.revision, self.dtype, r.prompt, r.seed, r.sample_index),
                        backend=self.backend) for r in requests]
        first: dict[GenerationKey, int] = {}
        results: dict[int, Generation] = {}
        todo: list[int] = []
        for i, key in enumerate(keys):
            if key in first:
                continue
            first[key] = i
            text = self.cache.get_generation(key) if self.cache is not None else None
            if text is not None:
                results[i] = Generation(text, cached=True)
            else:
                todo.append(i)
        if todo:
            vllm = _vllm()
            outputs = self.llm.generate([requests[i].prompt for i in todo],
                                        [vllm.SamplingParams(**sampling_kwargs(params, requests[i])) for i in todo],
                                        use_tqdm=progress)
            fresh: list[tuple[GenerationKey, str]] = []
            for i, output in zip(todo, outputs, strict=True):
                completion = output.outputs[0]
                text = truncate_at_stop(completion.text, params.stop)[0]
                self.generated_tokens += len(completion.token_ids)
                results[i] = Generation(text)
                fresh.append((keys[i], text))
            if self.cache is not None:
                self.cache.put_generations(fresh)
        return [results[first[key]] for key in keys]


class VLLMLoglikScorer(LogLikelihoodScorer):
    """Log-likelihoods from vLLM's prompt log-probabilities, with the local scorer's tokenisation
    and boundary rules (inherited) and the model folder's tokenizer."""

    def __init__(self, model_dir: str | Path, *, tensor_parallel_size: int = 1, dtype: str = "auto",
                 max_length: int | None = None) -> None:
        from scoring.lm.openai_backend import _max_length_of

        self.engine_args = engine_kwargs(model_dir, tensor_parallel_size=tensor_parallel_size, dtype=dtype)
        self.tokenizer = load_tokenizer(model_dir)
        self.max_length = max_length or _max_length_of(model_dir, self.tokenizer)
        self.stats = ScorerStats()
        self._vocab = len(self.tokenizer)
        self._prefix_str = self.tokenizer.decode([self.prefix_token_id])
        self._llm: Any = None

    def _score_encoded(self, encoded: Sequence[EncodedPair]) -> list[LoglikResult]:
        self.stats.requests += len(encoded)
        unique: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        for enc in encoded:
            if enc.error is None:
                unique.setdefault((enc.context, enc.continuation), len(unique))
        scored: dict[int, tuple[float, bool]] = {}
        if unique:
            vllm = _vllm()
            if self._llm is None:
                self._llm = vllm.LLM(**self.engine_args)
            pairs = list(unique)
            prompts = [{"prompt_token_ids": list(c + x)} for c, x in pairs]
            outputs = self._llm.generate(prompts, vllm.SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=1),
                                         use_tqdm=False)
            for index, ((ctx, cont), output) in enumerate(zip(pairs, outputs, strict=True)):
                values, greedy = read_prompt_logprobs(output.prompt_logprobs, ctx + cont)
                picked = values[len(ctx):]
                scored[index] = (math.fsum(v for v in picked if v is not None), all(greedy[len(ctx):]))
        results: list[LoglikResult] = []
        for enc in encoded:
            if enc.error is not None:
                results.append(LoglikResult(-math.inf, 0, False, enc.boundary, enc.error))
                continue
            value, is_greedy = scored[unique[(enc.context, enc.continuation)]]
            results.append(LoglikResult(value, len(enc.continuation), is_greedy, enc.boundary, None, enc.truncated))
        return results
