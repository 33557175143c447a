"""How models really state a multiple-choice answer (issue 10): each kind through the parser
and through the shipped pack's whole chain, English and Chinese."""

from __future__ import annotations

from functools import cache

import pytest

from normalize import Pack, load_pack
from normalize import status as st
from normalize.core.registry import ParseContext
from normalize.parsers._choice import ChoiceParams, parse_choice

Options = int | tuple[str, ...]


@cache
def pack() -> Pack:
    return load_pack()


def both(text: str, options: Options = 4) -> list[tuple[object, str]]:
    """(answer, status) from the parser alone and from the shipped chain + parser."""
    alone = parse_choice(text, ChoiceParams(), ParseContext(options=options))
    chained = pack().run(text, "multiple_choice", options=options if isinstance(options, int) else list(options))
    return [(alone.answer, alone.status), (chained.answer, chained.status)]


def check(text: str, answer: str | None, status: str, options: Options = 4) -> None:
    assert both(text, options) == [(answer, status)] * 2


# ------------------------------------------------------------------ a stated answer missed


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Let's think step by step. It's not A because it makes no sense, therefore I think it's B", "B"),
        ("Answer: Let's think step by step. The others are too small. Therefore, B.", "B"),
        ("Option A fails the boundary test.\nSo it must be C.", "C"),
        ("Thus, (D).", "D"),
        ("Weighing both effects, in conclusion we choose A.", "A"),
        ("A、C两项都与题意不符，所以是B。", "B"),
        ("综上所述，D", "D"),
        ("因此，我认为是C", "C"),
        ("我认为是C", "C"),
    ],
)
def test_conclusion_without_a_marker(text: str, answer: str) -> None:
    check(text, answer, st.OK)


@pytest.mark.parametrize(
    "text",
    [
        "Therefore, A is wrong.",  # the letter does not end its clause: nothing stated
        "So A and B differ in one way.",
        "因此A选项的说法有误",
    ],
)
def test_a_conclusion_about_an_option_states_nothing(text: str) -> None:
    check(text, None, st.NO_ANSWER)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("So the answer is for sure D, it can't be A or B", "D"),
        ("The answer is certainly (C).", "C"),
        ("The answer is, of course, B.", "B"),
        ("The answer is without a doubt A", "A"),
        ("答案肯定是D，不可能是A或B", "D"),
    ],
)
def test_adverbs_between_marker_and_letter(text: str, answer: str) -> None:
    check(text, answer, st.OK)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("A和C都不对，只有选项B是对的", "B"),
        ("题目提到了A和D，但只有选项D是对的", "D"),
        ("排除A、B后，只有选项C是对", "C"),
        ("B不是A", "B"),
        ("C，不是 A", "C"),
        ("A错误，B也错误，只有C正确。", "C"),
    ],
)
def test_chinese_one_option_after_rejecting_others(text: str, answer: str) -> None:
    check(text, answer, st.OK)


def test_a_letter_in_an_unrelated_chinese_phrase_states_nothing() -> None:
    check("A对B的影响很大", None, st.NO_ANSWER)


PLEA = ("Guilty", "Not guilty")
CELLS = ("Cell", "Cell wall", "Cell membrane", "Nucleus")


@pytest.mark.parametrize(
    ("text", "options", "answer"),
    [
        ("Answer: Not guilty", PLEA, "B"),
        ("The answer is not guilty.", PLEA, "B"),
        ("Answer: Guilty", PLEA, "A"),
        ("The answer is Cell wall.", CELLS, "B"),
        ("答案是Cell membrane。", CELLS, "C"),
        ("The final answer is: Nucleus", CELLS, "D"),
    ],
)
def test_option_text_containing_another_option(text: str, options: tuple[str, ...], answer: str) -> None:
    check(text, answer, st.OK, options)


SHADES = ("Red", "Blue", "Light Blue", "None of the above")
PAIRS = ("x", "y", "Both A and B", "Neither")


@pytest.mark.parametrize(
    ("text", "options", "answer"),
    [
        ("Answer: Paris, Texas", ("Paris", "Paris, Texas", "Lyon", "Nice"), "B"),
        ("The answer is Light Blue", SHADES, "C"),
        ("The answer is Blue", SHADES, "B"),
        ("Therefore, Light Blue.", SHADES, "C"),  # a conclusion stating an option's text
        ('So the answer is "None of the above".', SHADES, "D"),
        ("The answer is Both A and B", PAIRS, "C"),  # an option text that reads like letters
        ("The answer is (C) Both A and B", PAIRS, "C"),
        ("答案是以上都不对", ("甲", "乙", "以上都对", "以上都不对"), "D"),
        ("答案：不对", ("对", "不对"), "B"),
    ],
)
def test_longer_option_texts_win(text: str, options: tuple[str, ...], answer: str) -> None:
    check(text, answer, st.OK, options)


def test_an_option_word_that_opens_a_sentence_is_not_a_statement() -> None:
    check("Therefore, Blue light is absorbed.", None, st.NO_ANSWER, SHADES)
    check("The answer is A and B", None, st.CONTRADICTORY, PAIRS)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is not B; it is C.", "C"),
        ("The answer is not A, but D.", "D"),
        ("The correct answer isn't B... rather, it's C", "C"),
        ("The answer is not A or B but C.", "C"),
        ("答案不是B，而是C。", "C"),
        ("答案不是A，是D", "D"),
    ],
)
def test_negated_letter_then_the_stated_one(text: str, answer: str) -> None:
    check(text, answer, st.OK)


def test_a_negated_letter_alone_states_nothing() -> None:
    check("The answer is not B.", None, st.NO_ANSWER)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("ANSWER: A\nWait, that is wrong.\nANSWER: B", "B"),
        ("The answer is (A).\n\nHold on, I made a mistake in step 2. The answer is (C).", "C"),
        ("Answer: D. Oops, that's incorrect — answer: B", "B"),
        ("答案是A。等等，不对，答案是C。", "C"),
        ("答案：B\n我算错了，重新考虑。\n答案：D", "D"),
        ("The answer is A. On second thought, the answer is B. Correction: the answer is C.", "C"),
    ],
)
def test_a_retracted_answer_gives_way(text: str, answer: str) -> None:
    check(text, answer, st.OK)


@pytest.mark.parametrize(
    "text",
    [
        "ANSWER: A\nANSWER: B",
        "The answer is (A).\n\nThe answer is (C).",
        "答案是A。答案是C。",
        "Answer: B, wait for it... Answer: B. Answer: D",  # the retraction comes before B only
    ],
)
def test_unretracted_different_answers_stay_contradictory(text: str) -> None:
    check(text, None, st.CONTRADICTORY)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is \u200bB", "B"),
        ("The answer is\u200f (C).", "C"),
        ("Answer:\u2066D\u2069", "D"),
        ("答案是\u200bB", "B"),
        ("最终答案：\ufeffA", "A"),
        ("The answer is \u200d\u200cB.", "B"),
    ],
)
def test_invisible_marks_between_marker_and_letter(text: str, answer: str) -> None:
    check(text, answer, st.OK)


# ------------------------------------------------------------------ two answers where one was taken

CAPITALS = ("Paris", "Lyon", "Marseille", "Nice")


@pytest.mark.parametrize(
    ("text", "answer", "status"),
    [
        ("The answer is (B) Paris.", None, st.CONTRADICTORY),
        ("The answer is C: Lyon", None, st.CONTRADICTORY),
        ("(D) Paris", None, st.CONTRADICTORY),
        ("答案是B. Paris", None, st.CONTRADICTORY),
        ("The answer is (A) Paris.", "A", st.OK),
        ("答案是（B）Lyon。", "B", st.OK),
        ("The answer is (B) because Lyon is larger than Nice.", "B", st.OK),  # a reason, not a label
        ("The answer is B (Paris)", None, st.CONTRADICTORY),
        ("The answer is Paris (B).", None, st.CONTRADICTORY),  # the text first, then its letter
        ("The answer is Paris (A).", "A", st.OK),
        ("The answer is B (because Lyon is larger)", "B", st.OK),
    ],
)
def test_letter_and_option_text_must_agree(text: str, answer: str | None, status: str) -> None:
    check(text, answer, status, CAPITALS)


@pytest.mark.parametrize(
    ("text", "answer", "status"),
    [
        ("答案是B（巴黎）", None, st.CONTRADICTORY),
        ("答案是巴黎（C）", None, st.CONTRADICTORY),
        ("答案是巴黎（A）", "A", st.OK),
        ("答案是A：巴黎", "A", st.OK),
        ("故选D. 巴黎", None, st.CONTRADICTORY),
    ],
)
def test_chinese_letter_and_option_text_must_agree(text: str, answer: str | None, status: str) -> None:
    check(text, answer, status, ("巴黎", "里昂", "马赛", "尼斯"))


BLOOD = ("A", "B", "AB", "O")
BLOOD_ODD = ("O", "A", "B", "AB")


@pytest.mark.parametrize(
    ("text", "options", "answer", "status"),
    [
        ("The answer is AB", BLOOD, "C", st.OK),
        ("AB", BLOOD, "C", st.OK),
        ("答案是AB", BLOOD, "C", st.OK),
        ("The answer is AB.", BLOOD_ODD, "D", st.OK),
        ("The answer is (C).", BLOOD, "C", st.OK),
        ("The answer is O", BLOOD, "D", st.OK),  # past no letter domain: O is only a text here
        ("The answer is A", BLOOD_ODD, None, st.CONTRADICTORY),  # letter A is O, text A is B
        ("The answer is AB", 4, None, st.CONTRADICTORY),  # no texts: two letters
    ],
)
def test_option_text_spelled_in_letters(text: str, options: Options, answer: str | None, status: str) -> None:
    check(text, answer, status, options)


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("The answer might be C. Looking again, it could be (F). Or it might be option J.", st.CONTRADICTORY),
        ("It may be A; perhaps B.", st.CONTRADICTORY),
        ("答案可能是B，也可能是D。", st.CONTRADICTORY),
        ("可能选A。或许是C。", st.CONTRADICTORY),
        ("The answer could be either A or D.", st.CONTRADICTORY),
        ("It might be C.", st.OK),
        ("The answer might be C. Having checked, the answer is F.", st.OK),  # a firm statement wins
    ],
)
def test_hedging_across_sentences(text: str, status: str) -> None:
    results = both(text, 10)
    assert [s for _, s in results] == [status, status]


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("réponse est C non A", "C"),
        ("La bonne réponse est (B).", "B"),
        ("La respuesta correcta es D", "D"),
        ("Die richtige Antwort ist A.", "A"),
        ("A resposta é C", "C"),
        (": B", "B"),
    ],
)
def test_other_languages_and_bare_fields(text: str, answer: str) -> None:
    check(text, answer, st.OK)


@pytest.mark.parametrize(
    "text",
    [
        "I think it's (B), but (C) is also plausible.",
        "The answer is B, but C is also correct.",
        "The answer is B, or maybe D.",
        "Answer: A. It could also be C.",
        "答案是B，C也正确。",
        "答案是B，也可能是D。",
    ],
)
def test_a_second_answer_offered_beside_the_stated_one_is_contradictory(text: str) -> None:
    check(text, None, st.CONTRADICTORY)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is B. Option A is also wrong.", "B"),
        ("The answer is B; B is also the most common choice.", "B"),
        ("答案是C。A也对B的结果有影响", "C"),
        ("The answer is A... no wait, it's B", "B"),  # a retraction, then a lower-tier statement
        ("Answer: C\nHold on, that's wrong. So it must be D.", "D"),
        ("答案是A。等等，不对，所以是C。", "C"),
        ("The answer is A.\n\nWait, that is wrong.\n\nTherefore, B.", "B"),  # paragraphs apart
        ("答案是A。\n\n等等，不对。\n\n所以选C。", "C"),
        ("The answer is (B).\n\nWait, let me verify: B is correct.", "B"),
    ],
)
def test_also_and_retraction_across_tiers(text: str, answer: str) -> None:
    check(text, answer, st.OK)
