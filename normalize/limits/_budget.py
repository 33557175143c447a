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


#: The active deadline: [budget seconds, monotonic time after which the CPU clock is consulted,
#: the thread's CPU time at the start].  A plain list, read after every rule; one per row, which
#: :func:`restart_budget` starts over in place for the row's next phase (the parser).
_Deadline = list[float]

_DEADLINE: ContextVar[_Deadline | None] = ContextVar("normalize_row_deadline", default=None)
_NO_DEADLINE: Final = float("inf")


def start_budget(seconds: float | None) -> Token[_Deadline | None]:
    """Make a budget of ``seconds`` of CPU time (``None``: none) the active one, from now on;
    give the token to :func:`end_budget` when the body is done (what :class:`row_budget` does,
    without the object; ``Pack.run`` starts one a row, and :func:`restart_budget` gives the
    parser its own)."""
    return start_budget_wall(seconds)[0]


def start_budget_wall(seconds: float | None) -> tuple[Token[_Deadline | None], float]:
    """:func:`start_budget`, and the :func:`wall_deadline` it sets (read without a second lookup)."""
    if seconds is None:
        return _DEADLINE.set(None), _NO_DEADLINE
    if seconds <= 0:
        raise ValueError(f"row budget must be positive, got {seconds!r}")
    wall = time.monotonic() + seconds
    return _DEADLINE.set([seconds, wall, time.thread_time()]), wall


def restart_budget() -> float:
    """Start the active budget over from now, in place: the next phase of a row (the parser,
    after the chain) gets the whole budget of its own, without a second :func:`start_budget`
    and :func:`end_budget`.  Returns the new :func:`wall_deadline` (no budget: infinity).

    >>> with row_budget(5.0):
    ...     restart_budget() > time.monotonic()
    True
    """
    deadline = _DEADLINE.get()
    if deadline is None:
        return _NO_DEADLINE
    wall = time.monotonic() + deadline[0]
    deadline[1] = wall
    deadline[2] = time.thread_time()
    return wall


def end_budget(token: Token[_Deadline | None]) -> None:
    """Restore the budget that was active before :func:`start_budget` gave ``token``."""
    _DEADLINE.reset(token)


def wall_deadline() -> float:
    """The monotonic time before which :func:`check_budget` cannot raise (no budget: infinity).

    A loop that reads this once may skip ``check_budget()`` while ``time.monotonic()`` is below
    it: the call would return without reading the CPU clock (as long as the active budget is
    the same one, which it is inside one ``start_budget``/``end_budget`` pair).
    """
    deadline = _DEADLINE.get()
    return _NO_DEADLINE if deadline is None else deadline[1]


class row_budget:
    """Run the body under a budget of ``seconds`` of CPU time (``None``: no budget).

    A plain class, not ``contextlib.contextmanager``: a generator-based manager costs several
    times as much.

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
        self._token = start_budget(self._seconds)

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            end_budget(self._token)
            self._token = None


def check_budget() -> None:
    """Raise :class:`BudgetExceeded` when the active row budget is spent; no budget: no-op."""
    deadline = _DEADLINE.get()
    if deadline is None or time.monotonic() < deadline[1]:
        return
    if time.thread_time() - deadline[2] > deadline[0]:
        raise BudgetExceeded(deadline[0])
