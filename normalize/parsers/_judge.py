"""The strict ``judge`` parser: the verdict an LLM judge *states*, or a status — never a default.

A verdict is one of two kinds:

* a **preference** between two answers: ``"A"``, ``"B"`` or ``"tie"``;
* a **rating**: a number on the scale ``min_rating``..``max_rating`` (a row's ``options`` given
  as an int K sets the scale 1..K), returned as an ``int`` when integral, else a ``float``.

What is read, in tiers; the first tier that states anything decides, and within it every
statement must agree:

1. **Bracketed**: Prometheus ``[RESULT] 4`` / ``[RESULT] B``, AlpacaEval ranking lists
   (``[{'model': 'model_2', 'rank': 1}, …]``), and the MT-Bench formats: ``[[A]]``, ``[[B]]``, ``[[C]]`` (tie, also ``[[tie]]``),
   ``Rating: [[7]]`` / ``[[7.5]]`` / ``评分：[[8]]``, and a pair of scores ``[[8, 6]]``, which
   states a preference (the higher score wins; equal scores are a tie); Arena-Hard
   ``[[A>>B]]``, ``[[A>B]]``, ``[[A=B]]``, ``[[B>A]]``, ``[[B>>A]]`` (strength is not kept).
2. **Markers**: ``Rating: 7``, ``Rating: [5]``, ``Score: 8/10``, ``Overall: 7/10``, ``评分：8分``,
   ``打分：8``, ``得分为 4/5``, ``我给它打8分``; a rating with its scale: ``I rate it 8 out of 10``,
   ``deserves a 7/10``, ``8 points out of a possible 10`` (opening a line), ``a 6 on a scale of 1
   to 10``, ``Out of 10, I give it 8``, ``满分10分，得8分``, ``评分：满分10分，得8分``, ``10分中的8分``,
   ``总分10分，8分``, ``10分制下得8分``, ``8分（满分10分）``, ``8/10分``; ``Final verdict: A``, ``Better response: Assistant B``,
   ``Winner: tie``, ``Assistant A is better`` (not ``… better at …``), ``It's a tie``, ``Both
   responses are equally good``; Chinese ``更好的回答是：A``, ``回答A更好``, ``最终判决：平局``,
   ``两者一样好``.
3. **The whole judgment is the verdict** (AlpacaEval): ``m`` (the first output) or ``M`` (the
   second), ``Output (a)`` / ``Output (b)``, a lone ``A``/``B``, Chatbot Arena's ``model_a`` /
   ``model_b`` / ``tie`` / ``tie (bothbad)``, or a lone number (``7``, ``7/10``) — also as the
   last line after reasoning.

Full-width forms (``［［Ａ］］``, ``评分：８``) are folded with NFKC and markdown emphasis is
dropped inside the parser, so it does not depend on the chain.  Two different verdicts in the
deciding tier (``[[A]]`` … ``[[B]]``, a judge that echoes the format line, a preference and a
rating together) are ``contradictory``; nothing stated is ``no_answer``; a rating outside the
scale, or written on another scale (``4/5``, ``满分5分，得4分``, ``on a scale of 0 to 10`` where
the scale is 1..10), is ``out_of_range``.  The rating is X and the stated scale Y must be the
task's; a number that states a scale (``满分10分``, ``out of 10``, ``10分制``, ``scale of 1 to
10``) is never read as the rating, so ``满分10分`` alone is ``no_answer``.  A count in prose
(``covers 8 out of 10 key points``) is no rating.

Every pattern here is built in and linear (no nested quantifiers over the same characters), so
it runs without a wall-clock timeout: a verdict is the same on an idle and on a loaded machine
(the row's CPU-time budget still bounds the parser).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Final, Literal

import regex
from pydantic import model_validator

from normalize import status as st
from normalize._regex import compile_pattern
from normalize.registry import Params, ParseContext, Parsed, parser

Verdict = str | int | float


class JudgeParams(Params):
    """``kind``: ``any`` (a preference or a rating), ``preference`` or ``rating`` — a verdict of
    the other kind is then ``no_answer``.  ``min_rating``/``max_rating``: the rating scale
    (a row's int ``options`` K overrides it with 1..K)."""

    kind: Literal["any", "preference", "rating"] = "any"
    min_rating: int = 1
    max_rating: int = 10

    @model_validator(mode="after")
    def _check_scale(self) -> JudgeParams:
        if self.min_rating >= self.max_rating:
            raise ValueError(f"min_rating ({self.min_rating}) must be below max_rating ({self.max_rating})")
        return self


_NUM: Final = r"(?P<num>[0-9]{1,3}(?:\.[0-9]+)?)"
_DEN: Final = r"(?<![0-9.])(?P<den>[0-9]{1,3})(?![0-9]|\.[0-9])"
_POINTS: Final = r"(?:\s*(?:points?|pts\.?|stars?))?"
#: ``/``, ``out of``, ``out of a possible``, ``out of a maximum of``, ``of a possible``.
_OUT_OF: Final = (r"(?:/|out\s+of|of\s+a\s+possible)\s*(?:a\s+(?:possible|maximum(?:\s+of)?|total(?:\s+of)?)\s+"
                  r"|(?:the\s+)?(?:possible|maximum|max)\s+(?:of\s+)?)?")
#: The scale stated right after a rating: ``/10``, ``out of 10``, ``points out of a possible 10``,
#: ``(on a scale of 1 to 10)``, ``（满分10分）``, ``分满分10``; ``den`` (and ``lo``) name it.
_SCALE_AFTER: Final = (
    r"(?:" + _POINTS + r"\s*" + _OUT_OF + _DEN + _POINTS
    + r"|\s*[(（]?\s*(?:on\s+a|in\s+a|using\s+a)\s+(?:scale|range)\s+(?:of|from)\s+(?P<lo>[0-9]{1,3})\s*(?:to|-|–|—)\s*"
    + _DEN + r"\s*[)）]?"
    + r"|\s*分?\s*[（(]\s*(?:满分|总分|满分为|满分是|共)\s*" + _DEN + r"\s*分?\s*[)）]"
    + r"|\s*分?满分\s*" + _DEN + r")"
)
_SCALE: Final = r"(?:" + _SCALE_AFTER + r")?"

# Tier 1: MT-Bench brackets.
_BRACKET_PAIR: Final = compile_pattern(r"\[\[\s*(?P<a>[0-9]{1,3}(?:\.[0-9]+)?)\s*,\s*(?P<b>[0-9]{1,3}(?:\.[0-9]+)?)\s*\]\]")
_BRACKET_PREF: Final = compile_pattern(r"\[\[\s*(?P<pref>A|B|C|tie)\s*\]\]", regex.IGNORECASE)
_BRACKET_ARENA: Final = compile_pattern(r"\[\[\s*(?P<x>A|B)\s*(?P<op>>>|>|=|<<|<)\s*(?P<y>A|B)\s*\]\]")
_RESULT: Final = compile_pattern(r"\[RESULT\]\s*(?:(?P<pref>A|B)\b|" + _NUM + r"(?:\s*/\s*(?P<den>[0-9]{1,3}))?(?![0-9.]*[0-9]))")
_ALPACA_RANK: Final = compile_pattern(
    r"""['"]model['"]\s*:\s*['"]model_(?P<which>[12])['"]\s*,\s*['"]rank['"]\s*:\s*1(?![0-9])""")
_BRACKET_RATING: Final = compile_pattern(r"\[\[\s*" + _NUM + r"\s*(?:/\s*(?P<den>[0-9]{1,3}))?\s*\]\]")

# Tier 2: markers.
_END: Final = r"(?![0-9.]*[0-9])"
#: ``Rating: 7``, ``Score is 8/10``, ``评分：8分``: a marker and a separator, then the number.
_RATING_MARKER: Final = compile_pattern(
    r"(?:\b(?:overall\s+)?(?:rating|score)\s*(?:is|of|:|=)\s*\[?\s*|\boverall\s*[:=]\s*|(?:评分|打分|得分|分数|评级)\s*(?:是|为)?\s*[:：]?\s*\[?\s*)"
    + _NUM + r"\s*\]?\s*分?" + _SCALE + _END,
    regex.IGNORECASE,
)
#: ``Score 8/10``, ``rating 4 out of 5``, ``I rate it 8 out of 10``, ``deserves a 7/10``, ``I give
#: this response 6 on a scale of 1 to 10``: a word of rating, then the number with its scale,
#: which must be stated (``I give two examples`` is no rating).
_RATING_SCALED: Final = compile_pattern(
    r"\b(?:overall\s+)?(?:rat(?:e|es|ed|ing)|scor(?:e|es|ed|ing)|grade[sd]?|give[sn]?|gave|giving|award(?:s|ed)?|"
    r"assign(?:s|ed)?|deserv(?:e|es|ed)|earn(?:s|ed)?|gets?|got|receiv(?:e|es|ed)|merits?)\s+"
    r"(?:(?:it|this|that|them|the|its|my|an?|overall|final|response|answer|output|assistant(?:'s)?|submission|"
    r"essay|summary|reply|of|score|rating|with|solid|strong|high|low|fair)\s+){0,5}"
    + _NUM + _SCALE_AFTER + _END,
    regex.IGNORECASE,
)
#: ``8 points out of a possible 10``, ``7 out of 10`` opening a line: the number, ``out of``, the scale.
_RATING_LINE_START: Final = compile_pattern(
    r"(?m)^[ \t]*(?:[-*>#]+[ \t]*)?" + _NUM + _POINTS + r"\s*(?:out\s+of|of\s+a\s+possible)\s*"
    r"(?:a\s+(?:possible|maximum(?:\s+of)?|total(?:\s+of)?)\s+)?" + _DEN + _POINTS + _END,
    regex.IGNORECASE,
)
#: ``Out of 10, I give it 8``: the scale first.
_RATING_SCALE_FIRST: Final = compile_pattern(
    r"\bout\s+of\s+" + _DEN + r"\s*[,:]?\s*(?:I\s+(?:would\s+|'d\s+|will\s+)?)?(?:give|rate|award|score)\s+"
    r"(?:(?:it|this|that|the|response|answer|output|an?)\s+){0,3}" + _NUM + _END,
    regex.IGNORECASE,
)
#: ``我给它打8分``, ``评为7分``: a verb of scoring, the number and 分.
_ZH_RATING_VERB: Final = compile_pattern(r"(?:打|给出?|评为?)\s*" + _NUM + r"\s*分" + _SCALE + _END)
_ZH_VERB: Final = (r"(?:的|(?:我|本|该|这个|此)?(?:回答|答案|回复)?\s*(?:可|应|能)?(?:得分|得到|获得|拿到|拿了|得了|得|给出|给|"
                   r"打出|打|评为|评分|评)\s*(?:了|为|是)?\s*[:：]?)")
#: ``满分10分，得8分``, ``总分10分，8分``, ``10分中的8分``, ``10分制下得8分``, ``10分满分，给8分``:
#: the scale first, then the rating (after a verb, or with 分).
_ZH_SCALE_FIRST: Final = compile_pattern(
    r"(?:(?:满分|总分)\s*(?:为|是)?\s*" + _DEN + r"\s*分?(?:制)?|" + _DEN + r"\s*分\s*(?:制|满分)\s*(?:下|中|里)?|"
    + _DEN + r"\s*分\s*(?:之中|中|里))\s*[，,、;；:：]?\s*(?:" + _ZH_VERB + r"\s*" + _NUM + r"\s*分?|" + _NUM
    + r"\s*分)" + _END
)
#: ``8分（满分10分）``, ``8/10分``: a rating with its scale, unmistakable anywhere.
_ZH_SCALED: Final = compile_pattern(
    r"(?<![0-9.])" + _NUM + r"\s*(?:分\s*[（(]\s*(?:满分|总分|满分为|满分是|共)\s*" + _DEN + r"\s*分?\s*[)）]|/\s*" + _DEN + r"\s*分)"
)
#: Numbers that are a scale, never a rating: ``out of 10``, ``/10``, ``scale of 1 to 10``,
#: ``满分10``, ``总分为10``, ``10分制``, ``10分满分``, ``10分中``.
_SCALE_NUMBER: Final = compile_pattern(
    r"(?:/|\bout\s+of|\bof\s+a\s+possible)\s*(?:a\s+(?:possible|maximum(?:\s+of)?|total(?:\s+of)?)\s+"
    r"|(?:the\s+)?(?:possible|maximum|max)\s+(?:of\s+)?)?(?P<s>[0-9]{1,3})"
    r"|\b(?:scale|range)\s+(?:of|from)\s+(?P<s>[0-9]{1,3})\s*(?:to|-|–|—)\s*(?P<s>[0-9]{1,3})"
    r"|(?:满分|总分)\s*(?:为|是)?\s*(?P<s>[0-9]{1,3})"
    r"|(?P<s>[0-9]{1,3})\s*分\s*(?:制|满分|之中|中)",
    regex.IGNORECASE,
)
_EN_PREF_SENTENCE: Final = compile_pattern(
    r"\b(?:assistant|response|answer|output|model)\s+(?P<pref>(?-i:A|B))\s+is\s+(?:clearly\s+|much\s+|slightly\s+|significantly\s+)?"
    r"(?:the\s+)?(?:better|superior|winner|preferred|more\s+helpful)\b(?!\s+(?:at|in|on|for)\b)",
    regex.IGNORECASE,
)
_EN_TIE: Final = compile_pattern(
    r"\b(?:it'?s|it\s+is|this\s+is)\s+a\s+tie\b|\b(?:both|the\s+two)\s+(?:responses|answers|assistants|outputs)\s+are\s+"
    r"equally\s+(?:good|helpful|bad|poor)\b",
    regex.IGNORECASE,
)
_PREF_MARKER: Final = compile_pattern(
    r"\b(?:final\s+verdict|verdict|better\s+(?:response|answer|output)|winner|preferred\s+(?:response|answer|output))"
    r"\s*(?:is\s*:?|:)\s*(?:assistant|response|answer|output|model)?\s*[(\"']?\s*(?P<pref>(?-i:A|B)|tie)\b",
    regex.IGNORECASE,
)
_ZH_PREF_MARKER: Final = compile_pattern(
    r"(?:更好的(?:回答|答案|回复)|最终(?:判决|裁决|结论|判断)|结论|胜者|获胜者|更优的(?:回答|答案|回复))"
    r"\s*(?:是|为)?\s*[:：]?\s*[“\"']?\s*(?:助手|回答|答案|回复|模型)?\s*(?P<pref>A|B|平局|平手|两者相当|一样好|不分上下)"
)
_ZH_PREF_AFTER: Final = compile_pattern(r"(?:助手|回答|答案|回复|模型)\s*(?P<pref>A|B)\s*(?:更好|更优|胜出|获胜)")
_ZH_TIE: Final = compile_pattern(r"两者?(?:一样好|相当|不分上下|打平)|(?<![^\s，。:：])平局")

# Tier 3: the judgment (or its last line) is the verdict.
_WHOLE: Final = compile_pattern(
    r"(?:(?P<m>m|M)|output\s*\(\s*(?P<out>a|b)\s*\)|model_(?P<arena>a|b)|\(?(?P<pref>A|B)\)?"
    r"|(?P<tie>tie(?:\s*\(bothbad\))?|both_bad)|" + _NUM
    + r"(?:\s*/\s*(?P<den>[0-9]{1,3}))?)\s*[.。!]?",
    regex.IGNORECASE,
)

_EMPHASIS: Final = compile_pattern(r"\*\*|__|`")


@dataclass(frozen=True)
class _Found:
    verdict: Verdict | None  # None: a rating off the scale (reason in ``problem``)
    problem: str | None = None


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


def _preference(token: str) -> str:
    upper = token.upper()
    if upper in ("A", "B"):
        return upper
    return "tie"


def _rating(num: str, den: str | None, low: int, high: int, lo: str | None = None) -> _Found:
    value = _number(num)
    if lo is not None and den is not None and (int(lo), int(den)) != (low, high):
        return _Found(None, f"rating {num} is on a {lo}..{den} scale, expected {low}..{high}")
    if den is not None and int(den) != high:
        return _Found(None, f"rating {num}/{den} is on a 1..{den} scale, expected {low}..{high}")
    if not low <= value <= high:
        return _Found(None, f"rating {value} is outside the scale {low}..{high}")
    return _Found(value)


def _tier1(text: str, low: int, high: int) -> list[_Found]:
    found: list[tuple[int, _Found]] = []
    taken: list[tuple[int, int]] = []
    for m in _BRACKET_PAIR.finditer(text):
        a, b = float(m["a"]), float(m["b"])
        found.append((m.start(), _Found("A" if a > b else "B" if b > a else "tie")))
        taken.append(m.span())
    for m in _BRACKET_PREF.finditer(text):
        token = m["pref"].upper()
        found.append((m.start(), _Found("tie" if token in ("C", "TIE") else token)))
    for m in _BRACKET_ARENA.finditer(text):
        x, op, y = m["x"], m["op"], m["y"]
        if x == y:
            found.append((m.start(), _Found(None, f"{m[0]} compares an answer with itself")))
        else:
            found.append((m.start(), _Found("tie" if op == "=" else x if op.startswith(">") else y)))
    for m in _BRACKET_RATING.finditer(text):
        found.append((m.start(), _rating(m["num"], m["den"], low, high)))
    for m in _RESULT.finditer(text):
        found.append((m.start(), _Found(m["pref"]) if m["pref"] else _rating(m["num"], m["den"], low, high)))
    for m in _ALPACA_RANK.finditer(text):
        found.append((m.start(), _Found("A" if m["which"] == "1" else "B")))
    return [f for _, f in sorted(found, key=lambda x: x[0])]


def _scale_numbers(text: str) -> set[int]:
    """Start offsets of every number that states a scale (never a rating)."""
    starts: set[int] = set()
    for m in _SCALE_NUMBER.finditer(text):
        starts.update(start for start, _ in m.spans("s"))
    return starts


def _tier2(text: str, low: int, high: int) -> list[_Found]:
    found: list[tuple[int, _Found]] = []
    scales = _scale_numbers(text) if any(c.isdigit() for c in text) else set()
    for pattern in (_RATING_MARKER, _RATING_SCALED, _RATING_LINE_START, _RATING_SCALE_FIRST, _ZH_RATING_VERB,
                    _ZH_SCALE_FIRST, _ZH_SCALED):
        for m in pattern.finditer(text):
            if m.start("num") in scales:
                continue  # the scale of a rating ("满分10分", "out of 10") is never the rating
            lo = m.groupdict().get("lo")
            found.append((m.start("num"), _rating(m["num"], m["den"], low, high, lo)))
    for pattern in (_PREF_MARKER, _ZH_PREF_MARKER, _ZH_PREF_AFTER, _EN_PREF_SENTENCE):
        for m in pattern.finditer(text):
            found.append((m.start(), _Found(_preference(m["pref"]))))
    for pattern in (_ZH_TIE, _EN_TIE):
        for m in pattern.finditer(text):
            found.append((m.start(), _Found("tie")))
    return [f for _, f in sorted(found, key=lambda x: x[0])]


def _tier3(text: str, low: int, high: int) -> list[_Found]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    m = _WHOLE.fullmatch(lines[-1])
    if m is None:
        return []
    if m["m"] is not None:
        return [_Found("A" if m["m"] == "m" else "B")]
    if m["out"] is not None:
        return [_Found(m["out"].upper())]
    if m["arena"] is not None:
        return [_Found(m["arena"].upper())]
    if m["pref"] is not None:
        return [_Found(m["pref"].upper())]
    if m["tie"] is not None:
        return [_Found("tie")]
    return [_rating(m["num"], m["den"], low, high)]


def _kind_of(verdict: Verdict) -> str:
    return "preference" if isinstance(verdict, str) else "rating"


def _show(verdict: Verdict) -> str:
    return f"[[{verdict}]]" if isinstance(verdict, str) else str(verdict)


@parser("judge", version=2, params=JudgeParams)
def parse_judge(text: str, params: JudgeParams, ctx: ParseContext) -> Parsed:
    """A judge's stated verdict: ``"A"``/``"B"``/``"tie"`` or a rating; never a default.

    >>> p, c = JudgeParams(), ParseContext()
    >>> parse_judge("Both are fine, but A is more accurate. [[A]]", p, c).answer
    'A'
    >>> parse_judge("Rating: [[7]]", p, c).answer, parse_judge("评分：[[8]]", p, c).answer
    (7, 8)
    >>> parse_judge("更好的回答是：B", p, c).answer, parse_judge("M", p, c).answer
    ('B', 'B')
    >>> parse_judge('Format: "[[A]]" if A is better, "[[B]]" if B is better. Verdict: [[A]]', p, c).status
    'contradictory'
    >>> parse_judge("I cannot decide.", p, c).status
    'no_answer'
    """
    low, high = params.min_rating, params.max_rating
    if isinstance(ctx.options, int) and not isinstance(ctx.options, bool):
        if ctx.options < 2:
            raise ValueError(f"a judge row's options (the rating scale's top) must be at least 2, got {ctx.options}")
        low, high = 1, ctx.options
    folded = _EMPHASIS.sub("", unicodedata.normalize("NFKC", text))
    for tier in (_tier1, _tier2, _tier3):
        found = tier(folded, low, high)
        if params.kind != "any":
            found = [f for f in found if f.verdict is None or _kind_of(f.verdict) == params.kind]
            if params.kind == "preference":
                found = [f for f in found if f.verdict is not None]
        if not found:
            continue
        verdicts = {_show(f.verdict) for f in found if f.verdict is not None}
        problems = [f.problem for f in found if f.problem is not None]
        if len(verdicts) > 1:
            return Parsed(None, st.CONTRADICTORY, "the judgment states different verdicts: " + ", ".join(sorted(verdicts)))
        if problems:
            return Parsed(None, st.OUT_OF_RANGE, problems[0])
        verdict = next(f.verdict for f in found if f.verdict is not None)
        return Parsed(verdict, st.OK)
    what = {"any": "verdict", "preference": "preference", "rating": "rating"}[params.kind]
    return Parsed(None, st.NO_ANSWER, f"the judgment states no {what}")
