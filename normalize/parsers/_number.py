"""The ``number`` parser: the final number of a math answer, in canonical form, or no answer.

What "final number" means, precisely:

1. The text is read in the same surface forms the semantic rules accept, whether or not the
   chain ran them: LaTeX (``\\frac{2}{3}``, ``50\\%``, ``\\text{…}``, ``\\boxed{…}``, ``\\(…\\)``),
   Chinese numerals (``三分之二``, ``百分之五十``), U+2212 minus, ``1,000``, ``.5``, ``1e3``
   (only with ``scientific: true``, as for ``canonicalize_numbers``),
   ``2/3``, ``50%``, currency and units around the number.
2. Only the part after the last ``=`` or ``≈`` counts: ``x = 5`` → 5, ``5 + 3 = 8`` → 8.
3. In that part, the last standalone number is the answer; prose around it is ignored:
   ``42 apples.`` → 42, ``so she has 8 left`` → 8.  Digits inside words, identifiers, dates,
   versions and IP addresses are not numbers (``v1.5``, ``2024-01-05``).
4. It is ``no_answer`` when that number is part of an expression the parser cannot reduce
   (an operator, ``^``, ``_``, ``{``, ``(``, ``!`` or a LaTeX command touches it:
   ``\\sqrt{2}``, ``x^2+1``, ``2\\pi``, ``3+4i``, ``5 - 3``), when it ends a list of numbers
   (``1, 2``), when two numbers stand side by side (``1 000`` where the locale does not group
   with spaces), when a decimal trails off (``0.333...``), and when there is no number at all.
   No arithmetic is ever done.

5. Every token of that number's phrase is accounted for (:mod:`normalize.values._quantity`, the
   accounting rule shared with the ``math`` parser): magnitude and number words are read
   (``4 thousand`` → 4000, ``2.5k``, ``3万5千``, ``two hundred and six``, ``eleven``), mixed
   numbers (``2 3/4`` → 11/4), a leading-dot decimal after prose, locales the digits prove
   (``2.345,6``) or ``ParseContext.lang`` states (``7,25`` in ``de``); a phrase that is not one
   value is ``no_answer`` with a reason (``range``, ``compound quantity``, ``time of day``,
   ``ambiguous number``, a bound, a token the reader cannot account for), never the number
   beside the token.

The answer is canonical: integers ``42``, decimals without trailing zeros ``0.5``, ``-3``
(never ``-0``), and a number written as a fraction is the reduced fraction (``2/4`` → ``1/2``,
``\\frac{4}{2}`` → ``2``); a decimal that is exact stays a decimal (``0.75``).  With
``rational: decimal`` every value has one spelling instead (:func:`normalize.values._numbers.format_number`:
``3/4`` → ``0.75``, ``2/3`` stays ``2/3``).  The scorer compares values with ``to_fraction``.
"""

from __future__ import annotations

from typing import Final, Literal

import regex
from pydantic import model_validator

from normalize import status as st
from normalize.core.registry import Params, ParseContext, Parsed, StrTuple, parser
from normalize.limits._regex import compile_pattern
from normalize.values._latex import unwrap_latex_numbers
from normalize.values._numbers import (
    LATIN_WORD,
    PercentMode,
    apply_percent,
    check_locale,
    convert_chinese,
    format_fraction,
    format_number,
    operator_before,
    token_pattern,
    token_value,
)
from normalize.values._quantity import Refusal, fraction_slashes, read_phrase
from normalize.values._restated import restated_quantity


class NumberParams(Params):
    """``percent``: how a percentage is read: ``number`` (``50%`` → ``50``, the sign treated as
    a unit as GSM8K/MATH graders do), ``fraction`` (→ ``0.5``), ``reject`` (→ ``no_answer``).
    Set it to ``fraction`` when the chain's ``canonicalize_numbers`` uses ``percent: fraction``,
    so that text the chain did not rewrite reads the same.  ``rational``: ``fraction`` (the
    default) keeps a number written as a fraction (``3/4``, ``\\frac{3}{4}``, ``四分之三``) as
    the reduced fraction ``3/4`` (``2/4`` → ``1/2``, ``4/2`` → ``2``), and a decimal as a decimal;
    ``decimal`` writes every value in its one canonical spelling (``3/4`` → ``0.75``, while
    ``2/3`` stays ``2/3``).  ``thousands`` and ``decimal_comma``
    are the locale, and ``scientific`` reads ``1e3`` as 1000, as in ``canonicalize_numbers``:
    off by default, where ``1e3`` is no standalone number (``no_answer``)."""

    percent: PercentMode = "number"
    scientific: bool = False
    rational: Literal["fraction", "decimal"] = "fraction"
    thousands: StrTuple = (",",)
    decimal_comma: bool = False

    @model_validator(mode="after")
    def _check_locale(self) -> NumberParams:
        check_locale(self.thousands, self.decimal_comma)
        return self


_PREPARE: Final = (
    (r"\\(?:boxed|fbox)\s*\{([^{}]*)\}", r"\1"),
    (r"\\[()\[\]]", " "),
    (r"\\(?:,|;|:|!|quad|qquad|displaystyle)(?![A-Za-z])|\\ ", " "),
    (r"\\approx(?![A-Za-z])", "≈"),
    (r"\\(?:leq?|leqslant)(?![A-Za-z])", "≤"),
    (r"\\(?:geq?|geqslant)(?![A-Za-z])", "≥"),
    (r"\\(?:neq?)(?![A-Za-z])", "≠"),
    (r"\\times(?![A-Za-z])", "×"),
    (r"\\cdot(?![A-Za-z])", "·"),
    (r"\\div(?![A-Za-z])", "÷"),
    (r"\\pm(?![A-Za-z])", "±"),
)
_OPERATORS_LEFT: Final = "+*/^×÷·<>≤≥≠±√_{"
_OPERATORS_RIGHT: Final = "+-*/^×÷·<>≤≥≠±="
_ATTACHED_RIGHT: Final = "(\\^_!{"
_COMMAND_BEFORE: Final = r"\\[A-Za-z]+\s*$"


def _prepare(text: str, timeout: float) -> str:
    text = unwrap_latex_numbers(text, timeout=timeout)
    for pattern, replacement in _PREPARE:
        text = compile_pattern(pattern).sub(replacement, text)
    text = unwrap_latex_numbers(text, timeout=timeout)  # what unwrapping \boxed exposed
    return convert_chinese(text, timeout=timeout)


def _final_part(text: str) -> str:
    cut = max(text.rfind("="), text.rfind("≈"))
    return text[cut + 1 :] if cut >= 0 else text


def _previous_char(text: str, index: int) -> tuple[str, int]:
    j = index - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return (text[j], j) if j >= 0 else ("", -1)


def _expression_reason(part: str, m: regex.Match[str], before: regex.Match[str] | None, timeout: float) -> str | None:
    """Why the number ``m`` is not a standalone answer, or ``None`` when it is."""
    start, end = m.start(), m.end()
    latin = compile_pattern(LATIN_WORD)
    left, j = _previous_char(part, start)
    if m.group("sign") is not None and operator_before(part, start, timeout=timeout):
        return f"{m.group(0).strip()!r} follows an operand: an expression"
    if left and left in _OPERATORS_LEFT + "-":
        return f"{left!r} before {m.group(0).strip()!r}: an expression the parser cannot reduce"
    if left == "(" and j > 0 and (part[j - 1] in ")\\" or latin.match(part[j - 1])):
        return f"{m.group(0).strip()!r} is a function argument: an expression"
    if compile_pattern(_COMMAND_BEFORE).search(part[:start]) is not None:
        return f"a LaTeX command before {m.group(0).strip()!r}: an expression the parser cannot reduce"
    if left == "," and before is not None and not part[before.end() : j].strip():
        return "the answer ends a list of numbers"
    if before is not None and not part[before.end() : start].strip():
        return "two numbers side by side (digits grouped with spaces? set thousands)"
    if m.group("frac0") is not None and (part.startswith("...", end) or part.startswith("…", end)):
        return f"{m.group(0).strip()!r} is a truncated or repeating decimal"
    if end < len(part) and part[end] in _ATTACHED_RIGHT:
        return f"{part[end]!r} after {m.group(0).strip()!r}: an expression the parser cannot reduce"
    k = end
    while k < len(part) and part[k].isspace():
        k += 1
    if k < len(part) and (part[k] in _OPERATORS_RIGHT or part[k] == "\\"):
        return f"{part[k]!r} after {m.group(0).strip()!r}: an expression the parser cannot reduce"
    return None


@parser("number", version=3, params=NumberParams, embeds={"simplify_latex_numbers": 1, "convert_chinese_numerals": 1})
def parse_number(text: str, params: NumberParams, ctx: ParseContext) -> Parsed:
    """The final number of the answer in canonical form (see the module docstring).

    Bound: O(n): at most 16 linear rounds of LaTeX unwrapping, one token scan, bounded look-backs.

    >>> ctx = ParseContext()
    >>> [parse_number(s, NumberParams(), ctx).answer for s in ["42 apples.", "x = 5", "5 + 3 = 8", r"\\frac{2}{4}", "−.50"]]
    ['42', '5', '8', '1/2', '-0.5']
    >>> parse_number(r"2\\pi", NumberParams(), ctx).status
    'no_answer'
    """
    timeout = ctx.timeout
    if not text.strip():
        return Parsed(None, st.NO_ANSWER, "the normalized text is empty")
    slashed = fraction_slashes(text)
    if isinstance(slashed, Refusal):
        return Parsed(None, st.NO_ANSWER, slashed.reason, {"refused": slashed.kind})
    restated = restated_quantity(slashed)
    if restated is not None:  # "1.5 kg (1500 g)", "42 minutes, which is 0.7 hours": 1.5 or 1500?
        return Parsed(None, st.NO_ANSWER, restated, {"refused": "restated quantity"})
    part = _final_part(_prepare(slashed, timeout))
    accounted = read_phrase(part, ctx.lang, whole=True, spaces=" " in params.thousands)
    if isinstance(accounted, Refusal):
        extra = {"refused": accounted.kind, **({"reading": accounted.reading} if accounted.reading else {})}
        return Parsed(None, st.NO_ANSWER, accounted.reason, extra)
    if accounted is not None:
        amount = accounted.value
        if accounted.percent:
            percent_value = apply_percent(amount, params.percent)
            if percent_value is None:
                return Parsed(None, st.NO_ANSWER, f"{part.strip()!r} is a percentage (percent=reject)")
            return Parsed(format_number(percent_value), st.OK)
        if params.rational == "fraction" and accounted.as_fraction:
            return Parsed(format_fraction(amount), st.OK)
        return Parsed(format_number(amount), st.OK)
    pattern = compile_pattern(
        token_pattern(params.thousands, params.decimal_comma, scientific=params.scientific, ratio=True, percent=True, wan=True)
    )
    matches = list(pattern.finditer(part))
    if not matches:
        if any(c.isdigit() for c in part):
            return Parsed(None, st.NO_ANSWER, "no standalone number: the digits are inside words or expressions")
        return Parsed(None, st.NO_ANSWER, "no number found")
    last = matches[-1]
    reason = _expression_reason(part, last, matches[-2] if len(matches) > 1 else None, timeout)
    if reason is not None:
        return Parsed(None, st.NO_ANSWER, reason)
    value = token_value(last)
    if value is None:
        return Parsed(None, st.NO_ANSWER, f"{last.group(0).strip()!r} is out of range or divides by zero")
    if last.group("pct") is not None:
        value = apply_percent(value, params.percent)
        if value is None:
            return Parsed(None, st.NO_ANSWER, f"{last.group(0).strip()!r} is a percentage (percent=reject)")
    written_as_fraction = last.group("int1") is not None or last.group("lead1") is not None
    if params.rational == "fraction" and written_as_fraction and last.group("pct") is None:
        return Parsed(format_fraction(value), st.OK)
    return Parsed(format_number(value), st.OK)


__all__ = ["NumberParams", "parse_number"]
