"""``normalize check`` (the package behind the command): guards on every rule of a pack, run against golden samples.

Four checks, each a function returning :class:`Finding` records (the CLI only renders them):

* :func:`check_forward` — every golden sample still gives its recorded normalized text, answer
  and status; every opt-in row still gives its recorded text.
* :func:`check_reverse` — the leak test: each rule of any chain, applied on its own to the raw
  samples of a task type outside its registered ``scope``, then that type's own chain and
  parser; a changed result is a finding unless the pack accepts it (``check.reverse.accept``).
* :func:`check_safety` — each rule spec and parser on adversarial input kinds: exceptions,
  output blow-up, a CPU-time backstop, and superlinear growth of work from n to 2n
  (load-independent: see :mod:`normalize.limits._growth`).
* :func:`check_version` — samples recorded with another pack hash, and which rules changed.

:func:`analyze_rule` answers ``--rule NAME``; :func:`plan_update` backs ``--update``.  The
baseline result of every sample is computed once (:func:`compute_baseline`) and shared.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from normalize.check.findings import (
    CHECKS,
    DEFAULT_SAFETY_BUDGET,
    DEFAULT_SAFETY_TIMEOUT,
    Baseline,
    Finding,
    build_spec,
    compute_baseline,
    diff_observed,
    distinct_parsers,
    distinct_specs,
    observe,
    pack_resources,
    scope_of,
)
from normalize.check.forward import apply_opt_in, check_forward
from normalize.check.reverse import (
    Accept,
    Change,
    RuleReport,
    RuleTypeReport,
    accepted_leaks,
    analyze_rule,
    check_reverse,
    insert_spec,
    leak_changes,
)
from normalize.check.safety import ADVERSARIAL, check_safety
from normalize.check.samples import SamplesError, SampleSet, default_samples_dir, load_samples
from normalize.check.update import UpdatePlan, apply_update, plan_update, sample_rules
from normalize.check.version import check_version, diff_resolved, resolved_hash
from normalize.core.pack import Pack
from normalize.errors import CheckConfigError


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


__all__ = [
    "ADVERSARIAL",
    "CHECKS",
    "DEFAULT_SAFETY_BUDGET",
    "DEFAULT_SAFETY_TIMEOUT",
    "Accept",
    "Baseline",
    "Change",
    "CheckConfigError",
    "CheckReport",
    "Finding",
    "RuleReport",
    "RuleTypeReport",
    "SampleSet",
    "SamplesError",
    "UpdatePlan",
    "accepted_leaks",
    "analyze_rule",
    "apply_opt_in",
    "apply_update",
    "build_spec",
    "check_forward",
    "check_reverse",
    "check_safety",
    "check_version",
    "compute_baseline",
    "default_samples_dir",
    "diff_observed",
    "diff_resolved",
    "distinct_parsers",
    "distinct_specs",
    "insert_spec",
    "leak_changes",
    "load_samples",
    "observe",
    "pack_resources",
    "plan_update",
    "resolved_hash",
    "run_check",
    "sample_rules",
    "scope_of",
]
