"""``--backend hf|openai|vllm`` for ``normalize generate`` and ``normalize loglik``.

``hf`` is the local Hugging Face model (the default, unchanged); ``openai`` any
OpenAI-compatible server (:mod:`scoring.lm.openai_backend`); ``vllm`` vLLM's offline engine in
this process (:mod:`scoring.lm.vllm_backend`, when ``vllm`` is installed).  :class:`CachedScorer`
answers log-likelihood requests from the cache first, in front of the local model or (as
:class:`BackendCachedScorer`) of a server or vLLM scorer.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from normalize.errors import UsageError
from scoring.cache import Cache, Loglik, LoglikKey, model_id_of, model_revision

if TYPE_CHECKING:
    from scoring.lm.loglik import LogLikelihoodScorer, LoglikResult

BACKENDS = ("hf", "openai", "vllm")


def add_backend_options(parser: argparse.ArgumentParser, *, loglik: bool) -> None:
    group = parser.add_argument_group("serving backends (--backend openai / vllm)")
    group.add_argument("--backend", choices=BACKENDS, default="hf",
                       help="hf: a local Hugging Face folder (default); openai: an OpenAI-compatible server "
                            "(vLLM, SGLang, llama.cpp, TGI) at --base-url; vllm: vLLM's offline engine")
    group.add_argument("--base-url", metavar="URL", action="append",
                       help="the server, e.g. http://127.0.0.1:8000/v1 (--backend openai); several times for "
                            "several servers of the same weights (requests go where the least work is waiting; "
                            "a failing one is taken out and tried again later; needs --revision)")
    group.add_argument("--base-url-file", metavar="FILE",
                       help="more servers' URLs, one a line (# comments), as if each were a --base-url")
    group.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                       help="environment variable holding the API key, if any (default: OPENAI_API_KEY)")
    group.add_argument("--tokenizer", metavar="DIR",
                       help="the served model's local tokenizer folder (needed by loglik and --chat-template)")
    group.add_argument("--revision", metavar="REV",
                       help="the served weights' revision for the cache key (default: openai:<base url>)")
    group.add_argument("--concurrency", type=int, default=8, metavar="N", help="requests in flight (default: 8)")
    group.add_argument("--max-retries", type=int, default=5, metavar="N",
                       help="retries on 429/5xx/timeouts/bad JSON, with exponential backoff (default: 5)")
    group.add_argument("--request-timeout", type=float, default=120.0, metavar="S",
                       help="seconds for each attempt of a request, all of it: connect, headers and body "
                            "(default: 120)")
    group.add_argument("--tensor-parallel-size", type=int, default=1, metavar="N",
                       help="GPUs per model for --backend vllm (default: 1)")
    if loglik:
        group.add_argument("--max-length", type=int, default=None, metavar="N",
                           help="context length for truncation (default: from the tokenizer folder's config)")
    else:
        group.add_argument("--endpoint", choices=("completions", "chat"), default="completions",
                           help="completions (default) or chat (the server applies the chat template)")
        group.add_argument("--chat-template", action="store_true",
                           help="apply --tokenizer's chat template here and use the completions endpoint")


def _base_urls(args: argparse.Namespace) -> list[str]:
    """Every server of ``--base-url`` (given once or more) and ``--base-url-file``, in order."""
    given = args.base_url
    urls = [given] if isinstance(given, str) else list(given or [])
    if getattr(args, "base_url_file", None):
        from scoring.lm._pool import read_url_file

        urls.extend(read_url_file(args.base_url_file))
    return urls


def _client_config(args: argparse.Namespace, base_url: str | None = None) -> Any:
    from scoring.lm.openai_backend import ClientConfig

    urls = _base_urls(args)
    if not urls:
        raise UsageError("--backend openai needs --base-url URL")
    return ClientConfig(base_url or urls[0], api_key=os.environ.get(args.api_key_env) or None,
                        timeout=args.request_timeout, max_retries=args.max_retries, concurrency=args.concurrency)


def _client(args: argparse.Namespace) -> Any:
    """None for one server (the backend makes its own client), else a :class:`~scoring.lm._pool.ServerPool`
    over every server, each with ``--concurrency`` requests in flight."""
    urls = _base_urls(args)
    if len(urls) <= 1:
        return None
    if not args.revision:
        raise UsageError("several --base-url servers need --revision naming the weights they serve: the cache key "
                         "must not depend on which server answered")
    from scoring.lm._pool import ServerPool

    return ServerPool([_client_config(args, url) for url in urls])


def make_generator(args: argparse.Namespace, cache: Cache | None) -> Any:
    """The generator for ``args.backend``; None for ``hf`` (the caller builds the local one)."""
    if args.backend == "openai":
        from scoring.lm.openai_backend import OpenAIGenerator

        return OpenAIGenerator(_client_config(args), args.model, endpoint=args.endpoint, revision=args.revision,
                               cache=cache, tokenizer_dir=args.tokenizer, chat_template=args.chat_template,
                               client=_client(args))
    if args.backend == "vllm":
        from scoring.lm.vllm_backend import VLLMGenerator

        return VLLMGenerator(args.model, tensor_parallel_size=args.tensor_parallel_size, dtype=args.dtype,
                             cache=cache)
    return None


class CachedScorer:
    """A log-likelihood backend (``scoring.lm.choice.LoglikBackend``) that answers from the
    cache first and builds the :class:`~scoring.lm.loglik.LogLikelihoodScorer` (loading the
    model) only for the requests the cache lacks; successful new scores are stored.

    ``chunk`` > 0 sends misses to the scorer in chunks of that many requests, calling
    ``on_chunk(done, total)`` after each (for a progress bar), ordered longest context first
    with each context's requests together (results stay in request order); 0 sends them all
    at once, which lets the scorer share contexts and sort lengths over the whole run.
    """

    def __init__(self, model_dir: str | Path, *, device: str = "auto", dtype: str = "auto",
                 batch_size: int | None = None, cache: Cache | None = None, chunk: int = 0,
                 on_chunk: Callable[[int, int], None] | None = None) -> None:
        from scoring.lm._model import check_causal_lm_dir, resolve_device, resolve_dtype

        self.model_dir = check_causal_lm_dir(model_dir)
        self.model_id = model_id_of(self.model_dir)
        self.revision = model_revision(self.model_dir)
        self.device = resolve_device(device)
        self.dtype = str(resolve_dtype(dtype, self.device)).removeprefix("torch.")
        self._dtype_arg = dtype
        self._batch_size = batch_size
        self.cache = cache
        self.chunk = chunk
        self.on_chunk = on_chunk
        self._scorer: LogLikelihoodScorer | None = None

    @property
    def scorer(self) -> LogLikelihoodScorer:
        if self._scorer is None:
            from scoring.lm.loglik import LogLikelihoodScorer

            self._scorer = LogLikelihoodScorer(self.model_dir, device=self.device, dtype=self._dtype_arg,
                                               batch_size=self._batch_size or "auto")
        return self._scorer

    def describe(self) -> dict[str, Any]:
        return {"model": self.model_id, "model_revision": self.revision, "dtype": self.dtype}

    def loglikelihood(self, requests: Sequence[tuple[str, str]]) -> list[LoglikResult]:
        return self._cached(list(requests), "pair", lambda todo: self.scorer.loglikelihood(todo))

    def loglikelihood_rolling(self, texts: Sequence[str]) -> list[LoglikResult]:
        return self._cached([("", t) for t in texts], "rolling",
                            lambda todo: self.scorer.loglikelihood_rolling([t for _, t in todo]))

    def _key(self, request: Any, mode: str) -> LoglikKey | None:
        if not (isinstance(request, (tuple, list)) and len(request) == 2
                and all(isinstance(x, str) for x in request)):
            return None  # the scorer reports the bad request itself
        return LoglikKey(self.model_id, self.revision, request[0], request[1], dtype=self.dtype, mode=mode)

    def _cached(self, requests: list[tuple[str, str]], mode: str,
                score: Callable[[list[tuple[str, str]]], list[LoglikResult]]) -> list[LoglikResult]:
        from scoring.lm.loglik import LoglikResult

        results: list[LoglikResult | None] = [None] * len(requests)
        keys = [self._key(r, mode) for r in requests]
        todo: list[int] = []
        for i, key in enumerate(keys):
            hit = self.cache.get_loglik(key) if self.cache is not None and key is not None else None
            if hit is None:
                todo.append(i)
            else:
                results[i] = LoglikResult(hit.logprob, hit.n_tokens, hit.is_greedy, hit.boundary, None, hit.truncated)
        step = self.chunk or max(1, len(todo))
        if mode == "pair" and len(todo) > step:
            # chunks of similar length with each context's requests together: the scorer then
            # buckets and shares contexts almost as well as over the whole run
            todo.sort(key=lambda i: (-len(requests[i][0]), requests[i][0], i)
                      if keys[i] is not None else (1, "", i))
        for start in range(0, len(todo), step):
            part = todo[start:start + step]
            scored = score([requests[i] for i in part])
            fresh: list[tuple[LoglikKey, Loglik]] = []
            for i, result in zip(part, scored, strict=True):
                results[i] = result
                key = keys[i]
                if key is not None and result.error is None and math.isfinite(result.logprob):
                    fresh.append((key, Loglik(result.logprob, result.is_greedy, result.n_tokens,
                                              result.boundary, result.truncated)))
            if self.cache is not None and fresh:
                self.cache.put_logliks(fresh)
            if self.on_chunk is not None:
                self.on_chunk(len(part), len(todo))
        done = [r for r in results if r is not None]
        if len(done) != len(requests):
            raise RuntimeError("the scorer returned fewer results than requests")  # a bug, not bad input
        return done


class BackendCachedScorer(CachedScorer):
    """:class:`CachedScorer` over a server or vLLM scorer: cache keys gain the backend."""

    def __init__(self, scorer: Any, *, model_id: str, revision: str, backend: str, cache: Cache | None = None,
                 chunk: int = 0, on_chunk: Callable[[int, int], None] | None = None) -> None:
        self.model_id = model_id
        self.revision = revision
        self.dtype = ""
        self.backend = backend
        self.cache = cache
        self.chunk = chunk
        self.on_chunk = on_chunk
        self._scorer = scorer

    def describe(self) -> dict[str, Any]:
        return {"model": self.model_id, "model_revision": self.revision, "dtype": self.dtype, "backend": self.backend}

    def _key(self, request: Any, mode: str) -> LoglikKey | None:
        key = super()._key(request, mode)
        if key is None:
            return None
        return replace(key, backend=self.backend, max_length=int(getattr(self._scorer, "max_length", 0)))


def make_loglik_backend(args: argparse.Namespace, cache: Cache | None, chunk: int,
                        on_chunk: Callable[[int, int], None]) -> CachedScorer | None:
    """The cached log-likelihood backend for ``args.backend``; None for ``hf``."""
    if args.backend == "openai":
        from scoring.lm.openai_backend import RemoteLoglikScorer

        if not args.tokenizer:
            raise UsageError("--backend openai loglik needs --tokenizer DIR: the served model's tokenizer decides "
                             "the context/continuation token boundary")
        config = _client_config(args)
        scorer: Any = RemoteLoglikScorer(config, args.model, args.tokenizer, max_length=args.max_length,
                                         client=_client(args))
        revision = args.revision or f"openai:{config.base_url.rstrip('/')}"
        return BackendCachedScorer(scorer, model_id=args.model, revision=revision, backend="openai-completions",
                                   cache=cache, chunk=chunk, on_chunk=on_chunk)
    if args.backend == "vllm":
        from scoring.lm.vllm_backend import VLLMLoglikScorer

        scorer = VLLMLoglikScorer(args.model, tensor_parallel_size=args.tensor_parallel_size, dtype=args.dtype,
                                  max_length=args.max_length)
        return BackendCachedScorer(scorer, model_id=model_id_of(args.model), revision=model_revision(args.model),
                                   backend=f"vllm:{args.dtype}", cache=cache, chunk=chunk, on_chunk=on_chunk)
    return None


def summary(generator: Any) -> Sequence[str]:
    """Extra words for the generate summary line (request and retry counts of a server)."""
    client = getattr(generator, "client", None)
    if client is None:
        return ()
    words = [f"{client.requests} requests, {client.retries} retries"]
    describe = getattr(client, "describe", None)
    if callable(describe):  # a pool of servers: who answered how many
        words.append("answered by " + ", ".join(f"{s['base_url']} {s['answered']}" for s in describe()))
    return tuple(words)
