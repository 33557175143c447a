"""Answer-marker scanning: the fast paths (literal screens looked for once a text, locators over a
projected or folded text, candidate positions) give exactly what the slow scan gives.

The reference is tests/_oracles/markers.py: ``extract_answer_marker`` as it was before these
fast paths, finding every match with the pattern's own ``finditer`` over the whole text.
"""

from __future__ import annotations

import re

import regex
from hypothesis import assume, example, given, settings
from hypothesis import strategies as hs

from normalize import load_pack
from normalize.errors import RejectText
from normalize.limits import _literals
from normalize.limits._literals import (
    anchored_text_locator,
    fold,
    locator_source,
    may_match,
    project,
    projected_locator_source,
    text_locator_source,
)
from normalize.rules import _speed, extract_markers
from normalize.rules._extract_params import AnswerMarkerParams
from tests._oracles import markers as oracle

# --------------------------------------------------------------------------- generated patterns

_ATOMS = (
    "answer", "Final", "ANS", "k", "s", "i", "is", "be", "x", "答案", "最终", "选", "**", "#", ":", "：", " ",
    "\\*", "\\#", "\\.", "\\:", "é", "Ⓐ", "\\Ⓐ", "ſ", "K", "\\s", "\\d", "\\w", "\\b", "\\t",
    "[:：]", "[ \\t]", "[,，]", "[a-z]", "[^x]", "[\\s:]", "[*]", "[K]", "[.]", "(?:is|be)", "(?:x|y)",
    "(?:故|所以)", "(?:correct|right)", "(?:best|ſ|\\*\\*)", "(?:答案|选|k)", "^", "$", ".", "(a)", "\\1",
)
_QUANTIFIERS = ("", "", "", "?", "*", "+", "{1,3}", "{2}", "{0,2}", "{2,}", "*?", "+?", "{,2}")
_PATTERNS = hs.lists(hs.tuples(hs.sampled_from(_ATOMS), hs.sampled_from(_QUANTIFIERS)), min_size=1, max_size=5).map(
    lambda items: "".join(atom + q for atom, q in items)
)
_TEXT_PIECES = (
    "answer", "ANSWER", "AnSwEr", "Answers", "final", "FİNAL", "fınal", "ſ", "K", "k", "ı", "i", "İ", "is", "be",
    "答案", "最终", "选", "故", "所以", "**", "*", "#", "##", ":", "：", ".", ",", "，", " ", "  ", "\u3000", "\u00a0",
    "\t", "\n", "é", "ⓐ", "Ⓐ", "x", "y", "a", "aa", "ANS", "ans", "correct", "right", "\\n", "```", "~~~",
    "wer", "swer", "WER", "nal", "w", "r",
)
_TEXTS = hs.lists(hs.sampled_from(_TEXT_PIECES), max_size=25).map("".join)


def _compiles(pattern: str) -> bool:
    try:
        _speed.guarded(pattern)
    except ValueError:
        return False
    return True


@given(_PATTERNS, _TEXTS)
@settings(max_examples=1500, deadline=None)
def test_locators_and_screens_hold_at_every_match_start(pattern: str, text: str) -> None:
    """Wherever the guarded pattern matches, each locator matches at that very place and each
    screen says the pattern may match: the fast paths can only skip what cannot match."""
    assume(_compiles(pattern))
    plan = _speed._plan(pattern)
    folded, projected = fold(text), project(text)
    starts = [i for i in range(len(text) + 1) if plan.compiled.match(text, i, timeout=1.0) is not None]
    if not starts:
        return
    assert may_match(plan.screen, folded)
    screen = plan.text_screen or ((),)
    assert any(all(_speed._occurs(key, text, projected) for key, _, _ in branch) for branch in screen)
    source, projected_source, text_source = (
        locator_source(pattern), projected_locator_source(pattern), text_locator_source(pattern),
    )
    alternatives = _literals.alternatives_text_locator(pattern)
    for at in starts:
        if isinstance(alternatives, bytes):
            assert re.compile(alternatives).match(projected, at), (alternatives, at)
        if isinstance(alternatives, str):
            assert re.compile(alternatives).match(text, at), (alternatives, at)
        if plan.shift == 0 and plan.projected_locator is not None:
            assert plan.projected_locator.match(projected, at), (plan.projected_locator, at)
        if plan.raw_locator is not None:
            assert plan.raw_locator.match(text, at), (plan.raw_locator, at)
        if source is not None:
            assert re.compile(source).match(folded, at), (source, at)
        if projected_source is not None:
            assert re.compile(projected_source).match(projected, at), (projected_source, at)
        if isinstance(text_source, str):
            assert re.compile(text_source).match(text, at), (text_source, at)
        if plan.projected_anchors is not None:
            assert any(projected.startswith(a, at) for a in plan.projected_anchors)


@given(_PATTERNS, _PATTERNS, _TEXTS)
@settings(max_examples=800, deadline=None)
def test_marker_matches_equal_the_alternation_on_generated_patterns(first: str, second: str, text: str) -> None:
    assume(_compiles(first) and _compiles(second) and _compiles(f"(?:{first})|(?:{second})"))
    folded, projected = fold(text), project(text)
    for patterns in ((first,), (second,), (first, second)):
        fast = [m.span() for m in _speed.marker_matches(patterns, text, folded, timeout=1.0)]
        assert fast == [m.span() for m in oracle.marker_matches(patterns, text)], patterns
    for pattern in (first, second):
        plan = _speed._plan(pattern)
        if not plan.tangled:
            fast = [m.span() for m in _speed._text_matches(plan, text, projected, 1.0)]
            assert fast == [m.span() for m in oracle.marker_matches((pattern,), text)], pattern


@given(_PATTERNS, _TEXTS, hs.integers(0, 40))
@settings(max_examples=1500, deadline=None)
@example("answer\\s*[:：]", "answer:answer wer: ans wer:", 0)
@example("answer\\s*[:：]", "answer:answer wer: ans wer:", 5)
def test_anchored_locator_hits_exactly_where_the_locator_hits(pattern: str, text: str, pos: int) -> None:
    """The locator searched from its key's rarest letter (the key's head in a look-behind) finds,
    from any start, the very next hit the plain locator finds, ``shift`` characters in."""
    assume(_compiles(pattern))
    plain, anchored = text_locator_source(pattern), anchored_text_locator(pattern)
    if plain is None:
        assert anchored is None
        return
    assert anchored is not None
    source, shift = anchored
    if shift == 0:
        assert source == plain
        return
    assert isinstance(source, bytes) and isinstance(plain, bytes)
    projected = project(text)
    pos %= len(projected) + 1
    expected = re.compile(plain).search(projected, pos)
    found = re.compile(source).search(projected, pos + shift)
    assert (None if found is None else found.start() - shift) == (None if expected is None else expected.start())


def test_projection_agrees_with_fold_on_every_ascii_result() -> None:
    """project() gives the ASCII character fold() gives, and "?" elsewhere: no character but
    the four folded specially lowers to ASCII, and no character lowers to an uncased one
    (so uncased literals are looked for in the text itself)."""
    specials = {"İ", "ı", "ſ", "\u212a"}
    for code in range(0x110000):
        char = chr(code)
        if 0xD800 <= code < 0xE000:
            continue
        folded, projected = fold(char), project(char)
        if folded.isascii():
            assert projected == folded.encode(), hex(code)
        else:
            assert projected == b"?", hex(code)
        lowered = char.lower()
        if lowered != char and not char.isascii() and char not in specials:
            assert not any(c.isascii() or (c.lower() == c and c.upper() == c) for c in lowered), hex(code)


def test_special_screen_names_every_specially_folded_character() -> None:
    assert set(_literals._SPECIAL_CHARS) == {chr(c) for c in _literals._SPECIAL_FOLD}
    for char in _literals._SPECIAL_CHARS:
        assert _literals._has_special(f"中{char}x") and not _literals._has_special("中Kx")


def test_projected_whitespace_covers_every_whitespace_character() -> None:
    space = regex.compile(r"\s")
    projected_space = re.compile(projected_locator_source(r"a\s") or b"")
    for code in range(0x110000):
        if space.match(chr(code)):
            assert projected_space.match(b"a" + project(chr(code))), hex(code)
            assert fold(chr(code)) == chr(code)


def test_decoration_screen_covers_every_character_the_pattern_takes() -> None:
    """_skip_decoration calls the regex only at a str.isspace() character or a colon: every
    character [\\s:：] matches must be one of those, or a decoration would be left in front."""
    decoration = regex.compile(extract_markers._DECORATION)
    for code in range(0x110000):
        char = chr(code)
        if decoration.match(char).end():  # type: ignore[union-attr]
            assert char.isspace() or char in ":：", hex(code)
            assert extract_markers._skip_decoration(f"x{char}y", 1) == 2


# --------------------------------------------------------------------------- the whole rule

def _shipped_params() -> list[AnswerMarkerParams]:
    out = []
    for task_type in load_pack().task_types.values():
        for spec in task_type.chain.specs:
            if spec.name == "extract_answer_marker":
                out.append(spec.params)
    return out


_SHIPPED = _shipped_params()
_CUSTOM_TIERS = (
    (("answer\\s*:", "(?:correct|right)\\s+one"), ("(a)\\1", "b"), ("(?:x|y)?", "answer")),
    (("Final\\s+ANSWER\\s*[:：]?",), ("k+\\s*[:：]", "答案\\s*是"), ("ſ",)),
    (("\\*\\*\\s*answer", "answer\\s*\\*\\*"), ("is\\s*,?",)),
)
_MARKER_TEXT = (
    "answer", "Answer", "ANSWER", "answers", "reanswer", "the answer is", "Answer:", "answer：", "**Answer:**",
    "**", "## Answer\n", "# Final Answer\n", "final answer is", "Final Answer:", "FİNAL ANSWER:", "ANſWER:",
    "ANSWER\u212a", "the correct option is", "right choice is", "best option would be", "therefore,", "Thus",
    "hence", "in conclusion,", "答案是", "答案：", "最终答案：", "最终结果为", "正确选项是", "故选", "所以选择",
    "因此，", "所以", "综上所述，", "**答案**", "**最终答案**", " ", "\n", "\n\n", "\t", "\u3000", "A", "B", "(C)",
    "Paris", "Lyon", "42", ".", ",", "No, because", "Wait, that is wrong.", "not", "```\n", "```python\n", "~~~\n",
    "\\n", "\\t", "é", "k", "x", "y", "a", "b", "is",
)
_MARKER_TEXTS = hs.lists(hs.sampled_from(_MARKER_TEXT), max_size=30).map("".join)


def _outcome(fn: object, *args: object) -> object:
    try:
        return fn(*args)  # type: ignore[operator]
    except RejectText as exc:
        return ("rejected", exc.status, str(exc))


@given(_MARKER_TEXTS, hs.integers(0, len(_SHIPPED) - 1))
@settings(max_examples=1500, deadline=None)
# the inlined first locator search: a shifted locator's first hit no match ("answering"), a hit
# that is one, a raw (non-ASCII) locator's hit, an anchored plan, and no hit after the screen
@example("answering well. The answer is (B).", 0)
@example("Answer: A\nanswer: B", 0)
@example("因此答案是 42，答案：43", 0)
@example("the right choice is C, the correct option is D", 0)
@example("final thoughts on the answer", 0)
def test_answer_marker_equals_the_oracle_with_shipped_tiers(text: str, which: int) -> None:
    params = _SHIPPED[which]
    variants = [
        params,
        params.model_copy(update={"conflict": "keep", "include_marker": True}),
        params.model_copy(update={"conflict": "contradictory", "justification": "cut"}),
        params.model_copy(update={"conflict": "last", "unescape": not params.unescape}),
    ]
    for p in variants:
        fast = _outcome(lambda t, q: extract_markers.extract_answer_marker(t, q, timeout=1.0), text, p)
        assert fast == _outcome(oracle.extract_answer_marker, text, p), p


@given(_MARKER_TEXTS, hs.sampled_from(_CUSTOM_TIERS), hs.sampled_from(["last", "keep", "contradictory"]))
@settings(max_examples=800, deadline=None)
def test_answer_marker_equals_the_oracle_with_odd_tiers(text: str, tiers: tuple[tuple[str, ...], ...], conflict: str) -> None:
    params = AnswerMarkerParams(tiers=tiers, conflict=conflict, include_marker=conflict == "keep", unescape=True)
    fast = _outcome(lambda t, q: extract_markers.extract_answer_marker(t, q, timeout=1.0), text, params)
    assert fast == _outcome(oracle.extract_answer_marker, text, params)


@given(_PATTERNS, _PATTERNS, _MARKER_TEXTS)
@settings(max_examples=500, deadline=None)
def test_answer_marker_equals_the_oracle_with_generated_tiers(first: str, second: str, text: str) -> None:
    assume(_compiles(first) and _compiles(second))
    params = AnswerMarkerParams(tiers=((first,), (second, "answer\\s*[:：]")), conflict="keep", include_marker=True)
    fast = _outcome(lambda t, q: extract_markers.extract_answer_marker(t, q, timeout=1.0), text, params)
    assert fast == _outcome(oracle.extract_answer_marker, text, params)


_SPAN_PIECES = (
    "Answer:", "answer is", "**", "*", "_", "__", " ", "\t", "\n", "\n\n", "Paris", "B", ".", ". ", ",", ", ", ";",
    ":", "：", "，", "；", "。", "！", "？", "—", "–", "…", "because", "BECAUSE", "becauſe", "since", "given that",
    "which is", "who was", "This", "it", "Explanation", "理由", "因为", "由于", "解释", "x" * 30, "答案是",
)
_SPAN_TEXTS = hs.lists(hs.sampled_from(_SPAN_PIECES), max_size=25).map("".join)


_JUSTIFY_PIECES = (
    "Paris", "x y", " ", "\t", "\n", ".", ",", ";", ":", "，", "；", "：", "。", "！", "？", "—", "–", "because",
    "BECAUSE", "becauſe", "since", "which is", "This", "Explanation", "Reason", "理由", "因为", "**",
)


@given(hs.lists(hs.sampled_from(_JUSTIFY_PIECES), max_size=8).map("".join), hs.integers(0, 30), hs.integers(0, 30))
@example("Paris\nExplanation", 0, 0)
@example("No. because", 0, 0)
@settings(max_examples=1500, deadline=None)
def test_justification_screen_never_skips_a_justification(text: str, first: int, second: int) -> None:
    begin, end = sorted((first % (len(text) + 1), len(text) - second % (len(text) + 1)))
    for pattern in (extract_markers._JUSTIFICATION, extract_markers._JUSTIFICATION_AFTER_STOP):
        fast = extract_markers._justification_start(text, begin, end, timeout=1.0, pattern=pattern)
        assert fast == oracle._justification_start(text, begin, end, pattern=pattern)


@given(_SPAN_TEXTS)
@settings(max_examples=1000, deadline=None)
def test_answer_span_equals_the_oracle(text: str) -> None:
    for match in oracle.marker_matches(("answer\\s*(?:is|[:：])", "答案是"), text):
        assert extract_markers._answer_span(text, match) == oracle._answer_span(text, match)


def test_shipped_markers_that_open_with_alternatives_are_located() -> None:
    """The shipped markers that open with a group of literal alternatives (``(?:correct|right|
    best)\\s+option``, ``(?:故|所以|因此|因而|应)选``) are looked for only where one of those
    alternatives' locators hits, not by a scan of the regex engine at every place."""
    plans = [_speed._plan(p) for params in _SHIPPED for tier in params.tiers for p in tier]
    opening = [plan for plan in plans if plan.pattern.startswith("(?:")]
    assert opening
    for plan in opening:
        assert plan.projected_locator is not None or plan.raw_locator is not None, plan.pattern
