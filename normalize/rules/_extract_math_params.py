"""The params of ``extract_math_answer`` (a pydantic model; why apart: :mod:`normalize.rules`)."""

from __future__ import annotations

from pydantic import Field, field_validator

from normalize.core.registry import Params, StrTiers, StrTuple
from normalize.rules._extract_params import AnswerMarkerParams


class MathAnswerParams(Params):
    """``languages``/``tiers``: the answer markers, as for ``extract_answer_marker`` (filled from
    the pack's language overlays).  ``final_tiers``: how many of the best tiers are final-answer
    statements (they beat a box; the tiers after them are weak hints).  ``separators``: what
    precedes a final answer on its line (GSM8K's ``####``)."""

    languages: StrTuple = ("en", "zh")
    tiers: StrTiers = ()
    final_tiers: int = Field(default=2, ge=1, le=10)
    separators: StrTuple = ("####", "最终输出:", "最终输出：")

    @field_validator("separators")
    @classmethod
    def _not_empty(cls, separators: tuple[str, ...]) -> tuple[str, ...]:
        if any(not s for s in separators):
            raise ValueError(f"separators must be non-empty strings, got {separators!r}")
        return separators

    @field_validator("tiers")
    @classmethod
    def _patterns_compile(cls, tiers: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        return AnswerMarkerParams(tiers=tiers).tiers
