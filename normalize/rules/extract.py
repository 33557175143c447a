r"""Stage 1, extract: cut the part of a raw output that is to be scored out of everything else.

Extraction runs first, on the output as close to raw as possible, and over-captures rather
than cuts off: a tail that later stages can clean is better than a lost answer.

* :func:`remove_think_blocks` drops ``<think>`` reasoning;
* :func:`extract_answer_marker` keeps what follows "the answer is" / "答案是" (tiers of markers
  that come from the pack's language overlays, ``rules/languages/*.yaml``);
* :func:`extract_boxed` keeps the content of the last ``\boxed{…}``;
* :func:`split_on_separator` keeps what follows the last ``####`` / ``最终输出:``;
* :func:`extract_json_block` keeps the first balanced JSON object or array;
* :func:`extract_code_block` keeps one fenced code block, byte for byte;
* :func:`extract_regex` keeps a capture group of a pattern the pack supplies (data only).

Every rule returns its input unchanged when there is nothing to extract.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

import regex
from pydantic import BeforeValidator, field_validator, model_validator

from normalize._regex import compile_pattern
from normalize.registry import (
    ALL_TYPES,
    DEFAULT_TIMEOUT,
    NoParams,
    Params,
    StrTiers,
    StrTuple,
    as_tuple,
    rule,
)
from normalize.rules._fences import Fence, find_fences

_NO_PARAMS: Final = NoParams()

Tiers = StrTiers


# --------------------------------------------------------------------------- think blocks

_THINK_TAG = r"<\s*(?P<close>/?)\s*think(?:ing)?\s*>"


@rule("remove_think_blocks", version=1, scope=ALL_TYPES)
def remove_think_blocks(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Remove ``<think>…</think>`` reasoning (also ``<thinking>``), however it was cut short.

    A closed block is removed; an unterminated ``<think>`` drops everything from the tag on
    (the model ran out of tokens while reasoning); a ``</think>`` with no opener drops
    everything up to and including it (chat templates that inject the opening tag).  Tags
    are matched case-insensitively.  Outside reasoning, tags inside a closed fenced code block
    are code and stay; inside reasoning, fences are ignored and the first closer ends it.  The
    whitespace where two kept pieces join becomes one separator (none, a space, a newline
    or a blank line, whichever the removed whitespace held).

    >>> remove_think_blocks("<think>\\n2+2 is 4\\n</think>\\n\\nThe answer is 4.")
    'The answer is 4.'
    >>> remove_think_blocks("First, 2+2 ... hmm</think>The answer is 4.")
    'The answer is 4.'
    >>> remove_think_blocks("Answer: 4 <THINKING>let me double-check")
    'Answer: 4'
    >>> remove_think_blocks("no reasoning here ")
    'no reasoning here '
    """
    tags = list(compile_pattern(_THINK_TAG, regex.IGNORECASE).finditer(text, timeout=timeout))
    if not tags:
        return text
    fences = [fence for fence in find_fences(text, timeout=timeout) if fence.closed]
    starts = [fence.start for fence in fences]
    kept: list[tuple[int, int]] = []  # spans of text outside every block
    pos = 0  # where the current stretch of kept text began
    inside = False
    found = False
    for match in tags:
        if not inside and _in_code(match.start(), pos, fences, starts):
            continue
        found = True
        if match["close"]:
            if not inside:  # a closer with no opener: what came before it was reasoning
                kept = []
            inside = False
            pos = match.end()
        elif not inside:
            kept.append((pos, match.start()))
            inside = True
    if not found:
        return text
    if not inside:
        kept.append((pos, len(text)))
    return _join_stripped(text, kept)


def _in_code(position: int, floor: int, fences: Sequence[Fence], starts: Sequence[int]) -> bool:
    """Whether ``position`` lies in a closed fence that opened at or after ``floor``.

    ``fences`` are ordered and disjoint, ``starts`` their starts.  Fences that opened inside
    reasoning do not count: fences there are often unbalanced, and pair up wrongly.
    """
    index = bisect.bisect_right(starts, position) - 1
    return index >= 0 and fences[index].start >= floor and position < fences[index].end


def _join_stripped(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """Join the kept spans, collapsing the whitespace at each place where a block was cut."""
    out: list[str] = []
    pending = ""  # whitespace removed where the current join is
    for start, end in spans:
        piece = text[start:end]
        core = piece.lstrip() if start > 0 else piece
        pending += piece[: len(piece) - len(core)]
        tail = ""
        if end < len(text):
            stripped = core.rstrip()
            tail = core[len(stripped) :]
            core = stripped
        if core:
            if out:
                out.append(_separator(pending))
            out.append(core)
            pending = ""
        pending += tail
    return "".join(out)


def _separator(whitespace: str) -> str:
    newlines = whitespace.count("\n")
    if newlines >= 2:
        return "\n\n"
    if newlines == 1:
        return "\n"
    return " " if whitespace else ""


# --------------------------------------------------------------------------- answer markers


class AnswerMarkerParams(Params):
    """``tiers``: regex patterns, best tier first; empty → filled from the pack's
    ``languages.<lang>.answer_markers`` for each of ``languages`` when the pack loads.

    ``conflict``: ``"last"`` keeps the answer after the last marker of the winning tier;
    ``"keep"`` keeps everything from its first marker (included) to the end of the last
    one's paragraph, so a strict parser still sees statements that disagree.

    ``include_marker``: keep the marker itself in front of the answer, for a parser that
    only accepts stated answers (the ``choice`` parser needs "the answer is A or B" to see
    that two letters were stated, and "D, not A" to see which one was negated).
    """

    languages: StrTuple = ("en", "zh")
    tiers: Tiers = ()
    conflict: Literal["last", "keep"] = "last"
    include_marker: bool = False

    @field_validator("tiers")
    @classmethod
    def _patterns_compile(cls, tiers: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        for tier in tiers:
            for pattern in tier:
                if not pattern:
                    raise ValueError("an answer marker pattern must not be empty")
                _guarded(pattern)  # raises ValueError naming a pattern that does not compile
        return tiers


_DEFAULT_MARKERS: Final = AnswerMarkerParams()


def resolve_answer_markers(params: AnswerMarkerParams, resources: Mapping[str, Any]) -> AnswerMarkerParams:
    """Fill empty ``tiers`` from ``resources["languages"][lang]["answer_markers"]``.

    Tier *i* of the result is tier *i* of every listed language, in the order listed.  An
    unknown language, or one without answer markers, raises ``ValueError`` naming it.

    >>> langs = {"en": {"answer_markers": [["final answer:"], ["answer:"]]},
    ...          "zh": {"answer_markers": [["最终答案："], ["答案是"], ["因此"]]}}
    >>> resolve_answer_markers(AnswerMarkerParams(), {"languages": langs}).tiers
    (('final answer:', '最终答案：'), ('answer:', '答案是'), ('因此',))
    """
    if params.tiers:
        return params
    languages = resources.get("languages", {})
    merged: list[list[str]] = []
    for lang in params.languages:
        if lang not in languages:
            known = ", ".join(sorted(languages)) or "none"
            raise ValueError(f"unknown language {lang!r} for answer markers (the pack defines: {known})")
        overlay = languages[lang]
        tiers = overlay.get("answer_markers") if isinstance(overlay, Mapping) else None
        if not isinstance(tiers, list) or not all(
            isinstance(tier, list) and all(isinstance(p, str) for p in tier) for tier in tiers
        ):
            raise ValueError(
                f"language {lang!r} needs answer_markers: a list of tiers, each a list of regex strings"
            )
        for index, tier in enumerate(tiers):
            if index == len(merged):
                merged.append([])
            merged[index].extend(tier)
    if not any(merged):
        raise ValueError(f"no answer markers for languages {list(params.languages)!r}")
    # validated again (not model_copy): the resolved patterns must compile
    return AnswerMarkerParams.model_validate({**params.model_dump(), "tiers": tuple(tuple(t) for t in merged if t)})


_MARKER_FLAGS: Final = regex.IGNORECASE | regex.MULTILINE
# after the marker: spaces and colons
_DECORATION = r"[\s:：]*"
_BLANK_LINE = r"\n[^\S\n]*\n"
# emphasis opened shortly before the marker on its line: "**Answer: B**", "**The answer is B.**"
_EMPHASIS_BEFORE = r"(\*{1,3}|_{1,3})[^*_\n]{0,24}\Z"


def _guarded(pattern: str) -> regex.Pattern[str]:
    """``pattern`` that neither starts nor ends inside a Latin word ("reanswer:", "answers").

    Only Latin letters count as word characters here: Chinese has no word boundaries, so
    ``答案是`` still matches inside ``因此答案是``.
    """
    return compile_pattern(
        rf"(?<!\p{{Latin}})(?:{pattern})(?:(?<=\p{{Latin}})(?!\p{{Latin}})|(?<!\p{{Latin}}))",
        _MARKER_FLAGS,
    )


@rule(
    "extract_answer_marker",
    version=1,
    scope=("multiple_choice", "math", "extractive_qa"),
    params=AnswerMarkerParams,
    idempotent=False,
    resolve=resolve_answer_markers,
)
def extract_answer_marker(
    text: str, params: AnswerMarkerParams = _DEFAULT_MARKERS, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Keep what follows the last answer marker of the best tier that has one.

    The first tier with any match wins, and within it the last match.  What is kept runs
    from the marker (and any ``:``, ``**`` after it) to the first blank line or the end of
    the text: over-capture rather than cut an answer off.  Matching ignores case; a marker
    never starts or ends inside a Latin word.  No marker → the text unchanged.  The tiers
    come from the pack's language overlays; with none (params never resolved) this raises
    ``ValueError``.  Not idempotent: a weaker marker may remain in what is kept.

    >>> p = AnswerMarkerParams(tiers=(("final answer:",), ("the answer is", "答案是"), ("therefore,?",)))
    >>> extract_answer_marker("So x = 2. Therefore, the answer is (B).\\n\\nDone.", p)
    '(B).'
    >>> extract_answer_marker("**Final Answer:** 42", p)
    '42'
    >>> extract_answer_marker("因此答案是 42", p)
    '42'
    >>> extract_answer_marker("All the answers are here.", p)
    'All the answers are here.'
    >>> extract_answer_marker("Hmm. The answer is A or B.", p.model_copy(update={"include_marker": True}))
    'The answer is A or B.'
    """
    if not params.tiers:
        raise ValueError(
            "extract_answer_marker has no marker tiers: pass tiers, or load it from a pack so "
            "they are resolved from the language overlays"
        )
    for tier in params.tiers:
        matches: list[regex.Match[str]] = []
        for pattern in tier:
            matches.extend(_guarded(pattern).finditer(text, timeout=timeout))
        matches = _outside_code(text, matches, timeout=timeout)
        matches.sort(key=lambda m: (m.end(), m.start()))
        for index in range(len(matches) - 1, -1, -1):
            begin, end = _answer_span(text, matches[index], timeout=timeout)
            if begin == end:
                continue
            if params.conflict == "keep" and index > 0:
                return text[min(m.start() for m in matches[: index + 1]) : end].strip()
            if params.include_marker:
                return text[matches[index].start() : end].strip()
            return text[begin:end]
    return text


def _outside_code(text: str, matches: list[regex.Match[str]], *, timeout: float) -> list[regex.Match[str]]:
    """``matches`` that do not start inside a fenced code block: a marker or a box written
    in code (a comment, a string) is not the model stating its answer."""
    if not matches or ("```" not in text and "~~~" not in text):
        return matches
    fences = find_fences(text, timeout=timeout)
    return [m for m in matches if not any(f.start <= m.start() < f.end for f in fences)]


def _skip_decoration(text: str, pos: int, *, timeout: float) -> int:
    found = compile_pattern(_DECORATION).match(text, pos, timeout=timeout)
    return found.end() if found is not None else pos


def _answer_span(text: str, match: regex.Match[str], *, timeout: float) -> tuple[int, int]:
    """Where the answer after ``match`` lies: to the first blank line, stripped, with the
    emphasis that wraps the marker (``**Answer:** B``, ``**Answer: B**``) left out."""
    emphasis = compile_pattern(_EMPHASIS_BEFORE).search(
        text, max(0, match.start() - 32), match.start(), timeout=timeout
    )
    run = emphasis[1] if emphasis is not None else ""
    begin = _skip_decoration(text, match.end(), timeout=timeout)
    if run and text.startswith(run, begin):  # the marker's own bold closes: **Answer:** B
        begin = _skip_decoration(text, begin + len(run), timeout=timeout)
    blank = compile_pattern(_BLANK_LINE).search(text, begin, timeout=timeout)
    end = blank.start() if blank is not None else len(text)
    while end > begin and text[end - 1].isspace():
        end -= 1
    if run and text.endswith(run, begin, end) and text.count(run, begin, end) % 2 == 1:
        end -= len(run)  # **Answer: B** → B
        while end > begin and text[end - 1].isspace():
            end -= 1
    return begin, end


# --------------------------------------------------------------------------- boxed


_BOX = r"\\(?:boxed|fbox)(?![A-Za-z])"


class BoxedParams(Params):
    """``conflict``: ``"last"`` — the last box wins; ``"keep"`` — when the outermost closed
    boxes disagree the text is left unchanged, so a strict parser can report the conflict."""

    conflict: Literal["last", "keep"] = "last"


_DEFAULT_BOXED: Final = BoxedParams()


@rule("extract_boxed", version=1, scope=("math", "multiple_choice"), params=BoxedParams)
def extract_boxed(text: str, params: BoxedParams = _DEFAULT_BOXED, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    r"""Keep the content of the last ``\boxed{…}`` or ``\fbox{…}``, nested braces included.

    Braces are matched with a counter (``\{`` and ``\}`` do not count); ``\boxed 5`` (the
    space form) keeps the token after the space, up to whitespace or ``$``.  The last box
    (the one that starts last) wins; if it is never closed the text is unchanged, and so it
    is when there is no box.  The content is stripped.  With ``conflict="keep"``, boxes
    that disagree leave the text unchanged.

    >>> extract_boxed(r"First \boxed{1}, finally $\boxed{\frac{1}{2}}$.")
    '\\frac{1}{2}'
    >>> extract_boxed(r"so \boxed 5$ is it")
    '5'
    >>> extract_boxed(r"cut off: \boxed{\frac{1}{2")
    'cut off: \\boxed{\\frac{1}{2'
    >>> extract_boxed(r"\boxed{4} or \boxed{5}", BoxedParams(conflict="keep"))
    '\\boxed{4} or \\boxed{5}'
    >>> extract_boxed("\\boxed{7}\n```latex\n\\boxed{x}\n```")
    '7'
    """
    boxes = _outside_code(text, list(compile_pattern(_BOX).finditer(text, timeout=timeout)), timeout=timeout)
    if not boxes:
        return text
    if params.conflict == "keep":
        pairs = _brace_pairs(text)
        contents: set[str] = set()
        reach = -1
        for box in boxes:
            if box.start() < reach:
                continue  # inside an earlier box
            span = _box_span(text, box, pairs.get, timeout=timeout)
            if span is not None:
                contents.add(text[span[0] : span[1]].strip())
                reach = span[1]
        if len(contents) > 1:
            return text
    span = _box_span(text, boxes[-1], _brace_pairs(text).get, timeout=timeout)
    return text[span[0] : span[1]].strip() if span is not None else text


def _box_span(
    text: str, box: regex.Match[str], closer: Callable[[int], int | None], *, timeout: float
) -> tuple[int, int] | None:
    """The content span of the box that ``box`` opens, or ``None`` if it is not closed."""
    pos = box.end()
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text):
        return None
    if text[pos] == "{":
        end = closer(pos)
        return (pos + 1, end) if end is not None else None
    if pos == box.end():  # neither "{" nor a space: \boxedx is not a box
        return None
    token = compile_pattern(r"[^\s$]+").match(text, pos, timeout=timeout)
    return (pos, token.end()) if token is not None else None


def _brace_pairs(text: str) -> dict[int, int]:
    """Every matched ``{`` index → its ``}`` index, in one pass; backslash escapes skip a char."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    i = 0
    n = len(text)
    while i < n:
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "{":
            stack.append(i)
        elif char == "}" and stack:
            pairs[stack.pop()] = i
        i += 1
    return pairs


# --------------------------------------------------------------------------- separators


class SeparatorParams(Params):
    """The separators after whose last occurrence the answer comes."""

    separators: StrTuple = ("####", "最终输出:", "最终输出：")

    @field_validator("separators")
    @classmethod
    def _not_empty(cls, separators: tuple[str, ...]) -> tuple[str, ...]:
        if not separators or any(not s for s in separators):
            raise ValueError(f"separators must be non-empty strings, got {separators!r}")
        return separators


_DEFAULT_SEPARATORS: Final = SeparatorParams()


@rule("split_on_separator", version=1, scope=("math", "extractive_qa"), params=SeparatorParams)
def split_on_separator(
    text: str, params: SeparatorParams = _DEFAULT_SEPARATORS, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Keep what follows the last separator (GSM8K's ``####``, ``最终输出:``), stripped.

    Plain substring search, no regex.  A separator with nothing but whitespace after it is
    passed over for the one before; no separator with an answer after it → unchanged.

    >>> split_on_separator("Natalia sold 48 + 24 = 72 clips.\\n#### 72")
    '72'
    >>> split_on_separator("推理过程……\\n最终输出：北京")
    '北京'
    >>> split_on_separator("no separator")
    'no separator'
    """
    limit = len(text)
    while True:
        best_start, best_end = -1, -1
        for separator in params.separators:
            start = text.rfind(separator, 0, limit)
            if start > best_start or (start == best_start and start + len(separator) > best_end):
                best_start, best_end = start, start + len(separator)
        if best_start < 0:
            return text
        answer = text[best_end:].strip()
        if answer:
            return answer
        limit = best_end - 1  # look for the occurrence before this one


# --------------------------------------------------------------------------- JSON


_JSON_START = r"\s*(?:[\"'{\[\]}\-.0-9]|(?:true|false|null|True|False|None)(?![\w]))"
_JSON_SPECIAL = r"[\[\]{}\"'\\]"
_MAX_PARSE_ATTEMPTS: Final = 1000
_PAIRS: Final = {"}": "{", "]": "["}


@dataclass(frozen=True)
class _Span:
    start: int
    end: int  # exclusive


@rule("extract_json_block", version=1, scope=("structured_json",))
def extract_json_block(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Keep the first balanced JSON object or array, looking in a fenced ``json`` block first.

    Order of search: the first fence tagged ``json``; fences with no language whose content
    starts with ``{`` or ``[``; the whole text.  In each, brackets are matched with an
    explicit stack that skips over strings (``"…"``, and ``'…'`` where a value or key can
    start) and their escapes, in one linear pass.  Of the blocks found, the first outermost
    one that parses as JSON wins; failing that the first block that at least starts like
    JSON (a later rule may repair it).  Nothing found → the text unchanged.

    >>> extract_json_block('Sure! Here it is: {"a": "}", "b": [1, 2]} Hope it helps.')
    '{"a": "}", "b": [1, 2]}'
    >>> extract_json_block('See [1].\\n```json\\n{"ok": true}\\n```')
    '{"ok": true}'
    >>> extract_json_block("no json [here]")
    'no json [here]'
    """
    fences = find_fences(text, timeout=timeout)
    regions: list[tuple[int, int]] = []
    tagged = next((f for f in fences if f.lang == "json"), None)
    if tagged is not None:
        regions.append((tagged.content_start, tagged.content_end))
    for fence in fences:
        if fence.lang == "" and fence.content(text).lstrip()[:1] in ("{", "["):
            regions.append((fence.content_start, fence.content_end))
    regions.append((0, len(text)))
    for start, end in regions:
        span = _first_json_span(text, start, end, timeout=timeout)
        if span is not None:
            return text[span.start : span.end]
    return text


def _first_json_span(text: str, start: int, end: int, *, timeout: float) -> _Span | None:
    spans = _balanced_spans(text, start, end, timeout=timeout)
    if not spans:
        return None
    decoder = json.JSONDecoder(strict=False)
    reach = -1
    attempts = 0
    for span in spans:  # outermost spans first: they are the ones not inside an earlier span
        if span.start < reach:
            continue
        reach = span.end
        attempts += 1
        if attempts > _MAX_PARSE_ATTEMPTS:
            break
        try:
            _, stop = decoder.raw_decode(text, span.start)
        except (ValueError, RecursionError):
            continue
        if stop == span.end:
            return span
    looks_like_json = compile_pattern(_JSON_START)
    for span in spans:
        if looks_like_json.match(text, span.start + 1, span.end, timeout=timeout):
            return span
    return None


def _balanced_spans(text: str, start: int, end: int, *, timeout: float) -> list[_Span]:
    """Every balanced ``{…}``/``[…]`` in ``text[start:end]``, ordered by start (outer first).

    One pass with an explicit stack (no recursion).  A closer that does not match the top
    of the stack closes the nearest matching opener below it (the openers above are dropped
    unfinished) or, if there is none, is ignored.  Spans nest or are disjoint.
    """
    stack: list[tuple[str, int]] = []
    open_count = {"{": 0, "[": 0}
    spans: list[_Span] = []
    quote = ""  # the quote character of the string we are in, if any
    skip = -1  # position of a character escaped by a backslash inside a string
    for match in compile_pattern(_JSON_SPECIAL).finditer(text, start, end, timeout=timeout):
        pos = match.start()
        char = text[pos]
        if quote:
            if pos == skip:
                continue
            if char == "\\":
                skip = pos + 1
            elif char == quote:
                quote = ""
            continue
        if char in "{[":
            stack.append((char, pos))
            open_count[char] += 1
        elif char in "}]":
            opener = _PAIRS[char]
            if open_count[opener] == 0:
                continue
            while True:
                kind, at = stack.pop()
                open_count[kind] -= 1
                if kind == opener:
                    break
            spans.append(_Span(at, pos + 1))
        elif stack and (char == '"' or (char == "'" and _value_may_start(text, pos, start))):
            quote = char
    spans.sort(key=lambda s: s.start)
    return spans


def _value_may_start(text: str, pos: int, floor: int) -> bool:
    """Whether a ``'`` at ``pos`` can open a (Python-style) string: after ``{ [ , :``."""
    i = pos - 1
    while i >= floor and text[i].isspace():
        i -= 1
    return i >= floor and text[i] in "{[,:"


# --------------------------------------------------------------------------- code


class CodeBlockParams(Params):
    """Which fence to keep, and the info-string languages to prefer (lowercase)."""

    which: Literal["first", "last"] = "last"
    languages: StrTuple = ()

    @field_validator("languages")
    @classmethod
    def _lowercase(cls, languages: tuple[str, ...]) -> tuple[str, ...]:
        if any(not lang or lang != lang.lower() or lang.split() != [lang] for lang in languages):
            raise ValueError(f"languages must be lowercase single words, got {languages!r}")
        return languages


_DEFAULT_CODE: Final = CodeBlockParams()


@rule(
    "extract_code_block",
    version=1,
    scope=("code",),
    params=CodeBlockParams,
    idempotent=False,
)
def extract_code_block(
    text: str, params: CodeBlockParams = _DEFAULT_CODE, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Keep the content of one fenced code block, byte for byte.

    Among the fences whose language is one of ``languages`` (if any is), else among all
    fences, take the ``first`` or the ``last``.  Indentation, tabs and full-width characters
    stay exactly as they are.  No fence → the text unchanged.  Not idempotent: a block may
    itself hold a fenced block (markdown inside a longer ```` fence).

    >>> extract_code_block("Here:\\n```python\\ndef f():\\n\\treturn '你好'\\n```\\nDone.")
    "def f():\\n\\treturn '你好'"
    >>> extract_code_block("```sh\\npip install x\\n```\\n```py\\nx = 1\\n```", CodeBlockParams(which="first", languages=("py",)))
    'x = 1'
    """
    fences = find_fences(text, timeout=timeout)
    if not fences:
        return text
    preferred = [f for f in fences if f.lang in params.languages]
    pool = preferred or fences
    chosen = pool[0] if params.which == "first" else pool[-1]
    return chosen.content(text)


# --------------------------------------------------------------------------- a pack's own pattern

#: Flag names an ``extract_regex`` pattern may use (those of the ``regex`` module).
RegexFlag = Literal["IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE", "ASCII", "UNICODE"]


class ExtractRegexParams(Params):
    """``pattern``: a regular expression (``regex`` module syntax), supplied by the pack.

    ``group``: the capture group to keep, a number or a name; by default group 1 when the
    pattern has a group, else the whole match.  ``flags``: names such as ``IGNORECASE``,
    ``MULTILINE``, ``DOTALL``.  ``which``: ``last`` (the default: the last match is the
    final answer) or ``first``.  ``strip``: trim whitespace around what is kept.

    The pattern is checked when the pack loads (it must compile and have the group) and, as a
    user-supplied pattern, runs under the pack's ``regex_timeout`` on every call: a pattern
    that backtracks catastrophically gives the row status ``error``, never a hang.
    """

    pattern: str
    group: int | str | None = None
    flags: Annotated[tuple[RegexFlag, ...], BeforeValidator(as_tuple)] = ()
    which: Literal["last", "first"] = "last"
    strip: bool = True

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        if not pattern:
            raise ValueError("pattern must not be empty")
        compile_pattern(pattern)  # ValueError naming the pattern when it does not compile
        return pattern

    @model_validator(mode="after")
    def _group_exists(self) -> ExtractRegexParams:
        compiled = self.compiled()
        if isinstance(self.group, int) and not 0 <= self.group <= compiled.groups:
            raise ValueError(f"group {self.group} is not in pattern {self.pattern!r} ({compiled.groups} groups)")
        if isinstance(self.group, str) and self.group not in compiled.groupindex:
            raise ValueError(f"group {self.group!r} is not a named group of pattern {self.pattern!r}")
        return self

    def compiled(self) -> regex.Pattern[str]:
        flags = 0
        for name in self.flags:
            flags |= int(getattr(regex, name))
        return compile_pattern(self.pattern, flags)

    def chosen_group(self) -> int | str:
        if self.group is not None:
            return self.group
        return 1 if self.compiled().groups else 0


@rule("extract_regex", version=1, scope=ALL_TYPES, params=ExtractRegexParams, idempotent=False)
def extract_regex(text: str, params: ExtractRegexParams, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Keep a capture group of a pack's own pattern: the last match by default.

    A data-only extraction rule: a pack author adds a pattern without writing Python.  No
    match (or the group took no part in any match) → the text unchanged.

    >>> extract_regex("Reasoning... ANSWER: 42", ExtractRegexParams(pattern=r"ANSWER:\\s*(\\S+)"))
    '42'
    >>> extract_regex("verdict=yes; verdict=no", ExtractRegexParams(pattern=r"verdict=(?P<v>\\w+)", group="v", which="first"))
    'yes'
    >>> extract_regex("no marker here", ExtractRegexParams(pattern=r"ANSWER:\\s*(\\S+)"))
    'no marker here'
    """
    group = params.chosen_group()
    found: str | None = None
    for match in params.compiled().finditer(text, timeout=timeout):
        value = match.group(group)
        if value is None:
            continue
        found = value
        if params.which == "first":
            break
    if found is None:
        return text
    return found.strip() if params.strip else found
