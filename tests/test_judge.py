"""The judge task type: strict verdicts, agreement with human labels, and its pack wiring."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from normalize import load_pack
from normalize.core.registry import ParseContext
from normalize.parsers._judge import JudgeParams, parse_judge
from scoring.metrics import score_detail, scoring_config

CTX = ParseContext()


@pytest.mark.parametrize(("text", "answer"), [
    ("[[A]]", "A"), ("[[b]]", "B"), ("[[tie]]", "tie"), ("[[C]]", "tie"),
    ("Rating: [[10]]", 10), ("Rating: [[1]]", 1), ("[[8.5]]", 8.5), ("[[9/10]]", 9),
    ("[[7, 7]]", "tie"), ("[[3,9]]", "B"),
    ("[[A>>B]]", "A"), ("[[B>>A]]", "B"), ("[[A<B]]", "B"),
    ("Final Verdict: [[A]]\n\nI also considered B.", "A"),
    ("综合评分：7分", 7), ("评分为：[[6]]", 6), ("得分：9/10", 9), ("最终判决：平局", "tie"),
    ("更好的回答是“B”。", "B"), ("模型A胜出", "A"), ("Overall score: 6 out of 10", 6),
    ("Winner: tie", "tie"), ("Better response: (A)", "A"), ("The preferred output is B.", "B"),
    ("Output (A)", "A"), ("(b)", "B"), ("m.", "A"),
    ("Score 8/10", 8), ("Overall score: 6 out of 10", 6), ("我给它打8分", 8), ("model_a", "A"),
])
def test_stated_verdicts(text: str, answer: object) -> None:
    result = parse_judge(text, JudgeParams(), CTX)
    assert (result.answer, result.status) == (answer, "ok"), result.reason


@pytest.mark.parametrize(("text", "status"), [
    ("[[A]] [[B]]", "contradictory"),
    ("Rating: [[7]] ... Rating: [[8]]", "contradictory"),
    ("更好的回答是：A。更好的回答是：B", "contradictory"),
    ("Assistant A is good. Assistant B is also good.", "no_answer"),
    ("I'd rate this highly.", "no_answer"),
    ("The answer mentions the letter A.", "no_answer"),
    ("The better response is a bit longer, but both are fine.", "no_answer"),
    ("The user asks to score 3 essays.", "no_answer"),
    ("我给出3个理由。", "no_answer"),
    ("Score is 1000", "no_answer"),
    ("Rating: [[15]]", "out_of_range"),
    ("Score: 8/100", "out_of_range"),
    ("[[A>A]]", "out_of_range"),
])
def test_missing_or_contradicting_verdicts_are_never_defaulted(text: str, status: str) -> None:
    result = parse_judge(text, JudgeParams(), CTX)
    assert (result.answer, result.status) == (None, status)


def test_kind_and_scale_params() -> None:
    assert parse_judge("Rating: [[7]]", JudgeParams(kind="preference"), CTX).status == "no_answer"
    assert parse_judge("[[A]]", JudgeParams(kind="rating"), CTX).status == "no_answer"
    assert parse_judge("Rating: [[4]]", JudgeParams(max_rating=5), CTX).answer == 4
    assert parse_judge("Rating: [[7]]", JudgeParams(max_rating=5), CTX).status == "out_of_range"
    assert parse_judge("Rating: [[5]]", JudgeParams(), ParseContext(options=5)).answer == 5
    with pytest.raises(ValueError, match="below max_rating"):
        JudgeParams(min_rating=5, max_rating=5)


@settings(max_examples=200, deadline=None)
@given(hs.text(max_size=200))
def test_the_parser_never_invents_a_verdict(text: str) -> None:
    result = parse_judge(text, JudgeParams(), CTX)
    if result.answer is None:
        assert result.status in ("no_answer", "contradictory", "out_of_range")
    else:
        assert result.status == "ok"
        assert result.answer in ("A", "B", "tie") or 1 <= result.answer <= 10  # type: ignore[operator]
        # a stated verdict leaves a trace in the text
        assert any(ch.isalnum() for ch in text)


def test_agreement_with_human_labels() -> None:
    pack = load_pack()

    def score(output: str, target: object) -> tuple[object, str]:
        result = pack.run(output, "mt_bench_judge")
        row = {"task": "mt_bench_judge", "task_type": "judge", "status": result.status, "answer": result.answer,
               "target": target}
        s = score_detail(pack, row)
        return s.correct, s.outcome

    assert score("[[A]]", "A") == (True, "scored")
    assert score("[[C]]", "tie") == (True, "scored")
    assert score("[[C]]", "C") == (True, "scored")
    assert score("[[B]]", "A") == (False, "scored")
    assert score("Rating: [[7]]", 7) == (True, "scored")
    assert score("[[A]] [[B]]", "A") == (None, "no_answer")
    row = {"task": "mt_bench_judge", "task_type": "judge", "status": "ok", "answer": "A", "target": "D"}
    assert score_detail(pack, row).outcome == "bad_target"


def test_judge_scoring_settings() -> None:
    pack = load_pack()
    cfg = scoring_config(pack, "mt_bench_judge")
    assert (cfg.metric, cfg.position_bias, cfg.anchor, cfg.anchor_rating) == ("agreement", "tie", None, 1000.0)
    import dataclasses

    bad = dataclasses.replace(pack, scoring={**pack.scoring, "judge": {"position_bias": "ignore"}})
    with pytest.raises(ValueError, match="position_bias"):
        scoring_config(bad, "judge")
