r"""``math``: answers compared as mathematics (the default for math).

Both the parser's answer and every gold are read by :func:`normalize.values.mathanswer.read_value`, the
reader the ``math`` parser uses, so a gold works as the dataset writes it (``\frac{1}{9}``,
``(3,-1)``, ``\left( 3, \frac{\pi}{2} \right)``, ``20\%``).  Plain numbers compare as exact
rationals (the fast path: no SymPy), everything else by SymPy with the tolerances below, within
``timeout`` seconds per reading or comparison.  Sets are unordered, tuples and intervals
ordered (open and closed ends differ), matrices element-wise, relations equal up to a positive
factor.  ``percent_bare``: whether a percent answer (``20%``, read as 0.2) may also match a bare
gold number (``20``); on by default only for tasks whose golds are written without ``%`` (GSM8K).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import Field

from normalize.values.mathanswer import (
    DEFAULT_MATH_TIMEOUT,
    NotMath,
    TimeUp,
    Tolerance,
    equivalent,
    read_value,
    required_units,
    unit_names,
    units_of,
)
from scoring.metrics._registry import (
    BAD_TARGET,
    SCORED,
    MetricContext,
    MetricParams,
    Score,
    ScoringConfig,
    metric,
)
from scoring.metrics.exact import alias_candidates, as_text, exact_match
from scoring.metrics.numeric import _number_key


def math_match(
    answer: str,
    target: str,
    *,
    rel_tol: float = 0.0,
    abs_tol: float = 0.0,
    percent_bare: bool = False,
    timeout: float = DEFAULT_MATH_TIMEOUT,
    answer_units: Iterable[str] | None = None,
    units: bool = True,
) -> bool:
    r"""Mathematical equivalence of an answer and a gold, both read by the ``math`` parser's reader.

    A gold that carries a unit (``5\\text{ cm}``, ``30^\\circ``; a currency does not count) wants the
    same unit in the answer (``5 cm``, ``30°``; ``5`` or ``5 m`` is not equal); a gold without one
    ignores the answer's (dropped, recorded in the parser's ``extra.dropped``).  ``answer_units``:
    the answer's units as the parser recorded them (``extra.dropped``), else read from ``answer``;
    ``units=False``: the answer's units are unknown (a canonical answer without its trace), no rule.
    A gold that cannot be read raises ``ValueError``; past ``timeout`` seconds ``TimeoutError``.

    >>> math_match("5/4", r"1\frac{1}{4}"), math_match(r"\{-2021, 2021\}", r"\pm 2021"), math_match("2021", r"\pm 2021")
    (True, True, False)
    >>> math_match("20%", "20"), math_match("20%", "20", percent_bare=True), math_match("20", r"20\%")
    (False, True, True)
    >>> math_match("5 cm", r"5\text{ cm}"), math_match("5", r"5\text{ cm}"), math_match(r"5\text{ cm}", "5")
    (True, False, True)
    """
    try:
        gold = read_value(target, timeout=timeout)
    except NotMath as exc:
        raise ValueError(f"the target {target!r} is not a mathematical answer: {exc.reason}") from None
    except TimeUp:
        raise TimeoutError(f"reading the target {target!r} took longer than {timeout:g} s") from None
    try:
        pred = read_value(answer, timeout=timeout)
    except NotMath:
        return False
    except TimeUp:
        raise TimeoutError(f"reading the answer {answer!r} took longer than {timeout:g} s") from None
    wanted = required_units(units_of(target, timeout=timeout)) if units else frozenset()
    if wanted:
        carried = unit_names(answer_units) if answer_units is not None else units_of(answer, timeout=timeout)
        if required_units(carried) != wanted:
            return False
    try:
        return equivalent(pred, gold, tol=Tolerance(rel_tol, abs_tol), percent_bare=percent_bare, timeout=timeout)
    except TimeUp:
        raise TimeoutError(f"comparing {answer!r} with {target!r} took longer than {timeout:g} s") from None


class MathParams(MetricParams):
    """``rel_tol``/``abs_tol``: tolerances (``0``: exact); ``timeout``: seconds per reading or
    comparison; ``percent_bare``: a percent answer may match the bare gold number."""

    rel_tol: float = Field(0.0, ge=0)
    abs_tol: float = Field(0.0, ge=0)
    timeout: float = Field(5.0, gt=0)
    percent_bare: bool = False


@metric("math", task_types=("math",), params=MathParams, default=True)
def math_metric(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """:func:`math_match` against any target or alias; a gold no reading understands is ``bad_target``."""
    text = as_text(answer)
    accepted = alias_candidates(golds, ctx.alias_groups, key=_number_key)
    notes: list[str] = []
    for gold in accepted:
        if exact_match(text, gold):
            return Score(True, 1.0, config.metric, SCORED)
        try:
            if math_match(text, gold, rel_tol=config.rel_tol, abs_tol=config.abs_tol,
                          percent_bare=config.percent_bare, timeout=config.timeout,
                          answer_units=ctx.answer_units, units=ctx.answer_units is not None):
                return Score(True, 1.0, config.metric, SCORED)
        except (ValueError, TimeoutError) as exc:
            notes.append(str(exc))
    if notes and len(notes) == len(accepted):
        return Score(None, 0.0, config.metric, BAD_TARGET, notes[0])
    return Score(False, 0.0, config.metric, SCORED, "; ".join(notes) or None)
