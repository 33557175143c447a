"""The speed short-cuts give exactly what the slow paths give (outputs byte-identical)."""

from __future__ import annotations

import unicodedata

import regex
from hypothesis import given, settings
from hypothesis import strategies as hs

from normalize._literals import fold
from normalize._regex import char_table, compile_pattern
from normalize.parsers import _choice
from normalize.rules import format as fmt

# words the pre-checks look for, their neighbours, and characters that change matching
_PIECES = (
    "answer", "the", "correct", "right", "best", "final", "option", "choice", "letter", "one", "my",
    "pick", "selection", "réponse", "RÉPONSE", "respuesta", "antwort", "therefore", "so", "in",
    "conclusion", "overall", "might", "may", "could", "be", "possibly", "perhaps", "maybe", "also",
    "equally", "or", "is", "it", "wait", "not", "that", "wrong", "actually", "no", "let", "me",
    "reconsider", "I", "B", "(C)", "D", "A", "选项", "正确", "对", "是", "为", "答案", "也", "等等", "不对",
    "错了", "選", " ", "  ", "\n", ",", ".", ":", "，", "。", "İ", "K", "ſ", "\u200b", "“", "”", "＂",
)
_TEXTS = hs.lists(hs.sampled_from(_PIECES), max_size=40).map("".join)


@given(_TEXTS)
@settings(max_examples=400, deadline=None)
def test_choice_prechecks_never_skip_a_match(text: str) -> None:
    for pattern in (*_choice._NEEDS, _choice._RETRACTION):
        fast = [m.span() for m in _choice._finditer(pattern, text)]
        slow = [m.span() for m in compile_pattern(pattern).finditer(text)]
        assert fast == slow, pattern


@given(hs.text(alphabet=hs.sampled_from("ab “”„‟«»「」『』〝〞‘’‚‛\"'ＡＢ１　。\n")))
def test_char_tables_translate_like_str_translate(text: str) -> None:
    assert fmt._QUOTE_TABLE.translate(text) == text.translate(fmt._QUOTES)
    assert fmt._HALFWIDTH_TABLE.translate(text) == text.translate(fmt._HALFWIDTH)
    assert _choice._QUOTE_TABLE.translate(text) == text.translate(_choice._QUOTES)


def test_char_table_refuses_order_dependent_mappings() -> None:
    try:
        char_table({"a": "b", "b": "c"})
    except ValueError:
        return
    raise AssertionError("a replacement holding a mapped character must be refused")


def test_format_char_precheck_covers_unicodedata_cf() -> None:
    finder = _choice._MAYBE_FORMAT_CHAR
    missing = [hex(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf" and not finder.match(chr(c))]
    assert missing == []


def test_fold_covers_every_case_insensitive_ascii_letter() -> None:
    letter = regex.compile(r"(?i)[a-z]")
    odd = [chr(c) for c in range(128, 0x110000) if letter.fullmatch(chr(c))]
    for char in odd:
        assert fold(char).isascii() and letter.fullmatch(fold(char)), hex(ord(char))


@given(hs.text(alphabet=hs.sampled_from("ab \t\n\r\u3000\u00a0\u2028x")))
def test_strip_trailing_whitespace_fast_path(text: str) -> None:
    pieces = regex.split(r"(\r\n|\r|\n)", text)
    slow = "".join(p if i % 2 else p.rstrip(fmt._LINE_TRAILING_CHARS) for i, p in enumerate(pieces))
    assert fmt.strip_trailing_whitespace(text) == slow.rstrip(fmt._TEXT_TRAILING_CHARS)
