"""An inspect_ai scorer: the pack's parse of the completion, "no answer" kept apart from "wrong".

Use it as a task's scorer (``examples/inspect/tiny_math.py`` runs offline)::

    from scoring.integrations.inspect import normalized
    Task(dataset=..., solver=generate(), scorer=normalized("gsm8k"))

Each sample gets ``Score(value, answer, explanation, metadata)``: ``value`` is ``"C"``/``"I"``
(inspect's CORRECT/INCORRECT) for a yes/no metric, the F1 in [0, 1] for the F1 metrics, and
``"N"`` (inspect's NOANSWER) when the strict parser gave no answer — never a guess.  ``answer``
is the parsed answer as text, ``explanation`` says which rules changed the completion and why a
parse failed, and ``metadata`` holds the status, reason, normalized text, task type, metric and
the pack hash.  The scorer's metrics report, over all samples:

* ``strict_accuracy`` — unparsed counts as wrong (the number to publish);
* ``parse_rate`` — the share of samples with a parsed answer;
* ``valid_accuracy`` — accuracy among parsed answers only (NaN when none parsed);
* ``abstention_rate`` — the share of samples whose answer abstains (status ``abstained``:
  ``I don't know``; SimpleQA's "not attempted"): unparsed, so 0 in strict accuracy and left out
  of valid accuracy;
* ``stderr`` of the strict accuracy.

The three metrics read every epoch's score unreduced (``@metric(scores="unreduced")``): a reducer
would turn "N" into 0 and lose the difference between "no answer" and "wrong".
"""

from __future__ import annotations

import json
import math
from typing import Any

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    NOANSWER,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    metric,
    scorer,
    stderr,
    value_to_float,
)
from inspect_ai.solver import TaskState

from scoring.integrations._shared import Verdict, cached_pack, judge

__all__ = ["abstention_rate", "normalized", "parse_rate", "strict_accuracy", "to_score", "valid_accuracy"]

_TO_FLOAT = value_to_float()


def _strict(value: Value) -> float:
    """A sample's value in strict accuracy: NOANSWER is 0, C 1, I 0, a number itself."""
    return 0.0 if value == NOANSWER else _TO_FLOAT(value)


@metric(scores="unreduced")
def strict_accuracy() -> Metric:
    """Mean score with every unparsed answer counted as wrong."""

    def compute(scores: list[SampleScore]) -> float:
        values = [_strict(s.score.value) for s in scores]
        return sum(values) / len(values) if values else math.nan

    return compute


@metric(scores="unreduced")
def parse_rate() -> Metric:
    """Share of samples whose answer the strict parser accepted."""

    def compute(scores: list[SampleScore]) -> float:
        if not scores:
            return math.nan
        return sum(s.score.value != NOANSWER for s in scores) / len(scores)

    return compute


@metric(scores="unreduced")
def valid_accuracy() -> Metric:
    """Mean score among parsed answers only (NaN when none parsed): read it beside parse_rate."""

    def compute(scores: list[SampleScore]) -> float:
        values = [_TO_FLOAT(s.score.value) for s in scores if s.score.value != NOANSWER]
        return sum(values) / len(values) if values else math.nan

    return compute


@metric(scores="unreduced")
def abstention_rate() -> Metric:
    """Share of samples whose answer abstains (``metadata["status"] == "abstained"``)."""

    def compute(scores: list[SampleScore]) -> float:
        if not scores:
            return math.nan
        return float(sum((s.score.metadata or {}).get("status") == "abstained" for s in scores)) / len(scores)

    return compute


def _answer_text(answer: Any) -> str | None:
    if answer is None:
        return None
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False, sort_keys=True)


def to_score(verdict: Verdict) -> Score:
    """The inspect ``Score`` of one verdict (see the module docstring)."""
    metadata = {**verdict.to_json(), "normalized": verdict.normalized}
    changed = f"rules: {', '.join(verdict.rules)}" if verdict.rules else "no rule changed the completion"
    if not verdict.parsed:
        return Score(value=NOANSWER, answer=None, metadata=metadata,
                     explanation=f"no answer ({verdict.status}: {verdict.reason}); {changed}")
    if verdict.outcome != "scored":
        raise ValueError(f"cannot score sample for task {verdict.task!r}: {verdict.note}")
    value: Value
    if verdict.metric in ("f1", "field_f1"):
        value = verdict.value
    else:
        value = CORRECT if verdict.correct else INCORRECT
    verdict_text = "correct" if verdict.correct else "incorrect"
    return Score(value=value, answer=_answer_text(verdict.answer), metadata=metadata,
                 explanation=f"{verdict_text} by {verdict.metric} ({verdict.value:g}); {changed}")


def _target_value(target: Target, kind: str) -> Any:
    if kind in ("extractive_qa", "open_writing") and len(target) > 1:
        return list(target.target)
    return target.text


@scorer(metrics=[strict_accuracy(), parse_rate(), valid_accuracy(), abstention_rate(), stderr()])
def normalized(task: str, pack: str | None = None) -> Scorer:
    """Score ``state.output.completion`` with the pack's rules for ``task`` (a task name or type).

    ``pack`` is a pack YAML path (default: the shipped packs).  For multiple choice the sample's
    choices bound the letters (a letter past the last is ``out_of_range``, hence no answer).
    """
    the_pack = cached_pack(pack)
    kind = the_pack.task_type_of(task)  # resolved once; an unknown task fails when the task is built
    family = the_pack.task_types[kind].family

    async def score(state: TaskState, target: Target) -> Score:
        choices = [c.value for c in state.choices] if len(state.choices) else None
        completion = state.output.completion if state.output is not None else None
        return to_score(judge(the_pack, completion, task, _target_value(target, family), options=choices,
                              task_type=kind))

    return score
