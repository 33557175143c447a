"""The math chain's speed short-cuts give exactly what the general paths give (byte-identical).

* the ``math`` parser's plain-number reader (:func:`normalize._mathvalue._read_plain`) against
  the general reader (:func:`normalize._mathvalue._read_general`) on generated number-like texts.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as hs

from normalize import _mathvalue as mv

# pieces of plain numbers and of what is close to them but is not one (decimal commas,
# ungrouped commas, leading zeros, zero denominators, units, spaces, signs, percent)
_NUMBER_PIECES = (
    "0", "1", "7", "9", "00", "12", "123", "999", "1000", "4000", ",", ",000", ",123", ",12", ".", ".5",
    "-", "+", "\u2212", "$", "$$", "\\$", " ", "%", "\\%", "e3", "E", "x", "\\frac", "\\dfrac", "\\tfrac",
    "\\cfrac", "{", "}", "}{", "{0}", "\\!", "\\,", "^\\circ", " cm", "(", ")", "/", "1/2", "。",
)
_NUMBER_LIKE = hs.lists(hs.sampled_from(_NUMBER_PIECES), max_size=12).map("".join)
_SHAPED = hs.builds(
    lambda dollar, sign, body, end: f"{dollar}{sign}{body}{end}",
    hs.sampled_from(["", "$", "$$"]),
    hs.sampled_from(["", "-", "+"]),
    hs.one_of(
        hs.integers(0, 10**40).map(str),
        hs.integers(0, 10**12).map(lambda n: f"{n:,}"),
        hs.tuples(hs.integers(0, 10**9), hs.integers(0, 10**9)).map(lambda p: f"{p[0]}.{p[1]}"),
        hs.tuples(hs.integers(0, 10**9), hs.integers(0, 9)).map(lambda p: f"\\frac{{{p[0]}}}{{{p[1]}}}"),
    ),
    hs.sampled_from(["", ".", "$", "$.", ".$", " ", "$$"]),
)


def _general(s: str) -> mv.MathValue | str:
    try:
        return mv._read_general(s, 2.0)
    except mv.NotMath as exc:
        return f"NotMath({exc.status}): {exc.reason}"


@given(hs.one_of(_NUMBER_LIKE, _SHAPED))
@settings(max_examples=3000, deadline=None)
@example("0,123")
@example("1234,567")
@example("-0")
@example("\\frac{1}{0}")
@example("$61,260.")
@example("007")
def test_plain_number_reader_equals_the_general_reader(s: str) -> None:
    fast = mv._read_plain(s)
    if fast is not None:  # the fast path answers only what the general path answers the same
        assert fast == _general(s), s
        assert fast.canonical == mv._read(s, 2.0).canonical
