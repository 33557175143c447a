"""Generation and log-likelihoods from any OpenAI-compatible server (vLLM, SGLang, llama.cpp, TGI).

Standard library HTTP (``urllib``) in a bounded thread pool; nothing is imported from an SDK.

* **Requests.**  ``completions`` sends the prompt text to ``/v1/completions``; ``chat`` sends it
  as one user message to ``/v1/chat/completions`` (the server applies the model's chat
  template).  ``chat_template=True`` with a local tokenizer applies that tokenizer's chat
  template here and sends the result to ``/v1/completions``.  ``n`` samples are ``n``
  requests, sample ``k`` seeded with :func:`~scoring.lm.generate.derive_seed` ``(seed, k)``
  (31 bits): each sample is cached and reproducible on its own, and servers that reject
  ``n > 1`` (llama.cpp) work too.  Greedy decoding (temperature 0) sends one request per prompt.
  Stop strings go to the server and the text is also cut locally at the first one.
* **Failures.**  HTTP 429 and 5xx, connection errors, timeouts and truncated or non-JSON bodies
  are retried with exponential backoff (``backoff * 2**attempt``, at most ``max_backoff``
  seconds, or the server's ``Retry-After``), ``max_retries`` times; other 4xx fail at once.
  A request that still fails becomes that row's error (status ``invalid`` with the reason);
  the run goes on.  At most ``concurrency`` requests are in flight.
* **Deadlines.**  ``timeout`` bounds each attempt as a whole — connecting, the headers and the
  body — not each read: a server that trickles a byte at a time is cut off when the attempt's
  time is up (a watchdog thread shuts the socket down; no signals, so it works in any thread).
  So one request takes at most ``(max_retries + 1) * timeout + max_retries * max_backoff``
  seconds.  A reply with other than one choice (``n`` is always 1) is that row's error.
* **Cache.**  Every response is stored under the usual key (model id, revision, every sampling
  parameter, the prompt) plus the backend (``openai-completions``, ``openai-chat``,
  ``openai-completions+template:<sha>``); the revision defaults to ``openai:<base url>``.
* **Log-likelihoods.**  :class:`RemoteLoglikScorer` tokenizes with the served model's local
  tokenizer under exactly the boundary rules of the local scorer (it reuses that code), sends
  the token ids ``context + continuation`` to ``/v1/completions`` with ``echo`` and
  ``logprobs`` (falling back to vLLM's ``prompt_logprobs``, then — for servers that take only
  text, like llama-cpp-python's — to the decoded text, accepted only when the echoed tokens are
  exactly ours, else that request's error says so) and sums the continuation positions'
  log-probabilities; ``is_greedy`` compares each position's top token.  A server that returns
  none of them raises :class:`PromptLogprobsUnavailable`.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import io
import json
import math
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from normalize.errors import UsageError
from scoring.cache import Cache, GenerationKey
from scoring.lm.generate import Generation, Request, SamplingParams, derive_seed, truncate_at_stop
from scoring.lm.loglik import EncodedPair, LogLikelihoodScorer, LoglikResult, ScorerStats

ENDPOINTS = ("completions", "chat")
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class ServerError(UsageError):
    """A request to the server failed for good (after retries, or a non-retryable error): a
    :class:`~normalize.errors.UsageError`, so the command line reports it with exit 2."""


class PromptLogprobsUnavailable(ServerError):
    """The server returned no log-probabilities for prompt tokens."""


class ServerUnavailable(ServerError):
    """The server kept failing (429, 5xx, timeouts, lost connections, bad JSON) through every
    retry: the server's fault, not the request's (:mod:`scoring.lm._pool` sends it elsewhere)."""


@dataclass(frozen=True)
class ClientConfig:
    """Where and how to talk to the server."""

    base_url: str
    api_key: str | None = None
    timeout: float = 120.0
    max_retries: int = 5
    backoff: float = 0.5
    max_backoff: float = 30.0
    concurrency: int = 8

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise UsageError(f"--base-url must start with http:// or https://, got {self.base_url!r}")
        if self.concurrency < 1:
            raise UsageError(f"concurrency must be at least 1, got {self.concurrency}")
        if self.max_retries < 0:
            raise UsageError(f"max_retries must be >= 0, got {self.max_retries}")
        if not self.timeout > 0:
            raise UsageError(f"timeout must be positive, got {self.timeout}")

    def url(self, path: str) -> str:
        """``base_url`` joined with ``path``; a base without ``/v1`` gets it.

        >>> ClientConfig("http://127.0.0.1:8000").url("completions")
        'http://127.0.0.1:8000/v1/completions'
        >>> ClientConfig("http://h/v1/").url("chat/completions")
        'http://h/v1/chat/completions'
        """
        base = self.base_url.rstrip("/")
        if not base.endswith("/v1"):
            base += "/v1"
        return f"{base}/{path}"


class _Deadline:
    """The end of one attempt: a socket connected under it is shut down when it passes (by a
    timer thread), so a blocked or trickling read ends; :attr:`passed` says whether it did."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.passed = False
        self._timers: list[threading.Timer] = []
        self._lock = threading.Lock()

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def arm(self, sock: socket.socket) -> None:
        """Shut ``sock`` down (the plain socket under any TLS) once the deadline passes."""
        timer = threading.Timer(max(0.0, self.remaining()), self._expire, (sock,))
        timer.daemon = True
        with self._lock:
            self._timers.append(timer)
        timer.start()

    def _expire(self, sock: socket.socket) -> None:
        self.passed = True
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def cancel(self) -> None:
        with self._lock:
            for timer in self._timers:
                timer.cancel()


def _deadline_connection(base: type[http.client.HTTPConnection], deadline: _Deadline) -> Any:
    """``base`` whose connection is made within ``deadline`` and whose socket it then watches."""

    class Connection(base):  # type: ignore[valid-type,misc]
        def connect(self) -> None:
            given: float | None = getattr(self, "timeout", None)
            self.timeout = max(0.001, min(given or deadline.seconds, deadline.remaining()))
            super().connect()
            deadline.arm(self.sock)

    return Connection


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_deadline_connection(http.client.HTTPConnection, self.deadline), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_deadline_connection(http.client.HTTPSConnection, self.deadline), req,
                            context=self._context)  # type: ignore[attr-defined]


def _post_within(request: urllib.request.Request, seconds: float) -> bytes:
    """The body of ``request``'s response, all of it read within ``seconds`` (``TimeoutError``
    if not); the usual proxy handling of :mod:`urllib` applies."""
    deadline = _Deadline(seconds)
    opener = urllib.request.build_opener(_HTTPHandler(deadline), _HTTPSHandler(deadline))
    try:
        try:
            with opener.open(request, timeout=seconds) as response:
                raw: bytes = response.read()
        except urllib.error.HTTPError as exc:  # its body is read here too, under the deadline
            body = exc.read()
            raise urllib.error.HTTPError(exc.url, exc.code, exc.msg, exc.headers, io.BytesIO(body)) from None
    except (OSError, http.client.HTTPException):
        if deadline.passed:
            raise TimeoutError(f"no complete response within the {seconds:g} s request timeout") from None
        raise
    finally:
        deadline.cancel()
    if deadline.passed:
        raise TimeoutError(f"no complete response within the {seconds:g} s request timeout")
    return raw


class Client:
    """JSON POSTs with retries and backoff; thread-safe (counters under a lock)."""

    def __init__(self, config: ClientConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self._sleep = sleep
        self._lock = threading.Lock()
        self.requests = 0
        self.retries = 0

    def _count(self, retries: int = 0) -> None:
        with self._lock:
            self.requests += 1
            self.retries += retries

    def delay(self, attempt: int, retry_after: str | None = None) -> float:
        """Seconds to wait before retry ``attempt`` (0-based).

        >>> c = Client(ClientConfig("http://h", backoff=0.5, max_backoff=3))
        >>> [c.delay(i) for i in range(5)], c.delay(0, "2")
        ([0.5, 1.0, 2.0, 3.0, 3.0], 2.0)
        """
        if retry_after is not None:
            try:
                return min(float(self.config.max_backoff), max(0.0, float(retry_after)))
            except ValueError:
                pass
        return float(min(self.config.max_backoff, self.config.backoff * 2**attempt))

    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST ``body`` as JSON; the decoded JSON object, or :class:`ServerError`."""
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        url = self.config.url(path)
        last = ""
        for attempt in range(self.config.max_retries + 1):
            retry_after: str | None = None
            try:
                request = urllib.request.Request(url, data=data, headers=headers, method="POST")
                raw = _post_within(request, self.config.timeout)
                payload = json.loads(raw.decode("utf-8"))
                if not isinstance(payload, dict):
                    raise ServerError(f"{url}: the response is a JSON {type(payload).__name__}, not an object")
                self._count(attempt)
                return payload
            except urllib.error.HTTPError as exc:
                detail = _error_text(exc)
                last = f"HTTP {exc.code}: {detail}"
                if exc.code not in RETRY_STATUSES:
                    self._count(attempt)
                    raise ServerError(f"{url}: {last}") from None
                retry_after = exc.headers.get("Retry-After") if exc.headers else None
            except (urllib.error.URLError, http.client.HTTPException, TimeoutError, ConnectionError) as exc:
                last = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                last = f"the response is not valid JSON ({exc})"
            if attempt < self.config.max_retries:
                self._sleep(self.delay(attempt, retry_after))
        self._count(self.config.max_retries)
        raise ServerUnavailable(f"{url}: failed after {self.config.max_retries + 1} attempts; last error: {last}")

    def map(self, path: str, bodies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any] | ServerError]:
        """POST every body with at most ``concurrency`` in flight; results in order."""
        return post_all(self.post, path, bodies, self.config.concurrency)


def _error_text(exc: urllib.error.HTTPError) -> str:
    try:
        body = exc.read().decode("utf-8", "replace")
    except OSError:
        body = ""
    try:
        payload = json.loads(body)
        message = payload.get("error", payload) if isinstance(payload, dict) else payload
        if isinstance(message, dict):
            message = message.get("message", message)
        return str(message)[:500]
    except json.JSONDecodeError:
        return body[:500] or str(exc.reason)


def seed31(seed: int, sample_index: int) -> int:
    """The per-sample seed sent to a server (31 bits: servers differ in the integer width they take).

    >>> 0 <= seed31(0, 1) < 2**31 and seed31(0, 1) != seed31(1, 0)
    True
    """
    return derive_seed(seed, sample_index) % (2**31)


# --------------------------------------------------------------------------- generation


class OpenAIGenerator:
    """Generates through a server; a drop-in for :class:`~scoring.lm.generate.LocalGenerator`."""

    def __init__(self, config: ClientConfig, model: str, *, endpoint: str = "completions",
                 revision: str | None = None, cache: Cache | None = None, tokenizer_dir: str | Path | None = None,
                 chat_template: bool = False, client: Client | None = None) -> None:
        if endpoint not in ENDPOINTS:
            raise UsageError(f"endpoint must be one of {ENDPOINTS}, got {endpoint!r}")
        if not model:
            raise UsageError("--model must name the served model (what the server lists at /v1/models)")
        self.client = client or Client(config)
        self.model_id = model
        self.revision = revision or f"openai:{config.base_url.rstrip('/')}"
        self.dtype = ""
        self.endpoint = endpoint
        self.cache = cache
        self.generated_tokens = 0
        self.forward_calls = 0
        self._template: Any = None
        backend = f"openai-{endpoint}"
        if chat_template:
            if endpoint != "completions":
                raise UsageError("--chat-template applies a local template for the completions endpoint; the chat "
                                 "endpoint already uses the server's template")
            if tokenizer_dir is None:
                raise UsageError("--chat-template needs --tokenizer DIR (the served model's local tokenizer)")
            self._template = load_tokenizer(tokenizer_dir)
            template = getattr(self._template, "chat_template", None)
            if not template:
                raise UsageError(f"the tokenizer in {tokenizer_dir} has no chat template")
            backend += "+template:" + hashlib.sha256(str(template).encode("utf-8")).hexdigest()[:16]
        self.backend = backend

    def describe(self) -> dict[str, Any]:
        return {"model": self.model_id, "model_revision": self.revision, "dtype": self.dtype,
                "backend": self.backend}

    def key(self, params: SamplingParams, request: Request) -> GenerationKey:
        base = params.key(self.model_id, self.revision, self.dtype, request.prompt, request.seed, request.sample_index)
        return replace(base, backend=self.backend)

    def body(self, params: SamplingParams, request: Request) -> dict[str, Any]:
        """The JSON body of one request."""
        body: dict[str, Any] = {"model": self.model_id, "max_tokens": params.max_new_tokens,
                                "temperature": float(params.temperature), "n": 1}
        if params.do_sample:
            body["top_p"] = float(params.top_p)
            body["seed"] = seed31(request.seed, request.sample_index)
            if params.top_k > 0:
                body["top_k"] = params.top_k  # vLLM, SGLang, llama.cpp and TGI accept it
        else:
            body["seed"] = seed31(request.seed, 0)
        if params.stop:
            body["stop"] = list(params.stop)
        if self.endpoint == "chat":
            body["messages"] = [{"role": "user", "content": request.prompt}]
        elif self._template is not None:
            body["prompt"] = self._template.apply_chat_template(
                [{"role": "user", "content": request.prompt}], tokenize=False, add_generation_prompt=True)
        else:
            body["prompt"] = request.prompt
        return body

    def _text(self, payload: Mapping[str, Any]) -> str:
        choices = payload.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise ServerError(f"the response has no choices: {json.dumps(payload)[:300]}")
        if len(choices) != 1:  # each request asks for one (n=1): which of several would be the sample?
            raise ServerError(f"the response has {len(choices)} choices for a request of one (n=1)")
        choice = choices[0]
        if self.endpoint == "chat":
            message = choice.get("message")
            text = message.get("content") if isinstance(message, Mapping) else None
        else:
            text = choice.get("text")
        if not isinstance(text, str):
            raise ServerError(f"the response's first choice has no text: {json.dumps(choice)[:300]}")
        usage = payload.get("usage")
        if isinstance(usage, Mapping) and isinstance(usage.get("completion_tokens"), int):
            self.generated_tokens += usage["completion_tokens"]
        return text

    def generate(self, requests: Sequence[Request], params: SamplingParams, *,
                 progress: bool = False) -> list[Generation]:
        keys = [self.key(params, r) for r in requests]
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
            elif params.max_new_tokens == 0:
                results[i] = Generation("")
            else:
                todo.append(i)
        path = "chat/completions" if self.endpoint == "chat" else "completions"
        step = max(1, self.client.config.concurrency * 4)
        bar = _bar(len(todo), progress)
        try:
            for start in range(0, len(todo), step):
                part = todo[start:start + step]
                answers = self.client.map(path, [self.body(params, requests[i]) for i in part])
                fresh: list[tuple[GenerationKey, str]] = []
                for i, answer in zip(part, answers, strict=True):
                    try:
                        if isinstance(answer, ServerError):
                            raise answer
                        text = truncate_at_stop(self._text(answer), params.stop)[0]
                    except ServerError as exc:
                        results[i] = Generation(None, f"server error: {exc}")
                        continue
                    results[i] = Generation(text)
                    fresh.append((keys[i], text))
                self.forward_calls += len(part)
                if self.cache is not None and fresh:
                    self.cache.put_generations(fresh)
                if bar is not None:
                    bar.update(len(part))
        finally:
            if bar is not None:
                bar.close()
        return [results[first[key]] for key in keys]


def _bar(total: int, show: bool) -> Any:
    if not show or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc="generate", unit="req", file=sys.stderr, dynamic_ncols=True)


def load_tokenizer(path: str | Path) -> Any:
    """A local Hugging Face tokenizer (nothing downloaded); ``ValueError`` naming the directory."""
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"cannot load a tokenizer from {str(path)!r}: {exc}") from exc


# --------------------------------------------------------------------------- log-likelihoods


def _max_length_of(tokenizer_dir: str | Path, tokenizer: Any) -> int:
    from transformers import AutoConfig

    from scoring.lm._model import resolve_max_length

    try:
        config = AutoConfig.from_pretrained(str(tokenizer_dir), local_files_only=True)
    except (OSError, ValueError, KeyError):
        config = None
    return resolve_max_length(config, tokenizer)


def _top(entry: Any) -> str | None:
    if isinstance(entry, Mapping) and entry:
        return str(max(entry.items(), key=lambda kv: kv[1])[0])
    return None


def check_echo_alignment(choice: Mapping[str, Any], n_prompt: int, prompt_text: str | None = None) -> None:
    """Raise :class:`PromptLogprobsUnavailable` when an echo's log-probabilities are not those of
    their own positions.  Greedy decoding (temperature 0, one new token) picked the generated
    token as the top choice of the distribution after the prompt.  In a correct echo that token's
    own entry names it as top; and the last *prompt* entry (the distribution before the last
    prompt token) does not, unless by chance.  llama-cpp-python 0.3 (for models that add no BOS
    token) gives each token the distribution that *follows* it, one position late: its last
    prompt entry's top token is the generated one.

    >>> good = {"logprobs": {"tokens": ["a", "b", "c"], "top_logprobs": [None, {"b": -1.0}, {"c": -0.1, "x": -3.0}]}}
    >>> check_echo_alignment(good, 2)
    >>> late = {"text": "abq", "logprobs": {"tokens": ["a", "b"], "top_logprobs": [None, {"q": -0.5, "b": -2.0}]}}
    >>> check_echo_alignment(late, 2, "ab")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.lm.openai_backend.PromptLogprobsUnavailable: the server's echoed log-probabilities are one position off ...
    """
    logprobs = choice.get("logprobs")
    if not isinstance(logprobs, Mapping):
        return
    tokens, tops = logprobs.get("tokens") or [], logprobs.get("top_logprobs") or []
    late = False
    if len(tokens) > n_prompt and len(tops) > n_prompt and isinstance(tops[n_prompt], Mapping):
        late = _top(tops[n_prompt]) not in (None, tokens[n_prompt])  # the generated token's own entry
    elif prompt_text is not None and len(tokens) >= n_prompt >= 1 and len(tops) >= n_prompt:
        text = choice.get("text")
        generated = text[len(prompt_text):] if isinstance(text, str) and text.startswith(prompt_text) else ""
        last = _top(tops[n_prompt - 1])
        late = bool(generated) and last == generated and last != tokens[n_prompt - 1]
    if late:
        raise PromptLogprobsUnavailable(
            "the server's echoed log-probabilities are one position off (each token's value comes from the "
            "distribution after it, as llama-cpp-python 0.3 does for models without a BOS token); its prompt "
            "log-likelihoods cannot be used: serve the model with vLLM or SGLang")


def prompt_logprobs_of(choice: Mapping[str, Any], n_prompt: int) -> tuple[list[float | None], list[bool]]:
    """Per-position log-probabilities of the first ``n_prompt`` tokens and whether each was the
    top token, from an ``echo`` + ``logprobs`` choice or a vLLM ``prompt_logprobs`` choice.

    >>> choice = {"logprobs": {"tokens": ["a", "b", "c"], "token_logprobs": [None, -1.0, -2.0],
    ...                        "top_logprobs": [None, {"b": -1.0}, {"x": -0.5}]}}
    >>> prompt_logprobs_of(choice, 3)
    ([None, -1.0, -2.0], [True, True, False])
    >>> vllm = {"prompt_logprobs": [None, {"7": {"logprob": -0.1, "rank": 1}}, {"9": {"logprob": -3.0, "rank": 4},
    ...                                                                       "2": {"logprob": -0.2, "rank": 1}}]}
    >>> prompt_logprobs_of(vllm, 3)
    ([None, -0.1, -3.0], [True, True, False])
    """
    logprobs = choice.get("logprobs")
    if isinstance(logprobs, Mapping) and isinstance(logprobs.get("token_logprobs"), list):
        values = logprobs["token_logprobs"]
        tokens = logprobs.get("tokens") or []
        tops = logprobs.get("top_logprobs") or []
        if len(values) < n_prompt:
            raise PromptLogprobsUnavailable(f"the server echoed {len(values)} token log-probabilities for a prompt "
                                            f"of {n_prompt} tokens")
        greedy: list[bool] = []
        for i in range(n_prompt):
            top = tops[i] if i < len(tops) else None
            if isinstance(top, Mapping) and top and i < len(tokens):
                best = max(top.items(), key=lambda kv: kv[1])[0]
                greedy.append(best == tokens[i] or top.get(tokens[i]) == max(top.values()))
            else:
                greedy.append(True)
        return [None if v is None else float(v) for v in values[:n_prompt]], greedy
    prompt = choice.get("prompt_logprobs")
    if isinstance(prompt, list):
        if len(prompt) < n_prompt:
            raise PromptLogprobsUnavailable(f"the server returned {len(prompt)} prompt log-probabilities for a "
                                            f"prompt of {n_prompt} tokens")
        values_out: list[float | None] = []
        greedy_out: list[bool] = []
        for entry in prompt[:n_prompt]:
            if not isinstance(entry, Mapping) or not entry:
                values_out.append(None)
                greedy_out.append(True)
                continue
            # vLLM lists the actual token first (with its rank), then the top-k others
            actual = next(iter(entry.values()))
            values_out.append(float(actual["logprob"]))
            greedy_out.append(int(actual.get("rank", 1)) == 1)
        return values_out, greedy_out
    raise PromptLogprobsUnavailable("the server returned no log-probabilities for the prompt tokens")


class RemoteLoglikScorer(LogLikelihoodScorer):
    """Log-likelihoods from a server's prompt log-probabilities, with the local scorer's exact
    tokenisation and boundary rules (inherited) and a local tokenizer of the served model."""

    def __init__(self, config: ClientConfig, model: str, tokenizer_dir: str | Path, *,
                 max_length: int | None = None, client: Client | None = None) -> None:
        if max_length is not None and max_length < 2:
            raise UsageError(f"max_length must be at least 2, got {max_length!r}")
        self.client = client or Client(config)
        self.model_name = model
        self.tokenizer = load_tokenizer(tokenizer_dir)
        self.max_length = max_length or _max_length_of(tokenizer_dir, self.tokenizer)
        self.stats = ScorerStats()
        self._vocab = len(self.tokenizer)
        self._prefix_str = self.tokenizer.decode([self.prefix_token_id])
        self._mode: str | None = None  # "echo" or "prompt_logprobs", found on first use
        self._mode_lock = threading.Lock()

    def _text_of(self, ids: Sequence[int]) -> str:
        return str(self.tokenizer.decode(list(ids), skip_special_tokens=False, clean_up_tokenization_spaces=False))

    def _body(self, ids: Sequence[int], mode: str) -> dict[str, Any]:
        prompt: Any = self._text_of(ids) if mode == "echo_text" else list(ids)
        body: dict[str, Any] = {"model": self.model_name, "prompt": prompt, "max_tokens": 1, "temperature": 0.0}
        if mode == "prompt_logprobs":
            body.update(prompt_logprobs=1, logprobs=1)
        else:
            body.update(echo=True, logprobs=1)
        return body

    def _check_retokenized(self, choice: Mapping[str, Any], ids: Sequence[int]) -> None:
        """In ``echo_text`` mode the server tokenized our text itself: its tokens must be ours."""
        logprobs = choice.get("logprobs")
        tokens = logprobs.get("tokens") if isinstance(logprobs, Mapping) else None
        if not isinstance(tokens, list) or len(tokens) < len(ids):
            raise PromptLogprobsUnavailable("the server echoed fewer tokens than the prompt has")
        for i, token_id in enumerate(ids):
            piece = self._text_of([token_id])
            if "\ufffd" not in piece and tokens[i] != piece:
                raise ServerError(f"the server tokenized the text differently at token {i} ({tokens[i]!r}, not "
                                  f"{piece!r}); use a server that takes token ids (vLLM, SGLang) for this request")

    def _probe_alignment(self, ids: Sequence[int], mode: str, echoed: Mapping[str, Any]) -> None:
        """Once per scorer: the echo's entry for the last prompt token must describe the same
        distribution as a fresh greedy step from the prompt without that token (same top token,
        same log-probability); a server whose echo is one position late fails this."""
        if len(ids) < 2:
            return
        tops = echoed.get("logprobs", {}).get("top_logprobs") if isinstance(echoed.get("logprobs"), Mapping) else None
        if not isinstance(tops, list) or len(tops) < len(ids) or not isinstance(tops[len(ids) - 1], Mapping):
            return
        prefix = list(ids[:-1])
        body = {"model": self.model_name, "prompt": self._text_of(prefix) if mode == "echo_text" else prefix,
                "max_tokens": 1, "temperature": 0.0, "logprobs": 1}
        choices = self.client.post("completions", body).get("choices")
        step = choices[0].get("logprobs") if isinstance(choices, list) and choices and isinstance(
            choices[0], Mapping) else None
        fresh = step.get("top_logprobs") if isinstance(step, Mapping) else None
        if not isinstance(fresh, list) or not fresh or not isinstance(fresh[0], Mapping) or not fresh[0]:
            return  # nothing to compare with
        key, value = max(fresh[0].items(), key=lambda kv: kv[1])
        echoed_value = tops[len(ids) - 1].get(key)
        if _top(tops[len(ids) - 1]) != key or echoed_value is None or abs(float(echoed_value) - float(value)) > 1e-2:
            raise PromptLogprobsUnavailable(
                "the server's echoed log-probabilities are one position off: the echo's entry for the last prompt "
                "token does not match a fresh step from the prompt without it (llama-cpp-python 0.3 gives each "
                "token the distribution after it for models without a BOS token); its prompt log-likelihoods "
                "cannot be used: serve the model with vLLM or SGLang")

    def _ask(self, ids: Sequence[int]) -> tuple[list[float | None], list[bool]]:
        modes = [self._mode] if self._mode else ["echo", "prompt_logprobs", "echo_text"]
        failure: ServerError | None = None
        for mode in modes:
            try:
                payload = self.client.post("completions", self._body(ids, mode))
                choices = payload.get("choices")
                if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
                    raise ServerError(f"the response has no choices: {json.dumps(payload)[:300]}")
                if mode == "echo_text":
                    self._check_retokenized(choices[0], ids)
                if mode != "prompt_logprobs":
                    check_echo_alignment(choices[0], len(ids), self._text_of(ids) if mode == "echo_text" else None)
                    if self._mode is None:
                        self._probe_alignment(ids, mode, choices[0])
                result = prompt_logprobs_of(choices[0], len(ids))
            except PromptLogprobsUnavailable as exc:
                if "one position off" in str(exc):
                    raise
                failure = exc
                continue
            except ServerError as exc:
                if self._mode is None and mode != "echo_text":
                    failure = exc  # a server may reject token ids or echo but accept the next form
                    continue
                raise
            with self._mode_lock:
                self._mode = mode
            return result
        raise PromptLogprobsUnavailable(
            f"the server at {self.client.config.base_url} cannot return prompt log-probabilities (tried echo+logprobs "
            f"and prompt_logprobs with token ids, and echo+logprobs with text, on /v1/completions): {failure}. For "
            "llama.cpp start it with logits_all; for vLLM use a version with echo or prompt_logprobs support")

    def _score_encoded(self, encoded: Sequence[EncodedPair]) -> list[LoglikResult]:
        self.stats.requests += len(encoded)
        unique: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        for enc in encoded:
            if enc.error is None:
                unique.setdefault((enc.context, enc.continuation), len(unique))
        self.stats.unique_pairs += len(unique)
        pairs = list(unique)
        scores: dict[int, tuple[float, bool] | str] = {}
        if pairs:
            self._ask_all(pairs, scores)
        results: list[LoglikResult] = []
        for enc in encoded:
            if enc.error is not None:
                results.append(LoglikResult(-math.inf, 0, False, enc.boundary, enc.error))
                continue
            got = scores[unique[(enc.context, enc.continuation)]]
            if isinstance(got, str):
                results.append(LoglikResult(-math.inf, 0, False, enc.boundary, got))
            else:
                results.append(LoglikResult(got[0], len(enc.continuation), got[1], enc.boundary, None, enc.truncated))
        return results

    def _ask_all(self, pairs: list[tuple[tuple[int, ...], tuple[int, ...]]],
                 scores: dict[int, tuple[float, bool] | str]) -> None:
        def one(index: int) -> tuple[int, tuple[float, bool] | str]:
            ctx, cont = pairs[index]
            try:
                values, greedy = self._ask(ctx + cont)
            except PromptLogprobsUnavailable:
                raise
            except ServerError as exc:
                return index, f"server error: {exc}"
            picked = values[len(ctx):len(ctx) + len(cont)]
            if any(v is None for v in picked):
                return index, "the server gave no log-probability for a continuation token"
            self.stats.forward_calls += 1
            self.stats.scored_tokens += len(cont)
            return index, (math.fsum(v for v in picked if v is not None), all(greedy[len(ctx):len(ctx) + len(cont)]))

        first, rest = one(0), list(range(1, len(pairs)))  # the first request settles echo vs prompt_logprobs
        scores[first[0]] = first[1]
        if rest:
            with ThreadPoolExecutor(min(self.client.config.concurrency, len(rest))) as pool:
                for index, value in pool.map(one, rest):
                    scores[index] = value


def post_all(post: Callable[[str, Mapping[str, Any]], dict[str, Any]], path: str,
             bodies: Sequence[Mapping[str, Any]], concurrency: int) -> list[dict[str, Any] | ServerError]:
    """``post(path, body)`` for every body, at most ``concurrency`` in flight; results (or each
    body's :class:`ServerError`) in order.  Shared by one server's client and the pool of several."""
    def one(body: Mapping[str, Any]) -> dict[str, Any] | ServerError:
        try:
            return post(path, body)
        except ServerError as exc:
            return exc

    if len(bodies) <= 1 or concurrency == 1:
        return [one(b) for b in bodies]
    with ThreadPoolExecutor(min(concurrency, len(bodies))) as pool:
        return list(pool.map(one, bodies))
