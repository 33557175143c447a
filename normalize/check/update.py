"""``check --update``: record the current results as the golden ones (planned, shown, then written)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from normalize.check.findings import Baseline, _show, diff_observed, diff_values
from normalize.check.forward import apply_opt_in
from normalize.check.samples import (
    SampleSet,
    as_json_data,
    pins_for,
    updated_opt_in_row,
    updated_sample_row,
    write_recorded,
    write_rows,
)
from normalize.core.pack import Pack
from normalize.core.registry import REGISTRY


@dataclass(frozen=True)
class UpdatePlan:
    """New contents of every golden file, and what changes (for review before writing)."""

    rows: Mapping[Path, tuple[dict[str, Any], ...]]
    changes: tuple[str, ...]
    resolved: Mapping[str, Any]
    recorded_changes: bool
    pins: Mapping[str, Any]

    @property
    def empty(self) -> bool:
        return not self.changes and not self.recorded_changes


def plan_update(pack: Pack, samples: SampleSet, baseline: Baseline) -> UpdatePlan:
    """Record every sample's current result and the pack's pins; list what that changes."""
    rows: dict[Path, list[dict[str, Any]]] = {}
    changes: list[str] = []
    for task_type, sample_rows in samples.by_type.items():
        for sample, actual in zip(sample_rows, baseline[task_type], strict=True):
            rows.setdefault(sample.file, []).append(updated_sample_row(sample, actual))
            if sample.expected is None:
                changes.append(f"{task_type}/{sample.id}: record {_show(actual.answer)} ({actual.status})")
            elif not sample.expected.same_as(actual):
                changes.append(f"{task_type}/{sample.id}:\n" + diff_observed(sample.expected, actual, labels=("recorded", "now")))
            elif sample.rules_hash is not None:
                changes.append(f"{task_type}/{sample.id}: same result; per-row rules_hash dropped (pinned once)")
    resources = pack.resources if samples.opt_in else {}
    for row in samples.opt_in:
        text, status, _ = apply_opt_in(row, resources, pack.settings.regex_timeout)
        version = REGISTRY.rules[row.rule].version
        rows.setdefault(row.file, []).append(updated_opt_in_row(row, text, status, version))
        if "expected" not in row.raw or text != row.expected or status != row.status:
            changes.append(f"opt_in/{row.id}:\n" + diff_values("text", row.expected, text, labels=("recorded", "now")))
        elif row.version != version:
            changes.append(f"opt_in/{row.id}: same text, version {row.version} → {version}")
    resolved = as_json_data(pack.resolved())
    pins = pins_for(pack, samples.pins)
    recorded_changes = (samples.recorded is None or dict(samples.recorded) != resolved
                        or samples.pins is None or as_json_data({k: samples.pins.get(k) for k in pins}) != pins)
    return UpdatePlan({p: tuple(r) for p, r in rows.items()}, tuple(changes), resolved, recorded_changes, pins)


def apply_update(plan: UpdatePlan, directory: Path) -> None:
    for path, rows in plan.rows.items():
        write_rows(path, rows)
    write_recorded(directory, plan.pins, plan.resolved)



def sample_rules(pack: Pack, samples: SampleSet) -> dict[str, set[str]]:
    """Per task type, the rules that appear in the trace of at least one of its samples."""
    out: dict[str, set[str]] = {}
    for task_type, rows in samples.by_type.items():
        seen: set[str] = set()
        for s in rows:
            seen.update(step.rule for step in pack.run(s.output, s.task, options=s.options, schema=s.schema, lang=s.lang).trace)
        out[task_type] = seen
    return out
