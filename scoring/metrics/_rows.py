"""Scoring rows: the accepted targets of a row, :func:`compare` (a registry lookup) and the row edge."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from normalize import Result
from normalize import status as st
from normalize.core.pack import Pack
from normalize.io.row import Row
from normalize.values.mathanswer import (
    NotMath,
    TimeUp,
    quantity_in_base,
    read_value,
    reading_of,
    unit_names,
)
from scoring._mathverify import MathVerifier
from scoring._ranking import RANKING_METRICS
from scoring.metrics._registry import (
    BAD_TARGET,
    METRIC_REGISTRY,
    NO_ANSWER,
    NO_TARGET,
    SCORED,
    MetricContext,
    Score,
    ScoringConfig,
    scoring_config,
)
from scoring.metrics.exact import alias_candidates, as_text


def read_targets(
    config: ScoringConfig,
    target: Any,
    aliases: Any = None,
    options: Sequence[str] | int | None = None,
) -> list[Any]:
    """The accepted targets of a row (target first, then its ``aliases``) in comparable form:
    a lookup of the target reader of ``config``'s family and metric (each lives beside its
    metrics: letters for multiple choice, JSON values for structured JSON, strings otherwise).
    ``ValueError`` names a target that cannot be read for the task type.

    >>> read_targets(ScoringConfig("multiple_choice", "exact"), 2, ["d"], 4)
    ['C', 'D']
    """
    reader = METRIC_REGISTRY.reader(config.family, config.metric)
    return reader(target, _row_aliases(aliases), config, options)


def _row_aliases(aliases: Any) -> list[Any]:
    if aliases is None:
        return []
    if not isinstance(aliases, list):
        raise ValueError(f"aliases must be a list, got {aliases!r}")
    return list(aliases)


def compare(
    config: ScoringConfig,
    answer: Any,
    golds: Sequence[Any],
    *,
    alias_groups: Sequence[Sequence[str]] = (),
    verifier: MathVerifier | None = None,
    answer_units: Sequence[str] | None = None,
) -> Score:
    """Compare a parsed answer with targets from :func:`read_targets` using ``config``'s metric
    (looked up in the metric registry); no answer is ``no_answer`` whatever the metric.

    >>> compare(ScoringConfig("extractive_qa", "f1", f1_threshold=0.5), "the red house", ["red house", "home"])
    Score(correct=True, value=1.0, metric='f1', outcome='scored', note=None, answer='the red house')
    """
    kind = config.family
    refs: tuple[str, ...] | None = None
    if kind in _TEXT_FAMILIES and config.text.metrics:
        refs = tuple(alias_candidates([g for g in golds if isinstance(g, str)], alias_groups))
    if answer is None:
        return Score(None, 0.0, config.metric, NO_ANSWER, texts=None if refs is None else ("", refs),
                     ranking=dict.fromkeys(RANKING_METRICS, 0.0) if kind == "ranking" else None, config=config)
    definition = METRIC_REGISTRY.get(kind, config.metric)
    score = definition.fn(answer, golds, config, MetricContext(alias_groups, verifier, answer_units))
    return replace(score, answer=answer, texts=None if refs is None else (as_text(answer), refs), config=config)


def score_answer(
    config: ScoringConfig,
    answer: Any,
    target: Any,
    *,
    aliases: Any = None,
    alias_groups: Sequence[Sequence[str]] = (),
    options: Sequence[str] | int | None = None,
    verifier: MathVerifier | None = None,
) -> Score:
    """:func:`read_targets` then :func:`compare`; a target that cannot be read raises ``ValueError``.

    >>> cfg = ScoringConfig("math", "numeric")
    >>> score_answer(cfg, "0.5", "1/2").correct, score_answer(cfg, None, "1/2").outcome
    (True, 'no_answer')
    """
    golds = read_targets(config, target, aliases, options)
    return compare(config, answer, golds, alias_groups=alias_groups, verifier=verifier)


# --------------------------------------------------------------------------- scoring rows


#: The families whose rows the text metrics (BLEU, ROUGE, ...) read: their references are texts.
_TEXT_FAMILIES = ("extractive_qa", "open_writing")


def row_task_type(pack: Pack, row: Mapping[str, Any]) -> str | None:
    """An output row's task type for scoring: its ``task_type`` when the pack or metrics know
    it, else its task's."""
    kind = row.get("task_type")
    if isinstance(kind, str) and (kind in pack.task_types or METRIC_REGISTRY.names(kind)):
        return kind
    task = row.get("task")
    if not isinstance(task, str):
        return None
    try:
        return pack.task_type_of(task)
    except ValueError:
        return None


def score_result(pack: Pack, row: Row, result: Result | None, *, verifier: MathVerifier | None = None) -> Score:
    """Score one row from what the pack made of it: ``(Row, Result) -> Score``.

    A row without a target is ``no_target``; ``result`` is ``None`` when the row's task is
    unknown (or its line was not JSON): ``no_answer`` when it has a target.  A pack ``scoring:``
    error raises ``ValueError``; a target that cannot be read gives ``bad_target``.
    """
    if row.target is None:
        config = None if result is None else scoring_config(
            pack, row.task if row.task is not None else result.task_type, result.task_type)
        return Score(None, 0.0, "none", NO_TARGET, "the row has no target", config=config)
    if result is None:
        return Score(None, 0.0, "none", NO_ANSWER, "the row has no known task")
    kind = result.task_type
    config = scoring_config(pack, row.task if row.task is not None else kind, kind)
    answer = result.answer if result.status == st.OK else None
    try:
        golds = read_targets(config, row.target, row.aliases, row.options)
    except ValueError as exc:
        return Score(None, 0.0, config.metric, BAD_TARGET, str(exc), answer=answer)
    # the answer's units: the parser's record (``extra.dropped``, absent when none), known for a
    # result of a run or a row that kept its ``extra``; unknown (None) for a bare answer
    dropped = result.extra.get("dropped", []) if result.raw is not None or result.extra else None
    units = tuple(str(u) for u in dropped) if isinstance(dropped, list) else None
    reading = result.extra.get("reading") if result.status != st.OK else None
    if isinstance(reading, str) and config.family == "math":
        stated = _stated_readings(golds)
        if stated:  # a range or compound quantity refused by the parser, against a gold that states one
            hit = reading in stated
            return Score(hit, float(hit), config.metric, SCORED, None if hit else f"{reading} is not {sorted(stated)[0]}")
    score = compare(config, answer, golds, alias_groups=pack.alias_groups(), verifier=verifier, answer_units=units)
    return replace(score, answer=answer)


def _stated_readings(golds: Sequence[Any]) -> set[str]:
    """The golds that state a range or a quantity with a unit, as the accounting reader writes
    them (``range 3..4``, ``6300 s``): a compound-quantity answer (``1 hour 45 minutes``) is
    compared only with a gold that states a unit, a range answer only with the same range."""
    out: set[str] = set()
    for gold in golds:
        if not isinstance(gold, str):
            continue
        stated = reading_of(gold)
        if stated is None:
            try:
                value = read_value(gold)
            except (NotMath, TimeUp):
                continue
            units = sorted(unit_names(value.dropped))
            if value.kind == "number" and value.number is not None and len(units) == 1:
                stated = quantity_in_base(value.number, units[0])
        if stated is not None:
            out.add(stated)
    return out


@dataclass(frozen=True)
class Scored:
    """One row scored, typed end to end: the :class:`~normalize.io.row.Row`, what the pack made of it
    (its :class:`~normalize.Result`, ``None`` when the pack did not run it: a line that is not a
    JSON object, or no known task) and the :class:`Score`.  Reports and aggregation take these;
    dicts exist only where JSON is read (:func:`read_output_row`) or written."""

    row: Row
    result: Result | None
    score: Score

    @property
    def status(self) -> st.Status:
        """The row's status: the result's, ``invalid`` for a row the pack did not run."""
        return self.result.status if self.result is not None else st.INVALID


def read_output_row(pack: Pack, row: Mapping[str, Any], line: int = 0) -> tuple[Row, Result | None]:
    """An output row of :func:`normalize.io.rows.normalize_row` (fields ``answer``, ``status``,
    ``target``...) read back into a :class:`~normalize.io.row.Row` and a :class:`~normalize.Result`:
    the JSONL edge of a written run (``score --resume``, rows from a harness).  The row's
    ``task_type``, else its task's, decides the type; ``None`` for the result when neither is known.

    >>> from normalize import load_pack
    >>> row, result = read_output_row(load_pack(), {"task": "gsm8k", "answer": "4", "status": "ok", "target": 4})
    >>> row.target, result.task_type, result.answer
    (4, 'math', '4')
    """
    kind = row_task_type(pack, row)
    typed = Row.from_mapping(row, line)
    if kind is None:
        return typed, None
    task = row.get("task")
    result = Result(
        raw=None,
        text=row.get("normalized"),
        status=row.get("status", st.OK),
        reason=row.get("reason"),
        trace=(),
        task=task if isinstance(task, str) else kind,
        task_type=kind,
        answer=row.get("answer"),
        extra=row["extra"] if isinstance(row.get("extra"), dict) else {},
    )
    if isinstance(task, str) and typed.task is None:
        typed = replace(typed, task=task)  # an empty task name still picks its (empty) scoring entry
    return typed, result


def score_detail(pack: Pack, row: Mapping[str, Any], *, verifier: MathVerifier | None = None) -> Score:
    """Score an output row of :func:`normalize.io.rows.normalize_row` (fields ``answer``, ``target``...):
    the dict edge of :func:`score_result` (see :func:`read_output_row`)."""
    return score_result(pack, *read_output_row(pack, row), verifier=verifier)


def read_scored(pack: Pack, row: Mapping[str, Any], *, line: int = 0, verifier: MathVerifier | None = None) -> Scored:
    """An output row read back (:func:`read_output_row`) and scored."""
    typed, result = read_output_row(pack, row, line)
    return Scored(typed, result, score_result(pack, typed, result, verifier=verifier))


def score_row(pack: Pack, row: Mapping[str, Any]) -> bool | None:
    """True/False for a scored row; None when there is no target or no answer (see :class:`Score`)."""
    if _needs_verifier(pack, row):
        with MathVerifier() as verifier:
            return score_detail(pack, row, verifier=verifier).correct
    return score_detail(pack, row).correct


def _needs_verifier(pack: Pack, row: Mapping[str, Any]) -> bool:
    kind = row_task_type(pack, row)
    if kind is None or _family(pack, kind) != "math":
        return False
    task = row.get("task")
    return scoring_config(pack, task if isinstance(task, str) else kind, kind).metric == "math_verify"


def _family(pack: Pack, task_type: str) -> str:
    """The family of ``task_type`` in ``pack`` (a type the pack does not declare: its own name)."""
    declared = pack.task_types.get(task_type)
    return declared.family if declared is not None else task_type


def score_rows(pack: Pack, rows: Iterable[Mapping[str, Any]]) -> list[Score]:
    """Score many rows; one Math-Verify worker (started only if needed) serves them all."""
    with MathVerifier() as verifier:
        return [score_detail(pack, r, verifier=verifier) for r in rows]
