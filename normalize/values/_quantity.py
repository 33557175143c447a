r"""The accounting reader: a number written in words, magnitudes, mixed forms or a locale, read
whole, or refused with a reason that names what could not be read.

Private to the package.  The ``math`` parser, the ``number`` parser and the scorer's target
reader (:func:`normalize.values._mathvalue.read_value`) call it, so an answer and a gold written the
same way read the same.

**The accounting rule.**  The *phrase* of an answer's number is the run of tokens joined to it:
digit groups, a sign, decimal and grouping marks, a fraction bar, magnitude words
(``thousand``, ``million``, ``k``/``M``/``B`` attached to digits, ``dozen``, ``万``, ``亿``,
``千``…), number words (``two hundred and six``, ``三千零五``), ``and``/``又`` of a mixed number,
units and currency, and the words that make two numbers one statement (``between``, ``from``,
``to``, ``or``, ``–``, ``到``, ``至``).  Every token of the phrase is accounted for, or the answer
is refused — never truncated to the number beside a token that was not read:

* one value: ``4 thousand`` → 4000, ``1.2 million``, ``2.5k`` → 2500, ``3万5千`` → 35000,
  ``2亿3千万`` → 230000000, ``1.2万``, ``two hundred and six`` → 206, ``2 3/4``, ``2 and 3/4``,
  ``2又3/4`` → 11/4, ``.5`` after prose → 0.5, ``2.345,6`` → 2345.6 (the groups prove the
  locale), ``7,25`` → 7.25 only when the row's ``lang`` writes a decimal comma;
* refused (``no_answer``) with a reason: ``range`` (``between 3 and 4``, ``from 3 to 4``,
  ``3–4``, ``3到4个``, ``about 3 or 4``), ``compound quantity`` (``1 hour 45 minutes``,
  ``5 ft 3 in``: carried as one quantity in a base unit, so a gold that states a unit can still
  be compared), ``time of day`` (``3:30``), ``ambiguous number`` (``7,25`` with no ``lang``),
  ``bound`` (``at least 5``), and any token next to the number that is none of the above.

Values are exact :class:`~fractions.Fraction`; no float is used.  Words are English and Chinese.
Chinese numerals of characters only go through :func:`normalize.values._numbers.chinese_integer`
(cn2an); Arabic digits mixed with Chinese units (``3万5千``), English number words and the
phrase around a number are read here, because the libraries that read them (word2number,
number-parser) return a best guess for what they cannot read (``two three`` → 23, a token
skipped), where the accounting rule needs a refusal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, NamedTuple

from normalize.values._numbers import (
    CN_DIGIT_VALUES,
    chinese_integer,
    format_fraction,
    format_number,
)

# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Reading:
    """A phrase read as one value (``unit``: a unit word after it, ``as_fraction``: written as
    a fraction or mixed number, so the canonical spelling is ``p/q``)."""

    value: Fraction
    as_fraction: bool = False
    unit: str | None = None
    percent: bool = False

    @property
    def canonical(self) -> str:
        text = format_fraction(self.value) if self.as_fraction else format_number(self.value)
        return text + ("%" if self.percent else "")


@dataclass(frozen=True)
class Refusal:
    """A phrase that is not one value: ``kind`` is the reason's class (``range``, ``compound
    quantity``, ``time of day``, ``ambiguous number``, ``bound``, ``unread``), ``reason`` the
    sentence recorded on the result, ``reading`` what a gold of the same kind is compared with
    (a range ``3..4``, a compound quantity in its base unit ``6300 s``), or ``None``."""

    kind: str
    reason: str
    reading: str | None = None


# --------------------------------------------------------------------------- vocabulary

_SMALL: Final = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS: Final = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}
_SCALES: Final = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_MAGNITUDES: Final = frozenset({*_SCALES, "hundred", "dozen"})
#: Magnitudes read only after digits (``5 lakh``, ``2 crore``: Indian English).
_DIGIT_SCALES: Final = {"lakh": 10**5, "lakhs": 10**5, "lac": 10**5, "crore": 10**7, "crores": 10**7}
#: Words that change a number they follow and that the reader does not read: the answer is
#: refused (``1.2 millions``, ``4 grand``, ``3 quarters`` — coins or fourths —, ``5 squared``,
#: ``3 point 5``), never the bare number.
_REFUSED_AFTER: Final = frozenset({
    "thousands", "millions", "billions", "trillions", "hundreds", "dozens", "grand", "score", "gross",
    "quarter", "quarters", "squared", "cubed", "point", "odd", "plus", "times", "minus", "percentile",
})
#: Words before a number that make it part of arithmetic written in words.
_OPERATOR_WORDS: Final = frozenset({"plus", "minus", "times", "over", "by", "negative", "divided", "multiplied"})
#: Letters attached to digits that multiply them (``2.5k``, ``$3M``, ``1.5bn``); not ``m``
#: (metres) nor ``b`` (bits, bytes).
_SUFFIXES: Final = {"k": 10**3, "K": 10**3, "M": 10**6, "mn": 10**6, "MM": 10**6, "B": 10**9, "bn": 10**9, "T": 10**12}
_ORDINAL_DENOMINATORS: Final = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "fourth": 4, "fourths": 4, "quarter": 4, "quarters": 4,
    "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8,
    "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10, "hundredth": 100, "hundredths": 100,
}
#: Words that make one number a bound, not a value.
_BOUND_BEFORE: Final = ("at least", "at most", "more than", "less than", "fewer than", "no more than",
                        "no less than", "up to", "greater than", "over and above")
_BOUND_AFTER: Final = ("or more", "or less", "or fewer", "or so", "or above", "or below", "plus")
_HEDGE: Final = frozenset({"about", "around", "approximately", "roughly", "approx", "circa", "nearly", "almost", "some"})
_CN_HEDGE: Final = ("大约", "大概", "约", "近")
#: Units whose multiples make compound quantities, with their size in a base unit (exact).
_UNIT_SIZES: Final[dict[str, tuple[str, int | Fraction]]] = {
    # time, base: second
    "s": ("time", 1), "sec": ("time", 1), "secs": ("time", 1), "second": ("time", 1), "seconds": ("time", 1),
    "min": ("time", 60), "mins": ("time", 60), "minute": ("time", 60), "minutes": ("time", 60),
    "h": ("time", 3600), "hr": ("time", 3600), "hrs": ("time", 3600), "hour": ("time", 3600), "hours": ("time", 3600),
    "day": ("time", 86400), "days": ("time", 86400), "week": ("time", 604800), "weeks": ("time", 604800),
    "秒": ("time", 1), "秒钟": ("time", 1), "分钟": ("time", 60), "小时": ("time", 3600), "个小时": ("time", 3600),
    "天": ("time", 86400), "周": ("time", 604800), "星期": ("time", 604800),
    # length, base: 1/10000 inch would not be exact for metres; base: micrometre
    "mm": ("length", 1000), "millimeter": ("length", 1000), "millimeters": ("length", 1000),
    "millimetre": ("length", 1000), "millimetres": ("length", 1000),
    "cm": ("length", 10000), "centimeter": ("length", 10000), "centimeters": ("length", 10000),
    "centimetre": ("length", 10000), "centimetres": ("length", 10000),
    "m": ("length", 1000000), "meter": ("length", 1000000), "meters": ("length", 1000000),
    "metre": ("length", 1000000), "metres": ("length", 1000000),
    "km": ("length", 10**9), "kilometer": ("length", 10**9), "kilometers": ("length", 10**9),
    "kilometre": ("length", 10**9), "kilometres": ("length", 10**9),
    "in": ("length", 25400), "inch": ("length", 25400), "inches": ("length", 25400),
    "ft": ("length", 304800), "foot": ("length", 304800), "feet": ("length", 304800),
    "yd": ("length", 914400), "yard": ("length", 914400), "yards": ("length", 914400),
    "mi": ("length", 1609344000), "mile": ("length", 1609344000), "miles": ("length", 1609344000),
    "毫米": ("length", 1000), "厘米": ("length", 10000), "米": ("length", 1000000),
    "公里": ("length", 10**9), "千米": ("length", 10**9),
    # mass, base: milligram
    "mg": ("mass", 1), "g": ("mass", 1000), "gram": ("mass", 1000), "grams": ("mass", 1000),
    "kg": ("mass", 10**6), "kilogram": ("mass", 10**6), "kilograms": ("mass", 10**6),
    "oz": ("mass", Fraction(28349523125, 10**6)), "ounce": ("mass", Fraction(28349523125, 10**6)),
    "ounces": ("mass", Fraction(28349523125, 10**6)),
    "lb": ("mass", Fraction(45359237, 100)), "lbs": ("mass", Fraction(45359237, 100)),
    "pound": ("mass", Fraction(45359237, 100)), "pounds": ("mass", Fraction(45359237, 100)),
    "克": ("mass", 1000), "千克": ("mass", 10**6), "公斤": ("mass", 10**6), "斤": ("mass", 500000),
    # money, base: cent
    "dollar": ("money", 100), "dollars": ("money", 100), "cent": ("money", 1), "cents": ("money", 1),
    "元": ("money", 100), "块": ("money", 100), "角": ("money", 10), "毛": ("money", 10),
}
_BASE_NAMES: Final = {"time": "s", "length": "um", "mass": "mg", "money": "cent"}
#: The table's unit words as regex alternations, longest first (so a pattern takes the whole
#: word: ``minutes`` before ``min``): the ASCII ones and the Han ones.
UNIT_WORDS: Final = "|".join(re.escape(u) for u in sorted((u for u in _UNIT_SIZES if u.isascii()), key=len, reverse=True))
HAN_UNIT_WORDS: Final = "|".join(
    re.escape(u) for u in sorted((u for u in _UNIT_SIZES if not u.isascii()), key=len, reverse=True)
)

#: Locales that write a decimal comma (``7,25``), by the language part of a BCP 47 tag; the
#: regions that write a point instead are listed apart.
_COMMA_LANGS: Final = frozenset({
    "de", "fr", "es", "it", "pt", "nl", "ru", "pl", "tr", "id", "vi", "cs", "sk", "sl", "sv", "da",
    "fi", "nb", "nn", "no", "uk", "be", "ro", "hu", "el", "bg", "hr", "sr", "bs", "lt", "lv", "et",
    "ca", "eu", "gl", "az", "kk", "ka", "hy", "is", "mk", "sq", "af", "uz", "ky", "mn",
})
_POINT_REGIONS: Final = frozenset({"de-ch", "fr-ch", "it-ch", "de-li", "es-mx", "es-us", "es-pr", "pt-mo"})
#: Grouping marks a locale may use with a decimal comma (``2.345,6``, ``1 234,5``).
_COMMA_GROUPS: Final = ".' \u00a0\u202f\u2009’"
_POINT_GROUPS: Final = ",' \u00a0\u202f\u2009’"


def decimal_comma_locale(lang: str | None) -> bool | None:
    """Whether the locale ``lang`` writes a decimal comma (``None``: it does not say).

    >>> decimal_comma_locale("de"), decimal_comma_locale("de-ch"), decimal_comma_locale("en"), decimal_comma_locale(None)
    (True, False, False, None)
    """
    if not lang:
        return None
    lang = lang.lower()
    if lang in _POINT_REGIONS:
        return False
    return lang.split("-", 1)[0] in _COMMA_LANGS


# --------------------------------------------------------------------------- vulgar fractions

_VULGAR: Final = {
    "¼": "1/4", "½": "1/2", "¾": "3/4", "⅐": "1/7", "⅑": "1/9", "⅒": "1/10", "⅓": "1/3", "⅔": "2/3",
    "⅕": "1/5", "⅖": "2/5", "⅗": "3/5", "⅘": "4/5", "⅙": "1/6", "⅚": "5/6", "⅛": "1/8", "⅜": "3/8",
    "⅝": "5/8", "⅞": "7/8",
}
_VULGAR_CHARS: Final = re.compile("[" + "".join(_VULGAR) + "]")
#: ``21⁄2``: what NFKC makes of ``2½`` (a whole number run into the numerator) or twenty-one
#: halves: the digits cannot say which.
_RUN_INTO_SLASH: Final = re.compile(r"[0-9]{2,}\u2044[0-9]")


def fraction_slashes(text: str) -> str | Refusal:
    """``½`` → `` 1/2`` (``2½`` → ``2 1/2``: a mixed number), ``1⁄2`` (U+2044) → ``1/2``; a
    :class:`Refusal` for ``21⁄2``, where NFKC has run a whole number into the numerator.

    >>> fraction_slashes("2½"), fraction_slashes("1⁄2"), fraction_slashes("21⁄2").kind
    ('2 1/2', '1/2', 'ambiguous number')
    """
    if text.isascii():
        return text
    if "\u2044" in text:
        if _RUN_INTO_SLASH.search(text) is not None:
            return Refusal("ambiguous number", "ambiguous number: a whole number runs into a fraction's numerator "
                                               "(NFKC writes 2½ as 21⁄2)")
        text = text.replace("\u2044", "/")
    if _VULGAR_CHARS.search(text) is not None:
        text = _VULGAR_CHARS.sub(lambda m: " " + _VULGAR[m.group(0)], text).replace("  ", " ")
        text = text[1:] if text.startswith(" ") else text
    return text


#: A hyphen, an en dash, a figure dash or a small or full-width hyphen-minus written where a
#: minus sign goes: right before a digit, a decimal point or a currency sign, and not after a
#: letter, a digit or a closing bracket ("–5", "(–3)", "–$5"; "5–3" and "pages 3–5" are no sign).
_SIGN_DASH: Final = re.compile(r"(?<![^\W_])(?<![.,)\]}])[\u2010\u2011\u2012\u2013\ufe63\uff0d](?=[$€£¥₹]?[0-9.])")
#: An em dash or a horizontal bar that opens the answer, right before its number: typeset prose
#: writes it as a dash ("Answer —5"), a model sometimes as a minus sign ("—5"): which, only it knows.
_EM_DASH_SIGN: Final = re.compile(r"[ \t]*[$({\[]?[ \t]*[\u2014\u2015](?=[$€£¥₹]?[0-9.])")


def sign_dashes(text: str) -> str | Refusal:
    """``–5`` (an en dash, U+2013) → ``-5``: a dash where a minus sign goes is one (the reader
    dropped it, so ``–5`` was 5); a :class:`Refusal` for an em dash there (``—5``), which prose
    writes as a dash as often as a model writes it as a minus sign.

    >>> sign_dashes("\u20135"), sign_dashes("(\u2013$3)"), sign_dashes("5\u20133"), sign_dashes("\u20145").kind
    ('-5', '(-$3)', '5\u20133', 'ambiguous number')
    """
    if text.isascii():
        return text
    if _EM_DASH_SIGN.match(text) is not None:
        return Refusal("ambiguous number", "ambiguous number: an em dash before the number is a minus sign or a dash")
    return _SIGN_DASH.sub("-", text)


# --------------------------------------------------------------------------- one numeral


def read_numeral(text: str, lang: str | None = None) -> Fraction | Refusal:
    """The value of one written numeral (digits with decimal and grouping marks), by the
    digits where they prove the locale, else by ``lang``; a :class:`Refusal` when it is
    ambiguous or no numeral.

    >>> [read_numeral(s) for s in ["2.345,6", "1,234.5", "1 234,5", ".5", "1'000"]]
    [Fraction(11728, 5), Fraction(2469, 2), Fraction(2469, 2), Fraction(1, 2), Fraction(1000, 1)]
    >>> read_numeral("7,25").kind, read_numeral("7,25", "de"), read_numeral("1.234", "de")
    ('ambiguous number', Fraction(29, 4), Fraction(1234, 1))
    """
    text = text.replace("’", "'")
    if text.isdigit():
        return Fraction(int(text))
    if text.startswith("."):
        rest = text[1:]
        return Fraction(int(rest), 10 ** len(rest)) if rest.isdigit() else _bad(text)
    groups = re.split(r"[^0-9]", text)
    marks = [c for c in text if not c.isdigit()]
    if not all(groups):
        return _bad(text)
    comma_locale = decimal_comma_locale(lang)
    last = marks[-1]
    distinct = set(marks)
    if len(distinct) == 2:
        # a grouping mark and, last and once, the decimal mark: the digits prove the locale
        if marks.count(last) != 1 or last not in ".," or not _grouped(groups[:-1]):
            return _bad(text)
        group = next(c for c in distinct if c != last)
        if group not in (_COMMA_GROUPS if last == "," else _POINT_GROUPS):
            return _bad(text)
        return _value("".join(groups[:-1]), groups[-1])
    if len(distinct) > 2:
        return _bad(text)
    if last in "' \u00a0\u202f\u2009":
        return _value("".join(groups), "") if _grouped(groups) else _bad(text)
    if len(marks) > 1:  # one mark, repeated: a grouping (1.234.567, 1,234,567) or nothing
        if not _grouped(groups):
            return Refusal("list", f"{text!r} lists numbers") if last == "," else _bad(text)
        if last == "." and comma_locale is False:
            return _bad(text)  # 1.234.567 in a point locale: a version, not a number
        return _value("".join(groups), "")
    whole, decimals = groups
    if last == ".":
        if comma_locale and len(decimals) == 3 and _grouped(groups):
            return _value(whole + decimals, "")  # 1.234 in de: one thousand two hundred and thirty-four
        return _value(whole, decimals)
    # one comma
    if comma_locale:
        return _value(whole, decimals)
    if len(decimals) == 3 and _grouped(groups) and whole != "0":
        return _value(whole + decimals, "")  # 1,234 (a decimal-comma locale would say so)
    if whole == "0" or len(whole) > 3:
        return _value(whole, decimals)  # 0,5 and 1234,5: no thousands group reads so
    return Refusal("ambiguous number", f"ambiguous number: {text!r} is a decimal comma or two numbers; the row's lang does not say")


def _grouped(groups: list[str]) -> bool:
    return 1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])


def _value(whole: str, decimals: str) -> Fraction:
    return Fraction(int(whole + decimals or "0"), 10 ** len(decimals))


def _bad(text: str) -> Refusal:
    return Refusal("unread", f"{text!r} is not one number (digit groups that no locale writes)")


# --------------------------------------------------------------------------- words


def read_number_words(words: list[str]) -> Fraction | None:
    """English number words (lower case; ``and`` and hyphen parts as their own words) → the
    value, or ``None`` when they are not one number.

    >>> [read_number_words(s.replace("-", " - ").split()) for s in ["two hundred and six", "twenty - one", "a dozen", "three fourths", "one million two hundred thousand"]]
    [Fraction(206, 1), Fraction(21, 1), Fraction(12, 1), Fraction(3, 4), Fraction(1200000, 1)]
    >>> read_number_words(["two", "three"]) is None, read_number_words(["hundred", "and"]) is None
    (True, True)
    """
    words = [w for w in words if w != "-"]
    if not words or words[-1] == "and" or words[0] == "and":
        return None
    if len(words) >= 2 and words[-1] in _ORDINAL_DENOMINATORS and "and" not in words[-3:-1]:
        numerator = read_number_words(words[:-1]) if words[:-1] != ["a"] else Fraction(1)
        last = words[-1]
        if numerator is None or numerator.denominator != 1 or (last in ("half", "halves") and len(words) > 2):
            return None
        plural = (last.endswith("s") and last not in ("halves",)) or last == "halves"
        if (numerator == 1) == plural:
            return None  # "one thirds", "two third"
        return numerator / _ORDINAL_DENOMINATORS[last]
    if len(words) >= 3 and words[-3] == "and" and words[-2] in ("a", "one") and words[-1] in ("half", "quarter"):
        whole = read_number_words(words[:-3])
        return None if whole is None else whole + Fraction(1, 2 if words[-1] == "half" else 4)
    total = 0
    current = 0  # the part below the last scale
    last_scale = 10**15
    prev = ""  # the kind of the previous word
    for index, w in enumerate(words):
        if w == "a":
            if prev not in ("", "scale", "and"):
                return None
            current, prev = 1, "a"
        elif w in _SMALL:
            if prev in ("small", "a") or (prev == "tens" and _SMALL[w] >= 10) or (prev == "tens" and _SMALL[w] == 0):
                return None
            current += _SMALL[w]
            prev = "small"
        elif w in _TENS:
            if prev in ("small", "tens", "a") or current % 100:
                return None
            current += _TENS[w]
            prev = "tens"
        elif w == "hundred":
            if prev not in ("small", "a") or not 1 <= current <= 9:
                return None
            current *= 100
            prev = "hundred"
        elif w in _SCALES:
            scale = _SCALES[w]
            if prev in ("", "and", "scale") or scale >= last_scale or not 1 <= current <= 999:
                return None
            total += current * scale
            current, last_scale, prev = 0, scale, "scale"
        elif w == "dozen":  # "a dozen", "two dozen", "dozen": the last word, after a count below 100
            if total or index != len(words) - 1 or prev not in ("", "small", "a", "tens"):
                return None
            return Fraction((current or 1) * 12)
        elif w == "and":
            if prev not in ("hundred", "scale"):
                return None
            prev = "and"
        else:
            return None
    if prev in ("a",):
        return None
    return Fraction(total + current)


# --------------------------------------------------------------------------- Chinese mixed forms

_CN_UNIT_VALUES: Final = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_CN_BIG: Final = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}


def read_chinese_mixed(run: str) -> Fraction | Refusal | None:
    """A numeral of Arabic digits and Chinese units (``3万5千``, ``2亿3千万``, ``1.2万``,
    ``5千零3``), or of Chinese characters (``三千零五``, ``三点五``): the exact value; a
    :class:`Refusal` when its units are out of order; ``None`` when it is not a numeral.

    >>> [read_chinese_mixed(s) for s in ["3万5千", "2亿3千万", "1.2万", "三千零五", "5千零3", "两万五"]]
    [Fraction(35000, 1), Fraction(230000000, 1), Fraction(12000, 1), Fraction(3005, 1), Fraction(5003, 1), Fraction(25000, 1)]
    """
    if "点" in run and run[-1] in _CN_BIG and run[:-1] and run[-2] not in _CN_BIG:
        mantissa = read_chinese_mixed(run[:-1])  # 一点五万: 1.5 × 10^4
        return mantissa * _CN_BIG[run[-1]] if isinstance(mantissa, Fraction) else mantissa
    if "点" in run:
        whole, _, decimals = run.partition("点")
        if not decimals or any(c not in CN_DIGIT_VALUES or c == "两" for c in decimals):
            return None
        if not whole or any(c in _CN_BIG for c in whole):
            return None
        if whole.isdigit() and whole.isascii():
            head: Fraction | Refusal | None = Fraction(int(whole))
        elif any(c.isascii() for c in whole):
            head = read_chinese_mixed(whole)
        else:
            integer = chinese_integer(whole)
            head = None if integer is None else Fraction(integer)
        if not isinstance(head, Fraction) or head.denominator != 1:
            return None
        digits = "".join(str(CN_DIGIT_VALUES[c]) for c in decimals)
        return head + Fraction(int(digits), 10 ** len(digits))
    if not any(c.isdigit() and c.isascii() for c in run):
        if not any(c in _CN_UNIT_VALUES or c in _CN_BIG for c in run):
            return None
        value = chinese_integer(run)
        return None if value is None else Fraction(value)
    try:
        return _big(run)
    except ValueError as exc:
        return Refusal("unread", f"{run!r} is not one number: {exc}")


def _big(run: str) -> Fraction:
    """``run`` split at its highest myriad unit (亿, then 万), each part read in turn."""
    for unit in ("亿", "億", "万", "萬"):
        if unit in run:
            at = run.index(unit)
            high, low = run[:at], run[at + 1 :]
            if not high:
                raise ValueError(f"{unit} with no number before it")
            value = _big(high) * _CN_BIG[unit]
            if low:
                if "." in high:
                    raise ValueError("a decimal before more units")
                if len(low) == 1 and low in CN_DIGIT_VALUES:
                    rest = Fraction(CN_DIGIT_VALUES[low] * (_CN_BIG[unit] // 10))  # 两万五: 25000
                elif low.isdigit():
                    raise ValueError(f"{low} after {unit} without a unit (a spoken abbreviation, or a number of its own?)")
                else:
                    rest = _big(low)
                if rest >= _CN_BIG[unit]:
                    raise ValueError("units out of order")
                value += rest
            return value
    return _section(run)


def _section(run: str) -> Fraction:
    """A part below 万: terms ``<digits><unit>`` in falling order, ``零`` as a place holder,
    a last bare digit (``三千五``: 3500, a spoken abbreviation, only for one Chinese digit)."""
    terms = re.findall(r"(零)|([0-9]+(?:\.[0-9]+)?|[零〇一二两三四五六七八九壹贰叁肆伍陆柒捌玖])([十拾百佰千仟]?)|([十拾])", run)
    if "".join("".join(t) for t in terms) != run:
        raise ValueError("characters that are not digits or units")
    total = Fraction(0)
    previous = 10**5
    zero = False
    for index, (zero_mark, digits, unit, bare_ten) in enumerate(terms):
        if zero_mark:
            zero = True
            continue
        if bare_ten:  # 十五: ten and five
            if previous <= 10:
                raise ValueError("units out of order")
            total += 10
            previous = 10
            continue
        number = Fraction(digits) if digits[0].isdigit() else Fraction(CN_DIGIT_VALUES[digits])
        if "." in digits and index != len(terms) - 1:
            raise ValueError("a decimal before more units")
        if unit:
            size = _CN_UNIT_VALUES[unit]
            if size >= previous:
                raise ValueError("units out of order")
            total += number * size
            previous = size
        else:
            if index != len(terms) - 1:
                raise ValueError("two numbers side by side")
            if index and not zero and previous > 10:
                if digits[0].isdigit() and len(terms) > 1:
                    raise ValueError(f"{digits} after a unit without 零 (a spoken abbreviation, or a number of its own?)")
                total += number * (previous // 10)  # 三千五: 3500
            elif index and not zero and previous == 10:
                total += number
            else:
                total += number
        zero = False
    return total


# --------------------------------------------------------------------------- tokens

_CN_CHARS: Final = "零〇一二两三四五六七八九十百千万亿拾佰仟萬億壹贰叁肆伍陆柒捌玖"
def _token_pattern(spaces: bool, cjk: bool) -> re.Pattern[str]:
    space_group = r"|\x20[0-9]{3}(?![0-9])" if spaces else ""
    chinese = (
        r"|(?P<cnfrac>(?:[0-9]+|[" + _CN_CHARS + r"]+)分之(?:[0-9]+(?:\.[0-9]+)?|[" + _CN_CHARS + r"]+))"
        r"|(?P<cn>(?:[0-9]+(?:\.[0-9]+)?)?(?:[" + _CN_CHARS + r"]|(?<=[0-9" + _CN_CHARS + r"])点(?=[0-9" + _CN_CHARS + r"]))"
        r"(?:[0-9." + _CN_CHARS + r"]|点(?=[0-9" + _CN_CHARS + r"]))*)"
    ) if cjk else ""
    # the whitespace before a token is read with it (one match a token, not two): a symbol is
    # any other character but whitespace, as it was when whitespace was a token of its own
    return re.compile(
        r"\s*(?:(?P<word>[A-Za-z]+)" + chinese
        + r"|(?P<num>(?<![0-9])\.[0-9]+|[0-9]+(?:[.,'’\u00a0\u202f\u2009][0-9]+" + space_group + r")*)"
        r"|(?P<han>[\u3400-\u9fff])"
        r"|(?P<sym>\S))",
        re.DOTALL,
    )


#: Tokens: a digit numeral (its marks read by :func:`read_numeral`), Chinese numerals, words,
#: CJK characters, symbols, each with the whitespace before it; with digits grouped by plain
#: spaces (``1 000``) or without; the Chinese alternatives only for a text that is not ASCII.
_TOKENS: Final = {(spaces, cjk): _token_pattern(spaces, cjk) for spaces in (True, False) for cjk in (True, False)}


class _Tok(NamedTuple):  # a tuple: dozens are built a row
    kind: str  # num, cn, cnfrac, word, han, sym
    text: str
    start: int
    end: int
    spaced: bool  # whitespace before it


#: Numeral characters that start a unit word when these follow (千克 kilogram, 千米 kilometre,
#: 百米 a hundred-metre dash is still 100 米: only 千 and 万 prefixes of SI words are listed).
_UNIT_PREFIXES: Final = {"千": "克米瓦卡焦帕伏赫字兆", "万": "维"}


_NEW_TOK: Final = tuple.__new__  # _Tok(...) without the generated __new__'s own call


def _tokens(text: str, spaces: bool = True) -> list[_Tok]:
    """The tokens of ``text`` (whitespace only marks the token after it as ``spaced``; the first
    token counts as spaced)."""
    out: list[_Tok] = []
    first = True
    for m in _TOKENS[spaces, not text.isascii()].finditer(text):
        kind = m.lastgroup or "sym"
        start, end = m.span(kind)
        spaced = first or start != m.start()
        first = False
        piece = m.group(kind)
        if kind == "cn" and len(piece) > 1 and piece[-1] in _UNIT_PREFIXES and end < len(text) and text[end] in _UNIT_PREFIXES[piece[-1]]:
            # 4000千克: kilograms, not four million grams
            head = piece[:-1]
            out.append(_Tok("num" if head.replace(".", "").isdigit() else "cn", head, start, end - 1, spaced))
            out.append(_Tok("han", piece[-1], end - 1, end, False))
        else:
            out.append(_NEW_TOK(_Tok, (kind, piece, start, end, spaced)))
    return out


#: An English number word anywhere in a text (a necessary condition for :func:`read_phrase` to
#: read words).
NUMBER_WORD: Final = re.compile(
    r"(?i)(?<![A-Za-z])(?:" + "|".join(sorted([*_SMALL, *_TENS, "hundred", "dozen", "half", "quarter", *_SCALES], key=len, reverse=True)) + r")(?![A-Za-z])"
)


#: A run of number words (with ``and``, ``a``, hyphens) that ends where a search ends.
_WORD_RUN_END: Final = re.compile(
    r"(?i)(?<![A-Za-z])(?:(?:" + NUMBER_WORD.pattern[4:] + r"|and|a)[\s-]+)+\Z"
)


#: Every character a match of :data:`_WORD_RUN_END` can hold: the ASCII letters and those its
#: ``(?i)`` matches to them (``İ ı ſ K``), the characters ``\s`` matches (``str.isspace``), ``-``.
_WORD_RUN_CHARS: Final = "".join(sorted({
    *"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "\u0130", "\u0131", "\u017f", "\u212a", "-",
    *(chr(c) for c in range(0x3001) if chr(c).isspace()),
}))


def _is_word_number(tok: _Tok) -> bool:
    w = tok.text.lower()
    return tok.kind == "word" and (w in _SMALL or w in _TENS or w in ("hundred", "dozen") or w in _SCALES)


# --------------------------------------------------------------------------- the phrase

_ARABIC_DIAN: Final = re.compile(r"[0-9]+点[0-9]+")
#: Length units NFKC may leave glued to an exponent (``m²`` → ``m2``).
_SQUARABLE: Final = frozenset({"m", "cm", "mm", "km", "ft", "in", "yd", "mi", "dm"})
#: Classifiers and units between a number and 半 (``2个半``, ``3岁半``, ``1年半``): and a half.
_CN_HALF_UNITS: Final = frozenset("个岁年天倍斤米块元本只次周月分秒克升")
_RANGE_MARKS: Final = frozenset({"–", "—", "~", "～", "〜", "到", "至"})
_CURRENCY: Final = frozenset({"$", "€", "£", "¥", "₹", "￥"})
#: Texts longer than this are read in a window around their last numeral (:func:`_window`).
_WINDOW: Final = 130
_BEFORE: Final = 70
_AFTER: Final = 50
_DIGITS: Final = "0123456789"
_CN_NUMERAL: Final = re.compile("[" + "零〇一二两三四五六七八九十百千万亿拾佰仟萬億壹贰叁肆伍陆柒捌玖" + "]")
#: ``\text{…}`` and its kin around words: read as the words.
_TEXT_COMMAND: Final = re.compile(r"\\(?:text|textrm|textbf|mathrm|mbox)\s*\{([^{}\\]*)\}")


def read_phrase(
    text: str, lang: str | None = None, *, whole: bool, spaces: bool = True, math: bool = False
) -> Reading | Refusal | None:
    """Read the phrase of the last number in ``text`` by the accounting rule (module docstring).

    ``whole``: ``text`` is one answer statement (a marked or boxed answer, a gold): number words
    after filler (``the answer is eleven``) are its number.  Otherwise (the last number of a
    whole solution) number words count only as the whole text (``eleven``), next to digits
    (``4 thousand``), or, ending the solution after its last digits, as a reason to refuse
    (``… now she has a dozen``).  ``lang``: the row's language (a decimal comma where it writes
    one); ``spaces``: digits grouped by spaces are one numeral (``1 000``); ``math``: the text is
    mathematics (a box), where ``1,2`` lists and ``7:32`` is a ratio.  ``None``: nothing this
    reader adds to the plain readers — no number, a plain one they read the same (``42``,
    ``1,000``), or mathematics (an operator, a LaTeX command or a bracket next to the number).

    >>> [read_phrase(s, whole=True).canonical for s in ["4 thousand", "2.5k", "2 3/4", "eleven", "3万5千"]]
    ['4000', '2500', '11/4', '11', '35000']
    >>> [read_phrase(s, whole=True).kind for s in ["between 3 and 4", "1 hour 45 minutes", "3:30", "7,25"]]
    ['range', 'compound quantity', 'time of day', 'ambiguous number']
    """
    if len(text) > _WINDOW:
        text = _window(text)
        if not text:
            return None
    if "\\" in text:
        text = _TEXT_COMMAND.sub(r" \1 ", text).replace("\\%", "%").replace("\\$", "$")
    toks = _tokens(text, spaces)
    last_digit = last_word = None
    for i in range(len(toks) - 1, -1, -1):
        t = toks[i]
        if last_word is None and _is_word_number(t):
            last_word = i
        if t.kind in ("num", "cn", "cnfrac"):
            last_digit = i
            break
    if last_word is not None:
        j = last_word
        while j > 0 and toks[j].text.lower() in _MAGNITUDES and toks[j - 1].text.lower() in _MAGNITUDES:
            j -= 1
        if toks[j].text.lower() in _MAGNITUDES and j > 0 and toks[j - 1].kind == "num":
            last_word = None  # 4 thousand, 1.2 million: the digits' phrase, read below
    if last_word is not None:
        found = _phrase_at(text, toks, last_word, lang, whole=whole, math=math)
        if found is not None:
            return found
        if (not whole and (last_digit is None or last_digit < last_word) and not _pronoun_one(toks, last_word)
                and _ends_statement(toks, last_word)):
            # "… she had 3 apples, so now she has a dozen": the last number is in words
            return Refusal("unread", f"the last number is written in words ({toks[last_word].text!r}) in running prose: "
                                     "not read as the answer, and not the number before it")
    return None if last_digit is None else _phrase_at(text, toks, last_digit, lang, whole=whole, math=math)


_ONE_AFTER: Final = frozenset({
    "the", "this", "that", "each", "every", "any", "no", "which", "another", "other", "right", "correct", "wrong",
    "last", "first", "only", "same", "new", "old", "big", "small", "little", "second", "third", "next", "such", "a",
    "someone", "anyone", "everyone", "red", "blue", "green", "best", "better",
})


_DETERMINERS: Final = frozenset({
    "the", "these", "those", "all", "both", "its", "their", "his", "her", "our", "my", "your", "first", "last",
    "next", "other", "every", "each", "of",
})


def _ends_statement(toks: list[_Tok], at: int) -> bool:
    """Whether the number words ending at ``toks[at]`` state a count that ends its sentence
    (``… so now she has a dozen in total.``): no determiner before the phrase (``the three given
    conditions`` refers to things, it counts nothing new), at most two words after it, then the
    end of the sentence or of the text."""
    start = at
    while start > 0 and (_is_word_number(toks[start - 1]) or toks[start - 1].text.lower() in ("and", "a", "-")):
        start -= 1
    if start > 0 and toks[start - 1].text.lower() in _DETERMINERS:
        return False
    words = 0
    rest = toks[at + 1 :]
    if len(rest) > 2 and _w(rest[0]) == "and" and _w(rest[1]) in ("a", "one") and _w(rest[2]) in ("half", "quarter"):
        rest = rest[3:]  # one and a half
    for tok in rest:
        if tok.kind == "sym" and tok.text in ".!?;。！？\n":
            return True
        if tok.kind in ("word", "han"):
            words += 1
            if words > 2:
                return False
        elif tok.kind != "sym":
            return False
    return True


def _pronoun_one(toks: list[_Tok], at: int) -> bool:
    """Whether the word ``one`` at ``toks[at]`` is a pronoun (``the right one``, ``one of them``,
    ``no one``), not a count."""
    if toks[at].text.lower() != "one":
        return False
    before = toks[at - 1].text.lower() if at > 0 and toks[at - 1].kind == "word" else ""
    after = toks[at + 1].text.lower() if at + 1 < len(toks) and toks[at + 1].kind == "word" else ""
    return before in _ONE_AFTER or after in ("of", "another", "by", "day", "way", "more")


def _window(text: str) -> str:
    """The part of a long ``text`` around its last numeral (digits, a Chinese numeral, an English
    number word): what the phrase of that numeral can reach, cut at spaces; a ``$`` opened
    before the cut is kept (so the numeral is still inside mathematics).  ``""``: no numeral."""
    anchor = max(text.rfind(c) for c in _DIGITS)
    tail_from = max(0, len(text) - _WINDOW)
    if not text.isascii():
        for m in _CN_NUMERAL.finditer(text, max(anchor, tail_from)):
            anchor = max(anchor, m.start())
    for m in NUMBER_WORD.finditer(text, max(anchor, tail_from)):
        anchor = max(anchor, m.start())
    if anchor < 0:
        return ""
    start, end = max(0, anchor - _BEFORE), min(len(text), anchor + _AFTER)
    if start:
        space = text.find(" ", start, anchor)
        start = space + 1 if space >= 0 else start
        lo = max(0, start - 400)
        # a match holds only _WORD_RUN_CHARS and ends at start: it lies in the run of them there
        words = _WORD_RUN_END.search(text, lo + len(text[lo:start].rstrip(_WORD_RUN_CHARS)), start)
        if words is not None:  # one trillion seventy-eight billion …: a number in words, whole
            start = words.start()
    if end < len(text):
        space = text.rfind(" ", anchor, end)
        end = space if space > anchor else end
    window = text[start:end]
    if text.count("$", 0, start) % 2:
        window = "$" + window
    return window


def _phrase_at(text: str, toks: list[_Tok], last: int, lang: str | None, *, whole: bool, math: bool) -> Reading | Refusal | None:
    """The phrase whose last numeral is ``toks[last]``, read by :func:`_analyse`."""
    # the number words and digits joined to the last one, backwards
    start = last
    while start > 0:
        prev = toks[start - 1]
        cur = toks[start]
        if cur.kind != "word":
            break
        if prev.kind == "word" and prev.text.lower() == "a" and cur.text.lower() in _MAGNITUDES:
            start -= 1  # a hundred, a dozen, a million
            continue
        if _is_word_number(prev) or (prev.kind == "word" and prev.text.lower() == "and" and start - 2 >= 0 and _is_word_number(toks[start - 2]) and _is_word_number(cur)):
            if cur.kind == "num" and not _is_word_number(prev):
                break
            start -= 1
            continue
        if prev.kind == "sym" and prev.text == "-" and not prev.spaced and not cur.spaced and _is_word_number(cur) and start - 2 >= 0 and _is_word_number(toks[start - 2]):
            start -= 2  # twenty-one
            continue
        break
    core = toks[start : last + 1]
    after = toks[last + 1 :]
    before = toks[:start]
    return _analyse(text, before, core, after, lang, whole=whole, math=math or _inside_math(text, core[0].start))


def _inside_math(text: str, at: int) -> bool:
    """Whether ``text[at]`` is inside ``$…$``, ``\\(…\\)`` or ``\\[…\\]``: there ``1,2`` lists
    two numbers, ``7:32`` is a ratio and ``2k`` a product, as mathematics writes them."""
    head = text[:at].replace("\\$", "")
    if head.count("$") % 2 and "$" in text[at:].replace("\\$", ""):
        return True  # (a "$" that nothing closes is a dollar sign: $3M)
    opened = max(head.rfind("\\("), head.rfind("\\["))
    return opened >= 0 and opened > max(head.rfind("\\)"), head.rfind("\\]"))


def _w(tok: _Tok | None) -> str:
    return tok.text.lower() if tok is not None and tok.kind == "word" else ""


def _analyse(
    text: str, before: list[_Tok], core: list[_Tok], after: list[_Tok], lang: str | None, *, whole: bool, math: bool
) -> Reading | Refusal | None:
    first, lastt = core[0], core[-1]
    span = text[first.start : lastt.end]
    head = text[: first.start]
    if head.count("(") > head.count(")") or head.count("[") > head.count("]"):
        math = True  # (-1,2,3), [2,7]: a tuple or an interval lists its numbers
    nxt = after[0] if after else None
    nxt2 = after[1] if len(after) > 1 else None
    prv = before[-1] if before else None
    prv2 = before[-2] if len(before) > 1 else None
    prv3 = before[-3] if len(before) > 2 else None
    if first.text in ("2", "3") and not first.spaced and prv is not None and prv.kind == "word" and prv.text in _SQUARABLE:
        return None  # 1,000.99m2: NFKC's m², an exponent of the unit, not a number
    # mathematics around the number: the plain readers decide
    if prv is not None and prv.kind == "sym" and prv.text in "^_{\\[(" :
        return None
    if nxt is not None and nxt.kind == "sym" and nxt.text in "^_}(!\\" and not nxt.spaced:
        return None
    if nxt is not None and nxt.kind == "sym" and nxt.text in "+*×÷=<>^":
        return None
    if prv is not None and prv.kind == "sym" and prv.text in "+*×÷<>·":
        return None
    # --- the core value
    value: Fraction | Refusal | None
    as_fraction = False
    kinds = {t.kind for t in core}
    if kinds <= {"word", "sym"}:  # number words
        words = [t.text.lower() for t in core]
        # a ratio word after? "three fourths"
        if nxt is not None and nxt.kind == "word" and nxt.text.lower() in _ORDINAL_DENOMINATORS and nxt.text.lower() not in ("second", "seconds"):
            words.append(nxt.text.lower())
            after = after[1:]
            nxt = after[0] if after else None
            nxt2 = after[1] if len(after) > 1 else None
            as_fraction = True
        if nxt is not None and _w(nxt) == "and" and _w(nxt2) in ("a", "one") and len(after) > 2 and _w(after[2]) in ("half", "quarter"):
            words += ["and", _w(nxt2), _w(after[2])]
            after = after[3:]
            nxt = after[0] if after else None
            nxt2 = after[1] if len(after) > 1 else None
            as_fraction = True
        value = read_number_words(words)
        if value is None:
            return Refusal("unread", f"cannot read the number words {span!r} as one number")
        if value.denominator != 1:
            as_fraction = True
        span = text[first.start : (after[0].start if after else len(text))].strip()
    elif first.kind == "cn":
        if _ARABIC_DIAN.fullmatch(first.text) and not math:
            if nxt is not None and nxt.text in ("分", "刻"):
                return Refusal("time of day", f"time of day: {text[first.start:nxt.end]!r} is a time, not a number")
            return Refusal("ambiguous number", f"ambiguous number: {first.text!r} is a decimal or a time (点)")
        value = read_chinese_mixed(first.text)
        if value is None and all(c in CN_DIGIT_VALUES and c != "两" for c in first.text) and len(first.text) == 1:
            value = Fraction(CN_DIGIT_VALUES[first.text])  # 三 (in 三到四个): only a range or a compound uses it
        if value is None:
            return None
    elif first.kind == "cnfrac":
        den_text, _, num_text = first.text.partition("分之")
        if den_text in ("百", "佰"):
            return None  # 百分之五十: a percentage, as convert_chinese_numerals writes it
        den = read_numeral(den_text) if den_text.isdigit() else chinese_integer(den_text)
        num: Fraction | Refusal | int | None = read_numeral(num_text) if num_text[0].isdigit() else chinese_integer(num_text)
        if not isinstance(den, (int, Fraction)) or not isinstance(num, (int, Fraction)) or not den:
            return None
        value = Fraction(num) / Fraction(den)
        as_fraction = True
        if prv is not None and prv.kind == "han" and prv.text == "又" and prv2 is not None and prv2.kind in ("num", "cn"):
            whole_v = read_numeral(prv2.text) if prv2.kind == "num" else read_chinese_mixed(prv2.text)
            if not isinstance(whole_v, Fraction) or whole_v.denominator != 1:
                return None
            value = whole_v + value
            before = before[:-2]
            prv = before[-1] if before else None
            span = text[prv2.start : first.end]
    else:
        value = read_numeral(first.text, lang)
        if isinstance(value, Refusal) and value.kind == "ambiguous number" and _priced(prv, nxt) and len(first.text.rsplit(",", 1)[-1]) == 2:
            value = read_numeral(first.text, "de")  # 2,74 €: a price has two decimals, a thousands group three
    if isinstance(value, Refusal):
        if math and value.kind in ("list", "ambiguous number"):
            return None  # mathematics lists numbers with commas: \boxed{1,2}
        if value.kind == "list":  # 2,500,5 in prose: no locale writes it, and no list is written so
            return Refusal("ambiguous number", f"ambiguous number: {first.text!r} is one malformed number or a list")
        return value
    used_special = (first.kind == "cn" and len(first.text) > 1) or first.kind in ("cnfrac", "word") or (
        first.kind == "num" and _locale_marks(first.text, lang))
    if first.kind == "word" and not _stated_alone(before, after, whole):
        return None
    if prv is not None and (_w(prv) in _OPERATOR_WORDS or _w(prv) == "point"):
        operand = _number_before(before[:-1])
        divided = _w(prv) == "by" and _w(before[-2] if len(before) > 1 else None) in ("divided", "multiplied")
        if _w(prv) == "point" or divided or (operand is not None and operand is before[-2]):
            return Refusal("unread", f"{text[before[-2].start if len(before) > 1 else prv.start:lastt.end]!r}: arithmetic or a decimal in words, not one number")
        used_special = True  # negative 3: the sign below decides
    if _w(prv) == "of" and _w(prv2) == "out" and _number_before(before[:-2]) is not None:
        return Refusal("unread", f"{text[before[-3].start:lastt.end]!r}: a ratio in words, not one number")
    if first.kind in ("num", "cn") and nxt is not None and nxt.kind == "han":
        if nxt.text in ("成", "折"):  # 3成 is 30%, 8折 a price of 80%
            return Refusal("unread", f"{text[first.start:nxt.end]!r}: a share (成, 折) the reader does not read as a number")
        if nxt.text == "半" or (nxt2 is not None and nxt2.text == "半" and nxt.text in _CN_HALF_UNITS):
            value = value + Fraction(1, 2)  # 2个半, 3岁半, 两个半小时: and a half
            half = after.index(nxt if nxt.text == "半" else nxt2)  # type: ignore[arg-type]
            after = after[half + 1 :]
            nxt = after[0] if after else None
            nxt2 = after[1] if len(after) > 1 else None
            as_fraction = used_special = True
    if prv is not None and prv.kind in ("han", "sym") and prv.text in "和与及跟、" and not math:
        for tok in reversed(before[max(0, len(before) - 6) : -1]):
            if tok.kind in ("num", "cn"):
                return Refusal("unread", f"two numbers joined by {prv.text!r}: {text[tok.start:lastt.end]!r}")
            if tok.kind not in ("han", "word"):
                break
    if prv is not None and (prv.kind == "han" or prv.kind == "word") and (prv.text in _UNIT_SIZES or _w(prv) in _UNIT_SIZES) and (
            len(before) > 1 and before[-2].kind in ("num", "cn")) and _unit_after(after) is None and not math:
        return Refusal("compound quantity", f"compound quantity: {text[before[-2].start:lastt.end]!r} (a number after a unit)")
    if first.kind == "num" and nxt is not None and nxt.kind == "han" and nxt.text == "点" and not math:
        return Refusal("time of day", f"time of day: {text[first.start:nxt.end]!r} (点: o'clock) is a time, not a number")

    if first.kind == "num" and prv is not None and _is_word_number(prv):
        return Refusal("unread", f"{prv.text!r} before {first.text!r}: a number word the reader cannot join to the digits")
    compound = _compound(before, value, _unit_after(after) or ("分" if after and after[0].text == "分" else None))
    if compound is not None:
        return compound
    # --- a fraction bar: a/b, and a mixed number before it
    if first.kind == "num" and prv is not None and prv.kind == "sym" and prv.text == "/" and prv.spaced == first.spaced:
        if prv2 is None or prv2.kind != "num":
            return None
        numerator = read_numeral(prv2.text, lang)
        if isinstance(numerator, Refusal) or not value:
            return None if not isinstance(numerator, Refusal) else numerator
        fraction = numerator / value
        as_fraction = True
        whole_tok = prv3
        connector = None
        if whole_tok is not None and _w(whole_tok) == "and" and len(before) > 3 and before[-4].kind == "num":
            connector, whole_tok = whole_tok, before[-4]
        elif whole_tok is not None and whole_tok.kind == "han" and whole_tok.text == "又" and len(before) > 3 and before[-4].kind in ("num", "cn"):
            connector, whole_tok = whole_tok, before[-4]
        if whole_tok is not None and whole_tok.kind in ("num", "cn") and (connector is not None or (prv2.spaced and whole_tok.kind == "num")):
            whole_v = read_numeral(whole_tok.text, lang) if whole_tok.kind == "num" else read_chinese_mixed(whole_tok.text)
            at = len(before) - (4 if connector is not None else 3)
            lead = before[at - 1] if at >= 1 else None
            if lead is not None and lead.kind == "sym" and lead.text in "+-*/^×÷=(<>_{\\" and not (
                    lead.text in "+-" and _sign(before[:at]) is not None):
                return None  # an expression (a sign before the whole part is read below)
            if isinstance(whole_v, Fraction) and whole_v.denominator == 1 and numerator.denominator == 1 and value.denominator == 1 and 0 < numerator < value:
                before = before[:at]
                prv = before[-1] if before else None
                span = text[whole_tok.start : first.end]
                fraction = whole_v + fraction
                used_special = True
            elif connector is None:
                return Refusal("unread", f"two numbers side by side: {text[whole_tok.start:first.end]!r}")
            else:
                return None  # "3 and 5/2": a list, as the math reader reads it
        else:
            lead = prv3
            if lead is not None and lead.kind == "sym" and lead.text in "+-*/^×÷=(<>_{\\":
                return None
            before = before[:-2]
            prv = before[-1] if before else None
            span = text[prv2.start : first.end]
        value = fraction
    # --- magnitude after the number
    scale_word = _w(nxt)
    if (first.kind == "num" and nxt is not None and nxt.kind == "word" and not nxt.spaced and nxt.text in _SUFFIXES
            and nxt.text not in ("k", "mn", "bn") and (math or not _priced(before[-1] if before else None, nxt2))):
        # 300K (kelvin?), 3M, 2B: a magnitude only beside a currency ($3M), else not certain
        return Refusal("ambiguous number", f"ambiguous number: {text[first.start:nxt.end]!r} is a magnitude or a unit")
    if first.kind == "num" and nxt is not None and nxt.kind == "word" and not nxt.spaced and nxt.text in _SUFFIXES and (nxt2 is None or nxt2.kind != "num") and (
            not math or nxt.text in ("bn", "mn")):  # (in mathematics 2k is 2 times k)
        value = value * _SUFFIXES[nxt.text]
        span = text[first.start : nxt.end]
        after = after[1:]
        used_special = True
    elif (first.kind == "num" and scale_word in _SCALES) or (first.kind == "num" and scale_word in ("hundred", "dozen")):
        words = [scale_word]
        k = 1
        while k < len(after) and _w(after[k]) in _SCALES and _SCALES[_w(after[k])] < _SCALES.get(words[-1], 10**15) and words[-1] != "dozen":
            words.append(_w(after[k]))
            k += 1
        factor = 1
        for w in words:
            factor *= 12 if w == "dozen" else 100 if w == "hundred" else _SCALES[w]
        if (len(words) > 1 and "hundred" not in words) or (k < len(after) and _w(after[k]) in _MAGNITUDES):
            return Refusal("unread", f"magnitude words in a row: {text[first.start:after[min(k, len(after) - 1)].end]!r}")
        value = value * factor
        span = text[first.start : after[k - 1].end]
        after = after[k:]
        used_special = True
        if after and after[0].kind == "num":
            return Refusal("unread", f"a number after {span!r}: two numbers or a compound number the reader cannot account for")
    elif first.kind == "num" and nxt is not None and nxt.kind == "word" and not nxt.spaced and nxt.text.lower() in ("thousand", "million", "billion", "dozen"):
        return None
    word_after = _w(after[0]) if after and first.kind == "num" else ""
    if word_after in _DIGIT_SCALES:
        value = value * _DIGIT_SCALES[word_after]  # 5 lakh, 2 crore
        span = text[first.start : after[0].end]
        after = after[1:]
        used_special = True
    elif word_after in _ORDINAL_DENOMINATORS and word_after not in ("quarter", "quarters"):
        plural = word_after.endswith("s")
        if value.denominator != 1 or (value == 1) == plural:
            return Refusal("unread", f"{text[first.start:after[0].end]!r}: a fraction in words the reader cannot account for")
        value = value / _ORDINAL_DENOMINATORS[word_after]  # 3 fourths, 5 hundredths
        span = text[first.start : after[0].end]
        after = after[1:]
        as_fraction = used_special = True
    elif word_after in _REFUSED_AFTER:
        return Refusal("unread", f"{word_after!r} after {text[first.start:first.end]!r}: a word the reader cannot account for next to the number")
    if first.kind == "num" and len(after) > 2 and _w(after[0]) == "and" and _w(after[1]) in ("a", "one") and _w(after[2]) in ("half", "quarter"):
        value = value + Fraction(1, 2 if _w(after[2]) == "half" else 4)  # 2 and a half
        span = text[first.start : after[2].end]
        after = after[3:]
        as_fraction = used_special = True
    elif first.kind == "num" and len(after) > 1 and _w(after[0]) == "and" and (_is_word_number(after[1]) or _w(after[1]) == "a"):
        return Refusal("unread", f"{text[first.start:after[1].end]!r}: digits joined to number words the reader cannot account for")
    nxt = after[0] if after else None
    nxt2 = after[1] if len(after) > 1 else None
    # --- what stands before the phrase: ranges, hedges, bounds, compound quantities
    lower_before = " ".join(_w(t) or t.text for t in before[-4:]).lower()
    prv = before[-1] if before else None
    prv2 = before[-2] if len(before) > 1 else None
    if prv is not None and ((prv.kind == "sym" and prv.text in _RANGE_MARKS) or (prv.kind == "han" and prv.text in ("到", "至")) or _w(prv) in ("to", "through", "thru", "till", "until")) and _number_before(before[:-1]):
        return Refusal("range", f"range: {text[_number_before(before[:-1]).start:lastt.end]!r} is not one answer",  # type: ignore[union-attr]
                       reading=_range_reading(before[:-1], value, lang))
    if prv is not None and prv.kind == "sym" and prv.text == "-" and not math and _number_before(before[:-1]) is not None and nxt is not None and (nxt.kind == "han" or (_w(nxt) and nxt.spaced)):
        b = _number_before(before[:-1])
        assert b is not None
        return Refusal("range", f"range: {text[b.start:lastt.end]!r} is not one answer", reading=_range_reading(before[:-1], value, lang))
    if (prv is not None and prv.text == "-" and not math and len(before) > 1 and before[-2].kind == "num" and first.kind == "num"
            and (len(before) < 3 or before[-3].kind != "sym" or before[-3].text in "$(") and (nxt is None or nxt.text in ".。,，;)")):
        return Refusal("range", f"range: {text[before[-2].start:lastt.end]!r} is a range or a difference, not one answer",
                       reading=_range_reading(before[:-1], value, lang))
    if prv is not None and _w(prv) in ("and", "or") and _number_before(before[:-1]) is not None:
        b = _number_before(before[:-1])
        assert b is not None
        opener_at = next((i for i in range(len(before) - 3, max(-1, len(before) - 7), -1)
                          if _w(before[i]) in _HEDGE or _w(before[i]) == "between"), None)
        opener = _w(before[opener_at]) if opener_at is not None else ""
        if opener == "between" or (opener in _HEDGE and _w(prv) == "or"):
            return Refusal("range", f"range: {text[before[opener_at].start:lastt.end]!r} is not one answer",  # type: ignore[index]
                           reading=_range_reading(before[:-1], value, lang))
        if used_special or b is not before[-2] or not whole:
            # in a whole solution "3 and 5" is not the number 5; a stated "3 and 5" lists two
            # (the math reader's set), "5 apples and 3 oranges" does not
            return Refusal("unread", f"two numbers joined by {prv.text!r}: {text[b.start:lastt.end]!r}")
        return None
    if prv is not None and prv.kind == "han" and prv.text == "或" and _number_before(before[:-1]) is not None:
        b = _number_before(before[:-1])
        assert b is not None
        kind = "range" if any(t.text in _CN_HEDGE or t.text in ("大", "约", "概") for t in before[-5:]) else "unread"
        return Refusal(kind, f"{'range: ' if kind == 'range' else ''}{text[b.start:lastt.end]!r}: two values offered, not one answer")
    for bound in _BOUND_BEFORE:
        if lower_before.endswith(bound):
            return Refusal("bound", f"{bound!r} before {span!r}: a bound, not a value")
    after_words = " ".join(_w(t) for t in after[:2])
    for bound in _BOUND_AFTER:
        if after_words.startswith(bound) and not (bound == "plus" and nxt2 is not None and nxt2.kind == "num"):
            return Refusal("bound", f"{span!r} {bound}: a bound, not a value")
    if nxt is not None and nxt.kind == "han":
        cn_after = "".join(t.text for t in after[:3] if t.kind == "han")
        if cn_after and cn_after[0] in _CN_HALF_UNITS | {"人", "件", "台", "辆", "张"}:
            cn_after = cn_after[1:]  # 5个以上, 3个多月: past the classifier
        if cn_after.startswith(("以上", "以下", "多", "余", "来")):
            return Refusal("bound", f"{span!r} {cn_after[:2]}: a bound or an approximation, not a value")
    if whole and lower_before.endswith(("over", "under", "above", "below", "beyond", "exceeding")):
        return Refusal("bound", f"{lower_before.split()[-1]!r} before {span!r}: a bound, not a value")
    # time of day (in mathematics a ratio: the plain readers decide)
    if math and ((prv is not None and prv.text == ":") or (nxt is not None and nxt.text == ":")):
        return None
    if prv is not None and prv.kind == "sym" and prv.text == ":" and not prv.spaced and not first.spaced and prv2 is not None and prv2.kind == "num":
        if first.text.isdigit() and len(first.text) == 2 and prv2.text.isdigit() and int(prv2.text) <= 24 and int(first.text) < 60:
            return Refusal("time of day", f"time of day: {text[prv2.start:lastt.end]!r} is a time, not a number")
        return Refusal("unread", f"{text[prv2.start:lastt.end]!r}: a ratio or a time written in prose, not one number")
    if nxt is not None and nxt.kind == "sym" and nxt.text == ":" and not nxt.spaced and nxt2 is not None and nxt2.kind == "num" and not nxt2.spaced:
        return None
    clock = "".join(t.text for t in after[:4]).lower()
    if first.kind == "num" and clock.startswith(("a.m", "p.m", "o'clock", "o’clock", "oclock")):
        return Refusal("time of day", f"time of day: {span} {clock.rstrip('.')} is a time, not a number")
    if _w(nxt) in ("am", "pm") and first.kind == "num":
        return Refusal("time of day", f"time of day: {span} {nxt.text if nxt else ''} is a time, not a number")
    unit = _unit_after(after)
    if (prv is not None and prv.text == "." and first.spaced and len(before) > 1 and before[-2].kind == "num" and not math
            and whole and read_numeral(before[-2].text, lang) != value):
        return Refusal("unread", f"two numbers in one statement: {text[before[-2].start:lastt.end]!r}")
    # two numbers side by side (digits only: "3 4"; mathematics may write a product so)
    if prv is not None and prv.kind == "num" and first.kind == "num" and first.spaced and (used_special or not math):
        return Refusal("unread", f"two numbers side by side: {text[prv.start:lastt.end]!r}")
    if not used_special:
        return None
    # percent and currency
    percent = False
    if nxt is not None and (nxt.text in ("%", "％") or _w(nxt) in ("percent", "pct")):
        percent = True
    if nxt is not None and nxt.kind == "sym" and nxt.text in "+-*/=^" and nxt2 is not None and nxt2.kind in ("num", "word", "cn"):
        return None
    unit_name = unit if unit is not None and not percent else None
    sign = _sign(before)
    if sign is None:
        return None  # a minus after an operand: an expression
    return Reading(sign * value, as_fraction=as_fraction, unit=unit_name, percent=percent)


def _sign(before: list[_Tok]) -> int | None:
    """The sign written right before the phrase (``-``, ``−``, ``+``, ``负``): ``-1``/``1``;
    ``None`` when the mark is an operator (an operand stands before it: ``5 - .5``)."""
    if not before:
        return 1
    mark = before[-1]
    if mark.text == "负":
        return -1
    word = _w(mark)
    if word in _OPERATOR_WORDS:
        operand = before[-2] if len(before) > 1 else None
        if operand is not None and (operand.kind in ("num", "cn") or _is_word_number(operand) or operand.text in ")]}%"):
            return None  # 10 minus 3, 6 divided by 2: arithmetic in words
        if word in ("negative", "minus"):
            return -1
        return None if word in ("times", "over", "by") else 1
    if mark.kind != "sym" or mark.text not in "-−+":
        return 1
    operand = before[-2] if len(before) > 1 else None
    if operand is not None and (operand.kind in ("num", "cn", "cnfrac") or _is_word_number(operand) or operand.text in ")]}!%"):
        return None
    if operand is not None and operand.kind == "word" and not mark.spaced and len(operand.text) == 1:
        return None  # x-3
    return -1 if mark.text in "-−" else 1


_ENGLISH_NUMERAL: Final = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})*(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?")


def _locale_marks(numeral: str, lang: str | None) -> bool:
    """Whether a numeral needs this reader: anything but ``1,234.5`` / ``3.5`` / ``42`` read in a
    locale with a decimal point (``.5``, ``7,25``, ``2.345,6``, ``1'000``, ``1.234`` in ``de``)."""
    if numeral.isdigit():
        return False
    if decimal_comma_locale(lang):
        return True
    return _ENGLISH_NUMERAL.fullmatch(numeral) is None


#: Words that may stand before a number written in words in a stated answer (``the answer is
#: eleven``), and how many words may follow it (a unit or a noun: ``eleven apples``).
_FILLER: Final = frozenset({
    "the", "answer", "final", "is", "are", "was", "were", "be", "so", "thus", "therefore", "hence",
    "it", "its", "equals", "equal", "total", "of", "a", "there", "we", "get", "have", "has", "had",
    "she", "he", "they", "i", "result", "value", "number", "in", "all", "altogether", "exactly",
    "just", "only", "then", "now", "will", "would", "left", "remain", "remaining", "needs", "need",
})
_AFTER_WORDS: Final = 3


def _stated_alone(before: list[_Tok], after: list[_Tok], whole: bool) -> bool:
    """Whether a number written in words is the statement's answer: only filler before it and a
    few words (a unit, a noun) after it, in a stated answer (``whole``); in a whole solution only
    when it is the whole text but a unit (``eleven``, ``Eleven apples.``)."""
    words_after = [t for t in after if t.kind in ("word", "han", "num", "cn")]
    if any(t.kind in ("num", "cn") for t in words_after) or len(words_after) > _AFTER_WORDS:
        return False
    if not whole:
        return not before and len(words_after) <= 1
    return all((t.kind == "word" and t.text.lower() in _FILLER) or (t.kind == "sym" and t.text in ":=,'*$") for t in before)


_CURRENCY_WORDS: Final = frozenset({"dollars", "dollar", "euros", "euro", "eur", "usd", "cad", "chf", "brl", "reais", "pesos", "rubles", "roubles", "zloty"})


def _priced(prv: _Tok | None, nxt: _Tok | None) -> bool:
    """Whether a currency sign or word stands beside the number (``2,74 €``, ``€ 2,74``)."""
    return (prv is not None and prv.text in _CURRENCY) or (nxt is not None and (nxt.text in _CURRENCY or _w(nxt) in _CURRENCY_WORDS or nxt.text in ("元", "円")))


def _number_before(before: list[_Tok]) -> _Tok | None:
    """The numeral token that ends ``before``, across up to two words between (a unit, a
    magnitude: ``3 kg to 4 kg``, ``1 thousand hours or 0 hours``), or ``None``."""
    skipped = 0
    for tok in reversed(before):
        if tok.kind in ("num", "cn", "cnfrac") or _is_word_number(tok):
            return tok
        if tok.kind == "sym" and tok.text in ("%", "％") and skipped == 0:
            continue
        if tok.kind not in ("word", "han") or skipped == 2 or tok.text.lower() in ("and", "or", "to", "between", "from"):
            return None
        skipped += 1
    return None


def _range_reading(before: list[_Tok], high: Fraction, lang: str | None) -> str | None:
    """``range 3..4``: the range as a gold of the same range reads (its low end: the numeral
    that ends ``before``, with a magnitude word or a sign beside it), or ``None``."""
    b = _number_before(before)
    if b is None:
        return None
    at = before.index(b)
    if at > 0 and before[at - 1].text in "/:.":
        return None  # 1/2 to 3/4: no reading of fractions' ranges
    low: Fraction | Refusal | None
    if b.kind == "num":
        low = read_numeral(b.text, lang)
    elif b.kind == "cn":
        low = read_chinese_mixed(b.text)
        if low is None and len(b.text) == 1 and b.text in CN_DIGIT_VALUES:
            low = Fraction(CN_DIGIT_VALUES[b.text])
    else:
        return None
    if not isinstance(low, Fraction):
        return None
    scale = _w(before[at + 1]) if at + 1 < len(before) else ""
    if scale in _SCALES:
        low *= _SCALES[scale]
    elif scale in _SUFFIXES or (at + 1 < len(before) and before[at + 1].text in _SUFFIXES):
        return None
    sign = _sign(before[:at])
    if sign is None:
        return None
    return f"range {format_number(sign * low)}..{format_number(high)}"


def reading_of(text: str) -> str | None:
    """What a gold states when it is a range or a compound quantity (``range 3..4``,
    ``6300 s``), as :class:`Refusal` readings are written; ``None`` otherwise.

    >>> reading_of("between 3 and 4"), reading_of("1 hour 45 minutes"), reading_of("3")
    ('range 3..4', '6300 s', None)
    """
    found = read_phrase(text, None, whole=True)
    if isinstance(found, Refusal):
        return found.reading
    if isinstance(found, Reading) and found.unit is not None:
        return quantity_in_base(found.value, found.unit)
    return None


def _unit_after(after: list[_Tok]) -> str | None:
    """The unit word right after the number (``minutes``, ``ft``, ``小时``), when it is one the
    size table knows; ``None`` otherwise."""
    if not after:
        return None
    tok = after[0]
    if tok.kind == "word" and tok.text.lower() in _UNIT_SIZES:
        return tok.text.lower()
    if tok.kind == "han":
        for n in (3, 2, 1):
            text = "".join(t.text for t in after[:n] if t.kind == "han")
            if len(text) == n and text in _UNIT_SIZES:
                return text
    return None


def _compound(before: list[_Tok], value: Fraction, unit: str | None) -> Refusal | None:
    """``1 hour 45 minutes``, ``5 ft 3 in``, ``2 hours and 30 minutes``, ``1小时45分钟``: a
    quantity written in two units of one dimension."""
    if unit is None or (unit not in _UNIT_SIZES and unit != "分"):
        return None
    toks = list(before)
    if toks and toks[-1].text == "." and len(toks) > 1 and _w(toks[-2]) in _UNIT_SIZES:
        toks = toks[:-1]  # 3 ft. 4 in.
    if toks and (_w(toks[-1]) == "and" or (toks[-1].kind == "sym" and toks[-1].text in ",，") or (toks[-1].kind == "han" and toks[-1].text in "零又")):
        toks = toks[:-1]
    # the unit before: a word or up to three Chinese characters
    first_unit = None
    k = 0
    for n in (3, 2, 1):
        if len(toks) > n and all(t.kind == "han" for t in toks[-n:]):
            text = "".join(t.text for t in toks[-n:])
            if text in _UNIT_SIZES:
                first_unit, k = text, n
                break
    if first_unit is None and toks and toks[-1].kind == "word" and toks[-1].text.lower() in _UNIT_SIZES:
        first_unit, k = toks[-1].text.lower(), 1
    if first_unit is None or len(toks) <= k or toks[-k - 1].kind not in ("num", "cn"):
        return None
    dim, size = _UNIT_SIZES[first_unit]
    if unit == "分":  # 1小时30分: minutes; 2元5角3分: cents
        unit = {"time": "分钟", "money": "cent"}.get(dim, "")
        if not unit:
            return None
    dim2, size2 = _UNIT_SIZES[unit]
    number_tok = toks[-k - 1]
    if dim != dim2 or Fraction(size) <= Fraction(size2):
        return Refusal("unread", f"two quantities side by side: {number_tok.text} {first_unit} and {format_number(value)} {unit}")
    first_value = read_numeral(number_tok.text) if number_tok.kind == "num" else read_chinese_mixed(number_tok.text)
    if not isinstance(first_value, Fraction):
        return None
    total = first_value * Fraction(size) + value * Fraction(size2)
    base = _BASE_NAMES[dim]
    earlier = toks[: -k - 1]
    if earlier and (earlier[-1].text in _UNIT_SIZES or _w(earlier[-1]) in _UNIT_SIZES):
        # three units (2元5角3分, 1 h 2 min 3 s): refused, without a reading
        return Refusal("compound quantity", f"compound quantity: {earlier[-1].text} … {format_number(value)} {unit} is one quantity in several units")
    return Refusal(
        "compound quantity",
        f"compound quantity: {number_tok.text} {first_unit} {format_number(value)} {unit} is one quantity in two units "
        f"(= {format_number(total)} {base}); compared only with a gold that states a unit",
        reading=f"{format_number(total)} {base}",
    )


def quantity_in_base(value: Fraction, unit: str) -> str | None:
    """A value with one unit in the base unit of its dimension (``105 minutes`` → ``6300 s``),
    as :class:`Refusal` readings of compound quantities are written; ``None`` for an unknown unit.

    >>> quantity_in_base(Fraction(105), "minutes"), quantity_in_base(Fraction(7, 4), "hours"), quantity_in_base(Fraction(1), "apples")
    ('6300 s', '6300 s', None)
    """
    entry = _UNIT_SIZES.get(unit.lower()) or _UNIT_SIZES.get(unit)
    if entry is None:
        return None
    dim, size = entry
    return f"{format_number(value * Fraction(size))} {_BASE_NAMES[dim]}"


__all__ = [
    "Reading",
    "Refusal",
    "decimal_comma_locale",
    "fraction_slashes",
    "quantity_in_base",
    "read_chinese_mixed",
    "read_number_words",
    "read_numeral",
    "read_phrase",
    "reading_of",
    "sign_dashes",
]
