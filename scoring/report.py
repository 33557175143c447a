"""Honest reports: parse rate and accuracy apart, chance baselines, intervals, run-to-run spread.

For each task, each task type and overall, a report gives:

* ``n`` items, counts per status, and items left out (``no_target``, ``bad_target``);
* ``parse_rate`` r = parsed / scorable items (a scorable item has a readable target);
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
* the pack name, signature and full hash beside every group.

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

from normalize.pack import Pack
from normalize.status import ALL_STATUSES
from scoring._items import Item
from scoring.metrics import BAD_TARGET, NO_ANSWER, NO_TARGET, SCORED
from scoring.stats import (
    bootstrap_ci,
    chance_adjusted,
    chance_baseline,
    coefficient_of_variation,
)

__all__ = ["DEFAULT_CV_THRESHOLD", "FORMATS", "ReportBuilder", "build_report", "render", "render_json", "render_markdown", "render_table"]

DEFAULT_CV_THRESHOLD: Final = 0.05
FORMATS: Final = ("table", "markdown", "json")
#: Aggregates under which an item's value is still "one answer, right or wrong" (chance applies).
_SINGLE_ANSWER_MODES: Final = (None, "vote")


class _Intervals:
    """Bootstrap intervals for one report; identical value lists (a task that is its whole task
    type, say) are resampled once, which gives the same interval the repeat would."""

    def __init__(self, n_resamples: int, seed: int, confidence: float) -> None:
        self.n_resamples, self.seed, self.confidence = n_resamples, seed, confidence
        self._done: dict[tuple[int, bytes], dict[str, Any]] = {}

    def __call__(self, values: Sequence[float]) -> dict[str, Any] | None:
        if not values:
            return None
        key = (len(values), hashlib.blake2b(array("d", values).tobytes(), digest_size=32).digest())
        if key not in self._done:
            low, high = bootstrap_ci(values, n_resamples=self.n_resamples, seed=self.seed, confidence=self.confidence)
            self._done[key] = {"value": math.fsum(values) / len(values), "low": low, "high": high}
        return dict(self._done[key])


#: Ways of finding an answer that count as a stated answer (strict parse rate).
STRICT_METHODS: Final = ("marker", "boxed")


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


class _Group:
    """Running totals of one report group; per-item data kept only where order matters (bootstrap)."""

    def __init__(self) -> None:
        self.n = 0
        self.n_samples = 0
        self.statuses: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.types: set[str] = set()
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
        self.found_known = 0  # scorable items whose chain recorded how the answer was found
        self.strict_parsed = 0  # ... parsed from a stated answer (STRICT_METHODS)

    def add(self, item: Item) -> None:
        self.n += 1
        self.n_samples += item.n_samples
        self.statuses[item.status] += 1
        self.outcomes[item.outcome] += 1
        if item.task_type is not None:
            self.types.add(item.task_type)
        self.ties += item.tied
        if item.run is None:
            self.unlabeled += 1
        else:
            self.run_labels.add(item.run)
        if item.outcome not in (SCORED, NO_ANSWER):
            return
        if item.outcome == SCORED:
            self.metrics.add(item.metric)
        if item.found_by is not None:
            self.found_known += 1
            self.strict_parsed += item.outcome == SCORED and item.found_by in STRICT_METHODS
        self.scorable.append(item.value)
        self.parsed.append(item.outcome == SCORED)
        k = item.option_count
        if k is None:
            self.missing_k += 1
        elif k < 2:
            self.too_few_k.add(k)
        self.option_counts.append(0 if k is None or k < 0 else min(k, 2**32 - 1))
        if item.run is not None:
            self.runs.setdefault(item.run, _ExactSum()).add(item.value)

    def stats(self, name: str, level: str, *, mode: str | None, interval: _Intervals,
              cv_threshold: float) -> dict[str, Any]:
        scorable = self.scorable.floats()
        parsed_values = [v for v, p in zip(scorable, self.parsed, strict=True) if p]
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
            "no_target": self.outcomes[NO_TARGET],
            "bad_target": self.outcomes[BAD_TARGET],
            "scorable": len(scorable),
            "parsed": len(parsed_values),
            "parse_rate": len(parsed_values) / len(scorable) if scorable else None,
            "parse_rates": ({"strict": self.strict_parsed / len(scorable), "flexible": len(parsed_values) / len(scorable)}
                            if scorable and self.found_known else None),
            "a_valid": interval(parsed_values),
            "a_strict": interval(scorable),
            "ties": self.ties,
            "chance": None,
            "chance_adjusted": None,
            "random_fallback": None,
            "chance_note": None,
            "runs": None,
        }
        if types == ["multiple_choice"] and scorable and mode in _SINGLE_ANSWER_MODES:
            self._add_chance(stats, scorable, interval)
        if self.run_labels:
            stats["runs"] = self._run_spread(cv_threshold)
        return stats

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
        stats["random_fallback"] = interval(fallback)

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


class ReportBuilder:
    """A report built from running totals: :meth:`add` items one at a time, then :meth:`build`.

    Memory is a few counters per group plus, for the bootstrap, each scorable item's value
    (one byte while values are 0/1), a parsed flag and its option count, per group.
    """

    def __init__(self) -> None:
        self.by_task: dict[str, _Group] = {}
        self.by_type: dict[str, _Group] = {}
        self.overall = _Group()

    def add(self, item: Item) -> None:
        task = self.by_task.get(item.task)
        if task is None:
            task = self.by_task[item.task] = _Group()
        kind_name = item.task_type or "(unknown)"
        kind = self.by_type.get(kind_name)
        if kind is None:
            kind = self.by_type[kind_name] = _Group()
        task.add(item)
        kind.add(item)
        self.overall.add(item)

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
            raise ValueError(f"the CV threshold must be a non-negative number, got {cv_threshold!r}")
        interval = _Intervals(n_resamples, seed, confidence)

        def stats(name: str, level: str, group: _Group) -> dict[str, Any]:
            return group.stats(name, level, mode=aggregate, interval=interval, cv_threshold=float(cv_threshold))

        groups: list[dict[str, Any]] = []
        groups.extend(stats(name, "task", group) for name, group in self.by_task.items())
        groups.extend(stats(name, "task_type", group) for name, group in sorted(self.by_type.items()))
        groups.append(stats("overall", "overall", self.overall))
        for group in groups:
            group["pack_signature"] = pack.signature
            group["pack_hash"] = pack.hash
        return {
            "pack": {"name": pack.name, "signature": pack.signature, "hash": pack.hash},
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
) -> dict[str, Any]:
    """The report as plain JSON data: groups per task, per task type, and overall.

    ``aggregate`` names how samples were combined (None: one row is one item); chance
    baselines are given only when each item's value is one answer (no aggregate, or ``vote``).
    """
    builder = ReportBuilder()
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


_COLUMNS: Final = ("group", "n", "parsed", "r", "A_valid [CI]", "A_strict [CI]", "chance", "adjusted [CI]",
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
        line = f"{label}: {statuses}" + (f"; {', '.join(extra)}" if extra else "")
        if group["metrics"]:
            line += f"; metric {', '.join(group['metrics'])}"
        if group.get("parse_rates"):
            rates = group["parse_rates"]
            line += f"; parse rate strict {rates['strict']:.3f} (stated answers), flexible {rates['flexible']:.3f}"
        if group["chance_note"]:
            line += f"; no chance baseline: {group['chance_note']}"
        if group["runs"]:
            runs = group["runs"]
            line += "; runs " + ", ".join(f"{k}={v:.3f}" for k, v in runs["a_strict"].items())
            if runs["note"]:
                line += f" ({runs['note']})"
        lines.append(line)
    return lines


def _header(report: Mapping[str, Any]) -> list[str]:
    boot = report["bootstrap"]
    agg = report["aggregate"]
    lines = [
        f"pack: {report['pack']['signature']}",
        f"hash: {report['pack']['hash']}",
        f"intervals: {boot['method']} bootstrap, {boot['n_resamples']} resamples, seed {boot['seed']}, "
        f"{boot['confidence']:.0%} confidence",
    ]
    if agg:
        lines.append(f"aggregate: {agg['mode']}" + (f" (k={agg['k']})" if agg["mode"] == "pass@k" else ""))
    return lines


def render_table(report: Mapping[str, Any], *, color: bool = False) -> str:
    """A plain-text table, one line per group, then per-group status counts and notes."""
    rows = [list(_COLUMNS), *[_cells(g) for g in report["groups"]]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_COLUMNS))]
    lines = _header(report)
    lines.append("")
    for index, row in enumerate(rows):
        text = "  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))
        group = report["groups"][index - 1] if index else None
        if color and group is not None and group["runs"] and group["runs"]["flagged"]:
            text = f"\033[31m{text}\033[0m"
        elif color and index == 0:
            text = f"\033[1m{text}\033[0m"
        lines.append(text.rstrip())
    lines.append("")
    lines.extend(_notes(report))
    lines.append(f"every score above: {report['pack']['hash']}")
    if report["flagged"]:
        warn = f"run-to-run CV above {report['cv_threshold']:g}: {', '.join(report['flagged'])}"
        lines.append(f"\033[31m{warn}\033[0m" if color else warn)
    return "\n".join(lines)


def render_markdown(report: Mapping[str, Any]) -> str:
    """A markdown table with the full pack hash in every row."""
    lines = [f"- {line}" for line in _header(report)]
    lines.append("")
    header = [*_COLUMNS, "pack hash"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
    for group in report["groups"]:
        cells = [*_cells(group), f"`{group['pack_hash']}`"]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines.append("")
    lines.extend(f"- {line}" for line in _notes(report))
    if report["flagged"]:
        lines.append(f"- **run-to-run CV above {report['cv_threshold']:g}: {', '.join(report['flagged'])}**")
    return "\n".join(lines)


def render_json(report: Mapping[str, Any]) -> str:
    """The report as indented JSON."""
    return json.dumps(report, ensure_ascii=False, indent=2, allow_nan=False)


def render(report: Mapping[str, Any], fmt: str, *, color: bool = False) -> str:
    """Render in ``table``, ``markdown`` or ``json``."""
    if fmt == "table":
        return render_table(report, color=color)
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "json":
        return render_json(report)
    raise ValueError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")
