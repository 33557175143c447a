"""The unit a report counts: one scored row, or one item aggregated over its samples."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from normalize.pack import canonical_json
from normalize.row import Row
from scoring._textsim import TextSettings
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
    #: For corpus-level text metrics: the hypothesis ("" when unparsed), references, settings.
    hypothesis: str | None = None
    references: tuple[str, ...] = ()
    text: TextSettings | None = None
    #: Every ranking metric of a ranking row.
    ranking: Mapping[str, float] | None = None
    #: A judge row's verdict and who was compared (see :class:`JudgeInfo`).
    judge: JudgeInfo | None = None
    #: How the parser found the answer (``marker``, ``boxed``, ``last_number``), when the chain says.
    found_by: str | None = None


@dataclass(frozen=True)
class JudgeInfo:
    """What a judge row says about models: a pairwise verdict on ``model_a`` vs ``model_b``
    (``key`` pairs the two orders of one comparison) or a rating of ``model``."""

    key: str
    verdict: str | int | float | None
    model_a: str | None = None
    model_b: str | None = None
    model: str | None = None
    position_bias: str = "tie"
    anchor: str | None = None
    anchor_rating: float = 1000.0


def judge_info(row: Mapping[str, Any], score: Score) -> JudgeInfo | None:
    """The judge facts of a ``judge`` row, or None for other rows."""
    if row.get("task_type") != "judge":
        return None
    raw_id = row.get("id")
    key = f"{task_name(row)}/{'' if raw_id is None else canonical_json(raw_id)}"
    if row.get("turn") is not None:
        key += f"/turn={canonical_json(row['turn'])}"
    answer = row.get("answer") if row.get("status") == "ok" else None
    names = {f: row.get(f) if isinstance(row.get(f), str) and row.get(f) else None for f in ("model_a", "model_b", "model")}
    config = score.config
    return JudgeInfo(
        key=key,
        verdict=answer if isinstance(answer, (str, int, float)) and not isinstance(answer, bool) else None,
        model_a=names["model_a"], model_b=names["model_b"], model=names["model"],
        position_bias=config.position_bias if config else "tie",
        anchor=config.anchor if config else None,
        anchor_rating=config.anchor_rating if config else 1000.0,
    )


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
        hypothesis=score.texts[0] if score.texts else None,
        references=score.texts[1] if score.texts else (),
        text=score.config.text if score.texts and score.config else None,
        ranking=score.ranking,
        judge=judge_info(row, score),
        found_by=found_by(row),
    )


def found_by(row: Mapping[str, Any]) -> str | None:
    """``extra.found_by`` of an output row (how its answer statement was found), or None."""
    extra = row.get("extra")
    method = extra.get("found_by") if isinstance(extra, Mapping) else None
    return method if isinstance(method, str) else None
