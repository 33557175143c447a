"""Findings of ``normalize check`` and the shared helpers every check uses: observing a
sample's result, diffs, the pack's distinct rule specs and parsers."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from normalize.check.samples import (
    Observed,
    SampleSet,
    as_json_data,
)
from normalize.core.engine import RuleSpec, UnknownRule
from normalize.core.engine import build_spec as engine_build_spec
from normalize.core.pack import Pack, ParserSpec
from normalize.core.registry import REGISTRY
from normalize.errors import CheckConfigError
from normalize.values._json import canonical_json

CHECKS: Final = ("forward", "reverse", "safety", "version")
DEFAULT_SAFETY_TIMEOUT: Final = 0.2
DEFAULT_SAFETY_BUDGET: Final = 2.0




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





def observe(
    pack: Pack,
    text: str | None,
    task: str,
    options: tuple[str, ...] | int | None,
    schema: Mapping[str, Any] | str | None = None,
    lang: str | None = None,
) -> Observed:
    """Run ``pack`` on one output (with its row's schema and language, if any) and keep what
    decides a score."""
    result = pack.run(text, task, options=options, schema=schema, lang=lang)
    return Observed(result.text, as_json_data(result.answer), result.status)


Baseline = Mapping[str, tuple[Observed, ...]]


def compute_baseline(pack: Pack, samples: SampleSet) -> dict[str, tuple[Observed, ...]]:
    """Each task type's result on each of its samples, in file order (computed once, reused)."""
    return {
        task_type: tuple(observe(pack, s.output, s.task, s.options, s.schema, s.lang) for s in rows)
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





def pack_resources(pack: Pack) -> Mapping[str, Any]:
    """The resources a rule's ``resolve`` hook reads: the pack's own, resolved when it loaded."""
    return pack.resources


def build_spec(name: str, params: Mapping[str, Any] | None, resources: Mapping[str, Any]) -> RuleSpec:
    """A spec for rule ``name`` with ``params`` validated and resolved as a pack would."""
    try:
        return engine_build_spec(name, params, resources)
    except UnknownRule:
        close = difflib.get_close_matches(name, list(REGISTRY.rules), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise CheckConfigError(f"unknown rule {name!r}{hint}") from None
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise CheckConfigError(f"rule {name!r}: bad params {dict(params or {})!r}: {exc}") from None


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
