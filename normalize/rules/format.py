"""Stage 3, format: escape sequences, markdown, quotes, width, NFKC, whitespace, case.

Every rule here leaves the inside of fenced code blocks alone (see :mod:`normalize.rules._fences`),
except :func:`strip_trailing_whitespace`, which is whitespace-only and is the one change the
code chains allow inside code.

Fence-safety and idempotence.  A rule edits the prose between fences; that edit can create or
break a fence line (``｀｀｀`` becomes `````, ``> ```` loses its ``>``, a literal ``\\n``
becomes a line break before `````).  A fence that appears only after the edit would then pair
with an older fence line and expose code to a second run, which is why every prose-editing rule
runs to a fixed point (:func:`normalize.rules._speed.settle`): it is re-applied until the text no longer changes, so
``f(f(x)) == f(x)`` holds by construction.  Ordinary text settles in one pass (plus the pass that
confirms it); each round of a shortening rule removes characters, so the loop is bounded.

Scope.  All rules act on the short-answer types (``TEXT_ANSWER_TYPES``).  ``unescape_newlines``
and ``unify_quotes`` also cover ``open_writing``, where they keep the meaning of prose; width,
NFKC, markdown, whitespace collapsing, period and case rules change how an essay reads (Chinese
full-width punctuation, list indentation, emphasis), so they stay out of it.
``strip_trailing_whitespace`` is safe on every type, code included.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final

import regex

from normalize.core.registry import ALL_TYPES, DEFAULT_TIMEOUT, TEXT_ANSWER_TYPES, NoParams, rule
from normalize.limits._regex import char_finder, char_table, compile_pattern
from normalize.rules._fences import find_fences
from normalize.rules._format_params import (
    FoldCaseParams,
    NativeDigitsParams,
    NormalizeWhitespaceParams,
    StripMarkdownParams,
    StripTrailingPeriodParams,
    StripTrailingWhitespaceParams,
)
from normalize.rules._speed import fence_free, on_prose, on_prose_idempotent, on_prose_segments

_NO_PARAMS: Final = NoParams()

#: Scripts whose words are written without spaces: emphasis markers touching them still count.
_CJK: Final = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Bopomofo}"

# ---------------------------------------------------------------------------------------------
# unescape_newlines

#: LaTeX control words that begin with ``n`` or ``t``.  After a backslash TeX reads the longest
#: run of ASCII letters as one control word, so ``\neq`` is the word ``neq``; when that run is
#: one of these names the backslash sequence is LaTeX and stays, otherwise the ``\n``/``\t`` is
#: an escape (``\nThe`` is a line break before ``The``, ``\nequation`` one before ``equation``).
#: The price: an escape followed by exactly such a word (``\ni`` meant as a line break before
#: ``i``) stays literal.  ``\r`` words are never touched, only the pair ``\r\n`` is converted.
LATEX_N_T_COMMANDS: Final[frozenset[str]] = frozenset(
    {
        # n
        "nabla", "natural", "ncong", "ne", "nearrow", "neg", "neq", "neqq", "newcommand",
        "newenvironment", "newline", "newpage", "newtheorem", "nexists", "ngeq", "ngeqq",
        "ngeqslant", "ngtr", "ni", "nleftarrow", "nLeftarrow", "nleftrightarrow",
        "nLeftrightarrow", "nleq", "nleqq", "nleqslant", "nless", "nmid", "noalign", "nobreak",
        "nobreakspace", "nocite", "noexpand", "noindent", "nolimits", "nolinebreak", "nonumber",
        "nopagebreak", "normalfont", "normalsize", "not", "notag", "notin", "nparallel",
        "nprec", "npreceq", "nrightarrow", "nRightarrow", "nshortmid", "nshortparallel", "nsim",
        "nsubset", "nsubseteq", "nsubseteqq", "nsucc", "nsucceq", "nsupset", "nsupseteq",
        "nsupseteqq", "ntriangleleft", "ntrianglelefteq", "ntriangleright", "ntrianglerighteq",
        "nu", "num", "numberwithin", "nvdash", "nvDash", "nVdash", "nVDash", "nwarrow",
        # t
        "tableofcontents", "tabular", "tag", "tan", "tanh", "tau", "tbinom", "tcolorbox", "text",
        "textasciitilde", "textbackslash", "textbar", "textbf", "textcolor", "textdegree",
        "textellipsis", "textgreater", "textheight", "textit", "textless", "textmd", "textnormal",
        "textquotedbl", "textrm", "textsc", "textsf", "textsl", "textstyle", "textsubscript",
        "textsuperscript", "texttt", "textup", "textwidth", "tfrac", "tg", "thanks", "therefore",
        "theta", "thickapprox", "thicksim", "thickspace", "thinspace", "thispagestyle", "tikz",
        "tilde", "times", "tiny", "title", "to", "today", "top", "topmargin", "triangle",
        "triangledown", "triangleleft", "trianglelefteq", "triangleq", "triangleright",
        "trianglerighteq", "tt", "ttfamily", "twoheadleftarrow", "twoheadrightarrow",
    }
)

#: An escape candidate: the start of a backslash run (an even number of backslashes stays as
#: escaped backslashes), then ``\n``, ``\t`` or ``\r\n``, then the letters that follow it.
_ESCAPE: Final = r"(?<!\\)(?P<pairs>(?:\\\\)*)\\(?P<esc>r\\n|n|t)(?P<rest>[A-Za-z]*)"


def _unescape_match(match: regex.Match[str]) -> str:
    esc, rest = match["esc"], match["rest"]
    word = ("n" if esc == "r\\n" else esc) + rest
    if word in LATEX_N_T_COMMANDS:
        return match[0]
    return match["pairs"] + ("\t" if esc == "t" else "\n") + rest


#: Each ``\\n`` or ``\\t`` and the ASCII-letter run that follows its backslash (what
#: :data:`_ESCAPE`'s ``esc`` and ``rest`` read): the words :func:`_only_latex_escapes` checks.
_ESCAPE_WORDS: Final = re.compile(r"\\([nt][A-Za-z]*)").findall


def _only_latex_escapes(text: str) -> bool:
    r"""Whether every ``\n`` and ``\t`` in ``text`` starts a command of
    :data:`LATEX_N_T_COMMANDS` (the longest ASCII-letter run after its backslash): then every
    match of :data:`_ESCAPE` is one that :func:`_unescape_match` gives back as it is (a match's
    last backslash and the ``n`` or ``t`` after it are such a place, and its word is that run:
    ``\r\n`` reads the letters after its ``\n``), so the rule leaves the text unchanged.

    One C-level ``findall`` lists every such word: a match never holds the backslash of the
    next (a letter run holds no backslash), so it finds each ``\n`` and ``\t`` with its whole
    run, as a ``find`` loop per escape did at ~0.4 µs a candidate in Python (``\times``,
    ``\text`` and ``\neq`` fill reasoning written in LaTeX).

    >>> _only_latex_escapes(r"$3 \times 4 \neq \text{five}$"), _only_latex_escapes(r"\times 2\nNext")
    (True, False)
    """
    return LATEX_N_T_COMMANDS.issuperset(_ESCAPE_WORDS(text))


@rule("unescape_newlines", version=1, scope=(*TEXT_ANSWER_TYPES, "open_writing"))
def unescape_newlines(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Turn literal ``\\n``, ``\\r\\n`` and ``\\t`` escapes into line breaks and tabs, sparing LaTeX.

    The letters after the backslash are read as TeX does (the longest ASCII-letter run); when
    they spell a LaTeX command in :data:`LATEX_N_T_COMMANDS` (``\\neq``, ``\\theta``, ``\\to``,
    ``\\text`` ...) the sequence stays.  An escaped backslash (``\\\\n``) stays too; a lone
    ``\\r`` is not touched.  Put this rule first in a format chain, before any whitespace rule.

    Bound: O(16·n): linear rounds of :func:`settle`, at most 16.

    >>> unescape_newlines(r"A\\nB\\tC \\frac{1}{2}\\neq\\theta \\\\n")
    'A\\nB\\tC \\\\frac{1}{2}\\\\neq\\\\theta \\\\\\\\n'
    """
    if "\\" not in text or ("\\n" not in text and "\\t" not in text):
        return text  # every escape is a backslash and n or t (\\r\\n ends in \\n): none here
    if fence_free(text) and _only_latex_escapes(text):
        return text  # every candidate spells a LaTeX command (\\times, \\text): the sub keeps each
    pattern = compile_pattern(_ESCAPE)
    return on_prose(
        text,
        lambda s: pattern.sub(_unescape_match, s),
        rule_name="unescape_newlines",
        timeout=timeout,
    )


# ---------------------------------------------------------------------------------------------
# strip_markdown


_MARKDOWN_DEFAULTS: Final = StripMarkdownParams()


#: No letter or digit (other than CJK, which is written without spaces) or backslash before an
#: opening marker, none after a closing one: ``snake_case_name``, ``a*b*c``, ``x**2 + y**2`` and
#: ``\*`` stay, while ``答案是**B**。`` loses its markers.
_BEFORE_OPEN: Final = rf"(?:(?<![\p{{L}}\p{{N}}\\])|(?<=[{_CJK}]))"
_AFTER_CLOSE: Final = rf"(?:(?![\p{{L}}\p{{N}}])|(?=[{_CJK}]))"


def _emphasis(marker: str) -> str:
    """A pattern for ``marker``-delimited emphasis on one line (the marker run exactly that long).

    The body holds no marker character, so a scan stops at the next one (linear, not quadratic,
    on long lines full of ``*``); nested emphasis of the same character is taken apart by the
    later rounds of :func:`settle`.
    """
    char = regex.escape(marker[0])
    delim = regex.escape(marker)
    return (
        rf"{_BEFORE_OPEN}(?<!{char}){delim}(?![\s{char}])"
        rf"(?P<body>[^\n{char}]*?[^\s\\{char}])"
        rf"(?<!{char}){delim}(?!{char}){_AFTER_CLOSE}"
    )


#: The ASCII members of the classes above, for :func:`_emphasis_ascii`: ``\p{L}`` and ``\p{N}``
#: hold ``A-Za-z`` and ``0-9`` there, no ASCII character is CJK, and the ``regex`` module's
#: ``\s`` holds these six (the standard library's ``\s`` adds ``\x1c-\x1f``, so it is spelled
#: out).  A test checks all three against every ASCII character.
_ASCII_WORD: Final = "A-Za-z0-9"
_ASCII_SPACE: Final = r"\t\n\x0b\x0c\r "


def _emphasis_ascii(marker: str) -> re.Pattern[str]:
    """:func:`_emphasis` for ASCII text, as a standard-library pattern (several times faster on
    a short answer than the ``regex`` module's).  On a text of ASCII characters only, every
    class and look-around here accepts exactly what its counterpart in :func:`_emphasis`
    accepts (the CJK branch of each look-around never matches), and both engines try the same
    alternatives in the same order, so ``sub`` gives the same text.
    """
    char = re.escape(marker[0])
    delim = re.escape(marker)
    return re.compile(
        rf"(?<![{_ASCII_WORD}\\])(?<!{char}){delim}(?![{_ASCII_SPACE}{char}])"
        rf"(?P<body>[^\n{char}]*?[^{_ASCII_SPACE}\\{char}])"
        rf"(?<!{char}){delim}(?!{char})(?![{_ASCII_WORD}])"
    )


def _body(match: re.Match[str]) -> str:
    return match["body"]


_EMPHASIS_MARKERS: Final = ("***", "___", "**", "__", "*", "_")
_EMPHASIS: Final = tuple(_emphasis(m) for m in _EMPHASIS_MARKERS)
_EMPHASIS_ASCII: Final = tuple(_emphasis_ascii(m) for m in _EMPHASIS_MARKERS)
_EMPHASIS_STEPS: Final = tuple(zip(_EMPHASIS_MARKERS, _EMPHASIS, _EMPHASIS_ASCII, strict=True))
_ATX_HEADER: Final = r"(?m)^[ ]{0,3}#{1,6}(?:[ \t]+(?P<title>[^\n]*?))??(?:[ \t]+#+)?[ \t]*$"
_INLINE_CODE: Final = r"(?<!`)(?P<ticks>`+)(?!`)(?P<code>[^\n]*?[^`\n])(?P=ticks)(?!`)"
_BLOCKQUOTE: Final = r"(?m)^(?:[ ]{0,3}>[ ]?)+"


def _unwrap_code(match: regex.Match[str]) -> str:
    code = match["code"]
    if len(code) >= 2 and code[0] == " " and code[-1] == " " and code.strip(" "):
        return code[1:-1]
    return code


def _strip_markdown_once(text: str, params: StripMarkdownParams, timeout: float) -> str:
    # each pattern needs its marker character: a C-level ``in`` test skips the regex scan
    if params.blockquotes and ">" in text:
        text = compile_pattern(_BLOCKQUOTE).sub("", text)
    if "#" in text:
        text = compile_pattern(_ATX_HEADER).sub(lambda m: m["title"] or "", text)
    if "`" in text:
        text = compile_pattern(_INLINE_CODE).sub(_unwrap_code, text)
    if "*" not in text and "_" not in text:
        return text  # no emphasis marker
    is_ascii = text.isascii()  # removing markers keeps it so
    for marker, pattern, ascii_pattern in _EMPHASIS_STEPS:
        if marker in text:  # each pattern holds its whole delimiter ("**") literally
            if is_ascii:
                text = ascii_pattern.sub(_body, text)
            else:
                text = compile_pattern(pattern).sub(r"\g<body>", text)
    return text


@rule("strip_markdown", version=1, scope=TEXT_ANSWER_TYPES, params=StripMarkdownParams)
def strip_markdown(
    text: str, params: StripMarkdownParams = _MARKDOWN_DEFAULTS, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Remove emphasis markers, ATX headers, inline-code backticks (and optionally ``>`` quotes).

    Emphasis is ``***x***``, ``**x**``, ``__x__``, ``*x*``, ``_x_`` on one line, with no space
    just inside the markers, no letter or digit just outside them (CJK text excepted) and no
    marker character inside, so ``snake_case_name``, ``a*b*c``, ``2*3``, ``x**2 + y**2`` and
    ``**kwargs`` stay.  Nested markers are removed layer by layer.  Fenced code is untouched.

    Bound: O(16·n): linear rounds of :func:`settle`, at most 16 (deeper nesting: status ``error``).

    >>> strip_markdown("## Answer\\n答案是**B**，见 `f(x)`，snake_case_name 与 a*b*c 不变")
    'Answer\\n答案是B，见 f(x)，snake_case_name 与 a*b*c 不变'
    """
    inert = _no_quote_marker if params.blockquotes else _no_marker
    if inert(text):
        return text  # no marker character at all: nothing to strip, no fence scan
    if fence_free(text):  # the first round of on_prose below, and its confirming round's skip
        changed = _strip_markdown_once(text, params, timeout)
        if changed == text or inert(changed):
            return changed
    return on_prose(
        text,
        lambda s: _strip_markdown_once(s, params, timeout),
        rule_name="strip_markdown",
        timeout=timeout,
        inert=inert,
    )


def _no_marker(text: str) -> bool:
    """No character any pattern of :func:`_strip_markdown_once` needs (each needs its marker)."""
    return "*" not in text and "_" not in text and "`" not in text and "#" not in text


def _no_quote_marker(text: str) -> bool:
    """:func:`_no_marker`, and no ``>`` for the blockquote pattern."""
    return ">" not in text and _no_marker(text)


# ---------------------------------------------------------------------------------------------
# unify_quotes

_QUOTES = str.maketrans(
    {
        "“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"',
        "「": '"', "」": '"', "『": '"', "』": '"', "〝": '"', "〞": '"',
        "‘": "'", "’": "'", "‚": "'", "‛": "'",
    }
)


@rule("unify_quotes", version=1, scope=(*TEXT_ANSWER_TYPES, "open_writing"))
def unify_quotes(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Turn curly, guillemet and CJK corner quotes into ``"`` and ``'`` outside fenced code.

    Bound: O(16·n): linear rounds of :func:`settle`, at most 16.

    >>> unify_quotes("答案是“B”，他说‘好’")
    '答案是"B"，他说\\'好\\''
    """
    if text.isascii() or not _has_quote(text):
        return text  # no quote to unify (every one is non-ASCII): no fence scan, no translate
    return on_prose_idempotent(text, _QUOTE_TABLE.translate, rule_name="unify_quotes", timeout=timeout)


#: ``str.translate(_QUOTES)``, done faster (:class:`normalize.limits._regex.CharTable`).
_QUOTE_TABLE: Final = char_table(_QUOTES)
_QUOTE_CHARS: Final = tuple(_QUOTE_TABLE.table)

#: Longer than this, a text is tested for a handful of characters one ``in`` at a time.
_SHORT_TEXT: Final = 128


def _has_quote(text: str) -> bool:
    """``_QUOTE_TABLE.present(text)``; on a long text by one-character ``in`` tests, which are
    ``memchr`` scans (the low bytes of these code points are rare in text) and several times
    faster there than a character-class scan."""
    if len(text) <= _SHORT_TEXT:
        return _QUOTE_TABLE.present(text)
    for char in _QUOTE_CHARS:
        if char in text:
            return True
    return False


def _printable_but_newlines(text: str) -> bool:
    """Whether every character of ``text`` but LF is printable: ``str.isprintable`` is false for
    the Unicode categories Other (Cc, Cf, Cs, Co, Cn) and Separator (Zs, Zl, Zp), the plain
    space excepted.  Every invisible character (all Cf) and every whitespace character other
    than LF and the space (Cc, Zs, Zl, Zp) is among them, so ``True`` rules them all out, in
    one C-level pass that is several times faster on long non-ASCII text than a class scan.
    """
    return text.replace("\n", " ").isprintable()


# ---------------------------------------------------------------------------------------------
# to_halfwidth

#: U+FF01..U+FF5E are the full-width forms of U+0021..U+007E; U+3000 is the ideographic space.
_HALFWIDTH: Final = {0xFF01 + i: 0x21 + i for i in range(0x5E)} | {0x3000: 0x20}


@rule("to_halfwidth", version=1, scope=TEXT_ANSWER_TYPES)
def to_halfwidth(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Map full-width ASCII (U+FF01–U+FF5E) and the ideographic space to plain ASCII.

    CJK punctuation with no ASCII form (``。``, ``、``, ``「``) is left as it is.

    Bound: O(16·n): linear rounds of :func:`settle`, at most 16.

    >>> to_halfwidth("ＡＢＣ１２３　答案：Ｂ。")
    'ABC123 答案:B。'
    """
    if text.isascii() or (not fence_free(text) and not _HALFWIDTH_TABLE.present(text)):
        return text  # nothing full-width: no fence scan, no translate
    return on_prose_idempotent(text, _HALFWIDTH_TABLE.translate, rule_name="to_halfwidth", timeout=timeout)


#: ``str.translate(_HALFWIDTH)``, done faster (:class:`normalize.limits._regex.CharTable`).
_HALFWIDTH_TABLE: Final = char_table(_HALFWIDTH)


# ---------------------------------------------------------------------------------------------
# remove_invisible_chars

#: Zero-width characters, bidi marks/embeddings/isolates, soft hyphen, word joiner, BOM,
#: invisible math operators.  ZWJ/ZWNJ between two non-ASCII characters stay: they shape emoji
#: sequences and Persian or Indic words there.
_INVISIBLE: Final = (
    r"[\u00ad\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
    r"|[\u200c\u200d](?!(?<=[^\x00-\x7f][\u200c\u200d])[^\x00-\x7f])"
)


@rule("remove_invisible_chars", stage="format", version=1, scope=(*TEXT_ANSWER_TYPES, "open_writing", "judge", "ranking"))
def remove_invisible_chars(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Remove invisible characters (zero-width, bidi marks, soft hyphen) outside fenced code.

    They never change an answer, but split a number in two (``4<U+200B>2`` would read as 2).

    >>> remove_invisible_chars("#### 4\u200b2 \u200eok\u00ad")
    '#### 42 ok'
    >>> remove_invisible_chars("👩\u200d💻") == "👩\u200d💻"
    True
    """
    if text.isascii() or _printable_but_newlines(text) or _INVISIBLE_CHARS.search(text) is None:
        return text  # none of the characters either branch removes: no fence scan, no sub
    pattern = compile_pattern(_INVISIBLE)  # built in and linear: no per-call timeout
    return on_prose(
        text, lambda s: pattern.sub("", s), rule_name="remove_invisible_chars", timeout=timeout, inert=_no_invisible
    )


def _no_invisible(text: str) -> bool:
    return _INVISIBLE_CHARS.search(text) is None


#: Every character :data:`_INVISIBLE` can remove (both branches), for a presence test.
_INVISIBLE_CHARS: Final = char_finder(
    "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
)


# ---------------------------------------------------------------------------------------------
# normalize_nfkc


@rule("normalize_nfkc", version=1, scope=TEXT_ANSWER_TYPES)
def normalize_nfkc(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Apply Unicode NFKC normalization outside fenced code.

    Bound: O(16·n): linear rounds of :func:`settle`, at most 16.

    >>> normalize_nfkc("ＡＢＣ ﬁ ² ①")
    'ABC fi 2 1'
    """
    if text.isascii():
        return text  # ASCII is NFKC-normalized already
    return on_prose_idempotent(text, _nfkc, rule_name="normalize_nfkc", timeout=timeout)


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)  # idempotent: NFKC(NFKC(s)) == NFKC(s)


# ---------------------------------------------------------------------------------------------
# write_powers


#: Superscript digits and signs, and what they stand for.
_SUPERSCRIPTS: Final = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8",
                        "⁹": "9", "⁺": "+", "⁻": "-"}
#: Vulgar fractions (one code point each), as numerator and denominator.
_VULGAR: Final = {"½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅖": "2/5", "⅗": "3/5",
                  "⅘": "4/5", "⅙": "1/6", "⅚": "5/6", "⅐": "1/7", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8", "⅞": "7/8",
                  "⅑": "1/9", "⅒": "1/10", "↉": "0/3"}
#: A run of superscripts written after a base (a digit, a letter, a closing bracket): an exponent.
_POWER: Final = "(?<=[0-9A-Za-z)\\]}])[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+"
#: A vulgar fraction, with the digit before it when there is one (a mixed number: 2½).
_FRACTION: Final = "([0-9]?)([½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅐⅛⅜⅝⅞⅑⅒↉])"


def _power(match: regex.Match[str]) -> str:
    return "^{" + "".join(_SUPERSCRIPTS[c] for c in match.group()) + "}"


def _fraction(match: regex.Match[str]) -> str:
    whole = match.group(1)
    return (whole + " " if whole else "") + _VULGAR[match.group(2)]


@rule("write_powers", version=2, scope=("math",))
def write_powers(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Write superscript exponents and vulgar fractions out before NFKC flattens them into digits:
    ``10⁶`` → ``10^{6}`` (NFKC makes it ``106``), ``x²`` → ``x^{2}``, ``2½`` → ``2 1/2`` (NFKC
    makes it ``21⁄2``), ``¾`` → ``3/4``.  A superscript with no base before it is left to NFKC.
    Math only: elsewhere ``²`` is text as written.  Fenced code is kept as written (v1 rewrote it).

    Bound: O(n): two linear substitutions, each only when its characters occur.

    >>> write_powers("10⁶ km², 2½ cups, 10⁻³")
    '10^{6} km^{2}, 2 1/2 cups, 10^{-3}'
    """
    if text.isascii():
        return text
    return on_prose_idempotent(text, _write_powers, rule_name="write_powers", timeout=timeout)


def _write_powers(text: str) -> str:
    if any(c in text for c in _SUPERSCRIPTS):
        text = compile_pattern(_POWER).sub(_power, text)  # linear: no wall clock
    if any(c in text for c in _VULGAR):
        text = compile_pattern(_FRACTION).sub(_fraction, text)
    return text


# ---------------------------------------------------------------------------------------------
# normalize_whitespace


_WHITESPACE_DEFAULTS: Final = NormalizeWhitespaceParams()


#: Line terminators besides LF: CRLF, CR, VT, FF, NEL, LINE and PARAGRAPH SEPARATOR.
_LINE_BREAK: Final = r"\r\n|[\r\x0b\x0c\x85\u2028\u2029]"
#: Tab and every Unicode space separator (category Zs: NBSP, en/em spaces, U+3000 ...) other
#: than the plain space, which needs no rewriting (rewriting every space was a hot spot).
_SPACE: Final = r"(?! )[\t\p{Zs}]"
#: Every Unicode space separator (category Zs), written out: the same since Unicode 6.3 (when
#: U+180E left it); tests/test_rules_format.py checks it against the running ``unicodedata``.
#: Listing them by scanning every code point cost ~80 ms at every start.
_SPACE_SEPARATORS: Final = " \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"
#: The space separators other than the plain space (``regex``'s \p{Zs} agrees on every code
#: point, a test checks it), for a presence test.
_OTHER_SPACES: Final = char_finder(_SPACE_SEPARATORS[1:])
#: The non-ASCII characters :data:`_LINE_BREAK` starts with, for a presence test.
_OTHER_BREAKS: Final = char_finder("\x85\u2028\u2029")
#: Every character :func:`_normalize_whitespace_segment` rewrites, other than the plain space
#: and LF: the line terminators of :data:`_LINE_BREAK` and the spaces of :data:`_SPACE`.
_REWRITTEN_SPACES: Final = char_finder("\t\r\x0b\x0c\x85\u2028\u2029" + _SPACE_SEPARATORS[1:])


def _whitespace_in_one_round(text: str, mode: str, timeout: float) -> str | None:
    """:func:`normalize_whitespace` of a fence-free ``text`` when its first round settles it,
    else ``None``: that round is one call of :func:`_normalize_whitespace_segment` on the whole
    text, and a result that :func:`_whitespace_settled` passes (no fence in it either) makes
    the confirming second round the identity, which is not run."""
    if not fence_free(text):
        return None
    changed = _normalize_whitespace_segment(text, True, True, mode, timeout)
    return changed if changed == text or _whitespace_settled(changed, mode) else None


def _whitespace_settled(text: str, mode: str) -> bool:
    """Whether :func:`normalize_whitespace` leaves ``text`` as it is, judged without running it
    (``False`` only means "run it").  For a text that can hold no fence the rule is one call of
    :func:`_normalize_whitespace_segment` on the whole text (at both ends), and each of its
    steps changes something only where its trigger occurs: a line terminator other than LF, a
    tab or a space separator other than the plain space (:data:`_REWRITTEN_SPACES`), two spaces
    in a row, a space before a line break, a space or LF at either end, three LF in a row
    (``keep``) or any LF (``collapse``).  None of them here: every step is the identity.
    """
    if text.isprintable():
        # no LF, tab, line terminator or space separator but the plain space (all unprintable:
        # see _printable_but_newlines), so the only triggers left are the ends, two spaces and
        # fences ("" is printable and comes back as "" in both modes)
        return text[:1] != " " and text[-1:] != " " and "  " not in text and fence_free(text)
    if text[0] in " \n" or text[-1] in " \n" or not fence_free(text):
        return False
    if "\n" in text and (mode == "collapse" or "\n\n\n" in text or " \n" in text):
        return False
    if text.isascii():
        if "\t" in text or "\r" in text or "\x0b" in text or "\x0c" in text:
            return False
    elif not _printable_but_newlines(text) and _REWRITTEN_SPACES.search(text) is not None:
        return False
    return "  " not in text


def _collapse_spaces(text: str) -> str:
    """``[ \\n]+`` → one space (``regex``'s ``sub``), with ``str.replace``: each run of spaces and
    LF becomes a run of spaces as long, and halving every run of spaces a few times leaves one
    space of each (a run longer than 2⁸ is finished by the ``sub``, which gives the same).

    >>> _collapse_spaces("a \\n\\n  b\\nc  ")
    'a b c '
    """
    body = text.replace("\n", " ")
    for _ in range(8):
        if "  " not in body:
            return body
        body = body.replace("  ", " ")
    return compile_pattern(r"[ \n]+").sub(" ", body)


def _normalize_whitespace_segment(
    segment: str, at_start: bool, at_end: bool, mode: str, timeout: float
) -> str:
    # each sub runs only when a character it acts on occurs (no match: the text comes back)
    text = segment
    if "\r" in text or "\x0b" in text or "\x0c" in text or (not text.isascii() and _OTHER_BREAKS.search(text)):
        text = compile_pattern(_LINE_BREAK).sub("\n", text)
    if "\t" in text or (not text.isascii() and _OTHER_SPACES.search(text) is not None):
        text = compile_pattern(_SPACE).sub(" ", text)
    if mode == "collapse":
        body = _collapse_spaces(text).strip(" ")
        # a segment next to a fence keeps the line break that puts the fence on its own line
        lead = "" if at_start else "\n"
        tail = "" if at_end else "\n"
        if not body:
            return "" if at_start or at_end else "\n"
        return lead + body + tail
    if "  " in text:
        text = compile_pattern(r" {2,}").sub(" ", text)
    if " \n" in text or text.endswith(" "):
        text = compile_pattern(r" +(?=\n)| +\Z").sub("", text)
    if "\n\n\n" in text:
        text = compile_pattern(r"\n{3,}").sub("\n\n", text)
    if at_start:
        text = text.lstrip(" \n")
    if at_end:
        text = text.rstrip(" \n")
    return text


@rule(
    "normalize_whitespace",
    version=1,
    scope=TEXT_ANSWER_TYPES,
    params=NormalizeWhitespaceParams,
)
def normalize_whitespace(
    text: str,
    params: NormalizeWhitespaceParams = _WHITESPACE_DEFAULTS,
    *,
    timeout: float = DEFAULT_TIMEOUT,
) -> str:
    """Unify line ends and spaces, collapse space runs, strip line ends, trim the text.

    Line terminators (CRLF, CR, VT, FF, NEL, U+2028, U+2029) become LF; tabs and every Unicode
    space separator become a space; runs of spaces become one; spaces before a line break go.
    ``keep`` then collapses three or more line breaks to two, ``collapse`` turns every run of
    whitespace into one space.  The ends of the text are trimmed.  Fenced code is untouched and
    stays on its own lines, so in ``collapse`` mode a line break is kept on each side of a fence.

    Bound: O(16·n): linear rounds of :func:`settle`, at most 16.

    >>> normalize_whitespace("  答案\\t是\\u3000 B  \\r\\n\\n\\n\\nok ")
    '答案 是 B\\n\\nok'
    >>> normalize_whitespace("a \\n\\n b", NormalizeWhitespaceParams(newlines="collapse"))
    'a b'
    """
    if _whitespace_settled(text, params.newlines):
        return text
    done = _whitespace_in_one_round(text, params.newlines, timeout)
    if done is not None:
        return done
    return on_prose_segments(
        text,
        lambda seg, start, end: _normalize_whitespace_segment(seg, start, end, params.newlines, timeout),
        rule_name="normalize_whitespace",
        timeout=timeout,
    )


# ---------------------------------------------------------------------------------------------
# strip_trailing_whitespace


_TRAILING_WS_DEFAULTS: Final = StripTrailingWhitespaceParams()


# str.rstrip with explicit sets: linear, where a regex anchored at the line end would
# backtrack quadratically over a long run of spaces that is not at a line end.
_LINE_TRAILING_CHARS: Final = "\t" + _SPACE_SEPARATORS
_TEXT_TRAILING_CHARS: Final = "\t\n\r\x0b\x0c\x85\u2028\u2029" + _SPACE_SEPARATORS
_LINE_END_SPLIT: Final = r"(\r\n|\r|\n)"
#: A line-trailing character right before a line break: only then does per-line stripping
#: change more than the end of the text (which the final ``rstrip`` covers anyway).
_BLANK_BEFORE_BREAK: Final = re.compile("[" + re.escape(_LINE_TRAILING_CHARS) + "][\r\n]")


def _has_trailing_blank_line_end(text: str) -> bool:
    if text.isascii():
        return " \n" in text or "\t\n" in text or " \r" in text or "\t\r" in text
    if " \n" not in text and _printable_but_newlines(text):
        return False  # no CR, tab or space separator but the space (unprintable), no space before LF
    return _BLANK_BEFORE_BREAK.search(text) is not None


@rule(
    "strip_trailing_whitespace",
    version=1,
    scope=ALL_TYPES,
    params=StripTrailingWhitespaceParams,
)
def strip_trailing_whitespace(
    text: str,
    params: StripTrailingWhitespaceParams = _TRAILING_WS_DEFAULTS,
    *,
    timeout: float = DEFAULT_TIMEOUT,
) -> str:
    """Remove spaces and tabs at line ends (or only at the text's end) and trailing blank lines.

    It is whitespace-only and acts inside fenced code too: it is the one change allowed in code
    (indentation and everything else stay).  The text ends at its last non-blank character.

    Bound: O(n): one scan for a blank before a line break; only then one split, ``str.rstrip`` per line.

    >>> strip_trailing_whitespace("def f():  \\n\\treturn 1\\t\\n\\n\\n")
    'def f():\\n\\treturn 1'
    >>> strip_trailing_whitespace("a  \\nb \\n", StripTrailingWhitespaceParams(per_line=False))
    'a  \\nb'
    """
    core = text.rstrip(_TEXT_TRAILING_CHARS)
    if not params.per_line or not _has_trailing_blank_line_end(core):
        return core  # no line but the last ends in blanks: stripping the end is all there is
    pieces = compile_pattern(_LINE_END_SPLIT).split(text)
    # even indexes are lines, odd ones the line breaks between them
    text = "".join(p if i % 2 else p.rstrip(_LINE_TRAILING_CHARS) for i, p in enumerate(pieces))
    return text.rstrip(_TEXT_TRAILING_CHARS)


# ---------------------------------------------------------------------------------------------
# strip_trailing_period


_PERIOD_DEFAULTS: Final = StripTrailingPeriodParams()


_ELLIPSIS_CHARS: Final = "…⋯"


def _strip_period_tail(text: str, chars: str, timeout: float) -> str:
    body = compile_pattern(r"\s*\Z").sub("", text, count=1)
    trailing = text[len(body) :]
    if len(body) < 2 or body[-1] not in chars:
        return text
    before = body[-2]
    if before.isspace() or before in chars or before in _ELLIPSIS_CHARS:
        return text  # a lone mark, or part of an ellipsis such as "..." or "。。。"
    if compile_pattern(r"\.\p{L}\.\Z").search(body):
        return text  # an abbreviation such as "U.S.", "e.g." or "Ph.D."
    return body[:-1] + trailing


@rule(
    "strip_trailing_period",
    version=1,
    scope=TEXT_ANSWER_TYPES,
    params=StripTrailingPeriodParams,
)
def strip_trailing_period(
    text: str,
    params: StripTrailingPeriodParams = _PERIOD_DEFAULTS,
    *,
    timeout: float = DEFAULT_TIMEOUT,
) -> str:
    """Remove one sentence-final ``.`` or ``。`` (opt-in; never in a default chain).

    Kept: an ellipsis (the mark follows another mark or ``…``), an abbreviation whose last part
    is a single letter after another dot (``U.S.``, ``e.g.``, ``Ph.D.``), a lone mark, and text
    that ends inside fenced code.  After a number the dot goes (``3.`` becomes ``3``): the value is the same.
    Whitespace after the mark stays.

    Bound: O(n): one fence scan and anchored patterns at the end.

    >>> [strip_trailing_period(s) for s in ("答案是B。", "B.", "U.S.", "Wait...", "3.")]
    ['答案是B', 'B', 'U.S.', 'Wait...', '3']
    """
    fences = find_fences(text)
    if fences and fences[-1].end >= len(compile_pattern(r"\s*\Z").sub("", text, count=1)):
        return text
    start = fences[-1].end if fences else 0
    return text[:start] + _strip_period_tail(text[start:], params.chars, timeout)


# ---------------------------------------------------------------------------------------------
# fold_case


_FOLD_DEFAULTS: Final = FoldCaseParams()


@rule("fold_case", version=1, scope=TEXT_ANSWER_TYPES, params=FoldCaseParams)
def fold_case(text: str, params: FoldCaseParams = _FOLD_DEFAULTS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Fold letter case outside fenced code (opt-in).

    Bound: O(16·n): linear rounds of :func:`settle`, at most 16.

    >>> fold_case("Straße ABC"), fold_case("Straße ABC", FoldCaseParams(mode="lower"))
    ('strasse abc', 'straße abc')
    """
    fold = str.casefold if params.mode == "casefold" else str.lower
    return on_prose(text, fold, rule_name="fold_case", timeout=timeout)


# ---------------------------------------------------------------------------------------------
# native digits


def resolve_native_digits(params: NativeDigitsParams, resources: Mapping[str, Any]) -> NativeDigitsParams:
    """Fill empty ``digits`` from the ``digits`` of the languages ``from_languages`` names
    (``"*"``: every language of the pack that has them); an unknown language raises ``ValueError``.

    >>> resolve_native_digits(NativeDigitsParams(), {"languages": {"ar": {"digits": "٠١٢٣٤٥٦٧٨٩"}, "en": {}}}).digits
    ('٠١٢٣٤٥٦٧٨٩',)
    """
    if params.digits:
        return params
    languages = resources.get("languages", {})
    names = list(languages) if "*" in params.from_languages else list(params.from_languages)
    runs: list[str] = []
    for name in names:
        if name not in languages:
            raise ValueError(f"unknown language {name!r} for native digits (the pack defines: {', '.join(sorted(languages))})")
        run = languages[name].get("digits") if isinstance(languages[name], Mapping) else None
        if run is not None and not isinstance(run, str):
            raise ValueError(f"language {name!r}: digits must be a string of ten digits, got {run!r}")
        if run:
            runs.append(run)
    return NativeDigitsParams.model_validate({**params.model_dump(), "digits": tuple(dict.fromkeys(runs))})


@lru_cache(maxsize=16)
def _digit_class(digits: tuple[str, ...]) -> re.Pattern[str]:
    """Any of ``digits`` (a one-class scan, several times faster than a translate of the text)."""
    return re.compile("[" + re.escape("".join(digits)) + "]")


@lru_cache(maxsize=16)
def _digit_table(digits: tuple[str, ...]) -> dict[int, str]:
    return {ord(char): str(value) for run in digits for value, char in enumerate(run)}


@rule(
    "fold_native_digits",
    version=1,
    scope=("math",),
    params=NativeDigitsParams,
    resolve=resolve_native_digits,
)
def fold_native_digits(text: str, params: NativeDigitsParams, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Read native digits as ASCII digits: ``٤٢`` → ``42``, ``۱۲۵`` → ``125``, ``४२`` → ``42``.

    The digits come from the pack's languages (``digits:`` in ``rules/languages/*.yaml``:
    Arabic-Indic, Persian, Devanagari, Bengali, Thai, Telugu); full-width digits are folded
    earlier by ``to_halfwidth``/``normalize_nfkc``.  Every other character stays.  Math only:
    elsewhere a digit is text as written.

    Bound: O(n): one translate.

    >>> fold_native_digits("الإجابة: ٤٢", NativeDigitsParams(digits=("٠١٢٣٤٥٦٧٨٩",)))
    'الإجابة: 42'
    """
    if text.isascii() or not params.digits or _digit_class(params.digits).search(text) is None:
        return text  # no native digit: the translate would give the text back
    return text.translate(_digit_table(params.digits))
