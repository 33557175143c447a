"""The realistic corpus: every case in ``tests/cases/*.jsonl`` through the shipped pack.

Each row is ``{"id", "task", "output", "options", "expected_answer", "expected_status",
"note"}``; ``task`` is a task type or a task name of the pack, ``output`` may be null.
Expected answers follow the spec, not current behaviour: an MC answer is the upper-case
letter, a math answer the canonical number string, JSON the parsed value, code the code
string exactly, QA and open writing the normalized text.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from normalize import Pack, load_pack
from normalize import status as st
from normalize.core.registry import TASK_TYPES

CASES_DIR = Path(__file__).parent / "cases"
FIELDS = {"id", "task", "output", "options", "expected_answer", "expected_status", "note"}


def load_cases() -> list[dict[str, Any]]:
    """Every case of every file, in file then line order; a malformed row fails loudly."""
    cases: list[dict[str, Any]] = []
    for path in sorted(CASES_DIR.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            row = json.loads(line)
            if set(row) != FIELDS:
                raise ValueError(f"{path.name}:{number}: fields {sorted(row)} are not {sorted(FIELDS)}")
            row["file"] = path.stem
            cases.append(row)
    return cases


CASES = load_cases()


@cache
def shipped_pack() -> Pack:
    return load_pack()


def test_corpus_is_large_and_well_formed() -> None:
    assert len(CASES) >= 150
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    assert {c["file"] for c in CASES} == set(TASK_TYPES), "one case file per task type"
    for case in CASES:
        assert case["expected_status"] in st.ALL_STATUSES, case["id"]
        assert (case["expected_answer"] is None) == (case["expected_status"] != st.OK), case["id"]
        assert case["output"] is None or isinstance(case["output"], str), case["id"]
        assert case["note"], case["id"]
        if case["file"] == "multiple_choice":
            assert isinstance(case["options"], (int, list)), case["id"]


def test_corpus_covers_both_languages_and_the_hard_statuses() -> None:
    outputs = [c["output"] or "" for c in CASES]
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in o) for o in outputs) >= 25
    statuses = {c["expected_status"] for c in CASES}
    assert {st.OK, st.NO_OUTPUT, st.NO_ANSWER, st.CONTRADICTORY, st.OUT_OF_RANGE} <= statuses


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    pack = shipped_pack()
    options = case["options"]
    result = pack.run(case["output"], case["task"], options=options)
    got = (result.answer, result.status)
    want = (case["expected_answer"], case["expected_status"])
    assert got == want, f"{case['note']}\nreason: {result.reason}\nnormalized: {result.text!r}"
