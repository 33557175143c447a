"""``math_verify``: symbolic equivalence by Math-Verify (extra ``math``), in a worker process."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field

from normalize.values.mathanswer import Reading, read_phrase
from scoring._mathverify import MathVerifier
from scoring.metrics._registry import (
    SCORED,
    MetricContext,
    MetricParams,
    Score,
    ScoringConfig,
    metric,
)
from scoring.metrics.exact import alias_candidates, as_text


def math_verify_match(answer: str, target: str, verifier: MathVerifier, *, timeout: float | None = None) -> bool:
    """Symbolic equivalence by Math-Verify (extra ``math``), run in ``verifier``'s worker process.

    Raises ``TimeoutError`` when the comparison runs past ``timeout`` (default: the verifier's).
    """
    return verifier.equivalent(answer, target, timeout=timeout)


def _as_written_value(gold: Any) -> Any:
    """A gold the parsers' accounting reader reads as one number (``2 3/4``, ``4 thousand``,
    ``eleven``, ``3万5千``), as its canonical spelling (``11/4``): Math-Verify would read
    ``2 3/4`` as a product.  Other golds unchanged.

    >>> _as_written_value("2 3/4"), _as_written_value(r"\\frac{1}{2}")
    ('11/4', '\\\\frac{1}{2}')
    """
    if not isinstance(gold, str):
        return gold
    found = read_phrase(gold, None, whole=True, math=True)
    return found.canonical if isinstance(found, Reading) else gold


class MathVerifyParams(MetricParams):
    """``timeout``: seconds per comparison (``> 0``)."""

    timeout: float = Field(5.0, gt=0)


@metric("math_verify", task_types=("math",), params=MathVerifyParams, rank=2)
def math_verify_metric(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """Any target or alias is symbolically equivalent to the answer; a timeout is wrong, with a note."""
    if ctx.verifier is None:
        raise TypeError("the math_verify metric needs a MathVerifier: use score_rows or pass verifier=")
    text = as_text(answer)
    try:
        hit = any(math_verify_match(text, _as_written_value(g), ctx.verifier, timeout=config.timeout)
                  for g in alias_candidates(golds, ctx.alias_groups))
    except TimeoutError as exc:
        return Score(False, 0.0, config.metric, SCORED, str(exc))
    return Score(hit, float(hit), config.metric, SCORED)
