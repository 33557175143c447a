"""Finding fenced code blocks, and applying a text function only outside them.

A fence opens with three or more backticks or tildes at the start of a line (up to three
spaces of indentation, as in CommonMark), optionally followed by an info string such as
``python``; it closes with a line of at least as many of the same character.  An unclosed
fence runs to the end of the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from normalize.limits._budget import check_budget

#: Stdlib ``re``: these patterns use only what ``re`` and ``regex`` read alike (``^``/``$`` at
#: ``\n`` only, plain classes), and ``re`` matches them several times faster per call.
_OPEN = re.compile(r"(?m)^(?P<indent>[ ]{0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)$")


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
def _closing(char: str, length: int) -> re.Pattern[str]:
    return re.compile(rf"(?m)^[ ]{{0,3}}{re.escape(char)}{{{length},}}[ \t\r]*$")


@lru_cache(maxsize=8)
def _fences(text: str) -> tuple[Fence, ...]:
    """:func:`find_fences`, cached for the last few texts: the rules of a chain that leave the
    text unchanged (most of them, most of the time) then scan it for fences once."""
    return tuple([Fence(*fence) for fence in iter_fences(text)])


#: A fence as :func:`iter_fences` gives it: the fields of :class:`Fence`, in order.
FenceTuple = tuple[int, int, int, int, str, bool]


def iter_fences(text: str) -> Iterator[FenceTuple]:
    """The fences of ``text`` one by one, as tuples of :class:`Fence`'s fields: the scan of
    :func:`find_fences`, uncached and lazy, for a caller that may stop at the first it wants.

    >>> [fence[4] for fence in iter_fences("a\\n```py\\nx = 1\\n```\\nb\\n~~~\\ny\\n")]
    ['py', '']
    """
    n = len(text)
    pos = 0
    while True:
        check_budget()
        opening = _line_search(_OPEN, _OPEN_AFTER_BREAK, text, pos)
        if opening is None:
            return
        start, end = opening.span()
        fence, info = opening.group("fence", "info")
        char = fence[0]
        info = info.strip()
        if char == "`" and "`" in info:
            pos = end
            continue
        content_start = end + 1 if end < n else end
        closing = _line_search(_closing(char, len(fence)), _CLOSE_AFTER_BREAK[char], text, content_start)
        if closing is None:
            yield (start, n, content_start, n, _lang(info), False)
            return
        close_start, close_end = closing.span()
        content_end = max(content_start, close_start - 1) if close_start > content_start else content_start
        yield (start, close_end, content_start, content_end, _lang(info), True)
        pos = close_end


#: Where a fence line can start after a line break: up to three spaces, then three backticks or
#: tildes.  Every line that :data:`_OPEN` (or a closer) matches past the first line follows a
#: match of its locator, so the locators find the only line starts worth trying (stdlib ``re``:
#: the line break is a literal prefix it scans for fast; each candidate is confirmed by the pattern).
_OPEN_AFTER_BREAK: Final = re.compile(r"\n[ ]{0,3}(?:```|~~~)")
_CLOSE_AFTER_BREAK: Final = {"`": re.compile(r"\n[ ]{0,3}```"), "~": re.compile(r"\n[ ]{0,3}~~~")}
#: How a fence line begins (a space of its indent, or its first mark).
_LINE_OPENINGS: Final = (" ", "`", "~")


def _line_search(pattern: re.Pattern[str], locator: re.Pattern[str], text: str, pos: int) -> re.Match[str] | None:
    """``pattern.search(text, pos)`` for a fence line pattern (``(?m)^[ ]{0,3}`` then a run of at
    least three backticks or tildes), trying only the line starts where it can match: ``pos``
    itself when it starts a line, then the line after each match of ``locator`` (a line break,
    up to three spaces, three of the marks), in order; the first that matches is the leftmost.

    Linear: the locator scans each stretch once (a search resumes after the candidate it
    rejected), and a line is matched against the pattern at most once.
    """
    if (pos == 0 or text[pos - 1] == "\n") and text.startswith(_LINE_OPENINGS, pos):
        match = pattern.match(text, pos)
        if match is not None:
            return match
    at = pos
    search = locator.search
    while True:
        found = search(text, at)
        if found is None:
            return None
        at = found.start() + 1
        match = pattern.match(text, at)
        if match is not None:
            return match


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
