"""``normalize check``: argparse and rendering; the checks themselves live in :mod:`normalize.check`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from normalize.check import CheckReport, run_check
from normalize.check.findings import (
    CHECKS,
    DEFAULT_SAFETY_BUDGET,
    DEFAULT_SAFETY_TIMEOUT,
    Finding,
    build_spec,
    compute_baseline,
    diff_observed,
    scope_of,
)
from normalize.check.reverse import RuleReport, accepted_leaks, analyze_rule
from normalize.check.samples import (
    SamplesError,
    SampleSet,
    default_samples_dir,
    load_samples,
)
from normalize.check.update import apply_update, plan_update
from normalize.cli._common import add_pack_option, load_pack_from_args, use_color
from normalize.core.pack import Pack
from normalize.core.registry import REGISTRY
from normalize.errors import CheckConfigError
from normalize.values._json import canonical_json


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


def register(sub: Any) -> None:
    check = sub.add_parser(
        "check",
        help="check every rule against golden samples (forward, reverse/leak, safety, version)",
        description="Exit codes: 0 clean, 1 findings, 2 configuration or usage error.",
    )
    add_pack_option(check)
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
    pack = load_pack_from_args(args)
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
        spec = build_spec(args.rule, params, pack.resources)
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
    as_json = args.format == "json"
    out = sys.stderr if as_json else sys.stdout  # with --format json, stdout holds one JSON document

    def report(written: bool, code: int = 0) -> int:
        if as_json:
            print(json.dumps({"samples": str(samples.directory), "changes": list(plan.changes),
                              "pins_change": plan.recorded_changes, "written": written,
                              "pack": {"name": pack.name, "hash": pack.hash}}, ensure_ascii=False, indent=2))
        return code

    if plan.empty:
        print("normalize check --update: the golden samples already match this pack; nothing to write", file=out)
        return report(False)
    print(f"normalize check --update: {len(plan.changes)} row change(s) in {samples.directory}"
          + ("; _recorded.json (the pins) will be rewritten" if plan.recorded_changes else ""), file=out)
    for change in plan.changes:
        print(_indent(change, "  "), file=out)
    if not args.yes:
        if not sys.stdin.isatty():
            print("normalize check: refusing to rewrite golden samples without confirmation: "
                  "stdin is not a terminal; review the diff above and pass --yes", file=sys.stderr)
            return report(False, 2)
        answer = input(f"rewrite the golden samples with pack {pack.hash[:19]}…? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing written", file=out)
            return report(False)
    apply_update(plan, samples.directory)
    print(f"wrote {sum(len(r) for r in plan.rows.values())} rows and {samples.directory / '_recorded.json'}", file=out)
    return report(True)
