"""Issue 22: every token of a number's phrase is read, or the answer is refused.

End to end through the shipped chains (``Pack.run`` for ``gsm8k``, ``math``, ``math500``,
``cmath``): magnitude and number words (EN, ZH), mixed numbers, leading-dot decimals after
prose, locales; ranges, hedges, compound quantities, times of day and ambiguous decimal commas
are ``no_answer`` with a reason.  The property tests write a known value in every form (EN and
ZH, with and without markers, with prose around it) and allow no wrong value with status ``ok``;
two different values in one span are never ``ok``.
"""

from __future__ import annotations

from fractions import Fraction

import cn2an
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from normalize import load_pack
from normalize import status as st
from normalize.io.row import Row
from normalize.values._mathvalue import NotMath, read_value
from normalize.values._numbers import format_number
from normalize.values._quantity import read_chinese_mixed, read_number_words, read_numeral
from scoring.metrics import math_match, score_result
from scoring.metrics.numeric import numeric_match

PACK = load_pack()
PROPS = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def _value(answer: str) -> Fraction:
    read = read_value(answer)
    assert read.kind == "number" and read.number is not None, answer
    return read.number / 100 if read.percent else read.number


# --------------------------------------------------------------------------- classes, end to end


@pytest.mark.parametrize(
    ("output", "task", "value"),
    [
        # leading-dot decimal after prose (the README's first paragraph names .5)
        ("所以概率为 .5", "cmath", "1/2"),
        ("The probability is .5", "math", "1/2"),
        ("It costs .75 dollars", "gsm8k", "3/4"),
        ("So the chance is -.25.", "math", "-1/4"),
        # magnitude words
        ("答案是3万5千", "cmath", "35000"),
        ("The answer is 4 thousand.", "gsm8k", "4000"),
        ("They raised 1.2 million dollars.", "gsm8k", "1200000"),
        ("The answer is 2.5k", "gsm8k", "2500"),
        ("The answer is $3M.", "gsm8k", "3000000"),
        ("The answer is 5 lakh.", "gsm8k", "500000"),
        ("The answer is 3 fourths.", "math", "3/4"),
        ("The answer is negative 3.", "math", "-3"),
        ("The answer is 2 and a half hours.", "gsm8k", "5/2"),
        ("答案是两个半小时", "cmath", "5/2"),
        ("答案是3岁半", "cmath", "7/2"),
        ("The answer is ½", "math", "1/2"),
        ("The answer is 2 ¾ cups", "gsm8k", "11/4"),
        ("The answer is 2 3 / 4", "math", "11/4"),
        ("答案是2亿3千万", "cmath", "230000000"),
        ("答案是1.2万", "cmath", "12000"),
        ("答案是三千零五", "cmath", "3005"),
        ("答案是5千零3", "cmath", "5003"),
        ("答案是两万五", "cmath", "25000"),
        ("答案是一点五万", "cmath", "15000"),
        ("答案是2亿零5万", "cmath", "200050000"),
        ("地块面积是4000千克", "cmath", "4000"),  # 千克 is a unit, not a magnitude
        ("The answer is two dozen.", "gsm8k", "24"),
        # number words
        ("eleven", "gsm8k", "11"),
        ("The answer is two hundred and six.", "gsm8k", "206"),
        ("Final answer: twenty-one", "math", "21"),
        ("The answer is one million two hundred thousand and five.", "gsm8k", "1200005"),
        ("The answer is three fourths.", "math", "3/4"),
        ("The answer is $\\text{eleven}$.", "math500", "11"),
        # mixed numbers
        ("The answer is 2 3/4", "math", "11/4"),
        ("She has 2 and 3/4 cups left.", "gsm8k", "11/4"),
        ("答案是2又3/4", "cmath", "11/4"),
        ("答案是2又四分之三", "cmath", "11/4"),
        ("The answer is -2 3/4.", "math", "-11/4"),
        # locales proven by the digits
        ("The answer is 2.345,6", "math", "2345.6"),
        ("The answer is 1 234,5", "math", "1234.5"),
        ("The answer is 1'234.5", "math", "1234.5"),
        ("Soucis : 2,74 €", "gsm8k", "2.74"),
    ],
)
def test_every_token_of_the_phrase_is_read(output: str, task: str, value: str) -> None:
    result = PACK.run(output, task)
    assert result.status == st.OK, (output, result.reason)
    assert _value(result.answer) == Fraction(value), (output, result.answer)


@pytest.mark.parametrize(
    ("output", "task", "reason"),
    [
        ("The answer is between 3 and 4.", "gsm8k", "range"),
        ("It grows from 3 to 4 inches.", "gsm8k", "range"),
        ("The answer is 3–4 hours.", "gsm8k", "range"),
        ("It takes 3-4 hours.", "gsm8k", "range"),
        ("答案是3到4个", "cmath", "range"),
        ("答案是3至4个", "cmath", "range"),
        ("答案是三到四个", "cmath", "range"),
        ("The answer is about 3 or 4.", "gsm8k", "range"),
        ("The answer is between 3 thousand and 4 thousand.", "gsm8k", "range"),
        ("The trip takes 1 hour 45 minutes.", "gsm8k", "compound quantity"),
        ("She is 5 ft 3 in tall.", "gsm8k", "compound quantity"),
        ("It took 2 hours and 30 minutes.", "gsm8k", "compound quantity"),
        ("答案是1小时45分钟", "cmath", "compound quantity"),
        ("They arrive at 3:30.", "gsm8k", "time of day"),
        ("The answer is 7,25", "math", "ambiguous number"),
        ("The answer is at least 5.", "gsm8k", "bound"),
        ("The answer is 5 or more.", "gsm8k", "bound"),
        ("The answer is 4 thousand 5", "gsm8k", "thousand"),
        ("There are two possible values, 3 or 4, depending on the ends.", "gsm8k", "or"),
        ("The answer is 12-15.", "gsm8k", "range"),
        ("The temperature is 300K", "math", "ambiguous number"),
        ("The answer is 1.2 millions", "gsm8k", "millions"),
        ("The answer is 5 squared", "math", "squared"),
        ("10 minus 3", "gsm8k", "in words"),
        ("The answer is 3 out of 5", "gsm8k", "ratio"),
        ("She had 3 apples at first, so now she has a dozen in total.", "gsm8k", "in words"),
        ("答案是3点半", "cmath", "time of day"),
        ("答案是3点15分", "cmath", "time of day"),
        ("答案是1小时30分", "cmath", "compound quantity"),
        ("答案是1米5", "cmath", "compound quantity"),
        ("答案是3成", "cmath", "成"),
        ("答案是5个苹果和3个梨", "cmath", "和"),
        ("答案是3、4", "cmath", "、"),
        ("答案是3万多", "cmath", "bound"),
        ("答案是3万5", "cmath", "万"),
        ("The answer is 3 ft. 4 in.", "gsm8k", "compound quantity"),
        ("The answer is 6 o'clock", "gsm8k", "time of day"),
        ("The answer is at 10 a.m.", "gsm8k", "time of day"),
        ("The answer is 5. 3 more", "gsm8k", "two numbers"),
        ("The answer is 2,500,5", "gsm8k", "ambiguous number"),
        ("The answer is over 100", "gsm8k", "bound"),
        ("答案是5个以上", "cmath", "bound"),
        ("答案是3个或4个", "cmath", "two values"),
    ],
)
def test_a_phrase_that_is_not_one_value_is_refused_with_its_reason(output: str, task: str, reason: str) -> None:
    result = PACK.run(output, task)
    assert result.status == st.NO_ANSWER, (output, result.answer)
    assert result.reason is not None and reason in result.reason, result.reason


def test_superscripts_and_vulgar_fractions_are_read_before_nfkc_flattens_them() -> None:
    # NFKC alone writes 10⁶ as 106 (a wrong value, status ok) and 2½ as 21⁄2: write_powers runs first
    assert PACK.run("The answer is 10⁶", "math").answer == "1000000"
    assert PACK.run("The answer is 2½", "math").answer == "5/2"
    assert PACK.run("The answer is 10⁻³.", "math").answer == PACK.run("The answer is 10^{-3}.", "math").answer
    assert PACK.run("The answer is ¾", "gsm8k").answer == "3/4"


def test_the_rows_lang_reads_a_decimal_comma() -> None:
    assert PACK.run("Die Antwort ist 7,25", "math", lang="de").answer == "7.25"
    assert PACK.run("Die Antwort ist 1.234", "math", lang="de").answer == "1234"
    assert PACK.run("The answer is 7,25", "math", lang="en").status == st.NO_ANSWER
    assert PACK.run("The answer is 7,25", "math").status == st.NO_ANSWER
    assert read_numeral("1.234", "de-ch") == Fraction(1234, 1000)  # Swiss German writes a point


def test_mathematics_keeps_its_own_notation() -> None:
    """In a box or ``$…$`` a comma lists numbers, a colon is a ratio, ``k`` a variable."""
    assert PACK.run(r"The roots are $\boxed{1,2}$.", "math500").answer == r"\{1, 2\}"
    assert PACK.run(r"$\boxed{7:32}$", "math500").status == st.OK
    assert PACK.run(r"$x \in [-2,7]$", "math500").answer == "[-2, 7]"
    assert PACK.run("(-1,2,3)", "math").answer == "(-1, 2, 3)"
    assert PACK.run(r"The answer is $\boxed{2k}$", "math500").answer != "2000"


def test_plain_numbers_read_as_before() -> None:
    for output, answer in [("#### 72", "72"), ("The answer is 1,250.", "1250"), ("42 apples.", "42"),
                           (r"$\boxed{\frac{3}{4}}$", "3/4"), ("x = -5", "-5"), ("5 + 3 = 8", "8")]:
        assert PACK.run(output, "gsm8k").answer == answer


def test_the_target_reader_reads_the_same_forms() -> None:
    assert math_match("11/4", "2 3/4") and math_match("2 3/4", "11/4")
    assert math_match("4000", "4 thousand") and math_match("11", "eleven") and math_match("35000", "3万5千")
    assert numeric_match("11/4", "2 3/4") and numeric_match("12", "a dozen")
    with pytest.raises(ValueError, match="range"):
        math_match("3", "between 3 and 4")
    with pytest.raises(NotMath, match="range"):
        read_value("3–4 hours")


def test_a_compound_quantity_is_compared_only_with_a_gold_that_states_a_unit() -> None:
    output = "The trip takes 1 hour 45 minutes."
    result = PACK.run(output, "gsm8k")
    assert result.status == st.NO_ANSWER and result.extra["reading"] == "6300 s"
    for gold, correct in [("105 minutes", True), ("1.75 hours", True), ("100 minutes", False)]:
        score = score_result(PACK, Row(output=output, target=gold, task="gsm8k"), result)
        assert score.correct is correct, (gold, score)
    bare = score_result(PACK, Row(output=output, target="105", task="gsm8k"), result)
    assert bare.correct is not True and bare.outcome == "no_answer"


def test_a_range_gold_matches_only_the_same_range() -> None:
    output = "The answer is between 3 and 4."
    result = PACK.run(output, "gsm8k")
    assert result.status == st.NO_ANSWER and result.extra["reading"] == "range 3..4"
    for gold, correct in [("3–4", True), ("3-4", True), ("from 3 to 4", True), ("3–5", False)]:
        assert score_result(PACK, Row(output=output, target=gold, task="gsm8k"), result).correct is correct, gold
    assert score_result(PACK, Row(output=output, target="3", task="gsm8k"), result).outcome == "no_answer"


def test_the_number_parser_reads_by_the_same_rule() -> None:
    from normalize.core.registry import ParseContext
    from normalize.parsers._number import NumberParams, parse_number

    ctx, params = ParseContext(), NumberParams()
    for text, answer in [("The probability is .5", "0.5"), ("4 thousand", "4000"), ("2 3/4", "11/4"),
                         ("3万5千", "35000"), ("eleven", "11"), ("2.345,6", "2345.6")]:
        assert parse_number(text, params, ctx).answer == answer, text
    for text, reason in [("between 3 and 4", "range"), ("1 hour 45 minutes", "compound quantity"),
                         ("7,25", "ambiguous number"), ("3:30", "time of day")]:
        parsed = parse_number(text, params, ctx)
        assert parsed.status == st.NO_ANSWER and reason in (parsed.reason or ""), text
    assert parse_number("7,25", params, ParseContext(lang="de")).answer == "7.25"
    assert parse_number("1 000", params, ctx).status == st.NO_ANSWER  # no space grouping in this locale


def test_number_words_are_never_a_text_answer() -> None:
    result = PACK.run("The answer is the blue one.", "math")
    assert result.status != st.OK or result.answer != r"\text{the blue one}"


def test_readers_refuse_what_they_cannot_order() -> None:
    assert read_number_words(["two", "three"]) is None
    assert read_number_words(["hundred"]) is None
    assert read_chinese_mixed("3千5万") is not None and not isinstance(read_chinese_mixed("3千5万"), Fraction)


# --------------------------------------------------------------------------- property tests

_SMALL = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
          "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SCALES = [(10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (10**3, "thousand")]


def _below_1000(n: int, hyphen: bool, british: bool) -> list[str]:
    words: list[str] = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words += [_SMALL[hundreds], "hundred"]
        if rest and british:
            words.append("and")
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        if ones:
            words += [f"{_TENS[tens]}-{_SMALL[ones]}"] if hyphen else [_TENS[tens], _SMALL[ones]]
        else:
            words.append(_TENS[tens])
    elif rest:
        words.append(_SMALL[rest])
    return words


def en_words(n: int, hyphen: bool = True, british: bool = True) -> str:
    """An English writer of its own (not the reader under test)."""
    if n == 0:
        return "zero"
    words: list[str] = []
    for size, name in _SCALES:
        if n >= size:
            words += [*_below_1000(n // size, hyphen, british), name]
            n %= size
    if n:
        if words and british and n < 100:
            words.append("and")
        words += _below_1000(n, hyphen, british)
    return " ".join(words)


def zh_arabic_units(n: int) -> str:
    """``35000`` → ``3万5千``: Arabic digits with Chinese units, 零 for every gap."""
    def section(x: int, lead_zero: bool) -> str:
        out, gap = "", lead_zero
        for size, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
            digit = x // size % 10
            if digit:
                out += ("零" if (gap and out != "") or (gap and lead_zero and not out) else "") + f"{digit}{unit}"
                gap = False
            elif out or lead_zero:
                gap = True
        return out
    parts = []
    higher = False
    for size, unit in ((10**8, "亿"), (10**4, "万"), (1, "")):
        x = n // size % 10**4 if size < 10**8 else n // size
        if x:
            parts.append(section(x, higher and x < 1000) + unit)
            higher = True
        elif higher and n % size:
            higher = True
    return "".join(parts) or "0"


EN_CONTEXTS = ["{x}", "The answer is {x}.", "So the answer is {x}", "Final answer: {x}", "#### {x}",
               "We add them up and get {x}.", "Therefore, the total is {x}", "She had 3 apples at first, so now she has {x} in total.",
               "Tom needs {x}.", "**Answer:** {x}", "The final answer is $\\boxed{{{x}}}$"]
ZH_CONTEXTS = ["答案是{x}", "所以答案为{x}。", "答：{x}", "因此，结果是 {x}", "最终答案：{x}", "小明一共有{x}。", "所以他还需要{x}"]

_decimals = hs.builds(lambda n, p: Fraction(n, 10**p), hs.integers(1, 10**7), hs.integers(0, 3))


@hs.composite
def written_values(draw: hs.DrawFn) -> tuple[str, Fraction, str | None, bool, bool]:
    """(text, value, lang, zh, read): a value written in one of the forms of issue 22; ``read``:
    the parsers promise to read it (else a refusal is right too)."""
    form = draw(hs.sampled_from(["leading_dot", "magnitude", "suffix", "words", "dozen", "mixed", "zh_units",
                                 "zh_numeral", "zh_decimal_wan", "zh_mixed", "locale_proven", "locale_lang",
                                 "negative_magnitude", "modified"]))
    if form == "leading_dot":
        digits = draw(hs.integers(1, 9999))
        places = draw(hs.integers(len(str(digits)), 4))
        return "." + str(digits).rjust(places, "0"), Fraction(digits, 10**places), None, draw(hs.booleans()), True
    if form in ("magnitude", "negative_magnitude"):
        mantissa = Fraction(draw(hs.integers(1, 999)), 10 ** draw(hs.integers(0, 2)))
        size, name = draw(hs.sampled_from(_SCALES))
        sign = -1 if form == "negative_magnitude" else 1
        return f"{'-' if sign < 0 else ''}{format_number(mantissa)} {name}", sign * mantissa * size, None, False, True
    if form == "suffix":
        mantissa = Fraction(draw(hs.integers(1, 999)), 10 ** draw(hs.integers(0, 1)))
        letter, size, money = draw(hs.sampled_from([("k", 10**3, ""), ("K", 10**3, "$"), ("M", 10**6, "$"),
                                                    ("bn", 10**9, ""), ("B", 10**9, "$"), ("K", 10**3, "")]))
        # a bare 300K may be kelvin: read only beside a currency, else refused
        return f"{money}{format_number(mantissa)}{letter}", mantissa * size, None, False, bool(money) or letter in ("k", "bn")
    if form == "words":
        n = draw(hs.one_of(hs.integers(0, 100), hs.integers(0, 10**6), hs.integers(0, 10**15 - 1)))
        return en_words(n, draw(hs.booleans()), draw(hs.booleans())), Fraction(n), None, False, True
    if form == "dozen":
        k = draw(hs.integers(1, 99))
        return (f"{en_words(k)} dozen" if k > 1 else "a dozen"), Fraction(12 * k), None, False, True
    if form == "mixed":
        den = draw(hs.integers(2, 16))
        num = draw(hs.integers(1, den - 1))
        whole = draw(hs.integers(1, 50))
        style = draw(hs.sampled_from(["{w} {n}/{d}", "{w} and {n}/{d}", "{w}又{n}/{d}"]))
        return style.format(w=whole, n=num, d=den), whole + Fraction(num, den), None, "又" in style, True
    if form == "zh_units":
        n = draw(hs.one_of(hs.integers(1, 10**4), hs.integers(1, 10**8), hs.integers(1, 10**12 - 1)))
        return zh_arabic_units(n), Fraction(n), None, True, True
    if form == "zh_numeral":
        n = draw(hs.integers(1, 10**9))
        return cn2an.an2cn(str(n)), Fraction(n), None, True, True
    if form == "zh_decimal_wan":
        mantissa = Fraction(draw(hs.integers(11, 999)), 10)
        unit, size = draw(hs.sampled_from([("万", 10**4), ("亿", 10**8)]))
        if draw(hs.booleans()):  # 一点二万: in characters
            whole, _, decimals = format_number(mantissa).partition(".")
            written = cn2an.an2cn(whole) + ("点" + "".join("零一二三四五六七八九"[int(d)] for d in decimals) if decimals else "")
            return f"{written}{unit}", mantissa * size, None, True, True
        return f"{format_number(mantissa)}{unit}", mantissa * size, None, True, True
    if form == "zh_mixed":
        den = draw(hs.integers(2, 9))
        num = draw(hs.integers(1, den - 1))
        whole = draw(hs.integers(1, 9))
        return f"{whole}又{cn2an.an2cn(str(den))}分之{cn2an.an2cn(str(num))}", whole + Fraction(num, den), None, True, True
    if form == "locale_proven":
        whole = draw(hs.integers(1000, 10**7))
        decimals = draw(hs.integers(1, 99))
        grouping = draw(hs.sampled_from([".", " ", "'"]))
        grouped = f"{whole:,}".replace(",", grouping)
        return f"{grouped},{decimals}", Fraction(f"{whole}.{decimals}"), None, False, True
    if form == "locale_lang":
        whole = draw(hs.integers(0, 999))
        decimals = draw(hs.integers(1, 99))
        return f"{whole},{decimals:02d}", Fraction(f"{whole}.{decimals:02d}"), draw(hs.sampled_from(["de", "fr", "pt-br"])), False, True
    # words that change the number beside them: read right or refused, never dropped as a unit
    n = draw(hs.integers(1, 99))
    m = draw(hs.integers(1, 99))
    digit = draw(hs.integers(1, 9))
    text, value, read = draw(hs.sampled_from([
        (f"negative {n}", Fraction(-n), True), (f"minus {n}", Fraction(-n), True), (f"{n} squared", Fraction(n * n), False),
        (f"{n} out of {m}", Fraction(n, m), False), (f"{n} grand", Fraction(1000 * n), False),
        (f"{n} fourths", Fraction(n, 4), n > 1), (f"{n} hundredths", Fraction(n, 100), n > 1),
        (f"{n}.5 millions", (n + Fraction(1, 2)) * 10**6, False), (f"{n} point {digit}", n + Fraction(digit, 10), False),
        (f"{n} minus {m}", Fraction(n - m), False), (f"{n} times {m}", Fraction(n * m), False),
        (f"{n} lakh", Fraction(n * 10**5), True), (f"{n} and a half", n + Fraction(1, 2), True),
        (f"{en_words(n)} and a half", n + Fraction(1, 2), True), (f"{n} dozen", Fraction(12 * n), True),
        (f"{n}½", n + Fraction(1, 2), False), (f"{n} ¾", n + Fraction(3, 4), True), (f"{n}千克", Fraction(n), True),
        (f"{n}万{digit}千", Fraction(n * 10**4 + digit * 1000), True),
    ]))
    return text, value, None, any("\u4e00" <= c <= "\u9fff" for c in text), read


@PROPS
@given(written_values(), hs.data())
def test_a_value_in_any_form_is_read_right_or_refused(case: tuple[str, Fraction, str | None, bool, bool], data: hs.DataObject) -> None:
    text, value, lang, zh, _ = case
    context = data.draw(hs.sampled_from(ZH_CONTEXTS if zh else EN_CONTEXTS + ZH_CONTEXTS[:2]))
    task = data.draw(hs.sampled_from(["cmath"] if context in ZH_CONTEXTS else ["gsm8k", "math", "math500"]))
    output = context.format(x=text)
    result = PACK.run(output, task, lang=lang)
    if result.status == st.OK:
        read = read_value(result.answer)
        if read.kind != "number":  # \boxed{2k} in mathematics: 2 times k, no number
            assert "k" in read.canonical or "M" in read.canonical, (output, result.answer)
            return
        assert _value(result.answer) == value, (output, result.answer, value)


@PROPS
@given(written_values())
def test_the_target_reader_never_reads_a_wrong_value(case: tuple[str, Fraction, str | None, bool, bool]) -> None:
    """A gold written in any of these forms reads its value, or is no mathematical answer."""
    text, value, lang, _, _ = case
    if lang is not None:
        return  # the scorer reads golds without a lang
    try:
        gold = read_value(text)
    except NotMath:
        return  # no mathematical answer: a bad target, reported
    assert not math_match(format_number(value + 1), text), (text, value)
    if gold.kind == "number" and not gold.dropped:  # (2.5k in mathematics: 2.5 times k; 1K: one kelvin)
        assert math_match(format_number(value), text), (text, value)


@PROPS
@given(written_values())
def test_a_value_stated_plainly_is_read(case: tuple[str, Fraction, str | None, bool, bool]) -> None:
    """The forms are read, not just refused: stated after a marker, each gives its value."""
    text, value, lang, zh, read = case
    if not read:
        return
    output = ("答案是" if zh else "The answer is ") + text
    result = PACK.run(output, "cmath" if zh else "gsm8k", lang=lang)
    assert result.status == st.OK, (output, result.reason)
    assert _value(result.answer) == value, (output, result.answer)


_numbers = hs.one_of(hs.integers(0, 10**6).map(str), _decimals.map(format_number),
                     hs.integers(1, 99).map(lambda n: f"{n} thousand"))


@PROPS
@given(_numbers, _numbers, hs.sampled_from([
    "between {a} and {b}", "from {a} to {b}", "{a}–{b}", "{a} to {b}", "about {a} or {b}", "roughly {a} or {b}",
    "{a}到{b}", "{a}至{b}", "{a}到{b}个", "大约{a}或{b}", "{a} - {b} hours", "{a} or {b}",
    "{a}和{b}", "{a}、{b}", "{a}个苹果和{b}个梨", "{a}~{b}", "{a} to {b} km", "{a} hours or {b} hours",
    "{a}或{b}", "between {a} and {b} dollars",
]), hs.sampled_from(["{x}", "The answer is {x}.", "So it takes {x}", "答案是{x}", "所以结果是{x}。"]))
def test_two_values_in_one_span_are_never_one_answer(a: str, b: str, form: str, context: str) -> None:
    if Fraction(read_value(a.replace(" thousand", "000")).number or 0) == Fraction(read_value(b.replace(" thousand", "000")).number or 0):
        return
    output = context.format(x=form.format(a=a, b=b))
    stated = context != "{x}" and context != "So it takes {x}"
    if form in ("{a} or {b}", "{a} hours or {b} hours") and stated:
        return  # a stated "3 or 5" lists two solutions: the math reader's set, not one number
    task = "cmath" if "答案" in context or "结果" in context else "gsm8k"
    result = PACK.run(output, task)
    assert result.status != st.OK, (output, result.answer)
