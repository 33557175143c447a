"""A thread-safe wall-clock bound for pure-Python work (SymPy, latex2sympy): no signals, no threads.

``signal.alarm`` works only in the main thread and fights the host's own handlers; a worker
thread cannot be stopped.  A trace hook can: :func:`sys.settrace` acts on the calling thread
only, and the hook raises :class:`TimeUp` at the first Python function call past the deadline.
Only ``call`` events are traced (the hook returns ``None``, so no per-line tracing), and the
clock is read once every :data:`_EVERY` calls, which keeps the overhead small.  Work done
inside one C call (a huge integer power) is not interrupted: callers reject such input first.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

_EVERY = 64


class TimeUp(BaseException):
    """Raised inside the bounded work past its deadline.

    A ``BaseException`` so that no ``except Exception`` inside a library swallows it.
    """


def call_within(fn: Callable[[], T], seconds: float) -> T:
    """Run ``fn()`` in this thread; raise :class:`TimeUp` once ``seconds`` have passed.

    Nested calls keep the earliest deadline.  A trace function already set (a debugger,
    coverage) is put back afterwards.

    >>> call_within(lambda: sum(range(10)), 1.0)
    45
    """
    deadline = time.perf_counter() + seconds
    previous = sys.gettrace()
    outer = getattr(previous, "_deadline", None)
    if outer is not None and outer < deadline:
        return fn()  # an enclosing bound is stricter: it keeps watching
    count = 0

    def check_clock(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        count += 1
        if count % _EVERY == 0 and time.perf_counter() > deadline:
            raise TimeUp
        return None

    check_clock._deadline = deadline  # type: ignore[attr-defined]
    sys.settrace(check_clock)
    try:
        return fn()
    finally:
        sys.settrace(previous)


__all__ = ["TimeUp", "call_within"]
