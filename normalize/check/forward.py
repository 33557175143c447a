"""The forward check: every golden sample still gives its recorded result; opt-in rows too."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from normalize import status as st
from normalize.check.findings import Baseline, Finding, build_spec, diff_observed, diff_values
from normalize.check.samples import (
    OptInSample,
    SampleSet,
)
from normalize.core.engine import RuleFailure, apply_rule
from normalize.core.pack import Pack


def apply_opt_in(row: OptInSample, resources: Mapping[str, Any], timeout: float) -> tuple[str | None, str, str | None]:
    """``(text, status, reason)`` of the rule applied on its own to the row's input."""
    spec = build_spec(row.rule, row.params, resources)
    out = apply_rule(spec, row.input, timeout=timeout)
    if isinstance(out, RuleFailure):
        if out.kind in ("crash", "returned"):  # a rule bug: the check shows it, as before
            raise RuntimeError(out.reason)
        return None, out.status, out.detail
    return out, st.OK, None


def check_forward(pack: Pack, samples: SampleSet, baseline: Baseline) -> list[Finding]:
    """Golden rows whose recorded result no longer holds, or was never recorded."""
    findings: list[Finding] = []
    for task_type, rows in samples.by_type.items():
        unrecorded = [s.id for s in rows if s.expected is None]
        if unrecorded:
            findings.append(Finding(
                "forward",
                f"{task_type}: {len(unrecorded)} sample(s) have no recorded expected result; "
                "run `normalize check --update` after review",
                detail="samples: " + ", ".join(unrecorded),
                task_type=task_type,
            ))
        for sample, actual in zip(rows, baseline[task_type], strict=True):
            if sample.expected is None or sample.expected.same_as(actual):
                continue
            findings.append(Finding(
                "forward",
                f"{task_type}/{sample.id}: result differs from the recorded one",
                detail=diff_observed(sample.expected, actual),
                task_type=task_type,
                sample=sample.id,
            ))
    resources = pack.resources if samples.opt_in else {}
    for row in samples.opt_in:
        text, status, reason = apply_opt_in(row, resources, pack.settings.regex_timeout)
        if row.expected is None and row.status == st.OK and "expected" not in row.raw:
            findings.append(Finding(
                "forward", f"opt_in/{row.id}: no recorded expected text; run `normalize check --update` after review",
                rule=row.rule, task_type=row.task_type, sample=row.id,
            ))
            continue
        if text == row.expected and status == row.status:
            continue
        detail = diff_values("text", row.expected, text)
        if status != row.status:
            detail += "\n" + diff_values("status", row.status, status) + (f"\n  reason: {reason}" if reason else "")
        findings.append(Finding(
            "forward", f"opt_in/{row.id}: {row.rule} gives a different text", detail=detail,
            rule=row.rule, task_type=row.task_type, sample=row.id,
        ))
    return findings
