"""How long ``normalize check`` takes, and how it grows with rules × samples.

Run from the repository root::

    .venv/bin/python bench/check_scaling.py            # the shipped pack and rules/samples
    .venv/bin/python bench/check_scaling.py --pack P --samples DIR --repeat 3

It times the whole check over the pack (each check separately), then the sample-dependent part
(baseline + forward + reverse + version) with the golden samples replicated ×1, ×2, ×4 and every
chain at 1× and 2× its length.  For 2× each rule is followed by a registered clone of itself
(same function, another name), so the reverse check also sees twice as many distinct rules.
It prints a table of time against rules·samples and the least-squares time per (rule·sample).
The safety check does not depend on samples; it is timed once.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import normalize  # noqa: F401  (registers the built-in rules)
from normalize.check import (
    accepted_leaks,
    check_forward,
    check_reverse,
    check_safety,
    check_version,
    compute_baseline,
    distinct_specs,
    run_check,
)
from normalize.check.samples import SampleSet, default_samples_dir, load_samples
from normalize.core.engine import Chain, RuleSpec
from normalize.core.pack import Pack, TaskType, load_pack
from normalize.core.registry import REGISTRY

CLONE_SUFFIX = "__clone"


def clone_rules(pack: Pack) -> None:
    """Register ``<name>__clone`` for every rule the pack uses (this process only)."""
    for spec in distinct_specs(pack):
        name = spec.name + CLONE_SUFFIX
        if name not in REGISTRY.rules:
            REGISTRY.add_rule(dataclasses.replace(REGISTRY.rules[spec.name], name=name))


def doubled(pack: Pack) -> Pack:
    """Every chain with each rule followed by its clone: twice the rules, stage order kept."""
    types = {}
    for name, t in pack.task_types.items():
        specs: list[RuleSpec] = []
        for spec in t.chain.specs:
            specs += [spec, RuleSpec(spec.name + CLONE_SUFFIX, spec.version, spec.params)]
        types[name] = TaskType(name, Chain(tuple(specs)), t.parser)
    return dataclasses.replace(pack, task_types=types)


def replicated(samples: SampleSet, times: int) -> SampleSet:
    by_type = {
        t: tuple(dataclasses.replace(s, id=f"{s.id}#{k}") for k in range(times) for s in rows)
        for t, rows in samples.by_type.items()
    }
    return dataclasses.replace(samples, by_type=by_type)


def chain_rules(pack: Pack) -> int:
    return sum(len(t.chain) for t in pack.task_types.values())


def time_sample_checks(pack: Pack, samples: SampleSet, repeat: int) -> float:
    """Best-of-``repeat`` seconds for baseline + forward + reverse + version."""
    accepts = accepted_leaks(pack)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        base = compute_baseline(pack, samples)
        check_forward(pack, samples, base)
        check_reverse(pack, samples, base, accepts)
        check_version(pack, samples)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", help="pack YAML (default: the shipped pack)")
    ap.add_argument("--samples", help="samples folder (default: samples/ next to the pack)")
    ap.add_argument("--repeat", type=int, default=3, help="best of N timings per cell")
    args = ap.parse_args()

    pack = load_pack(args.pack)
    samples = load_samples(Path(args.samples) if args.samples else default_samples_dir(pack), pack)

    start = time.perf_counter()
    report = run_check(pack, samples)
    total = time.perf_counter() - start
    print(f"pack {pack.name} {pack.short_hash}: {samples.count} samples in {len(samples.by_type)} task types, "
          f"{len(samples.opt_in)} opt-in rows, {chain_rules(pack)} chain steps, "
          f"{len(distinct_specs(pack))} distinct rule specs")
    print(f"full check: {total:.2f}s wall (" + ", ".join(f"{k} {v:.2f}s" for k, v in report.seconds.items())
          + f"); {len(report.failing)} failing, {len(report.accepted)} accepted findings")

    clone_rules(pack)
    rows = []
    for label, variant in (("1x", pack), ("2x", doubled(pack))):
        for times in (1, 2, 4):
            s = replicated(samples, times)
            # rule·sample work: each sample runs its type's chain once (baseline) and is offered
            # to every distinct rule outside the rule's scope (reverse)
            work = sum(len(variant.task_types[t].chain) * len(r) for t, r in s.by_type.items())
            specs = distinct_specs(variant)
            work += sum(
                len(r) for spec in specs for t, r in s.by_type.items()
                if t not in REGISTRY.rules[spec.name].scope
            )
            seconds = time_sample_checks(variant, s, args.repeat)
            rows.append((label, chain_rules(variant), len(specs), s.count, work, seconds))

    print()
    print(f"{'rules':>5} {'steps':>5} {'specs':>5} {'samples':>7} {'rule·samples':>12} {'seconds':>8} {'µs/(rule·sample)':>17}")
    for label, steps, specs_n, count, work, seconds in rows:
        print(f"{label:>5} {steps:>5} {specs_n:>5} {count:>7} {work:>12} {seconds:>8.3f} {1e6 * seconds / work:>17.1f}")
    # least squares through the origin: seconds ≈ k · work
    k = sum(w * t for *_, w, t in rows) / sum(w * w for *_, w, _t in rows)
    print(f"\nfitted time per (rule·sample): {1e6 * k:.1f} µs "
          f"(sample-dependent checks; safety is independent of samples)")

    start = time.perf_counter()
    check_safety(pack)
    one = time.perf_counter() - start
    start = time.perf_counter()
    check_safety(doubled(pack))
    two = time.perf_counter() - start
    print(f"safety check: {one:.2f}s at 1x rules, {two:.2f}s at 2x rules "
          f"({len(distinct_specs(pack))} → {len(distinct_specs(doubled(pack)))} distinct specs)")


if __name__ == "__main__":
    main()
