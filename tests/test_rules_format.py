"""Format-stage rules: escapes, markdown, quotes, width, NFKC, whitespace, trailing period, case."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from normalize.core.engine import Chain, make_spec, run_chain
from normalize.core.registry import ALL_TYPES, REGISTRY, TEXT_ANSWER_TYPES, Params
from normalize.rules.format import (
    LATEX_N_T_COMMANDS,
    FoldCaseParams,
    NormalizeWhitespaceParams,
    StripMarkdownParams,
    StripTrailingPeriodParams,
    StripTrailingWhitespaceParams,
    fold_case,
    normalize_nfkc,
    normalize_whitespace,
    strip_markdown,
    strip_trailing_period,
    strip_trailing_whitespace,
    to_halfwidth,
    unescape_newlines,
    unify_quotes,
    write_powers,
)

#: Every format rule, from the registry: a new one is picked up by every test below.
FORMAT_RULES = tuple(d.name for d in REGISTRY.iter_rules() if d.stage == "format")

#: Every rule with its default params, then the other interesting parameter settings.
CASES: tuple[tuple[str, Params | None], ...] = (
    *((name, None) for name in FORMAT_RULES),
    ("strip_markdown", StripMarkdownParams(blockquotes=True)),
    ("normalize_whitespace", NormalizeWhitespaceParams(newlines="collapse")),
    ("strip_trailing_whitespace", StripTrailingWhitespaceParams(per_line=False)),
    ("strip_trailing_period", StripTrailingPeriodParams(chars="!?！？")),
    ("fold_case", FoldCaseParams(mode="lower")),
)


def _apply(name: str, params: Params | None) -> Callable[[str], str]:
    definition = REGISTRY.rule(name)
    return lambda text: definition(text, params)


def _case_id(case: tuple[str, Params | None]) -> str:
    name, params = case
    return name if params is None else f"{name}[{params.model_dump()}]"


# --- registration -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", FORMAT_RULES)
def test_rule_is_registered_in_the_format_stage_with_a_doctest(name: str) -> None:
    definition = REGISTRY.rule(name)
    assert definition.stage == "format"
    assert definition.idempotent is True
    assert definition.doc.splitlines()[0].strip()
    assert ">>> " in definition.doc


def test_scopes() -> None:
    assert REGISTRY.rule("strip_trailing_whitespace").scope == ALL_TYPES
    for name in ("unescape_newlines", "unify_quotes"):
        assert REGISTRY.rule(name).scope == (*TEXT_ANSWER_TYPES, "open_writing")
    for name in ("strip_markdown", "to_halfwidth", "normalize_nfkc", "normalize_whitespace",
                 "strip_trailing_period", "fold_case"):
        assert REGISTRY.rule(name).scope == TEXT_ANSWER_TYPES
    for name in FORMAT_RULES:
        assert "code" not in REGISTRY.rule(name).scope or name == "strip_trailing_whitespace"


# --- unescape_newlines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (r"line1\nline2", "line1\nline2"),
        (r"第一行\n第二行", "第一行\n第二行"),
        (r"a\r\nb", "a\nb"),
        (r"col1\tcol2", "col1\tcol2"),
        (r"\nThe answer", "\nThe answer"),  # "nThe" is no LaTeX command
        (r"\nequation", "\nequation"),
        (r"\n\n答案：B", "\n\n答案：B"),
        (r"x\n2", "x\n2"),
        (r"end\n", "end\n"),
        (r"\\\nabc", "\\\\\nabc"),  # an escaped backslash, then a real escape
    ],
)
def test_unescape_newlines_converts_escapes(raw: str, expected: str) -> None:
    assert unescape_newlines(raw) == expected


@pytest.mark.parametrize(
    "latex",
    [
        r"\frac{1}{2}\neq\theta",
        r"\nu \nabla \not \ne \newline \neg \ni \notin",
        r"\times \tan \text{x} \textbf{B} \tfrac{1}{2} \tau \to \top \triangle \tilde{x} \tt",
        r"$a \neq b$ 且 $\theta \to 0$",
        r"\theta值",
    ],
)
def test_unescape_newlines_leaves_latex(latex: str) -> None:
    assert unescape_newlines(latex) == latex


@pytest.mark.parametrize("command", sorted(LATEX_N_T_COMMANDS))
def test_unescape_newlines_leaves_every_listed_command(command: str) -> None:
    text = "\\" + command + "{x}"
    assert unescape_newlines(text) == text


@pytest.mark.parametrize("raw", [r"\\n", r"\\t", r"a\\nb", r"\r alone", r"\rho", r"\N", r"\T"])
def test_unescape_newlines_leaves_escaped_backslash_and_others(raw: str) -> None:
    assert unescape_newlines(raw) == raw


def test_unescape_newlines_leaves_fenced_code() -> None:
    code = '```python\nprint("a\\nb\\tc")\n```'
    assert unescape_newlines("答案\\n" + "\n" + code) == "答案\n\n" + code


# --- strip_markdown ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("**B**", "B"),
        ("The answer is **B**.", "The answer is B."),
        ("答案是**B**。", "答案是B。"),
        ("答案是：“**B**”。", "答案是：“B”。"),
        ("__bold__ and _it_ and *it* and ***both***", "bold and it and it and both"),
        ("*注意*这个", "注意这个"),
        ("**_x_**", "x"),
        ("_**x**_", "x"),
        ("**a *b* c**", "a b c"),
        ("## Title", "Title"),
        ("# 答案 #", "答案"),
        ("###### six", "six"),
        ("intro\n### Step 2\nbody", "intro\nStep 2\nbody"),
        ("`x = 1` and ``a ` b``", "x = 1 and a ` b"),
        ("`` `code` ``", "code"),
    ],
)
def test_strip_markdown_removes_markers(raw: str, expected: str) -> None:
    assert strip_markdown(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "snake_case_name",
        "call my_func_name(x_1_2)",
        "a*b*c",
        "2*3",
        "2*3 = 6 and 4*5 = 20",
        "x**2 + y**2",
        "def f(*args, **kwargs)",
        "use **kwargs here",
        "a * b * c",
        "* item",
        r"\*literal\*",
        "#hashtag",
        "####### seven",
        "C# and F#",
        "> quoted",
        "**\nnot across lines**",
        "****",
    ],
)
def test_strip_markdown_leaves_non_markup(raw: str) -> None:
    assert strip_markdown(raw) == raw


def test_strip_markdown_blockquotes_are_optional() -> None:
    text = "> > 答案是 B\n> 理由"
    assert strip_markdown(text) == text
    assert strip_markdown(text, StripMarkdownParams(blockquotes=True)) == "答案是 B\n理由"


def test_strip_markdown_leaves_fenced_code() -> None:
    code = "```python\ndef f(*args, **kwargs):\n\treturn `x` # **b** _c_\n```"
    assert strip_markdown("## 解答\n**B**\n" + code + "\n*end*") == "解答\nB\n" + code + "\nend"


def test_strip_markdown_params_are_strict() -> None:
    with pytest.raises(ValidationError):
        StripMarkdownParams(blockquotes="yes")  # type: ignore[arg-type]


# --- unify_quotes ---------------------------------------------------------------------------


def test_unify_quotes_converts_every_listed_quote() -> None:
    assert unify_quotes("“”„‟«»「」『』〝〞") == '"' * 12
    assert unify_quotes("‘’‚‛") == "'" * 4
    assert unify_quotes("答案是：“B”。") == '答案是："B"。'
    assert unify_quotes("“北京”") == '"北京"'


def test_unify_quotes_leaves_other_text_and_fences() -> None:
    assert unify_quotes("plain \"x\" 'y' 。、") == "plain \"x\" 'y' 。、"
    code = "```python\nprint(“你好”)\n```"
    assert unify_quotes("他说“好”\n" + code + "\n‘完’") == "他说\"好\"\n" + code + "\n'完'"


# --- to_halfwidth ---------------------------------------------------------------------------


def test_to_halfwidth_maps_fullwidth_ascii_and_ideographic_space() -> None:
    assert to_halfwidth("ＡＢＣ１２３") == "ABC123"
    assert to_halfwidth("答案：Ｂ　（见上）！") == "答案:B (见上)!"
    assert to_halfwidth("".join(chr(c) for c in range(0xFF01, 0xFF5F))) == "".join(
        chr(c) for c in range(0x21, 0x7F)
    )


def test_to_halfwidth_leaves_cjk_punctuation_and_fences() -> None:
    assert to_halfwidth("。、「」《》…") == "。、「」《》…"
    assert to_halfwidth("ｶﾀｶﾅ") == "ｶﾀｶﾅ"  # half-width katakana is not in the range
    code = "~~~\nｘ　＝　１\n~~~"
    assert to_halfwidth("Ｘ\n" + code) == "X\n" + code


# --- normalize_nfkc ------------------------------------------------------------------------------


def test_normalize_nfkc() -> None:
    assert normalize_nfkc("ＡＢＣ１２３　ﬁ ㎏ ²") == "ABC123 fi kg 2"
    assert normalize_nfkc("e\u0301") == "é"
    assert normalize_nfkc("答案是B") == "答案是B"
    code = "```\nｘ = “①”\n```"
    assert normalize_nfkc("①\n" + code) == "1\n" + code


# --- normalize_whitespace --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  a  b  ", "a b"),
        ("a\r\nb\rc", "a\nb\nc"),
        ("a\tb\u00a0c\u2003d\u3000e", "a b c d e"),
        ("答案是　B　　。", "答案是 B 。"),
        ("a  \nb\t\n", "a\nb"),
        ("a\n\n\n\n\nb", "a\n\nb"),
        ("a\n \n \n b", "a\n\n b"),
        ("a\u2028b\x0cc", "a\nb\nc"),
        ("\n\n  答案  \n\n", "答案"),
        ("", ""),
        (" \t\u3000\n", ""),
    ],
)
def test_normalize_whitespace_keep(raw: str, expected: str) -> None:
    assert normalize_whitespace(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  a \n\n b\r\n\tc  ", "a b c"),
        ("答案\n\n是　B", "答案 是 B"),
        ("\n \n", ""),
    ],
)
def test_normalize_whitespace_collapse(raw: str, expected: str) -> None:
    assert normalize_whitespace(raw, NormalizeWhitespaceParams(newlines="collapse")) == expected


def test_normalize_whitespace_leaves_fences_on_their_own_lines() -> None:
    code = "```python\ndef f(**kwargs):\n\treturn  1   \n\n\n\n```"
    text = "  Intro   text \n\n\n" + code + "\n\n\n  outro  \n"
    assert normalize_whitespace(text) == "Intro text\n\n" + code + "\n\n outro"
    collapse = NormalizeWhitespaceParams(newlines="collapse")
    assert normalize_whitespace(text, collapse) == "Intro text\n" + code + "\noutro"
    two = "```\nx  \n```\n \n```\ny\t\n```"
    assert normalize_whitespace(two, collapse) == "```\nx  \n```\n```\ny\t\n```"


def test_normalize_whitespace_params_are_strict() -> None:
    with pytest.raises(ValidationError):
        NormalizeWhitespaceParams(newlines="squash")  # type: ignore[arg-type]


# --- strip_trailing_whitespace ------------------------------------------------------------------


def test_strip_trailing_whitespace_per_line() -> None:
    assert strip_trailing_whitespace("a  \n  b\t\n\n\n") == "a\n  b"
    assert strip_trailing_whitespace("a \r\nb\u3000\r\n") == "a\r\nb"
    assert strip_trailing_whitespace("答案是 B。　\n") == "答案是 B。"
    assert strip_trailing_whitespace("no change") == "no change"


def test_strip_trailing_whitespace_only_at_text_end() -> None:
    params = StripTrailingWhitespaceParams(per_line=False)
    assert strip_trailing_whitespace("a  \nb \t\n \n", params) == "a  \nb"


def test_strip_trailing_whitespace_acts_inside_code_but_keeps_indentation() -> None:
    code = "```python\ndef f(**kwargs):  \n\tif kwargs:\t\n\t\treturn “x”\n```\n\n"
    assert strip_trailing_whitespace(code) == "```python\ndef f(**kwargs):\n\tif kwargs:\n\t\treturn “x”\n```"
    bare = "def f():\n    return 1   \n"
    assert strip_trailing_whitespace(bare) == "def f():\n    return 1"


# --- strip_trailing_period ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("答案是B。", "答案是B"),
        ("The answer is B.", "The answer is B"),
        ("B.", "B"),
        ("3.", "3"),
        ("3.14.", "3.14"),
        ("Answer: B. \n", "Answer: B \n"),
        ("x\n```\ncode\n```\nDone.", "x\n```\ncode\n```\nDone"),
    ],
)
def test_strip_trailing_period_removes_one_final_period(raw: str, expected: str) -> None:
    assert strip_trailing_period(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "U.S.",
        "made in the U.S.",
        "e.g.",
        "Ph.D.",
        "Wait...",
        "等等。。。",
        "a….",
        ".",
        "。",
        "no period",
        '"quoted."',
        "x\n```\ncode.\n```\n",
        "x\n```\nunclosed.",
    ],
)
def test_strip_trailing_period_keeps(raw: str) -> None:
    assert strip_trailing_period(raw) == raw


def test_strip_trailing_period_chars_param() -> None:
    params = StripTrailingPeriodParams(chars="!！")
    assert strip_trailing_period("对！", params) == "对"
    assert strip_trailing_period("对。", params) == "对。"
    assert strip_trailing_period("wow!!", params) == "wow!!"
    with pytest.raises(ValidationError, match="chars"):
        StripTrailingPeriodParams(chars="")
    with pytest.raises(ValidationError, match="chars"):
        StripTrailingPeriodParams(chars=". ")


# --- fold_case ------------------------------------------------------------------------------------


def test_fold_case_modes() -> None:
    assert fold_case("Straße ABC Ω") == "strasse abc ω"
    assert fold_case("Straße ABC", FoldCaseParams(mode="lower")) == "straße abc"
    assert fold_case("答案是B") == "答案是b"
    code = "```\nPrint(X)\n```"
    assert fold_case("ANSWER\n" + code) == "answer\n" + code


# --- chains and timeouts ----------------------------------------------------------------------------


def test_double_escaped_chinese_answer_through_a_format_chain() -> None:
    chain = Chain(
        (
            make_spec("unescape_newlines"),
            make_spec("strip_markdown"),
            make_spec("unify_quotes"),
            make_spec("to_halfwidth"),
            make_spec("normalize_whitespace"),
        )
    )
    raw = r"## 解答\n\n因为 $\frac{1}{2}\neq\theta$，\t所以\n\n\n\n答案是：“**Ｂ**”。  "
    outcome = run_chain(chain, raw)
    assert outcome.status == "ok"
    assert outcome.text == '解答\n\n因为 $\\frac{1}{2}\\neq\\theta$, 所以\n\n答案是:"B"。'
    assert [step.rule for step in outcome.trace] == [
        "unescape_newlines",
        "strip_markdown",
        "unify_quotes",
        "to_halfwidth",
        "normalize_whitespace",
    ]


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_builtin_patterns_run_without_a_per_call_timeout(case: tuple[str, Params | None]) -> None:
    # The timeout decision: built-in patterns are linear by construction (normalize check proves
    # it by growth of work) and called without regex's timeout=, which only user patterns get.
    name, params = case
    text = ("*a_b `c \\nd  \t\n## e.\r\n" * 4000) + "x."
    assert REGISTRY.rule(name)(text, params, timeout=1e-6) == REGISTRY.rule(name)(text, params)


# --- properties ---------------------------------------------------------------------------

#: Pieces that exercise the rules' edges: fences, escapes, markers, widths, spaces, periods.
_PIECES = (
    "```", "~~~", "```py", "\n```\n", "｀｀｀", "～～～", "`", "``", "\\", "\\n", "\\t", "\\r\\n",
    "\\\\n", "\\neq", "\\theta", "\\to", "*", "**", "_", "__", "#", "## ", "> ", "\n", "\r\n",
    "\r", " ", "  ", "\t", "\u3000", "\u00a0", "\u2028", "\x0b", "\x85", ".", "。", "...", "U.S.",
    "“", "”", "「", "Ａ", "１", "ﬁ", "ß", "İ", "ΐ", "e\u0301", "答案", "B", "snake_case", "2*3",
)
_runs = st.lists(
    st.one_of(st.text(st.characters(codec="utf-8"), max_size=8), st.sampled_from(_PIECES)),
    max_size=30,
).map("".join)
#: Lines that are, or that a rule can turn into, fence lines; and short marked-up lines.
_FENCE_LINES = (
    "```", "~~~", "```python", "````", "｀｀｀", "～～～", "> ```", "# ```", "    ```", "\\n```",
    "``` ", "\u3000```", "`` ```x`` ", "**a *b* c**", "*x*", "Ａ “q” ﬁ ＳＳ", "a\\nb\\tc",
)
_lines = st.lists(st.one_of(st.sampled_from(_FENCE_LINES), _runs), min_size=1, max_size=12).flatmap(
    lambda lines: st.sampled_from(("\n", "\r\n", "\n\n")).map(lambda sep: sep.join(lines))
)
_texts = st.one_of(_runs, _lines)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@settings(max_examples=150, deadline=None)
@given(text=_texts)
def test_rules_never_raise_are_deterministic_and_idempotent(
    case: tuple[str, Params | None], text: str
) -> None:
    fn = _apply(*case)
    once = fn(text)
    assert isinstance(once, str)
    assert fn(text) == once
    assert fn(once) == once


def _fence_safe(char: str) -> bool:
    """A prose character that cannot turn into part of a fence line under any rule."""
    return char != "\\" and not any(c in "`~" for c in unicodedata.normalize("NFKC", char))


_prose = st.text(st.characters(codec="utf-8").filter(_fence_safe), max_size=40)
_code = st.text(st.characters(codec="utf-8", exclude_characters="`~"), max_size=40)


#: Format rules known to edit inside fences, against the module's promise: fix the rule, and this
#: strict xfail fails until its entry goes.
_EDITS_CODE: dict[str, str] = {}


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.xfail(reason=_EDITS_CODE[c[0]], strict=True)) if c[0] in _EDITS_CODE else c
        for c in CASES
        if c[0] != "strip_trailing_whitespace"  # whitespace only: the one change code chains allow
    ],
    ids=_case_id,
)
@settings(max_examples=100, deadline=None)
@given(before=_prose, code=_code, after=_prose)
def test_fenced_code_is_kept_byte_for_byte(
    case: tuple[str, Params | None], before: str, code: str, after: str
) -> None:
    block = "```python\n" + code + "\n```"
    out = _apply(*case)(before + "\n" + block + "\n" + after)
    assert block in out


_LINE_END_SPACE = "\t\n\r\x0b\x0c\x85\u2028\u2029"


@settings(max_examples=100, deadline=None)
@given(text=_texts, per_line=st.booleans())
def test_strip_trailing_whitespace_only_removes_whitespace(text: str, per_line: bool) -> None:
    out = strip_trailing_whitespace(text, StripTrailingWhitespaceParams(per_line=per_line))
    assert [c for c in out if not c.isspace()] == [c for c in text if not c.isspace()]
    assert out == "" or (out[-1] not in _LINE_END_SPACE and unicodedata.category(out[-1]) != "Zs")


@settings(max_examples=150, deadline=None)
@given(prefix=_texts, tail=st.sampled_from((" U.S.", " e.g.", "...", "。。。", "…")))
def test_strip_trailing_period_never_cuts_abbreviations_or_ellipses(prefix: str, tail: str) -> None:
    assert strip_trailing_period(prefix + tail).endswith(tail)


@pytest.mark.parametrize("per_line", [True, False])
def test_strip_trailing_whitespace_is_linear_on_long_space_runs(per_line: bool) -> None:
    # a regex anchored at the line end backtracks quadratically here; the rule must not
    text = " " * 200_000 + "x"
    params = StripTrailingWhitespaceParams(per_line=per_line)
    assert REGISTRY.rule("strip_trailing_whitespace")(text, params, timeout=0.05) == text


def test_space_separators_are_every_zs_character() -> None:
    """The written-out list of space separators is exactly Unicode category Zs as the running
    ``unicodedata`` has it (a newer Unicode that moved a character would fail here)."""
    from normalize.rules.format import _SPACE_SEPARATORS

    everything = "".join(c for c in map(chr, range(0x110000)) if unicodedata.category(c) == "Zs")
    assert _SPACE_SEPARATORS == everything


def test_write_powers_keeps_fenced_code() -> None:
    text = "```python\nx = 2² + ¼\n```\nso 10⁶ and ½"
    assert write_powers(text) == "```python\nx = 2² + ¼\n```\nso 10^{6} and 1/2"
