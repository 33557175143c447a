"""The JSON chain's fast paths give exactly what the algorithms they replaced give.

The reference is ``tests/_oracles/json_block.py``: compact copies of ``extract_json_block``,
``coerce_python_literals``, the strict reader and the fence scan as they were before the speed
work.  Every test here compares outputs (or the status and reason of a rejection) on generated
adversarial texts: several blocks, alternatives, retractions, unbalanced brackets, strings
holding brackets and escaped quotes, ````` and ``~~~`` fences, Python literals in and out of
strings, NaN/Infinity, deep nesting, CJK.
"""

from __future__ import annotations

import json
from typing import Any

import regex
from hypothesis import example, given, settings
from hypothesis import strategies as hs

from normalize.core.registry import ParseContext
from normalize.errors import RejectText
from normalize.parsers._json import parse_json_value
from normalize.rules import _fences, extract_json, structure
from normalize.rules._extract_params import JsonBlockParams
from normalize.values import _json
from normalize.values._json import JsonLimits, canonical_json, load_json
from tests._oracles import json_block as oracle

_BLOCK_PIECES = (
    "Here is the JSON: ", " or ", " Alternatively: ", "或者", "Final answer: ", "Wait, that is wrong. ", "\nOutput:",
    "\n", " ", "  ", "\t", "```json\n", "```\n", "```", "~~~\n", "~~~json\n", "````\n", "   ```\n", "```JSON \n",
    "{", "}", "[", "]", '{"a": 1}', '{"a": 2}', "[1, 2]", "[1,2]", '{"k": True}', '{"k": None, "v": False}',
    "{'a': 1}", '"', "'", "\\", '\\"', '"x]"', '"{"', '"a\\"b"', "it's", ":", ",", "True", "None", "False",
    "true", "null", "NaN", "Infinity", "-Infinity", "1e999", "-0", "1.5", "引号", "“内”", "结果：", "１", "\u0661",
    '"True"', '"None of them"', "\\u0054rue", "[[[[", "]]]]", "{{", "}}", '{"a": [1, {"b": "]"}]}', "[]", "{}",
)
_BLOCK_TEXTS = hs.lists(hs.sampled_from(_BLOCK_PIECES), max_size=40).map("".join)

_WORDS = hs.sampled_from(["True", "true", "None", "null", "k", "v", "é", "引号“内”", "a\"b", "[x]", "{", "\\", "it's", ""])
_VALUES = hs.recursive(
    hs.one_of(hs.none(), hs.booleans(), hs.integers(-10**20, 10**20), hs.floats(allow_nan=True), _WORDS),
    lambda inner: hs.lists(inner, max_size=5) | hs.dictionaries(_WORDS, inner, max_size=5),
    max_leaves=25,
)


def _python_literals(text: str) -> str:
    """How a model writes JSON as a Python dict: True/False/None (also inside strings)."""
    return text.replace("true", "True").replace("false", "False").replace("null", "None")


@hs.composite
def _bench_like(draw: hs.DrawFn) -> str:
    """Prose, then a fenced block holding a JSON value (maybe Python-flavoured), then maybe more."""
    body = json.dumps(draw(_VALUES), ensure_ascii=draw(hs.booleans()), indent=draw(hs.sampled_from([None, 2])))
    if draw(hs.booleans()):
        body = _python_literals(body)
    fence = draw(hs.sampled_from(["```json\n", "```\n", "~~~json\n", "", "```python\n"]))
    close = "\n" + fence.strip("\njsonpyth") if fence else ""
    return draw(_BLOCK_TEXTS) + fence + body + close + draw(_BLOCK_TEXTS)


def _outcome(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except RejectText as rejected:
        return ("rejected", rejected.status, rejected.reason)


@given(hs.one_of(_BLOCK_TEXTS, _bench_like()))
@settings(max_examples=1500, deadline=None)
@example('Sure:\n```json\n{"k0": True, "k1": [1, 2], "k2": "v", "k3": [1, 2]}\n```\n')
@example('{"a": 1} or {"a": 2}')
@example('Option 1: {"a": 1}\nWait, that is wrong. Final answer: {"a": 2}')
@example("[" * 3000 + "]" * 3000)
def test_extract_json_block_equals_the_oracle(text: str) -> None:
    for alternatives in ("first", "contradictory"):
        params = JsonBlockParams(alternatives=alternatives)
        assert _outcome(extract_json.extract_json_block, text, params) == _outcome(
            oracle.extract_json_block, text, alternatives
        ), alternatives


_ITEMS = (
    '"k": 1', '"k": True', '"k": None', '"k": "v"', '"k": [1, 2]', '"k": [1,2]', '"k": "引号“内”"', '"k": []', '"k": {}',
    '"k": "[x]"', '"k": "{"', '"k": "it\'s"', "'k': 1", '"k": ["a"]', '"k": [True]', '"k": [[1]]', '"k": "a\\"b"',
    '"k": {"a": 1}', '"k": [1, 2] or [3]', "'\"'", "'\"': [2]", '"\n```json\n"',
    '"\n```\n"', '"\n~~~\n"', "\n```\n", "\n", "\n   ```\n", "```", '"k" 1', '"k": "', "1", "[1, 2]", "True", '"True"', "\\", "]", "{",
)


@hs.composite
def _one_value_texts(draw: hs.DrawFn) -> str:
    """The shape the one-value screen passes: prose, then a fence holding one object or array
    whose only inner brackets are flat pairs (mostly one same text), then maybe more; with
    near misses (a quote or backslash in a pair, two different pairs, a bracket in a string)."""
    items = draw(hs.lists(hs.sampled_from(_ITEMS), max_size=12))
    sep = draw(hs.sampled_from([", ", ",", ",\n  ", " "]))
    body = "{" + sep.join(items) + "}" if draw(hs.booleans()) else "[" + sep.join(items) + "]"
    fence = draw(hs.sampled_from(["```json\n", "```\n", "~~~json\n", "", "```python\n", "```JSON\n", "```json ", "~~~ "]))
    close = draw(hs.sampled_from(["\n```\n", "\n~~~", "", "\n```"]))
    return draw(_PROSE_OR_BLOCKS) + fence + body + close + draw(_PROSE_OR_BLOCKS)


#: Texts from the block pieces, or from those of them with no bracket (prose around one value).
_PROSE_OR_BLOCKS = hs.one_of(
    _BLOCK_TEXTS,
    hs.lists(hs.sampled_from([p for p in _BLOCK_PIECES if not set(p) & set("[]{}")]), max_size=20).map("".join),
)


@given(_one_value_texts())
@settings(max_examples=2000, deadline=None)
@example('Sure:\n```json\n{"k0": True, "k1": [1, 2], "k2": "v", "k3": [1, 2]}\n```\n')
@example('```json\n{"a": [1], "b": [1]}\n```')
@example('```json\n{"a": [1], "or": True, "b": [2]}\n```')
@example('```json\n["[", [1]]\n```')
@example("""```json\n{'"', "x": [1], '"': [2]}\n```""")
@example('{"a": "\n```json\n", "b": [1]}\n```')
@example('```json {"a": [1],\n"b": [1]}\n```')
@example('```json\n[\\]\n```')
@example('```json\n{"a\\": [1], "b": [1]}\n```')
@example('```json\n{"a": [1],\n```\n"b": [1]}\n')
def test_one_value_screen_is_sound(text: str) -> None:
    """Where the screen passes, the scan's spans are the hull's and flat ones inside it, all one
    text, and the stated-value pass finds nothing; the rule's output is the oracle's."""
    hull = extract_json._hull(text, 0, len(text))
    if extract_json._one_value(text, hull):
        spans = oracle.balanced_spans(text, 0, len(text))
        assert spans[0] == hull
        inner = {text[a:b] for a, b in spans[1:]}
        assert all(hull[0] < a < b < hull[1] for a, b in spans[1:]) and len(inner) <= 1
        assert oracle._stated_json_span(text) is None
        assert extract_json._starts_like_json(text, hull) == bool(regex.compile(extract_json._JSON_START).match(text, hull[0] + 1, hull[1]))
    for alternatives in ("first", "contradictory"):
        params = JsonBlockParams(alternatives=alternatives)
        assert _outcome(extract_json.extract_json_block, text, params) == _outcome(
            oracle.extract_json_block, text, alternatives
        ), alternatives


@given(_BLOCK_TEXTS, hs.integers(0, 60), hs.integers(0, 60))
@settings(max_examples=1500, deadline=None)
def test_region_spans_equal_the_scan_of_the_region(text: str, cut_start: int, cut_end: int) -> None:
    """Whatever the region, and whichever region was scanned first (the hull memo)."""
    start = min(cut_start, len(text))
    end = max(start, len(text) - cut_end)
    scan = extract_json._Scan(text)
    assert extract_json._region_spans(scan, 0, len(text)) == oracle.balanced_spans(text, 0, len(text))
    assert extract_json._region_spans(scan, start, end) == oracle.balanced_spans(text, start, end)
    fresh = extract_json._Scan(text)
    assert extract_json._region_spans(fresh, start, end) == oracle.balanced_spans(text, start, end)


@given(hs.one_of(_VALUES.map(json.dumps), _BLOCK_TEXTS), hs.booleans())
@settings(max_examples=1500, deadline=None)
@example('["\\u0054rue", 1e5, -0, "\x01"]', True)
@example('[NaN, -Infinity, 1E+2]', True)
def test_json_chars_screen_passes_every_span_that_parses(text: str, python: bool) -> None:
    """The screen that spares a raw_decode never refuses a span the decoder reads to its end."""
    text = _python_literals(text) if python else text
    for start, end in oracle.balanced_spans(text, 0, len(text)):
        try:
            _, stop = extract_json._DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if stop == end:
            through = extract_json._JSON_CHARS.match(text, start, end)
            assert through is not None and through.end() == end, text[start:end]


_LITERAL_PIECES = (
    "{", "}", "[", "]", ":", ",", " ", "\n", '"', "'", "\\", '\\"', "True", "False", "None", "true", "null",
    '"True"', '"k"', '"None of them"', "'True'", "xTrue", "True_", "éTrue", "\u0301True", "True\u0301", "٣True",
    "\x00", "TrueTrue", "NoneType", "引号", '"a\\"True"', "it's", "Tr", "ue", "\\u0054rue",
)


@given(hs.one_of(hs.lists(hs.sampled_from(_LITERAL_PIECES), max_size=30).map("".join), _VALUES.map(json.dumps).map(_python_literals)))
@settings(max_examples=2000, deadline=None)
@example('{"k0": True, "k1": None, "k2": "v", "k3": [1, 2]}')
@example('"a"True"b"')
@example('{"a": True, "b": "True"}')
@example('[True\u0301, None]')
@example('[xTrue, None]')
@example('[None, False_]')
@example('{"a": None, "b": "x"None}')
@example('{"a": True, "b": "None')
def test_coerce_python_literals_equals_the_oracle(text: str) -> None:
    for quoted in (True, False):
        params = structure.CoerceLiteralsParams(quoted=quoted)
        assert _outcome(structure.coerce_python_literals, text, params) == _outcome(
            oracle.coerce_python_literals, text, quoted
        ), quoted


def _ordered(value: Any) -> str:
    """The value written with its keys in their order, and float apart from int."""
    return json.dumps(value, ensure_ascii=False, allow_nan=True)


def _oracle_parse(text: str) -> Any:
    return _outcome(lambda t: oracle.dump_json(oracle.load_stated_json(t)), text)


_PARSE_PIECES = (
    "{", "}", "[", "]", ":", ",", " ", "\n", '"a"', '"b"', '"é"', '"\\ud800"', '"\\n"', "1", "1.0", "-0", "1e5",
    "1E400", "NaN", "Infinity", "true", "null", "True", "\ufeff", "0" * 12,
)


@given(hs.one_of(
    _VALUES.map(lambda v: json.dumps(v, allow_nan=True)),
    _VALUES.map(lambda v: json.dumps(v, indent=1, ensure_ascii=False)),
    hs.lists(hs.sampled_from(_PARSE_PIECES), max_size=25).map("".join),
))
@settings(max_examples=1500, deadline=None)
@example('{"b": 1, "a": {"d": [1.50, "x"], "c": null}, "b2": -0.0}')
@example('{"a": 1, "a": 2}')
@example("\ufeff[1]")
@example("[" * 70 + "]" * 70)
def test_parse_json_and_the_parser_equal_the_oracle(text: str) -> None:
    """parse_json writes what it wrote before; the parser, taking the value parse_json kept,
    answers what decoding the canonical text answers (keys in the same order, float apart
    from int), and never hands the same object out twice."""
    written = _outcome(structure.parse_json, text)
    assert written == _oracle_parse(text)
    if isinstance(written, tuple):
        return
    expected = oracle.load_json(written)
    for _ in range(2):  # the first read may take the kept value, the second decodes
        parsed = parse_json_value(written, JsonLimits(), ParseContext())
        assert _ordered(parsed.answer) == _ordered(expected if expected is not None else None)
        assert parsed.status == ("no_answer" if expected is None else "ok")
    structure.parse_json(text)
    first = parse_json_value(written, JsonLimits(), ParseContext()).answer
    second = parse_json_value(written, JsonLimits(), ParseContext()).answer
    if isinstance(first, (dict, list)):
        assert first is not second


def test_the_parser_checks_its_own_limits_before_taking_a_kept_value() -> None:
    text = structure.parse_json('{"n": 123456, "m": [[[1]]]}')
    assert text in _json._HANDOFF
    digits = parse_json_value(text, JsonLimits(max_number_digits=3), ParseContext())
    assert (digits.status, digits.reason) == ("invalid", "a number has more than 3 digits in a row (max_number_digits)")
    structure.parse_json('{"n": 123456, "m": [[[1]]]}')
    depth = parse_json_value(text, JsonLimits(max_depth=2), ParseContext())
    assert (depth.status, depth.reason) == ("invalid", "JSON nests 4 levels deep, over the limit of 2 (max_depth)")


def test_kept_values_are_bounded() -> None:
    for i in range(3 * _json._HANDOFF_SIZE):
        structure.parse_json(f'{{"i": {i}}}')
    assert len(_json._HANDOFF) <= _json._HANDOFF_SIZE
    assert load_json('{"i": 0}') == {"i": 0}


@given(_VALUES)
@settings(max_examples=500, deadline=None)
def test_canonical_json_is_json_dumps(value: Any) -> None:
    try:
        expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:
        try:
            canonical_json(value)
        except ValueError:
            return
        raise AssertionError("canonical_json must refuse what json.dumps refuses") from None
    assert canonical_json(value) == expected


_FENCE_PIECES = (
    "```", "````", "~~~", "~~~~", "`", "~", " ", "   ", "    ", "\n", "\r", "\r\n", "\t", "\x0b", "\x0c", "\x85",
    "\u2028", "\u3000", "json", "py", "a`b", "x" * 70, "é",
)


@given(hs.lists(hs.sampled_from(_FENCE_PIECES), max_size=30).map("".join))
@settings(max_examples=2000, deadline=None)
def test_find_fences_equals_the_regex_module_scan(text: str) -> None:
    """The fence patterns now run on the stdlib ``re`` engine, found from line-break locators."""
    fast = [(f.start, f.end, f.content_start, f.content_end, f.lang, f.closed) for f in _fences._fences(text)]
    assert fast == oracle.find_fences(text)


@given(hs.one_of(_VALUES, _WORDS, hs.floats(allow_nan=True), hs.integers()))
@settings(max_examples=800, deadline=None)
@example(float("nan"))
@example("é\n\"\\")
def test_the_prebuilt_sorted_writer_is_the_encoder(value: Any) -> None:
    """The C encoder built once writes what ``JSONEncoder.encode`` writes, and refuses what it refuses."""
    assert _outcome_of(_json._write_sorted, value) == _outcome_of(_json._SORTED_VALUE.encode, value)


@given(hs.one_of(
    _VALUES.map(lambda v: json.dumps(v, allow_nan=True)),
    hs.lists(hs.sampled_from(_PARSE_PIECES), max_size=25).map("".join),
))
@settings(max_examples=800, deadline=None)
@example("")
@example(" [1] x")
@example("\u3000[1]")
def test_decode_is_the_decoders_decode(text: str) -> None:
    for decoder in (_json._STRICT, _json._STRICT_SORTED):
        assert _outcome_of(_json._decode, decoder, text) == _outcome_of(decoder.decode, text)


def _outcome_of(fn: Any, *args: Any) -> Any:
    """The value (written with its key order and types), or the error's type and message."""
    try:
        return _ordered(fn(*args))
    except (ValueError, RecursionError, RejectText) as error:
        return (type(error).__name__, str(error))


def test_isspace_is_what_strip_removes() -> None:
    """``not text or text.isspace()`` stands for ``not text.strip()``: every code point."""
    assert all(chr(c).isspace() == (chr(c).strip() == "") for c in range(0x110000))


_HEAD_PIECES = ("{", "}", "[", "]", " ", "\t", "\n", "\r", "\x0b", "\u3000", '"', "'", "a", "1", ":", ",", "\\frac", "{12}", '"k": 1', "}{")


@given(hs.lists(hs.sampled_from(_HEAD_PIECES), max_size=25).map("".join))
@settings(max_examples=1500, deadline=None)
@example("\\frac{12}{5}")
@example("{ \n\t\r}")
@example('{\n  "a": 1}')
@example("{\x0b}")
@example("{ ")
def test_refused_at_key_is_where_the_decoder_fails(text: str) -> None:
    """At every brace: where the short cut says the decoder fails at once, both of the standard
    library's scanners (C and Python) raise JSONDecodeError at that very position; where it says
    nothing, the decoder is run as before (what it does then is not the short cut's)."""
    py_decoder = json.JSONDecoder(strict=False)
    py_decoder.scan_once = json.scanner.py_make_scanner(py_decoder)  # type: ignore[attr-defined]
    for at, char in enumerate(text):
        refused = extract_json._refused_at_key(text, at)
        if char != "{":
            assert refused == -1
            continue
        for decoder in (extract_json._DECODER, py_decoder):
            try:
                decoder.raw_decode(text, at)
            except json.JSONDecodeError as error:
                if refused >= 0:
                    assert error.pos == refused, (text, at)
                    assert error.msg == "Expecting property name enclosed in double quotes"
            else:
                assert refused < 0, (text, at)


@given(hs.one_of(_bench_like(), _one_value_texts()))
@settings(max_examples=1500, deadline=None)
@example('Let $\\frac{1}{2}$ be.\n```json\n{"a": [1, {"b": 2}], "c": "}"}\n```\n')
@example('{x\n```json\n{"a": 1}\n```\n')
@example('"\n```json\n{"a": 1}\n```\n"')
@example("'\n```json\n{'a': [1]}\n```\n'")
def test_a_fence_read_off_the_whole_texts_scan_equals_its_own_scan(text: str) -> None:
    """The stated pass scans the whole text first; a fence whose hull that scan made a span is
    read off it (``_spans_within``), not scanned again: the spans its own scan gives."""
    for _, _, content_start, content_end, _, _ in _fences.iter_fences(text):
        scan = extract_json._Scan(text)
        extract_json._region_spans(scan, 0, len(text))
        assert extract_json._region_spans(scan, content_start, content_end) == oracle.balanced_spans(
            text, content_start, content_end
        )
