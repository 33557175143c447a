"""Math answers as values: the public face of the reader and the equivalence the ``math`` parser
and the ``math`` metric share (see :mod:`normalize.values._mathvalue` for what is read and how).

>>> equivalent(read_value(r"1\\frac{1}{4}"), read_value("5/4"))
True

The accounting reader's verdict on a written number (:mod:`normalize.values._quantity`):
:func:`read_phrase` gives a :class:`Reading` (``2 3/4`` → 11/4), a :class:`Refusal` with its
reason (``between 3 and 4``: ``range``), or ``None`` (a plain number, mathematics);
:func:`reading_of` what a gold states as a range or a compound quantity (``range 3..4``,
``6300 s``), :func:`quantity_in_base` a value with a unit in its dimension's base unit.
"""

from __future__ import annotations

from normalize.limits._deadline import TimeUp, call_within
from normalize.values._mathvalue import (
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
from normalize.values._quantity import Reading, Refusal, quantity_in_base, read_phrase, reading_of

__all__ = [
    "DEFAULT_MATH_TIMEOUT",
    "MathValue",
    "NotMath",
    "Reading",
    "Refusal",
    "TimeUp",
    "Tolerance",
    "call_within",
    "equivalent",
    "quantity_in_base",
    "read_phrase",
    "read_value",
    "reading_of",
    "remove_invisible",
    "required_units",
    "unit_names",
    "units_of",
]
