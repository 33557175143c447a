"""The version check: samples recorded with another pack hash, and which rules changed."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Mapping
from typing import Any

from normalize.check.findings import Finding, _short
from normalize.check.samples import (
    SampleSet,
)
from normalize.core.pack import Pack
from normalize.core.registry import REGISTRY
from normalize.values._json import canonical_json


def resolved_hash(resolved: Mapping[str, Any]) -> str:
    """The pack hash of a resolved pack (the form stored in ``_recorded.json``)."""
    return "sha256:" + hashlib.sha256(canonical_json(resolved).encode("utf-8")).hexdigest()


def _spec_label(spec: Mapping[str, Any]) -> str:
    params = spec.get("params") or {}
    return f"{spec.get('rule', spec.get('parser'))} v{spec.get('version')}" + (
        f" {canonical_json(params)}" if params else ""
    )


def _param_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    parts = []
    for key in sorted(set(before) | set(after)):
        if before.get(key, ...) != after.get(key, ...):
            old = "(absent)" if key not in before else _short(before[key], 40)
            new = "(absent)" if key not in after else _short(after[key], 40)
            parts.append(f"{key} {old} → {new}")
    return ", ".join(parts)


def _spec_change(before: list[Any], after: list[Any]) -> str:
    """``v1 → v2`` and/or the params that changed, for the specs of one rule in one chain."""
    if len(before) != len(after):
        return f"used {len(before)}× → {len(after)}×"
    parts = []
    for b, a in zip(before, after, strict=True):
        if b.get("version") != a.get("version"):
            parts.append(f"{b['rule']} v{b.get('version')} → {a['rule']} v{a.get('version')}")
        if b.get("params") != a.get("params"):
            parts.append("params " + _param_changes(b.get("params") or {}, a.get("params") or {}))
    return "; ".join(parts)


def diff_resolved(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[str | None, str | None, str]]:
    """``(task_type, rule, message)`` for every difference between two resolved packs.

    >>> old = {"task_types": {"math": {"chain": [{"rule": "a", "version": 1, "params": {}}],
    ...        "parser": {"parser": "number", "version": 1, "params": {}}}}}
    >>> new = {"task_types": {"math": {"chain": [{"rule": "a", "version": 2, "params": {}}],
    ...        "parser": {"parser": "number", "version": 1, "params": {}}}}}
    >>> diff_resolved(old, new)
    [('math', 'a', 'math: a changed: a v1 → a v2')]
    """
    out: list[tuple[str | None, str | None, str]] = []
    old_types: Mapping[str, Any] = old.get("task_types") or {}
    new_types: Mapping[str, Any] = new.get("task_types") or {}
    for task_type in sorted(set(old_types) | set(new_types)):
        if task_type not in new_types:
            out.append((task_type, None, f"{task_type}: task type removed"))
            continue
        if task_type not in old_types:
            out.append((task_type, None, f"{task_type}: task type added"))
            continue
        before_chain = list(old_types[task_type].get("chain", []))
        after_chain = list(new_types[task_type].get("chain", []))
        before_by: dict[str, list[Any]] = {}
        after_by: dict[str, list[Any]] = {}
        for item in before_chain:
            before_by.setdefault(item["rule"], []).append(item)
        for item in after_chain:
            after_by.setdefault(item["rule"], []).append(item)
        for rule in sorted(set(before_by) | set(after_by)):
            b, a = before_by.get(rule, []), after_by.get(rule, [])
            if not a:
                out.append((task_type, rule, f"{task_type}: {rule} removed"))
            elif not b:
                out.append((task_type, rule, f"{task_type}: {rule} added ({_spec_label(a[0])})"))
            elif b != a:
                out.append((task_type, rule, f"{task_type}: {rule} changed: {_spec_change(b, a)}"))
        if [i["rule"] for i in before_chain if i["rule"] in after_by] != [
            i["rule"] for i in after_chain if i["rule"] in before_by
        ]:
            out.append((task_type, None, f"{task_type}: chain order changed"))
        bp, ap = old_types[task_type].get("parser"), new_types[task_type].get("parser")
        if bp != ap:
            out.append((task_type, None, f"{task_type}: parser changed: {_spec_label(bp or {})} → {_spec_label(ap or {})}"))
    for key in sorted((set(old) | set(new)) - {"task_types"}):
        if old.get(key) != new.get(key):
            out.append((None, None, f"pack section {key!r} changed"))
    return out


def check_version(pack: Pack, samples: SampleSet) -> list[Finding]:
    """Samples recorded with another pack (the pins of ``_recorded.json``), and the rule specs
    that changed since; rows of an older layout that still carry a ``rules_hash`` count too."""
    findings: list[Finding] = []
    current = pack.hash
    stale: dict[str, list[str]] = {}
    for task_type, rows in samples.by_type.items():
        for s in rows:
            if s.rules_hash is not None and s.rules_hash != current:
                stale.setdefault(task_type, []).append(s.id)
    recorded = samples.recorded
    pinned = samples.pins.get("hashes", {}).get(unicodedata.unidata_version) if samples.pins else None
    recorded_differs = recorded is not None and (
        resolved_hash(recorded) != current or (pinned is not None and pinned != current)
    )
    if stale or recorded_differs:
        n = sum(len(v) for v in stale.values())
        detail = "\n".join(
            f"{t}: all {len(ids)} rows" if len(ids) == len(samples.by_type[t]) else f"{t}: {', '.join(ids)}"
            for t, ids in sorted(stale.items())
        )
        what = f"{n} row(s) and the pins" if n else "the pins in _recorded.json"
        findings.append(Finding(
            "version",
            f"samples were recorded with another pack ({what}; pack is {current[:19]}…): "
            "run `normalize check --update` after review",
            detail=detail,
        ))
        if recorded is None:
            findings.append(Finding("version", "no _recorded.json: the rules that changed cannot be listed"))
        else:
            for changed_type, rule, message in diff_resolved(recorded, pack.resolved()):
                findings.append(Finding("version", message, rule=rule, task_type=changed_type))
    for row in samples.opt_in:
        version = REGISTRY.rules[row.rule].version
        if row.version is not None and row.version != version:
            findings.append(Finding(
                "version",
                f"opt_in/{row.id}: recorded with {row.rule} v{row.version}, the library has v{version}",
                rule=row.rule, task_type=row.task_type, sample=row.id,
            ))
    return findings
