"""Judge verdict shapes and ratings with their scale (issues 22 point 6, 23 point 5, 24)."""

from __future__ import annotations

import pytest

from normalize import load_pack
from normalize.core.registry import ParseContext
from normalize.parsers._judge import JudgeParams, parse_judge

CTX = ParseContext()
PACK = load_pack()


def judge(text: str, ctx: ParseContext = CTX, params: JudgeParams | None = None) -> tuple[str, object]:
    parsed = parse_judge(text, params or JudgeParams(), ctx)
    return parsed.status, parsed.answer


# --------------------------------------------------------------------------- ratings: X out of Y


@pytest.mark.parametrize(("text", "rating"), [
    ("I rate it 8 out of 10.", 8),
    ("I would rate this response 8 out of 10.", 8),
    ("The response deserves a 7/10.", 7),
    ("I give this response 7 out of 10", 7),
    ("Overall the response is helpful.\n8 points out of a possible 10", 8),
    ("8 out of 10 points", 8),
    ("Rating: 8 points out of 10", 8),
    ("I would rate this a 6 on a scale of 1 to 10.", 6),
    ("Rating: 6 (on a scale of 1-10)", 6),
    ("Out of 10, I give it 8.", 8),
    ("Overall: 7/10", 7),
    ("Rating: 7.5/10", 7.5),
    ("评分：满分10分，得8分", 8),
    ("满分10分，得8分", 8),
    ("10分中的8分", 8),
    ("回答完整准确。10分中的9分。", 9),
    ("8分（满分10分）", 8),
    ("评分：8分（满分10分）", 8),
    ("总分10分，得8分", 8),
    ("满分为10分，得分为8分", 8),
    ("10分满分，8分", 8),
    ("10分制下得8分", 8),
    ("评分：10分满分，得8分", 8),
    ("8/10分", 8),
    ("Grade: 8/10", 8),
    ("I give it 8 on a 10-point scale.", 8),
    ("十分制，8分", 8),
    ("十分制下得9分", 9),
])
def test_a_rating_with_its_scale_is_the_rating(text: str, rating: float) -> None:
    assert judge(text) == ("ok", rating)


@pytest.mark.parametrize(("text", "status"), [
    # the scale alone is never the rating
    ("满分10分", "no_answer"),
    ("评分：满分10分", "no_answer"),
    ("Rating: 10分满分", "no_answer"),
    ("Score: out of 10", "no_answer"),
    # the stated scale must be the task's (1..10 here)
    ("满分5分，得4分", "out_of_range"),
    ("4/5分", "out_of_range"),
    ("I rate it 4 out of 5.", "out_of_range"),
    ("8 points out of a possible 5", "out_of_range"),
    ("Rating: 6 (on a scale of 1-5)", "out_of_range"),
    ("Rating: 4 (on a scale of 0 to 10)", "out_of_range"),
    ("I'd give this 11 out of 10", "out_of_range"),
    ("满分10分，得11分", "out_of_range"),
    ("Rating: 4 (on a 5-point scale)", "out_of_range"),
    ("百分制下得85分", "out_of_range"),
    ("五分制，得4分", "out_of_range"),
    ("十分制", "no_answer"),
    ("On a 10-point scale, the response is solid.", "no_answer"),
    # near variants that state no rating: a count in prose, a number without its scale after a verb
    ("The response covers 8 out of 10 key points.", "no_answer"),
    ("I give two examples below.", "no_answer"),
    ("满分10分，共有3个要点", "no_answer"),
    # two ratings
    ("I rate it 8 out of 10. Rating: 7", "contradictory"),
    ("Rating: 8/10\nOverall: 6/10", "contradictory"),
])
def test_ratings_that_cannot_be_read_for_certain_are_refused(text: str, status: str) -> None:
    assert judge(text) == (status, None)


def test_the_rows_scale_decides() -> None:
    five = ParseContext(options=5)
    assert judge("满分5分，得4分", five) == ("ok", 4)
    assert judge("I rate it 4 out of 5.", five) == ("ok", 4)
    assert judge("Rating: 4 (on a scale of 1 to 5)", five) == ("ok", 4)
    assert judge("评分：满分10分，得8分", five)[0] == "out_of_range"
    assert judge("五分制，得4分", five) == ("ok", 4)
    assert judge("Rating: 4 (on a 5-point scale)", five) == ("ok", 4)
    assert judge("百分制下得85分", ParseContext(options=100)) == ("ok", 85)


# --------------------------------------------------------------------------- no wall clock


def test_built_in_patterns_do_not_depend_on_a_wall_clock() -> None:
    """1 MiB of code fences: the same verdict with a generous timeout and with one a loaded
    machine would hit (a built-in pattern under a wall-clock timeout raised TimeoutError here)."""
    text = "```python\nprint(1)\n```\n" * ((1 << 20) // 24) + "[[B]]"
    loaded = ParseContext(timeout=1e-6)
    assert judge(text, loaded) == judge(text, ParseContext(timeout=60.0)) == ("ok", "B")
    fences = "```python\nx = 1\n```\n" * ((1 << 20) // 20)
    assert judge(fences, loaded) == judge(fences) == ("no_answer", None)


def test_pack_run_under_a_tiny_regex_timeout_gives_the_same_judge_result(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "pack.yaml"
    path.write_text("name: tight\nextends: shipped:default\nsettings: {regex_timeout: 0.000001}\n", encoding="utf-8")
    tight = load_pack(path)
    text = "```python\nprint(1)\n```\n" * 40000 + "Rating: [[7]]"
    assert (tight.run(text, "mt_bench_judge").status, tight.run(text, "mt_bench_judge").answer) == ("ok", 7)


# --------------------------------------------------------------------------- JSON and tool-call verdicts

TOOL_CALL = ('{"name": "make_partial_leaderboard", "arguments": "{\\"ordered_models\\": [{\\"model\\": \\"M\\", '
             '\\"rank\\": 1}, {\\"model\\": \\"m\\", \\"rank\\": 2}]}"}')


@pytest.mark.parametrize(("text", "verdict"), [
    ('{"ordered_models": [{"model": "M", "rank": 1}, {"model": "m", "rank": 2}]}', "B"),
    ('{"ordered_models": [{"model": "m", "rank": 1}, {"model": "M", "rank": 2}]}', "A"),
    ('{"concise_explanation": "m is accurate.", "ordered_models": [{"model": "m", "rank": 1}, {"model": "M", "rank": 2}]}',
     "A"),
    ('{"ordered_models": [{"rank": 1, "model": "model_2"}, {"rank": 2, "model": "model_1"}]}', "B"),
    ("[{'model': 'model_2', 'rank': 1}, {'model': 'model_1', 'rank': 2}]", "B"),
    ('{"ordered_models": [{"model": "m", "rank": 1}, {"model": "M", "rank": 1}]}', "tie"),
    (TOOL_CALL, "B"),
    ('[{"type": "function", "function": {"name": "make_leaderboard", "arguments": '
     '"{\\"ordered_models\\":[{\\"model\\":\\"model_1\\",\\"rank\\":1},{\\"model\\":\\"model_2\\",\\"rank\\":2}]}"}}]', "A"),
    ('{"best_output": "Output (b)"}', "B"),
    ('{"choice": "A", "reason": "A answers the question."}', "A"),
    ('{"winner": "model_b", "confidence": 0.8}', "B"),
    ("```json\n{\"winner\": \"tie\"}\n```", "tie"),
    ("{'winner': 'Assistant A'}", "A"),
    ('{"preference": "Response B"}', "B"),
    ('{"score": 8, "feedback": "clear"}', 8),
    ('{"rating": "7/10"}', 7),
    ("{'事实正确性': 9, '综合得分': 8}", 8),
    ("Feedback: good. [RESULT] 4", 4),
    ("Feedback: good. [RESULT]: (4)", 4),
    ("Feedback: B is better. [RESULT] B", "B"),
    ("[SCORE] 6", 6),
])
def test_json_and_tool_call_verdicts(text: str, verdict: object) -> None:
    assert judge(text) == ("ok", verdict)


@pytest.mark.parametrize(("text", "status"), [
    ('{"winner": "gpt-4-turbo"}', "no_answer"),  # a model name, not a side
    ('{"winner": "A or B"}', "no_answer"),
    ('{"winner": null}', "no_answer"),
    ('{"best": "A"}', "no_answer"),  # an undeclared key
    ('{"ordered_models": [{"model": "m", "rank": 1}, {"model": "gpt4", "rank": 2}]}', "no_answer"),
    ('{"ordered_models": [{"model": "m", "rank": 1}]}', "no_answer"),  # one side only
    ('{"ordered_models": [{"model": "m", "rank": 1}, {"model": "m", "rank": 2}]}', "contradictory"),
    ('{"ordered_models": [{"model": "m", "rank": 1}, {"model": "M", "ra', "no_answer"),  # cut off
    ('{"choice": "A"}\n{"choice": "B"}', "contradictory"),
    ('{"winner": "A", "score": 7}', "contradictory"),  # a preference and a rating
    ('{"score": 12}', "out_of_range"),
    ('{"score": "good"}', "no_answer"),
    ("[RESULT] 4/5", "out_of_range"),
])
def test_json_verdict_near_variants_are_refused(text: str, status: str) -> None:
    assert judge(text) == (status, None)


def test_m_and_big_m_are_told_apart_and_labels_are_data() -> None:
    assert judge('{"ordered_models": [{"model": "m", "rank": 2}, {"model": "M", "rank": 1}]}') == ("ok", "B")
    custom = JudgeParams(json_verdicts=[{"key": "pick", "reads": "preference"}], labels=[["first", "A"], ["second", "B"]])
    assert judge('{"pick": "second"}', params=custom) == ("ok", "B")
    assert judge('{"winner": "A"}', params=custom) == ("no_answer", None)  # not declared in these params


def test_json_shapes_are_in_the_hash(tmp_path: object) -> None:
    from pathlib import Path

    resolved = PACK.resolved()["task_types"]["judge"]["parser"]["params"]
    assert {"key": "ordered_models", "reads": "ranking"} in resolved["json_verdicts"]
    assert ["M", "B"] in resolved["labels"]
    path = Path(str(tmp_path)) / "pack.yaml"
    path.write_text("name: p\nextends: shipped:default\ntask_types:\n  judge:\n    chain: [remove_think_blocks]\n"
                    "    parser: {name: judge, params: {labels: [[A, A], [B, B]]}}\n", encoding="utf-8")
    other = load_pack(path)
    assert other.hash != PACK.hash
    assert other.run('{"winner": "model_b"}', "judge").status == "no_answer"


# --------------------------------------------------------------------------- Arena-Hard strengths, plain language


@pytest.mark.parametrize(("text", "verdict", "strength"), [
    ("My final verdict is: [[A>>B]]", "A", "A>>B"),
    ("My final verdict is: [[A>B]]", "A", "A>B"),
    ("My final verdict is: [[B>A]]", "B", "B>A"),
    ("My final verdict is: [[B>>A]]", "B", "B>>A"),
    ("My final verdict is tie: [[A=B]]", "tie", "A=B"),
    ("[[B<<A]]", "A", "A>>B"),
    ('{"verdict": "B>>A"}', "B", "B>>A"),
])
def test_arena_hard_strength_is_kept(text: str, verdict: str, strength: str) -> None:
    parsed = parse_judge(text, JudgeParams(), CTX)
    assert (parsed.status, parsed.answer, parsed.extra.get("strength")) == ("ok", verdict, strength)
    result = PACK.run(text, "arena_hard_judge")
    assert result.extra["strength"] == strength


def test_arena_hard_strength_near_variants() -> None:
    assert judge("[[A>>B]] ... on reflection [[A>B]]") == ("contradictory", None)
    assert judge("[[A>B]] [[B>A]]") == ("contradictory", None)
    assert parse_judge("[[A]]", JudgeParams(), CTX).extra == {}  # MT-Bench states no strength


@pytest.mark.parametrize(("text", "status", "answer"), [
    ("Assistant A is better.", "ok", "A"),
    ("Assistant B's answer is incomplete, so Assistant A is better.", "ok", "A"),
    ("回答B更好。", "ok", "B"),
    ("I don't think Assistant A is better.", "no_answer", None),
    ("If Assistant A is better, output [[A]]", "ok", "A"),  # the bracket decides; the hypothetical is no statement
    ("If Assistant A is better, say so.", "no_answer", None),
    ("It is unclear whether Assistant A is better.", "no_answer", None),
    ("如果回答A更好，请输出A。", "no_answer", None),
    ("Assistant A is better. Then again, Assistant B is better.", "contradictory", None),
    ("Assistant A is better at formatting.", "no_answer", None),
])
def test_plain_language_only_when_nothing_contradicts_it(text: str, status: str, answer: object) -> None:
    assert judge(text) == (status, answer)


@pytest.mark.parametrize(("text", "failure"), [
    ("Both responses address the question. Response A gives an example, while Response B explains the", "truncated"),
    ('{"ordered_models": [{"model": "m", "rank": 1}, {"model": "M", "ra', "truncated"),
    ("Comparing the two responses carefully, my verdict: [[", "truncated"),
    ("I cannot decide between them.", "no_verdict"),
    ("[[A]] and later [[B]]", "contradictory"),
    ("Rating: 12", "off_scale"),
])
def test_judge_failures_are_named(text: str, failure: str) -> None:
    assert parse_judge(text, JudgeParams(), CTX).extra["judge_failure"] == failure


def test_a_verdict_of_the_other_kind_is_a_named_failure() -> None:
    parsed = parse_judge("[[B]]", JudgeParams(kind="rating"), CTX)
    assert (parsed.status, parsed.extra["judge_failure"]) == ("no_answer", "wrong_kind")
    parsed = parse_judge("Rating: 7", JudgeParams(kind="preference"), CTX)
    assert (parsed.status, parsed.extra["judge_failure"]) == ("no_answer", "wrong_kind")


# --------------------------------------------------------------------------- the judge summary: every row once


def _judge_rows() -> list[dict[str, object]]:
    base = {"task": "arena_hard_judge"}
    return [
        {**base, "id": 1, "model_a": "x", "model_b": "y", "output": "[[A>>B]]", "target": "A"},
        {**base, "id": 1, "model_a": "y", "model_b": "x", "output": "[[B>A]]", "target": "B"},
        {**base, "id": 2, "model_a": "x", "model_b": "y", "output": "[[B>A]]", "target": "B"},
        {**base, "id": 3, "model_a": "x", "model_b": "y", "output": "Rating: 7", "target": "A"},  # a rating on a battle row
        {**base, "id": 4, "model": "x", "output": "[[B]]", "target": 7},  # a preference where a rating was asked
        {**base, "id": 5, "model": "y", "output": "Rating: [[6]]", "target": 6},
        {**base, "id": 6, "model_a": "x", "model_b": "y", "output": "[[A]] then [[B]]", "target": "A"},
        {**base, "id": 7, "model_a": "x", "model_b": "y", "output": "Response A is thorough and gives an example, but Response B",
         "target": "A"},
        {**base, "id": 8, "model": "x", "output": "Rating: 15", "target": 7},
        {**base, "id": 9, "model_a": "x", "model_b": "y", "output": "No verdict here.", "target": "A"},
        {**base, "id": 10, "output": "[[A]]", "target": "A"},  # no models named
        {**base, "id": 11, "model_a": "x", "model_b": "y", "output": None, "target": "A"},
    ]


def test_every_judge_row_is_counted_once_in_the_summary() -> None:
    from normalize.io.row import Row
    from scoring._items import item_of
    from scoring.metrics import Scored, score_result
    from scoring.report import build_report, render_table

    items = []
    for data in _judge_rows():
        row = Row.from_mapping(data)
        result = PACK.run(row.output, str(row.task))
        row = Row.from_mapping({**data, "task_type": result.task_type})
        items.append(item_of(Scored(row, result, score_result(PACK, row, result))))
    report = build_report(items, PACK, n_resamples=20)
    block = report["groups"][-1]["pairwise"]
    summary = block["summary"]
    assert summary["rows"] == 12
    assert (summary["battles"], summary["ratings"], summary["unassigned"]) == (3, 1, 1)
    assert summary["wrong_kind"] == {"rating_on_battle_row": 1, "preference_on_rated_row": 1}
    assert summary["failures"] == {"truncated": 1, "off_scale": 1, "contradictory": 1, "no_verdict": 1,
                                   "wrong_kind": 0, "invalid": 1}
    assert summary["rows"] == (summary["battles"] + summary["ratings"] + summary["unassigned"]
                               + sum(summary["wrong_kind"].values()) + sum(summary["failures"].values()))
    assert summary["strengths"] == {"A>>B": 1, "A>B": 0, "A=B": 0, "B>A": 2, "B>>A": 0}
    assert block["strengths_by_model"]["x"] == {"much_better": 1, "better": 1, "tie": 0, "worse": 1, "much_worse": 0}
    # the position-bias check sees battle rows only: a rating on a battle row is not "without a verdict"
    assert block["position_bias"]["unparsed"] == 4
    text = render_table(report)
    assert "judge rows: 12 = 3 battles + 1 ratings + 1 without models + 2 of the wrong kind" in text
    assert "Arena-Hard strengths: A>>B 1, A>B 0, A=B 0, B>A 2, B>>A 0" in text


def test_an_echoed_json_template_states_nothing() -> None:
    assert judge('Reply with {"winner": "A" or "B"}.') == ("no_answer", None)
    assert judge('Reply with {"winner": "A" or "B"}.\n{"winner": "B"}') == ("ok", "B")
    template = '[{"model": "model_1", "rank": "<rank>"}, {"model": "model_2", "rank": "<rank>"}]'
    assert judge(template) == ("no_answer", None)
    assert judge(template + '\n[{"model": "model_1", "rank": 2}, {"model": "model_2", "rank": 1}]') == ("ok", "B")


@pytest.mark.parametrize(("text", "expected"), [
    # a JSON quoted in the reasoning (a judged response) is not the verdict
    ('Assistant A returned {"score": 5, "name": "x"}, which is wrong; B is right. [[B]]', ("ok", "B")),
    ('Assistant A returned {"score": 5}. Final verdict: B', ("ok", "B")),
    ('Reasoning first. {"choice": "A"} and more reasoning after it', ("no_answer", None)),
    # the JSON that is the judgment, opens it or closes it
    ('{"winner": "A"}\nReasoning: A is complete.', ("ok", "A")),
    ('Here is my verdict: {"winner": "B"}.', ("ok", "B")),
    ("The assistant's answer [the model's] is fine.\n{\"score\": 7}", ("ok", 7)),
    ('```json\n{"winner": "B", "reason": "it\'s better"}\n```', ("ok", "B")),
])
def test_json_verdicts_only_where_the_json_is_the_judgment(text: str, expected: tuple[str, object]) -> None:
    assert judge(text) == expected


def test_a_plain_language_verdict_contradicted_by_the_verdict_line_is_refused() -> None:
    assert judge("Assistant B is better at citing sources, but Assistant A is better overall.\nB") == (
        "contradictory", None)
    assert judge("Assistant A is better.\nA") == ("ok", "A")
    assert judge("回答A更好。\nB") == ("contradictory", None)
    assert judge("Final verdict: A\nB")[0] == "ok"  # a marker is no plain-language statement: tier 2 decides
