"""Exact numbers: to_fraction, format_number, Chinese numerals (normalize.values._numbers)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from normalize.values._numbers import (
    MAX_EXPONENT,
    check_locale,
    chinese_integer,
    convert_chinese,
    format_number,
    operator_before,
    to_fraction,
)

# --------------------------------------------------------------------------- to_fraction


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("42", Fraction(42)),
        ("  42  ", Fraction(42)),
        ("0.5", Fraction(1, 2)),
        (".5", Fraction(1, 2)),
        ("0.50", Fraction(1, 2)),
        ("5.", Fraction(5)),
        ("+3", Fraction(3)),
        ("-3", Fraction(-3)),
        ("\u22123", Fraction(-3)),
        ("-.25", Fraction(-1, 4)),
        ("1,000", Fraction(1000)),
        ("1,234,567.89", Fraction(123456789, 100)),
        ("1\u2009000", Fraction(1000)),
        ("1\u00a0000", Fraction(1000)),
        ("1\u202f000", Fraction(1000)),
        ("1e3", Fraction(1000)),
        ("1.5E-3", Fraction(3, 2000)),
        ("2/3", Fraction(2, 3)),
        ("-2/4", Fraction(-1, 2)),
        ("1.5/3", Fraction(1, 2)),
        (r"\frac{2}{3}", Fraction(2, 3)),
        (r"\dfrac{1}{4}", Fraction(1, 4)),
        (r"\tfrac{3}{6}", Fraction(1, 2)),
        (r"\frac12", Fraction(1, 2)),
        (r"-\frac{1}{2}", Fraction(-1, 2)),
        ("一百二十三", Fraction(123)),
        ("两千零五", Fraction(2005)),
        ("三点五", Fraction(7, 2)),
        ("负五", Fraction(-5)),
        ("三分之二", Fraction(2, 3)),
        ("五", Fraction(5)),
        ("3万", Fraction(30000)),
        ("1.5亿", Fraction(150000000)),
        ("三万", Fraction(30000)),
    ],
)
def test_to_fraction_reads_numbers(text: str, expected: Fraction) -> None:
    assert to_fraction(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "", "   ", "1,5", "12,34", "1,0000", "1,000,00", "v1.5", "A1B2", "2024-01-05", "3.14.1",
        "192.168.0.1", "x2", "1/0", r"\frac{1}{0}", "abc", "5 apples", r"\sqrt{2}", "2\\pi",
        "3+4i", "1 1/2", "1e99999", "3万5千", "3万一", "--3", "一定", "统一", "万一", "一些", "1..5", ".", "-",
    ],
)
def test_to_fraction_rejects_non_numbers(text: str) -> None:
    assert to_fraction(text) is None


def test_to_fraction_percent_modes() -> None:
    assert to_fraction("50%") == 50
    assert to_fraction("50\\%") == 50
    assert to_fraction("12.5 percent", percent="fraction") == Fraction(1, 8)
    assert to_fraction("百分之五十", percent="fraction") == Fraction(1, 2)
    assert to_fraction("50％", percent="reject") is None
    assert to_fraction("50", percent="reject") == 50


def test_to_fraction_locale() -> None:
    assert to_fraction("1000,99", thousands=(), decimal_comma=True) == Fraction(100099, 100)
    assert to_fraction("1'000,5", thousands=("'",), decimal_comma=True) == Fraction(2001, 2)
    assert to_fraction("1.000,5", thousands=(" ",), decimal_comma=True) is None
    assert to_fraction("1 000", thousands=(" ",)) == 1000
    assert to_fraction("1 000") is None  # plain spaces group only when the locale says so
    with pytest.raises(ValueError, match="decimal comma"):
        to_fraction("1", thousands=(",",), decimal_comma=True)


def test_exponent_limit() -> None:
    assert to_fraction(f"1e{MAX_EXPONENT}") == Fraction(10) ** MAX_EXPONENT
    assert to_fraction(f"1e{MAX_EXPONENT + 1}") is None


def test_check_locale_rejects_unknown_separators() -> None:
    with pytest.raises(ValueError, match="unknown thousands separator"):
        check_locale(("_",), decimal_comma=False)
    with pytest.raises(ValueError, match="unknown thousands separator"):
        check_locale((".",), decimal_comma=True)  # canonical output would read back as grouped
    with pytest.raises(ValueError, match="repeat"):
        check_locale((",", ","), decimal_comma=False)
    check_locale((" ", "\u2009"), decimal_comma=True)


# --------------------------------------------------------------------------- format_number


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(0), "0"),
        (Fraction(-0), "0"),
        (Fraction(42), "42"),
        (Fraction(-3), "-3"),
        (Fraction(1, 2), "0.5"),
        (Fraction(1, 4), "0.25"),
        (Fraction(-1, 8), "-0.125"),
        (Fraction(1, 3), "1/3"),
        (Fraction(-2, 3), "-2/3"),
        (Fraction(4, 6), "2/3"),
        (Fraction(1, 6), "1/6"),
        (Fraction(101, 100), "1.01"),
        (Fraction(1, 1000000), "0.000001"),
        (Fraction(10) ** 5000, "1" + "0" * 5000),
    ],
)
def test_format_number(value: Fraction, text: str) -> None:
    assert format_number(value) == text


@settings(max_examples=200, deadline=None)
@given(st.fractions(max_denominator=10**6))
def test_format_number_round_trips(value: Fraction) -> None:
    text = format_number(value)
    back = to_fraction(text)
    assert back == value
    assert back is not None and format_number(back) == text


# --------------------------------------------------------------------------- Chinese numerals


@pytest.mark.parametrize(
    ("run", "value"),
    [
        ("零", 0), ("〇", 0), ("一", 1), ("两", 2), ("十", 10), ("十一", 11), ("二十", 20),
        ("一百二十三", 123), ("一百零一", 101), ("两千零五", 2005), ("三千五", 3500),
        ("一万", 10000), ("两万两千", 22000), ("一亿零一", 100000001), ("二〇二四", 2024),
        ("壹佰", 100),
    ],
)
def test_chinese_integer(run: str, value: int) -> None:
    assert chinese_integer(run) == value


@pytest.mark.parametrize("run", ["", "万一", "千万", "十十", "百一", "一百零", "二十两", "两十", "三三两两", "一十零", "x"])
def test_chinese_integer_rejects(run: str) -> None:
    assert chinese_integer(run) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("一百二十三", "123"),
        ("两千零五", "2005"),
        ("三点五", "3.5"),
        ("零点五", "0.5"),
        ("负五", "-5"),
        ("三分之二", "2/3"),
        ("负三分之二", "-2/3"),
        ("二又二分之一", "5/2"),
        ("百分之五十", "50%"),
        ("百分之三点五", "3.5%"),
        ("百分之百", "100%"),
        ("千分之五", "5/1000"),
        ("二〇二四年", "2024年"),
        ("一九四九年", "1949年"),
        ("答案是五", "答案是5"),
        ("答案：五。", "答案：5。"),
        ("五", "5"),
        ("三个苹果", "3个苹果"),
        ("两天", "2天"),
        ("十分钟", "10分钟"),
        ("答案是一百二十三个", "答案是123个"),
    ],
)
def test_convert_chinese_converts_numbers(text: str, expected: str) -> None:
    assert convert_chinese(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "一定", "统一", "万一", "一些", "第一", "第一百名", "我一定会来", "张三", "李四", "星期一", "初一",
        "周三", "一心一意", "十全十美", "一点点", "一会儿", "九九乘法表", "五四运动", "三三两两",
        "千千万万", "十分好", "三点五十分", "两点半", "胜负一", "二十两银子", "一本正经", "一块儿",
        "3万5千", "x3万", "三分之", "分之二", "3万元",
    ],
)
def test_convert_chinese_leaves_words(text: str) -> None:
    assert convert_chinese(text) == text


def test_convert_chinese_is_idempotent_on_examples() -> None:
    for text in ["一百二十三个一定统一", "三分之二和百分之五十", "第一名得了九十五分", "二又二分之一"]:
        once = convert_chinese(text)
        assert convert_chinese(once) == once


def test_operator_before() -> None:
    assert operator_before("2+3", 1)
    assert not operator_before("-3", 0)
    assert not operator_before("= -3", 2)


# --------------------------------------------------------------------------- value preservation

_DECIMALS = st.decimals(
    min_value=Decimal("-1e12"), max_value=Decimal("1e12"), allow_nan=False, allow_infinity=False, places=6
)


def _renderings(d: Decimal) -> list[str]:
    plain = format(d, "f")
    forms = [plain, f"{d:,f}", plain + ("0" if "." in plain else ".000")]
    if not plain.startswith("-"):
        forms.append("+" + plain)
    else:
        forms.append("\u2212" + plain[1:])
    if plain.startswith("0."):
        forms.append(plain[1:])
    if plain.startswith("-0."):
        forms.append("-" + plain[2:])
    return forms


@settings(max_examples=200, deadline=None)
@given(_DECIMALS)
def test_every_rendering_has_the_decimal_value(d: Decimal) -> None:
    for text in _renderings(d):
        assert to_fraction(text) == Fraction(d), text
