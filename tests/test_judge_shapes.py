"""Judge verdict shapes and ratings with their scale (issues 22 point 6, 23 point 5, 24)."""

from __future__ import annotations

import pytest

from normalize import load_pack
from normalize.parsers._judge import JudgeParams, parse_judge
from normalize.registry import ParseContext

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
