"""The reverse (leak) check and ``--rule``: what a rule would change on task types outside
its scope (or, inside it, inserted into the chain); reviewed leaks come from ``check.reverse.accept``."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from normalize.check.findings import (
    Baseline,
    Finding,
    diff_observed,
    distinct_specs,
    observe,
    scope_of,
    summarize_change,
)
from normalize.check.samples import (
    Observed,
    Sample,
    SampleSet,
)
from normalize.core.engine import Chain, RuleFailure, RuleSpec, apply_rule
from normalize.core.pack import Pack
from normalize.core.registry import REGISTRY, STAGES
from normalize.core.tasktypes import FAMILIES
from normalize.errors import CheckConfigError


def in_scope(pack: Pack, rule: str, task_type: str) -> bool:
    """Whether ``task_type`` of ``pack`` is in ``rule``'s scope: scopes name families, and a task
    type the pack declares on a family (``yes_no`` on ``extractive_qa``) is in its family's."""
    declared = pack.task_types.get(task_type)
    return (declared.family if declared is not None else task_type) in scope_of(rule)


@dataclass(frozen=True)
class Accept:
    rule: str
    task_type: str
    reason: str


def accepted_leaks(pack: Pack) -> dict[tuple[str, str], Accept]:
    """The pack's reviewed out-of-scope effects; a malformed entry raises :class:`CheckConfigError`."""
    config = dict(pack.check_config)
    unknown = set(config) - {"reverse"}
    if unknown:
        raise CheckConfigError(f"pack check section: unknown keys {sorted(unknown)}; allowed: ['reverse']")
    reverse = config.get("reverse", {})
    if not isinstance(reverse, dict):
        raise CheckConfigError(f"pack check.reverse must be a mapping, got {reverse!r}")
    unknown = set(reverse) - {"accept"}
    if unknown:
        raise CheckConfigError(f"pack check.reverse: unknown keys {sorted(unknown)}; allowed: ['accept']")
    entries = reverse.get("accept", [])
    if not isinstance(entries, list):
        raise CheckConfigError(f"pack check.reverse.accept must be a list, got {entries!r}")
    out: dict[tuple[str, str], Accept] = {}
    for i, entry in enumerate(entries):
        where = f"pack check.reverse.accept[{i}]"
        if not isinstance(entry, dict) or set(entry) != {"rule", "task_type", "reason"}:
            raise CheckConfigError(f"{where}: needs exactly rule, task_type and reason, got {entry!r}")
        rule, task_type, reason = entry["rule"], entry["task_type"], entry["reason"]
        if rule not in REGISTRY.rules:
            close = difflib.get_close_matches(str(rule), list(REGISTRY.rules), n=1)
            raise CheckConfigError(f"{where}: unknown rule {rule!r}" + (f"; did you mean {close[0]!r}?" if close else ""))
        declared = pack.task_types.get(task_type) if isinstance(task_type, str) else None
        if declared is None and task_type not in FAMILIES:
            known = ", ".join(dict.fromkeys([*FAMILIES, *pack.task_types]))
            raise CheckConfigError(f"{where}: unknown task type {task_type!r}; known: {known}")
        if not isinstance(reason, str) or not reason.strip():
            raise CheckConfigError(f"{where}: reason must be a non-empty string")
        if in_scope(pack, rule, task_type):
            raise CheckConfigError(f"{where}: {task_type} is in the scope of {rule}; only out-of-scope effects are accepted")
        if (rule, task_type) in out:
            raise CheckConfigError(f"{where}: {rule} on {task_type} is accepted twice")
        out[(rule, task_type)] = Accept(rule, task_type, reason)
    return out





@dataclass(frozen=True)
class Change:
    """A sample whose result a rule changes: before (baseline) and after."""

    sample: str
    before: Observed
    after: Observed
    note: str = ""


def leak_changes(
    pack: Pack, spec: RuleSpec, task_type: str, rows: Sequence[Sample], base: Sequence[Observed]
) -> list[Change]:
    """Samples of ``task_type`` whose result changes when ``spec`` is applied to the raw output
    first (then the type's own chain and parser).  Outputs the rule leaves alone are skipped
    without rerunning the chain."""
    timeout = pack.settings.regex_timeout
    changes: list[Change] = []
    for sample, before in zip(rows, base, strict=True):
        if sample.output is None:
            continue
        leaked = apply_rule(spec, sample.output, timeout=timeout)
        if isinstance(leaked, RuleFailure):
            after = Observed(None, None, leaked.status)
            note = {"rejected": f"{spec.name} rejects it: {leaked.detail}", "timeout": f"{spec.name} timed out"}
            changes.append(Change(sample.id, before, after, note.get(leaked.kind, leaked.reason)))
            continue
        if leaked == sample.output:
            continue
        after = observe(pack, leaked, sample.task, sample.options, sample.schema, sample.lang)
        if not after.same_as(before):
            changes.append(Change(sample.id, before, after))
    return changes


def _leak_finding(check: str, spec: RuleSpec, task_type: str, change: Change, accept: Accept | None) -> Finding:
    detail = diff_observed(change.before, change.after, labels=("before", "after"))
    if change.note:
        detail = change.note + ("\n" + detail if detail else "")
    return Finding(
        check,
        f"{spec.name} (scope {', '.join(scope_of(spec.name))}) would change {task_type}/{change.sample}",
        detail=detail,
        rule=spec.name,
        task_type=task_type,
        sample=change.sample,
        accepted=accept is not None,
        accept_reason=accept.reason if accept else None,
        change=summarize_change(change.before, change.after),
    )


def check_reverse(
    pack: Pack, samples: SampleSet, baseline: Baseline, accepts: Mapping[tuple[str, str], Accept]
) -> list[Finding]:
    """For each distinct rule spec of the pack and each sampled task type outside the rule's
    scope: the samples whose result would change if the rule leaked onto them."""
    findings: list[Finding] = []
    for spec in distinct_specs(pack):
        for task_type, rows in samples.by_type.items():
            if in_scope(pack, spec.name, task_type):
                continue
            accept = accepts.get((spec.name, task_type))
            for change in leak_changes(pack, spec, task_type, rows, baseline[task_type]):
                findings.append(_leak_finding("reverse", spec, task_type, change, accept))
    return findings





def insert_spec(chain: Chain, spec: RuleSpec) -> Chain:
    """``chain`` with ``spec`` added at the end of its stage group."""
    stage = STAGES.index(REGISTRY.rules[spec.name].stage)
    specs = list(chain.specs)
    position = 0
    for i, existing in enumerate(specs):
        if STAGES.index(existing.stage) <= stage:
            position = i + 1
    specs.insert(position, spec)
    return Chain(tuple(specs))


@dataclass(frozen=True)
class RuleTypeReport:
    task_type: str
    in_scope: bool
    samples: int
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class RuleReport:
    """What ``--rule`` found: per task type, the samples the rule would change."""

    spec: RuleSpec
    per_type: tuple[RuleTypeReport, ...]
    findings: tuple[Finding, ...]

    @property
    def exit_code(self) -> int:
        return 1 if any(not f.accepted for f in self.findings) else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.spec.to_json(),
            "scope": list(scope_of(self.spec.name)),
            "task_types": [
                {
                    "task_type": r.task_type,
                    "in_scope": r.in_scope,
                    "samples": r.samples,
                    "changed": [
                        {"sample": c.sample, "before": c.before.to_json(), "after": c.after.to_json(), "note": c.note}
                        for c in r.changes
                    ],
                }
                for r in self.per_type
            ],
            "findings": [f.to_json() for f in self.findings if not f.accepted],
            "accepted": [f.to_json() for f in self.findings if f.accepted],
            "exit_code": self.exit_code,
        }


def analyze_rule(pack: Pack, samples: SampleSet, baseline: Baseline, spec: RuleSpec) -> RuleReport:
    """Per task type, which samples ``spec`` would change: inserted into the chain of a type in
    its scope, or leaked onto the raw outputs of a type outside it (a finding)."""
    accepts = accepted_leaks(pack)
    per_type: list[RuleTypeReport] = []
    findings: list[Finding] = []
    for task_type, rows in samples.by_type.items():
        base = baseline[task_type]
        if in_scope(pack, spec.name, task_type):
            current = pack.task_types[task_type]
            trial = replace(
                pack,
                task_types={**pack.task_types, task_type: replace(current, chain=insert_spec(current.chain, spec))},
            )
            changes = []
            for sample, before in zip(rows, base, strict=True):
                after = observe(trial, sample.output, sample.task, sample.options, sample.schema, sample.lang)
                if not after.same_as(before):
                    changes.append(Change(sample.id, before, after))
            per_type.append(RuleTypeReport(task_type, True, len(rows), tuple(changes)))
        else:
            leaks = leak_changes(pack, spec, task_type, rows, base)
            per_type.append(RuleTypeReport(task_type, False, len(rows), tuple(leaks)))
            accept = accepts.get((spec.name, task_type))
            findings += [_leak_finding("rule", spec, task_type, c, accept) for c in leaks]
    return RuleReport(spec, tuple(per_type), tuple(findings))
