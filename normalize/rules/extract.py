r"""Stage 1, extract: cut the part of a raw output that is to be scored out of everything else.

Extraction runs first, on the output as close to raw as possible, and over-captures rather
than cuts off: a tail that later stages can clean is better than a lost answer.  The extract
rules live in four modules by what they look for:

* here: :func:`remove_think_blocks` drops ``<think>`` reasoning; :func:`extract_boxed` keeps
  the content of the last ``\boxed{…}``; :func:`split_on_separator` keeps what follows the last
  ``####`` / ``最终输出:``; :func:`extract_regex` keeps a capture group of a pattern the pack
  supplies (data only);
* :mod:`normalize.rules.extract_markers`: what follows "the answer is" / "答案是"
  (``extract_answer_marker``) and what a pack's answer formats enclose (``extract_answer_format``);
* :mod:`normalize.rules.extract_json`: the first balanced JSON object or array;
* :mod:`normalize.rules.extract_code`: one fenced code block, byte for byte;
* :mod:`normalize.rules.extract_math`: the answer statement of a math solution.

Every rule returns its input unchanged when there is nothing to extract.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Final

import regex

from normalize import status as st
from normalize.core.registry import ALL_TYPES, DEFAULT_TIMEOUT, NoParams, rule
from normalize.errors import RejectText
from normalize.limits._literals import fold
from normalize.limits._regex import char_finder, compile_pattern, user_compiled
from normalize.rules._extract_params import BoxedParams, ExtractRegexParams, SeparatorParams
from normalize.rules._fences import Fence, find_fences
from normalize.rules._speed import fence_free, outside_code
from normalize.values._phrases import RETRACTION, may_retract

_NO_PARAMS: Final = NoParams()


# --------------------------------------------------------------------------- think blocks

_THINK_TAG = r"<\s*(?P<close>/?)\s*think(?:ing)?\s*>"
#: :data:`_THINK_TAG` as the ``regex`` module reads it (case-insensitively), spelt out for the
#: standard library's ``re``: ``\s`` is the ``regex`` module's whitespace (the stdlib's adds
#: ``\x1c-\x1f``), each letter the characters it matches ignoring case (``i`` also ``İ``, ``k``
#: also the Kelvin sign).  A test checks both against every code point; the standard library
#: finds tags and reads their groups several times faster.
_WS: Final = "\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
_THINK_TAG_STDLIB: Final = re.compile(
    rf"<[{_WS}]*(?P<close>/?)[{_WS}]*[tT][hH][iI\u0130][nN][kK\u212a](?:[iI\u0130][nN][gG])?[{_WS}]*>"
)


#: The reason an output that is all unfinished reasoning gets (status ``no_answer``); the report
#: counts the rows whose reason starts with it.
TRUNCATED_REASONING: Final = "truncated_reasoning"


@rule("remove_think_blocks", version=2, scope=ALL_TYPES)
def remove_think_blocks(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Remove ``<think>…</think>`` reasoning (also ``<thinking>``), however it was cut short.

    A closed block is removed, however many there are; an unterminated ``<think>`` drops
    everything from the tag on (the model ran out of tokens while reasoning), and when nothing
    is left outside the reasoning the output is ``no_answer`` with the reason
    ``truncated_reasoning`` (never an answer read out of unfinished thoughts); a ``</think>`` with no opener drops
    everything up to and including it (chat templates that inject the opening tag).  Tags
    are matched case-insensitively.  Outside reasoning, tags inside a closed fenced code block
    are code and stay; inside reasoning, fences are ignored and the first closer ends it.  The
    whitespace where two kept pieces join becomes one separator (none, a space, a newline
    or a blank line, whichever the removed whitespace held).

    Bound: O(n): one tag scan, one fence scan, a bisect per tag.

    >>> remove_think_blocks("<think>\\n2+2 is 4\\n</think>\\n\\nThe answer is 4.")
    'The answer is 4.'
    >>> remove_think_blocks("First, 2+2 ... hmm</think>The answer is 4.")
    'The answer is 4.'
    >>> remove_think_blocks("Answer: 4 <THINKING>let me double-check")
    'Answer: 4'
    >>> remove_think_blocks("<think>a</think>x <think>b</think> y")
    'x y'
    >>> remove_think_blocks("<think>so the answer is 4, but let me check")
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: no_answer: truncated_reasoning: the output ends inside an unclosed <think> block and states nothing outside it (the token budget ran out while reasoning)
    >>> remove_think_blocks("no reasoning here ")
    'no reasoning here '
    """
    if "<" not in text:
        return text  # every tag starts with "<"
    tags = list(_THINK_TAG_STDLIB.finditer(text))
    if not tags:
        return text
    fences = [] if fence_free(text) else [fence for fence in find_fences(text) if fence.closed]
    starts = [fence.start for fence in fences]
    kept: list[tuple[int, int]] = []  # spans of text outside every block
    pos = 0  # where the current stretch of kept text began
    inside = False
    found = False
    for match in tags:
        if fences and not inside and _in_code(match.start(), pos, fences, starts):
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
    elif not any(text[start:end].strip() for start, end in kept):
        raise RejectText(
            st.NO_ANSWER,
            f"{TRUNCATED_REASONING}: the output ends inside an unclosed <think> block and states nothing "
            "outside it (the token budget ran out while reasoning)",
        )
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


# --------------------------------------------------------------------------- boxed


_BOX = r"\\(?:boxed|fbox)(?![A-Za-z])"


_DEFAULT_BOXED: Final = BoxedParams()


@rule("extract_boxed", version=2, scope=("math", "multiple_choice"), params=BoxedParams)
def extract_boxed(text: str, params: BoxedParams = _DEFAULT_BOXED, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    r"""Keep the content of the last ``\boxed{…}`` or ``\fbox{…}``, nested braces included.

    Braces are matched with a counter (``\{`` and ``\}`` do not count); ``\boxed 5`` (the
    space form) keeps the token after the space, up to whitespace or ``$``.  The last box
    (the one that starts last) wins; if it is never closed the text is unchanged, and so it
    is when there is no box.  The content is stripped.  With ``conflict="keep"``, boxes
    that disagree leave the text unchanged.  So does a retraction after the last box
    (``\boxed{B}. But wait, it is C.``): the parser reads the correction, and the box alone
    would have been an answer taken back.

    Bound: O(n): one box scan, one fence scan; the last box's brace is matched from the box on (``keep``: one pass over all braces).

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
    >>> extract_boxed(r"\boxed{B}. But wait, it is C.")
    '\\boxed{B}. But wait, it is C.'
    """
    if "\\" not in text:
        return text  # every box starts with a backslash
    boxes = outside_code(text, list(compile_pattern(_BOX).finditer(text)))
    if not boxes:
        return text
    if params.conflict == "keep":
        pairs = _brace_pairs(text)
        contents: set[str] = set()
        reach = -1
        for box in boxes:
            if box.start() < reach:
                continue  # inside an earlier box
            span = _box_span(text, box, pairs.get)
            if span is not None:
                contents.add(text[span[0] : span[1]].strip())
                reach = span[1]
        if len(contents) > 1:
            return text
    span = _box_span(text, boxes[-1], lambda at: _closing_brace(text, at))
    if span is None:
        return text
    after = text[span[1] :]
    if may_retract(fold(after)) and compile_pattern(RETRACTION).search(after) is not None:
        return text  # "\boxed{B}. But wait, it is C.": the box was taken back
    return text[span[0] : span[1]].strip()


def _box_span(
    text: str, box: regex.Match[str], closer: Callable[[int], int | None]
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
    token = compile_pattern(r"[^\s$]+").match(text, pos)
    return (pos, token.end()) if token is not None else None


def _closing_brace(text: str, pos: int) -> int | None:
    """The index of the ``}`` that closes the ``{`` at ``pos`` (not itself escaped), or ``None``.

    Reads only from ``pos`` to the closer, jumping from brace to brace: the same pairs as
    :func:`_brace_pairs` (a backslash escapes the next character), without walking the text
    before the box character by character.  O(distance to the closer).
    """
    depth = 0
    skip = -1
    for match in _BRACE_FINDER.finditer(text, pos):
        at = match.start()
        if at == skip:
            continue
        char = text[at]
        if char == "\\":
            skip = at + 1
        elif char == "{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return at
    return None


def _brace_pairs(text: str) -> dict[int, int]:
    """Every matched ``{`` index → its ``}`` index, in one pass; backslash escapes skip a char."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    skip = -1  # the character after a backslash: escaped (what stepping by two did)
    for match in _BRACE_FINDER.finditer(text):  # jumps from brace to brace, not char by char
        at = match.start()
        if at == skip:
            continue
        char = text[at]
        if char == "\\":
            skip = at + 1
        elif char == "{":
            stack.append(at)
        elif stack:
            pairs[stack.pop()] = at
    return pairs


#: A brace or a backslash, as a stdlib ``re`` class (a plain class scans several times faster).
_BRACE_FINDER: Final = char_finder("\\{}")


# --------------------------------------------------------------------------- separators


_DEFAULT_SEPARATORS: Final = SeparatorParams()


@rule("split_on_separator", version=1, scope=("math", "extractive_qa"), params=SeparatorParams)
def split_on_separator(
    text: str, params: SeparatorParams = _DEFAULT_SEPARATORS, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Keep what follows the last separator (GSM8K's ``####``, ``最终输出:``), stripped.

    Plain substring search, no regex.  A separator with nothing but whitespace after it is
    passed over for the one before; no separator with an answer after it → unchanged.

    Bound: O(n): ``rfind`` per separator, at most two rounds.

    >>> split_on_separator("Natalia sold 48 + 24 = 72 clips.\\n#### 72")
    '72'
    >>> split_on_separator("推理过程……\\n最终输出：北京")
    '北京'
    >>> split_on_separator("no separator")
    'no separator'
    """
    for separator in params.separators:
        for char in separator:
            if char not in text:
                break  # this separator occurs nowhere
        else:
            break  # this one may occur: search
    else:
        # every separator holds a character the text lacks: each rfind would give -1 (one-
        # character ``in`` tests are memchr scans, cheaper than rfind on long texts)
        return text
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


# --------------------------------------------------------------------------- a pack's own pattern


def _bind_extract_regex(params: ExtractRegexParams) -> Callable[..., str]:
    """:func:`extract_regex` on ``params``, the pattern compiled, proven (or not) and its group
    chosen once, when a chain is bound (the engine's loop; the same text on every input).

    A proven pattern is searched once first: most texts hold no match, and then no iterator is
    built (``finditer`` costs ~0.15 µs a call more than ``search``).  After a non-empty first
    match the scan resumes at its end, as ``finditer`` itself does (the position before it
    stays visible to look-behinds and ``\\b``; ``^`` and ``\\A`` do not match there): the same
    matches in the same order.  After an empty first match the plain scan runs again from the
    start.  An unproven pattern keeps one ``finditer`` call under the timeout, as before.
    """
    compiled, linear = user_compiled(params.pattern, params._flag_bits() if params.flags else 0)
    search = compiled.search
    finditer = compiled.finditer
    group = params.chosen_group()
    first = params.which == "first"
    strip = params.strip

    def picked(text: str, matches: Iterable[regex.Match[str]], found: str | None) -> str:
        """The group of the first or last match that has it, else ``text`` unchanged."""
        for match in matches:
            value = match.group(group)
            if value is None:
                continue
            found = value
            if first:
                break
        if found is None:
            return text
        return found.strip() if strip else found

    def timed(text: str, _params: ExtractRegexParams, *, timeout: float = DEFAULT_TIMEOUT) -> str:
        return picked(text, finditer(text, timeout=timeout), None)

    def bound(text: str, _params: ExtractRegexParams, *, timeout: float = DEFAULT_TIMEOUT) -> str:
        match = search(text)
        if match is None:
            return text  # no match anywhere: what the loop gives
        found: str | None = match.group(group)
        if found is not None and first:
            return found.strip() if strip else found
        end = match.end()
        # the matches after the first one: where finditer resumes (see the docstring)
        return picked(text, finditer(text, end) if end > match.start() else finditer(text), found)

    return bound if linear else timed


@rule(
    "extract_regex", version=1, scope=ALL_TYPES, params=ExtractRegexParams, idempotent=False,
    bind=_bind_extract_regex,
)  # fmt: skip
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
    for match in params.finditer(text, timeout):  # no timeout where the pattern is proven linear
        value = match.group(group)
        if value is None:
            continue
        found = value
        if params.which == "first":
            break
    if found is None:
        return text
    return found.strip() if params.strip else found
