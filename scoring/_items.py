"""The unit a report counts: one scored row, or one item aggregated over its samples."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from normalize import Result
from normalize import status as st
from normalize.core.pack import canonical_json
from normalize.io.row import Options, Row
from normalize.rules.extract import TRUNCATED_REASONING
from normalize.status import Status
from scoring._textsim import TextSettings
from scoring.metrics import SCORED, Outcome, Scored


@dataclass(frozen=True)
class Item:
    """One thing a report counts.

    ``outcome`` is a :class:`~scoring.metrics.Score` outcome (``scored``, ``no_answer``,
    ``no_target``, ``bad_target``); ``value`` in [0, 1] is what accuracies average (0 unless
    scored); ``option_count`` is K for multiple choice when the row says it.
    """

    task: str
    task_type: str | None
    status: Status
    outcome: Outcome
    value: float
    metric: str
    option_count: int | None = None
    run: str | None = None
    id: str | None = None
    n_samples: int = 1
    #: With --aggregate: how many of the item's samples were parsed (None: a row, not an aggregate).
    n_parsed: int | None = None
    #: The row's ``cluster`` (items sharing a passage or source): the bootstrap resamples clusters.
    cluster: str | None = None
    #: A structured_json row that gave no answer: ``malformed`` JSON, ``schema_invalid`` JSON or ``no_json``.
    json_failure: str | None = None
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
    #: A scored row's verdict, and other metrics' verdicts on it (``Score.alternatives``): the
    #: report counts where they disagree (the SQuAD metrics against the official script's).
    correct: bool | None = None
    alternatives: Mapping[str, bool] | None = None
    #: No answer because the output is all unfinished reasoning (reason ``truncated_reasoning``).
    truncated_reasoning: bool = False
    #: The task type's family (``extractive_qa`` for a pack's ``yes_no``); None: as ``task_type``.
    family: str | None = None

    @property
    def kind(self) -> str | None:
        """The family the report reads the item as (its task type's, else the task type)."""
        return self.family if self.family is not None else self.task_type


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
    #: Arena-Hard's strength of a preference (``A>>B``, ``A>B``, ``A=B``, ``B>A``, ``B>>A``), if stated.
    strength: str | None = None
    #: Why there is no verdict: ``truncated``, ``off_scale``, ``contradictory``, ``no_verdict``,
    #: ``wrong_kind`` (the parser's ``extra.judge_failure``) or ``invalid`` (the row failed before
    #: the parser: a bad row, no output, an error); None when there is a verdict.
    failure: str | None = None


#: A judge row's status → its failure kind when the result does not record one (rows read back).
_FAILURE_OF_STATUS: Final = {st.OUT_OF_RANGE: "off_scale", st.CONTRADICTORY: "contradictory",
                             st.NO_ANSWER: "no_verdict"}


def judge_info(scored: Scored) -> JudgeInfo | None:
    """The judge facts of a ``judge`` row, or None for other rows."""
    row, score = scored.row, scored.score
    if family_of(scored) != "judge":
        return None
    key = f"{task_label(row)}/{'' if row.id is None else canonical_json(row.id)}"
    if row.turn is not None:
        key += f"/turn={canonical_json(row.turn)}"
    answer = scored.result.answer if scored.result is not None and scored.status == st.OK else None
    config = score.config
    extra = scored.result.extra if scored.result is not None else {}
    strength = extra.get("strength")
    failure: str | None = None
    if scored.status != st.OK:
        recorded = extra.get("judge_failure")
        failure = recorded if isinstance(recorded, str) else _FAILURE_OF_STATUS.get(scored.status, "invalid")
    return JudgeInfo(
        key=key,
        verdict=answer if isinstance(answer, (str, int, float)) and not isinstance(answer, bool) else None,
        model_a=row.model_a, model_b=row.model_b, model=row.model,
        position_bias=config.position_bias if config else "tie",
        anchor=config.anchor if config else None,
        anchor_rating=config.anchor_rating if config else 1000.0,
        strength=strength if isinstance(strength, str) and scored.status == st.OK else None,
        failure=failure,
    )


def option_count(options: Options) -> int | None:
    """K from a row's option domain (option texts or a count), or None.

    >>> option_count(("Paris", "Lyon")), option_count(4), option_count(None)
    (2, 4, None)
    """
    return len(options) if isinstance(options, tuple) else options


def family_of(scored: Scored) -> str | None:
    """The family of a scored row's task type (a pack's own type is read as its family's), as
    its scoring settings resolved it; the row's task type when it has none."""
    config = scored.score.config
    return config.family if config is not None else scored.row.task_type


def task_label(row: Row) -> str:
    """The row's task, or ``(invalid row)`` for a line that held no usable task."""
    return row.task if row.task else "(invalid row)"


def item_of(scored: Scored) -> Item:
    """The report item for one scored row."""
    row, score = scored.row, scored.score
    return Item(
        task=task_label(row),
        task_type=row.task_type,
        status=scored.status,
        outcome=score.outcome,
        value=score.value,
        metric=score.metric,
        option_count=option_count(row.options),
        run=row.run,
        id=None if row.id is None else str(row.id),
        hypothesis=score.texts[0] if score.texts else None,
        references=score.texts[1] if score.texts else (),
        text=score.config.text if score.texts and score.config else None,
        ranking=score.ranking,
        judge=judge_info(scored),
        found_by=found_by(scored.result),
        correct=score.correct,
        alternatives=score.alternatives if score.outcome == SCORED else None,
        cluster=row.cluster,
        json_failure=json_failure(scored.result) if family_of(scored) == "structured_json" else None,
        truncated_reasoning=truncated_reasoning(scored.result),
        family=family_of(scored),
    )


def truncated_reasoning(result: Result | None) -> bool:
    """Whether the row has no answer because the token budget ran out while the model was still
    reasoning (an unclosed ``<think>`` block, or an empty output beside ``reasoning_content``)."""
    return result is not None and result.status == st.NO_ANSWER and TRUNCATED_REASONING in (result.reason or "")


def found_by(result: Result | None) -> str | None:
    """How the chain found the answer statement (``extra.found_by`` of the result), or None."""
    method = None if result is None else result.extra.get("found_by")
    if result is not None and method == "last_number" and isinstance(result.extra.get("answer_format"), str):
        return "answer_format"  # the number a named format (<answer>…</answer>) encloses: stated
    return method if isinstance(method, str) else None


def json_failure(result: Result | None) -> str | None:
    """Why a structured-output row gave no answer: ``schema_invalid`` (the JSON parsed but its
    JSON Schema refused it), ``no_json`` (no JSON in the output) or ``malformed`` (JSON that
    does not parse, or that breaks the parser's limits); None when it was parsed.

    >>> from normalize.core.pack import load_pack
    >>> schema = {"properties": {"age": {"type": "integer"}}}
    >>> [json_failure(load_pack().run(t, "structured_json", schema=schema)) for t in ('{"age": 1}', '{"age": "x"}',
    ...  '{age: 1', 'none')]
    [None, 'schema_invalid', 'malformed', 'no_json']
    """
    if result is None or result.status == st.OK:
        return None
    reason = result.reason or ""
    if reason.startswith(("align_json_schema", "row schema:")):
        return "schema_invalid"
    if result.status == st.NO_ANSWER:
        return "no_json"
    return "malformed"
