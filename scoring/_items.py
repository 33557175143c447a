"""The unit a report counts: one scored row, or one item aggregated over its samples."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from normalize.row import Row
from scoring.metrics import Score


@dataclass(frozen=True)
class Item:
    """One thing a report counts.

    ``outcome`` is a :class:`~scoring.metrics.Score` outcome (``scored``, ``no_answer``,
    ``no_target``, ``bad_target``); ``value`` in [0, 1] is what accuracies average (0 unless
    scored); ``option_count`` is K for multiple choice when the row says it.
    """

    task: str
    task_type: str | None
    status: str
    outcome: str
    value: float
    metric: str
    option_count: int | None = None
    run: str | None = None
    id: str | None = None
    n_samples: int = 1
    tied: bool = False
    #: How the parser found the answer (``marker``, ``boxed``, ``last_number``), when the chain says.
    found_by: str | None = None


def option_count(row: Mapping[str, Any]) -> int | None:
    """K from a row's ``options`` (a list of texts or a count), or None."""
    options = Row.from_mapping(row).options
    return len(options) if isinstance(options, tuple) else options


def run_label(row: Mapping[str, Any]) -> str | None:
    """The row's ``run`` as a string label, or None when it has none."""
    run = row.get("run")
    return None if run is None else str(run)


def task_name(row: Mapping[str, Any]) -> str:
    """The row's task, or ``(invalid row)`` for a line that held no usable task."""
    task = row.get("task")
    return task if isinstance(task, str) and task else "(invalid row)"


def item_from_row(row: Mapping[str, Any], score: Score) -> Item:
    """The report item for one output row and its score."""
    kind = row.get("task_type")
    raw_id = row.get("id")
    return Item(
        task=task_name(row),
        task_type=kind if isinstance(kind, str) else None,
        status=str(row.get("status")),
        outcome=score.outcome,
        value=score.value,
        metric=score.metric,
        option_count=option_count(row),
        run=run_label(row),
        id=None if raw_id is None else str(raw_id),
        found_by=found_by(row),
    )


def found_by(row: Mapping[str, Any]) -> str | None:
    """``extra.found_by`` of an output row (how its answer statement was found), or None."""
    extra = row.get("extra")
    method = extra.get("found_by") if isinstance(extra, Mapping) else None
    return method if isinstance(method, str) else None
