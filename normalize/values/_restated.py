r"""One quantity stated in two units: which of the two numbers is the answer is not certain.

Private to the package.  ``The answer is 1.5 kg (1500 g).``, ``42 minutes, which is 0.7 hours``,
``90 minutes = 1.5 hours``, ``$5, or 500 cents``: the output gives one quantity twice, in two
units of one dimension.  A gold without a unit (GSM8K's, most math sets') names one of the two
numbers, and nothing in the output says which: the first is what the model answered in, the
second what it converted to.  Taking the last number (what a reader of the whole text would do)
or the first is a guess, so the parsers refuse such an answer with a reason instead.

Units are the accounting reader's table (:data:`normalize.values._quantity._UNIT_SIZES`), so a
restatement is recognised exactly where that reader would know both units; a number with a word
it does not know as a unit (``2 dozen, i.e. 24 eggs``) is no restatement, and neither is a
computation (``3 hours × 60 = 180 minutes``: an operator, not a gloss, joins them).

>>> restated_quantity("The answer is 1.5 kg (1500 g).")
"the answer is one quantity in two units: '1.5 kg (1500 g' (kg and g): which number is meant is not certain"
>>> restated_quantity("It takes 3 hours, which is 180 minutes") is None, restated_quantity("3 + 4 = 7 hours") is None
(False, True)
"""

from __future__ import annotations

from functools import cache
from typing import Final

import regex

from normalize.limits._regex import compile_pattern
from normalize.values._quantity import _UNIT_SIZES, HAN_UNIT_WORDS, UNIT_WORDS

_NUMBER: Final = r"(?<![0-9A-Za-z_.,])(?:(?P<cur{n}>\\?\$\s*)|(?<!\$\s*))(?P<num{n}>[0-9][0-9,]*(?:\.[0-9]+)?|\.[0-9]+)"
#: A unit after a number, bare or in ``\text{}`` (optional after a number in :data:`_UNIT`).
_UNIT_CORE: Final = (
    r"\s*(?:\\(?:text|textrm|mathrm|mbox)\s*\{{\s*)?(?:(?P<unit{n}>" + UNIT_WORDS
    + r")(?![A-Za-z])|(?P<han{n}>" + HAN_UNIT_WORDS + r"))\s*\}}?"
)
_UNIT: Final = "(?:" + _UNIT_CORE + ")?"
#: What joins a quantity to its restatement: a bracket, an equals sign, "which is", "i.e.", "or"
#: (each may be followed by "about"), and their Chinese forms.
_GLUE: Final = (
    r"\s*(?:,\s*)?(?:[(（]|=|≈|→|(?i:(?:which|that)\s+(?:is|was|are|makes|equals)|that's|i\.\s?e\.,?|or|equivalently"
    r"|also\s+known\s+as))\s*(?i:(?:about|approximately|roughly|around|exactly|just\s+over|just\s+under)\s+)?"
    r"|\s*[，,]?\s*(?:即|也就是|也就是说|相当于)\s*"
)


@cache
def _pattern() -> regex.Pattern[str]:
    return compile_pattern(_NUMBER.format(n=1) + _UNIT.format(n=1) + f"(?:{_GLUE})" + _NUMBER.format(n=2) + _UNIT.format(n=2))


@cache
def _unit_after() -> regex.Pattern[str]:
    """A unit right after a number (what the restated quantity's second half must end with)."""
    return compile_pattern(_UNIT_CORE.format(n=1))


@cache
def _glue_before() -> regex.Pattern[str]:
    """A glue ending where the last number (or its dollar sign) starts."""
    return compile_pattern(rf"(?:{_GLUE})\s*(?:\\?\$\s*)?$")


#: How far before the last number a restatement may start.
_WINDOW: Final = 160


def restated_quantity(text: str) -> str | None:
    """The reason to refuse ``text``'s answer when its last number restates the quantity just
    before it in another unit of the same dimension (see the module docstring); else ``None``.

    >>> restated_quantity("So she needs 3 hours, or 180 minutes.")
    "the answer is one quantity in two units: '3 hours, or 180 minutes' (hours and minutes): which number is meant is not certain"
    >>> restated_quantity("The answer is 2 dozen, i.e. 24 eggs.") is None
    True
    """
    if text.isascii() and "$" not in text and not any(c.isalpha() for c in text):
        return None  # "18", "1,200.5": a unit is letters, a Han character or a dollar sign
    last = max(text.rfind(d) for d in "0123456789")
    if last < 0:
        return None
    begin = last
    while begin > 0 and (text[begin - 1].isdigit() or text[begin - 1] in ".,"):
        begin -= 1
    # the last number must carry a unit, or a dollar sign, for the text to end on a restatement
    # (most solutions end on a bare number or a noun): one match, not the search below
    unit = _unit_after().match(text, last + 1)
    if unit is None and "$" not in text[max(0, begin - 3) : begin]:
        return None
    if _glue_before().search(text, max(0, begin - 48), begin) is None:
        return None  # no bracket, "which is", "=", "or" … right before it: no restatement
    found = None
    for m in _pattern().finditer(text, max(0, begin - _WINDOW), (unit.end() if unit else last + 1), overlapped=True):
        found = m
    if found is None or found.end() <= last:
        return None
    first, second = _unit(found, 1), _unit(found, 2)
    if first is None or second is None:
        return None
    (dim1, size1), (dim2, size2) = _UNIT_SIZES[first], _UNIT_SIZES[second]
    if dim1 != dim2 or size1 == size2:
        return None
    return (f"the answer is one quantity in two units: {found[0].strip()!r} ({_shown(found, 1)} and {_shown(found, 2)}): "
            "which number is meant is not certain")


def _unit(m: regex.Match[str], n: int) -> str | None:
    """The table key of the ``n``-th quantity's unit (a dollar sign before a bare number is
    dollars); ``None`` for a number without one."""
    word = m[f"unit{n}"] or m[f"han{n}"]
    if word is None:
        return "dollars" if m[f"cur{n}"] is not None else None
    key = word if word in _UNIT_SIZES else word.lower()
    return key if key in _UNIT_SIZES else None


def _shown(m: regex.Match[str], n: int) -> str:
    return str(m[f"unit{n}"] or m[f"han{n}"] or "$")


#: A rate: a number (with its unit) "per"/"a"/"each"/"/" a unit of time ("18 per day", "$18 a day").
_RATE: Final = (
    r"(?:(?:\s+(?:[A-Za-z]+\s+){{0,2}})|\s*)(?:(?i:per|a|an|each|every)\s+|/\s*)(?P<per{n}>"
    + "|".join(map(regex.escape, sorted((u for u in _UNIT_SIZES if u.isascii() and _UNIT_SIZES[u][0] == "time"),
                                        key=len, reverse=True))) + r")(?![A-Za-z])"
)


def _rate_pattern() -> regex.Pattern[str]:
    return compile_pattern(
        _NUMBER.format(n=1) + _RATE.format(n=1) + r"\s*(?:,\s*)?(?:[(（]|(?i:or|which\s+is|i\.\s?e\.,?|that\s+is)\s+)"
        + _NUMBER.format(n=2) + _RATE.format(n=2)
    )


def restated_rate(text: str) -> str | None:
    """The reason to refuse ``text``'s answer when its last number restates the rate just before
    it per another unit of time (``18 per day, or 126 per week``: 18 or 126?); else ``None``.

    >>> restated_rate("The answer is 18 per day, or 126 per week.")
    "the answer is one rate per two units of time: '18 per day, or 126 per week' (day and week): which number is meant is not certain"
    >>> restated_rate("She earns 18 per day.") is None, restated_rate("18 per day, or 18 per day") is None
    (True, True)
    """
    if "per" not in text and "/" not in text and " a " not in text and "each" not in text and "every" not in text:
        return None
    last = max(text.rfind(d) for d in "0123456789")
    if last < 0:
        return None
    found = None
    for m in _rate_pattern().finditer(text, max(0, last - _WINDOW), overlapped=True):
        found = m
    if found is None or any(c.isdigit() for c in text[found.end():]):
        return None
    first, second = found["per1"].lower(), found["per2"].lower()
    if _UNIT_SIZES[first][1] == _UNIT_SIZES[second][1]:
        return None
    return (f"the answer is one rate per two units of time: {found[0].strip()!r} ({first} and {second}): "
            "which number is meant is not certain")


__all__ = ["restated_quantity", "restated_rate"]
