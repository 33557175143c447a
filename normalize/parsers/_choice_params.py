"""The params of the ``choice`` parser (a pydantic model) and the option counts it allows (why
apart: :mod:`normalize.rules`)."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field

from normalize.core.registry import Params

MIN_OPTIONS: Final = 2
MAX_OPTIONS: Final = 26


class ChoiceParams(Params):
    """Parameters of the ``choice`` parser.

    ``conflict``: what several answer statements with different letters give —
    ``"contradictory"`` (no answer) or ``"last"`` (the last statement wins).
    ``default_options``: the option count used when a row has none; ``None`` makes such a
    row ``invalid``.
    ``mode``: ``"single"`` (one letter is the answer; two are ``contradictory``) or
    ``"multi_select"`` (the answer is a set of letters, ``ABD`` / ``A, B and D`` / ``A、B、D``,
    given as its letters in order, ``"ABD"``; the scorer's ``choice_set`` metric compares sets).
    """

    conflict: Literal["contradictory", "last"] = "contradictory"
    mode: Literal["single", "multi_select"] = "single"
    default_options: int | None = Field(default=MAX_OPTIONS, ge=MIN_OPTIONS, le=MAX_OPTIONS)
