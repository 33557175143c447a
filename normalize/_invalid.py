"""A run whose every row is ``invalid`` is a failed run, not a score of 0: find it, and say why once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from normalize import status as st
from normalize._io import iter_jsonl
from normalize.pack import Pack
from normalize.rows import normalize_typed

__all__ = ["all_invalid_reason"]


def _reason(out: dict[str, object]) -> str:
    """The row's reason; for a row a log reader could not read, the reader's own (``*_error``)."""
    for key, value in out.items():
        if key.endswith("_error") and isinstance(value, str) and value:
            return value
    reason = out.get("reason")
    return reason if isinstance(reason, str) and reason else "no reason recorded"


def all_invalid_reason(path: str | Path, pack: Pack) -> tuple[str, int, int] | None:
    """``(the commonest reason, rows with it, rows)`` when every row of ``path`` is ``invalid``
    under ``pack`` (and there is at least one); ``None`` as soon as one row is not.

    Reads the rows again, so it costs a row or two on a run that is not all invalid.  Line
    numbers are left out of the reasons counted (``line 3: ...`` and ``line 4: ...`` are one reason).
    """
    reasons: Counter[str] = Counter()
    for row in iter_jsonl(path):
        out = normalize_typed(pack, row).out
        if out.get("status") != st.INVALID:
            return None
        reason = _reason(out)
        head, sep, tail = reason.partition(": ")
        if sep and head.startswith("line ") and head[5:].isdigit():
            reason = tail
        reasons[reason] += 1
    if not reasons:
        return None
    (reason, count), = reasons.most_common(1)
    return reason, count, sum(reasons.values())
