"""The strict ``judge`` parser: the verdict an LLM judge *states*, or a status — never a default.

A verdict is one of two kinds:

* a **preference** between two answers: ``"A"``, ``"B"`` or ``"tie"``;
* a **rating**: a number on the scale ``min_rating``..``max_rating`` (a row's ``options`` given
  as an int K sets the scale 1..K), returned as an ``int`` when integral, else a ``float``.

What is read, in tiers; the first tier that states anything decides, and within it every
statement must agree:

1. **Bracketed and JSON**: Prometheus ``[RESULT] 4`` / ``[RESULT]: (4)`` / ``[SCORE] 4`` /
   ``[RESULT] B``; the MT-Bench formats: ``[[A]]``, ``[[B]]``, ``[[C]]`` (tie, also ``[[tie]]``),
   ``Rating: [[7]]`` / ``[[7.5]]`` / ``评分：[[8]]``, and a pair of scores ``[[8, 6]]``, which
   states a preference (the higher score wins; equal scores are a tie); Arena-Hard
   ``[[A>>B]]``, ``[[A>B]]``, ``[[A=B]]``, ``[[B>A]]``, ``[[B>>A]]``, whose strength is kept in
   ``extra["strength"]`` (two different strengths are ``contradictory``); JSON and tool-call
   verdicts of the shapes declared in the params (``json_verdicts``, ``labels``): AlpacaEval's
   ``{"ordered_models": [{"model": "M", "rank": 1}, {"model": "m", "rank": 2}]}`` (``m`` is the
   first output, ``M`` the second; ``model_1``/``model_2`` too; with or without an explanation
   field; as a bare list; inside a tool call whose ``arguments`` is an escaped JSON string),
   ``{"best_output": "Output (b)"}``, ``{"choice": "A"}``, ``{"winner": "model_b", …}``,
   ``{"verdict": "A>>B"}``, ``{"score": 8}``, AlignBench's ``{'综合得分': 8, …}`` — read in the
   JSON value that is the judgment or opens or closes it, never in a JSON quoted in the
   reasoning (ranking lists of ``{model, rank}`` objects are read anywhere).  A label that
   names neither answer (``{"winner": "gpt-4"}``), a ranking of one side, or a null verdict is
   ``no_answer``; the same side ranked twice is ``contradictory``.
2. **Markers**: ``Rating: 7``, ``Rating: [5]``, ``Score: 8/10``, ``Overall: 7/10``, ``评分：8分``,
   ``打分：8``, ``得分为 4/5``, ``我给它打8分``; a rating with its scale: ``I rate it 8 out of 10``,
   ``deserves a 7/10``, ``8 points out of a possible 10`` (opening a line), ``a 6 on a scale of 1
   to 10``, ``Out of 10, I give it 8``, ``满分10分，得8分``, ``评分：满分10分，得8分``, ``10分中的8分``,
   ``总分10分，8分``, ``10分制下得8分``, ``8分（满分10分）``, ``8/10分``; ``Final verdict: A``, ``Better response: Assistant B``,
   ``Winner: tie``, ``Assistant A is better`` (not ``… better at …``), ``It's a tie``, ``Both
   responses are equally good``; Chinese ``更好的回答是：A``, ``回答A更好``, ``最终判决：平局``,
   ``两者一样好``.  A plain-language statement counts only when its clause neither negates nor
   doubts it (``I don't think Assistant A is better``, ``If Assistant A is better``, ``whether``,
   ``如果回答A更好``: no statement) and nothing in the tier contradicts it.
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

A judgment without a verdict says why in ``extra["judge_failure"]``: ``truncated`` (it stops
mid-sentence, or a bracket, brace or ranking list is left open), ``off_scale``,
``contradictory``, ``no_verdict``, or ``wrong_kind`` (a rating where ``kind`` asks for a
preference, or the reverse); the report's judge summary counts them apart.

Every pattern here is built in and linear (no nested quantifiers over the same characters), so
it runs without a wall-clock timeout: a verdict is the same on an idle and on a loaded machine
(the row's CPU-time budget still bounds the parser).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Final, Literal

import regex
from pydantic import BeforeValidator, Field, model_validator

from normalize import status as st
from normalize.core.registry import Params, ParseContext, Parsed, as_tuple, parser
from normalize.limits._regex import compile_pattern

Verdict = str | int | float
VerdictLabel = Literal["A", "B", "tie"]


class JsonVerdict(Params):
    """One JSON or tool-call verdict shape: the ``key`` that holds the verdict and what its value
    ``reads``: ``preference`` (a label such as ``"A"``, ``"model_b"``, ``"Output (a)"``, ``"tie"``,
    or an Arena-Hard ``"A>>B"``), ``rating`` (a number, or ``"8/10"``) or ``ranking`` (AlpacaEval's
    ``[{"model": "m", "rank": 1}, …]``: the model ranked 1 wins, equal ranks tie)."""

    key: str = Field(min_length=1, max_length=64)
    reads: Literal["preference", "rating", "ranking"]


#: The shipped JSON / tool-call verdict shapes: AlpacaEval's ``make_partial_leaderboard`` and
#: ``make_leaderboard`` tool calls (``ordered_models``), chatgpt_fn's ``print_best_model``
#: (``best_output``), ``{"choice": …}``, ``{"winner": …}``, ratings (``{"score": 8}``,
#: AlignBench's ``{"综合得分": 8}``).  Other fields (an explanation) are read past.
_SHAPES: Final[tuple[tuple[str, Literal["preference", "rating", "ranking"]], ...]] = (
    ("ordered_models", "ranking"),
    ("choice", "preference"), ("winner", "preference"), ("preference", "preference"),
    ("preferred", "preference"), ("better", "preference"), ("better_response", "preference"),
    ("better_answer", "preference"), ("best_output", "preference"), ("best_model", "preference"),
    ("verdict", "preference"), ("final_verdict", "preference"), ("judgment", "preference"),
    ("rating", "rating"), ("score", "rating"), ("overall_score", "rating"), ("final_score", "rating"),
    ("overall_rating", "rating"), ("综合得分", "rating"), ("总分", "rating"), ("评分", "rating"),
    ("得分", "rating"),
)
DEFAULT_JSON_VERDICTS: Final = tuple(JsonVerdict(key=key, reads=reads) for key, reads in _SHAPES)
#: What a JSON verdict's label (or a ranked model's id) names.  Matched as written first (``m``
#: is the first output and ``M`` the second, as AlpacaEval names them), then case- and
#: space-insensitively for labels that do not differ only in case.
DEFAULT_LABELS: Final[tuple[tuple[str, VerdictLabel], ...]] = (
    ("A", "A"), ("B", "B"), ("m", "A"), ("M", "B"), ("model_1", "A"), ("model_2", "B"),
    ("model_a", "A"), ("model_b", "B"), ("model a", "A"), ("model b", "B"), ("output (a)", "A"),
    ("output (b)", "B"), ("output_1", "A"), ("output_2", "B"), ("output a", "A"), ("output b", "B"),
    ("assistant a", "A"), ("assistant b", "B"), ("response a", "A"), ("response b", "B"),
    ("answer a", "A"), ("answer b", "B"), ("1", "A"), ("2", "B"), ("tie", "tie"), ("draw", "tie"),
    ("equal", "tie"), ("tie (bothbad)", "tie"), ("both_bad", "tie"), ("both bad", "tie"),
    ("both good", "tie"), ("平局", "tie"), ("回答a", "A"), ("回答b", "B"), ("助手a", "A"), ("助手b", "B"),
)


class JudgeParams(Params):
    """``kind``: ``any`` (a preference or a rating), ``preference`` or ``rating`` — a verdict of
    the other kind is then ``no_answer``.  ``min_rating``/``max_rating``: the rating scale
    (a row's int ``options`` K overrides it with 1..K).  ``json_verdicts`` and ``labels``: the
    JSON / tool-call verdict shapes, as data (a pack may replace them; they are hashed)."""

    kind: Literal["any", "preference", "rating"] = "any"
    min_rating: int = 1
    max_rating: int = 10
    #: The JSON / tool-call verdict shapes read in tier 1 (see :class:`JsonVerdict`).
    json_verdicts: Annotated[tuple[JsonVerdict, ...], BeforeValidator(as_tuple)] = DEFAULT_JSON_VERDICTS
    #: Label → verdict for JSON verdicts and ranked model ids (see :data:`DEFAULT_LABELS`).
    labels: Annotated[tuple[tuple[str, VerdictLabel], ...], BeforeValidator(as_tuple)] = DEFAULT_LABELS

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
    + r"|\s*[(（]?\s*(?:on|in|using)\s+an?\s+" + _DEN + r"[- ]?point\s+scale\s*[)）]?"
    + r"|\s*分?\s*[（(]\s*(?:满分|总分|满分为|满分是|共)\s*" + _DEN + r"\s*分?\s*[)）]"
    + r"|\s*分?满分\s*" + _DEN + r")"
)
_SCALE: Final = r"(?:" + _SCALE_AFTER + r")?"

# Tier 1: MT-Bench brackets.
_BRACKET_PAIR: Final = compile_pattern(r"\[\[\s*(?P<a>[0-9]{1,3}(?:\.[0-9]+)?)\s*,\s*(?P<b>[0-9]{1,3}(?:\.[0-9]+)?)\s*\]\]")
_BRACKET_PREF: Final = compile_pattern(r"\[\[\s*(?P<pref>A|B|C|tie)\s*\]\]", regex.IGNORECASE)
_BRACKET_ARENA: Final = compile_pattern(r"\[\[\s*(?P<x>A|B)\s*(?P<op>>>|>|=|<<|<)\s*(?P<y>A|B)\s*\]\]")
#: Prometheus: ``[RESULT] 4``, ``[RESULT]: (4)``, ``[RESULT] 4/5``, ``[SCORE] 4``, ``[RESULT] B``.
_RESULT: Final = compile_pattern(
    r"\[(?i:RESULT|SCORE)\]\s*[:：]?\s*[(\[]?\s*(?:(?P<pref>A|B)\b|" + _NUM
    + r"(?:\s*(?:/|out\s+of)\s*(?P<den>[0-9]{1,3}))?(?![0-9]|\.[0-9]))"
)
_BRACKET_RATING: Final = compile_pattern(r"\[\[\s*" + _NUM + r"\s*(?:/\s*(?P<den>[0-9]{1,3}))?\s*\]\]")

# Tier 2: markers.
_END: Final = r"(?![0-9.]*[0-9])"
#: ``Rating: 7``, ``Score is 8/10``, ``评分：8分``: a marker and a separator, then the number.
_RATING_MARKER: Final = compile_pattern(
    r"(?:\b(?:overall\s+)?(?:rating|score|grade)\s*(?:is|of|:|=)\s*\[?\s*|\boverall\s*[:=]\s*|(?:评分|打分|得分|分数|评级)\s*(?:是|为)?\s*[:：]?\s*\[?\s*)"
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
#: ``百分制下得85分``, ``十分制，8分``: a scale named in words, then the rating.
_ZH_WORD_SCALE: Final = compile_pattern(
    r"(?P<w>百|十|五|三|七)分制\s*(?:下|中|里)?\s*[，,、;；:：]?\s*(?:" + _ZH_VERB + r"\s*" + _NUM + r"\s*分?|" + _NUM
    + r"\s*分)" + _END
)
_WORD_SCALES: Final = {"百": "100", "十": "10", "五": "5", "三": "3", "七": "7"}
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
    r"|(?<![0-9.])(?P<s>[0-9]{1,3})[- ]?point\s+scale"
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

# JSON and tool-call verdicts.
#: A list of ``{"model": …, "rank": …}`` objects (AlpacaEval's ranking), keyed or not.
_RANK_LIST: Final = compile_pattern(r"""\[(?=\s*\{\s*['"](?:model|rank)['"])""")
_RANK_ITEM: Final = compile_pattern(
    r"""\s*,?\s*\{\s*(?:['"]model['"]\s*:\s*['"](?P<m>[^'"\n]{1,40})['"]\s*,\s*['"]rank['"]\s*:\s*['"]?"""
    r"""(?P<r>[0-9]{1,2})(?:\.0)?['"]?|['"]rank['"]\s*:\s*['"]?(?P<r2>[0-9]{1,2})(?:\.0)?['"]?\s*,\s*['"]model['"]\s*:"""
    r"""\s*['"](?P<m2>[^'"\n]{1,40})['"])\s*\}"""
)
_LIST_END: Final = compile_pattern(r"\s*\]")
#: An Arena-Hard verdict as a JSON value: ``"A>>B"``, ``"[[B>A]]"``.
_ARENA_VALUE: Final = compile_pattern(r"\[*\s*(?P<x>A|B)\s*(?P<op>>>|>|=|<<|<)\s*(?P<y>A|B)\s*\]*")
_RATING_VALUE: Final = compile_pattern(r"\s*" + _NUM + r"\s*(?:/\s*(?P<den>[0-9]{1,3}))?\s*(?:分|points?)?\s*")
_LABEL_DECORATION: Final = compile_pattern(r"^[\s\[\]\"'*.]+|[\s\[\]\"'*.]+$")
_SPACES: Final = compile_pattern(r"\s+")

# Plain-language statements that are negated or hypothetical state nothing.
_CLAUSE_START: Final = compile_pattern(
    r"[,.;:!?\n，。；：！？]|\b(?:so|but|therefore|thus|hence|overall|however|and)\b", regex.IGNORECASE)
_NEGATION: Final = compile_pattern(
    r"\b(?:not|never|no|hardly|if|whether|unless|cannot|can't|don't|doesn't|wouldn't|isn't|unclear|hard\s+to\s+say)\b"
    r"|不认为|并非|不是|如果|是否|假如|若|不能说|难以(?:说|判断)|无法判断",
    regex.IGNORECASE,
)


@dataclass(frozen=True)
class _Found:
    verdict: Verdict | None  # None: a verdict that cannot be taken (reason in ``problem``)
    problem: str | None = None
    #: Arena-Hard's strength of a preference: ``A>>B``, ``A>B``, ``A=B``, ``B>A``, ``B>>A``.
    strength: str | None = None
    #: The status a problem gives: a rating off its scale, or a label that names no answer.
    status: st.Status = st.OUT_OF_RANGE
    failure: str = "off_scale"
    #: A plain-language statement (``Assistant A is better``): it counts only when nothing else
    #: in the judgment, the verdict line at its end included, contradicts it.
    plain: bool = False


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


def _arena(x: str, op: str, y: str, written: str) -> _Found:
    """An Arena-Hard comparison as a preference with its strength (``B<<A`` is ``A>>B``)."""
    if x == y:
        return _Found(None, f"{written} compares an answer with itself", failure="no_verdict")
    if op == "=":
        return _Found("tie", strength="A=B")
    winner = x if op.startswith(">") else y
    loser = "B" if winner == "A" else "A"
    return _Found(winner, strength=winner + (">>" if len(op) == 2 else ">") + loser)


@lru_cache(maxsize=16)
def _label_table(labels: tuple[tuple[str, str], ...]) -> tuple[dict[str, str], dict[str, str]]:
    """Labels as written, and folded (case, spaces, brackets) where folding is unambiguous."""
    exact = dict(labels)
    folded: dict[str, set[str]] = {}
    for label, verdict in labels:
        folded.setdefault(_fold_label(label), set()).add(verdict)
    clashing = {_fold_label(a) for a, _ in labels for b, _ in labels if a != b and _fold_label(a) == _fold_label(b)}
    loose = {key: next(iter(v)) for key, v in folded.items() if len(v) == 1 and key not in clashing}
    return exact, loose


def _fold_label(label: str) -> str:
    return _SPACES.sub(" ", _LABEL_DECORATION.sub("", unicodedata.normalize("NFKC", label))).casefold()


def _label(value: str, labels: tuple[tuple[str, str], ...]) -> str | None:
    exact, loose = _label_table(labels)
    stripped = value.strip()
    if stripped in exact:
        return exact[stripped]
    return loose.get(_fold_label(stripped))


@lru_cache(maxsize=16)
def _json_finder(keys: tuple[str, ...]) -> regex.Pattern[str]:
    """``"key": value`` for the declared keys; a value is a short string, a number, null or ``[``.
    Bounded repetitions only: linear in the text."""
    names = "|".join(regex.escape(k) for k in sorted(set(keys), key=len, reverse=True))
    return compile_pattern(
        r"""(?P<q>["'])(?P<key>""" + names + r""")(?P=q)\s*:\s*(?:(?P<val>"(?:[^"\\\n]|\\.){0,80}"|'[^'\n]{0,80}'"""
        r"""|-?[0-9]{1,3}(?:\.[0-9]+)?(?![0-9])|null)(?=\s*(?:[,}\]]|\Z))|(?P<val>\[))"""
    )


def _ranking(text: str, start: int, labels: tuple[tuple[str, str], ...]) -> _Found | None:
    """The AlpacaEval ranking list opening at ``text[start] == "["``: rank 1 wins, equal ranks tie;
    None for a list that is not one (a format template echoed: ``"rank": "<rank>"``)."""
    items: list[tuple[str, int]] = []
    pos = start + 1
    while True:
        m = _RANK_ITEM.match(text, pos)
        if m is None:
            break
        items.append((m["m"] or m["m2"], int(m["r"] or m["r2"])))
        pos = m.end()
    if _LIST_END.match(text, pos) is None:
        if "]" in text[pos:]:
            return None  # not a ranking of {model, rank} objects (an echoed template): no statement
        return _Found(None, "the ranking list is cut off (truncated)", status=st.NO_ANSWER, failure="truncated")
    sides: dict[str, int] = {}
    for model, rank in items:
        side = _label(model, labels)
        if side not in ("A", "B"):
            return _Found(None, f"the ranking names model {model!r}, which is neither answer",
                          status=st.NO_ANSWER, failure="no_verdict")
        if side in sides:
            return _Found(None, f"the ranking names the same answer twice ({model!r})",
                          status=st.CONTRADICTORY, failure="contradictory")
        sides[side] = rank
    if set(sides) != {"A", "B"}:
        return _Found(None, "the ranking does not rank both answers", status=st.NO_ANSWER, failure="no_verdict")
    if sides["A"] == sides["B"]:
        return _Found("tie")
    return _Found("A" if sides["A"] < sides["B"] else "B")


def _json_value(reads: str, raw: str, low: int, high: int, labels: tuple[tuple[str, str], ...]) -> _Found:
    if raw == "null":
        return _Found(None, "the verdict is null", status=st.NO_ANSWER, failure="no_verdict")
    if raw[0] == '"':
        try:
            value = str(json.loads(raw))
        except ValueError:
            value = raw[1:-1]
    elif raw[0] == "'":
        value = raw[1:-1]
    else:
        value = raw
    if reads == "rating":
        m = _RATING_VALUE.fullmatch(value)
        if m is None:
            return _Found(None, f"the rating {value!r} is not a number", status=st.NO_ANSWER, failure="no_verdict")
        return _rating(m["num"], m["den"], low, high)
    arena = _ARENA_VALUE.fullmatch(value.strip())
    if arena is not None:
        return _arena(arena["x"], arena["op"], arena["y"], value)
    side = _label(value, labels)
    if side is None:
        return _Found(None, f"the verdict {value!r} names neither answer nor a tie", status=st.NO_ANSWER,
                      failure="no_verdict")
    return _Found(side)


#: The characters that open, close or quote inside a JSON-like value.
_JSON_CHARS: Final = compile_pattern(r"[{}\[\]\"'\\\n]")
_CLOSERS: Final = {"{": "}", "[": "]"}
#: What may stand before the judgment's first JSON value (a fence's info string, a label) and after its last.
_BEFORE_JSON: Final = compile_pattern(r"\s*(?:json|python|javascript|verdict|output|answer)?\s*[:：]?\s*", regex.IGNORECASE)
_AFTER_JSON: Final = compile_pattern(r"[\s.。]*")


def _verdict_blocks(text: str) -> list[tuple[int, int]]:
    """The spans of the top-level JSON-like values that open or close the judgment: a JSON
    verdict is the judgment (or its first or last part), never a JSON quoted in its reasoning
    (a judged response's ``{"score": 5}`` before ``[[B]]``).  One scan over the bracket and
    quote characters; a quote opens a string only inside brackets, and a single-quoted one ends
    at a line break (an apostrophe in prose)."""
    groups: list[tuple[int, int]] = []
    stack: list[str] = []
    quote: str | None = None
    start = 0
    skip_until = -1
    for m in _JSON_CHARS.finditer(text):
        i, c = m.start(), m[0]
        if i < skip_until:
            continue
        if quote is not None:
            if c == "\\":
                skip_until = i + 2
            elif c == quote or (c == "\n" and quote == "'"):
                quote = None
            continue
        if c in "{[":
            if not stack:
                start = i
            stack.append(_CLOSERS[c])
        elif c in "}]":
            if stack and stack[-1] == c:
                stack.pop()
                if not stack:
                    groups.append((start, i + 1))
            else:
                stack = []
        elif stack and (c == '"' or (c == "'" and (i == 0 or not text[i - 1].isalnum()))):
            quote = c  # an apostrophe after a letter (the model's) opens no string
    if not groups:
        return []
    blocks: list[tuple[int, int]] = []
    first, last = groups[0], groups[-1]
    if _BEFORE_JSON.fullmatch(text, 0, first[0]) is not None:
        blocks.append(first)
    if _AFTER_JSON.fullmatch(text, last[1]) is not None and last not in blocks:
        blocks.append(last)
    return blocks


def _json_verdicts(text: str, low: int, high: int, params: JudgeParams) -> list[tuple[int, _Found]]:
    """The verdicts of the declared JSON / tool-call shapes in the JSON value that is the
    judgment (or opens or closes it: :func:`_verdict_blocks`), and of ranking lists of
    ``{model, rank}`` objects anywhere (unmistakable).  A tool call's ``arguments`` string
    (escaped JSON) is read too."""
    found: list[tuple[int, _Found]] = []
    texts = [text] if '\\"' not in text else [text, text.replace('\\"', '"')]
    reads = {shape.key: shape.reads for shape in params.json_verdicts}
    finder = _json_finder(tuple(reads)) if reads else None
    for variant in texts:
        lists: set[int] = set()
        matches = list(finder.finditer(variant)) if finder is not None and ('"' in variant or "'" in variant) else []
        blocks = _verdict_blocks(variant) if matches else []
        for m in matches:
            if not any(a <= m.start() < b for a, b in blocks):
                continue  # a JSON inside the reasoning (a quoted response), not the verdict
            kind = reads[m["key"]]
            if m["val"] == "[":
                if kind == "ranking":
                    lists.add(m.start("val"))
                    ranked = _ranking(variant, m.start("val"), params.labels)
                    if ranked is not None:
                        found.append((m.start(), ranked))
            elif kind != "ranking":
                found.append((m.start(), _json_value(kind, m["val"], low, high, params.labels)))
        for m in _RANK_LIST.finditer(variant):
            if m.start() not in lists:
                ranked = _ranking(variant, m.start(), params.labels)
                if ranked is not None:
                    found.append((m.start(), ranked))
    return found


def _negated(text: str, start: int) -> bool:
    """Whether the clause before ``start`` negates or puts in doubt what follows it."""
    window_start = max(0, start - 120)
    window = text[window_start:start]
    ends = [m.end() for m in _CLAUSE_START.finditer(window)]
    clause = window[ends[-1]:] if ends else window
    return _NEGATION.search(clause) is not None


def _tier1(text: str, low: int, high: int, params: JudgeParams) -> list[_Found]:
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
        found.append((m.start(), _arena(m["x"], m["op"], m["y"], m[0])))
    for m in _BRACKET_RATING.finditer(text):
        found.append((m.start(), _rating(m["num"], m["den"], low, high)))
    for m in _RESULT.finditer(text):
        found.append((m.start(), _Found(m["pref"]) if m["pref"] else _rating(m["num"], m["den"], low, high)))
    found.extend(_json_verdicts(text, low, high, params))
    return [f for _, f in sorted(found, key=lambda x: x[0])]


def _scale_numbers(text: str) -> set[int]:
    """Start offsets of every number that states a scale (never a rating)."""
    starts: set[int] = set()
    for m in _SCALE_NUMBER.finditer(text):
        starts.update(start for start, _ in m.spans("s"))
    return starts


def _tier2(text: str, low: int, high: int, params: JudgeParams) -> list[_Found]:
    found: list[tuple[int, _Found]] = []
    scales = _scale_numbers(text) if any(c.isdigit() for c in text) else set()
    for pattern in (_RATING_MARKER, _RATING_SCALED, _RATING_LINE_START, _RATING_SCALE_FIRST, _ZH_RATING_VERB,
                    _ZH_SCALE_FIRST, _ZH_SCALED):
        for m in pattern.finditer(text):
            if m.start("num") in scales:
                continue  # the scale of a rating ("满分10分", "out of 10") is never the rating
            lo = m.groupdict().get("lo")
            found.append((m.start("num"), _rating(m["num"], m["den"], low, high, lo)))
    for m in _ZH_WORD_SCALE.finditer(text):
        found.append((m.start("num"), _rating(m["num"], _WORD_SCALES[m["w"]], low, high)))
    for pattern in (_PREF_MARKER, _ZH_PREF_MARKER, _ZH_PREF_AFTER, _EN_PREF_SENTENCE):
        for m in pattern.finditer(text):
            if pattern is not _PREF_MARKER and _negated(text, m.start()):
                continue  # "I don't think Assistant A is better", "如果回答A更好": no statement
            plain = pattern in (_ZH_PREF_AFTER, _EN_PREF_SENTENCE)
            found.append((m.start(), _Found(_preference(m["pref"]), plain=plain)))
    for pattern in (_ZH_TIE, _EN_TIE):
        for m in pattern.finditer(text):
            if _negated(text, m.start()):
                continue
            found.append((m.start(), _Found("tie", plain=True)))
    return [f for _, f in sorted(found, key=lambda x: x[0])]


def _tier3(text: str, low: int, high: int, params: JudgeParams) -> list[_Found]:
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
    wrong_kind = False
    for tier in (_tier1, _tier2, _tier3):
        found = tier(folded, low, high, params)
        if params.kind != "any":
            kept = [f for f in found if f.verdict is None or _kind_of(f.verdict) == params.kind]
            wrong_kind = wrong_kind or len(kept) < len(found)
            found = kept
            if params.kind == "preference":
                found = [f for f in found if f.verdict is not None or f.status != st.OUT_OF_RANGE]
        if not found:
            continue
        decided = _decide(found)
        if decided.status == st.OK and tier is _tier2 and all(f.plain for f in found):
            final = next((f.verdict for f in _tier3(folded, low, high, params) if f.verdict is not None), None)
            if final is not None and _show(final) != _show(decided.answer):
                return Parsed(None, st.CONTRADICTORY, "the judgment states different verdicts: "
                              + ", ".join(sorted({_show(decided.answer), _show(final)})),
                              {"judge_failure": "contradictory"})
        return decided
    what = {"any": "verdict", "preference": "preference", "rating": "rating"}[params.kind]
    if wrong_kind:
        other = "a rating" if params.kind == "preference" else "a preference"
        return Parsed(None, st.NO_ANSWER, f"the judgment states {other}, not the {what} asked for",
                      {"judge_failure": "wrong_kind"})
    if _truncated(folded):
        return Parsed(None, st.NO_ANSWER, f"the judgment is cut off before it states a {what} (truncated)",
                      {"judge_failure": "truncated"})
    return Parsed(None, st.NO_ANSWER, f"the judgment states no {what}", {"judge_failure": "no_verdict"})


def _decide(found: list[_Found]) -> Parsed:
    """One tier's findings: every statement must agree (verdict and Arena-Hard strength)."""
    verdicts = {_show(f.verdict) for f in found if f.verdict is not None}
    problems = [f for f in found if f.problem is not None]
    if len(verdicts) > 1:
        return Parsed(None, st.CONTRADICTORY, "the judgment states different verdicts: " + ", ".join(sorted(verdicts)),
                      {"judge_failure": "contradictory"})
    if problems:
        first = problems[0]
        return Parsed(None, first.status, first.problem, {"judge_failure": first.failure})
    verdict = next(f.verdict for f in found if f.verdict is not None)
    strengths = {f.strength for f in found if f.strength is not None}
    if len(strengths) > 1:
        return Parsed(None, st.CONTRADICTORY, "the judgment states different strengths: " + ", ".join(sorted(strengths)),
                      {"judge_failure": "contradictory"})
    return Parsed(verdict, st.OK, None, {"strength": next(iter(strengths))} if strengths else {})


#: The end of a judgment that was cut off: mid-word or mid-clause, or inside a bracket or brace.
_CUT_END: Final = compile_pattern(r"(?:[\p{L}\p{N},;:(\[{\-]|\[\[[^\]]{0,20})\s*\Z")


def _truncated(text: str) -> bool:
    """A judgment without a verdict that stops mid-sentence or with a bracket, brace or fence open."""
    stripped = text.rstrip()
    if len(stripped) < 40:
        return False
    if stripped.count("{") > stripped.count("}") or stripped.count("[[") > stripped.count("]]"):
        return True
    return _CUT_END.search(stripped[-40:]) is not None and not stripped.endswith(("]]", "分"))
