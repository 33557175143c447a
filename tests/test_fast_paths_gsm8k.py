"""The GSM8K-side short cuts of issue 26 (target 2, third round) give exactly what the plain
readings give.

* ``extract_math_answer`` reads the part of a solution before its cut in pieces from the end
  (:func:`normalize.rules.extract_math._stated_from_end`): against the oracle of its earlier
  algorithm (tests/_oracles/math.py) with the cut and the pieces moved into short texts, and on
  real-shaped GSM8K solutions (bench/_realshape.py);
"""

from __future__ import annotations

import importlib
import random
import sys
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as hs

from normalize.rules import extract_math
from tests._oracles import math as oracle
from tests.test_math_fast_paths import (
    _ALL_PARAMS,
    _LONG_MATH_TEXTS,
    _MATH_PARAMS,
    _MATH_TEXTS,
    _outcome,
)


def _gsm8k_samples(n: int, seed: int) -> list[Any]:
    """``n`` real-shaped GSM8K samples (bench/_realshape.py, imported only for this)."""
    bench = str(Path(__file__).resolve().parents[1] / "bench")
    sys.path.insert(0, bench)
    try:
        realshape = importlib.import_module("_realshape")
    finally:
        sys.path.remove(bench)
    rng = random.Random(seed)
    return [realshape.gsm8k(rng) for _ in range(n)]


def _moved(window: int, chunk: int) -> tuple[int, int, int]:
    saved = extract_math._WINDOW, extract_math._WINDOW_MIN, extract_math._CHUNK
    extract_math._WINDOW, extract_math._WINDOW_MIN, extract_math._CHUNK = window, 0, chunk  # type: ignore[misc]
    return saved


def _restore(saved: tuple[int, int, int]) -> None:
    extract_math._WINDOW, extract_math._WINDOW_MIN, extract_math._CHUNK = saved  # type: ignore[misc]


@given(hs.one_of(_MATH_TEXTS, _LONG_MATH_TEXTS), hs.integers(0, 60), hs.integers(1, 40))
@settings(max_examples=2500, deadline=None, derandomize=True)
@example("therefore 3. so 4. therefore 5.\nx", 2, 3)
@example("因此 3。所以 4。\n因此\n5", 1, 1)
@example("the answer is 5. x = 2. The answer is\n\n. y", 3, 2)
def test_pieces_from_the_end_equal_the_oracle(text: str, window: int, chunk: int) -> None:
    """The part before the cut read piece by piece from the end, with the cut and the pieces
    anywhere a stop may fall: what the oracle's one scan of the whole text gives."""
    saved = _moved(window, chunk)
    try:
        for params in _ALL_PARAMS:
            assert _outcome(extract_math.extract_math_answer, text, params) == _outcome(oracle.extract_math_answer, text, params)
    finally:
        _restore(saved)


def test_pieces_from_the_end_on_real_shaped_solutions() -> None:
    """Real-shaped GSM8K solutions (weak markers open many lines; a fifth states no final
    answer), with the shipped sizes and with small pieces: the oracle's outcome."""
    samples = _gsm8k_samples(150, 11)
    for chunk in (extract_math._CHUNK, 7, 60):
        saved = _moved(extract_math._WINDOW, chunk)
        extract_math._WINDOW_MIN = saved[1]  # type: ignore[misc]
        try:
            for s in samples:
                for params in (_MATH_PARAMS,):
                    got = _outcome(extract_math.extract_math_answer, s.output, params)
                    assert got == _outcome(oracle.extract_math_answer, s.output, params), s.output[-200:]
        finally:
            _restore(saved)


# --------------------------------------------------------------------------- the math parser's items

from normalize.limits._regex import compile_pattern  # noqa: E402
from normalize.parsers import _math  # noqa: E402
from tests.test_fast_paths_parsers import _MATH_TEXTS as _PARSER_TEXTS  # noqa: E402
from tests.test_fast_paths_parsers import _candidate_slow, _items_slow  # noqa: E402
from tests.test_fast_paths_parsers import _outcome as _parsed  # noqa: E402

# prose with words, one-letter names, numbers, commas, operators and no backslash (where the
# runs are read piece by piece), and pieces with one
_RUN_PIECES = (
    "So ", "she has ", "a ", "x ", "I", "it's", "’s ", "12", "1,000", "3.5", ".5", " ", "  ", "\t", ",", ", ", ".", ". ",
    "=", " = ", "+", "-", "(", ")", "[", "]", "{", "}", "%", "!", "/", "×", "≤", "apples", "ab", "Zz", "\n", "$", "$4$",
    "\\text{ cm }", "\\frac{1}{2}", "\\pi", "\\$",
)
_RUN_TEXTS = hs.lists(hs.sampled_from(_RUN_PIECES), max_size=60).map("".join)


def _runs_slow(text: str, pos: int, stop: int) -> list[tuple[int, int, str]]:
    """A segment's runs as they were read: the regex module's scan of the whole segment."""
    found = []
    for r in compile_pattern(_math._RUN).finditer(text, pos, stop):
        content = r.group(0).strip(" ,.")
        if any(c.isdigit() for c in content) or compile_pattern(r"\\(?:infty|pi|sqrt|frac)").search(content):
            found.append((r.start(), r.end(), content))
    return found[::-1]


@given(hs.one_of(_RUN_TEXTS, _PARSER_TEXTS), hs.integers(1, 40), hs.integers(0, 10**6), hs.integers(0, 10**6))
@settings(max_examples=2500, deadline=None, derandomize=True)
@example("ab 1 cd 2 ef", 2, 0, 10**6)
@example("x 1, 2 and 3 yy", 3, 0, 10**6)
@example("1 xab 3", 4, 0, 7)  # the piece before the cut reads text[p]: "x" is no name before "ab"
def test_runs_from_the_end_equal_one_scan(text: str, piece: int, a: int, b: int) -> None:
    """The stdlib twin of the run pattern, read piece by piece from the end of any segment,
    gives the regex module's scan of the whole segment, last first."""
    pos, stop = sorted((a % (len(text) + 1), b % (len(text) + 1)))
    saved = _math._RUN_PIECE
    _math._RUN_PIECE = piece  # type: ignore[misc]
    try:
        assert list(_math._runs_from_end(text, pos, stop)) == _runs_slow(text, pos, stop)
    finally:
        _math._RUN_PIECE = saved  # type: ignore[misc]


@given(hs.one_of(_RUN_TEXTS, _PARSER_TEXTS), hs.integers(1, 40), hs.booleans())
@settings(max_examples=1500, deadline=None, derandomize=True)
def test_items_and_candidate_with_small_pieces_equal_the_slow_reading(text: str, piece: int, whole: bool) -> None:
    saved = _math._RUN_PIECE
    _math._RUN_PIECE = piece  # type: ignore[misc]
    try:
        assert _math._items(text) == _items_slow(text)
        assert _parsed(_math._candidate, text, whole=whole) == _parsed(_candidate_slow, text, whole=whole)
    finally:
        _math._RUN_PIECE = saved  # type: ignore[misc]


def test_items_on_real_shaped_solutions() -> None:
    for s in _gsm8k_samples(120, 5):
        for text in (s.output, s.output[-600:]):
            assert _math._items(text) == _items_slow(text)
            for whole in (True, False):
                assert _parsed(_math._candidate, text, whole=whole) == _parsed(_candidate_slow, text, whole=whole)


# --------------------------------------------------------------------------- format and semantic rules

from normalize.rules import format as fmt  # noqa: E402
from normalize.rules._format_params import NormalizeWhitespaceParams  # noqa: E402
from normalize.values import _numbers  # noqa: E402
from tests._oracles import format as format_oracle  # noqa: E402

_WHITESPACE_PIECES = (
    " ", "  ", "\n", "\n\n", "\n\n\n", " \n", "\t", "\r\n", "\r", "\x0b", "\x0c", "\u3000", "\u00a0", "\u2028",
    "\x85", "a", "b c", "中", "$3$", "```\n", "```python\nx  = 1\n```\n", "~~~\n", "`", "12,", ".",
)


@given(hs.lists(hs.sampled_from(_WHITESPACE_PIECES), max_size=25).map("".join), hs.sampled_from(("keep", "collapse")))
@settings(max_examples=2000, deadline=None, derandomize=True)
@example("a \n b", "collapse")
@example("a\n```\n", "collapse")
def test_whitespace_without_its_confirming_round_equals_the_oracle(text: str, mode: str) -> None:
    """normalize_whitespace's first round alone, where its result is settled: what the rule
    run to a fixed point over its prose segments gives."""
    params = NormalizeWhitespaceParams(newlines=mode)  # type: ignore[arg-type]
    assert fmt.normalize_whitespace(text, params) == format_oracle.normalize_whitespace(text, mode)


def test_whitespace_on_real_shaped_statements() -> None:
    collapse = NormalizeWhitespaceParams(newlines="collapse")
    for s in _gsm8k_samples(60, 3):
        for text in (s.output, s.output[-500:], s.output.replace("\n", "\n\n")):
            assert fmt.normalize_whitespace(text, collapse) == format_oracle.normalize_whitespace(text, "collapse")


def test_chinese_numeral_screen_is_the_regex_modules_class() -> None:
    """The stdlib class of the Chinese-numeral screen holds exactly the characters of the
    ``regex`` class it replaced, over every code point of the Basic Multilingual Plane and the
    CJK extensions."""
    old = compile_pattern(_numbers._CN_ANY)
    for code in [*range(0x0, 0x10000), *range(0x20000, 0x2A6E0)]:
        char = chr(code)
        assert (_numbers._CN_ANY_STD.match(char) is None) == (old.match(char) is None), hex(code)


# --------------------------------------------------------------------------- the accounting reader's tokens

import re  # noqa: E402

from normalize.values import _quantity  # noqa: E402


def _old_token_pattern(spaces: bool, cjk: bool) -> re.Pattern[str]:
    """The token pattern as it was: whitespace a token of its own."""
    cn = _quantity._CN_CHARS
    space_group = r"|\x20[0-9]{3}(?![0-9])" if spaces else ""
    chinese = (
        r"|(?P<cnfrac>(?:[0-9]+|[" + cn + r"]+)分之(?:[0-9]+(?:\.[0-9]+)?|[" + cn + r"]+))"
        r"|(?P<cn>(?:[0-9]+(?:\.[0-9]+)?)?(?:[" + cn + r"]|(?<=[0-9" + cn + r"])点(?=[0-9" + cn + r"]))"
        r"(?:[0-9." + cn + r"]|点(?=[0-9" + cn + r"]))*)"
    ) if cjk else ""
    return re.compile(
        r"(?P<word>[A-Za-z]+)|(?P<space>\s+)" + chinese
        + r"|(?P<num>(?<![0-9])\.[0-9]+|[0-9]+(?:[.,'’\u00a0\u202f\u2009][0-9]+" + space_group + r")*)"
        r"|(?P<han>[\u3400-\u9fff])"
        r"|(?P<sym>.)",
        re.DOTALL,
    )


def _tokens_slow(text: str, spaces: bool = True) -> list[Any]:
    out: list[Any] = []
    spaced = True
    for m in _old_token_pattern(spaces, not text.isascii()).finditer(text):
        kind = m.lastgroup or "sym"
        if kind == "space":
            spaced = True
            continue
        piece, end = m.group(0), m.end()
        if kind == "cn" and len(piece) > 1 and piece[-1] in _quantity._UNIT_PREFIXES and end < len(text) and text[end] in _quantity._UNIT_PREFIXES[piece[-1]]:
            head = piece[:-1]
            out.append(_quantity._Tok("num" if head.replace(".", "").isdigit() else "cn", head, m.start(), end - 1, spaced))
            out.append(_quantity._Tok("han", piece[-1], end - 1, end, False))
        else:
            out.append(_quantity._Tok(kind, piece, m.start(), end, spaced))
        spaced = False
    return out


_TOKEN_PIECES = (
    " ", "  ", "\t", "\n", "\u00a0", "\u202f", "\u2009", "\u3000", "\x1c", "\x85", "12", "1 000", "1,000", "3.5", ".5",
    "'", "’", "apples", "a", "K", "万", "3万5千", "4000千克", "千米", "三分之一", "2点5", "点", "又", "中", "$", "%",
    "-", "/", "\\", "é", "😀", "\u200b",
)


@given(hs.lists(hs.sampled_from(_TOKEN_PIECES), max_size=30).map("".join), hs.booleans())
@settings(max_examples=2500, deadline=None, derandomize=True)
@example(" 12 ", True)
@example("\u3000三\u00a0", False)
def test_tokens_with_their_whitespace_equal_the_old_tokens(text: str, spaces: bool) -> None:
    assert _quantity._tokens(text, spaces) == _tokens_slow(text, spaces)


def test_tokens_on_real_shaped_windows() -> None:
    for s in _gsm8k_samples(80, 9):
        for text in (_quantity._window(s.output), s.output[-400:]):
            assert _quantity._tokens(text) == _tokens_slow(text)


@given(hs.one_of(_MATH_TEXTS, _LONG_MATH_TEXTS), hs.integers(0, 10**6), hs.sampled_from(range(3)))
@settings(max_examples=2000, deadline=None, derandomize=True)
@example("answering. The answer: 5 and answer is 6", 11, 1)
@example("xanswer is 5", 1, 1)  # the guard reads the letter before the start
def test_located_scan_from_a_start_equals_the_alternation(text: str, cut: int, index: int) -> None:
    """The located, merged scan of a tier's live patterns from any start (``begin``: the pieces
    before a cut start at a stop) gives the guarded alternation's ``finditer`` from that start."""
    from normalize.rules._speed import _alternation

    tier = _MATH_PARAMS.tiers[index]
    begin = cut % (len(text) + 1)
    scan = extract_math._Scan(text)
    info = extract_math._tier(tier)
    expected = [(m.start(), m.end()) for m in _alternation(tier).finditer(text, begin)]
    if info.tangled or any(a == b for a, b in expected):
        return  # scanned as one alternation / left to finditer's own stepping
    live = scan.live(info, len(text))
    got = extract_math._plan_matches(scan, live, len(text), 5.0, begin) if live else []
    assert got is not None
    assert [(m.start(), m.end()) for m in got] == expected
