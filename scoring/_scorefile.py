"""Scoring a file of rows: the chunk worker of ``normalize score`` (raw lines in, scored lines and
report records out), :func:`score_file` (every row in memory, for the HTML pages and
``compare``) and the fields ``score -o`` adds to each output row (the Ray and HF integrations
write the same).

Below the command line: the commands import it, the integrations too, and it imports no command.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from normalize.core.pack import Pack
from normalize.errors import UsageError
from normalize.io.jsonl import decode_held, encode_row, encode_row_taking, read_jsonl, to_input_row
from normalize.io.rows import normalize_rows_typed, normalize_typed
from normalize.io.stream import BIG_ROW_BYTES, take_line
from scoring._items import Item, item_of
from scoring.aggregate import slim
from scoring.metrics import SCORED, MathVerifier, Score, Scored, score_result

_WORKER_VERIFIER: tuple[int, MathVerifier] | None = None


def verifier_here() -> MathVerifier:
    """This process's own Math-Verify helper (started only if a row needs it; a forked worker
    never shares its parent's)."""
    global _WORKER_VERIFIER
    if _WORKER_VERIFIER is None or _WORKER_VERIFIER[0] != os.getpid():
        _WORKER_VERIFIER = (os.getpid(), MathVerifier())
    return _WORKER_VERIFIER[1]


def add_score_fields(out: dict[str, Any], score: Score) -> None:
    """What ``score -o`` adds to each row: ``correct``, ``score`` and, when useful, ``score_note``."""
    out["correct"] = score.correct
    out["score"] = score.value if score.outcome == SCORED else None
    if score.note:
        out["score_note"] = score.note


#: A scored row's report item, with the slimmed sample when ``--aggregate`` needs it (else None:
#: with ``--jobs`` records cross a pipe, and the raw output and trace need not).
Record = tuple[Scored | None, Item]


def score_record(sample: Scored, *, keep_sample: bool = True) -> Record:
    """One scored row's report item, and its slimmed sample when ``keep_sample``: the report counts
    the item, or (for --aggregate) the aggregator takes the sample and the report keeps only the
    item's text-metric, ranking or judge facts (a corpus is made of rows, and both orders of a
    judged pair share an id without being samples of one answer)."""
    return (slim(sample) if keep_sample else None), item_of(sample)


def score_chunk(pack: Pack, write_rows: bool, verifier: MathVerifier | None,
                chunk: list[tuple[int, bytes]], *, keep_samples: bool = True,
                missing: Mapping[str, str] | None = None) -> tuple[bytes, list[Record]]:
    """Normalize and score a chunk of raw lines: their output lines (when wanted) and report records.

    ``missing``: :func:`scoring.cli._score.missing_extras`; a row of such a task is a :class:`UsageError` (rows from
    stdin, which :func:`~scoring.cli._score.check_extras` could not search first)."""
    verifier = verifier if verifier is not None else verifier_here()
    parts: list[bytes] = []
    records: list[Record] = []
    for index in range(len(chunk)):  # typed once: (Row, Result) -> Score; the dict is the output row
        number, held = take_line(chunk, index)
        big = len(held[0]) >= BIG_ROW_BYTES
        line = decode_held(held, number)  # a huge row's bytes go once decoded
        typed = normalize_typed(pack, to_input_row(line))
        del line
        task = typed.row.task
        if missing and task is not None and task in missing and typed.row.target is not None:
            raise UsageError(f"input line {number}: {missing[task]} (or leave out its rows)")
        score = score_result(pack, typed.row, typed.result, verifier=verifier)
        records.append(score_record(Scored(typed.row, typed.result, score), keep_sample=keep_samples))
        out = typed.out
        del typed  # the output row is then the only holder of the row's values
        if write_rows:
            add_score_fields(out, score)
            parts.append(encode_row_taking(out) if big else encode_row(out))  # a huge row's values go once written
        del out
    return b"".join(parts), records


def score_file(pack: Pack, path: str | Path, *, progress: bool | None = False,
               verifier: MathVerifier) -> tuple[list[dict[str, Any]], list[Scored]]:
    """Normalize and score every row of a JSONL file: the output rows (each gains ``correct``;
    the dicts written at the edge, for pages that show them) and the typed rows they came from.

    Rows are typed once (``Row``, ``Result``) and scored as such, ``(Row, Result) -> Score``."""
    typed = list(normalize_rows_typed(pack, read_jsonl(path), progress=progress))
    scored = [Scored(n.row, n.result, score_result(pack, n.row, n.result, verifier=verifier)) for n in typed]
    outs = [n.out for n in typed]
    for out, sample in zip(outs, scored, strict=True):
        add_score_fields(out, sample.score)
    return outs, scored
