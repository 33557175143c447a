"""The strict ``choice`` parser: stated letters only, statuses instead of guesses."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from pydantic import ValidationError

from normalize import status as st
from normalize.core.registry import REGISTRY, ParseContext, Parsed
from normalize.parsers._choice import ChoiceParams, parse_choice

FOUR = ParseContext(options=4)
FILMS = ParseContext(options=("Guilty", "Guilty of Romance", "Cold Fish", "Love Exposure"))


def parse(text: str, ctx: ParseContext = FOUR, **params: Any) -> Parsed:
    return parse_choice(text, ChoiceParams(**params), ctx)


def test_registered_with_its_params() -> None:
    definition = REGISTRY.parser("choice")
    assert definition.version == 3
    assert definition.params_model is ChoiceParams


# ----------------------------------------------------------------- the seed material's cases


@pytest.mark.parametrize(
    ("text", "answer", "status"),
    [
        ("The final answer is (C).", "C", st.OK),  # a marker and a letter
        ("answer: b", "B", st.OK),
        ("I think it is probably the third one.", None, st.NO_ANSWER),  # no marker
        ("The answer is (G).", None, st.OUT_OF_RANGE),  # past a 4-option domain
        ("The answer is A. Hmm, the answer is B.", None, st.CONTRADICTORY),  # two letters
        ("The answer is B. So again, the answer is B.", "B", st.OK),  # the same letter twice
        ("The answer is D, not A.", "D", st.OK),  # a negated letter is not stated
        ("The answer is A or B.", None, st.CONTRADICTORY),  # a tie
        ("The answer is either (A) or (B).", None, st.CONTRADICTORY),
        ("The answer is A and C.", None, st.CONTRADICTORY),
        ("The answer is A, C.", None, st.CONTRADICTORY),
        ("AB", None, st.CONTRADICTORY),
    ],
)
def test_seed_cases(text: str, answer: str | None, status: str) -> None:
    parsed = parse(text)
    assert (parsed.answer, parsed.status) == (answer, status)
    assert (parsed.reason is None) == (status == st.OK)


def test_out_of_range_reason_names_the_letter_and_domain() -> None:
    parsed = parse("The answer is (G).")
    assert parsed.reason is not None and "G" in parsed.reason and "4 options" in parsed.reason


# ----------------------------------------------------------------- English phrasings


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Let's think step by step. Paris is the capital. The answer is (B).", "B"),
        ("Answer: **C**", "C"),
        ("**Final Answer:** D", "D"),
        ("### Final Answer\n\nA", "A"),
        ("The correct answer is therefore (C).", "C"),
        ("The answer is A because the others are wrong.", "A"),
        ("I choose B.", "B"),
        ("I'd go with option D.", "D"),
        ("The correct option is (A).", "A"),
        ("B is the correct answer.", "B"),
        ("$\\boxed{\\text{C}}$", "C"),
        ("the answer is c.", "C"),
        ("The answer is B rather than A.", "B"),
        ("The answer is B, C is a distractor.", "B"),
        ("A. One could argue this, but the answer is C.", "C"),  # a marker beats a leading letter
    ],
)
def test_english_markers(text: str, answer: str) -> None:
    assert parse(text) == Parsed(answer, st.OK)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Option B is correct.", "B"),
        ("A is wrong because of X.\nB is correct.", "B"),
        ("Therefore, C is correct.", "C"),
    ],
)
def test_weak_statements_count_without_a_marker(text: str, answer: str) -> None:
    assert parse(text) == Parsed(answer, st.OK)


def test_a_marker_outranks_per_option_analysis() -> None:
    text = "Option A is correct about X. Option B is correct too.\nThe answer is A."
    assert parse(text) == Parsed("A", st.OK)


def test_per_option_analysis_without_a_marker_is_contradictory() -> None:
    assert parse("Option A is correct. Option C is correct.").status == st.CONTRADICTORY


@pytest.mark.parametrize(
    "text",
    [
        "the answer is a dog",  # the article, not a letter
        "The answer is not obvious.",
        "The answer is NOT A.",
        "Answer: I think so.",  # the pronoun
        "To answer this, consider A and B.",  # no marker: letters in prose state nothing
        "A bat is a mammal.",  # a leading article
        "",
        "   \n",
    ],
)
def test_prose_states_nothing(text: str) -> None:
    assert parse(text).status == st.NO_ANSWER


# ----------------------------------------------------------------- the output is the answer


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("B", "B"),
        ("(B)", "B"),
        ("**B**", "B"),
        ("b.", "B"),
        (" [C] ", "C"),
        ("B. Paris", "B"),
        ("B) Paris", "B"),
        ("B: Paris", "B"),
        ("(D) none of the above\n\nExplanation: ...", "D"),
    ],
)
def test_lone_and_leading_letters(text: str, answer: str) -> None:
    assert parse(text) == Parsed(answer, st.OK)


# ----------------------------------------------------------------- Chinese and full width


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("最终答案是 D", "D"),
        ("答案：B", "B"),
        ("答案是B", "B"),
        ("选B", "B"),
        ("故选C。", "C"),
        ("所以选A", "A"),
        ("正确答案是A", "A"),
        ("答案是：“B”。", "B"),
        ("答案为（Ｃ）", "C"),
        ("分析：A选项错误，B选项正确。", "B"),
        ("如果选A，那么结论不成立。故选B。", "B"),  # a hypothetical choice is not a statement
        ("应该选B而不是A。", "B"),
        ("Ｂ", "B"),
        ("The answer is （Ｄ）.", "D"),
        ("答案是ｂ。", "B"),
    ],
)
def test_chinese_and_full_width(text: str, answer: str) -> None:
    assert parse(text) == Parsed(answer, st.OK)


@pytest.mark.parametrize("text", ["答案是A或B", "答案是A和C。", "答案是AB。", "A正确，B错误，C正确。"])
def test_chinese_contradictions(text: str) -> None:
    assert parse(text).status == st.CONTRADICTORY


def test_chinese_number_is_not_a_letter() -> None:
    assert parse("因此答案是 12").status == st.NO_ANSWER


# ----------------------------------------------------------------- conflicts between statements


def test_conflict_last_takes_the_last_statement() -> None:
    text = "The answer is A. Let me look again. Actually, the answer is B."
    assert parse(text).status == st.CONTRADICTORY
    assert parse(text, conflict="last") == Parsed("B", st.OK)


def test_conflict_last_still_rejects_a_two_letter_statement() -> None:
    assert parse("The answer is A. No: the answer is B or C.", conflict="last").status == st.CONTRADICTORY


def test_conflict_param_is_strict() -> None:
    with pytest.raises(ValidationError):
        ChoiceParams(conflict="first")  # type: ignore[arg-type]


# ----------------------------------------------------------------- option texts


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is Guilty of Romance.", "B"),  # the longest option wins
        ("The answer is Guilty.", "A"),
        ("Guilty of Romance", "B"),
        ("the answer is: “guilty  of romance”", "B"),
        ("The answer is the 2011 film Guilty of Romance, by Sion Sono.", "B"),
        ("The answer is Cold Fish, not Guilty.", "C"),
        ("答案是Cold Fish。", "C"),
        ("The answer is Love Exposure. Cold Fish came later.", "D"),
    ],
)
def test_option_text(text: str, answer: str) -> None:
    assert parse(text, FILMS) == Parsed(answer, st.OK)


def test_two_unnested_option_texts_are_contradictory() -> None:
    assert parse("The answer is Cold Fish or Love Exposure.", FILMS).status == st.CONTRADICTORY


def test_a_letter_still_wins_with_option_texts() -> None:
    assert parse("The answer is (C) Cold Fish.", FILMS) == Parsed("C", st.OK)


def test_article_option_text() -> None:
    ctx = ParseContext(options=("a cat", "a dog"))
    assert parse("the answer is a dog", ctx) == Parsed("B", st.OK)


# ----------------------------------------------------------------- the domain


@pytest.mark.parametrize("options", [1, 27, 0, -4, ("only one",), tuple("x" * i for i in range(1, 28))])
def test_bad_domain_raises_value_error(options: object) -> None:
    with pytest.raises(ValueError, match="2 to 26"):
        parse_choice("The answer is A.", ChoiceParams(), ParseContext(options=options))  # type: ignore[arg-type]


@pytest.mark.parametrize(("options", "named"), [(True, "True"), (4.0, "4.0"), (("a", 3), "got 3")])
def test_non_domain_values_raise_value_error(options: object, named: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_choice("The answer is A.", ChoiceParams(), ParseContext(options=options))  # type: ignore[arg-type]
    assert named in str(info.value)


def test_missing_domain_uses_the_default() -> None:
    none = ParseContext(options=None)
    assert parse_choice("The answer is (K).", ChoiceParams(), none) == Parsed("K", st.OK)
    assert parse_choice("The answer is (K).", ChoiceParams(default_options=4), none).status == st.OUT_OF_RANGE
    with pytest.raises(ValueError, match="no options"):
        parse_choice("The answer is (K).", ChoiceParams(default_options=None), none)


@pytest.mark.parametrize("count", [2, 26])
def test_domain_bounds(count: int) -> None:
    last = chr(ord("A") + count - 1)
    ctx = ParseContext(options=count)
    assert parse(f"The answer is {last}.", ctx) == Parsed(last, st.OK)
    if count < 26:
        assert parse(f"The answer is {chr(ord(last) + 1)}.", ctx).status == st.OUT_OF_RANGE


def test_pack_run_turns_a_bad_domain_into_invalid(tmp_path: pytest.TempPathFactory) -> None:
    from pathlib import Path

    from normalize.core.pack import load_pack

    pack_file = Path(str(tmp_path)) / "pack.yaml"
    pack_file.write_text(
        "name: t\ntask_types:\n  multiple_choice:\n    chain: [unify_quotes]\n    parser: choice\n",
        encoding="utf-8",
    )
    pack = load_pack(pack_file)
    assert pack.run("The answer is (B).", "multiple_choice", options=1).status == st.INVALID
    result = pack.run("答案是“B”。", "multiple_choice", options=["x", "y", "z"])
    assert (result.answer, result.status) == ("B", st.OK)


# ----------------------------------------------------------------- properties


_TEXT = hs.text(
    alphabet=hs.sampled_from(list("ABCDEFGHIJKabcdij ()[].,:;\n*`$\"'答案是为选故不或和：（）ＡＢ")) | hs.characters(),
    max_size=120,
)
_OPTIONS = hs.integers(min_value=2, max_value=26) | hs.lists(
    hs.text(max_size=12), min_size=2, max_size=26
).map(tuple)


@settings(max_examples=200, deadline=None)
@given(text=_TEXT, options=_OPTIONS, conflict=hs.sampled_from(["contradictory", "last"]))
def test_never_raises_and_stays_in_the_domain(text: str, options: int | tuple[str, ...], conflict: str) -> None:
    ctx = ParseContext(options=options)
    params = ChoiceParams(conflict=conflict)  # type: ignore[arg-type]
    parsed = parse_choice(text, params, ctx)
    assert parsed == parse_choice(text, params, ctx)  # deterministic
    assert parsed.status in st.ALL_STATUSES
    count = options if isinstance(options, int) else len(options)
    if parsed.status == st.OK:
        assert isinstance(parsed.answer, str) and len(parsed.answer) == 1
        assert "A" <= parsed.answer <= chr(ord("A") + count - 1)
    else:
        assert parsed.answer is None and parsed.reason


@settings(max_examples=100, deadline=None)
@given(
    prefix=hs.text(alphabet=hs.sampled_from(list("thinking about it. 思考")), max_size=40),
    index=hs.integers(min_value=0, max_value=3),
)
def test_a_stated_letter_is_found_after_any_reasoning(prefix: str, index: int) -> None:
    letter = "ABCD"[index]
    assert parse(f"{prefix}\nThe answer is ({letter}).") == Parsed(letter, st.OK)
