"""Finding fenced code blocks, and applying a text function only outside them.

A fence opens with three or more backticks or tildes at the start of a line (up to three
spaces of indentation, as in CommonMark), optionally followed by an info string such as
``python``; it closes with a line of at least as many of the same character.  An unclosed
fence runs to the end of the text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import regex

from normalize._regex import compile_pattern

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


def find_fences(text: str, *, timeout: float = 0.5) -> list[Fence]:
    """Every fenced code block of ``text``, in order.

    >>> [f.lang for f in find_fences("a\\n```py\\nx = 1\\n```\\nb\\n~~~\\ny\\n")]
    ['py', '']
    """
    fences: list[Fence] = []
    pos = 0
    while True:
        opening = _OPEN.search(text, pos, timeout=timeout)
        if opening is None:
            return fences
        char = opening["fence"][0]
        length = len(opening["fence"])
        info = opening["info"].strip()
        if char == "`" and "`" in info:
            pos = opening.end()
            continue
        content_start = opening.end() + 1 if opening.end() < len(text) else opening.end()
        closing = compile_pattern(rf"(?m)^[ ]{{0,3}}{regex.escape(char)}{{{length},}}[ \t\r]*$").search(
            text, content_start, timeout=timeout
        )
        if closing is None:
            fences.append(Fence(opening.start(), len(text), content_start, len(text), _lang(info), False))
            return fences
        content_end = max(content_start, closing.start() - 1) if closing.start() > content_start else content_start
        fences.append(Fence(opening.start(), closing.end(), content_start, content_end, _lang(info), True))
        pos = closing.end()


def _lang(info: str) -> str:
    return info.split()[0].lower() if info.split() else ""


def outside_fences(text: str, fn: Callable[[str], str], *, timeout: float = 0.5) -> str:
    """Apply ``fn`` to the prose between fenced blocks; the blocks stay byte for byte.

    >>> outside_fences("Say “hi”\\n```\\nprint(“hi”)\\n```", lambda s: s.replace("“", '"'))
    'Say "hi”\\n```\\nprint(“hi”)\\n```'
    """
    fences = find_fences(text, timeout=timeout)
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
