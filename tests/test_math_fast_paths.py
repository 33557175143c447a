"""The math chain's speed short-cuts give exactly what the general paths give (byte-identical).

* the ``math`` parser's plain-number reader (:func:`normalize.values._mathvalue._read_plain`) against
  the general reader (:func:`normalize.values._mathvalue._read_general`) on generated number-like texts;
* its spelling-only twin :func:`normalize.values._mathvalue.plain_canonical` against the general reader, and
  ``parse_math`` with its plain-number short cut against ``parse_math`` without it (every
  note the chain leaves, boxes, hedges, calculator annotations, invisible characters);
* ``extract_math_answer`` against a copy of its previous algorithm (tests/_oracles/math.py) on
  generated solutions: several boxes, nested braces, ``####`` twice, markers of several tiers,
  fences, Chinese markers, a final-answer sentence after a box, contradictory answers.
"""

from __future__ import annotations

import re
from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as hs

from normalize import load_pack
from normalize.core.registry import ParseContext
from normalize.errors import RejectText
from normalize.limits._literals import fold, project, text_locator_source
from normalize.parsers import _math
from normalize.rules import extract_math
from normalize.rules._speed import _alternation
from normalize.values import _mathvalue as mv
from tests._oracles import math as oracle

# pieces of plain numbers and of what is close to them but is not one (decimal commas,
# ungrouped commas, leading zeros, zero denominators, units, spaces, signs, percent)
_NUMBER_PIECES = (
    "0", "1", "7", "9", "00", "12", "123", "999", "1000", "4000", ",", ",000", ",123", ",12", ".", ".5",
    "-", "+", "\u2212", "$", "$$", "\\$", " ", "%", "\\%", "e3", "E", "x", "\\frac", "\\dfrac", "\\tfrac",
    "\\cfrac", "{", "}", "}{", "{0}", "\\!", "\\,", "^\\circ", " cm", "(", ")", "/", "1/2", "。",
)
_NUMBER_LIKE = hs.lists(hs.sampled_from(_NUMBER_PIECES), max_size=12).map("".join)
_SHAPED = hs.builds(
    lambda dollar, sign, body, end: f"{dollar}{sign}{body}{end}",
    hs.sampled_from(["", "$", "$$"]),
    hs.sampled_from(["", "-", "+"]),
    hs.one_of(
        hs.integers(0, 10**40).map(str),
        hs.integers(0, 10**12).map(lambda n: f"{n:,}"),
        hs.tuples(hs.integers(0, 10**9), hs.integers(0, 10**9)).map(lambda p: f"{p[0]}.{p[1]}"),
        hs.tuples(hs.integers(0, 10**9), hs.integers(0, 9)).map(lambda p: f"\\frac{{{p[0]}}}{{{p[1]}}}"),
    ),
    hs.sampled_from(["", ".", "$", "$.", ".$", " ", "$$"]),
)


def _general(s: str) -> mv.MathValue | str:
    try:
        return mv._read_general(s, 2.0)
    except mv.NotMath as exc:
        return f"NotMath({exc.status}): {exc.reason}"


@given(hs.one_of(_NUMBER_LIKE, _SHAPED))
@settings(max_examples=3000, deadline=None)
@example("0,123")
@example("1234,567")
@example("-0")
@example("\\frac{1}{0}")
@example("$61,260.")
@example("007")
def test_plain_number_reader_equals_the_general_reader(s: str) -> None:
    fast = mv._read_plain(s)
    if fast is not None:  # the fast path answers only what the general path answers the same
        assert fast == _general(s), s
        assert fast.canonical == mv._read(s, 2.0).canonical


@given(hs.one_of(_NUMBER_LIKE, _SHAPED))
@settings(max_examples=3000, deadline=None)
@example("-0.00")
@example("$-0.$")
@example("\\frac{0}{5}")
@example("-\\frac{0}{5}")
@example("\\frac{6}{3}")
@example("0007.2500")
def test_plain_canonical_is_the_general_readers_spelling(s: str) -> None:
    # (_read_plain is built from plain_canonical: the general reader is the reference)
    canonical = mv.plain_canonical(s)
    if canonical is not None:
        general = _general(s)
        assert isinstance(general, mv.MathValue) and general.canonical == canonical, s
        assert mv._read_plain(s) == general, s


def test_chinese_numeral_characters_are_never_ascii() -> None:
    """``convert_chinese`` returns an ASCII text untouched without its scan: sound only while
    no numeral character is ASCII."""
    from normalize.values._numbers import CN_NUMERAL_CHARS, convert_chinese

    assert CN_NUMERAL_CHARS and not any(c.isascii() for c in CN_NUMERAL_CHARS)
    assert convert_chinese("答案是五") == "答案是5" and convert_chinese("x = 5") == "x = 5"


@given(hs.lists(hs.sampled_from(("{", "}", "\\", "a", "\n", " ", "\\frac", "{1}", "$", "é")), max_size=40).map("".join))
@settings(max_examples=3000, deadline=None)
@example("{\\frac{\\sqrt{\\sqrt{2}}}{2}}")
@example("{\\}}")
@example("{\\\\}}")
@example("{a\\")
def test_closed_group_end_equals_the_brace_walk(text: str) -> None:
    from normalize.rules.extract import _closing_brace

    for at, char in enumerate(text):
        if char == "{":
            assert extract_math._closed_group_end(text, at) == _closing_brace(text, at), (text, at)


# what may stand around a number the chain kept: boxes, hedges, calculator notes, invisible
# characters, a percent, prose, a second number
_AROUND = ("", " ", "\n", "\u200b", "\\boxed{", "}", "$", ".", "%", " or possibly ", " maybe", "<<2*3=6>>", " and ",
           "x = ", "\\text{", " apples", "or", "\\fbox{", "\\(", "\\)", "1", ", ")
_PARSER_TEXTS = hs.tuples(
    hs.lists(hs.sampled_from(_AROUND), max_size=3).map("".join),
    hs.one_of(_SHAPED, _NUMBER_LIKE),
    hs.lists(hs.sampled_from(_AROUND), max_size=3).map("".join),
).map("".join)
_NOTES: tuple[dict[str, str], ...] = ({}, {"found_by": "last_number"}, {"found_by": "marker"}, {"found_by": "boxed"},
          {"found_by": "marker", "statement": "paragraph"})


@given(_PARSER_TEXTS, hs.sampled_from(_NOTES))
@settings(max_examples=3000, deadline=None)
@example("$61,260.", {})
@example("\\boxed{-862}", {"found_by": "boxed"})
@example("42.", {"found_by": "marker", "statement": "paragraph"})
@example("\u200b7\u200b", {})
def test_parse_math_short_cut_equals_the_general_path(text: str, notes: dict[str, str]) -> None:
    params = _math.MathParams()

    def parsed() -> tuple[object, ...]:
        try:
            got = _math.parse_math(text, params, ParseContext(notes=notes))
        except Exception as exc:  # the outcome compared, whatever it is (SymPy raises on "\\frac00")
            return "raised", type(exc).__name__, str(exc)
        return got.answer, got.status, got.reason, dict(got.extra)

    fast = parsed()
    with mock.patch.object(_math, "plain_canonical", lambda s: None):  # the general path only
        general = parsed()
    assert fast == general, text


# --------------------------------------------------------------------------- extract_math_answer

# markers of every tier (cased variants, İ/ſ/K, inside words, across lines), separators, boxes
# (nested, side by side, unclosed, \fbox, the space form), fences, sentence ends, prose, CJK
_MATH_PIECES = (
    "final answer is", "Final Answer:", "FINAL ANSWER", "**Final Answer:**", "**final answer**", "## Final Answer\n",
    "fİnal answer:", "final\nanswer is", "finally", "answering", "the answer is", "The answer is ", "Answer: ",
    "**Answer:**", "answer would be", "correct option is", "best choice is", "therefore", "Therefore, ", "thus",
    "hence", "in conclusion,", "reanswer:", "answers", "anſwer:", "最终答案是", "最终答案：", "**最终答案**",
    "答案是", "答案：", "正确选项是", "故选", "因此", "所以，", "综上所述，", "####", "#### ", "最终输出:", "最终输出：",
    "\\boxed{", "\\boxed{3}", "\\boxed{5}", "\\boxed{\\frac{1}{2}}", "\\boxed{-4}", "\\boxed 7", "\\fbox{8}", "{", "}",
    "\\{", "\\}", ", ", " and ", " or ", "\\quad", "either ", "possibly ", "$", "$12$", "\\(", "\\)", "```", "```python\n",
    "~~~", "`", "<|im_end|>", "<|eot_id|>", " ", "  ", "\n", "\n\n", ".", ". ", "。", "!", "?", ":", "：", ",", "，",
    "*", "**", "_", "#", "42", "7", "3.5", "1,000", "x = 2", "We compute", " so the result is", "合理", "计算",
    "K", "ſ", "İ", "=", "-", "\\", "\t", "answer = ", "answer $", "step 1.", "Step 1:", "final answer =",
    "ANSWER IS", "answer：", "answer?", "Correct option is", "right choice would be", "best option is", "正确",
    "正确的选项为", "最终输出", "最终结果为", "c", "n", "\\[", "\\]", "3.", "5!",
)
_MATH_TEXTS = hs.lists(hs.sampled_from(_MATH_PIECES), max_size=30).map("".join)
# long prose before the statement, as real solutions have (the tail of the text decides most rows)
_PROSE = hs.lists(hs.sampled_from(("the model checks each step again and the final result holds. ",
                                   "我们先分析题目条件，然后逐步计算。", "answering twice.\n", "x = 3.\n", "so 4 + 5 = 9. ")),
                  min_size=0, max_size=40).map("".join)
_LONG_MATH_TEXTS = hs.tuples(_PROSE, _MATH_TEXTS, _PROSE, _MATH_TEXTS).map("".join)


def _outcome(fn: object, text: str, params: object) -> tuple[object, ...]:
    try:
        got = fn(text, params, timeout=5.0)  # type: ignore[operator]
    except RejectText as exc:
        return ("rejected", exc.status, exc.reason)
    return ("ok", str(got), dict(getattr(got, "notes", {})))


_MATH_PARAMS = extract_math.resolve_math_markers(extract_math.MathAnswerParams(), load_pack().resources)
_MATH_PARAMS_ONE_FINAL = extract_math.MathAnswerParams.model_validate({**_MATH_PARAMS.model_dump(), "final_tiers": 1})
# markers that hold would-be cut characters (=, $, digits, .): those may never cut the text
_MATH_PARAMS_STOPS = extract_math.MathAnswerParams(
    tiers=((r"final\s+answer\s*=", r"answer\s*\$", "答案是"), (r"step\s+1\s*[.:]", r"the answer is"), ("therefore", "因此"))
)
_ALL_PARAMS = (_MATH_PARAMS, _MATH_PARAMS_ONE_FINAL, _MATH_PARAMS_STOPS)


@given(hs.one_of(_MATH_TEXTS, _LONG_MATH_TEXTS))
@settings(max_examples=3000, deadline=None)
@example("The answer is 5.\n#### 6")
@example("So \\boxed{3}. Final Answer: The final answer is 5. I hope it is correct.")
@example("#### 18\n#### 18\n\\boxed{18}")
@example("Therefore, \\boxed{3}, \\boxed{5}.")
@example("答案是 5。\n因此答案是 5")
@example("```\nfinal answer: 3\n```\nthe answer is 4")
def test_extract_math_answer_equals_the_oracle(text: str) -> None:
    for params in _ALL_PARAMS:
        assert _outcome(extract_math.extract_math_answer, text, params) == _outcome(oracle.extract_math_answer, text, params)


@given(_MATH_TEXTS, hs.integers(0, 60))
@settings(max_examples=3000, deadline=None)
@example("答案是 5。\n因此答案是 6", 4)
@example("the answer is\n5. #### 5", 6)
@example("ab.## Final Answer\n5", 18)  # the cut at "." keeps "." (else ^ would hold after it)
def test_extract_math_answer_cut_anywhere_equals_the_oracle(text: str, window: int) -> None:
    """The last-lines-first scan, with the cut moved into short texts (any place a stop may
    fall): the tail's matches from the cut on, the head's on the text up to it."""
    saved = extract_math._WINDOW, extract_math._WINDOW_MIN
    extract_math._WINDOW, extract_math._WINDOW_MIN = window, 0  # type: ignore[misc]
    try:
        for params in _ALL_PARAMS:
            got = _outcome(extract_math.extract_math_answer, text, params)
            assert got == _outcome(oracle.extract_math_answer, text, params)
    finally:
        extract_math._WINDOW, extract_math._WINDOW_MIN = saved  # type: ignore[misc]


@given(hs.one_of(_MATH_TEXTS, _LONG_MATH_TEXTS), hs.integers(0, 10**6), hs.sampled_from(range(3)))
@settings(max_examples=2000, deadline=None)
@example("answering. The answer: 5 and answer is 6", 10**6, 1)
@example("正确答案是 5。正确选项是 C", 10**6, 1)
def test_tier_scan_equals_the_alternation(text: str, cut: int, index: int) -> None:
    """The screened, located, merged scan of a tier (shared literal places, joint locators of
    patterns with one leading literal, lean screens, ``endpos`` for the part before a cut)
    gives the guarded alternation's ``finditer`` over ``text[:end]``, for any end."""
    tier = _MATH_PARAMS.tiers[index]
    end = cut % (len(text) + 1)
    scan = extract_math._Scan(text)
    info = extract_math._tier(tier)
    expected = [(m.start(), m.end()) for m in _alternation(tier).finditer(text[:end])]
    if info.tangled or any(a == b for a, b in expected):
        return  # scanned as one alternation / left to finditer's own stepping
    got = extract_math._plan_matches(scan, scan.live(info, end), end, 5.0)
    assert got is not None
    assert [(m.start(), m.end()) for m in got] == expected


@given(hs.lists(hs.sampled_from(("answer", " ", ":", "：", "is", "？", "\n", "x", "ANSWER", "最", "终")), max_size=20).map("".join))
@settings(max_examples=1000, deadline=None)
def test_joint_locator_hits_where_one_of_its_locators_does(text: str) -> None:
    """One scan of the joint locator of two patterns that start with ``answer`` hits exactly
    where one of their own locators would."""
    sources = tuple(s for s in (text_locator_source(p) for p in (r"answer\s+(?:is|would\s+be)", r"answer\s*[:：]")) if isinstance(s, bytes))
    assert len(sources) == 2
    joint = extract_math._joint_locator("answer", sources)
    assert joint is not None
    projected = project(text)
    for pos in range(len(projected) + 1):
        hit = joint.match(projected, pos) is not None
        assert hit == any(re.match(source, projected[pos:]) is not None for source in sources)


@given(hs.text(alphabet=hs.sampled_from("orpsiblymaehOPSİıſK 1$é,")))
@settings(max_examples=1000)
def test_hedge_screen_folds_ascii_by_lower(text: str) -> None:
    """The parser's hedge screen lower-cases ASCII text instead of folding it: the same words."""
    folded = fold(text)
    expected = "or" in folded or "possibly" in folded or "maybe" in folded or "perhaps" in folded
    assert _math._may_hedge(text) == expected


@given(hs.lists(hs.sampled_from(("answer", "wer", "ans", " ", ":", "：", "is", "？", "\n", "x", "ANSWER", "最")), max_size=20).map("".join),
       hs.integers(0, 8))
@settings(max_examples=1000, deadline=None)
def test_anchored_joint_locator_hits_where_the_joint_locator_does(text: str, end_cut: int) -> None:
    """The joint locator searched from its literal's rarest letter (``_anchored_joint``, what
    ``_joint_floors`` scans) finds, from every start and up to every end, the joint locator's
    hit moved ``shift`` characters on (the look-behind reads before the start)."""
    patterns = _MATH_PARAMS.tiers[1][:2]
    groups = extract_math._joint_groups(tuple(patterns))
    assert len(groups) == 1
    key, anchored, shift, members = groups[0]
    assert shift > 0 and members == tuple(patterns)
    sources = tuple(s for s in map(text_locator_source, patterns) if isinstance(s, bytes))
    joint = extract_math._joint_locator(key, sources)
    assert joint is not None
    projected = project(text)
    end = max(0, len(projected) - end_cut)
    for pos in range(len(projected) + 1):
        plain = joint.search(projected, pos, end)
        moved = anchored.search(projected, pos + shift, end)
        assert (None if plain is None else plain.start()) == (None if moved is None else moved.start() - shift)
