"""An embedded SQLite cache of raw generations, normalized results and log-likelihoods.

Standard library only (``sqlite3``), so harnesses can import it without torch.  The file is
opened in WAL mode with a busy timeout, one connection per thread and per process (a forked
child opens its own), and carries a schema version in ``PRAGMA user_version``; a file written
by another schema version is refused rather than misread.

Every key is the SHA-256 of a canonical JSON of its parameters (sorted keys, compact,
``ensure_ascii=False``); the parameter JSON is stored beside each row for inspection.

* ``generations``: raw model output, keyed by model id, revision, the prompt's SHA-256 and
  every sampling parameter (temperature, top_p, top_k, max_new_tokens, seed, stop sequences,
  sample index, do_sample, dtype) and the backend (empty for the local Hugging Face model, so
  older keys stay valid; e.g. ``openai-completions`` for a server).  Changing any of them is a
  different key.
* ``normalized``: a normalized result (its JSON) keyed by the generation key *and* the pack
  hash, so a changed pack never serves an old result.
* ``loglik``: a log-likelihood of a continuation given a context, keyed by model id, revision,
  dtype, the context length it was truncated to, the request mode and the SHA-256 of
  (context, continuation).

The model revision (:func:`model_revision`) is the snapshot commit for a Hugging Face cache
directory (``.../models--org--name/snapshots/<40-hex commit>``) and otherwise ``stat:`` plus a
hash of every file's relative path, size and modification time under the directory (hidden
entries skipped): editing, replacing or re-copying any weight, config or tokenizer file gives a
new revision and so never serves stale entries.  Contents are not read, which keeps it fast
for multi-gigabyte weights.

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as tmp, Cache(pathlib.Path(tmp) / "c.sqlite") as cache:
...     key = GenerationKey("gpt2", "stat:abc", "2+2=", temperature=0.0, max_new_tokens=4)
...     cache.get_generation(key) is None
...     cache.put_generation(key, " 4")
...     cache.get_generation(key), cache.stats().hits, cache.stats().misses
True
(' 4', 1, 1)
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from normalize.errors import UsageError

#: Bumped whenever a table changes; a file with another version is refused.
SCHEMA_VERSION = 1

#: Seconds a writer waits for another connection's lock before failing.
BUSY_TIMEOUT_S = 60.0

_TABLES = ("generations", "normalized", "loglik")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS generations (
    key TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    revision TEXT NOT NULL,
    prompt_sha256 TEXT NOT NULL,
    params_json TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS generations_model ON generations (model_id, revision);
CREATE TABLE IF NOT EXISTS normalized (
    gen_key TEXT NOT NULL,
    pack_hash TEXT NOT NULL,
    result_json TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (gen_key, pack_hash)
);
CREATE TABLE IF NOT EXISTS loglik (
    key TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    revision TEXT NOT NULL,
    params_json TEXT NOT NULL,
    logprob REAL NOT NULL,
    is_greedy INTEGER NOT NULL,
    n_tokens INTEGER NOT NULL,
    boundary TEXT NOT NULL,
    truncated INTEGER NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS loglik_model ON loglik (model_id, revision);
"""


def canonical_json(value: Any) -> str:
    """Sorted keys, compact separators, UTF-8 kept: the text every cache key hashes.

    >>> canonical_json({"b": [1, 2], "a": "é"})
    '{"a":"é","b":[1,2]}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_text(text: str) -> str:
    """The hex SHA-256 of ``text`` encoded as UTF-8 (lone surrogates kept, not lost).

    >>> sha256_text("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class CacheError(UsageError):
    """The cache file cannot be used: corrupt, read-only, locked past the timeout, or foreign.

    A :class:`~normalize.errors.UsageError` (a ``ValueError``), so the command line reports it in one line with exit 2.
    """


def _explain(path: Path, exc: sqlite3.Error) -> CacheError:
    text = str(exc)
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return CacheError(f"cache {path} is not writable ({text}): SQLite must write the file and, beside it, "
                          "its -wal and -shm files; use a writable location")
    if "locked" in text or "busy" in text:
        return CacheError(f"cache {path} stayed locked by another process past the busy timeout ({text})")
    return CacheError(f"cache {path} is not a usable SQLite file ({text}): it may be corrupt; "
                      "move it away and start a new cache")


@contextmanager
def _sqlite_errors(path: Path) -> Iterator[None]:
    """Turn an ``sqlite3.Error`` raised inside into a one-line :class:`CacheError`."""
    try:
        yield
    except sqlite3.Error as exc:
        raise _explain(path, exc) from None


# --------------------------------------------------------------------------- keys


def _check_number(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{name} must be a number, got {value!r}")
    if value != value or value in (float("inf"), float("-inf")):
        raise UsageError(f"{name} must be finite, got {value!r}")


def _check_int(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise UsageError(f"{name} must be an integer >= {minimum}, got {value!r}")


@dataclass(frozen=True)
class GenerationKey:
    """Everything that decides one sampled output: model, revision, prompt and sampling params.

    ``top_k=0`` and ``top_p=1.0`` mean no filtering; ``temperature=0`` is greedy decoding
    (``do_sample`` false).  ``seed=None`` is only meaningful for greedy decoding.

    >>> a = GenerationKey("m", "r", "hi", temperature=0.7, seed=1)
    >>> a.digest == GenerationKey("m", "r", "hi", temperature=0.7, seed=1).digest
    True
    >>> a.digest == GenerationKey("m", "r", "hi", temperature=0.8, seed=1).digest
    False
    >>> a.do_sample, GenerationKey("m", "r", "hi").do_sample
    (True, False)
    """

    model_id: str
    revision: str
    prompt: str
    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = 0
    max_new_tokens: int = 128
    seed: int | None = 0
    stop: tuple[str, ...] = ()
    sample_index: int = 0
    dtype: str = ""
    backend: str = ""

    def __post_init__(self) -> None:
        for name in ("model_id", "revision", "prompt", "dtype", "backend"):
            if not isinstance(getattr(self, name), str):
                raise UsageError(f"{name} must be a string, got {getattr(self, name)!r}")
        _check_number("temperature", self.temperature)
        _check_number("top_p", self.top_p)
        if self.temperature < 0:
            raise UsageError(f"temperature must be >= 0, got {self.temperature!r}")
        if not 0 < self.top_p <= 1:
            raise UsageError(f"top_p must be in (0, 1], got {self.top_p!r}")
        _check_int("top_k", self.top_k, 0)
        _check_int("max_new_tokens", self.max_new_tokens, 0)
        _check_int("sample_index", self.sample_index, 0)
        if self.seed is not None:
            _check_int("seed", self.seed, 0)
        if isinstance(self.stop, str) or not all(isinstance(s, str) and s for s in self.stop):
            raise UsageError(f"stop must be a tuple of non-empty strings, got {self.stop!r}")
        object.__setattr__(self, "stop", tuple(self.stop))

    @property
    def do_sample(self) -> bool:
        """Sampling (true) or greedy decoding (false): decided by the temperature."""
        return self.temperature > 0

    @property
    def prompt_sha256(self) -> str:
        return sha256_text(self.prompt)

    def params(self) -> dict[str, Any]:
        """The parameters hashed into the key (the prompt as its SHA-256), as stored."""
        return {
            "kind": "generation",
            "model_id": self.model_id,
            "revision": self.revision,
            "dtype": self.dtype,
            "prompt_sha256": self.prompt_sha256,
            "temperature": float(self.temperature),
            "top_p": float(self.top_p),
            "top_k": self.top_k,
            "max_new_tokens": self.max_new_tokens,
            "seed": self.seed,
            "stop": list(self.stop),
            "sample_index": self.sample_index,
            "do_sample": self.do_sample,
            **({"backend": self.backend} if self.backend else {}),
        }

    @property
    def digest(self) -> str:
        """The hex SHA-256 of :meth:`params` in canonical JSON: the row's primary key."""
        return sha256_text(canonical_json(self.params()))


@dataclass(frozen=True)
class LoglikKey:
    """One log-likelihood request: log P(continuation | context) under a model revision.

    ``max_length`` is the context length inputs were cut to (0: the model's own) and ``mode``
    names the kind of request (``"pair"``; ``"rolling"`` for a whole text scored in windows).

    >>> k = LoglikKey("m", "r", "The sky is", " blue")
    >>> k.digest == LoglikKey("m", "r", "The sky is", " blue").digest
    True
    >>> k.digest == LoglikKey("m", "r", "The sky is ", "blue").digest
    False
    """

    model_id: str
    revision: str
    context: str
    continuation: str
    dtype: str = ""
    max_length: int = 0
    mode: str = "pair"
    backend: str = ""

    def __post_init__(self) -> None:
        for name in ("model_id", "revision", "context", "continuation", "dtype", "mode", "backend"):
            if not isinstance(getattr(self, name), str):
                raise UsageError(f"{name} must be a string, got {getattr(self, name)!r}")
        _check_int("max_length", self.max_length, 0)

    def params(self) -> dict[str, Any]:
        """The parameters hashed into the key; the texts hashed as a JSON pair."""
        pair = sha256_text(canonical_json([self.context, self.continuation]))
        return {
            "kind": "loglik",
            "model_id": self.model_id,
            "revision": self.revision,
            "dtype": self.dtype,
            "max_length": self.max_length,
            "mode": self.mode,
            "context_continuation_sha256": pair,
            **({"backend": self.backend} if self.backend else {}),
        }

    @property
    def digest(self) -> str:
        return sha256_text(canonical_json(self.params()))


@dataclass(frozen=True)
class Loglik:
    """A cached log-likelihood: the summed log-probability, whether every continuation token
    was the greedy choice, how many continuation tokens there were, how the token boundary
    was found and how many context tokens were cut to fit the model."""

    logprob: float
    is_greedy: bool
    n_tokens: int
    boundary: str = ""
    truncated: int = 0


@dataclass(frozen=True)
class CacheStats:
    """Hits, misses and writes of one :class:`Cache` object since it was opened."""

    hits: int
    misses: int
    writes: int
    by_table: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"hits": self.hits, "misses": self.misses, "writes": self.writes,
                "by_table": {k: dict(v) for k, v in self.by_table.items()}}


# --------------------------------------------------------------------------- revisions


def model_revision(model_dir: str | Path) -> str:
    """A revision string for a local model directory (see the module docstring).

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     snap = pathlib.Path(tmp, "models--org--tiny", "snapshots", "a" * 40)
    ...     snap.mkdir(parents=True)
    ...     model_revision(snap)
    'git:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
    """
    root = Path(model_dir)
    if not root.is_dir():
        raise UsageError(f"model directory not found: {model_dir}")
    resolved = root.resolve()
    name = resolved.name
    if resolved.parent.name == "snapshots" and len(name) == 40 and all(c in "0123456789abcdef" for c in name):
        return f"git:{name}"
    entries = []
    for path in sorted(_visible_files(resolved)):
        info = path.stat()
        entries.append([path.relative_to(resolved).as_posix(), info.st_size, info.st_mtime_ns])
    return "stat:" + sha256_text(canonical_json(entries))[:32]


def _visible_files(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            if not name.startswith("."):
                yield Path(dirpath) / name


def model_id_of(model_dir: str | Path) -> str:
    """A readable model id: ``org/name`` for a Hugging Face cache snapshot, else the dir name.

    >>> model_id_of("/hub/models--openai-community--gpt2/snapshots/" + "0" * 40)
    'openai-community/gpt2'
    >>> model_id_of("/models/tiny-gpt2/")
    'tiny-gpt2'
    """
    path = Path(model_dir)
    if path.parent.name == "snapshots" and path.parent.parent.name.startswith("models--"):
        return path.parent.parent.name[len("models--"):].replace("--", "/")
    return path.name or str(path)


# --------------------------------------------------------------------------- the cache


class _Local(threading.local):
    conn: sqlite3.Connection | None = None
    pid: int = -1


class Cache:
    """The SQLite cache file at ``path`` (created with its parent directories if missing).

    Safe to share between threads (each gets its own connection) and between processes
    (SQLite's file locks; WAL lets readers run beside a writer).  Use as a context manager
    or call :meth:`close`.
    """

    def __init__(self, path: str | Path, *, timeout: float = BUSY_TIMEOUT_S) -> None:
        if str(path) in ("", ":memory:"):
            raise UsageError(f"the cache needs a file path, got {str(path)!r}")
        self.path = Path(path)
        if self.path.is_dir():
            raise CacheError(f"cache path is a directory: {path}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CacheError(f"cache {path}: cannot create its directory: {exc.strerror or exc}") from None
        self._timeout = timeout
        self._local = _Local()
        self._lock = threading.Lock()
        self._connections: list[tuple[int, sqlite3.Connection]] = []
        self._counts: dict[str, dict[str, int]] = {t: {"hits": 0, "misses": 0, "writes": 0} for t in _TABLES}
        self._closed = False
        self._conn()  # create or check the schema now, so a bad file fails early

    # -- connections

    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise ValueError(f"the cache {self.path} is closed")
        local = self._local
        if local.conn is not None and local.pid == os.getpid():
            return local.conn
        try:
            conn = sqlite3.connect(self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise CacheError(f"cache {self.path}: could not switch to WAL mode (got {mode})")
            conn.execute("PRAGMA synchronous = NORMAL")
            self._ensure_schema(conn)
        except sqlite3.Error as exc:
            conn.close()
            raise _explain(self.path, exc) from None
        except ValueError:
            conn.close()
            raise
        local.conn, local.pid = conn, os.getpid()
        with self._lock:
            self._connections.append((os.getpid(), conn))
        return conn

    def _ensure_schema(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                known = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                if known:
                    raise CacheError(f"cache {self.path} holds tables {sorted(known)} but no schema version; "
                                     "it is not a harness-normalize cache")
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif version != SCHEMA_VERSION:
                raise CacheError(f"cache {self.path} has schema version {version}, this version reads "
                                 f"{SCHEMA_VERSION}; use another cache file")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        with _sqlite_errors(self.path):
            conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except sqlite3.Error as exc:
            self._rollback(conn)
            raise _explain(self.path, exc) from None
        except BaseException:
            self._rollback(conn)
            raise
        with _sqlite_errors(self.path):
            conn.execute("COMMIT")

    def _rollback(self, conn: sqlite3.Connection) -> None:
        with _sqlite_errors(self.path):
            if conn.in_transaction:
                conn.execute("ROLLBACK")

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """Rows of one query; an SQLite failure (corrupt page, lock) is a :class:`CacheError`."""
        conn = self._conn()
        with _sqlite_errors(self.path):
            return conn.execute(sql, params).fetchall()

    def _count(self, table: str, what: str, n: int = 1) -> None:
        with self._lock:
            self._counts[table][what] += n

    # -- generations

    def get_generation(self, key: GenerationKey) -> str | None:
        """The cached raw output for ``key``, or None (counted as a hit or a miss)."""
        row = next(iter(self._read("SELECT text FROM generations WHERE key = ?", (key.digest,))), None)
        self._count("generations", "misses" if row is None else "hits")
        return None if row is None else str(row[0])

    def put_generation(self, key: GenerationKey, text: str) -> None:
        """Store (or replace) the raw output for ``key``."""
        self.put_generations([(key, text)])

    def put_generations(self, items: Iterable[tuple[GenerationKey, str]]) -> int:
        """Store many outputs in one transaction; returns how many were written."""
        now = time.time()
        rows = []
        for key, text in items:
            if not isinstance(text, str):
                raise ValueError(f"a generation must be a string, got {type(text).__name__}")
            rows.append((key.digest, key.model_id, key.revision, key.prompt_sha256,
                         canonical_json(key.params()), text, now))
        with self._write() as conn:
            conn.executemany("INSERT OR REPLACE INTO generations VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        self._count("generations", "writes", len(rows))
        return len(rows)

    # -- normalized results

    def get_normalized(self, gen_key: GenerationKey | str, pack_hash: str) -> dict[str, Any] | None:
        """The cached result JSON for a generation under exactly this pack hash, or None."""
        row = next(iter(self._read(
            "SELECT result_json FROM normalized WHERE gen_key = ? AND pack_hash = ?",
            (_digest_of(gen_key), _check_pack_hash(pack_hash)),
        )), None)
        self._count("normalized", "misses" if row is None else "hits")
        if row is None:
            return None
        try:
            value = json.loads(row[0])
        except (ValueError, RecursionError) as exc:
            raise CacheError(f"cache {self.path}: a stored normalized result is not JSON ({exc}); "
                             "the file is corrupt: move it away and start a new cache") from None
        if not isinstance(value, dict):
            raise CacheError(f"cache {self.path}: a normalized result is not a JSON object")
        return value

    def put_normalized(self, gen_key: GenerationKey | str, pack_hash: str, result: Mapping[str, Any]) -> None:
        """Store the result JSON (e.g. ``Result.to_json()``) of a generation under a pack hash."""
        if not isinstance(result, Mapping):
            raise ValueError(f"a normalized result must be a JSON object, got {type(result).__name__}")
        payload = canonical_json(dict(result))
        with self._write() as conn:
            conn.execute("INSERT OR REPLACE INTO normalized VALUES (?, ?, ?, ?)",
                         (_digest_of(gen_key), _check_pack_hash(pack_hash), payload, time.time()))
        self._count("normalized", "writes")

    # -- log-likelihoods

    def get_loglik(self, key: LoglikKey) -> Loglik | None:
        """The cached log-likelihood for ``key``, or None."""
        row = next(iter(self._read(
            "SELECT logprob, is_greedy, n_tokens, boundary, truncated FROM loglik WHERE key = ?", (key.digest,)
        )), None)
        self._count("loglik", "misses" if row is None else "hits")
        if row is None:
            return None
        return Loglik(float(row[0]), bool(row[1]), int(row[2]), str(row[3]), int(row[4]))

    def put_loglik(self, key: LoglikKey, value: Loglik) -> None:
        """Store one log-likelihood."""
        self.put_logliks([(key, value)])

    def put_logliks(self, items: Iterable[tuple[LoglikKey, Loglik]]) -> int:
        """Store many log-likelihoods in one transaction; returns how many were written."""
        now = time.time()
        rows = []
        for key, value in items:
            _check_number("logprob", value.logprob)
            _check_int("n_tokens", value.n_tokens, 0)
            _check_int("truncated", value.truncated, 0)
            rows.append((key.digest, key.model_id, key.revision, canonical_json(key.params()),
                         float(value.logprob), int(bool(value.is_greedy)), value.n_tokens,
                         str(value.boundary), value.truncated, now))
        with self._write() as conn:
            conn.executemany("INSERT OR REPLACE INTO loglik VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        self._count("loglik", "writes", len(rows))
        return len(rows)

    # -- inspection

    def stats(self) -> CacheStats:
        """Hits, misses and writes of this object, in total and per table."""
        with self._lock:
            by_table = {t: dict(c) for t, c in self._counts.items()}
        return CacheStats(
            hits=sum(c["hits"] for c in by_table.values()),
            misses=sum(c["misses"] for c in by_table.values()),
            writes=sum(c["writes"] for c in by_table.values()),
            by_table=by_table,
        )

    def row_counts(self) -> dict[str, int]:
        """How many rows each table holds (across every writer of the file)."""
        return {t: int(self._read(f"SELECT COUNT(*) FROM {t}")[0][0]) for t in _TABLES}

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``'ok'`` for a sound file."""
        rows = self._read("PRAGMA integrity_check")
        return "\n".join(str(r[0]) for r in rows)

    # -- lifetime

    def close(self) -> None:
        """Close every connection this object opened in this process; later use raises.

        Connections inherited through ``fork`` belong to the parent and are left alone.
        """
        with self._lock:
            conns, self._connections = self._connections, []
            self._closed = True
        pid = os.getpid()
        for owner, conn in conns:
            if owner == pid:
                conn.close()
        self._local.conn = None

    def __enter__(self) -> Cache:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Cache({str(self.path)!r})"


def _digest_of(gen_key: GenerationKey | str) -> str:
    if isinstance(gen_key, GenerationKey):
        return gen_key.digest
    if isinstance(gen_key, str) and len(gen_key) == 64 and all(c in "0123456789abcdef" for c in gen_key):
        return gen_key
    raise ValueError(f"a generation key must be a GenerationKey or its 64-hex digest, got {gen_key!r}")


def _check_pack_hash(pack_hash: str) -> str:
    if not isinstance(pack_hash, str) or not pack_hash:
        raise ValueError(f"pack_hash must be a non-empty string, got {pack_hash!r}")
    return pack_hash
