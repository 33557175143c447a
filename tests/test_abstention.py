"""Abstention is its own status: ``abstained``, apart from ``no_answer`` and from a wrong answer.

The whole answer must decline ("I don't know", "无法确定", "I cannot answer that"); an answer
followed by hedging, or an answer after "I don't know why", is an answer.  A multiple-choice
option whose own text abstains ("Cannot be determined") is chosen, never turned into an abstention.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from normalize import load_pack
from normalize import status as st
from normalize.errors import PackError
from normalize.io.row import Row
from scoring._items import item_of
from scoring.integrations.rewards import NormalizeReward
from scoring.metrics import Scored, score_result
from scoring.report import build_report, render_markdown, render_table

PACK = load_pack()
BBQ = ("The grandson", "The grandfather", "Cannot be determined")


def run(text: str, task: str, options: object = None, lang: str | None = None) -> tuple[str, object]:
    result = PACK.run(text, task, options=options, lang=lang)  # type: ignore[arg-type]
    return result.status, result.answer


def test_abstained_is_a_status_of_its_own() -> None:
    assert st.ABSTAINED == "abstained" and st.ABSTAINED in st.ALL_STATUSES
    assert len(set(st.ALL_STATUSES)) == len(st.ALL_STATUSES)


@pytest.mark.parametrize(("text", "task"), [
    ("I don't know.", "squad"),
    ("I do not know the answer.", "triviaqa"),
    ("Sorry, I don't know.", "nq_open"),
    ("I don’t know who wrote it.", "squad"),  # a typographic apostrophe
    ("The answer cannot be determined from the passage.", "squad"),
    ("The passage does not say when the bridge was built.", "squad"),
    ("Not enough information.", "squad"),
    ("There is not enough information to answer the question.", "drop"),
    ("Answer: I don't know", "squad"),
    ("**Unknown**", "squad"),
    ("The question is unanswerable.", "squad_v2"),
    ("我不知道。", "cmrc2018"),
    ("无法确定", "cmrc2018"),
    ("根据文章无法确定。", "cmrc2018"),
    ("文中没有提到他的出生地。", "cmrc2018"),
    ("I don't know.", "gsm8k"),
    ("There is not enough information to determine the number of apples.", "gsm8k"),
    ("Therefore, the answer cannot be determined.", "math500"),
    ("无法确定", "cmath"),
    ("信息不足，无法计算。", "cmath"),
    ("I'm unable to determine the answer.", "gsm8k"),
    ("I don't know.", "mmlu"),
    ("I cannot answer that.", "mmlu"),
    ("Sorry, I can't help with that.", "mmlu"),
    ("抱歉，我无法回答这个问题。", "ceval"),
    ("我不知道", "ceval"),
])
def test_whole_answer_abstentions(text: str, task: str) -> None:
    options = 4 if PACK.task_type_of(task) == "multiple_choice" else None
    assert run(text, task, options) == ("abstained", None)


def test_the_reason_and_extra_name_the_kind_and_phrase() -> None:
    result = PACK.run("Sorry, I cannot answer that.", "mmlu", options=4)
    assert result.status == "abstained" and result.answer is None
    assert result.reason == "the answer abstains (refusal): 'I cannot answer that'"
    assert result.extra["abstention"] == {"kind": "refusal", "phrase": "I cannot answer that"}
    assert PACK.run("I don't know", "squad").extra["abstention"]["kind"] == "unknown"
    assert PACK.run("无法确定", "cmath").extra["abstention"]["kind"] == "undetermined"


@pytest.mark.parametrize(("text", "task", "answer"), [
    # near variants: an answer is stated, so the answer is read (never an abstention)
    ("I don't know why, but the answer is 5", "gsm8k", "5"),
    ("I don't know why it was renamed, but the name is Denver", "squad",
     "I don't know why it was renamed, but the name is Denver"),
    ("Paris, but I'm not sure.", "squad", "Paris, but I'm not sure."),
    ("I don't know, maybe Paris?", "squad", "I don't know, maybe Paris?"),
    ("Unknown Pleasures", "squad", "Unknown Pleasures"),
    ("The answer is B. I'm not sure though.", "mmlu", "B"),
    ("The answer is B, but I'm not sure.", "mmlu", "B"),
    ("It cannot be determined whether A is true, so the answer is B.", "mmlu", "B"),
    ("Option C cannot be determined; the answer is A.", "mmlu", "A"),
    ("我不知道为什么，但答案是5", "cmath", "5"),
    ("答案是B，虽然我不确定", "ceval", "B"),
    ("I know the answer: Paris", "squad", "Paris"),
    ("The passage does not mention the year, but it says the war ended in spring", "squad",
     "The passage does not mention the year, but it says the war ended in spring"),
    ("无法确定，但可能是巴黎。", "cmrc2018", "无法确定,但可能是巴黎。"),
])
def test_answers_with_hedges_are_answers(text: str, task: str, answer: str) -> None:
    options = 4 if PACK.task_type_of(task) == "multiple_choice" else None
    assert run(text, task, options) == ("ok", answer)


def test_a_digit_means_an_answer_may_be_stated_never_an_abstention() -> None:
    assert run("I don't know 5", "gsm8k")[0] != "abstained"
    assert run("Unknown, about 1990", "squad") == ("ok", "Unknown, about 1990")


def test_other_statuses_stay_what_they_are() -> None:
    assert run("The answer is A or B. I don't know.", "mmlu", 4)[0] == "contradictory"
    assert run("hmm, hard to say", "mmlu", 4)[0] == "no_answer"
    assert run(None, "squad")[0] == "no_output"  # type: ignore[arg-type]
    # an unclosed think block is cut-off reasoning, not an abstention
    assert run("<think>I don't know", "gsm8k")[0] == "no_answer"
    assert run("<think>Hmm.</think>I don't know", "gsm8k")[0] == "abstained"


def test_last_sentence_abstains_when_nothing_else_is_read() -> None:
    text = "Let x be the apples Tom has. Ann has twice as many. So the number of apples cannot be determined."
    assert run(text, "gsm8k") == ("abstained", None)
    assert run("A is wrong. B is also wrong. I don't know which one is right.", "mmlu", 4) == ("abstained", None)
    # a stated answer before it stands: the last sentence is a hedge, not the answer
    assert run("The answer is B. I don't know for sure.", "mmlu", 4) == ("ok", "B")


# --------------------------------------------------------------------------- multiple choice: an option that abstains


def test_an_option_whose_text_abstains_is_the_answer_not_an_abstention() -> None:
    assert run("Cannot be determined", "mmlu", BBQ) == ("ok", "C")
    assert run("It cannot be determined from the context.", "mmlu", BBQ) == ("ok", "C")
    assert run("Not enough information.", "mmlu", ("Not enough info", "The man", "The woman")) == ("ok", "A")
    assert run("The answer is (C).", "mmlu", BBQ) == ("ok", "C")
    assert run("The answer is A.", "mmlu", BBQ) == ("ok", "A")  # an answer the parser read stands
    result = PACK.run("It cannot be determined from the context.", "mmlu", options=BBQ)
    assert result.extra["abstention_option"] == "C" and result.reason is None


def test_two_options_that_abstain_leave_the_choice_unstated() -> None:
    status, answer = run("Not enough information.", "mmlu", ("Unknown", "Cannot be determined", "The man"))
    assert (status, answer) == ("no_answer", None)


def test_a_refusal_does_not_choose_the_undetermined_option() -> None:
    assert run("I can't answer that.", "mmlu", BBQ) == ("abstained", None)


def test_without_such_an_option_the_same_words_abstain() -> None:
    assert run("It cannot be determined from the context.", "mmlu", ("Paris", "Lyon", "Nice")) == ("abstained", None)


# --------------------------------------------------------------------------- language, data, hash


def test_a_row_language_narrows_the_phrases() -> None:
    assert run("I don't know.", "squad", lang="zh")[0] == "ok"  # zh phrases only: read as text
    assert run("我不知道", "squad", lang="zh-cn")[0] == "abstained"
    assert run("I don't know.", "squad", lang="en")[0] == "abstained"
    assert run("I don't know.", "squad", lang="it")[0] == "abstained"  # a language without phrases: all apply
    assert run("I don't know.", "squad", lang="fr")[0] == "ok"  # fr phrases only
    assert run("Je ne sais pas.", "squad", lang="fr-ca")[0] == "abstained"


DUTCH = """\
name: with-dutch
include: [shipped:languages/en.yaml, shipped:languages/zh.yaml, shipped:abstention.yaml]
abstention:
  nl:
    unknown: ['ik\\s+weet\\s+(?:het\\s+)?niet']
    filler: ['helaas|het\\s+spijt\\s+me']
tasks: {quiz: extractive_qa}
task_types:
  extractive_qa:
    chain: [remove_think_blocks, {rule: normalize_whitespace, params: {newlines: collapse}}]
    parser: text
    abstention: {languages: [en, nl], when: always}
"""


def test_a_language_added_from_yaml_alone(tmp_path: Path) -> None:
    path = tmp_path / "pack.yaml"
    path.write_text(DUTCH, encoding="utf-8")
    pack = load_pack(path)
    assert pack.run("Het spijt me, ik weet het niet.", "quiz").status == "abstained"
    assert pack.run("Ik weet het niet, maar misschien Amsterdam.", "quiz").status == "ok"
    assert pack.run("I don't know", "quiz").status == "abstained"
    assert pack.run("无法确定", "quiz").status == "ok"  # zh is not among this task type's languages
    # the phrases are part of the hash: another phrase, another hash
    changed = tmp_path / "changed.yaml"
    changed.write_text(DUTCH.replace("helaas|", "helaas|jammer|"), encoding="utf-8")
    assert load_pack(changed).hash != pack.hash
    assert "abstention" in pack.resolved()["task_types"]["extractive_qa"]


def test_shipped_phrases_are_hashed() -> None:
    resolved = PACK.resolved()["task_types"]
    for kind in ("multiple_choice", "math", "extractive_qa"):
        assert resolved[kind]["abstention"]["languages"] == ["en", "zh", "de", "fr", "es", "ru", "ja", "ko"]
        assert resolved[kind]["abstention"]["phrases"]["zh"]["unknown"]
    assert "abstention" not in resolved["judge"] and "abstention" not in resolved["code"]


@pytest.mark.parametrize(("body", "message"), [
    ("    abstention: {languages: [xx]}\n", "no phrases for language 'xx'"),
    ("    abstention: {languages: []}\n", "at least 1 item"),
    ("    abstention: {languages: [en], when: sometimes}\n", "when"),
])
def test_bad_abstention_settings_are_pack_errors(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "pack.yaml"
    path.write_text(DUTCH.replace("    abstention: {languages: [en, nl], when: always}\n", body), encoding="utf-8")
    with pytest.raises(PackError, match=message):
        load_pack(path)


def test_a_bad_phrase_is_a_pack_error(tmp_path: Path) -> None:
    path = tmp_path / "pack.yaml"
    path.write_text(DUTCH.replace("unknown: ['ik", "unknown: ['(ik"), encoding="utf-8")
    with pytest.raises(PackError, match=r"abstention\.nl\.unknown\[0\]"):
        load_pack(path)
    path.write_text(DUTCH.replace("    unknown:", "    maybe:"), encoding="utf-8")
    with pytest.raises(PackError, match="unknown kind 'maybe'"):
        load_pack(path)


# --------------------------------------------------------------------------- scoring and reports


def _scored(text: str, target: object, task: str = "squad") -> Scored:
    row = Row(id=text, task=task, task_type=PACK.task_type_of(task), output=text, target=target)
    result = PACK.run(text, task)
    return Scored(row, result, score_result(PACK, row, result))


def test_report_gives_the_abstention_rate_beside_the_parse_rate() -> None:
    rows = [_scored("Paris", "Paris"), _scored("Lyon", "Paris"), _scored("I don't know.", "Paris"),
            _scored("", "Paris")]
    assert [s.status for s in rows] == ["ok", "ok", "abstained", "no_answer"]
    assert rows[2].score.correct is None and rows[2].score.value == 0.0
    report = build_report([item_of(s) for s in rows], PACK, n_resamples=50)
    overall = report["groups"][-1]
    assert overall["statuses"] == {"ok": 2, "no_answer": 1, "abstained": 1}
    assert overall["abstained"] == 1 and overall["abstention_rate"] == pytest.approx(0.25)
    assert overall["parse_rate"] == pytest.approx(0.5)
    assert overall["a_valid"]["value"] == pytest.approx(0.5)  # abstentions left out
    assert overall["a_strict"]["value"] == pytest.approx(0.25)  # counted as not correct
    table = render_table(report)
    header = next(line for line in table.splitlines() if line.startswith("group"))
    assert "abst" in header.split() and "abstained 1 (rate 0.250" in table
    assert "abstained 1 (rate 0.250" in render_markdown(report)


def test_an_abstention_gets_reward_zero() -> None:
    reward = NormalizeReward(task="gsm8k", no_answer=-0.5, wrong=-1.0)
    assert reward(["I don't know.", "The answer is 3.", "hmm", "The answer is 4."], answer=["4"] * 4) == [
        0.0, -1.0, -0.5, 1.0]


def test_aggregation_keeps_abstentions_apart() -> None:
    from scoring.aggregate import SampleAggregator

    aggregator = SampleAggregator(PACK, "vote")
    for i, text in enumerate(["I don't know.", "I don't know.", "Not enough information.", "Paris", "Lyon", "I don't know."]):
        scored = _scored(text, "Paris")
        row = Row(id="q1" if i < 3 else "q2", task="squad", task_type="extractive_qa", output=text, target="Paris")
        aggregator.add(Scored(row, scored.result, scored.score))
    first, second = aggregator.items()
    assert (first.status, first.outcome, first.value) == ("abstained", "no_answer", 0.0)
    assert second.status == "ok"  # the abstaining sample is no vote: Paris and Lyon tie, the first wins
    report = build_report([first, second], PACK, aggregate="vote", n_resamples=20)
    assert report["groups"][-1]["abstained"] == 1


@pytest.mark.parametrize("unknown", ["Can't be determined", "Cannot answer", "Not enough info", "Unknown", "Undetermined",
                                     "Not answerable", "Can't answer", "Not known", "无法确定"])
def test_bbq_style_unknown_options_are_chosen(unknown: str) -> None:
    options = ("The grandson", unknown, "The grandfather")
    assert run("It cannot be determined from the context.", "mmlu", options) == ("ok", "B")
    assert run("There is not enough information to tell.", "mmlu", options) == ("ok", "B")
    assert run("The answer is (C).", "mmlu", options) == ("ok", "C")
    assert run("I refuse to guess, but the grandson is older.", "mmlu", options)[0] != "ok" or \
        run("I refuse to guess, but the grandson is older.", "mmlu", options)[1] != "B"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

_ABSTAIN = ["I don't know", "I cannot answer that", "The passage does not say", "Not enough information",
            "It cannot be determined from the passage", "I have no idea", "我不知道", "无法确定"]
_FILLER = ["", "Sorry, ", "Unfortunately, ", "Based on the passage, ", "Honestly, ", "抱歉，"]
_ANSWERS = ["Paris", "the Denver Broncos", "Marie Curie", "in the spring", "blue whales", "巴黎", "居里夫人"]
_JOIN = [", but it is ", ". However, it might be ", ", maybe ", "; I think it is ", "，但可能是", ". The answer is "]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(hs.sampled_from(_FILLER), hs.sampled_from(_ABSTAIN), hs.sampled_from([".", "", "!", "。"]))
def test_property_whole_abstentions_abstain(filler: str, phrase: str, end: str) -> None:
    assert run(filler + phrase + end, "squad")[0] == "abstained"


@settings(max_examples=200, deadline=None, derandomize=True)
@given(hs.sampled_from(_ABSTAIN), hs.sampled_from(_JOIN), hs.sampled_from(_ANSWERS), hs.booleans())
def test_property_an_answer_beside_an_abstention_is_never_an_abstention(
        phrase: str, join: str, answer: str, answer_first: bool) -> None:
    text = f"{answer}, though {phrase.lower()}" if answer_first else phrase + join + answer
    assert run(text, "squad")[0] != "abstained"
    assert run(text + " 42", "gsm8k")[0] != "abstained"


@pytest.mark.parametrize(("text", "abstains"), [
    ("Ich weiß es nicht.", True), ("Leider kann das nicht bestimmt werden.", True), ("Berlin, aber ich weiß es nicht genau", False),
    ("Je ne sais pas.", True), ("Désolé, le texte ne le dit pas.", True), ("Paris, je ne sais pas", False),
    ("No lo sé.", True), ("No se puede determinar.", True), ("Madrid, no lo sé", False), ("No", False),
    ("Я не знаю.", True), ("К сожалению, недостаточно информации.", True), ("Москва, не знаю точно", False),
    ("わかりません。", True), ("申し訳ありませんが、本文には書かれていません。", True), ("東京かどうかわかりません", False),
    ("모르겠습니다.", True), ("죄송하지만, 정보가 부족합니다.", True), ("서울인지 모르겠습니다", False),
])
def test_other_languages(text: str, abstains: bool) -> None:
    assert (run(text, "squad")[0] == "abstained") is abstains
