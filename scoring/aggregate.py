"""Several samples per item: normalize and parse each sample first, then vote or aggregate.

Rows that share ``(run, task, id)`` are samples of one item (their ``sample`` field only
numbers them).  Modes:

* ``vote``: majority over *parsed answers*, compared by canonical form (numbers by value,
  JSON canonically), then the winning answer is scored.  ``None`` wins only when every sample
  is ``None``.  Ties go to the answer whose canonical form sorts first, which depends only on
  the answers, never on sample order; tied items are counted in the report.
* ``any``: the item is right when any sample is (its value is the best sample value).
* ``mean`` / ``median``: of the sample values, an unparsed sample counting 0.
* ``pass@k``: the unbiased estimator of Chen et al. (2021) from n samples with c correct.

Why vote on parsed answers and not on raw text or on scores — five samples, target ``42``:

>>> raw = ["The answer is 42.", "**42**", "42", "41", "41"]
>>> vote(raw).answer                      # raw-text vote: the three 42s are spelled apart
'41'
>>> vote(["42", "42", "42", "41", "41"], "math").answer   # after normalization: 42 wins
'42'

And target ``B`` with answers B, B, C, D, E: the plurality is B, so the vote is right; a
majority over per-sample *scores* sees 1, 1, 0, 0, 0 — every wrong answer lands in one bucket
"wrong" and outvotes the right one (mean 0.4):

>>> vote(["B", "B", "C", "D", "E"]).answer
'B'
>>> scores = [1, 1, 0, 0, 0]; sum(scores) / len(scores) > 0.5
False
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, cast

from normalize import Result
from normalize.errors import UsageError
from normalize.pack import Pack, canonical_json
from normalize.row import Row
from normalize.status import Status
from scoring._items import Item, option_count, run_label, task_name
from scoring.metrics import (
    NO_ANSWER,
    SCORED,
    MathVerifier,
    Score,
    canonicalize_json,
    parse_number,
    score_result,
)
from scoring.metrics._rows import row_task_type
from scoring.stats import pass_at_k

__all__ = ["AGGREGATES", "SampleAggregator", "VoteResult", "aggregate_rows", "answer_key", "group_samples", "slim_row",
           "vote"]

AGGREGATES: Final = ("vote", "any", "mean", "median", "pass@k")


def answer_key(answer: Any, task_type: str | None = None) -> str:
    """The canonical form votes compare: numbers by value for math, canonical JSON otherwise.

    >>> answer_key("0.5", "math") == answer_key("1/2", "math")
    True
    >>> answer_key({"b": 1, "a": 2.0})
    '{"a":2,"b":1}'
    """
    if task_type == "math":
        number = parse_number(answer)
        if number is not None:
            return f"number:{number}"
    return canonical_json(canonicalize_json(answer))


@dataclass(frozen=True)
class VoteResult:
    """The winning answer, its votes, the sample count, and whether the top count was shared."""

    answer: Any
    votes: int
    n_samples: int
    tied: bool


def vote(answers: Sequence[Any], task_type: str | None = None) -> VoteResult:
    """Plurality vote over parsed answers (None = no answer); order of samples never matters.

    >>> vote(["C", None, "A", "C", None, None]).answer
    'C'
    >>> r = vote(["B", "A", "A", "B"]); (r.answer, r.tied)
    ('A', True)
    >>> vote([None, None]).answer is None
    True
    """
    if not answers:
        raise ValueError("vote needs at least one sample, got none")
    counts: Counter[str] = Counter()
    representative: dict[str, Any] = {}
    for answer in answers:
        if answer is None:
            continue
        key = answer_key(answer, task_type)
        counts[key] += 1
        spelled = canonical_json(canonicalize_json(answer))
        if key not in representative or spelled < canonical_json(canonicalize_json(representative[key])):
            representative[key] = answer
    if not counts:
        return VoteResult(None, len(answers), len(answers), False)
    top = max(counts.values())
    leaders = sorted(key for key, count in counts.items() if count == top)
    return VoteResult(representative[leaders[0]], top, len(answers), len(leaders) > 1)


def group_samples(rows: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """Indexes of rows grouped by ``(run, task, id)``, groups in order of first appearance.

    A row without an ``id`` is an item of its own.

    >>> group_samples([{"id": 1, "task": "t"}, {"id": 2, "task": "t"}, {"id": 1, "task": "t"}, {"task": "t"}])
    [[0, 2], [1], [3]]
    """
    groups: dict[Any, list[int]] = {}
    for i, row in enumerate(rows):
        raw_id = row.get("id")
        key: Any = ("row", i) if raw_id is None else (run_label(row), task_name(row), canonical_json(raw_id))
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def _voted(pack: Pack, first: Mapping[str, Any], answer: Any, status: str) -> Result | None:
    """The item's result after the vote: the first sample's task and type, the winning answer."""
    kind = row_task_type(pack, first)
    if kind is None:
        return None
    task = first.get("task")
    return Result(raw=None, text=None, status=cast(Status, status), reason=None, trace=(),
                  task=task if isinstance(task, str) else kind, task_type=kind, answer=answer)


def _common_status(rows: Sequence[Mapping[str, Any]]) -> str:
    counts = Counter(str(r.get("status")) for r in rows)
    top = max(counts.values())
    return min(s for s, c in counts.items() if c == top)


def _item(rows: Sequence[Mapping[str, Any]], status: str, outcome: str, value: float, metric: str,
          tied: bool = False) -> Item:
    first = rows[0]
    kind = first.get("task_type")
    raw_id = first.get("id")
    return Item(
        task=task_name(first),
        task_type=kind if isinstance(kind, str) else None,
        status=status,
        outcome=outcome,
        value=value,
        metric=metric,
        option_count=option_count(first),
        run=run_label(first),
        id=None if raw_id is None else str(raw_id),
        n_samples=len(rows),
        tied=tied,
    )


def aggregate_rows(
    pack: Pack,
    rows: Sequence[Mapping[str, Any]],
    scores: Sequence[Score],
    mode: str,
    *,
    k: int | None = None,
    verifier: MathVerifier | None = None,
) -> list[Item]:
    """One report item per ``(run, task, id)`` from normalized rows and their per-sample scores.

    The target, aliases and options of an item are those of its first sample.  ``pass@k``
    needs ``k`` (at most the item's sample count; ``ValueError`` otherwise).
    """
    if len(rows) != len(scores):
        raise ValueError(f"got {len(rows)} rows but {len(scores)} scores")
    aggregator = SampleAggregator(pack, mode, k=k)
    for row, score in zip(rows, scores, strict=True):
        aggregator.add(row, score)
    return aggregator.items(verifier=verifier)


#: The fields of a scored row that aggregation reads; the rest (output, trace) is not kept.
KEPT_FIELDS: Final = ("id", "task", "task_type", "status", "answer", "target", "aliases", "options", "choices", "run")


def slim_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a row :class:`SampleAggregator` needs: no raw output, normalized text or trace."""
    return {key: row[key] for key in KEPT_FIELDS if key in row}


class SampleAggregator:
    """Groups samples by ``(run, task, id)`` as rows stream by; :meth:`items` gives one item per group.

    It holds, per sample, the fields in :data:`KEPT_FIELDS` and its score (never the raw
    output or trace), so memory grows with the samples but not with their text.
    """

    def __init__(self, pack: Pack, mode: str, *, k: int | None = None) -> None:
        if mode not in AGGREGATES:
            raise UsageError(f"unknown aggregate {mode!r}; choose one of {', '.join(AGGREGATES)}")
        if mode == "pass@k" and (k is None or isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise UsageError(f"pass@k needs a positive integer k, got {k!r}")
        self.pack, self.mode = pack, mode
        self.draws = k if isinstance(k, int) else 0
        self.groups: dict[Any, list[tuple[dict[str, Any], Score]]] = {}
        self.count = 0

    def add(self, row: Mapping[str, Any], score: Score) -> None:
        raw_id = row.get("id")
        key: Any = ("row", self.count) if raw_id is None else (run_label(row), task_name(row), canonical_json(raw_id))
        self.count += 1
        self.groups.setdefault(key, []).append((slim_row(row), score))

    def items(self, *, verifier: MathVerifier | None = None) -> list[Item]:
        """One item per group, in order of first appearance."""
        return [self._item_of(group, verifier) for group in self.groups.values()]

    def _item_of(self, group: list[tuple[dict[str, Any], Score]], verifier: MathVerifier | None) -> Item:
        members = [row for row, _ in group]
        marks = [score for _, score in group]
        first = marks[0]
        if first.outcome not in (SCORED, NO_ANSWER):  # no_target / bad_target: the item is unscorable
            return _item(members, _common_status(members), first.outcome, 0.0, first.metric)
        if self.mode == "vote":
            kind = members[0].get("task_type")
            result = vote([m.answer for m in marks], kind if isinstance(kind, str) else None)
            status = "ok" if result.answer is not None else _common_status(members)
            first_row = Row.from_mapping(members[0])
            task = members[0].get("task")
            if isinstance(task, str) and first_row.task is None:
                first_row = replace(first_row, task=task)  # an empty task name keeps its (empty) scoring entry
            # the winner is scored as (Row, Result) from the typed answers of the scores
            verdict = score_result(self.pack, first_row, _voted(self.pack, members[0], result.answer, status),
                                   verifier=verifier)
            return _item(members, status, verdict.outcome, verdict.value, verdict.metric, result.tied)
        scored = [m for m in marks if m.outcome == SCORED]
        outcome = SCORED if scored else NO_ANSWER
        status = "ok" if scored else _common_status(members)
        values = [m.value for m in marks]
        if self.mode == "any":
            value = max(values)
        elif self.mode == "mean":
            value = statistics.fmean(values)
        elif self.mode == "median":
            value = float(statistics.median(values))
        else:
            if self.draws > len(members):
                raise UsageError(f"pass@{self.draws} needs at least {self.draws} samples, "
                                 f"but item {members[0].get('id')!r} has {len(members)}")
            value = pass_at_k(len(members), sum(1 for m in marks if m.correct), self.draws)
        return _item(members, status, outcome, value if scored else 0.0, first.metric)
