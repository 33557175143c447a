"""Load-independent proof that a rule or parser runs in linear time: growth of work from n to 2n.

An absolute time limit says more about the machine's load than about the rule: the same rule is
fast on an idle machine and "slow" when other processes share its cores.  What does not depend on
load is how the work *grows* with the input: a linear rule does about twice the work on an input
twice as long, a quadratic one four times, a backtracking regex far more.  So:

* work is the **CPU time of the measuring thread** (:func:`time.thread_time`), which does not count
  the time other processes hold the core, taken as the **median** of several runs that alternate
  between the two sizes (a burst of load hits both sizes alike), with the garbage collector off;
* every input is run once before it is measured (caches warm, as they are in a chain), then
  the input is grown from a small size until one call costs enough CPU time to measure
  (:data:`MIN_WORK`); a function still below that at the largest size is fast at every size that
  a row may have (it cannot be superlinear with a measurable cost: a quadratic rule on 1 MiB is
  not cheap), and is not measured further;
* the ratio of work at *2n* to work at *n* is compared with :data:`THRESHOLD` (3: half-way, on a
  log scale, between linear's 2 and quadratic's 4); a ratio above it is measured again one size
  up, and only a function that exceeds the threshold twice is called superlinear.

The verdict (linear or not) is what callers report; the measured figures are for diagnostics and
never part of a finding's text, so ``normalize check`` prints the same findings on an idle and on a
saturated machine.

Adversarial input kinds are builders ``size -> text`` (:data:`KINDS`): repeated units and nested
constructs (emphasis, ``\\text{``, ``\\left``, fences, answer markers between fences), the shapes
that made earlier versions of the rules quadratic.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

#: Ratio of work at 2n to work at n above which a function is (provisionally) superlinear.
THRESHOLD: Final = 3.0
#: CPU seconds one call must cost at size n before its growth is measured.
MIN_WORK: Final = 0.0005
#: Runs per size (the median is used).
REPEATS: Final = 3
#: Sizes, in characters: the first tried, and the largest n (so 2n stays within a 1 MiB row).
START_SIZE: Final = 1 << 13
MAX_SIZE: Final = 1 << 18

Builder = Callable[[int], str]


def repeated(unit: str) -> Builder:
    """A builder repeating ``unit`` to about ``size`` characters.

    >>> repeated("ab")(5)
    'abab'
    """
    return lambda size: unit * max(1, size // len(unit))


def nested(opener: str, core: str, closer: str) -> Builder:
    """A builder nesting ``opener … closer`` around ``core``, to about ``size`` characters.

    >>> nested("**", "x", "**")(9)
    '****x****'
    """
    return lambda size: (lambda k: opener * k + core + closer * k)(
        max(1, (size - len(core)) // (len(opener) + len(closer)))
    )


#: The adversarial input kinds, by name.  Each scales with ``size``.
KINDS: Final[tuple[tuple[str, Builder], ...]] = (
    ("'answer is ' repeated", repeated("answer is ")),
    ("'{' repeated", repeated("{")),
    ("'\\boxed{' repeated", repeated("\\boxed{")),
    ("'\\boxed{1} ' repeated", repeated("\\boxed{1} ")),
    ("'(' repeated", repeated("(")),
    ("mixed scripts repeated", repeated(
        "Answer 答案是 Ответ الإجابة हिन्दी 😀👍🏽 e\u0301 a\u0308\u0323 ＡＢＣ１２３ “q” ‘s’ \t 한국어 ー "
    )),
    ("'#' repeated", repeated("#")),
    ("'**_' repeated", repeated("**_")),
    ("'*' repeated", repeated("*")),
    ("nested '**' emphasis", nested("**", "x", "**")),
    ("nested '*_' emphasis", nested("*_", "x", "_*")),
    ("nested '\\text{'", nested("\\text{", "5", "}")),
    ("nested '\\left('", nested("\\left(", "5", "\\right)")),
    ("nested '\\frac{'", nested("\\frac{1}{", "2", "}")),
    ("'```\\n' repeated", repeated("```\n")),
    ("alternating fences", repeated("```\n~~~\n")),
    ("growing fences", repeated("````\n```\n")),
    ("answer markers between fences", repeated("The answer is 7.\n```\nanswer: 8\n```\n")),
    ("'<think>' repeated", repeated("<think>")),
    ("'<think>```' repeated", repeated("<think>\n```\n</think>\n")),
    ("'[\"a\", ' repeated", repeated('["a", ')),
    ("'\\n' (literal) repeated", repeated("\\n")),
    ("'1,' repeated", repeated("1,")),
    ("'1' repeated", repeated("1")),
    ("'-1 ' repeated", repeated("-1 ")),
    ("'答案是：' repeated", repeated("答案是：")),
    ("'####' repeated", repeated("####")),
    ("' ' repeated + 'x'", lambda size: " " * size + "x"),
    ("'\\t \\n' repeated", repeated("\t \n")),
    ("Chinese numerals repeated", repeated("一千二百三十四点五")),
    ("'百分之' repeated", repeated("百分之五十")),
    ("'A or B, ' repeated", repeated("the answer is A or B, ")),
    ("'A. ' repeated", repeated("A. ")),
    ("'\"' repeated", repeated('"')),
    ("'True, None' repeated", repeated("[True, None, 'a', ")),
)


def cpu_time(fn: Callable[[str], object], text: str) -> float:
    """CPU seconds of this thread for one call ``fn(text)`` (exceptions count as returns)."""
    from normalize.limits._budget import BudgetExceeded

    start = time.thread_time()
    try:
        fn(text)
    except BudgetExceeded:
        raise
    except Exception:  # the growth of work is measured whatever the call ends with
        pass
    return time.thread_time() - start


@dataclass(frozen=True)
class Growth:
    """The verdict for one function on one input kind, with the figures behind it."""

    superlinear: bool
    size: int  # the n of the last ratio measured (0: fast at every size, not measured)
    ratios: tuple[float, ...]
    work: float  # median CPU seconds at the largest size run

    @property
    def measured(self) -> bool:
        return self.size > 0


def _ratio(fn: Callable[[str], object], small: str, large: str, repeats: int) -> tuple[float, float]:
    """Median work on ``large`` over median work on ``small``, runs alternating; and the large median."""
    small_times: list[float] = []
    large_times: list[float] = []
    cpu_time(fn, large)  # warm, as the small input already is
    for _ in range(repeats):
        small_times.append(cpu_time(fn, small))
        large_times.append(cpu_time(fn, large))
    low = max(statistics.median(small_times), 1e-7)
    high = statistics.median(large_times)
    return high / low, high


def measure_growth(
    fn: Callable[[str], object],
    build: Builder,
    *,
    start: int = START_SIZE,
    max_size: int = MAX_SIZE,
    min_work: float = MIN_WORK,
    repeats: int = REPEATS,
    threshold: float = THRESHOLD,
    first_work: float | None = None,
) -> Growth:
    """Whether ``fn``'s work grows faster than linearly on inputs built by ``build``.

    >>> measure_growth(len, repeated("ab")).superlinear
    False
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        size = start
        text = build(size)
        if first_work is None:
            cpu_time(fn, text)  # the first run warms caches (compiled patterns, fence lists)
        work = cpu_time(fn, text)
        while work < min_work and size < max_size:
            size *= 2
            text = build(size)
            cpu_time(fn, text)
            work = cpu_time(fn, text)
        if work < min_work:
            return Growth(False, 0, (), work)
        ratios: list[float] = []
        while True:
            ratio, work = _ratio(fn, text, build(2 * size), repeats)
            ratios.append(ratio)
            if ratio <= threshold:
                return Growth(False, size, tuple(ratios), work)
            if len(ratios) == 2:
                return Growth(True, size, tuple(ratios), work)
            if 2 * size <= max_size:  # confirm one size up (else again at this size)
                size *= 2
                text = build(size)
    finally:
        if enabled:
            gc.enable()


def superlinear_kinds(
    fn: Callable[[str], object], kinds: Sequence[tuple[str, Builder]] = KINDS, **options: float
) -> list[tuple[str, Growth]]:
    """The input kinds on which ``fn`` is superlinear, with their figures."""
    found = []
    for name, build in kinds:
        growth = measure_growth(fn, build, **options)  # type: ignore[arg-type]
        if growth.superlinear:
            found.append((name, growth))
    return found


# --------------------------------------------------------------------------- the safety check



@dataclass(frozen=True)
class Problem:
    """One safety finding: what was run (``rule X`` / ``parser Y``), on which input, and why."""

    rule: str | None
    label: str
    kind: str
    problem: str

    @property
    def summary(self) -> str:
        return f"{self.label} on {self.kind}: {self.problem}"


def _output_grows(before: str, after: object) -> bool:
    return isinstance(after, str) and len(after) > 2 * len(before) + 4096


def probe(
    fn: Callable[[str], object],
    kinds: Sequence[tuple[str, Builder]] = KINDS,
    *,
    budget: float,
    benign: tuple[type[BaseException], ...] = (),
) -> list[tuple[str, str]]:
    """``(kind, problem)`` for each input kind on which ``fn`` misbehaves.

    Per kind: one run at :data:`START_SIZE` characters, under a row budget of ``budget`` CPU
    seconds (:mod:`normalize.limits._budget`), where an exception other than ``benign``, running past
    the budget, or an output more than twice the input are problems (all deterministic, none
    an absolute wall-clock time); then :func:`measure_growth`, where work that more than
    triples when the input doubles (twice in a row, in two measurements) is one.  No figure
    enters the text.
    """
    from normalize.limits._budget import BudgetExceeded, row_budget

    found: list[tuple[str, str]] = []
    for kind, build in kinds:
        text = build(START_SIZE)
        try:
            with row_budget(budget):
                start = time.thread_time()
                out = fn(text)
        except BudgetExceeded:
            found.append((kind, f"ran past the budget of {budget:g}s CPU time"))
            continue
        except benign:
            out = None
        except TimeoutError:
            found.append((kind, "a user-supplied regular expression timed out"))
            continue
        except Exception as exc:  # the check's purpose is to find these
            found.append((kind, f"blew up: {type(exc).__name__}: {str(exc)[:200]}"))
            continue
        work = time.thread_time() - start
        if _output_grows(text, out):
            found.append((kind, "grows: the output is more than twice the input"))
            continue
        with row_budget(budget * 8):  # the growth runs go up to 2 × MAX_SIZE characters
            try:
                growth = measure_growth(fn, build, first_work=work)
            except BudgetExceeded:
                found.append((kind, f"ran past the budget of {budget:g}s CPU time"))
                continue
        if growth.superlinear:  # measured once more: a superlinear rule is so every time, a scheduling stall is not
            with row_budget(budget * 8):
                try:
                    growth = measure_growth(fn, build, first_work=work)
                except BudgetExceeded:
                    found.append((kind, f"ran past the budget of {budget:g}s CPU time"))
                    continue
        if growth.superlinear:
            found.append((kind, f"superlinear: work more than ×{THRESHOLD:g} when the input doubles"))
    return found
