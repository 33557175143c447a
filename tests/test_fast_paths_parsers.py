"""The parsers' and the language screen's short-cuts give exactly what the slow paths give
(outputs byte-identical): each fast path against the plain reading it replaces."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as hs

from normalize import load_pack

_PACK = load_pack()
_WORDS = sorted({w for _, ws in _PACK._lang_anchors for w in ws})


def _guess_langs_slow(text: str) -> list[str]:
    """Pack.guess_langs as it was written: every anchor word searched in the whole folded text."""
    folded = text.casefold()
    ascii_only = folded.isascii()
    return [name for name, words in _PACK._lang_anchors
            if any((not ascii_only or word.isascii()) and word in folded for word in words)]


# anchor words, pieces of them (a word split by another character must not be found), their capitals,
# characters that casefold to several (ß, İ), whitespace of several kinds, and "?" / NUL
_PIECES = (
    *_WORDS, *(w[: len(w) // 2] for w in _WORDS), *(w[len(w) // 2 :] for w in _WORDS),
    *(w.upper() for w in _WORDS[:40]), "RÉPONSE", "Antwort", "LÖSUNG", "ß", "İ", "ẞ", "ﬁnal",
    " ", "\n", "\t", "\u3000", "\x85", "\x1c", "?", "\0", "The answer is", "选项", "答案", "12", "(B)", ".",
)


@given(hs.lists(hs.sampled_from(_PIECES), max_size=30).map("".join))
@settings(max_examples=2000, deadline=None, derandomize=True)
def test_guess_langs_screen_finds_what_the_whole_text_holds(text: str) -> None:
    assert _PACK.guess_langs(text) == _guess_langs_slow(text)


def test_guess_langs_screen_on_every_word_alone_and_glued() -> None:
    for word in _WORDS:
        for text in (word, f"x{word}y", f"{word.upper()}!", f"a {word[:1]} {word[1:]}", f"选{word}项"):
            assert _PACK.guess_langs(text) == _guess_langs_slow(text), text


# --------------------------------------------------------------------------- the math parser

import regex  # noqa: E402

from normalize.limits._regex import compile_pattern  # noqa: E402
from normalize.parsers import _math  # noqa: E402
from normalize.values import _quantity  # noqa: E402
from normalize.values._mathvalue import (  # noqa: E402
    NotMath,
    _has_prose,
    glued_word_after,
    only_names_and_numbers,
)


def _items_slow(text: str) -> list[tuple[int, int, str]]:
    """_math._items as it was written: every segment's runs read, from the start."""
    items: list[tuple[int, int, str]] = []
    spans = list(compile_pattern(_math._SPANS, regex.DOTALL).finditer(text))
    pos = 0
    run = compile_pattern(_math._RUN)
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
                pos = m.start() + 1
    return items


def _candidate_slow(text: str, *, whole: bool) -> str:
    """_math._candidate as it was written: every item of the text read first, from the start."""
    items = _items_slow(text)
    if not items:
        raise NotMath("no mathematical answer found" if not any(c.isdigit() for c in text) else "no answer: the digits are inside words")
    index = len(items) - 1
    while index > 0:  # "12, not 13", "5, not 6 or 7": the negated values are not the answer
        start = index
        while start > 0 and not whole and compile_pattern(_math._GLUE).match(text[items[start - 1][1] : items[start][0]]):
            start -= 1
        if start == 0 or not compile_pattern(_math._NEGATED_BEFORE).search(text[items[start - 1][1] : items[start][0]]):
            break
        index = start - 1
    _, last_end, content = items[index]
    if content[:1].isdigit() and only_names_and_numbers(text):
        raise NotMath(f"{text.strip()[:80]!r}: numbers written after names with no operator between "
                      "are not read as a product, nor as the answer without the name")
    glued = glued_word_after(text, last_end) if text[last_end - 1 : last_end].isdigit() else None
    if glued is not None:
        raise NotMath(f"{content + glued!r}: the number is glued to the word {glued!r} (no unit), not a number alone")
    parts = [content]
    while index > 0:
        between = text[items[index - 1][1] : items[index][0]]
        if compile_pattern(_math._HEDGE_GLUE).search(between) or (not whole and compile_pattern(_math._CONDITION_GLUE).search(between)):
            raise NotMath(f"the answer hedges between {items[index - 1][2]!r} and {items[index][2]!r}", "contradictory")
        if whole or not compile_pattern(_math._GLUE).match(between):
            break
        parts.insert(0, items[index - 1][2])
        index -= 1
    candidate = ", ".join(parts)
    if compile_pattern(_math._PERCENT_AFTER).match(text[last_end:]) and "%" not in candidate:
        candidate += r"\%"
    return candidate


def _outcome(fn: object, *args: object, **kwargs: object) -> tuple[str, str]:
    try:
        return "ok", fn(*args, **kwargs)  # type: ignore[operator]
    except NotMath as exc:
        return exc.status, exc.reason


# math spans (closed, unclosed, dollars that are money), runs, glue, hedges, prose, percent
_MATH_PIECES = (
    "$", "$$", "\\(", "\\)", "\\[", "\\]", "$x = 2$", "$12$", "$$3$$", "\\(4\\)", "\\[5\\]", "$? just about 1$",
    "$3.50", "12", "1,000", "0.5", ".5", "3/4", "x", "y", "\\frac{1}{2}", "\\pi", "\\sqrt{2}", "\\infty",
    "\\text{cm}", " and ", " or ", " or possibly ", " maybe ", ", ", "; ", " ", "\n", ".", " apples", " so ",
    "The answer is ", "%", " percent", "(", ")", "[", "]", "=", "-", "+", "<=", "a", "It is", "é", "，", "\\quad",
    ", not ", " not ", " rather than ", " (but ", " if ", "而不是",
)
_MATH_TEXTS = hs.lists(hs.sampled_from(_MATH_PIECES), max_size=30).map("".join)


@given(_MATH_TEXTS, hs.booleans())
@settings(max_examples=2000, deadline=None, derandomize=True)
def test_math_items_from_the_end_like_from_the_start(text: str, whole: bool) -> None:
    assert _math._items(text) == _items_slow(text)
    assert _outcome(_math._candidate, text, whole=whole) == _outcome(_candidate_slow, text, whole=whole)


def _window_slow(text: str) -> str:
    """_quantity._window as it was written: the number-word run searched in the 400 characters
    before the window."""
    q = _quantity
    anchor = max(text.rfind(c) for c in q._DIGITS)
    tail_from = max(0, len(text) - q._WINDOW)
    if not text.isascii():
        for m in q._CN_NUMERAL.finditer(text, max(anchor, tail_from)):
            anchor = max(anchor, m.start())
    for m in q.NUMBER_WORD.finditer(text, max(anchor, tail_from)):
        anchor = max(anchor, m.start())
    if anchor < 0:
        return ""
    start, end = max(0, anchor - q._BEFORE), min(len(text), anchor + q._AFTER)
    if start:
        space = text.find(" ", start, anchor)
        start = space + 1 if space >= 0 else start
        words = q._WORD_RUN_END.search(text, max(0, start - 400), start)
        if words is not None:
            start = words.start()
    if end < len(text):
        space = text.rfind(" ", anchor, end)
        end = space if space > anchor else end
    window = text[start:end]
    if text.count("$", 0, start) % 2:
        window = "$" + window
    return window


_WORD_PIECES = (
    "one", "One", "ONE", "twenty", "-", "five", "hundred", "thousand", "and", "a", "A", " ", "  ", "\n", "\t",
    "\xa0", "\u2009", "\u3000", "\x1c", "ſix", "\u212aid", "İ", "ı", "seven", "x", "banana", "3", "12", ".", ",",
    "$", "apples", "she has ", "é", "十", "二", "dozen", "trillion",
)


@given(hs.lists(hs.sampled_from(_WORD_PIECES), max_size=80).map("".join))
@settings(max_examples=1500, deadline=None, derandomize=True)
def test_quantity_window_like_the_400_character_search(text: str) -> None:
    assert _quantity._window(text) == _window_slow(text)


def test_word_run_chars_hold_every_character_the_pattern_can_match() -> None:
    """Every character a match of _WORD_RUN_END can hold is in _WORD_RUN_CHARS (the window
    search starts at the run of them before the window)."""
    import re

    letter = re.compile(r"(?i)[a-z]")
    space = re.compile(r"\s")
    missing = [hex(c) for c in range(0x110000)
               if (letter.fullmatch(chr(c)) or space.fullmatch(chr(c)) or chr(c) == "-")
               and chr(c) not in _quantity._WORD_RUN_CHARS]
    assert missing == []


# --------------------------------------------------------------------------- the choice parser

from normalize.parsers import _choice  # noqa: E402
from tests._oracles import choice as choice_oracle  # noqa: E402

_PREPARE_PIECES = (
    "\\text{B}", "\\textbf{C}", "\\textrm{", "\\textit{", "\\mathrm{D}", "\\mathbf{", "\\mathit{", "\\mbox{A}",
    "\\text {B}", "\\tex", "\\math", "\\frac{1}{2}", "\\times", "\\(", "\\)", "\\[", "\\]", "\\", "{", "}", "_",
    "__", "a_b", "x_", "_y", "*", "**", "`", "$", "$$", "B", "The answer is ", "“", "”", "é", "我", "\n", " ",
    "\u200b", "Ｂ", "＄", "＊",
)


@given(hs.lists(hs.sampled_from(_PREPARE_PIECES), max_size=25).map("".join))
@settings(max_examples=2000, deadline=None, derandomize=True)
def test_prepare_text_short_cuts_like_the_old_one(text: str) -> None:
    assert _choice.prepare_text(text, timeout=1.0) == choice_oracle.prepare_text(text, timeout=1.0)


_CONCLUSION_PIECES = (
    "it", "It", "IT", "İt", "this", "This", "it's", "it is", " is ", "'s", "must be", "should be", "would be",
    "has to be", "I", "we", "We", "I'd", "I would", "we would", "think", "believe", "guess", "say", "conclude",
    " that ", "so", "thus", "B", "(C)", "D.", ".", ",", ";", "!", "?", ":", "—", "–", "\n", " ", "\t", "\xa0",
    "\u3000", "\x1c", "。", "我", "é", "x", "5", "_", "items", "thistle", "wethink", "I\u2028think",
)


@given(hs.lists(hs.sampled_from(_CONCLUSION_PIECES), max_size=30).map("".join), hs.integers(0, 40),
       hs.one_of(hs.none(), hs.integers(0, 60)))
@settings(max_examples=3000, deadline=None, derandomize=True)
def test_conclusion_start_places_find_every_match(text: str, pos: int, endpos: int | None) -> None:
    pattern = _choice._CONCLUSIONS[1]
    fast = [m.span() for m in _choice._finditer(pattern, text, pos, endpos)]
    slow = [m.span() for m in compile_pattern(pattern).finditer(text, pos, endpos)]
    assert fast == slow, (text, pos, endpos)


_REMARK_PIECES = ["(Note: 7 days)", "(NOTE 2)", "I hope this helps", "Hope it helps!", "Let me know", "feel free to ask",
                  "Please let me clarify", "If you have any other questions", "Thanks for asking", "Thank you",
                  "Good luck!", "Happy to help", "So 18.", "Total = 18.", "\n", " ", ". ", "x = 3", "ſ", "K"]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(hs.lists(hs.sampled_from(_REMARK_PIECES), min_size=1, max_size=8))
def test_the_closing_remark_screen_hides_no_remark(pieces: list[str]) -> None:
    """The literal screen of ``_without_closing_remarks`` passes every text its pattern matches in."""
    text = "She has 5 apples. " + "".join(pieces)
    start = max(0, len(text) - _math._REMARK_TAIL)
    m = compile_pattern(_math._CLOSING_REMARK).search(text, start)
    plain = text if m is None or not any(c.isdigit() for c in text[: m.start()]) else text[: m.start()].rstrip()
    assert _math._without_closing_remarks(text) == plain
