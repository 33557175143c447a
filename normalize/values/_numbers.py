"""Exact numbers: numeric strings to :class:`fractions.Fraction`, one canonical spelling, Chinese numerals.

Private to the package.  The semantic rules, the ``number`` parser and the scorer's numeric
matching all read numbers through this module, so that ``0.5``, ``.5``, ``1/2``, ``50%``
(as a fraction), ``\\frac{1}{2}`` and ``二分之一`` mean the same value everywhere.  No floats are
used: values are :class:`~decimal.Decimal` digits turned into :class:`~fractions.Fraction`.

The two functions other modules use are :func:`to_fraction` (a whole string → its value, or
``None``) and :func:`format_number` (a value → its one canonical spelling).

Chinese numerals: run detection is our own; the value of a run with unit characters
(``十百千万亿``) comes from ``cn2an.cn2an(run, "normal")``.  ``cn2an.transform`` is *not* used:
it rewrites numerals inside ordinary words (``一定``→``1定``, ``统一``→``统1``, ``一些``→``1些``,
``张三``→``张3``, ``一心一意``→``1心1意``, ``三三两两``→``3322``) and reads decimals through floats.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache
from typing import Final, Literal

import regex

from normalize import status as st
from normalize.core.registry import DEFAULT_TIMEOUT
from normalize.errors import RejectText
from normalize.limits._budget import MAX_ROUNDS, check_budget
from normalize.limits._regex import char_finder, compile_pattern

#: How a percentage is read: ``number`` (``50%`` → 50, the sign is a unit, as GSM8K/MATH graders
#: do), ``fraction`` (``50%`` → 1/2), ``reject`` (a percentage is not a number: ``None``).
PercentMode = Literal["number", "fraction", "reject"]

#: Numbers with more digits than this, or exponents beyond ±MAX_EXPONENT, are not read: they
#: would need huge strings (and Python refuses ``int()`` on more than 4300 digits).
MAX_DIGITS: Final = 4000
MAX_EXPONENT: Final = 1000

#: Thousands separators a locale may use.  Not ``.``: canonical output writes the decimal point
#: as ``.``, so a ``.``-grouping locale would read its own ``1.001`` back as 1001.
THOUSANDS_CHOICES: Final = (",", "'", " ", "\u00a0", "\u202f", "\u2009")
#: The space-like separators (plain, no-break, narrow no-break, thin).
SPACE_SEPARATORS: Final = (" ", "\u00a0", "\u202f", "\u2009")

#: A letter or digit that is not CJK: a number touching one is part of a word or identifier.
#: CJK characters do not count, because Chinese and Japanese put numbers right after words.
LATIN_WORD: Final = r"[^\W\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]"
#: Characters that chain digit groups into dates, versions, times, ranges and IP addresses.
_CHAIN: Final = ".,:/-"

PERCENT_SUFFIX: Final = r"(?:[ \u00a0]?(?:\\?%|％)|[ \u00a0]?(?i:percent|per[ ]cent)(?![A-Za-z]))"


def check_locale(thousands: Iterable[str], decimal_comma: bool) -> None:
    """Raise ``ValueError`` when a thousands/decimal setting is unknown or self-contradictory.

    >>> check_locale((",",), decimal_comma=True)
    Traceback (most recent call last):
    ...
    ValueError: ',' cannot be both the thousands separator and the decimal comma
    """
    seps = tuple(thousands)
    for sep in seps:
        if sep not in THOUSANDS_CHOICES:
            raise ValueError(f"unknown thousands separator {sep!r}; choose from {THOUSANDS_CHOICES!r}")
    if len(set(seps)) != len(seps):
        raise ValueError(f"thousands separators repeat: {seps!r}")
    if decimal_comma and "," in seps:
        raise ValueError("',' cannot be both the thousands separator and the decimal comma")


def _cls(chars: Iterable[str]) -> str:
    body = "".join(regex.escape(c) for c in chars)
    return f"[{body}]" if body else "(?!)"


def _decimal_point(decimal_comma: bool) -> str:
    return "[.,]" if decimal_comma else r"\."


def _core(tag: str, thousands: tuple[str, ...], decimal_comma: bool) -> str:
    """An unsigned decimal number; groups ``int<tag>``, ``frac<tag>``, ``lead<tag>``."""
    dp = _decimal_point(decimal_comma)
    if thousands:
        integer = rf"[0-9]{{1,3}}(?P<g{tag}>{_cls(thousands)})[0-9]{{3}}(?:(?P=g{tag})[0-9]{{3}})*|[0-9]+"
    else:
        integer = "[0-9]+"
    return rf"(?:(?P<int{tag}>{integer})(?:{dp}(?P<frac{tag}>[0-9]+))?|{dp}(?P<lead{tag}>[0-9]+))"


@lru_cache(maxsize=256)
def token_pattern(
    thousands: tuple[str, ...],
    decimal_comma: bool,
    *,
    scientific: bool,
    ratio: bool,
    percent: bool,
    wan: bool = False,
) -> str:
    """The pattern of a standalone number inside text (boundaries included).

    Groups: ``sign``, the numerator ``int0/frac0/lead0``, ``exp``, the denominator
    ``int1/frac1/lead1`` when ``ratio``, ``wan`` (a Chinese myriad multiplier: ``3万`` is
    30000, ``1.5亿`` is 150000000, not when more numerals follow as in ``3万5千``) when
    ``wan``, and ``pct`` when ``percent``.  A number touching a
    non-CJK letter or digit, or chained by ``. , : / -``, a no-break or thin space, or a
    thousands separator to more digits, is not standalone: ``v1.5``, ``A1B2``, ``2024-01-05``,
    ``3.14.1``, ``x2``, ``1\u2009000`` when the locale does not group with thin spaces.
    """
    chain = _cls(sorted(set(_CHAIN) | set(SPACE_SEPARATORS[1:]) | set(thousands)))
    left = rf"(?<!{LATIN_WORD}|\.|{_decimal_point(decimal_comma)}|[0-9]{chain})"
    right = rf"(?!{LATIN_WORD}|[0-9]|{chain}[0-9])"
    exponent = r"(?:[eE](?P<exp>[+\-]?[0-9]+))?" if scientific else ""
    dp = _decimal_point(decimal_comma)
    parts = [left, rf"(?P<sign>[+\-\u2212](?=(?:{dp})?[0-9]))?", _core("0", thousands, decimal_comma), exponent]
    if ratio:
        parts.append(rf"(?:/{_core('1', thousands, decimal_comma)})?")
    if wan:
        parts.append(_WAN)
    parts.append(right)
    if percent:
        parts.append(rf"(?P<pct>{PERCENT_SUFFIX}(?![0-9]|{PERCENT_SUFFIX}))?")
    return "".join(parts)


def _digits_value(int_part: str | None, frac: str | None, lead: str | None) -> Fraction | None:
    if not int_part:
        whole = "0"
    elif int_part.isdigit():  # no separator to drop (the commonest case)
        whole = int_part
    else:
        whole = "".join(ch for ch in int_part if ch.isdigit())
    fraction = frac if frac is not None else (lead or "")
    if len(whole) + len(fraction) > MAX_DIGITS:
        return None
    return Fraction(int(whole + fraction), 10 ** len(fraction))


def core_value(m: regex.Match[str], tag: str, groups: dict[str, str | None] | None = None) -> Fraction | None:
    """The value of the ``_core`` groups with ``tag`` in ``m``; ``None`` when too long."""
    if groups is None:
        groups = m.groupdict()
    return _digits_value(groups.get(f"int{tag}"), groups.get(f"frac{tag}"), groups.get(f"lead{tag}"))


def token_value(m: regex.Match[str], *, sign: bool = True) -> Fraction | None:
    """The value of a :func:`token_pattern` match, percent sign not applied; ``None`` when out
    of range (too many digits, exponent too large, zero denominator)."""
    groups = m.groupdict()  # once: it builds a dict of every named group
    value = core_value(m, "0", groups)
    if value is None:
        return None
    exp = groups.get("exp")
    if exp is not None:
        power = int(exp)
        if abs(power) > MAX_EXPONENT:
            return None
        value *= Fraction(10) ** power
    if groups.get("int1") is not None or groups.get("lead1") is not None:
        denominator = core_value(m, "1", groups)
        if not denominator:
            return None
        value /= denominator
    multiplier = groups.get("wan")
    if multiplier is not None:
        value *= 10 ** _WAN_POWERS[multiplier]
    if sign and m.group("sign") in ("-", "\u2212"):
        value = -value
    return value


def operator_before(text: str, start: int, *, timeout: float = DEFAULT_TIMEOUT) -> bool:
    """Whether the sign at ``text[start]`` is a binary operator rather than a number's sign.

    An operator follows an operand: a digit, ``) ] } % !``, a letter it touches (``x+3``), or a
    one-letter variable before a space (``x -3``).  After a word (``is -3``), a CJK character,
    an opening bracket, ``=`` or the start of the text it is a sign.

    >>> [operator_before(s, s.index("-")) for s in ["5 -3", "x-3", "x -3", "is -3", "(-3", "是-3"]]
    [True, True, True, False, False, False]
    """
    j = start - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    if j < 0:
        return False
    c = text[j]
    if c in ")]}%!" or c.isdigit():
        return True
    latin = compile_pattern(LATIN_WORD)
    if latin.match(c) is None:
        return False
    return j == start - 1 or j == 0 or latin.match(text[j - 1]) is None


def apply_percent(value: Fraction, mode: PercentMode) -> Fraction | None:
    """Read a percentage ``value%`` according to ``mode``.

    >>> apply_percent(Fraction(50), "fraction"), apply_percent(Fraction(50), "number")
    (Fraction(1, 2), Fraction(50, 1))
    """
    if mode == "reject":
        return None
    return value / 100 if mode == "fraction" else value


_STR_LIMIT: Final = 10**4000  # below it str() is allowed; computed once, not per call
_STR_SPLIT: Final = 10**2000


def _int_str(n: int) -> str:
    """``str(n)`` for ints of any size (Python limits ``str`` to 4300 digits)."""
    if n < _STR_LIMIT:
        return str(n)
    high, low = divmod(n, _STR_SPLIT)
    return _int_str(high) + _int_str(low).rjust(2000, "0")


def format_number(value: Fraction) -> str:
    """The canonical spelling of ``value``: an integer, a terminating decimal, or ``p/q``.

    A value whose decimal expansion terminates is written as a decimal without trailing zeros
    (``1/4`` → ``0.25``, ``5/1`` → ``5``); any other is the reduced fraction ``p/q`` with the sign
    on ``p``.  Zero is ``0`` (never ``-0``).

    >>> [format_number(Fraction(n, d)) for n, d in [(42, 1), (1, 2), (-2, 3), (1, 4), (0, 5), (-7, 8)]]
    ['42', '0.5', '-2/3', '0.25', '0', '-0.875']
    """
    num, den = value.numerator, value.denominator
    sign = "-" if num < 0 else ""
    if den == 1:
        return sign + _int_str(abs(num))
    rest, twos, fives = den, 0, 0
    while rest % 2 == 0:
        rest //= 2
        twos += 1
    while rest % 5 == 0:
        rest //= 5
        fives += 1
    if rest != 1:
        return f"{sign}{_int_str(abs(num))}/{_int_str(den)}"
    places = max(twos, fives)
    digits = _int_str(abs(num) * 10**places // den).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def format_fraction(value: Fraction) -> str:
    """``value`` as a reduced fraction ``p/q`` (an integer as itself), even when it terminates.

    >>> format_fraction(Fraction(3, 4)), format_fraction(Fraction(-4, 2)), format_fraction(Fraction(2, 3))
    ('3/4', '-2', '2/3')
    """
    if value.denominator == 1:
        return format_number(value)
    sign = "-" if value < 0 else ""
    return f"{sign}{_int_str(abs(value.numerator))}/{_int_str(value.denominator)}"


# --------------------------------------------------------------------------- Chinese numerals

CN_DIGIT_VALUES: Final = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
    "九": 9, "壹": 1, "贰": 2, "叁": 3, "肆": 4, "伍": 5, "陆": 6, "柒": 7, "捌": 8, "玖": 9,
}
CN_UNITS: Final = "十百千万亿拾佰仟萬億"
#: Every character of a Chinese numeral run.
CN_NUMERAL_CHARS: Final = "".join(CN_DIGIT_VALUES) + CN_UNITS
#: Digits that may be read one by one (``二〇二四``); ``两`` never is.
CN_PLAIN_DIGITS: Final = "".join(c for c in CN_DIGIT_VALUES if c != "两")

_N = f"[{CN_NUMERAL_CHARS}]"
_D = f"[{CN_PLAIN_DIGITS}]"

#: Single numerals followed by one of these are counts (``三个``, ``两天``); chosen to avoid
#: words such as ``十分`` (very), ``一本正经``, ``一块儿``, ``一度``, ``一头雾水``.
CN_CLASSIFIERS: Final = (
    "个", "只", "位", "名", "人", "岁", "元", "米", "厘米", "毫米", "千米", "公里", "克", "千克",
    "公斤", "斤", "吨", "升", "毫升", "天", "年", "小时", "分钟", "秒", "次", "倍", "辆", "张",
    "件", "瓶", "杯", "棵", "页", "块钱", "平方米", "立方米",
)
#: A lone numeral after one of these, with nothing after it, is the answer (``答案是五``).
_CN_COPULAS: Final = "是为于"
#: A lone numeral after these is part of a name or date (``初一``, ``周三``, ``星期一``, ``礼拜五``).
_CN_DATE_PREFIXES: Final = "初周期拜"

_CN_RUN: Final = (
    rf"(?<!{_N}|{_N}点|分之|又|[0-9.])"
    r"(?P<neg>负)?"
    r"(?:"
    rf"(?P<whole>{_N}+)又(?P<mden>{_N}+)分之(?P<mnum>{_N}+)"
    rf"|(?P<den>{_N}+)分之(?P<num>{_N}+)(?:点(?P<numdec>{_D}+))?"
    rf"|(?P<int>{_N}+)(?:点(?P<dec>{_D}+))?"
    r")"
    rf"(?!{_N}|点{_D}|分之|又{_N}|[0-9])"
)
_WAN_POWERS: Final = {"万": 4, "萬": 4, "亿": 8, "億": 8, "万亿": 12, "萬億": 12}
_WAN: Final = rf"(?:(?P<wan>万亿|萬億|亿|億|万|萬)(?!{_N}|点|分之))?"


def chinese_integer(run: str) -> int | None:
    """The value of a run of Chinese numeral characters, or ``None`` when it is not a number.

    Runs with unit characters go through ``cn2an`` (``normal`` mode, which also reads the
    spoken ``三千五`` = 3500); digit runs (``二〇二四``) are read digit by digit.  Rejected: ``两``
    anywhere but before ``百千万亿`` (``二十两`` is twenty taels), a trailing ``零`` after a unit.

    >>> [chinese_integer(s) for s in ["一百二十三", "两千零五", "二〇二四", "万一", "二十两", "十"]]
    [123, 2005, 2024, None, None, 10]
    """
    if not run or any(c not in CN_NUMERAL_CHARS for c in run):
        return None
    if not any(c in CN_UNITS for c in run):
        if len(run) == 1:
            return CN_DIGIT_VALUES[run]
        if "两" in run:
            return None
        return int("".join(str(CN_DIGIT_VALUES[c]) for c in run))
    for i, c in enumerate(run):
        if c == "两" and (i + 1 == len(run) or run[i + 1] not in "百千万亿佰仟萬億"):
            return None
    if run[-1] == "零":
        return None
    import cn2an  # here, not at the top: importing it costs ~80 ms, and most runs never get here

    try:
        value = cn2an.cn2an(run, "normal")
    except (ValueError, KeyError):  # cn2an's two ways of saying "not a numeral"
        return None
    return value if isinstance(value, int) else None


def _cn_decimal(int_run: str, dec_run: str | None) -> str | None:
    """``三`` + ``一四`` → ``3.14`` (exact digits, never a float)."""
    whole = chinese_integer(int_run)
    if whole is None:
        return None
    if dec_run is None:
        return str(whole)
    return f"{whole}." + "".join(str(CN_DIGIT_VALUES[c]) for c in dec_run)


def _isolated_left(text: str, start: int) -> bool:
    return start == 0 or not (text[start - 1].isalnum())


def _isolated_right(text: str, end: int) -> bool:
    return end >= len(text) or not text[end].isalnum()


def _clearly_a_number(m: regex.Match[str]) -> bool:
    """Whether a plain integer run (no ``负``, ``点``, ``分之``) is a number, not part of a word."""
    text, run = m.string, m.group("int")
    start, end = m.start(), m.end()
    has_unit = any(c in CN_UNITS for c in run)
    if has_unit and len(run) >= 2:
        return True
    left_ok = _isolated_left(text, start) or text[start - 1] in _CN_COPULAS
    alone = left_ok and _isolated_right(text, end)
    if len(run) >= 2:  # a digit string: 二〇二四, 一九四九年, or on its own
        return "〇" in run or text.startswith("年", end) or alone
    if start > 0 and text[start - 1] in _CN_DATE_PREFIXES:
        return False
    return alone or any(text.startswith(c, end) for c in CN_CLASSIFIERS)


def _convert_cn_match(m: regex.Match[str]) -> str:
    text = m.string
    if m.start() > 0 and text[m.start() - 1] == "第":  # ordinals stay: 第一, 第一百
        return m.group(0)
    neg = "-" if m.group("neg") else ""
    if neg and not (_isolated_left(text, m.start()) or text[m.start() - 1] in _CN_COPULAS):
        return m.group(0)  # 胜负一: not a minus sign
    if m.group("whole") is not None:
        whole, den, num = (chinese_integer(m.group(k)) for k in ("whole", "mden", "mnum"))
        if whole is None or not den or num is None:
            return m.group(0)
        return f"{neg}{whole * den + num}/{den}"
    if m.group("den") is not None:
        den_run, num_run = m.group("den"), m.group("num")
        if num_run[0] in "十百千万亿拾佰仟萬億" and num_run not in ("十", "拾"):
            num_run = "一" + num_run  # 百分之百
        numerator = _cn_decimal(num_run, m.group("numdec"))
        if den_run in ("百", "佰"):
            return m.group(0) if numerator is None else f"{neg}{numerator}%"
        if den_run[0] in "千万亿仟萬億":
            den_run = "一" + den_run  # 千分之五
        den = chinese_integer(den_run)
        if numerator is None or not den:
            return m.group(0)
        return f"{neg}{numerator}/{den}"
    if m.group("dec") is None and not neg and not _clearly_a_number(m):
        return m.group(0)
    value = _cn_decimal(m.group("int"), m.group("dec"))
    return m.group(0) if value is None else neg + value


_CN_ANY: Final = "[" + "".join(regex.escape(c) for c in sorted(CN_NUMERAL_CHARS)) + "]"
#: :data:`_CN_ANY` in the stdlib engine (a class of literal characters: the same characters),
#: whose scan of a text with no numeral is ~4× faster.
_CN_ANY_STD: Final = re.compile("[" + "".join(re.escape(c) for c in sorted(CN_NUMERAL_CHARS)) + "]")


def convert_chinese(text: str, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Rewrite Chinese numerals that are clearly numbers as Arabic ones.

    ``百分之X`` becomes ``X%``, ``A分之B`` becomes ``B/A``, ``W又A分之B`` the improper fraction,
    ``负`` a minus sign, ``点`` a decimal point.  (Arabic digits with ``万``/``亿``, ``3万``, are
    read by :func:`token_pattern` with ``wan=True``, which knows the locale.)  A lone
    digit character is converted only on its own, after ``是/为/于`` at the end, or before a
    classifier (``三个``); ordinals after ``第`` and dates like ``初一``/``星期一`` stay.

    >>> convert_chinese("一定统一万一一些第一张三，答案是五")
    '一定统一万一一些第一张三，答案是5'
    >>> convert_chinese("三分之二 百分之五十 负三点五 两千零五 二又二分之一")
    '2/3 50% -3.5 2005 5/2'
    """
    if text.isascii() or _CN_ANY_STD.search(text) is None:  # every numeral character is CJK; one C-level scan
        return text
    # A conversion can free a neighbour (百分之万负两: 负两 touched 万, now it touches %), so
    # repeat until settled; every round that changes the text removes Chinese numerals.
    for _ in range(MAX_ROUNDS):  # each round is linear; real text settles in one or two
        converted = compile_pattern(_CN_RUN).sub(_convert_cn_match, text)
        if converted == text:
            return text
        text = converted
        check_budget()
    raise RejectText(st.ERROR, f"Chinese numeral conversions did not settle in {MAX_ROUNDS} rounds")


# --------------------------------------------------------------------------- whole strings

_FRAC_WHOLE: Final = (
    r"(?P<sign>[+\-\u2212]?)\s*\\[dt]?frac(?![A-Za-z])\s*"
    r"(?:\{\s*(?P<a>[+\-]?[0-9]+(?:\.[0-9]+)?)\s*\}|(?P<a1>[0-9]))\s*"
    r"(?:\{\s*(?P<b>[+\-]?[0-9]+(?:\.[0-9]+)?)\s*\}|(?P<b1>[0-9]))"
)
_DEFAULT_THOUSANDS: Final = (",", "\u00a0", "\u202f", "\u2009")
check_locale(_DEFAULT_THOUSANDS, decimal_comma=False)  # to_fraction skips checking the default
#: Any Chinese numeral character, for a presence test (a stdlib class scan).
_CN_NUMERAL_FINDER: Final = char_finder(CN_NUMERAL_CHARS)


@lru_cache(maxsize=64)
def _plain_full(thousands: tuple[str, ...], decimal_comma: bool) -> str:
    # A trailing "." is allowed (``5.``); the token pattern's boundary checks do not apply.
    core0 = _core("0", thousands, decimal_comma)
    core1 = _core("1", thousands, decimal_comma)
    return (
        rf"(?P<sign>[+\-\u2212])?\s*{core0}\.?(?:[eE](?P<exp>[+\-]?[0-9]+))?"
        rf"(?:\s*/\s*{core1})?{_WAN}(?P<pct>{PERCENT_SUFFIX})?"
    )


def to_fraction(
    s: str,
    *,
    percent: PercentMode = "number",
    thousands: tuple[str, ...] = _DEFAULT_THOUSANDS,
    decimal_comma: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> Fraction | None:
    """The exact value of a string that is one number, or ``None``.  Never raises on text.

    Accepted (surrounding whitespace ignored): ``42``, ``-3``, ``+3``, ``−3`` (U+2212), ``.5``,
    ``5.``, ``0.50``, ``1,000`` (only 3-digit groups; also no-break/thin-space groups),
    ``1e3``, ``2/3``, ``1.5/3``, ``50%`` / ``50\\%`` / ``50 percent`` (read per ``percent``),
    ``\\frac{2}{3}`` / ``\\dfrac`` / ``\\tfrac`` / ``\\frac12``, and Chinese numerals
    (``一百二十三``, ``三分之二``, ``百分之五十``, ``负三点五``).  Not accepted: ``1,5``,
    ``12,34``, dates, versions, ``2/0``, expressions, text around the number.

    >>> [to_fraction(s) for s in ["0.50", ".5", "1,000", "−3", "2/4", "三分之二", "1,5", "v1"]]
    [Fraction(1, 2), Fraction(1, 2), Fraction(1000, 1), Fraction(-3, 1), Fraction(1, 2), Fraction(2, 3), None, None]
    >>> to_fraction("50%"), to_fraction("50%", percent="fraction"), to_fraction("50%", percent="reject")
    (Fraction(50, 1), Fraction(1, 2), None)
    """
    if decimal_comma or thousands != _DEFAULT_THOUSANDS:  # the default is valid (checked below)
        check_locale(thousands, decimal_comma)
    s = s.strip()
    if not s or len(s) > 2 * MAX_DIGITS:
        return None
    if not s.isascii() and _CN_NUMERAL_FINDER.search(s) is not None:
        s = convert_chinese(s, timeout=timeout).strip()
    frac = compile_pattern(_FRAC_WHOLE).fullmatch(s)
    if frac is not None:
        a = Fraction(frac.group("a") or frac.group("a1"))
        b = Fraction(frac.group("b") or frac.group("b1"))
        if not b:
            return None
        value = a / b
        return -value if frac.group("sign") in ("-", "\u2212") else value
    m = compile_pattern(_plain_full(thousands, decimal_comma)).fullmatch(s)
    if m is None:
        return None
    number = token_value(m)
    if number is None:
        return None
    if m.group("pct") is not None:
        return apply_percent(number, percent)
    return number


__all__ = [
    "CN_CLASSIFIERS",
    "LATIN_WORD",
    "MAX_DIGITS",
    "MAX_EXPONENT",
    "PERCENT_SUFFIX",
    "SPACE_SEPARATORS",
    "THOUSANDS_CHOICES",
    "PercentMode",
    "apply_percent",
    "check_locale",
    "chinese_integer",
    "convert_chinese",
    "core_value",
    "format_fraction",
    "format_number",
    "operator_before",
    "to_fraction",
    "token_pattern",
    "token_value",
]
