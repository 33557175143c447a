"""Ranking metrics: the seed lecture's worked values, hand computation, and scikit-learn's ndcg_score."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from normalize import load_pack
from scoring._ranking import ranking_scores, read_ranking, read_relevance
from scoring.metrics import score_detail

ROOT = Path(__file__).resolve().parent.parent
IDS = [f"d{i}" for i in range(1, 11)]


def test_seed_lecture_example() -> None:
    # · ● · ◐ ● · · ◐ · ·  (● grade 2, ◐ grade 1)
    s = ranking_scores(IDS, {"d2": 2, "d4": 1, "d5": 2, "d8": 1}, k=10)
    assert s["mrr"] == pytest.approx(0.5)
    assert s["map"] == pytest.approx((1 / 2 + 2 / 4 + 3 / 5 + 4 / 8) / 4)  # 0.525
    assert round(s["ndcg"], 3) == 0.652
    assert s["recall"] == 1.0 and s["hit"] == 1.0


def test_seed_exercise_five() -> None:
    s = ranking_scores(["x", "y", "z"], {"x": 2, "y": 0, "z": 1}, k=3)
    assert s["ndcg"] == pytest.approx(3.5 / (3 + 1 / math.log2(3)))  # 0.964
    assert round(s["ndcg"], 3) == 0.964
    assert ranking_scores(["a", "b", "c", "d"], read_relevance(["a", "c"]))["map"] == pytest.approx((1 + 2 / 3) / 2)


def test_cutoffs_and_unretrieved_relevant_ids() -> None:
    grades = {"a": 1, "b": 1, "z": 1}  # z is never retrieved
    s = ranking_scores(["x", "a", "y", "b"], grades, k=2)
    assert s["recall"] == pytest.approx(1 / 3) and s["hit"] == 1.0 and s["mrr"] == 0.5
    assert s["map"] == pytest.approx((1 / 2) / 3)  # AP divides by every relevant id, as trec_eval
    none = ranking_scores(["x", "y"], grades, k=2)
    assert none == {"ndcg": 0.0, "mrr": 0.0, "map": 0.0, "recall": 0.0, "hit": 0.0}
    assert ranking_scores(["x"], {"x": 0})["ndcg"] == 0.0


@pytest.mark.parametrize("k", [1, 3, 5, None])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_ndcg_equals_sklearn(k: int | None, gain: str) -> None:
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = 8
        grades = rng.integers(0, 4, size=n).astype(float)
        if grades.sum() == 0:
            grades[0] = 1
        order = rng.permutation(n)
        ranked = [f"d{i}" for i in order]
        labels = {f"d{i}": float(g) for i, g in enumerate(grades)}
        ours = ranking_scores(ranked, labels, k=k, gain=gain)["ndcg"]  # type: ignore[arg-type]
        scores = np.empty(n)
        scores[order] = np.arange(n, 0, -1)  # the ranked order as descending scores, no ties
        y_true = grades if gain == "linear" else 2.0**grades - 1.0
        want = sklearn_metrics.ndcg_score([y_true], [scores], k=k)
        assert ours == pytest.approx(want), (ranked, labels)


def test_reading_labels_and_rankings() -> None:
    assert read_relevance({"1": 1, 2: 0}) == {"1": 1.0, "2": 0.0}
    with pytest.raises(ValueError, match=">= 0"):
        read_relevance({"a": -1})
    with pytest.raises(ValueError, match="mapping"):
        read_relevance("a")
    assert read_ranking([3, "3", "a"]) == ["3", "a"]
    with pytest.raises(ValueError, match="list of ids"):
        read_ranking({"a": 1})


def test_reranking_rows_are_scored_by_the_shipped_pack() -> None:
    pack = load_pack()
    row = pack.run("Passage [3] is off-topic.\n[3] > [1] > [7]", "msmarco_rerank")
    assert (row.answer, row.status, row.task_type) == (["3", "1", "7"], "ok", "ranking")
    out = {"task": "msmarco_rerank", "task_type": "ranking", "status": row.status, "answer": row.answer,
           "target": {"1": 2, "9": 1}}
    score = score_detail(pack, out)
    assert score.metric == "ndcg" and score.ranking is not None
    want = ranking_scores(["3", "1", "7"], {"1": 2, "9": 1}, k=10)
    assert score.value == pytest.approx(want["ndcg"]) and score.correct is True
    assert score.ranking == want
    assert score_detail(pack, {**out, "target": "d1"}).outcome == "bad_target"
    unparsed = score_detail(pack, {**out, "status": "no_answer", "answer": None})
    assert unparsed.outcome == "no_answer" and unparsed.ranking == dict.fromkeys(want, 0.0)


def test_ranking_settings() -> None:
    import dataclasses

    from scoring.metrics import scoring_config

    pack = load_pack()
    cfg = scoring_config(pack, "rerank")
    assert (cfg.metric, cfg.k, cfg.gain) == ("ndcg", 10, "exponential")
    for section, message in (({"k": 0}, "greater than or equal to 1"), ({"gain": "log"}, "gain"), ({"metric": "f1"}, "not a metric")):
        bad = dataclasses.replace(pack, scoring={**pack.scoring, "ranking": section})
        with pytest.raises(ValueError, match=message):
            scoring_config(bad, "ranking")


def test_ranking_examples_report(tmp_path: Path) -> None:
    from scoring.cli import main

    out = tmp_path / "r.json"
    assert main(["score", str(ROOT / "examples" / "ranking.jsonl"), "--report", str(out), "--bootstrap", "50"]) == 0
    groups = {g["name"]: g for g in json.loads(out.read_text(encoding="utf-8"))["groups"]}
    block = groups["rerank"]["ranking"]
    # p1..p10 with the seed lecture's labels (0.652), and a contradictory ranking counting 0
    assert block["ndcg"]["value"] == pytest.approx(0.652 / 2, abs=5e-4) and block["mrr"]["value"] == 0.25
    assert groups["overall"]["ranking"]["n"] == 6  # unparsed rows count 0 everywhere
    assert groups["overall"]["statuses"] == {"ok": 4, "no_answer": 1, "contradictory": 1}


@settings(max_examples=200, deadline=None)
@given(hs.text(alphabet=hs.sampled_from(list("[]>,\" 123abd.\n")), max_size=80),
       hs.one_of(hs.none(), hs.integers(2, 5)))
def test_the_ranking_parser_never_invents_or_repeats_an_id(text: str, options: int | None) -> None:
    from normalize.core.registry import NoParams, ParseContext
    from normalize.parsers._ranking import parse_ranking

    result = parse_ranking(text, NoParams(), ParseContext(options=options))
    if result.answer is None:
        assert result.status in ("no_answer", "contradictory", "out_of_range")
        return
    ids = result.answer
    assert result.status == "ok" and ids and len(ids) == len(set(ids))
    assert all(i in text for i in ids)
    if options is not None:
        assert all(i.isdigit() and 1 <= int(i) <= options for i in ids)
