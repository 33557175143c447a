"""One JSONL line in, one JSON object or one reason out; one output row in, one valid UTF-8 line out.

Reading never raises on content.  A line is refused (the caller writes an ``invalid`` row with
the reason) when it is not UTF-8, not JSON, not an object, nested deeper than
:data:`MAX_JSON_DEPTH`, holds an integer of more than 4300 digits (Python's limit on
integer-string conversion), or holds a lone surrogate (``"\\ud800"``: not Unicode text).
``NaN``/``Infinity`` literals and numbers that overflow a float (``1e999``) are not JSON either,
but they are read so that one in a ``target`` costs that row a ``bad_target`` and nothing else;
where such a value must be written back it is written as a string and the row says so
(see :func:`encode_row`).

Writing always gives valid UTF-8 JSON: :func:`encode_row` tries the fast path
(``json.dumps`` + UTF-8 encode) and only on failure replaces what cannot be written (lone
surrogates by U+FFFD, non-finite numbers by their names as strings), listing each replaced
field in ``encoding_notes``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Final

import regex

#: Deepest nesting of arrays and objects a row may have; deeper lines are ``invalid``.
#: Recursive code downstream (canonical JSON, field F1) needs a bound well under Python's
#: recursion limit; rows of evaluation harnesses use fewer than ten levels.
MAX_JSON_DEPTH: Final = 128

_SURROGATE = regex.compile(r"[\ud800-\udfff]")
_NON_FINITE: Final = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


@dataclass(frozen=True)
class Line:
    """One decoded line: ``data`` (a JSON object) or ``error``; ``text`` is the line as valid text
    (empty for a line that decoded, when :func:`decode_line` was told not to keep it)."""

    number: int
    data: dict[str, Any] | None
    error: str | None
    text: str


def _constant(name: str) -> float:
    return _NON_FINITE[name]


_DECODER = json.JSONDecoder(parse_constant=_constant)


def depth_exceeds(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``value`` nests arrays/objects more than ``limit`` levels (iterative, no recursion).

    >>> depth_exceeds([[1]], 2), depth_exceeds([[[1]]], 2)
    (False, True)
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _find_surrogate(value: Any) -> str | None:
    """The JSON path of the first string (key or value) holding a lone surrogate, or None."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return path or "/"
        elif isinstance(node, dict):
            for key, child in node.items():
                if _SURROGATE.search(key):
                    return f"{path}/{key.encode('utf-8', 'backslashreplace').decode()}"
                stack.append((child, f"{path}/{key}"))
        elif isinstance(node, list):
            stack.extend((child, f"{path}/{i}") for i, child in enumerate(node))
    return None


def decode_line(raw: bytes, number: int, *, keep_text: bool = True) -> Line:
    """Decode one line of bytes (without its newline); every failure is a reason, never an exception.

    ``keep_text=False``: a line that decodes keeps ``text`` empty (a refused one keeps it, for
    ``raw_line``), so a huge row is not held twice while it is processed.

    >>> decode_line(b'{"a": 1}', 1).data
    {'a': 1}
    >>> decode_line(b'{"a": "\\xff"}', 2).error
    'line 2 is not valid UTF-8: byte 0xff at offset 7 (shown as \\\\xff in raw_line)'
    >>> decode_line(b'[1]', 3).error
    'line 3 is a JSON array, not an object'
    """
    return decode_held([raw], number, keep_text=keep_text)


def decode_held(held: list[bytes], number: int, *, keep_text: bool = False) -> Line:
    """:func:`decode_line` of the one line in ``held``, which it takes out: once the bytes are
    text they are let go, so a huge line is held at most twice (text, then its value) while
    it is read, if the caller kept no other reference to it.

    >>> held = [b'{"a": 1}']
    >>> decode_held(held, 1).data, held
    ({'a': 1}, [])
    """
    raw = held.pop()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        shown = raw.decode("utf-8", "backslashreplace")
        bad = raw[exc.start:exc.end]
        return Line(number, None, f"line {number} is not valid UTF-8: byte 0x{bad[0]:02x} at offset {exc.start} "
                                  f"(shown as \\x{bad[0]:02x} in raw_line)", shown)
    del raw
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        data = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        return Line(number, None, f"line {number} is not valid JSON: {exc.msg} at column {exc.colno}", text)
    except RecursionError:
        return Line(number, None, f"line {number} is nested too deeply to read (the limit is {MAX_JSON_DEPTH} levels)",
                    text)
    except ValueError as exc:  # an integer of more than sys.get_int_max_str_digits() digits
        detail = str(exc).split(";")[0]
        return Line(number, None, f"line {number} holds a number that cannot be read: {detail}", text)
    if not isinstance(data, dict):
        return Line(number, None, f"line {number} is a JSON {_json_type(data)}, not an object", text)
    # nesting deeper than the limit needs more than that many brackets: most lines skip the walk
    if text.count("{") + text.count("[") > MAX_JSON_DEPTH and depth_exceeds(data):
        return Line(number, None, f"line {number} is nested deeper than {MAX_JSON_DEPTH} levels", text)
    if "\\u" in text or "\\U" in text:
        where = _find_surrogate(data)
        if where is not None:
            return Line(number, None, f"line {number} holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape) "
                                      f"at {where}: not Unicode text", text)
    return Line(number, data, None, text if keep_text else "")


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


def encode_row(row: dict[str, Any]) -> bytes:
    """One output line (with its newline) as UTF-8 bytes; always valid JSON and valid UTF-8.

    >>> encode_row({"a": "é"})
    b'{"a": "\\xc3\\xa9"}\\n'
    >>> encode_row({"t": float("nan"), "s": "x\\udc80"})
    b'{"t": "NaN", "s": "x\\xef\\xbf\\xbd", "encoding_notes": ["/t: NaN written as a string", "/s: lone surrogates replaced by U+FFFD"]}\\n'
    """
    try:
        return (_ENCODE(row) + "\n").encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        notes: list[str] = []
        clean = _writable(row, "", notes)
        clean["encoding_notes"] = [*_as_notes(clean.get("encoding_notes")), *notes]
        return (json.dumps(clean, ensure_ascii=False, allow_nan=False, default=str) + "\n").encode("utf-8")


def encode_row_taking(row: dict[str, Any]) -> bytes:
    """The bytes of :func:`encode_row`, emptying ``row`` as it goes: each value is let go once
    it is JSON text, and the text once it is bytes, so a huge value is held at most twice if
    the caller kept no other reference to it (encoded whole, a megabyte row's output was held
    three times: the value, the text, the bytes).

    >>> row = {"a": "é", "t": float("nan")}
    >>> encode_row_taking(dict(row)) == encode_row(dict(row)), encode_row_taking(row), row
    (True, b'{"a": "\\xc3\\xa9", "t": "NaN", "encoding_notes": ["/t: NaN written as a string"]}\\n', {})
    """
    if any(type(key) is not str or _SURROGATE.search(key) for key in row):
        return encode_row(row)  # keys as json.dumps converts them: the whole row's rules
    notes: list[str] = []
    pieces: list[bytes] = [b"{"]
    notes_at, given_notes, cleaned_notes = -1, None, None
    for key in list(row):
        if len(pieces) > 1:
            pieces.append(b", ")
        pieces.append(_dumped(key).encode("utf-8") + b": ")
        value = row.pop(key)
        if key == "encoding_notes":  # written last, when every replacement is known
            notes_at, given_notes = len(pieces), value
            cleaned_notes = _writable(value, "/encoding_notes", notes)
            pieces.append(b"")
            continue
        try:
            text = _dumped(value)
        except ValueError:  # a non-finite number
            text = None
        if text is None or _SURROGATE.search(text):
            text = _dumped(_writable(value, f"/{key}", notes))
        del value
        pieces.append(text.encode("utf-8"))
        del text
    if notes_at >= 0 or notes:
        written = given_notes if not notes else [*_as_notes(cleaned_notes), *notes]
        if notes_at >= 0:
            pieces[notes_at] = _dumped(written).encode("utf-8")
        else:
            pieces.extend((b", " if len(pieces) > 1 else b"", b'"encoding_notes": ', _dumped(written).encode("utf-8")))
    pieces.append(b"}\n")
    return b"".join(pieces)


def _as_notes(given: Any) -> list[Any]:
    """A row's own ``encoding_notes`` as a list the replacements are added to (one value that is
    not a list is one note; none is none)."""
    return given if isinstance(given, list) else [] if given is None else [given]


#: ``json.dumps(value, ensure_ascii=False, allow_nan=False, default=str)``, the encoder built once
#: (``json.dumps`` with these options builds a new one per call); the same text.
_ENCODE: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, default=str).encode


def _dumped(value: Any) -> str:
    return _ENCODE(value)


def _writable(value: Any, path: str, notes: list[str]) -> Any:
    if isinstance(value, str):
        if _SURROGATE.search(value):
            notes.append(f"{path or '/'}: lone surrogates replaced by U+FFFD")
            return _SURROGATE.sub("\ufffd", value)
        return value
    if isinstance(value, float) and not math.isfinite(value):
        name = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        notes.append(f"{path or '/'}: {name} written as a string")
        return name
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, child in value.items():
            name = str(key)
            if _SURROGATE.search(name):
                notes.append(f"{path}/{_SURROGATE.sub(chr(0xFFFD), name)}: lone surrogates in the key replaced by U+FFFD")
                name = _SURROGATE.sub("\ufffd", name)
            out[name] = _writable(child, f"{path}/{name}", notes)
        return out
    if isinstance(value, (list, tuple)):
        return [_writable(child, f"{path}/{i}", notes) for i, child in enumerate(value)]
    return value


_WRITTEN_AS_STRING = regex.compile(r"^/([^/]+): (NaN|Infinity|-Infinity) written as a string$")


def restore_written_values(row: dict[str, Any]) -> dict[str, Any]:
    """Undo :func:`encode_row`'s replacement of a top-level non-finite number, for a row read back.

    A resumed ``score`` re-reads its own output; a ``NaN`` target written as ``"NaN"`` must be
    scored as the ``NaN`` it was (a ``bad_target``), not as the text ``NaN``.

    >>> restore_written_values({"target": "NaN", "encoding_notes": ["/target: NaN written as a string"]})["target"]
    nan
    """
    for note in row.get("encoding_notes") or ():
        found = _WRITTEN_AS_STRING.match(note) if isinstance(note, str) else None
        if found and row.get(found.group(1)) == found.group(2):
            row[found.group(1)] = _NON_FINITE[found.group(2)]
    return row
