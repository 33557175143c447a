"""Outputs whose answer was read wrong with status ``ok`` — the worst result the project can
give — now refused (or read right): each case class through the parser alone and through the
shipped pack's whole chain."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from normalize import Pack, load_pack
from normalize import status as st
from normalize.core.registry import ParseContext
from normalize.parsers._choice import ChoiceParams, parse_choice
from normalize.values._mathvalue import equivalent, read_value


@cache
def pack() -> Pack:
    return load_pack()


def choice_both(text: str, options: int = 4) -> list[tuple[object, str]]:
    alone = parse_choice(text, ChoiceParams(), ParseContext(options=options))
    chained = pack().run(text, "multiple_choice", options=options)
    return [(alone.answer, alone.status), (chained.answer, chained.status)]


# ------------------------------------------------- a marker's letter judged wrong, not stated


@pytest.mark.parametrize(
    "text",
    [
        "Answer: C is wrong, B is right.",
        "Answer: Option C is wrong, B is right.",
        "Answer: A is false.",
        "The answer: B is not correct, D is.",
        "Answer: (A) is ruled out because it violates the premise.",
        "Antwort: B ist falsch, richtig ist C.",
        "Réponse : A est faux.",
        "答案：A是错误的",
    ],
)
def test_a_letter_the_marker_judges_wrong_is_not_the_answer(text: str) -> None:
    assert choice_both(text) == [(None, st.NO_ANSWER)] * 2


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Answer: A is wrong. The answer is B.", "B"),
        ("**Answer: B** is incorrect; the correct one is **D**.", "D"),
        ("Answer: C is correct.", "C"),  # a verdict for it is still a statement
        ("The answer is B, not C.", "B"),
    ],
)
def test_the_letter_stated_beside_a_judged_one_stays(text: str, answer: str) -> None:
    assert choice_both(text) == [(answer, st.OK)] * 2


# ------------------------------------------------- the option list restated, no answer chosen


@pytest.mark.parametrize(
    "text",
    [
        "A) 3\nB) 4\nC) 5\nD) 6",
        "A. Paris B. London C. Berlin D. Madrid\nI believe Paris is the capital.",
        "(A) 12 (B) 15 (C) 18 (D) 21\nLet me compute the total first.",
        "A\nB",
    ],
)
def test_an_output_that_restates_the_options_states_none(text: str) -> None:
    assert choice_both(text) == [(None, st.NO_ANSWER)] * 2


@pytest.mark.parametrize(("text", "answer"), [("A) 3 is right.", "A"), ("(B) Paris", "B"), ("C. Because 5 > 4.", "C")])
def test_a_leading_letter_without_a_list_stays(text: str, answer: str) -> None:
    assert choice_both(text) == [(answer, st.OK)] * 2


# ------------------------------------------------- a math answer's negated value


def math_run(text: str, task: str = "gsm8k") -> tuple[object, str]:
    result = pack().run(text, task)
    return result.answer, result.status


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is 12, not 13.", "12"),
        ("The answer is 12 apples, not 13 apples.", "12"),
        ("The answer is 12 rather than 13.", "12"),
        ("The answer is 5, not 6 or 7.", "5"),
        ("答案是12而不是13", "12"),
        ("Die Antwort ist 15, nicht 18.", "15"),
        ("La réponse est 15 et non 18.", "15"),
        ("La respuesta es 15, no 18.", "15"),
        ("Ответ: 15, а не 18.", "15"),
        ("答えは15ではなく18です。", "18"),  # "not 15 but 18": the negation follows 15
        ("The answer is not 5, it is 6.", "6"),  # the value after the negated one stays
    ],
)
def test_a_negated_value_after_the_answer_is_not_read(text: str, answer: str) -> None:
    assert math_run(text) == (answer, st.OK)


# ------------------------------------------------- a final answer taken back for another number


@pytest.mark.parametrize(
    "text",
    [
        "The answer is 5. Wait, no: 6.",
        "The answer is 5... no wait, 6.",
        "Answer: 5 hours. Actually, 6 hours.",
        "#### 5\nWait, that is wrong: 6",
        "The final answer is $\\boxed{5}$. Wait, actually it should be 6.",
        "答案是5。等等，不对，应该是6。",
        "答案是15。不，是18。",
        "\\boxed{5}. But wait, it is 6.",  # a box taken back: was 5 with status ok
        "The answer is \\boxed{5}. Hmm, actually it should be 6.",
        "So the total is \\boxed{5}.\nWait, I made an error: it is \\boxed{6}.",
        "The answer is 5. But wait, it should be 6.",
    ],
)
def test_a_final_answer_taken_back_for_another_number_is_contradictory(text: str) -> None:
    assert math_run(text) == (None, st.CONTRADICTORY)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("So the answer is 6. Wait, let me double check: 2*3 = 6. Yes, 6.", "6"),
        ("The answer is 18. Wait, let me verify: 16 - 3 - 4 = 9 and 9 * 2 = 18.", "18"),
        ("The answer is 72.\nWait, I made a mistake. The answer is 70.", "70"),
        ("The answer is 5.\n\nNo additional steps are needed; total time 30 minutes.", "5"),
    ],
)
def test_a_check_that_ends_on_the_answer_keeps_it(text: str, answer: str) -> None:
    assert math_run(text) == (answer, st.OK)


# ------------------------------------------------- a choice taken back for a bare letter


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is (C) — no wait, (B).", "B"),
        ("The correct answer is: A. Actually, upon reflection, D.", "D"),
        ("The answer is B. Wait. D.", "D"),
        ("The answer is C. Wait, let me double-check. Yes, C.", "C"),
        ("The answer is B. Wait, I missed something about option D. Still B.", "B"),
    ],
)
def test_a_retracted_choice_gives_way_to_the_bare_letter_after_it(text: str, answer: str) -> None:
    assert choice_both(text) == [(answer, st.OK)] * 2


# ------------------------------------------------- a second answer offered with "too" / before a bracket


@pytest.mark.parametrize(
    "text",
    [
        "I'll go with B, though honestly C could be right too.",
        "The answer is B, but D is correct as well.",
        "The answer is B. A is right too if we ignore friction.",
        "正确答案：B（注意：A也对）",
        "答案：B（A也可以）",
    ],
)
def test_a_second_answer_offered_beside_the_first_is_contradictory(text: str) -> None:
    assert choice_both(text) == [(None, st.CONTRADICTORY)] * 2


# ------------------------------------------------- a second value offered on a condition


@pytest.mark.parametrize(
    "text",
    [
        "Final answer: 18 (but 20 if the discount applies)",
        "The answer is 40, unless tax is included, then 45.",
        "The answer is 12.5 but rounding gives 13.",
    ],
)
def test_a_value_offered_on_a_condition_after_the_answer_is_contradictory(text: str) -> None:
    assert math_run(text) == (None, st.CONTRADICTORY)


def test_a_solution_read_for_its_last_number_is_not_a_condition() -> None:
    assert math_run("He had 10 apples and ate 3 so he has 7 but then bought 2, total 9") == ("9", st.OK)


# ------------------------------------------------- a hyphened mixed number


@pytest.mark.parametrize("text", ["The answer is 2-1/2 cups", "Answer: 3-3/4 inches"])
def test_a_hyphened_mixed_number_is_refused_not_subtracted(text: str) -> None:
    answer, status = math_run(text)
    assert (answer, status) == (None, st.NO_ANSWER)


@pytest.mark.parametrize(("text", "answer"), [("\\boxed{2-1/2}", "3/2"), ("The answer is 5-7/3", "8/3")])
def test_a_difference_in_a_box_or_with_an_improper_fraction_stays(text: str, answer: str) -> None:
    assert math_run(text) == (answer, st.OK)


@pytest.mark.parametrize(
    ("text", "answer", "status"),
    [
        ("Answer: Paris is incorrect, it's Berlin.", "C", st.OK),
        ("Answer: London is wrong.", None, st.NO_ANSWER),
        ("Answer: Paris, not London.", "A", st.OK),
    ],
)
def test_an_option_text_the_marker_judges_wrong_is_not_the_answer(text: str, answer: str | None, status: str) -> None:
    options = ("Paris", "London", "Berlin", "Madrid")
    alone = parse_choice(text, ChoiceParams(), ParseContext(options=options))
    chained = pack().run(text, "multiple_choice", options=list(options))
    assert [(alone.answer, alone.status), (chained.answer, chained.status)] == [(answer, status)] * 2


# ------------------------------------------------- a choice taken back by "No," / "不，" / "just kidding"


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Answer: B。不，应该是C。", "C"),
        ("答案是B。不，应该是C。", "C"),
        ("Answer: B. No, it should be C.", "C"),
        ("Answer: B. No, C.", "C"),
        ("Answer: B. Just kidding, it's D.", "D"),
        ("The answer is A. Kidding, it's D.", "D"),
    ],
)
def test_a_choice_taken_back_by_a_denying_sentence_gives_way_to_the_later_one(text: str, answer: str) -> None:
    assert choice_both(text) == [(answer, st.OK)] * 2


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Answer: B. No other option fits.", "B"),
        ("Answer: B. No, A is wrong because it ignores friction.", "B"),
        ("答案：B，不是A。", "B"),
    ],
)
def test_a_no_that_denies_nothing_stated_keeps_the_answer(text: str, answer: str) -> None:
    assert choice_both(text) == [(answer, st.OK)] * 2


@pytest.mark.parametrize("text", ["The answer is 15. No, it is 18.", "答案是15。不，应该是18。"])
def test_a_math_answer_taken_back_by_a_denying_sentence_is_not_the_first(text: str) -> None:
    assert math_run(text)[0] != "15"


# ------------------------------------------------- a logarithm's base


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("\\boxed{\\log_b 8}", "\\frac{\\log{\\left(8 \\right)}}{\\log{\\left(b \\right)}}"),
        ("\\boxed{\\log_{b} 8}", "\\frac{\\log{\\left(8 \\right)}}{\\log{\\left(b \\right)}}"),
        ("The answer is $\\log_3 x$.", "\\frac{\\log{\\left(x \\right)}}{\\log{\\left(3 \\right)}}"),
        ("\\boxed{\\log_2 8}", "3"),
    ],
)
def test_a_logarithm_keeps_its_base(text: str, answer: str) -> None:
    assert math_run(text, "math") == (answer, st.OK)


def test_a_logarithm_to_a_base_is_not_the_natural_one() -> None:
    based = read_value("\\log_b 8")
    assert not equivalent(based, read_value("\\ln 8"))
    assert not equivalent(based, read_value("\\log 8"))
    assert equivalent(based, read_value("\\frac{\\ln 8}{\\ln b}"))


# ------------------------------------------------- a JSON object's answer key


@pytest.mark.parametrize(
    ("text", "task", "answer"),
    [
        ('{"answer": 12, "explanation": "but 13 is also possible"}', "gsm8k", "12"),
        ('{"answer": "12"} Note: earlier I wrote 13.', "gsm8k", "12"),
        ('{"final_answer": -3.5, "steps": ["7 / 2 = 3.5", "negate"]}', "math", "-3.5"),
        ('{"answer": "\\\\frac{1}{2}", "why": "3 of 6"}', "math", "1/2"),
        ('```json\n{"answer": 12}\n```', "gsm8k", "12"),
    ],
)
def test_a_json_answer_key_is_the_stated_answer(text: str, task: str, answer: str) -> None:
    assert math_run(text, task) == (answer, st.OK)


def test_a_json_answer_key_states_a_choice_and_leaves_a_json_task_whole() -> None:
    chosen = pack().run('{"answer": "B", "explanation": "A is wrong; C too"}', "multiple_choice", options=4)
    assert (chosen.answer, chosen.status) == ("B", st.OK)
    result = pack().run('{"answer": 12, "explanation": "x"}', "structured_json")
    assert (result.answer, result.status) == ({"answer": 12, "explanation": "x"}, st.OK)


# ------------------------------------------------- the letter x as a times sign in a stated computation


@pytest.mark.parametrize(
    "text", ["The answer is 4 x 3 = 12", "Answer: 4x3 = 12", "\\boxed{4 x 3 = 12}", "The answer is 4 × 3 = 12"]
)
def test_a_letter_x_between_numbers_in_a_computation_is_a_times_sign(text: str) -> None:
    assert math_run(text) == ("12", st.OK)


@pytest.mark.parametrize(("text", "answer"), [("The answer is 2 x + 3 = 12", "2 x + 3 = 12"), ("The answer is 4 x 3", None)])
def test_an_x_that_is_no_times_sign_between_numbers_stays_a_name(text: str, answer: str | None) -> None:
    assert math_run(text)[0] == answer


@pytest.mark.parametrize("text", ['{"answer": [1, 2]}', '{"answer": "12 or 13"}', '{"answer": "12 or 13", "why": "x"}'])
def test_a_json_answer_key_that_states_no_single_value_is_refused(text: str) -> None:
    answer, status = math_run(text, "gsm8k")
    assert answer is None and status != st.OK


# ------------------------------------------------- one quantity stated in two units


@pytest.mark.parametrize(
    "text",
    [
        "The answer is 1.5 kg (1500 g).",
        "The answer is 42 minutes, which is 0.7 hours.",
        "So she needs 3 hours, or 180 minutes.",
        "Final answer: 90 minutes = 1.5 hours",
        "The answer is 3 m (300 cm)",
        "The answer is $5, which is 500 cents.",
        "The answer is 5 feet (60 inches) tall.",
        "\\boxed{1.5 \\text{ kg} (1500 \\text{ g})}",
        "答案是1.5千克（1500克）",
        "We convert: 0.6 ft/sec is 180 ft/hr (since 1 ft = 30.48 cm)",
    ],
)
def test_a_quantity_restated_in_another_unit_is_refused(text: str) -> None:
    """Which of the two numbers a unitless gold names is not certain: 1.5 or 1500."""
    answer, status = math_run(text, "gsm8k")
    assert (answer, status) == (None, st.NO_ANSWER)
    assert "two units" in str(pack().run(text, "gsm8k").reason)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is 2 dozen, i.e. 24 eggs.", "24"),  # dozen: a magnitude, not a unit
        ("The answer is 50% of 80, which is 40.", "40"),
        ("3 hours * 60 = 180 minutes", "180"),  # a computation, not a gloss
        ("It took 2 hours (120 minutes) to get there, and the ticket cost 15 dollars.", "15"),
        ("The answer is 12 kg.", "12"),
        ("The answer is 36 km/h.", "36"),  # a rate after a number: its unit
        ("The answer is 10 m/s.", "10"),
        ("The answer is 5 miles per hour", "5"),
        ("The answer is \\boxed{60 \\text{ km/h}}", "60"),
    ],
)
def test_one_quantity_in_one_unit_keeps_its_number(text: str, answer: str) -> None:
    assert math_run(text, "gsm8k") == (answer, st.OK)


@pytest.mark.parametrize(
    "text",
    [
        "The answer is 10 m/s (36 km/h).",
        "The answer is 5 cm \\times 3 cm",
        "The answer is 4 kg + 3",
        "$\\{35 cm, 4\\}$",
    ],
)
def test_a_number_with_its_unit_inside_an_expression_is_not_a_product_of_variables(text: str) -> None:
    """``1.5 kg (1500 g)`` was ``2250 g^{2} k`` with status ``ok``: the unit's letters read as variables."""
    answer, status = math_run(text, "gsm8k")
    assert (answer, status) == (None, st.NO_ANSWER)


def test_the_number_parser_refuses_a_restated_quantity_too() -> None:
    from normalize.parsers._number import NumberParams, parse_number

    got = parse_number("The answer is 42 minutes, which is 0.7 hours.", NumberParams(), ParseContext())
    assert (got.answer, got.status) == (None, st.NO_ANSWER) and "two units" in str(got.reason)
    assert parse_number("The answer is 42 minutes.", NumberParams(), ParseContext()).answer == "42"


# ------------------------------------------------- a value with another in brackets after it


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is 25% (0.25).", "25%"),  # was 0.0625: read as a product
        ("The answer is 0.25 (25%).", "0.25"),
        ("The answer is 1/4 (0.25)", "1/4"),  # was 1/16
        ("The answer is 8 (5 + 3).", "8"),  # was 64
        ("The answer is 1/3 (0.33)", "1/3"),  # to the restatement's written precision
        ("The answer is -5°C.", "-5"),  # was (-1) 5 C: the scale a unit, not a variable
        ("The answer is 37^\\circ C", "37"),
        ("\\boxed{2(3+4)}", "14"),  # no space: a product, as written in mathematics
    ],
)
def test_a_value_restated_in_brackets_keeps_the_value(text: str, answer: str) -> None:
    assert math_run(text) == (answer, st.OK)


@pytest.mark.parametrize("text", ["The answer is 1/4 (0.5)", "The answer is 3 (4)", "The answer is 98.6°F (37°C)."])
def test_a_value_with_a_different_one_in_brackets_is_refused(text: str) -> None:
    assert math_run(text) == (None, st.NO_ANSWER)


# ------------------------------------------------- a stated answer, then its justification


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is 18 dollars because she sells 9 eggs at $2 each.", "18"),  # was 2
        ("The answer is 24 (she had 20 and got 4 more).", "24"),  # was 4
        ("Answer: 100 dollars (after the 20% discount of 25 dollars)", "100"),  # was 25
        ("The answer is 12 pieces (each 3 cm).", "12"),  # was 3
        ("The answer is 7 cookies per box (28 cookies in 4 boxes).", "7"),  # was 4
        ("The answer is 5 apples (3 red and 2 green).", "5"),
        ("#### 18 (9 eggs at $2)", "18"),
        ("The final answer is 42 (rounded to the nearest whole number: 41.7).", "42"),
        ("The answer is $18 because 9 x 2 = 18", "18"),
        ("答案是18，因为9乘2等于18", "18"),
        ("The answer is 18, since 9 * 2 = 18.", "18"),
    ],
)
def test_a_stated_answer_is_not_a_number_of_its_justification(text: str, answer: str) -> None:
    assert math_run(text) == (answer, st.OK)


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("The answer is 12 (or possibly 15)", st.CONTRADICTORY),  # a hedge, not a justification
        ("The answer is 18 (but 20 if the discount applies)", st.CONTRADICTORY),
        ("The answer is 15 (or 16 if we count the teacher).", st.NO_ANSWER),
        ("The answer is 10 (apples) and 5 (oranges).", st.NO_ANSWER),  # two values, each with its noun
    ],
)
def test_a_bracket_that_offers_another_value_is_no_justification(text: str, status: str) -> None:
    assert math_run(text) == (None, status)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("\\boxed{B}. But wait, it is C.", "C"),  # was B with status ok: the box taken back
        ("\\boxed{B}\n\nWait, actually the answer is C.", "C"),
        ("\\boxed{B}. Hmm, on second thought, C.", "C"),
        ("The answer is \\boxed{B}. Wait, let me double check. Yes, B.", "B"),
    ],
)
def test_a_box_taken_back_gives_way_to_the_correction(text: str, answer: str) -> None:
    assert choice_both(text)[1] == (answer, st.OK)


# ------------------------------------------------- a stated answer, then its rounding


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is 1/3, approximately 0.33.", "1/3"),  # was 0.33: a gold of 1/3 scored wrong
        ("The answer is 2/3, which is about 0.67.", "2/3"),
        ("The answer is $2\\sqrt{3}$, or about 3.46.", "2 \\sqrt{3}"),
        ("The answer is 1/6, or about 16.7%.", "1/6"),
    ],
)
def test_a_value_followed_by_its_rounding_is_the_value(text: str, answer: str) -> None:
    assert math_run(text, "math500") == (answer, st.OK)


def test_a_value_followed_by_another_that_does_not_round_it_is_contradictory() -> None:
    assert math_run("The answer is 5, or about 7.", "math500") == (None, st.CONTRADICTORY)


# ------------------------------------------------- a repeating decimal


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is 0.333...", "1/3"),  # was 0.333: a gold of 1/3 scored wrong
        ("The answer is 0.1666…", "1/6"),
        ("The answer is 0.33...", "1/3"),
        ("\\boxed{0.\\overline{6}}", "2/3"),
        ("The answer is $1.\\overline{142857}$", "8/7"),
        ("The answer is 2.5...", "2.5"),  # a pause after a short decimal: as written
    ],
)
def test_a_repeating_decimal_is_its_exact_value(text: str, answer: str) -> None:
    assert math_run(text, "math500") == (answer, st.OK)


@pytest.mark.parametrize("text", ["The answer is 3.14159...", "The answer is 0.6667..."])
def test_a_decimal_that_trails_off_is_no_exact_value(text: str) -> None:
    assert math_run(text, "math500") == (None, st.NO_ANSWER)


# ------------------------------------------------- a closing remark after an unmarked solution


@pytest.mark.parametrize(
    "text",
    [
        "She sells 16 - 3 - 4 = 9 eggs.\nSo Janet makes 9 * 2 = $18 per day.\n(Note: this assumes 7 days a week.)",
        "She sells 9 eggs at $2 each.\nTotal = 18.\n\nI hope this helps! Let me know if you have any other "
        "questions about problem 2.",
    ],
)
def test_a_closing_remark_is_not_where_the_answer_is(text: str) -> None:
    assert math_run(text) == ("18", st.OK)  # was 7 and 2 with status ok


def test_a_note_that_goes_on_with_the_solution_stays_part_of_it() -> None:
    assert math_run("She has 5 apples (note: 2 were eaten). Then she buys 3 more, so 8.") == ("8", st.OK)


# ------------------------------------------------- a second option offered as also right


@pytest.mark.parametrize(
    "text",
    [
        "The answer is B, though C could also be correct.",
        "The answer is B (C is also plausible).",
        "Answer: B. However, C might also be right.",
        "我认为答案是B，但C也有可能。",
        "Die Antwort ist B, aber C ist auch möglich.",
        "La réponse est B, mais C est aussi possible.",
        "La respuesta es B, aunque C también es posible.",
    ],
)
def test_a_second_option_offered_as_also_right_is_contradictory(text: str) -> None:
    assert choice_both(text)[1] == (None, st.CONTRADICTORY)  # each was B with status ok


def test_an_option_called_tempting_but_wrong_leaves_the_answer() -> None:
    assert choice_both("The answer is B. C might also be tempting, but it is wrong.")[1] == ("B", st.OK)


# ------------------------------------------------- an alternative offered beside the stated option (redteam4)


@pytest.mark.parametrize(
    "text",
    [
        "The answer is B (or D).",
        "Answer: B, or D if we count leap years.",
        "The answer is B, perhaps D.",
        "Answer: B (maybe D)",
        "B... or maybe D",
        "答案是B（或D）",
        "答案：B，或者D",
        "答案：B，也许D",
        "Die Antwort ist B oder vielleicht D.",
        "La réponse est B, ou peut-être D.",
        "La respuesta es B, o tal vez D.",
        "A resposta é B (ou D).",
        "La risposta è B, o forse D.",
        "Die Antwort ist B (oder D).",
        "La réponse est B (ou D).",
        "La respuesta es B (o D).",
        "The answer is B; alternatively, D.",
        "The answer is B. Alternatively, it could be D.",
        "The answer is B/D depending on interpretation.",
        "The answer is B. D is also a strong candidate.",
    ],
)
def test_an_alternative_offered_beside_the_option_is_contradictory(text: str) -> None:
    assert choice_both(text) == [(None, st.CONTRADICTORY)] * 2  # each was B (or D) with status ok


@pytest.mark.parametrize(
    "text",
    ["Berlin, or maybe Madrid", "The answer is Berlin (or Madrid).", "The answer is Berlin, or possibly Madrid."],
)
def test_an_alternative_option_text_is_contradictory(text: str) -> None:
    options = ("Paris", "London", "Berlin", "Madrid")
    alone = parse_choice(text, ChoiceParams(), ParseContext(options=options))
    chained = pack().run(text, "multiple_choice", options=list(options))
    assert [(alone.answer, alone.status), (chained.answer, chained.status)] == [(None, st.CONTRADICTORY)] * 2


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is B, or rather D.", "B"),  # no second letter read: unchanged
        ("Answer: B, perhaps surprisingly.", "B"),
        ("The answer is B (perhaps the most common choice).", "B"),
        ("The answer is B, or in short, B.", "B"),
        ("Or maybe D.", "D"),  # a lone hedge offers no alternative to anything
        ("It might be D.", "D"),
        ("The answer is B. Alternatively, A can be ruled out since it is slow.", "B"),
        ("La respuesta es B, o sea, la segunda.", "B"),
        ("Answer: B (option two)", "B"),
    ],
)
def test_a_hedge_word_beside_one_option_keeps_it(text: str, answer: str) -> None:
    assert choice_both(text) == [(answer, st.OK)] * 2


# ------------------------------------------------- the other branch of a conditional answer (redteam4)


@pytest.mark.parametrize(
    "text",
    [
        "The answer is B if we assume x>0, otherwise C.",
        "If x > 0, the answer is B; otherwise it is C.",
        "Answer: B if the loan is annual, else C.",
        "如果是闰年，答案是B，否则是C。",
        "若x>0则答案为B，否则为C",
    ],
)
def test_an_answer_with_an_otherwise_branch_is_contradictory(text: str) -> None:
    assert choice_both(text) == [(None, st.CONTRADICTORY)] * 2  # each was B with status ok


@pytest.mark.parametrize(
    "text",
    [
        "The answer is B; otherwise it would be C.",  # what would follow were it not so: a reason
        "答案是B，否则不成立。",
        "The answer is B, otherwise we have a contradiction.",
    ],
)
def test_an_otherwise_that_gives_a_reason_keeps_the_answer(text: str) -> None:
    assert choice_both(text) == [("B", st.OK)] * 2


# ------------------------------------------------- the option list restated after a marker (redteam4)


@pytest.mark.parametrize(
    "text",
    [
        "Answer: A) True B) False",
        "Answer: A. True B. False C. Unknown D. None",
        "Answer:\nA) 12\nB) 42\nC) 7\nD) 9",
        "The answer is: (A) 12 (B) 42 (C) 7 (D) 9",
        "答案：A. 12 B. 42 C. 7 D. 9",
        "Answer: a) 12 b) 42 c) 7 d) 9",
    ],
)
def test_an_option_list_restated_after_a_marker_states_no_answer(text: str) -> None:
    assert choice_both(text) == [(None, st.NO_ANSWER)] * 2  # each was A with status ok


@pytest.mark.parametrize(
    "text",
    [
        "Answer: A) True",
        "Answer: (A). (B) is wrong.",
        "The answer is (A) 12. (B) 42 is too large.",
        "The answer is (A) because (B) fails.",
        "Answer: A\nB) is wrong because x.",
    ],
)
def test_a_marker_letter_with_other_labels_in_its_reasoning_stays(text: str) -> None:
    assert choice_both(text) == [("A", st.OK)] * 2


def test_an_option_list_restated_with_option_texts_states_no_answer() -> None:
    options = ("12", "42", "7", "9")
    text = "Answer: A) 12 B) 42 C) 7 D) 9"
    alone = parse_choice(text, ChoiceParams(), ParseContext(options=options))
    chained = pack().run(text, "multiple_choice", options=list(options))
    assert [(alone.answer, alone.status), (chained.answer, chained.status)] == [(None, st.NO_ANSWER)] * 2


# ------------------------------------------------- a JSON answer after a format example, a JSON alternative (redteam4)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('Example format: {"answer": "..."}\nMy answer: {"answer": "Paris"}', {"answer": "Paris"}),
        ('The schema is {"name": "string"}. Here is my answer: {"name": "Alice"}', {"name": "Alice"}),
        ('格式：{"answer": "..."}\n我的答案：{"answer": "巴黎"}', {"answer": "巴黎"}),
    ],
)
def test_a_json_value_introduced_as_my_answer_is_the_answer(text: str, value: dict[str, str]) -> None:
    result = pack().run(text, "structured_json")  # each was the format example with status ok
    assert (result.answer, result.status) == (value, st.OK)


@pytest.mark.parametrize(
    "text",
    [
        '{"x": 1}\n\nNote: if you prefer, {"x": 2} also works.',
        '{"x": 1}\nYou could also write {"x": 2}.',
        '{"x": 1}\nIf you\'d rather keep strings: {"x": "1"}',
        'My answer: {"a": 1}\nAlternatively {"a": 2}',
    ],
)
def test_a_json_value_offered_as_another_choice_is_contradictory(text: str) -> None:
    result = pack().run(text, "structured_json")  # each but the last was the first value with status ok
    assert (result.answer, result.status) == (None, st.CONTRADICTORY)


_STATE_LEADS = ("The answer is ", "Answer: ", "答案是", "Die Antwort ist ", "La réponse est ", "La respuesta es ", "")
_ALTERNATIVE_JOINS = (
    " (or {y})", ", or {y}", " (maybe {y})", ", perhaps {y}", "... or maybe {y}", "（或{y}）", "，或者{y}",
    " oder vielleicht {y}", " (ou {y})", ", o tal vez {y}", "; alternatively, {y}", "/{y} depending on the reading",
    " if x > 0, otherwise {y}", "，否则是{y}",
)


@given(
    hs.sampled_from(_STATE_LEADS),
    hs.sampled_from([(x, y) for x in "ABCD" for y in "ABCD" if x != y]),
    hs.sampled_from(_ALTERNATIVE_JOINS),
    hs.sampled_from(("", ".", "。")),
)
@settings(max_examples=150, deadline=None, derandomize=True)
def test_an_option_offered_with_another_is_never_one_of_them_ok(lead: str, pair: tuple[str, str], join: str, stop: str) -> None:
    text = lead + pair[0] + join.format(y=pair[1]) + stop
    assert all(status != st.OK for _, status in choice_both(text)), text


# ------------------------------------------------- an option text with a disagreeing "(option X)" label (redteam4)


@pytest.mark.parametrize(
    ("text", "answer", "status"),
    [
        ("The answer is 42 (option A).", None, st.CONTRADICTORY),  # was B with status ok
        ("The answer is 42 (Choice D).", None, st.CONTRADICTORY),
        ("The answer is 42 (option B).", "B", st.OK),
    ],
)
def test_an_option_text_and_its_option_label_must_agree(text: str, answer: str | None, status: str) -> None:
    options = ("12", "42", "7", "9")
    alone = parse_choice(text, ChoiceParams(), ParseContext(options=options))
    chained = pack().run(text, "multiple_choice", options=list(options))
    assert [(alone.answer, alone.status), (chained.answer, chained.status)] == [(answer, status)] * 2


# ------------------------------------------------- a marker that opens a description of the options (redteam4)


@pytest.mark.parametrize(
    ("text", "answer", "status"),
    [
        ("Answer: Option A says x, option B says y.", None, st.NO_ANSWER),  # was A with status ok
        ("答案：选项A说的是x，选项B说的是y，正确的是B", "B", st.OK),  # was A with status ok
        ("Answer: A, as the passage says.", "A", st.OK),
        ("答案：A，因为题目说x", "A", st.OK),
    ],
)
def test_a_marker_letter_that_a_describing_verb_follows_is_not_stated(text: str, answer: str | None, status: str) -> None:
    assert choice_both(text) == [(answer, status)] * 2


# ------------------------------------------------- an abstention read as a QA answer


@pytest.mark.parametrize("text", ["I cannot answer this question based on the context.", "I cannot answer that question.",
                                  "回答：わかりません", "答え：わかりません。"])
def test_a_refusal_to_answer_is_no_extractive_answer(text: str) -> None:
    result = pack().run(text, "squad")
    assert (result.answer, result.status) == (None, st.ABSTAINED)  # the first and third were ok text


@pytest.mark.parametrize("text", ["回答：東京", "I cannot answer this question, but Paris is likely."])
def test_an_answer_beside_a_refusal_word_stays_an_answer(text: str) -> None:
    assert pack().run(text, "squad").status == st.OK


# ------------------------------------------------- an extractive answer taken back


@pytest.mark.parametrize("text", ["Answer: Paris. Wait, no, London.", "答案：巴黎。不，应该是伦敦。",
                                  "The answer is Paris, because it is the capital. Wait, no, Lyon."])
def test_an_extractive_answer_taken_back_for_another_is_contradictory(text: str) -> None:
    result = pack().run(text, "squad")
    assert (result.answer, result.status) == (None, st.CONTRADICTORY)  # each was ok, both names in its text


@pytest.mark.parametrize(("text", "answer"), [("Answer: Paris. Wait, let me double-check. Yes, Paris.", "Paris"),
                                              ("Answer: Wait Until Dark", "Wait Until Dark"),
                                              ("Answer: The film Wait Until Dark", "The film Wait Until Dark")])
def test_an_extractive_answer_confirmed_or_titled_wait_stays(text: str, answer: str) -> None:
    assert pack().run(text, "squad").answer == answer
# ------------------------------------------------- third red-team (math): an assumption or circumstance after the answer


@pytest.mark.parametrize(
    "text",
    [
        "The answer is 18, assuming 9 eggs.",  # each was 9 (or 2) with status ok
        "The answer is 18, given 9 eggs.",
        "The answer is 18, provided she sells 9 eggs.",
        "The answer is 18, based on 9 eggs at $2.",
        "The answer is 18, considering 9 eggs.",
        "The answer is 18 assuming 9 eggs.",
        "The answer is 18. (Assuming she sells all 9 eggs.)",
        "Final Answer: The final answer is 18, assuming 9 eggs. I hope it is correct.",
        "The answer is 18, where 9 is the number of eggs.",
        "The answer is 18 dollars per day for 9 eggs.",
        "The answer is 18 dollars from selling 9 eggs.",
        "The answer is 18 dollars when she sells 9 eggs.",
        "The answer is 18 after 3 days.",
        "答案是18，假设每个2元。",
        "Die Antwort ist 18, weil sie 9 Eier verkauft.",
        "Die Antwort ist 18, da sie 9 Eier verkauft.",
        "Die Antwort ist 18, vorausgesetzt 9 Eier.",
        "La réponse est 18, car elle vend 9 œufs.",
        "La réponse est 18 parce qu'elle vend 9 œufs.",
        "La réponse est 18, en supposant 9 œufs.",
        "La respuesta es 18 porque vende 9 huevos.",
        "La respuesta es 18, ya que vende 9 huevos.",
        "Ответ: 18, потому что она продаёт 9 яиц.",
        "Ответ: 18, так как 9 яиц.",
    ],
)
def test_a_stated_answer_is_not_a_number_of_its_assumption_or_circumstances(text: str) -> None:
    assert math_run(text) == ("18", st.OK)


@pytest.mark.parametrize(
    ("text", "answer", "status"),
    [
        ("The answer is 18 for Tom and 20 for Mary.", None, st.NO_ANSWER),  # two values, each for someone
        ("The answer is 12 by 5 feet.", None, st.NO_ANSWER),  # a size, not a reason
        ("The answer is 18, assuming 9 eggs; otherwise 20.", None, st.CONTRADICTORY),
        ("Ответ: 18, если 9 яиц.", None, st.CONTRADICTORY),  # a condition, as "18, if 9 eggs" is
        ("Die Antwort ist 18, wenn 9 Eier.", None, st.CONTRADICTORY),
    ],
)
def test_circumstances_that_state_another_value_are_no_justification(text: str, answer: str | None, status: str) -> None:
    assert math_run(text) == (answer, status)


# ------------------------------------------------- a quotient and its remainder


@pytest.mark.parametrize(
    "text",
    [
        "The answer is 18 remainder 2.",  # each was 2 with status ok
        "The answer is 18 r2.",
        "The answer is 18 with a remainder of 2.",
        "The answer is 18, with 2 left over.",
        "The answer is 18 boxes with 2 cookies left over.",
        "The answer is 18 with 2 remaining.",
        "答案是18余2",
        "答案是18，余2个",
    ],
)
def test_a_quotient_and_its_remainder_is_refused(text: str) -> None:
    result = pack().run(text, "gsm8k")
    assert (result.answer, result.status) == (None, st.NO_ANSWER)
    assert "remainder" in str(result.reason)


@pytest.mark.parametrize(("text", "answer"), [("The answer is 18 (remainder 2).", "18"), ("The answer is 18 boxes.", "18")])
def test_a_remainder_in_brackets_or_none_keeps_the_answer(text: str, answer: str) -> None:
    assert math_run(text) == (answer, st.OK)


# ------------------------------------------------- a dash written as a minus sign


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is \u20135.", "-5"),  # en dash: each was 5 with status ok
        ("Answer: \u20135", "-5"),
        ("\\boxed{\u20135}", "-5"),
        ("The answer is \u2013$5.", "-5"),
        ("The answer is \u20135 degrees.", "-5"),
        ("答案是\u20125", "-5"),  # figure dash
        ("The temperature falls from 5 to \u20133 degrees.", "-3"),
        ("It rose 3\u20135 degrees, so the answer is 4.", "4"),  # a range's dash is no sign
    ],
)
def test_a_dash_where_a_minus_sign_goes_is_one(text: str, answer: str) -> None:
    assert math_run(text) == (answer, st.OK)


@pytest.mark.parametrize(
    ("text", "task", "answer"),
    [("The answer is (\u20133, 4).", "math500", "(-3, 4)"), ("The answer is x = \u20132.", "math500", "-2")],
)
def test_a_dash_as_a_minus_sign_inside_mathematics(text: str, task: str, answer: str) -> None:
    assert math_run(text, task) == (answer, st.OK)


def test_an_em_dash_before_the_number_is_refused() -> None:
    result = pack().run("The answer is \u20145.", "gsm8k")
    assert (result.answer, result.status) == (None, st.NO_ANSWER) and "em dash" in str(result.reason)


def test_a_range_with_an_en_dash_is_still_no_value() -> None:
    assert math_run("The answer is 5\u20133.") == (None, st.NO_ANSWER)


# ------------------------------------------------- "or" and hedges in other languages


@pytest.mark.parametrize(
    ("text", "answer", "status"),
    [
        ("Ответ: 15 или 16.", "\\{15, 16\\}", st.OK),  # was 16 with status ok; as "15 or 16" reads
        ("Die Antwort ist 15 oder 16.", "\\{15, 16\\}", st.OK),
        ("La réponse est 2 ou 3.", "\\{2, 3\\}", st.OK),
        ("Die Antwort ist 15 oder vielleicht 16.", None, st.CONTRADICTORY),  # was 16
        ("La réponse est 2 ou 3 peut-être.", None, st.CONTRADICTORY),  # was 3
        ("Ответ: 15, возможно 16.", None, st.CONTRADICTORY),  # was 16
        ("答案是15，可能是16", None, st.CONTRADICTORY),  # was 16
        ("The answer is 15 or 16.", "\\{15, 16\\}", st.OK),
    ],
)
def test_or_and_a_hedge_read_alike_in_every_language(text: str, answer: str | None, status: str) -> None:
    assert math_run(text) == (answer, status)


# ------------------------------------------------- an abbreviation's period before the number


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is approx. 18.", "18"),  # was \text{approx} with status ok: the period ended it
        ("The answer is ca. 18.", "18"),
        ("Die Antwort ist ca. 18 Euro.", "18"),
        ("The answer is Rs. 12.", "12"),  # was \text{Rs}
        ("The answer is Rs.12.", "12"),  # was 0.12: the period read as a decimal point
        ("Answer: Rs.1,200", "1200"),
        ("The answer is Rs 12.", "12"),
        ("She paid Rs.12 for 3 pens. So each pen costs Rs.4.", "4"),
        ("The answer is approx. 18 km.", "18"),
    ],
)
def test_an_abbreviation_before_the_number_neither_ends_the_answer_nor_makes_a_decimal(text: str, answer: str) -> None:
    assert math_run(text) == (answer, st.OK)


# ------------------------------------------------- a function name that is a unit


@pytest.mark.parametrize(
    ("text", "task", "answer"),
    [
        ("The answer is 90 min.", "gsm8k", "90"),  # was 90 i m n with status ok
        ("\\boxed{90 min}", "gsm8k", "90"),
        ("The answer is 3 sec.", "gsm8k", "3"),  # was 3 e c s
        ("\\boxed{\\min(3, 5)}", "math500", "3"),  # a function with its argument stays one
        ("The answer is 2 \\sec x", "math500", "2 \\sec{\\left(x \\right)}"),
    ],
)
def test_min_and_sec_after_a_number_are_units(text: str, task: str, answer: str) -> None:
    assert math_run(text, task) == (answer, st.OK)


@pytest.mark.parametrize("text", ["The answer is 18‰.", "Answer: 5 ‰", "The answer is 3‱"])
def test_a_per_mille_value_is_refused_not_read_without_its_sign(text: str) -> None:
    assert math_run(text) == (None, st.NO_ANSWER)  # 18‰ was 18 with status ok


# ------------------------------------------------- answers labelled as parts of the question


@pytest.mark.parametrize(
    "text",
    [
        "(a) 12 (b) 15",  # was a·12 b·15 with status ok
        "(a) 12, (b) 15",
        "a) 12 b) 15",
        "The answer is (a) 12 and (b) 15.",
        "答案是：(1) 12；(2) 15",  # was {13, 17}
        "(i) 12 (ii) 15",
        "(1) 12 (2) 15",  # was 30
        "The answer is (a) 12.",
        "The answer is (1) 12.",  # was 13
    ],
)
def test_answers_labelled_as_parts_are_refused(text: str) -> None:
    assert math_run(text, "math500") == (None, st.NO_ANSWER)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is \\boxed{(1, 2)}.", "(1, 2)"),
        ("The answer is (1) + (2) = 3.", "3"),
        ("The answer is (0, 1) \\cup (2, 3).", "(0, 1) \\cup (2, 3)"),
    ],
)
def test_brackets_that_are_no_part_labels_stay(text: str, answer: str) -> None:
    assert math_run(text, "math500") == (answer, st.OK)


# ------------------------------------------------- a factorial before "="


@pytest.mark.parametrize(
    ("text", "answer"),
    [("The answer is 10! = 3628800.", "3628800"), ("The answer is 5! = 120.", "120"), ("The answer is 5!", "5")],
)
def test_a_factorial_before_an_equals_sign_does_not_end_the_answer(text: str, answer: str) -> None:
    assert math_run(text, "math500") == (answer, st.OK)  # 10! = 3628800 was 10 with status ok


# ------------------------------------------------- properties of the third red-team's classes


_REASONS = [
    "assuming", "given", "provided", "based on", "considering", "because", "since", "for", "from", "after",
    "where", "when",
]
_FOREIGN_REASONS = [
    ("Die Antwort ist", "weil"), ("Die Antwort ist", "da"), ("La réponse est", "car"), ("La réponse est", "parce que"),
    ("La respuesta es", "porque"), ("La respuesta es", "ya que"), ("Ответ:", "потому что"), ("Ответ:", "так как"),
]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    answer=hs.integers(1, 99999),
    other=hs.integers(1, 999),
    reason=hs.sampled_from(_REASONS),
    unit=hs.sampled_from(["", " dollars", " eggs", " km"]),
    comma=hs.booleans(),
)
def test_property_the_number_of_an_assumption_is_never_the_answer(
    answer: int, other: int, reason: str, unit: str, comma: bool
) -> None:
    text = f"The answer is {answer}{unit}{',' if comma else ''} {reason} {other} eggs were sold."
    assert math_run(text) == (str(answer), st.OK)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(answer=hs.integers(1, 99999), other=hs.integers(1, 999), marker=hs.sampled_from(_FOREIGN_REASONS))
def test_property_a_reason_in_another_language_is_never_the_answer(answer: int, other: int, marker: tuple[str, str]) -> None:
    lead, reason = marker
    assert math_run(f"{lead} {answer}, {reason} {other} x.") == (str(answer), st.OK)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    value=hs.integers(1, 10**6),
    dash=hs.sampled_from(["\u2013", "\u2012", "\u2010", "\uff0d"]),
    form=hs.sampled_from(["The answer is {}.", "Answer: {}", "\\boxed{{{}}}", "#### {}"]),
)
def test_property_a_dash_before_the_answer_is_its_sign(value: int, dash: str, form: str) -> None:
    assert math_run(form.format(dash + str(value))) == (str(-value), st.OK)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(quotient=hs.integers(1, 9999), remainder=hs.integers(1, 99), noun=hs.sampled_from(["", " boxes"]))
def test_property_a_quotient_with_its_remainder_is_never_read_as_one(quotient: int, remainder: int, noun: str) -> None:
    for text in (f"The answer is {quotient}{noun} with {remainder} left over.", f"The answer is {quotient} remainder {remainder}."):
        assert math_run(text) == (None, st.NO_ANSWER)


# ------------------------------------------------- a check after the answer that concludes another number


@pytest.mark.parametrize(
    "text",
    [
        "The answer is 18.\n\nLet me verify: 16 - 3 - 4 = 9 eggs, and 9 * 2 = 18. So she makes 20.",  # was 18
        "The final answer is $\\boxed{5}$. Let me verify: 2*5+3 = 13. So the answer is 6.",  # was 5
        "\\boxed{18}\n\nDouble-check: 10 eggs at $2. Therefore she earns 20 dollars.",
    ],
)
def test_a_check_that_concludes_another_number_is_contradictory(text: str) -> None:
    assert math_run(text) == (None, st.CONTRADICTORY)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is 18.\n\nLet me verify: 16 - 3 - 4 = 9 eggs, and 9 * 2 = 18. So she makes 18.", "18"),
        ("The answer is 18.\n\nLet me verify: 9 * 2 = 18. Also 20 - 2 = 18. Check: 16 - 3 - 4 = 9.", "18"),
        ("\\boxed{5}\n\nLet me check: 2(5) + 3 = 13. So 13 = 13, correct.", "5"),  # an equation that holds
        ("Ответ: 72.\nПроверка: 24 в мае.", "72"),  # no conclusion
        ("\\boxed{18}\n\nTo verify: 9 eggs times $2 is $18. Correct!", "18"),
    ],
)
def test_a_check_that_confirms_or_concludes_nothing_keeps_the_answer(text: str, answer: str) -> None:
    assert math_run(text) == (answer, st.OK)


# ------------------------------------------------- one rate stated per two units of time


@pytest.mark.parametrize(
    "text",
    [
        "The answer is 18 per day, or 126 per week.",  # was 126 with status ok
        "The answer is 18 dollars per day, or 126 dollars per week.",
        "The answer is $18 a day (126 a week).",
        "The answer is 60 miles per hour, or 1 mile per minute.",
    ],
)
def test_a_rate_restated_per_another_unit_of_time_is_refused(text: str) -> None:
    result = pack().run(text, "gsm8k")
    assert (result.answer, result.status) == (None, st.NO_ANSWER) and "rate" in str(result.reason)


@pytest.mark.parametrize(("text", "answer"), [("The answer is 18 per day.", "18"), ("The answer is 18 per day, or 18 per day.", "18")])
def test_one_rate_keeps_its_number(text: str, answer: str) -> None:
    assert math_run(text) == (answer, st.OK)


# ------------------------------------------------- a refused statement read again under a guessed language


@pytest.mark.parametrize("task", ["math", "math500"])
def test_a_refused_statement_is_not_read_again_under_a_guessed_language(task: str) -> None:
    """``Final answer: A 0.00`` is refused (a number after a name); re-read as Spanish it was 0 ok."""
    result = pack().run("Final answer: A 0.00", task)
    assert result.status != st.OK and "lang_guessed" not in result.extra


def test_a_statement_only_another_language_marks_is_still_found() -> None:
    result = pack().run("Ответ: 72.\nПроверка: 24 в мае.", "gsm8k")
    assert (result.answer, result.extra.get("lang_guessed")) == ("72", True)
