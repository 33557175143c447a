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

import hashlib
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from normalize import Result
from normalize import status as st
from normalize.core.pack import Pack, canonical_json
from normalize.errors import UsageError
from normalize.io.row import Row
from normalize.status import Status
from scoring._items import Item, family_of, option_count, task_label
from scoring.metrics import (
    NO_ANSWER,
    SCORED,
    MathVerifier,
    Outcome,
    Scored,
    canonicalize_json,
    parse_number,
    score_result,
)
from scoring.stats import pass_at_k

__all__ = ["AGGREGATES", "SampleAggregator", "TargetConflicts", "VoteResult", "aggregate_rows", "answer_key", "group_samples", "slim",
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


def group_samples(rows: Sequence[Row]) -> list[list[int]]:
    """Indexes of rows grouped by ``(run, task, id)``, groups in order of first appearance.

    A row without an ``id`` is an item of its own.

    >>> rows = [{"id": 1, "task": "t"}, {"id": 2, "task": "t"}, {"id": 1, "task": "t"}, {"task": "t"}]
    >>> group_samples([Row.from_mapping(r) for r in rows])
    [[0, 2], [1], [3]]
    """
    groups: dict[Any, list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault(_sample_key(row, i), []).append(i)
    return list(groups.values())


def _sample_key(row: Row, position: int) -> Any:
    """Samples of one item share ``(run, task, id)``; a row without an id is its own item."""
    return ("row", position) if row.id is None else (row.run, task_label(row), canonical_json(row.id))


def _voted(first: Result | None, answer: Any, status: Status) -> Result | None:
    """The item's result after the vote: the first sample's task and type, the winning answer
    (a bare answer: its units are unknown, as for any answer without its parser's record)."""
    if first is None:
        return None
    return Result(raw=None, text=None, status=status, reason=None, trace=(), task=first.task,
                  task_type=first.task_type, answer=answer)


def _common_status(samples: Sequence[Scored]) -> Status:
    counts = Counter(sample.status for sample in samples)
    top = max(counts.values())
    return min(s for s, c in counts.items() if c == top)


def _item(samples: Sequence[Scored], status: Status, outcome: Outcome, value: float, metric: str,
          tied: bool = False) -> Item:
    first = samples[0].row
    return Item(
        task=task_label(first),
        task_type=first.task_type,
        status=status,
        outcome=outcome,
        value=value,
        metric=metric,
        option_count=option_count(first.options),
        run=first.run,
        id=None if first.id is None else str(first.id),
        n_samples=len(samples),
        n_parsed=sum(1 for sample in samples if sample.status == st.OK),
        cluster=first.cluster,
        tied=tied,
        family=family_of(samples[0]),
    )


def aggregate_rows(
    pack: Pack,
    samples: Sequence[Scored],
    mode: str,
    *,
    k: int | None = None,
    verifier: MathVerifier | None = None,
) -> list[Item]:
    """One report item per ``(run, task, id)`` from scored samples (:class:`~scoring.metrics.Scored`).

    The target, aliases and options of an item are those of its first sample (samples that
    disagree are counted in the aggregator's :class:`TargetConflicts`).  ``pass@k``
    needs ``k`` (at most the item's sample count; ``ValueError`` otherwise).
    """
    aggregator = SampleAggregator(pack, mode, k=k)
    for sample in samples:
        aggregator.add(sample)
    return aggregator.items(verifier=verifier)


def slim(sample: Scored) -> Scored:
    """The part of a scored sample :class:`SampleAggregator` keeps: no raw output, normalized
    text, trace, parser notes or input JSON."""
    row, result = sample.row, sample.result
    return Scored(
        replace(row, output=None, data={}),
        None if result is None else replace(result, raw=None, text=None, trace=(), extra={}),
        sample.score,
    )


def _gold(row: Row) -> str:
    """What a row is scored against (target, aliases, options) in canonical JSON."""
    gold = {"target": row.target, "aliases": row.aliases, "options": row.options}
    gold = {key: value for key, value in gold.items() if value is not None}
    try:
        return canonical_json(gold["target"] if list(gold) == ["target"] else gold)
    except (ValueError, TypeError):  # a NaN target, a value JSON cannot hold: compared as written
        return repr(gold)


def _id_label(row: Row) -> str:
    run = f"run {row.run!r}, " if row.run is not None else ""
    return f"{run}{task_label(row)}/{row.id if isinstance(row.id, str) else canonical_json(row.id)}"


class TargetConflicts:
    """Ids whose rows disagree on what they are scored against (target, aliases or options).

    Rows that share ``(run, task, id)`` are one item's samples; with ``--aggregate`` the item is
    scored against its first sample's target, so a later sample with another target is a data
    error: counted here (each id once, with the first pair of lines), or, ``strict``, a
    :class:`UsageError` naming the id, both targets and their lines.  Memory per id: a 16-byte
    digest and the first target clipped to 80 characters.
    """

    def __init__(self, *, strict: bool = False) -> None:
        self.strict = strict
        self._first: dict[Any, tuple[bytes, int, str]] = {}
        #: ``task/id`` → the first conflict's description, in order of discovery.
        self.ids: dict[Any, str] = {}

    def add(self, row: Row, key: Any | None = None) -> None:
        """Check ``row`` against its id's first row (``key``: its sample key, when known)."""
        if row.id is None:
            return
        key = key if key is not None else _sample_key(row, 0)
        gold = _gold(row)
        digest = hashlib.blake2b(gold.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        first = self._first.get(key)
        if first is None:
            self._first[key] = (digest, row.line, _clip(gold))
            return
        if first[0] == digest or key in self.ids:
            return
        what = f"{_id_label(row)}: line {first[1]} gives {first[2]}, line {row.line} gives {_clip(gold)}"
        if self.strict:
            raise UsageError(f"--strict-ids: id {what}; fix the data, or leave out --strict-ids to score each item "
                             "against its first sample's target")
        self.ids[key] = what

    def __len__(self) -> int:
        return len(self.ids)

    def summary(self, limit: int = 20) -> dict[str, Any]:
        """For the report: how many ids conflict, and the first ``limit`` of them."""
        return {"ids": len(self.ids), "first": list(self.ids.values())[:limit]}


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class SampleAggregator:
    """Groups scored samples by ``(run, task, id)`` as rows stream by; :meth:`items` gives one item per group.

    It takes :class:`~scoring.metrics.Scored` samples (``TypeError`` for anything else, a dict
    included) and holds each one slimmed (:func:`slim`: never the raw output or trace), so
    memory grows with the samples but not with their text.
    """

    def __init__(self, pack: Pack, mode: str, *, k: int | None = None, strict_ids: bool = False) -> None:
        if mode not in AGGREGATES:
            raise UsageError(f"unknown aggregate {mode!r}; choose one of {', '.join(AGGREGATES)}")
        if mode == "pass@k" and (k is None or isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise UsageError(f"pass@k needs a positive integer k, got {k!r}")
        self.pack, self.mode = pack, mode
        self.draws = k if isinstance(k, int) else 0
        self.groups: dict[Any, list[Scored]] = {}
        self.count = 0
        #: Items whose samples disagree on the target (scored against the first sample's).
        self.conflicts = TargetConflicts(strict=strict_ids)

    def add(self, sample: Scored) -> None:
        if not isinstance(sample, Scored):
            raise TypeError(f"SampleAggregator.add takes a Scored sample, got {type(sample).__name__}")
        key = _sample_key(sample.row, self.count)
        self.count += 1
        self.conflicts.add(sample.row, key)
        self.groups.setdefault(key, []).append(slim(sample))

    def items(self, *, verifier: MathVerifier | None = None) -> list[Item]:
        """One item per group, in order of first appearance."""
        return [self._item_of(group, verifier) for group in self.groups.values()]

    def _item_of(self, group: list[Scored], verifier: MathVerifier | None) -> Item:
        marks = [sample.score for sample in group]
        first = group[0]
        if first.score.outcome not in (SCORED, NO_ANSWER):  # no_target / bad_target: the item is unscorable
            return _item(group, _common_status(group), first.score.outcome, 0.0, first.score.metric)
        if self.mode == "vote":
            result = vote([m.answer for m in marks], family_of(first))
            status: Status = st.OK if result.answer is not None else _common_status(group)
            # the winner is scored as (Row, Result): the first sample's row, the winning answer
            verdict = score_result(self.pack, first.row, _voted(first.result, result.answer, status),
                                   verifier=verifier)
            return _item(group, status, verdict.outcome, verdict.value, verdict.metric, result.tied)
        scored = [m for m in marks if m.outcome == SCORED]
        outcome: Outcome = SCORED if scored else NO_ANSWER
        status = st.OK if scored else _common_status(group)
        values = [m.value for m in marks]
        if self.mode == "any":
            value = max(values)
        elif self.mode == "mean":
            value = statistics.fmean(values)
        elif self.mode == "median":
            value = float(statistics.median(values))
        else:
            if self.draws > len(group):
                raise UsageError(f"pass@{self.draws} needs at least {self.draws} samples, "
                                 f"but item {first.row.id!r} has {len(group)}")
            value = pass_at_k(len(group), sum(1 for m in marks if m.correct), self.draws)
        return _item(group, status, outcome, value if scored else 0.0, first.score.metric)
