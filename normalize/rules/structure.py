"""Stage 2, structure: strict JSON, opt-in repair, Python literals, canonical form, schemas.

The text stays a string between rules: each rule here parses the JSON it is given, changes the
value and writes it back in the one canonical form of :func:`dump_json` (sorted keys, compact
separators ``,`` and ``:``, non-ASCII kept as is: the same form the pack hash is taken over).
A rule that cannot give valid JSON raises :class:`~normalize.errors.RejectText` with status
``invalid`` and a reason that says where.

Limits (size, nesting depth, digits in a number) are checked on the text *before*
``json.loads`` runs, without recursion: ``json.loads`` recurses once per nesting level, and
Python refuses to convert integers of more than 4300 digits.  A text past a limit is
``invalid`` with a reason, never a crash.

A typical chain: ``repair_json`` (opt-in) → ``coerce_python_literals`` → ``parse_json`` →
``align_json_schema``.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

import json_repair
import regex
from jsonschema.exceptions import ValidationError
from pydantic import ConfigDict, Field
from referencing.exceptions import Unresolvable

from normalize import status as st
from normalize.core.registry import DEFAULT_TIMEOUT, NoParams, Params, rule
from normalize.errors import RejectText
from normalize.limits._deadline import TimeUp, call_within
from normalize.limits._jsonschema import Resolver as _Resolver
from normalize.limits._jsonschema import check_schema, resolver_for, validator
from normalize.limits._regex import compile_pattern, user_pattern
from normalize.values._json import (
    JsonLimits,
    LimitExceeded,
    canonical_json,
    load_json,
    write_canonical,
)

_SCOPE: Final = ("structured_json",)

#: A complete double-quoted JSON string (possessive: linear time, no backtracking).
_DQ_STRING: Final = r'"(?:[^"\\]++|\\.)*+"'
#: The same for a single-quoted (Python-style) string.
_SQ_STRING: Final = r"'(?:[^'\\]++|\\.)*+'"
#: Python literals outside strings; group 1 is set only for a literal.
_PY_LITERAL: Final = rf"{_DQ_STRING}|{_SQ_STRING}|\b(True|False|None)\b"
_JSON_LITERAL: Final = {"True": "true", "False": "false", "None": "null"}
_QUOTED_LITERAL: Final[Mapping[str, bool | None]] = {
    "True": True, "true": True, "False": False, "false": False, "None": None, "null": None,
}
_BOOLEAN_STRING: Final = {"True": True, "true": True, "False": False, "false": False}
#: A JSON number as a whole string (for coercing ``"12.5"`` where a schema wants a number).
_INTEGER: Final = r"-?(?:0|[1-9][0-9]*)"
_NUMBER: Final = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
#: The longest numeric string coerced to a number: longer ones stay strings (and fail the schema).
_MAX_COERCED_CHARS: Final = 1000
#: How many ``$ref`` hops the alignment follows without descending into the data.
_MAX_REF_HOPS: Final = 32
#: How many schema errors a reason lists before "and N more".
_MAX_LISTED_ERRORS: Final = 3
_MAX_MESSAGE_CHARS: Final = 200

# --------------------------------------------------------------------------- strict JSON


_DEFAULT_LIMITS: Final = JsonLimits()
_NO_PARAMS: Final = NoParams()


def dump_json(value: Any) -> str:
    """The canonical JSON text: sorted keys, compact separators, non-ASCII kept, no NaN.

    This is the one serializer of the structure stage (and the form ``Pack.hash`` uses).
    String contents are never reordered: only object keys are sorted.

    >>> dump_json({"b": [1, "é"], "a": {"d": None, "c": True}})
    '{"a":{"c":true,"d":null},"b":[1,"é"]}'
    """
    return canonical_json(value)


@rule("parse_json", version=2, scope=_SCOPE, params=JsonLimits)
def parse_json(text: str, params: JsonLimits = _DEFAULT_LIMITS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Parse strict JSON within the size, depth and digit limits; write it in canonical form.

    An empty output, or one with no JSON at all (no bracket, and it does not start like a JSON
    value: "I cannot help with that."), is ``no_answer`` (nothing was stated); anything else that does
    not parse is ``invalid`` with the reason: the JSON error position, ``NaN``, a limit.

    >>> parse_json("Sorry, I cannot extract that.")
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: no_answer: no JSON in the output

    Bound: O(n): size, depth and digit limits checked by linear scans before the C parser.

    >>> parse_json('{"b": 1,  "a": [true, null]}')
    '{"a":[true,null],"b":1}'
    >>> parse_json('{"a": NaN}')
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: invalid: NaN is not allowed in strict JSON
    >>> parse_json("  ")
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: no_answer: the output is empty
    """
    return write_canonical(text, params, timeout=timeout)  # (the value is kept for the json parser)


@rule("canonicalize_json", version=1, scope=_SCOPE)
def canonicalize_json(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Rewrite JSON in canonical form: sorted keys, compact separators, non-ASCII kept.

    Parses with the default limits of ``parse_json``; invalid JSON is ``invalid``.

    Bound: O(n) parse plus O(n log n) key sorting.

    >>> canonicalize_json('{ "name": "Zoë",\\n  "age": 7 }')
    '{"age":7,"name":"Zoë"}'
    """
    return dump_json(load_json(text, timeout=timeout))


# --------------------------------------------------------------------------- repair


class RepairParams(Params):
    """Caps on what ``repair_json`` hands to json-repair (all in the pack hash).

    ``max_bytes`` is checked before json-repair runs; ``max_seconds`` stops it while it runs
    (json-repair is super-linear on some inputs: 64 KiB of ``{"`` takes minutes).  Nesting depth
    and digit runs are bounded before that by the default limits of ``parse_json``: a text past
    them is never handed to json-repair, whose parser recurses.
    """

    max_bytes: int = Field(64 * 1024, ge=1, le=1 << 20)
    #: json-repair takes about 0.5 s on 64 KiB of plain text here; the bound is the watchdog of
    #: ``normalize.limits._deadline`` (no signals, no trace hook: it works in any thread).
    max_seconds: float = Field(5.0, gt=0, le=60)


_DEFAULT_REPAIR: Final = RepairParams()


@rule("repair_json", version=1, scope=_SCOPE, params=RepairParams)
def repair_json(text: str, params: RepairParams = _DEFAULT_REPAIR, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Repair broken JSON with json-repair (opt-in); strict JSON is returned unchanged.

    So the trace shows ``repair_json`` only where it actually repaired.  Text past a default
    limit of ``parse_json`` (size, nesting depth, digits) is returned unchanged too: no repair
    can help, and ``parse_json`` reports the limit.  Over ``max_bytes``, or with no JSON object
    or array to recover: ``invalid``; past ``max_seconds``: ``error`` (a resource limit, not a
    verdict on the text).

    Bound: O(n) checks; json-repair itself runs under ``max_bytes`` and ``max_seconds``.

    >>> repair_json("{'answer': 'B', confidence: 0.9,}")
    '{"answer":"B","confidence":0.9}'
    >>> repair_json('{"answer": "B"}')
    '{"answer": "B"}'
    """
    try:
        load_json(text, timeout=timeout)
    except LimitExceeded:
        return text
    except RejectText:
        pass
    else:
        return text
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > params.max_bytes:
        raise RejectText(st.INVALID, f"text is {size} bytes, too large to repair (max_bytes {params.max_bytes})")
    try:
        value = call_within(
            lambda: json_repair.repair_json(text, return_objects=True, skip_json_loads=True),
            params.max_seconds,
        )
    except TimeUp:
        raise RejectText(st.ERROR, f"json-repair ran past its time limit of {params.max_seconds}s (max_seconds)") from None
    except (ValueError, RecursionError) as exc:
        raise RejectText(st.INVALID, f"json-repair could not repair the text: {exc}") from None
    if isinstance(value, str):
        raise RejectText(st.INVALID, "json-repair found no JSON object or array to repair")
    try:
        return dump_json(value)
    except ValueError as exc:  # NaN/Infinity kept by json-repair, or an integer too long to write
        raise RejectText(st.INVALID, f"the repaired JSON is not strict JSON: {exc}") from None


# --------------------------------------------------------------------------- Python literals


class CoerceLiteralsParams(Params):
    """``quoted``: also turn string values that spell a literal (``"True"``, ``"null"``...) into it."""

    quoted: bool = True


_DEFAULT_COERCE: Final = CoerceLiteralsParams()


def _coerce_quoted(value: Any) -> tuple[Any, bool]:
    """Replace string values spelling a literal; return the new value and whether it changed."""
    if isinstance(value, str):
        if value in _QUOTED_LITERAL:
            return _QUOTED_LITERAL[value], True
        return value, False
    if isinstance(value, list):
        items = [_coerce_quoted(item) for item in value]
        return [item for item, _ in items], any(changed for _, changed in items)
    if isinstance(value, dict):
        entries = {key: _coerce_quoted(item) for key, item in value.items()}
        return {key: item for key, (item, _) in entries.items()}, any(c for _, c in entries.values())
    return value, False


#: A string value spelling a literal, as it must appear in the text when no ``\\u`` escape is used
#: (none of its letters has another escape).
_QUOTED_SPELLINGS: Final = tuple(f'"{word}"' for word in _QUOTED_LITERAL)


def _may_quote_literal(text: str) -> bool:
    """Whether a string in ``text`` may decode to one of :data:`_QUOTED_LITERAL`'s words: one of
    them quoted, or any ``\\u`` escape (which can spell a letter).  False is a proof.

    >>> _may_quote_literal('{"ok": "True"}'), _may_quote_literal('{"ok": "Tru\\\\u0065"}'), _may_quote_literal('{"True": 1}')
    (True, True, True)
    >>> _may_quote_literal('{"ok": true, "note": "None of them"}')
    False
    """
    if "\\u" in text:
        return True
    if 'e"' not in text and 'l"' not in text:
        return False  # every spelling ends so: two scans spare six
    for spelled in _QUOTED_SPELLINGS:  # loops, not any(...): this runs for every JSON row
        if spelled in text:
            return True
    return False


#: Each literal alone, with what replaces it (``\b`` as the scan reads it: the ``regex`` module's).
_LITERAL_WORDS: Final = tuple(
    (word, json_word, compile_pattern(rf"\b{word}\b")) for word, json_word in _JSON_LITERAL.items()
)


#: What may not stand next to a literal on the fast path: all but " \t\n\r", JSON's
#: punctuation and ``"`` (no word characters, so ``\\b`` holds beside them).
_NOT_AROUND: Final = r'[^ \t\n\r:,\[\]{}"]'
#: A text (no backslash, no single quote: its strings are quote pairs) in which no string holds
#: ``True``, ``False`` or ``None`` and every one of them outside strings has, on each side, the
#: text's edge or one of :data:`_NOT_AROUND`'s characters.  Outside strings a ``T``/``F``/``N``
#: is passed over only when it starts no literal, so each literal is met by the literal branch;
#: inside, only when it starts none.  Stdlib ``re``, possessive: linear.
_BARE_LITERALS: Final = re.compile(
    r'(?:[^"TFN]++|"(?:[^"TFN]++|T(?!rue)|F(?!alse)|N(?!one))*+"'
    rf"|(?<!{_NOT_AROUND})(?:True|False|None)(?!{_NOT_AROUND})|T(?!rue)|F(?!alse)|N(?!one))*+"
)


def _replace_literals(text: str) -> str:
    """``True``/``False``/``None`` outside strings → ``true``/``false``/``null``: the one-pass
    scan of :data:`_PY_LITERAL` (strings skipped whole, a literal replaced where it stands).

    Most JSON has no backslash and no single quote: then the scan's strings are simply the
    text between the 1st and 2nd double quote, the 3rd and 4th, and so on (an odd last quote
    opens none).  When none of them holds a literal's letters, no match of ``\bTrue\b`` (or
    the others) lies in a string, and none straddles a quote (it is letters only), so
    replacing every match in the whole text, one word at a time (the words never overlap and
    stay letters), is the scan's result without a callback per string.

    >>> _replace_literals('{"a": True, "b": [None, False], "c": "True or None"}')
    '{"a": true, "b": [null, false], "c": "True or None"}'
    """
    if "True" not in text and "False" not in text and "None" not in text:
        return text  # no literal to replace: the scan would give the text back
    if "\\" not in text and "'" not in text:
        if _BARE_LITERALS.fullmatch(text) is not None:
            # no string holds a literal, and every literal stands between characters that are
            # no word characters: each \bword\b sub below would replace every occurrence
            for word, json_word, _ in _LITERAL_WORDS:
                if word in text:
                    text = text.replace(word, json_word)
            return text
        pieces = text.split('"')
        quotes = len(pieces) - 1
        inside = "\n".join(pieces[1 : quotes - quotes % 2 : 2])  # every string's content
        if "True" not in inside and "False" not in inside and "None" not in inside:
            for word, json_word, pattern in _LITERAL_WORDS:
                if word in text:
                    text = pattern.sub(json_word, text)
            return text

    def replace(match: regex.Match[str]) -> str:
        literal = match.group(1)
        return _JSON_LITERAL[literal] if literal is not None else match.group(0)

    return compile_pattern(_PY_LITERAL, regex.DOTALL).sub(replace, text)


@rule("coerce_python_literals", version=1, scope=_SCOPE, params=CoerceLiteralsParams)
def coerce_python_literals(
    text: str, params: CoerceLiteralsParams = _DEFAULT_COERCE, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Turn Python ``True``/``False``/``None`` outside strings into JSON ``true``/``false``/``null``.

    Strings (double- or single-quoted) are skipped by the scan, so their text is untouched.
    With ``quoted`` (the default), string values exactly ``"True"``, ``"False"``, ``"None"``,
    ``"true"``, ``"false"`` or ``"null"`` become the literal too, and the JSON is written in
    canonical form; text that is not valid JSON only gets the scan.  Single-quoted Python dicts
    are ``repair_json``'s job.

    Bound: O(n): one literal scan and one parse.

    >>> coerce_python_literals('{"ok": True, "note": "None of them", "x": None}')
    '{"ok": true, "note": "None of them", "x": null}'
    >>> coerce_python_literals('{"ok": "True", "x": "None"}')
    '{"ok":true,"x":null}'
    >>> coerce_python_literals('{"ok": "True"}', CoerceLiteralsParams(quoted=False))
    '{"ok": "True"}'
    """

    scanned = _replace_literals(text)
    if not params.quoted or not _may_quote_literal(scanned):
        return scanned  # (no string value can spell a literal: _coerce_quoted would change nothing)
    try:
        value = load_json(scanned, timeout=timeout)
    except RejectText:
        return scanned
    coerced, changed = _coerce_quoted(value)
    return dump_json(coerced) if changed else scanned


# --------------------------------------------------------------------------- schemas


class AlignSchemaParams(Params):
    """Which schema to align with, and how.

    ``schema`` names an entry of the pack's ``schemas:`` section; at pack load the resolve hook
    copies it into ``schema_json`` so the schema itself is part of the hashed params.  In a pack
    and in the hash the keys are ``schema`` and ``schema_json``; in Python the fields are
    ``schema_name`` and ``schema_body`` (pydantic's ``BaseModel`` already has attributes named
    ``schema`` and ``schema_json``).
    """

    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True, serialize_by_alias=True)

    schema_name: str = Field("", alias="schema")
    schema_body: dict[str, Any] | None = Field(None, alias="schema_json")
    drop_unknown: bool = False
    coerce_numbers: bool = True
    coerce_booleans: bool = True


_NO_SCHEMA: Final = AlignSchemaParams()


def resolve_schema(params: AlignSchemaParams, resources: Mapping[str, Any]) -> AlignSchemaParams:
    """Fill ``schema_json`` from ``resources["schemas"][params.schema]`` (the pack-load hook).

    An unknown name, no schema at all, a schema that is not valid draft 2020-12, or one with a
    ``$ref`` that does not resolve inside the schema itself (``http://…``, ``file://…``, a
    relative file name: nothing is ever fetched or read) raises ``ValueError`` naming it.

    >>> p = resolve_schema(AlignSchemaParams(schema_name="pt"), {"schemas": {"pt": {"type": "object"}}})
    >>> p.model_dump(mode="json")["schema_json"]
    {'type': 'object'}
    >>> resolve_schema(AlignSchemaParams(schema_name="nope"), {"schemas": {"pt": {}}})
    Traceback (most recent call last):
    ...
    ValueError: unknown schema 'nope'; the pack's schemas: pt
    """
    if params.schema_name:
        schemas: Mapping[str, Any] = resources.get("schemas") or {}
        if params.schema_name not in schemas:
            known = ", ".join(sorted(schemas)) or "(none)"
            raise ValueError(f"unknown schema {params.schema_name!r}; the pack's schemas: {known}")
        body = copy.deepcopy(dict(schemas[params.schema_name]))
        if params.schema_body is not None and params.schema_body != body:
            raise ValueError(
                f"schema {params.schema_name!r} is given both by name and as schema_json, and they differ"
            )
        params = params.model_copy(update={"schema_body": body})
    if params.schema_body is None:
        raise ValueError("align_json_schema needs a schema: set schema to a name in the pack's schemas: section")
    check_schema(params.schema_body, params.schema_name)
    return params


def _types(schema: Mapping[str, Any]) -> frozenset[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return frozenset((declared,))
    if isinstance(declared, list):
        return frozenset(t for t in declared if isinstance(t, str))
    return frozenset()


def _coerce_string(value: str, schema: Mapping[str, Any], params: AlignSchemaParams, timeout: float) -> Any:
    """A numeric or boolean string → the number or boolean, where the schema's type wants one."""
    types = _types(schema)
    if "string" in types:
        return value
    if params.coerce_numbers and types & {"number", "integer"} and len(value) <= _MAX_COERCED_CHARS:
        stripped = value.strip()
        if compile_pattern(_INTEGER).fullmatch(stripped) is not None:
            return int(stripped)
        if "number" in types and compile_pattern(_NUMBER).fullmatch(stripped) is not None:
            number = float(stripped)
            if math.isfinite(number):
                return number
    if params.coerce_booleans and "boolean" in types and value in _BOOLEAN_STRING:
        return _BOOLEAN_STRING[value]
    return value


class _Aligner:
    """Fill defaults, coerce strings, drop unknown keys, following the schema down the data.

    It follows ``properties``, ``patternProperties``, ``additionalProperties``, ``prefixItems``,
    ``items``, ``allOf`` and ``$ref`` (through the ``referencing`` library); ``anyOf``,
    ``oneOf`` and ``if``/``then`` are left to validation, since which branch applies is not
    known before validating.  Recursion follows the data, whose depth load_json has bounded.
    """

    def __init__(self, params: AlignSchemaParams, timeout: float) -> None:
        self.params = params
        self.timeout = timeout

    def align(self, value: Any, schema: Any, resolver: _Resolver, hops: int = 0) -> Any:
        if not isinstance(schema, dict):
            return value
        ref = schema.get("$ref")
        if isinstance(ref, str) and hops < _MAX_REF_HOPS:
            try:
                resolved = resolver.lookup(ref)
            except Unresolvable:
                pass  # validation reports it
            else:
                value = self.align(value, resolved.contents, resolved.resolver, hops + 1)
        for branch in schema.get("allOf") or ():
            value = self.align(value, branch, resolver, hops + 1 if hops < _MAX_REF_HOPS else hops)
        if isinstance(value, str):
            return _coerce_string(value, schema, self.params, self.timeout)
        if isinstance(value, dict):
            return self._align_object(value, schema, resolver)
        if isinstance(value, list):
            return self._align_array(value, schema, resolver)
        return value

    def _default_of(self, schema: Any, resolver: _Resolver) -> tuple[bool, Any]:
        for _ in range(_MAX_REF_HOPS):
            if not isinstance(schema, dict):
                return False, None
            if "default" in schema:
                return True, copy.deepcopy(schema["default"])
            ref = schema.get("$ref")
            if not isinstance(ref, str):
                return False, None
            try:
                resolved = resolver.lookup(ref)
            except Unresolvable:
                return False, None
            schema, resolver = resolved.contents, resolved.resolver
        return False, None

    def _pattern_schemas(self, key: str, schema: Mapping[str, Any]) -> list[Any]:
        patterns = schema.get("patternProperties")
        if not isinstance(patterns, dict):
            return []
        return [
            sub
            for pattern, sub in patterns.items()
            if user_pattern(pattern, timeout=self.timeout).search(key) is not None
        ]

    def _align_object(self, value: dict[str, Any], schema: Mapping[str, Any], resolver: _Resolver) -> dict[str, Any]:
        properties = schema.get("properties")
        declared: Mapping[str, Any] = properties if isinstance(properties, dict) else {}
        for key, sub in declared.items():
            if key not in value:
                has_default, default = self._default_of(sub, resolver)
                if has_default:
                    value[key] = default
        additional = schema.get("additionalProperties")
        keep_additional = additional is True or isinstance(additional, dict)
        aligned: dict[str, Any] = {}
        for key, item in value.items():
            subs = ([declared[key]] if key in declared else []) + self._pattern_schemas(key, schema)
            if not subs and isinstance(additional, dict):
                subs = [additional]
            if not subs and self.params.drop_unknown and isinstance(properties, dict) and not keep_additional:
                continue
            for sub in subs:
                item = self.align(item, sub, resolver)
            aligned[key] = item
        return aligned

    def _align_array(self, value: list[Any], schema: Mapping[str, Any], resolver: _Resolver) -> list[Any]:
        prefix = schema.get("prefixItems")
        prefix_schemas: list[Any] = prefix if isinstance(prefix, list) else []
        items = schema.get("items")
        aligned = []
        for index, item in enumerate(value):
            sub = prefix_schemas[index] if index < len(prefix_schemas) else items
            aligned.append(self.align(item, sub, resolver))
        return aligned


def _pointer(path: Iterable[Any]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _schema_errors(value: Any, schema: Mapping[str, Any]) -> list[str]:
    """Every schema violation as ``pointer: message``, sorted, without duplicates.

    References resolve only inside the schema (:func:`normalize.limits._jsonschema.validator`); one
    that does not is ``invalid`` with its reason (a schema that reached here unchecked).
    """
    found: set[tuple[str, str]] = set()
    error: ValidationError
    try:
        errors = list(validator(schema).iter_errors(value))
    except Unresolvable as exc:
        raise RejectText(st.INVALID, f"schema $ref {exc.ref!r} does not resolve inside the schema: "
                                     "references are never fetched or read") from None
    for error in errors:
        where = _pointer(error.absolute_path)
        required = error.validator_value
        if error.validator == "required" and isinstance(error.instance, dict) and isinstance(required, list):
            for name in required:
                if isinstance(name, str) and name not in error.instance:
                    found.add((where + _pointer([name]), "required property is missing"))
            continue
        message = error.message
        if len(message) > _MAX_MESSAGE_CHARS:
            message = message[: _MAX_MESSAGE_CHARS - 1] + "…"
        found.add((where, message))
    return [f"{where or '(root)'}: {message}" for where, message in sorted(found)]


@rule(
    "align_json_schema",
    version=1,
    scope=_SCOPE,
    params=AlignSchemaParams,
    resolve=resolve_schema,
)
def align_json_schema(
    text: str, params: AlignSchemaParams = _NO_SCHEMA, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Align JSON with a draft 2020-12 schema, then validate it; write it in canonical form.

    Before validating: missing properties that have a ``default`` are filled (in nested objects
    too), numeric strings become numbers where the type is ``number``/``integer`` (integers
    only from integer strings), ``"true"``/``"True"``/``"false"``/``"False"`` become booleans
    where the type is ``boolean``, and with ``drop_unknown`` properties not declared in
    ``properties`` (where it is declared) are dropped.  Then any violation is ``invalid`` with
    its JSON pointer.

    Bound: O(size of value × schema depth), with ``$ref`` hops bounded; schema patterns carry the regex timeout.

    >>> schema = {"type": "object", "required": ["price"], "properties": {
    ...     "price": {"type": "number"}, "currency": {"type": "string", "default": "EUR"}}}
    >>> align_json_schema('{"price": "12.5"}', AlignSchemaParams(schema_body=schema))
    '{"currency":"EUR","price":12.5}'
    >>> align_json_schema('{"price": "abc"}', AlignSchemaParams(schema_body=schema))
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: invalid: /price: 'abc' is not of type 'number'
    """
    if params.schema_body is None:
        raise ValueError("align_json_schema has no schema: set schema (a name in the pack's schemas:) or schema_json")
    schema = params.schema_body
    value = load_json(text, timeout=timeout)
    resolver = resolver_for(schema)
    value = _Aligner(params, timeout).align(value, schema, resolver)
    errors = _schema_errors(value, schema)
    if errors:
        shown = "; ".join(errors[:_MAX_LISTED_ERRORS])
        more = len(errors) - _MAX_LISTED_ERRORS
        prefix = f"schema {params.schema_name!r}: " if params.schema_name else ""
        raise RejectText(st.INVALID, prefix + shown + (f"; and {more} more" if more > 0 else ""))
    return dump_json(value)
