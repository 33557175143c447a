"""Text-similarity metrics as a row's value: sentence BLEU, chrF and ROUGE (extra ``text``).

Each row's ``value`` is the sentence score in [0, 1] (sacrebleu's BLEU and chrF divided by 100,
rouge-score's F-measure), against every accepted reference at once (the target list plus
aliases); ``correct`` is exact match after the chain.  The corpus-level numbers, TER, WER, CER
and BERTScore are computed per report group from ``text_metrics`` (see :mod:`scoring._textsim`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field, field_validator

from normalize.core.registry import StrTuple
from scoring._textsim import ROW_METRICS, TEXT_METRICS, sentence_score
from scoring.metrics._registry import (
    SCORED,
    MetricContext,
    MetricParams,
    Score,
    ScoringConfig,
    metric,
)
from scoring.metrics.exact import alias_candidates, as_text, exact_match

__all__ = ["TextParams"]


class TextParams(MetricParams):
    """``text_metrics``: metrics each report group computes at corpus and sentence level;
    ``bleu_tokenize``: a sacrebleu tokenizer; ``bertscore_*``: the local model directory, its
    layer, a baseline file for rescaling (else ``<model>/baseline.tsv`` when present), idf."""

    text_metrics: StrTuple = ()
    bleu_tokenize: str = "13a"
    bertscore_model: str | None = Field(None, min_length=1)
    bertscore_layers: int | None = Field(None, ge=1)
    bertscore_baseline: str | None = Field(None, min_length=1)
    bertscore_idf: bool = False

    @field_validator("text_metrics")
    @classmethod
    def _known(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [n for n in names if n not in TEXT_METRICS]
        if unknown:
            raise ValueError(f"unknown metric {unknown[0]!r}; choose from {', '.join(TEXT_METRICS)}")
        if len(set(names)) != len(names):
            raise ValueError(f"a metric is named twice: {list(names)!r}")
        return names

    @field_validator("bleu_tokenize")
    @classmethod
    def _tokenizer(cls, name: str) -> str:
        import importlib.util

        if importlib.util.find_spec("sacrebleu") is None:  # checked when BLEU is computed
            return name
        from sacrebleu.metrics.bleu import BLEU

        try:
            BLEU(tokenize=name)
        except (RuntimeError, KeyError, TypeError, ValueError):
            raise ValueError(f"{name!r} is not a sacrebleu tokenizer (e.g. 13a, intl, zh, char, none)") from None
        return name


def _sentence(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    text = as_text(answer)
    refs = tuple(alias_candidates([g for g in golds if isinstance(g, str)], ctx.alias_groups))
    hit = any(exact_match(text, r) for r in refs)
    return Score(hit, sentence_score(config.metric, text, refs, config.text), config.metric, SCORED)


for _rank, _name in enumerate(ROW_METRICS, start=10):
    _sentence.__doc__ = f"Sentence {_name} in [0, 1] over every accepted reference; ``correct``: exact match."
    metric(_name, task_types=("extractive_qa", "open_writing"), params=TextParams, rank=_rank)(_sentence)
