r"""The ``math`` parser: the answer of a math solution as a canonical mathematical value, or no answer.

Input is the statement the chain's ``extract_math_answer`` kept (or the whole solution when it
found none: ``ParseContext.notes["found_by"] == "last_number"``).  In it the answer is

1. the whole statement, when it is mathematics (``x \le 2``, ``(1, +\infty)``, ``1 or -1``); else
2. the last mathematical item — a ``$…$`` / ``\(…\)`` / ``\[…\]`` span or a run of plain math
   (``x <= 2``, ``1,000.99 m``) — together with the items listed right before it
   (``$12$ and $13$``), and a percent word after it (``$28$ percent``); an item negated by the
   text before it is skipped (``12, not 13`` is 12).

Every token of the answer's number is accounted for first (:mod:`normalize.values._quantity`: the
accounting rule; the README's parser section states it): digit groups, a sign, decimal and
grouping marks, a fraction bar, magnitude and number words, units, currency; ``4 thousand`` is
4000, ``2 3/4`` is 11/4, ``eleven`` is 11, ``.5`` after prose is 0.5, and a range
(``between 3 and 4``), a compound quantity (``1 hour 45 minutes``), a time of day (``3:30``),
an ambiguous decimal comma (``7,25`` without ``lang``), a hyphened mixed number (``2-1/2 cups``) or a token the reader cannot account for
next to the number is ``no_answer`` with a reason — never the number beside it.  Inside a box or
``$…$`` mathematics keeps its notation (``1,2`` lists two numbers, ``7:32`` is a ratio).

Hedging between values (``12 or possibly 15``) is ``contradictory``, and so is a stated answer
that offers a value on a condition (``18 (but 20 if the discount applies)``).  The value is read by
:func:`normalize.values._mathvalue.read_value`: exact rationals for plain numbers, SymPy for the rest,
never a number taken out of an expression (``(2,12) \cup (12,102)`` is an interval union, not
12102; ``2x - y + 3z = 8`` an equation, not 8).  The answer is the value's canonical string
(``5/4``, ``7 \pi``, ``\{1, 2\}``, ``(2, 12) \cup (12, 102)``, ``20%``, ``\text{Evelyn}``);
reading that string again gives the same string.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

import regex

from normalize import status as st
from normalize.core.registry import ParseContext, Parsed, parser
from normalize.limits._deadline import TimeUp
from normalize.limits._literals import fold
from normalize.limits._regex import compile_pattern
from normalize.parsers._math_params import MathParams
from normalize.values._mathvalue import (
    MathValue,
    NotMath,
    _has_prose,
    glued_word_after,
    last_number_glued,
    only_names_and_numbers,
    plain_canonical,
    read_value,
    remove_invisible,
    unwrap_boxes,
)
from normalize.values._quantity import (
    NUMBER_WORD,
    Reading,
    Refusal,
    decimal_comma_locale,
    fraction_slashes,
    read_phrase,
    sign_dashes,
)
from normalize.values._restated import restated_quantity, restated_rate

_SPANS: Final = r"\$\$(?P<a>.+?)\$\$|\$(?P<b>[^$]+?)\$|\\\((?P<c>.+?)\\\)|\\\[(?P<d>.+?)\\\]"
# a run of plain math outside $…$: numbers, operators, brackets, LaTeX commands, lone letters
_RUN_TOKEN: Final = (
    r"(?:(?<![A-Za-z0-9]|[0-9][.,])(?:[0-9]+(?:[.,][0-9]+)*|\.[0-9]+)|\\text\{[^{}]*\}|\\[A-Za-z]+|\\[{}%$]"
    r"|(?<![A-Za-z'’])[A-Za-z](?![A-Za-z])|[-+*/^_=<>≤≥≠±×÷·()\[\]{}|!%])"
)
_RUN: Final = rf"{_RUN_TOKEN}(?:[ \t]?(?:{_RUN_TOKEN}|,(?=[ \t]?[-0-9(\[])))*"
#: :data:`_RUN` for the stdlib engine, its look-behind split in two of fixed width: the same
#: matches (tests/test_fast_paths_gsm8k.py), read ~2.4× faster over a solution's prose.
_RUN_STD: Final = re.compile(_RUN.replace(r"(?<![A-Za-z0-9]|[0-9][.,])", r"(?<![A-Za-z0-9])(?<![0-9][.,])"))
#: Two letters side by side: no run holds them where the text has no backslash (:func:`_runs_from_end`).
_LETTER_PAIR: Final = re.compile(r"[A-Za-z]{2}")
#: The last characters of a segment read first for its runs (:func:`_runs_from_end`).
_RUN_PIECE: Final = 96
#: What joins the values of a list: a comma, "and"/"or" in the languages the packs read ("15
#: или 16" is "15 or 16": a list, not 16 with a word before it).
_GLUE: Final = (
    r"^\s*(?:,|;|\band\b|\bor\b|\\text\{\s*(?:and|or)\s*\}|\\quad|\\qquad"
    r"|(?i:\b(?:und|oder|et|ou|y|o|e|и|или|либо)\b)|或者?|和|与|及|または|か|と)?\s*$"
)
_HEDGE_GLUE: Final = (
    r"(?i)(?<![\p{L}])(?:or\s+(?:possibly|maybe|perhaps|probably)|possibly|maybe|perhaps"
    r"|vielleicht|eventuell|möglicherweise|peut-être|quizás?|tal\s+vez|posiblemente|возможно|может\s+быть|наверное)"
    r"(?![\p{L}])|可能|也许|或许|たぶん|多分|かもしれ"
)
#: What every match of :data:`_HEDGE_GLUE` holds (folded): the screen :func:`_may_hedge` looks for.
_HEDGE_SCREEN: Final = (
    "or", "possibly", "maybe", "perhaps", "vielleicht", "eventuell", "möglicherweise", "peut-être", "quiz",
    "tal", "posiblemente", "возможно", "может", "наверное", "可能", "也许", "或许", "たぶん", "多分", "かもしれ",
)
#: What negates the value right after it: "12, not 13", "12 rather than 13", "12而不是13",
#: "15, nicht 18", "15 et non 18", "15, no 18", "15, а не 18".
_NEGATED_BEFORE: Final = (
    r"(?:(?<![\p{L}])(?i:not|rather\s+than|instead\s+of|nicht|non|pas|no|não|не|ні|nie)|而不是|而非|不是|并非)\s*$"
)
#: A second value offered on a condition: "18 (but 20 if the discount applies)", "40 unless …".
_CONDITION_GLUE: Final = (
    r"(?i)(?<![\p{L}])(?:but|unless|otherwise|if|wenn|falls|sonst|si|sinon|sino|если|иначе)(?![\p{L}])|如果|否则"
)
#: "2-1/2 cups": the hyphened mixed number of US recipes and rulers, or 2 - 1/2 (not in a box).
_HYPHENED_MIXED: Final = r"(?<![0-9.,/\-])(?P<w>[0-9]+)-(?P<n>[0-9]+)/(?P<d>[0-9]+)(?![0-9./])"
_PERCENT_AFTER: Final = r"^\s*(?:\\?%|％|percent(?:age)?|per\s+cent|pct)(?![A-Za-z])"
_MAX_WHOLE: Final = 300
#: Two answers labelled as parts of the question, in order: "(a) 12 (b) 15", "a) 12, b) 15",
#: "(1) 12; (2) 15", "(i) 12 (ii) 15" (each label before a value, the second the next label).
_PART_LABELS: Final = (
    r"(?:^|(?<=[\s,;:，；：]))(?P<o1>\(?)(?:(?P<a>[a])|(?P<n>1)|(?P<r>i))\)[ \t]*[-+−$0-9\\(][^\n]*?"
    r"[\s,;:，；：](?P=o1)(?(a)b|(?(n)2|ii))\)[ \t]*[-+−$0-9\\(]"
)
#: One value after a part's label: "(a) 12", "(1) 12" (they were a·12 and 13).
_PART_LABEL: Final = r"^\s*\((?:[a-h]|[1-9]|i{1,3}|iv)\)[ \t]+[$0-9][^\n]*$"
#: A period right after a word of two letters or more and before a digit: it ends an
#: abbreviation (``Rs.12``, ``No.5``), it is no decimal point.
_ABBREVIATION_DOT: Final = r"(?<=(?<![A-Za-z\\])[A-Za-z]{2,})\.(?=[0-9])"
#: GSM8K's calculator annotations, ``<<20/4=5.0>>``: the model's working, not its answer.
_CALCULATOR: Final = r"<<[^<>\n]{0,200}>>"


def _may_hedge(text: str) -> bool:
    """Whether :data:`_HEDGE_GLUE` may match: every match holds one of these words (folded as
    ``(?i)`` matches)."""
    if text.isascii():
        folded = text.lower()
        return "or" in folded or "possibly" in folded or "maybe" in folded or "perhaps" in folded
    folded = fold(text)  # fold's special letters are not ASCII
    return any(word in folded for word in _HEDGE_SCREEN)


def _items(text: str) -> list[tuple[int, int, str]]:
    """Math spans and plain math runs, in order: (start, end, content).

    >>> _items(r"So $x = 2$ and 3 apples.")
    [(3, 10, 'x = 2'), (15, 16, '3')]
    """
    return list(reversed(list(_items_from_end(text))))


def _items_from_end(text: str) -> Iterator[tuple[int, int, str]]:
    """:func:`_items`, last first, read only as far back as the caller asks: the spans are found
    from the start (a ``$`` pairs with the next one), but the runs of plain math between two of
    them only when the items after are used up (where a segment's runs start depends only on
    the span before it)."""
    spans = list(compile_pattern(_SPANS, regex.DOTALL).finditer(text))
    stop = len(text)
    after: str | None = None  # the content of the span after this segment
    for index in range(len(spans), -1, -1):
        if index < len(spans):
            m = spans[index]
            if after is not None:
                yield m.start(), m.end(), after
            stop = m.start()
        pos = 0
        if index > 0:
            before = spans[index - 1]
            after = _span_content(before)
            pos = before.end() if after is not None else before.start() + 1  # "$? just about 1$": dollars
        yield from _runs_from_end(text, pos, stop)


def _runs_from_end(text: str, pos: int, stop: int) -> Iterator[tuple[int, int, str]]:
    r"""The runs of plain math in ``text[pos:stop]`` that hold a number (a digit, ``\infty``,
    ``\pi``, ``\sqrt``, ``\frac``), last first, as a scan of the whole segment finds them, read
    from the end only as far as the caller asks.

    Where the segment has no backslash, no run holds two letters side by side (a run's letters
    are one-letter names; a word is none of its tokens), so it is cut between two such letters,
    ``text[p - 1]`` and ``text[p]``: the runs after the cut are those a scan from ``p`` finds
    (none starts at ``p``), the runs before it those of a scan that ends at ``p + 1`` (what a
    run ending before ``p`` reads past its end is at most ``text[p]``).  The last
    :data:`_RUN_PIECE` characters first, then twice as far back each time.

    >>> [content for _, _, content in _runs_from_end("So 3 apples and 4 pears make 7 fruit.", 0, 37)]
    ['7', '4', '3']
    """
    hi = stop
    size = _RUN_PIECE
    if text.find("\\", pos, stop) < 0:
        while hi - pos > size:
            pair = _LETTER_PAIR.search(text, hi - size, hi)
            if pair is None:
                break
            cut = pair.start() + 1
            yield from reversed(_math_runs(text, cut, hi))
            hi = cut + 1
            size *= 2
    yield from reversed(_math_runs(text, pos, hi))


def _math_runs(text: str, pos: int, stop: int) -> list[tuple[int, int, str]]:
    """The runs of plain math in ``text[pos:stop]`` that hold a number, in order."""
    found: list[tuple[int, int, str]] = []
    for r in _RUN_STD.finditer(text, pos, stop):
        content = r.group(0).strip(" ,.")
        if any(c.isdigit() for c in content) or compile_pattern(r"\\(?:infty|pi|sqrt|frac)").search(content):
            found.append((r.start(), r.end(), content))
    return found


def _span_content(m: regex.Match[str]) -> str | None:
    """A math span's content, or ``None`` when it is no math (``$? just about 1$``: dollars)."""
    content = next(g for g in m.groups() if g is not None).strip().strip(",").strip()
    return content if content and _has_prose(content) is None else None


def _candidate(text: str, *, whole: bool) -> str:
    """The part of ``text`` that states the answer (see the module docstring)."""
    items = _items_from_end(text)
    last = next(items, None)
    if last is None:
        raise NotMath("no mathematical answer found" if not any(c.isdigit() for c in text) else "no answer: the digits are inside words")
    seen = [last]  # the items read so far, from the end: seen[0] is the last one

    def before(i: int) -> tuple[int, int, str] | None:
        """The ``i``-th item from the end (read on demand), ``None`` past the first."""
        while len(seen) <= i:
            item = next(items, None)
            if item is None:
                return None
            seen.append(item)
        return seen[i]

    def between(i: int) -> str:
        """The text between the ``i + 1``-th and ``i``-th items from the end."""
        earlier = before(i + 1)
        return "" if earlier is None else text[earlier[1] : seen[i][0]]

    index = 0
    while True:  # "12, not 13", "5, not 6 or 7": the negated values are not the answer
        start = index
        while not whole and before(start + 1) is not None and compile_pattern(_GLUE).match(between(start)):
            start += 1
        if before(start + 1) is None or not compile_pattern(_NEGATED_BEFORE).search(between(start)):
            break
        index = start + 1
    _, last_end, content = seen[index]
    if content[:1].isdigit() and only_names_and_numbers(text):  # "zz 12", "sin 30": no prose around them
        raise NotMath(f"{text.strip()[:80]!r}: numbers written after names with no operator between "
                      "are not read as a product, nor as the answer without the name")
    # the number's own last digit ends the item (not a closing $ or bracket): letters after it are glued
    glued = glued_word_after(text, last_end) if text[last_end - 1 : last_end].isdigit() else None
    if glued is not None:  # "2xyz": a coefficient of a product the reader refused, not a number alone
        raise NotMath(f"{content + glued!r}: the number is glued to the word {glued!r} (no unit), not a number alone")
    parts = [content]
    while (item := before(index + 1)) is not None:
        glue = between(index)
        if compile_pattern(_HEDGE_GLUE).search(glue) or (not whole and compile_pattern(_CONDITION_GLUE).search(glue)):
            raise NotMath(f"the answer hedges between {item[2]!r} and {seen[index][2]!r}", st.CONTRADICTORY)
        if whole or not compile_pattern(_GLUE).match(glue):
            break
        parts.insert(0, item[2])
        index += 1
    candidate = ", ".join(parts)
    if compile_pattern(_PERCENT_AFTER).match(text[last_end:]) and "%" not in candidate:
        candidate += r"\%"
    return candidate


@parser("math", version=4, params=MathParams)
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
        signed = sign_dashes(slashed)  # "–5": an en dash as a minus sign, was read as 5
        if isinstance(signed, Refusal):
            return Parsed(None, st.NO_ANSWER, signed.reason, {"refused": signed.kind})
        text = signed
        if "‰" in text or "‱" in text:  # "18‰" was 18: the sign dropped as an unknown character
            return Parsed(None, st.NO_ANSWER, f"{text.strip()[:80]!r}: a per-mille (‰) or per-myriad (‱) value "
                                              "is not read (the reader knows percent only)", {"refused": "per mille"})
    whole_solution = ctx.notes.get("found_by") == "last_number" or ctx.notes.get("statement") == "paragraph"
    unboxed = unwrap_boxes(text)
    if "<<" in unboxed:
        unboxed = compile_pattern(_CALCULATOR).sub("", unboxed)
    if whole_solution:
        unboxed = _without_closing_remarks(unboxed)  # "… $18 per day.\n(Note: this assumes 7 days a week.)"
    hyphened = None if whole_solution or "-" not in unboxed else compile_pattern(_HYPHENED_MIXED).search(unboxed)
    if hyphened is not None and int(hyphened["n"]) < int(hyphened["d"]) and not (
        ctx.notes.get("found_by") == "boxed" or ctx.notes.get("from_box")
    ):
        return Parsed(None, st.NO_ANSWER, f"ambiguous number: {hyphened[0]!r} is a mixed number "
                                          f"({hyphened['w']} {hyphened['n']}/{hyphened['d']}) or a difference")
    if ")" in unboxed and (not whole_solution or (len(unboxed) <= 80 and "\n" not in unboxed.strip())):
        parts = compile_pattern(_PART_LABELS).search(unboxed) or compile_pattern(_PART_LABEL).match(unboxed)
        if parts is not None:  # "(a) 12 (b) 15" was a·12 b·15, "(1) 12; (2) 15" was {13, 17}
            return Parsed(None, st.NO_ANSWER, f"{parts[0].strip()[:80]!r}: answers to parts of the question, each "
                                              "with its label: which part the gold holds is not certain",
                          {"refused": "several parts"})
    restated = restated_quantity(unboxed) or (None if whole_solution else restated_rate(unboxed))
    if restated is not None:  # "1.5 kg (1500 g)", "42 minutes, which is 0.7 hours": 1.5 or 1500?
        return Parsed(None, st.NO_ANSWER, restated, {"refused": "restated quantity"})
    if not whole_solution:
        if compile_pattern(_REMAINDER).match(unboxed):  # "18 with 2 left over": 18 or 2?
            return Parsed(None, st.NO_ANSWER, f"{unboxed.strip()[:80]!r} states a quotient and its remainder: "
                                              "which of the two the question asks is not certain",
                          {"refused": "quotient and remainder"})
        head = _justified_head(unboxed)
        if head is not None:  # "18 dollars because she sells 9 eggs at $2 each": 18, not 2
            unboxed = head
        approximated = compile_pattern(_APPROXIMATED).match(unboxed)
        if approximated is not None:  # "1/6, or about 16.7%": the value, not its rounding
            agrees = _approximates(approximated["a"], approximated["b"], params.timeout)
            if agrees is False:
                return Parsed(None, st.CONTRADICTORY, f"the answer {approximated['a'].strip()[:60]!r} is followed by "
                                                      f"another value, {approximated['b'].strip()!r}, that does not round it")
            if agrees:
                unboxed = approximated["a"]
    whole_text = ctx.notes.get("statement") != "paragraph" and len(unboxed) <= _MAX_WHOLE
    if whole_text:
        # the commonest answer, one plain number ("-862", "$61,260.", "\frac{3}{4}"): what the
        # general path gives it (no hedge word, no "<<", no \text{} fits the shape; read_value
        # gives a value with this canonical spelling and nothing dropped), without its caches
        plain = plain_canonical(unboxed)
        if plain is not None and not (decimal_comma_locale(ctx.lang) and ("." in unboxed or "," in unboxed)):
            return Parsed(plain, st.OK, None, {})  # (a row in a decimal-comma locale reads 1.234 as 1234)
    if "." in unboxed:  # "Rs.12", "No.5": the period ends an abbreviation, it is no decimal point (was 0.12)
        unboxed = compile_pattern(_ABBREVIATION_DOT).sub(". ", unboxed)
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
                if exc.status != st.NO_ANSWER or exc.whole:
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


#: A stated answer that opens with its number, then its justification: the number (with a
#: sign, currency, grouping, a decimal or a fraction, a percent) and up to four words (its unit
#: or noun: "18 dollars", "7 cookies per box"), then a word that opens a reason or an assumption
#: (:data:`_REASON_WORDS`; after a comma only :data:`_REASON_AFTER_COMMA`), 因为/由于/假设, a
#: word that opens the circumstances (:data:`_CIRCUMSTANCE_WORDS`, with no second value joined
#: on: "18 for Tom and 20 for Mary" states two), or a bracket that holds words ("(she had 20 and
#: got 4 more)", also after a full stop) with no number after it ("10 (apples) and 5 (oranges)"
#: states two).
_REASON_WORDS: Final = (
    r"because|since|as|given(?:\s+that)?|due\s+to|assuming|provided(?:\s+that)?|based\s+on|considering|supposing"
    r"|weil|vorausgesetzt|angenommen|parce\s+que|parce\s+qu(?=['’])|puisque|en\s+supposant|porque|ya\s+que|suponiendo"
    r"|потому\s+что|так\s+как|поскольку|учитывая|если\s+считать"
)
_REASON_AFTER_COMMA: Final = r"da|denn|car|pues"  # a German, French, Spanish "because" that is a word of its own elsewhere
_CIRCUMSTANCE_WORDS: Final = r"for|from|by(?![ \t]*[0-9])|when|after|where"  # "12 by 5": a size, not a reason
_HEAD_WORD_STOP: Final = (
    r"because|since|as|given|due|than|more|less|fewer|times|plus|minus|over|divided|multiplied|assuming|provided"
    r"|based|considering|supposing|weil|vorausgesetzt|angenommen|parce|puisque|en|porque|ya|suponiendo|потому|так"
    r"|поскольку|учитывая|если|da|denn|car|pues|for|from|by|when|after|where|and|or|und|oder|et|ou|y|o|и|или"
)
_JUSTIFIED_HEAD: Final = (
    r"^\s*(?P<head>[-+−]?\s*(?:\\?[$€£¥₹]\s*)?[0-9][0-9,]*(?:\.[0-9]+)?(?:\s*/\s*[0-9]+)?\s*(?:\\?%)?"
    rf"(?:[ \t]+(?!(?i:{_HEAD_WORD_STOP})(?![\p{{L}}'’-]))[\p{{Latin}}\p{{Cyrillic}}][\p{{Latin}}\p{{Cyrillic}}'’-]*){{0,4}})"
    r"(?P<rest>[ \t]*(?:(?:\.[ \t]*)?\((?=[^()]*[A-Za-z\p{Han}]{2})[^()]*\)\.?(?=[^0-9\n]*$)"
    rf"|[,;:—–]?[ \t]*(?i:{_REASON_WORDS})(?![\p{{L}}])"
    rf"|[,;:—–][ \t]*(?i:{_REASON_AFTER_COMMA})(?![\p{{L}}])"
    rf"|(?P<circ>[,;:—–]?[ \t]*(?i:{_CIRCUMSTANCE_WORDS})(?![\p{{L}}]))"
    r"|[,，]?[ \t]*(?:因为|由于|假设))[^\n]*)$"
)
#: Words that make the rest a second value rather than a justification: a hedge, a condition,
#: a negation, an alternative ("12 (or possibly 15)", "18 (but 20 if …)", "(not 13)"), in the
#: languages :data:`_REASON_WORDS` holds.
_NOT_JUSTIFICATION: Final = (
    r"(?i)(?<![\p{L}])(?:or|possibly|maybe|perhaps|probably|if|unless|but|otherwise|not|either|alternatively"
    r"|instead|actually|wait|correct(?:ed|ion)?|rather|oder|aber|nicht|wenn|falls|sonst|ou|mais|pas|sinon"
    r"|pero|sino|или|но|не|иначе)(?![\p{L}])|或|不是|如果|但"
)
#: Literals of which every branch of :data:`_JUSTIFIED_HEAD` but the bracket holds one (folded):
#: a text with none of them skips the match.  Each word of :data:`_REASON_WORDS`,
#: :data:`_REASON_AFTER_COMMA` and :data:`_CIRCUMSTANCE_WORDS` contains one ("as" covers
#: "based"; "en" "en supposant"; "ya" "ya que").
_JUSTIFICATION_SCREEN: Final = (
    "because", "since", "as", "given", "due", "assuming", "provided", "considering", "supposing", "for", "from",
    "by", "when", "after", "where", "weil", "vorausgesetzt", "angenommen", "parce", "puisque", "en", "porque", "ya", "suponiendo",
    "потому", "так", "поскольку", "учитывая", "если", "da", "denn", "car", "pues", "因为", "由于", "假设",
)
#: A second value joined on to the circumstances: "18 for Tom and 20 for Mary".
_JOINED_VALUE: Final = r"(?i)(?:(?<![\p{L}])(?:and|or)(?![\p{L}])|[,;])[^0-9]*[0-9]"


def _justified_head(text: str) -> str | None:
    """The answer of a stated answer that opens with its number and goes on to justify it
    (``18 dollars because she sells 9 eggs at $2 each`` → ``18 dollars``; ``24 (she had 20 and
    got 4 more)`` → ``24``), else ``None``.  The last number would be a number of the
    justification; a rest that hedges, negates or offers another value is no justification.

    >>> _justified_head("18 dollars because she sells 9 eggs at $2 each."), _justified_head("24 (she had 20 and got 4 more)")
    ('18 dollars', '24')
    >>> _justified_head("12 (or possibly 15)"), _justified_head("3 + 4 = 7 because"), _justified_head("8 (5 + 3)")
    (None, None, None)
    """
    if not text[:1].isdigit() and text[:1] not in "-+−$€£¥₹\\ \t":
        return None
    if "(" not in text:
        if text.isascii() and not any(c.isalpha() for c in text):
            return None  # "18", "$1,200.50": no word, so no justification (the screen below is 37 words)
        folded = fold(text)  # a justification word, folded as (?i) matches
        if not any(word in folded for word in _JUSTIFICATION_SCREEN):
            return None
    m = compile_pattern(_JUSTIFIED_HEAD).match(text)
    if m is None or compile_pattern(_NOT_JUSTIFICATION).search(m["rest"]):
        return None
    if m["circ"] is not None and compile_pattern(_JOINED_VALUE).search(m["rest"], m.end("circ") - m.start("rest")):
        return None
    return m["head"].strip()


#: A stated answer that is a quotient and its remainder ("18 remainder 2", "18 r2", "18 boxes
#: with 2 left over", "18余2"): the last number is the remainder, the first the quotient, and
#: which one the question asks only the question says.
_REMAINDER: Final = (
    r"(?i)^\s*[-+−]?(?:\\?[$€£¥₹]\s*)?[0-9][0-9,]*(?:\.[0-9]+)?(?:[ \t]+\p{L}+){0,3}[ \t]*[,，]?[ \t]*"
    r"(?:(?<![\p{L}])(?:(?:with[ \t]+(?:a[ \t]+)?)?remainder(?:[ \t]+of)?|r)[ \t]*[0-9]|余(?:数(?:是|为)?)?[ \t]*[0-9]"
    r"|(?<![\p{L}])with[ \t]+[0-9]+(?:[ \t]+\p{L}+){0,2}[ \t]+(?:left(?:[ \t]+over)?|leftover|remaining|to[ \t]+spare)(?![\p{L}]))"
)


#: A stated answer, then its rounding: "1/3, approximately 0.33", "2/3, which is about 0.67",
#: "1/6, or about 16.7%" (a bracket, "(about 0.33)", and "≈" inside mathematics are read elsewhere).
_APPROXIMATED: Final = (
    r"^(?P<a>.*?[0-9}$)])[ \t]*,[ \t]*(?:(?i:or|which\s+is|that\s+is|i\.e\.,?)[ \t]+)?"
    r"(?i:about|approximately|approx\.|roughly|around|nearly|almost)[ \t]+"
    r"(?P<b>-?[0-9]+(?:\.[0-9]+)?(?:[ \t]*\\?%)?)[ \t]*[.!]?$"
)


def _approximates(a: str, b: str, timeout: float) -> bool | None:
    """Whether the decimal ``b`` is ``a`` rounded to ``b``'s last digit (to the unit for a
    whole number); ``None`` when ``a`` has no numeric value to compare (it is read as before).

    >>> _approximates("1/6", "16.7%", 1.0), _approximates(r"$2\\sqrt{3}$", "3.46", 1.0), _approximates("5", "7", 1.0)
    (True, True, False)
    """
    try:
        value = read_value(a, timeout=timeout)
        if value.kind == "number" and value.number is not None:
            x = float(value.number / 100 if value.percent else value.number)
        elif value.kind == "expr":
            z = complex(value.obj.evalf())
            if z.imag != 0:
                return None
            x = z.real
        else:
            return None
    except (NotMath, TimeUp, TypeError, ValueError, AttributeError):
        return None
    percent = "%" in b
    digits = b.replace("\\", "").rstrip("% \t")
    scale = 100.0 if percent else 1.0
    places = len(digits.partition(".")[2])
    return abs(x - float(digits) / scale) <= 0.5 * 10.0 ** -places / scale + 1e-12 * max(1.0, abs(x))


#: A closing remark after a solution, from the sentence or line it opens to the end: a note in
#: brackets, a wish, an offer of help (a "Note that …" may go on with the solution: not one).
_CLOSING_REMARK: Final = (
    r"(?:(?<=[.!?)])[ \t]+|\n[ \t]*)(?:\*{0,2}\((?i:\s*note\b)[^()]*\)\s*$"
    r"|(?i:i\s+hope\s+(?:this|that|it)|hope\s+(?:this|that|it)\s+helps|let\s+me\s+know|feel\s+free\s+to"
    r"|please\s+(?:let\s+me|feel\s+free)|if\s+you\s+have\s+any\s+(?:other\s+|more\s+|further\s+)?questions"
    r"|thanks\s+for|thank\s+you|good\s+luck|happy\s+to\s+help)[^\n]*(?:\n[^\n]*)*$)"
)
#: How far from the end a closing remark may start.
_REMARK_TAIL: Final = 400
#: Words of which every :data:`_CLOSING_REMARK` holds one.
_REMARK_WORDS: Final = ("note", "hope", "know", "free", "please", "question", "thank", "luck", "help")


def _without_closing_remarks(text: str) -> str:
    r"""``text`` less the closing remark that ends it (``(Note: this assumes 7 days a week.)``,
    ``I hope this helps! Let me know if you have any questions about problem 2.``), when a
    solution with digits stands before it: its numbers are not the answer.

    >>> _without_closing_remarks("So she makes $18 per day.\n(Note: this assumes 7 days a week.)")
    'So she makes $18 per day.'
    >>> _without_closing_remarks("Note: 7")
    'Note: 7'
    """
    start = max(0, len(text) - _REMARK_TAIL)
    folded = fold(text[start:])  # a remark holds one of these words (folded as (?i) matches)
    if not any(word in folded for word in _REMARK_WORDS):
        return text
    m = compile_pattern(_CLOSING_REMARK).search(text, start)
    if m is None or not any(c.isdigit() for c in text[: m.start()]):
        return text
    return text[: m.start()].rstrip()


def _account(text: str, ctx: ParseContext, *, whole: bool) -> Parsed | None:
    """The accounting reader's verdict on the phrase of the answer's last number
    (:func:`normalize.values._quantity.read_phrase`: magnitude and number words, mixed numbers, locales,
    ranges, compound quantities, times of day), or ``None`` when it adds nothing to the readers
    below (a plain number, an expression)."""
    math = ctx.notes.get("found_by") == "boxed" or bool(ctx.notes.get("from_box"))
    found = read_phrase(text, ctx.lang, whole=whole, math=math)
    if found is None:
        return None
    if isinstance(found, Reading):
        glued = last_number_glued(text)
        if glued is not None:  # "A0,5": the digits belong to a word, not a number of their own
            return Parsed(None, st.NO_ANSWER, f"no answer: the digits are inside words ({glued!r})")
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
