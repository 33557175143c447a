"""Reasoning-model output shapes: <answer> tags as the top tier, <|begin_of_solution|>, several
think blocks, an unclosed think block (truncated_reasoning), reasoning_content kept apart, and
the RL rewards on all of them (issue 23, point 4)."""

from __future__ import annotations

import json

import pytest

from normalize import load_pack
from normalize import status as st
from normalize.io._io import InputRow
from normalize.io.row import Row
from normalize.io.rows import normalize_row
from scoring.integrations.rewards import NormalizeReward, compute_score


@pytest.fixture(scope="module")
def pack():  # type: ignore[no-untyped-def]
    return load_pack()


R1 = "<think>\nNatalia sold 48/2 = 24 clips in May, 48 + 24 = 72 in all.\n</think>\n<answer>72</answer>"


@pytest.mark.parametrize(
    ("output", "task", "answer"),
    [
        (R1, "gsm8k", "72"),
        ("<think>x</think>\n<answer>\nThe answer is \\boxed{72}.\n</answer>", "gsm8k", "72"),
        # the tag beats an earlier marker and box outside it: the top tier
        ("The answer is 70.\n<answer>72</answer>", "gsm8k", "72"),
        ("<|begin_of_thought|>\nsteps\n<|end_of_thought|>\n\n<|begin_of_solution|>\nSo $\\boxed{72}$.\n<|end_of_solution|>", "math500", "72"),
        ("<think>first</think>Some text.<think>second</think>\nThe answer is 72.", "gsm8k", "72"),
        ("<think>a</think><answer>B</answer>", "mmlu", "B"),
        ("<answer>(C) Paris</answer>", "arc_challenge", "C"),
        ("Reasoning.\n<solution>72</solution>", "gsm8k", "72"),
        ("<answer>Paris</answer>", "squad", "Paris"),
        ('<answer>{"a": 1}</answer>', "json_extraction", {"a": 1}),
    ],
)
def test_reasoning_shapes_are_read(pack, output: str, task: str, answer: object) -> None:  # type: ignore[no-untyped-def]
    result = pack.run(output, task, options=4 if task in ("mmlu", "arc_challenge") else None)
    assert (result.answer, result.status) == (answer, st.OK)
    assert pack.replay(result) == result.text


@pytest.mark.parametrize(
    ("output", "task", "status"),
    [
        # the budget ran out inside the reasoning: never an answer read out of the thoughts
        ("<think>\n48/2 = 24, 48 + 24 = 72, so the answer is 72", "gsm8k", st.NO_ANSWER),
        ("<think>B looks right, the answer is (B)", "mmlu", st.NO_ANSWER),
        # a tag written inside unfinished reasoning is still reasoning
        ("<think>I will write <answer>72</answer> once I am sure", "gsm8k", st.NO_ANSWER),
        # two letters in the tag: never the last one
        ("<answer>B or C</answer>", "mmlu", st.NO_ANSWER),
        ("<answer>The answer is B or C</answer>", "mmlu", st.CONTRADICTORY),
        # an empty tag states nothing
        ("<think>hmm</think><answer> </answer>", "mmlu", st.NO_ANSWER),
        # a solution cut off inside its box
        ("<|begin_of_solution|>\nSo the answer is $\\boxed{7", "math500", st.NO_ANSWER),
    ],
)
def test_near_variants_are_refused(pack, output: str, task: str, status: str) -> None:  # type: ignore[no-untyped-def]
    result = pack.run(output, task, options=4 if task == "mmlu" else None)
    assert result.status == status and result.answer is None


def test_unclosed_think_block_has_its_own_reason(pack) -> None:  # type: ignore[no-untyped-def]
    result = pack.run("<think>so the answer is 72", "gsm8k")
    assert result.status == st.NO_ANSWER
    assert "truncated_reasoning" in (result.reason or "")
    # an answer stated before the model started reasoning again is still the answer
    assert pack.run("The answer is 72. <think>let me double-check", "gsm8k").answer == "72"


def test_reasoning_content_is_kept_out_of_extraction_and_shown(pack) -> None:  # type: ignore[no-untyped-def]
    data = {"id": 1, "task": "gsm8k", "output": "The answer is 72.", "reasoning_content": "the answer is 70"}
    out = normalize_row(pack, InputRow(line=1, data=data))
    assert (out["answer"], out["status"]) == ("72", st.OK)
    assert out["extra"]["reasoning_content"] == "the answer is 70"
    empty = {"id": 2, "task": "gsm8k", "output": "", "reasoning_content": "so the answer is 72"}
    out = normalize_row(pack, InputRow(line=2, data=empty))
    assert (out["answer"], out["status"]) == (None, st.NO_ANSWER)
    assert out["reason"].startswith("truncated_reasoning")
    assert Row.parse({"task": "gsm8k", "output": "", "reasoning": "r"}, 1).reasoning == "r"


def test_report_counts_truncated_reasoning(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from scoring.cli import main

    rows = [
        {"id": 1, "task": "gsm8k", "output": "<think>so 72", "target": "72"},
        {"id": 2, "task": "gsm8k", "output": "", "reasoning_content": "72", "target": "72"},
        {"id": 3, "task": "gsm8k", "output": R1, "target": "72"},
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = tmp_path / "r.json"
    main(["score", str(source), "-o", str(tmp_path / "out.jsonl"), "--report", str(report)])
    groups = json.loads(report.read_text(encoding="utf-8"))["groups"]
    overall = next(g for g in groups if g["name"] == "overall")
    assert overall["truncated_reasoning"] == 2 and overall["statuses"]["no_answer"] == 2


def test_rewards_on_reasoning_shapes() -> None:
    reward = NormalizeReward(task="gsm8k")
    completions = [
        R1,
        "<think>a</think><think>b</think>\n<answer>\\boxed{72}</answer>",
        "<|begin_of_solution|>\nThe answer is $\\boxed{72}$.\n<|end_of_solution|>",
        "<think>48 + 24 = 72, so the answer is 72",  # truncated: no reward for unfinished thoughts
        "<think>x</think>\n<answer>71</answer>",
        [{"role": "assistant", "content": "<answer>72</answer>", "reasoning_content": "maybe 71"}],
    ]
    assert reward(completions, answer=["72"] * len(completions)) == [1.0, 1.0, 1.0, 0.0, 0.0, 1.0]
    assert compute_score("openai/gsm8k", R1, "72") == {"score": 1.0, "acc": 1.0, "parsed": 1.0}
    assert compute_score("openai/gsm8k", "<think>so it is 72", "72") == {"score": 0.0, "acc": 0.0, "parsed": 0.0}
    mc = NormalizeReward(task="mmlu", no_answer=-1.0)
    assert mc(["<think>A?</think><answer>C</answer>", "<think>C", "<answer>A or C</answer>"], answer=["C"] * 3) == [
        1.0, -1.0, -1.0,
    ]


def test_rewards_read_the_row_language() -> None:
    reward = NormalizeReward(task="mgsm")
    completions = [
        "<think>48 + 24</think>\nAntwort: 72.\nProbe: 48 + 24 = 72, davon 24 im Mai.",
        "<think>48 + 24</think>\nОтвет: 72.\nПроверка: 48 + 24 = 72, из них 24 в мае.",
    ]
    assert reward(completions, answer=["72", "72"], lang=["de", "ru"]) == [1.0, 1.0]
    # no lang: the en / zh markers state nothing, so the row is read again as Russian (its marker word)
    assert reward(completions[1:], answer=["72"]) == [1.0]
    assert compute_score("juletxara/mgsm", completions[1], "72", {"lang": "ru"})["score"] == 1.0
