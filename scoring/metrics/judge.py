"""The ``judge`` task type's metric: ``agreement`` of a judge's verdict with a human label.

Preferences agree when they are the same (``"A"``, ``"B"``, ``"tie"``); ratings when they are
within ``abs_tol``.  The pairwise settings (``position_bias``, ``anchor``, ``anchor_rating``)
are read by the report's pairwise section (see :mod:`scoring.pairwise`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from scoring.metrics._registry import (
    SCORED,
    MetricContext,
    MetricParams,
    Score,
    ScoringConfig,
    metric,
    short_repr,
    target_label,
    targets,
)
from scoring.metrics.numeric import numeric_match

__all__ = ["JudgeScoringParams"]


class JudgeScoringParams(MetricParams):
    """``abs_tol``: ratings within it agree; ``position_bias``: a pair judged in both orders with
    different winners is one ``tie`` (MT-Bench) or dropped (``drop``); ``anchor``: the model
    fixed at ``anchor_rating`` on the Elo scale (default: the first model by name)."""

    abs_tol: float = Field(0.0, ge=0)
    position_bias: Literal["tie", "drop"] = "tie"
    anchor: str | None = Field(None, min_length=1)
    anchor_rating: float = 1000.0


def _agrees(answer: Any, gold: Any, abs_tol: float) -> bool:
    if isinstance(gold, str) or isinstance(answer, str):
        return bool(answer == gold)
    return numeric_match(answer, gold, abs_tol=abs_tol)


@targets("judge")
def read_judge_targets(
    target: Any, aliases: Sequence[Any], config: ScoringConfig, options: Sequence[str] | int | None
) -> list[Any]:
    """Each accepted label: ``A``, ``B`` or ``tie`` (``C`` stands for it), or a rating number."""
    return [_judge_target(t, target_label(i)) for i, t in enumerate([target, *aliases])]


def _judge_target(target: Any, what: str) -> str | int | float:
    if isinstance(target, str):
        token = target.strip().upper()
        if token in ("A", "B"):
            return token
        if token in ("TIE", "C"):
            return "tie"
    elif isinstance(target, (int, float)) and not isinstance(target, bool) and math.isfinite(target):
        return target
    raise ValueError(f"{what} must be 'A', 'B', 'tie' (or 'C') or a rating number for judge, got {short_repr(target)}")


@metric("agreement", task_types=("judge",), params=JudgeScoringParams, default=True)
def agreement(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """The verdict equals a label (ratings within ``abs_tol``)."""
    hit = any(_agrees(answer, g, config.abs_tol) for g in golds)
    return Score(hit, float(hit), config.metric, SCORED)
