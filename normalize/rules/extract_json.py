r"""Stage 1, extract: :func:`extract_json_block` keeps the JSON object or array that is the answer.

Among several different JSON values, the one a retraction or a final marker points to ("Wait,
that is wrong: {…}", "Final answer: {…}"); else the first balanced block, looking in a fenced
``json`` block first.  With ``alternatives: contradictory`` two different values offered as
alternatives make the output ``contradictory``.  No JSON → the text unchanged.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from typing import Any, Final

from normalize import status as st
from normalize.core.registry import DEFAULT_TIMEOUT, rule
from normalize.errors import RejectText
from normalize.limits._budget import check_budget
from normalize.limits._regex import compile_pattern
from normalize.rules._extract_params import JsonBlockParams
from normalize.rules._fences import FenceTuple, iter_fences
from normalize.rules._speed import INTRO_CHARS
from normalize.values._phrases import RETRACTION

# --------------------------------------------------------------------------- JSON


_JSON_START = r"\s*(?:[\"'{\[\]}\-.0-9]|(?:true|false|null|True|False|None)(?![\w]))"
_MAX_PARSE_ATTEMPTS: Final = 1000

#: A stretch of the text: ``(start, end)``, end exclusive.
_Span = tuple[int, int]
#: How a decoding outcome is filed: a short span by its text, a longer one by where it is.
_DecodedKey = str | tuple[int, int]
_SHORT_SPAN: Final = 64
#: The one decoder of every ``raw_decode`` (a ``json.JSONDecoder`` keeps no state between calls).
_DECODER: Final = json.JSONDecoder(strict=False)
_UNTRIED: Final[Any] = object()
#: Whole double-quoted strings and what JSON may hold outside them (a superset: its whitespace
#: and punctuation, digits, number signs, the letters of ``true false null NaN Infinity``).  A
#: span this does not run through (``True``, ``None``, a word, a quote that does not close
#: inside) cannot be one JSON value: ``raw_decode`` need not try it (an error is costly to raise).
_JSON_CHARS: Final = re.compile(r'(?:[ \t\n\r{}\[\],:\d+\-.eEtrufalsnNIiy]++|"[^"\\]*+(?:\\.[^"\\]*+)*+")*+', re.DOTALL)


class _Scan:
    """What one call of :func:`extract_json_block` learns about its text, shared by its searches.

    ``spans``: :func:`_balanced_spans` by hull (see :func:`_region_spans`: the whole text and
    a fence that holds every bracket are scanned once).  ``decoded``: ``(value,)`` when
    ``raw_decode`` at a span's start stops at its end, else None; by the span's text when it
    is short, else by the span.  That outcome depends on the span's text alone (a bracket's
    value ends at its closer, and the decoder reads nothing past the closer it stops after;
    any other stop, or an error, is the same None), so a short span written twice (``[1, 2]``
    in every entry) is decoded once.
    """

    __slots__ = ("decoded", "hull", "single", "spans", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.hull: _Span | None = None  # the whole text's bracket hull, once known
        self.single: _Span | None = None
        self.spans: dict[_Span, list[_Span]] = {}
        self.decoded: dict[_DecodedKey, tuple[Any] | None] = {}


_DEFAULT_JSON_BLOCK: Final = JsonBlockParams()

#: Words between two JSON values that offer the second as an alternative to the first.
_ALTERNATIVE: Final = (
    r"(?i:\b(?:or|alternatively|alternative(?:ly)?|another\s+(?:option|possibility|answer|way|version)"
    r"|(?:option|version|variant)\s*(?:\d+|[a-z])\b|either|otherwise|(?:also|equally)\s+(?:valid|acceptable|possible|correct)"
    r"|could\s+also\s+be|or\s+else|if\s+you\s+(?:prefer|like|want)|if\s+you(?:'d|\s+would)\s+(?:rather|prefer)"
    r"|you\s+(?:could|can|may|might)\s+also)\b)"
    r"|或者|或是|也可以|另一种|另一个|备选|也行|或"
)


@rule("extract_json_block", version=3, scope=("structured_json",), params=JsonBlockParams)
def extract_json_block(
    text: str, params: JsonBlockParams = _DEFAULT_JSON_BLOCK, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Keep the first balanced JSON object or array, looking in a fenced ``json`` block first.

    Order of search: the first fence tagged ``json``; fences with no language whose content
    starts with ``{`` or ``[``; the whole text.  In each, brackets are matched with an
    explicit stack that skips over strings (``"…"``, and ``'…'`` where a value or key can
    start) and their escapes, in one linear pass.  Of the blocks found, the first outermost
    one that parses as JSON wins; failing that the first block that at least starts like
    JSON (a later rule may repair it).  Nothing found → the text unchanged.

    Bound: O(n) scans of at most three regions; at most 1000 parse attempts, each bounded by its span.

    >>> extract_json_block('Sure! Here it is: {"a": "}", "b": [1, 2]} Hope it helps.')
    '{"a": "}", "b": [1, 2]}'
    >>> extract_json_block('See [1].\\n```json\\n{"ok": true}\\n```')
    '{"ok": true}'
    >>> extract_json_block("no json [here]")
    'no json [here]'
    >>> extract_json_block('{"a": 1} or {"a": 2}', JsonBlockParams(alternatives="contradictory"))
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: contradictory: the output offers different JSON values as alternatives: {"a":1} and {"a":2}
    """
    whole = _hull(text, 0, len(text))
    single = whole if _one_value(text, whole) else None
    if single is not None and _fences_cannot_cut(text, *single) and _starts_like_json(text, single):
        # The stated pass finds nothing (_one_value); every fence's content holds the hull or
        # none of it, so each search below returns the hull's span or nothing, the whole text
        # its span (see _first_json_span): that span, with no fence scan.
        check_budget()  # where the fence scan would check it first
        return text[single[0] : single[1]]
    scan = _Scan(text)
    scan.hull, scan.single = whole, single
    if single is None and params.alternatives == "contradictory":
        stated = _stated_json_span(scan, timeout=timeout)
        if stated is not None:
            return text[stated[0] : stated[1]]
    fences = iter_fences(text)  # read up to the first tagged json, further only if it holds nothing
    seen: list[FenceTuple] = []
    for fence in fences:
        seen.append(fence)
        if fence[4] == "json":
            span = _first_json_span(scan, fence[2], fence[3])
            if span is not None:
                return text[span[0] : span[1]]
            break
    seen.extend(fences)
    for _, _, content_start, content_end, lang, _ in seen:
        if lang == "" and text[content_start:content_end].lstrip()[:1] in ("{", "["):
            span = _first_json_span(scan, content_start, content_end)
            if span is not None:
                return text[span[0] : span[1]]
    span = _first_json_span(scan, 0, len(text))
    return text if span is None else text[span[0] : span[1]]


#: Words that introduce the final JSON value ("Final answer:", "最终结果", "Output:" opening a line,
#: "My answer:", "Here is my answer:", "我的答案：" anywhere: after a format example it is the answer).
_FINAL_JSON: Final = (
    r"(?i:\bfinal\s+(?:answer|json|output|result|version|object)|(?:corrected|fixed|updated)\s+(?:json|version|output|object)"
    r"|(?<![^\n])[ \t*#]*(?:output|result|answer)[ \t*]*:"
    r"|\b(?:my|here\s+is\s+(?:my|the))\s+answer[ \t*]*(?:is[ \t*]*)?:)"
    r"|最终(?:答案|结果|输出|版本|JSON)|(?<![^\n])[ \t*#]*(?:输出|结果|答案)[ \t*]*[:：]|我的答案(?:是)?[ \t*]*[:：]?"
)


def _stated_json_span(scan: _Scan, *, timeout: float) -> _Span | None:
    """Among several different outermost JSON values: the one a retraction or a final marker
    points to ("Wait, that is wrong: {…}", "Final answer: {…}", "Output: {…}");
    ``contradictory`` when two of those that count are offered as alternatives ("or",
    "Alternatively", "或者" between them); else None (the usual search decides)."""
    text = scan.text
    decoded = scan.decoded
    values: list[tuple[_Span, str]] = []
    parsed: list[tuple[_Span, Any]] = []
    pieces: set[str] = set()  # the texts of the values parsed
    reach = -1
    attempts = 0
    # The last span whose character scan or decoding stopped short of its end, and where: a span
    # inside it (spans come outer first) that holds that place stops there too, so it is not
    # tried again: nested spans that cannot parse cost one pass, not one each (depth x length).
    # (Such a span starts on a bracket outside strings before that place: the outer scan's
    # tokens align with its own there, and in the JSON read so far that bracket opened a value,
    # read by the same grammar up to the same error.)
    short_start = short_stop = -1
    for span in _region_spans(scan, 0, len(text)):
        start, end = span
        if start < reach:
            continue
        attempts += 1
        if attempts > _MAX_PARSE_ATTEMPTS:
            break
        if text[start + 1] not in _MAY_FOLLOW_BRACE and text[start] == "{":
            # (``\\frac{953}``) the decoder refuses the first key right after the brace
            # (:func:`_refused_at_key`): no value, nothing to note (the stop window kept is an
            # earlier span's, sound for any span it holds; the memo is only a memo)
            continue
        key: _DecodedKey = text[start:end] if end - start <= _SHORT_SPAN else span
        outcome = decoded.get(key, _UNTRIED)
        if outcome is _UNTRIED:  # decoded here, not in a helper: at the stack depth it always had
            outcome = None
            if not short_start <= start < short_stop < end:
                through = _JSON_CHARS.match(text, start, end)  # (it always matches, if only the empty string)
                if through is not None and through.end() == end:  # else it cannot parse to the end
                    refused = _refused_at_key(text, start)
                    if refused >= 0:  # the decoder's error, with no exception raised
                        short_start, short_stop = start, refused
                    else:
                        try:
                            value, stop = _DECODER.raw_decode(text, start)
                        except json.JSONDecodeError as error:
                            short_start, short_stop = start, error.pos
                        except (ValueError, RecursionError):
                            pass
                        else:
                            outcome = (value,) if stop == end else None
                elif through is not None:
                    short_start, short_stop = start, through.end()
            decoded[key] = outcome
        if outcome is None:
            continue
        reach = end
        parsed.append((span, outcome[0]))
        pieces.add(text[start:end])
    if len(pieces) < 2:
        return None  # one value (or none), however often written, cannot disagree: no keys to write
    for span, value in parsed:
        try:
            key = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        except (ValueError, RecursionError):
            continue
        values.append((span, key))
    if len({key for _, key in values}) < 2:
        return None
    retracted = False
    for index in range(len(values) - 1, 0, -1):  # what follows the last retraction counts
        gap = (values[index - 1][0][1], values[index][0][0])
        if compile_pattern(RETRACTION).search(text, *gap):
            values, retracted = values[index:], True
            break
    final = [
        i
        for i, (span, _) in enumerate(values)
        if compile_pattern(_FINAL_JSON).search(
            text, max(values[i - 1][0][1] if i else 0, span[0] - INTRO_CHARS), span[0], timeout=timeout
        )
    ]
    if final:  # from the last value introduced as final on
        values, retracted = values[final[-1] :], True
    for (first, key_a), (second, key_b) in itertools.pairwise(values):
        if key_a == key_b:
            continue
        if compile_pattern(_ALTERNATIVE).search(text, first[1], second[0]):
            raise RejectText(
                st.CONTRADICTORY,
                f"the output offers different JSON values as alternatives: {_clip(key_a)} and {_clip(key_b)}",
            )
    return values[0][0] if retracted else None


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_json_span(scan: _Scan, start: int, end: int) -> _Span | None:
    single = scan.single
    if (
        single is not None
        and start <= single[0]
        and single[1] <= end
        and _starts_like_json(scan.text, single)
    ):
        # the region holds the hull: its spans are the text's, the hull's span first, every
        # other inside it (_one_value).  The loop below would decode the hull's span and, if it
        # parses, return it; if not, skip the rest (inside it) and return it as the first
        # span that starts like JSON.  Either way: that span, with no decoding.
        return single
    spans = _region_spans(scan, start, end)
    if not spans:
        return None
    text = scan.text
    decoded = scan.decoded
    reach = -1
    attempts = 0
    for span in spans:  # outermost spans first: they are the ones not inside an earlier span
        at = span[0]
        if at < reach:
            continue
        reach = span[1]
        attempts += 1
        if attempts > _MAX_PARSE_ATTEMPTS:
            break
        key: _DecodedKey = text[at : span[1]] if span[1] - at <= _SHORT_SPAN else span
        outcome = decoded.get(key, _UNTRIED)
        if outcome is _UNTRIED:  # decoded here, not in a helper: at the stack depth it always had
            outcome = None
            through = _JSON_CHARS.match(text, at, span[1])  # (it always matches, if only the empty string)
            if through is not None and through.end() == span[1] and _refused_at_key(text, at) < 0:
                try:  # (else it cannot parse to the end, or the decoder refuses its first key)
                    value, stop = _DECODER.raw_decode(text, at)
                except (ValueError, RecursionError):
                    pass
                else:
                    outcome = (value,) if stop == span[1] else None
            decoded[key] = outcome
        if outcome is not None:
            return span
    looks_like_json = compile_pattern(_JSON_START)
    for span in spans:
        if looks_like_json.match(text, span[0] + 1, span[1]):
            return span
    return None


#: Inside the outermost bracket: no bracket and no single quote outside strings, whole
#: double-quoted strings with no backslash (stdlib ``re``, possessive: linear).
_GAP: Final = r"""[^\[\]{}"']*+(?:"[^"\\]*+"[^\[\]{}"']*+)*+"""
#: A flat bracket pair with no quote inside (so no string: what it holds is what the scan skips).
_FLAT: Final = r"""\[[^\[\]{}"']*+\]|\{[^\[\]{}"']*+\}"""
#: One bracket pair holding flat pairs that are all one same text (backreference), and
#: between them only what :data:`_GAP` allows.
_ONE_VALUE: Final = re.compile(
    rf"\{{{_GAP}(?:(?P<a>{_FLAT}){_GAP}(?:(?P=a){_GAP})*+)?\}}|\[{_GAP}(?:(?P<b>{_FLAT}){_GAP}(?:(?P=b){_GAP})*+)?\]"
)


def _one_value(text: str, hull: _Span) -> bool:
    """Whether the text's bracket spans are its hull's span and flat spans inside it that are
    all one same text, by one C-level match of the hull (``hull``: :func:`_hull` of the text).

    Proof: :func:`_balanced_spans` of the hull (the whole text's, see :func:`_region_spans`)
    pushes the hull's opener, then reads tokens.  Where :data:`_ONE_VALUE` matches, the tokens
    are: stretches with no bracket and no ``'`` outside strings, and strings with no backslash
    (each skipped whole, as ``_SKIPPED`` does: the same quote pairs), flat pairs (one span
    each), and last the hull's closer, which matches its opener: one span for the hull, the
    stack empty at the hull's end, nothing more to scan.  So no span lies outside the hull's,
    and :func:`_stated_json_span` collects at most one text (the hull's when it parses, else
    those of the flat spans that parse, all the same): it returns None.
    """
    return hull[0] != hull[1] and _ONE_VALUE.fullmatch(text, *hull) is not None


#: What can follow a bracket for :data:`_JSON_START` to match right there (``\s*`` empty).
_VALUE_OPENERS: Final = frozenset('"{[]}-.0123456789')


def _starts_like_json(text: str, span: _Span) -> bool:
    """``looks_like_json`` of :func:`_first_json_span` for a span: :data:`_JSON_START` matches
    after its opener (a character that pattern opens with is proof enough, with no regex call)."""
    return text[span[0] + 1] in _VALUE_OPENERS or compile_pattern(_JSON_START).match(text, span[0] + 1, span[1]) is not None


#: JSON's whitespace: what the decoder skips between tokens.
_JSON_WS: Final = frozenset(" \t\n\r")
#: What may follow an object's brace for the decoder to read on: a key's quote, the closing
#: brace, whitespace.
_MAY_FOLLOW_BRACE: Final = frozenset('"}') | _JSON_WS


def _refused_at_key(text: str, at: int) -> int:
    """Where ``raw_decode(text, at)`` fails at once when ``text[at]`` is ``{`` (``\\frac{12}``,
    ``{x}``), else -1 (it is not a brace, or the decoder reads on).

    After the brace and JSON whitespace (space, tab, line feed, carriage return) an object holds
    ``}`` or a key's opening ``"``; at any other character (or the text's end) both of the
    standard library's scanners, C and Python, raise ``JSONDecodeError("Expecting property name
    enclosed in double quotes")`` at that position.  Raising and catching it costs ~2.5 µs
    (``JSONDecodeError`` counts the line breaks before it in the whole text); this reads a
    character or a few.  Held equal to ``raw_decode``'s error by a property test.

    >>> _refused_at_key(r"\\frac{12}{5}", 5), _refused_at_key('{ "a": 1}', 0), _refused_at_key("[1]", 0)
    (6, -1, -1)
    """
    if text[at] != "{":
        return -1
    head = at + 1
    char = text[head : head + 1]
    while char in _JSON_WS:  # ("" at the text's end is not in it)
        head += 1
        char = text[head : head + 1]
    return -1 if char == '"' or char == "}" else head


def _fences_cannot_cut(text: str, start: int, end: int) -> bool:
    """Whether no fence's content can start or end strictly inside ``text[start:end]`` (so each
    holds all of it or none of it), with ``text[start]`` a bracket and ``text[end - 1]`` the
    text's last bracket.

    A content starts after the line break that ends its opening line, and (when not empty) ends
    at the line break before its closing line.  So with no line break inside, neither can
    happen.  Else, a fence line that starts inside holds its run of three backticks or tildes
    inside (a closing line, holding no bracket, ends before ``end - 1``), and an opening line
    that starts before ``start`` and ends inside holds its run before ``start`` on that line.

    >>> _fences_cannot_cut('{"a": 1}', 0, 8), _fences_cannot_cut('{"a": "\\n```\\n"}', 0, 14)
    (True, False)
    """
    if text.find("\n", start, end) < 0:
        return True
    line = text.rfind("\n", 0, start) + 1
    return all(text.find(run, line, end) < 0 for run in _FENCE_RUNS)


_FENCE_RUNS: Final = ("```", "~~~")


def _region_spans(scan: _Scan, start: int, end: int) -> list[_Span]:
    """:func:`_balanced_spans` of ``text[start:end]``, scanned once per hull.

    The hull runs from the region's first opener (``[`` or ``{``) to its last bracket of any
    kind.  The scans of the region and of its hull give the same spans: both reach the hull's
    first opener with an empty stack (with it empty, a closer is ignored and a quote opens
    nothing); from there they read the same tokens (a single quote's look-back stops at an
    opener inside the hull either way); and past the hull nothing can open or close, whatever
    a string or quote running beyond it swallows or cuts short.  So the whole text and a
    fence holding all its brackets (the usual shape) share one scan.
    """
    whole = scan.hull
    if whole is None:
        whole = scan.hull = _hull(scan.text, 0, len(scan.text))
    if whole[0] == whole[1]:
        return []  # no opener at all
    # the region holds the text's first opener and last bracket: its hull is the text's
    hull = whole if start <= whole[0] and whole[1] <= end else _hull(scan.text, start, end)
    if hull[0] == hull[1]:
        return []
    spans = scan.spans.get(hull)
    if spans is None:
        spans = _spans_within(scan.spans.get(whole), hull)
        if spans is None:
            spans = _balanced_spans(scan.text, *hull)
        scan.spans[hull] = spans
    return spans


def _spans_within(outer: list[_Span] | None, hull: _Span) -> list[_Span] | None:
    """:func:`_balanced_spans` of ``hull`` (a region's hull: its first opener to its last
    bracket) read off ``outer``, the whole text's spans when they were scanned, where the whole
    text's scan made ``hull`` itself a span; else None (the region is scanned).

    Proof: that scan pushed ``hull``'s opener as a bracket token and popped it only at the
    closer at ``hull``'s end, so from the opener on it read the tokens the region's scan reads
    (it starts there too, with that opener alone on its stack; a token that ends inside the
    region is the same match with the region's end as the search's end; a single quote's
    look-back stops at that opener at the latest, and a single-quoted string closes inside).  A
    closer in between that matched no opener above the hull's would have dropped it, so each
    closes the same opener in both scans, or none; the region's stack is never deeper (no
    depth refusal the whole text's scan did not raise first).  At the hull's closer the region's
    scan ends: its spans are the whole text's spans inside ``hull``, which (spans nest or are
    disjoint) are those that start in it, a run of the sorted list.
    """
    if outer is None:
        return None
    at = bisect.bisect_left(outer, hull)
    if at == len(outer) or outer[at] != hull:
        return None
    return outer[at : bisect.bisect_left(outer, (hull[1], -1), at)]


def _hull(text: str, start: int, end: int) -> _Span:
    """From the first opener of ``text[start:end]`` to its last bracket of any kind (empty: no opener)."""
    first = end
    for char in "{[":
        found = text.find(char, start, first)
        if found >= 0:
            first = found
    if first == end:
        return (end, end)
    last = first
    for char in "}]{[":
        found = text.rfind(char, last + 1, end)
        if found >= 0:
            last = found
    return (first, last + 1)


#: The deepest bracket nesting :func:`extract_json_block` reads: the most ``parse_json``'s
#: ``max_depth`` allows (:class:`normalize.values._json.JsonLimits`), so no text it refuses could parse.
MAX_NESTING: Final = 256


def _balanced_spans(text: str, start: int, end: int) -> list[_Span]:
    """Every balanced ``{…}``/``[…]`` in ``text[start:end]``, ordered by start (outer first).

    One pass with an explicit stack (no recursion).  A closer that does not match the top
    of the stack closes the nearest matching opener below it (the openers above are dropped
    unfinished) or, if there is none, is ignored.  Spans nest or are disjoint.  With the stack
    empty only an opener changes anything (closers are ignored, quotes open no string), so
    the scan jumps to the next one (``str.find``, each kind's next place remembered).  Inside
    a bracket one match runs past whole double-quoted strings and everything else to the next
    bracket or single quote (an unclosed ``"``, or the end: nothing more to find); a bracket
    pair with only that between (a flat ``[1, 2]``) is one match and one span, as its opener
    and closer would have made.  So is such a pair opened with the stack empty (``\\frac{12}``
    in prose: :data:`_FLAT_PAIR`, matched at the opener, is the opener and the first token
    after it when that token is the matching closer: the scan would push, pop, and be back
    where the match ends with the stack empty).

    A pair that closes more than :data:`MAX_NESTING` deep: ``invalid`` (:class:`RejectText`)
    right there, so a deep text costs one pass up to its innermost closer and no decoding
    (openers that never close, ``{{{{…``, hold no span and refuse nothing).
    """
    spans: list[_Span] = []
    stack: list[int] = []  # where the open brackets are
    braces = brackets = 0  # how many of each kind the stack holds
    tokens = _JSON_TOKEN.finditer
    next_brace = next_bracket = -2  # where each opener occurs next (-1: nowhere; -2: not looked for)
    pos = start
    while True:
        if not stack:
            if -1 != next_brace < pos:
                next_brace = text.find("{", pos, end)
            if -1 != next_bracket < pos:
                next_bracket = text.find("[", pos, end)
            if next_brace < 0 and next_bracket < 0:
                break
            pos = next_brace if next_bracket < 0 or 0 <= next_brace < next_bracket else next_bracket
            flat = _FLAT_PAIR(text, pos, end)
            if flat is not None:  # one span, and the stack is empty again after it
                spans.append((pos, flat.end()))
                pos = flat.end()
                continue
            if text[pos] == "{":
                braces = 1
            else:
                brackets = 1
            stack.append(pos)
            pos += 1
        resume = False  # whether the tokens go on from pos
        for found in tokens(text, pos, end):
            group = found.lastindex
            if group == 1:  # a flat pair: pushed and popped at once
                if len(stack) >= MAX_NESTING:
                    raise _too_deep(found.end(1) - 1, len(stack) + 1)
                spans.append(found.span(1))
                continue
            at = found.end() - 1
            if group != 2:
                if group == 3 and text[at] == "'":
                    if not _value_may_start(text, at, start):
                        continue
                    rest = _SINGLE_QUOTED_REST.match(text, at + 1, end)
                    if rest is not None:
                        pos, resume = rest.end(), True
                break  # an unclosed string, or the end of the search: nothing more to find
            char = text[at]
            if char == "{":
                stack.append(at)
                braces += 1
            elif char == "[":
                stack.append(at)
                brackets += 1
            else:
                opener = "{" if char == "}" else "["
                if not (braces if opener == "{" else brackets):
                    continue
                while True:
                    opened = stack.pop()
                    kind = text[opened]
                    if kind == "{":
                        braces -= 1
                    else:
                        brackets -= 1
                    if kind == opener:
                        break
                if len(stack) >= MAX_NESTING:
                    raise _too_deep(at, len(stack) + 1)
                spans.append((opened, at + 1))
                if not stack:
                    pos, resume = at + 1, True  # back to looking for an opener
                    break
        if not resume:
            break
    spans.sort()  # (no two spans share a start)
    return spans


def _too_deep(at: int, depth: int) -> RejectText:
    """The refusal of a bracket pair closed at ``at``, ``depth`` levels deep."""
    return RejectText(st.INVALID, f"the JSON nests more than {MAX_NESTING} levels deep (the bracket closed at "
                      f"character {at} is {depth} deep): no JSON rule parses it")


#: Inside a bracket, what does not matter: runs with no bracket or quote, and whole double-quoted
#: strings (a backslash escapes the next character).  Possessive throughout: linear.
_SKIPPED: Final = r'(?:[^\[\]{}"\']*+"[^"\\]*+(?:\\.[^"\\]*+)*+")*+[^\[\]{}"\']*+'
#: Inside a bracket: what does not matter, then a flat bracket pair (group 1: only what does not
#: matter between), a bracket (group 2), a single quote or an unclosed ``"`` (group 3), or the end
#: of the search (no group).  A stretch is read at most twice (a flat pair tried and given up).
_JSON_TOKEN: Final = re.compile(
    rf"{_SKIPPED}(?:(\[{_SKIPPED}\]|\{{{_SKIPPED}\}})|([\[\]{{}}])|([\"'])|\Z)", re.DOTALL
)
#: A flat bracket pair at a given place: the opener, what :data:`_JSON_TOKEN` skips, the
#: matching closer (that token's bracket, when it closes this opener).
_FLAT_PAIR: Final = re.compile(rf"\[{_SKIPPED}\]|\{{{_SKIPPED}\}}", re.DOTALL).match
#: The rest of a single-quoted string after its opening quote, to its closing quote: a
#: backslash escapes the next character (possessive: linear even when the string never closes).
_SINGLE_QUOTED_REST: Final = re.compile(r"(?:[^'\\]++|\\.)*+'", re.DOTALL)


def _value_may_start(text: str, pos: int, floor: int) -> bool:
    """Whether a ``'`` at ``pos`` can open a (Python-style) string: after ``{ [ , :``."""
    i = pos - 1
    while i >= floor and text[i].isspace():
        i -= 1
    return i >= floor and text[i] in "{[,:"
