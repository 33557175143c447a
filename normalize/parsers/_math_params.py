"""The params of the ``math`` parser (a pydantic model).

Kept apart from :mod:`normalize.parsers._math`, which the wheel compiles with
mypyc: a compiled module keeps no docstrings, and pydantic cannot read a compiled class's
methods.  Re-exported there.
"""

from __future__ import annotations

from pydantic import Field

from normalize.registry import Params


class MathParams(Params):
    """``timeout``: seconds SymPy may spend reading one answer (past it: status ``error``)."""

    timeout: float = Field(default=2.0, gt=0, le=60)
