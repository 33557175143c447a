"""SQuAD-style metrics: ``squad_exact`` (exact match after SQuAD normalization) and token ``f1``,
for extractive QA and open writing; CJK characters count as tokens."""

from __future__ import annotations

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


def _is_punctuation(ch: str) -> bool:
    return ch in string.punctuation or unicodedata.category(ch).startswith("P")


_ARTICLES: Final = frozenset({"a", "an", "the"})


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


def squad_tokens(text: str) -> list[str]:
    """SQuAD tokens: lower case, punctuation removed, articles dropped, each CJK character a token.

    Punctuation is ASCII punctuation (as in the SQuAD script) plus every Unicode ``P*`` character,
    so ``，`` and ``。`` go too.  Removal joins (``don't`` → ``dont``), as in SQuAD.

    >>> squad_tokens("The Eiffel-Tower, in Paris!")
    ['eiffeltower', 'in', 'paris']
    >>> squad_tokens("北京大学 Beijing")
    ['北', '京', '大', '学', 'beijing']
    """
    lowered = "".join(ch for ch in text.lower() if not _is_punctuation(ch))
    tokens: list[str] = []
    for word in lowered.split():
        if word in _ARTICLES:
            continue
        tokens.extend(_split_cjk(word))
    return tokens


def normalize_squad(text: str) -> str:
    """The SQuAD-normalized form: :func:`squad_tokens` joined by single spaces.

    >>> normalize_squad("  The  answer: an apple. ")
    'answer apple'
    """
    return " ".join(squad_tokens(text))


def squad_exact_match(answer: str, target: str) -> bool:
    """Exact match after SQuAD normalization.

    >>> squad_exact_match("the Eiffel Tower.", "Eiffel tower")
    True
    """
    return squad_tokens(answer) == squad_tokens(target)


def token_f1(answer: str, target: str) -> float:
    """SQuAD token F1 (bag of tokens); two empty texts score 1, one empty text 0.

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


class F1Params(MetricParams):
    """``f1_threshold``: the F1 at or above which a row counts as ``correct`` (in (0, 1])."""

    f1_threshold: float = Field(1.0, gt=0, le=1)


@metric("squad_exact", task_types=("extractive_qa", "open_writing"), rank=1)
def squad_exact_metric(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """Any accepted target (aliases matched after SQuAD normalization) equals the answer after it."""
    text = as_text(answer)
    accepted = alias_candidates(golds, ctx.alias_groups, key=normalize_squad)
    hit = any(squad_exact_match(text, g) for g in accepted)
    return Score(hit, float(hit), config.metric, SCORED)


@metric("f1", task_types=("extractive_qa", "open_writing"), params=F1Params, rank=2)
def f1_metric(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """The best token F1 over the accepted targets; ``correct`` when it reaches ``f1_threshold``."""
    text = as_text(answer)
    best = max(token_f1(text, g) for g in alias_candidates(golds, ctx.alias_groups, key=normalize_squad))
    return Score(best >= config.f1_threshold, best, config.metric, SCORED)
