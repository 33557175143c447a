"""Issue 9, point 1: a unit is dropped only when the gold has none (and recorded in the trace).

A gold with a unit (``5\\text{ cm}``, ``30^\\circ``) wants the same unit in the answer; unit names
compare case-insensitively after ``\\text{}``/``\\mathrm{}``/spacing go, and ``^\\circ``, ``°`` and
``degrees`` are one unit.  Decision: a bare ``30`` against the gold ``30^\\circ`` is *not* equal
(the gold has a unit, the answer none).  Currency is formatting, never required; percent is separate.
"""

from __future__ import annotations

import pytest

from normalize import load_pack
from normalize import status as st
from normalize.io.row import Row
from normalize.values._mathvalue import unit_names, units_of
from scoring.metrics import math_match, score_result

PACK = load_pack()


@pytest.mark.parametrize(
    ("answer", "gold", "equal"),
    [
        ("5 cm", r"5\text{ cm}", True),
        (r"5\mathrm{CM}", r"5\text{ cm}", True),
        ("5 m", r"5\text{ cm}", False),
        ("5", r"5\text{ cm}", False),
        (r"5\text{ cm}", "5", True),
        ("30", r"30^\circ", False),
        ("30°", r"30^\circ", True),
        ("30 degrees", r"30^\circ", True),
        (r"\$5", "5", True),
        ("5", r"\$5", True),
        ("5", r"5\text{ dollars}", True),
        (r"20\%", "20", False),  # percent semantics unchanged
        ("20", r"20\%", True),
        (r"15\text{ cm}^2", "15", True),  # was symmetric in test_equivalent_forms
        ("15", r"15\text{ cm}^2", False),
    ],
)
def test_gold_units_decide(answer: str, gold: str, equal: bool) -> None:
    assert math_match(answer, gold) is equal


def test_unit_names_normalized() -> None:
    assert unit_names([r"\text{ CM}", r"\mathrm{cm}", r"\,"]) == {"cm"}
    assert unit_names(["degrees", "°", "degree"]) == {"degrees"}
    assert units_of("5") == frozenset()


def test_recorded_units_used_by_the_pipeline() -> None:
    """The parser's canonical answer has no unit; the scorer takes it from ``extra.dropped``."""
    for output, gold, correct in [
        (r"The answer is $\boxed{5\text{ cm}}$", r"5\text{ cm}", True),
        (r"The answer is $\boxed{5\text{ m}}$", r"5\text{ cm}", False),
        (r"The answer is $\boxed{5}$", r"5\text{ cm}", False),
        (r"The answer is $\boxed{5\text{ cm}}$", "5", True),
    ]:
        result = PACK.run(output, "math500")
        assert result.status == st.OK
        score = score_result(PACK, Row(output=output, target=gold, task="math500"), result)
        assert score.correct is correct, (output, gold, score)
    assert PACK.run(r"$\boxed{5\text{ cm}}$", "math500").extra.get("dropped") == ["cm"]
    assert "dropped" not in PACK.run(r"$\boxed{5}$", "math500").extra  # not taken from 5 cm


def test_output_rows_carry_units_and_bare_answers_are_not_judged() -> None:
    """``score_detail``: an output row keeps ``extra`` (units known); a bare answer's are unknown."""
    from scoring.metrics import score_detail

    run = PACK.run(r"The answer is $\boxed{5\text{ m}}$", "math500")
    row = {**run.to_json(), "task": "math500", "target": r"5\text{ cm}"}
    assert score_detail(PACK, row).correct is False
    bare = {"task": "math500", "answer": "5", "status": "ok", "target": r"5\text{ cm}"}
    assert score_detail(PACK, bare).correct is True  # no trace: the unit rule is not applied
