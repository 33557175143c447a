"""Stage 4, semantic: numbers in one canonical spelling, for math answers.

The rules only act on numbers that stand alone: digits inside words, identifiers, versions,
dates, times and IP addresses (``v1.5``, ``A1B2``, ``2024-01-05``, ``3.14.1``, ``192.168.0.1``,
``x2``) are never touched, and no rule reads a value through a float.

A math chain runs them in this order; each rule is idempotent, and so is the chain as long as
``canonicalize_numbers`` keeps percent signs (``percent: fraction`` turns ``50%个`` into ``0.5个``,
which ``strip_units`` would then shorten on a second run)::

    convert_chinese_numerals → simplify_latex_numbers → strip_units → canonicalize_numbers

``百分之五十`` is turned into ``50%`` by :func:`convert_chinese_numerals` (it has no percent
option); the one place that decides between ``50%`` and ``0.5`` is the ``percent`` option of
:func:`canonicalize_numbers`, which also reads ``百分之…`` itself when the Chinese rule is not in
the chain.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Final, Literal

import regex
from pydantic import field_validator, model_validator

from normalize import status as st
from normalize.core.registry import DEFAULT_TIMEOUT, NoParams, Params, StrTuple, rule
from normalize.errors import RejectText
from normalize.limits._budget import MAX_ROUNDS
from normalize.limits._regex import compile_pattern
from normalize.values._latex import unwrap_latex_numbers
from normalize.values._numbers import (
    CN_NUMERAL_CHARS,
    CN_PLAIN_DIGITS,
    PERCENT_SUFFIX,
    check_locale,
    convert_chinese,
    format_number,
    operator_before,
    to_fraction,
    token_pattern,
    token_value,
)

# --------------------------------------------------------------------------- canonicalize_numbers


class CanonicalizeNumbersParams(Params):
    """Locale and options of :func:`canonicalize_numbers`.

    ``thousands``: the separators this pack's locale groups digits with; a grouping is merged
    only when every group after the first has exactly three digits (``1,000`` yes, ``1,5`` and
    ``12,34`` no).  Choose from ``, . ' `` and the spaces U+0020, U+00A0, U+202F, U+2009.
    ``decimal_comma``: read ``1000,99`` as 1000.99 (then ``,`` cannot be a thousands separator).
    ``scientific``: expand ``1e3`` to ``1000`` (exponents up to ±1000).
    ``percent``: ``keep`` leaves ``50%``/``50 percent``/``百分之五十`` as written (the number in
    ``50.0%`` is still canonicalized); ``fraction`` writes the value (``0.5``); ``percent`` writes
    ``50%``.
    """

    thousands: StrTuple = (",",)
    decimal_comma: bool = False
    scientific: bool = False
    percent: Literal["keep", "fraction", "percent"] = "keep"

    @model_validator(mode="after")
    def _check_locale(self) -> CanonicalizeNumbersParams:
        check_locale(self.thousands, self.decimal_comma)
        return self


_CANONICAL_DEFAULTS: Final = CanonicalizeNumbersParams()
_NO_PARAMS: Final = NoParams()
_UNICODE_MINUS: Final = r"\u2212(?=[.,]?[0-9])"
_CN_PERCENT: Final = (
    rf"(?<![{CN_NUMERAL_CHARS}])(?P<neg>负|-)?百分之"
    rf"(?:(?P<arabic>[0-9]+(?:\.[0-9]+)?)(?![0-9.])"
    rf"|(?P<cn>[{CN_NUMERAL_CHARS}]+(?:点[{CN_PLAIN_DIGITS}]+)?)(?![{CN_NUMERAL_CHARS}]|点))"
    rf"(?!{PERCENT_SUFFIX})"
)


def _sign_before(text: str, start: int) -> bool:
    """``++3``: a second sign; dropping the inner one would expose the outer one next time."""
    j = start - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return j >= 0 and text[j] in "+-\u2212"


def _write_percent(value: Fraction, mode: str, written: str) -> str:
    if mode == "fraction":
        return format_number(value / 100)
    if mode == "percent":
        return format_number(value) + "%"
    return format_number(value) + written


@rule("canonicalize_numbers", version=1, scope=("math",), params=CanonicalizeNumbersParams)
def canonicalize_numbers(
    text: str, params: CanonicalizeNumbersParams = _CANONICAL_DEFAULTS, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Rewrite each standalone number in one canonical form (``.5``→``0.5``, ``1,000``→``1000``).

    Canonical: no ``+``, ASCII ``-`` for U+2212, no grouping, no trailing zeros, a whole value
    without a decimal point (``2.0``→``2``), never ``-0``.  Digits that touch letters or are
    chained into dates, versions or IP addresses stay as they are, an invalid grouping (``1,5``)
    is left alone rather than guessed, and so is an integer part with leading zeros (``007``,
    the ``000`` of a space-grouped ``1 000`` in a locale without space grouping).

    Bound: O(n): one token scan (plus at most 16 linear rounds while ``百分之`` conversions chain).

    >>> canonicalize_numbers("+.50 and 1,000.0 and −3; v1.5 2024-01-05 1,5 x2")
    '0.5 and 1000 and -3; v1.5 2024-01-05 1,5 x2'
    >>> canonicalize_numbers("50.0% 百分之五十", CanonicalizeNumbersParams(percent="fraction"))
    '0.5 0.5'
    >>> canonicalize_numbers("1 000,50", CanonicalizeNumbersParams(thousands=(" ",), decimal_comma=True))
    '1000.5'
    """
    pattern = compile_pattern(
        token_pattern(
            params.thousands, params.decimal_comma, scientific=params.scientific, ratio=False, percent=True, wan=True
        )
    )

    def rewrite(m: regex.Match[str]) -> str:
        value = token_value(m, sign=False)
        whole = m.group("int0")
        if value is None or (whole is not None and len(whole) > 1 and whole.startswith("0")):
            return m.group(0)  # 007, 000: codes, padded fields or space-grouped digits
        prefix, sign = "", m.group("sign")
        if sign is not None:
            if operator_before(m.string, m.start(), timeout=timeout) or _sign_before(m.string, m.start()):
                prefix = sign
            elif sign == "-":
                value = -value
        written = m.group("pct")
        if written is None:
            return prefix + format_number(value)
        return prefix + _write_percent(value, params.percent, written)

    def rewrite_all(text: str) -> str:
        text = compile_pattern(_UNICODE_MINUS).sub("-", text)
        return pattern.sub(rewrite, text)

    text = rewrite_all(text)
    # 百分之… rewritten can touch a number (".百分之5" → ".5"): repeat until settled.  Each
    # round that changes the text removes a 百分之, so this ends.
    # At most MAX_ROUNDS rounds, each linear: a chain of conversions longer than that is
    # adversarial and gets status error.
    rounds = 0
    while params.percent != "keep" and "百分之" in text:
        rewritten = compile_pattern(_CN_PERCENT).sub(
            lambda m: _rewrite_cn_percent(m, params.percent, timeout=timeout), text
        )
        if rewritten == text:
            break
        rounds += 1
        if rounds > MAX_ROUNDS:
            raise RejectText(st.ERROR, f"百分之 conversions did not settle in {MAX_ROUNDS} rounds")
        text = rewrite_all(rewritten)
    return text


def _rewrite_cn_percent(m: regex.Match[str], mode: str, *, timeout: float) -> str:
    if m.group("arabic") is not None:
        value: Fraction | None = Fraction(m.group("arabic"))
    else:
        value = to_fraction(f"百分之{m.group('cn')}", percent="number", timeout=timeout)
    if value is None:
        return m.group(0)
    if m.group("neg"):
        value = -value
    return _write_percent(value, mode, "%")


# --------------------------------------------------------------------------- convert_chinese_numerals


@rule("convert_chinese_numerals", version=1, scope=("math",))
def convert_chinese_numerals(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Rewrite Chinese numerals that are clearly numbers as Arabic numerals.

    ``一百二十三``→``123``, ``两千零五``→``2005``, ``三点五``→``3.5``, ``负五``→``-5``,
    ``三分之二``→``2/3``, ``百分之五十``→``50%`` (``canonicalize_numbers`` decides between
    ``50%`` and ``0.5``), ``二又二分之一``→``5/2``, ``二〇二四年``→``2024年``, ``3万``→``30000``.
    A lone digit character is converted only when it stands on its own, ends the text after
    ``是/为/于``, or is followed by a classifier (``三个``→``3个``); so ``一定``, ``统一``,
    ``万一``, ``一些``, ``张三``, ``星期一``, ``初一``, ``一心一意`` stay.  Ordinals after ``第``
    stay (``第一``, ``第一百名``): they rank, they do not count.  Known limit: a numeral with a
    unit inside an idiom is still read (``十万火急``→``100000火急``).

    Bound: O(16·n): at most 16 linear rounds, usually one.

    >>> convert_chinese_numerals("一定是第一，答案是一百二十三个，即三分之二")
    '一定是第一，答案是123个，即2/3'
    """
    return convert_chinese(text, timeout=timeout)


# --------------------------------------------------------------------------- simplify_latex_numbers

@rule("simplify_latex_numbers", version=1, scope=("math",))
def simplify_latex_numbers(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Rewrite the LaTeX around numeric answers as plain text (``\\frac{1}{2}``→``1/2``).

    ``\\frac``/``\\dfrac``/``\\tfrac`` with numeric arguments (also ``\\frac12``) become ``a/b``
    unless a digit, letter, ``^``, ``_`` or ``/`` touches them (``2\\frac{1}{2}`` may be a mixed
    number, ``\\frac{1}{2}x`` a product: both stay); ``\\%``→``%``; ``\\$`` is dropped;
    ``\\text``/``\\textbf``/``\\mathrm``/``\\mathbf``/``\\mbox``… are unwrapped; ``\\left``/``\\right``
    go and their brackets stay; ``\\,`` and ``\\!`` between digits go (``1\\,000``, ``1,\\!000``);
    ``1{,}000``→``1,000``; ``^\\circ`` is dropped.  No algebra: ``\\sqrt{2}`` stays.  Runs to a
    fixed point, so nested wrappers settle in one call.

    Bound: O(16·n): at most 16 linear rounds.

    >>> simplify_latex_numbers(r"\\dfrac{3}{4}, \\frac12, 50\\%, \\$1,\\!000, 1\\,000, 30^{\\circ}, \\text{5 cm}")
    '3/4, 1/2, 50%, 1,000, 1000, 30, 5 cm'
    >>> simplify_latex_numbers(r"\\left( \\frac{1}{x} \\right) \\sqrt{2}")
    '( \\\\frac{1}{x} ) \\\\sqrt{2}'
    """
    return unwrap_latex_numbers(text, timeout=timeout)


# --------------------------------------------------------------------------- strip_units

#: Currency symbols: always stripped around a lone number (``$5``, ``5€``, ``US$5``).
CURRENCY_SYMBOLS: Final = (
    "US$", "HK$", "NT$", "A$", "C$", "S$", "R$", "$", "¥", "￥", "€", "£", "₹", "₩", "₽", "¢", "₺", "₫", "₱", "₪", "฿",
)
#: Currency codes: stripped before or after a lone number (``USD 5``, ``50 RMB``).
CURRENCY_CODES: Final = ("USD", "EUR", "GBP", "CNY", "RMB", "JPY", "HKD")

DEFAULT_UNITS: Final = (
    # money
    "dollars", "dollar", "cents", "cent", "euros", "euro", "pounds", "yuan", "元", "块", "块钱",
    "角", "美元", "人民币", "欧元", "英镑", "日元",
    # length, area, volume, mass
    "km", "m", "cm", "mm", "mi", "ft", "in", "yd", "kilometers", "kilometres", "meters", "metres",
    "centimeters", "centimetres", "millimeters", "inches", "inch", "feet", "foot", "yards", "miles",
    "mile", "m^2", "cm^2", "km^2", "m^3", "cm^3", "square feet", "square meters", "sq ft",
    "kg", "g", "mg", "lb", "lbs", "oz", "t", "kilograms", "grams", "ounces",
    "l", "L", "ml", "mL", "liters", "litres", "gallons",
    "米", "厘米", "毫米", "千米", "公里", "平方米", "平方厘米", "立方米", "克", "千克", "公斤",
    "斤", "吨", "升", "毫升",
    # time, speed, angle, temperature
    "s", "sec", "seconds", "second", "min", "mins", "minutes", "minute", "h", "hr", "hrs", "hours",
    "hour", "days", "day", "weeks", "week", "months", "month", "years", "year",
    "km/h", "mph", "m/s", "°", "°C", "°F", "degrees", "degree",
    "秒", "分钟", "小时", "天", "周", "月", "年", "岁", "千米/小时", "米/秒", "度",
    # Chinese classifiers: a count is written with one (三个, 五人)
    "个", "只", "人", "名", "位", "次", "倍", "辆", "本", "张", "件", "条", "支", "瓶", "杯", "棵", "页", "道",
)


class StripUnitsParams(Params):
    """The unit words :func:`strip_units` removes after a number (currency symbols always go).

    Matching is exact, except that all-letter ASCII units of three letters or more also match in
    any case (``Dollars``).  Count nouns (``apples``) are not units by default; add them here if a
    task wants them gone (the ``number`` parser reads ``42 apples`` as 42 anyway).
    """

    units: StrTuple = DEFAULT_UNITS

    @field_validator("units")
    @classmethod
    def _check_units(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for unit in value:
            if not unit or unit != unit.strip():
                raise ValueError(f"a unit must be non-empty without outer spaces, got {unit!r}")
            if any(c.isdigit() for c in unit.replace("^2", "").replace("^3", "")):
                raise ValueError(f"a unit must not contain digits, got {unit!r}")
        return value


_UNITS_DEFAULTS: Final = StripUnitsParams()
_NUMBER_SURFACE: Final = (
    r"(?:[0-9](?:[0-9]|[,.'\u00a0\u202f\u2009 ](?=[0-9]))*|\.[0-9]+)(?:[eE][+\-]?[0-9]+)?(?:/[0-9]+)?"
)
_GAP: Final = r"[ \u00a0\u202f\u2009]*"


def _alternation(words: tuple[str, ...]) -> str:
    parts = []
    for word in sorted(set(words), key=lambda w: (-len(w), w)):
        escaped = regex.escape(word)
        if word.isascii() and word.isalpha() and len(word) >= 3:
            escaped = f"(?i:{escaped})"
        parts.append(escaped)
    return "|".join(parts) if parts else "(?!)"


def _units_pattern(units: tuple[str, ...]) -> str:
    currency = _alternation(CURRENCY_SYMBOLS)
    codes = "|".join(CURRENCY_CODES)
    prefix = rf"(?:{currency}|(?:{codes})(?![A-Za-z]))"
    suffix = rf"(?:{currency}|{_alternation(units + CURRENCY_CODES)})(?![^\W\p{{Han}}])"
    return (
        r"(?P<lead>\s*)"
        rf"(?P<sign1>[+\-\u2212]{_GAP})?(?P<pre>{prefix}{_GAP})?(?P<sign2>[+\-\u2212]{_GAP})?"
        rf"(?P<num>{_NUMBER_SURFACE})"
        rf"(?P<suf>{_GAP}{suffix})?"
        r"(?P<trail>[\s.。!！]*)"
    )


@rule("strip_units", version=1, scope=("math",), params=StripUnitsParams)
def strip_units(text: str, params: StripUnitsParams = _UNITS_DEFAULTS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Drop the currency or unit around a number when the text is just that number and unit.

    Acts only when the whole text is ``[currency] number [unit]`` (a trailing full stop
    allowed): ``$1,000``→``1,000``, ``15 cm``→``15``, ``¥50``→``50``, ``15元``→``15``,
    ``€3.50``→``3.50``, ``20 dollars``→``20``, ``5 km/h``→``5``, ``30°``→``30``.  Words are
    never pulled out of a sentence (``I paid $5 for it`` stays), and ``%`` is not a unit.
    Opt-in: a task whose gold answers carry units should not use it.

    Bound: O(n): one anchored full match.

    >>> [strip_units(s) for s in ["$1,000", "15 cm", "15元", "-$5", "I paid $5", "50%", "15 apples"]]
    ['1,000', '15', '15', '-5', 'I paid $5', '50%', '15 apples']
    """
    m = compile_pattern(_units_pattern(params.units)).fullmatch(text)
    if m is None or (m.group("pre") is None and m.group("suf") is None):
        return text
    if m.group("sign1") is not None and m.group("sign2") is not None:
        return text
    sign = (m.group("sign1") or m.group("sign2") or "").strip()
    return m.group("lead") + sign + m.group("num") + m.group("trail")


__all__ = [
    "CURRENCY_CODES",
    "CURRENCY_SYMBOLS",
    "DEFAULT_UNITS",
    "CanonicalizeNumbersParams",
    "StripUnitsParams",
    "canonicalize_numbers",
    "convert_chinese_numerals",
    "simplify_latex_numbers",
    "strip_units",
]
