"""Finding fenced code blocks, and applying a text function only outside them.

A fence opens with three or more backticks or tildes at the start of a line (up to three
spaces of indentation, as in CommonMark), optionally followed by an info string such as
``python``; it closes with a line of at least as many of the same character.  An unclosed
fence runs to the end of the text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import regex

from normalize._budget import check_budget

_OPEN = regex.compile(r"(?m)^(?P<indent>[ ]{0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)$")


@dataclass(frozen=True)
class Fence:
    """A fenced block: the whole span, the content span, and the info string's first word."""

    start: int
    end: int
    content_start: int
    content_end: int
    lang: str
    closed: bool

    def content(self, text: str) -> str:
        return text[self.content_start : self.content_end]


def find_fences(text: str, *, timeout: float | None = None) -> list[Fence]:
    """Every fenced code block of ``text``, in order.

    Linear: one forward scan; each fence's closing line is searched from its opening, and the
    next search starts after that closer (an unclosed fence ends the scan).  The patterns are
    built in and linear, so they run without a per-call timeout (``timeout`` is accepted for
    older callers and unused).

    >>> [f.lang for f in find_fences("a\\n```py\\nx = 1\\n```\\nb\\n~~~\\ny\\n")]
    ['py', '']
    """
    if not may_have_fences(text):
        return []  # no run of three backticks or tildes: no fence, no scan, no cache entry
    return list(_fences(text))


@lru_cache(maxsize=8)
def _closing(char: str, length: int) -> regex.Pattern[str]:
    return regex.compile(rf"(?m)^[ ]{{0,3}}{regex.escape(char)}{{{length},}}[ \t\r]*$")


@lru_cache(maxsize=8)
def _fences(text: str) -> tuple[Fence, ...]:
    """:func:`find_fences`, cached for the last few texts: the rules of a chain that leave the
    text unchanged (most of them, most of the time) then scan it for fences once."""
    fences: list[Fence] = []
    append = fences.append
    n = len(text)
    pos = 0
    ahead: dict[str, int] = {}  # where each run of three backticks or tildes occurs next
    while True:
        check_budget()
        opening = _line_search(_OPEN, ("```", "~~~"), text, pos, ahead)
        if opening is None:
            return tuple(fences)
        start, end = opening.span()
        fence, info = opening.group("fence", "info")
        char = fence[0]
        info = info.strip()
        if char == "`" and "`" in info:
            pos = end
            continue
        content_start = end + 1 if end < n else end
        closing = _line_search(_closing(char, len(fence)), (char * 3,), text, content_start, ahead)
        if closing is None:
            append(Fence(start, n, content_start, n, _lang(info), False))
            return tuple(fences)
        close_start, close_end = closing.span()
        content_end = max(content_start, close_start - 1) if close_start > content_start else content_start
        append(Fence(start, close_end, content_start, content_end, _lang(info), True))
        pos = close_end


#: A mark this close to where a fence search starts: the regex scan is cheaper than the marks.
_NEAR = 64


def _line_search(
    pattern: regex.Pattern[str], marks: tuple[str, ...], text: str, pos: int, ahead: dict[str, int]
) -> regex.Match[str] | None:
    """``pattern.search(text, pos)`` for a fence line pattern (``(?m)^[ ]{0,3}`` then a run that
    starts with one of ``marks``), without trying every position: a match starts at the line
    start of a mark that up to three spaces precede, so only those line starts are tried.

    ``ahead`` keeps, per mark, where it next occurs (``-1``: nowhere further) for calls whose
    ``pos`` never decreases (one scan of one text), so ``str.find`` never scans a stretch twice.
    Linear overall: the line start is carried along (each stretch is searched for a line break
    once), and a line start is tried at most four times.
    """
    if any(text.find(mark, pos, pos + _NEAR) >= 0 for mark in marks):
        return pattern.search(text, pos)  # fences close together: the engine's scan is short
    line_start = -1
    scanned = pos
    at = pos
    while True:
        mark_at = -1
        for mark in marks:
            known = ahead.get(mark, -2)
            if known == -2 or 0 <= known < at:
                known = ahead[mark] = text.find(mark, at)
            if known >= 0 and (mark_at < 0 or known < mark_at):
                mark_at = known
        if mark_at < 0:
            return None
        if line_start < 0:  # the first mark
            if mark_at - pos < _NEAR:
                return pattern.search(text, pos)  # fences close together: the engine's scan is short
            line_start = text.rfind("\n", 0, pos) + 1
        newline = text.rfind("\n", scanned, mark_at)
        if newline >= 0:
            line_start = newline + 1
        scanned = mark_at
        if line_start >= pos and mark_at - line_start <= 3 and not text[line_start:mark_at].strip(" "):
            match = pattern.match(text, line_start)
            if match is not None:
                return match
        at = mark_at + 1


def _lang(info: str) -> str:
    words = info.split(None, 1)
    return words[0].lower() if words else ""


def may_have_fences(text: str) -> bool:
    """Whether ``text`` can hold a fence at all (three backticks or tildes in a row).

    >>> may_have_fences("a ``b`` c"), may_have_fences("~~~")
    (False, True)
    """
    return "```" in text or "~~~" in text


def outside_fences(text: str, fn: Callable[[str], str], *, timeout: float | None = None) -> str:
    """Apply ``fn`` to the prose between fenced blocks; the blocks stay byte for byte.

    One :func:`find_fences` plus one call of ``fn`` per prose segment (``timeout`` is unused).

    >>> outside_fences("Say “hi”\\n```\\nprint(“hi”)\\n```", lambda s: s.replace("“", '"'))
    'Say "hi”\\n```\\nprint(“hi”)\\n```'
    """
    fences = find_fences(text)
    if not fences:
        return fn(text)
    parts: list[str] = []
    pos = 0
    for fence in fences:
        parts.append(fn(text[pos : fence.start]) if fence.start > pos else "")
        parts.append(text[fence.start : fence.end])
        pos = fence.end
    if pos < len(text):
        parts.append(fn(text[pos:]))
    return "".join(parts)
