"""Fast paths of the format rules, of think/boxed/separator extraction and of the engine's row
loop (issue 13: per-row cost), each compared with the code as it was (tests/_oracles/format.py)
on generated adversarial texts: markdown of every kind, quotes of every script, full- and
half-width forms, NFKC-sensitive characters, every Unicode whitespace, invisible characters,
literal ``\\n`` escapes, think tags with odd spacing and case, boxes, separators and fences.
"""

from __future__ import annotations

import dataclasses
import re
import time
import unicodedata
from collections.abc import Callable
from typing import Any

import pytest
import regex
from hypothesis import example, given, settings
from hypothesis import strategies as hs

from normalize import load_pack
from normalize import status as st
from normalize.core._frozen import check_plain_frozen, frozen_instance
from normalize.core.engine import (
    Chain,
    ChainOutcome,
    Result,
    RuleSpec,
    TraceStep,
    make_spec,
    run_chain,
)
from normalize.core.registry import REGISTRY, AnnotatedText, NoParams, ParseContext, RuleDef
from normalize.errors import RejectText
from normalize.limits._regex import char_table, compile_pattern
from normalize.rules import extract
from normalize.rules import format as fmt
from normalize.rules._extract_params import BoxedParams, SeparatorParams
from tests._oracles import format as oracle

_MARKDOWN = ["*", "**", "***", "_", "__", "___", "`", "``", "```", "~~~", "~", "#", "## ", "> ", ">", "\\*", "\\"]
_FENCES = ["\n```\n", "\n~~~\n", "```py\n", "\n````\n", "~~~ text\n", "\n  ```\n"]
_QUOTES = list("“”„‟«»「」『』〝〞‘’‚‛\"'")
_WIDTH = ["Ａ", "ｂ", "１", "，", "！", "｀", "～", "　", "＊", "＿", "＃", "＞", "＼", "ｎ", "｀｀｀"]
_NFKC = ["ﬁ", "²", "①", "ｶ", "Å", "Ω", "K", "ﬀ", "㍿", "e\u0301", "\u0301", "ｰ", "…", "™", "½", "ℌ", "ſ", "İ", "ǅ"]
_SPACES = [
    " ", "  ", "\t", "\n", "\n\n", "\n\n\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0",
    "\u1680", "\u2000", "\u2005", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000",
]  # fmt: skip
_INVISIBLE = [
    "\u00ad", "\u180e", "\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202e", "\u2060",
    "\u2064", "\u2066", "\u2069", "\ufeff", "👩", "💻", "\u2065", "\u200b\u200d", "\u00ad\u200c",
]  # fmt: skip
_ESCAPES = ["\\n", "\\t", "\\r\\n", "\\\\n", "\\neq", "\\theta", "\\nThe", "\\", "n", "t", "r"]
_WORDS = ["a", "B", "x1", "答案", "是", "中", "ab_c", "2", ".", ",", "(", ")", ":", "é", "Ж", "ｱ"]
_THINK = [
    "<think>", "</think>", "<thinking>", "</thinking>", "< THINK >", "</ Think>", "<thİnk>",
    "<thin\u212ag>", "<", ">", "/", "think", "<THINKING >", "<\u3000think>", "<\x1cthink>", "<\tt",
]  # fmt: skip
_BOXED = ["\\boxed{", "\\fbox{", "\\boxed ", "\\boxedx", "{", "}", "\\{", "\\}", "$"]
_SEPARATORS = ["####", "#", "最终输出:", "最终输出：", "最", "终", "输出", ":"]
_PIECES = _MARKDOWN + _FENCES + _QUOTES + _WIDTH + _NFKC + _SPACES + _INVISIBLE + _ESCAPES + _WORDS + _THINK + _BOXED + _SEPARATORS

#: Past the short-text limits (128 and 256 characters) of some screens.
_FILLER = "我们先分析题目条件，然后逐步计算 the model checks every step again. " * 5

_TEXTS = hs.one_of(
    hs.lists(hs.sampled_from(_PIECES), max_size=40).map("".join),
    hs.lists(hs.sampled_from(_PIECES), max_size=40).map(lambda parts: _FILLER + "".join(parts) + _FILLER[:40]),
    hs.text(max_size=60),
)


def _outcome(fn: Callable[[str], str], text: str) -> tuple[str, ...]:
    """What a rule gives: its text, or the status and reason it rejected the text with."""
    try:
        return ("text", fn(text))
    except RejectText as rejected:
        return ("rejected", rejected.status, rejected.reason)


def _with_examples(cases: tuple[str, ...]) -> Callable[[Any], Any]:
    def decorate(test: Any) -> Any:
        for case in cases:
            test = example(case)(test)
        return test

    return decorate


_FORMAT_PAIRS: list[tuple[str, Callable[[str], str], Callable[[str], str]]] = [
    ("unescape_newlines", fmt.unescape_newlines, oracle.unescape_newlines),
    ("remove_invisible_chars", fmt.remove_invisible_chars, oracle.remove_invisible_chars),
    ("strip_markdown", fmt.strip_markdown, oracle.strip_markdown),
    (
        "strip_markdown(blockquotes)",
        lambda t: fmt.strip_markdown(t, fmt.StripMarkdownParams(blockquotes=True)),
        lambda t: oracle.strip_markdown(t, blockquotes=True),
    ),
    ("unify_quotes", fmt.unify_quotes, oracle.unify_quotes),
    ("to_halfwidth", fmt.to_halfwidth, oracle.to_halfwidth),
    ("normalize_nfkc", fmt.normalize_nfkc, oracle.normalize_nfkc),
    ("normalize_whitespace", fmt.normalize_whitespace, oracle.normalize_whitespace),
    (
        "normalize_whitespace(collapse)",
        lambda t: fmt.normalize_whitespace(t, fmt.NormalizeWhitespaceParams(newlines="collapse")),
        lambda t: oracle.normalize_whitespace(t, "collapse"),
    ),
    ("strip_trailing_whitespace", fmt.strip_trailing_whitespace, oracle.strip_trailing_whitespace),
]


#: One case for each screen of the format rules, always tried (then the generated ones).
_FORMAT_CASES = (
    "a\\tb", "a\\nb", "\\neq", "**B**", "_B_", "__a__ 1", "*a* 1*b*", "# Title", "> quote", "`code`",
    _FILLER + "“B”", _FILLER + "‛B‛", "答案是“B”", "ＡＢ　１", "｀｀｀\nＡ\n｀｀｀", "~~~\n“x”\n~~~\n“y”", "```\nﬁ\n```ﬁ",
    "a\u200bb", "a\u200b\u200d中", _FILLER + "a\u2060b", "ﬁ ²", "a\tb", _FILLER + "\t", "a  b \n",
)  # fmt: skip
_EXTRACT_CASES = (
    "<think>x</think>y", "< THINK >x</ thinking>y", "<\u3000think>x", "<thİnk>x</think>y", "x</thin\u212ag>y",
    "\\fbox{1}", "a \\boxed{2}", "x #### 1", "推理……最终输出：北京", "推理……最终输出:北京", "```\n<think>\n```\nx",
)  # fmt: skip


@given(_TEXTS)
@settings(max_examples=400, deadline=None)
@_with_examples(_FORMAT_CASES)
def test_format_rules_equal_the_oracle(text: str) -> None:
    for name, new, old in _FORMAT_PAIRS:
        assert _outcome(new, text) == _outcome(old, text), name


_MARKDOWN_HEAVY = hs.lists(
    hs.sampled_from(["*", "**", "***", "_", "__", "___", "a", "B", "中", "1", " ", "\n", "\\", "`", "# ", ">", "ab_c", "é"]),
    max_size=30,
).map("".join)


@given(hs.one_of(_MARKDOWN_HEAVY, _MARKDOWN_HEAVY.map(lambda t: _FILLER + t)))
@settings(max_examples=500, deadline=None)
def test_strip_markdown_equals_the_oracle_on_markdown_heavy_text(text: str) -> None:
    assert _outcome(fmt.strip_markdown, text) == _outcome(oracle.strip_markdown, text)
    quotes = fmt.StripMarkdownParams(blockquotes=True)
    assert _outcome(lambda t: fmt.strip_markdown(t, quotes), text) == _outcome(
        lambda t: oracle.strip_markdown(t, blockquotes=True), text
    )


def _small(pieces: list[str], size: int = 10) -> hs.SearchStrategy[str]:
    """Short texts of a few pieces: each screen decides alone more often than in a long mix."""
    return hs.lists(hs.sampled_from(pieces), max_size=size).map("".join)


_WHITESPACE_HEAVY = _small(["a", "中", " ", "  ", "\n", "\n\n\n", " \n", "\t", "\r", "\u3000", "\xa0", "\x1c", "```", "~~~", "b"])


#: One trigger of the whitespace screens each, always tried.
_WHITESPACE_CASES = (
    "a\n\n\nb", "中\n\n\n文", "a  b", "中  文", "a \nb", "中 \nb", " a", "a ", "\na", "a\n", "a\tb", "a\rb",
    "a\u3000b", "a\x1cb\u3000c", "中\x1c\xa0", "```\n a  \n```",
)  # fmt: skip


@given(hs.one_of(_WHITESPACE_HEAVY, _WHITESPACE_HEAVY.map(lambda t: _FILLER + t)))
@settings(max_examples=500, deadline=None)
@_with_examples(_WHITESPACE_CASES)
def test_whitespace_rules_equal_the_oracle_on_whitespace_heavy_text(text: str) -> None:
    for name, new, old in _FORMAT_PAIRS:
        if "whitespace" in name:
            assert _outcome(new, text) == _outcome(old, text), name


_BOX_HEAVY = _small(["\\fbox{", "\\boxed{", "\\boxed ", "}", "{", "1", "x", " ", "$", "\\", "\n```\n", "<think>", "</think>", "#### ", "2"])


@given(_BOX_HEAVY)
@settings(max_examples=500, deadline=None)
def test_extraction_equals_the_oracle_on_box_heavy_text(text: str) -> None:
    assert extract.extract_boxed(text) == oracle.extract_boxed(text)
    assert extract.extract_boxed(text, BoxedParams(conflict="keep")) == oracle.extract_boxed(text, "keep")
    assert _outcome(extract.remove_think_blocks, text) == _outcome(oracle.remove_think_blocks, text)
    assert extract.split_on_separator(text) == oracle.split_on_separator(text)


@given(_TEXTS)
@settings(max_examples=300, deadline=None)
def test_the_shipped_format_chain_equals_the_oracle_chain(text: str) -> None:
    # each rule on the previous one's output, as a chain runs them
    new_text, old_text = text, text
    for name, new, old in _FORMAT_PAIRS:
        if "(" in name:
            continue
        new_out, old_out = _outcome(new, new_text), _outcome(old, old_text)
        assert new_out == old_out, name
        if new_out[0] != "text":
            return
        new_text, old_text = new_out[1], old_out[1]


@given(_TEXTS)
@settings(max_examples=400, deadline=None)
@_with_examples(_EXTRACT_CASES)
def test_think_boxed_and_separators_equal_the_oracle(text: str) -> None:
    assert _outcome(extract.remove_think_blocks, text) == _outcome(oracle.remove_think_blocks, text)
    assert extract.extract_boxed(text) == oracle.extract_boxed(text)
    keep = BoxedParams(conflict="keep")
    assert extract.extract_boxed(text, keep) == oracle.extract_boxed(text, "keep")
    assert extract.split_on_separator(text) == oracle.split_on_separator(text)
    for separators in (("最终",), ("#", "##"), ("ab", "b", "x1"), ("：", "输出：")):
        params = SeparatorParams(separators=separators)
        assert extract.split_on_separator(text, params) == oracle.split_on_separator(text, separators)


@given(hs.text(alphabet=hs.sampled_from("*_ab1\\ \t\n\x0b\x0c\r\x1c\x1f.,(é"), max_size=40))
@settings(max_examples=500, deadline=None)
def test_ascii_emphasis_patterns_equal_the_regex_ones(text: str) -> None:
    text = text.encode("ascii", "ignore").decode()  # the stdlib patterns are for ASCII text only
    for pattern, ascii_pattern in zip(fmt._EMPHASIS, fmt._EMPHASIS_ASCII, strict=True):
        assert ascii_pattern.sub(fmt._body, text) == compile_pattern(pattern).sub(r"\g<body>", text), pattern


def test_ascii_classes_of_the_emphasis_patterns_are_the_regex_ones() -> None:
    ascii_chars = [chr(c) for c in range(128)]
    word = regex.compile(r"[\p{L}\p{N}]")
    cjk = regex.compile(f"[{fmt._CJK}]")
    assert [c for c in ascii_chars if word.match(c)] == [c for c in ascii_chars if re.match(f"[{fmt._ASCII_WORD}]", c)]
    assert [c for c in ascii_chars if regex.match(r"\s", c)] == [
        c for c in ascii_chars if re.match(f"[{fmt._ASCII_SPACE}]", c)
    ]
    assert not any(cjk.match(c) for c in ascii_chars)


def test_the_stdlib_think_tag_reads_classes_as_the_regex_one_does() -> None:
    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    stdlib_ws = re.compile(f"[{extract._WS}]")
    assert regex.findall(r"\s", everything) == stdlib_ws.findall(everything)
    for letter, stdlib_class in zip("thinkg", ("[tT]", "[hH]", "[iI\u0130]", "[nN]", "[kK\u212a]", "[gG]"), strict=True):
        assert regex.findall(letter, everything, flags=regex.IGNORECASE) == re.findall(stdlib_class, everything), letter
    for odd in ("<think>", "< / THINKING\u3000>", "<thİnk>", "</thin\u212a>", "<\x1cthink>", "<think\x85>"):
        new = [(m.span(), m["close"]) for m in extract._THINK_TAG_STDLIB.finditer(odd)]
        old = [(m.span(), m["close"]) for m in regex.finditer(extract._THINK_TAG, odd, flags=regex.IGNORECASE)]
        assert new == old, odd


def test_the_printable_screen_rules_out_every_invisible_and_rewritten_space() -> None:
    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    invisible = regex.findall(r"[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]", everything)
    rewritten = regex.findall(r"[\r\x0b\x0c\x85\u2028\u2029]|(?! )[\t\p{Zs}]", everything)
    assert len(invisible) == 22 and len(rewritten) == 23
    # every character the rule can remove: its class branch, and ZWJ/ZWNJ (kept between non-ASCII)
    assert set(regex.findall(oracle.INVISIBLE, everything)) | {"\u200c", "\u200d"} == set(invisible)
    assert not any(fmt._printable_but_newlines(c) for c in invisible + rewritten)
    assert fmt._printable_but_newlines("a\nb 中") and not fmt._printable_but_newlines("a\tb")


def test_every_quote_is_screened_on_long_text() -> None:
    for quote in fmt._QUOTES:
        assert fmt._has_quote(_FILLER + chr(quote)) and fmt._has_quote(chr(quote))
    assert not fmt._has_quote(_FILLER) and set(fmt._QUOTE_CHARS) == {chr(q) for q in fmt._QUOTES}


@given(hs.lists(hs.sampled_from(["“", "”", "«", "x", "Ａ", "　", "，", "'", '"', "a" * 30, "中"]), max_size=30).map("".join))
def test_char_table_translate_resumes_where_it_found_the_last_character(text: str) -> None:
    assert fmt._QUOTE_TABLE.translate(text) == text.translate(fmt._QUOTES)
    assert fmt._HALFWIDTH_TABLE.translate(text) == text.translate(fmt._HALFWIDTH)
    widening = char_table({"a": "xyz", "“": "", "中": "文字"})  # replacements of other lengths
    assert widening.translate(text) == text.translate(str.maketrans({"a": "xyz", "“": "", "中": "文字"}))


def test_nfkc_is_idempotent_on_what_it_changes() -> None:
    # the fast path of normalize_nfkc skips the confirming round: NFKC(NFKC(s)) == NFKC(s)
    changed = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and unicodedata.normalize("NFKC", chr(c)) != chr(c)]
    for char in changed:
        once = unicodedata.normalize("NFKC", char + "\u0301" + char)
        assert unicodedata.normalize("NFKC", once) == once


# ------------------------------------------------------------------------------- engine

_PACK = load_pack()
_OPTIONS: list[Any] = [None, 4, 10, 4.0, ["yes", "no"], ("a", "b", "c"), "bad", True, 1]


@given(_TEXTS, hs.sampled_from(sorted(_PACK.task_types)), hs.sampled_from(_OPTIONS))
@settings(max_examples=300, deadline=None)
def test_pack_run_equals_the_oracle_engine(text: str, task_type: str, options: Any) -> None:
    result = _PACK.run(text, task_type, options=options)
    expected = oracle.pack_run(_PACK, text, task_type, options)
    assert result == expected
    assert repr(result) == repr(expected) and type(result.text) is type(expected.text)


def test_pack_run_keeps_none_and_non_strings_as_before() -> None:
    for raw in (None, 3, b"x", "x" * 10):
        for task_type in ("multiple_choice", "open_writing"):
            assert _PACK.run(raw, task_type, options=4) == oracle.pack_run(_PACK, raw, task_type, 4)  # type: ignore[arg-type]


def _temporary(monkeypatch: pytest.MonkeyPatch, name: str, fn: Any) -> RuleSpec:
    definition = RuleDef(
        name=name, stage="format", version=1, scope=("math",), params_model=NoParams,  # type: ignore[arg-type]
        fn=fn, idempotent=True, doc="",
    )
    monkeypatch.setitem(REGISTRY.rules, name, definition)
    return RuleSpec(name, 1, NoParams())


def _burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_failing_rules_are_recorded_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    def raising(text: str, params: Any, timeout: float) -> str:
        raise KeyError("oops")

    def rejecting(text: str, params: Any, timeout: float) -> str:
        raise RejectText(st.INVALID, "not a number")

    def timing_out(text: str, params: Any, timeout: float) -> str:
        raise TimeoutError

    class Other(str):
        pass

    rules = {
        "t_raise": raising,
        "t_reject": rejecting,
        "t_timeout": timing_out,
        "t_none": lambda t, p, timeout: None,
        "t_failure": lambda t, p, timeout: oracle.RuleFailure("x", "crash", st.ERROR, "x"),
        "t_annotated": lambda t, p, timeout: AnnotatedText(t + "!", found_by="marker"),
        "t_subclass": lambda t, p, timeout: Other(t + "?"),
        "t_same": lambda t, p, timeout: str(t),
    }
    specs = {name: _temporary(monkeypatch, name, fn) for name, fn in rules.items()}
    quotes = make_spec("unify_quotes")
    for name in rules:
        for chain in ((quotes, specs[name]), (specs["t_annotated"], specs[name], quotes), (specs[name], specs["t_same"])):
            for raw in ("“x”", "", None):
                new = run_chain(Chain(chain), raw, timeout=1.0)
                assert new == oracle.run_chain(chain, raw, 1.0, 1 << 20, 10.0), (name, raw)
                assert [type(s.after) for s in new.trace] == [type(s.after) for s in oracle.run_chain(chain, raw, 1.0, 1 << 20, 10.0).trace]


def test_a_rule_that_runs_past_the_budget_without_checking_it_gets_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # the engine's own check after each rule (the rule never calls check_budget itself)
    def burning(text: str, params: Any, timeout: float) -> str:
        _burn(0.15)
        return text + "."

    spec = _temporary(monkeypatch, "t_burn", burning)
    out = run_chain(Chain((make_spec("unify_quotes"), spec, make_spec("unify_quotes"))), "“x”", budget=0.1)
    assert out.status == st.ERROR and out.reason == "t_burn: row budget of 0.1s CPU time exceeded"
    assert out.text == '"x"' and [s.rule for s in out.trace] == ["unify_quotes"]
    assert run_chain(Chain((spec,)), "x", budget=5.0).status == st.OK


def test_the_parser_runs_under_its_own_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from normalize.limits._budget import check_budget

    definition = REGISTRY.parsers["text"]

    def slow_parser(text: str, params: Any, ctx: ParseContext) -> Any:
        _burn(0.15)
        check_budget()
        return definition.fn(text, params, ctx)

    monkeypatch.setitem(REGISTRY.parsers, "text", dataclasses.replace(definition, fn=slow_parser))
    tight = dataclasses.replace(_PACK, settings=_PACK.settings.model_copy(update={"row_budget": 0.1}))
    result = tight.run("essay", "open_writing")
    assert result.status == st.ERROR and result.reason == "parser text: row budget of 0.1s CPU time exceeded"
    assert _PACK.run("essay", "open_writing").status == st.OK


def test_the_chain_and_the_parser_each_get_the_whole_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # one budget per row, started over for the parser: 0.15 s of CPU in a rule and 0.15 s in the
    # parser both fit a budget of 0.25 s, which the two together would exceed
    from normalize.limits._budget import check_budget

    def burning(text: str, params: Any, timeout: float) -> str:
        _burn(0.15)
        check_budget()
        return text

    definition = REGISTRY.parsers["text"]

    def slow_parser(text: str, params: Any, ctx: ParseContext) -> Any:
        _burn(0.15)
        check_budget()
        return definition.fn(text, params, ctx)

    _temporary(monkeypatch, "t_burn_each", burning)
    monkeypatch.setitem(REGISTRY.parsers, "text", dataclasses.replace(definition, fn=slow_parser))
    writing = dataclasses.replace(_PACK.task_types["open_writing"], chain=Chain((make_spec("t_burn_each"),)))
    pack = dataclasses.replace(
        _PACK,
        settings=_PACK.settings.model_copy(update={"row_budget": 0.25}),
        task_types={**_PACK.task_types, "open_writing": writing},
    )
    result = pack.run("essay", "open_writing")
    assert result.status == st.OK, result.reason
    assert [step.rule for step in result.trace] == [] and result.answer == "essay"


def test_a_rule_swapped_after_a_chain_ran_is_the_one_that_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # the chain keeps the functions it looked up only while the registry's table is unchanged
    chain = Chain((make_spec("unify_quotes"),))
    assert run_chain(chain, "“x”").text == '"x"'

    def shouting(text: str, params: Any, timeout: float) -> str:
        return text.upper()

    definition = REGISTRY.rules["unify_quotes"]
    monkeypatch.setitem(REGISTRY.rules, "unify_quotes", dataclasses.replace(definition, fn=shouting))
    assert run_chain(chain, "“x”").text == "“X”"
    monkeypatch.undo()
    assert run_chain(chain, "“x”").text == '"x"'
    monkeypatch.delitem(REGISTRY.rules, "unify_quotes")
    out = run_chain(chain, "“x”")
    assert out.status == st.ERROR and out.reason == "unify_quotes raised KeyError: 'unify_quotes'"


def test_frozen_instances_equal_the_ones_init_builds() -> None:
    step = {"index": 1, "rule": "r", "version": 2, "before": "a", "after": "b"}
    outcome = {"raw": "a", "text": "b", "status": st.OK, "reason": None, "trace": (), "notes": {"k": 1}}
    result = {
        "raw": "a", "text": "b", "status": st.OK, "reason": None, "trace": (), "task": "t", "task_type": "math",
        "answer": 3, "rules_hash": "h", "extra": {"x": 1},
    }  # fmt: skip
    context = {"options": 4, "timeout": 1.0, "notes": {}, "lang": "de"}
    for cls, fields in ((TraceStep, step), (ChainOutcome, outcome), (Result, result), (ParseContext, context)):
        fast, slow = frozen_instance(cls, fields), cls(**fields)
        assert fast == slow and repr(fast) == repr(slow) and vars(fast) == vars(slow)
        assert list(vars(fast)) == [f.name for f in dataclasses.fields(cls)]  # every field, in order
        with pytest.raises(dataclasses.FrozenInstanceError):
            fast.raw = "c"  # type: ignore[attr-defined]

    @dataclasses.dataclass(frozen=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass
    class Mutable:
        x: int

    for cls in (Checked, Mutable, int):
        with pytest.raises(TypeError):
            check_plain_frozen(cls)


def _built_as_init_builds(instance: Any) -> None:
    """``instance`` (filled through its ``__dict__`` by the engine) is what ``__init__`` builds."""
    cls = type(instance)
    names = [f.name for f in dataclasses.fields(cls)]
    assert list(vars(instance)) == names  # every field, in order, nothing else
    slow = cls(**vars(instance))
    assert instance == slow and repr(instance) == repr(slow) and hash(repr(instance)) == hash(repr(slow))
    with pytest.raises(dataclasses.FrozenInstanceError):
        instance.raw = "c"


@given(_TEXTS, hs.sampled_from(sorted(_PACK.task_types)), hs.sampled_from([None, 4, ["yes", "no"]]))
@settings(max_examples=150, deadline=None)
def test_the_engine_builds_results_steps_outcomes_and_contexts_as_init_does(text: str, task_type: str, options: Any) -> None:
    seen: list[ParseContext] = []
    parser = _PACK.task_types[task_type].parser.name
    definition = REGISTRY.parsers[parser]

    def recording(text: str, params: Any, ctx: ParseContext) -> Any:
        seen.append(ctx)
        return definition.fn(text, params, ctx)

    REGISTRY.parsers[parser] = dataclasses.replace(definition, fn=recording)
    try:
        result = _PACK.run(text, task_type, options=options)
    finally:
        REGISTRY.parsers[parser] = definition
    outcome = run_chain(_PACK.task_types[task_type].chain, text)
    for instance in (result, outcome, *result.trace, *outcome.trace, *seen):
        _built_as_init_builds(instance)
    assert outcome.trace == result.trace
