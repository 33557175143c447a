"""Short cuts for outputs with no answer marker (issue 26, target 2: an unmarked output is read
whole by the format rules and the parsers), each held equal to the code as it was: the oracles
of ``tests/_oracles/format.py`` and slow reference copies here, on generated texts built from
the pieces each short cut decides on (LaTeX commands after a backslash, literal escapes, runs
of spaces and line breaks past the short cut's limit, native digits beside CJK text).
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as hs

from normalize.limits._regex import compile_pattern
from normalize.rules import extract, extract_math
from normalize.rules import format as fmt
from normalize.rules._format_params import NativeDigitsParams, NormalizeWhitespaceParams
from normalize.values import _abstention
from tests._oracles import format as oracle

_ESCAPE_PIECES = [
    "\\times", "\\text{", "\\neq", "\\nu", "\\theta", "\\to", "\\tfrac", "\\n", "\\t", "\\r\\n", "\\\\n",
    "\\\\", "\\", "\\nThe", "\\tx", "\\ne", "n", "t", "r", "eq", "The", "{", "}", " ", "$", "3", "\n", "```\n",
    "~~~\n", "中", "é",
]  # fmt: skip


@given(hs.lists(hs.sampled_from(_ESCAPE_PIECES), max_size=30).map("".join))
@settings(max_examples=600, deadline=None, derandomize=True)
@example("$3 \\times 4 \\neq \\text{five}$")
@example("\\times 2\\nNext")
@example("\\\\times")
@example("\\r\\neq")
def test_unescape_newlines_equals_the_oracle_on_latex_heavy_text(text: str) -> None:
    assert fmt.unescape_newlines(text) == oracle.unescape_newlines(text)


def _old_collapse(text: str) -> str:
    return compile_pattern(r"[ \n]+").sub(" ", text)


_SPACE_PIECES = hs.one_of(
    hs.sampled_from([" ", "  ", "\n", "\n\n", " \n ", "a", "中", "\t", "\u3000", "```\n", "b c"]),
    hs.integers(1, 700).map(lambda n: " " * n),
    hs.integers(1, 700).map(lambda n: " \n" * n),
)


@given(hs.lists(_SPACE_PIECES, max_size=12).map("".join))
@settings(max_examples=400, deadline=None, derandomize=True)
@example(" " * 300 + "a" + "\n" * 257)
def test_collapse_equals_the_old_sub(text: str) -> None:
    assert fmt._collapse_spaces(text) == _old_collapse(text)
    collapse = NormalizeWhitespaceParams(newlines="collapse")
    assert fmt.normalize_whitespace(text, collapse) == oracle.normalize_whitespace(text, "collapse")


_DIGITS = ("٠١٢٣٤٥٦٧٨٩", "۰۱۲۳۴۵۶۷۸۹", "०१२३४५६७८९", "๐๑๒๓๔๕๖๗๘๙")


@given(
    hs.lists(hs.sampled_from(["42", "中", "答案", " ", "é", "ж", *_DIGITS[0][:3], *_DIGITS[2][5:], "๙", "\\", "]", "^", "-"]), max_size=20).map("".join),
    hs.lists(hs.sampled_from(_DIGITS), min_size=1, max_size=3, unique=True).map(tuple),
)
@settings(max_examples=400, deadline=None, derandomize=True)
def test_fold_native_digits_equals_the_translate(text: str, digits: tuple[str, ...]) -> None:
    table: dict[int, Any] = {ord(c): str(v) for run in digits for v, c in enumerate(run)}
    assert fmt.fold_native_digits(text, NativeDigitsParams(digits=digits)) == text.translate(table)


def test_the_screens_decide_both_ways() -> None:
    # the short cuts are taken (no sub) and refused (the sub runs) where they should be
    assert fmt._only_latex_escapes("\\times \\text{a} \\neq")
    assert not fmt._only_latex_escapes("\\times\\nB")
    assert fmt._digit_class(_DIGITS[:1]).search("答案 42") is None
    assert fmt._digit_class(_DIGITS[:1]).search("答案 ٤٢") is not None


def _old_only_latex_escapes(text: str) -> bool:
    """The screen as first written: a ``find`` loop per escape, the letter run read after each."""
    for pair in ("\\n", "\\t"):
        at = text.find(pair)
        while at >= 0:
            run = re.compile(r"[A-Za-z]*").match(text, at + 1)
            if run is None or run.group(0) not in fmt.LATEX_N_T_COMMANDS:
                return False
            at = text.find(pair, run.end())
    return True


_LATEX_ESCAPE_PIECES = hs.sampled_from([
    "\\", "\\n", "\\t", "\\r\\n", "\\\\n", "n", "t", "eq", "imes", "ext", "heta", "o", "abla", "x",
    "\\times", "\\text", "\\neq", "\\ne", "\\to", "\\nB", "\\tA", "\\nLeftarrow", "\\nVdash", "\\neqB", "\\Theta", "L", "B", " ", "\n", "$", "{", "}", "中", "é", "1",
])  # fmt: skip


@given(hs.lists(_LATEX_ESCAPE_PIECES, max_size=25).map("".join))
@settings(max_examples=600, deadline=None, derandomize=True)
@example("\\times \\text{a} \\neq")
@example("\\\\neq\\nx")
@example("\\tn\\n")
def test_only_latex_escapes_equals_the_find_loop(text: str) -> None:
    assert fmt._only_latex_escapes(text) == _old_only_latex_escapes(text)


def _old_last_sentence(text: str) -> str:
    stripped = text.strip()
    start = 0
    for match in _abstention._SENTENCES.finditer(stripped):
        if match.end() < len(stripped):
            start = match.end()
    return stripped[start:]


_SENTENCE_PIECES = hs.one_of(
    hs.sampled_from([
        ".", "!", "?", "\n", "\r", "。", "！", "？", " ", "  ", "\t", "\x1c", "\x85", "\xa0", "\u3000", "\u2028",
        ". ", ".\n.", " . ", "a", "bee", "3.5", "中文", "é",
    ]),
    hs.integers(1, 600).map(lambda n: "x" * n),
    hs.integers(1, 600).map(lambda n: ". " * n),
    hs.integers(1, 300).map(lambda n: "word " * n),
)  # fmt: skip


@given(hs.lists(_SENTENCE_PIECES, max_size=14).map("".join))
@settings(max_examples=500, deadline=None, derandomize=True)
@example("The passage is about bees. So the year cannot be determined.")
@example("a" * 300 + ". \n.")
@example(". " * 200 + "x" * 300)
def test_last_sentence_equals_the_whole_scan(text: str) -> None:
    assert _abstention.last_sentence(text) == _old_last_sentence(text)


def _old_box_spans(text: str) -> list[tuple[int, int]]:
    scan = extract_math._Scan(text)
    if "\\" not in text:
        return []
    found = scan.outside_code(list(compile_pattern(extract._BOX).finditer(text)))
    return [m.span() for m in found]


@given(hs.lists(hs.sampled_from(["\\boxed{", "\\fbox{", "\\boxedx", "\\fboxes", "\\box", "\\fbo", "\\Boxed", "\\", "boxed", "}", "{", "$3 \\times 4$", "```\n", "中", "x"]), max_size=20).map("".join))
@settings(max_examples=400, deadline=None, derandomize=True)
def test_box_matches_equal_the_whole_scan(text: str) -> None:
    assert [m.span() for m in extract_math._box_matches(extract_math._Scan(text))] == _old_box_spans(text)
