"""Math answers as values: the public face of the reader and the equivalence the ``math`` parser
and the ``math`` metric share (see :mod:`normalize._mathvalue` for what is read and how).

>>> equivalent(read_value(r"1\\frac{1}{4}"), read_value("5/4"))
True
"""

from __future__ import annotations

from normalize._deadline import TimeUp, call_within
from normalize._mathvalue import (
    DEFAULT_MATH_TIMEOUT,
    MathValue,
    NotMath,
    Tolerance,
    equivalent,
    read_value,
    remove_invisible,
    required_units,
    unit_names,
    units_of,
)

__all__ = [
    "DEFAULT_MATH_TIMEOUT",
    "MathValue",
    "NotMath",
    "TimeUp",
    "Tolerance",
    "call_within",
    "equivalent",
    "read_value",
    "remove_invisible",
    "required_units",
    "unit_names",
    "units_of",
]
