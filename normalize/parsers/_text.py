"""Strict parsers: text → answer, or None with a status and a reason.  Never a guess."""

from __future__ import annotations

from normalize import status as st
from normalize.core.registry import NoParams, ParseContext, Parsed, parser


@parser("text", version=1)
def parse_text(text: str, params: NoParams, ctx: ParseContext) -> Parsed:
    """The normalized string; empty → ``no_answer``.

    Bound: O(n).

    >>> parse_text("  ", NoParams(), ParseContext())
    Parsed(answer=None, status='no_answer', reason='the normalized text is empty')
    """
    if not text.strip():
        return Parsed(None, st.NO_ANSWER, "the normalized text is empty")
    return Parsed(text, st.OK)


@parser("code", version=1)
def parse_code(text: str, params: NoParams, ctx: ParseContext) -> Parsed:
    """The code, unchanged; only code that is all whitespace is ``no_answer``.

    Bound: O(n).

    >>> parse_code("def f():\\n    return 1", NoParams(), ParseContext()).answer
    'def f():\\n    return 1'
    """
    if not text.strip():
        return Parsed(None, st.NO_ANSWER, "no code found")
    return Parsed(text, st.OK)
