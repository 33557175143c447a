"""Structure stage: strict JSON, repair, Python literals, canonical form, schemas; the json parser."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from normalize import status
from normalize.core.engine import Chain, make_spec, run_chain
from normalize.core.pack import load_pack
from normalize.core.registry import REGISTRY, ParseContext
from normalize.errors import PackError, RejectText
from normalize.parsers._json import parse_json_value
from normalize.rules.structure import (
    AlignSchemaParams,
    CoerceLiteralsParams,
    JsonLimits,
    RepairParams,
    align_json_schema,
    canonicalize_json,
    coerce_python_literals,
    dump_json,
    load_json,
    parse_json,
    repair_json,
    resolve_schema,
)

ORDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id", "items"],
    "properties": {
        "id": {"type": "integer"},
        "note": {"type": "string"},
        "paid": {"type": "boolean", "default": False},
        "customer": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "tier": {"type": "string", "default": "basic"},
                "address": {
                    "type": "object",
                    "properties": {"country": {"type": "string", "default": "FR"}},
                },
            },
        },
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["price"],
                "properties": {
                    "price": {"type": "number"},
                    "qty": {"type": "integer", "default": 1},
                },
            },
        },
    },
}


def align(text: str, schema: dict[str, Any] = ORDER_SCHEMA, **params: Any) -> Any:
    return json.loads(align_json_schema(text, AlignSchemaParams(schema_body=schema, **params)))


def rejection(fn: Any, *args: Any) -> RejectText:
    with pytest.raises(RejectText) as caught:
        fn(*args)
    return caught.value


# --------------------------------------------------------------------------- parse_json


def test_parse_json_writes_the_canonical_form() -> None:
    assert parse_json('{ "b": [1, 2.50, "é"],\n "a": null }') == '{"a":null,"b":[1,2.5,"é"]}'


def test_parse_json_reports_the_error_position() -> None:
    rejected = rejection(parse_json, '{"a": 1,\n "b": }')
    assert rejected.status == status.INVALID
    assert "line 2 column 7" in rejected.reason


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_rejected(literal: str) -> None:
    rejected = rejection(parse_json, f'{{"x": {literal}}}')
    assert rejected.status == status.INVALID
    assert literal in rejected.reason


def test_a_float_that_overflows_is_rejected() -> None:
    assert "out of range" in rejection(parse_json, "[1e400]").reason


def test_duplicate_keys_are_rejected_not_silently_resolved() -> None:
    assert "duplicate key 'answer'" in rejection(parse_json, '{"answer": "A", "answer": "B"}').reason


def test_a_5000_digit_integer_is_invalid_not_a_crash() -> None:
    rejected = rejection(parse_json, '{"n": ' + "7" * 5000 + "}")
    assert rejected.status == status.INVALID
    assert "max_number_digits" in rejected.reason


def test_pythons_own_integer_limit_is_caught_as_invalid() -> None:
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        rejected = rejection(parse_json, "[" + "7" * 700 + "]")
    finally:
        sys.set_int_max_str_digits(previous)
    assert rejected.status == status.INVALID
    assert "too long to convert" in rejected.reason


def test_digits_inside_strings_do_not_count() -> None:
    text = json.dumps({"n": "7" * 5000})
    assert json.loads(parse_json(text)) == {"n": "7" * 5000}


def test_depth_10000_is_invalid_not_recursion_error() -> None:
    deep = "[" * 10_000 + "]" * 10_000
    rejected = rejection(parse_json, deep)
    assert rejected.status == status.INVALID
    assert "10000 levels" in rejected.reason
    for fn in (canonicalize_json, repair_json):
        rejected = rejection(lambda t, fn=fn: parse_json(fn(t)), deep)
        assert "max_depth" in rejected.reason
    assert "max_depth" in rejection(align_json_schema, deep, AlignSchemaParams(schema_body={})).reason
    assert coerce_python_literals("[" * 10_000) == "[" * 10_000
    assert parse_json_value(deep, JsonLimits(), ParseContext()).status == status.INVALID


def test_brackets_inside_strings_do_not_count_towards_depth() -> None:
    text = json.dumps({"a": "[" * 500})
    assert json.loads(parse_json(text)) == {"a": "[" * 500}


def test_depth_limit_is_a_param() -> None:
    text = "[" * 10 + "]" * 10
    assert parse_json(text) == text
    assert "over the limit of 5" in rejection(parse_json, text, JsonLimits(max_depth=5)).reason


def test_two_mebibytes_is_invalid() -> None:
    text = json.dumps(["x" * 1000] * 2100)
    assert len(text) > 2 << 20
    rejected = rejection(parse_json, text)
    assert rejected.status == status.INVALID
    assert "max_bytes" in rejected.reason
    assert parse_json(text, JsonLimits(max_bytes=4 << 20)) == text.replace(", ", ",")


# --------------------------------------------------------------------------- canonicalize_json


def test_canonicalize_sorts_keys_but_never_string_contents() -> None:
    assert canonicalize_json('{"z": "cba", "a": {"y": 1, "b": 2}}') == '{"a":{"b":2,"y":1},"z":"cba"}'


def test_canonicalize_keeps_non_ascii_and_escapes_controls() -> None:
    assert canonicalize_json('["\\u00e9t\\u00e9", "a\\nb"]') == '["été","a\\nb"]'


# --------------------------------------------------------------------------- repair_json


def test_repair_fixes_python_dict_syntax_and_trailing_commas() -> None:
    assert json.loads(repair_json("{'a': True, 'b': None, c: [1, 2,],}")) == {"a": True, "b": None, "c": [1, 2]}


def test_repair_leaves_strict_json_unchanged() -> None:
    text = '{ "b": 1, "a": 2 }'
    assert repair_json(text) == text


def test_repair_leaves_text_past_a_limit_for_parse_json() -> None:
    text = '{"n": ' + "7" * 5000
    assert repair_json(text) == text


def test_unrepairable_text_is_invalid() -> None:
    rejected = rejection(repair_json, "I am not sure what the answer is.")
    assert rejected.status == status.INVALID


def test_repair_size_cap() -> None:
    text = "{'a': '" + "x" * 2000 + "'"
    rejected = rejection(repair_json, text, RepairParams(max_bytes=1000))
    assert rejected.status == status.INVALID
    assert "2008 bytes, too large to repair (max_bytes 1000)" in rejected.reason
    assert json.loads(repair_json(text)) == {"a": "x" * 2000}
    assert "max_bytes" in rejection(repair_json, "{'a': '" + "x" * 70_000).reason


def test_text_too_deep_is_never_handed_to_json_repair() -> None:
    text = "{'a': " * 100
    assert repair_json(text) == text
    assert "100 levels" in rejection(parse_json, text).reason


# json-repair takes seconds on this (16 KiB, depth 60): super-linear in the unclosed braces.
SLOW_TO_REPAIR = "{" * 60 + "x" * 16_000


def test_repair_time_cap_stops_json_repair_and_leaves_tracing_alone() -> None:
    before = sys.gettrace()
    rejected = rejection(repair_json, SLOW_TO_REPAIR, RepairParams(max_seconds=0.05))
    assert rejected.status == status.ERROR
    assert "max_seconds" in rejected.reason
    assert sys.gettrace() is before


def test_repair_time_cap_works_in_a_worker_thread() -> None:
    found: list[str] = []

    def work() -> None:
        chain = Chain((make_spec("repair_json", max_seconds=0.05),))
        found.append(run_chain(chain, SLOW_TO_REPAIR).status)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(timeout=30)
    assert found == [status.ERROR]


def test_repaired_json_shows_repair_json_in_the_trace() -> None:
    chain = Chain((make_spec("repair_json"), make_spec("parse_json")))
    outcome = run_chain(chain, "{'answer': 'B', 'confidence': 0.9,}")
    assert outcome.status == status.OK
    assert outcome.text == '{"answer":"B","confidence":0.9}'
    assert [step.rule for step in outcome.trace] == ["repair_json"]


def test_strict_json_does_not_show_repair_json_in_the_trace() -> None:
    chain = Chain((make_spec("repair_json"), make_spec("parse_json")))
    outcome = run_chain(chain, '{"confidence": 0.9, "answer": "B"}')
    assert outcome.status == status.OK
    assert [step.rule for step in outcome.trace] == ["parse_json"]
    canonical = '{"answer":"B","confidence":0.9}'
    assert run_chain(chain, canonical).trace == ()


# --------------------------------------------------------------------------- coerce_python_literals


def test_python_true_false_none_become_json_literals() -> None:
    text = '{"ok": True, "bad": False, "why": None, "list": [None, True]}'
    assert json.loads(parse_json(coerce_python_literals(text))) == {
        "ok": True, "bad": False, "why": None, "list": [None, True]
    }


def test_strings_are_untouched_by_the_literal_scan() -> None:
    text = '{"note": "True, None \\" False", "k": None}'
    assert coerce_python_literals(text) == '{"note": "True, None \\" False", "k": null}'
    assert coerce_python_literals("{'s': 'None of them', 't': True}") == "{'s': 'None of them', 't': true}"


def test_identifiers_containing_literals_are_untouched() -> None:
    assert coerce_python_literals("[Trueish, NoneType]") == "[Trueish, NoneType]"


def test_quoted_literal_values_become_literals_but_keys_do_not() -> None:
    text = '{"True": "True", "a": ["null", "false", "None "]}'
    assert json.loads(coerce_python_literals(text)) == {"True": True, "a": [None, False, "None "]}
    assert coerce_python_literals(text, CoerceLiteralsParams(quoted=False)) == text


def test_nothing_to_coerce_leaves_the_text_unchanged() -> None:
    text = '{ "a": "yes" }'
    assert coerce_python_literals(text) == text


# --------------------------------------------------------------------------- align_json_schema


def test_nested_defaults_are_filled_from_the_schema() -> None:
    aligned = align('{"id": 1, "customer": {"name": "Li", "address": {}}, "items": [{"price": 2}]}')
    assert aligned == {
        "id": 1,
        "paid": False,
        "customer": {"name": "Li", "tier": "basic", "address": {"country": "FR"}},
        "items": [{"price": 2, "qty": 1}],
    }


def test_a_default_is_not_shared_between_outputs() -> None:
    tags: dict[str, Any] = {"type": "array", "default": []}
    schema = {"type": "object", "properties": {"tags": tags}}
    assert align("{}", schema) == {"tags": []}
    assert tags["default"] == []


def test_missing_required_field_is_invalid_with_its_pointer() -> None:
    rejected = rejection(
        align_json_schema,
        '{"id": 1, "customer": {}, "items": [{"qty": 2}]}',
        AlignSchemaParams(schema_body=ORDER_SCHEMA),
    )
    assert rejected.status == status.INVALID
    assert "/customer/name: required property is missing" in rejected.reason
    assert "/items/0/price: required property is missing" in rejected.reason


def test_type_error_is_invalid_with_its_pointer() -> None:
    rejected = rejection(
        align_json_schema, '{"id": 1, "items": [{"price": "abc"}]}', AlignSchemaParams(schema_body=ORDER_SCHEMA)
    )
    assert rejected.reason == "/items/0/price: 'abc' is not of type 'number'"


def test_errors_are_listed_in_pointer_order_and_capped() -> None:
    items = ", ".join('{"price": "x"}' for _ in range(5))
    rejected = rejection(
        align_json_schema, f'{{"id": 1, "items": [{items}]}}', AlignSchemaParams(schema_body=ORDER_SCHEMA)
    )
    assert rejected.reason.startswith("/items/0/price: ")
    assert rejected.reason.endswith("; and 2 more")


def test_numeric_strings_are_coerced_under_number_and_integer_only() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "number"},
            "i": {"type": "integer"},
            "s": {"type": "string"},
            "either": {"type": ["string", "number"]},
            "free": {},
            "maybe": {"type": ["number", "null"]},
        },
    }
    text = '{"n": "-12.5e1", "i": "42", "s": "7", "either": "8", "free": "9", "maybe": "0.5"}'
    assert align(text, schema) == {"n": -125.0, "i": 42, "s": "7", "either": "8", "free": "9", "maybe": 0.5}
    assert "/i: '4.5' is not of type 'integer'" in rejection(
        align_json_schema, '{"i": "4.5"}', AlignSchemaParams(schema_body=schema)
    ).reason
    for not_a_number in ("12abc", "0x10", "NaN", "1,000", ""):
        with pytest.raises(RejectText):
            align(json.dumps({"n": not_a_number}), schema)
    with pytest.raises(RejectText, match="'42' is not of type 'integer'"):
        align('{"i": "42"}', schema, coerce_numbers=False)


def test_boolean_strings_are_coerced_under_boolean_only() -> None:
    schema = {"type": "object", "properties": {"b": {"type": "boolean"}, "s": {"type": "string"}}}
    assert align('{"b": "True", "s": "True"}', schema) == {"b": True, "s": "True"}
    assert align('{"b": "false"}', schema) == {"b": False}
    with pytest.raises(RejectText, match="/b: 'yes' is not of type 'boolean'"):
        align('{"b": "yes"}', schema)


def test_drop_unknown_drops_only_undeclared_properties() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "inner": {"type": "object", "properties": {"x": {}}}},
        "patternProperties": {"^x_": {"type": "string"}},
    }
    text = '{"a": 1, "extra": 2, "x_note": "k", "inner": {"x": 1, "y": 2}}'
    assert align(text, schema) == json.loads(text)
    assert align(text, schema, drop_unknown=True) == {"a": 1, "x_note": "k", "inner": {"x": 1}}


def test_drop_unknown_keeps_properties_declared_by_additional_properties() -> None:
    schema = {"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "integer"}}
    assert align('{"a": 1, "b": "2"}', schema, drop_unknown=True) == {"a": 1, "b": 2}


def test_refs_are_followed_for_defaults_and_coercion() -> None:
    schema = {
        "$defs": {"price": {"type": "number", "default": 0}},
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/price"}, "q": {"$ref": "#/$defs/price"}},
    }
    assert align('{"p": "3"}', schema) == {"p": 3, "q": 0}


def test_a_self_referencing_schema_is_an_error_not_a_hang() -> None:
    schema = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}
    outcome = run_chain(Chain((make_spec("align_json_schema", schema_json=schema),)), "{}")
    assert outcome.status == status.ERROR
    assert outcome.reason == "align_json_schema: RecursionError"


def test_resolve_hook_fills_the_schema_and_names_unknown_ones() -> None:
    resolved = resolve_schema(AlignSchemaParams(schema_name="order"), {"schemas": {"order": ORDER_SCHEMA}})
    assert resolved.schema_body == ORDER_SCHEMA
    assert resolved.model_dump(mode="json")["schema_json"] == ORDER_SCHEMA
    with pytest.raises(ValueError, match="unknown schema 'ordr'; the pack's schemas: order"):
        resolve_schema(AlignSchemaParams(schema_name="ordr"), {"schemas": {"order": ORDER_SCHEMA}})
    with pytest.raises(ValueError, match="needs a schema"):
        resolve_schema(AlignSchemaParams(), {"schemas": {}})
    with pytest.raises(ValueError, match="not a valid JSON Schema"):
        resolve_schema(AlignSchemaParams(schema_name="bad"), {"schemas": {"bad": {"type": 12}}})


def test_align_without_a_schema_is_an_error_not_a_silent_pass() -> None:
    outcome = run_chain(Chain((make_spec("align_json_schema"),)), "{}")
    assert outcome.status == status.ERROR
    assert "no schema" in (outcome.reason or "")


def write_pack(tmp_path: Path, schema_name: str) -> Path:
    pack_file = tmp_path / "pack.yaml"
    pack_file.write_text(
        "name: structure-test\n"
        "tasks: {orders: structured_json}\n"
        "schemas:\n"
        "  order:\n"
        "    type: object\n"
        "    required: [id]\n"
        "    properties:\n"
        "      id: {type: integer}\n"
        "      paid: {type: boolean, default: false}\n"
        "task_types:\n"
        "  structured_json:\n"
        "    chain:\n"
        "      - repair_json\n"
        "      - coerce_python_literals\n"
        "      - parse_json\n"
        "      - rule: align_json_schema\n"
        f"        params: {{schema: {schema_name}, drop_unknown: true}}\n"
        "    parser: json\n",
        encoding="utf-8",
    )
    return pack_file


def test_a_pack_resolves_the_schema_into_hashed_params(tmp_path: Path) -> None:
    pack = load_pack(write_pack(tmp_path, "order"))
    spec = pack.task_types["structured_json"].chain.specs[-1]
    assert spec.to_json()["params"]["schema_json"]["required"] == ["id"]
    result = pack.run("{'id': '7', 'extra': True}", task="orders")
    assert result.status == status.OK
    assert result.answer == {"id": 7, "paid": False}
    assert [step.rule for step in result.trace] == ["repair_json", "align_json_schema"]
    missing = pack.run('{"paid": True}', task="orders")
    assert missing.status == status.INVALID
    assert missing.reason == "align_json_schema: schema 'order': /id: required property is missing"


def test_a_pack_naming_an_unknown_schema_fails_to_load(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="unknown schema 'oder'"):
        load_pack(write_pack(tmp_path, "oder"))


# --------------------------------------------------------------------------- the json parser


def test_json_parser_statuses() -> None:
    ctx, limits = ParseContext(), JsonLimits()
    assert parse_json_value('{"a":[1,true]}', limits, ctx).answer == {"a": [1, True]}
    assert parse_json_value("0", limits, ctx).answer == 0
    invalid = parse_json_value('{"a":', limits, ctx)
    assert (invalid.answer, invalid.status) == (None, status.INVALID)
    assert "line 1" in (invalid.reason or "")
    assert parse_json_value("  \n", limits, ctx).status == status.NO_ANSWER
    assert parse_json_value("null", limits, ctx).status == status.NO_ANSWER
    assert parse_json_value("[NaN]", limits, ctx).status == status.INVALID


def test_json_parser_is_registered() -> None:
    assert REGISTRY.parser("json").fn is parse_json_value


# --------------------------------------------------------------------------- properties

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


def reorder(value: Any, rnd: Any) -> Any:
    """The same value with every object's keys in a shuffled insertion order."""
    if isinstance(value, dict):
        keys = list(value)
        rnd.shuffle(keys)
        return {key: reorder(value[key], rnd) for key in keys}
    if isinstance(value, list):
        return [reorder(item, rnd) for item in value]
    return value


@settings(max_examples=150, deadline=None)
@given(
    value=json_values,
    rnd=st.randoms(use_true_random=False),
    indent=st.sampled_from([None, 0, 1, 4, "\t"]),
    ensure_ascii=st.booleans(),
    separators=st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : ")]),
)
def test_canonical_form_ignores_key_order_and_whitespace(
    value: Any, rnd: Any, indent: Any, ensure_ascii: bool, separators: tuple[str, str]
) -> None:
    variant = json.dumps(reorder(value, rnd), indent=indent, ensure_ascii=ensure_ascii, separators=separators)
    canonical = canonicalize_json(variant)
    assert canonical == canonicalize_json(json.dumps(value)) == dump_json(value)
    assert parse_json(variant) == canonical
    assert json.loads(canonical) == value


def _mangled_json() -> st.SearchStrategy[str]:
    """JSON texts cut short, with Python literals, or with single quotes: repair material."""
    return st.builds(
        lambda text, cut, python: (text.replace("true", "True").replace("null", "None") if python else text)[:cut],
        json_values.map(json.dumps),
        st.integers(min_value=0, max_value=200),
        st.booleans(),
    ) | json_values.map(lambda v: json.dumps(v).replace('"', "'"))


RULES: dict[str, Callable[[str], str]] = {
    "parse_json": lambda t: parse_json(t),
    "canonicalize_json": lambda t: canonicalize_json(t),
    "repair_json": lambda t: repair_json(t),
    "coerce_python_literals": lambda t: coerce_python_literals(t),
    "align_json_schema": lambda t: align_json_schema(t, AlignSchemaParams(schema_body=ORDER_SCHEMA, drop_unknown=True)),
}


def outcome_of(fn: Callable[[str], str], text: str) -> tuple[str, str]:
    try:
        return ("ok", fn(text))
    except RejectText as rejected:
        assert rejected.status in (status.INVALID, status.NO_ANSWER)
        return (rejected.status, rejected.reason)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=200) | _mangled_json())
def test_no_rule_nor_the_parser_raises_on_arbitrary_text_and_all_are_deterministic(text: str) -> None:
    for fn in RULES.values():
        first = outcome_of(fn, text)
        assert outcome_of(fn, text) == first
        if first[0] == "ok":
            assert fn(first[1]) == first[1]  # idempotent, as registered
    parsed = parse_json_value(text, JsonLimits(), ParseContext())
    assert parsed == parse_json_value(text, JsonLimits(), ParseContext())
    assert parsed.status in (status.OK, status.INVALID, status.NO_ANSWER)
    if parsed.status != status.OK:
        assert parsed.answer is None and parsed.reason


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=200) | _mangled_json())
def test_the_full_structure_chain_gives_ok_or_invalid(text: str) -> None:
    chain = Chain(
        (
            make_spec("repair_json"),
            make_spec("coerce_python_literals"),
            make_spec("parse_json"),
            make_spec("canonicalize_json"),
        )
    )
    outcome = run_chain(chain, text)
    assert outcome.status in (status.OK, status.INVALID), outcome.reason
    if outcome.status == status.OK:
        assert outcome.text is not None
        assert dump_json(load_json(outcome.text)) == outcome.text
