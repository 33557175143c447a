"""The per-row budget and the timeout decision (issue 12 point 1, issue 13 hot spot 1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import normalize
from normalize import status as st
from normalize.limits._budget import BudgetExceeded, check_budget, row_budget
from normalize.limits._regex import user_pattern
from tests.adversarial._helpers import register, write_pack


def _spin(text: str, params: Any = None, *, timeout: float = 0.5) -> str:
    while True:  # a rule with a runaway loop that at least checks the budget
        check_budget()


def test_a_runaway_rule_gets_error_naming_it_after_the_row_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    register(monkeypatch, "t_spin", _spin)
    pack = normalize.load_pack(write_pack(tmp_path, ["unify_quotes", "t_spin"], settings="settings:\n  row_budget: 0.2\n"))
    result = pack.run("x", "math")
    assert result.status == st.ERROR
    assert result.reason == "t_spin: row budget of 0.2s CPU time exceeded"


def test_the_row_budget_is_part_of_the_hash(tmp_path: Path) -> None:
    """A low budget turns rows into ``error``: a pack that sets one must not share the hash
    (issue 24: ``row_budget: 1e-6`` had the shipped pack's hash with every row ``error``)."""
    plain = normalize.load_pack(write_pack(tmp_path, ["unify_quotes"]))
    budgeted = normalize.load_pack(write_pack(tmp_path, ["unify_quotes"], settings="settings:\n  row_budget: 3\n"))
    assert budgeted.settings.row_budget == 3 and plain.hash != budgeted.hash


def test_the_budget_counts_cpu_time_not_sleep() -> None:
    import time

    with row_budget(0.05):
        time.sleep(0.1)  # wall clock past the budget, CPU time not
        check_budget()
    with pytest.raises(BudgetExceeded), row_budget(0.05):
        end = time.thread_time() + 0.2
        while time.thread_time() < end:
            check_budget()


def test_no_budget_outside_a_row() -> None:
    check_budget()  # no active budget: a no-op


def test_user_patterns_keep_the_wall_clock_timeout() -> None:
    evil = user_pattern(r"(a|aa)+$", timeout=0.05)
    with pytest.raises(TimeoutError):
        evil.search("a" * 60 + "b")
    with pytest.raises(ValueError, match="invalid regular expression"):
        user_pattern("(", timeout=0.05)


def test_a_catastrophic_answer_marker_in_a_pack_is_a_recorded_error(tmp_path: Path) -> None:
    path = tmp_path / "pack.yaml"
    path.write_text(
        "name: evil\nsettings:\n  regex_timeout: 0.05\ntask_types:\n  math:\n    chain:\n"
        "      - rule: extract_answer_marker\n        params: {tiers: [['(a|aa)+$']]}\n    parser: text\n",
        encoding="utf-8",
    )
    result = normalize.load_pack(path).run("a" * 60 + "b", "math")
    assert result.status == st.ERROR and "extract_answer_marker" in (result.reason or "")
    assert "timed out" in (result.reason or "")


@pytest.mark.parametrize(
    ("task", "text"),
    [
        ("squad", "*a _b " * 3000 + "x" + " b_ a*" * 3000),
        ("multiple_choice", "**a " * 3000 + "x" + " a**" * 3000),
    ],
)
def test_nesting_past_the_round_limit_is_a_recorded_error(task: str, text: str) -> None:
    result = normalize.load_pack().run(text, task, options=4)
    assert result.status == st.ERROR and "16 rounds" in (result.reason or "")


def test_latex_wrappers_past_the_round_limit_are_a_recorded_error() -> None:
    # simplify_latex_numbers left the shipped math chain (the math parser reads LaTeX itself, and
    # refuses an answer this long); the rule's own bound still holds wherever a pack chains it.
    from normalize.core.engine import make_spec
    from normalize.errors import RejectText

    with pytest.raises(RejectText, match="16 rounds") as info:
        make_spec("simplify_latex_numbers").apply("\\text{" * 3000 + "5" + "}" * 3000)
    assert info.value.status == st.ERROR
    assert normalize.load_pack().run("\\text{" * 3000 + "5" + "}" * 3000, "math").status != st.OK
