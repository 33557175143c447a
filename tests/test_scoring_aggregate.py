"""Voting after normalization, other aggregates, and why voting on raw text or scores is wrong."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from normalize.core.pack import Pack, load_pack
from normalize.io.row import Row
from scoring.aggregate import aggregate_rows, answer_key, group_samples, vote
from scoring.metrics import NO_ANSWER, SCORED, Scored, read_scored, score_detail

PACK = """\
name: aggregate-test
tasks: {gsm8k: math, mmlu: multiple_choice}
task_types:
  multiple_choice: {chain: [], parser: text}
  math: {chain: [], parser: text}
  structured_json: {chain: [], parser: text}
"""


@pytest.fixture
def pack(tmp_path: Path) -> Pack:
    path = tmp_path / "pack.yaml"
    path.write_text(PACK, encoding="utf-8")
    return load_pack(path)


def sample_rows(task: str, kind: str, target: Any, outputs: Sequence[str | None], answers: Sequence[Any],
                **extra: Any) -> list[dict[str, Any]]:
    """Output rows as normalize_row gives them: raw output beside the parsed answer."""
    return [
        {"id": "q1", "task": task, "task_type": kind, "sample": i, "target": target, "output": out,
         "answer": ans, "status": "ok" if ans is not None else "no_answer", **extra}
        for i, (out, ans) in enumerate(zip(outputs, answers, strict=True))
    ]


def typed(pack: Pack, rows: list[dict[str, Any]]) -> list[Scored]:
    """Output rows read back at the JSONL edge and scored: what aggregation takes."""
    return [read_scored(pack, r) for r in rows]


def aggregate(pack: Pack, rows: list[dict[str, Any]], mode: str, k: int | None = None) -> float:
    (item,) = aggregate_rows(pack, typed(pack, rows), mode, k=k)
    return item.value


# ---------------------------------------------------------------- the reason for the design


def test_normalize_then_vote_beats_raw_text_vote(pack: Pack) -> None:
    """Three samples say 42 in three spellings, two say 41 identically: raw text votes 41."""
    outputs = ["The answer is 42.", "**42**", "42", "41", "41"]
    rows = sample_rows("gsm8k", "math", "42", outputs, ["42", "42", "42", "41", "41"])
    assert vote(outputs).answer == "41"  # vote on raw text: wrong
    raw_winner = {**rows[0], "answer": vote(outputs).answer}
    assert score_detail(pack, raw_winner).correct is False
    assert aggregate(pack, rows, "vote") == 1.0  # normalize, parse, then vote: right


def test_vote_on_answers_beats_majority_of_scores(pack: Pack) -> None:
    """Target B; answers B, B, C, D, E: the plurality is right, the per-sample scores say wrong."""
    rows = sample_rows("mmlu", "multiple_choice", "B", ["B", "B", "C", "D", "E"], ["B", "B", "C", "D", "E"],
                       options=5)
    scores = [score_detail(pack, r).value for r in rows]
    assert scores == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert sum(scores) / len(scores) == pytest.approx(0.4)  # majority over scores: wrong
    assert aggregate(pack, rows, "vote") == 1.0
    assert aggregate(pack, rows, "mean") == pytest.approx(0.4)
    assert aggregate(pack, rows, "median") == 0.0
    assert aggregate(pack, rows, "any") == 1.0
    assert aggregate(pack, rows, "pass@k", k=1) == pytest.approx(0.4)
    assert aggregate(pack, rows, "pass@k", k=4) == 1.0


def test_raw_exact_scores_vote_out_right_but_unnormalized_answers(pack: Pack) -> None:
    """Scoring raw outputs per sample marks 'The answer is 42.' and '**42**' wrong: 1 of 5 right."""
    outputs = ["The answer is 42.", "**42**", "42", "41", "41"]
    raw_scores = [float(o.strip() == "42") for o in outputs]
    assert sum(raw_scores) / len(raw_scores) == pytest.approx(0.2)
    rows = sample_rows("gsm8k", "math", "42", outputs, ["42", "42", "42", "41", "41"])
    assert aggregate(pack, rows, "mean") == pytest.approx(0.6)


# ---------------------------------------------------------------- vote


def test_vote_compares_canonical_forms(pack: Pack) -> None:
    assert answer_key("0.5", "math") == answer_key("1/2", "math") == answer_key("0.50", "math")
    result = vote(["1/2", "0.5", "3", "3", "0.50"], "math")
    assert result.votes == 3 and not result.tied
    assert result.answer in ("1/2", "0.5", "0.50")
    assert vote([{"a": 1, "b": 2}, {"b": 2, "a": 1.0}, {"a": 2}], "structured_json").answer == {"a": 1, "b": 2}


def test_none_wins_only_when_every_sample_is_none(pack: Pack) -> None:
    assert vote([None, None, None, "C"]).answer == "C"
    result = vote([None, None])
    assert result.answer is None and result.n_samples == 2
    rows = sample_rows("mmlu", "multiple_choice", "C", ["", "", "x"], [None, None, "C"], options=4)
    assert aggregate(pack, rows, "vote") == 1.0
    rows = sample_rows("mmlu", "multiple_choice", "C", ["", ""], [None, None], options=4)
    (item,) = aggregate_rows(pack, typed(pack, rows), "vote")
    assert (item.outcome, item.status, item.value) == (NO_ANSWER, "no_answer", 0.0)


def test_ties_are_broken_by_canonical_order_and_counted(pack: Pack) -> None:
    result = vote(["D", "B", "B", "D", "A"])
    assert (result.answer, result.votes, result.tied) == ("B", 2, True)
    rows = sample_rows("mmlu", "multiple_choice", "D", ["D", "B", "B", "D"], ["D", "B", "B", "D"], options=4)
    (item,) = aggregate_rows(pack, typed(pack, rows), "vote")
    assert item.tied and item.outcome == SCORED and item.value == 0.0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["A", "B", "C", "D"])), min_size=1, max_size=12),
       st.randoms(use_true_random=False))
def test_vote_is_invariant_to_sample_order(answers: list[str | None], rnd: Any) -> None:
    shuffled = list(answers)
    rnd.shuffle(shuffled)
    assert vote(shuffled) == vote(answers)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["1/2", "0.5", "2", "2.0", "-3", "x"])), min_size=1, max_size=10),
       st.randoms(use_true_random=False))
def test_math_vote_is_invariant_to_sample_order(answers: list[str | None], rnd: Any) -> None:
    shuffled = list(answers)
    rnd.shuffle(shuffled)
    assert vote(shuffled, "math") == vote(answers, "math")


def test_vote_rejects_no_samples() -> None:
    with pytest.raises(ValueError, match="at least one sample"):
        vote([])


# ---------------------------------------------------------------- grouping and errors


def test_groups_are_per_run_task_and_id() -> None:
    rows = [
        {"id": 1, "task": "a", "run": 1}, {"id": 1, "task": "a", "run": 2}, {"id": 1, "task": "b", "run": 1},
        {"id": 1, "task": "a", "run": 1}, {"id": "1", "task": "a", "run": 1},
    ]
    assert group_samples([Row.from_mapping(r) for r in rows]) == [[0, 3], [1], [2], [4]]


def test_aggregate_errors(pack: Pack) -> None:
    rows = sample_rows("mmlu", "multiple_choice", "B", ["B", "C"], ["B", "C"], options=4)
    samples = typed(pack, rows)
    with pytest.raises(ValueError, match="at least 3 samples"):
        aggregate_rows(pack, samples, "pass@k", k=3)
    with pytest.raises(ValueError, match="positive integer k"):
        aggregate_rows(pack, samples, "pass@k")
    with pytest.raises(ValueError, match="unknown aggregate"):
        aggregate_rows(pack, samples, "majority")
    # rows and scores travel as one typed sample, so they cannot disagree in number; a dict row is refused
    with pytest.raises(TypeError, match="takes a Scored sample, got dict"):
        aggregate_rows(pack, rows, "vote")  # type: ignore[arg-type]


def test_items_without_target_stay_unscored(pack: Pack) -> None:
    rows = sample_rows("mmlu", "multiple_choice", None, ["B", "B"], ["B", "B"], options=4)
    (item,) = aggregate_rows(pack, typed(pack, rows), "vote")
    assert item.outcome == "no_target" and item.n_samples == 2
