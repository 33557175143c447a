"""Strict parser ``json``: canonical JSON text → the JSON value, or ``None`` with a reason."""

from __future__ import annotations

from normalize import status as st
from normalize.core.registry import ParseContext, Parsed, parser
from normalize.errors import RejectText
from normalize.values._json import JsonLimits, read_canonical


@parser("json", version=2, params=JsonLimits, embeds={"parse_json": 2})
def parse_json_value(text: str, params: JsonLimits, ctx: ParseContext) -> Parsed:
    """The JSON value of the normalized text (strict, within ``params``' limits); never a guess.

    Invalid JSON → ``invalid`` with the reason; empty text, text with no JSON at all, or a bare
    ``null`` → ``no_answer`` (an answer of ``None`` could not be told apart from no answer).

    Bound: O(n): the same limits as ``parse_json``.

    >>> parse_json_value('{"price":12.5}', JsonLimits(), ParseContext()).answer
    {'price': 12.5}
    >>> parse_json_value('{"price":', JsonLimits(), ParseContext()).status
    'invalid'
    >>> parse_json_value("", JsonLimits(), ParseContext()).status
    'no_answer'
    """
    if not text or text.isspace():  # = not text.strip(), with no copy
        return Parsed(None, st.NO_ANSWER, "the normalized text is empty")
    try:
        value = read_canonical(text, params, timeout=ctx.timeout)  # (parse_json's value, if it wrote the text)
    except RejectText as rejected:
        return Parsed(None, rejected.status, rejected.reason)
    if value is None:
        return Parsed(None, st.NO_ANSWER, "the JSON value is null")
    return Parsed(value, st.OK)
