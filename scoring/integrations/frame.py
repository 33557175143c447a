"""A data-frame view of scored rows where an unparsed answer can never be silently dropped.

:func:`results_records` gives one plain dict per input row (no pandas needed);
:func:`results_frame` the same as a ``pandas.DataFrame`` (``pip install harness-normalize[integrations]``).

The two accuracy columns differ on purpose:

* ``correct`` (strict, pandas ``boolean`` dtype): ``True``/``False``, with ``False`` for an
  unparsed answer; ``<NA>`` only where there is nothing to compare with (no target, or a target
  that cannot be read), so ``df.correct.mean()`` is the strict accuracy over rows with targets;
* ``correct_valid`` (``float``): 1.0/0.0 for parsed answers and ``NaN`` for unparsed ones, so
  ``df.correct_valid.mean()`` is the accuracy among parsed answers, to read beside ``parsed``.

``score`` is the metric's value (the F1 for F1 metrics; 0 when unparsed, NaN without a target),
``parsed`` whether the strict parser gave an answer.  Every input row appears once, in order,
including lines that were not JSON (status ``invalid``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from normalize.core.pack import Pack
from normalize.io.jsonl import InputRow
from normalize.io.lm_eval_log import read_source
from normalize.io.rows import normalize_rows_typed
from scoring.integrations._shared import cached_pack
from scoring.metrics import NO_ANSWER, SCORED, MathVerifier, score_result

__all__ = ["COLUMNS", "results_frame", "results_records"]

#: The columns, in order; input fields not named here follow them.
COLUMNS = ("id", "task", "task_type", "run", "sample", "status", "parsed", "answer", "target", "correct",
           "correct_valid", "score", "outcome", "metric", "reason", "rules_hash")


def _input_rows(rows: Iterable[Mapping[str, Any]] | str | Path, source: str) -> list[InputRow]:
    if isinstance(rows, (str, Path)):
        return read_source(rows, source)
    out: list[InputRow] = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, Mapping):
            out.append(InputRow(number, None, f"row {number} is a {type(row).__name__}, not a mapping"))
        else:
            out.append(InputRow(number, dict(row)))
    return out


def results_records(rows: Iterable[Mapping[str, Any]] | str | Path, pack: Pack | str | Path | None = None, *,
                    source: str = "jsonl") -> list[dict[str, Any]]:
    """One record per input row (rows with ``output``, or a JSONL path; ``source="lm-eval"`` for
    lm-eval samples files): normalized, parsed and scored with ``pack`` (default: shipped).

    >>> recs = results_records([{"id": 1, "task": "gsm8k", "output": "The answer is 4", "target": 4},
    ...                         {"id": 2, "task": "gsm8k", "output": "no idea", "target": 4}])
    >>> [(r["id"], r["parsed"], r["correct"], r["correct_valid"]) for r in recs]
    [(1, True, True, 1.0), (2, False, False, nan)]
    """
    the_pack = cached_pack(pack)
    records: list[dict[str, Any]] = []
    with MathVerifier() as verifier:
        for typed in normalize_rows_typed(the_pack, _input_rows(rows, source), progress=False):
            score = score_result(the_pack, typed.row, typed.result, verifier=verifier)
            out = typed.out  # the record is written from the output row
            parsed = typed.result is not None and typed.result.ok
            if score.outcome == SCORED:
                correct: bool | None = bool(score.correct)
                valid = 1.0 if score.correct else 0.0
                value = score.value
            elif score.outcome == NO_ANSWER:
                correct, valid, value = False, math.nan, 0.0
            else:  # no target, or a target that cannot be read: nothing to compare with
                correct, valid, value = None, math.nan, math.nan
            record: dict[str, Any] = {name: out.get(name) for name in COLUMNS}
            record.update(parsed=parsed, correct=correct, correct_valid=valid, score=value,
                          outcome=score.outcome, metric=score.metric,
                          reason=out.get("reason") if out.get("reason") is not None else score.note)
            for key, item in out.items():
                if key not in record and key not in ("trace", "normalized", "raw_line"):
                    record[key] = item
            records.append(record)
    return records


def results_frame(rows: Iterable[Mapping[str, Any]] | str | Path, pack: Pack | str | Path | None = None, *,
                  source: str = "jsonl") -> Any:
    """:func:`results_records` as a ``pandas.DataFrame`` with a nullable-boolean ``correct``.

    ``df.attrs`` holds the pack's ``pack_hash`` and ``pack_signature``.
    """
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("results_frame needs pandas: pip install 'harness-normalize[integrations]' "
                          "(or use results_records, which needs nothing)") from None
    the_pack = cached_pack(pack)
    records = results_records(rows, the_pack, source=source)
    frame = pd.DataFrame.from_records(records, columns=_columns(records))
    frame["correct"] = frame["correct"].astype("boolean")
    frame["parsed"] = frame["parsed"].astype(bool)
    frame["correct_valid"] = frame["correct_valid"].astype(float)
    frame["score"] = frame["score"].astype(float)
    frame.attrs["pack_hash"] = the_pack.hash
    frame.attrs["pack_signature"] = the_pack.signature
    return frame


def _columns(records: list[dict[str, Any]]) -> list[str]:
    names = list(COLUMNS)
    for record in records:
        names.extend(k for k in record if k not in names)
    return names
