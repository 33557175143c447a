"""Extractive QA normalization (issue 22, point 7): ``squad_official`` is the official SQuAD
script, byte for byte; the default ``squad_exact``/``f1`` keep what changes an answer's meaning
(decimal points, slashes and other marks between digits, a leading minus, name letters)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from normalize.core.pack import load_pack
from scoring.cli import main
from scoring.metrics import ScoringConfig, compare
from scoring.metrics.squad import (
    normalize_official,
    normalize_squad,
    official_exact,
    official_f1,
    squad_exact_match,
    token_f1,
)
from tests._oracles.squad import v1_1, v2_0

_SETTINGS = settings(max_examples=300, deadline=None, derandomize=True)

#: Text the official script treats specially: ASCII punctuation, articles in every case,
#: digits, whitespace of every kind, non-ASCII letters and punctuation.
_PIECES = st.sampled_from([
    "a", "an", "the", "A", "An", "THE", "The", " ", "  ", "\t", "\n", "\u3000", "\u00a0",
    ".", ",", "-", "/", ":", "'", '"', "!", "(", ")", "$", "%", "2", "3.5", "-4", "1,000",
    "Vitamin", "plan", "北京", "。", "，", "é", "ß", "İ", "\u2212", "_", "theater", "a.", "an'",
])
_TEXT = st.one_of(st.text(max_size=40), st.lists(_PIECES, max_size=12).map("".join))


# --------------------------------------------------------------------------- official = the script


@_SETTINGS
@given(_TEXT)
def test_official_normalization_is_the_scripts_byte_for_byte(text: str) -> None:
    assert normalize_official(text) == v1_1.normalize_answer(text) == v2_0.normalize_answer(text)


@_SETTINGS
@given(_TEXT, _TEXT)
def test_official_exact_and_f1_are_the_scripts(answer: str, gold: str) -> None:
    assert official_exact(answer, gold) == v1_1.exact_match_score(answer, gold)
    assert int(official_exact(answer, gold)) == v2_0.compute_exact(gold, answer)
    f1 = official_f1(answer, gold)
    assert f1 == v2_0.compute_f1(gold, answer)  # the same float, not approximately
    if normalize_official(answer) and normalize_official(gold):  # v1.1 differs only on empty answers
        assert f1 == v1_1.f1_score(answer, gold)


@_SETTINGS
@given(_TEXT, st.lists(_TEXT, min_size=1, max_size=4))
def test_the_official_metrics_score_as_the_script_over_several_golds(answer: str, golds: list[str]) -> None:
    exact = compare(ScoringConfig("extractive_qa", "squad_official"), answer, golds)
    assert exact.value == float(v1_1.metric_max_over_ground_truths(v1_1.exact_match_score, answer, golds))
    f1 = compare(ScoringConfig("extractive_qa", "squad_official_f1", f1_threshold=0.5), answer, golds)
    assert f1.value == max(v2_0.compute_f1(g, answer) for g in golds)
    assert f1.correct == (f1.value >= 0.5)


def test_the_official_metric_ignores_alias_tables() -> None:
    """Published numbers use the dataset's answers only."""
    groups = [("United States", "USA")]
    official = compare(ScoringConfig("extractive_qa", "squad_official"), "USA", ["United States"], alias_groups=groups)
    default = compare(ScoringConfig("extractive_qa", "squad_exact"), "USA", ["United States"], alias_groups=groups)
    assert (official.correct, default.correct) == (False, True)


# --------------------------------------------------------------------------- the default keeps meaning


@pytest.mark.parametrize(("answer", "gold"), [
    ("2.5", "25"), ("-3", "3"), ("3/4", "34"), ("4.5 million", "45 million"),
    ("4,5 million", "45 million"), ("1990-1995", "19901995"), ("3:30", "330"), (".5", "5"),
    ("vitamin", "Vitamin A"), ("Plan", "Plan A"), ("Type", "Type A"), ("hepatitis vaccine", "Hepatitis A vaccine"),
    ("a", "the"),
])
def test_forms_that_change_meaning_are_kept_apart(answer: str, gold: str) -> None:
    assert official_exact(answer, gold)  # the official script makes them equal
    assert not squad_exact_match(answer, gold)
    assert not squad_exact_match(gold, answer)
    assert compare(ScoringConfig("extractive_qa", "squad_exact"), answer, [gold]).correct is False
    assert compare(ScoringConfig("extractive_qa", "squad_exact"), answer, [gold]).alternatives == {"squad_official": True}


@pytest.mark.parametrize(("answer", "gold"), [
    ("The Eiffel Tower.", "eiffel tower"), ("1,000", "1000"), ("$1,000,000", "1000000"), (".5", "0.5"),
    ("Vitamin A", "vitamin a"), ("VITAMIN A", "Vitamin A"), ("A dog", "dog"), ("the Beatles", "The Beatles"),
    ("It was a cat.", "it was cat"), ("Plan B", "plan b"), ("Type O", "type o"), ("U.S.A.", "usa"),
    ("don't", "dont"), ("-3", "−3"), ("北京大学。", "北京大学"), ("He said \"A dog\"", "he said dog"),
])
def test_forms_that_mean_the_same_still_match(answer: str, gold: str) -> None:
    assert squad_exact_match(answer, gold), (normalize_squad(answer), normalize_squad(gold))


_DIGITS = st.integers(min_value=0, max_value=99999).map(str)
_NAME = st.sampled_from(["Vitamin", "Plan", "Type", "Hepatitis", "Grade", "Class", "Option", "Group", "Exhibit"])
_WORDS = st.lists(st.sampled_from(["the", "answer", "is", "about", "of", "in", "was", "population", "The"]),
                  max_size=3).map(" ".join)


def _in_prose(prefix: str, core: str, suffix: str) -> str:
    return " ".join(part for part in (prefix, core, suffix) if part)


@_SETTINGS
@given(_DIGITS, st.integers(min_value=1, max_value=9999).map(str), st.sampled_from([".", "/", ":", "-"]),
       st.sampled_from(["", " million", " billion", " thousand", " percent", " km"]), _WORDS, _WORDS)
def test_a_mark_between_digits_is_never_dropped(a: str, b: str, mark: str, unit: str, prefix: str, suffix: str) -> None:
    kept = _in_prose(prefix, f"{a}{mark}{b}{unit}", suffix)
    joined = _in_prose(prefix, f"{a}{b}{unit}", suffix)
    assert official_exact(kept, joined)
    assert not squad_exact_match(kept, joined)
    assert token_f1(kept, joined) < 1.0


@_SETTINGS
@given(st.integers(min_value=1, max_value=10**6).map(str), st.sampled_from(["-", "\u2212"]), _WORDS, _WORDS)
def test_a_leading_minus_is_never_dropped(number: str, minus: str, prefix: str, suffix: str) -> None:
    assert not squad_exact_match(_in_prose(prefix, minus + number, suffix), _in_prose(prefix, number, suffix))


@_SETTINGS
@given(_NAME, st.sampled_from(["", " vaccine", " deficiency", " blood"]), _WORDS)
def test_a_name_letter_is_never_taken_for_an_article(name: str, tail: str, prefix: str) -> None:
    gold = _in_prose(prefix, f"{name} A{tail}", "")
    answer = _in_prose(prefix, f"{name}{tail}", "")
    assert official_exact(answer, gold)
    assert not squad_exact_match(answer, gold)
    assert squad_exact_match(gold, gold.lower() if not tail else gold)


# --------------------------------------------------------------------------- the report


def test_the_report_counts_per_task_where_the_two_differ(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"id": "1", "task": "squad", "output": "2.5", "target": "25"},  # official only
        {"id": "2", "task": "squad", "output": "vitamin", "target": "Vitamin A"},  # official only
        {"id": "3", "task": "squad", "output": "Paris", "target": "paris"},  # both
        {"id": "4", "task": "squad", "output": "Lyon", "target": "Paris"},  # neither
        {"id": "5", "task": "triviaqa", "output": "USA", "target": "United States"},  # default only (aliases)
        {"id": "6", "task": "gsm8k", "output": "#### 4", "target": 4},
    ]
    src = tmp_path / "rows.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["score", str(src), "--format", "json", "--bootstrap", "20"]) == 0
    report = json.loads(capsys.readouterr().out)
    groups = {(g["level"], g["name"]): g for g in report["groups"]}
    squad = groups[("task", "squad")]["metric_comparisons"]
    assert squad == [{"metric": "squad_exact", "other": "squad_official", "compared": 4, "differ": 2,
                      "correct_only_by_metric": 0, "correct_only_by_other": 2}]
    trivia = groups[("task", "triviaqa")]["metric_comparisons"]
    assert trivia[0]["differ"] == 1 and trivia[0]["correct_only_by_metric"] == 1
    assert groups[("task_type", "extractive_qa")]["metric_comparisons"][0]["differ"] == 3
    assert groups[("task", "gsm8k")]["metric_comparisons"] is None
    for fmt in ("text", "markdown"):
        assert main(["score", str(src), "--format", fmt, "--bootstrap", "20"]) == 0
        out = capsys.readouterr().out
        line = next(line for line in out.splitlines() if line.lstrip("- ").startswith("squad:"))
        assert "squad_exact vs squad_official: 2 of 4 verdicts differ" in line
        assert "0 correct only by squad_exact, 2 only by squad_official" in line


def test_the_shipped_qa_tasks_default_to_the_protected_metric() -> None:
    from scoring.metrics import scoring_config

    pack = load_pack()
    assert scoring_config(pack, "squad").metric == "squad_exact"
    result = pack.run("The answer is 2.5 million.", "squad")
    assert result.status == "ok"
    score = compare(scoring_config(pack, "squad"), result.answer, ["25 million"])
    assert (score.correct, score.alternatives) == (False, {"squad_official": True})
