"""Multiple-choice and perplexity metrics on top of a log-likelihood scorer (no torch here).

A choice row is ``{"id", "context", "choices": [...], "target": int,
"unconditional_context"?: str}``; every choice is scored as the continuation
``target_delimiter + choice`` of ``context`` (lm-eval's ``multiple_choice`` requests, whose
default delimiter is one space).  Per row and metric the predicted choice is:

* ``acc``: the largest summed log-probability;
* ``acc_norm``: summed log-probability divided by the length of the choice *string as given*
  (without the delimiter).  ``length_unit="bytes"`` (default) counts UTF-8 bytes, which is
  lm-eval 0.4.13's ``acc_bytes``; ``length_unit="chars"`` counts code points, which is what
  lm-eval 0.4.13's ``acc_norm`` divides by (``len(choice)``).  They differ only for non-ASCII
  text: "巴黎" is 2 characters and 6 bytes;
* ``per_token``: divided by the number of continuation tokens (delimiter included, as scored);
* ``pmi``: ``log p(y | context) - log p(y | unconditional_context)`` with the row's
  ``unconditional_context`` or the default ``"Answer:"``; each distinct (unconditional
  context, choice) is scored once for the whole run.  (lm-eval's ``acc_mutual_info`` uses an
  empty unconditional context, i.e. the BOS/EOS token: pass ``unconditional_context=""``.)

When every choice is one character of equal length (letter-keyed A/B/C/D), dividing by the
length cannot change the argmax: ``acc_norm`` is then reported as the ``acc`` prediction and
``acc_norm_same_as_acc`` is set, instead of a second number that only looks independent.
Ties go to the first choice (`scoring.stats.choice_prediction`).

A row with only ``"text"`` (and ``"id"``) is a perplexity row: its ``bits_per_byte`` is
``-logprob / (utf8_bytes * ln 2)`` with the log-likelihood of the whole text conditioned on
the BOS/EOS token (rolling windows when longer than the model's context).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, Protocol

from normalize.errors import UsageError
from scoring.lm.loglik import LoglikResult
from scoring.stats import bootstrap_ci, choice_prediction

METRICS = ("acc", "acc_norm", "per_token", "pmi")
DEFAULT_UNCONDITIONAL_CONTEXT = "Answer:"


class LoglikBackend(Protocol):
    """What the metrics need from a scorer (`LogLikelihoodScorer` satisfies it)."""

    def loglikelihood(self, requests: Sequence[tuple[str, str]]) -> list[LoglikResult]: ...

    def loglikelihood_rolling(self, texts: Sequence[str]) -> list[LoglikResult]: ...


@dataclass(frozen=True)
class ChoiceRowResult:
    """Predictions of one multiple-choice row; ``error`` set means no prediction."""

    id: Any
    target: int | None
    predictions: dict[str, int] = field(default_factory=dict)
    correct: dict[str, bool] = field(default_factory=dict)
    logprobs: list[float] = field(default_factory=list)
    n_tokens: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    unconditional_logprobs: list[float] | None = None
    is_greedy: list[bool] = field(default_factory=list)
    boundaries: list[str] = field(default_factory=list)
    acc_norm_same_as_acc: bool = False
    warnings: list[str] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (``-inf`` log-probabilities become None)."""
        out = asdict(self)
        out["kind"] = "choice"
        for name in ("logprobs", "unconditional_logprobs"):
            if out[name] is not None:
                out[name] = [v if math.isfinite(v) else None for v in out[name]]
        return out


@dataclass(frozen=True)
class TextRowResult:
    """Log-likelihood and bits per byte of one perplexity row."""

    id: Any
    logprob: float | None
    n_tokens: int
    n_bytes: int
    bits_per_byte: float | None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        out = asdict(self)
        out["kind"] = "text"
        return out


RowResult = ChoiceRowResult | TextRowResult


def choice_length(choice: str, unit: Literal["bytes", "chars"] = "bytes") -> int:
    """Length of a choice string as given, in UTF-8 bytes or in characters (code points).

    >>> choice_length("巴黎"), choice_length("巴黎", "chars"), choice_length(" Paris")
    (6, 2, 6)
    """
    if unit == "bytes":
        return len(choice.encode("utf-8"))
    if unit == "chars":
        return len(choice)
    raise UsageError(f"length_unit must be 'bytes' or 'chars', got {unit!r}")


def whitespace_warnings(context: str, choices: Sequence[str], target_delimiter: str) -> list[str]:
    """Warnings about whitespace that silently shifts scores or lengths.

    >>> whitespace_warnings("Q:", [" a", "b"], "")
    ['choices have inconsistent leading whitespace: [0] do, [1] do not']
    >>> whitespace_warnings("Q:", ["a ", "b "], " ")
    []
    """
    out: list[str] = []
    for side in ("leading", "trailing"):
        flags = [(c[:1] if side == "leading" else c[-1:]).isspace() for c in choices]
        if any(flags) and not all(flags):
            with_ws = [i for i, f in enumerate(flags) if f]
            without = [i for i, f in enumerate(flags) if not f]
            out.append(
                f"choices have inconsistent {side} whitespace: "
                f"{with_ws} do, {without} do not"
            )
    if target_delimiter and target_delimiter[-1:].isspace():
        doubled = [i for i, c in enumerate(choices) if c[:1].isspace()]
        if doubled:
            out.append(f"choices {doubled} start with whitespace and the delimiter adds more")
        if context[-1:].isspace():
            out.append("context ends with whitespace and the delimiter adds more")
    return out


def _row_error(row: Mapping[str, Any]) -> str | None:
    context, choices, target = row.get("context"), row.get("choices"), row.get("target")
    if not isinstance(context, str):
        return f"context must be a string, got {type(context).__name__}"
    if not isinstance(choices, list) or not choices:
        return "choices must be a non-empty list"
    for i, choice in enumerate(choices):
        if not isinstance(choice, str) or choice == "":
            return f"choices[{i}] must be a non-empty string, got {choice!r}"
    if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < len(choices):
        return f"target must be an index into {len(choices)} choices, got {target!r}"
    uncond = row.get("unconditional_context")
    if uncond is not None and not isinstance(uncond, str):
        return f"unconditional_context must be a string, got {type(uncond).__name__}"
    return None


def score_rows(
    rows: Sequence[Mapping[str, Any]],
    scorer: LoglikBackend,
    *,
    metrics: Sequence[str] = METRICS,
    target_delimiter: str = " ",
    length_unit: Literal["bytes", "chars"] = "bytes",
    unconditional_context: str = DEFAULT_UNCONDITIONAL_CONTEXT,
) -> list[RowResult]:
    """Score choice rows and perplexity (``"text"``) rows; results follow row order.

    All requests of all rows go to the scorer in one call (it sorts, batches and shares
    contexts); every distinct request is sent once.
    """
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise UsageError(f"unknown metrics {unknown}; known: {list(METRICS)}")
    choice_length("", length_unit)  # validates the unit
    requests: dict[tuple[str, str], int] = {}

    def request(context: str, continuation: str) -> int:
        return requests.setdefault((context, continuation), len(requests))

    plans: list[tuple[str, Any]] = []
    texts: list[str] = []
    for row in rows:
        if not isinstance(row, Mapping):
            plans.append(("error", f"row must be a mapping, got {type(row).__name__}"))
        elif "choices" not in row and "text" in row:
            if not isinstance(row["text"], str) or not row["text"]:
                plans.append(("error", "text must be a non-empty string"))
            else:
                plans.append(("text", len(texts)))
                texts.append(row["text"])
        elif (problem := _row_error(row)) is not None:
            plans.append(("error", problem))
        else:
            conts = [target_delimiter + c for c in row["choices"]]
            cond = [request(row["context"], c) for c in conts]
            uncond_ctx = row.get("unconditional_context", unconditional_context)
            uncond = [request(uncond_ctx, c) for c in conts] if "pmi" in metrics else None
            plans.append(("choice", (cond, uncond)))
    scored = scorer.loglikelihood(list(requests)) if requests else []
    rolled = scorer.loglikelihood_rolling(texts) if texts else []
    out: list[RowResult] = []
    for row, (kind, plan) in zip(rows, plans, strict=True):
        row_id = row.get("id") if isinstance(row, Mapping) else None
        if kind == "error":
            out.append(ChoiceRowResult(id=row_id, target=None, error=plan))
        elif kind == "text":
            out.append(_text_result(row_id, row["text"], rolled[plan]))
        else:
            cond, uncond = plan
            out.append(_choice_result(
                row, [scored[i] for i in cond],
                None if uncond is None else [scored[i] for i in uncond],
                metrics, target_delimiter, length_unit,
            ))
    return out


def _text_result(row_id: Any, text: str, result: LoglikResult) -> TextRowResult:
    n_bytes = len(text.encode("utf-8"))
    if result.error is not None:
        return TextRowResult(row_id, None, 0, n_bytes, None, result.error)
    bpb = -result.logprob / (n_bytes * math.log(2))
    return TextRowResult(row_id, result.logprob, result.n_tokens, n_bytes, bpb)


def _choice_result(
    row: Mapping[str, Any],
    cond: list[LoglikResult],
    uncond: list[LoglikResult] | None,
    metrics: Sequence[str],
    target_delimiter: str,
    length_unit: Literal["bytes", "chars"],
) -> ChoiceRowResult:
    choices: list[str] = row["choices"]
    target: int = row["target"]
    lengths = [choice_length(c, length_unit) for c in choices]
    same = all(len(c) == 1 for c in choices) and len(set(lengths)) == 1
    base = ChoiceRowResult(
        id=row.get("id"),
        target=target,
        logprobs=[r.logprob for r in cond],
        n_tokens=[r.n_tokens for r in cond],
        lengths=lengths,
        unconditional_logprobs=None if uncond is None else [r.logprob for r in uncond],
        is_greedy=[r.is_greedy for r in cond],
        boundaries=[r.boundary for r in cond],
        acc_norm_same_as_acc=same and "acc_norm" in metrics,
        warnings=whitespace_warnings(row["context"], choices, target_delimiter),
    )
    failures = [f"choice {i}: {r.error}" for i, r in enumerate(cond) if r.error]
    failures += [f"unconditional {i}: {r.error}" for i, r in enumerate(uncond or []) if r.error]
    if failures:
        return _replace(base, error="; ".join(failures))
    lls = base.logprobs
    predictions: dict[str, int] = {}
    for metric in metrics:
        if metric == "acc" or (metric == "acc_norm" and same):
            predictions[metric] = choice_prediction(lls, lengths)
        elif metric == "acc_norm":
            predictions[metric] = choice_prediction(lls, lengths, normalize=True)
        elif metric == "per_token":
            predictions[metric] = choice_prediction(lls, base.n_tokens, normalize=True)
        elif uncond is not None:  # pmi
            pmi = [c.logprob - u.logprob for c, u in zip(cond, uncond, strict=True)]
            predictions[metric] = choice_prediction(pmi, [1] * len(pmi))
    correct = {m: p == target for m, p in predictions.items()}
    return _replace(base, predictions=predictions, correct=correct)


def _replace(result: ChoiceRowResult, **changes: Any) -> ChoiceRowResult:
    return replace(result, **changes)


@dataclass(frozen=True)
class MetricSummary:
    """Accuracy of one metric over the rows that have a prediction, with its interval."""

    metric: str
    n: int
    accuracy: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class ChoiceReport:
    """Per-metric accuracy with bootstrap intervals plus the acc/acc_norm disagreement rate."""

    metrics: dict[str, MetricSummary]
    n_rows: int
    n_errors: int
    n_warned: int
    n_acc_norm_same_as_acc: int
    acc_vs_acc_norm_disagreement: float | None
    n_text_rows: int
    bits_per_byte: float | None
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def choice_report(
    results: Sequence[RowResult],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> ChoiceReport:
    """Summarise row results: accuracy and bootstrap interval per metric, disagreements.

    ``acc_vs_acc_norm_disagreement`` is the share of rows (with both predictions) where acc and
    acc_norm pick different choices.  ``bits_per_byte`` over text rows is
    ``-sum(logprob) / (sum(bytes) * ln 2)`` (lm-eval's corpus-level aggregation).
    """
    choice_rows = [r for r in results if isinstance(r, ChoiceRowResult)]
    text_rows = [r for r in results if isinstance(r, TextRowResult)]
    ok = [r for r in choice_rows if r.error is None]
    summaries: dict[str, MetricSummary] = {}
    for metric in METRICS:
        values = [1.0 if r.correct[metric] else 0.0 for r in ok if metric in r.correct]
        if values:
            low, high = bootstrap_ci(values, n_resamples=n_resamples, seed=seed,
                                     confidence=confidence)
            summaries[metric] = MetricSummary(metric, len(values), math.fsum(values) / len(values),
                                              low, high)
    both = [r for r in ok if "acc" in r.predictions and "acc_norm" in r.predictions]
    disagree = (
        sum(r.predictions["acc"] != r.predictions["acc_norm"] for r in both) / len(both)
        if both else None
    )
    good_text = [r for r in text_rows if r.error is None and r.logprob is not None]
    total_bytes = sum(r.n_bytes for r in good_text)
    bpb = (
        -math.fsum(r.logprob for r in good_text if r.logprob is not None)
        / (total_bytes * math.log(2))
        if total_bytes else None
    )
    return ChoiceReport(
        metrics=summaries,
        n_rows=len(results),
        n_errors=sum(r.error is not None for r in results),
        n_warned=sum(bool(r.warnings) for r in choice_rows),
        n_acc_norm_same_as_acc=sum(r.acc_norm_same_as_acc for r in ok),
        acc_vs_acc_norm_disagreement=disagree,
        n_text_rows=len(text_rows),
        bits_per_byte=bpb,
        confidence=confidence,
    )
