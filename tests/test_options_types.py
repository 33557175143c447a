"""A row's ``options`` as data frames give them (issue 10): ``4.0`` and numpy integers are
the count they are, numpy arrays the texts; anything else is ``invalid`` naming the value."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

from normalize import Pack, load_pack
from normalize import status as st
from normalize.io._io import InputRow
from normalize.io.row import Row
from normalize.io.row import read_options_value as read_options
from normalize.io.rows import normalize_row
from scoring._items import option_count
from scoring.metrics import score_detail


@cache
def pack() -> Pack:
    return load_pack()


@pytest.mark.parametrize(
    ("value", "read"),
    [
        (4.0, 4),
        (np.int64(4), 4),
        (np.int32(10), 10),
        (np.float64(4.0), 4),
        (np.float32(5.0), 5),
        (np.array(["yes", "no"]), ("yes", "no")),
        (["yes", "no"], ("yes", "no")),
        (("a", "b", "c"), ("a", "b", "c")),
        (4, 4),
        (None, None),
    ],
)
def test_data_frame_values_are_read_as_what_they_are(value: Any, read: Any) -> None:
    assert read_options(value) == read


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (4.5, "4.5"),
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        (True, "True"),
        ("ABCD", "'ABCD'"),
        ({"A": "x"}, "{'A': 'x'}"),
        (["x", 3], "3"),
        (np.array([1.5, 2.5]), "1.5"),
        (np.float64(2.5), "2.5"),
    ],
)
def test_anything_else_is_invalid_naming_the_value(value: Any, named: str) -> None:
    with pytest.raises(ValueError) as info:
        read_options(value)
    assert named in str(info.value)
    result = pack().run("The answer is B.", "multiple_choice", options=value)
    assert result.status == st.INVALID and named in (result.reason or "")


@pytest.mark.parametrize("options", [4.0, np.int64(4), np.float64(4.0), np.array(["w", "x", "y", "z"])])
def test_pack_run_and_rows_read_the_count(options: Any) -> None:
    result = pack().run("The answer is (D).", "mmlu", options=options)
    assert (result.answer, result.status) == ("D", st.OK)
    out = normalize_row(pack(), InputRow(line=1, data={"task": "mmlu", "output": "The answer is (E).", "options": options}))
    assert out["status"] == st.OUT_OF_RANGE  # E is past the fourth option: the count was read


def test_a_bad_row_options_value_is_an_invalid_row_never_a_crash() -> None:
    out = normalize_row(pack(), InputRow(line=7, data={"task": "mmlu", "output": "B", "options": 4.5}))
    assert out["status"] == st.INVALID and "line 7" in out["reason"] and "4.5" in out["reason"]


def test_scoring_reads_the_same_options() -> None:
    assert option_count(Row.from_mapping({"options": 4.0}).options) == 4
    assert option_count(Row.from_mapping({"options": ["a", "b", "c"]}).options) == 3
    assert option_count(Row.from_mapping({"options": 4.5}).options) is None
    score = score_detail(pack(), {"task": "mmlu", "answer": "B", "status": "ok", "target": 1, "options": 4.0})
    assert score.correct


def test_run_many_reads_per_row_data_frame_values() -> None:
    results = pack().run_many(["The answer is (C).", "The answer is (C)."], "mmlu", options=[np.int64(2), 4.0])
    assert [(r.answer, r.status) for r in results] == [(None, st.OUT_OF_RANGE), ("C", st.OK)]
    texts = pack().run_many(["yes", "no"], "mmlu", options=["yes", "no"])  # one list of texts for both
    assert [r.answer for r in texts] == ["A", "B"]
