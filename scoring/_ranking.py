"""Ranking metrics for retrieval and reranking rows: a ranked list of ids and relevance labels.

Written here rather than taken from a library: the formulas are a few lines each, and the
libraries that have them either want dense score matrices (scikit-learn's ``ndcg_score``,
whose gain is linear) or a TREC run-file toolchain (``pytrec_eval``).  Definitions (``k``
cuts the ranking; ``None`` = the whole list):

* **RR** (reciprocal rank): 1 / rank of the first relevant id, 0 if none (mean over rows: MRR).
* **AP** (average precision): the mean, over *all* relevant ids, of precision at the rank where
  each is retrieved (0 for one never retrieved) — as ``trec_eval``'s ``map``.
* **nDCG@k**: DCG = Σ gain(g_i) / log2(i + 1) over the top k, divided by the DCG of the ideal
  order of all labelled ids; gain ``2^g − 1`` (exponential, Burges et al.; the seed lecture)
  or ``g`` (linear, scikit-learn).
* **Recall@k**: relevant ids in the top k / all relevant ids.  **Hit@k**: 1 when any is.

Relevance labels are a mapping ``id → grade`` (grade ≥ 0; > 0 is relevant) or a list of the
relevant ids (grade 1).  Ids compare as strings, so ``3`` and ``"3"`` are one id.  A ranked
id that appears twice counts at its first rank only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

__all__ = ["RANKING_METRICS", "ranking_scores", "read_ranking", "read_relevance"]

RANKING_METRICS: Final = ("ndcg", "mrr", "map", "recall", "hit")

Gain = Literal["exponential", "linear"]


def _id(value: Any, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"{what} must be a string or an integer id, got {value!r}")
    return str(value)


def read_relevance(target: Any) -> dict[str, float]:
    """Relevance grades from a row's target: ``{id: grade}`` or a list of relevant ids.

    >>> read_relevance({"d1": 2, "d7": 0}), read_relevance(["d1", 3])
    ({'d1': 2.0, 'd7': 0.0}, {'d1': 1.0, '3': 1.0})
    """
    if isinstance(target, Mapping):
        grades: dict[str, float] = {}
        for key, grade in target.items():
            if isinstance(grade, bool) or not isinstance(grade, (int, float)) or not math.isfinite(grade) or grade < 0:
                raise ValueError(f"relevance grade of {key!r} must be a number >= 0, got {grade!r}")
            grades[_id(key, "a relevance key")] = float(grade)
        return grades
    if isinstance(target, list):
        return {_id(v, "a relevant id"): 1.0 for v in target}
    raise ValueError(f"relevance labels must be a mapping id -> grade or a list of relevant ids, got {target!r}")


def read_ranking(answer: Any) -> list[str]:
    """The ranked ids of a parsed answer (a list), first occurrence of each kept.

    >>> read_ranking(["d3", "d1", "d3", 2])
    ['d3', 'd1', '2']
    """
    if not isinstance(answer, list):
        raise ValueError(f"a ranking must be a list of ids, got {type(answer).__name__}")
    seen: dict[str, None] = {}
    for i, v in enumerate(answer):
        seen.setdefault(_id(v, f"ranking[{i}]"), None)
    return list(seen)


def _gain(grade: float, gain: Gain) -> float:
    return 2.0**grade - 1.0 if gain == "exponential" else grade


def ranking_scores(ranking: Sequence[str], grades: Mapping[str, float], *, k: int | None = None,
                   gain: Gain = "exponential") -> dict[str, float]:
    """RR, AP, nDCG@k, Recall@k and Hit@k of one ranked list (keys ``mrr``, ``map``, ``ndcg``,
    ``recall``, ``hit``).  Without any relevant id every score is 0.

    The seed lecture's list · ● · ◐ ● · · ◐ · · (● grade 2, ◐ grade 1):

    >>> ids = [f"d{i}" for i in range(1, 11)]
    >>> s = ranking_scores(ids, {"d2": 2, "d4": 1, "d5": 2, "d8": 1}, k=10)
    >>> round(s["mrr"], 3), round(s["map"], 3), round(s["ndcg"], 3)
    (0.5, 0.525, 0.652)
    """
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ValueError(f"k must be a positive integer, got {k!r}")
    top = list(ranking[:k]) if k is not None else list(ranking)
    relevant = {i for i, g in grades.items() if g > 0}
    if not relevant:
        return dict.fromkeys(RANKING_METRICS, 0.0)
    rr = 0.0
    hits = 0
    precision_sum = 0.0
    dcg = 0.0
    for rank, doc in enumerate(top, start=1):
        grade = grades.get(doc, 0.0)
        if grade > 0:
            hits += 1
            precision_sum += hits / rank
            if rr == 0.0:
                rr = 1.0 / rank
        dcg += _gain(grade, gain) / math.log2(rank + 1)
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum(_gain(g, gain) / math.log2(r + 1) for r, g in enumerate(ideal, start=1))
    return {
        "ndcg": dcg / idcg if idcg > 0 else 0.0,
        "mrr": rr,
        "map": precision_sum / len(relevant),
        "recall": hits / len(relevant),
        "hit": float(hits > 0),
    }
