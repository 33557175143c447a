"""Log-likelihood engine for a local causal LM, numerically matching lm-eval's HF backend.

`LogLikelihoodScorer.loglikelihood([(context, continuation), ...])` returns one
`LoglikResult` per request: the summed log-probability of the continuation tokens, their
count, whether greedy decoding reproduces them, how the token boundary was found and, for a
request that could not be scored, an error message (one bad request never stops the run).

Tokenisation follows lm-eval 0.4.13 (``TemplateLM._encode_pair`` and ``loglikelihood``):

* trailing whitespace of the context moves to the front of the continuation;
* ``whole = encode(context + continuation)``, ``ctx = encode(context)``; when ``ctx`` is a
  prefix of ``whole`` the continuation tokens are ``whole[len(ctx):]`` (boundary ``"joint"``);
* when a BPE merge crosses the join ``ctx`` is *not* a prefix of ``whole``.  lm-eval then
  slices ``whole`` anyway, silently scoring tokens that straddle the join.  We instead encode
  the continuation on its own and score ``ctx + encode(continuation)`` (boundary
  ``"separate"``) — a deliberate difference, visible per request;
* an empty context conditions on the prefix token (BOS, else EOS) like lm-eval (boundary
  ``"prefix"``); a context that is only whitespace is treated as empty with the whitespace
  moved into the continuation (lm-eval fails on it: its context encodes to no tokens);
* too long inputs are truncated from the left to ``max_length + 1`` tokens of
  ``context + continuation`` (``LoglikResult.truncated`` counts the dropped context tokens);
  a continuation longer than ``max_length`` tokens is an error.

Speed (what lm-eval does not do): every request is tokenized before the first forward pass,
in batched tokenizer calls, through a bounded cache kept across calls (``encode_cache``);
identical (context, continuation) pairs are scored once; requests sharing a context are
scored together — the context minus its last token runs once and its KV cache
(``past_key_values``) is selected for each continuation row; logits are only produced at
positions that predict continuation tokens (``logits_to_keep``) and the log-softmax
normaliser is computed only there; rows are sorted by length (descending, like lm-eval),
batches are cut by padded token slots and where rows get much shorter, a shared context's
continuations run in similar-length chunks, all right-padded with an attention mask and
explicit position ids; the caps halve on out-of-memory and the batch is retried.
`ScorerStats` times tokenization and forward passes apart and counts padding.

torch and transformers are imported only when a scorer is built.
"""

from __future__ import annotations

import copy
import inspect
import math
import time
from collections import OrderedDict, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from normalize.errors import UsageError
from scoring.lm._model import LoadedModel, load_causal_lm

if TYPE_CHECKING:
    import torch

BOUNDARIES = ("joint", "separate", "prefix", "tokens")


@dataclass(frozen=True)
class LoglikResult:
    """Score of one (context, continuation) request.

    ``logprob`` is the sum of natural-log probabilities of the continuation tokens and
    ``n_tokens`` their count; ``is_greedy`` is True when every continuation token is the
    argmax of its position; ``boundary`` is ``"joint"``, ``"separate"``, ``"prefix"`` (empty
    context, conditioned on BOS/EOS) or ``"tokens"`` (token ids given directly).  A request
    that could not be scored has ``error`` set, ``logprob`` = -inf and ``n_tokens`` = 0.
    """

    logprob: float
    n_tokens: int
    is_greedy: bool
    boundary: str
    error: str | None = None
    truncated: int = 0


@dataclass(frozen=True)
class EncodedPair:
    """Token ids of one request after the boundary rule and left truncation."""

    context: tuple[int, ...]
    continuation: tuple[int, ...]
    boundary: str
    truncated: int = 0
    error: str | None = None


@dataclass
class ScorerStats:
    """Counters of one scorer's work (per instance; reset with `reset()`).

    Tokenisation and the model's forward passes are timed apart: ``encode_seconds`` covers
    turning requests into token ids (done for the whole request list before the first forward
    pass), ``forward_seconds`` the batched scoring of those ids.  ``encode_cache_hits`` counts
    requests whose encoding came from the scorer's cache (a repeated request, in this call or
    an earlier one) and ``encode_cache_misses`` those that were tokenized.
    """

    requests: int = 0
    unique_pairs: int = 0
    forward_calls: int = 0
    forward_tokens: int = 0
    scored_tokens: int = 0
    oom_backoffs: int = 0
    #: token slots of every batch tensor (rows × width) and how many of them were padding
    batch_tokens: int = 0
    padding_tokens: int = 0
    encode_cache_hits: int = 0
    encode_cache_misses: int = 0
    encode_seconds: float = 0.0
    forward_seconds: float = 0.0

    @property
    def padding_share(self) -> float:
        """Share of batch token slots that were padding (0.0 before any batch)."""
        return self.padding_tokens / self.batch_tokens if self.batch_tokens else 0.0

    @property
    def tokens_per_second(self) -> float:
        """Tokens the model processed per second of forward time (0.0 before any batch)."""
        return self.forward_tokens / self.forward_seconds if self.forward_seconds else 0.0

    def reset(self) -> None:
        """Set every counter back to zero."""
        for name, spec in self.__dataclass_fields__.items():
            setattr(self, name, spec.default)


K = TypeVar("K")
V = TypeVar("V")


class _Lru(Generic[K, V]):
    """A bounded least-recently-used map: a lookup refreshes an entry, a store evicts the
    oldest past ``max_entries``."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._items: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.max_entries:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()


class EncodeCache:
    """Bounded least-recently-used store of request encodings, kept across calls.

    Keys are the raw ``(context, continuation)`` strings (pairs) and context strings (the
    context's own encoding, shared by every continuation of that context).  A scorer keeps
    one, so re-scoring a request set, PMI's repeated unconditional context and a context shared
    by several choices skip the tokenizer.  ``max_entries`` bounds each of the two stores.

    >>> cache = EncodeCache(max_entries=2)
    >>> cache.put_context("a", (1,)); cache.put_context("b", (2,)); cache.put_context("c", (3,))
    >>> cache.context("a") is None, cache.context("c")
    (True, (3,))
    """

    def __init__(self, max_entries: int = 1 << 16) -> None:
        if max_entries < 1:
            raise UsageError(f"max_entries must be a positive int, got {max_entries!r}")
        self.max_entries = max_entries
        self._pairs: _Lru[tuple[str, str], EncodedPair] = _Lru(max_entries)
        self._contexts: _Lru[str, tuple[int, ...]] = _Lru(max_entries)

    def __len__(self) -> int:
        return len(self._pairs)

    def pair(self, key: tuple[str, str]) -> EncodedPair | None:
        """The cached encoding of a request, or None."""
        return self._pairs.get(key)

    def put_pair(self, key: tuple[str, str], value: EncodedPair) -> None:
        """Store a request's encoding, evicting the least recently used beyond the bound."""
        self._pairs.put(key, value)

    def context(self, text: str) -> tuple[int, ...] | None:
        """The cached encoding of a context string, or None."""
        return self._contexts.get(text)

    def put_context(self, text: str, ids: tuple[int, ...]) -> None:
        """Store a context's encoding, evicting the least recently used beyond the bound."""
        self._contexts.put(text, ids)

    def clear(self) -> None:
        """Drop every stored encoding."""
        self._pairs.clear()
        self._contexts.clear()


def move_trailing_whitespace(context: str, continuation: str) -> tuple[str, str]:
    """Move the context's trailing whitespace to the front of the continuation (lm-eval).

    >>> move_trailing_whitespace("Answer: ", "Paris")
    ('Answer:', ' Paris')
    >>> move_trailing_whitespace("Q", " A")
    ('Q', ' A')
    """
    stripped = context.rstrip()
    return stripped, context[len(stripped):] + continuation


def split_whole(
    context_ids: Sequence[int], whole_ids: Sequence[int], continuation_ids: Sequence[int] | None
) -> tuple[tuple[int, ...], str] | None:
    """Continuation tokens and boundary from the encodings; None when they must be encoded apart.

    Returns ``(whole[len(ctx):], "joint")`` when ``ctx`` is a prefix of ``whole``, else
    ``(continuation_ids, "separate")``, or None when ``continuation_ids`` is not given yet.

    >>> split_whole([1, 2], [1, 2, 3], None)
    ((3,), 'joint')
    >>> split_whole([1, 2], [1, 9, 3], None) is None
    True
    >>> split_whole([1, 2], [1, 9, 3], [4, 3])
    ((4, 3), 'separate')
    """
    n = len(context_ids)
    if list(whole_ids[:n]) == list(context_ids):
        return tuple(whole_ids[n:]), "joint"
    if continuation_ids is None:
        return None
    return tuple(continuation_ids), "separate"


def truncate_left(
    context: Sequence[int], continuation: Sequence[int], max_length: int
) -> tuple[tuple[int, ...], int]:
    """Drop context tokens from the left so context+continuation fits ``max_length + 1``.

    The model reads ``context + continuation[:-1]``, at most ``max_length`` tokens (lm-eval's
    ``(context_enc + continuation_enc)[-(max_length + 1):][:-1]``).  Returns the kept context
    and how many tokens were dropped.

    >>> truncate_left([1, 2, 3, 4], [5, 6], 4)
    ((2, 3, 4), 1)
    """
    excess = len(context) + len(continuation) - (max_length + 1)
    if excess <= 0:
        return tuple(context), 0
    return tuple(context[excess:]), excess


@dataclass
class _Unit:
    """Rows sharing one context: the context minus its last token, that token, the rows."""

    prefix: tuple[int, ...]
    last: int
    conts: list[tuple[int, ...]] = field(default_factory=list)
    keys: list[int] = field(default_factory=list)

    @property
    def shared(self) -> bool:
        return len(self.prefix) > 0 and len(self.conts) > 1

    def split(self) -> tuple[_Unit, _Unit]:
        half = len(self.conts) // 2
        return self.take(0, half), self.take(half, len(self.conts))

    def take(self, start: int, stop: int) -> _Unit:
        """The unit with only continuations ``start:stop``."""
        return _Unit(self.prefix, self.last, self.conts[start:stop], self.keys[start:stop])


def _width(unit: _Unit) -> int:
    """The length a unit is sorted and bucketed by: its prefix when shared, else its row."""
    return len(unit.prefix) if unit.shared else len(unit.prefix) + max(map(len, unit.conts))


class _BatchShape:
    """Padded token slots of a batch being filled, as `_forward_flat`/`_forward_shared` lay it
    out: flat rows are ``prefix + last + cont[:-1]`` padded to the longest; a shared batch has
    a prefix tensor (units × longest prefix) and continuation rows that also hold the expanded
    KV cache of their prefix (rows × (longest prefix + longest continuation))."""

    def __init__(self) -> None:
        self.units = self.rows = self.prefix = self.cont = self.flat = 0

    def _grown(self, unit: _Unit) -> tuple[int, int, int, int, int]:
        longest = max(map(len, unit.conts))
        return (self.units + 1, self.rows + len(unit.conts), max(self.prefix, len(unit.prefix)),
                max(self.cont, longest), max(self.flat, len(unit.prefix) + longest))

    def cost_with(self, unit: _Unit) -> int:
        """Padded token slots of the batch once ``unit`` joins it."""
        units, rows, prefix, cont, flat = self._grown(unit)
        if unit.shared:
            return units * prefix + rows * (prefix + cont)
        return rows * flat

    def add(self, unit: _Unit) -> None:
        self.units, self.rows, self.prefix, self.cont, self.flat = self._grown(unit)


def length_chunks(lengths: Sequence[int], ratio: float = 0.75, min_rows: int = 2) -> list[int]:
    """Where to cut rows sorted by length (longest first) into similar-length chunks.

    A chunk ends before the first row no longer than ``ratio`` × the chunk's width once it
    holds ``min_rows`` rows.  Returns the start index of every chunk.

    >>> length_chunks([30, 29, 28, 27, 20, 19, 18, 17, 16, 10])
    [0, 4, 9]
    >>> length_chunks([5, 1])
    [0]
    >>> length_chunks([5, 5, 1])
    [0, 2]
    """
    starts = [0] if lengths else []
    for i, n in enumerate(lengths):
        start = starts[-1]
        if i - start >= min_rows and n <= ratio * lengths[start]:
            starts.append(i)
    return starts


def is_oom(exc: BaseException) -> bool:
    """True for CUDA/CPU out-of-memory errors raised by torch.

    >>> is_oom(RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"))
    True
    >>> is_oom(ValueError("bad"))
    False
    """
    if type(exc).__name__ == "OutOfMemoryError":
        return True
    text = str(exc).lower()
    return isinstance(exc, RuntimeError) and (
        "out of memory" in text or "can't allocate memory" in text
    )


class LogLikelihoodScorer:
    """Score (context, continuation) pairs with a local Hugging Face causal LM.

    ``batch_size`` is the most continuation rows per forward pass, or ``"auto"``: then only
    the token budget bounds a batch (no row cap of its own).  ``token_budget`` is the most
    padded token slots per pass (a shared-context batch also counts the KV cache its rows
    hold); by default 8192 on CPU and `token_budget_from_memory` on CUDA with ``"auto"``,
    unbounded with an integer ``batch_size``.  Either cap halves on out-of-memory and the
    batch is retried.  With ``bucket_by_length`` (default) rows are sorted longest first and
    batches and continuation chunks hold rows of similar length; False keeps arrival order
    (for comparison: results are the same, padding is not).  ``encode_cache_size`` bounds the
    scorer's `encode_cache` (requests and contexts kept, each).  ``max_length`` overrides the
    context length read from the config (lm-eval's ``max_length``).  With ``project_hidden``
    (default) the output projection is applied only to hidden states at continuation
    positions, after a probe at start-up checks that ``lm_head(base_model(x))`` equals the
    model's logits.
    """

    def __init__(
        self,
        model_dir: str | Path,
        device: str = "auto",
        dtype: str = "auto",
        batch_size: int | Literal["auto"] = "auto",
        *,
        attn_implementation: str = "auto",
        max_length: int | None = None,
        loaded: LoadedModel | None = None,
        project_hidden: bool = True,
        token_budget: int | None = None,
        bucket_by_length: bool = True,
        encode_cache_size: int = 1 << 16,
    ) -> None:
        self._encode_cache = EncodeCache(encode_cache_size)
        if token_budget is not None and (not isinstance(token_budget, int) or token_budget < 1):
            raise UsageError(f"token_budget must be a positive int, got {token_budget!r}")
        if batch_size != "auto" and (not isinstance(batch_size, int) or batch_size < 1):
            raise UsageError(f"batch_size must be 'auto' or a positive int, got {batch_size!r}")
        if max_length is not None and max_length < 2:
            raise UsageError(f"max_length must be at least 2, got {max_length!r}")
        self.loaded = loaded or load_causal_lm(
            model_dir, device=device, dtype=dtype, attn_implementation=attn_implementation
        )
        self.model = self.loaded.model
        self.tokenizer = self.loaded.tokenizer
        self.device = self.loaded.device
        self.max_length = max_length or self.loaded.max_length
        self.stats = ScorerStats()
        params = inspect.signature(self.model.forward).parameters
        self._cache_kw = "cache" if "cache" in params else "past_key_values"
        self._keep_kw = next(
            (k for k in ("logits_to_keep", "num_logits_to_keep") if k in params), None
        )
        self._vocab = int(self.model.get_input_embeddings().weight.shape[0])
        pad = self.tokenizer.pad_token_id
        self._pad_id = int(pad if pad is not None else (self.prefix_token_id or 0))
        self.bucket_by_length = bucket_by_length
        self._max_rows, self._max_tokens = self._initial_caps(batch_size, token_budget)
        self._prefix_str = self.tokenizer.decode([self.prefix_token_id])
        self._head: Any = self._probe_head() if project_hidden else None

    @classmethod
    def from_loaded(
        cls,
        loaded: LoadedModel,
        batch_size: int | Literal["auto"] = "auto",
        *,
        max_length: int | None = None,
        project_hidden: bool = True,
        token_budget: int | None = None,
        bucket_by_length: bool = True,
        encode_cache_size: int = 1 << 16,
    ) -> LogLikelihoodScorer:
        """A scorer over an already loaded model (shares weights; own batch size, stats and
        encode cache)."""
        return cls("", batch_size=batch_size, max_length=max_length, loaded=loaded,
                   project_hidden=project_hidden, token_budget=token_budget,
                   bucket_by_length=bucket_by_length, encode_cache_size=encode_cache_size)

    # ----------------------------------------------------------------- tokenisation

    @property
    def prefix_token_id(self) -> int:
        """Token conditioning an empty context: BOS, else EOS (lm-eval's prefix_token_id)."""
        tok = self.tokenizer
        token = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
        if token is None:
            raise ValueError("tokenizer has neither a BOS nor an EOS token for empty contexts")
        return int(token)

    @property
    def encode_cache(self) -> EncodeCache:
        """This scorer's cache of request encodings (created on first use by subclasses that
        set up their own attributes)."""
        cache = self.__dict__.get("_encode_cache")
        if cache is None:
            cache = self.__dict__["_encode_cache"] = EncodeCache()
        return cache

    def _encode(self, text: str) -> list[int]:
        """lm-eval's tok_encode: tokenizer defaults, no special tokens if text starts with BOS."""
        return self._encode_many([text])[0]

    def _encode_many(self, texts: Sequence[str]) -> list[list[int]]:
        """`_encode` over many texts in one tokenizer call per special-token setting."""
        out: list[list[int]] = [[] for _ in texts]
        plain = [i for i, t in enumerate(texts)
                 if not (self._prefix_str and t.startswith(self._prefix_str))]
        plain_set = set(plain)
        raw = [i for i in range(len(texts)) if i not in plain_set]
        for indices, special in ((plain, True), (raw, False)):
            for i, ids in zip(indices, self._tokenize([texts[i] for i in indices], special),
                              strict=True):
                out[i] = ids
        return out

    def _tokenize(self, texts: list[str], add_special_tokens: bool) -> list[list[int]]:
        """Token ids of each text, one batched tokenizer call (same ids as ``encode``)."""
        if not texts:
            return []
        ids = self.tokenizer(texts, add_special_tokens=add_special_tokens)["input_ids"]
        return [list(map(int, row)) for row in ids]

    def encode_pair(self, context: str, continuation: str) -> EncodedPair:
        """Token ids for one request following lm-eval's boundary rule (see module doc)."""
        return self.encode_pairs([(context, continuation)])[0]

    def encode_pairs(self, requests: Sequence[Any]) -> list[EncodedPair]:
        """`encode_pair` for every request, with batched tokenizer calls and the encode cache.

        Identical requests are encoded once; a context's encoding is shared by all its
        continuations; requests and contexts seen before (this call or an earlier one) come
        from `encode_cache` (``stats.encode_cache_hits``).  A malformed request gets an
        `EncodedPair` with ``error`` set.  Results are in request order.
        """
        cache = self.encode_cache
        out: list[EncodedPair | None] = [None] * len(requests)
        todo: dict[tuple[str, str], list[int]] = {}
        for i, request in enumerate(requests):
            if not (isinstance(request, tuple | list) and len(request) == 2):
                out[i] = EncodedPair((), (), "", error=f"bad request {request!r:.80}")
                continue
            context, continuation = request
            if not isinstance(context, str) or not isinstance(continuation, str):
                out[i] = EncodedPair((), (), "", error="context and continuation must be strings")
                continue
            if continuation == "":
                out[i] = EncodedPair((), (), "", error="empty continuation")
                continue
            key = (context, continuation)
            found = cache.pair(key)
            if found is not None:
                out[i] = found
                self.stats.encode_cache_hits += 1
            elif key in todo:
                todo[key].append(i)
                self.stats.encode_cache_hits += 1
            else:
                todo[key] = [i]
                self.stats.encode_cache_misses += 1
        for key, value in zip(todo, self._encode_new(list(todo)), strict=True):
            cache.put_pair(key, value)
            for i in todo[key]:
                out[i] = value
        return [enc for enc in out if enc is not None]

    def _encode_new(self, keys: list[tuple[str, str]]) -> list[EncodedPair]:
        """Encode requests not in the cache: contexts, wholes and (where needed) continuations
        each in one batched tokenizer call."""
        cache = self.encode_cache
        moved = [move_trailing_whitespace(c, x) for c, x in keys]
        ctx_ids: dict[str, tuple[int, ...]] = {}
        for context in dict.fromkeys(c for c, _ in moved if c):
            got = cache.context(context)
            if got is not None:
                ctx_ids[context] = got
        fresh = list(dict.fromkeys(c for c, _ in moved if c and c not in ctx_ids))
        for text, ids in zip(fresh, self._encode_many(fresh), strict=True):
            ctx_ids[text] = tuple(ids)
            cache.put_context(text, ctx_ids[text])
        joint = [i for i, (c, _) in enumerate(moved) if c]
        wholes = self._encode_many([moved[i][0] + moved[i][1] for i in joint])
        whole_of = dict(zip(joint, wholes, strict=True))
        found: dict[int, tuple[tuple[int, ...], str]] = {}
        for i in joint:
            split = split_whole(ctx_ids[moved[i][0]], whole_of[i], None)
            if split is not None:
                found[i] = split
        alone = [i for i in range(len(moved)) if i not in found]
        alone_ids = self._tokenize([moved[i][1] for i in alone], False)
        cont_of = dict(zip(alone, alone_ids, strict=True))
        results: list[EncodedPair] = []
        for i, (context, _) in enumerate(moved):
            if context == "":
                cont = cont_of[i]
                if not cont:
                    results.append(EncodedPair((), (), "prefix",
                                               error="continuation encodes to no tokens"))
                elif cont[0] != self.prefix_token_id:
                    results.append(self._finish([self.prefix_token_id], cont, "prefix"))
                else:
                    results.append(self._finish(cont[:1], cont[1:], "prefix"))
                continue
            ctx = ctx_ids[context]
            if i in found:
                results.append(self._finish(ctx, found[i][0], found[i][1]))
            else:
                results.append(self._finish(ctx, cont_of[i], "separate"))
        return results

    def _finish(self, ctx: Sequence[int], cont: Sequence[int], boundary: str) -> EncodedPair:
        if not cont:
            return EncodedPair(tuple(ctx), (), boundary, error="continuation encodes to no tokens")
        if not ctx:
            return EncodedPair((), tuple(cont), boundary, error="context encodes to no tokens")
        if len(cont) > self.max_length:
            return EncodedPair(
                tuple(ctx), tuple(cont), boundary,
                error=f"continuation has {len(cont)} tokens, more than max_length {self.max_length}",
            )
        bad = [t for t in (*ctx, *cont) if not 0 <= t < self._vocab]
        if bad:
            return EncodedPair(
                tuple(ctx), tuple(cont), boundary,
                error=f"token id {bad[0]} outside the model's vocabulary of {self._vocab}",
            )
        kept, dropped = truncate_left(ctx, cont, self.max_length)
        return EncodedPair(kept, tuple(cont), boundary, truncated=dropped)

    # ----------------------------------------------------------------- public scoring

    def loglikelihood(self, requests: Sequence[tuple[str, str]]) -> list[LoglikResult]:
        """Score each (context, continuation); results are in request order.

        Every request is tokenized (or found in `encode_cache`) before the first forward pass;
        ``stats.encode_seconds`` and ``stats.forward_seconds`` time the two phases apart.
        """
        start = time.perf_counter()
        encoded = self.encode_pairs(requests)
        self.stats.encode_seconds += time.perf_counter() - start
        return self._score_timed(encoded)

    def loglikelihood_tokens(
        self, pairs: Sequence[tuple[Sequence[int], Sequence[int]]]
    ) -> list[LoglikResult]:
        """Score (context ids, continuation ids) pairs as given (boundary ``"tokens"``)."""
        return self._score_timed([self._finish(c, x, "tokens") for c, x in pairs])

    def _score_timed(self, encoded: Sequence[EncodedPair]) -> list[LoglikResult]:
        start = time.perf_counter()
        try:
            return self._score_encoded(encoded)
        finally:
            self.stats.forward_seconds += time.perf_counter() - start

    def loglikelihood_rolling(self, texts: Sequence[str]) -> list[LoglikResult]:
        """Log-likelihood of whole texts conditioned on the prefix token, in disjoint windows.

        Like lm-eval's ``loglikelihood_rolling`` (context_len=1): every token is predicted
        once, each window with as much preceding text as fits ``max_length``.
        """
        pairs: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        owners: list[int] = []
        errors: dict[int, str] = {}
        for i, text in enumerate(texts):
            tokens = list(self.tokenizer.encode(text, add_special_tokens=False)) if text else []
            if not tokens:
                errors[i] = "text encodes to no tokens"
                continue
            full = [self.prefix_token_id, *tokens]
            for start in range(0, len(tokens), self.max_length):
                end = min(start + self.max_length, len(tokens))
                ctx_start = max(0, end + 1 - (self.max_length + 1))
                pairs.append((tuple(full[ctx_start:start + 1]), tuple(tokens[start:end])))
                owners.append(i)
        window_results = self.loglikelihood_tokens(pairs)
        out: list[LoglikResult] = []
        for i in range(len(texts)):
            if i in errors:
                out.append(LoglikResult(-math.inf, 0, False, "prefix", errors[i]))
                continue
            mine = [r for r, o in zip(window_results, owners, strict=True) if o == i]
            failed = next((r.error for r in mine if r.error), None)
            out.append(LoglikResult(
                logprob=-math.inf if failed else sum(r.logprob for r in mine),
                n_tokens=0 if failed else sum(r.n_tokens for r in mine),
                is_greedy=not failed and all(r.is_greedy for r in mine),
                boundary="prefix",
                error=failed,
            ))
        return out

    # ----------------------------------------------------------------- engine

    def _initial_caps(self, batch_size: int | Literal["auto"],
                      token_budget: int | None) -> tuple[int, int]:
        """(most rows, most padded token slots) per forward pass."""
        if batch_size != "auto":
            return batch_size, token_budget or 1 << 30
        if token_budget is None:
            if self.device.type != "cuda":
                token_budget = 8192
            else:
                import torch

                free, _total = torch.cuda.mem_get_info(self.device)
                token_budget = token_budget_from_memory(
                    free, self._vocab, int(self.model.config.hidden_size))
        # no row cap of its own: a row holds at least one token, the budget bounds the batch
        return token_budget, token_budget

    def _score_encoded(self, encoded: Sequence[EncodedPair]) -> list[LoglikResult]:
        self.stats.requests += len(encoded)
        unique: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        for enc in encoded:
            if enc.error is None:
                unique.setdefault((enc.context, enc.continuation), len(unique))
        self.stats.unique_pairs += len(unique)
        scores: dict[int, tuple[float, bool] | str] = {}
        self._run_units(self._build_units(unique), scores)
        results: list[LoglikResult] = []
        for enc in encoded:
            if enc.error is not None:
                results.append(LoglikResult(-math.inf, 0, False, enc.boundary, enc.error))
                continue
            got = scores[unique[(enc.context, enc.continuation)]]
            if isinstance(got, str):
                results.append(LoglikResult(-math.inf, 0, False, enc.boundary, got))
            else:
                results.append(LoglikResult(
                    got[0], len(enc.continuation), got[1], enc.boundary, None, enc.truncated
                ))
        return results

    def _build_units(
        self, unique: dict[tuple[tuple[int, ...], tuple[int, ...]], int]
    ) -> list[_Unit]:
        """Group rows by context; with ``bucket_by_length`` order them longest first.

        Rows whose context is shared (several continuations, a prefix to cache) form one
        unit; the others are one unit per row.  Sorted by length (descending, like lm-eval:
        out-of-memory shows up at once) neighbours have similar lengths, so the token budget
        cuts batches whose rows pad little; otherwise units keep the order of first appearance.
        """
        by_context: dict[tuple[int, ...], _Unit] = {}
        for (ctx, cont), key in unique.items():
            unit = by_context.get(ctx)
            if unit is None:
                unit = by_context[ctx] = _Unit(ctx[:-1], ctx[-1])
            unit.conts.append(cont)
            unit.keys.append(key)
        flat: list[_Unit] = []
        shared: list[_Unit] = []
        for unit in by_context.values():
            if unit.shared:
                shared.append(unit)
            else:
                flat.extend(unit.take(i, i + 1) for i in range(len(unit.conts)))
        if not self.bucket_by_length:
            return sorted(flat + shared, key=lambda u: u.keys[0])
        for unit in shared:
            order = sorted(range(len(unit.conts)), key=lambda i: -len(unit.conts[i]))
            unit.conts = [unit.conts[i] for i in order]
            unit.keys = [unit.keys[i] for i in order]
        flat.sort(key=lambda u: -(len(u.prefix) + len(u.conts[0])))
        shared.sort(key=lambda u: (-len(u.prefix), -len(u.conts[0])))
        return flat + shared

    def _pieces(self, unit: _Unit) -> Iterator[_Unit]:
        """The unit, cut into row ranges that each fit the row cap and the token budget."""
        start = 0
        while start < len(unit.conts):
            stop = min(len(unit.conts), start + self._max_rows)
            while stop - start > 1 and _BatchShape().cost_with(
                    unit.take(start, stop)) > self._max_tokens:
                stop = start + (stop - start) // 2
            yield unit.take(start, stop) if (start, stop) != (0, len(unit.conts)) else unit
            start = stop

    def _batches(self, units: list[_Unit]) -> Iterator[list[_Unit]]:
        """Consecutive units while rows and padded token slots stay within the caps.

        With ``bucket_by_length`` a batch also ends where the (sorted) units get much shorter
        than its first one, as `length_chunks` cuts: rows of similar length share a batch even
        when the caps would allow more.
        """
        batch: list[_Unit] = []
        shape = _BatchShape()
        for whole in units:
            for unit in self._pieces(whole):
                fits = shape.rows + len(unit.conts) <= self._max_rows and (
                    shape.cost_with(unit) <= self._max_tokens)
                if fits and batch and self.bucket_by_length:
                    fits = len(length_chunks([_width(batch[0]), _width(unit)], min_rows=1)) == 1
                if batch and (not fits or batch[0].shared != unit.shared):
                    yield batch
                    batch, shape = [], _BatchShape()
                batch.append(unit)
                shape.add(unit)
        if batch:
            yield batch

    def _run_units(self, units: list[_Unit], scores: dict[int, tuple[float, bool] | str]) -> None:
        queue: deque[list[_Unit]] = deque(self._batches(units))
        while queue:
            batch = queue.popleft()
            try:
                rows = self._forward(batch)
            except (RuntimeError, ValueError, IndexError) as exc:
                oom = is_oom(exc)
                if oom:
                    self._release_memory()
                    self.stats.oom_backoffs += 1
                    self._max_rows = max(1, self._max_rows // 2)
                    self._max_tokens = max(1, self._max_tokens // 2)
                if len(batch) > 1:
                    half = len(batch) // 2
                    queue.appendleft(batch[half:])
                    queue.appendleft(batch[:half])
                elif oom and len(batch[0].conts) > 1:
                    first, second = batch[0].split()
                    queue.appendleft([second])
                    queue.appendleft([first])
                else:
                    reason = "out of memory at batch size 1" if oom else f"{type(exc).__name__}: {exc}"
                    for key in batch[0].keys:
                        scores[key] = f"model forward failed: {reason}"
                continue
            for key, value in zip((k for u in batch for k in u.keys), rows, strict=True):
                scores[key] = value

    def _release_memory(self) -> None:
        import torch

        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    def _call(self, ids: torch.Tensor, mask: torch.Tensor, pos: torch.Tensor,
              keep: int, *, use_cache: bool, cache: Any = None) -> tuple[Any, torch.Tensor, bool]:
        """Run the model; returns (output, logits or final hidden states, is_hidden)."""
        kwargs: dict[str, Any] = {"attention_mask": mask, "position_ids": pos,
                                  "use_cache": use_cache}
        if cache is not None:
            kwargs[self._cache_kw] = cache
        self.stats.forward_calls += 1
        self.stats.forward_tokens += int(mask[:, -ids.shape[1]:].sum())
        if self._head is not None:
            out = self.model.base_model(input_ids=ids, **kwargs)
            return out, out.last_hidden_state, True
        if self._keep_kw is not None and keep > 0:
            kwargs[self._keep_kw] = keep
        out = self.model(input_ids=ids, **kwargs)
        return out, out.logits, False

    def _probe_head(self) -> Any:
        """The output projection when ``lm_head(base_model(x))`` reproduces the model's logits.

        Then only the hidden states at continuation positions go through the (vocabulary-
        sized) projection.  Models that post-process logits (soft-capping, scaling) fail the
        probe and keep the plain path.
        """
        import torch

        head = self.model.get_output_embeddings()
        base = getattr(self.model, "base_model", None)
        if head is None or base is None or base is self.model:
            return None
        ids = torch.tensor([[self.prefix_token_id, *range(1, 8)]], device=self.device) % self._vocab
        with torch.inference_mode():
            logits = self.model(input_ids=ids).logits.float()
            via_head = head(base(input_ids=ids).last_hidden_state).float()
        tol = 1e-4 if self.loaded.dtype == torch.float32 else 2e-2
        scale = max(1.0, float(logits.abs().max()))
        if via_head.shape != logits.shape or not torch.allclose(via_head, logits, rtol=tol,
                                                                 atol=tol * scale):
            return None
        return head

    def _forward(self, batch: list[_Unit]) -> list[tuple[float, bool]]:
        import torch

        with torch.inference_mode():
            if batch[0].shared:
                return self._forward_shared(batch)
            return self._forward_flat(batch)

    def _tensor(self, rows: Sequence[Sequence[int]], width: int) -> tuple[torch.Tensor, torch.Tensor]:
        import torch

        self.stats.batch_tokens += len(rows) * width
        self.stats.padding_tokens += len(rows) * width - sum(map(len, rows))
        ids = torch.full((len(rows), width), self._pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            ids[i, : len(row)] = torch.tensor(row, dtype=torch.long)
            mask[i, : len(row)] = 1
        return ids.to(self.device), mask.to(self.device)

    def _forward_flat(self, batch: list[_Unit]) -> list[tuple[float, bool]]:
        """One pass over context + continuation[:-1] per row (no shared context)."""
        import torch

        inputs, starts, conts = [], [], []
        for unit in batch:
            for cont in unit.conts:
                inputs.append([*unit.prefix, unit.last, *cont[:-1]])
                starts.append(len(unit.prefix))
                conts.append(cont)
        width = max(map(len, inputs))
        ids, mask = self._tensor(inputs, width)
        pos = torch.arange(width, device=self.device).expand(len(inputs), width)
        keep = width - min(starts) if self._keep_kw is not None else 0
        _, values, hidden = self._call(ids, mask, pos, keep, use_cache=False)
        offset = width - values.shape[1]
        index = [[s - offset + j for j in range(len(c))] for s, c in zip(starts, conts, strict=True)]
        return self._gather(values, hidden, index, conts)

    def _forward_shared(self, batch: list[_Unit]) -> list[tuple[float, bool]]:
        """Context once per unit, its KV cache selected for each continuation row.

        With ``bucket_by_length`` the continuation rows run in chunks of similar length (see
        `length_chunks`), each over its own selection of the prefix cache, so short choices are
        not padded to the longest one of the batch.
        """
        import torch

        prefixes = [u.prefix for u in batch]
        p_width = max(map(len, prefixes))
        p_ids, p_mask = self._tensor(prefixes, p_width)
        p_pos = torch.arange(p_width, device=self.device).expand(len(batch), p_width)
        out, _, _ = self._call(p_ids, p_mask, p_pos, 1, use_cache=True)
        cache = getattr(out, "cache", None)
        if cache is None:
            cache = getattr(out, "past_key_values", None)
        if cache is None:
            raise ValueError("the model returned no KV cache for the shared context")
        owners = [i for i, u in enumerate(batch) for _ in u.conts]
        conts = [c for u in batch for c in u.conts]
        lasts = [u.last for u in batch for _ in u.conts]
        p_len = torch.tensor([len(p) for p in prefixes], device=self.device)
        order = list(range(len(conts)))
        starts = [0]
        if self.bucket_by_length:
            order.sort(key=lambda r: -len(conts[r]))
            # at least 8 rows a chunk: a pass per handful of rows would cost more in calls
            starts = length_chunks([len(conts[r]) for r in order], min_rows=8)
        results: list[tuple[float, bool]] = [(0.0, False)] * len(conts)
        for n, start in enumerate(starts):
            rows = order[start:starts[n + 1] if n + 1 < len(starts) else len(order)]
            owner = torch.tensor([owners[r] for r in rows], dtype=torch.long, device=self.device)
            last_chunk = n + 1 == len(starts)
            chunk_cache = expand_cache(cache, owner) if last_chunk else select_cache(cache, owner)
            inputs = [[lasts[r], *conts[r][:-1]] for r in rows]
            width = max(map(len, inputs))
            c_ids, c_mask = self._tensor(inputs, width)
            first = p_len[owner][:, None]
            pos = first + torch.arange(width, device=self.device)[None, :]
            # padding slots stay at a real position: past the longest row they could run off
            # the model's position table (a long prefix padded to another row's width)
            pos = torch.where(c_mask.bool(), pos, first)
            mask = torch.cat([p_mask[owner], c_mask], dim=1)
            _, values, hidden = self._call(c_ids, mask, pos, 0, use_cache=True, cache=chunk_cache)
            chunk_conts = [conts[r] for r in rows]
            index = [list(range(len(c))) for c in chunk_conts]
            for r, value in zip(rows, self._gather(values, hidden, index, chunk_conts),
                                strict=True):
                results[r] = value
        return results

    def _gather(self, values: torch.Tensor, hidden: bool, index: list[list[int]],
                conts: list[tuple[int, ...]]) -> list[tuple[float, bool]]:
        """Log-softmax only at the continuation positions; sum and greedy check per row.

        ``values`` are logits, or final hidden states when ``hidden`` (projected here, only at
        the positions that predict continuation tokens).
        """
        import torch

        dev = self.device
        row = torch.tensor([i for i, idx in enumerate(index) for _ in idx], device=dev)
        pos = torch.tensor([p for idx in index for p in idx], device=dev)
        tgt = torch.tensor([t for c in conts for t in c], device=dev)
        picked = values[row, pos]  # [continuation tokens, vocab or hidden]
        if hidden:
            picked = self._head(picked)
        picked = picked.float()
        logprob = picked.gather(-1, tgt[:, None]).squeeze(-1) - torch.logsumexp(picked, dim=-1)
        missed = (picked.argmax(dim=-1) != tgt).long()
        totals = torch.zeros(len(conts), dtype=torch.float64, device=dev)
        totals.index_add_(0, row, logprob.double())
        misses = torch.zeros(len(conts), dtype=torch.long, device=dev).index_add_(0, row, missed)
        self.stats.scored_tokens += int(tgt.numel())
        return [(float(t), m == 0) for t, m in zip(totals.tolist(), misses.tolist(), strict=True)]


def expand_cache(cache: Any, index: torch.Tensor) -> Any:
    """Select batch rows of a KV cache by index (repeats allowed), in place where possible."""
    if hasattr(cache, "reorder_cache"):
        cache.reorder_cache(index)
        return cache
    if isinstance(cache, tuple):  # legacy tuple-of-tuples cache
        return tuple(tuple(t.index_select(0, index) for t in layer) for layer in cache)
    raise ValueError(f"cannot expand a KV cache of type {type(cache).__name__}")


def select_cache(cache: Any, index: torch.Tensor) -> Any:
    """Rows of a KV cache by index (repeats allowed) as a new cache; ``cache`` is unchanged."""
    if isinstance(cache, tuple):
        return expand_cache(cache, index)
    if not hasattr(cache, "reorder_cache"):
        raise ValueError(f"cannot select rows of a KV cache of type {type(cache).__name__}")
    fresh = copy.copy(cache)
    if isinstance(getattr(cache, "layers", None), list):  # transformers >= 4.56
        fresh.layers = [copy.copy(layer) for layer in cache.layers]
    for name in ("key_cache", "value_cache"):  # older DynamicCache: lists of tensors
        if isinstance(getattr(cache, name, None), list):
            setattr(fresh, name, list(getattr(cache, name)))
    fresh.reorder_cache(index)
    return fresh


def token_budget_from_memory(free_bytes: int, vocab: int, hidden: int) -> int:
    """Padded token slots per forward pass that fit 30% of free accelerator memory.

    A slot is costed at ``10 × vocab + 64 × hidden`` bytes (logits in two precisions plus
    activations and KV cache), floored at 256 and capped at 2**17.

    >>> token_budget_from_memory(80 << 30, 128256, 4096)
    16682
    """
    per_token = vocab * 10 + 64 * hidden
    return max(256, min(1 << 17, int(free_bytes * 0.3) // per_token))


def failed(results: Sequence[LoglikResult]) -> list[int]:
    """Indices of results that carry an error.

    >>> failed([LoglikResult(-1.0, 1, True, "joint"), LoglikResult(0.0, 0, False, "", "x")])
    [1]
    """
    return [i for i, r in enumerate(results) if r.error is not None]

