"""The per-row time budget: a backstop, in CPU seconds, checked between rules and inside long loops.

Built-in rules and parsers are linear in their input by construction (each states its bound,
``normalize check`` proves it by the growth of work between input sizes *n* and *2n*), so a row
normally finishes in a small fraction of its budget.  The budget exists for what is not built in
(user-supplied patterns, rules registered by a user) and for bugs: a row that runs past it gets
status ``error`` naming the rule, and the batch goes on.

The budget counts the CPU time of the thread that runs the row, not wall-clock time, so a row on a
loaded machine is not cut short because other processes took its core.  Checking it is cheap: the
monotonic clock (a few tens of nanoseconds) is read first, and the thread's CPU clock only once
the wall-clock time alone has run past the budget (CPU time never exceeds wall time).

The active deadline lives in a :class:`contextvars.ContextVar`, so nested code can check it
without a parameter threaded through every helper, and threads never see each other's deadline.
"""

from __future__ import annotations

import time
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Final

#: Rounds of a fixed-point loop (a rule re-applied until its output settles) before the text
#: counts as adversarial.  Real outputs settle in one round plus the one that confirms it (two or
#: three with nested emphasis, nested ``\\text{}`` or a fence that an edit creates); each round is
#: linear, so a rule built on such a loop is linear with this constant factor.
MAX_ROUNDS: Final = 16

#: Generous: the slowest shipped chain takes well under a second on 1 MiB (bench/RESULTS.md).
DEFAULT_ROW_BUDGET: Final = 10.0


class BudgetExceeded(TimeoutError):
    """The row ran past its CPU-time budget."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"row budget of {seconds:g}s CPU time exceeded")


@dataclass(frozen=True)
class _Deadline:
    seconds: float
    wall_deadline: float  # monotonic time after which the CPU clock is consulted
    cpu_start: float


_DEADLINE: ContextVar[_Deadline | None] = ContextVar("normalize_row_deadline", default=None)


class row_budget:
    """Run the body under a budget of ``seconds`` of CPU time (``None``: no budget).

    A plain class, not ``contextlib.contextmanager``: it is entered twice per row, and a
    generator-based manager costs several times as much.

    >>> with row_budget(5.0):
    ...     check_budget()  # well within it: nothing happens
    """

    __slots__ = ("_seconds", "_token")

    def __init__(self, seconds: float | None) -> None:
        if seconds is not None and seconds <= 0:
            raise ValueError(f"row budget must be positive, got {seconds!r}")
        self._seconds = seconds
        self._token: Token[_Deadline | None] | None = None

    def __enter__(self) -> None:
        seconds = self._seconds
        deadline = None if seconds is None else _Deadline(seconds, time.monotonic() + seconds, time.thread_time())
        self._token = _DEADLINE.set(deadline)

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _DEADLINE.reset(self._token)
            self._token = None


def check_budget() -> None:
    """Raise :class:`BudgetExceeded` when the active row budget is spent; no budget: no-op."""
    deadline = _DEADLINE.get()
    if deadline is None or time.monotonic() < deadline.wall_deadline:
        return
    if time.thread_time() - deadline.cpu_start > deadline.seconds:
        raise BudgetExceeded(deadline.seconds)
