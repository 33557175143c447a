"""Strict JSON within limits: the one JSON reader shared by the structure rules and the ``json`` parser.

A leaf module (no rule, no parser, no pack): :func:`load_json` and :class:`JsonLimits` live here so a
parser can read JSON without importing a rule module.  :func:`canonical_json` is the one serializer
every hash and the structure stage's canonical form use.
"""

from __future__ import annotations

import json
import json.decoder
import json.encoder
import math
import operator
from collections.abc import Callable
from itertools import accumulate
from typing import Any, Final

import regex
from pydantic import Field

from normalize import status as st
from normalize.core.registry import DEFAULT_TIMEOUT, Params
from normalize.errors import RejectText
from normalize.limits._regex import compile_pattern

#: A complete double-quoted JSON string (possessive: linear time, no backtracking).
_DQ_STRING: Final = r'"(?:[^"\\]++|\\.)*+"'
_NOT_BRACKET: Final = r"[^\[\]{}]++"
_BRACKET_DELTA: Final = {"[": 1, "{": 1, "]": -1, "}": -1}


def canonical_json(value: Any) -> str:
    """Sorted keys, compact separators, UTF-8 kept: the form every hash is taken over.

    ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
    allow_nan=False)``, with the encoder it would build made once.

    >>> canonical_json({"b": 1, "a": "é"})
    '{"a":"é","b":1}'
    """
    return _CANONICAL.encode(value)


#: What ``json.dumps`` builds on every call for :func:`canonical_json`'s arguments (an encoder
#: keeps no state between calls).
_CANONICAL: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class JsonLimits(Params):
    """Limits a text must keep before it is parsed as JSON (all in the pack hash)."""

    max_bytes: int = Field(1 << 20, ge=1, le=1 << 30)
    max_depth: int = Field(64, ge=1, le=256)
    max_number_digits: int = Field(1000, ge=1, le=4300)


_DEFAULT_LIMITS: Final = JsonLimits()


class LimitExceeded(RejectText):
    """A size, depth or digit limit was passed: no repair can help, ``parse_json`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(st.INVALID, reason)


def _skeleton(text: str, *, timeout: float) -> str:
    """``text`` with every complete double-quoted string replaced by ``""``."""
    return compile_pattern(_DQ_STRING, regex.DOTALL).sub('""', text)


def _bracket_depth(skeleton: str, *, timeout: float) -> int:
    brackets = compile_pattern(_NOT_BRACKET).sub("", skeleton)
    return max(0, max(accumulate(map(_BRACKET_DELTA.__getitem__, brackets)), default=0))


def nesting_depth(text: str, *, timeout: float = DEFAULT_TIMEOUT) -> int:
    """The deepest nesting of ``[``/``{`` outside double-quoted strings, counted without recursion.

    >>> nesting_depth('{"a": [1, {"b": "[[[["}]}')
    3
    >>> nesting_depth("[" * 10_000)
    10000
    """
    return _bracket_depth(_skeleton(text, timeout=timeout), timeout=timeout)


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


def _sorted_unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """:func:`_unique_keys`, the keys in sorted order (the order :func:`canonical_json` writes)."""
    obj = dict(sorted(pairs, key=_KEY))
    if len(obj) != len(pairs):
        _unique_keys(pairs)  # raises, naming the key that repeats first in the text
    return obj


_KEY: Final = operator.itemgetter(0)


#: ``json.loads(text, parse_constant=…, parse_float=…, object_pairs_hook=…)`` builds this decoder
#: on every call; made once (a decoder keeps no state between calls).
_STRICT: Final = json.JSONDecoder(
    parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys
)
#: The same, building every object with its keys sorted.
_STRICT_SORTED: Final = json.JSONDecoder(
    parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=_sorted_unique_keys
)

#: :func:`canonical_json` for a value :data:`_STRICT_SORTED` read: its keys are in sorted order
#: already (so they need no sorting) and a decoded value holds no cycle (so none is looked for).
_SORTED_VALUE: Final = json.JSONEncoder(
    sort_keys=False, check_circular=False, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)

#: What ``JSONDecoder.decode`` skips before and after the value (its own pattern).
_WHITESPACE: Final = json.decoder.WHITESPACE.match  # type: ignore[attr-defined]  # (not in typeshed)


def _decode(decoder: json.JSONDecoder, text: str) -> Any:
    """``decoder.decode(text)``: the same steps, errors and positions, without the two Python
    calls (``decode``, ``raw_decode``) around the scanner.

    >>> _decode(_STRICT, ' [1, {"a": null}] ')
    [1, {'a': None}]
    >>> _decode(_STRICT, "[1] x")
    Traceback (most recent call last):
    ...
    json.decoder.JSONDecodeError: Extra data: line 1 column 5 (char 4)
    """
    try:
        value, end = decoder.scan_once(text, _WHITESPACE(text, 0).end())  # type: ignore[attr-defined]
    except StopIteration as err:
        raise json.JSONDecodeError("Expecting value", text, err.value) from None
    end = _WHITESPACE(text, end).end()
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def _sorted_writer() -> Callable[[Any], str]:
    """``_SORTED_VALUE.encode``, its C encoder built once.

    ``JSONEncoder.encode`` writes a ``str`` with ``encode_basestring`` and anything else with a
    C encoder that ``iterencode`` builds on every call from the encoder's settings (no marker
    dict: ``check_circular`` is off, so the encoder keeps no state between calls); this builds
    it once from the same settings.  Without the C encoder: ``_SORTED_VALUE.encode`` itself.
    """
    make = json.encoder.c_make_encoder  # type: ignore[attr-defined]  # (not in typeshed)
    if make is None:  # pragma: no cover - CPython always has it
        return _SORTED_VALUE.encode
    chunks = make(None, _SORTED_VALUE.default, json.encoder.encode_basestring, None, ":", ",", False, False, False)
    encode_string = json.encoder.encode_basestring
    join = "".join

    def write(value: Any) -> str:
        return encode_string(value) if isinstance(value, str) else join(chunks(value, 0))

    return write


_write_sorted: Final = _sorted_writer()

#: Values :func:`write_canonical` read, by the canonical text it wrote for each: at most
#: :data:`_HANDOFF_SIZE` (emptied when full), each taken at most once (by :func:`read_canonical`),
#: so no value is ever handed to two callers.
_HANDOFF: Final[dict[str, Any]] = {}
_HANDOFF_SIZE: Final = 8
_MISSING: Final[Any] = object()


def load_json(text: str, limits: JsonLimits | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> Any:
    """Parse strict JSON within ``limits``; anything else raises ``RejectText("invalid", why)``.

    Strict means: ``json.loads`` grammar, no ``NaN``/``Infinity``, no float that overflows, no
    duplicate key in an object.

    >>> load_json('{"a": [1, 2.5, null]}')
    {'a': [1, 2.5, None]}
    >>> load_json('{"a": 1,}')
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: invalid: not valid JSON: Expecting property name enclosed in double quotes at line 1 column 9 (char 8)
    """
    return _load(text, limits, _STRICT, False, timeout)


def _load(text: str, limits: JsonLimits | None, decoder: json.JSONDecoder, take: bool, timeout: float) -> Any:
    """:func:`load_json` with ``decoder``; with ``take``, a value :func:`write_canonical` kept for
    ``text`` stands for the decoding (once the limits hold)."""
    limits = limits if limits is not None else _DEFAULT_LIMITS
    # at most 4 UTF-8 bytes a code point: a text that short is within the limit, unencoded
    size = len(text.encode("utf-8", "surrogatepass")) if len(text) * 4 > limits.max_bytes else 0
    if size > limits.max_bytes:
        raise LimitExceeded(f"JSON text is {size} bytes, over the limit of {limits.max_bytes} (max_bytes)")
    # The limits are read on the skeleton (strings blanked out); it is built only when the
    # whole text could pass one: no more brackets than the depth limit means no deeper
    # nesting, and a digit run in the skeleton is one in the text (blanking a string keeps
    # its quotes, so it never joins two runs).
    skeleton: str | None = None
    if text.count("[") + text.count("{") > limits.max_depth:
        skeleton = _skeleton(text, timeout=timeout)
        depth = _bracket_depth(skeleton, timeout=timeout)
        if depth > limits.max_depth:
            raise LimitExceeded(f"JSON nests {depth} levels deep, over the limit of {limits.max_depth} (max_depth)")
    if len(text) > limits.max_number_digits:
        digits = compile_pattern(f"[0-9]{{{limits.max_number_digits + 1}}}")
        if digits.search(text) is not None:
            if skeleton is None:
                skeleton = _skeleton(text, timeout=timeout)
            if digits.search(skeleton) is not None:
                raise LimitExceeded(
                    f"a number has more than {limits.max_number_digits} digits in a row (max_number_digits)"
                )
    if take:
        kept = _HANDOFF.pop(text, _MISSING)
        if kept is not _MISSING:
            return kept
    try:
        if text.startswith("\ufeff"):  # refused before decoding, as json.loads does
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return _decode(decoder, text)
    except json.JSONDecodeError as exc:
        raise RejectText(
            st.INVALID, f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno} (char {exc.pos})"
        ) from None
    except ValueError as exc:  # an integer over sys.get_int_max_str_digits()
        raise LimitExceeded(f"a number is too long to convert: {exc}") from None


#: Some JSON, however broken: a bracket that opens like JSON (``{"``, ``{key:``, ``[1``, ``[{``;
#: not ``[policy]`` in prose), or a text that starts like a JSON value.
_JSON_BEGINS: Final = (
    r"\{\s*(?:[\"'}]|[A-Za-z_$][\w$]*\s*:|\Z)"
    r"|\[\s*(?:[\"'\[\]{\-0-9]|(?:true|false|null|True|False|None|NaN|Infinity)\b|\Z)"
    r"|\A\s*(?:[\"'\-.0-9]|(?:true|false|null|True|False|None)\b)"
)


def load_stated_json(text: str, limits: JsonLimits | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> Any:
    """:func:`load_json`, telling no answer from a broken one: an empty text, or one with no
    JSON at all (no bracket that opens like JSON, and it does not start like a JSON value: "I
    cannot help with that [policy]."), raises ``RejectText("no_answer", why)``; JSON that does
    not parse stays ``invalid``.

    >>> load_stated_json("Sorry, I cannot extract that.")
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: no_answer: no JSON in the output
    >>> load_stated_json('{"a": 1')
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: invalid: not valid JSON: Expecting ',' delimiter at line 1 column 8 (char 7)
    """
    return _load_stated(text, limits, _STRICT, False, timeout)


def _load_stated(text: str, limits: JsonLimits | None, decoder: json.JSONDecoder, take: bool, timeout: float) -> Any:
    if not text or text.isspace():  # = not text.strip(), with no copy (strip removes what isspace counts)
        raise RejectText(st.NO_ANSWER, "the output is empty")
    try:
        return _load(text, limits, decoder, take, timeout)
    except RejectText as rejected:
        if rejected.status == st.INVALID and compile_pattern(_JSON_BEGINS).search(text, timeout=timeout) is None:
            raise RejectText(st.NO_ANSWER, "no JSON in the output") from None
        raise


def write_canonical(text: str, limits: JsonLimits | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """``canonical_json(load_stated_json(text, limits))``; the value is kept for :func:`read_canonical`.

    The value is read with every object's keys in sorted order: the order the canonical text
    writes them in, so it equals what decoding the canonical text gives (a canonical text
    decodes without error: finite floats written by ``repr``, which round-trips, integers
    that were read, no duplicate key, no constant), and the json parser, reading that text
    next, takes it instead of decoding again.

    >>> write_canonical('{"b": [1.50, {"d": 1, "c": null}], "a": "é"}')
    '{"a":"é","b":[1.5,{"c":null,"d":1}]}'
    >>> read_canonical('{"a":"é","b":[1.5,{"c":null,"d":1}]}')
    {'a': 'é', 'b': [1.5, {'c': None, 'd': 1}]}
    """
    value = _load_stated(text, limits, _STRICT_SORTED, False, timeout)
    written = _write_sorted(value)  # = canonical_json(value): see _SORTED_VALUE
    if len(_HANDOFF) >= _HANDOFF_SIZE:
        _HANDOFF.clear()  # (values dropped unread are simply never handed out)
    _HANDOFF[written] = value
    return written


def read_canonical(text: str, limits: JsonLimits | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> Any:
    """:func:`load_stated_json`, taking (once) the value :func:`write_canonical` kept for ``text``
    when there is one: the same value, with no second decoding.  The limits are checked all the same."""
    return _load_stated(text, limits, _STRICT, True, timeout)

