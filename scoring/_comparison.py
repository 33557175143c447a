"""Two scored runs side by side: paired differences per task and overall, and the items that flipped.

Items are matched on ``(task, id)``; several rows of one item (runs, samples) are averaged
into one value per side, as ``normalize compare`` does.  An item counts when it is scorable
on both sides (a target it can be compared with); ids present on one side only are counted
and left out.  Each task's difference B − A gets a paired percentile bootstrap interval
(items resampled together), with the same seed, resample count and confidence for all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from normalize.core.pack import canonical_json
from normalize.io.row import Row
from scoring._items import task_label
from scoring.metrics import NO_ANSWER, SCORED, Scored
from scoring.stats import paired_bootstrap

__all__ = ["compare_runs", "item_key"]


def item_key(row: Row) -> tuple[str, str] | None:
    """``(task, id)`` of a row, the id in canonical JSON unless it is a string; None without an id."""
    if row.id is None:
        return None
    return task_label(row), row.id if isinstance(row.id, str) else canonical_json(row.id)


def _per_item(scored: Sequence[Scored]) -> dict[tuple[str, str], tuple[float, int]]:
    """Mean value per item over its scorable rows, and the position of its first row."""
    sums: dict[tuple[str, str], list[float]] = {}
    first: dict[tuple[str, str], int] = {}
    for position, sample in enumerate(scored):
        key = item_key(sample.row)
        if key is None or sample.score.outcome not in (SCORED, NO_ANSWER):
            continue
        sums.setdefault(key, []).append(sample.score.value)
        first.setdefault(key, position)
    return {key: (math.fsum(v) / len(v), first[key]) for key, v in sums.items()}


def _verdict(value: float, sample: Scored) -> str:
    if sample.status != "ok":
        return "unparsed"
    return "right" if value >= 1.0 else ("wrong" if value <= 0.0 else f"{value:.3f}")


def _answer(sample: Scored) -> Any:
    return None if sample.result is None else sample.result.answer


def compare_runs(
    a_scored: Sequence[Scored],
    b_scored: Sequence[Scored],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Paired comparison of B against A: per task and overall, plus every flipped item."""
    a = _per_item(a_scored)
    b = _per_item(b_scored)
    shared = [key for key in a if key in b]
    by_task: dict[str, list[tuple[str, str]]] = {}
    for key in shared:
        by_task.setdefault(key[0], []).append(key)

    def paired(keys: Sequence[tuple[str, str]], name: str) -> dict[str, Any]:
        xs = [a[k][0] for k in keys]
        ys = [b[k][0] for k in keys]
        result = paired_bootstrap(xs, ys, n_resamples=n_resamples, seed=seed, confidence=confidence)
        return {
            "name": name, "n": len(keys), "mean_a": math.fsum(xs) / len(xs), "mean_b": math.fsum(ys) / len(ys),
            "diff": result.diff, "low": result.low, "high": result.high, "p_b_le_a": result.p_b_le_a,
            "gained": sum(1 for x, y in zip(xs, ys, strict=True) if y > x),
            "lost": sum(1 for x, y in zip(xs, ys, strict=True) if y < x),
        }

    flipped: list[dict[str, Any]] = []
    for key in shared:
        (value_a, pos_a), (value_b, pos_b) = a[key], b[key]
        if value_a == value_b:
            continue
        one, two = a_scored[pos_a], b_scored[pos_b]
        flipped.append({
            "task": key[0], "id": key[1], "direction": "gained" if value_b > value_a else "lost",
            "value_a": value_a, "value_b": value_b,
            "verdict_a": _verdict(value_a, one), "verdict_b": _verdict(value_b, two),
            "status_a": one.status, "status_b": two.status,
            "answer_a": _answer(one), "answer_b": _answer(two),
            "output_a": one.row.output, "output_b": two.row.output,
            "target": one.row.target,
        })
    return {
        "bootstrap": {"method": "paired percentile", "n_resamples": n_resamples, "seed": seed,
                      "confidence": confidence},
        "shared": len(shared),
        "only_in_a": sum(1 for key in a if key not in b),
        "only_in_b": sum(1 for key in b if key not in a),
        "tasks": [paired(keys, task) for task, keys in by_task.items()],
        "overall": paired(shared, "overall") if shared else None,
        "flipped": flipped,
    }
