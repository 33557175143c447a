"""TEST ORACLE, not part of the package: compact copies of the JSON rules as they were at 1c117cc.

A differential-testing reference for ``tests/test_fast_paths.py``: the package's fast paths
(shared span scans, the fence screen, the split literal scan, cached decoder and encoder) must
give exactly what these give, output for output and error for error.  Nothing in ``normalize``
imports this module; it changes only if the rules' specified behaviour changes.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from itertools import accumulate
from typing import Any

import regex

from normalize import status as st
from normalize.errors import RejectText
from normalize.rules._speed import INTRO_CHARS
from normalize.rules.extract_json import _ALTERNATIVE, _FINAL_JSON, _JSON_START
from normalize.values._json import _JSON_BEGINS
from normalize.values._phrases import RETRACTION

# ----------------------------------------------------------------------------- fences

_OPEN = regex.compile(r"(?m)^(?P<indent>[ ]{0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)$")


def _closing(char: str, length: int) -> regex.Pattern[str]:
    return regex.compile(rf"(?m)^[ ]{{0,3}}{regex.escape(char)}{{{length},}}[ \t\r]*$")


def _lang(info: str) -> str:
    words = info.split(None, 1)
    return words[0].lower() if words else ""


def find_fences(text: str) -> list[tuple[int, int, int, int, str, bool]]:
    """(start, end, content_start, content_end, lang, closed) of every fence, by the plain scan."""
    out = []
    pos, n = 0, len(text)
    while True:
        opening = _OPEN.search(text, pos)
        if opening is None:
            return out
        start, end = opening.span()
        fence, info = opening.group("fence", "info")
        info = info.strip()
        if fence[0] == "`" and "`" in info:
            pos = end
            continue
        content_start = end + 1 if end < n else end
        closing = _closing(fence[0], len(fence)).search(text, content_start)
        if closing is None:
            out.append((start, n, content_start, n, _lang(info), False))
            return out
        close_start, close_end = closing.span()
        content_end = max(content_start, close_start - 1) if close_start > content_start else content_start
        out.append((start, close_end, content_start, content_end, _lang(info), True))
        pos = close_end


# ----------------------------------------------------------------------------- extract_json_block

_PAIRS = {"}": "{", "]": "["}
_JSON_OPENER = re.compile(r"[\[{]")
_JSON_TOKEN = re.compile(r'[\[\]{}\']|((?:"(?:[^"\\]++|\\.)*+"[^\[\]{}"\']*+)++)|"', re.DOTALL)
_SINGLE_QUOTED_REST = re.compile(r"(?:[^'\\]++|\\.)*+'", re.DOTALL)


def _value_may_start(text: str, pos: int, floor: int) -> bool:
    i = pos - 1
    while i >= floor and text[i].isspace():
        i -= 1
    return i >= floor and text[i] in "{[,:"


def balanced_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    stack: list[tuple[str, int]] = []
    open_count = {"{": 0, "[": 0}
    spans: list[tuple[int, int]] = []
    pos = start
    while True:
        found = (_JSON_TOKEN.search if stack else _JSON_OPENER.search)(text, pos, end)
        if found is None:
            break
        at = found.start()
        char = text[at]
        pos = found.end()
        if char in "{[":
            stack.append((char, at))
            open_count[char] += 1
        elif char in "}]":
            opener = _PAIRS[char]
            if open_count[opener] == 0:
                continue
            while True:
                kind, opened = stack.pop()
                open_count[kind] -= 1
                if kind == opener:
                    break
            if len(stack) >= 256:  # issue 24: deeper than any parse_json max_depth
                raise RejectText(st.INVALID, f"the JSON nests more than 256 levels deep (the bracket closed at "
                                 f"character {at} is {len(stack) + 1} deep): no JSON rule parses it")
            spans.append((opened, at + 1))
        elif char == '"':
            if found.group(1) is None:
                break
        elif _value_may_start(text, at, start):
            rest = _SINGLE_QUOTED_REST.match(text, pos, end)
            if rest is None:
                break
            pos = rest.end()
    spans.sort(key=lambda s: s[0])
    return spans


def _first_json_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    spans = balanced_spans(text, start, end)
    if not spans:
        return None
    decoder = json.JSONDecoder(strict=False)
    reach = -1
    attempts = 0
    for span in spans:
        if span[0] < reach:
            continue
        reach = span[1]
        attempts += 1
        if attempts > 1000:
            break
        try:
            _, stop = decoder.raw_decode(text, span[0])
        except (ValueError, RecursionError):
            continue
        if stop == span[1]:
            return span
    looks_like_json = regex.compile(_JSON_START)
    for span in spans:
        if looks_like_json.match(text, span[0] + 1, span[1]):
            return span
    return None


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _stated_json_span(text: str) -> tuple[int, int] | None:
    decoder = json.JSONDecoder(strict=False)
    values: list[tuple[tuple[int, int], str]] = []
    parsed: list[tuple[tuple[int, int], Any]] = []
    reach = -1
    attempts = 0
    for span in balanced_spans(text, 0, len(text)):
        if span[0] < reach:
            continue
        attempts += 1
        if attempts > 1000:
            break
        try:
            value, stop = decoder.raw_decode(text, span[0])
        except (ValueError, RecursionError):
            continue
        if stop != span[1]:
            continue
        reach = span[1]
        parsed.append((span, value))
    if len(parsed) < 2:
        return None
    for span, value in parsed:
        try:
            key = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        except (ValueError, RecursionError):
            continue
        values.append((span, key))
    if len({key for _, key in values}) < 2:
        return None
    retracted = False
    for index in range(len(values) - 1, 0, -1):
        if regex.compile(RETRACTION).search(text, values[index - 1][0][1], values[index][0][0]):
            values, retracted = values[index:], True
            break
    final = [
        i
        for i, (span, _) in enumerate(values)
        if regex.compile(_FINAL_JSON).search(text, max(values[i - 1][0][1] if i else 0, span[0] - INTRO_CHARS), span[0])
    ]
    if final:
        values, retracted = values[final[-1] :], True
    for (first, key_a), (second, key_b) in itertools.pairwise(values):
        if key_a == key_b:
            continue
        if regex.compile(_ALTERNATIVE).search(text, first[1], second[0]):
            raise RejectText(
                st.CONTRADICTORY,
                f"the output offers different JSON values as alternatives: {_clip(key_a)} and {_clip(key_b)}",
            )
    return values[0][0] if retracted else None


def extract_json_block(text: str, alternatives: str = "first") -> str:
    if alternatives == "contradictory":
        stated = _stated_json_span(text)
        if stated is not None:
            return text[stated[0] : stated[1]]
    fences = find_fences(text)
    regions: list[tuple[int, int]] = []
    tagged = next((f for f in fences if f[4] == "json"), None)
    if tagged is not None:
        regions.append((tagged[2], tagged[3]))
    for fence in fences:
        if fence[4] == "" and text[fence[2] : fence[3]].lstrip()[:1] in ("{", "["):
            regions.append((fence[2], fence[3]))
    regions.append((0, len(text)))
    for start, end in regions:
        span = _first_json_span(text, start, end)
        if span is not None:
            return text[span[0] : span[1]]
    return text


# ----------------------------------------------------------------------------- strict JSON

_DQ_STRING = r'"(?:[^"\\]++|\\.)*+"'
_SQ_STRING = r"'(?:[^'\\]++|\\.)*+'"


def _reject_constant(name: str) -> Any:
    raise RejectText(st.INVALID, f"{name} is not allowed in strict JSON")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise RejectText(st.INVALID, f"number {literal[:40]} is out of range for a 64-bit float")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RejectText(st.INVALID, f"duplicate key {key[:80]!r} in an object")
            seen.add(key)
    return obj


def load_json(text: str, max_bytes: int = 1 << 20, max_depth: int = 64, max_digits: int = 1000) -> Any:
    """The strict reader (default limits), with ``json.loads`` called with its keyword arguments."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise RejectText(st.INVALID, f"JSON text is {size} bytes, over the limit of {max_bytes} (max_bytes)")
    skeleton = regex.sub(_DQ_STRING, '""', text, flags=regex.DOTALL)
    brackets = regex.sub(r"[^\[\]{}]++", "", skeleton)
    depth = max(0, max(accumulate({"[": 1, "{": 1, "]": -1, "}": -1}[c] for c in brackets), default=0))
    if depth > max_depth:
        raise RejectText(st.INVALID, f"JSON nests {depth} levels deep, over the limit of {max_depth} (max_depth)")
    if regex.search(f"[0-9]{{{max_digits + 1}}}", skeleton) is not None:
        raise RejectText(st.INVALID, f"a number has more than {max_digits} digits in a row (max_number_digits)")
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise RejectText(
            st.INVALID, f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno} (char {exc.pos})"
        ) from None
    except ValueError as exc:
        raise RejectText(st.INVALID, f"a number is too long to convert: {exc}") from None


def load_stated_json(text: str) -> Any:
    """An empty text, or one with no JSON at all, is no answer; other broken JSON is invalid."""
    if not text.strip():
        raise RejectText(st.NO_ANSWER, "the output is empty")
    try:
        return load_json(text)
    except RejectText as rejected:
        if rejected.status == st.INVALID and regex.compile(_JSON_BEGINS).search(text) is None:
            raise RejectText(st.NO_ANSWER, "no JSON in the output") from None
        raise


def dump_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


_QUOTED_LITERAL: dict[str, bool | None] = {
    "True": True, "true": True, "False": False, "false": False, "None": None, "null": None,
}


def _coerce_quoted(value: Any) -> tuple[Any, bool]:
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


def coerce_python_literals(text: str, quoted: bool = True) -> str:
    """The rule with its one-pass scan: strings skipped, literals outside them replaced by a callback."""
    names = {"True": "true", "False": "false", "None": "null"}

    def replace(match: regex.Match[str]) -> str:
        literal = match.group(1)
        return names[literal] if literal is not None else match.group(0)

    scanned = regex.compile(rf"{_DQ_STRING}|{_SQ_STRING}|\b(True|False|None)\b", regex.DOTALL).sub(replace, text)
    if not quoted:
        return scanned
    try:
        value = load_json(scanned)
    except RejectText:
        return scanned
    coerced, changed = _coerce_quoted(value)
    return dump_json(coerced) if changed else scanned
