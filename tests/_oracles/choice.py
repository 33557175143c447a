"""TEST ORACLE — not part of the package, never imported by it.

A compact copy of the strict ``choice`` parser as it was at 1c117cc (before the speed work of
issue 13), kept as a differential-testing reference: tests/test_fast_paths.py compares
:func:`normalize.parsers._choice.parse_choice` with :func:`parse_choice` here on generated
adversarial texts.  The literal pre-checks of the shipped parser are left out (every pattern
scans the whole text), so this is the plain algorithm.  Do not "fix" it to follow the package.
Output fixes made since (a wrong answer with status ``ok`` turned into a refusal) are mirrored here, each marked "fixed since 1c117cc", and take
their patterns from the package so both read the same.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal

import regex
from pydantic import Field

from normalize import status as st
from normalize.core.registry import Params, ParseContext, Parsed
from normalize.limits._regex import char_finder, char_table, compile_pattern
from normalize.parsers._choice import _JUDGED_WRONG, _lists_next_option, bare_after_retraction
from normalize.values._phrases import RETRACTION as _RETRACTION

MIN_OPTIONS: Final = 2
MAX_OPTIONS: Final = 26
LETTERS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class ChoiceParams(Params):
    """Parameters of the ``choice`` parser.

    ``conflict``: what several answer statements with different letters give —
    ``"contradictory"`` (no answer) or ``"last"`` (the last statement wins).
    ``default_options``: the option count used when a row has none; ``None`` makes such a
    row ``invalid``.
    """

    conflict: Literal["contradictory", "last"] = "contradictory"
    default_options: int | None = Field(default=MAX_OPTIONS, ge=MIN_OPTIONS, le=MAX_OPTIONS)


# --------------------------------------------------------------------------- patterns

_QUOTES: Final = str.maketrans(
    {
        "“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"', "「": '"', "」": '"',
        "『": '"', "』": '"', "〝": '"', "〞": '"', "‘": "'", "’": "'", "‚": "'", "‛": "'",
    }
)
_DROP_QUOTES: Final = str.maketrans("", "", "\"'")
#: ``str.translate(_QUOTES)``, done faster (:class:`normalize.limits._regex.CharTable`).
_QUOTE_TABLE: Final = char_table(_QUOTES)
#: A superset of Unicode category Cf as :mod:`unicodedata` has it (the ``regex`` module's
#: tables may be newer and hold a few more): no match means no format character to drop.
_MAYBE_FORMAT_CHAR: Final = regex.compile(r"\p{Cf}")
# LaTeX wrappers whose argument is plain text: \text{B} -> B.
_LATEX_TEXT: Final = r"\\(?:text|textbf|textrm|textit|mathrm|mathbf|mathit|mbox)\s*\{([^{}\n]*)\}"
# Markdown emphasis and code marks, math delimiters: decoration, never part of a letter.
_DECORATION: Final = r"[*`$]|\\[()\[\]]|(?<![^\W_])_+|_+(?![^\W_])"
#: Every character a :data:`_DECORATION` match starts with.
_DECORATION_CHARS: Final = char_finder("*`$\\_")

# Adverbs that may sit between a marker and its letter.
_ADVERBS: Final = (
    r"(?:,?[ \t]*(?:therefore|thus|hence|clearly|definitely|indeed|actually|then|simply|still|obviously|most\s+likely"
    r"|likely|probably|just|for\s+sure|surely|certainly|undoubtedly|unquestionably|absolutely|of\s+course"
    r"|without\s+(?:a\s+|any\s+)?doubt|in\s+fact|really|ultimately|finally)(?:[ \t]*,[ \t]*|\s+))*"
)
_EN_VERB: Final = r"(?:is|would\s+be|should\s+be|must\s+be|has\s+to\s+be|will\s+be)\b"
_NOT_AFTER_XUAN: Final = r"(?<!不|如果|若|假如|假设|要是|若是|是否|不能|不应|不要|别|可能|也许|或许)"

_MARKERS: Final = (
    # The (final/correct) answer is / answer: / Final Answer + newline.
    rf"(?i:\banswer[ \t]*(?:{_EN_VERB}[ \t]*(?:as\s+follows[ \t]*)?[:=]?|[:=]|\n|[–—]|(?<=[ \t])-(?=[ \t]))[ \t]*{_ADVERBS})",
    # The correct/best option is, my (final) choice is.
    rf"(?i:\b(?:(?:the\s+)?(?:correct|right|best|final)\s+(?:option|choice|letter|one)|my\s+(?:final\s+)?(?:choice|pick|selection|option))\s*(?:{_EN_VERB}[ \t]*[:=]?|[:=])[ \t]*{_ADVERBS})",
    # I choose / I'd pick / I will go with.
    r"(?i:\bI(?:'d|'ll|\s+would|\s+will|\s+shall)?\s+(?:choose|pick|select|go\s+with|opt\s+for)\s+)",
    r"\\(?:boxed|fbox)\s*\{",
    # 答案是 / 答案为 / 答案: / 最终答案是 / 答案选.
    r"答案\s*(?:(?:应该|应当|应|就|则|显然|明显|肯定|一定|当然|无疑|确实|只能|必然|也)\s*)*(?:是|为|選|选)\s*:?|答案\s*:",
    # "The answer isn't B", "答案不是B": a negation the parser reads on (… it is C / 而是C)
    r"(?i:\banswer[ \t]+is(?=n't\b))",
    r"答案\s*(?:并|可|肯定|显然|应该)?(?=不是|并非)",
    r"正确的?(?:选项|答案)\s*(?:(?:应该|应当|应|就|则)\s*)?(?:是|为)?\s*:?",
    r"(?m:^[ \t#>]*答\s*:)",
    # 选B / 选择B / 故选C / 所以选A — but not 如果选A, 不选A, 选项, 选择题, 选出.
    rf"{_NOT_AFTER_XUAN}选(?:择)?(?!项|择题|出|取|修|中)\s*:?",
    # The same statement in the other languages harnesses ask in (lighteval's multilingual
    # tasks): French, Spanish, Portuguese, Italian, German.
    r"(?i:\b(?:(?:la\s+)?(?:bonne\s+)?r[ée]ponse(?:\s+correcte)?\s*(?:est|:)"
    r"|(?:la\s+)?respuesta(?:\s+correcta)?\s*(?:es|:)"
    r"|(?:a\s+)?resposta(?:\s+correta)?\s*(?:é|:)"
    r"|(?:la\s+)?risposta(?:\s+corretta)?\s*(?:è|:)"
    r"|(?:die\s+)?(?:richtige\s+)?antwort\s*(?:ist|lautet|:))[ \t]*)",
)

# Conclusions without an answer marker: "Therefore, B.", "so I think it's B", "所以是B".  The
# letter must end its clause ("Therefore, A is wrong" states nothing).
_CONCLUSIONS: Final = (
    r"(?i:\b(?:therefore|thus|hence|so|consequently|accordingly|in\s+conclusion|overall|in\s+summary|to\s+conclude)\b"
    r"[ \t]*,?[ \t]*"
    r"(?:(?:I|we)(?:'d|\s+would|\s+will|'ll)?\s+(?:think|believe|conclude|say|guess|choose|pick|select|go\s+with|opt\s+for)"
    r"(?:\s+that)?\s+)?"
    r"(?:(?:it|this|that)(?:'s|\s+is|\s+must\s+be|\s+should\s+be|\s+has\s+to\s+be|\s+would\s+be|\s+will\s+be)\s+)?"
    rf"{_ADVERBS})",
    # "I think it's B", "It must be D", "Not A, not C, it's B": a clause that opens with it
    r"(?i:(?:\b(?:I|we)(?:'d|\s+would)?\s+(?:think|believe|guess|say|conclude)(?:\s+that)?\s+|(?:(?<![^\n])|(?<=[.;,!?:—–]))[ \t]*)"
    r"(?:it|this)(?:'s|\s+is|\s+must\s+be|\s+should\s+be|\s+has\s+to\s+be|\s+would\s+be)\s+"
    rf"{_ADVERBS})",
    r"(?i:\bit\s+(?:must|has\s+to|should)\s+be\s+)",
    r"(?:我|我们)(?:认为|觉得|判断|倾向于)\s*(?:(?:答案|正确答案|正确选项)\s*)?(?:(?:应该|应当|应)\s*)?(?:是|为|选)\s*",
    r"(?:因此|所以|故而|故|综上(?:所述)?|总之|由此可见|可见)\s*[,，:：]?\s*"
    r"(?:我(?:认为|觉得|选择?)\s*)?(?:(?:应该|应当|应|就|只能)\s*)?(?:是|为)?\s*",
)
# Hedged statements: several that disagree are contradictory; a single one is the answer.
_HEDGES: Final = (
    r"(?i:\b(?:might|may|could)(?:\s+also|\s+well)?\s+be\s+(?:either\s+)?)",
    r"(?i:\b(?:possibly|perhaps|maybe)[ \t]*,?[ \t]*(?:(?:it(?:'s|\s+is)|the\s+answer\s+is)\s+)?)",
    r"(?:可能|也许|或许)(?:是|为|选)\s*",
)
# A second answer offered beside the stated one: "but (C) is also plausible", "or maybe D",
# "也可能是C", "C也正确".  It joins whatever tier decides, so the output is contradictory.
_ALSO_BEFORE: Final = (
    r"(?i:\b(?:(?:could|might|may|would)\s+(?:also|equally)\s+be|or\s+(?:maybe|perhaps|possibly)|(?:also|equally)\s+(?:plausible|possible|likely|valid|correct)\s+(?:is|are)?)\s*(?:either\s+)?)",
    r"也(?:可能|可以|有可能)(?:是|选|为)\s*",
    # fixed since redteam4: an alternative hedged in brackets or after a comma: "B (maybe D)", "B, perhaps D", and
    # "B oder vielleicht D", "B, ou peut-être D", "B o quizás D", "B ou talvez D"
    r"(?i:(?:[(\[,;（][ \t]*(?:maybe|perhaps|possibly)|\boder[ \t]+(?:vielleicht|eventuell|möglicherweise)"
    r"|\bou[ \t]+(?:peut-être|peut-etre|éventuellement|talvez|quiçá)|\bo[ \t]+(?:quizás?|tal[ \t]+vez|posiblemente|forse|magari)"
    r"|\balternatively[ \t]*,?[ \t]*(?:(?:(?:it|the\s+answer)\s+(?:could|might|may)\s+be|it(?:'s|\s+is)|the\s+answer\s+is)(?!\w)"
    # (a bare letter after it only where it ends its clause: not "Alternatively, A is ruled out")
    r"|(?=[(\[]?[A-Z][)\]]?[ \t]*(?:$|[.,;!?\n。，；！？]))))[ \t]*,?[ \t]*)",
    r"[,，;；(（][ \t]*(?:也许|或许)(?:是|为|选)?\s*",
    # the other branch of a conditional answer: "B if x > 0, otherwise C", "否则是C"
    # (not "otherwise it would be C": a reason for the answer, what would follow were it not so)
    r"(?i:\b(?:otherwise|else)\b[ \t]*,?[ \t]*(?:(?:it(?:'s|\s+is)|the\s+answer\s+is)\s+)?)",
    r"否则(?:的话)?\s*[,，]?\s*(?:答案)?(?:就|应该?)?(?:是|为|选)?\s*",
)
# fixed since 1c117cc: "C could be right too", "A也对）" offer a second answer
_ALSO_AFTER: Final = (
    r"(?<![A-Za-z0-9])(?:(?i:option|choice)\s+|选项\s*)?(?P<open>[(\[【]?)(?P<letter>[A-Z])(?P<close>[)\]】]?)"
    r"(?:(?i:\s+is\s+also\s+an?\s+(?:strong|good|possible|valid|plausible|likely|reasonable|serious|viable)\s+(?:candidate|option|answer|choice|contender)"
    r"|\s+(?:is|seems|looks|would\s+be)\s+(?:also|equally)\s+(?:plausible|possible|correct|right|valid|likely|reasonable|acceptable|defensible|true)|\s+(?:is|(?:could|might|may)\s+(?:also\s+)?be)\s+(?:plausible|possible|correct|right|valid|true)\s+(?:too|as\s+well))\b"
    r"|\s*(?:选项|项)?\s*也(?:是)?(?:正确(?!率|与否)|对(?:的)?(?=$|[\s,.;!?，。；！？、)）】\]])|可以(?=$|[\s,.;!?，。；！？、)）】\]])|有可能正确|可能正确))"
)

# After a negated letter, the letter stated instead: "not B; it is C", "不是B，而是C".
_INSTEAD: Final = (
    r"[ \t]*[,;:.，；：。—–-]*[ \t]*(?:"
    r"(?i:(?:but|rather|instead)(?:[ \t]*,?[ \t]*(?:rather|instead))?[ \t]*,?[ \t]*"
    r"(?:it(?:'s|\s+is|\s+must\s+be|\s+should\s+be|\s+would\s+be)\s+)?)"
    r"|(?i:it(?:'s|\s+is|\s+must\s+be|\s+should\s+be|\s+would\s+be)\s+)"
    r"|(?:而|但)?(?:应该|应当|应)?(?:是|为|选)"
    r")"
)

# A letter token: optional "option"/"选项", optional opening bracket or quote, letters, close.
_TOKEN: Final = (
    r"[ \t]*(?:\n[ \t]*){0,2}(?:(?i:either|both)\s+)?(?:(?i:option|choice|letter)\s+|选项\s*)?"
    r"(?P<open>[(\[{<【\"']?)[ \t]*(?P<letters>[A-Za-z]+)(?:[ \t]*(?P<close>[)\]}>】\"']))?"
)
_PAIRS: Final = {"(": ")", "[": "]", "{": "}", "<": ">", "【": "】", '"': '"', "'": "'"}
_LOWER_FOLLOW: Final = r"[ \t]*(?:$|\n|[.,;:!?。，；：！？、)\]}])"
_PRONOUN_FOLLOW: Final = r"\s+[a-z]"
_LIST_FOLLOW: Final = r"[ \t]*(?:$|\n|[.,;:!?。，；：！？、/)\]}]|(?i:and|or)\b|和|或|与|及)"
_NEGATION: Final = (
    r"[ \t]*[,;(，；（]?[ \t]*(?:(?i:(?:but|and)\s+)?(?i:not|non|nicht|rather\s+than|instead\s+of)\b|而不是|而非|不是|并非)"
)
_CONJUNCTION: Final = (
    r"[ \t]*(?:(?i:and/or|or|and|as\s+well\s+as|plus)\b|&|\+|和|或者?|与|及|以及|跟"
    # an alternative after a comma or in brackets: "B, or D", "B (or D)", "B，或者D", "B（或D）"
    r"|[,，(（][ \t]*(?:(?i:or|oder|ou|o|oppure)\b|或者?))"
)
_COMMA: Final = r"[ \t]*[,/、，]"

# A letter stated before its marker: "B is the correct answer", "B是正确答案".
_BEFORE_MARKERS: Final = (
    r"(?i:\s+is\s+(?:the\s+)?(?:(?:correct|right|best|final|only\s+correct)\s+)?(?:answer|option|choice)\b)",
    r"\s*(?:选项|项)?\s*(?:是|为)\s*(?:正确|最佳|最终|标准)?的?\s*(?:答案|选项)",
)
_BEFORE_LETTER: Final = (
    r"(?<![A-Za-z0-9])(?:(?i:option|choice)\s+)?(?P<open>[(\[【\"']?)(?P<letter>[A-Z])(?P<close>[)\]】\"']?)"
)
_WEAK: Final = (
    r"(?i:\b(?:option|choice)\s+)(?P<open>[(\[【\"']?)(?P<letter>[A-Za-z])(?P<close>[)\]】\"']?)(?i:\s+is\s+(?:the\s+)?(?:correct|right)\b)",
    r"(?:(?m:^)[ \t#>-]*|(?<=[.!?]\s)|(?i:\b(?:so|therefore|thus|hence|then|because|since|only)\b,?\s+))(?P<open>[(\[【\"']?)(?P<letter>[A-Z])(?P<close>[)\]】\"']?)(?i:\s+is\s+(?:the\s+)?(?:only\s+)?(?:correct|right|valid|true)\b)",
    r"(?:选项\s*(?P<open>[(\[【\"']?)(?P<letter>[A-Za-z])(?P<close>[)\]】\"']?)|(?<![A-Za-z0-9])(?P<open2>[(\[【\"']?)(?P<letter2>[A-Z])(?P<close2>[)\]】\"']?)\s*(?:选项|项)?)\s*(?:是|为)?\s*(?:正确(?!率|与否)|对(?:的)?(?=$|[\s,.;!?，。；！？、]))",
)
_WEAK_MARKERS: Final = (r"正确的(?:一项|选项|是)?\s*(?:是|为)\s*:?",)

_START: Final = (
    r"\A[\s#>\"'-]*(?:(?P<open>[(\[【])[ \t]*(?P<b>[A-Z])[ \t]*[)\]】]|(?P<l>[A-Z])(?=[.:)、。\]]|[ \t]*(?:$|\n)|[ \t]+-[ \t]"
    # "B不是A", "B, not A": a leading letter set against a negated one
    r"|[ \t]*[,，]?[ \t]*(?:不是|而不是|而非|并非|(?i:not|rather\s+than|instead\s+of)\b)[ \t]*[(\[【]?[A-Z](?![A-Za-z])))"
)
_LONE: Final = r"\A[\s\"'(\[【{<:]*(?P<l>[A-Za-z])[\s\"')\]】}>.。,，!！:]*\Z"

_STATEMENT_END: Final = r"[ \t]*(?:$|\n|[.,;:!?。，；：！？)\]】(（]|(?i:because|since|as)\b|因为|由于)"
#: After a marker's letter, a verb that describes the option: "Answer: Option A says x, option B
#: says y; B is right", "答案：选项A说的是x" — the marker opens an analysis, not the answer.
_DESCRIBED: Final = (
    r"[ \t]*(?:(?i:(?:says|states|claims|suggests|describes|refers\s+to|argues|assumes|asserts|proposes|mentions)\b)"
    r"|说的是|说|表示|认为|指的是|描述|提到)"
)
_NEGATED_START: Final = r"[ \t]*(?:(?i:not|n't)\b|不是|并非)"
_CLAUSE_END: Final = r"[,，;；.!?。！？:：](?=\s|$)|[。！？；，]|\n"
_NEGATED_BEFORE: Final = r"(?:\bnot|\brather\s+than|\binstead\s+of|而不是|而非|不是|并非)\s*$"
_TRAILING: Final = ".,;:!?。，；：！？、"


#: The letter-before-marker patterns, built once (a string built per call is hashed afresh by
#: every lookup keyed by it).
_BEFORE_PATTERNS: Final = tuple(_BEFORE_LETTER + suffix for suffix in _BEFORE_MARKERS)

def _finditer(pattern: str, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[regex.Match[str]]:
    """Every match of ``pattern``: the plain scan (no pre-checks)."""
    return compile_pattern(pattern).finditer(text, pos, endpos)


@dataclass(frozen=True)
class _Statement:
    """Letters one statement names (a set of indices into A–Z), where it starts."""

    at: int
    letters: frozenset[int]


# --------------------------------------------------------------------------- the parser


def parse_choice(text: str, params: ChoiceParams, ctx: ParseContext) -> Parsed:
    """The upper-case option letter the output states, or ``None`` with a status.

    Bound: O(n): each statement pattern scans the text once; every statement reads a bounded window after its marker.

    >>> ctx = ParseContext(options=4)
    >>> parse_choice("Let's think. ... The answer is (B).", ChoiceParams(), ctx).answer
    'B'
    >>> parse_choice("最终答案是Ｄ", ChoiceParams(), ctx).answer
    'D'
    >>> parse_choice("The answer is D, not A.", ChoiceParams(), ctx).answer
    'D'
    >>> parse_choice("The answer is A or B.", ChoiceParams(), ctx).status
    'contradictory'
    >>> parse_choice("The answer is (F).", ChoiceParams(), ctx).status
    'out_of_range'
    >>> parse_choice("I am not sure.", ChoiceParams(), ctx).status
    'no_answer'
    >>> parse_choice("It's not A since it is too slow, therefore I think it's B", ChoiceParams(), ctx).answer
    'B'
    >>> parse_choice("ANSWER: A\\nWait, that is wrong.\\nANSWER: B", ChoiceParams(), ctx).answer
    'B'
    >>> parse_choice("I think it's (B), but (C) is also plausible.", ChoiceParams(), ctx).status
    'contradictory'
    >>> opts = ParseContext(options=("Guilty", "Guilty of Romance", "Cold Fish"))
    >>> parse_choice("The answer is Guilty of Romance.", ChoiceParams(), opts).answer
    'B'
    """
    count, texts = option_domain(ctx.options, params.default_options)
    timeout = ctx.timeout
    prepared = prepare_text(text, timeout=timeout)
    norm_options = tuple(normalize_option(o, timeout=timeout) for o in texts) if texts else ()

    readers: tuple[Callable[[], list[_Statement]], ...] = (
        lambda: _marker_statements(prepared, count, norm_options, timeout),
        lambda: _led_statements(prepared, _CONCLUSIONS, count, norm_options, timeout),
        lambda: _led_statements(prepared, _HEDGES, count, norm_options, timeout),
        lambda: _weak_statements(prepared, count, norm_options, timeout),
        lambda: _whole_statements(prepared, count, norm_options, timeout),
    )
    read: dict[int, list[_Statement]] = {}

    def tier(index: int) -> list[_Statement]:  # each tier read once, and only when needed
        if index not in read:
            read[index] = readers[index]()
        return read[index]

    for index in range(len(readers)):
        statements = tier(index)
        if statements:
            after = _after_retraction(prepared, statements, tier, len(readers), timeout)
            chosen = _unretracted(prepared, after, timeout)
            if params.conflict == "contradictory":  # a second answer offered beside the first
                also = _led_statements(prepared, _ALSO_BEFORE, count, norm_options, timeout, strict=False)
                also += _also_after(prepared, timeout)
                taken = {c.at for c in chosen}
                chosen += [a for a in also if a.at > chosen[0].at and a.at not in taken]
                if index == 2 and any(_offered_as_alternative(prepared, c.at) for c in chosen):  # fixed since redteam4 (wrong-ok)
                    return Parsed(
                        None,
                        st.CONTRADICTORY,
                        "a hedged alternative ('or maybe D') offered to an answer stated before it",
                    )
            return _decide(sorted(chosen, key=lambda c: c.at), count, params.conflict)
    return Parsed(
        None,
        st.NO_ANSWER,
        "no stated answer: no answer marker, leading letter, lone letter or option text",
    )


def option_domain(options: Sequence[str] | int | None, default: int | None) -> tuple[int, tuple[str, ...]]:
    """The option count and the option texts (empty when only a count is known).

    >>> option_domain(("yes", "no"), 26)
    (2, ('yes', 'no'))
    >>> option_domain(None, 26)
    (26, ())
    >>> option_domain(27, 26)
    Traceback (most recent call last):
    ...
    ValueError: the option count must be 2 to 26, got 27
    """
    if options is None:
        if default is None:
            raise ValueError("the row has no options and the choice parser has no default_options")
        return _check_count(default), ()
    if isinstance(options, bool) or not isinstance(options, (int, tuple, list)):
        raise ValueError(f"options must be a list of option texts or a count, got {options!r}")
    if isinstance(options, int):
        return _check_count(options), ()
    bad = [o for o in options if not isinstance(o, str)]
    if bad:
        raise ValueError(f"option texts must be strings, got {bad[0]!r}")
    if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
        raise ValueError(f"there must be 2 to 26 options, got {len(options)}: {tuple(options)!r}")
    return len(options), tuple(options)


def _check_count(count: int) -> int:
    if not MIN_OPTIONS <= count <= MAX_OPTIONS:
        raise ValueError(f"the option count must be 2 to 26, got {count!r}")
    return count


def prepare_text(text: str, *, timeout: float) -> str:
    """Drop invisible format characters (zero-width spaces and joiners, bidi marks, BOM: Unicode
    category Cf), fold compatibility forms (NFKC), unify quotes, unwrap ``\\text{}``, drop
    markdown marks.

    >>> prepare_text("The answer is \\u200b\\u200fB", timeout=0.5)
    'The answer is B'

    >>> prepare_text("答案：**Ｂ**", timeout=0.5)
    '答案:B'
    >>> prepare_text("$\\\\boxed{\\\\text{C}}$", timeout=0.5)
    '\\\\boxed{C}'
    """
    visible = text
    if not text.isascii() and _MAYBE_FORMAT_CHAR.search(text) is not None:  # rare: the slow exact test
        visible = "".join(c for c in text if unicodedata.category(c) != "Cf")
    folded = _QUOTE_TABLE.translate(unicodedata.normalize("NFKC", visible))
    unwrapped = compile_pattern(_LATEX_TEXT).sub(r"\1", folded) if "\\" in folded else folded
    return compile_pattern(_DECORATION).sub("", unwrapped) if _DECORATION_CHARS.search(unwrapped) else unwrapped


def normalize_option(text: str, *, timeout: float) -> str:
    """An option text (or a stated text) as compared: casefolded, no quotes, one space, no end stop.

    >>> normalize_option('  “Guilty of  Romance.” ', timeout=0.5)
    'guilty of romance'
    """
    prepared = prepare_text(text, timeout=timeout).replace('"', "").replace("'", "")
    collapsed = " ".join(prepared.casefold().split())
    return collapsed.rstrip(_TRAILING + " ").strip("()[]【】 ")


# --------------------------------------------------------------------------- tiers


def _marker_statements(
    text: str, count: int, options: tuple[str, ...], timeout: float
) -> list[_Statement]:
    found: dict[int, _Statement] = {}
    for pattern in _MARKERS:
        for marker in _finditer(pattern, text):
            statement = _statement_at(text, marker.end(), count, options, timeout)
            if statement is not None:
                found.setdefault(statement.at, statement)
    for pattern in _BEFORE_PATTERNS:
        for match in _finditer(pattern, text):
            if _brackets_pair(match["open"], match["close"]):
                at = match.start("letter")
                found.setdefault(at, _Statement(at, frozenset({LETTERS.index(match["letter"])})))
    return [found[at] for at in sorted(found)]


def _led_statements(
    text: str, leads: tuple[str, ...], count: int, options: tuple[str, ...], timeout: float, *, strict: bool = True
) -> list[_Statement]:
    """Statements after a conclusion or a hedge: the letter must end its clause (``strict``)."""
    found: dict[int, _Statement] = {}
    for pattern in leads:
        for lead in _finditer(pattern, text):
            token = _read_token(text, lead.end(), count, timeout, strict_follow=True)
            if token is None:
                hit = _anchored_option(text, lead.end(), options, timeout) if options else None
                if hit is not None and compile_pattern(_STATEMENT_END).match(text, hit[2]):
                    found.setdefault(hit[1], _Statement(hit[1], frozenset({hit[0]})))  # "Therefore, Light Blue."
                continue
            letters, at, end = token
            more, end = _continuation(text, end, count, timeout)
            if strict and compile_pattern(_STATEMENT_END).match(text, end) is None:
                continue  # "Therefore, A is wrong": the letter is the subject of a clause
            found.setdefault(at, _Statement(at, frozenset(letters | more)))
    return [found[at] for at in sorted(found)]


def _after_retraction(
    text: str, statements: list[_Statement], tier: Callable[[int], list[_Statement]], tiers: int, timeout: float
) -> list[_Statement]:
    """The winning tier's ``statements``, unless a retraction follows the last of them and a
    statement of any tier follows the retraction ("The answer is A... no wait, it's B"): then
    the statements after the retraction, from the best tier that has some."""
    last = statements[-1].at
    mark = None
    for found in _finditer(_RETRACTION, text, last):
        mark = found.start()
    if mark is None:
        return statements
    for index in range(tiers):
        later = [s for s in tier(index) if s.at > mark]
        if later:
            return later
    return statements + [_Statement(s.at, s.letters) for s in bare_after_retraction(text, mark)]  # fixed since 1c117cc


def _also_after(text: str, timeout: float) -> list[_Statement]:
    """Letters offered as a second answer: "(C) is also plausible", "C也正确"."""
    found = []
    for match in _finditer(_ALSO_AFTER, text):
        if _brackets_pair(match["open"] or "", match["close"] or ""):
            found.append(_Statement(match.start("letter"), frozenset({LETTERS.index(match["letter"])})))
    return found


def _unretracted(text: str, statements: list[_Statement], timeout: float) -> list[_Statement]:
    """``statements`` without those taken back: a statement followed by a retraction ("Wait,
    that is wrong.", "等等，不对") that a later statement follows is dropped."""
    if len(statements) < 2:
        return statements
    last = statements[-1].at
    mark = None
    for found in _finditer(_RETRACTION, text, statements[0].at, last):
        mark = found.start()  # the last retraction before the last statement
    if mark is None:
        return statements
    return [s for s in statements if s.at > mark]


def _weak_statements(text: str, count: int, options: tuple[str, ...], timeout: float) -> list[_Statement]:
    found: dict[int, _Statement] = {}
    for pattern in _WEAK:
        for match in _finditer(pattern, text):
            groups = match.groupdict()
            key = "letter" if groups.get("letter") else "letter2"
            suffix = "" if key == "letter" else "2"
            if not _brackets_pair(groups.get("open" + suffix) or "", groups.get("close" + suffix) or ""):
                continue
            at = match.start(key)
            found.setdefault(at, _Statement(at, frozenset({LETTERS.index(match[key].upper())})))
    for pattern in _WEAK_MARKERS:
        for marker in _finditer(pattern, text):
            statement = _statement_at(text, marker.end(), count, options, timeout)
            if statement is not None:
                found.setdefault(statement.at, statement)
    return [found[at] for at in sorted(found)]


def _whole_statements(text: str, count: int, options: tuple[str, ...], timeout: float) -> list[_Statement]:
    if options:  # the whole output is an option's text (also one spelled in letters: "AB")
        whole = normalize_option(text, timeout=timeout)
        hits = frozenset(i for i, o in enumerate(options) if o and o == whole)
        if hits and not (len(whole) == 1 and compile_pattern(r"[\s(\[【{<]*[A-Za-z][)\]】}>]").match(text)):
            lone_letter = compile_pattern(_LONE).match(text)
            if lone_letter is not None:  # "A" is a letter and an option's text
                hits |= {LETTERS.index(lone_letter["l"].upper())}
            return [_Statement(0, hits)]
    lone = compile_pattern(_LONE).match(text)
    if lone is not None:
        return [_Statement(lone.start("l"), frozenset({LETTERS.index(lone["l"].upper())}))]
    start = compile_pattern(_START).match(text)
    if start is not None:
        group = "b" if start["b"] else "l"
        if _lists_next_option(text, start[group], start.end()):  # fixed since 1c117cc (wrong-ok)
            return []
        at = start.start(group)
        letters: frozenset[int] | None = frozenset({LETTERS.index(start[group])})
        if options:
            letters = _with_texts(text, frozenset({LETTERS.index(start[group])}), at, start.end(), count, options, timeout)
        if letters is not None:
            letters |= _continuation(text, start.end(), count, timeout)[0]
            return [_Statement(at, letters)]
    run = compile_pattern(r"\A[\s\"'(\[]*(?P<run>[A-Z]{2,26})[\s\"')\].。]*\Z").match(text)
    if run is not None and (letters_run := _letter_run(run["run"], count)):
        return [_Statement(run.start("run"), letters_run)]
    return []


#: Before a hedge's letter: "… or maybe", "…, or perhaps it's", "… (maybe": the hedge offers an
#: alternative to something the output put before it ("B... or maybe D", "Berlin, or maybe
#: Madrid", "A (maybe B)").
_OR_HEDGE: Final = (
    r"(?i:(?:[^\s.!?。！？]|\.\.\.|…)[ \t]*(?:[,;]?[ \t]*\bor[ \t]+|[(\[,;][ \t]*)(?:maybe|perhaps|possibly)[ \t]*,?[ \t]*"
    r"(?:(?:it(?:'s|\s+is)|the\s+answer\s+is)\s+)?(?:(?:option|choice)\s+)?[(\[【\"']?[ \t]*)\Z"
)


def _offered_as_alternative(text: str, at: int) -> bool:
    """Whether the hedged letter at ``at`` follows ``or maybe`` after something else on its line.

    >>> _offered_as_alternative("B... or maybe D", 14), _offered_as_alternative("Or maybe D.", 9)
    (True, False)
    """
    return compile_pattern(_OR_HEDGE).search(text[max(0, at - 80) : at]) is not None


def _restates_list(text: str, index: int, end: int, *, lower: bool = False) -> bool:
    r"""Whether the option letter that ends at ``end`` labels the first of an option list: it is
    a label (``A)``, ``(A)``, ``A.``, ``A:``) and, before any sentence ends, the next option is
    labelled the same way on the same line or at the start of the next one.

    >>> _restates_list("Answer: A) True B) False", 0, 10), _restates_list("Answer:\nA) 12\nB) 42", 0, 10)
    (True, True)
    >>> _restates_list("Answer: (A). (B) is wrong.", 0, 11), _restates_list("Answer: A) True", 0, 10)
    (False, False)
    """
    if index + 1 >= len(LETTERS):
        return False
    own = compile_pattern(r"(?<=[)\]】])|[ \t]*[.:)\]](?=[ \t])").match(text, end)
    if own is None:
        return False
    label = regex.escape(LETTERS[index + 1].lower() if lower else LETTERS[index + 1])
    nxt = compile_pattern(
        rf"(?P<between>[^\n.;!?。；！？]*?)(?:[ \t]|\n[ \t]*)(?:[(\[【][ \t]*{label}[ \t]*[)\]】]|{label}[.:)\]])"
        rf"(?=[ \t])(?![ \t]+{_REASONING_WORD})"
    ).match(text, own.end())
    return nxt is not None and compile_pattern(_REASONING_WORD).search(nxt["between"]) is None


#: A word that makes the text between two labels reasoning about them, not an option list:
#: "(A) because (B) fails", "A. B. is wrong".
_REASONING_WORD: Final = (
    r"(?i:\b(?:because|since|as|but|and|or|while|whereas|than|not|is|are|was|were|fails?|so|then|if|unlike|over|vs)\b)"
)


def _decide(statements: list[_Statement], count: int, conflict: str) -> Parsed:
    if conflict == "last":
        letters = statements[-1].letters
    else:
        letters = frozenset().union(*(s.letters for s in statements))
    if len(letters) > 1:
        named = ", ".join(LETTERS[i] for i in sorted(letters))
        return Parsed(None, st.CONTRADICTORY, f"the output states different options: {named}")
    (index,) = letters
    if index >= count:
        return Parsed(
            None,
            st.OUT_OF_RANGE,
            f"letter {LETTERS[index]} is past the last option {LETTERS[count - 1]} ({count} options)",
        )
    return Parsed(LETTERS[index], st.OK)


# --------------------------------------------------------------------------- one statement


def _statement_at(
    text: str, pos: int, count: int, options: tuple[str, ...], timeout: float
) -> _Statement | None:
    """The statement that starts at ``pos`` (just after a marker): letters, or an option text."""
    negated = compile_pattern(_NEGATED_START).match(text, pos)
    if negated is not None:
        if options:  # an option whose text starts with "not": "Answer: Not guilty"
            by_text = _text_statement(text, pos, options, timeout, anchored=True)
            if by_text is not None:
                return by_text
        return _instead_statement(text, negated.end(), count, options, timeout)
    token = _read_token(text, pos, count, timeout, strict_follow=False)
    if token is not None:
        letters, at, end = token
        if options:  # a multi-word option that reads like letters: "Both A and B", "A cat"
            hit = _anchored_option(text, pos, options, timeout, multiword=True)
            if hit is not None and hit[2] > end:
                return _Statement(hit[1], frozenset({hit[0]}))
            read = _with_texts(text, letters, at, end, count, options, timeout)
            if read is None:  # the "letter" is the first word of an option's text
                return _text_statement(text, at, options, timeout, anchored=True)
            letters = read
        more, end = _continuation(text, end, count, timeout)
        if compile_pattern(_JUDGED_WRONG).match(text, end):  # fixed since 1c117cc (wrong-ok)
            return None
        if compile_pattern(_DESCRIBED).match(text, end):
            return None  # "Answer: Option A says x, option B says y": the option described, not chosen
        if not more and len(letters) == 1 and _restates_list(text, min(letters), end, lower=text[at].islower()):
            return None  # fixed since redteam4 (wrong-ok): "Answer: A) True B) False"
        return _Statement(at, frozenset(letters | more))
    if options:
        stated = _text_statement(text, pos, options, timeout)
        hit = _anchored_option(text, pos, options, timeout) if stated is not None else None
        if hit is not None and compile_pattern(_JUDGED_WRONG).match(text, hit[2]):
            return None  # "Answer: Paris is incorrect, it's Berlin": judged, not stated
        if stated is not None and hit is not None:  # "Paris (B)": the text and its letter must agree
            label = compile_pattern(r"[ \t]*[(\[][ \t]*(?:(?i:option|choice)[ \t]+)?(?P<letter>[A-Z])[ \t]*[)\]]").match(text, hit[2])
            if label is not None:
                return _Statement(stated.at, stated.letters | {LETTERS.index(label["letter"])})
        return stated
    return None


def _instead_statement(
    text: str, pos: int, count: int, options: tuple[str, ...], timeout: float
) -> _Statement | None:
    """After "not" at ``pos``: skip the negated letters, then the letter stated instead
    ("not B; it is C", "not A or B but D", "不是B，而是C"); None when no other is stated."""
    negated = _read_token(text, pos, count, timeout, strict_follow=False)
    if negated is None:
        return None
    end = _continuation(text, negated[2], count, timeout)[1]
    instead = compile_pattern(_INSTEAD).match(text, end)
    if instead is None or instead.end() == end:
        return None
    return _statement_at(text, instead.end(), count, options, timeout)


def _with_texts(
    text: str, letters: frozenset[int], at: int, end: int, count: int, options: tuple[str, ...], timeout: float
) -> frozenset[int] | None:
    """The letters of a token read against the option texts.

    A run that is an option's text ("AB" among blood groups) is that option; a lone letter that
    is another option's text names both (contradictory); a letter followed by an option's text
    ("(B) Paris") names that option too, so a disagreeing pair is contradictory.  ``None``:
    the letter is the first word of an option's text ("A cat"), to be read as text.
    """
    raw_match = compile_pattern(r"[A-Za-z]+").match(text, at)
    raw = raw_match[0] if raw_match is not None else ""
    named = frozenset(i for i, option in enumerate(options) if option == raw.casefold())
    if named and len(raw) > 1:
        return named
    bracketed = at > 0 and text[at - 1] in "([{<【"
    if named and not bracketed:
        return named if min(letters) >= count else letters | named
    if len(letters) != 1:
        return letters
    if compile_pattern(r"[ \t]+[A-Za-z]").match(text, end):
        by_text = _text_statement(text, at, options, timeout, anchored=True)
        if by_text is not None and len(by_text.letters) == 1:
            return None
    label = compile_pattern(r"[ \t]*(?:[-:=–—.([][ \t]*)?").match(text, end)
    start = label.end() if label is not None else end
    if start == end and start < len(text) and not text[start].isspace():
        return letters
    stated = _text_statement(text, start, options, timeout, anchored=True)
    if stated is None or stated.letters <= letters:
        return letters
    (own,) = letters
    if own < len(options) and options[own] and any(options[own].startswith(options[i]) for i in stated.letters):
        return letters  # a label cut short: "(B) Guilty" for "Guilty of Romance"
    return letters | stated.letters


def _read_token(
    text: str, pos: int, count: int, timeout: float, *, strict_follow: bool
) -> tuple[frozenset[int], int, int] | None:
    """Letters of the token at ``pos``, where they start, where the token ends; else None."""
    match = compile_pattern(_TOKEN).match(text, pos)
    if match is None:
        return None
    opening, letters, closing = match["open"], match["letters"], match["close"]
    bracketed = bool(opening) and _PAIRS.get(opening) == closing
    if opening and not bracketed:
        return None
    end = match.end()
    if end < len(text) and _is_word_char(text[end]):
        return None
    if len(letters) > 1:
        run = _letter_run(letters, count)
        return (run, match.start("letters"), end) if run else None
    if not bracketed:
        follow_end = match.end("letters")
        if letters.islower() and not compile_pattern(_LOWER_FOLLOW).match(text, follow_end):
            return None
        if letters == "I" and compile_pattern(_PRONOUN_FOLLOW).match(text, follow_end):
            return None
        if strict_follow and not compile_pattern(_LIST_FOLLOW).match(text, end):
            return None
    return frozenset({LETTERS.index(letters.upper())}), match.start("letters"), end


def _continuation(text: str, pos: int, count: int, timeout: float) -> tuple[frozenset[int], int]:
    """Further letters joined to a statement (``or B``, ``, C``, ``和D``), negated ones
    skipped; and where the last token read ends."""
    letters: set[int] = set()
    while True:
        negation = compile_pattern(_NEGATION).match(text, pos)
        if negation is not None:
            token = _read_token(text, negation.end(), count, timeout, strict_follow=False)
            if token is None:
                break
            pos = token[2]
            continue
        joined = compile_pattern(_CONJUNCTION).match(text, pos)
        strict = False
        if joined is None:
            joined = compile_pattern(_COMMA).match(text, pos)
            strict = joined is None or "/" not in joined[0]  # "B/D depending on …" names both
        if joined is None:
            break
        token = _read_token(text, joined.end(), count, timeout, strict_follow=strict)
        if token is None:
            break
        letters |= token[0]
        pos = token[2]
    return frozenset(letters), pos


def _text_statement(
    text: str, pos: int, options: tuple[str, ...], timeout: float, *, anchored: bool = False
) -> _Statement | None:
    """The option whose text the clause at ``pos`` states, or None.

    Options found in the clause that lie inside a longer found option are dropped, so the
    longest option wins; two options side by side are both stated (contradictory).  With
    ``anchored`` only options that start the clause count.
    """
    # Only the rest of the line, and no further than the longest option could reach.
    horizon = pos + 2 * max(len(o) for o in options) + 200
    line_end = text.find("\n", pos, horizon)
    line = text[pos : min(len(text), horizon) if line_end < 0 else line_end]
    lead = len(line) - len(line.lstrip())
    folded = _fold_span(line[lead:])
    cut = compile_pattern(_CLAUSE_END).search(folded)
    clause_end = len(folded) if cut is None else cut.start()
    spans: dict[int, tuple[int, int]] = {}
    for index, option in enumerate(options):
        where = _stated_in(folded, option, clause_end, timeout) if option else None
        if where is not None and (where[0] == 0 or not anchored):
            spans[index] = where
    kept = {
        i
        for i, (s, e) in spans.items()
        if not any(j != i and s2 <= s and e <= e2 and e2 - s2 > e - s for j, (s2, e2) in spans.items())
    }
    if not kept:
        return None
    return _Statement(pos + lead, frozenset(kept))


@lru_cache(maxsize=4096)
def _words_pattern(option: str, gap: str) -> str:
    """A pattern for the words of ``option`` separated by ``gap`` (cached: options repeat)."""
    return gap.join(regex.escape(word) for word in option.split(" "))


def _anchored_option(
    text: str, pos: int, options: tuple[str, ...], timeout: float, *, multiword: bool = False
) -> tuple[int, int, int] | None:
    """The longest option whose text starts at ``pos`` (after blanks and a quote) as whole
    words: (index, start, end), or None.  ``multiword``: only options of several words."""
    start = pos
    while start < len(text) and text[start] in " \t\"'":
        start += 1
    best: tuple[int, int, int] | None = None
    for index, option in enumerate(options):
        if not option or (multiword and " " not in option):
            continue
        words = _words_pattern(option, r"[ \t]+")
        match = compile_pattern(rf"(?i:{words})(?![A-Za-z0-9])").match(text, start)
        if match is not None and (best is None or match.end() > best[2]):
            best = (index, start, match.end())
    if best is not None:
        end = best[2]
        while end < len(text) and text[end] in "\"'":
            end += 1
        best = (best[0], best[1], end)
    return best


def _fold_span(span: str) -> str:
    """Casefold (one character stays one, so clause positions hold) and drop quotes."""
    unquoted = span.translate(_DROP_QUOTES)
    folded = unquoted.casefold()
    if len(folded) == len(unquoted):
        return folded
    return "".join(c.casefold() if len(c.casefold()) == 1 else c.lower() for c in unquoted)


def _stated_in(folded: str, option: str, clause_end: int, timeout: float) -> tuple[int, int] | None:
    """Where ``option`` first occurs as whole words in the clause, not negated; else None."""
    pattern = compile_pattern(_words_pattern(option, r"\s+"))
    for match in pattern.finditer(folded):
        start, end = match.span()
        if start >= clause_end:
            return None
        if start > 0 and _is_word_char(folded[start - 1]) and _is_word_char(folded[start]):
            continue
        if end < len(folded) and _is_word_char(folded[end]) and _is_word_char(folded[end - 1]):
            continue
        if compile_pattern(_NEGATED_BEFORE).search(folded, 0, start):
            continue
        return start, end
    return None


def _letter_run(run: str, count: int) -> frozenset[int]:
    """Letters of an upper-case run such as ``AB`` or ``ACD``: distinct, ascending, in the
    domain; otherwise (``NO``, ``DNA``) the run is a word and states no letters."""
    if not run.isupper() or not run.isascii():
        return frozenset()
    indices = [LETTERS.index(c) for c in run]
    if indices != sorted(set(indices)) or indices[-1] >= count:
        return frozenset()
    return frozenset(indices)


def _brackets_pair(opening: str, closing: str) -> bool:
    return not opening or _PAIRS.get(opening) == closing


def _is_word_char(char: str) -> bool:
    return char.isascii() and char.isalnum()
