"""Benchmark prompt formats (issue 23, point 3): the Chinese exam family with its multi-select
mode scored as a set, MMLU-Pro, GPQA / inspect, BBH, MGSM, AIME boxes, LiveBench tags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from normalize import load_pack
from normalize import status as st
from normalize.core.registry import ParseContext
from normalize.errors import PackError
from normalize.parsers._choice import ChoiceParams, parse_choice
from scoring.metrics.exact import choice_letters


@pytest.fixture(scope="module")
def pack():  # type: ignore[no-untyped-def]
    return load_pack()


@pytest.mark.parametrize(
    ("output", "task", "options", "answer"),
    [
        ("【解析】 A项错误，B项不符，D项错误。<eoe>\n【答案】 C <eoa>", "ceval", 4, "C"),
        ("分析：……\n【正确答案】 B", "cmmlu", 4, "B"),
        ("解：由题意可知……故选D。", "gaokao", 4, "D"),
        ("【解析】 A正确，C错误。<eoe>\n【答案】 A B D <eoa>", "gaokao_multi", 4, "ABD"),
        ("解析：……\n故选ABD", "ceval_multi", 4, "ABD"),
        ("The correct answers are A, C and D.", "gaokao_multi", 4, "ACD"),
        ("【答案】 B <eoa>", "gaokao_multi", 4, "B"),  # a one-letter set
        ("Let's think step by step. ... The answer is (I).", "mmlu_pro", 10, "I"),
        ("The spin-orbit term dominates.\n\nANSWER: C", "gpqa", 4, "C"),
        ("Let's think step by step.\nSo the answer is (B).", "bbh", 4, "B"),
    ],
)
def test_benchmark_formats_are_read(pack, output: str, task: str, options: int, answer: str) -> None:  # type: ignore[no-untyped-def]
    result = pack.run(output, task, options=options)
    assert (result.answer, result.status) == (answer, st.OK)


@pytest.mark.parametrize(
    ("output", "task", "options"),
    [
        ("【解析】 A、C都对 <eoe>\n【答案】 A C <eoa>", "gaokao", 4),  # two letters, single answer
        ("【答案】 A或C <eoa>", "gaokao", 4),
        ("【答案】 <eoa>", "gaokao", 4),
        ("答案：AB或AD", "gaokao_multi", 4),
        ("The answer is A or C", "gaokao_multi", 4),
        ("The answer is BECAUSE of the above.", "gaokao_multi", 26),
        ("答案：ABE", "gaokao_multi", 4),
        ("答案：AB\n答案：AC", "gaokao_multi", 4),
        ("The answer is (K).", "mmlu_pro", 10),
        ("ANSWER: C\nANSWER: D", "gpqa", 4),
        ("So the answer is (B) or (C).", "bbh", 4),
    ],
)
def test_near_variants_are_refused(pack, output: str, task: str, options: int) -> None:  # type: ignore[no-untyped-def]
    result = pack.run(output, task, options=options)
    assert result.status != st.OK and result.answer is None


@pytest.mark.parametrize(
    ("output", "task", "answer"),
    [
        ("... so the number of such paths is $\\boxed{204}$.", "aime24", "204"),
        ("She has 48 + 24 = 72 clips.\nAnswer: 72", "mgsm", "72"),
        ("Reasoning...\n<solution>72</solution>", "livebench_math", "72"),
    ],
)
def test_math_benchmark_formats(pack, output: str, task: str, answer: str) -> None:  # type: ignore[no-untyped-def]
    assert pack.run(output, task).answer == answer
    assert pack.run(output.replace(answer, f"{answer}}} and $\\boxed{{1}}", 1) if "boxed" in output else output, task).status in (
        st.OK, st.CONTRADICTORY,
    )


def test_single_mode_still_refuses_letter_runs() -> None:
    """ABD in the single-answer mode stays contradictory: only multi_select reads it as a set."""
    ctx = ParseContext(options=4)
    assert parse_choice("答案：ABD", ChoiceParams(), ctx).status == st.CONTRADICTORY
    multi = parse_choice("答案：ABD", ChoiceParams(mode="multi_select"), ctx)
    assert (multi.answer, multi.status, multi.extra["choice_mode"]) == ("ABD", st.OK, "multi_select")


def test_multi_select_is_scored_as_set_equality(tmp_path: Path) -> None:
    from scoring.cli import main

    rows = [
        {"id": 1, "task": "gaokao_multi", "output": "【答案】 A B D <eoa>", "options": 4, "target": "DBA"},
        {"id": 2, "task": "gaokao_multi", "output": "故选ABD", "options": 4, "target": ["A", "B", "D"]},
        {"id": 3, "task": "gaokao_multi", "output": "故选AB", "options": 4, "target": "A,B,D"},  # one short: wrong
        {"id": 4, "task": "gaokao_multi", "output": "故选ABCD", "options": 4, "target": [0, 1, 3]},  # one more: wrong
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    main(["score", str(source), "-o", str(out)])
    scored = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["correct"] for r in scored] == [True, True, False, False]
    assert choice_letters("B, a") == "AB"
    with pytest.raises(ValueError):
        choice_letters("Paris")


def test_task_parser_params_are_checked_and_hashed(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: shipped:default\ntasks:\n  x: {type: multiple_choice, parser_params: {mode: many}}\n", encoding="utf-8")
    with pytest.raises(PackError, match="mode"):
        load_pack(bad)
    good = tmp_path / "good.yaml"
    good.write_text("extends: shipped:default\ntasks:\n  x: {type: multiple_choice, parser_params: {mode: multi_select}}\n", encoding="utf-8")
    pack = load_pack(good)
    assert pack.hash != load_pack().hash and pack.run("答案：AC", "x", options=4).answer == "AC"
