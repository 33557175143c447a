"""What each rule did: how many rows it changed, and how many verdicts changed because of it.

Method (stated in the report): for a row whose trace shows that rule *i* of its chain changed
the text, the row is run again **without rule i**: the text that entered rule i (recorded in
the trace as ``before``) goes through the rest of the chain (rules i+1…), then the task
type's strict parser, then the scorer, and the verdict is compared with the full chain's.
Rules before i saw the same text in both runs, so they need not run again; a rule that did
not change a row's text cannot change its verdict when removed (the chain without it sees
identical text), so only rows it changed are re-run.  A rule that *rejected* a row (the
chain stopped there with a status such as ``invalid``) counts as having changed it, and
its ablation continues from the text it rejected; which rule stopped the chain is found by
applying the rules after the last traced step to the row's final text again.

A verdict is the pair (outcome, value): ``scored`` with its value (1/0, or an F1),
``no_answer``, ``no_target`` or ``bad_target``.  For each rule the report counts verdicts
changed, and splits them into *helped* (the full chain scores higher than the chain without
the rule) and *hurt* (lower); a change that keeps the value but moves the outcome (wrong ↔
unparsed) counts as changed only.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

from normalize import Result
from normalize.core.engine import Chain, RuleFailure, apply_rule
from normalize.core.pack import Pack
from scoring.metrics import MathVerifier, Score, Scored, score_result

__all__ = ["METHOD", "rule_effects"]

METHOD = (
    "For each row a rule changed (its trace has a step for that rule, or the chain stopped at that rule with a "
    "rejection), the row is re-run without that rule: the text that entered the rule, as recorded in the trace, "
    "goes through the remaining rules of the chain, the strict parser and the scorer, and the verdict (outcome "
    "and value) is compared with the full chain's. Rules that did not change a row cannot change its verdict "
    "when removed, so only changed rows are re-run. Helped: the full chain scores higher than the chain without "
    "the rule; hurt: lower."
)


class _Ablations:
    """Packs whose chain for one task type starts after a given rule (built once, reused)."""

    def __init__(self, pack: Pack) -> None:
        self.pack = pack
        self._packs: dict[tuple[str, int], Pack] = {}

    def after(self, task_type: str, index: int) -> Pack:
        key = (task_type, index)
        if key not in self._packs:
            kind = self.pack.task_types[task_type]
            rest = dataclasses.replace(kind, chain=Chain(kind.chain.specs[index + 1:]))
            self._packs[key] = dataclasses.replace(self.pack, task_types={**self.pack.task_types, task_type: rest})
        return self._packs[key]


def _verdict(score: Score) -> tuple[str, float]:
    return score.outcome, round(score.value, 12)


def _rejected_at(pack: Pack, chain: Chain, result: Result, last_step: int) -> int | None:
    """The index of the rule that stopped the chain with a failure (a rejection, an error), or None.

    Found by applying the rules after the last traced step to the row's final text again: the
    chain stopped at the first of them that fails on it (those before it left the text as it
    was).  None when they all pass, i.e. the chain ran to its end and the parser decided.
    """
    text = result.text
    if result.status == "ok" or text is None:
        return None
    for index in range(last_step + 1, len(chain.specs)):
        after = apply_rule(chain.specs[index], text, timeout=pack.settings.regex_timeout)
        if isinstance(after, RuleFailure):
            return index
        if after != text:  # the chain would have changed the text here, so it never got here
            return None
    return None


def rule_effects(
    pack: Pack,
    scored: Sequence[Scored],
    *,
    verifier: MathVerifier | None = None,
    max_rows: int | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Per task type and rule: rows seen, changed, rejected; verdicts changed, helped, hurt.

    ``scored`` are typed rows as a run made them (their results carry the full trace; a result
    read back from a written row has none and is counted in ``rows_without_full_trace``).
    ``max_rows`` limits the rows examined to a seeded random sample of that many (``seed``),
    so that a large file sorted by task is still represented evenly.
    """
    if max_rows is not None and max_rows < 0:
        raise ValueError(f"max_rows must be non-negative, got {max_rows}")
    ablations = _Ablations(pack)
    table: dict[tuple[str, int], dict[str, Any]] = {}
    for kind_name, kind in pack.task_types.items():
        for index, spec in enumerate(kind.chain.specs):
            table[(kind_name, index)] = {
                "task_type": kind_name, "index": index, "rule": spec.name, "version": spec.version,
                "stage": spec.stage, "rows": 0, "changed": 0, "rejected": 0,
                "verdict_changed": 0, "helped": 0, "hurt": 0, "examples": [],
            }
    examined = 0
    traceless = 0
    positions: Sequence[int] = range(len(scored))
    sampled = max_rows is not None and max_rows < len(scored)
    if max_rows is not None and max_rows < len(scored):
        positions = sorted(random.Random(seed).sample(range(len(scored)), max_rows))
    for position in positions:
        sample = scored[position]
        row, result, score = sample.row, sample.result, sample.score
        if row.task_type is None or row.task_type not in pack.task_types:
            continue
        kind_name = row.task_type
        examined += 1
        chain = pack.task_types[kind_name].chain
        for index in range(len(chain.specs)):
            table[(kind_name, index)]["rows"] += 1
        if result is None:  # the pack did not run the row: no rule touched it
            continue
        if result.raw is None and result.text is not None:  # read back from a written row: no trace to replay
            traceless += 1
            continue
        starts: list[tuple[int, str, str]] = []  # (rule index, text entering it, "changed" | "rejected")
        last = -1
        for step in result.trace:
            starts.append((step.index, step.before, "changed"))
            last = max(last, step.index)
        stopped = _rejected_at(pack, chain, result, last)
        if stopped is not None:
            starts.append((stopped, str(result.text), "rejected"))
        if not starts:
            continue
        full = _verdict(score)
        for index, text, how in starts:
            entry = table[(kind_name, index)]
            entry[how] += 1
            again = ablations.after(kind_name, index).run(text, kind_name, options=row.options)
            ablated = score_result(pack, row, again, verifier=verifier)
            if _verdict(ablated) == full:
                continue
            entry["verdict_changed"] += 1
            if score.value > ablated.value:
                entry["helped"] += 1
            elif score.value < ablated.value:
                entry["hurt"] += 1
            if len(entry["examples"]) < 3:
                entry["examples"].append({
                    "row": position + 1, "id": row.id, "task": row.task,
                    "with": {"status": result.status, "answer": result.answer, "value": score.value},
                    "without": {"status": again.status, "answer": again.answer, "value": ablated.value},
                })
    return {
        "method": METHOD,
        "rows_examined": examined,
        "rows_total": len(scored),
        "sample": {"rows": max_rows, "seed": seed} if sampled else None,
        "rows_without_full_trace": traceless,
        "rules": [entry for entry in table.values() if entry["rows"]],
    }
