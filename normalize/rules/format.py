"""Stage 3, format: escape sequences, markdown, quotes, width, NFKC, whitespace, case.

Every rule here leaves the inside of fenced code blocks alone (see :mod:`normalize.rules._code`).
"""

from __future__ import annotations

from normalize.registry import TEXT_ANSWER_TYPES, NoParams, rule
from normalize.registry import DEFAULT_TIMEOUT

_QUOTES = str.maketrans(
    {
        "“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"',
        "「": '"', "」": '"', "『": '"', "』": '"', "〝": '"', "〞": '"',
        "‘": "'", "’": "'", "‚": "'", "‛": "'",
    }
)


@rule("unify_quotes", stage="format", version=1, scope=(*TEXT_ANSWER_TYPES, "open_writing"))
def unify_quotes(text: str, params: NoParams = NoParams(), *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Turn curly, guillemet and CJK corner quotes into ``"`` and ``'``.

    >>> unify_quotes("答案是“B”，他说‘好’")
    '答案是"B"，他说\\'好\\''
    """
    return text.translate(_QUOTES)
