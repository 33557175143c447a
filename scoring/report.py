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

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
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

__all__ = ["DEFAULT_CV_THRESHOLD", "FORMATS", "build_report", "render", "render_json", "render_markdown", "render_table"]

DEFAULT_CV_THRESHOLD: Final = 0.05
FORMATS: Final = ("table", "markdown", "json")
#: Aggregates under which an item's value is still "one answer, right or wrong" (chance applies).
_SINGLE_ANSWER_MODES: Final = (None, "vote")


class _Intervals:
    """Bootstrap intervals for one report; identical value lists (a task that is its whole task
    type, say) are resampled once, which gives the same interval the repeat would."""

    def __init__(self, n_resamples: int, seed: int, confidence: float) -> None:
        self.n_resamples, self.seed, self.confidence = n_resamples, seed, confidence
        self._done: dict[tuple[float, ...], dict[str, Any]] = {}

    def __call__(self, values: Sequence[float]) -> dict[str, Any] | None:
        if not values:
            return None
        key = tuple(values)
        if key not in self._done:
            low, high = bootstrap_ci(values, n_resamples=self.n_resamples, seed=self.seed, confidence=self.confidence)
            self._done[key] = {"value": math.fsum(values) / len(values), "low": low, "high": high}
        return dict(self._done[key])


def _group_stats(
    name: str,
    level: str,
    items: Sequence[Item],
    *,
    mode: str | None,
    interval: _Intervals,
    cv_threshold: float,
) -> dict[str, Any]:
    statuses = Counter(item.status for item in items)
    outcomes = Counter(item.outcome for item in items)
    scorable = [item for item in items if item.outcome in (SCORED, NO_ANSWER)]
    parsed = [item for item in scorable if item.outcome == SCORED]
    types = sorted({item.task_type for item in items if item.task_type is not None})
    stats: dict[str, Any] = {
        "level": level,
        "name": name,
        "task_types": types,
        "metrics": sorted({item.metric for item in scorable if item.outcome == SCORED}),
        "n": len(items),
        "n_samples": sum(item.n_samples for item in items),
        "statuses": {s: statuses[s] for s in (*ALL_STATUSES, *sorted(set(statuses) - set(ALL_STATUSES))) if statuses[s]},
        "no_target": outcomes[NO_TARGET],
        "bad_target": outcomes[BAD_TARGET],
        "scorable": len(scorable),
        "parsed": len(parsed),
        "parse_rate": len(parsed) / len(scorable) if scorable else None,
        "parse_rates": _parse_rates(scorable),
        "a_valid": interval([i.value for i in parsed]),
        "a_strict": interval([i.value for i in scorable]),
        "ties": sum(1 for item in items if item.tied),
        "chance": None,
        "chance_adjusted": None,
        "random_fallback": None,
        "chance_note": None,
        "runs": None,
    }
    if types == ["multiple_choice"] and scorable and mode in _SINGLE_ANSWER_MODES:
        _add_chance(stats, scorable, interval)
    runs = sorted({item.run for item in items if item.run is not None})
    if runs:
        stats["runs"] = _run_spread(items, runs, cv_threshold)
    return stats


#: Ways of finding an answer that count as a stated answer (strict parse rate).
STRICT_METHODS: Final = ("marker", "boxed")


def _parse_rates(scorable: Sequence[Item]) -> dict[str, float] | None:
    """Strict and flexible parse rates, as lm-evaluation-harness reports strict-match and
    flexible-extract: strict counts answers the output states (a marker, ``####``, a box),
    flexible also the last number of a finished solution.  ``None`` when no item says how
    its answer was found (task types whose chains do not record it)."""
    if not scorable or not any(item.found_by is not None for item in scorable):
        return None
    parsed = [item for item in scorable if item.outcome == SCORED]
    strict = sum(1 for item in parsed if item.found_by in STRICT_METHODS)
    return {"strict": strict / len(scorable), "flexible": len(parsed) / len(scorable)}


def _add_chance(stats: dict[str, Any], scorable: Sequence[Item], interval: _Intervals) -> None:
    missing = sum(1 for item in scorable if item.option_count is None)
    too_few = sorted({item.option_count for item in scorable if item.option_count is not None and item.option_count < 2})
    if missing or too_few:
        stats["chance_note"] = (f"{missing} items do not state their option count" if missing
                                else f"option counts below 2: {too_few}")
        return
    counts = [item.option_count for item in scorable if item.option_count is not None]
    chance = chance_baseline(counts)
    strict = stats["a_strict"]
    stats["chance"] = chance
    stats["chance_adjusted"] = {key: chance_adjusted(strict[key], chance) for key in ("value", "low", "high")}
    fallback = [item.value if item.outcome == SCORED else 1.0 / k for item, k in zip(scorable, counts, strict=True)]
    stats["random_fallback"] = interval(fallback)


def _run_spread(items: Sequence[Item], runs: Sequence[str], cv_threshold: float) -> dict[str, Any]:
    per_run: dict[str, float] = {}
    for run in runs:
        values = [i.value for i in items if i.run == run and i.outcome in (SCORED, NO_ANSWER)]
        if values:
            per_run[run] = math.fsum(values) / len(values)
    cv: float | None = None
    note = None
    if len(per_run) >= 2:
        try:
            cv = coefficient_of_variation(list(per_run.values()))
        except ValueError as exc:
            note = str(exc)
    else:
        note = "fewer than two runs with scorable items"
    unlabeled = sum(1 for i in items if i.run is None)
    if unlabeled:
        note = (note + "; " if note else "") + f"{unlabeled} items carry no run"
    return {
        "a_strict": per_run,
        "cv": cv,
        "threshold": cv_threshold,
        "flagged": cv is not None and cv > cv_threshold,
        "note": note,
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
    if isinstance(cv_threshold, bool) or not isinstance(cv_threshold, (int, float)) or not (
            math.isfinite(cv_threshold) and cv_threshold >= 0):
        raise ValueError(f"the CV threshold must be a non-negative number, got {cv_threshold!r}")
    every = list(items)

    interval = _Intervals(n_resamples, seed, confidence)

    def stats(name: str, level: str, members: Sequence[Item]) -> dict[str, Any]:
        return _group_stats(name, level, members, mode=aggregate, interval=interval,
                            cv_threshold=float(cv_threshold))

    groups: list[dict[str, Any]] = []
    by_task: dict[str, list[Item]] = {}
    by_type: dict[str, list[Item]] = {}
    for item in every:
        by_task.setdefault(item.task, []).append(item)
        by_type.setdefault(item.task_type or "(unknown)", []).append(item)
    groups.extend(stats(name, "task", members) for name, members in by_task.items())
    groups.extend(stats(name, "task_type", members) for name, members in sorted(by_type.items()))
    groups.append(stats("overall", "overall", every))
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
