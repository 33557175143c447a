"""Greedy and sampled generation from a local causal LM, cached, per-request seeded.

Reproducibility: each request (prompt, seed, sample index) owns a CPU ``torch.Generator``
seeded with :func:`derive_seed` ``(seed, sample_index)``; the decoding loop below (our own,
not ``model.generate``, whose sampling draws from the global RNG) takes exactly one uniform
number from that generator per new token and picks the token by inverse CDF over the
probabilities sorted in descending order (stable).  So a request's random stream never depends
on which other requests share its batch, on the batch size, or on the device; batched decoding
therefore keeps the same seed → same text, up to the floating-point numerics of a batched
forward pass (padding is masked and position ids follow the left padding, so on a given
machine and dtype these agree in practice; bfloat16 on GPU may still differ from float32 on CPU).

Temperature 0 is greedy decoding (argmax, no randomness).  ``top_k=0`` and ``top_p=1`` disable
those filters.  Stop sequences: the text is cut before the earliest occurrence of any stop
string, and a row stops decoding as soon as its text contains one (or it emits an EOS token);
a batch ends when every row has stopped or ``max_new_tokens`` tokens were generated.

The cache (:mod:`scoring.cache`) is consulted before the model is even loaded, keyed by every
sampling parameter, the model revision and the dtype; a run whose requests are all cached never
loads the model.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from normalize import status as st
from normalize.errors import UsageError
from normalize.io.jsonl import InputRow
from scoring.cache import Cache, GenerationKey, model_id_of, model_revision

if TYPE_CHECKING:
    import torch

    from scoring.lm._model import LoadedModel

#: Starting batch size for ``batch_size=None`` (auto): halved on CUDA out-of-memory.
AUTO_BATCH = {"cpu": 16, "cuda": 64}


@dataclass(frozen=True)
class SamplingParams:
    """How to decode: ``n`` samples per prompt, temperature (0 = greedy), filters, stops.

    >>> SamplingParams(n=2, temperature=0.7, seed=1).to_json()["do_sample"]
    True
    >>> SamplingParams(top_p=0.0)
    Traceback (most recent call last):
    ...
    normalize.errors.UsageError: top_p must be in (0, 1], got 0.0
    """

    n: int = 1
    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = 0
    max_new_tokens: int = 128
    seed: int = 0
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise UsageError(f"n must be an integer >= 1, got {self.n!r}")
        object.__setattr__(self, "stop", tuple(self.stop))
        GenerationKey("", "", "", temperature=self.temperature, top_p=self.top_p, top_k=self.top_k,
                      max_new_tokens=self.max_new_tokens, seed=self.seed, stop=self.stop,
                      sample_index=self.n - 1)  # the key checks every other value

    @property
    def do_sample(self) -> bool:
        return self.temperature > 0

    def key(self, model_id: str, revision: str, dtype: str, prompt: str, seed: int, sample_index: int) -> GenerationKey:
        """The cache key of one sample of one prompt.  Greedy decoding ignores the seed, sample
        index and top-p/top-k filters, so its key holds them at neutral values (``seed=None``,
        sample 0, top_p 1, top_k 0): greedy samples of one prompt share one entry.

        >>> a = SamplingParams(seed=1).key("m", "r", "", "hi", 1, 0)
        >>> a == SamplingParams(seed=2, top_k=5).key("m", "r", "", "hi", 2, 3)
        True
        """
        sampled = self.do_sample
        return GenerationKey(
            model_id=model_id, revision=revision, prompt=prompt, temperature=float(self.temperature),
            top_p=float(self.top_p) if sampled else 1.0, top_k=self.top_k if sampled else 0,
            max_new_tokens=self.max_new_tokens, seed=seed if sampled else None, stop=self.stop,
            sample_index=sample_index if sampled else 0, dtype=dtype,
        )

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "temperature": float(self.temperature), "top_p": float(self.top_p),
                "top_k": self.top_k, "max_new_tokens": self.max_new_tokens, "seed": self.seed,
                "stop": list(self.stop), "do_sample": self.do_sample}


@dataclass(frozen=True)
class Request:
    """One sample to produce: a prompt, its seed and which of the ``n`` samples it is."""

    prompt: str
    seed: int
    sample_index: int = 0


@dataclass(frozen=True)
class Generation:
    """The text of one request, or the reason there is none (e.g. the prompt is too long)."""

    text: str | None
    error: str | None = None
    cached: bool = False


def derive_seed(seed: int, sample_index: int) -> int:
    """The 63-bit generator seed of sample ``sample_index`` under ``seed`` (hash-mixed, so
    (seed 0, sample 1) and (seed 1, sample 0) get unrelated streams).

    >>> derive_seed(0, 1) != derive_seed(1, 0)
    True
    >>> derive_seed(5, 2) == derive_seed(5, 2)
    True
    """
    digest = hashlib.sha256(f"harness-normalize/{seed}/{sample_index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def truncate_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """Cut ``text`` before the earliest occurrence of any stop string; say whether one was found.

    >>> truncate_at_stop("4\\nQ: next", ["Q:", "\\n"])
    ('4', True)
    >>> truncate_at_stop("no stop here", ["###"])
    ('no stop here', False)
    """
    cut = min((i for i in (text.find(s) for s in stop if s) if i >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


def sample_tokens(
    logits: torch.Tensor, uniforms: torch.Tensor, *, temperature: float, top_p: float = 1.0, top_k: int = 0,
) -> torch.Tensor:
    """Pick one token id per row: argmax when ``temperature`` is 0, else inverse-CDF sampling
    with the row's uniform number in [0, 1) over the top-k / top-p filtered distribution.

    >>> import torch
    >>> logits = torch.tensor([[0.0, 2.0, 1.0], [3.0, 0.0, 0.0]])
    >>> sample_tokens(logits, torch.tensor([0.5, 0.5]), temperature=0.0).tolist()
    [1, 0]
    >>> sample_tokens(logits, torch.tensor([0.99, 0.99]), temperature=1.0, top_k=1).tolist()
    [1, 0]
    """
    import torch

    if temperature <= 0:
        return logits.argmax(dim=-1)
    scores = logits.float() / temperature
    vocab = scores.shape[-1]
    if 0 < top_k < vocab:
        kth = torch.topk(scores, top_k, dim=-1).values[:, -1:]
        scores = scores.masked_fill(scores < kth, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    sorted_p, sorted_idx = torch.sort(probs, dim=-1, descending=True, stable=True)
    if top_p < 1.0:
        before = sorted_p.cumsum(dim=-1) - sorted_p  # mass of the strictly more likely tokens
        sorted_p = sorted_p * (before < top_p)
    cdf = sorted_p.double().cumsum(dim=-1)
    target = uniforms.to(cdf.device, torch.float64).unsqueeze(-1) * cdf[:, -1:]
    position = torch.searchsorted(cdf, target, right=True)
    last_kept = (sorted_p > 0).sum(dim=-1, keepdim=True) - 1  # rounding never picks a filtered token
    return sorted_idx.gather(-1, torch.minimum(position, last_kept)).squeeze(-1)


class LocalGenerator:
    """Generates from a local model directory, loading it only when the cache cannot answer.

    ``batch_size=None`` is auto: :data:`AUTO_BATCH` for the device, halved on CUDA
    out-of-memory (a retried batch is reproducible: generators are re-seeded per batch).
    ``forward_calls`` counts forward passes of the model (0 when everything came from cache).
    """

    def __init__(self, model_dir: str | Path, *, device: str = "auto", dtype: str = "auto",
                 batch_size: int | None = None, cache: Cache | None = None) -> None:
        from scoring.lm._model import check_causal_lm_dir, resolve_device, resolve_dtype

        self.model_dir = check_causal_lm_dir(model_dir)
        if batch_size is not None and (isinstance(batch_size, bool) or batch_size < 1):
            raise UsageError(f"batch_size must be an integer >= 1 or None (auto), got {batch_size!r}")
        self.model_id = model_id_of(self.model_dir)
        self.revision = model_revision(self.model_dir)
        self.device = resolve_device(device)
        self.dtype = str(resolve_dtype(dtype, self.device)).removeprefix("torch.")
        self._dtype_arg = dtype
        self.batch_size = batch_size
        self.cache = cache
        self.forward_calls = 0
        self.generated_tokens = 0
        self._loaded: LoadedModel | None = None

    @property
    def loaded(self) -> LoadedModel:
        if self._loaded is None:
            from scoring.lm._model import load_causal_lm

            self._loaded = load_causal_lm(self.model_dir, device=self.device, dtype=self._dtype_arg)
        return self._loaded

    def describe(self) -> dict[str, Any]:
        """The model fields written into each prediction row."""
        return {"model": self.model_id, "model_revision": self.revision, "dtype": self.dtype}

    def generate(self, requests: Sequence[Request], params: SamplingParams, *,
                 progress: bool = False) -> list[Generation]:
        """One :class:`Generation` per request, in order: cached ones first looked up, the rest
        decoded in batches of similar length and stored in the cache."""
        keys = [params.key(self.model_id, self.revision, self.dtype, r.prompt, r.seed, r.sample_index)
                for r in requests]
        results: list[Generation | None] = [None] * len(requests)
        first: dict[GenerationKey, int] = {}  # identical keys (greedy samples) are decoded once
        todo: list[int] = []
        for i, key in enumerate(keys):
            if key in first:
                continue
            first[key] = i
            text = self.cache.get_generation(key) if self.cache is not None else None
            if text is not None:
                results[i] = Generation(text, cached=True)
            elif params.max_new_tokens == 0:
                results[i] = Generation("")
            else:
                todo.append(i)
        if todo:
            self._generate_missing(requests, keys, todo, params, results, progress)
        out: list[Generation] = []
        for i, key in enumerate(keys):
            result = results[first[key]]
            if result is None:
                raise RuntimeError(f"request {i} was neither cached nor generated")  # a bug, not bad input
            out.append(result)
        return out

    def _generate_missing(self, requests: Sequence[Request], keys: Sequence[GenerationKey], todo: list[int],
                          params: SamplingParams, results: list[Generation | None], progress: bool) -> None:
        loaded = self.loaded
        tokenizer = loaded.tokenizer
        encoded: dict[int, list[int]] = {}
        for i in todo:
            ids = list(tokenizer(requests[i].prompt)["input_ids"])
            if not ids and tokenizer.bos_token_id is not None:
                ids = [int(tokenizer.bos_token_id)]
            if not ids:
                results[i] = Generation(None, "the prompt is empty and the tokenizer has no BOS token")
            elif len(ids) + params.max_new_tokens > loaded.max_length:
                results[i] = Generation(None, f"the prompt has {len(ids)} tokens; with max_new_tokens="
                                              f"{params.max_new_tokens} that exceeds the model's context of "
                                              f"{loaded.max_length} tokens")
            else:
                encoded[i] = ids
        order = sorted(encoded, key=lambda i: (-len(encoded[i]), i))
        size = self.batch_size or AUTO_BATCH.get(loaded.device.type, 8)
        bar = _progress_bar(len(order), progress)
        start = 0
        started = time.monotonic()
        try:
            while start < len(order):
                batch = order[start:start + size]
                try:
                    texts = self._decode_batch([encoded[i] for i in batch], [requests[i] for i in batch], params)
                except _oom_errors() as exc:
                    if self.batch_size is not None or size == 1:
                        raise ValueError(f"out of memory at batch size {size}: {exc}") from exc
                    _empty_cuda_cache()
                    size = max(1, size // 2)
                    continue
                if self.cache is not None:
                    self.cache.put_generations([(keys[i], t) for i, t in zip(batch, texts, strict=True)])
                for i, text in zip(batch, texts, strict=True):
                    results[i] = Generation(text)
                start += len(batch)
                if bar is not None:
                    bar.update(len(batch))
                    elapsed = max(time.monotonic() - started, 1e-9)
                    bar.set_postfix(tok_s=f"{self.generated_tokens / elapsed:.1f}", batch=size)
        finally:
            if bar is not None:
                bar.close()

    def _decode_batch(self, prompts: Sequence[list[int]], requests: Sequence[Request],
                      params: SamplingParams) -> list[str]:
        """Decode one left-padded batch with a KV cache; return the texts cut at stop strings."""
        import torch

        loaded = self.loaded
        model, tokenizer, device = loaded.model, loaded.tokenizer, loaded.device
        pad_id = _pad_id(tokenizer)
        eos_ids = _eos_ids(model, tokenizer)
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), pad_id, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, prompt in enumerate(prompts):
            ids[row, width - len(prompt):] = torch.tensor(prompt, dtype=torch.long)
            mask[row, width - len(prompt):] = 1
        ids, mask = ids.to(device), mask.to(device)
        positions = (mask.cumsum(dim=-1) - 1).clamp(min=0)
        generators = [torch.Generator().manual_seed(derive_seed(r.seed, r.sample_index)) for r in requests]
        new_tokens: list[list[int]] = [[] for _ in prompts]
        done = [False] * len(prompts)
        texts = [""] * len(prompts)
        past: Any = None
        cache_arg, keep_arg = _forward_arguments(model)
        keep = {keep_arg: 1} if keep_arg else {}  # logits of the last position only
        step_ids, step_positions = ids, positions
        with torch.inference_mode():
            for _ in range(params.max_new_tokens):
                out = model(input_ids=step_ids, attention_mask=mask, position_ids=step_positions,
                            use_cache=True, **{cache_arg: past}, **keep)
                self.forward_calls += 1
                past = getattr(out, cache_arg)
                uniforms = torch.stack([torch.rand((), generator=g, dtype=torch.float64) for g in generators])
                chosen = sample_tokens(out.logits[:, -1, :], uniforms, temperature=params.temperature,
                                       top_p=params.top_p, top_k=params.top_k).tolist()
                for row, token in enumerate(chosen):
                    if done[row]:
                        continue
                    if token in eos_ids:
                        done[row] = True
                        continue
                    new_tokens[row].append(int(token))
                    self.generated_tokens += 1
                    if params.stop:
                        text = tokenizer.decode(new_tokens[row], skip_special_tokens=True)
                        if truncate_at_stop(text, params.stop)[1]:
                            done[row] = True
                if all(done):
                    break
                step_ids = torch.tensor(chosen, dtype=torch.long, device=device).unsqueeze(-1)
                step_positions = step_positions[:, -1:] + 1
                mask = torch.cat([mask, torch.ones((len(prompts), 1), dtype=mask.dtype, device=device)], dim=-1)
        for row, tokens in enumerate(new_tokens):
            texts[row] = truncate_at_stop(tokenizer.decode(tokens, skip_special_tokens=True), params.stop)[0]
        return texts


def _forward_arguments(model: Any) -> tuple[str, str | None]:
    """The KV-cache keyword of ``model.forward`` (``cache`` in transformers 5, else
    ``past_key_values``) and its logits-to-keep keyword, if it has one."""
    import inspect

    params = inspect.signature(model.forward).parameters
    cache = "cache" if "cache" in params else "past_key_values"
    keep = next((k for k in ("logits_to_keep", "num_logits_to_keep") if k in params), None)
    return cache, keep


def _pad_id(tokenizer: Any) -> int:
    for candidate in (tokenizer.pad_token_id, tokenizer.eos_token_id, 0):
        if candidate is not None:
            return int(candidate)
    return 0


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    ids: set[int] = set()
    config = getattr(model, "generation_config", None)
    for value in (getattr(config, "eos_token_id", None), tokenizer.eos_token_id):
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, (list, tuple)):
            ids.update(int(v) for v in value)
    return ids


def _oom_errors() -> tuple[type[BaseException], ...]:
    import torch

    return (torch.cuda.OutOfMemoryError,)


def _empty_cuda_cache() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _progress_bar(total: int, show: bool) -> Any:
    if not show or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc="generate", unit="sample", file=sys.stderr, dynamic_ncols=True)


# --------------------------------------------------------------------------- rows


def _row_seed(data: dict[str, Any], default: int) -> int:
    value = data.get("seed", default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(f"'seed' must be an integer >= 0, got {value!r}")
    return value


class GeneratorBackend(Protocol):
    """What :func:`generate_rows` needs: the local model, a server or vLLM."""

    generated_tokens: int

    def generate(self, requests: Sequence[Request], params: SamplingParams, *,
                 progress: bool = False) -> list[Generation]: ...

    def describe(self) -> dict[str, Any]: ...


def generate_rows(rows: Sequence[InputRow], generator: GeneratorBackend, params: SamplingParams, *,
                  progress: bool = False) -> Iterator[dict[str, Any]]:
    """Prediction rows for prompt rows, in input order: each valid row copied ``n`` times with
    ``output`` (and ``sample`` when n > 1), ``model``, ``model_revision`` and ``generation``;
    a bad row once with ``status: invalid`` and a ``reason`` and no ``output``.

    A row may carry its own ``seed`` (integer >= 0) overriding ``params.seed``.
    """
    requests: list[Request] = []
    plan: list[tuple[InputRow, dict[str, Any], str | None, int, range]] = []  # row, data, error, seed, requests
    for row in rows:
        if row.data is None:
            plan.append((row, row.invalid_output(), row.error, params.seed, range(0)))
            continue
        prompt = row.data.get("prompt")
        if not isinstance(prompt, str):
            got = "missing" if prompt is None else type(prompt).__name__
            plan.append((row, row.data, f"line {row.line}: 'prompt' must be a string, got {got}", params.seed,
                         range(0)))
            continue
        try:
            seed = _row_seed(row.data, params.seed)
        except ValueError as exc:
            plan.append((row, row.data, f"line {row.line}: {exc}", params.seed, range(0)))
            continue
        indices = range(len(requests), len(requests) + params.n)
        requests.extend(Request(prompt, seed, k) for k in range(params.n))
        plan.append((row, row.data, None, seed, indices))
    generations = generator.generate(requests, params, progress=progress)
    model = generator.describe()
    for row, data, error, seed, indices in plan:
        if error is not None:
            out = dict(data)
            out.pop("output", None)
            out.update(status=st.INVALID, reason=error, answer=None)
            yield out
            continue
        for k, index in enumerate(indices):
            out = dict(data)
            result = generations[index]
            if params.n > 1:
                out["sample"] = k
            out["model"] = model["model"]
            out["model_revision"] = model["model_revision"]
            out["generation"] = {**params.to_json(), "seed": seed, "dtype": model["dtype"]}
            if model.get("backend"):
                out["generation"]["backend"] = model["backend"]
            if result.text is None:
                out.pop("output", None)
                out.update(status=st.INVALID, reason=f"line {row.line}: {result.error}", answer=None)
            else:
                out["output"] = result.text
            yield out
