"""Semantic rules (numbers) and the ``number`` parser."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from normalize import status as status_codes
from normalize.core.engine import Chain, make_spec, run_chain
from normalize.core.pack import load_pack
from normalize.core.registry import REGISTRY, ParseContext
from normalize.parsers._number import NumberParams, parse_number
from normalize.rules.semantic import (
    CanonicalizeNumbersParams,
    StripUnitsParams,
    canonicalize_numbers,
    convert_chinese_numerals,
    simplify_latex_numbers,
    strip_units,
)
from normalize.values._numbers import format_fraction, format_number

CTX = ParseContext()
#: Every semantic rule, from the registry: a new one is picked up by the property test below.
SEMANTIC_RULES = tuple(d.name for d in REGISTRY.iter_rules() if d.stage == "semantic")

# --------------------------------------------------------------------------- canonicalize_numbers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (".5", "0.5"),
        ("0.50", "0.5"),
        ("+3", "3"),
        ("\u22123", "-3"),
        ("-0", "0"),
        ("-0.00", "0"),
        ("2.0", "2"),
        ("1,000", "1000"),
        ("1,234,567.890", "1234567.89"),
        ("$1,000", "$1000"),
        ("答案是0.50", "答案是0.5"),
        ("2.50元", "2.5元"),
        ("(+3)", "(3)"),
        ("x = +3", "x = 3"),
        ("the answer is -.5.", "the answer is -0.5."),
        ("1+.5", "1+0.5"),
        ("50.0%", "50%"),
        ("3万", "30000"),
        ("1.5亿元", "150000000元"),
        ("1,000万", "10000000"),
        ("-2万", "-20000"),
    ],
)
def test_canonicalize_rewrites(text: str, expected: str) -> None:
    assert canonicalize_numbers(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "v1.5", "A1B2", "2024-01-05", "3.14.1", "192.168.0.1", "x2", "2x", "1st", "1.5 and 15",
        "1,5", "12,34", "1,0000", "1,000,00", "1e3", "10:30", "1/2", "0.50/2", "1,000-2,000",
        "007", "1 000", "1\u2009000", "5 -3", "x+3", "x -3", "++3", "50%", "50 percent", "百分之五十",
        "H2O", "3π", "CO2", "iPhone 15", "42", "3万5千", "3万一", "x3万",
    ],
)
def test_canonicalize_leaves(text: str) -> None:
    assert canonicalize_numbers(text) == text


def test_canonicalize_never_merges_or_reads_dot_five_as_five() -> None:
    assert canonicalize_numbers("1.5 15 .5") == "1.5 15 0.5"
    assert canonicalize_numbers(".5") != "5"


def test_canonicalize_space_grouping_is_opt_in() -> None:
    spaces = CanonicalizeNumbersParams(thousands=(",", " ", "\u00a0", "\u202f", "\u2009"))
    for text in ["1 000", "1\u00a0000", "1\u202f000", "1\u2009000", "1 000 000"]:
        assert canonicalize_numbers(text, spaces) == "1" + "000" * text.count("000")
    assert canonicalize_numbers("1 5", spaces) == "1 5"
    assert canonicalize_numbers("12 34", spaces) == "12 34"


def test_canonicalize_decimal_comma() -> None:
    comma = CanonicalizeNumbersParams(thousands=(), decimal_comma=True)
    assert canonicalize_numbers("1000,99", comma) == "1000.99"
    assert canonicalize_numbers("1,5", comma) == "1.5"
    assert canonicalize_numbers("1,2,3", comma) == "1,2,3"  # a list, not a number
    assert canonicalize_numbers("1000,99") == "1000,99"  # off by default
    swiss = CanonicalizeNumbersParams(thousands=("'", "\u202f"), decimal_comma=True)
    assert canonicalize_numbers("1'000'000,50", swiss) == "1000000.5"
    assert canonicalize_numbers("1\u202f000,5", swiss) == "1000.5"
    assert canonicalize_numbers("1.5", swiss) == "1.5"  # the output form reads back the same
    assert canonicalize_numbers("1.000,5", swiss) == "1.000,5"  # "." never groups: left alone
    with pytest.raises(ValidationError):
        CanonicalizeNumbersParams(thousands=(".",), decimal_comma=True)


def test_canonicalize_scientific_is_opt_in() -> None:
    sci = CanonicalizeNumbersParams(scientific=True)
    assert canonicalize_numbers("1e3", sci) == "1000"
    assert canonicalize_numbers("1.5E-3", sci) == "0.0015"
    assert canonicalize_numbers("2e+2", sci) == "200"
    assert canonicalize_numbers("1e99999", sci) == "1e99999"  # too large to write out
    assert canonicalize_numbers("x1e3", sci) == "x1e3"


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("keep", "50% | 50 percent | 百分之五十 | 12.5 %"),
        ("fraction", "0.5 | 0.5 | 0.5 | 0.125"),
        ("percent", "50% | 50% | 50% | 12.5%"),
    ],
)
def test_canonicalize_percent_modes(mode: str, expected: str) -> None:
    params = CanonicalizeNumbersParams(percent=mode)  # type: ignore[arg-type]
    assert canonicalize_numbers("50% | 50 percent | 百分之五十 | 12.50 %", params) == expected


def test_canonicalize_percent_chinese_forms() -> None:
    fraction = CanonicalizeNumbersParams(percent="fraction")
    assert canonicalize_numbers("负百分之三点五", fraction) == "-0.035"
    assert canonicalize_numbers("百分之12.5", fraction) == "0.125"
    assert canonicalize_numbers("百分之", fraction) == "百分之"


def test_canonicalize_params_are_validated() -> None:
    with pytest.raises(ValidationError):
        CanonicalizeNumbersParams(thousands=(",",), decimal_comma=True)
    with pytest.raises(ValidationError):
        CanonicalizeNumbersParams(thousands=("x",))
    with pytest.raises(ValidationError):
        CanonicalizeNumbersParams(percent="half")  # type: ignore[arg-type]
    from_yaml = CanonicalizeNumbersParams.model_validate({"thousands": [",", " "]})
    assert from_yaml.thousands == (",", " ")


# --------------------------------------------------------------------------- convert_chinese_numerals


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("一百二十三", "123"),
        ("两千零五", "2005"),
        ("三点五", "3.5"),
        ("负五", "-5"),
        ("三分之二", "2/3"),
        ("百分之五十", "50%"),
        ("答案是一百二十三个苹果", "答案是123个苹果"),
        ("张三买了五个苹果", "张三买了5个苹果"),
    ],
)
def test_convert_chinese_numerals(text: str, expected: str) -> None:
    assert convert_chinese_numerals(text) == expected


@pytest.mark.parametrize("text", ["一定", "统一", "万一", "一些", "第一", "张三", "一心一意", "星期一", "十分好"])
def test_convert_chinese_numerals_leaves_words(text: str) -> None:
    assert convert_chinese_numerals(text) == text


def test_chinese_percent_then_canonical_fraction() -> None:
    chain = Chain((make_spec("convert_chinese_numerals"), make_spec("canonicalize_numbers", percent="fraction")))
    assert run_chain(chain, "百分之五十").text == "0.5"


# --------------------------------------------------------------------------- simplify_latex_numbers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r"\frac{1}{2}", "1/2"),
        (r"\dfrac{3}{4}", "3/4"),
        (r"\tfrac{5}{6}", "5/6"),
        (r"\frac12", "1/2"),
        (r"\frac 1 2", "1/2"),
        (r"-\frac{1}{2}", "-1/2"),
        (r"\frac{-1}{2}", "-1/2"),
        (r"\frac{-1}{-2}", "1/2"),
        (r"\frac{1.5}{2}", "1.5/2"),
        (r"50\%", "50%"),
        (r"\$5", "5"),
        (r"\text{5 apples}", "5 apples"),
        (r"\mathrm{cm}", "cm"),
        (r"\textbf{42}", "42"),
        (r"\text{\textbf{7}}", "7"),
        (r"1\,000", "1000"),
        (r"1,\!000", "1,000"),
        (r"1{,}000", "1,000"),
        (r"30^\circ", "30"),
        (r"30^{\circ}", "30"),
        (r"\left( 1, 2 \right)", "( 1, 2 )"),
        (r"\boxed{\frac{1}{2}}", r"\boxed{1/2}"),
    ],
)
def test_simplify_latex_numbers(text: str, expected: str) -> None:
    assert simplify_latex_numbers(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        r"\sqrt{2}", r"\frac{x}{2}", r"\frac{1}{x}", r"2\frac{1}{2}", r"\frac{1}{2}x", r"x^\frac12",
        r"\frac{1}{2}^2", r"\pi", "plain 1/2", r"\fraction{1}{2}", r"\circ",
    ],
)
def test_simplify_latex_numbers_leaves(text: str) -> None:
    assert simplify_latex_numbers(text) == text


# --------------------------------------------------------------------------- strip_units


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$1,000", "1,000"),
        ("15 cm", "15"),
        ("¥50", "50"),
        ("￥50", "50"),
        ("15元", "15"),
        ("€3.50", "3.50"),
        ("20 dollars", "20"),
        ("20 Dollars", "20"),
        ("5 km/h", "5"),
        ("30°", "30"),
        ("30 °C", "30"),
        ("USD 5", "5"),
        ("US$5", "5"),
        ("-$5", "-5"),
        ("$-5", "-5"),
        ("  15 cm.  ", "  15.  "),
        ("3个", "3"),
        (".5 kg", ".5"),
    ],
)
def test_strip_units(text: str, expected: str) -> None:
    assert strip_units(text) == expected


@pytest.mark.parametrize(
    "text",
    ["I paid $5 for it", "15 apples", "50%", "5", "cm 5", "about 5 m", "3 hours 20 minutes", "5 cms", "$", "v5 m", "-$-5"],
)
def test_strip_units_leaves(text: str) -> None:
    assert strip_units(text) == text


def test_strip_units_custom_list() -> None:
    apples = StripUnitsParams(units=("apples", "apple"))
    assert strip_units("15 apples", apples) == "15"
    assert strip_units("15 cm", apples) == "15 cm"
    assert strip_units("$15", apples) == "15"  # currency symbols always
    with pytest.raises(ValidationError):
        StripUnitsParams(units=(" cm",))
    with pytest.raises(ValidationError):
        StripUnitsParams(units=("",))
    assert StripUnitsParams.model_validate({"units": ["kg"]}).units == ("kg",)


# --------------------------------------------------------------------------- number parser


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("42", "42"),
        ("42 apples.", "42"),
        ("The answer is 7.", "7"),
        ("x = 5", "5"),
        ("5 + 3 = 8", "8"),
        ("x = -3", "-3"),
        ("The answer is -3", "-3"),
        ("−3", "-3"),
        ("+3", "3"),
        (".5", "0.5"),
        ("0.50", "0.5"),
        ("1,000", "1000"),
        ("$1,000", "1000"),
        ("2/4", "1/2"),
        ("4/6", "2/3"),
        ("4/2", "2"),
        (r"\frac{4}{6}", "2/3"),
        (r"\boxed{\dfrac{7}{3}}", "7/3"),
        (r"\(\frac{1}{4}\)", "1/4"),
        ("50%", "50"),
        (r"50\%", "50"),
        ("一百二十三", "123"),
        ("答案是一百二十三个", "123"),
        ("三分之二", "2/3"),
        ("百分之五十", "50"),
        ("x ≈ 3.14", "3.14"),
        (r"x \approx 3.14", "3.14"),
        ("(42)", "42"),
        ("42 (rounded)", "42"),
        ("So 3 + 5 gives 8 apples", "8"),
        ("42...", "42"),
        ("007", "7"),
        ("约3万人", "30000"),
    ],
)
def test_number_parser_answers(text: str, answer: str) -> None:
    assert parse_number(text, NumberParams(), CTX) == parse_number(text, NumberParams(), CTX)
    result = parse_number(text, NumberParams(), CTX)
    assert (result.answer, result.status) == (answer, status_codes.OK)


@pytest.mark.parametrize(
    "text",
    [
        "", "   ", "no number here", r"\sqrt{2}", "x^2+1", r"2\pi", "3+4i", "5 - 3", "5 -3", "x - 3",
        "2024-01-05", "v1.5", "1/0", "(1, 2)", "1, 2, 3", "f(2)", "5!", "1 000", "0.333...",
        r"10 \times 2", "2^{10}", "1e99999", "42 + x", r"\frac{1}{2}x", "π", "一定",
    ],
)
def test_number_parser_no_answer(text: str) -> None:
    result = parse_number(text, NumberParams(), CTX)
    assert result.answer is None
    assert result.status == status_codes.NO_ANSWER
    assert result.reason


def test_number_parser_percent_modes() -> None:
    assert parse_number("50%", NumberParams(percent="fraction"), CTX).answer == "0.5"
    assert parse_number("百分之五十", NumberParams(percent="fraction"), CTX).answer == "0.5"
    rejected = parse_number("50%", NumberParams(percent="reject"), CTX)
    assert (rejected.answer, rejected.status) == (None, status_codes.NO_ANSWER)


def test_number_parser_rational_form() -> None:
    keep = NumberParams()
    cases = {"3/4": "3/4", r"\boxed{\frac{2}{4}}": "1/2", "-\\frac{1}{2}": "-1/2", "4/2": "2", "四分之三": "3/4",
             "0.75": "0.75", "50%": "50", "2/3": "2/3"}
    for text, answer in cases.items():
        assert parse_number(text, keep, CTX).answer == answer, text
    one_spelling = NumberParams(rational="decimal")
    assert parse_number("3/4", one_spelling, CTX).answer == "0.75"
    assert parse_number(r"\frac{2}{3}", one_spelling, CTX).answer == "2/3"


def test_number_parser_locale() -> None:
    spaces = NumberParams(thousands=(",", " "))
    assert parse_number("1 000", spaces, CTX).answer == "1000"
    comma = NumberParams(thousands=("'",), decimal_comma=True)
    assert parse_number("1'000,5", comma, CTX).answer == "1000.5"
    assert parse_number("0,5", comma, CTX).answer == "0.5"
    with pytest.raises(ValidationError):
        NumberParams(thousands=(",",), decimal_comma=True)


def test_number_parser_is_registered() -> None:
    definition = REGISTRY.parser("number")
    assert definition.version == 3
    assert definition.params_model is NumberParams


def test_number_parser_in_a_pack(tmp_path: Path) -> None:
    pack_file = tmp_path / "math.yaml"
    pack_file.write_text(
        "name: numbers-test\n"
        "task_types:\n"
        "  math:\n"
        "    chain:\n"
        "      - simplify_latex_numbers\n"
        "      - convert_chinese_numerals\n"
        "      - strip_units\n"
        "      - rule: canonicalize_numbers\n"
        "        params: {percent: fraction, thousands: [',']}\n"
        "    parser:\n"
        "      name: number\n"
        "      params: {percent: fraction}\n",
        encoding="utf-8",
    )
    pack = load_pack(pack_file)
    assert pack.run(r"\$1,\!000", "math").answer == "1000"
    assert pack.run("百分之五十", "math").answer == "0.5"
    assert pack.run(r"\frac{2}{3}", "math").answer == "2/3"
    assert pack.run(r"\frac{2}{4}", "math").answer == "1/2"
    result = pack.run(r"\sqrt{2}", "math")
    assert (result.answer, result.status) == (None, status_codes.NO_ANSWER)


# --------------------------------------------------------------------------- properties

_DECIMALS = st.decimals(
    min_value=Decimal("-1e12"), max_value=Decimal("1e12"), allow_nan=False, allow_infinity=False, places=6
)


def _renderings(d: Decimal) -> list[str]:
    plain = format(d, "f")
    forms = [plain, f"{d:,f}", plain + ("0" if "." in plain else ".000")]
    forms.append("+" + plain if not plain.startswith("-") else "\u2212" + plain[1:])
    if plain.startswith("0."):
        forms.append(plain[1:])
    if plain.startswith("-0."):
        forms.append("-" + plain[2:])
    return forms


@settings(max_examples=200, deadline=None)
@given(_DECIMALS)
def test_canonicalization_keeps_the_value_and_is_idempotent(d: Decimal) -> None:
    canonical = format_number(Fraction(d))
    for text in _renderings(d):
        for wrapped, expected in [(text, canonical), (f"The answer is {text}.", f"The answer is {canonical}.")]:
            once = canonicalize_numbers(wrapped)
            assert once == expected, wrapped
            assert canonicalize_numbers(once) == once
        parsed = parse_number(f"so the total is {text} dollars.", NumberParams(), CTX)
        assert parsed.answer == canonical, text


_TRICKY = st.lists(
    st.sampled_from(
        [
            *"0123456789.,-+−/%eE :x{}\\^_()$¥€ \u00a0\u2009\u202f=≈!",
            *["\\frac", "\\text", "\\circ", "\\left(", "百分之", "分之", "点", "负", "第", "个", "万", "亿", "两"],
            *"零〇一二三四五六七八九十百千定统些是cm元kg",
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.one_of(_TRICKY, st.text(max_size=60)))
def test_rules_are_idempotent_and_never_raise(text: str) -> None:
    for name in SEMANTIC_RULES:
        rule = REGISTRY.rule(name)
        params_list = [rule.default_params()]
        if name == "canonicalize_numbers":
            params_list += [
                CanonicalizeNumbersParams(percent="fraction", scientific=True, thousands=(",", " ")),
                CanonicalizeNumbersParams(percent="percent", thousands=("'", "\u2009", " "), decimal_comma=True),
            ]
        for params in params_list:
            once = rule(text, params)
            assert rule(once, params) == once, (name, params, text, once)
            assert rule(text, params) == once  # deterministic


@settings(max_examples=200, deadline=None)
@given(st.one_of(_TRICKY, st.text(max_size=60)))
def test_parser_never_raises(text: str) -> None:
    for params in (NumberParams(), NumberParams(percent="fraction"), NumberParams(percent="reject")):
        result = parse_number(text, params, CTX)
        assert result == parse_number(text, params, CTX)
        if result.status == status_codes.OK:
            assert isinstance(result.answer, str)
            value = Fraction(result.answer)
            assert result.answer in (format_number(value), format_fraction(value))
        else:
            assert result.answer is None and result.reason


@settings(max_examples=200, deadline=None)
@given(st.one_of(_TRICKY, st.text(max_size=60)))
def test_recommended_chain_is_idempotent(text: str) -> None:
    chain = Chain(
        (
            make_spec("convert_chinese_numerals"),
            make_spec("simplify_latex_numbers"),
            make_spec("strip_units"),
            make_spec("canonicalize_numbers", scientific=True, thousands=(",", " ")),
        )
    )
    once = run_chain(chain, text)
    assert once.status == status_codes.OK
    assert once.text is not None
    assert run_chain(chain, once.text).text == once.text


def test_number_parser_reads_scientific_notation_only_when_enabled() -> None:
    assert parse_number("The answer is 1e3", NumberParams(scientific=True), CTX).answer == "1000"
    off = parse_number("The answer is 1e3", NumberParams(), CTX)
    assert (off.answer, off.status) == (None, status_codes.NO_ANSWER)
