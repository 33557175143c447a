r"""Math answers as mathematics: one answer string → a value with one canonical spelling, and equivalence.

Private to the package.  The ``math`` parser reads a model's answer with :func:`read_value`,
the scorer reads the gold answer with the same function and compares with :func:`equivalent`.

Two paths:

* **plain numbers** (``42``, ``-0.5``, ``1,000``, ``1 000``, ``32,\! 349``, ``14{,}916``,
  ``\frac{3}{4}``, ``1\frac{1}{4}``, ``3/4``, ``1.5 \times 10^3``, ``1.5e3``, ``20\%``, ``90^\circ``,
  ``\$5``, ``15\text{ cm}``) are read with exact rationals (:mod:`normalize.values._numbers`); no SymPy
  is imported and two numbers compare as :class:`fractions.Fraction` — the fast path;
* everything else (``7\pi``, ``3\sqrt{13}``, ``\pm``, tuples, intervals and unions, sets,
  matrices, equations and relations) becomes a SymPy object as latex2sympy2_extended (the LaTeX
  front end Math-Verify uses) reads it, within a wall-clock bound of our own
  (:func:`normalize.limits._deadline.call_within`: a trace hook, no signals, any thread): the
  common values by :mod:`normalize.values._commonmath`, the common shapes with letters by
  :mod:`normalize.values._latextree` (latex2sympy's own object, built without its parser), the
  rest by latex2sympy, parsed in two stages (:mod:`normalize.values._latexparse`).

Written ourselves, and why: Math-Verify's ``parse``/``verify`` couple extraction from a whole
output with comparison and use ``signal.alarm``; the project already extracts the answer
statement itself (markers, boxes, ``####``) and needs a value it can store as JSON, re-read,
and compare with a rule it can state: sets unordered, tuples and intervals ordered, open and
closed ends distinct, matrices element-wise, relations up to a positive factor.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import gcd
from typing import Any, Final

from normalize.limits._deadline import TimeUp, call_within
from normalize.limits._regex import char_finder, compile_pattern
from normalize.status import Status
from normalize.values._commonmath import read_common
from normalize.values._latexparse import latex_to_sympy, sll_converter
from normalize.values._latextree import library as tree_library
from normalize.values._latextree import read_tree
from normalize.values._numbers import format_fraction, format_number, to_fraction
from normalize.values._quantity import (
    _UNIT_SIZES,
    UNIT_WORDS,
    Reading,
    Refusal,
    fraction_slashes,
    read_phrase,
)

#: Characters that never change an answer: zero-width, bidi marks and embeddings, soft hyphen.
INVISIBLE_CHARS: Final = (
    "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)
_INVISIBLE_FINDER: Final = char_finder(INVISIBLE_CHARS)
#: Longest answer string read (longer ones are not one answer).
MAX_ANSWER_CHARS: Final = 2000
#: Seconds one read or one comparison may take in SymPy.
DEFAULT_MATH_TIMEOUT: Final = 2.0


class NotMath(ValueError):
    """The string is not one mathematical answer; ``status`` says how (``no_answer``, ``contradictory``).
    ``whole``: the refusal is of the whole statement, so no part of it may be read instead (a
    number with its unit inside an expression: ``4 kg + 3`` is not 3)."""

    def __init__(self, reason: str, status: Status = "no_answer", *, whole: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.whole = whole


@dataclass(frozen=True)
class MathValue:
    """A read answer: ``canonical`` (its one spelling, JSON-able) plus what comparison needs.

    ``kind``: ``number`` (``number`` holds the exact value as written, ``percent`` whether it
    carried ``%``), ``text`` (``text``), or ``expr`` (``obj``, a SymPy object).  ``dropped``
    lists what was removed to read it (units, degrees, currency), for the trace.
    """

    kind: str
    canonical: str
    number: Fraction | None = None
    percent: bool = False
    text: str | None = None
    obj: Any = None
    dropped: tuple[str, ...] = field(default=())


# --------------------------------------------------------------------------- cleaning

_DELIMITERS: Final = (r"\$\$|\$|\\\(|\\\)|\\\[|\\\]")
_SPACING: Final = r"(?<!\\)\\(?:displaystyle|textstyle|quad|qquad|,|;|:|!| )(?![A-Za-z])|~"
_DEGREES: Final = r"\s*(?:\^\s*\{\s*\\circ\s*\}|\^\s*\\circ(?![A-Za-z])|\\circ(?![A-Za-z])|°|\\degree(?![A-Za-z]))"
#: Degrees of a temperature scale: ``-5°C``, ``98.6^\\circ F``, ``37 °\\text{C}``.
_TEMPERATURE: Final = _DEGREES + r"\s*(?:\\(?:text|mathrm)\s*\{\s*)?(?P<scale>[CF])(?:\s*\})?(?![A-Za-z])"
_PERCENT_TAIL: Final = r"\s*(?:\\%|%|％|\\text\{\s*\\?%\s*\}|(?<![A-Za-z])(?:percentage|percent|per\s+cent|pct)(?![A-Za-z]))\s*$"
_TEXT_CMD: Final = r"\\(?:text|textrm|textnormal|textbf|textit|mathrm|mathbf|mbox|operatorname)\s*"
#: A unit after a number: ``\text{ cm}^2``, ``\mbox{ miles}``, `` cm``, ``m²``, `` dollars``.
_UNIT_TAIL: Final = (
    rf"(?:\s*{_TEXT_CMD}\{{\s*(?P<u1>[A-Za-z][A-Za-z .]*?|[^{{}}\\]*[\p{{Han}}][^{{}}\\]*)\s*\}}"
    r"|\s*(?<![A-Za-z\\])(?P<u2>(?:[A-Za-z]{2,}|[a-zA-Z]|[\p{Han}]+)(?:\s+[A-Za-z]{2,}){0,2}))"
    r"(?:\s*(?:\^\s*\{?\s*[23]\s*\}?|[²³])|(?<=(?<![A-Za-z])(?:m|cm|mm|km|ft|in|yd))[23])?\s*$"
)
_CURRENCY_HEAD: Final = r"^\s*(?:\\\$|US\$|\$|¥|€|£|₹|(?:Rs|Rp)\.?(?=\s*[0-9])|INR(?=\s*[0-9]))\s*"  # Rs. 12: rupees
#: Unit words that may follow an expression (``2\pi cm``), not only a plain number.
_KNOWN_UNITS: Final = frozenset(
    {"cm", "mm", "km", "m", "in", "ft", "inches", "feet", "meters", "metres", "miles", "units", "degrees",
     "cm^2", "square units", "sq units", "radians", "seconds", "minutes", "hours", "dollars", "cents"}
)
_HEDGES: Final = (
    r"(?<![A-Za-z])(?:or\s+(?:possibly|maybe|perhaps|probably|approximately)|possibly|maybe|perhaps"
    r"|not\s+sure|either)(?![A-Za-z])"
)
_LIST_GLUE: Final = (
    r"\s*(?:\\text\{\s*(?:and|or|,)\s*\}|(?<![A-Za-z\\])(?:and|or)(?![A-Za-z])|\\(?:land|lor|vee|wedge)(?![A-Za-z]))\s*"
)
#: Words allowed in a math answer (SymPy would read any other letters as a product of symbols).
_MATH_WORDS: Final = frozenset(
    {"sin", "cos", "tan", "cot", "sec", "csc", "log", "ln", "exp", "lim", "max", "min", "sqrt", "pi",
     "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "det", "gcd", "lcm", "mod", "inf", "oo"}
)
#: Names of functions that are units too: after a plain number, with nothing after them, units.
_FUNCTION_UNITS: Final = frozenset({"min", "sec"})
_PROSE_STOPWORDS: Final = frozenset({"is", "as", "at", "be", "by", "if", "it", "of", "on", "to", "we", "so", "no", "an"})
_TEXT_WHOLE: Final = rf"^\s*{_TEXT_CMD}\{{(?P<t>[^{{}}]*)\}}\s*$"


def remove_invisible(text: str) -> str:
    """Drop zero-width characters, bidi marks and soft hyphens.

    >>> remove_invisible("4\\u200b2")
    '42'
    """
    if text.isascii() or _INVISIBLE_FINDER.search(text) is None:
        return text
    return "".join(c for c in text if c not in INVISIBLE_CHARS)


def _brace_end(text: str, open_index: int) -> int | None:
    depth = 0
    i = open_index
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def unwrap_boxes(text: str) -> str:
    r"""Replace every ``\boxed{X}`` / ``\fbox{X}`` by ``X`` (an unclosed box is left as it is).

    >>> unwrap_boxes(r"x = \boxed{\frac{1}{2}} and \boxed{3}")
    'x = \\frac{1}{2} and 3'
    """
    if "\\boxed" not in text and "\\fbox" not in text:
        return text  # nothing the pattern can find
    pattern = compile_pattern(r"\\(?:boxed|fbox)\s*(?=\{)")
    for _ in range(64):
        m = pattern.search(text)
        if m is None:
            return text
        end = _brace_end(text, m.end())
        if end is None:
            return text
        text = text[: m.start()] + text[m.end() + 1 : end] + text[end + 1 :]
    return text


def _sub(pattern: str, repl: str | Callable[[Any], str], text: str) -> str:
    return compile_pattern(pattern).sub(repl, text)


def _clean(s: str) -> tuple[str, bool, list[str]]:
    """Surface clean-up shared by both paths: delimiters, spacing, digit groups, degrees,
    percent, units, currency.  Returns the text, whether it carried ``%``, what was dropped."""
    dropped: list[str] = []
    s = remove_invisible(s).replace("\u2212", "-").replace("−", "-")
    s = unwrap_boxes(s)
    s = _sub(_DELIMITERS, " ", s)
    # digit groups: 32,\! 349 / 1\,000 / 14{,}916 / 1 000 000 (each sub only when the
    # characters it needs occur: a short answer usually has none of them)
    if "\\!" in s:
        s = _sub(r"(?<=[0-9]),\s*\\!\s*(?=[0-9]{3})", ",", s)
    if "\\" in s:
        s = _sub(r"(?<=[0-9])\\[,!;: ]\s*(?=[0-9]{3})", "", s)
    if "{" in s:
        s = _sub(r"(?<=[0-9])\s*\{,\}\s*(?=[0-9]{3})", ",", s)
        s = _sub(r"(?<=[0-9])\{\s*\}(?=[0-9])", "", s)
    if " " in s or "\u00a0" in s or "\u202f" in s or "\u2009" in s:
        s = _sub(r"(?<![0-9.,])([0-9]{1,3})((?:[ \u00a0\u202f\u2009][0-9]{3})+)(?![0-9.,]|\s*[0-9])",
                 lambda m: m.group(1) + _sub(r"\s", "", m.group(2)), s)
    s = _sub(_SPACING, " ", s)
    if "\\" in s:
        s = _sub(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)(?![A-Za-z])\s*", "", s)
    if "frac" in s:
        s = _sub(r"\\[dtc]frac(?![A-Za-z])", r"\\frac", s)
    s = s.strip()
    s = _sub(r"[\s.。,;:]+$", "", s)
    s = _sub(r"^[\s=:]+", "", s)
    if compile_pattern(_DEGREES).search(s):
        scale = compile_pattern(_TEMPERATURE).search(s)
        if scale is not None:  # -5°C: a temperature, its scale a unit, not a variable C
            s = _sub(_TEMPERATURE, "", s)
            dropped.append("°" + scale["scale"])
        else:
            s = _sub(_DEGREES, "", s)
            dropped.append("degrees")
    percent = False
    m = compile_pattern(_PERCENT_TAIL).search(s)
    if m is not None and m.start() > 0:
        s = s[: m.start()].rstrip()
        percent = True
    head = compile_pattern(_CURRENCY_HEAD).match(s)
    if head is not None and head.end() < len(s):
        dropped.append(head.group(0).strip())
        s = s[head.end() :]
    if "\\$" in s:
        s = _sub(r"\\\$", "", s)
    s = s.strip()
    return s, percent, dropped


#: A decimal that repeats: ``0.333...``, ``0.1666…``, ``1.8\\overline{3}``, ``0.\\overline{142857}``.
_REPEATING: Final = (
    r"(?<![0-9.])(?P<int>[0-9]+)\.(?:(?P<digits>[0-9]+)[ \t]*(?:\.{2,}|…|\\[lc]dots(?![A-Za-z]))"
    r"|(?P<pre>[0-9]*)\\overline\s*\{(?P<period>[0-9]+)\})"
)


def _repeating_fraction(m: re.Match[str]) -> str:
    r"""The exact value of a repeating decimal as ``\frac{p}{q}``: with an ellipsis, the last
    digit repeats when it is written at least twice (``0.333...`` = 1/3, ``0.1666...`` = 1/6);
    four digits or more that trail off otherwise (``3.14159...``) state no exact value, and a
    shorter decimal is as written (``2.5...``: a pause).

    >>> _sub(_REPEATING, _repeating_fraction, "0.1666..."), _sub(_REPEATING, _repeating_fraction, r"0.\overline{3}")
    ('\\frac{1}{6}', '\\frac{1}{3}')
    """
    if m["period"] is not None:
        pre, period = m["pre"] or "", m["period"]
    else:
        digits = m["digits"]
        last = digits[-1]
        if len(digits) < 2 or digits[-2] != last:
            if len(digits) >= 4:
                raise NotMath(f"{m[0]!r} trails off: a decimal cut short is not an exact value", whole=True)
            return f"{m['int']}.{digits}"
        pre, period = digits.rstrip(last), last
    shift = 10 ** len(pre)
    repeat = 10 ** len(period) - 1
    value = Fraction(int(m["int"])) + Fraction(int(pre or "0") * repeat + int(period), shift * repeat)
    return rf"\frac{{{value.numerator}}}{{{value.denominator}}}"


def _strip_unit(s: str, dropped: list[str]) -> str:
    """``15\\text{ cm}^2`` → ``15``; a unit only goes when a number stands before it.  A rate of
    two units (``36 km/h``, ``10 m/s``, ``5 miles per hour``) goes only after a plain number."""
    rate = compile_pattern(_RATE_TAIL).search(s)
    if rate is not None and _plain_number(s[: rate.start()].strip()) is not None:
        dropped.append(" ".join(rate["rate"].split()))
        return s[: rate.start()].rstrip()
    m = compile_pattern(_UNIT_TAIL).search(s)
    if m is None:
        return s
    head = s[: m.start()].rstrip()
    unit = (m.group("u1") or m.group("u2") or "").strip()
    if not head:
        return s
    if _plain_number(head) is None and not (unit in _KNOWN_UNITS and compile_pattern(r"(?:[0-9}]|\\pi)$").search(head)):
        return s  # a unit follows a number ("2\pi cm"); "x <= 2 is our answer" is prose
    if (unit.lower() in _MATH_WORDS and not (unit in _FUNCTION_UNITS and _plain_number(head) is not None)) or unit in (
        "i", "e", "x", "y", "z", "n", "k", "a", "b", "c", "d", "t", "r"
    ):
        return s  # "90 min": no argument after it, so min is minutes, not a function (was 90 i m n)
    if compile_pattern(r"(?i)^(?:percentage|percent|pct)$").match(unit):
        return s
    if m.group("u2") is not None and m.start("u2") == len(head) and unit.isascii() and not _glued_unit(unit):
        return s  # 2xy, 3ab: letters glued to a number are a product unless they name a unit (5cm, 3kg)
    dropped.append(unit)
    return head


#: Units written glued to their number (``5cm``, ``3kg``, ``60mph``), beyond the accounting
#: reader's table of units (:data:`normalize.values._quantity._UNIT_SIZES`).
_GLUED_UNITS: Final = frozenset(
    {"mph", "kph", "kmh", "ml", "mL", "L", "l", "cl", "dl", "kl", "sq", "deg", "rad", "mol", "mmol", "N", "kN", "J", "kJ",
     "W", "kW", "MW", "V", "mV", "kV", "mA", "Hz", "kHz", "MHz", "GHz", "Pa", "kPa", "MPa", "atm", "cal", "kcal",
     "B", "kB", "KB", "MB", "GB", "TB", "nm", "um", "ms", "ns", "yr", "yrs", "mo", "wk", "wks", "pt", "px", "ha",
     "st", "nd", "rd", "th"}  # and ordinals: 10th century
)


#: A rate after a number (:func:`_strip_unit`): two unit words of the accounting reader's table
#: joined by ``/`` or ``per``, bare or in ``\text{}``.
_RATE_TAIL: Final = (
    rf"(?<![A-Za-z])\s*(?:{_TEXT_CMD}\{{\s*)?(?P<rate>(?:{UNIT_WORDS})\s*(?:/|\bper\b)\s*(?:{UNIT_WORDS}))"
    r"(?![A-Za-z])\s*\}?\s*$"
)
#: Unit words that are never a product of variables after a number: of two letters or more,
#: neither a function (``min``, ``sec``) nor ``in``; ordinals (``10th``) are no units.
_MULTI_LETTER_UNITS: Final = "|".join(sorted(
    ({u for u in _UNIT_SIZES if u.isascii() and len(u) >= 2} | {u for u in _GLUED_UNITS if len(u) >= 2})
    - _MATH_WORDS - {"in", "st", "nd", "rd", "th"}, key=len, reverse=True))
#: A number followed by a unit: ``1.5 kg``, ``3\text{ g}`` (any word set as text), ``5cm``.
_UNIT_AFTER_NUMBER: Final = (
    rf"(?<![A-Za-z])[0-9]+(?:\.[0-9]+)?\s*(?:(?:{_MULTI_LETTER_UNITS})(?![A-Za-z])"
    rf"|{_TEXT_CMD}\{{\s*(?:{UNIT_WORDS})\s*\}})"
)


def _unit_inside(s: str) -> str | None:
    r"""A number with its unit inside an expression (``5 cm \times 3 cm``, ``10 m/s (36 km/h)``):
    SymPy would read the unit's letters as a product of variables (``5 c m \cdot 3``).

    >>> _unit_inside(r"5 cm \times 3 cm"), _unit_inside("3xy + 2"), _unit_inside(r"2 \text{ g} + 1")
    ('5 cm', None, '2 \\text{ g}')
    """
    m = compile_pattern(_UNIT_AFTER_NUMBER).search(s)
    return None if m is None else m[0]


#: A value, a space, and a value in brackets: ``25% (0.25)``, ``1/4 (0.25)``, ``8 (5 + 3)``.
_GLOSS: Final = r"^(?P<a>[^()\[\]{}]+?)\s+\((?P<b>[^()]+)\)$"


def _glossed(a: str, b: str, timeout: float) -> MathValue | None:
    r"""The value of ``a (b)`` when both are numbers: ``a``'s when ``b`` states it again (to
    ``b``'s written precision: ``1/3 (0.33)``), else refused — a restatement that disagrees, or
    a product written with a space (``8 (5 + 3)`` was 64), is not certain.  ``None``: ``b`` is no
    number (``x (x + 1)``), read as before.

    >>> _glossed("25%", "0.25", 1.0).canonical, _glossed("1/3", "0.33", 1.0).canonical
    ('25%', '1/3')
    >>> _glossed("8", "5 + 3", 1.0).canonical
    '8'
    >>> _glossed("1/4", "0.5", 1.0)
    Traceback (most recent call last):
    ...
    normalize.values._mathvalue.NotMath: '1/4 (0.5)': a value with another in brackets after it (0.5) is a restatement that disagrees or a product: not one certain value
    """
    first, second = _read_cached(a, timeout), _read_cached(b, timeout)
    if isinstance(first, NotMath) or first.kind != "number" or isinstance(second, NotMath) or second.kind != "number":
        return None
    assert first.number is not None and second.number is not None
    x = first.number / 100 if first.percent else first.number
    y = second.number / 100 if second.percent else second.number
    decimals = len(b.strip().rstrip("%").partition(".")[2]) if compile_pattern(r"^\s*-?[0-9]*\.[0-9]+%?\s*$").match(b) else None
    if x == y or (decimals is not None and abs(x - y) <= Fraction(1, 2 * 10**decimals)):
        return first
    shown = f"{a} ({b})".strip()[:80]
    raise NotMath(f"{shown!r}: a value with another in brackets after it ({b.strip()}) is a restatement that "
                  "disagrees or a product: not one certain value", whole=True)


def _glued_unit(letters: str) -> bool:
    """Whether ``letters`` written right after a number name a unit (``cm``, ``kg``, ``mph``), not
    a product of variables (``xy``, ``ab``)."""
    from normalize.values._quantity import _UNIT_SIZES

    first = letters.split()[0] if letters.split() else ""
    return bool(first) and (first in _GLUED_UNITS or first.lower() in _UNIT_SIZES or first.lower() in _KNOWN_UNITS)


# --------------------------------------------------------------------------- fast path

_MIXED: Final = r"^(?P<sign>-?)\s*(?P<whole>[0-9]+)\s*\\frac\s*\{\s*(?P<n>[0-9]+)\s*\}\s*\{\s*(?P<d>[0-9]+)\s*\}$"
_SCI: Final = (
    r"^(?P<m>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))\s*(?:\\times|\\cdot|×|\*|x)\s*10\s*\^\s*"
    r"(?:\{\s*(?P<e1>[+-]?[0-9]{1,4})\s*\}|(?P<e2>[0-9]))$"
)
_E_NOTATION: Final = r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][+-]?[0-9]{1,4}$"
_DECIMAL_COMMA: Final = r"^(?P<sign>-?)(?P<i>0|[0-9]{4,}|[1-9][0-9]{0,2})\,(?P<f>[0-9]+)$"


#: Longest string :func:`_plain_number` reads.
_PLAIN_MAX: Final = 200


def _plain_number(s: str) -> tuple[Fraction, bool] | None:
    """The exact value of ``s`` when it is one plain number, and whether it was written as a
    fraction; ``None`` otherwise.  ``1,22`` and ``0,111`` read as decimal commas (a group of
    two digits, or after a lone ``0``, cannot be a thousands group); ``1,2`` is a list."""
    if not s or len(s) > _PLAIN_MAX:
        return None
    mixed = compile_pattern(_MIXED).match(s)
    if mixed is not None:
        d = int(mixed.group("d"))
        if d == 0:
            return None
        value = int(mixed.group("whole")) + Fraction(int(mixed.group("n")), d)
        return (-value if mixed.group("sign") else value), True
    sci = compile_pattern(_SCI).match(s)
    if sci is not None:
        exp = int(sci.group("e1") or sci.group("e2"))
        return Fraction(sci.group("m")) * Fraction(10) ** exp, False
    if compile_pattern(_E_NOTATION).match(s):
        mantissa, _, power = s.lower().partition("e")
        return Fraction(mantissa) * Fraction(10) ** int(power), False
    comma = compile_pattern(_DECIMAL_COMMA).match(s)
    if comma is not None:
        frac = comma.group("f")
        if len(frac) != 3 or comma.group("i") == "0" or len(comma.group("i")) >= 4:
            if len(frac) == 1 and comma.group("i") != "0" and len(comma.group("i")) < 4:
                return None  # 1,2: a list of two numbers
            value = Fraction(f"{comma.group('i')}.{frac}")
            return (-value if comma.group("sign") else value), False
    read = to_fraction(s, percent="reject")
    if read is None:
        return None
    value = read
    written_as_fraction = "/" in s or "\\frac" in s
    return value, written_as_fraction


def _number_canonical(value: Fraction, as_fraction: bool, percent: bool) -> str:
    text = format_fraction(value) if as_fraction else format_number(value)
    return text + ("%" if percent else "")


# --------------------------------------------------------------------------- SymPy path


@lru_cache(maxsize=1)
def _sympy() -> Any:
    import sympy

    return sympy


@lru_cache(maxsize=1)
def _front_end() -> tuple[Any, Any, Any, Any]:
    from latex2sympy2_extended import NormalizationConfig, latex2sympy, normalize_latex
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig

    norm = NormalizationConfig(basic_latex=True, units=False, malformed_operators=True, nits=True, boxed="all", equations=False)
    conv = ConversionConfig(interpret_as_mixed_fractions=True, interpret_simple_eq_as_assignment=False, lowercase_symbols=False)
    sll_converter()  # its imports too: outside any answer's time
    tree_library()
    return latex2sympy, normalize_latex, norm, conv


def _has_prose(s: str) -> str | None:
    """The first word in ``s`` that is prose, not math (SymPy would read it as a product)."""
    without_text = _sub(rf"{_TEXT_CMD}\{{[^{{}}]*\}}|\\(?:begin|end)\s*\{{[^{{}}]*\}}(?:\{{[^{{}}]*\}})?", " ", s)
    for m in compile_pattern(r"(?<![\\A-Za-z])[A-Za-z]{2,}").finditer(without_text):
        word = m.group(0)
        if word.lower() in _MATH_WORDS:
            continue
        if len(word) >= 3 or word.lower() in _PROSE_STOPWORDS:
            return word
    return None


#: A name (letters not part of a ``\\command``, a ``\\text{}`` or a sub/superscript) with a number
#: written right after it: ``zz 12``, ``x 4 y 9``, ``x2``.  Mathematics writes a coefficient
#: before its variables (``2x``, ``3\\pi``, ``4\\sqrt{2}``, ``2xy``) or an operator between
#: (``x \\cdot 2``, ``x^2``, ``x_1``); a number after a bare name is prose, a label or a subscript
#: left unwritten, never a product SymPy should build.
_NAME_THEN_NUMBER: Final = r"(?<![\\A-Za-z_^'’])(?P<name>[A-Za-z]+)\s*(?=[0-9])"


def _name_then_number(s: str) -> str | None:
    r"""The first ``name number`` juxtaposition in ``s`` (see :data:`_NAME_THEN_NUMBER`), or ``None``.

    >>> _name_then_number("zz 12"), _name_then_number("x 4 y 9"), _name_then_number("2xy + x^2 + 1")
    ('zz 12', 'x 4', None)
    >>> _name_then_number(r"\sin 30 + \log_b 8 + \sqrt{2} 3 + x_1 2"), _name_then_number("sin 30")
    (None, 'sin 30')
    """
    without_text = _sub(rf"{_TEXT_CMD}\{{[^{{}}]*\}}|\\(?:begin|end)\s*\{{[^{{}}]*\}}(?:\{{[^{{}}]*\}})?", " ", s)
    for m in compile_pattern(_NAME_THEN_NUMBER).finditer(without_text):
        number = compile_pattern(r"[0-9]+(?:\.[0-9]+)?").match(without_text, m.end())
        return without_text[m.start() : number.end() if number is not None else m.end()]
    return None


#: A statement that is nothing but words each with a number written after it: ``zz 12``, ``sin 30``.
_WORDS_AND_NUMBERS: Final = r"^(?:\s*(?<![\\A-Za-z])(?P<w>[A-Za-z]{1,6})[ \t]*[0-9]+(?:\.[0-9]+)?)+\s*$"


def only_names_and_numbers(text: str) -> bool:
    r"""Whether ``text`` is only names each with a number written after it and no operator, no other
    word (``zz 12``, ``sin 30``, ``AB 3 CD 4``): the number belongs to its name, so the statement has
    no number of its own to read.  A name is what the math reader takes for one (a function's name,
    or one or two letters that are not a common English word: :func:`_has_prose`); a statement with
    a word of prose (``lorem 7 ipsum 3``, ``total 12``) keeps its last-number reading.

    >>> [only_names_and_numbers(s) for s in ["zz 12", "sin 30", "lorem 7 ipsum 3", "est de 25"]]
    [True, True, False, False]
    """
    if len(text) > 200:
        return False
    m = compile_pattern(_WORDS_AND_NUMBERS).match(text)
    if m is None:
        return False
    return all(w.lower() in _MATH_WORDS or (len(w) <= 2 and w.lower() not in _PROSE_STOPWORDS) for w in m.captures("w"))


def glued_word_after(text: str, end: int) -> str | None:
    """The letters written right after a number ending at ``end`` in ``text`` when they name no
    unit (``2xyz``: a product, not 2 of something); ``None`` for a unit (``5kg``, ``10th``) or no letters.

    >>> glued_word_after("2xyz", 1), glued_word_after("5kg", 1), glued_word_after("5 kg", 1)
    ('xyz', None, None)
    """
    m = compile_pattern(r"[A-Za-z]+").match(text, end)
    if m is None or _glued_unit(m.group(0)):
        return None
    return m.group(0)


def last_number_glued(text: str) -> str | None:
    r"""The word and number when the last number of ``text`` is written glued to a name before it
    (``A0,5``, ``H2O``, ``v2.5``): the digits are part of a word.  ``None`` otherwise (``1e5``,
    ``x_1``, ``x^2``, ``\sqrt2``, ``5cm``).

    >>> last_number_glued("A0,5"), last_number_glued("1e5"), last_number_glued("5cm"), last_number_glued("x^2")
    ('A0,5', None, None, None)
    """
    numbers = list(compile_pattern(r"[0-9](?:[0-9.,]*[0-9])?").finditer(text))
    if not numbers:
        return None
    last = numbers[-1]
    word = compile_pattern(r"(?<![\\A-Za-z0-9_^'’])[A-Za-z]+$").search(text, 0, last.start())
    return None if word is None else text[word.start() : last.end()]


def _huge(s: str) -> bool:
    """Input SymPy would spend unbounded time on inside one C call (``10^{10^{10}}``, ``10000!``,
    ``1e-99999999``)."""
    if compile_pattern(r"\^\s*\{?\s*[+-]?[0-9]{5,}|[0-9]{5,}\s*!|\^\s*\{[^{}]*\^|[0-9.][eE][+-]?[0-9]{5,}").search(s):
        return True
    return len(s) > MAX_ANSWER_CHARS


def _rationalize(obj: Any) -> Any:
    sp = _sympy()
    if isinstance(obj, sp.MatrixBase):
        return sp.ImmutableMatrix(obj.applyfunc(_rationalize))
    if isinstance(obj, sp.Basic) and obj.has(sp.Float):
        return obj.xreplace({f: sp.Rational(str(f)) for f in obj.atoms(sp.Float)})
    return obj


def _only_symbols(expr: Any) -> bool:
    """A left side that names what is solved for: ``x``, ``f(x)``, ``(p, q)``, ``|AB|``, ``NO/BO``."""
    sp = _sympy()
    if isinstance(expr, sp.Symbol):
        return True
    if isinstance(expr, sp.Tuple):
        return all(_only_symbols(a) for a in expr.args)
    if isinstance(expr, sp.Function) or (isinstance(expr, sp.Basic) and expr.func.__class__ is sp.FunctionClass):
        return all(isinstance(a, (sp.Symbol, sp.Number)) for a in expr.args)
    if isinstance(expr, (sp.Mul, sp.Pow, sp.Abs)):
        return bool(expr.free_symbols) and not expr.atoms(sp.Number) - {sp.Integer(-1), sp.Integer(1)} and not isinstance(expr, sp.Add)
    return False


def _solved(obj: Any) -> Any:
    """``x = 2`` → ``2`` (one variable solved for), element-wise in sets; other equations stay."""
    sp = _sympy()
    if isinstance(obj, sp.Equality) and _only_symbols(obj.lhs) and not getattr(obj.rhs, "free_symbols", None):
        return _solved(obj.rhs)
    if isinstance(obj, sp.FiniteSet):
        return sp.FiniteSet(*(_solved(a) for a in obj.args))
    if isinstance(obj, sp.Tuple):
        return sp.Tuple(*(_solved(a) for a in obj.args))
    return obj


def _split_chain(s: str) -> str:
    """``x = 5 + 5 + 1 = 7 = 11`` → ``11``: in a chain of equalities the last member is the value
    when it is free of letters; ``x = 1/3 \\approx 0.33`` → ``x = 1/3`` (the exact value)."""
    approx = compile_pattern(r"\\approx(?![A-Za-z])|≈")
    parts = approx.split(s)
    if len(parts) > 1:
        before = parts[0].strip()
        if compile_pattern(r"^[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?$").match(before) or not before:
            s = parts[-1]
        else:
            s = before
    members = compile_pattern(r"(?<![<>!\\:])=(?!=)").split(s)
    if len(members) == 2 and "," not in s and members[0].strip() and members[1].strip():
        lhs, rhs = members[0].strip(), members[1].strip()
        rhs_plain = not compile_pattern(r"[A-Za-z]").search(_sub(r"\\(?:frac|sqrt|pi|infty|cdot|times)(?![A-Za-z])", "", rhs))
        # 4 x 3 = 12: a letter x between two numbers, in a computation, is a times sign
        lhs = _sub(r"(?<=[0-9])\s*x\s*(?=[0-9])", " × ", lhs)
        lhs_bare = _sub(r"\\(?:times|cdot|div|frac|sqrt)(?![A-Za-z])", "", lhs)
        if rhs_plain and not compile_pattern(r"[A-Za-z]").search(lhs_bare) and compile_pattern(r"[-+*/×÷^]|\\(?:times|cdot|div)").search(lhs):
            return rhs  # 5 + 3 = 8: a computation, its result is the value
        lhs_names = _sub(r"_\{[^{}]*\}|_[A-Za-z0-9]|\\(?:frac|left|right|mathrm|text|overline)(?![A-Za-z])", "", lhs)
        if rhs_plain and not compile_pattern(r"[0-9]").search(lhs_names) and compile_pattern(r"^[A-Za-z{}()|:/\\ ,\[\]]+$").match(lhs_names):
            return rhs  # k = 1, |AB| = 1, S_{MBCN}:S = 7:32: a named quantity solved for
    if len(members) >= 3 and "," not in s and not compile_pattern(r"[A-Za-z\\]").search(members[-1].strip()):
        return members[-1].strip()
    return s


def _sympy_read(s: str) -> Any:
    _, normalize_latex, norm, conv = _front_end()
    sp = _sympy()
    text = normalize_latex(s, norm)
    obj = read_tree(text, sp)  # the common shapes with letters, built as latex2sympy builds them
    if obj is None:
        obj = latex_to_sympy(text, conv)  # latex2sympy's object, parsed in SLL mode where that suffices
    obj = _rationalize(obj)
    doable = (sp.Expr, sp.Tuple, sp.FiniteSet, sp.Interval, sp.Union)
    if isinstance(obj, doable) and not obj.has(sp.Sum, sp.Product, sp.Integral, sp.Limit, sp.Rel, sp.logic.boolalg.Boolean):
        obj = obj.doit()  # 1*1/e as written → 1/e
    if isinstance(obj, sp.Basic) and not isinstance(obj, sp.MatrixBase):
        e_symbols = [a for a in obj.free_symbols if getattr(a, "name", "") == "e"]
        if e_symbols:
            obj = obj.xreplace({e_symbols[0]: sp.E})
    obj = _solved(obj)
    return obj


def _canonical_expr(obj: Any) -> str:
    sp = _sympy()
    if isinstance(obj, sp.Rational):
        return format_fraction(Fraction(int(obj.p), int(obj.q)))
    if isinstance(obj, sp.FiniteSet):
        return r"\{" + ", ".join(sorted(_canonical_inner(a) for a in obj.args)) + r"\}"
    if isinstance(obj, sp.Tuple):
        return "(" + ", ".join(_canonical_inner(a) for a in obj.args) + ")"
    if isinstance(obj, sp.Interval):
        left = "(" if obj.left_open else "["
        right = ")" if obj.right_open else "]"
        return f"{left}{_canonical_inner(obj.start)}, {_canonical_inner(obj.end)}{right}"
    if isinstance(obj, sp.Union):
        return r" \cup ".join(_canonical_expr(a) for a in obj.args)
    if isinstance(obj, sp.MatrixBase):
        rows = [" & ".join(_canonical_inner(x) for x in obj.row(i)) for i in range(obj.rows)]
        return r"\begin{pmatrix}" + r" \\ ".join(rows) + r"\end{pmatrix}"
    if isinstance(obj, (sp.And, sp.Or)):
        raise _WriteAsRead  # chained relations: written as read
    return _canonical_inner(obj)


class _WriteAsRead(Exception):
    """The object has no canonical spelling of its own; the cleaned input is its spelling."""


def _canonical_inner(obj: Any) -> str:
    sp = _sympy()
    if isinstance(obj, (sp.FiniteSet, sp.Tuple, sp.Interval, sp.Union, sp.MatrixBase)):
        return _canonical_expr(obj)
    if obj is sp.oo:
        return r"\infty"
    if obj is sp.S.NegativeInfinity:
        return r"-\infty"
    # "2 \frac{1}{x}" would read back as a mixed number, "x 2" (x times 2 as written) as no
    # product at all (:func:`_name_then_number`): write the product explicitly
    text = _sub(r"([0-9])\s+\\frac", r"\1 \\cdot \\frac", str(sp.latex(obj)))
    return _sub(_NAME_THEN_NUMBER, r"\g<name> \\cdot ", text) if _name_then_number(text) is not None else text


# --------------------------------------------------------------------------- reading


_DIGITS_ONLY: Final = r"^\s*-?[0-9]{1,3}(?:,?[0-9]{3})*(?:\.[0-9]+)?\s*$|^\s*-?[0-9]+(?:\.[0-9]+)?\s*$"
#: The commonest answers, whole: an integer or decimal (``-862``, ``61,260``, ``0.25``; commas only
#: in full 3-digit groups after a first group without a leading zero, so never a decimal comma),
#: or ``\frac{a}{b}`` of two integers; optionally in ``$…$`` (or after a lone ``$``) and with a
#: final period.  A stdlib pattern (linear, built in).  :func:`_read_plain` gives exactly what the
#: general path gives for them (property test in tests/test_fast_paths.py).
_PLAIN_WHOLE: Final = re.compile(
    r"\$?(-?)(?:([0-9]{1,30}|[1-9][0-9]{0,2}(?:,[0-9]{3}){1,9})(?:\.([0-9]{1,30}))?"
    r"|\\[dtc]?frac\{([0-9]{1,30})\}\{([0-9]{1,30})\})\$?\.?"
)


def _read_plain(s: str) -> MathValue | None:
    r"""The value of ``s`` when it is one of :data:`_PLAIN_WHOLE`'s shapes, read without the
    clean-up (nothing in them is cleaned but the ``$``, the period, ``\dfrac``); else ``None``.
    Its canonical spelling is :func:`plain_canonical`'s, an exact decimal or reduced fraction
    that ``Fraction`` reads back to the value.

    >>> [v.canonical for v in map(_read_plain, ["-862", "$61,260.", r"\frac{54140}{4}", "0.50"]) if v]
    ['-862', '61260', '13535', '0.5']
    """
    canonical = plain_canonical(s)
    if canonical is None:
        return None
    return MathValue("number", canonical, number=Fraction(canonical))


def plain_canonical(s: str) -> str | None:
    r"""The canonical spelling of ``s`` when it is one of :data:`_PLAIN_WHOLE`'s shapes (else
    ``None``), written from the digits without building the value: the parser's answer for a
    plain number, and what :func:`_read_plain` reads back (property tests in
    tests/test_math_fast_paths.py: the same as the general reader gives).

    >>> [plain_canonical(s) for s in ["-862", "$61,260.", r"\frac{54140}{4}", "-0.50", r"\frac{0}{7}", "1/2"]]
    ['-862', '61260', '13535', '-0.5', '0', None]
    """
    m = _PLAIN_WHOLE.fullmatch(s)
    if m is None:
        return None
    sign, whole, decimals, numerator, denominator = m.groups()
    if denominator is not None:
        den = int(denominator)
        if not den:
            return None
        num = int(numerator)
        common = gcd(num, den)
        num //= common
        den //= common
        body = str(num) if den == 1 else f"{num}/{den}"
        return "-" + body if sign and num else body
    body = str(int(whole.replace(",", "") if "," in whole else whole))
    if decimals is not None:
        decimals = decimals.rstrip("0")
        if decimals:
            return f"{sign}{body}.{decimals}"  # not zero: the decimals hold a digit other than 0
    return "-" + body if sign and body != "0" else body


def _read(s: str, timeout: float) -> MathValue:
    plain = _read_plain(s)
    return plain if plain is not None else _read_general(s, timeout)


def _read_general(s: str, timeout: float) -> MathValue:
    if ".." in s or "…" in s or "dots" in s or "overline" in s:
        s = _sub(_REPEATING, _repeating_fraction, s)  # 0.333... is 1/3, not 0.333
    stripped = s.strip()
    # the commonest answer: no clean-up to do.  Past 200 characters _plain_number reads nothing,
    # and _DIGITS_ONLY backtracks quadratically on a long run of digits: not tried there.
    if len(stripped) <= _PLAIN_MAX and compile_pattern(_DIGITS_ONLY).match(s):
        plain = _plain_number(stripped)
        if plain is not None:
            return MathValue("number", _number_canonical(plain[0], plain[1], False), number=plain[0])
    if not s.isascii():
        slashed = fraction_slashes(s)
        if isinstance(slashed, Refusal):
            raise NotMath(slashed.reason)
        s = slashed
    original = s
    if len(s) > MAX_ANSWER_CHARS:
        raise NotMath(f"the answer is longer than {MAX_ANSWER_CHARS} characters")
    s, percent, dropped = _clean(s)
    if not s:
        raise NotMath("no answer: the text is empty")
    if compile_pattern(_HEDGES).search(s) and len(compile_pattern(r"[0-9]+").findall(s)) >= 2:
        raise NotMath(f"the answer hedges between values: {original.strip()[:80]!r}", "contradictory")
    text_whole = compile_pattern(_TEXT_WHOLE).match(s)
    if text_whole is not None:
        inner = text_whole.group("t").strip()
        inner_value = _plain_number(inner)
        if inner_value is None:
            return _text_value(inner)
        s = inner
    # words, magnitudes, mixed numbers, locales, ranges; a gold is one value as its dataset
    # writes it, so a lone decimal comma (12,5) is read below as the plain reader reads it
    accounted = read_phrase(s, None, whole=True, math=True)
    if isinstance(accounted, Refusal) and accounted.kind != "ambiguous number":
        raise NotMath(accounted.reason)
    if isinstance(accounted, Reading):
        if accounted.unit is not None:
            dropped.append(accounted.unit)
        return MathValue("number", _number_canonical(accounted.value, accounted.as_fraction, percent or accounted.percent),
                         number=accounted.value, percent=percent or accounted.percent, dropped=tuple(dropped))
    plain = _plain_number(s)
    if plain is None:
        stripped = _strip_unit(s, dropped)
        if stripped != s:
            s = stripped
            plain = _plain_number(s)
    if plain is not None:
        value, as_fraction = plain
        return MathValue("number", _number_canonical(value, as_fraction, percent), number=value,
                         percent=percent, dropped=tuple(dropped))
    if compile_pattern(r"^[A-Za-z][A-Za-z ]*[A-Za-z]$").match(s) and s.lower() not in _MATH_WORDS:
        return _text_value(s)  # odd, Even, Evelyn
    if compile_pattern(r"^[0-9]{1,2}:00(?::[0-9]{2})?$").match(s):
        return _text_value(s)  # 12:00: a time of day, not a ratio with 0
    if compile_pattern(r"^[0-9A-Za-z]+_\{?[0-9]+\}?$").match(s):
        return _text_value(_sub(r"[{}]", "", s))  # 204_5: a numeral in base 5
    if compile_pattern(r"^\(?[A-Z]\)?$").match(s) and s.strip("()") not in ("E",):
        return _text_value(s.strip("()"))  # (C): an option letter
    s = _sub(_LIST_GLUE, ", ", s).strip(" ,")
    s = _sub(r",\s*(?:,\s*)+", ", ", s)
    if s.startswith("(") and s.endswith(")") and "=" in s and _brace_depth_ok(s[1:-1]):
        s = s[1:-1].strip()  # (35 + 70 = 105)
    s = _split_chain(s)
    plain = _plain_number(s.strip())
    if plain is not None:
        value, as_fraction = plain
        return MathValue("number", _number_canonical(value, as_fraction, percent), number=value,
                         percent=percent, dropped=tuple(dropped))
    word = _has_prose(s)
    if word is not None:
        raise NotMath(f"{word!r} is prose, not part of a mathematical answer")
    juxtaposed = _name_then_number(s)
    if juxtaposed is not None:
        raise NotMath(f"{juxtaposed!r}: a number written after a name with no operator between "
                      "is not read as a product (prose, a label or an unwritten subscript)")
    gloss = compile_pattern(_GLOSS).match(s)
    if gloss is not None:  # "25% (0.25)", "8 (5 + 3)": a value, and another in brackets after it
        glossed = _glossed(gloss["a"], gloss["b"], timeout)
        if glossed is not None:
            return dataclasses.replace(glossed, dropped=(*dropped, *glossed.dropped))
    inside = _unit_inside(s)
    if inside is not None:
        raise NotMath(f"{s.strip()[:80]!r}: a number with its unit ({inside!r}) inside an expression is not one value "
                      "(its unit's letters would be read as variables)", whole=True)
    if _huge(s):
        raise NotMath("a power or factorial too large to evaluate")
    _front_end()  # importing SymPy takes a second or more: not part of any answer's time
    return call_within(lambda: _symbolic(s, percent, dropped), timeout)


def _symbolic(s: str, percent: bool, dropped: list[str]) -> MathValue:
    """The SymPy path of :func:`_read`, run within the caller's time bound: the common forms
    by :func:`normalize.values._commonmath.read_common` (no latex2sympy: its ANTLR parser was ~95 %
    of the time), the rest as latex2sympy reads them (:func:`_sympy_read`)."""
    obj = read_common(s, _sympy())
    if obj is None:
        obj = _latex2sympy_value(s)
    return _value_of(obj, s, percent, dropped)


def _latex2sympy_value(s: str) -> Any:
    """``s`` read by latex2sympy (a list of members when it reads no whole expression)."""
    try:
        return _sympy_read(s)
    except TimeUp:
        raise
    except (RecursionError, MemoryError) as exc:
        raise NotMath(f"the expression is too deep to read ({type(exc).__name__})") from None
    except Exception as exc:  # latex2sympy's parse errors are plain Exception
        parts = _top_level_split(s)
        if len(parts) < 2 and "\\pm" not in s:
            raise NotMath(f"not a mathematical expression: {str(exc).splitlines()[0][:80]}") from None
        return _list_of(parts, str(exc))


def _value_of(obj: Any, s: str, percent: bool, dropped: list[str]) -> MathValue:
    """The answer read from ``s`` whose SymPy value is ``obj``."""
    sp = _sympy()
    if obj is None or obj is sp.nan or obj is sp.zoo or (isinstance(obj, sp.Basic) and obj.has(sp.zoo, sp.nan)):
        raise NotMath("the expression has no value (division by zero)")
    if isinstance(obj, sp.Basic) and obj.has(sp.log):
        obj = _based_logs_divided(obj, sp)
    if isinstance(obj, sp.Rational):
        value = Fraction(int(obj.p), int(obj.q))
        return MathValue("number", _number_canonical(value, "/" in s or "frac" in s, percent), number=value,
                         percent=percent, dropped=tuple(dropped))
    if percent:
        if not isinstance(obj, sp.Expr):
            raise NotMath("a percent sign after something that is not a number")
        obj = obj / 100
    try:
        canonical = _canonical_expr(obj)
    except _WriteAsRead:
        canonical = " ".join(s.split())
    except (TypeError, ValueError, AttributeError, NotImplementedError, RecursionError) as exc:
        raise NotMath(f"the expression cannot be written back ({type(exc).__name__})") from None
    return MathValue("expr", canonical, obj=obj, dropped=tuple(dropped))


def _based_logs_divided(obj: Any, sp: Any) -> Any:
    r"""``obj`` with each logarithm to a base, ``log(x, b)`` as latex2sympy builds it for
    ``\log_b x``, written ``log(x)/log(b)``: SymPy's printer drops a kept base (``\log_b 8``
    would be written, and compared, as ``\log 8``).

    >>> import sympy
    >>> _based_logs_divided(sympy.log(8, sympy.Symbol("b"), evaluate=False), sympy)
    log(8)/log(b)
    """
    return obj.replace(lambda e: isinstance(e, sp.log) and len(e.args) == 2,
                       lambda e: sp.log(e.args[0]) / sp.log(e.args[1]))


def _brace_depth_ok(s: str) -> bool:
    depth = 0
    for c in s:
        depth += c in "([{"
        depth -= c in ")]}"
        if depth < 0:
            return False
    return depth == 0


def _top_level_split(s: str) -> list[str]:
    """``x = 1/2, x = \\frac{-1 \\pm \\sqrt{13}}{4}`` → its comma-separated members."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, c in enumerate(s):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0 and (i == 0 or s[i - 1] != "\\"):
            parts.append(s[start:i].strip())
            start = i + 1
    parts.append(s[start:].strip())
    return [p for p in parts if p]


def _list_of(parts: list[str], why: str) -> Any:
    """A set of the members' values (a member ``a \\pm b`` gives both)."""
    sp = _sympy()
    values: list[Any] = []
    for part in parts:
        variants = [part]
        if "\\pm" in part:  # \frac{-1 \pm \sqrt{13}}{4}: both signs
            variants = [part.replace("\\pm", "+", 1), part.replace("\\pm", "-", 1)]
        for variant in variants:
            try:
                member = _sympy_read(_split_chain(variant))
            except TimeUp:
                raise
            except Exception:  # latex2sympy's parse errors are plain Exception
                raise NotMath(f"not a mathematical expression: {why.splitlines()[0][:80]}") from None
            values.extend(member.args if isinstance(member, sp.FiniteSet) else [member])
    if any(isinstance(v, sp.Basic) and v.has(sp.zoo, sp.nan) for v in values):
        # (a set cannot even be built: SymPy orders its members, and NaN has no order)
        raise NotMath("the expression has no value (division by zero)")
    return sp.FiniteSet(*values)


def _text_value(text: str) -> MathValue:
    inner = " ".join(text.split()).strip("() ")
    if not inner:
        raise NotMath("an empty \\text{}")
    return MathValue("text", r"\text{" + inner + "}", text=inner)


@lru_cache(maxsize=8192)
def _read_cached(s: str, timeout: float) -> MathValue | NotMath:
    try:
        return _read(s, timeout)
    except NotMath as exc:
        return exc


#: Values by their canonical spelling: reading a canonical answer gives the value it came from
#: (the round-trip property the tests check), so the scorer never parses an answer twice.
_BY_CANONICAL: dict[str, MathValue] = {}
_BY_CANONICAL_MAX: Final = 8192


def read_value(s: str, *, timeout: float = DEFAULT_MATH_TIMEOUT) -> MathValue:
    """Read one answer string; raise :class:`NotMath` (with a status) or :class:`TimeUp`.

    Plain numbers are read without SymPy and without any clock; the SymPy path runs within
    ``timeout`` seconds (:func:`normalize.limits._deadline.call_within`).

    >>> [read_value(s).canonical for s in ["1,000", r"1\\frac{1}{4}", r"\\dfrac{2}{4}", "20\\\\%", r"x = 5"]]
    ['1000', '5/4', '1/2', '20%', '5']
    """
    known = _BY_CANONICAL.get(s)
    if known is not None:
        return known
    got = _read_cached(s, timeout)
    if isinstance(got, NotMath):
        raise got
    if got.canonical not in _BY_CANONICAL:
        if len(_BY_CANONICAL) >= _BY_CANONICAL_MAX:
            _BY_CANONICAL.pop(next(iter(_BY_CANONICAL)))
        # the canonical spelling carries no unit: reading it drops nothing
        _BY_CANONICAL.setdefault(got.canonical, dataclasses.replace(got, dropped=()) if got.dropped else got)
    return got


#: Spellings of one unit: degrees (``^\\circ``, ``°``, ``degrees`` are read as one) and currency.
_UNIT_ALIASES: Final = {"degree": "degrees", "deg": "degrees", "°": "degrees", "\\circ": "degrees",
                        "dollar": "dollars", "$": "dollars", "\\$": "dollars", "us$": "dollars"}
#: Units a gold may carry without the answer having to: a currency is formatting in practice.
_OPTIONAL_UNITS: Final = frozenset({"dollars", "cents", "¥", "€", "£", "₹"})


def unit_names(dropped: Iterable[str]) -> frozenset[str]:
    r"""Normalized names of the units in ``dropped`` (:attr:`MathValue.dropped`): ``\text{}``,
    ``\mathrm{}``, spacing and case do not count; pure formatting gives no name.

    >>> sorted(unit_names([r"\text{ CM}", "degrees", "°", r"\,"]))
    ['cm', 'degrees']
    """
    names: set[str] = set()
    for unit in dropped:
        key = _sub(rf"{_TEXT_CMD}|[{{}}\s]|\\[,;:! ]", "", unit).casefold()
        if key:
            names.add(_UNIT_ALIASES.get(key, key))
    return frozenset(names)


def units_of(s: str, *, timeout: float = DEFAULT_MATH_TIMEOUT) -> frozenset[str]:
    r"""The units ``s`` itself carries, as :func:`unit_names` (read from ``s``, never from a value
    found by canonical spelling); ``frozenset()`` when ``s`` is no mathematical answer.

    >>> sorted(units_of(r"5\text{ cm}")), sorted(units_of("30^\\circ")), sorted(units_of("5"))
    (['cm'], ['degrees'], [])
    """
    got = _read_cached(s, timeout)
    return frozenset() if isinstance(got, NotMath) else unit_names(got.dropped)


def required_units(names: frozenset[str]) -> frozenset[str]:
    """The unit names that must match between answer and gold: ``names`` less currency."""
    return names - _OPTIONAL_UNITS


# --------------------------------------------------------------------------- equivalence


@dataclass(frozen=True)
class Tolerance:
    """How close two numbers must be: ``max(rel·max(|a|,|b|), abs)``; irrational values
    always get at least ``1e-12`` relative (they are compared numerically)."""

    rel: float = 0.0
    abs: float = 0.0


_FLOOR: Final = Fraction(1, 10**12)


def _close(a: Fraction, b: Fraction, tol: Tolerance) -> bool:
    if a == b:
        return True
    bound = max(Fraction(tol.rel) * max(abs(a), abs(b)), Fraction(tol.abs))
    return abs(a - b) <= bound


def _num_candidates(v: MathValue, *, answer: bool, percent_bare: bool) -> list[Fraction]:
    assert v.number is not None
    if not v.percent:
        return [v.number]
    out = [v.number / 100]
    if not answer or percent_bare:
        out.append(v.number)
    return out


def equivalent(answer: MathValue, gold: MathValue, *, tol: Tolerance = Tolerance(), percent_bare: bool = False,
               timeout: float = DEFAULT_MATH_TIMEOUT) -> bool:
    """Whether ``answer`` means the same as ``gold``.  Numbers: exact rationals (or within
    ``tol``); a percentage means its value (``20%`` = 0.2), a gold percentage also accepts the
    bare number (``20``), and an answer percentage matches a bare gold only with ``percent_bare``.
    Everything else: SymPy (see :func:`_same`).  Raises :class:`TimeUp` past ``timeout``.

    >>> r = read_value
    >>> equivalent(r("0.5"), r(r"\\frac{1}{2}")), equivalent(r("0.5\\\\%"), r("0.5")), equivalent(r("20"), r("20\\\\%"))
    (True, False, True)
    """
    if answer.kind == "number" and gold.kind == "number":
        a_vals = _num_candidates(answer, answer=True, percent_bare=percent_bare)
        g_vals = _num_candidates(gold, answer=False, percent_bare=percent_bare)
        return any(_close(a, g, tol) for a in a_vals for g in g_vals)
    if answer.kind == "text" or gold.kind == "text":
        return _text_key(answer) == _text_key(gold)
    _sympy()  # imported outside the time bound
    return bool(call_within(lambda: _same_cached(answer, gold, tol), timeout))


def _text_key(v: MathValue) -> str:
    if v.kind == "text":
        assert v.text is not None
        return _sub(r"[\s(){}]", "", v.text).casefold()
    if v.kind == "expr":
        sp = _sympy()
        if isinstance(v.obj, sp.Symbol):
            return str(v.obj.name).casefold()
        if v.obj is sp.E:
            return "e"
    return "\x00" + v.canonical  # never equal to a text key


def _as_sympy(v: MathValue) -> Any:
    sp = _sympy()
    if v.kind == "number":
        assert v.number is not None
        value = v.number / 100 if v.percent else v.number
        return sp.Rational(value.numerator, value.denominator)
    return v.obj


@lru_cache(maxsize=8192)
def _same_cached(a: MathValue, b: MathValue, tol: Tolerance) -> bool:
    try:
        return _same(_as_sympy(a), _as_sympy(b), tol)
    except (TypeError, ValueError, AttributeError, NotImplementedError, RecursionError, ZeroDivisionError):
        return False  # SymPy cannot compare these two objects: not shown equal


def _same(a: Any, b: Any, tol: Tolerance) -> bool:
    sp = _sympy()
    if a == b:  # structurally identical (also sets SymPy has no finer rule for, e.g. ∅)
        return True
    if isinstance(a, sp.FiniteSet) and isinstance(b, sp.FiniteSet):
        return _bijection(list(a.args), list(b.args), tol)
    if isinstance(a, sp.FiniteSet) and len(a.args) == 1 and not isinstance(b, sp.Set):
        return _same(a.args[0], b, tol)
    if isinstance(b, sp.FiniteSet) and len(b.args) == 1 and not isinstance(a, sp.Set):
        return _same(a, b.args[0], tol)
    if (isinstance(a, sp.FiniteSet) and isinstance(b, sp.Tuple)) or (isinstance(a, sp.Tuple) and isinstance(b, sp.FiniteSet)):
        s, t = (a, b) if isinstance(a, sp.FiniteSet) else (b, a)
        return len(s.args) == len(t.args) and all(_same(x, y, tol) for x, y in zip(s.args, t.args, strict=True))
    if isinstance(a, sp.Tuple) and isinstance(b, sp.Tuple):
        return len(a.args) == len(b.args) and all(_same(x, y, tol) for x, y in zip(a.args, b.args, strict=True))
    if isinstance(a, sp.Interval) and isinstance(b, sp.Interval):
        return (a.left_open == b.left_open and a.right_open == b.right_open
                and _same(a.start, b.start, tol) and _same(a.end, b.end, tol))
    if (isinstance(a, sp.Interval) and isinstance(b, sp.FiniteSet)) or (isinstance(a, sp.FiniteSet) and isinstance(b, sp.Interval)):
        i, f = (a, b) if isinstance(a, sp.Interval) else (b, a)  # {1, 3} written for the pair (1, 3)
        return (i.left_open and i.right_open and len(f.args) == 2
                and _same(i.start, f.args[0], tol) and _same(i.end, f.args[1], tol))
    if _is_condition(a) and isinstance(b, sp.Set) and not isinstance(b, sp.FiniteSet):
        return _same(_as_set(a), b, tol)
    if _is_condition(b) and isinstance(a, sp.Set) and not isinstance(a, sp.FiniteSet):
        return _same(a, _as_set(b), tol)
    if isinstance(a, sp.Equality) and _only_symbols(a.lhs) and isinstance(b, sp.Expr):
        return _same(a.rhs, b, tol)
    if isinstance(b, sp.Equality) and _only_symbols(b.lhs) and isinstance(a, sp.Expr):
        return _same(a, b.rhs, tol)
    if (isinstance(a, sp.Interval) and isinstance(b, sp.Tuple)) or (isinstance(a, sp.Tuple) and isinstance(b, sp.Interval)):
        i, t = (a, b) if isinstance(a, sp.Interval) else (b, a)
        return (i.left_open and i.right_open and len(t.args) == 2
                and _same(i.start, t.args[0], tol) and _same(i.end, t.args[1], tol))
    if isinstance(a, sp.Intersection) or isinstance(b, sp.Intersection):
        return bool(sp.simplify(sp.SymmetricDifference(a, b)) == sp.S.EmptySet)
    if isinstance(a, sp.Union) and isinstance(b, sp.Union):
        return _bijection(list(a.args), list(b.args), tol)
    if isinstance(a, sp.MatrixBase) and isinstance(b, sp.MatrixBase):
        return a.shape == b.shape and all(_same(x, y, tol) for x, y in zip(a, b, strict=True))
    if isinstance(a, sp.Rel) and isinstance(b, sp.Rel):
        return _same_relation(a, b, tol)
    if isinstance(a, sp.And) and isinstance(b, sp.And):
        return _bijection(list(a.args), list(b.args), tol)
    kinds = (sp.Set, sp.Tuple, sp.MatrixBase, sp.Rel, sp.And, sp.Or)
    if isinstance(a, kinds) or isinstance(b, kinds):
        return False
    if isinstance(a, sp.Expr) and isinstance(b, sp.Expr):
        return _same_expr(a, b, tol)
    return bool(a == b)


def _subject(x: Any) -> Any:
    """The one non-numeric side the inequalities of ``x`` constrain (``x``, ``f(x)``, ``|z|``), or None."""
    sp = _sympy()
    relations = x.args if isinstance(x, sp.And) else (x,)
    subjects = set()
    for r in relations:
        if not isinstance(r, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
            return None
        sides = [side for side in (r.lhs, r.rhs) if side.free_symbols]
        if len(sides) != 1:
            return None
        subjects.add(sides[0])
    return subjects.pop() if len(subjects) == 1 else None


def _is_condition(x: Any) -> bool:
    """An inequality, or a chain of them, on one quantity: ``-2 \\le x \\le 7``, ``0 < f(x) < 1``."""
    return _subject(x) is not None


def _as_set(condition: Any) -> Any:
    sp = _sympy()
    t = sp.Symbol("_t", real=True)
    subject = _subject(condition)
    bounded = _bounded_by_numbers(condition, subject)
    if bounded is not None:
        return bounded
    if isinstance(subject, sp.Symbol) or (isinstance(subject, sp.Abs) and isinstance(subject.args[0], sp.Symbol)):
        variable = subject if isinstance(subject, sp.Symbol) else subject.args[0]
        return condition.xreplace({variable: t}).as_set()
    return condition.xreplace({subject: t}).as_set()


def _bounded_by_numbers(condition: Any, subject: Any, abs_of: Any = None) -> Any | None:
    """The set :func:`_as_set` finds for a chain of bounds on ``subject`` by rational numbers
    (``-2 \\le x \\le 7``, ``0 < f(x) < 1``), as the intersection of the intervals each bound
    allows, which is how SymPy's ``as_set`` builds it, without its inequality solver (~40 ms a
    chain); for bounds on ``|z|`` the values whose magnitude they allow (``J`` and ``-J``);
    ``None`` for any other condition (a bound that is no rational number, ``|z + 1|``).
    Property test in tests/test_math_common_forms.py: the same set as ``as_set``.

    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> _bounded_by_numbers(sympy.And(sympy.Le(-2, x), sympy.Lt(x, 7)), x)
    Interval.Ropen(-2, 7)
    """
    sp = _sympy()
    if isinstance(subject, sp.Abs):
        if not isinstance(subject.args[0], sp.Symbol):
            return None
        magnitudes = _bounded_by_numbers(condition, subject.args[0].__class__("_abs"), abs_of=subject)
        if magnitudes is None:
            return None
        allowed = sp.Intersection(magnitudes, sp.Interval(0, sp.oo, False, True))  # |t| in J: t in -J or J
        if isinstance(allowed, sp.Interval):
            mirrored = sp.Interval(-allowed.end, -allowed.start, allowed.right_open, allowed.left_open)
        elif isinstance(allowed, sp.FiniteSet):
            mirrored = sp.FiniteSet(*(-v for v in allowed.args))
        else:
            return None
        values = sp.Union(mirrored, allowed)
        return None if values == sp.Interval(sp.S.NegativeInfinity, sp.oo) else values  # as_set: UniversalSet
    relations = condition.args if isinstance(condition, sp.And) else (condition,)
    intervals = []
    if abs_of is not None:  # bounds on |t|, read as bounds on a quantity of its own
        relations = tuple(r.xreplace({abs_of: subject}) for r in relations)
    for r in relations:
        if r.lhs == subject and isinstance(r.rhs, sp.Rational):
            bound, below = r.rhs, isinstance(r, (sp.StrictLessThan, sp.LessThan))
        elif r.rhs == subject and isinstance(r.lhs, sp.Rational):
            bound, below = r.lhs, isinstance(r, (sp.StrictGreaterThan, sp.GreaterThan))
        else:
            return None
        strict = isinstance(r, (sp.StrictLessThan, sp.StrictGreaterThan))
        intervals.append(sp.Interval(sp.S.NegativeInfinity, bound, True, strict) if below
                         else sp.Interval(bound, sp.oo, strict, True))
    return sp.Intersection(*intervals)


def _bijection(xs: list[Any], ys: list[Any], tol: Tolerance) -> bool:
    if len(xs) != len(ys):
        return False
    left = list(ys)
    for x in xs:
        for i, y in enumerate(left):
            if _same(x, y, tol):
                del left[i]
                break
        else:
            return False
    return True


def _same_relation(a: Any, b: Any, tol: Tolerance) -> bool:
    sp = _sympy()

    def oriented(r: Any) -> tuple[str, Any]:
        if isinstance(r, sp.Equality):
            return "eq", r.lhs - r.rhs
        if isinstance(r, sp.Unequality):
            return "ne", r.lhs - r.rhs
        if isinstance(r, sp.StrictLessThan):
            return "lt", r.lhs - r.rhs
        if isinstance(r, sp.LessThan):
            return "le", r.lhs - r.rhs
        if isinstance(r, sp.StrictGreaterThan):
            return "lt", r.rhs - r.lhs
        if isinstance(r, sp.GreaterThan):
            return "le", r.rhs - r.lhs
        return "?", None

    ka, da = oriented(a)
    kb, db = oriented(b)
    if ka != kb or da is None or db is None:
        return False
    if _same_expr(da, db, tol):
        return True
    if db == 0:
        return False
    ratio = sp.simplify(da / db)
    if ratio.free_symbols or not ratio.is_number or ratio == 0:
        return False
    return bool(ka in ("eq", "ne") or ratio.is_positive)


def _same_expr(a: Any, b: Any, tol: Tolerance) -> bool:
    sp = _sympy()
    if a == b:
        return True
    if isinstance(a, sp.Rational) and isinstance(b, sp.Rational):
        return _close(Fraction(int(a.p), int(a.q)), Fraction(int(b.p), int(b.q)), tol)
    symbols = sorted(a.free_symbols | b.free_symbols, key=str)
    if not symbols:
        return _numerically_equal(a, b, tol)
    rng = random.Random(0x5EED)
    for _ in range(3):  # reject fast on random points; then confirm symbolically
        point = {s: sp.Rational(rng.randint(11, 97), rng.randint(7, 13)) for s in symbols}
        try:
            va, vb = a.xreplace(point), b.xreplace(point)
        except (TypeError, ValueError):
            break
        if va.is_number and vb.is_number and not _numerically_equal(va, vb, tol):
            return False
    try:
        return bool(sp.simplify(a - b) == 0)
    except (TypeError, ValueError, AttributeError):
        return False


def _numerically_equal(a: Any, b: Any, tol: Tolerance) -> bool:
    sp = _sympy()
    try:
        va, vb = sp.N(a, 40), sp.N(b, 40)
    except (TypeError, ValueError):
        return False
    if not (va.is_number and vb.is_number):
        return False
    if va.has(sp.I) or vb.has(sp.I):
        re_a, im_a = va.as_real_imag()
        re_b, im_b = vb.as_real_imag()
        return _float_close(re_a, re_b, tol) and _float_close(im_a, im_b, tol)
    return _float_close(va, vb, tol)


def _float_close(a: Any, b: Any, tol: Tolerance) -> bool:
    sp = _sympy()
    if a in (sp.oo, sp.S.NegativeInfinity, sp.zoo) or b in (sp.oo, sp.S.NegativeInfinity, sp.zoo):
        return bool(a == b)
    try:
        fa, fb = Fraction(str(sp.Float(a, 40))), Fraction(str(sp.Float(b, 40)))
    except (TypeError, ValueError):
        return False
    scale = max(abs(fa), abs(fb), Fraction(1))
    bound = max(Fraction(tol.rel) * max(abs(fa), abs(fb)), Fraction(tol.abs), _FLOOR * scale)
    return abs(fa - fb) <= bound


__all__ = [
    "DEFAULT_MATH_TIMEOUT",
    "INVISIBLE_CHARS",
    "MathValue",
    "NotMath",
    "TimeUp",
    "Tolerance",
    "equivalent",
    "read_value",
    "remove_invisible",
    "unwrap_boxes",
]
