"""Code: ``exact`` ignoring line-ending style, trailing spaces and blank edge lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring.metrics._registry import SCORED, MetricContext, Score, ScoringConfig, metric


def _code_lines(text: str) -> str:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def code_match(answer: str, target: str) -> bool:
    """Exact match of code, ignoring line-ending style, trailing spaces and blank edge lines.

    Indentation and everything inside lines count (it is meaningful in Python).

    >>> code_match("def f():\\r\\n    return 1  \\n\\n", "def f():\\n    return 1")
    True
    >>> code_match("def f():\\n  return 1", "def f():\\n    return 1")
    False
    """
    return _code_lines(answer) == _code_lines(target)


@metric("exact", task_types=("code",), default=True)
def exact_code(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """:func:`code_match` against any target."""
    hit = isinstance(answer, str) and any(code_match(answer, g) for g in golds)
    return Score(hit, float(hit), config.metric, SCORED)
