"""Honest reports: parse rate and accuracy apart, chance baselines, intervals, run-to-run spread.

For each task, each task type and overall, a report gives:

* ``n`` items, counts per status, and items left out (``no_target``, ``bad_target``);
* ``parse_rate`` r = parsed / scorable items (a scorable item has a readable target);
* ``abstained`` and ``abstention_rate`` = abstained / scorable items: answers that decline to
  answer (status ``abstained``: ``I don't know``, ``无法确定``; SimpleQA's "not attempted"),
  neither parsed nor wrong; A_valid leaves them out, A_strict counts them as not correct;
* ``parse_rates`` for math (rows whose ``extra.found_by`` says how the answer was found):
  ``strict`` — answers the output states (a marker, ``####``, a box) — and ``flexible`` — also
  the last number of a finished solution — like lm-eval's strict-match and flexible-extract;
* ``a_valid``: mean score over parsed items, and ``a_strict`` = r · A_valid: mean score over
  all scorable items with every unparsed one counted wrong;
* for multiple choice (when every scorable item states its option count K_i):
  ``chance`` = mean(1/K_i), ``chance_adjusted`` = (A_strict − chance)/(1 − chance) (negative
  kept), and ``random_fallback`` = the expected score had each unparsed answer been replaced by a
  uniform random option: the mean of per-item values where an unparsed item is worth 1/K_i,
  which equals r·A_valid + (1−r)·mean over unparsed items of 1/K_i;
* a percentile bootstrap interval for every accuracy (seed and resample count in the report;
  the chance-adjusted interval is the A_strict interval mapped through the same linear map);
* with rows carrying ``run``: A_strict per run and their coefficient of variation, flagged when
  above the threshold;
* the pack name, signature and full hash beside every group;
* ``mdd``: the minimum detectable difference of a benchmark of this many scorable items at this
  A_strict (two independent systems, two-sided 5 %, 80 % power; the rate shrunk toward 1/2 by
  :func:`scoring.pairwise.shrunk_rate`, so a perfect score on few items claims nothing; see
  :func:`scoring.pairwise.minimum_detectable_difference`); above 1, no difference is detectable;
* ``text_metrics`` (rows whose task sets ``text_metrics``): each metric at corpus and sentence
  level with bootstrap intervals and its signature; unparsed rows count as empty text;
* ``metric_comparisons`` (rows scored by a metric that records another's verdict: the SQuAD
  metrics and the official script's, see :mod:`scoring.metrics.squad`): per pair, the scored
  rows compared and how many verdicts differ, each way;
* ``ranking`` (ranking rows): mean RR, AP, nDCG@k, Recall@k, Hit@k with intervals;
* ``pairwise`` (judge rows with ``model_a``/``model_b``): position bias, win rates with ties,
  Bradley–Terry ratings on an Elo scale with bootstrap intervals and the anchor model;
  ``ratings`` (judge rows with ``model`` and a rating): mean rating per model with intervals.


Scores are means of each item's ``value`` (1/0 for yes/no metrics, an F1 for F1 metrics).
"""

from __future__ import annotations

import hashlib
import json
import math
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Final

from normalize.core.pack import Pack
from normalize.errors import UsageError
from normalize.status import ABSTAINED, ALL_STATUSES
from scoring._items import Item
from scoring._ranking import RANKING_METRICS
from scoring._textsim import TextSettings, text_metric_report
from scoring.metrics import BAD_TARGET, NO_ANSWER, NO_TARGET, SCORED
from scoring.pairwise import (
    Judgment,
    NotIdentifiable,
    bt_bootstrap,
    head_to_head,
    minimum_detectable_difference,
    ratings_by_model,
    resolve_orders,
    shrunk_rate,
    win_rates,
)
from scoring.stats import (
    bootstrap_ci,
    chance_adjusted,
    chance_baseline,
    cluster_bootstrap_ci,
    coefficient_of_variation,
)

__all__ = ["DEFAULT_CV_THRESHOLD", "FORMATS", "ReportBuilder", "build_report", "render", "render_json", "render_markdown", "render_table"]

DEFAULT_CV_THRESHOLD: Final = 0.05
#: ``text`` (the CLI convention's name) and ``table`` are the same aligned table.
FORMATS: Final = ("text", "table", "markdown", "json")
#: Aggregates under which an item's value is still "one answer, right or wrong" (chance applies).
_SINGLE_ANSWER_MODES: Final = (None, "vote")


class _Intervals:
    """Bootstrap intervals for one report; identical value lists (a task that is its whole task
    type, say) are resampled once, which gives the same interval the repeat would."""

    def __init__(self, n_resamples: int, seed: int, confidence: float) -> None:
        self.n_resamples, self.seed, self.confidence = n_resamples, seed, confidence
        self._done: dict[tuple[int, bytes], dict[str, Any]] = {}
        self._text: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._pairs: dict[tuple[Any, ...], dict[str, Any]] = {}

    def text(self, settings: TextSettings, hyps: tuple[str, ...], refs: tuple[tuple[str, ...], ...]) -> dict[str, Any]:
        key = (settings, hyps, refs)
        if key not in self._text:
            self._text[key] = text_metric_report(hyps, refs, settings, n_resamples=self.n_resamples,
                                                 seed=self.seed, confidence=self.confidence)
        return self._text[key]

    def pairwise(self, judges: tuple[Any, ...]) -> dict[str, Any]:
        if judges not in self._pairs:
            self._pairs[judges] = _pairwise_block(judges, self.n_resamples, self.seed, self.confidence)
        return self._pairs[judges]

    def __call__(self, values: Sequence[float], clusters: Sequence[str | None] | None = None) -> dict[str, Any] | None:
        """The mean of ``values`` with its bootstrap interval; with ``clusters`` (a label per value,
        some not None) whole clusters are resampled (:func:`~scoring.stats.cluster_bootstrap_ci`)."""
        if not values:
            return None
        digest = hashlib.blake2b(array("d", values).tobytes(), digest_size=32)
        if clusters is not None:
            digest.update(json.dumps(list(clusters)).encode("utf-8"))
        key = (len(values), digest.digest())
        if key not in self._done:
            if clusters is not None:
                low, high = cluster_bootstrap_ci(values, clusters, n_resamples=self.n_resamples, seed=self.seed,
                                                 confidence=self.confidence)
            else:
                low, high = bootstrap_ci(values, n_resamples=self.n_resamples, seed=self.seed,
                                         confidence=self.confidence)
            self._done[key] = {"value": math.fsum(values) / len(values), "low": low, "high": high}
        return dict(self._done[key])


#: Ways of finding an answer that count as a stated answer (strict parse rate).
STRICT_METHODS: Final = ("marker", "boxed", "answer_format")


#: How structured-output items are counted apart (the report's ``structured`` block, in this order).
_STRUCTURED: Final = ("right", "wrong", "malformed", "schema_invalid", "no_json", "other")


def _structured_verdict(item: Item) -> str:
    """A parsed structured_json item: right (full value), wrong (parsed, scored below 1) or other
    (no target, or a status the JSON parser did not give)."""
    if item.outcome == SCORED:
        return "right" if item.value >= 1.0 else "wrong"
    return "other"


class _Values:
    """Per-item values in order, one byte each while they are all 0 or 1, eight bytes after."""

    def __init__(self) -> None:
        self.data: array[Any] = array("B")

    def append(self, value: float) -> None:
        if self.data.typecode == "B":
            if value == 0.0 or value == 1.0:
                self.data.append(int(value))
                return
            self.data = array("d", self.data)
        self.data.append(value)

    def floats(self) -> list[float]:
        return [float(v) for v in self.data]

    def extend(self, other: _Values) -> None:
        """Append ``other``'s values after these (what appending them one by one gives)."""
        if self.data.typecode == "B" and other.data.typecode != "B":
            self.data = array("d", self.data)
        self.data.extend(other.data if other.data.typecode == self.data.typecode else array("d", other.data))


class _ExactSum:
    """An exactly rounded running sum (what ``math.fsum`` of all the values gives) and a count."""

    def __init__(self) -> None:
        self.total: int | Fraction = 0
        self.count = 0

    def add(self, value: float) -> None:
        self.total += int(value) if value.is_integer() else Fraction(value)
        self.count += 1

    def mean(self) -> float:
        return float(self.total) / self.count

    def merge(self, other: _ExactSum) -> None:
        self.total += other.total
        self.count += other.count


class _Group:
    """Running totals of one report group; per-item data kept only where order matters (bootstrap)."""

    def __init__(self) -> None:
        self.n = 0
        self.n_samples = 0
        self.statuses: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.types: set[str] = set()
        self.families: set[str] = set()  # the families of those types (a pack's yes_no: extractive_qa)
        self.metrics: set[str] = set()
        self.ties = 0
        self.scorable = _Values()  # values of scorable items, in order
        self.parsed = array("B")  # 1 where that scorable item was parsed
        self.option_counts = array("I")  # K of each scorable item (4 bytes); 0 when not stated
        self.missing_k = 0
        self.too_few_k: set[int] = set()
        self.runs: dict[str, _ExactSum] = {}
        self.run_labels: set[str] = set()
        self.unlabeled = 0
        #: Items with text-metric, ranking or judge facts: a corpus statistic needs the texts, a
        #: position-bias check both orders of a pair (other items keep no per-item record here).
        self.sections: list[Item] = []
        self.abstained = 0  # scorable items whose answer abstains (status abstained)
        self.found_known = 0  # scorable items whose chain recorded how the answer was found
        self.strict_parsed = 0  # ... parsed from a stated answer (STRICT_METHODS)
        #: (metric, other metric) → [compared, differ, correct only by metric, only by other]
        self.comparisons: dict[tuple[str, str], list[int]] = {}
        self.scorable_types: Counter[str | None] = Counter()  # scorable items per task type
        self.parsed_types: Counter[str | None] = Counter()
        self.found_types: set[str | None] = set()  # task types whose chain records how answers were found
        self.aggregated = 0  # items made from samples (--aggregate), with their parsed-sample counts
        self.samples_unparsed = 0
        self.single_parsed = 0  # items of several samples decided by the one sample that parsed
        self.clusters: list[str | None] | None = None  # per scorable item, once one item has a cluster
        self.structured: Counter[str] = Counter()  # structured_json items: malformed, schema_invalid, ...
        self.truncated_reasoning = 0  # no answer: the budget ran out inside the reasoning

    def add_sections(self, item: Item) -> None:
        if item.text is not None or item.ranking is not None or item.judge is not None:
            self.sections.append(item)

    def merge(self, other: _Group) -> None:
        """Add ``other``'s totals to these, its per-item data after this group's: the group that
        adding this group's items and then ``other``'s would give (so partial groups built on
        consecutive slices of the rows merge, in order, into the group of all the rows).

        Merged by the kind of each field, so a running total added later merges too: counts
        add, counters add, sets unite, per-item arrays and lists concatenate, running sums merge;
        the per-item clusters (``None`` until an item has one) pad with ``None``."""
        if self.clusters is not None or other.clusters is not None:
            none: list[str | None] = [None]
            self.clusters = (none * len(self.parsed) if self.clusters is None else self.clusters) + (
                none * len(other.parsed) if other.clusters is None else other.clusters)
        for key, counts in other.comparisons.items():
            mine_counts = self.comparisons.setdefault(key, [0] * len(counts))
            mine_counts[:] = [a + b for a, b in zip(mine_counts, counts, strict=True)]
        for name, mine in vars(self).items():
            if name in ("clusters", "comparisons"):
                continue
            theirs = getattr(other, name)
            if isinstance(mine, bool) or not isinstance(mine, (int, Counter, set, array, list, _Values, dict)):
                raise TypeError(f"report group field {name!r} ({type(mine).__name__}) has no merge rule")
            if isinstance(mine, int):
                setattr(self, name, mine + theirs)
            elif isinstance(mine, Counter):
                mine.update(theirs)
            elif isinstance(mine, set):
                mine |= theirs
            elif isinstance(mine, (array, list)):
                mine.extend(theirs)
            elif isinstance(mine, _Values):
                mine.extend(theirs)
            else:  # run label -> _ExactSum
                for key, total in theirs.items():
                    if key in mine:
                        mine[key].merge(total)
                    else:
                        mine[key] = _ExactSum()
                        mine[key].merge(total)

    def add(self, item: Item, *, sections: bool = True) -> None:
        if sections:
            self.add_sections(item)
        self.n += 1
        self.n_samples += item.n_samples
        self.statuses[item.status] += 1
        self.truncated_reasoning += item.truncated_reasoning
        self.outcomes[item.outcome] += 1
        if item.task_type is not None:
            self.types.add(item.task_type)
        if item.kind is not None:
            self.families.add(item.kind)
        self.ties += item.tied
        if item.run is None:
            self.unlabeled += 1
        else:
            self.run_labels.add(item.run)
        if item.n_parsed is not None:
            self.aggregated += 1
            self.samples_unparsed += item.n_samples - item.n_parsed
            self.single_parsed += item.n_samples > 1 and item.n_parsed == 1
        if item.kind == "structured_json":
            self.structured[item.json_failure or _structured_verdict(item)] += 1
        if item.outcome not in (SCORED, NO_ANSWER):
            return
        if item.outcome == SCORED:
            self.metrics.add(item.metric)
            if item.alternatives:
                self._compare(item)
        self.scorable_types[item.task_type] += 1
        self.parsed_types[item.task_type] += item.outcome == SCORED
        if item.found_by is not None:
            self.found_types.add(item.task_type)
            self.found_known += 1
            self.strict_parsed += item.outcome == SCORED and item.found_by in STRICT_METHODS
        if item.cluster is not None and self.clusters is None:
            self.clusters = [None] * len(self.parsed)
        if self.clusters is not None:
            self.clusters.append(item.cluster)
        self.scorable.append(item.value)
        self.parsed.append(item.outcome == SCORED)
        self.abstained += item.status == ABSTAINED
        k = item.option_count
        if k is None:
            self.missing_k += 1
        elif k < 2:
            self.too_few_k.add(k)
        self.option_counts.append(0 if k is None or k < 0 else min(k, 2**32 - 1))
        if item.run is not None:
            self.runs.setdefault(item.run, _ExactSum()).add(item.value)

    def _compare(self, item: Item) -> None:
        own = bool(item.correct)
        for other, verdict in (item.alternatives or {}).items():
            counts = self.comparisons.setdefault((item.metric, other), [0, 0, 0, 0])
            counts[0] += 1
            counts[1] += own != verdict
            counts[2] += own and not verdict
            counts[3] += verdict and not own

    def comparison_stats(self) -> list[dict[str, Any]] | None:
        """Per pair of metrics: scored rows both judged, and how many verdicts differ (and which way)."""
        if not self.comparisons:
            return None
        return [{"metric": metric, "other": other, "compared": c[0], "differ": c[1],
                 "correct_only_by_metric": c[2], "correct_only_by_other": c[3]}
                for (metric, other), c in sorted(self.comparisons.items())]

    def stats(self, name: str, level: str, *, mode: str | None, interval: _Intervals,
              cv_threshold: float) -> dict[str, Any]:
        scorable = self.scorable.floats()
        parsed_values = [v for v, p in zip(scorable, self.parsed, strict=True) if p]
        clusters = self.clusters
        parsed_clusters = None if clusters is None else [c for c, p in zip(clusters, self.parsed, strict=True) if p]
        types = sorted(self.types)
        statuses = self.statuses
        stats: dict[str, Any] = {
            "level": level,
            "name": name,
            "task_types": types,
            "metrics": sorted(self.metrics),
            "n": self.n,
            "n_samples": self.n_samples,
            "statuses": {s: statuses[s] for s in (*ALL_STATUSES, *sorted(set(statuses) - set(ALL_STATUSES)))
                         if statuses[s]},
            "truncated_reasoning": self.truncated_reasoning,
            "no_target": self.outcomes[NO_TARGET],
            "bad_target": self.outcomes[BAD_TARGET],
            "scorable": len(scorable),
            "parsed": len(parsed_values),
            "parse_rate": len(parsed_values) / len(scorable) if scorable else None,
            "abstained": self.abstained,
            "abstention_rate": self.abstained / len(scorable) if scorable else None,
            "parse_rates": self._parse_rates(),
            "samples": ({"n": self.n_samples, "unparsed": self.samples_unparsed,
                         "unparsed_share": self.samples_unparsed / self.n_samples if self.n_samples else None,
                         "items_decided_by_one_parsed_sample": self.single_parsed}
                        if self.aggregated else None),
            "a_valid": interval(parsed_values, parsed_clusters),
            "a_strict": interval(scorable, clusters),
            "structured": ({key: self.structured[key] for key in _STRUCTURED} if self.structured else None),
            "clusters": None if clusters is None else len({("item", i) if c is None else c
                                                           for i, c in enumerate(clusters)}),
            "ties": self.ties,
            "chance": None,
            "chance_adjusted": None,
            "random_fallback": None,
            "chance_note": None,
            "runs": None,
            "metric_comparisons": self.comparison_stats(),
        }
        # a multi-select row (metric choice_set) has no 1/K chance baseline
        if self.families == {"multiple_choice"} and scorable and mode in _SINGLE_ANSWER_MODES and "choice_set" not in self.metrics:
            self._add_chance(stats, scorable, interval)
        if self.run_labels:
            stats["runs"] = self._run_spread(cv_threshold)
        strict = stats["a_strict"]
        stats["mdd"] = (minimum_detectable_difference(
            len(scorable), accuracy=shrunk_rate(min(1.0, max(0.0, strict["value"])), len(scorable)))
            if strict is not None else None)
        _add_sections(stats, self.sections, interval)
        return stats

    def _parse_rates(self) -> dict[str, Any] | None:
        """Strict (a stated answer) and flexible (any parse) parse rates over the rows that can be
        strict: those of task types whose chain records how an answer was found (math), so a
        group mixing task types does not count multiple choice rows as never strict."""
        pool = sum(count for kind, count in self.scorable_types.items() if kind in self.found_types)
        if not pool:
            return None
        flexible = sum(count for kind, count in self.parsed_types.items() if kind in self.found_types)
        return {"strict": self.strict_parsed / pool, "flexible": flexible / pool, "rows": pool}

    def _add_chance(self, stats: dict[str, Any], scorable: list[float], interval: _Intervals) -> None:
        if self.missing_k or self.too_few_k:
            stats["chance_note"] = (f"{self.missing_k} items do not state their option count" if self.missing_k
                                    else f"option counts below 2: {sorted(self.too_few_k)}")
            return
        counts = list(self.option_counts)
        chance = chance_baseline(counts)
        strict = stats["a_strict"]
        stats["chance"] = chance
        stats["chance_adjusted"] = {key: chance_adjusted(strict[key], chance) for key in ("value", "low", "high")}
        fallback = [v if p else 1.0 / k for v, p, k in zip(scorable, self.parsed, counts, strict=True)]
        stats["random_fallback"] = interval(fallback, self.clusters)

    def _run_spread(self, cv_threshold: float) -> dict[str, Any]:
        per_run = {run: self.runs[run].mean() for run in sorted(self.run_labels) if run in self.runs}
        cv: float | None = None
        note = None
        if len(per_run) >= 2:
            try:
                cv = coefficient_of_variation(list(per_run.values()))
            except ValueError as exc:
                note = str(exc)
        else:
            note = "fewer than two runs with scorable items"
        if self.unlabeled:
            note = (note + "; " if note else "") + f"{self.unlabeled} items carry no run"
        return {
            "a_strict": per_run,
            "cv": cv,
            "threshold": cv_threshold,
            "flagged": cv is not None and cv > cv_threshold,
            "note": note,
        }


def _add_sections(stats: dict[str, Any], items: Sequence[Item], interval: _Intervals) -> None:
    scorable = [item for item in items if item.outcome in (SCORED, NO_ANSWER)]
    stats["text_metrics"] = _text_block(scorable, interval)
    stats["ranking"] = _ranking_block(scorable, interval)
    judges = tuple(item.judge for item in items if item.judge is not None)
    stats["pairwise"] = interval.pairwise(judges) if judges else None


def _text_block(scorable: Sequence[Item], interval: _Intervals) -> dict[str, Any] | None:
    texts = [item for item in scorable if item.text is not None and item.hypothesis is not None]
    if not texts:
        return None
    settings = {item.text for item in texts}
    if len(settings) > 1:
        return {"note": "tasks with different text-metric settings: see each task's group"}
    (chosen,) = settings
    if chosen is None:
        return None
    hyps = tuple(item.hypothesis or "" for item in texts)
    refs = tuple(item.references for item in texts)
    return {"metrics": interval.text(chosen, hyps, refs), "n": len(texts),
            "unparsed_as_empty": sum(1 for item in texts if item.outcome == NO_ANSWER)}


def _ranking_block(scorable: Sequence[Item], interval: _Intervals) -> dict[str, Any] | None:
    ranked = [item for item in scorable if item.ranking is not None]
    if not ranked:
        return None
    return {name: interval([float(item.ranking[name]) for item in ranked if item.ranking is not None])
            for name in RANKING_METRICS} | {"n": len(ranked)}


#: The failure kinds of a judge row without a verdict, in the order the summary lists them.
JUDGE_FAILURES: Final = ("truncated", "off_scale", "contradictory", "no_verdict", "wrong_kind", "invalid")
#: Arena-Hard strengths, best for model A first.
STRENGTHS: Final = ("A>>B", "A>B", "A=B", "B>A", "B>>A")


def _is_battle(j: Any) -> bool:
    return j.model_a is not None and j.model_b is not None and j.model_a != j.model_b


def _is_rating(verdict: Any) -> bool:
    return isinstance(verdict, (int, float)) and not isinstance(verdict, bool)


def judge_summary(judges: Sequence[Any]) -> dict[str, Any]:
    """Every judge row counted once, in a named place: ``battles`` (a pair of models, a
    preference), ``ratings`` (one model, a rating), ``unassigned`` (a verdict on a row that names
    no model, one of model_a/model_b only, or the same model twice), ``wrong_kind`` (a rating on a
    battle row, a preference on a rated row) and ``failures`` by kind (:data:`JUDGE_FAILURES`:
    truncated, off the scale, contradictory, no verdict, a kind the task does not ask for, a row
    that failed before the parser); ``rows`` is their sum.  ``strengths`` counts Arena-Hard
    strengths on battle rows.

    >>> from scoring._items import JudgeInfo
    >>> s = judge_summary([JudgeInfo("q", "B", model_a="x", model_b="y"), JudgeInfo("q", 7, model="x"),
    ...                    JudgeInfo("q", 7, model_a="x", model_b="y"), JudgeInfo("q", None, failure="truncated")])
    >>> s["rows"], s["battles"], s["ratings"], s["wrong_kind"], s["failures"]["truncated"]
    (4, 1, 1, {'rating_on_battle_row': 1, 'preference_on_rated_row': 0}, 1)
    """
    battles = ratings = unassigned = 0
    wrong = {"rating_on_battle_row": 0, "preference_on_rated_row": 0}
    failures = dict.fromkeys(JUDGE_FAILURES, 0)
    strengths = dict.fromkeys(STRENGTHS, 0)
    for j in judges:
        if j.verdict is None:
            kind = j.failure if j.failure in failures else "invalid"
            failures[kind] += 1
        elif _is_battle(j):
            if _is_rating(j.verdict):
                wrong["rating_on_battle_row"] += 1
            else:
                battles += 1
                if j.strength in strengths:
                    strengths[j.strength] += 1
        elif j.model is not None and (j.model_a is None and j.model_b is None):
            if _is_rating(j.verdict):
                ratings += 1
            else:
                wrong["preference_on_rated_row"] += 1
        else:
            unassigned += 1
    return {"rows": len(judges), "battles": battles, "ratings": ratings, "unassigned": unassigned,
            "wrong_kind": wrong, "failures": failures,
            "strengths": strengths if any(strengths.values()) else None}


def _strengths_by_model(pairs: Sequence[Any]) -> dict[str, dict[str, int]] | None:
    """Per model, its battle rows by Arena-Hard strength: much better, better, tie, worse, much worse."""
    table: dict[str, dict[str, int]] = {}
    names = ("much_better", "better", "tie", "worse", "much_worse")
    for j in pairs:
        if j.strength not in STRENGTHS or not isinstance(j.verdict, str):
            continue
        index = STRENGTHS.index(j.strength)
        for model, at in ((j.model_a, index), (j.model_b, len(STRENGTHS) - 1 - index)):
            table.setdefault(model, dict.fromkeys(names, 0))[names[at]] += 1
    return {model: table[model] for model in sorted(table)} or None


def _pairwise_block(judges: Sequence[Any], n_resamples: int, seed: int, confidence: float) -> dict[str, Any]:
    settings = {(j.position_bias, j.anchor, j.anchor_rating) for j in judges}
    out: dict[str, Any] = {"note": None, "position_bias": None, "win_rates": None, "head_to_head": None,
                           "bradley_terry": None, "ratings": None, "summary": judge_summary(judges),
                           "strengths_by_model": None}
    if len(settings) > 1:
        out["note"] = "tasks with different pairwise settings: see each task's group"
        return out
    ((policy, anchor, anchor_rating),) = settings
    # battle rows with a preference or without a verdict (a rating there is counted as wrong_kind)
    pairs = [j for j in judges if _is_battle(j) and not _is_rating(j.verdict)]
    odd = sum(1 for j in judges if (j.model_a is None) != (j.model_b is None)
              or (j.model_a is not None and j.model_a == j.model_b))
    if odd:
        out["note"] = (f"{odd} judge rows left out of the pairwise comparison: they name one of model_a/model_b "
                       "only, or the same model twice")
    out["strengths_by_model"] = _strengths_by_model(pairs)
    if pairs:
        verdicts = [Judgment(j.key, j.model_a, j.model_b, j.verdict if isinstance(j.verdict, str) else None)
                    for j in pairs]
        resolved = resolve_orders(verdicts, policy)
        out["position_bias"] = resolved.to_json()
        if resolved.battles:
            out["win_rates"] = win_rates(resolved.battles)
            out["head_to_head"] = head_to_head(resolved.battles)
            try:
                out["bradley_terry"] = bt_bootstrap(resolved.battles, anchor=anchor, anchor_rating=anchor_rating,
                                                    n_resamples=n_resamples, seed=seed, confidence=confidence)
            except (NotIdentifiable, ValueError) as exc:
                out["note"] = "; ".join(filter(None, [out["note"], f"no Bradley–Terry ratings: {exc}"]))
    rated: dict[str, list[float]] = {}
    for j in judges:
        if j.model is not None and isinstance(j.verdict, (int, float)) and not isinstance(j.verdict, bool):
            rated.setdefault(j.model, []).append(float(j.verdict))
    if rated:
        out["ratings"] = ratings_by_model(rated, n_resamples=n_resamples, seed=seed, confidence=confidence)
    return out


class ReportBuilder:
    """A report built from running totals: :meth:`add` items one at a time, then :meth:`build`.

    Memory is a few counters per group plus, for the bootstrap, each scorable item's value
    (one byte while values are 0/1), a parsed flag and its option count, per group.
    """

    def __init__(self) -> None:
        self.by_task: dict[str, _Group] = {}
        self.by_type: dict[str, _Group] = {}
        self.overall = _Group()
        self.row_sections = False

    def _groups(self, item: Item) -> tuple[_Group, _Group, _Group]:
        task = self.by_task.get(item.task)
        if task is None:
            task = self.by_task[item.task] = _Group()
        kind_name = item.task_type or "(unknown)"
        kind = self.by_type.get(kind_name)
        if kind is None:
            kind = self.by_type[kind_name] = _Group()
        return task, kind, self.overall

    def add(self, item: Item) -> None:
        """Count one item (a row, or an aggregate of samples) in its task, type and overall."""
        for group in self._groups(item):
            group.add(item, sections=not self.row_sections)

    def merge(self, other: ReportBuilder) -> None:
        """Add the running totals of ``other`` (built on the rows after this builder's) to these:
        the builder that adding all the rows to one would give.  Partial builders built on
        consecutive slices of the rows, wherever they ran, merge in order into the report of
        all of them (:func:`scoring.integrations.ray.report_from_dataset`)."""
        for mine, theirs in ((self.by_task, other.by_task), (self.by_type, other.by_type)):
            for name, group in theirs.items():
                if name in mine:
                    mine[name].merge(group)
                else:
                    mine[name] = _Group()
                    mine[name].merge(group)
        self.overall.merge(other.overall)
        self.row_sections = self.row_sections or other.row_sections

    def add_sections(self, item: Item) -> None:
        """With aggregated samples: a row's text, ranking or judge facts for the report sections
        (once this is called, the sections come from such rows only, not from aggregates)."""
        self.row_sections = True
        for group in self._groups(item):
            group.add_sections(item)

    def build(
        self,
        pack: Pack,
        *,
        aggregate: str | None = None,
        k: int | None = None,
        n_resamples: int = 1000,
        seed: int = 0,
        confidence: float = 0.95,
        cv_threshold: float = DEFAULT_CV_THRESHOLD,
    ) -> dict[str, Any]:
        """The report as plain JSON data: groups per task, per task type, and overall (see :func:`build_report`)."""
        if isinstance(cv_threshold, bool) or not isinstance(cv_threshold, (int, float)) or not (
                math.isfinite(cv_threshold) and cv_threshold >= 0):
            raise UsageError(f"the CV threshold must be a non-negative number, got {cv_threshold!r}")
        interval = _Intervals(n_resamples, seed, confidence)

        def stats(name: str, level: str, group: _Group) -> dict[str, Any]:
            return group.stats(name, level, mode=aggregate, interval=interval, cv_threshold=float(cv_threshold))

        groups: list[dict[str, Any]] = []
        groups.extend(stats(name, "task", group) for name, group in self.by_task.items())
        groups.extend(stats(name, "task_type", group) for name, group in sorted(self.by_type.items()))
        groups.append(stats("overall", "overall", self.overall))
        for group in groups:  # only the chains that scored the group's items, plus the short hash
            group["pack_signature"] = pack.signature_for(group["task_types"])
            group["pack_hash"] = pack.hash
        return {
            "pack": {"name": pack.name, "signature": pack.signature_for(self.overall.types), "hash": pack.hash},
            "aggregate": {"mode": aggregate, "k": k} if aggregate else None,
            "bootstrap": {"method": "percentile", "n_resamples": n_resamples, "seed": seed, "confidence": confidence},
            "cv_threshold": float(cv_threshold),
            "groups": groups,
            "flagged": [g["name"] for g in groups if g["runs"] and g["runs"]["flagged"]],
        }


def build_report(
    items: Iterable[Item],
    pack: Pack,
    *,
    aggregate: str | None = None,
    k: int | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    cv_threshold: float = DEFAULT_CV_THRESHOLD,
    row_items: Iterable[Item] | None = None,
) -> dict[str, Any]:
    """The report as plain JSON data: groups per task, per task type, and overall.

    ``aggregate`` names how samples were combined (None: one row is one item); chance
    baselines are given only when each item's value is one answer (no aggregate, or ``vote``).
    ``row_items`` (one per row, before aggregation) feed the text-metric, ranking and pairwise
    sections when samples were aggregated.
    """
    builder = ReportBuilder()
    for row in row_items or ():
        builder.add_sections(row)
    for item in items:
        builder.add(item)
    return builder.build(pack, aggregate=aggregate, k=k, n_resamples=n_resamples, seed=seed,
                         confidence=confidence, cv_threshold=cv_threshold)


# --------------------------------------------------------------------------- rendering


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(block: Mapping[str, float] | None) -> str:
    if block is None:
        return "-"
    return f"{block['value']:.3f} [{block['low']:.3f}, {block['high']:.3f}]"


_COLUMNS: Final = ("group", "n", "parsed", "r", "abst", "A_valid [CI]", "A_strict [CI]", "chance", "adjusted [CI]",
                   "fallback [CI]", "run CV")


def _cells(group: Mapping[str, Any]) -> list[str]:
    name = group["name"] if group["level"] != "task_type" else f"type:{group['name']}"
    runs = group["runs"]
    cv = "-" if not runs or runs["cv"] is None else f"{runs['cv']:.3f}" + (" !" if runs["flagged"] else "")
    return [
        name,
        str(group["n"]),
        str(group["parsed"]),
        _num(group["parse_rate"]),
        _num(group.get("abstention_rate")),
        _ci(group["a_valid"]),
        _ci(group["a_strict"]),
        _num(group["chance"]),
        _ci(group["chance_adjusted"]),
        _ci(group["random_fallback"]),
        cv,
    ]


def _notes(report: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    for group in report["groups"]:
        label = group["name"] if group["level"] != "task_type" else f"type:{group['name']}"
        statuses = ", ".join(f"{k} {v}" for k, v in group["statuses"].items())
        extra = [f"{name} {group[name]}" for name in ("no_target", "bad_target", "ties") if group[name]]
        if group.get("truncated_reasoning"):
            extra.append(f"truncated_reasoning {group['truncated_reasoning']} (no_answer: the budget ran out while reasoning)")
        line = f"{label}: {statuses}" + (f"; {', '.join(extra)}" if extra else "")
        if group["metrics"]:
            line += f"; metric {', '.join(group['metrics'])}"
        if group.get("parse_rates"):
            rates = group["parse_rates"]
            line += (f"; parse rate strict {rates['strict']:.3f} (stated answers), flexible {rates['flexible']:.3f}"
                     f" (of the {rates['rows']} rows whose chain says how the answer was found)")
        if group.get("structured"):
            counts = group["structured"]
            line += (f"; JSON: malformed {counts['malformed']}, schema-invalid {counts['schema_invalid']}, "
                     f"no JSON {counts['no_json']}, parsed but wrong {counts['wrong']}, right {counts['right']}")
        if group.get("clusters"):
            line += f"; intervals resample {group['clusters']} clusters (the rows' cluster field)"
        if group.get("samples"):
            samples = group["samples"]
            line += (f"; samples unparsed {samples['unparsed']} of {samples['n']} ({samples['unparsed_share']:.3f}), "
                     f"items decided by a single parsed sample {samples['items_decided_by_one_parsed_sample']}")
        if group.get("abstained"):
            line += (f"; abstained {group['abstained']} (rate {group['abstention_rate']:.3f}: "
                     "not attempted, left out of A_valid, not correct in A_strict)")
        if group["chance_note"]:
            line += f"; no chance baseline: {group['chance_note']}"
        for c in group.get("metric_comparisons") or ():
            line += (f"; {c['metric']} vs {c['other']}: {c['differ']} of {c['compared']} verdicts differ "
                     f"({c['correct_only_by_metric']} correct only by {c['metric']}, "
                     f"{c['correct_only_by_other']} only by {c['other']})")
        if group.get("mdd") is not None:
            line += f"; MDD {group['mdd']:.3f}" if group["mdd"] <= 1 else "; MDD >1 (too few items to detect any difference)"
        if group["runs"]:
            runs = group["runs"]
            line += "; runs " + ", ".join(f"{k}={v:.3f}" for k, v in runs["a_strict"].items())
            if runs["note"]:
                line += f" ({runs['note']})"
        lines.append(line)
    return lines


def _label(group: Mapping[str, Any]) -> str:
    return group["name"] if group["level"] != "task_type" else f"type:{group['name']}"


def _deduped(report: Mapping[str, Any], key: str) -> list[tuple[str, Any]]:
    """(labels, block) for each distinct non-empty block under ``key``, groups sharing it named together."""
    seen: dict[str, tuple[list[str], Any]] = {}
    for group in report["groups"]:
        block = group.get(key)
        if not block:
            continue
        text = json.dumps(block, sort_keys=True, ensure_ascii=False)
        seen.setdefault(text, ([], block))[0].append(_label(group))
    return [(", ".join(labels), block) for labels, block in seen.values()]


def _fmt(value: float | None, scale: int = 1) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if scale == 100 else f"{value:.3f}"


def _whole(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def _metric_lines(report: Mapping[str, Any]) -> list[str]:
    """The text-metric, ranking and pairwise sections under the main table."""
    lines: list[str] = []
    texts = _deduped(report, "text_metrics")
    if texts:
        lines += ["", "text metrics: corpus [CI] | sentence mean [CI] | library signature | our signature's hash "
                      "(the JSON report spells it out; unparsed rows scored as empty text)"]
        for labels, block in texts:
            if "note" in block:
                lines.append(f"  {labels}: {block['note']}")
                continue
            metrics = block["metrics"]
            lines.append(f"  {labels} (n={block['n']}, unparsed {block['unparsed_as_empty']}):")
            for name, m in metrics.items():
                c, t, sc = m["corpus"], m["sentence"], m["scale"]
                arrow = "" if m["higher_is_better"] else " (lower is better)"
                lines.append(f"    {name:<9} {_fmt(c['value'], sc)} [{_fmt(c['low'], sc)}, {_fmt(c['high'], sc)}]"
                             f" | {_fmt(t['value'], sc)} [{_fmt(t['low'], sc)}, {_fmt(t['high'], sc)}]"
                             f" | {m['signature']} | ours {m['ours_hash']}{arrow}")
    ranks = _deduped(report, "ranking")
    if ranks:
        lines += ["", "ranking metrics: mean [CI]"]
        for labels, block in ranks:
            cells = [f"{name} {_ci(block[name])}" for name in RANKING_METRICS]
            lines.append(f"  {labels} (n={block['n']}): " + "  ".join(cells))
    pairs = _deduped(report, "pairwise")
    if pairs:
        lines += ["", "pairwise judge verdicts:"]
        for labels, block in pairs:
            lines.append(f"  {labels}:")
            bias = block["position_bias"]
            if bias:
                share = "-" if bias["inconsistent_share"] is None else f"{bias['inconsistent_share']:.3f}"
                first = "-" if bias["first_position_win_share"] is None else f"{bias['first_position_win_share']:.3f}"
                lines.append(f"    position bias: {bias['pairs_both_orders']} pairs judged in both orders, "
                             f"{bias['inconsistent']} inconsistent (share {share}; policy: {bias['policy']}); "
                             f"first position wins {first} of decisive verdicts; {bias['single_order']} judged in "
                             f"one order; {bias['unparsed']} without a verdict; {bias['battles']} battles scored")
            if block["note"]:
                lines.append(f"    {block['note']}")
            bt = block["bradley_terry"]
            rates = block["win_rates"] or {}
            if rates:
                ratings = bt["ratings"] if bt else {}
                order = sorted(rates, key=lambda m: -(ratings[m]["value"] if m in ratings else rates[m]["win_rate"]))
                lines.append(f"    {'model':<20} {'rating [CI]':>24} {'W-L-T':>10} {'win rate':>9}")
                for model in order:
                    r = rates[model]
                    rating = ratings.get(model)
                    cell = "-" if rating is None else (
                        f"{rating['value']:.0f} [{_whole(rating['low'])}, {_whole(rating['high'])}]")
                    wlt = f"{r['wins']}-{r['losses']}-{r['ties']}"
                    lines.append(f"    {model:<20} {cell:>24} {wlt:>10} {r['win_rate']:>9.3f}")
                if bt:
                    lines.append(f"    Bradley–Terry (maximum likelihood, ties half a win), Elo scale: "
                                 f"anchor {bt['anchor']} = {bt['anchor_rating']:g}; {bt['n_valid']} of "
                                 f"{bt['n_resamples']} bootstrap resamples had an estimate")
            if block["ratings"]:
                cells = [f"{m} {v['value']:.2f} [{v['low']:.2f}, {v['high']:.2f}] (n={v['n']})"
                         for m, v in block["ratings"].items()]
                lines.append("    mean rating: " + "; ".join(cells))
            lines.extend(_summary_lines(block))
    return lines


def _summary_lines(block: Mapping[str, Any]) -> list[str]:
    """The judge summary: every judge row once, failures by kind, Arena-Hard strengths."""
    summary = block.get("summary")
    if not summary:
        return []
    wrong, failures = summary["wrong_kind"], summary["failures"]
    n_failed = sum(failures.values())
    lines = [f"    judge rows: {summary['rows']} = {summary['battles']} battles + {summary['ratings']} ratings + "
             f"{summary['unassigned']} without models + {sum(wrong.values())} of the wrong kind "
             f"({wrong['rating_on_battle_row']} ratings on battle rows, {wrong['preference_on_rated_row']} "
             f"preferences on rated rows) + {n_failed} judge failures"
             + (" (" + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in failures.items() if v) + ")"
                if n_failed else "")]
    if summary.get("strengths"):
        lines.append("    Arena-Hard strengths: " + ", ".join(f"{k} {v}" for k, v in summary["strengths"].items()))
    by_model = block.get("strengths_by_model")
    if by_model:
        lines.append("    by model (much better/better/tie/worse/much worse): " + "; ".join(
            f"{m} {v['much_better']}/{v['better']}/{v['tie']}/{v['worse']}/{v['much_worse']}"
            for m, v in by_model.items()))
    return lines


def short_signature(pack: Mapping[str, Any]) -> str:
    """The report header's signature: pack name, short hash, the task types whose chains were scored.

    >>> short_signature({"name": "default", "hash": "sha256:a402a6a2e7f0e4774d",
    ...                  "signature": "harness-normalize:0.1.0|pack:default|unicode:14.0.0|math:[a.v1]->math.v2|hash:a402a6a2e7f0"})
    'pack default · hash a402a6a2e7f0 · chains scored: math'
    """
    chains = [part.split(":", 1)[0] for part in str(pack.get("signature", "")).split("|") if ":[" in part]
    short = str(pack["hash"]).split(":", 1)[-1][:12]
    return f"pack {pack.get('name', '?')} · hash {short} · chains scored: {', '.join(chains) or 'none'}"


def _header(report: Mapping[str, Any], signature: bool = False) -> list[str]:
    boot = report["bootstrap"]
    agg = report["aggregate"]
    lines = [
        short_signature(report["pack"]),
        f"signature: {report['pack']['signature']}" if signature else "signature: shown with --signature",
        f"hash: {report['pack']['hash']}",
        f"intervals: {boot['method']} bootstrap, {boot['n_resamples']} resamples, seed {boot['seed']}, "
        f"{boot['confidence']:.0%} confidence",
    ]
    if agg:
        lines.append(f"aggregate: {agg['mode']}" + (f" (k={agg['k']})" if agg["mode"] == "pass@k" else ""))
    return lines


def render_table(report: Mapping[str, Any], *, color: bool = False, signature: bool = False) -> str:
    """A plain-text table, one line per group, then per-group status counts and notes (the full
    signature of the chains scored in the header only with ``signature``)."""
    rows = [list(_COLUMNS), *[_cells(g) for g in report["groups"]]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_COLUMNS))]
    lines = _header(report, signature)
    lines.append("")
    for index, row in enumerate(rows):
        text = "  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))
        group = report["groups"][index - 1] if index else None
        if color and group is not None and group["runs"] and group["runs"]["flagged"]:
            text = f"\033[31m{text}\033[0m"
        elif color and index == 0:
            text = f"\033[1m{text}\033[0m"
        lines.append(text.rstrip())
    lines.extend(_metric_lines(report))
    lines.append("")
    lines.extend(_notes(report))
    lines.append(f"every score above: {report['pack']['hash']}")
    if report["flagged"]:
        warn = f"run-to-run CV above {report['cv_threshold']:g}: {', '.join(report['flagged'])}"
        lines.append(f"\033[31m{warn}\033[0m" if color else warn)
    return "\n".join(lines)


def render_markdown(report: Mapping[str, Any], *, signature: bool = False) -> str:
    """A markdown table with the full pack hash in every row."""
    lines = [f"- {line}" for line in _header(report, signature)]
    lines.append("")
    header = [*_COLUMNS, "pack hash"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
    for group in report["groups"]:
        cells = [*_cells(group), f"`{group['pack_hash']}`"]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    extra = _metric_lines(report)
    if extra:
        lines.append("")
        lines.append("```")
        lines.extend(line for line in extra if line)
        lines.append("```")
    lines.append("")
    lines.extend(f"- {line}" for line in _notes(report))
    if report["flagged"]:
        lines.append(f"- **run-to-run CV above {report['cv_threshold']:g}: {', '.join(report['flagged'])}**")
    return "\n".join(lines)


def render_json(report: Mapping[str, Any]) -> str:
    """The report as indented JSON."""
    return json.dumps(report, ensure_ascii=False, indent=2, allow_nan=False)


def render(report: Mapping[str, Any], fmt: str, *, color: bool = False, signature: bool = False) -> str:
    """Render in ``text`` (= ``table``), ``markdown`` or ``json`` (which always holds the signature)."""
    if fmt in ("text", "table"):
        return render_table(report, color=color, signature=signature)
    if fmt == "markdown":
        return render_markdown(report, signature=signature)
    if fmt == "json":
        return render_json(report)
    raise UsageError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")
