"""Short cuts on real-shaped multiple-choice outputs (issue 26, target 2: option-by-option
analysis, a share without a final marker), each held equal to the code as it was, on generated
texts built from the pieces each short cut decides on.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as hs

from normalize.core.pack import load_pack
from normalize.limits._regex import user_pattern
from normalize.parsers import _choice
from normalize.values import _abstention

_PACK = load_pack()
_SPECS = [t.abstention for t in _PACK.task_types.values() if t.abstention is not None]

# --------------------------------------------------------------------------- the abstention gate


def _old_detect(spec: _abstention.AbstentionSpec, text: str, lang: str | None) -> _abstention.Found | None:
    """:func:`_abstention.detect` as it was: every language's phrases searched at once."""
    if len(text) > _abstention.MAX_ABSTENTION_CHARS or _abstention._DIGIT.search(text) is not None:
        return None
    folded = _abstention._fold(text)
    lowered = folded.lower()
    compiled = spec._compiled[spec.language_for(lang)]
    if compiled.keywords is not None:
        keywords = compiled.ascii_keywords if lowered.isascii() else compiled.keywords
        if keywords is None or keywords.search(lowered) is None:
            return None
    if user_pattern(compiled.phrases, _abstention._FLAGS, timeout=1.0).search(folded) is None:
        return None
    return _abstention._detect_in(compiled, _abstention._DECORATION.sub(" ", folded), 1.0)


_ABSTAIN_PIECES = (
    "I don't know", "cannot be determined", "not enough information", "Je ne sais pas", "le texte ne le dit pas",
    "No lo sé", "no se puede determinar", "Ich weiß es nicht", "kann nicht bestimmt werden", "Я не знаю",
    "недостаточно информации", "わかりません", "書かれていません", "모르겠습니다", "정보가 부족합니다", "无法确定",
    "信息不足", "不知道", "the only one that fits", "Option C is the only one", "one", "ne ", "no ", "not", "n't",
    "kein", "nicht", "не", "无", "不", "Sorry, ", ", ", ". ", " ", "Paris", "B", "unknown", "unclear", "N/A",
    "impossible", "inconnu", "desconocido", "unmöglich", "neizvestno", "неизвестно", "없", "ない", "ません",
)


@given(hs.lists(hs.sampled_from(_ABSTAIN_PIECES), min_size=1, max_size=8).map("".join),
       hs.sampled_from([None, "en", "zh", "fr", "de", "ru", "ja", "ko", "es", "pt"]), hs.integers(0, len(_SPECS) - 1))
@settings(max_examples=600, deadline=None, derandomize=True)
@example("Option C is the only one that fits.", None, 0)
@example("Sorry, I don't know.", None, 0)
@example("Je ne sais pas.", None, 0)
@example("わかりません。", None, 0)
def test_abstention_gate_searches_only_the_languages_whose_keywords_occur(text: str, lang: str | None, which: int) -> None:
    spec = _SPECS[which]
    assert _abstention.detect(spec, text, lang, timeout=1.0) == _old_detect(spec, text, lang)


def test_the_gate_is_split_by_language_where_every_language_has_keywords() -> None:
    for spec in _SPECS:
        whole = spec._compiled["*"]
        if whole.keywords is not None and len(spec.languages) > 1:
            assert whole.screens is not None and len(whole.screens) == len(spec.languages)
            for keywords, phrases in whole.screens:  # each part is one language's own
                assert phrases in {spec._compiled[lang].phrases for lang in spec.languages}
                assert isinstance(keywords, re.Pattern)


# --------------------------------------------------------------------------- the language screen


def _old_guess_langs(text: str) -> list[str]:
    """:meth:`Pack.guess_langs` as it was: each word looked for in the whole text's bytes."""
    ascii_words, other_words, anchors, _, _ = _PACK._lang_screen
    folded = text.casefold()
    encoded = folded.encode("ascii", "replace")
    found = {word for word, pattern in ascii_words if pattern in encoded}
    if not folded.isascii():
        found.update(word for word, char in other_words if char in folded and word in folded)
    if not found:
        return []
    return [name for name, words in anchors if not found.isdisjoint(words)]


def _anchor_pieces() -> list[str]:
    words = sorted({word for _, group in _PACK._lang_anchors for word in group})
    pieces = [*words, *(w.upper() for w in words), *(w[:3] for w in words), *(w[2:] for w in words)]
    return [*pieces, " ", "\n", "1,234", "$x$", "?", "ß", "ſ", "K", "İ", "ﬁ", "—", "选项C：", "Option B", "è", "ü"]


_ANCHOR_PIECES = _anchor_pieces()


@given(hs.lists(hs.sampled_from(_ANCHOR_PIECES), max_size=12).map("".join))
@settings(max_examples=800, deadline=None, derandomize=True)
@example("Die Lösung lautet B")
@example("RESPUESTA: C")
@example("endgültige Antwort: A")
@example("ANTWORT")
@example("fiNAL")
@example("ﬁnal")
@example("Ответ: Б")
@example("选项C：705，不符合条件")
def test_guess_langs_equals_the_whole_text_search(text: str) -> None:
    assert _PACK.guess_langs(text) == _old_guess_langs(text)


# --------------------------------------------------------------------------- the choice parser


@given(hs.lists(hs.sampled_from([b"it", b"this", b"th", b"is", b"i", b"t", b" ", b"\t", b"\n", b".", b";", b",", b"!", b":",
                                 b"\x00", b"?", b"-", b"w", b"s", b"a", b"\x01", b"  "]), max_size=30).map(b"".join))
@settings(max_examples=1500, deadline=None, derandomize=True)
@example(b". it.it")
@example(b"?? this,\tit")
@example(b"it")
def test_it_after_stop_starts_equal_the_scan(projected: bytes) -> None:
    assert _choice._after_stop_starts(projected) == [m.start() + 1 for m in _choice._IT_AFTER_STOP.finditer(projected)]


@given(hs.lists(hs.sampled_from(["“", "”", "«", "»", "「", "』", "‘", "’", "‚", '"', "'", "a", "中", " ", "x" * 70]),
                max_size=12).map("".join))
@settings(max_examples=500, deadline=None, derandomize=True)
def test_quote_test_equals_the_class_scan(text: str) -> None:
    assert _choice._holds_quote(text) == _choice._QUOTE_TABLE.present(text)


_UNLED_PIECES = ("选项C：", "选项", "C", "AB", "b", "Cat", "项", "答", "B", "【", "】", "！", "？", "；", "。", "、", "\u3000",
                 " ", "\n", ".", ",", ":", "：", "so ", "option ", "Option B", "It is ", "the answer is ", "x", "é", "?", "(")


@given(hs.lists(hs.sampled_from(_UNLED_PIECES), max_size=16).map("".join))
@settings(max_examples=1500, deadline=None, derandomize=True)
@example("选项C：705，不符合条件")
@example("选项Cat")
@example("【C】")
def test_glued_capital_refusal_is_one_the_scan_makes(text: str) -> None:
    raw, projected, folded = _choice._ascii_views(text)
    if folded:
        return
    if _choice._refused_at_a_glued_capital(text, raw, projected):
        assert _choice._unled_scan(text, raw, projected) is None, text
