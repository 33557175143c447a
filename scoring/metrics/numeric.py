"""Numbers: ``numeric`` (exact rationals, optional tolerance) and ``exact`` for math.

Answers and targets are read by the semantic stage's number reader, :func:`normalize.read_number`
(one reader for the whole library): plain numbers, ``p/q``, ``1,234``, ``.5``, ``1e3``,
``\\frac{1}{2}``, ``50%`` (as 50) and Chinese numerals (``三分之二``) are numbers on both sides.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Final

import regex
from pydantic import Field

from normalize import read_number
from normalize.values.mathanswer import Reading, read_phrase
from scoring.metrics._registry import (
    SCORED,
    MetricContext,
    MetricParams,
    Score,
    ScoringConfig,
    metric,
    short_repr,
    target_label,
    targets,
)
from scoring.metrics.exact import alias_candidates, as_text, exact_match

#: Numbers compared exactly have at most this many digits, counting the exponent's zeros
#: (``1e4000`` has 4001): beyond, building the rational costs seconds (``1e10000000`` is a
#: 33-million-bit integer) and Python refuses to print it (its 4300-digit limit).
MAX_NUMBER_DIGITS: Final = 4300

_NUMBER_SHAPE = regex.compile(r"[-+]?(?:[0-9][0-9,]*(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([-+]?[0-9]+))?(?:/[0-9]+)?")


def _in_number_range(text: str) -> bool:
    """Whether a number text is small enough to turn into an exact rational at bounded cost."""
    if len(text) > MAX_NUMBER_DIGITS:
        return False
    mark = max(text.rfind("e"), text.rfind("E"))
    if mark < 0:
        return True
    exponent = text[mark + 1:].split("/")[0].lstrip("+-")
    if not exponent.isdigit():
        return True  # not a number at all: Fraction refuses it cheaply
    return len(exponent) <= 5 and len(text) + int(exponent) <= MAX_NUMBER_DIGITS


def number_out_of_range(value: Any) -> bool:
    """Whether ``value`` is a number text that :func:`parse_number` refuses only for its size.

    >>> number_out_of_range("1e10000000"), number_out_of_range("1e100"), number_out_of_range("x")
    (True, False, False)
    """
    if not isinstance(value, str):
        return False
    text = value.strip().replace("\u2212", "-")
    return _NUMBER_SHAPE.fullmatch(text) is not None and not _in_number_range(text)


def parse_number(value: Any) -> Fraction | None:
    """An exact rational for a number or number string; ``None`` when it is not one.

    Strings are read by :func:`normalize.read_number`, the semantic stage's reader: integers,
    decimals (``.5``), exponents, ``p/q`` and ``\\frac{p}{q}``, a leading sign (also ``−``),
    thousands separators (``1,234``), percentages (``50%`` is 50) and Chinese numerals.
    Floats convert through their shortest repr, so ``0.1`` is 1/10.
    Cost is bounded: a text whose length plus exponent exceeds :data:`MAX_NUMBER_DIGITS` is
    not read as a number (see :func:`number_out_of_range`).

    >>> parse_number("2/3"), parse_number("-0.50"), parse_number("1,234"), parse_number(0.1)
    (Fraction(2, 3), Fraction(-1, 2), Fraction(1234, 1), Fraction(1, 10))
    >>> parse_number("\\\\frac{1}{2}"), parse_number("三分之二"), parse_number(".5")
    (Fraction(1, 2), Fraction(2, 3), Fraction(1, 2))
    >>> parse_number("x+1") is None, parse_number("1/0") is None, parse_number(float("nan")) is None
    (True, True, True)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(repr(value)) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = value.strip().replace("\u2212", "-")
    if not _in_number_range(text):
        return None
    try:
        number = read_number(value)
    except TimeoutError:  # a pathological target: compared as text instead
        return None
    if number is None:  # 2 3/4, 4 thousand, eleven, 3万5千: the parsers' accounting reader
        reading = read_phrase(text, None, whole=True)
        if isinstance(reading, Reading) and not reading.percent:
            return reading.value
    return number


def numeric_match(answer: Any, target: Any, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> bool:
    """Numbers equal exactly as rationals, or within ``max(rel_tol·max(|a|,|b|), abs_tol)``.

    The comparison is done in exact rationals, so ``2/3`` equals ``0.6666666667`` only under a
    tolerance.  When either side is not a number the stripped texts are compared.

    >>> numeric_match("2/3", "0.6666666667"), numeric_match("2/3", "0.6666666667", rel_tol=1e-9)
    (False, True)
    >>> numeric_match("0.5", "1/2"), numeric_match("42", 42), numeric_match("x", " x ")
    (True, True, True)
    """
    a, b = parse_number(answer), parse_number(target)
    if a is None or b is None:
        return isinstance(answer, str) and isinstance(target, str) and exact_match(answer, target)
    if a == b:
        return True
    bound = max(Fraction(rel_tol) * max(abs(a), abs(b)), Fraction(abs_tol))
    return abs(a - b) <= bound


def _number_key(text: str) -> Any:
    number = parse_number(text)
    return ("n", number) if number is not None else ("s", text.strip())


@targets("math")
def read_math_targets(
    target: Any, aliases: Sequence[Any], config: ScoringConfig, options: Sequence[str] | int | None
) -> list[Any]:
    """The target and its aliases as text: a JSON number as written (``repr`` of a float), a
    string as it is; a number too long to compare exactly is refused, not rounded."""
    golds: list[Any] = []
    for i, t in enumerate([target, *aliases]):
        what = target_label(i)
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            if parse_number(t) is None:
                raise ValueError(f"{what} must be a finite number, got {t!r}")
            golds.append(repr(t) if isinstance(t, float) else str(t))
        elif number_out_of_range(t):
            raise ValueError(f"{what} {short_repr(t)} is a number beyond what is compared exactly "
                             f"(at most {MAX_NUMBER_DIGITS} digits, counting the exponent)")
        elif isinstance(t, str):
            golds.append(t)
        else:
            raise ValueError(f"{what} must be a string for {config.task_type}, got {t!r}")
    return golds


class NumericParams(MetricParams):
    """``rel_tol`` and ``abs_tol``: tolerances (``0``: exact), both ``>= 0``."""

    rel_tol: float = Field(0.0, ge=0)
    abs_tol: float = Field(0.0, ge=0)


@metric("numeric", task_types=("math",), params=NumericParams)
def numeric_metric(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """:func:`numeric_match` against any target or alias (aliases matched by value)."""
    text = as_text(answer)
    accepted = alias_candidates(golds, ctx.alias_groups, key=_number_key)
    hit = any(numeric_match(text, g, rel_tol=config.rel_tol, abs_tol=config.abs_tol) for g in accepted)
    return Score(hit, float(hit), config.metric, SCORED)


@metric("exact", task_types=("math",), rank=1)
def exact_math(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """The stripped answer text equals a target or alias (aliases matched by value)."""
    text = as_text(answer)
    hit = any(exact_match(text, g) for g in alias_candidates(golds, ctx.alias_groups, key=_number_key))
    return Score(hit, float(hit), config.metric, SCORED)
