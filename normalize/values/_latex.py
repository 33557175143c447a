"""LaTeX around numbers as plain text: the one unwrapper shared by ``simplify_latex_numbers`` and the number parser.

A leaf module: the rule (``normalize.rules.semantic``) and the ``number`` parser both call
:func:`unwrap_latex_numbers`, so a parser never imports a rule module.  The number parser
declares ``embeds=("simplify_latex_numbers",)``, so a change here (which bumps that rule's
version) moves the parser's entry in the pack hash too.
"""

from __future__ import annotations

from typing import Final

import regex

from normalize import status as st
from normalize.core.registry import DEFAULT_TIMEOUT
from normalize.errors import RejectText
from normalize.limits._budget import MAX_ROUNDS, check_budget
from normalize.limits._regex import compile_pattern

_NUM_ARG: Final = r"[+\-]?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)"
_LATEX_FRAC: Final = (
    r"(?<![0-9A-Za-z}^_/\\])\\[dt]?frac(?![A-Za-z])\s*"
    rf"(?:\{{\s*(?P<a>{_NUM_ARG})\s*\}}|(?P<a1>[0-9]))\s*"
    rf"(?:\{{\s*(?P<b>{_NUM_ARG})\s*\}}|(?P<b1>[0-9]))"
    r"(?![0-9A-Za-z(\\^_{])"
)
_LATEX_STEPS: Final = (
    (r"\\(?:text|textrm|textbf|textit|textnormal|mathrm|mathbf|mbox)\s*\{([^{}]*)\}", r"\1"),
    (r"\\(?:left|right)(?=[()\[\]|]|\\[{}|])", ""),
    (r"\\%", "%"),
    (r"\\\$", ""),
    (r"\^\s*(?:\{\s*\\circ\s*\}|\\circ(?![A-Za-z]))", ""),
    (r"(?<=[0-9])\\[,!](?=[0-9])", ""),
    (r"(?<=[0-9],)\\!(?=[0-9])", ""),
    (r"(?<=[0-9])\{,\}(?=[0-9]{3})", ","),
)


def _frac(m: regex.Match[str]) -> str:
    a = m.group("a") or m.group("a1")
    b = m.group("b") or m.group("b1")
    negative = a.startswith("-") != b.startswith("-")
    return ("-" if negative else "") + a.lstrip("+-") + "/" + b.lstrip("+-")


def unwrap_latex_numbers(text: str, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    r"""Rewrite the LaTeX around numeric answers as plain text, to a fixed point.

    At most ``MAX_ROUNDS`` (16) rounds, each linear in the text (the patterns have no nested
    quantifiers), so O(n); wrappers nested deeper than that (``\text{\text{…}}`` 17 levels)
    raise :class:`~normalize.errors.RejectText` with status ``error``, in bounded time.

    >>> unwrap_latex_numbers(r"\dfrac{3}{4} \text{cm}")
    '3/4 cm'
    """
    if "\\" not in text and "{,}" not in text:
        return text
    for _ in range(MAX_ROUNDS):  # each round is linear; real LaTeX settles in two or three
        before = text
        for pattern, replacement in _LATEX_STEPS:
            text = compile_pattern(pattern).sub(replacement, text)
        text = compile_pattern(_LATEX_FRAC).sub(_frac, text)
        if text == before:
            return text
        check_budget()
    raise RejectText(st.ERROR, f"LaTeX wrappers nested too deep: not settled in {MAX_ROUNDS} rounds")
