"""The params of the ``math`` parser (a pydantic model; why apart: :mod:`normalize.rules`)."""

from __future__ import annotations

from pydantic import Field

from normalize.core.registry import Params


class MathParams(Params):
    """``timeout``: seconds SymPy may spend reading one answer (past it: status ``error``)."""

    timeout: float = Field(default=2.0, gt=0, le=60)
