"""The choice parser's speed short-cuts give exactly what the old parser gives.

Differential tests: :func:`normalize.parsers._choice.parse_choice` against the copy of the parser
as it was before the speed work (tests/_oracles/choice.py), on generated adversarial texts —
the whole-statement fast path's own grammar and its near misses, several letters, negations,
``A or B``, Chinese 答案/选, brackets and quotes, markdown, retractions, hedges, option counts
2–26, option texts, long reasoning with letters inside words.
"""

from __future__ import annotations

import unicodedata

import regex
from hypothesis import given, settings
from hypothesis import strategies as hs

from normalize.core.registry import ParseContext, Parsed
from normalize.limits._literals import fold
from normalize.limits._regex import compile_pattern
from normalize.parsers import _choice
from tests._oracles import choice as oracle

_CONFLICTS = ("contradictory", "last")


def _both(text: str, options: int | tuple[str, ...], conflict: str) -> tuple[Parsed, Parsed]:
    ctx = ParseContext(options=options, timeout=1.0)
    new = _choice.parse_choice(text, _choice.ChoiceParams(conflict=conflict), ctx)
    old = oracle.parse_choice(text, oracle.ChoiceParams(conflict=conflict), ctx)
    return new, old


# The fast path's grammar, piece by piece, and the pieces of near misses.
_LEADS = (
    "", "answer", "Answer", "ANSWER", "The answer", "the answer", "THE answer", "The Answer", "final answer",
    "答案", "选", "故选", "所以选", "因此选", "不选", "如果选", "答案不是", "正确答案是", "答", "选项",
)
_JOINS = ("", " is ", " is: ", " is:", ": ", ":", " is", " ", "是", "为", "是:", "为:", " IS ", " isn't ", "=", "\n")
_LETTERS = ("A", "B", "C", "I", "J", "Z", "b", "a", "i", "AB", "BA", "DNA", "Ｂ", "é")
_WRAPS = (("", ""), ("(", ")"), ('"', '"'), ("“", "”"), ("**", "**"), ("(", ""), ("", ")"), ("[", "]"), ("'", "'"))
_STOPS = ("", ".", "。", "!", ",", " ", "\n", ". ", "..", "?", "*", "\\", "_", "”", "\u200b", "．")
_TAILS = (
    "", " or C", ", not A", " and D", " is correct", " is also plausible", "也正确", " because", "\nWait, that is wrong.\nANSWER: C",
    " (B)", "B", " is the answer", "。等等，不对，答案是C", " rather than B", " might be C", "\u200b",
)


@hs.composite
def _statements(draw: hs.DrawFn) -> str:
    """A whole statement of the fast path's shape, often bent into a near miss."""
    lead = draw(hs.sampled_from(_LEADS))
    join = draw(hs.sampled_from(_JOINS)) if lead else ""
    opening, closing = draw(hs.sampled_from(_WRAPS))
    letter = draw(hs.sampled_from(_LETTERS))
    stop = draw(hs.sampled_from(_STOPS))
    tail = draw(hs.sampled_from(_TAILS)) if draw(hs.booleans()) else ""
    head = draw(hs.sampled_from(("", " ", "\n", "So ", "I think ", "Let's see.\n"))) if draw(hs.booleans()) else ""
    return head + lead + join + opening + letter + closing + stop + tail


_OPTION_TEXTS = hs.sampled_from((("Paris", "London", "B", "AB"), ("yes", "no"), ("A cat", "Guilty", "Not guilty")))
_DOMAINS = hs.one_of(hs.integers(2, 26), _OPTION_TEXTS)


@given(_statements(), _DOMAINS, hs.sampled_from(_CONFLICTS))
@settings(max_examples=3000, deadline=None)
def test_whole_statement_fast_path_reads_like_the_tiers(text: str, options: int | tuple[str, ...], conflict: str) -> None:
    new, old = _both(text, options, conflict)
    assert new == old, (text, options, conflict)


@given(_statements())
@settings(max_examples=2000, deadline=None)
def test_whole_statement_is_its_own_prepared_form(text: str) -> None:
    if _choice._WHOLE_STATEMENT.fullmatch(text):
        assert _choice.prepare_text(text, timeout=1.0) == text


def test_whole_statement_fast_path_is_taken() -> None:
    """The grammar accepts the shapes it is for (so the differential test above tests it)."""
    for text in ("answer is (B).", "Answer: B", 'The answer is "C"', '答案是:"D"。', "故选B", "(B)", "B.", "选J"):
        assert _choice._WHOLE_STATEMENT.fullmatch(_choice.prepare_text(text, timeout=1.0)), text


# Words and marks every pre-check, start list and screen of the parser looks for, their near
# misses, and the characters that change matching: case folding (İ ı ſ K), word characters on
# either side, every kind of blank, CJK markers, brackets and quotes.
_WORD_PIECES = (
    "answer", "Answer", "ANSWER", "answering", "answer is", "The answer is", "answer:", "answer\n", "answer -", "answer — B", "Answer– C",
    "isn't", "is", "Is", "IS", " is ", "is the", "correct", "right", "best", "final", "my", "option", "Option",
    "choice", "letter", "one", "pick", "selection", "I", "I'd", "I'll", "I would", "we", "choose", "select",
    "go", "with", "opt", "for", "the", "la réponse est", "RÉPONSE", "respuesta es", "resposta é", "risposta è",
    "Antwort:", "antwort ist", "sp", "so", "So", "SO", "ſo", "also", "some", "therefore", "Therefore,", "thus",
    "hence", "consequently", "accordingly", "overall", "in conclusion", "in summary", "to conclude", "conclude",
    "it", "It", "İt", "this", "This", "it's", "it is", "must", "has to", "should", "would", "be", "might", "may",
    "maybe", "could", "possibly", "perhaps", "valid", "true", "equally", "or", "and", "not", "wait", "Wait,",
    "that is wrong", "actually", "let me reconsider", "A", "B", "C", "D", "J", "Z", "a", "b", "AB", "(B)", "[C]",
    "\"D\"", "'A'", "【B】", "B.", "B,", "b)", "K", "\u212a", "ı", "_", "9", "é", "pic\u212a", "\u212anow", "答案", "答案是", "答案不是", "答", "答:",
    "选", "选项", "故选", "不选", "正确", "正确的是", "对", "是", "为", "我认为", "所以", "因此", "综上", "可能是",
    "也", "也正确", "或", "等等", "不对", "\\boxed{", "}", " ", "  ", "\t", "\n", "\n\n", "\x0b", "\u3000", "\xa0",
    "\u2028", "\x1c", ",", ".", ":", ";", "!", "?", "，", "。", "：", "-", "—", "(", ")", "*", "**", "“", "”",
    "\u200b", "Ｂ", "我们先分析题目条件，然后逐步计算。", "the model checks each option carefully",
    "either", "Both", "LETTER", "optİon", "eİther", "Option B", "option (C)", "either A or B", "选项C", "选项 D",
    "so,, therefore B", "so , , clearly C.", "so definitely D", "thus, most likely (A)", "hence of course B!",
    "so we think it's C", "so I'd say D", "So the", "so the answer", "so, the", "so [B]", "so 【C】", "so AB.",
    "so option B", "so it's", "so,\tthen", "so\u3000B", "so\n\nD", "so é", "soé",
    "optİon B", "eİther (C)", "OPTİON D", "both\tA", "I'll go\twith\nB", "I opt\u3000for (C)", "I'd\xa0choose D",
    # what the unled screen reads: letters after sentence ends and lead words, glued leads, the
    # characters the projection marks (? 。 、 】), capture follows
    "?", "。", "、", "】", "【", "a.", " a.", "a)", "(a)", "b ,", "a。", "a】", "B】", "A?", "A 是", "A正确", "(B)是",
    "then a.", "so a.", "option a.", "both A", "either A", "the a.", ". A", "。B", "!\n\nC", ";D", "？E",
    "as follows", "answer is as followsB", "as followstherefore B", "maybeoption B", "perhapseither (C)",
    "maybeB", "possiblyb.", "perhapsAB", "la réponse estC", "réponseest D", "respuestaes B", "antwort istnot A, sondern B",
    "Antwort lautetC", "antwortistD", "answeris B", "optionis C", "answer isn't B", "mayBE", "MAYBEB", "iPhone", "DNA",
    "I", "I think", "A small", "option is", "I opt for", "correct", "is the answer", "B is the correct answer",
)
# One statement (or near miss) for each pre-checked pattern: every pattern matches one of them
# (a test checks it), and the generated texts mix them with the pieces above.
_EXAMPLES = (
    "The answer is (B).", "ANSWER: c.", "Final Answer\n\nD", "answer - B", "The correct option is: C",
    "the best one would be D", "my final choice: A", "I'd pick B", "I will go with C", "I opt for D",
    "\\boxed{B}", "答案是B", "答案应该选C", "The answer isn't B, but C", "答案不是A，而是D", "正确答案是C",
    "答: B", "所以选B", "la réponse est C", "La respuesta correcta es: B", "a resposta é D", "Die Antwort lautet A",
    "B is the correct answer", "(C) is the right option", "B是正确答案", "Therefore, B.", "so, it's C",
    "In conclusion, D", "to conclude: A", "thus I think it's B", "I think it's (B)", "Not A. It must be C.",
    "it has to be D", "我认为答案是B", "综上所述，C", "因此是A", "might be C", "could also be (F)",
    "Perhaps D.", "maybe it's A", "可能是B", "Option B is correct", "B is correct", "so C is the only valid",
    "选项B正确", "B项正确", "正确的是D", "but (C) is also plausible", "or maybe D", "也可能是C", "C也正确",
    "Wait, that is wrong.", "等等，不对", "I take it back", "ANSWER: A\nWait, that is wrong.\nANSWER: B",
    "B (maybe D)", "B, perhaps D", "B oder vielleicht D", "B, ou peut-être D", "B o tal vez D", "B，也许D",
    "B if x > 0, otherwise C", "B if x > 0, else it is C", "如果x>0则B，否则为C", "B, o forse D",
    "B; alternatively, D", "D is also a strong candidate",
)
_PIECE_TEXTS = hs.lists(hs.sampled_from(_WORD_PIECES + _EXAMPLES), max_size=40).map("".join)


@given(_PIECE_TEXTS, _DOMAINS, hs.sampled_from(_CONFLICTS))
@settings(max_examples=3000, deadline=None)
def test_parser_reads_like_the_old_parser(text: str, options: int | tuple[str, ...], conflict: str) -> None:
    new, old = _both(text, options, conflict)
    assert new == old, (text, options, conflict)


_PROSE = hs.lists(
    hs.one_of(
        hs.sampled_from(_WORD_PIECES),
        hs.sampled_from(("The answer is (B).", "So it must be C.", "Therefore, D", "答案是A", "故选B", "B is correct.")),
    ),
    min_size=40,
    max_size=200,
).map(" ".join)


@given(_PROSE, hs.integers(2, 26), hs.sampled_from(_CONFLICTS), hs.sampled_from(("", "\n\nB", "\n\nThe answer is C")))
@settings(max_examples=400, deadline=None)
def test_long_reasoning_reads_like_the_old_parser(body: str, count: int, conflict: str, tail: str) -> None:
    new, old = _both(body + tail, count, conflict)
    assert new == old, (body + tail, count, conflict)


@given(_PIECE_TEXTS, hs.integers(0, 60), hs.one_of(hs.none(), hs.integers(0, 80)))
@settings(max_examples=2000, deadline=None)
def test_prechecked_scans_find_every_match(text: str, pos: int, endpos: int | None) -> None:
    """Every pre-check, start list and screen: the same matches as the plain scan, from any
    ``pos`` to any ``endpos``."""
    for pattern in _choice._PLANS:
        fast = [m.span() for m in _choice._finditer(pattern, text, pos, endpos)]
        slow = [m.span() for m in compile_pattern(pattern).finditer(text, pos, endpos)]
        assert fast == slow, (pattern, text, pos, endpos)


def test_examples_exercise_every_prechecked_pattern() -> None:
    for pattern in _choice._PLANS:
        hits = [text for text in _EXAMPLES if compile_pattern(pattern).search(text)]
        assert hits, pattern
        for text in hits:
            fast = [m.span() for m in _choice._finditer(pattern, text)]
            assert fast == [m.span() for m in compile_pattern(pattern).finditer(text)], (pattern, text)


def test_every_statement_pattern_is_prechecked() -> None:
    patterns = (
        *_choice._MARKERS, *_choice._BEFORE_PATTERNS, *_choice._CONCLUSIONS, *_choice._HEDGES, *_choice._WEAK,
        *_choice._WEAK_MARKERS, *_choice._ALSO_BEFORE, _choice._ALSO_AFTER, _choice._RETRACTION,
    )
    assert set(patterns) == set(_choice._PLANS)


@given(_PIECE_TEXTS, _PIECE_TEXTS, hs.integers(2, 26), hs.booleans())
@settings(max_examples=3000, deadline=None)
def test_token_precheck_never_refuses_a_token(before: str, after: str, count: int, strict: bool) -> None:
    text, pos = before + after, len(before)
    if not _choice._may_start_token(text, pos):
        assert oracle._read_token(text, pos, count, 1.0, strict_follow=strict) is None, (text, pos)


def test_folded_ascii_letters_are_word_characters() -> None:
    """The whole-word pre-checks rest on this: a character that folds to an ASCII letter is a
    word character (never ``\\s`` or a ``\\b`` boundary's other side); and the projection the
    pre-checks read keeps every ASCII character of the folded text, one byte a character."""
    word = regex.compile(r"\w")
    space = regex.compile(r"\s")
    for code in range(0x110000):
        char = chr(code)
        folded = fold(char)
        assert len(folded) == 1, hex(code)
        if "a" <= folded <= "z":
            assert word.match(char) and not space.match(char), hex(code)
        # the projection folds only İ ı ſ K; every other character that folds to ASCII is ASCII
        if folded.isascii() and not char.isascii():
            assert char in _choice._FOLDS_TO_ASCII, hex(code)
        assert len(_choice._projected(char)) == 1, hex(code)


@given(hs.text(alphabet=hs.sampled_from("ab B\\*_`$“”‘’「」\"'{}()text\u200b\u00ad\ufeffＢ＊＂＄＼")))
@settings(max_examples=1000)
def test_prepare_text_like_the_old_one(text: str) -> None:
    assert _choice.prepare_text(text, timeout=1.0) == oracle.prepare_text(text, timeout=1.0)


@given(hs.text(alphabet=hs.sampled_from("ab \n*`$\\_“”‘’「」«»\"'Ｂ我")), hs.integers(0, 80))
@settings(max_examples=1000)
def test_prepare_char_test_like_the_class_scan(text: str, pad: int) -> None:
    padded = "x" * pad + text
    assert _choice._holds_prepare_char(padded) == (_choice._PREPARE_CHARS.search(padded) is not None)


# --------------------------------------------------------------------------- the unled screen
# _choice._unled proves that no lead (marker, conclusion, hedge, weak marker) of a text is
# followed by a letter token; the parser then reads only the before/weak patterns' own letters
# and the whole output.  The differential tests above run the screen on every text they
# generate (options as a count); these test its pieces and that it is taken.

_LEAD_PATTERNS = (*_choice._MARKERS, *_choice._WEAK_MARKERS, *_choice._CONCLUSIONS, *_choice._HEDGES)


@given(_PIECE_TEXTS)
@settings(max_examples=3000, deadline=None)
def test_no_lead_ends_where_the_screen_lets_a_letter_through(text: str) -> None:
    """The lemma the screen rests on: right after every lead (and every negation after a marker)
    the walk back of _after_no_lead finds a lead, so a letter token read there is never
    dismissed — unless İ ı ſ K are in the text (the screen then refuses it)."""
    text = _choice.prepare_text(text, timeout=1.0)
    _, projected, folded = _choice._ascii_views(text)
    if folded:
        assert _choice._unled(text) is None
        return
    for pattern in _LEAD_PATTERNS:
        for match in compile_pattern(pattern).finditer(text):
            assert not _choice._after_no_lead(text, projected, match.end()), (pattern, text, match.span())
            if pattern in _choice._MARKERS or pattern in _choice._WEAK_MARKERS:
                negated = compile_pattern(_choice._NEGATED_START).match(text, match.end())
                if negated is not None:
                    assert not _choice._after_no_lead(text, projected, negated.end()), (pattern, text)


@given(_PIECE_TEXTS, hs.integers(2, 26), hs.sampled_from(_CONFLICTS))
@settings(max_examples=3000, deadline=None)
def test_unled_texts_read_like_the_old_parser(text: str, count: int, conflict: str) -> None:
    """Texts the screen passes (a lead-free body, then pieces) read as the old parser reads them."""
    text = "so the model checks each step again. A small slip changes the result.\n\n" + text
    new, old = _both(text, count, conflict)
    assert new == old, (text, count, conflict)


def test_unled_screen_is_taken_and_refused() -> None:
    """The screen passes the texts it is for (so the tests above test the fast path) and refuses
    a letter after a lead, also glued to it or behind the words _TOKEN reads before letters."""
    body = "the model first checks each option carefully.\n我们先分析题目条件,然后逐步计算。\nagain a small step a.\n"
    for tail in ("\n\nB", "\n\n(C)", "", "\nA small slip.", "\n\nb.", "option first a.", "I think.", "B)"):
        assert _choice._unled(_choice.prepare_text(body + tail, timeout=1.0)) is not None, tail
    assert _choice._unled("the end.\n\nB") == _choice._Unled(captures=False)
    assert _choice._unled("the end. B is wrong") == _choice._Unled(captures=True)
    refused = (
        "so a.", "then B", "answer\n\nB", "maybeB", "perhapsb.", "maybeoption B", "as followsthen B", "答案是B",
        "answer is option (C)", "so both A", "the correct one: B", "réponseest B", "antwort istnot A, sondern B", "answeris C",
        "\\boxed{B}", "I choose B", "It must be B", "could be either C", "possibly, B", "选B", "答: C",
    )
    for text in refused:
        assert _choice._unled(_choice.prepare_text(body + text, timeout=1.0)) is None, text


def test_format_char_screen_keeps_every_format_character() -> None:
    """_may_hold_format_char is False only for texts without a Unicode Cf character."""
    for code in range(0x110000):
        char = chr(code)
        if unicodedata.category(char) == "Cf":
            assert _choice._may_hold_format_char("x" + char + "我"), hex(code)
    assert not _choice._may_hold_format_char("我们先分析题目条件,然后逐步计算。 plain ascii, Ünïcödé, Кириллица")


def test_capture_follows_hold_every_ascii_blank() -> None:
    """_CAPTURE_FOLLOWS holds every ASCII character the regex module's \\s matches."""
    blank = regex.compile(r"\s")
    for code in range(128):
        if blank.match(chr(code)):
            assert code in _choice._CAPTURE_FOLLOWS, hex(code)
