"""The choice parser's speed short-cuts give exactly what the old parser gives.

Differential tests: :func:`normalize.parsers._choice.parse_choice` against the copy of the parser
as it was before the speed work (tests/_oracles/choice.py), on generated adversarial texts —
the whole-statement fast path's own grammar and its near misses, several letters, negations,
``A or B``, Chinese 答案/选, brackets and quotes, markdown, retractions, hedges, option counts
2–26, option texts, long reasoning with letters inside words.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as hs

from normalize.parsers import _choice
from normalize.registry import ParseContext, Parsed
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
_STOPS = ("", ".", "。", "!", ",", " ", "\n", ". ", "..", "?")
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


def test_whole_statement_fast_path_is_taken() -> None:
    """The grammar accepts the shapes it is for (so the differential test above tests it)."""
    for text in ("answer is (B).", "Answer: B", 'The answer is "C"', '答案是:"D"。', "故选B", "(B)", "B.", "选J"):
        assert _choice._WHOLE_STATEMENT.fullmatch(_choice.prepare_text(text, timeout=1.0)), text
