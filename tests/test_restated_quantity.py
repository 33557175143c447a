"""One quantity stated in two units (``1.5 kg (1500 g)``): refused, whatever units, numbers and
glue; a quantity beside another dimension's, or a computation, is not such a restatement."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as stg

from normalize import status as st
from normalize.core.registry import ParseContext
from normalize.parsers._math import MathParams, parse_math
from normalize.values._quantity import _UNIT_SIZES
from normalize.values._restated import restated_quantity

_WORD_UNITS = sorted(u for u in _UNIT_SIZES if u.isascii())
_GLUES = [" (", ", which is ", " = ", ", or ", ", i.e. ", " (about ", ", that is ", " or roughly "]
_NUMBERS = stg.one_of(stg.integers(0, 10**6).map(str), stg.decimals(0, 1000, places=2).map(str))


def _pair(same: bool) -> stg.SearchStrategy[tuple[str, str]]:
    def ok(p: tuple[str, str]) -> bool:
        (d1, s1), (d2, s2) = _UNIT_SIZES[p[0]], _UNIT_SIZES[p[1]]
        return (d1 == d2 and s1 != s2) if same else d1 != d2

    return stg.tuples(stg.sampled_from(_WORD_UNITS), stg.sampled_from(_WORD_UNITS)).filter(ok)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(_NUMBERS, _NUMBERS, _pair(same=True), stg.sampled_from(_GLUES), stg.sampled_from(["The answer is ", "So it takes ", ""]))
def test_one_quantity_in_two_units_is_refused(a: str, b: str, units: tuple[str, str], glue: str, lead: str) -> None:
    text = f"{lead}{a} {units[0]}{glue}{b} {units[1]}{')' if '(' in glue else ''}."
    assert restated_quantity(text) is not None, text
    got = parse_math(text, MathParams(), ParseContext())
    assert (got.answer, got.status) == (None, st.NO_ANSWER), text


@settings(max_examples=150, deadline=None, derandomize=True)
@given(_NUMBERS, _NUMBERS, _pair(same=False), stg.sampled_from(_GLUES))
def test_two_dimensions_are_no_restatement(a: str, b: str, units: tuple[str, str], glue: str) -> None:
    text = f"The answer is {a} {units[0]}{glue}{b} {units[1]}."
    assert restated_quantity(text) is None, text


@settings(max_examples=100, deadline=None, derandomize=True)
@given(_NUMBERS, _NUMBERS, _pair(same=True), stg.sampled_from([" * 60 = ", " + ", " times 3 is "]))
def test_a_computation_between_units_is_no_restatement(a: str, b: str, units: tuple[str, str], op: str) -> None:
    assert restated_quantity(f"{a} {units[0]}{op}{b} {units[1]}") is None


def test_a_restatement_earlier_in_the_text_leaves_the_later_answer() -> None:
    text = "It took 2 hours (120 minutes) to get there.\nThe ticket cost 15 dollars, so the answer is 15."
    assert restated_quantity(text) is None


def _restated_by_full_search(text: str) -> str | None:
    """The plain reading: every overlapped match near the last digit, the last one kept, then
    the same unit checks (what :func:`restated_quantity` screens before searching)."""
    from normalize.values import _restated

    last = max(text.rfind(d) for d in "0123456789")
    if last < 0:
        return None
    found = None
    for m in _restated._pattern().finditer(text, max(0, last - 240), last + 64, overlapped=True):
        found = m
    if found is None or any(c.isdigit() for c in text[found.end():]):
        return None
    first, second = _restated._unit(found, 1), _restated._unit(found, 2)
    if first is None or second is None:
        return None
    (dim1, size1), (dim2, size2) = _UNIT_SIZES[first], _UNIT_SIZES[second]
    return None if dim1 != dim2 or size1 == size2 else "refused"


_PIECES = ["3", "1.5", "1,500", "$5", "\\$2", "kg", " g", " hours", " minutes", "cents", " apples", " (", ")", ", which is ",
           " = ", " or ", ", i.e. ", " about ", "即", "千克", "克", ".", " ", "\n", "So", "x", "\\text{ cm}", "km/h"]


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(stg.lists(stg.sampled_from(_PIECES), min_size=1, max_size=12))
def test_the_screened_search_finds_what_the_full_search_finds(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert (restated_quantity(text) is not None) == (_restated_by_full_search(text) is not None), text
