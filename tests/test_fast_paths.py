"""The speed short-cuts give exactly what the slow paths give (outputs byte-identical)."""

from __future__ import annotations

import unicodedata

import regex
from hypothesis import given, settings
from hypothesis import strategies as hs

from normalize.errors import RejectText
from normalize.limits._literals import fold, may_match, project
from normalize.limits._regex import char_table, compile_pattern
from normalize.parsers import _choice
from normalize.rules import _speed, extract, extract_json, extract_markers
from normalize.rules import format as fmt
from normalize.rules._extract_params import AnswerMarkerParams

# words the pre-checks look for, their neighbours, and characters that change matching
_PIECES = (
    "answer", "the", "correct", "right", "best", "final", "option", "choice", "letter", "one", "my",
    "pick", "selection", "réponse", "RÉPONSE", "respuesta", "antwort", "therefore", "so", "in",
    "conclusion", "overall", "might", "may", "could", "be", "possibly", "perhaps", "maybe", "also",
    "equally", "or", "is", "it", "wait", "not", "that", "wrong", "actually", "no", "let", "me",
    "reconsider", "I", "B", "(C)", "D", "A", "选项", "正确", "对", "是", "为", "答案", "也", "等等", "不对",
    "错了", "選", " ", "  ", "\n", ",", ".", ":", "，", "。", "İ", "K", "ſ", "\u200b", "“", "”", "＂",
    "this", "This", "IT", "'s", "'", "must", "should", "has", "would", "think", "we", "summary", "conclude",
    "thus", "hence", "overall", "Therefore", "\t", "\x1c", "é", "so,",
)
_TEXTS = hs.lists(hs.sampled_from(_PIECES), max_size=40).map("".join)


@given(_TEXTS)
@settings(max_examples=1500, deadline=None)
def test_choice_prechecks_never_skip_a_match(text: str) -> None:
    for pattern in (*_choice._NEEDS, *_choice._SCREENS, _choice._RETRACTION):
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


def _brace_pairs_by_char(text: str) -> dict[int, int]:
    """The original character-by-character walk."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "{":
            stack.append(i)
        elif char == "}" and stack:
            pairs[stack.pop()] = i
        i += 1
    return pairs


@given(hs.text(alphabet=hs.sampled_from("{}\\ab")))
@settings(max_examples=500)
def test_brace_pairs_jump_like_the_walk(text: str) -> None:
    walked = _brace_pairs_by_char(text)
    assert extract._brace_pairs(text) == walked
    for opening, closing in walked.items():
        assert extract._closing_brace(text, opening) == closing


def _shipped_tiers() -> list[tuple[str, ...]]:
    from normalize import load_pack

    tiers: set[tuple[str, ...]] = set()
    for task_type in load_pack().task_types.values():
        for spec in task_type.chain.specs:
            for tier in getattr(spec.params, "tiers", ()):
                tiers.add(tuple(tier))
                tiers.update((p,) for p in tier)
    return sorted(tiers)


_TIERS = [
    *_shipped_tiers(),
    (r"(?:correct|right)\s+one", r"answer\s*:"),
    (r"(a)\1", r"b"),
    (r"(?:x|y)?", r"answer"),
]
_MARKER_PIECES = (
    "answer", "Answer", "ANSWER", "answers", "is", ":", "：", "**", "final", "Final", "correct", "right",
    "best", "option", "choice", "one", "therefore", "thus", "hence", "in", "conclusion", "#", "##", " ",
    "\n", "\t", ",", "答案", "最终", "结果", "是", "为", "正确", "选项", "故", "所以", "因此", "选", "综上",
    "a", "b", "x", "y", "İ", "K", "ſ", "re", "B", "42",
)


@given(hs.lists(hs.sampled_from(_MARKER_PIECES), max_size=30).map("".join))
@settings(max_examples=300, deadline=None)
def test_marker_matches_equal_the_alternation_scan(text: str) -> None:
    folded = fold(text)
    for tier in _TIERS:
        fast = [m.span() for m in _speed.marker_matches(tier, text, folded, timeout=1.0)]
        slow = [m.span() for m in _speed._alternation(tier).finditer(text)]
        assert fast == slow, tier


def _balanced_spans_by_special(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The original scan: every special character in turn, string state in a variable."""
    stack: list[tuple[str, int]] = []
    open_count = {"{": 0, "[": 0}
    spans: list[tuple[int, int]] = []
    quote = ""
    skip = -1
    for match in regex.finditer(r"[\[\]{}\"'\\]", text[:end], pos=start):
        pos = match.start()
        char = text[pos]
        if quote:
            if pos == skip:
                continue
            if char == "\\":
                skip = pos + 1
            elif char == quote:
                quote = ""
            continue
        if char in "{[":
            stack.append((char, pos))
            open_count[char] += 1
        elif char in "}]":
            opener = "{" if char == "}" else "["
            if open_count[opener] == 0:
                continue
            while True:
                kind, at = stack.pop()
                open_count[kind] -= 1
                if kind == opener:
                    break
            spans.append((at, pos + 1))
        elif stack and (char == '"' or (char == "'" and extract_json._value_may_start(text, pos, start))):
            quote = char
    return sorted(spans, key=lambda s: s[0])


@given(hs.text(alphabet=hs.sampled_from("{}[]\"'\\ a:,\n")), hs.integers(0, 5), hs.integers(0, 5))
@settings(max_examples=1000)
def test_balanced_spans_skip_strings_like_the_scan(text: str, cut_start: int, cut_end: int) -> None:
    start, end = min(cut_start, len(text)), max(min(cut_start, len(text)), len(text) - cut_end)
    fast = extract_json._balanced_spans(text, start, end)
    assert fast == _balanced_spans_by_special(text, start, end)


@given(hs.text(alphabet=hs.sampled_from("`~ \nab")), hs.integers(0, 8))
@settings(max_examples=1000)
def test_fence_line_search_equals_the_scan(text: str, pos: int) -> None:
    from normalize.rules import _fences

    pos = min(pos, len(text))
    for pattern, locator in (
        (_fences._OPEN, _fences._OPEN_AFTER_BREAK),
        (_fences._closing("`", 3), _fences._CLOSE_AFTER_BREAK["`"]),
        (_fences._closing("~", 4), _fences._CLOSE_AFTER_BREAK["~"]),
    ):
        fast = _fences._line_search(pattern, locator, text, pos)
        slow = pattern.search(text, pos)
        assert (fast and fast.span()) == (slow and slow.span())


def test_other_spaces_are_every_space_but_the_plain_one() -> None:
    spaces = regex.compile(r"[\t\p{Zs}]")
    other = "".join(chr(c) for c in range(0x110000) if spaces.match(chr(c)) and chr(c) not in " \t")
    assert all(fmt._OTHER_SPACES.match(c) for c in other)
    assert fmt._OTHER_SPACES.search(" \t\n") is None


@given(hs.text(alphabet=hs.sampled_from("a \t\n\r\x0b\u3000\u00a0\u2028")))
def test_normalize_whitespace_skips_only_idle_subs(text: str) -> None:
    def slow(segment: str) -> str:
        out = regex.sub(fmt._LINE_BREAK, "\n", segment)
        out = regex.sub(fmt._SPACE, " ", out)
        out = regex.sub(r" {2,}", " ", out)
        out = regex.sub(r" +(?=\n)| +\Z", "", out)
        return regex.sub(r"\n{3,}", "\n\n", out)

    assert fmt._normalize_whitespace_segment(text, False, False, "keep", 1.0) == slow(text)


def test_stdlib_whitespace_covers_regex_whitespace() -> None:
    import re

    missing = [hex(c) for c in range(0x110000) if regex.match(r"\s", chr(c)) and not re.match(r"\s", chr(c))]
    assert missing == []


def _fences_by_scan(text: str) -> list[tuple[int, int, int, int, str, bool]]:
    """The original fence scan: the opener and closer patterns searched from each position."""
    from normalize.rules import _fences

    out = []
    pos, n = 0, len(text)
    while True:
        opening = _fences._OPEN.search(text, pos)
        if opening is None:
            return out
        start, end = opening.span()
        fence, info = opening.group("fence", "info")
        info = info.strip()
        if fence[0] == "`" and "`" in info:
            pos = end
            continue
        content_start = end + 1 if end < n else end
        closing = _fences._closing(fence[0], len(fence)).search(text, content_start)
        if closing is None:
            out.append((start, n, content_start, n, _fences._lang(info), False))
            return out
        close_start, close_end = closing.span()
        content_end = max(content_start, close_start - 1) if close_start > content_start else content_start
        out.append((start, close_end, content_start, content_end, _fences._lang(info), True))
        pos = close_end


@given(hs.lists(hs.sampled_from(["```", "````", "~~~", "`", " ", "   ", "\n", "py", "x" * 70, "a`b"]), max_size=25).map("".join))
@settings(max_examples=1000)
def test_find_fences_equals_the_scan(text: str) -> None:
    from normalize.rules import _fences

    fast = [(f.start, f.end, f.content_start, f.content_end, f.lang, f.closed) for f in _fences._fences(text)]
    assert fast == _fences_by_scan(text)


@given(hs.lists(hs.sampled_from(_MARKER_PIECES), max_size=30).map("".join))
@settings(max_examples=300, deadline=None)
def test_marker_screens_skip_only_patterns_that_cannot_match(text: str) -> None:
    folded, projected = fold(text), project(text)
    for tier in _TIERS:
        for plan in _speed._tier_markers((tier,))[0]:
            found = _speed.marker_matches((plan.pattern,), text, folded, timeout=1.0)
            if not may_match(plan.screen, folded):
                assert found == [], plan.pattern
            screen = plan.text_screen or ((),)
            if not any(all(_speed._occurs(key, text, projected) for key, _, _ in branch) for branch in screen):
                assert found == [], plan.pattern


def test_answer_marker_refuses_a_non_positive_timeout_even_with_no_marker_in_sight() -> None:
    params = AnswerMarkerParams(tiers=(("final answer",),))
    for timeout in (0.0, -1.0):
        try:
            extract_markers.extract_answer_marker("nothing here", params, timeout=timeout)
        except ValueError as exc:
            assert "timeout must be positive" in str(exc)
        else:
            raise AssertionError("a non-positive timeout must be refused")


@given(hs.lists(hs.sampled_from(['{"a": ', '"x\\"y"', "'q'", "[", "]", "{", "}", '"', "'", "\\", ",", ":", " it's ", "\n"]), max_size=30).map("".join), hs.integers(0, 9), hs.integers(0, 9))
@settings(max_examples=1000)
def test_balanced_spans_by_token_equal_the_scan_on_json_like_text(text: str, cut_start: int, cut_end: int) -> None:
    start, end = min(cut_start, len(text)), max(min(cut_start, len(text)), len(text) - cut_end)
    fast = extract_json._balanced_spans(text, start, end)
    assert fast == _balanced_spans_by_special(text, start, end)


_JSON_WORDS = hs.sampled_from(["True", "true", "False", "false", "None", "null", "Tru", "v", "é", "引号", "a\"b", "\\"])
_JSON_VALUES = hs.recursive(
    hs.one_of(hs.none(), hs.booleans(), hs.integers(-5, 5), _JSON_WORDS),
    lambda inner: hs.lists(inner, max_size=4) | hs.dictionaries(_JSON_WORDS, inner, max_size=4),
    max_leaves=12,
)


@given(_JSON_VALUES, hs.booleans(), hs.booleans())
@settings(max_examples=1000)
def test_quoted_literal_screen_never_skips_a_change(value: object, ascii_only: bool, escape_letters: bool) -> None:
    import json

    from normalize.rules import structure
    from normalize.values._json import load_json

    text = json.dumps(value, ensure_ascii=ascii_only)
    if escape_letters:  # spell letters as \u escapes, as a model might
        text = text.replace("e", "\\u0065").replace("N", "\\u004e")
    try:
        parsed = load_json(text)
    except RejectText:  # not strict JSON (a lone surrogate escape, a duplicate key): no chain input
        return
    changed = structure._coerce_quoted(parsed)[1]
    if not structure._may_quote_literal(text):
        assert not changed, text
    assert structure.coerce_python_literals(text) == (structure.dump_json(structure._coerce_quoted(parsed)[0]) if changed else text)


@given(hs.text(alphabet=hs.characters(codec=None) | hs.sampled_from(["\ud800", "\udfff", "é", "你", "😀"])), hs.integers(1, 200))
@settings(max_examples=500)
def test_byte_limits_skip_only_texts_within_them(text: str, limit: int) -> None:
    from normalize.core.engine import Chain, run_chain
    from normalize.values._json import JsonLimits, LimitExceeded, load_json

    size = len(text.encode("utf-8", "surrogatepass"))
    assert size <= 4 * len(text)
    outcome = run_chain(Chain(()), text, max_input_bytes=limit)
    assert (outcome.status == "error") == (size > limit)
    if size > limit:
        assert outcome.reason == f"input is {size} bytes, over the limit of {limit} bytes (max_input_bytes)"
    try:
        load_json(text, JsonLimits(max_bytes=limit))
    except LimitExceeded as exc:
        assert (str(exc.reason).startswith(f"JSON text is {size} bytes")) == (size > limit)
    except RejectText:  # not JSON at all: only a text within the byte limit gets that far
        assert size <= limit
    else:
        assert size <= limit
