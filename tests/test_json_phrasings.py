"""Structured JSON as models really give it (issue 10): no JSON, malformed JSON, alternatives,
and a row's own JSON Schema applied like a pack schema, through Pack.run and `normalize run`."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from normalize import Pack, load_pack
from normalize import status as st
from normalize.io._io import InputRow
from normalize.io.rows import normalize_row


@cache
def pack() -> Pack:
    return load_pack()


def run(text: str, **kw: Any) -> tuple[Any, str]:
    result = pack().run(text, "structured_json", **kw)
    return result.answer, result.status


@pytest.mark.parametrize(
    "text",
    [
        "I cannot extract that from the document.",
        "Sorry, there is no price in the text.",
        "The person is 87 years old.",
        "抱歉，无法提取所需信息。",
        "文中没有提到价格。",
        "I cannot do that [policy reasons].",  # brackets in prose are not JSON
        "",
    ],
)
def test_no_json_at_all_is_no_answer(text: str) -> None:
    assert run(text) == (None, st.NO_ANSWER)


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "Ann", "age": 3',
        'Here it is: {"name": "Ann", "age": }',
        "{name: 'Ann'",
        '结果：{"城市": "北京", }',
        '```json\n{"a": [1, 2}\n```',
        '"unterminated',
        "{name: 'Ann'",  # unquoted key: broken JSON, not prose
        "[NaN]",
    ],
)
def test_malformed_json_is_invalid(text: str) -> None:
    assert run(text) == (None, st.INVALID)


@pytest.mark.parametrize(
    "text",
    [
        'Option 1: {"city": "Paris"}\nAlternatively: {"city": "Lyon"}',
        '{"answer": 1} or {"answer": 2}',
        '```json\n{"a": 1}\n```\nAnother option:\n```json\n{"a": 2}\n```',
        '可以是 {"城市": "北京"}，或者 {"城市": "上海"}',
        '方案一：{"x": 1}\n另一种写法：{"x": 2}',
        '[1, 2] or [2, 1]',
        'Answer: {"a": 1} or {"a": 2}',
        'Version 1: {"a": 1}\nVersion 2: {"a": 2}',
    ],
)
def test_two_different_objects_offered_as_alternatives_are_contradictory(text: str) -> None:
    result = pack().run(text, "structured_json")
    assert (result.answer, result.status) == (None, st.CONTRADICTORY)
    assert result.reason is not None and "alternatives" in result.reason


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ('{"a": 1} or, written differently, {"a":1}', {"a": 1}),  # the same value twice
        ('Input: {"q": "x"}\nOutput: {"a": 1}', {"a": 1}),  # the value labelled as the output
        ('Here: {"q": "x"} and {"a": 1}', {"q": "x"}),  # no alternative word, no label: first kept
        ('Draft: {"a": 1}\nFinal answer: {"a": 2}', {"a": 2}),
        ('```json\n{"a": 1}\n```\nWait, that is wrong.\n```json\n{"a": 2}\n```', {"a": 2}),
        ('{"城市": "北京"}\n等等，不对。\n{"城市": "上海"}', {"城市": "上海"}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('答案：{"城市": "北京"}', {"城市": "北京"}),
    ],
)
def test_one_value_or_no_alternative(text: str, answer: Any) -> None:
    assert run(text) == (answer, st.OK)


PERSON = {
    "type": "object",
    "required": ["name", "age"],
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "member": {"type": "boolean"},
        "country": {"type": "string", "default": "FR"},
    },
}


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ('{"name": "Ann", "age": "87"}', {"name": "Ann", "age": 87, "country": "FR"}),
        ('{"name": "Ann", "age": 87, "member": "True"}', {"name": "Ann", "age": 87, "member": True, "country": "FR"}),
        ('{"name": "Ann", "age": " 87 ", "member": "false"}', {"name": "Ann", "age": 87, "member": False, "country": "FR"}),
        ('Sure: ```json\n{"name": "李雷", "age": "30", "country": "CN"}\n```', {"name": "李雷", "age": 30, "country": "CN"}),
        ('{"name": "Ann", "age": 87}', {"name": "Ann", "age": 87, "country": "FR"}),
    ],
)
def test_a_row_schema_fills_defaults_and_coerces(text: str, answer: Any) -> None:
    result = pack().run(text, "structured_json", schema=PERSON)
    assert (result.answer, result.status) == (answer, st.OK)
    assert "align_json_schema" in [step.rule for step in result.trace]  # recorded in the trace
    assert result.extra["schema"] == PERSON
    assert pack().replay(result) == result.text  # replayable with the row's schema


def test_a_row_schema_violation_is_invalid_with_its_pointer() -> None:
    result = pack().run('{"name": "Ann", "age": "old"}', "structured_json", schema=PERSON)
    assert result.status == st.INVALID and result.reason is not None and "/age" in result.reason
    missing = pack().run('{"name": "Ann"}', "structured_json", schema=PERSON)
    assert missing.status == st.INVALID and "/age" in (missing.reason or "")


def test_without_a_row_schema_nothing_is_coerced() -> None:
    assert run('{"age": "87"}') == ({"age": "87"}, st.OK)


def test_a_bad_row_schema_is_invalid_never_a_crash() -> None:
    bad = pack().run('{"a": 1}', "structured_json", schema={"type": "objekt"})
    assert bad.status == st.INVALID and "not a valid JSON Schema" in (bad.reason or "")
    unknown = pack().run('{"a": 1}', "structured_json", schema="no_such_schema")
    assert unknown.status == st.INVALID and "no_such_schema" in (unknown.reason or "")
    wrong_type = pack().run("The answer is B", "multiple_choice", options=4, schema={"type": "object"})
    assert wrong_type.status == st.INVALID and "parses JSON" in (wrong_type.reason or "")


def test_a_row_schema_replaces_a_pack_schema_keeping_its_params(tmp_path: Path) -> None:
    pack_file = tmp_path / "pack.yaml"
    pack_file.write_text(
        "name: t\nschemas:\n  s: {type: object, properties: {a: {type: string}}}\n"
        "task_types:\n  structured_json:\n    chain:\n      - parse_json\n"
        "      - rule: align_json_schema\n        params: {schema: s, drop_unknown: true}\n"
        "    parser: json\n",
        encoding="utf-8",
    )
    custom = load_pack(pack_file)
    assert custom.run('{"a": "1", "b": 2}', "structured_json").answer == {"a": "1"}
    row = {"type": "object", "properties": {"a": {"type": "integer"}}}
    result = custom.run('{"a": "1", "b": 2}', "structured_json", schema=row)
    assert result.answer == {"a": 1}  # the row's types, the pack step's drop_unknown
    assert custom.replay(result) == result.text
    named = custom.run('{"a": 1}', "structured_json", schema="s")
    assert named.status == st.INVALID  # the pack's schema by name: a must be a string


def _row(data: dict[str, Any]) -> dict[str, Any]:
    return normalize_row(pack(), InputRow(line=1, data=data, error=None))


def test_a_jsonl_row_carries_its_schema_through_normalize_run() -> None:
    out = _row({"task": "function_calling", "output": '{"name": "f", "age": "5"}', "schema": PERSON})
    assert (out["status"], out["answer"]) == (st.OK, {"name": "f", "age": 5, "country": "FR"})
    assert "align_json_schema" in [step["rule"] for step in out["trace"]]
    # another task type keeps its own meaning of a `schema` column (a database schema)
    sql = _row({"task": "mmlu", "output": "The answer is B", "options": 4, "schema": "CREATE TABLE t (a int)"})
    assert (sql["status"], sql["answer"]) == (st.OK, "B")
    bad = _row({"task": "json_extraction", "output": "{}", "schema": 5})
    assert bad["status"] == st.INVALID and "got 5" in bad["reason"]


def test_cli_run_applies_row_schemas(tmp_path: Path) -> None:
    from scoring.cli import main

    source = tmp_path / "in.jsonl"
    source.write_text(
        json.dumps({"task": "json_extraction", "output": '{"name": "A", "age": "9"}', "schema": PERSON}) + "\n",
        encoding="utf-8",
    )
    target = tmp_path / "out.jsonl"
    assert main(["run", str(source), "-o", str(target), "--no-progress"]) == 0
    (row,) = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert row["answer"] == {"name": "A", "age": 9, "country": "FR"}


def test_golden_samples_carry_their_row_schema(tmp_path: Path) -> None:
    from normalize.check import run_check
    from normalize.check.samples import load_samples

    row = {"id": "s1", "task": "json_extraction", "output": '{"name": "A", "age": "9"}', "schema": PERSON,
           "expected": {"normalized": '{"age":9,"country":"FR","name":"A"}', "answer": {"age": 9, "country": "FR", "name": "A"}, "status": "ok"}}
    (tmp_path / "structured_json.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    samples = load_samples(tmp_path, pack())
    assert samples.by_type["structured_json"][0].schema == PERSON
    assert not run_check(pack(), samples, checks=["forward"]).findings
    row["schema"] = None  # without the schema the recorded result no longer holds
    (tmp_path / "structured_json.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert run_check(pack(), load_samples(tmp_path, pack()), checks=["forward"]).findings
