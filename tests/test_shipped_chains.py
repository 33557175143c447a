"""The shipped chains on arbitrary text, and the hash's sensitivity to every semantic parameter."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from normalize import load_pack
from normalize import status as statuses

PACK = load_pack()
ROOT = Path(__file__).resolve().parent.parent

_PIECES = st.sampled_from(
    [
        "The answer is", "答案是", "####", "\\boxed{", "}", "{", "[", "]", "```", "```json\n", "<think>",
        "</think>", "**", "“", "”", "Ｂ", "\u3000", "\\n", "\n", "1,000", ".5", "百分之五十", "一百二十三",
        "\\frac{1}{2}", "True", "None", "\"", "'", "(B)", "A or B", "$", "%", "\t", "é", "\u0301", "🙂",
    ]
)
_TEXT = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(_PIECES, st.text(max_size=8)), max_size=40).map("".join),
)


@pytest.mark.parametrize("task_type", sorted(PACK.task_types))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEXT, options=st.one_of(st.none(), st.integers(2, 26)))
def test_shipped_chain_never_errors_and_is_deterministic(task_type: str, text: str, options: int | None) -> None:
    first = PACK.run(text, task_type, options=options)
    again = PACK.run(text, task_type, options=options)
    assert first == again
    assert first.status in statuses.ALL_STATUSES
    assert first.status != statuses.ERROR, first.reason  # an error would mean a rule bug or a slow regex
    assert (first.answer is None) == (first.status != statuses.OK)
    if first.raw is not None and first.text is not None:
        assert PACK.replay(first) == first.text


def test_deeply_nested_and_long_inputs_do_not_crash() -> None:
    for task_type in PACK.task_types:
        for text in ("{" * 20000, "[" * 20000 + "]" * 20000, "\\boxed{" * 3000, "答案是" * 20000, "a" * 500_000):
            result = PACK.run(text, task_type, options=4)
            assert result.status in statuses.ALL_STATUSES


@pytest.mark.parametrize(
    "old,new",
    [
        ("      - convert_chinese_numerals\n    # LaTeX", "      - convert_chinese_numerals\n      - canonicalize_numbers\n    # LaTeX"),
        ("      - rule: extract_math_answer\n        params: {languages: [en, zh, lang]}\n",
         "      - rule: extract_math_answer\n        params: {languages: [en, zh, lang], final_tiers: 1}\n"),
        ("    parser: math\n", "    parser: {name: math, params: {timeout: 5.0}}\n"),
        ("  gsm8k:\n    percent_bare: true\n", "  gsm8k:\n    percent_bare: false\n"),
        ("  places_zh:\n    - [北京, 北京市]\n", "  places_zh:\n    - [北京, 北京市, 京]\n"),
    ],
)
def test_changing_any_semantic_parameter_changes_the_hash(tmp_path: Path, old: str, new: str) -> None:
    import shutil

    shutil.copytree(ROOT / "rules", tmp_path / "rules")
    default = tmp_path / "rules" / "default.yaml"
    aliases = tmp_path / "rules" / "aliases.yaml"
    target = aliases if "places_zh" in old else default
    text = target.read_text(encoding="utf-8")
    assert old in text
    target.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert load_pack(default).hash != PACK.hash
