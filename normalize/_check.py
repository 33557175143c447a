"""``normalize check``: guards on every rule of a pack, run against golden samples.

Four checks, each a function returning :class:`Finding` records (the CLI only renders them):

* :func:`check_forward` — every golden sample still gives its recorded normalized text, answer
  and status; every opt-in row still gives its recorded text.
* :func:`check_reverse` — the leak test: each rule of any chain, applied on its own to the raw
  samples of a task type outside its registered ``scope``, then that type's own chain and
  parser; a changed result is a finding unless the pack accepts it (``check.reverse.accept``).
* :func:`check_safety` — each rule spec and parser on adversarial input kinds: exceptions,
  output blow-up, a CPU-time backstop, and superlinear growth of work from n to 2n
  (load-independent: see :mod:`normalize._growth`).
* :func:`check_version` — samples recorded with another pack hash, and which rules changed.

:func:`analyze_rule` answers ``--rule NAME``; :func:`plan_update` backs ``--update``.  The
baseline result of every sample is computed once (:func:`compute_baseline`) and shared.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from normalize import status as st
from normalize._check_samples import (
    Observed,
    OptInSample,
    Sample,
    SamplesError,
    SampleSet,
    as_json_data,
    default_samples_dir,
    load_samples,
    updated_opt_in_row,
    updated_sample_row,
    write_recorded,
    write_rows,
)
from normalize._growth import KINDS, probe
from normalize._yaml import load_yaml
from normalize.engine import Chain, RuleSpec
from normalize.errors import RejectText
from normalize.pack import Pack, ParserSpec, TaskType, canonical_json, load_pack
from normalize.registry import REGISTRY, STAGES, TASK_TYPES, ParseContext

CHECKS: Final = ("forward", "reverse", "safety", "version")
DEFAULT_SAFETY_TIMEOUT: Final = 0.2
DEFAULT_SAFETY_BUDGET: Final = 2.0


class CheckConfigError(ValueError):
    """The pack's ``check`` section, a ``--rule``/``--params`` value or the samples are unusable."""


@dataclass(frozen=True)
class Finding:
    """One problem found by a check; ``accepted`` findings are reviewed and do not fail."""

    check: str
    summary: str
    detail: str = ""
    rule: str | None = None
    task_type: str | None = None
    sample: str | None = None
    accepted: bool = False
    accept_reason: str | None = None
    #: one line, before → after of the fields that changed (reverse and --rule findings)
    change: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "summary": self.summary,
            "detail": self.detail,
            "change": self.change,
            "rule": self.rule,
            "task_type": self.task_type,
            "sample": self.sample,
            "accepted": self.accepted,
            "accept_reason": self.accept_reason,
        }


# --------------------------------------------------------------------------- results and diffs


def observe(pack: Pack, text: str | None, task: str, options: tuple[str, ...] | int | None) -> Observed:
    """Run ``pack`` on one output and keep what decides a score."""
    result = pack.run(text, task, options=options)
    return Observed(result.text, as_json_data(result.answer), result.status)


Baseline = Mapping[str, tuple[Observed, ...]]


def compute_baseline(pack: Pack, samples: SampleSet) -> dict[str, tuple[Observed, ...]]:
    """Each task type's result on each of its samples, in file order (computed once, reused)."""
    return {
        task_type: tuple(observe(pack, s.output, s.task, s.options) for s in rows)
        for task_type, rows in samples.by_type.items()
    }


def _show(value: Any) -> str:
    if isinstance(value, str) or value is None:
        return repr(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def diff_values(name: str, before: Any, after: Any, *, labels: tuple[str, str] = ("expected", "actual")) -> str:
    """A readable diff of one field: a unified diff for multi-line text, else both values.

    >>> print(diff_values("answer", "B", "C"))
    answer:
      - expected: 'B'
      + actual:   'C'
    """
    if isinstance(before, str) and isinstance(after, str) and ("\n" in before or "\n" in after):
        lines = difflib.unified_diff(
            before.splitlines(), after.splitlines(), fromfile=labels[0], tofile=labels[1], lineterm=""
        )
        return f"{name}:\n" + "\n".join("  " + line for line in lines)
    width = max(len(labels[0]), len(labels[1])) + 1
    return (
        f"{name}:\n  - {labels[0] + ':':<{width}} {_show(before)}\n"
        f"  + {labels[1] + ':':<{width}} {_show(after)}"
    )


def _short(value: Any, width: int = 48) -> str:
    shown = _show(value)
    return shown if len(shown) <= width else shown[: width - 1] + "…"


def summarize_change(before: Observed, after: Observed) -> str:
    """One line naming each changed field, before → after.

    >>> summarize_change(Observed("B.", "B", "ok"), Observed(None, None, "invalid"))
    "normalized 'B.' → None; answer 'B' → None; status ok → invalid"
    """
    parts = []
    if before.normalized != after.normalized:
        parts.append(f"normalized {_short(before.normalized)} → {_short(after.normalized)}")
    answer_is_text = before.answer == before.normalized and after.answer == after.normalized
    if not answer_is_text and canonical_json(as_json_data(before.answer)) != canonical_json(as_json_data(after.answer)):
        parts.append(f"answer {_short(before.answer)} → {_short(after.answer)}")
    if before.status != after.status:
        parts.append(f"status {before.status} → {after.status}")
    return "; ".join(parts)


def diff_observed(before: Observed, after: Observed, *, labels: tuple[str, str] = ("expected", "actual")) -> str:
    """Per-field diffs of the fields that differ (normalized text, answer, status)."""
    parts = []
    if before.normalized != after.normalized:
        parts.append(diff_values("normalized", before.normalized, after.normalized, labels=labels))
    if canonical_json(as_json_data(before.answer)) != canonical_json(as_json_data(after.answer)):
        parts.append(diff_values("answer", before.answer, after.answer, labels=labels))
    if before.status != after.status:
        parts.append(diff_values("status", before.status, after.status, labels=labels))
    return "\n".join(parts)


# --------------------------------------------------------------------------- pack helpers


def pack_resources(pack: Pack) -> dict[str, Any]:
    """The resources a rule's ``resolve`` hook reads, rebuilt from the pack's source files."""
    languages: dict[str, Any] = {}
    for source in pack.sources:
        doc = load_yaml(Path(source).read_text(encoding="utf-8"), source)
        section = doc.value.get("languages") if isinstance(doc.value, dict) else None
        if isinstance(section, dict):
            languages.update(section)
    return {
        "languages": languages,
        "schemas": dict(pack.schemas),
        "aliases": {k: [list(g) for g in v] for k, v in pack.aliases.items()},
    }


def build_spec(name: str, params: Mapping[str, Any] | None, resources: Mapping[str, Any]) -> RuleSpec:
    """A spec for rule ``name`` with ``params`` validated and resolved as a pack would."""
    definition = REGISTRY.rules.get(name)
    if definition is None:
        close = difflib.get_close_matches(name, list(REGISTRY.rules), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise CheckConfigError(f"unknown rule {name!r}{hint}")
    try:
        model = definition.params_model.model_validate(dict(params or {}))
        if definition.resolve is not None:
            model = definition.resolve(model, resources)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise CheckConfigError(f"rule {name!r}: bad params {dict(params or {})!r}: {exc}") from None
    return RuleSpec(name, definition.version, model)


def spec_key(spec: RuleSpec) -> tuple[str, str]:
    return spec.name, canonical_json(spec.params.model_dump(mode="json"))


def distinct_specs(pack: Pack) -> list[RuleSpec]:
    """Every distinct (rule, params) used in any chain, in first-use order over sorted types."""
    seen: dict[tuple[str, str], RuleSpec] = {}
    for _, task_type in sorted(pack.task_types.items()):
        for spec in task_type.chain.specs:
            seen.setdefault(spec_key(spec), spec)
    return list(seen.values())


def distinct_parsers(pack: Pack) -> list[ParserSpec]:
    seen: dict[str, ParserSpec] = {}
    for _, task_type in sorted(pack.task_types.items()):
        p = task_type.parser
        seen.setdefault(canonical_json(p.to_json()), p)
    return list(seen.values())


def scope_of(name: str) -> tuple[str, ...]:
    return REGISTRY.rules[name].scope


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
        if task_type not in TASK_TYPES:
            raise CheckConfigError(f"{where}: unknown task type {task_type!r}; known: {', '.join(TASK_TYPES)}")
        if not isinstance(reason, str) or not reason.strip():
            raise CheckConfigError(f"{where}: reason must be a non-empty string")
        if task_type in scope_of(rule):
            raise CheckConfigError(f"{where}: {task_type} is in the scope of {rule}; only out-of-scope effects are accepted")
        if (rule, task_type) in out:
            raise CheckConfigError(f"{where}: {rule} on {task_type} is accepted twice")
        out[(rule, task_type)] = Accept(rule, task_type, reason)
    return out


# --------------------------------------------------------------------------- forward


def apply_opt_in(row: OptInSample, resources: Mapping[str, Any], timeout: float) -> tuple[str | None, str, str | None]:
    """``(text, status, reason)`` of the rule applied on its own to the row's input."""
    spec = build_spec(row.rule, row.params, resources)
    try:
        return spec.apply(row.input, timeout=timeout), st.OK, None
    except RejectText as rejected:
        return None, rejected.status, rejected.reason
    except TimeoutError:
        return None, st.ERROR, f"regular expression timed out after {timeout}s"


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
    resources = pack_resources(pack) if samples.opt_in else {}
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


# --------------------------------------------------------------------------- reverse


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
        try:
            leaked = spec.apply(sample.output, timeout=timeout)
        except RejectText as rejected:
            after = Observed(None, None, rejected.status)
            changes.append(Change(sample.id, before, after, f"{spec.name} rejects it: {rejected.reason}"))
            continue
        except TimeoutError:
            changes.append(Change(sample.id, before, Observed(None, None, st.ERROR), f"{spec.name} timed out"))
            continue
        except Exception as exc:  # recorded as a finding, like the engine's status error
            after = Observed(None, None, st.ERROR)
            changes.append(Change(sample.id, before, after, f"{spec.name} raised {type(exc).__name__}: {exc}"))
            continue
        if leaked == sample.output:
            continue
        after = observe(pack, leaked, sample.task, sample.options)
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
        scope = scope_of(spec.name)
        for task_type, rows in samples.by_type.items():
            if task_type in scope:
                continue
            accept = accepts.get((spec.name, task_type))
            for change in leak_changes(pack, spec, task_type, rows, baseline[task_type]):
                findings.append(_leak_finding("reverse", spec, task_type, change, accept))
    return findings


# --------------------------------------------------------------------------- safety


#: Adversarial input kinds: (name, builder of a text of about ``size`` characters).
ADVERSARIAL: Final[tuple[tuple[str, Callable[[int], str]], ...]] = KINDS


def check_safety(
    pack: Pack,
    *,
    timeout: float = DEFAULT_SAFETY_TIMEOUT,
    budget: float = DEFAULT_SAFETY_BUDGET,
    inputs: Sequence[tuple[str, Callable[[int], str]]] = ADVERSARIAL,
) -> list[Finding]:
    """Each distinct rule spec and parser on each adversarial input kind, load-independently:
    exceptions, output blow-up and a CPU-time backstop at one size, then the growth of work
    from n to 2n (:func:`normalize._growth.probe`).  ``timeout`` is the per-call limit of
    user-supplied patterns, ``budget`` the CPU seconds one call may take."""
    findings: list[Finding] = []
    for spec in distinct_specs(pack):
        params = spec.params.model_dump(mode="json")
        label = spec.name + (f" {canonical_json(params)}" if params and len(canonical_json(params)) <= 80 else "")
        run_rule = (lambda s: lambda text: s.apply(text, timeout=timeout))(spec)
        for kind, problem in probe(run_rule, inputs, budget=budget, benign=(RejectText,)):
            findings.append(Finding("safety", f"rule {label} on {kind}: {problem}", rule=spec.name))
    for parser in distinct_parsers(pack):
        definition = REGISTRY.parser(parser.name)
        ctx = ParseContext(options=None, timeout=timeout)
        run_parser = (lambda d, p, c: lambda text: d.fn(text, p.params, c))(definition, parser, ctx)
        for kind, problem in probe(run_parser, inputs, budget=budget, benign=(ValueError, RejectText)):
            findings.append(Finding("safety", f"parser {parser.name} on {kind}: {problem}"))
    return findings


# --------------------------------------------------------------------------- version


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
    """Samples recorded with another pack, and the rule specs that changed since."""
    findings: list[Finding] = []
    current = pack.hash
    stale: dict[str, list[str]] = {}
    for task_type, rows in samples.by_type.items():
        for s in rows:
            if s.rules_hash is not None and s.rules_hash != current:
                stale.setdefault(task_type, []).append(s.id)
    recorded = samples.recorded
    recorded_differs = recorded is not None and resolved_hash(recorded) != current
    if stale or recorded_differs:
        n = sum(len(v) for v in stale.values())
        detail = "\n".join(
            f"{t}: all {len(ids)} rows" if len(ids) == len(samples.by_type[t]) else f"{t}: {', '.join(ids)}"
            for t, ids in sorted(stale.items())
        )
        findings.append(Finding(
            "version",
            f"samples were recorded with another pack ({n} row(s), pack is {current[:19]}…): "
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


# --------------------------------------------------------------------------- the whole check


@dataclass(frozen=True)
class CheckReport:
    """Everything one ``normalize check`` run found."""

    pack_name: str
    pack_hash: str
    samples_dir: str
    checks: tuple[str, ...]
    findings: tuple[Finding, ...]
    counts: Mapping[str, int]
    skipped_types: tuple[str, ...] = ()
    seconds: Mapping[str, float] = field(default_factory=dict)

    @property
    def failing(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if not f.accepted)

    @property
    def accepted(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.accepted)

    @property
    def exit_code(self) -> int:
        return 1 if self.failing else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "pack": self.pack_name,
            "rules_hash": self.pack_hash,
            "samples": self.samples_dir,
            "checks": list(self.checks),
            "counts": dict(self.counts),
            "skipped_task_types": list(self.skipped_types),
            "seconds": {k: round(v, 4) for k, v in self.seconds.items()},
            "findings": [f.to_json() for f in self.failing],
            "accepted": [f.to_json() for f in self.accepted],
            "exit_code": self.exit_code,
        }


def run_check(
    pack: Pack,
    samples: SampleSet,
    *,
    checks: Iterable[str] = CHECKS,
    timeout: float = DEFAULT_SAFETY_TIMEOUT,
    budget: float = DEFAULT_SAFETY_BUDGET,
    baseline: Baseline | None = None,
) -> CheckReport:
    """Run the chosen checks; the baseline is computed once and shared by forward and reverse."""
    chosen = tuple(c for c in CHECKS if c in set(checks))
    accepts = accepted_leaks(pack)
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    base = baseline if baseline is not None else compute_baseline(pack, samples)
    seconds["baseline"] = time.perf_counter() - start
    findings: list[Finding] = []
    for name in chosen:
        start = time.perf_counter()
        if name == "forward":
            findings += check_forward(pack, samples, base)
        elif name == "reverse":
            findings += check_reverse(pack, samples, base, accepts)
        elif name == "safety":
            findings += check_safety(pack, timeout=timeout, budget=budget)
        else:
            findings += check_version(pack, samples)
        seconds[name] = time.perf_counter() - start
    counts = {
        "samples": samples.count,
        "opt_in": len(samples.opt_in),
        "task_types": len(samples.by_type),
        "rule_specs": len(distinct_specs(pack)),
        "parsers": len(distinct_parsers(pack)),
        "adversarial_inputs": len(ADVERSARIAL) if "safety" in chosen else 0,
    }
    return CheckReport(
        pack.name, pack.hash, str(samples.directory), chosen, tuple(findings), counts,
        samples.skipped, seconds,
    )


# --------------------------------------------------------------------------- --rule


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
    scope = scope_of(spec.name)
    per_type: list[RuleTypeReport] = []
    findings: list[Finding] = []
    for task_type, rows in samples.by_type.items():
        base = baseline[task_type]
        if task_type in scope:
            current = pack.task_types[task_type]
            trial = replace(
                pack,
                task_types={**pack.task_types, task_type: TaskType(task_type, insert_spec(current.chain, spec), current.parser)},
            )
            changes = []
            for sample, before in zip(rows, base, strict=True):
                after = observe(trial, sample.output, sample.task, sample.options)
                if not after.same_as(before):
                    changes.append(Change(sample.id, before, after))
            per_type.append(RuleTypeReport(task_type, True, len(rows), tuple(changes)))
        else:
            leaks = leak_changes(pack, spec, task_type, rows, base)
            per_type.append(RuleTypeReport(task_type, False, len(rows), tuple(leaks)))
            accept = accepts.get((spec.name, task_type))
            findings += [_leak_finding("rule", spec, task_type, c, accept) for c in leaks]
    return RuleReport(spec, tuple(per_type), tuple(findings))


# --------------------------------------------------------------------------- --update


@dataclass(frozen=True)
class UpdatePlan:
    """New contents of every golden file, and what changes (for review before writing)."""

    rows: Mapping[Path, tuple[dict[str, Any], ...]]
    changes: tuple[str, ...]
    resolved: Mapping[str, Any]
    recorded_changes: bool

    @property
    def empty(self) -> bool:
        return not self.changes and not self.recorded_changes


def plan_update(pack: Pack, samples: SampleSet, baseline: Baseline) -> UpdatePlan:
    """Record every sample's current result and the pack hash; list what that changes."""
    current = pack.hash
    rows: dict[Path, list[dict[str, Any]]] = {}
    changes: list[str] = []
    for task_type, sample_rows in samples.by_type.items():
        for sample, actual in zip(sample_rows, baseline[task_type], strict=True):
            rows.setdefault(sample.file, []).append(updated_sample_row(sample, actual, current))
            if sample.expected is None:
                changes.append(f"{task_type}/{sample.id}: record {_show(actual.answer)} ({actual.status})")
            elif not sample.expected.same_as(actual):
                changes.append(f"{task_type}/{sample.id}:\n" + diff_observed(sample.expected, actual, labels=("recorded", "now")))
            elif sample.rules_hash != current:
                changes.append(f"{task_type}/{sample.id}: same result, new rules_hash")
    resources = pack_resources(pack) if samples.opt_in else {}
    for row in samples.opt_in:
        text, status, _ = apply_opt_in(row, resources, pack.settings.regex_timeout)
        version = REGISTRY.rules[row.rule].version
        rows.setdefault(row.file, []).append(updated_opt_in_row(row, text, status, version))
        if "expected" not in row.raw or text != row.expected or status != row.status:
            changes.append(f"opt_in/{row.id}:\n" + diff_values("text", row.expected, text, labels=("recorded", "now")))
        elif row.version != version:
            changes.append(f"opt_in/{row.id}: same text, version {row.version} → {version}")
    resolved = pack.resolved()
    recorded_changes = samples.recorded is None or dict(samples.recorded) != as_json_data(resolved)
    return UpdatePlan({p: tuple(r) for p, r in rows.items()}, tuple(changes), resolved, recorded_changes)


def apply_update(plan: UpdatePlan, directory: Path) -> None:
    for path, rows in plan.rows.items():
        write_rows(path, rows)
    write_recorded(directory, plan.resolved)


# --------------------------------------------------------------------------- rendering


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def _wrap(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def green(self, text: str) -> str:
        return self._wrap("32", text)

    def yellow(self, text: str) -> str:
        return self._wrap("33", text)

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def _render_finding(f: Finding, style: _Style, *, verbose: bool) -> list[str]:
    mark = style.yellow("accepted") if f.accepted else style.red("✗")
    lines = [f"  {mark} [{f.check}] {f.summary}"]
    if f.accepted and f.accept_reason:
        lines.append(style.dim(f"    reason: {f.accept_reason}"))
    if f.detail:
        lines.append(_indent(f.detail))
    return lines


def _render_leaks(findings: Sequence[Finding], style: _Style, *, verbose: bool) -> list[str]:
    """Leak findings grouped by (rule, task type): a header, then one line per sample."""
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.rule or "", f.task_type or ""), []).append(f)
    lines: list[str] = []
    for (rule, task_type), items in groups.items():
        accepted = items[0].accepted
        mark = style.yellow("accepted") if accepted else style.red("✗")
        scope = ", ".join(scope_of(rule)) if rule in REGISTRY.rules else "?"
        lines.append(f"  {mark} [{items[0].check}] {rule} (scope {scope}) would change "
                     f"{len(items)} {task_type} sample(s)")
        if accepted and items[0].accept_reason:
            lines.append(style.dim(f"    reason: {items[0].accept_reason}"))
        for f in items:
            lines.append(f"    {f.sample}: {f.change or f.detail.splitlines()[0]}")
            if verbose and f.detail:
                lines.append(style.dim(_indent(f.detail, "        ")))
    return lines


def render_report(report: CheckReport, *, color: bool, verbose: bool) -> str:
    style = _Style(color)
    c = report.counts
    lines = [
        style.bold(f"normalize check: pack {report.pack_name} ({report.pack_hash[:19]}…)"),
        f"samples: {report.samples_dir} ({c['samples']} rows in {c['task_types']} task types, "
        f"{c['opt_in']} opt-in rows); {c['rule_specs']} rule specs, {c['parsers']} parsers",
    ]
    if report.skipped_types:
        lines.append(style.yellow(f"note: no such task type in the pack, samples left out: {', '.join(report.skipped_types)}"))
    for name in report.checks:
        failing = [f for f in report.failing if f.check == name]
        accepted = [f for f in report.accepted if f.check == name]
        # times only with --verbose: the default output is the same on an idle and a loaded machine
        took = style.dim(f" ({report.seconds.get(name, 0.0):.2f}s)") if verbose else ""
        status = style.red(f"✗ {len(failing)} finding(s)") if failing else style.green("✓ clean")
        extra = style.yellow(f", {len(accepted)} accepted") if accepted else ""
        lines.append(f"{name:<8} {status}{extra}{took}")
        if name == "reverse":
            lines += _render_leaks(failing, style, verbose=verbose)
            if verbose:
                lines += _render_leaks(accepted, style, verbose=verbose)
            continue
        for f in failing:
            lines += _render_finding(f, style, verbose=verbose)
        if verbose:
            for f in accepted:
                lines += _render_finding(f, style, verbose=verbose)
    if report.accepted and not verbose:
        lines.append(style.dim(f"{len(report.accepted)} accepted finding(s) not listed; --verbose lists them"))
    verdict = style.red(f"FAIL: {len(report.failing)} finding(s)") if report.failing else style.green("OK")
    lines.append(verdict)
    return "\n".join(lines)


def render_rule_report(report: RuleReport, *, color: bool, verbose: bool) -> str:
    style = _Style(color)
    spec = report.spec
    params = spec.params.model_dump(mode="json")
    lines = [style.bold(f"rule {spec.name} v{spec.version} (stage {spec.stage}, scope {', '.join(scope_of(spec.name))})")
             + (f" params {canonical_json(params)}" if params and verbose else "")]
    for r in report.per_type:
        where = "in scope: inserted into the chain" if r.in_scope else "out of scope: leak test"
        count = f"{len(r.changes)}/{r.samples} samples change"
        colour = style.red if (r.changes and not r.in_scope) else (style.yellow if r.changes else style.green)
        lines.append(f"{r.task_type:<16} {colour(count)}  {style.dim(where)}")
        for change in r.changes:
            accepted = any(f.accepted and f.task_type == r.task_type and f.sample == change.sample for f in report.findings)
            tag = style.yellow(" (accepted)") if accepted else ""
            lines.append(f"  {change.sample}{tag}")
            body = diff_observed(change.before, change.after, labels=("before", "after"))
            if change.note:
                body = change.note + ("\n" + body if body else "")
            lines.append(_indent(body))
    failing = [f for f in report.findings if not f.accepted]
    lines.append(style.red(f"FAIL: changes {len(failing)} sample(s) outside its scope") if failing else style.green("OK: nothing changes outside its scope"))
    return "\n".join(lines)


# --------------------------------------------------------------------------- CLI


def register(sub: Any) -> None:
    check = sub.add_parser(
        "check",
        help="check every rule against golden samples (forward, reverse/leak, safety, version)",
        description="Exit codes: 0 clean, 1 findings, 2 configuration or usage error.",
    )
    check.add_argument("--pack", metavar="FILE", help="a pack YAML file (default: the shipped packs)")
    check.add_argument("--samples", metavar="DIR", help="golden samples folder (default: samples/ next to the pack)")
    check.add_argument("--rule", metavar="NAME", help="show which samples this one rule would change, per task type")
    check.add_argument("--params", metavar="JSON", help="params for --rule, as a JSON object")
    check.add_argument("--update", action="store_true", help="record the current results as the golden ones")
    check.add_argument("--yes", action="store_true", help="with --update: write without asking")
    check.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    check.add_argument("--verbose", "-v", action="store_true", help="also list accepted findings and details")
    check.add_argument("--timeout", type=float, default=DEFAULT_SAFETY_TIMEOUT, metavar="S",
                       help=f"regex timeout per call in the safety check (default {DEFAULT_SAFETY_TIMEOUT})")
    check.add_argument("--budget", type=float, default=DEFAULT_SAFETY_BUDGET, metavar="S",
                       help=f"CPU-time budget per call in the safety check (default {DEFAULT_SAFETY_BUDGET})")
    check.add_argument("--only", metavar="LIST", help=f"comma-separated subset of {','.join(CHECKS)}")
    check.set_defaults(func=cmd_check)


def _color() -> bool:
    from normalize.cli import use_color

    return use_color(sys.stdout)


def _parse_only(value: str | None) -> tuple[str, ...]:
    if value is None:
        return CHECKS
    chosen = tuple(v.strip() for v in value.split(",") if v.strip())
    bad = [c for c in chosen if c not in CHECKS]
    if bad or not chosen:
        raise CheckConfigError(f"--only takes a comma-separated subset of {', '.join(CHECKS)}, got {value!r}")
    return chosen


def cmd_check(args: argparse.Namespace) -> int:
    if args.timeout <= 0 or args.budget <= 0:
        raise CheckConfigError("--timeout and --budget must be positive")
    if args.params is not None and args.rule is None:
        raise CheckConfigError("--params needs --rule")
    if args.yes and not args.update:
        raise CheckConfigError("--yes only makes sense with --update")
    if args.update and args.rule:
        raise CheckConfigError("--update and --rule cannot be combined")
    checks = _parse_only(args.only)
    pack = load_pack(args.pack)
    accepted_leaks(pack)  # validate the check section before any work
    directory = Path(args.samples) if args.samples else default_samples_dir(pack)
    try:
        samples = load_samples(directory, pack)
    except SamplesError as exc:
        raise CheckConfigError(str(exc)) from None
    if args.rule:
        try:
            params = json.loads(args.params) if args.params is not None else None
        except json.JSONDecodeError as exc:
            raise CheckConfigError(f"--params is not valid JSON: {exc}") from None
        if params is not None and not isinstance(params, dict):
            raise CheckConfigError(f"--params must be a JSON object, got {args.params!r}")
        spec = build_spec(args.rule, params, pack_resources(pack))
        rule_report = analyze_rule(pack, samples, compute_baseline(pack, samples), spec)
        if args.format == "json":
            print(json.dumps(rule_report.to_json(), ensure_ascii=False, indent=2))
        else:
            print(render_rule_report(rule_report, color=_color(), verbose=args.verbose))
        return rule_report.exit_code
    if args.update:
        return _cmd_update(pack, samples, args)
    report = run_check(pack, samples, checks=checks, timeout=args.timeout, budget=args.budget)
    if args.format == "json":
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(render_report(report, color=_color(), verbose=args.verbose))
    return report.exit_code


def _cmd_update(pack: Pack, samples: SampleSet, args: argparse.Namespace) -> int:
    plan = plan_update(pack, samples, compute_baseline(pack, samples))
    out = sys.stdout if args.format == "text" else sys.stderr
    if plan.empty:
        print("normalize check --update: the golden samples already match this pack; nothing to write", file=out)
        return 0
    print(f"normalize check --update: {len(plan.changes)} row change(s) in {samples.directory}"
          + ("; _recorded.json will be rewritten" if plan.recorded_changes else ""), file=out)
    for change in plan.changes:
        print(_indent(change, "  "), file=out)
    if not args.yes:
        if not sys.stdin.isatty():
            print("normalize check: refusing to rewrite golden samples without confirmation: "
                  "stdin is not a terminal; review the diff above and pass --yes", file=sys.stderr)
            return 2
        answer = input(f"rewrite the golden samples with pack {pack.hash[:19]}…? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing written", file=out)
            return 0
    apply_update(plan, samples.directory)
    print(f"wrote {sum(len(r) for r in plan.rows.values())} rows and {samples.directory / '_recorded.json'}", file=out)
    return 0


def sample_rules(pack: Pack, samples: SampleSet) -> dict[str, set[str]]:
    """Per task type, the rules that appear in the trace of at least one of its samples."""
    out: dict[str, set[str]] = {}
    for task_type, rows in samples.by_type.items():
        seen: set[str] = set()
        for s in rows:
            seen.update(step.rule for step in pack.run(s.output, s.task, options=s.options).trace)
        out[task_type] = seen
    return out


__all__ = [
    "ADVERSARIAL",
    "CHECKS",
    "Accept",
    "Change",
    "CheckConfigError",
    "CheckReport",
    "Finding",
    "RuleReport",
    "UpdatePlan",
    "accepted_leaks",
    "analyze_rule",
    "check_forward",
    "check_reverse",
    "check_safety",
    "check_version",
    "compute_baseline",
    "diff_resolved",
    "insert_spec",
    "leak_changes",
    "plan_update",
    "register",
    "run_check",
    "sample_rules",
]
