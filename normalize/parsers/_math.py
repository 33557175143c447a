r"""The ``math`` parser: the answer of a math solution as a canonical mathematical value, or no answer.

Input is the statement the chain's ``extract_math_answer`` kept (or the whole solution when it
found none: ``ParseContext.notes["found_by"] == "last_number"``).  In it the answer is

1. the whole statement, when it is mathematics (``x \le 2``, ``(1, +\infty)``, ``1 or -1``); else
2. the last mathematical item — a ``$…$`` / ``\(…\)`` / ``\[…\]`` span or a run of plain math
   (``x <= 2``, ``1,000.99 m``) — together with the items listed right before it
   (``$12$ and $13$``), and a percent word after it (``$28$ percent``).

Every token of the answer's number is accounted for first (:mod:`normalize._quantity`: the
accounting rule; the README's parser section states it): digit groups, a sign, decimal and
grouping marks, a fraction bar, magnitude and number words, units, currency; ``4 thousand`` is
4000, ``2 3/4`` is 11/4, ``eleven`` is 11, ``.5`` after prose is 0.5, and a range
(``between 3 and 4``), a compound quantity (``1 hour 45 minutes``), a time of day (``3:30``),
an ambiguous decimal comma (``7,25`` without ``lang``) or a token the reader cannot account for
next to the number is ``no_answer`` with a reason — never the number beside it.  Inside a box or
``$…$`` mathematics keeps its notation (``1,2`` lists two numbers, ``7:32`` is a ratio).

Hedging between values (``12 or possibly 15``) is ``contradictory``.  The value is read by
:func:`normalize._mathvalue.read_value`: exact rationals for plain numbers, SymPy for the rest,
never a number taken out of an expression (``(2,12) \cup (12,102)`` is an interval union, not
12102; ``2x - y + 3z = 8`` an equation, not 8).  The answer is the value's canonical string
(``5/4``, ``7 \pi``, ``\{1, 2\}``, ``(2, 12) \cup (12, 102)``, ``20%``, ``\text{Evelyn}``);
reading that string again gives the same string.
"""

from __future__ import annotations

from typing import Final

import regex

from normalize import status as st
from normalize._deadline import TimeUp
from normalize._literals import fold
from normalize._mathvalue import (
    MathValue,
    NotMath,
    _has_prose,
    plain_canonical,
    read_value,
    remove_invisible,
    unwrap_boxes,
)
from normalize._quantity import (
    NUMBER_WORD,
    Reading,
    Refusal,
    decimal_comma_locale,
    fraction_slashes,
    read_phrase,
)
from normalize._regex import compile_pattern
from normalize.parsers._math_params import (
    MathParams as MathParams,
)
from normalize.registry import ParseContext, Parsed, parser

_SPANS: Final = r"\$\$(?P<a>.+?)\$\$|\$(?P<b>[^$]+?)\$|\\\((?P<c>.+?)\\\)|\\\[(?P<d>.+?)\\\]"
# a run of plain math outside $…$: numbers, operators, brackets, LaTeX commands, lone letters
_RUN_TOKEN: Final = (
    r"(?:(?<![A-Za-z0-9])(?:[0-9]+(?:[.,][0-9]+)*|\.[0-9]+)|\\text\{[^{}]*\}|\\[A-Za-z]+|\\[{}%$]"
    r"|(?<![A-Za-z'’])[A-Za-z](?![A-Za-z])|[-+*/^_=<>≤≥≠±×÷·()\[\]{}|!%])"
)
_RUN: Final = rf"{_RUN_TOKEN}(?:[ \t]?(?:{_RUN_TOKEN}|,(?=[ \t]?[-0-9(\[])))*"
_GLUE: Final = r"^\s*(?:,|;|\band\b|\bor\b|\\text\{\s*(?:and|or)\s*\}|\\quad|\\qquad)?\s*$"
_HEDGE_GLUE: Final = r"(?i)(?<![A-Za-z])(?:or\s+(?:possibly|maybe|perhaps|probably)|possibly|maybe|perhaps)(?![A-Za-z])"
_PERCENT_AFTER: Final = r"^\s*(?:\\?%|％|percent(?:age)?|per\s+cent|pct)(?![A-Za-z])"
_MAX_WHOLE: Final = 300
#: GSM8K's calculator annotations, ``<<20/4=5.0>>``: the model's working, not its answer.
_CALCULATOR: Final = r"<<[^<>\n]{0,200}>>"


def _may_hedge(text: str) -> bool:
    """Whether :data:`_HEDGE_GLUE` may match: every match holds one of these words (folded as
    ``(?i)`` matches)."""
    folded = text.lower() if text.isascii() else fold(text)  # fold's special letters are not ASCII
    return "or" in folded or "possibly" in folded or "maybe" in folded or "perhaps" in folded


def _items(text: str) -> list[tuple[int, int, str]]:
    """Math spans and plain math runs, in order: (start, end, content)."""
    items: list[tuple[int, int, str]] = []
    spans = list(compile_pattern(_SPANS, regex.DOTALL).finditer(text))
    pos = 0
    run = compile_pattern(_RUN)
    for m in [*spans, None]:
        stop = m.start() if m is not None else len(text)
        for r in run.finditer(text, pos, stop):
            content = r.group(0).strip(" ,.")
            if any(c.isdigit() for c in content) or compile_pattern(r"\\(?:infty|pi|sqrt|frac)").search(content):
                items.append((r.start(), r.end(), content))
        if m is not None:
            content = next(g for g in m.groups() if g is not None).strip().strip(",").strip()
            if content and _has_prose(content) is None:
                items.append((m.start(), m.end(), content))
                pos = m.end()
            else:
                pos = m.start() + 1  # "$? just about 1$": dollars, not math
    return items


def _candidate(text: str, *, whole: bool) -> str:
    """The part of ``text`` that states the answer (see the module docstring)."""
    items = _items(text)
    if not items:
        raise NotMath("no mathematical answer found" if not any(c.isdigit() for c in text) else "no answer: the digits are inside words")
    _, last_end, content = items[-1]
    parts = [content]
    index = len(items) - 1
    while index > 0:
        between = text[items[index - 1][1] : items[index][0]]
        if compile_pattern(_HEDGE_GLUE).search(between):
            raise NotMath(f"the answer hedges between {items[index - 1][2]!r} and {items[index][2]!r}", st.CONTRADICTORY)
        if whole or not compile_pattern(_GLUE).match(between):
            break
        parts.insert(0, items[index - 1][2])
        index -= 1
    candidate = ", ".join(parts)
    if compile_pattern(_PERCENT_AFTER).match(text[last_end:]) and "%" not in candidate:
        candidate += r"\%"
    return candidate


@parser("math", version=3, params=MathParams)
def parse_math(text: str, params: MathParams, ctx: ParseContext) -> Parsed:
    r"""The answer as a canonical mathematical value (see the module docstring).

    >>> ctx = ParseContext()
    >>> [parse_math(s, MathParams(), ctx).answer for s in ["42 apples.", r"$1\frac{1}{4}$", r"x \in (2,12) \cup (12,102)", "x <= 2"]]
    ['42', '5/4', '(2, 12) \\cup (12, 102)', 'x \\leq 2']
    >>> parse_math("12 or possibly 15", MathParams(), ctx).status
    'contradictory'
    """
    text = remove_invisible(text).strip()
    if not text:
        return Parsed(None, st.NO_ANSWER, "the normalized text is empty")
    if not text.isascii():
        slashed = fraction_slashes(text)
        if isinstance(slashed, Refusal):
            return Parsed(None, st.NO_ANSWER, slashed.reason, {"refused": slashed.kind})
        text = slashed
    whole_solution = ctx.notes.get("found_by") == "last_number" or ctx.notes.get("statement") == "paragraph"
    unboxed = unwrap_boxes(text)
    if "<<" in unboxed:
        unboxed = compile_pattern(_CALCULATOR).sub("", unboxed)
    whole_text = ctx.notes.get("statement") != "paragraph" and len(unboxed) <= _MAX_WHOLE
    if whole_text:
        # the commonest answer, one plain number ("-862", "$61,260.", "\frac{3}{4}"): what the
        # general path gives it (no hedge word, no "<<", no \text{} fits the shape; read_value
        # gives a value with this canonical spelling and nothing dropped), without its caches
        plain = plain_canonical(unboxed)
        if plain is not None and not (decimal_comma_locale(ctx.lang) and ("." in unboxed or "," in unboxed)):
            return Parsed(plain, st.OK, None, {})  # (a row in a decimal-comma locale reads 1.234 as 1234)
    accounted = _account(unboxed, ctx, whole=not whole_solution)
    if accounted is not None:
        return accounted
    try:
        candidate: str | None = None
        if whole_text:
            if _may_hedge(unboxed) and compile_pattern(_HEDGE_GLUE).search(unboxed) and len(
                compile_pattern(r"[0-9]+").findall(unboxed)
            ) >= 2:
                return Parsed(None, st.CONTRADICTORY, f"the answer hedges between values: {unboxed[:80]!r}")
            try:
                value = read_value(unboxed, timeout=params.timeout)
            except NotMath as exc:
                if exc.status != st.NO_ANSWER:
                    raise
            else:
                return _ok(value, ctx, typeset=_typeset_text(unboxed))
        candidate = _candidate(unboxed, whole=whole_solution)
        value = read_value(candidate, timeout=params.timeout)
    except NotMath as exc:
        return Parsed(None, exc.status, exc.reason)
    except TimeUp:
        return Parsed(None, st.ERROR, f"reading the answer took longer than {params.timeout:g} s (timeout)")
    return _ok(value, ctx, typeset=False)


def _account(text: str, ctx: ParseContext, *, whole: bool) -> Parsed | None:
    """The accounting reader's verdict on the phrase of the answer's last number
    (:func:`normalize._quantity.read_phrase`: magnitude and number words, mixed numbers, locales,
    ranges, compound quantities, times of day), or ``None`` when it adds nothing to the readers
    below (a plain number, an expression)."""
    math = ctx.notes.get("found_by") == "boxed" or bool(ctx.notes.get("from_box"))
    found = read_phrase(text, ctx.lang, whole=whole, math=math)
    if found is None:
        return None
    if isinstance(found, Reading):
        return Parsed(found.canonical, st.OK, None, {"dropped": [found.unit]} if found.unit else {})
    extra: dict[str, str] = {"refused": found.kind}
    if found.reading is not None:
        extra["reading"] = found.reading
    return Parsed(None, st.NO_ANSWER, found.reason, extra)


def _typeset_text(text: str) -> bool:
    r"""Whether ``text`` is one ``\text{…}`` set as a formula and nothing else
    (``$$\text{The midpoints form a regular hexagon}$$``): the model typeset it as its answer.

    >>> _typeset_text(r"$$\text{a regular hexagon}$$"), _typeset_text("a regular hexagon")
    (True, False)
    """
    return text[:1] in "$\\" and compile_pattern(_TYPESET_TEXT).match(text) is not None


_TYPESET_TEXT: Final = (
    r"^(?:\$\$?|\\\[|\\\()\s*\\(?:text|textbf|textrm|mathrm)\s*\{[^{}$]*\}\s*[.]?\s*(?:\$\$?|\\\]|\\\))$"
)


def _ok(value: MathValue, ctx: ParseContext, *, typeset: bool) -> Parsed:
    """The parsed value; a sentence of prose (three words or more) counts as an answer only when
    stated (a marker, a box, or the whole text typeset as one ``\\text{}`` formula): ``I cannot
    tell.`` is no answer, a bare ``Evelyn`` is one."""
    if (value.kind == "text" and len((value.text or "").split()) >= 3 and not typeset
            and ctx.notes.get("found_by") not in ("marker", "boxed")):
        return Parsed(None, st.NO_ANSWER, f"no answer stated: {value.text or value.canonical!r} is prose, "
                                          "not marked or boxed as the answer")
    if value.kind == "text" and NUMBER_WORD.search(value.text or "") is not None:
        return Parsed(None, st.NO_ANSWER, f"number words not read as one number: {value.text!r}")
    extra = {"dropped": list(value.dropped)} if value.dropped else {}
    return Parsed(value.canonical, st.OK, None, extra)


__all__ = ["MathParams", "parse_math"]
