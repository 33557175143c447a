"""Which rows an audit shows first: those where normalization flipped the verdict, then those whose
answer was found by a weak tier (``found_by: last_number``), then the rest.

"Normalization flipped the verdict": the row's verdict (outcome and value) with its task type's
chain differs from the verdict of the strict parser and scorer on the raw output with no chain
at all.  Only rows the chain changed (a trace step) or stopped can differ, so only those are
run again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Final

from normalize.core.engine import Chain
from normalize.core.pack import Pack, TaskType
from scoring.metrics import MathVerifier, Scored, score_result

__all__ = ["FLIPPED", "REST", "WEAK", "audit_flags"]

FLIPPED: Final = "normalization flipped the verdict"
WEAK: Final = "parsed by a weak tier (last number)"
REST: Final = ""
#: Rank of each flag: the audit shows lower ranks first.
RANK: Final = {FLIPPED: 0, WEAK: 1, REST: 2}
_WEAK_TIERS: Final = ("last_number",)


class _Bare:
    """The pack with one task type's chain emptied (built once per task type)."""

    def __init__(self, pack: Pack) -> None:
        self.pack = pack
        self._made: dict[str, Pack] = {}

    def __call__(self, kind: str) -> Pack:
        if kind not in self._made:
            t = self.pack.task_types[kind]
            bare = TaskType(t.name, Chain(()), t.parser)
            self._made[kind] = dataclasses.replace(self.pack, task_types={**self.pack.task_types, kind: bare})
        return self._made[kind]


def audit_flags(pack: Pack, scored: Sequence[Scored], *, verifier: MathVerifier | None = None) -> list[str]:
    """One flag per row (:data:`FLIPPED`, :data:`WEAK` or :data:`REST`), in row order."""
    bare = _Bare(pack)
    flags: list[str] = []
    for sample in scored:
        row, result, score = sample.row, sample.result, sample.score
        flag = REST
        if result is not None and result.task_type in pack.task_types and result.raw is not None \
                and (result.trace or result.status != "ok"):
            plain = bare(result.task_type)
            again = plain.run(row.output, row.task or result.task, options=row.options, task_type=result.task_type,
                              schema=result.extra.get("schema"), lang=row.lang)
            without = score_result(plain, row, again, verifier=verifier)
            if (without.outcome, round(without.value, 12)) != (score.outcome, round(score.value, 12)):
                flag = FLIPPED
        if flag == REST and result is not None and result.extra.get("found_by") in _WEAK_TIERS:
            flag = WEAK
        flags.append(flag)
    return flags
