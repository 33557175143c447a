"""Extractive QA as models really state it (issue 10): conflicting marked answers, an answer
followed by its justification, escaped line breaks before a marker."""

from __future__ import annotations

from functools import cache

import pytest

from normalize import Pack, load_pack
from normalize import status as st
from normalize.rules._extract_params import AnswerMarkerParams
from normalize.rules.extract_markers import extract_answer_marker

TIERS = (("final answer:",), ("answer:", "the answer is", "答案是", "答案："))


@cache
def pack() -> Pack:
    return load_pack()


def qa(text: str) -> tuple[object, str]:
    result = pack().run(text, "extractive_qa")
    return result.answer, result.status


@pytest.mark.parametrize(
    "text",
    [
        "Answer: Paris\nAnswer: Lyon",
        "The answer is Paris. Thinking again about the passage, the answer is Lyon.",
        "Answer: 1912\n\nAnswer: 1913",
        "答案：北京\n答案：上海",
        "答案是李白。再读一遍原文，答案是杜甫。",
        "Answer: the Nile\nSome say Answer: the Amazon",
    ],
)
def test_two_different_marked_answers_are_contradictory(text: str) -> None:
    answer, status = qa(text)
    assert (answer, status) == (None, st.CONTRADICTORY)
    assert "different answers" in (pack().run(text, "extractive_qa").reason or "")


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Answer: Paris\nAnswer: **paris**.", "paris."),  # the same answer twice (the last kept)
        ("Answer: The answer is Paris", "Paris"),  # one statement with two markers
        ("Answer: Paris\nWait, that is wrong.\nAnswer: Lyon", "Lyon"),  # retracted
        ("答案：北京\n等等，不对。\n答案：上海", "上海"),
        ("答案是北京。答案是北京。", "北京。"),
        ("The answer is not Lyon. The answer is Paris.", "Paris."),  # a negation states no answer
        ("答案不是上海。答案是北京", "北京"),
    ],
)
def test_one_marked_answer_however_often_stated(text: str, answer: str) -> None:
    assert qa(text) == (answer, st.OK)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("So the answer is No, because the last speaker lies.", "No"),
        ("The answer is Yes, since both statements hold.", "Yes"),
        ("Answer: Marie Curie, because she won in both physics and chemistry.", "Marie Curie"),
        ("Answer: Paris. It is the capital of France.", "Paris"),
        ("Answer: 1776\nExplanation: the Declaration was signed then.", "1776"),
        ("答案是北京，因为它是中国的首都。", "北京"),
        ("答案：李白。原因是诗风豪放。", "李白"),
        ("The answer is: George Washington, who was the first president.", "George Washington"),
        ("Answer: Paris\nAnswer: Paris, France", "Paris, France"),  # the same answer, more words
        ("No, because the last speaker lies.", "No"),  # unmarked: a short answer and its reason
        ("北京，因为它是首都", "北京"),
    ],
)
def test_a_marked_answer_without_its_justification(text: str, answer: str) -> None:
    assert qa(text) == (answer, st.OK)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Because of the storm.", "Because of the storm."),  # the reason is the answer
        ("The match was cancelled because of rain", "The match was cancelled because of rain"),
        ("比赛取消是由于下雨", "比赛取消是由于下雨"),
        ("The answer is the Treaty of Paris, signed in 1783", "the Treaty of Paris, signed in 1783"),
    ],
)
def test_no_justification_no_cut(text: str, answer: str) -> None:
    assert qa(text) == (answer, st.OK)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The passage says so.\\nAnswer: Paris", "Paris"),
        ("Reasoning: the river flows north.\\n\\nFinal answer: the Nile", "the Nile"),
        ("Step 1 ...\\r\\nAnswer: 42", "42"),
        ("根据原文。\\n答案：北京", "北京"),
        ("分析如下\\n\\n答案是上海\\n\\n以上。", "上海"),
        ("Context\\n## Answer\\nMount Everest", "Mount Everest"),
    ],
)
def test_an_escaped_line_break_does_not_hide_the_marker(text: str, answer: str) -> None:
    assert qa(text) == (answer, st.OK)


def test_escapes_in_latex_stay_when_unescaping_for_markers() -> None:
    params = AnswerMarkerParams(tiers=TIERS, unescape=True)
    assert extract_answer_marker("so\\nAnswer: $a \\neq b$", params) == "$a \\neq b$"
    # no marker: the text is returned as it came, escapes and all (the format stage reads them)
    assert extract_answer_marker("no marker\\nhere", params) == "no marker\\nhere"


def test_default_params_keep_the_old_behaviour() -> None:
    params = AnswerMarkerParams(tiers=TIERS)
    assert extract_answer_marker("Answer: Paris\nAnswer: Lyon", params) == "Lyon"
    assert extract_answer_marker("Answer: No, because X.", params) == "No, because X."


def test_keep_mode_reads_on_past_a_later_retraction() -> None:
    params = AnswerMarkerParams(tiers=TIERS, conflict="keep", include_marker=True)
    assert extract_answer_marker("Answer: A\n\nfine", params) == "Answer: A"
    text = "Answer: A\n\nWait, that is wrong.\n\nSo B."
    assert extract_answer_marker(text, params) == text
