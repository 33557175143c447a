"""Metrics: does a parsed answer match the target?  One registered function per (task type, metric).

Answers come from the strict parser (see ``normalize.parsers``): a letter for multiple choice,
a canonical number string for math, a dict/list for structured JSON, a string otherwise.
Metrics only *compare*; they never rewrite the answer.  Aliases (the pack's alias groups and a
row's ``aliases``) widen the set of accepted targets when matching.

Targets, by task type:

* ``multiple_choice``: a letter (``"B"``, any case), an ``int`` option index counted **from 0**
  (``1`` → ``"B"``), or the exact text of one option when the row's ``options`` are texts.
* ``math``: a number (``int``/``float``) or the gold answer as the dataset writes it, LaTeX
  included (``"42"``, ``"\\frac{1}{9}"``, ``"(3,-1)"``, ``"20\\%"``), read like the answer.
* ``structured_json``: a dict/list (or any JSON value), or a string holding JSON text.
* ``extractive_qa`` / ``open_writing``: a string, or a list of strings (any of them is right).
  Metrics ``squad_exact`` (extractive QA's default) and ``f1``/``squad_f1`` normalize like the
  SQuAD script but keep numerals, minus signs and name letters; ``squad_official`` and
  ``squad_official_f1`` are the official script exactly (see :mod:`scoring.metrics.squad`).
* ``code``: a string.
* ``judge``: the verdict a human (or a reference judge) gave: ``"A"``, ``"B"``, ``"tie"`` (``"C"``
  is read as tie) for preferences, a number for ratings; metric ``agreement``.
* ``ranking``: relevance labels, ``{id: grade}`` or a list of relevant ids (see
  :mod:`scoring._ranking`); metrics ``ndcg`` (default), ``mrr``, ``map``, ``recall``, ``hit``.

Text-similarity metrics (extra ``text``; see :mod:`scoring._textsim`): ``extractive_qa`` and
``open_writing`` take ``metric: bleu | chrf | rouge1 | rouge2 | rougeL | rougeLsum`` for the
per-row value (sentence score in [0, 1]; ``correct`` is then exact match after the chain), and
``text_metrics: [...]`` (any of ``exact bleu chrf ter rouge1 rouge2 rougeL rougeLsum wer cer
bertscore``) for corpus- and sentence-level scores with bootstrap intervals in the report.

The pack's ``scoring:`` section sets the metric per task type, and may override it per task
name (a task's entry is laid over its type's entry).  Keys, with defaults:

====================  ========================================  ==============================
key                   meaning                                   default / allowed
====================  ========================================  ==============================
``metric``            which comparison                          per type, see ``METRICS``
``rel_tol``           math: relative tolerance                  ``0`` (exact)
``abs_tol``           math: absolute tolerance                  ``0`` (exact)
``timeout``           math_verify: seconds per comparison       ``5``
``f1_threshold``      f1 metrics: value counted as ``correct``  ``1.0``
``text_metrics``      text: metrics reported per group          ``[]``
``bleu_tokenize``     text: sacrebleu tokenizer for BLEU        ``13a`` (``zh`` for Chinese)
``bertscore_model``   text: local model directory               none (never downloaded)
``bertscore_layers``  text: layer whose embeddings are used     the model's last layer
``bertscore_baseline`` text: baseline file for rescaling        ``<model>/baseline.tsv`` if present
``bertscore_idf``     text: idf weights from the references     ``false``
``k``                 ranking: cutoff (nDCG@k, Recall@k, …)     none (whole list)
``gain``              ranking: nDCG gain                        ``exponential`` (2^g − 1) or ``linear``
``position_bias``     judge: inconsistent both-order pairs      ``tie`` (count a tie) or ``drop``
``anchor``            judge: model fixed at ``anchor_rating``   the first model by name
``anchor_rating``     judge: Elo rating of the anchor           ``1000``
====================  ========================================  ==============================

Metrics register like rules (``@metric(name, task_types=..., params=...)`` in
:mod:`scoring.metrics._registry`), one module per family: :mod:`~scoring.metrics.exact`
(exact match, aliases), :mod:`~scoring.metrics.numeric`, :mod:`~scoring.metrics.json`,
:mod:`~scoring.metrics.squad`, :mod:`~scoring.metrics.code`, :mod:`~scoring.metrics.math_verify`,
:mod:`~scoring.metrics.textsim`, :mod:`~scoring.metrics.ranking`, :mod:`~scoring.metrics.judge`.
The ``scoring:`` section is checked against their parameter models when the pack loads.

A metric gives a :class:`Score`: ``value`` in [0, 1] (1/0 for yes/no metrics, the F1 for
``f1``/``field_f1``), which reports average, and ``correct`` (``value >= f1_threshold`` for F1
metrics), which goes into the ``correct`` column.
"""

from __future__ import annotations

import importlib as _importlib
import pkgutil as _pkgutil

from normalize.core.registry import REGISTRY as _NORMALIZE_REGISTRY
from scoring._mathverify import MathVerifier
from scoring.metrics import code as _code  # noqa: F401
from scoring.metrics import exact as _exact  # noqa: F401
from scoring.metrics import json as _json  # noqa: F401
from scoring.metrics import judge as _judge  # noqa: F401
from scoring.metrics import math_verify as _math_verify  # noqa: F401
from scoring.metrics import numeric as _numeric  # noqa: F401
from scoring.metrics import ranking as _ranking  # noqa: F401

# Importing the family modules registers their metrics.
from scoring.metrics import squad as _squad  # noqa: F401
from scoring.metrics import symbolic as _symbolic  # noqa: F401
from scoring.metrics import textsim as _textsim  # noqa: F401
from scoring.metrics._registry import (
    BAD_TARGET,
    METRIC_REGISTRY,
    METRICS,
    NO_ANSWER,
    NO_TARGET,
    OUTCOMES,
    SCORED,
    MetricContext,
    MetricDef,
    MetricParams,
    NoMetricParams,
    Outcome,
    Score,
    ScoringConfig,
    metric,
    scoring_config,
    validate_scoring_section,
)
from scoring.metrics._rows import (
    Scored,
    compare,
    read_output_row,
    read_scored,
    read_targets,
    score_answer,
    score_detail,
    score_result,
    score_row,
    score_rows,
)
from scoring.metrics.code import code_match
from scoring.metrics.exact import alias_candidates, choice_letter, exact_match
from scoring.metrics.json import (
    FieldScores,
    canonicalize_json,
    flatten_json,
    json_equal,
    json_field_scores,
)
from scoring.metrics.math_verify import math_verify_match
from scoring.metrics.numeric import number_out_of_range, numeric_match, parse_number
from scoring.metrics.squad import (
    normalize_official,
    normalize_squad,
    official_exact,
    official_f1,
    squad_exact_match,
    squad_tokens,
    token_f1,
)
from scoring.metrics.symbolic import math_match

# A family module added to this package (a new task type family's metrics and target reader)
# registers itself without an import line here: every public module of the package is imported.
for _module in _pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        _importlib.import_module(f"{__name__}.{_module.name}")

# The pack loader checks ``scoring:`` against the registered metrics' parameter models.
_NORMALIZE_REGISTRY.add_section("scoring", validate_scoring_section)

__all__ = [
    "BAD_TARGET",
    "METRICS",
    "METRIC_REGISTRY",
    "NO_ANSWER",
    "NO_TARGET",
    "OUTCOMES",
    "SCORED",
    "FieldScores",
    "MathVerifier",
    "MetricContext",
    "MetricDef",
    "MetricParams",
    "NoMetricParams",
    "Outcome",
    "Score",
    "Scored",
    "ScoringConfig",
    "alias_candidates",
    "canonicalize_json",
    "choice_letter",
    "code_match",
    "compare",
    "exact_match",
    "flatten_json",
    "json_equal",
    "json_field_scores",
    "math_match",
    "math_verify_match",
    "metric",
    "normalize_official",
    "normalize_squad",
    "number_out_of_range",
    "numeric_match",
    "official_exact",
    "official_f1",
    "parse_number",
    "read_output_row",
    "read_scored",
    "read_targets",
    "score_answer",
    "score_detail",
    "score_result",
    "score_row",
    "score_rows",
    "scoring_config",
    "squad_exact_match",
    "squad_tokens",
    "token_f1",
    "validate_scoring_section",
]
