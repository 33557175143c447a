"""A number written after a bare name (``zz 12``, ``x 4 y 9``) is no product and no answer.

Mathematics writes a coefficient before its variables (``2x``, ``3\\pi``, ``2xy``) or an operator
between (``x \\cdot 2``, ``x^2``, ``x_1``).  Prose, labels and unwritten subscripts put a number
after a name; SymPy would read those as products and the math parser returned them with status
``ok`` (``zz 12`` → ``z z 12``, ``x 4 y 9``, ``a 7/10`` → ``\\frac{7 a}{10}``), and letters glued
after a number were dropped as a unit (``2xy`` → ``2``): wrong answers with status ok.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from normalize import load_pack
from normalize import status as st
from normalize.values._mathvalue import NotMath, equivalent, read_value
from scoring.metrics import math_match

PACK = load_pack()


@pytest.mark.parametrize(
    "output",
    ["zz 12", "x 4 y 9", "q 7", "ab 3", "x2", "The answer is zz 12", r"The answer is $x 4$", "sin 30",
     "The response deserves a 7/10.", "Answer: H2O", r"\boxed{n 5}", "A0,5", "2xyz"],
)
@pytest.mark.parametrize("task", ["math", "math500"])
def test_a_number_after_a_name_is_refused_with_a_reason(output: str, task: str) -> None:
    result = PACK.run(output, task)
    assert result.status == st.NO_ANSWER, (output, result.answer)
    assert result.answer is None and result.reason


@pytest.mark.parametrize(
    ("output", "gold", "wrong"),
    [
        ("2x", "2 x", "2"),
        (r"3\pi", r"3 \pi", "3"),
        ("x^2 + 1", "1 + x^{2}", "x^2"),
        (r"4\sqrt{2}", r"\sqrt{32}", "4"),
        ("2xy", "2yx", "2"),
        ("3ab", r"3 \cdot b a", "3"),
        (r"x \cdot 2", "2x", "x"),
        (r"$\log_b 8 = 3$", r"\log_b 8 = 3", "8"),
    ],
)
def test_real_answers_still_read(output: str, gold: str, wrong: str) -> None:
    result = PACK.run(output, "math500")
    assert result.status == st.OK, result.reason
    assert math_match(result.answer, gold) and not math_match(result.answer, wrong), result.answer


def test_units_glued_to_a_number_still_drop_and_products_do_not() -> None:
    for text, unit in [("5cm", "cm"), ("3kg", "kg"), ("60mph", "mph"), ("10th century", "th century"), ("1998年", "年")]:
        value = read_value(text)
        assert (value.canonical, value.dropped) == (text[: len(text) - len(unit)], (unit,)), text
    assert read_value("2xy").kind == "expr" and not read_value("2xy").dropped


def test_a_product_written_with_an_operator_has_a_canonical_spelling_that_reads_back() -> None:
    for text in [r"x \cdot 2", r"x \cdot y \cdot 3", r"(x \cdot 2, 3)"]:
        value = read_value(text)
        again = read_value(value.canonical)
        assert again.canonical == value.canonical and equivalent(again, value), (text, value.canonical)


#: English words of one or two letters (prose before a number, not a name): left out of the names.
_SHORT_WORDS = frozenset({"is", "as", "at", "be", "by", "if", "it", "of", "on", "to", "we", "so", "no", "an", "am", "do",
                          "go", "he", "hi", "in", "me", "my", "oh", "ok", "or", "up", "us", "vs", "id", "eg", "ie",
                          "ca", "pp"})
_NAMES = hs.text(alphabet=string.ascii_letters, min_size=1, max_size=2).filter(lambda w: w.lower() not in _SHORT_WORDS)
_NUMBERS = hs.integers(0, 10**6).map(str) | hs.decimals(0, 1000, places=2).map(str)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(hs.lists(hs.tuples(_NAMES, _NUMBERS), min_size=1, max_size=3), hs.sampled_from(["", " "]),
       hs.sampled_from(["", "The answer is ", "Final answer: "]))
def test_names_followed_by_numbers_never_read_as_ok(pairs: list[tuple[str, str]], gap: str, lead: str) -> None:
    text = lead + " ".join(f"{name}{gap}{number}" for name, number in pairs)
    for task in ("math", "math500"):
        result = PACK.run(text, task)
        assert result.status != st.OK, (text, task, result.answer)
    with pytest.raises(NotMath):
        read_value(" ".join(f"{name}{gap}{number}" for name, number in pairs))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(hs.integers(2, 999), hs.lists(hs.sampled_from("xyzacnpq"), min_size=1, max_size=2, unique=True))
def test_a_coefficient_before_variables_reads_as_their_product(coefficient: int, names: list[str]) -> None:
    text = f"{coefficient}{''.join(names)}"
    result = PACK.run(text, "math500")
    assert result.status == st.OK, (text, result.reason)
    assert math_match(result.answer, f"{coefficient} \\cdot " + r" \cdot ".join(reversed(names)))
    assert not math_match(result.answer, str(coefficient))
