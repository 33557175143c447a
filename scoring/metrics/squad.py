"""SQuAD-style metrics for extractive QA and open writing: exact match and token F1.

Two normalizations, each with an exact-match and an F1 metric:

* ``squad_official`` / ``squad_official_f1`` — the official SQuAD v1.1/v2.0 evaluation
  script's ``normalize_answer`` (lower case, ASCII punctuation removed, ``a``/``an``/``the``
  removed, whitespace collapsed) and its F1 (v2.0's ``compute_f1``: two answers empty after
  normalization agree), on the targets as given (no alias tables): the numbers published
  results report, for comparison with them.
* ``squad_exact`` (the default of ``extractive_qa``) / ``f1`` (also named ``squad_f1``) — the
  same idea, keeping what changes an answer's meaning, which the official script erases:

  - a decimal point, a slash or any other mark between two digits: ``2.5`` ≠ ``25``,
    ``3/4`` ≠ ``34``, ``4.5 million`` ≠ ``45 million``, ``1990-1995`` ≠ ``19901995``; only a
    valid thousands grouping comma goes (``1,000`` = ``1000``), and a leading-dot decimal is
    read with its zero (``.5`` = ``0.5``);
  - a leading minus (``-``, ``−``) before a digit: ``-3`` ≠ ``3``;
  - a letter ``A`` that is part of a name, not an article: the last word (an article never
    ends a phrase: ``Vitamin A``, ``plan a``), or a capital ``A`` inside mixed-case text
    (``Hepatitis A vaccine``); ``A`` opening the text or a sentence is an article;

  besides which it drops every Unicode punctuation character (``，``, ``。``) and counts each
  CJK character as a token, so Chinese answers get partial F1 credit.

Each of these metrics records the other normalization's verdict on the row
(``Score.alternatives``), and reports count, per task, the rows where the two disagree.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, Final

from pydantic import Field

from scoring.metrics._registry import (
    SCORED,
    MetricContext,
    MetricParams,
    Score,
    ScoringConfig,
    metric,
)
from scoring.metrics.exact import alias_candidates, as_text

# --------------------------------------------------------------------------- the official script

_OFFICIAL_PUNCTUATION: Final = frozenset(string.punctuation)
_OFFICIAL_ARTICLES: Final = re.compile(r"\b(a|an|the)\b", re.UNICODE)


def normalize_official(text: str) -> str:
    """The official SQuAD script's ``normalize_answer``, step for step (v1.1 and v2.0 agree).

    Lower case, then ASCII punctuation removed (``U.S.A.`` → ``usa``, ``2.5`` → ``25``), then
    the words ``a``, ``an``, ``the`` replaced by a space, then whitespace collapsed.

    >>> normalize_official("The 2.5 million U.S.A. dollars, Vitamin A!")
    '25 million usa dollars vitamin'
    """
    lowered = text.lower()
    unpunctuated = "".join(ch for ch in lowered if ch not in _OFFICIAL_PUNCTUATION)
    return " ".join(_OFFICIAL_ARTICLES.sub(" ", unpunctuated).split())


def official_exact(answer: str, target: str) -> bool:
    """The official exact match: equal after :func:`normalize_official`.

    >>> official_exact("2.5", "25"), official_exact("vitamin", "Vitamin A")
    (True, True)
    """
    return normalize_official(answer) == normalize_official(target)


def official_f1(answer: str, target: str) -> float:
    """The official v2.0 ``compute_f1`` (the same arithmetic, so the same float).

    >>> official_f1("the big red house", "red house")
    0.8
    >>> official_f1("a", "the")
    1.0
    """
    gold_toks = normalize_official(target).split()
    pred_toks = normalize_official(answer).split()
    common = Counter(gold_toks) & Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return float(gold_toks == pred_toks)
    if num_same == 0:
        return 0.0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


# --------------------------------------------------------------------------- the default, protected


def _is_punctuation(ch: str) -> bool:
    return ch in _OFFICIAL_PUNCTUATION or unicodedata.category(ch).startswith("P")


_ARTICLES: Final = frozenset({"a", "an", "the"})
#: Minus signs read as ``-`` before a digit (U+2212 minus, U+FE63 small, U+FF0D full-width).
_MINUS: Final = str.maketrans({"\u2212": "-", "\ufe63": "-", "\uff0d": "-"})
#: A numeral inside a word: digits joined by single marks (kept), an optional leading minus
#: and leading-dot decimal (kept only where no letter, digit or dot stands before them).
_NUMERAL: Final = re.compile(r"(?:(?<![^\W_])-)?(?:(?<![\w.])\.)?\d+(?:[^\w\s]\d+)*")
_GROUPED: Final = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
#: What ends a sentence, so that a capital ``A`` after it is an article.
_SENTENCE_END: Final = frozenset(".!?:;。！？；：")


def _canonical_numeral(numeral: str) -> str:
    """A numeral as kept: thousands commas dropped where the grouping is valid, ``.5`` → ``0.5``.

    >>> _canonical_numeral("1,000,000"), _canonical_numeral("1,5"), _canonical_numeral("-.5")
    ('1000000', '1,5', '-0.5')
    """
    if _GROUPED.fullmatch(numeral):
        numeral = numeral.replace(",", "")
    if numeral.startswith("."):
        return "0" + numeral
    if numeral.startswith("-."):
        return "-0" + numeral[1:]
    return numeral


def _clean(word: str) -> str:
    """One whitespace-separated word with punctuation removed, numerals kept whole."""
    out: list[str] = []
    pos = 0
    for match in _NUMERAL.finditer(word):
        out.append("".join(ch for ch in word[pos : match.start()] if not _is_punctuation(ch)))
        out.append(_canonical_numeral(match.group()))
        pos = match.end()
    out.append("".join(ch for ch in word[pos:] if not _is_punctuation(ch)))
    return "".join(out)


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x4E00 <= cp <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= cp <= 0x4DBF  # extension A
        or 0x20000 <= cp <= 0x2EBEF  # extensions B–F
        or 0x30000 <= cp <= 0x323AF  # extensions G–H
        or 0xF900 <= cp <= 0xFAFF  # compatibility ideographs
        or 0x3040 <= cp <= 0x30FF  # hiragana, katakana
        or 0x31F0 <= cp <= 0x31FF  # katakana phonetic extensions
        or 0xFF66 <= cp <= 0xFF9F  # half-width katakana
        or 0xAC00 <= cp <= 0xD7AF  # hangul syllables
        or 0x1100 <= cp <= 0x11FF  # hangul jamo
        or 0x3130 <= cp <= 0x318F  # hangul compatibility jamo
    )


def _split_cjk(word: str) -> Iterator[str]:
    run: list[str] = []
    for ch in word:
        if _is_cjk(ch):
            if run:
                yield "".join(run)
                run = []
            yield ch
        else:
            run.append(ch)
    if run:
        yield "".join(run)


def _opens_quote(raw: str) -> bool:
    """Whether a word starts with an opening bracket or quote (a quoted sentence may start there)."""
    return raw[0] in "\"'" or unicodedata.category(raw[0]) in ("Ps", "Pi")


def _ends_sentence(raw: str) -> bool:
    """Whether a word ends a sentence (``end.``, ``end."``, ``end.)``)."""
    stripped = raw.rstrip("\"'" + "".join(ch for ch in raw if unicodedata.category(ch) in ("Pe", "Pf")))
    return bool(stripped) and stripped[-1] in _SENTENCE_END


def _is_article(word: str, last: bool, sentence_start: bool, mixed_case: bool) -> bool:
    """Whether ``word`` (punctuation removed, case as written) is an article to drop."""
    lowered = word.lower()
    if lowered not in _ARTICLES:
        return False
    if lowered == "a":
        if last:  # "Vitamin A", "plan a": an article is never the last word
            return False
        if word == "A" and mixed_case and not sentence_start:  # "Hepatitis A vaccine"
            return False
    return True


def squad_tokens(text: str) -> list[str]:
    """The default SQuAD-style tokens: lower case, punctuation and articles dropped, numerals
    and name letters kept, each CJK character a token.

    Punctuation is ASCII punctuation (as in the SQuAD script) plus every Unicode ``P*``
    character, so ``，`` and ``。`` go too; removal joins (``don't`` → ``dont``), as in SQuAD.
    A mark between two digits, a leading minus and a leading-dot decimal stay (see the module).

    >>> squad_tokens("The Eiffel-Tower, in Paris!")
    ['eiffeltower', 'in', 'paris']
    >>> squad_tokens("4.5 million, -3 and 3/4 of 1,000")
    ['4.5', 'million', '-3', 'and', '3/4', 'of', '1000']
    >>> squad_tokens("Vitamin A"), squad_tokens("A Hepatitis A shot")
    (['vitamin', 'a'], ['hepatitis', 'a', 'shot'])
    >>> squad_tokens("北京大学 Beijing")
    ['北', '京', '大', '学', 'beijing']
    """
    raw_words = text.translate(_MINUS).split()
    mixed_case = any(ch.islower() for ch in text)
    words: list[tuple[str, bool]] = []  # (cleaned word, starts a sentence)
    sentence_start = True
    for raw in raw_words:
        cleaned = _clean(raw)
        if cleaned:
            words.append((cleaned, sentence_start or _opens_quote(raw)))
        sentence_start = _ends_sentence(raw)
    tokens: list[str] = []
    for index, (word, starts) in enumerate(words):
        if _is_article(word, index == len(words) - 1, starts, mixed_case):
            continue
        tokens.extend(_split_cjk(word.lower()))
    return tokens


def normalize_squad(text: str) -> str:
    """The default SQuAD-style normalized form: :func:`squad_tokens` joined by single spaces.

    >>> normalize_squad("  The  answer: an apple. ")
    'answer apple'
    """
    return " ".join(squad_tokens(text))


def squad_exact_match(answer: str, target: str) -> bool:
    """Exact match after the default SQuAD-style normalization.

    >>> squad_exact_match("the Eiffel Tower.", "Eiffel tower"), squad_exact_match("2.5", "25")
    (True, False)
    """
    return squad_tokens(answer) == squad_tokens(target)


def token_f1(answer: str, target: str) -> float:
    """Token F1 (bag of tokens) over :func:`squad_tokens`; two empty texts score 1, one empty text 0.

    >>> round(token_f1("the big red house", "red house"), 4)
    0.8
    >>> round(token_f1("北京大学", "北京"), 4)
    0.6667
    """
    pred, gold = squad_tokens(answer), squad_tokens(target)
    if not pred or not gold:
        return float(pred == gold)
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision = common / len(pred)
    recall = common / len(gold)
    return 2 * precision * recall / (precision + recall)


# --------------------------------------------------------------------------- metrics


class F1Params(MetricParams):
    """``f1_threshold``: the F1 at or above which a row counts as ``correct`` (in (0, 1])."""

    f1_threshold: float = Field(1.0, gt=0, le=1)


_QA_TYPES: Final = ("extractive_qa", "open_writing")


def _texts(golds: Sequence[Any]) -> list[str]:
    return [g for g in golds if isinstance(g, str)]


def _default_exact(text: str, golds: Sequence[Any], ctx: MetricContext) -> bool:
    accepted = alias_candidates(_texts(golds), ctx.alias_groups, key=normalize_squad)
    return any(squad_exact_match(text, g) for g in accepted)


def _official_exact(text: str, golds: Sequence[Any]) -> bool:
    return any(official_exact(text, g) for g in _texts(golds))


def _default_f1(text: str, golds: Sequence[Any], ctx: MetricContext) -> float:
    accepted = alias_candidates(_texts(golds), ctx.alias_groups, key=normalize_squad)
    return max((token_f1(text, g) for g in accepted), default=0.0)


def _official_f1(text: str, golds: Sequence[Any]) -> float:
    return max((official_f1(text, g) for g in _texts(golds)), default=0.0)


@metric("squad_exact", task_types=_QA_TYPES, rank=1)
def squad_exact_metric(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """Any accepted target (aliases matched after normalization) equals the answer after the
    default SQuAD-style normalization (numerals, minus signs and name letters kept)."""
    text = as_text(answer)
    hit = _default_exact(text, golds, ctx)
    return Score(hit, float(hit), config.metric, SCORED, alternatives={"squad_official": _official_exact(text, golds)})


@metric("squad_official", task_types=_QA_TYPES, rank=4)
def squad_official_metric(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """The official SQuAD script's exact match: max over the targets as given (no alias tables)."""
    text = as_text(answer)
    hit = _official_exact(text, golds)
    return Score(hit, float(hit), config.metric, SCORED, alternatives={"squad_exact": _default_exact(text, golds, ctx)})


def _f1_metric(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """The best token F1 over the accepted targets, default SQuAD-style normalization;
    ``correct`` when it reaches ``f1_threshold``."""
    text = as_text(answer)
    best = _default_f1(text, golds, ctx)
    official = _official_f1(text, golds) >= config.f1_threshold
    return Score(best >= config.f1_threshold, best, config.metric, SCORED, alternatives={"squad_official_f1": official})


metric("f1", task_types=_QA_TYPES, params=F1Params, rank=2)(_f1_metric)
metric("squad_f1", task_types=_QA_TYPES, params=F1Params, rank=3)(_f1_metric)


@metric("squad_official_f1", task_types=_QA_TYPES, params=F1Params, rank=5)
def squad_official_f1_metric(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """The official SQuAD script's F1 (v2.0), max over the targets as given; ``correct`` when it
    reaches ``f1_threshold``."""
    text = as_text(answer)
    best = _official_f1(text, golds)
    default = _default_f1(text, golds, ctx) >= config.f1_threshold
    return Score(best >= config.f1_threshold, best, config.metric, SCORED, alternatives={"f1": default})
