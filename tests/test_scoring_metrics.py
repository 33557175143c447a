"""Metrics: text, numbers, JSON, code, choices, aliases, pack settings, Math-Verify."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from normalize.core.pack import Pack, load_pack
from normalize.errors import PackError
from scoring.metrics import (
    BAD_TARGET,
    NO_ANSWER,
    NO_TARGET,
    MathVerifier,
    ScoringConfig,
    alias_candidates,
    choice_letter,
    code_match,
    flatten_json,
    json_equal,
    json_field_scores,
    normalize_squad,
    numeric_match,
    parse_number,
    score_detail,
    score_row,
    score_rows,
    scoring_config,
    squad_exact_match,
    squad_tokens,
    token_f1,
)

PACK = """\
name: metrics-test
tasks:
  mmlu: multiple_choice
  gsm8k: math
  squad: extractive_qa
  cmrc: extractive_qa
task_types:
  multiple_choice: {chain: [], parser: text}
  math: {chain: [], parser: text}
  extractive_qa: {chain: [], parser: text}
  structured_json: {chain: [], parser: text}
  code: {chain: [], parser: code}
  open_writing: {chain: [], parser: text}
aliases:
  countries: [["United States", "USA", "U.S."]]
  numbers: [["1000", "one thousand"]]
scoring:
  math: {rel_tol: 1.0e-9}
  squad: {metric: f1, f1_threshold: 0.5}
"""


def make_pack(tmp_path: Path, text: str = PACK) -> Pack:
    path = tmp_path / "pack.yaml"
    path.write_text(text, encoding="utf-8")
    return load_pack(path)


def row(task: str, answer: Any, target: Any, **extra: Any) -> dict[str, Any]:
    return {"id": "x", "task": task, "answer": answer, "status": "ok" if answer is not None else "no_answer",
            "target": target, **extra}


# ---------------------------------------------------------------- extractive QA


def test_squad_normalization() -> None:
    assert normalize_squad("The  Eiffel Tower!") == "eiffel tower"
    assert normalize_squad("an apple, a pear") == "apple pear"
    assert normalize_squad("Theater") == "theater"  # articles only as whole words
    assert squad_exact_match("  the U.S.A.", "usa")


def test_cjk_characters_are_tokens() -> None:
    assert squad_tokens("北京大学") == ["北", "京", "大", "学"]
    assert squad_tokens("東京タワー") == ["東", "京", "タ", "ワ", "ー"]
    assert squad_tokens("서울 대학교") == ["서", "울", "대", "학", "교"]
    assert squad_tokens("在2008年，北京。") == ["在", "2008", "年", "北", "京"]
    # partial overlap of Chinese answers gets partial credit instead of 0
    assert token_f1("北京大学", "北京") == pytest.approx(2 / 3)
    assert token_f1("清华大学", "北京大学") == pytest.approx(0.5)


def test_token_f1_values() -> None:
    assert token_f1("red house", "the big red house") == pytest.approx(0.8)
    assert token_f1("an", "the") == 1.0  # both empty after normalization
    assert token_f1("a", "the") == 0.0  # a lone "a" is a letter (option A, grade A), not an article
    assert token_f1("", "house") == 0.0
    assert token_f1("cat", "dog") == 0.0


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=30), st.text(max_size=30))
def test_token_f1_is_bounded_and_symmetric(a: str, b: str) -> None:
    f = token_f1(a, b)
    assert 0.0 <= f <= 1.0
    assert f == pytest.approx(token_f1(b, a))
    assert token_f1(a, a) == 1.0


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("text", "value"),
    [("42", 42), ("-3", -3), ("0.5", 0.5), ("2/3", None), ("1,234", 1234), ("-1,234.5", -1234.5), ("+7", 7),
     ("1e-3", 0.001), ("\u22122", -2), (" 42 ", 42)],
)
def test_parse_number(text: str, value: float | None) -> None:
    number = parse_number(text)
    assert number is not None
    if value is not None:
        assert number == parse_number(repr(value) if isinstance(value, float) else str(value))


@pytest.mark.parametrize("text", ["x+1", "1/0", "", "1_000", "12,34", "inf", "nan", "4 2", "[1]"])
def test_parse_number_rejects(text: str) -> None:
    assert parse_number(text) is None


def test_numeric_match_is_exact_for_rationals_unless_a_tolerance_is_set() -> None:
    assert numeric_match("2/3", "4/6")
    assert not numeric_match("2/3", "0.6666666667")
    assert numeric_match("2/3", "0.6666666667", rel_tol=1e-9)
    assert not numeric_match("2/3", "0.67", rel_tol=1e-9)
    assert numeric_match("2/3", "0.67", abs_tol=0.01)
    assert numeric_match("0.1", 0.1) and numeric_match("3", 3.0) and numeric_match("1,000", "1000")
    assert not numeric_match("0.30000000000000004", "0.3")
    assert not numeric_match("10000000000000001", "10000000000000000")  # no float rounding


# ---------------------------------------------------------------- JSON


def test_json_structural_equality_after_canonicalization() -> None:
    assert json_equal({"a": 1, "b": {"c": [1, 2]}}, {"b": {"c": [1.0, 2]}, "a": 1.0})
    assert not json_equal({"a": [1, 2]}, {"a": [2, 1]})
    assert not json_equal({"a": True}, {"a": 1})
    assert not json_equal({"a": None}, {})


def test_json_field_scores() -> None:
    gold = {"name": "Ada", "langs": ["en", "fr"], "born": {"year": 1815}}
    pred = {"name": "Ada", "langs": ["en"], "born": {"year": 1816}, "extra": 1}
    scores = json_field_scores(pred, gold)
    # leaves: gold 4 (/name, /langs/0, /langs/1, /born/year); pred 4; hits /name and /langs/0
    assert scores.precision == pytest.approx(0.5)
    assert scores.recall == pytest.approx(0.5)
    assert scores.f1 == pytest.approx(0.5)
    assert json_field_scores({}, {}).f1 == 1.0
    assert json_field_scores(gold, gold).f1 == 1.0
    assert flatten_json({"a/b": {"~c": 1}}) == {"/a~1b/~0c": "1"}


# ---------------------------------------------------------------- code and choices


def test_code_match() -> None:
    assert code_match("print(1)\r\n", "print(1)")
    assert not code_match("print( 1)", "print(1)")
    assert not code_match("if x:\n  y()", "if x:\n    y()")


def test_choice_targets_letter_index_or_option_text() -> None:
    assert choice_letter("c") == "C"
    assert choice_letter(0) == "A"  # indexes count from 0
    assert choice_letter(3, 4) == "D"
    assert choice_letter(" Lyon ", ["Paris", "Lyon"]) == "B"
    for bad, options in ((4, 4), (-1, None), ("E", 4), (True, 4), ("Nice", ["Paris", "Lyon"]), (1.0, 4)):
        with pytest.raises(ValueError):
            choice_letter(bad, options)


# ---------------------------------------------------------------- aliases


def test_alias_candidates_follow_groups_transitively() -> None:
    groups = [("NYC", "New York City"), ("New York City", "Big Apple"), ("LA", "Los Angeles")]
    assert alias_candidates(["nyc"], groups, key=str.lower) == ["nyc", "New York City", "Big Apple"]
    assert alias_candidates(["Paris"], groups) == ["Paris"]


def test_aliases_widen_matching_but_never_rewrite_the_answer(tmp_path: Path) -> None:
    pack = make_pack(tmp_path)
    r = row("extractive_qa", "USA", "United States")
    assert score_row(pack, r) is True
    assert r["answer"] == "USA"
    assert score_row(pack, row("extractive_qa", "Canada", "United States")) is False
    # row aliases
    assert score_row(pack, row("extractive_qa", "Hexagon", "six-sided polygon", aliases=["hexagon"])) is True
    # pack aliases apply to math strings too, numbers are matched by value
    assert score_row(pack, row("math", "one thousand", "1,000")) is True
    # multiple choice: a row alias lists another accepted letter
    assert score_row(pack, row("multiple_choice", "C", "B", aliases=["C"], options=4)) is True


# ---------------------------------------------------------------- pack settings and rows


def test_scoring_config_defaults_and_overrides(tmp_path: Path) -> None:
    pack = make_pack(tmp_path)
    assert scoring_config(pack, "math") == ScoringConfig("math", "math", rel_tol=1e-9)
    assert scoring_config(pack, "gsm8k").rel_tol == 1e-9
    squad = scoring_config(pack, "squad")
    assert (squad.metric, squad.f1_threshold) == ("f1", 0.5)
    assert scoring_config(pack, "cmrc").metric == "squad_exact"
    assert scoring_config(pack, "structured_json").metric == "exact"
    assert scoring_config(pack, "open_writing").metric == "exact"


@pytest.mark.parametrize(
    ("section", "needle"),
    [("math: {tolerance: 1}", "unknown key 'tolerance'"),
     ("math: {metric: f1}", "'f1' is not a metric for math"),
     ("math: {rel_tol: -1}", "rel_tol"),
     ("extractive_qa: {f1_threshold: 1.5}", "f1_threshold"),
     ("multiple_choice: {rel_tol: 0.1}", "unknown key 'rel_tol'")],
)
def test_scoring_config_rejects_bad_settings(tmp_path: Path, section: str, needle: str) -> None:
    text = PACK.replace("scoring:\n  math: {rel_tol: 1.0e-9}", f"scoring:\n  {section}")
    task = section.split(":")[0]
    with pytest.raises(ValueError) as info:  # since issue 11: already when the pack loads
        scoring_config(make_pack(tmp_path, text), task)
    assert needle in str(info.value)


def test_a_scoring_typo_fails_when_the_pack_loads_with_its_location(tmp_path: Path) -> None:
    text = PACK.replace("math: {rel_tol: 1.0e-9}", "math: {metric: numeric,\n         abs_tolerance: 0.1}")
    with pytest.raises(PackError) as info:
        make_pack(tmp_path, text)
    err = info.value
    assert (err.line, err.column) == (19, 10) and "unknown key 'abs_tolerance'" in err.message
    assert str(err).startswith(f"{tmp_path / 'pack.yaml'}:19:10: ")


def test_score_detail_outcomes(tmp_path: Path) -> None:
    pack = make_pack(tmp_path)
    assert score_detail(pack, row("mmlu", "B", None)).outcome == NO_TARGET
    assert score_row(pack, row("mmlu", "B", None)) is None
    missing = score_detail(pack, row("mmlu", None, "B", options=4))
    assert (missing.outcome, missing.correct, missing.value) == (NO_ANSWER, None, 0.0)
    assert score_row(pack, row("mmlu", None, "B")) is None
    bad = score_detail(pack, row("mmlu", "B", "Z", options=4))
    assert bad.outcome == BAD_TARGET and "outside the 4 options" in str(bad.note)
    # a status other than ok means no answer even if a stale answer is present
    assert score_detail(pack, {**row("mmlu", "B", "B"), "status": "contradictory"}).outcome == NO_ANSWER
    # an invalid line with no task and no target
    assert score_detail(pack, {"line": 3, "status": "invalid", "answer": None}).outcome == NO_TARGET


def test_score_row_per_task_type(tmp_path: Path) -> None:
    pack = make_pack(tmp_path)
    assert score_row(pack, row("mmlu", "B", 1, options=["x", "y", "z"])) is True
    assert score_row(pack, row("mmlu", "b", "B")) is True
    assert score_row(pack, row("gsm8k", "2/3", "0.6666666667")) is True  # rel_tol 1e-9 from the pack
    assert score_row(pack, row("math", "42", 42)) is True
    assert score_row(pack, row("math", "-3", "3")) is False
    assert score_row(pack, row("structured_json", {"a": [1, 2]}, '{"a": [1.0, 2]}')) is True
    assert score_row(pack, row("structured_json", "not json", {"a": 1})) is False
    assert score_row(pack, row("code", "x = 1\n", "x = 1")) is True
    assert score_row(pack, row("open_writing", "Hello", " Hello ")) is True
    assert score_row(pack, row("open_writing", "hello", "Hello")) is False
    assert score_row(pack, row("cmrc", "the Eiffel Tower", ["Eiffel Tower", "tower"])) is True
    squad = score_detail(pack, row("squad", "red house", "the big red house"))
    assert squad.correct is True and squad.value == pytest.approx(0.8)
    # F1 exactly at the threshold counts as correct; below it does not
    assert score_detail(pack, row("squad", "house", "the big red house")).correct is True
    low = score_detail(pack, row("squad", "car house", "the big red house"))
    assert low.correct is False and low.value == pytest.approx(0.4)


# ---------------------------------------------------------------- Math-Verify


def test_math_verify_runs_in_a_worker_process_under_our_own_timeout(tmp_path: Path) -> None:
    text = PACK.replace("math: {rel_tol: 1.0e-9}", "math: {metric: math_verify, timeout: 20}")
    pack = make_pack(tmp_path, text)
    rows = [row("math", "2/3", "\\frac{2}{3}"), row("math", "0.5", "\\frac{1}{3}"), row("math", None, "1")]
    scores = score_rows(pack, rows)
    assert [s.correct for s in scores] == [True, False, None]
    with MathVerifier(timeout=20) as verifier:
        # from a worker thread, where Math-Verify's signal.alarm timeouts would raise
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            assert pool.submit(verifier.equivalent, "\\sqrt{4}", "2").result() is True
        # 10^(10^8) makes SymPy build a 100-million-digit integer: our bound stops it
        with pytest.raises(TimeoutError, match="longer than 1 s"):
            verifier.equivalent("10^{10^{8}}", "1", timeout=1.0)
        assert verifier.equivalent("7", "7")  # a fresh worker serves the next comparison
    with pytest.raises(ValueError, match="positive number"):
        MathVerifier(timeout=0)
