"""A thread-safe wall-clock bound for pure-Python work (SymPy, latex2sympy): no signals, no overhead.

``signal.alarm`` works only in the main thread and fights the host's own handlers; a worker
thread cannot be killed; a trace hook (``sys.settrace``) works but slows the ANTLR parser under
latex2sympy about fourfold.  Here one daemon *watchdog* thread keeps the deadlines of all
bounded calls; when one passes it raises :class:`TimeUp` asynchronously in the thread that made
the call (CPython's ``PyThreadState_SetAsyncExc``: delivered at the next bytecode boundary of
that thread only).  A call that finishes first withdraws its deadline under the watchdog's
lock; if the watchdog had already scheduled the exception, the call absorbs it on its way out
(a short loop whose backward jump delivers it), so ``TimeUp`` never escapes into unrelated code.

Never revoke with ``PyThreadState_SetAsyncExc(thread, NULL)``: CPython 3.11 then leaves the
interpreter's "async exception pending" flag set with no exception to deliver, so every later
eval-breaker check in every thread does the pending-work dance for nothing, and under a trace
function (``sys.settrace``: debuggers, coverage) a function's first instruction re-runs forever.
Work inside one C call (a huge integer power) is interrupted only when that call returns:
callers reject such input first.
"""

from __future__ import annotations

import ctypes
import heapq
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


class TimeUp(BaseException):
    """Raised in the bounded work past its deadline.

    A ``BaseException`` so that no ``except Exception`` inside a library swallows it.
    """


@dataclass(order=True)
class _Watch:
    deadline: float
    serial: int
    thread: int = field(compare=False)
    done: bool = field(default=False, compare=False)
    fired: bool = field(default=False, compare=False)


def _set_async(thread: int, exc: type[BaseException]) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), ctypes.py_object(exc))


def _absorb_scheduled() -> None:
    """Take delivery, here, of a :class:`TimeUp` the watchdog scheduled for this thread.

    ``SetAsyncExc`` stores the exception on the thread state at once; the next eval-breaker
    check (a backward jump of this loop, or this function's own start) raises it.  When it was
    already delivered inside the bounded call, nothing is pending and the loop just ends.
    """
    try:
        for _ in range(2):
            pass
    except TimeUp:
        pass


class _Watchdog:
    def __init__(self) -> None:
        # A bounded thread takes the lock only in a ``with`` on the C-level lock itself: no
        # Python frame runs between acquiring it and entering the block, or between leaving the
        # block and releasing it, so a ``TimeUp`` that lands there cannot leave it held.  (Through
        # ``threading.Condition``'s own ``__enter__``/``__exit__``, Python functions, it could:
        # one delivered right after the acquire, or before the release, deadlocked every later
        # bounded call; tests/test_deadline.py hammers that.)  The condition is for the
        # watchdog's own waits and wake-ups: its thread never gets ``TimeUp``.
        self._mutex = threading.Lock()
        self._wake = threading.Condition(self._mutex)
        self._heap: list[_Watch] = []
        self._serial = itertools.count()
        self._thread: threading.Thread | None = None

    def start(self, seconds: float) -> _Watch:
        watch = _Watch(time.monotonic() + seconds, next(self._serial), threading.get_ident())
        with self._mutex:
            heapq.heappush(self._heap, watch)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="normalize-deadline", daemon=True)
                self._thread.start()
            elif self._heap[0] is watch:
                self._wake.notify()  # only an earlier deadline changes what the watchdog waits for
        return watch

    def stop(self, watch: _Watch) -> None:
        """Withdraw ``watch``: once this returns, the watchdog schedules nothing more for it."""
        with self._mutex:
            watch.done = True

    def _run(self) -> None:
        with self._wake:
            while True:
                while self._heap and self._heap[0].done:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._wake.wait(60.0)
                    if not self._heap:
                        self._thread = None
                        return
                    continue
                first = self._heap[0]
                delay = first.deadline - time.monotonic()
                if delay > 0:
                    self._wake.wait(delay)
                    continue
                heapq.heappop(self._heap)
                first.fired = True
                _set_async(first.thread, TimeUp)


_WATCHDOG = _Watchdog()


def call_within(fn: Callable[[], T], seconds: float) -> T:
    """Run ``fn()`` in this thread; raise :class:`TimeUp` once ``seconds`` have passed.

    >>> call_within(lambda: sum(range(10)), 1.0)
    45
    """
    watch = _WATCHDOG.start(seconds)
    try:
        return fn()
    finally:
        try:
            _WATCHDOG.stop(watch)
            if watch.fired:
                _absorb_scheduled()
        except TimeUp:
            pass  # scheduled as ``fn`` returned, delivered just now: the call had finished


__all__ = ["TimeUp", "call_within"]
