"""Math-Verify in a worker process, bounded by a wall-clock timeout of our own.

Math-Verify's own timeouts use ``signal.alarm``: they work only in the main thread and can
interfere with the host's signal handlers.  Here they are switched off (``parsing_timeout=None``
in ``parse`` and ``timeout_seconds=None`` in ``verify``, the names in math-verify 0.9) and each
comparison runs in a separate *process* that the caller waits on with ``Connection.poll(timeout)``.
That works from any thread, and a comparison that hangs inside SymPy is ended by killing the
worker (a thread could not be stopped); the next comparison starts a fresh worker.
"""

from __future__ import annotations

import importlib.util
import math
import multiprocessing
import threading
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from types import TracebackType
from typing import Any

#: Seconds allowed for a worker to start and import Math-Verify (SymPy is slow to import).
START_TIMEOUT = 120.0


def math_verify_available() -> bool:
    """Whether the optional ``math-verify`` package (extra ``math``) is installed."""
    return importlib.util.find_spec("math_verify") is not None


def _check_timeout(timeout: float) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout <= 0:
        raise ValueError(f"the Math-Verify timeout must be a positive number of seconds, got {timeout!r}")
    return float(timeout)


def _parse(mv: Any, text: str) -> list[Any]:
    """Parse as LaTeX math (wrapped in ``$…$`` unless it already has delimiters), else as given."""
    if "$" not in text and "\\boxed" not in text:
        parsed: list[Any] = mv.parse(f"${text}$", parsing_timeout=None)
        if parsed:
            return parsed
    result: list[Any] = mv.parse(text, parsing_timeout=None)
    return result


def _serve(conn: Connection) -> None:
    """Worker loop: receive ``(gold, prediction)`` pairs, answer ``("ok", bool)`` or ``("error", msg)``."""
    import logging

    import math_verify as mv

    logging.getLogger("math_verify").setLevel(logging.ERROR)
    conn.send(("ready", None))
    while True:
        try:
            item = conn.recv()
        except EOFError:
            return
        if item is None:
            return
        gold, prediction = item
        try:
            verdict = bool(mv.verify(_parse(mv, gold), _parse(mv, prediction), timeout_seconds=None))
        except Exception as exc:  # reported to the caller, who raises it
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
            continue
        conn.send(("ok", verdict))


class MathVerifier:
    """Symbolic equivalence with Math-Verify, one comparison at a time, each within ``timeout`` s.

    Use it as a context manager so the worker process is closed; the worker starts on first use.
    A comparison that runs past ``timeout`` raises ``TimeoutError`` and the worker is killed.
    Safe to share between threads (calls are serialized by a lock owned by the instance).
    """

    def __init__(self, timeout: float = 5.0) -> None:
        self.timeout = _check_timeout(timeout)
        self._lock = threading.Lock()
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None

    def __enter__(self) -> MathVerifier:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def equivalent(self, answer: str, target: str, *, timeout: float | None = None) -> bool:
        """Whether ``answer`` is mathematically equivalent to ``target`` (the gold answer).

        ``timeout`` overrides the instance's limit for this comparison.
        """
        limit = self.timeout if timeout is None else _check_timeout(timeout)
        with self._lock:
            conn = self._connection()
            conn.send((target, answer))
            if not conn.poll(limit):
                self._kill()
                raise TimeoutError(f"Math-Verify took longer than {limit:g} s comparing {answer!r} with {target!r}")
            try:
                kind, payload = conn.recv()
            except EOFError:
                self._kill()
                raise RuntimeError("the Math-Verify worker process exited unexpectedly") from None
            if kind != "ok":
                raise RuntimeError(f"Math-Verify failed on {answer!r} vs {target!r}: {payload}")
            return bool(payload)

    def close(self) -> None:
        """Stop the worker process, if one is running."""
        with self._lock:
            if self._conn is not None and self._proc is not None and self._proc.is_alive():
                try:
                    self._conn.send(None)
                except (BrokenPipeError, OSError):
                    pass
                self._proc.join(2.0)
            self._kill()

    def _connection(self) -> Connection:
        if self._conn is not None and self._proc is not None and self._proc.is_alive():
            return self._conn
        self._kill()
        if not math_verify_available():
            raise ValueError("the math_verify metric needs the optional package: pip install 'harness-normalize[math]'")
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_serve, args=(child,), daemon=True, name="math-verify")
        proc.start()
        child.close()
        self._proc, self._conn = proc, parent
        if not parent.poll(START_TIMEOUT):
            self._kill()
            raise TimeoutError(f"the Math-Verify worker did not start within {START_TIMEOUT:g} s")
        try:
            parent.recv()
        except EOFError:
            self._kill()
            raise RuntimeError("the Math-Verify worker process exited while starting") from None
        return parent

    def _kill(self) -> None:
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join()
        if self._conn is not None:
            self._conn.close()
        self._proc = None
        self._conn = None
