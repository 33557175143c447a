"""Stage 1 (extract): think blocks, answer markers, boxes, separators, JSON and code blocks."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from normalize import status
from normalize.core._yaml import load_yaml
from normalize.core.engine import Chain, make_spec, run_chain
from normalize.core.pack import load_pack
from normalize.core.registry import REGISTRY, TASK_TYPES
from normalize.errors import RejectText
from normalize.rules._extract_params import (
    AnswerMarkerParams,
    BoxedParams,
    CodeBlockParams,
    SeparatorParams,
)
from normalize.rules.extract import extract_boxed, remove_think_blocks, split_on_separator
from normalize.rules.extract_code import extract_code_block
from normalize.rules.extract_json import extract_json_block
from normalize.rules.extract_markers import extract_answer_marker, resolve_answer_markers

LANGUAGES_DIR = Path(__file__).resolve().parent.parent / "rules" / "languages"


def _overlay_languages() -> dict[str, Any]:
    languages: dict[str, Any] = {}
    for name in ("en", "zh"):
        path = LANGUAGES_DIR / f"{name}.yaml"
        doc = load_yaml(path.read_text(encoding="utf-8"), str(path))
        languages.update(doc.value["languages"])
    return languages


LANGUAGES: Mapping[str, Any] = _overlay_languages()
MARKERS = resolve_answer_markers(AnswerMarkerParams(), {"languages": LANGUAGES})


def marker(text: str) -> str:
    return extract_answer_marker(text, MARKERS)


# --------------------------------------------------------------------------- registration


def test_rules_are_registered_in_the_extract_stage_with_their_scope() -> None:
    expected = {
        "remove_think_blocks": set(REGISTRY.rule("remove_think_blocks").scope),
        "extract_answer_marker": {"multiple_choice", "math", "extractive_qa"},
        "extract_boxed": {"math", "multiple_choice"},
        "split_on_separator": {"math", "extractive_qa"},
        "extract_json_block": {"structured_json"},
        "extract_code_block": {"code"},
    }
    assert expected["remove_think_blocks"] == set(TASK_TYPES)  # every task type, judge and ranking included
    for name, scope in expected.items():
        definition = REGISTRY.rule(name)
        assert definition.stage == "extract"
        assert set(definition.scope) == scope
        assert definition.doc
    assert REGISTRY.rule("extract_answer_marker").resolve is resolve_answer_markers


# --------------------------------------------------------------------------- think blocks


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("<think>\nLet me add.\n</think>\n\nThe answer is 4.", "The answer is 4."),
        ("<THINK>upper</Think>B", "B"),
        ("<thinking>\nplan\n</thinking>\nAnswer: C", "Answer: C"),
        ("Answer: 4\n\n<think>let me double-check, 2+2", "Answer: 4"),
        ("First I add 2 and 2 ...\n</think>\n\n答案是 4", "答案是 4"),
        ("a</think>b</think>c", "c"),
        ("<think>a</think>", ""),
        ("x <think>y</think> z", "x z"),
        ("x<think>y</think>z", "xz"),
        ("x\n<think>y</think>\n\nz", "x\n\nz"),
        ("<think>1</think>\n<think>2</think>\nfinal", "final"),
        ("  <think>a</think>  answer  ", "answer  "),
        ("<think>思考：2+2=4</think>最终答案：4", "最终答案：4"),
        ("<think>```py\nx\n```\n</think>\n```python\nprint(1)\n```", "```python\nprint(1)\n```"),
        ("<think>draft ```py unclosed</think>ans", "ans"),
    ],
)
def test_remove_think_blocks(raw: str, expected: str) -> None:
    assert remove_think_blocks(raw) == expected


@pytest.mark.parametrize(
    "raw", ["<think>the model ran out of tokens here", "  \n<think>so the answer is 4", "</think> <think>a", "<think>a</think>\n<think>b"]
)
def test_remove_think_blocks_refuses_unfinished_reasoning(raw: str) -> None:
    """All reasoning, unfinished (the budget ran out): no_answer with reason truncated_reasoning."""
    from normalize.errors import RejectText

    with pytest.raises(RejectText, match=r"^no_answer: truncated_reasoning") as refused:
        remove_think_blocks(raw)
    assert refused.value.status == "no_answer"


@pytest.mark.parametrize(
    "raw",
    [
        "no reasoning here ",
        "I think therefore I am",
        "<thinker>not a tag</thinker>",
        "```python\ns = text.split('</think>')[-1]\n```",
        "```python\nre.sub(r'<think>.*?</think>', '', s)\n```",
        "",
    ],
)
def test_remove_think_blocks_leaves_other_text_alone(raw: str) -> None:
    assert remove_think_blocks(raw) == raw


# --------------------------------------------------------------------------- answer markers


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # MMLU-Pro's prompt format
        ("Let's think step by step. ... The answer is (C).", "(C)."),
        ("The answer is: (B)", "(B)"),
        ("the answer is (B)\n\nI hope this helps!", "(B)"),
        ("**Answer:** B", "B"),
        ("**Answer: B**", "B"),
        ("Answer: **C**\n\nExplanation: water boils at 100 °C.", "**C**"),
        ("**Answer:** **B**", "**B**"),
        ("- **The answer is B.**", "B."),
        ("__Answer:__ D", "D"),
        ("**Final Answer:** \\boxed{\\frac{1}{2}}", "\\boxed{\\frac{1}{2}}"),
        ("**Final Answer**\n\nThe integral equals 3.", "The integral equals 3."),
        ("## Final Answer\n\n$\\boxed{5}$", "$\\boxed{5}$"),
        ("FINAL ANSWER: 12 apples", "12 apples"),
        # the best tier wins even when a weaker marker comes later
        ("The final answer is 7. Therefore we are done.", "7. Therefore we are done."),
        ("Answer: 3\n\nTherefore, x = 3.", "3"),
        # within a tier, the last match wins
        ("The answer is 5? No. The answer is 6.", "6."),
        ("One answer is 2. Answer: 4", "4"),
        # the weakest tier when nothing better
        ("We add them. Therefore, x = 9.", "x = 9."),
        ("The correct option is C because ...", "C because ..."),
        # Chinese
        ("答案是：“B”。", "“B”。"),
        ("因此答案是 42", "42"),
        ("最终答案：\\boxed{\\frac{1}{2}}", "\\boxed{\\frac{1}{2}}"),
        ("最终答案为 7", "7"),
        ("分析略。故选B。", "B。"),
        ("所以选 C", "C"),
        ("正确答案是 A，因为……", "A，因为……"),
        ("先算 3+4=7，因此，结果是 7。", "结果是 7。"),
        ("**最终答案**：北京", "北京"),
        ("答案：北京\n\n以上。", "北京"),
        # the answer on the paragraph after the marker
        ("Final answer:\n\n  B", "B"),
        # over-capture: a multi-line answer is kept to the end of its paragraph
        ("Answer: line one\nline two\n\nnotes", "line one\nline two"),
    ],
)
def test_extract_answer_marker(raw: str, expected: str) -> None:
    assert marker(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "All the answers are in the appendix.",
        "reanswer: no",
        "éanswer: accented letters count as word characters",
        "I will answers: maybe",
        "The answer isn't obvious.",
        "Thusly spoke nobody.",
        "A plain reply with no marker",
        "",
        "   ",
    ],
)
def test_extract_answer_marker_without_a_marker_leaves_text(raw: str) -> None:
    assert marker(raw) == raw


def test_a_marker_with_nothing_after_it_falls_back_to_an_earlier_one() -> None:
    assert marker("The answer is B.\nThe answer is") == "B.\nThe answer is"
    assert marker("Answer:") == "Answer:"


def test_extract_answer_marker_with_explicit_tiers() -> None:
    params = AnswerMarkerParams(tiers=(("final answer:",), ("答案是", "the answer is")))
    assert extract_answer_marker("the answer is 3. final answer: 4", params) == "4"
    assert extract_answer_marker("答案是 5，the answer is 6", params) == "6"
    # a marker not in any tier does nothing
    assert extract_answer_marker("Therefore 7", params) == "Therefore 7"


def test_extract_answer_marker_conflict_keep_shows_every_statement() -> None:
    keep = AnswerMarkerParams(tiers=MARKERS.tiers, conflict="keep")
    raw = "First I thought the answer is A. But reconsidering, the answer is C.\n\nBye."
    assert marker(raw) == "C."
    assert extract_answer_marker(raw, keep) == "answer is A. But reconsidering, the answer is C."
    assert extract_answer_marker("Reasoning. 答案是 B", keep) == "B"  # one statement: as "last"
    assert extract_answer_marker("no marker", keep) == "no marker"
    resolved = resolve_answer_markers(AnswerMarkerParams(conflict="keep"), {"languages": LANGUAGES})
    assert resolved.conflict == "keep"
    assert resolved.tiers == MARKERS.tiers


def test_extract_answer_marker_needs_tiers() -> None:
    with pytest.raises(ValueError, match="no marker tiers"):
        extract_answer_marker("The answer is 5", AnswerMarkerParams())


def test_bad_marker_patterns_are_rejected() -> None:
    with pytest.raises(ValidationError, match="invalid regular expression"):
        AnswerMarkerParams(tiers=(("answer(",),))
    with pytest.raises(ValidationError, match="empty"):
        AnswerMarkerParams(tiers=(("",),))


def test_marker_params_accept_yaml_lists() -> None:
    params = AnswerMarkerParams.model_validate({"languages": ["zh"], "tiers": [["答案是"], ["因此"]]})
    assert params.languages == ("zh",)
    assert params.tiers == (("答案是",), ("因此",))
    with pytest.raises(ValidationError):
        AnswerMarkerParams.model_validate({"languages": "en"})


# --------------------------------------------------------------------------- resolve hook


def test_resolve_merges_overlay_tiers_by_index() -> None:
    en = LANGUAGES["en"]["answer_markers"]
    zh = LANGUAGES["zh"]["answer_markers"]
    assert len(MARKERS.tiers) == max(len(en), len(zh))
    for index, tier in enumerate(MARKERS.tiers):
        assert tier == tuple(en[index] if index < len(en) else []) + tuple(zh[index] if index < len(zh) else [])
    only_zh = resolve_answer_markers(AnswerMarkerParams(languages=("zh",)), {"languages": LANGUAGES})
    assert only_zh.tiers == tuple(tuple(t) for t in zh)
    assert extract_answer_marker("The answer is 5", only_zh) == "The answer is 5"
    assert extract_answer_marker("答案是 5", only_zh) == "5"


def test_resolve_keeps_explicit_tiers() -> None:
    params = AnswerMarkerParams(tiers=(("x:",),))
    assert resolve_answer_markers(params, {"languages": LANGUAGES}) is params


def test_resolve_names_an_unknown_language() -> None:
    with pytest.raises(ValueError, match="'fr'"):
        resolve_answer_markers(AnswerMarkerParams(languages=("en", "fr")), {"languages": LANGUAGES})
    with pytest.raises(ValueError, match="'en'"):
        resolve_answer_markers(AnswerMarkerParams(), {})


def test_resolve_rejects_malformed_overlays() -> None:
    with pytest.raises(ValueError, match="answer_markers"):
        resolve_answer_markers(AnswerMarkerParams(languages=("en",)), {"languages": {"en": {}}})
    with pytest.raises(ValueError, match="answer_markers"):
        resolve_answer_markers(
            AnswerMarkerParams(languages=("en",)), {"languages": {"en": {"answer_markers": ["flat"]}}}
        )
    with pytest.raises(ValueError, match="invalid regular expression"):
        resolve_answer_markers(
            AnswerMarkerParams(languages=("en",)), {"languages": {"en": {"answer_markers": [["(("]]}}}
        )
    with pytest.raises(ValueError, match="no answer markers"):
        resolve_answer_markers(
            AnswerMarkerParams(languages=("en",)), {"languages": {"en": {"answer_markers": [[]]}}}
        )


def test_overlays_load_in_a_pack(tmp_path: Path) -> None:
    pack_file = tmp_path / "pack.yaml"
    pack_file.write_text(
        "name: extract-test\n"
        "include:\n"
        f"  - '{LANGUAGES_DIR / 'en.yaml'}'\n"
        f"  - '{LANGUAGES_DIR / 'zh.yaml'}'\n"
        "task_types:\n"
        "  math:\n"
        "    chain:\n"
        "      - remove_think_blocks\n"
        "      - split_on_separator\n"
        "      - extract_boxed\n"
        "      - rule: extract_answer_marker\n"
        "        params: {languages: [en, zh]}\n"
        "    parser: text\n"
        "  multiple_choice:\n"
        "    chain:\n"
        "      - rule: extract_answer_marker\n"
        "        params: {languages: [zh]}\n"
        "    parser: text\n",
        encoding="utf-8",
    )
    pack = load_pack(pack_file)
    resolved = pack.task_types["math"].chain.specs[3].params
    assert isinstance(resolved, AnswerMarkerParams)
    assert resolved.tiers == MARKERS.tiers
    assert pack.run("<think>hmm</think>\nSo 6*7.\n#### 42", task="math").answer == "42"
    assert pack.run("**Final Answer:** \\boxed{\\frac{1}{2}}", task="math").answer == "\\frac{1}{2}"
    assert pack.run("x = 3, so the answer is 3.", task="math").answer == "3."
    assert pack.run("因此答案是 42", task="math").answer == "42"
    assert pack.run("答案是：“B”。", task="multiple_choice").answer == "“B”。"
    # the hash covers the resolved patterns
    assert "答案" in json.dumps(pack.resolved(), ensure_ascii=False)


def test_pack_reports_an_unknown_language(tmp_path: Path) -> None:
    pack_file = tmp_path / "pack.yaml"
    pack_file.write_text(
        f"include: ['{LANGUAGES_DIR / 'en.yaml'}']\n"
        "task_types:\n"
        "  math:\n"
        "    chain:\n"
        "      - rule: extract_answer_marker\n"
        "        params: {languages: [en, de]}\n"
        "    parser: text\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="'de'"):
        load_pack(pack_file)


# --------------------------------------------------------------------------- boxed


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Thus $\\boxed{42}$.", "42"),
        ("**Final Answer:** \\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
        ("最终答案：\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
        ("\\boxed{1} then \\boxed{2}", "2"),
        ("\\boxed{\\{1, 2\\}}", "\\{1, 2\\}"),
        ("\\boxed{a_{n+1} = {b}}", "a_{n+1} = {b}"),
        ("\\fbox{C}", "C"),
        ("\\boxed { 7 }", "7"),
        ("The answer is \\boxed 5$.", "5"),
        ("\\boxed 12 apples", "12"),
        ("\\boxed{\\text{(B)}}", "\\text{(B)}"),
        ("\\boxed{}", ""),
        ("\\boxed{a} and \\boxed{\\fbox{b}}", "b"),
        ("答案为 \\boxed{三}", "三"),
    ],
)
def test_extract_boxed(raw: str, expected: str) -> None:
    assert extract_boxed(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "no box at all",
        "\\boxed{\\frac{1}{2}",  # cut off: the last box is not closed
        "\\boxed{1} and then \\boxed{2",
        "\\boxedx{3}",
        "\\boxed",
        "\\boxed   ",
        "\\boxed{\\}",
    ],
)
def test_extract_boxed_leaves_text_without_a_closed_last_box(raw: str) -> None:
    assert extract_boxed(raw) == raw


def test_extract_boxed_conflict_keep() -> None:
    keep = BoxedParams(conflict="keep")
    two = "Either $\\boxed{4}$ or $\\boxed{5}$ could be correct here."
    assert extract_boxed(two) == "5"
    assert extract_boxed(two, keep) == two
    assert extract_boxed("\\boxed{ 4 } ... so \\boxed{4}", keep) == "4"
    assert extract_boxed("\\boxed{\\frac{1}{2}} and \\boxed{\\frac{1}{2}}", keep) == "\\frac{1}{2}"
    assert extract_boxed("\\boxed{a + \\boxed{b}}", keep) == "b"  # an inner box is not a rival
    assert extract_boxed("\\boxed{4} then \\boxed{5", keep) == "\\boxed{4} then \\boxed{5"
    assert extract_boxed("\\boxed{\\{1\\}} \\boxed 7", keep) == "\\boxed{\\{1\\}} \\boxed 7"
    assert BoxedParams.model_validate({"conflict": "keep"}) == keep
    with pytest.raises(ValidationError):
        BoxedParams.model_validate({"conflict": "first"})


# --------------------------------------------------------------------------- separators


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Natalia sold 48/2 = 24 clips in May.\n48+24 = 72\n#### 72", "72"),
        ("#### 1\nmore work\n#### 2", "2"),
        ("推理过程……\n最终输出:北京", "北京"),
        ("推理过程……\n最终输出： 上海 ", "上海"),
        ("#### 5\n#### ", "5\n####"),
        ("a #### b 最终输出： c", "c"),
    ],
)
def test_split_on_separator(raw: str, expected: str) -> None:
    assert split_on_separator(raw) == expected


@pytest.mark.parametrize("raw", ["no separator", "", "### not quite", "####", "####   \n"])
def test_split_on_separator_leaves_text(raw: str) -> None:
    assert split_on_separator(raw) == raw


def test_split_on_separator_custom_and_validation() -> None:
    params = SeparatorParams.model_validate({"separators": ["ANSWER>"]})
    assert split_on_separator("x ANSWER> 9", params) == "9"
    assert split_on_separator("x #### 9", params) == "x #### 9"
    with pytest.raises(ValidationError):
        SeparatorParams(separators=("",))
    with pytest.raises(ValidationError):
        SeparatorParams(separators=())


# --------------------------------------------------------------------------- JSON


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('Sure! {"a": 1, "b": [1, 2]} Hope that helps.', '{"a": 1, "b": [1, 2]}'),
        ('{"a": "}"}', '{"a": "}"}'),
        ('text {"a": "\\"}{"} tail', '{"a": "\\"}{"}'),
        ('Result: [1, 2, {"c": "]"}]', '[1, 2, {"c": "]"}]'),
        ('```json\n{"name": "张三", "age": 3}\n```', '{"name": "张三", "age": 3}'),
        ('Example: {"x": 0}\n```json\n{"a": 1}\n```', '{"a": 1}'),
        ('```JSON\n  {"a": 1}\n```', '{"a": 1}'),
        ('```\n{"plain": true}\n```\nthat is all', '{"plain": true}'),
        ('```python\nx = 1\n```\n{"after": "code"}', '{"after": "code"}'),
        ("{'a': 'it}s', 'b': True}", "{'a': 'it}s', 'b': True}"),
        ("Here's the data: {'a': [1]}", "{'a': [1]}"),
        ('See [this note] and {"a": 1}', '{"a": 1}'),
        ('[note: {"a": 1}]', '{"a": 1}'),
        ('{"a": 1,}', '{"a": 1,}'),  # not valid, but starts like JSON: a later rule may repair
        ('答案如下：{"城市": "北京"}。', '{"城市": "北京"}'),
        ('{"s": "line\nbreak"}', '{"s": "line\nbreak"}'),
        ('{"a": [1, 2}', '{"a": [1, 2}'),
    ],
)
def test_extract_json_block(raw: str, expected: str) -> None:
    assert extract_json_block(raw) == expected


@pytest.mark.parametrize(
    "raw",
    ["no json here", "", "set {x | x > 0}", "unclosed {\"a\": 1", "[see below]", "{" * 5000, "]]}}"],
)
def test_extract_json_block_leaves_text_without_json(raw: str) -> None:
    assert extract_json_block(raw) == raw


def test_extract_json_block_deep_nesting_does_not_recurse() -> None:
    # deeper than any parse_json max_depth: refused in the scan (issue 24), never decoded
    deep = "[" * 20000 + "]" * 20000
    with pytest.raises(RejectText, match="levels deep"):
        extract_json_block("x " + deep + " y")
    braces = '{"a":' * 3000 + "1" + "}" * 3000
    with pytest.raises(RejectText, match="levels deep"):
        extract_json_block("prose " + braces)
    shallow = '{"a":' * 200 + "1" + "}" * 200
    assert extract_json_block("prose " + shallow) == shallow


# --------------------------------------------------------------------------- code


CODE = 'def greet():\n\tprint("你好，世界")\n    return "“quoted”"  \n'


@pytest.mark.parametrize("which", ["first", "last"])
def test_extract_code_block_keeps_bytes(which: str) -> None:
    raw = f"Here is the code:\n```python\n{CODE}```\nIt prints a greeting."
    out = extract_code_block(raw, CodeBlockParams.model_validate({"which": which}))
    assert out == CODE.rstrip("\n")
    assert out.encode("utf-8") == CODE.rstrip("\n").encode("utf-8")


def test_extract_code_block_choice() -> None:
    raw = "```bash\npip install x\n```\ntext\n```python\nx = 1\n```\n```py\ny = 2\n```"
    assert extract_code_block(raw) == "y = 2"
    assert extract_code_block(raw, CodeBlockParams(which="first")) == "pip install x"
    prefer = CodeBlockParams.model_validate({"which": "first", "languages": ["python", "py"]})
    assert extract_code_block(raw, prefer) == "x = 1"
    only_rust = CodeBlockParams(languages=("rust",))
    assert extract_code_block(raw, only_rust) == "y = 2"  # no preferred fence: among all
    assert extract_code_block("~~~\nz = 3\n~~~") == "z = 3"
    assert extract_code_block("```python\nunclosed = True\n") == "unclosed = True\n"
    nested = "````markdown\n```py\nx = 1\n```\n````"
    assert extract_code_block(nested) == "```py\nx = 1\n```"
    assert not REGISTRY.rule("extract_code_block").idempotent  # the result may hold a fence


@pytest.mark.parametrize("raw", ["def f():\n\treturn 1\n", "", "inline `code` only"])
def test_extract_code_block_without_fence_leaves_text(raw: str) -> None:
    assert extract_code_block(raw) == raw


def test_code_params_validation() -> None:
    with pytest.raises(ValidationError):
        CodeBlockParams.model_validate({"which": "middle"})
    with pytest.raises(ValidationError):
        CodeBlockParams(languages=("Python",))


# --------------------------------------------------------------------------- through the engine


def test_extract_chain_through_the_engine() -> None:
    chain = Chain(
        (
            make_spec("remove_think_blocks"),
            make_spec("split_on_separator"),
            make_spec("extract_boxed"),
            make_spec("extract_answer_marker", tiers=MARKERS.tiers),
        )
    )
    outcome = run_chain(chain, "<think>2*21</think>\nThe answer is \\boxed{42}.", timeout=0.5)
    assert outcome.status == status.OK
    assert outcome.text == "42"
    assert [step.rule for step in outcome.trace] == ["remove_think_blocks", "extract_boxed"]


# --------------------------------------------------------------------------- properties


def _marker_rule(text: str) -> str:
    return extract_answer_marker(text, MARKERS)



def _refusal_as_empty(fn: Callable[[str], str], text: str) -> str:
    """``fn(text)``, or "" where it refuses all-reasoning output (the one refusal a rule here
    may give: a recorded status, never a crash)."""
    from normalize.errors import RejectText

    try:
        return fn(text)
    except RejectText as refused:
        assert refused.status == "no_answer" and refused.reason.startswith("truncated_reasoning"), refused
        return ""

RULES: dict[str, Callable[[str], str]] = {
    "remove_think_blocks": lambda t: _refusal_as_empty(remove_think_blocks, t),
    "extract_answer_marker": _marker_rule,
    "extract_boxed": extract_boxed,
    "extract_boxed_keep": lambda t: extract_boxed(t, BoxedParams(conflict="keep")),
    "extract_answer_marker_keep": lambda t: extract_answer_marker(
        t, AnswerMarkerParams(tiers=MARKERS.tiers, conflict="keep")
    ),
    "split_on_separator": split_on_separator,
    "extract_json_block": extract_json_block,
    "extract_code_block": extract_code_block,
    "extract_code_block_first_py": lambda t: extract_code_block(t, CodeBlockParams(which="first", languages=("py",))),
}

TOKENS = st.sampled_from(
    [
        "<think>", "</think>", "<thinking>", "</THINK>", "\\boxed{", "\\boxed ", "\\fbox{", "{", "}",
        "[", "]", '"', "'", "\\", ":", ",", "####", "最终输出：", "The answer is", "Answer:",
        "**", "答案是", "因此", "```", "```json", "```py", "\n", "\n\n", " ", "\t", "1", "B", "你好",
        "true", "reanswer:", "therefore",
    ]
)
STRUCTURED = st.lists(TOKENS, max_size=40).map("".join)


@pytest.mark.parametrize("name", sorted(RULES))
@settings(max_examples=150, deadline=None)
@given(text=st.one_of(st.text(max_size=300), STRUCTURED))
def test_rules_never_raise_and_are_deterministic(name: str, text: str) -> None:
    fn = RULES[name]
    first = fn(text)
    assert isinstance(first, str)
    assert fn(text) == first


@pytest.mark.parametrize("name", sorted(RULES))
@settings(max_examples=30, deadline=None)
@given(
    depth=st.integers(min_value=1000, max_value=6000),
    opener=st.sampled_from(["{", "[", '{"a":', "\\boxed{", "<think>"]),
    closed=st.booleans(),
)
def test_rules_survive_deep_nesting(name: str, depth: int, opener: str, closed: bool) -> None:
    closer = {"{": "}", "[": "]", '{"a":': "}", "\\boxed{": "}", "<think>": "</think>"}[opener]
    text = opener * depth + ("1" + closer * depth if closed else "")
    try:
        out = RULES[name](text)
    except RejectText as exc:  # a recorded refusal, never a crash: closed JSON deeper than any parse_json reads
        assert name == "extract_json_block" and closed and exc.status == status.INVALID, exc
    else:
        assert isinstance(out, str)


#: The extract rules registered as idempotent (a new one is picked up here; RULES names the params
#: a rule is tried with, its defaults otherwise).
IDEMPOTENT = [d.name for d in REGISTRY.iter_rules() if d.stage == "extract" and d.idempotent]


@pytest.mark.parametrize("name", IDEMPOTENT)
@settings(max_examples=150, deadline=None)
@given(text=STRUCTURED)
def test_idempotent_rules_are_idempotent(name: str, text: str) -> None:
    rule = RULES.get(name, REGISTRY.rule(name))
    once = rule(text)
    assert rule(once) == once


CATASTROPHIC = [
    "the answer is " * 15000,  # about 200 KB
    "answer: **" * 20000,
    "Final Answer" * 17000,
    "答案是" * 25000,
    "{" * 200000,
    '["' * 100000,
    "[x]" * 70000,
    "\\boxed{" * 30000,
    "<think>" * 30000,
    "</think>" * 25000,
    "####" * 50000,
    "```\n" * 20000,
]


@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("index", range(len(CATASTROPHIC)))
def test_catastrophic_input_finishes_or_times_out_promptly(name: str, index: int) -> None:
    text = CATASTROPHIC[index]
    started = time.monotonic()
    try:
        RULES[name](text)
    except TimeoutError:
        pass
    assert time.monotonic() - started < 5.0
