"""Ranking metrics for the ``ranking`` task type: nDCG@k (the default), MRR, MAP, Recall@k, Hit@k.

The answer is the ranked list of ids the ``ranking`` parser read; the target is relevance
labels (see :mod:`scoring._ranking`).  The row's ``value`` is the chosen metric, ``correct`` is
Hit@k, and every ranking metric of the row rides along for the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from scoring._ranking import RANKING_METRICS, ranking_scores, read_ranking, read_relevance
from scoring.metrics._registry import (
    SCORED,
    MetricContext,
    MetricParams,
    Score,
    ScoringConfig,
    metric,
    targets,
)
from scoring.metrics.json import read_json_value

__all__ = ["RankingParams"]


class RankingParams(MetricParams):
    """``k``: the cutoff (none: the whole list); ``gain``: nDCG gain, ``exponential`` (2^g − 1) or
    ``linear`` (g, as scikit-learn)."""

    k: int | None = Field(None, ge=1)
    gain: Literal["exponential", "linear"] = "exponential"


def _ranking(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    try:
        ranked = read_ranking(answer)
    except ValueError as exc:
        return Score(False, 0.0, config.metric, SCORED, str(exc), ranking=dict.fromkeys(RANKING_METRICS, 0.0))
    gain: Literal["exponential", "linear"] = "linear" if config.gain == "linear" else "exponential"
    scores = ranking_scores(ranked, golds[0], k=config.k, gain=gain)
    return Score(scores["hit"] == 1.0, scores[config.metric], config.metric, SCORED, ranking=scores)


@targets("ranking")
def read_ranking_targets(
    target: Any, aliases: Sequence[Any], config: ScoringConfig, options: Sequence[str] | int | None
) -> list[Any]:
    """The target's relevance labels (JSON: an object of id → grade, or a list of relevant ids);
    aliases are not read (one set of labels per row)."""
    return [read_relevance(read_json_value(target, "the target"))]


for _rank, _name in enumerate(RANKING_METRICS):
    metric(_name, task_types=("ranking",), params=RankingParams, default=_rank == 0, rank=_rank)(_ranking)
