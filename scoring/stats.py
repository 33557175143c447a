"""Statistics for honest scores: bootstrap intervals, chance baselines, pass@k, choice rules.

Everything here is deterministic: randomness comes only from ``numpy.random.default_rng(seed)``
(PCG64) created inside each call, so the same inputs and seed always give the same interval
(with the same numpy). The bootstrap is fully vectorized: scores with few distinct values
(0/1 accuracy, paired differences in {-1, 0, 1}) are resampled as multinomial counts of those
values; other scores as a matrix of uniform item indices drawn in chunks of bounded size. Both
consume the generator's stream in a fixed order, so the interval does not depend on the chunk
size.

Bad input raises ``ValueError`` naming the offending value; nothing is clipped or guessed.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
from tqdm import tqdm

__all__ = [
    "PairedResult",
    "bootstrap_ci",
    "chance_adjusted",
    "chance_baseline",
    "choice_prediction",
    "cluster_bootstrap_ci",
    "coefficient_of_variation",
    "paired_bootstrap",
    "pass_at_k",
    "random_fallback_expectation",
    "strict_accuracy",
]


# --------------------------------------------------------------------------- validation


def _finite_values(values: Sequence[float], name: str) -> list[float]:
    out: list[float] = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"{name}[{i}] must be a number, got {v!r}")
        if not math.isfinite(v):
            raise ValueError(f"{name}[{i}] must be finite, got {v!r}")
        out.append(float(v))
    return out


def _check_resampling(n_resamples: int, confidence: float, seed: int) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if not (isinstance(confidence, (int, float)) and 0.0 < confidence < 1.0):
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")


def _unit(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be within [0, 1], got {value!r}")
    return float(value)


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile (the "type 7" rule of R and numpy's default)."""
    position = q * (len(sorted_values) - 1)
    lower = math.floor(position)
    upper = min(lower + 1, len(sorted_values) - 1)
    weight = position - lower
    return sorted_values[lower] + (sorted_values[upper] - sorted_values[lower]) * weight


def _percentile_interval(stats: list[float], confidence: float) -> tuple[float, float]:
    stats.sort()
    alpha = 1.0 - confidence
    return _quantile(stats, alpha / 2), _quantile(stats, 1 - alpha / 2)


# --------------------------------------------------------------------------- bootstrap

#: Random numbers drawn at once (chunks of whole resamples): bounds the memory of a bootstrap.
_CHUNK_ITEMS = 1 << 14
#: Bootstraps of more resampled items than this show a progress bar (on a terminal).
_PROGRESS_ITEMS = 1 << 26
#: Scores with at most ``n // _COUNTS_RATIO`` distinct values are resampled as multinomial counts.
_COUNTS_RATIO = 32


def _uniform_indices(raw: np.ndarray, n: int, spare: np.random.Generator, out: np.ndarray) -> None:
    """Turn uniform 32-bit words into uniform indices below ``n``, exactly, into ``out`` (int64).

    With ``q = 2**32 // n``, each index has exactly ``q`` words ``w < n * q`` with ``w // q`` equal
    to it; the rare words at or above ``n * q`` (probability below ``n / 2**32``) are replaced, in
    order, by draws from ``spare``.
    """
    q = (1 << 32) // n
    np.floor_divide(raw, np.uint32(q), out=out, casting="unsafe")
    if int(raw.max()) >= n * q:
        rejected = raw >= n * q
        out[rejected] = spare.integers(0, n, size=int(rejected.sum()))


def _resample_means(
    data: Sequence[float], n_resamples: int, seed: int, what: str, chunk_items: int = _CHUNK_ITEMS
) -> list[float]:
    """Means of ``n_resamples`` resamples with replacement (``len(data)`` picks each).

    Few distinct values: each resample is a multinomial draw of how often each value is picked
    (the same distribution as picking items, in O(distinct values) per resample). Otherwise each
    pick is an exactly uniform index made from one 32-bit half of the generator's raw output
    (:func:`_uniform_indices`). Chunks hold whole resamples (an even number of them, so no half
    word is skipped) and the stream is consumed in the same order whatever ``chunk_items`` is.
    """
    values = np.asarray(data, dtype=np.float64)
    n = len(values)
    if n >= 1 << 32:
        raise ValueError(f"the bootstrap resamples fewer than 2**32 values, got {n}")
    generator = np.random.default_rng(seed)
    distinct, counts = np.unique(values, return_counts=True)
    by_counts = len(distinct) == 1 or len(distinct) * _COUNTS_RATIO <= n
    per_chunk = max(1, chunk_items // len(distinct)) if by_counts else max(2, chunk_items // n // 2 * 2)
    chunks: Iterator[int] = iter(range(0, n_resamples, per_chunk))
    if not by_counts and n * n_resamples > _PROGRESS_ITEMS:  # counts take milliseconds: no bar
        chunks = iter(tqdm(range(0, n_resamples, per_chunk), desc=what, unit="chunk", leave=False))
    sums: list[np.ndarray] = []
    if by_counts:
        for start in chunks:
            picked = generator.multinomial(n, counts / n, size=min(per_chunk, n_resamples - start))
            sums.append((picked * distinct).sum(axis=1))
    else:
        spare = np.random.default_rng([seed, 1])
        picks = np.empty(per_chunk * n, dtype=np.int64)
        drawn = np.empty(per_chunk * n, dtype=np.float64)
        for start in chunks:
            size = min(per_chunk, n_resamples - start)
            words = generator.bit_generator.random_raw((size * n + 1) // 2).view(np.uint32)[: size * n]
            _uniform_indices(words, n, spare, picks[: size * n])
            # every index is below n by construction: "clip" only skips the bounds check
            values.take(picks[: size * n], out=drawn[: size * n], mode="clip")
            sums.append(drawn[: size * n].reshape(size, n).sum(axis=1))
    means: list[float] = (np.concatenate(sums) / n).tolist()
    return means


def bootstrap_ci(
    values: Sequence[float],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean of ``values``; always contains the mean.

    Each resample draws ``len(values)`` items with replacement, seeded by ``seed`` (numpy PCG64).
    With few or very skewed items the plain percentile interval can miss the point estimate;
    the bounds are then widened to include it, so a report never shows a score outside its
    own interval.

    >>> bootstrap_ci([1, 1, 0, 1, 0, 1, 1, 0, 1, 1], n_resamples=2000, seed=0)
    (0.4, 1.0)
    >>> bootstrap_ci([0.5, 0.5, 0.5])
    (0.5, 0.5)
    """
    data = _finite_values(values, "values")
    if not data:
        raise ValueError("bootstrap_ci needs at least one value, got an empty sequence")
    _check_resampling(n_resamples, confidence, seed)
    n = len(data)
    point = math.fsum(data) / n
    means = _resample_means(data, n_resamples, seed, "bootstrap")
    low, high = _percentile_interval(means, confidence)
    return min(low, point), max(high, point)


def _cluster_sums(values: Sequence[float], clusters: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Per cluster (in order of first appearance): the sum of its values and its item count."""
    if len(values) != len(clusters):
        raise ValueError(f"clusters must give one label per value, got {len(clusters)} for {len(values)} values")
    index: dict[Any, int] = {}
    sums: list[float] = []
    counts: list[int] = []
    for value, label in zip(values, clusters, strict=True):
        key = ("item", len(index)) if label is None else ("cluster", label)  # no label: its own cluster
        at = index.setdefault(key, len(sums))
        if at == len(sums):
            sums.append(0.0)
            counts.append(0)
        sums[at] += value
        counts[at] += 1
    return np.asarray(sums, dtype=np.float64), np.asarray(counts, dtype=np.float64)


def _cluster_means(sums: np.ndarray, counts: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Means of ``n_resamples`` cluster resamples: as many clusters as there are, drawn with
    replacement (a multinomial count per cluster), each resample's mean its picked items' mean."""
    generator = np.random.default_rng(seed)
    k = len(sums)
    out = np.empty(n_resamples, dtype=np.float64)
    per_chunk = max(1, _CHUNK_ITEMS // k)
    for start in range(0, n_resamples, per_chunk):
        size = min(per_chunk, n_resamples - start)
        picked = generator.multinomial(k, np.full(k, 1.0 / k), size=size)
        out[start:start + size] = (picked @ sums) / (picked @ counts)
    return out


def cluster_bootstrap_ci(
    values: Sequence[float],
    clusters: Sequence[Any],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean of ``values`` that resamples **clusters**
    (``clusters[i]`` labels item i; items sharing a passage or source are not independent), as
    inspect_ai's ``ci(cluster=)`` does: each resample draws as many clusters as there are, with
    replacement, and its mean is the mean of the items drawn.  A ``None`` label is its own
    cluster.  Like :func:`bootstrap_ci` the interval always contains the mean.

    >>> bootstrap_ci([1, 1, 1, 1, 0, 0, 0, 0], seed=0)
    (0.125, 0.875)
    >>> cluster_bootstrap_ci([1, 1, 1, 1, 0, 0, 0, 0], ["a", "a", "a", "a", "b", "b", "b", "b"], seed=0)
    (0.0, 1.0)
    """
    data = _finite_values(values, "values")
    if not data:
        raise ValueError("cluster_bootstrap_ci needs at least one value, got an empty sequence")
    _check_resampling(n_resamples, confidence, seed)
    sums, counts = _cluster_sums(data, clusters)
    point = math.fsum(data) / len(data)
    means = _cluster_means(sums, counts, n_resamples, seed).tolist()
    low, high = _percentile_interval(means, confidence)
    return min(low, point), max(high, point)


class PairedResult(NamedTuple):
    """A paired comparison of system B against system A on the same items.

    ``diff`` is mean(B) − mean(A); ``low``/``high`` its percentile bootstrap interval;
    ``p_b_le_a`` the share of resamples in which B scored no higher than A.
    """

    diff: float
    low: float
    high: float
    p_b_le_a: float


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    clusters: Sequence[Any] | None = None,
) -> PairedResult:
    """Paired bootstrap of mean(b) − mean(a): items are resampled together, keeping pairs;
    with ``clusters`` (a label per pair), whole clusters are resampled (:func:`cluster_bootstrap_ci`).

    >>> r = paired_bootstrap([0, 0, 1, 0, 1, 0], [1, 1, 1, 0, 1, 1], n_resamples=500, seed=1)
    >>> round(r.diff, 4), r.low <= r.diff <= r.high, r.p_b_le_a < 0.05
    (0.5, True, True)
    """
    xs = _finite_values(a, "a")
    ys = _finite_values(b, "b")
    if len(xs) != len(ys):
        raise ValueError(f"paired samples must have the same length, got {len(xs)} and {len(ys)}")
    if not xs:
        raise ValueError("paired_bootstrap needs at least one pair, got empty sequences")
    _check_resampling(n_resamples, confidence, seed)
    n = len(xs)
    deltas = [y - x for x, y in zip(xs, ys, strict=True)]
    diff = math.fsum(deltas) / n
    if clusters is not None and any(label is not None for label in clusters):
        diffs = _cluster_means(*_cluster_sums(deltas, clusters), n_resamples, seed).tolist()
    else:
        diffs = _resample_means(deltas, n_resamples, seed, "paired bootstrap")
    not_better = sum(1 for d in diffs if d <= 0.0)
    low, high = _percentile_interval(diffs, confidence)
    return PairedResult(diff, min(low, diff), max(high, diff), not_better / n_resamples)


def coefficient_of_variation(run_scores: Sequence[float]) -> float:
    """Sample standard deviation over the mean of per-run scores (needs two runs or more).

    Identical runs give 0.0 (also when every run scored 0).  A zero mean with spread has no
    coefficient of variation and raises ``ValueError``.

    >>> coefficient_of_variation([0.5, 0.5, 0.5])
    0.0
    >>> round(coefficient_of_variation([0.60, 0.62, 0.58]), 4)
    0.0333
    """
    data = _finite_values(run_scores, "run_scores")
    if len(data) < 2:
        raise ValueError(f"the coefficient of variation needs at least two runs, got {len(data)}")
    spread = statistics.stdev(data)
    if spread == 0.0:
        return 0.0
    mean = statistics.fmean(data)
    if mean == 0.0:
        raise ValueError(f"the runs have mean 0 and spread {spread!r}: no coefficient of variation")
    return spread / abs(mean)


# --------------------------------------------------------------------------- chance and parse rate


def _option_counts(option_counts: Sequence[int]) -> list[int]:
    counts = list(option_counts)
    if not counts:
        raise ValueError("option_counts is empty: a chance baseline needs at least one item")
    for i, k in enumerate(counts):
        if isinstance(k, bool) or not isinstance(k, int):
            raise ValueError(f"option_counts[{i}] must be an integer, got {k!r}")
        if k < 2:
            raise ValueError(f"option_counts[{i}] must be at least 2 options, got {k!r}")
    return counts


def chance_baseline(option_counts: Sequence[int]) -> float:
    """Expected accuracy of uniform guessing: the mean of ``1/K_i`` over items (not ``1/mean K``).

    Assumes exactly one correct option per item and independent uniform guesses.

    >>> chance_baseline([4, 10])
    0.175
    """
    counts = _option_counts(option_counts)
    return float(sum(Fraction(1, k) for k in counts) / len(counts))


def chance_adjusted(accuracy: float, chance: float) -> float:
    """``(accuracy − chance) / (1 − chance)``: 0 at chance, 1 when all correct; negative is kept.

    >>> round(chance_adjusted(0.5, 0.175), 4)
    0.3939
    >>> chance_adjusted(0.1, 0.25) < 0
    True
    """
    acc = _unit(accuracy, "accuracy")
    base = _unit(chance, "chance")
    if base >= 1.0:
        raise ValueError(f"chance must be below 1, got {chance!r}")
    return (acc - base) / (1.0 - base)


def strict_accuracy(r: float, a_valid: float) -> float:
    """Accuracy when every unparsed answer counts wrong: ``r · A_valid``.

    >>> round(strict_accuracy(0.8, 0.75), 10)
    0.6
    """
    return _unit(r, "r") * _unit(a_valid, "a_valid")


def random_fallback_expectation(r: float, a_valid: float, option_counts: Sequence[int]) -> float:
    """Expected accuracy if unparsed answers were replaced by a uniform random option.

    ``r · A_valid + (1 − r) · mean(1/K_i)``, where ``option_counts`` are the option counts of the
    unparsed items (or of all items when they share one K).  The gap to :func:`strict_accuracy`
    is score that comes from the fallback rule, not from the model.

    >>> round(random_fallback_expectation(0.8, 0.75, [10]), 10)
    0.62
    """
    rate = _unit(r, "r")
    return rate * _unit(a_valid, "a_valid") + (1.0 - rate) * chance_baseline(option_counts)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): ``1 − C(n−c, k) / C(n, k)``, computed exactly.

    The ratio of binomial coefficients is formed as a ``Fraction`` of exact integers and rounded
    once, so it neither overflows nor loses precision for large ``n``, and it is monotone in ``k``.

    >>> pass_at_k(5, 2, 1)
    0.4
    >>> pass_at_k(5, 2, 4)
    1.0
    >>> pass_at_k(200, 0, 10)
    0.0
    """
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if n < 1:
        raise ValueError(f"n (samples) must be at least 1, got {n!r}")
    if not 0 <= c <= n:
        raise ValueError(f"c (correct samples) must be within [0, n={n}], got {c!r}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be within [1, n={n}], got {k!r}")
    if n - c < k:
        return 1.0
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


# --------------------------------------------------------------------------- multiple-choice by likelihood


def choice_prediction(
    log_scores: Sequence[float],
    lengths: Sequence[float],
    normalize: bool = False,
) -> int:
    """Index of the best option by log-likelihood, or by log-likelihood per unit of length.

    ``lengths`` are the option lengths in whatever unit the caller documents (characters,
    bytes or tokens); each must be positive even when ``normalize`` is False, so bad inputs
    fail early.  Ties go to the first option.

    >>> choice_prediction([-2, -3], [1, 4])
    0
    >>> choice_prediction([-2, -3], [1, 4], normalize=True)
    1
    >>> choice_prediction([-1.0, -1.0, -2.0], [1, 1, 1])
    0
    """
    scores = list(log_scores)
    sizes = list(lengths)
    if not scores:
        raise ValueError("choice_prediction needs at least one option, got no scores")
    if len(scores) != len(sizes):
        raise ValueError(f"got {len(scores)} scores but {len(sizes)} lengths")
    for i, s in enumerate(scores):
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s):
            raise ValueError(f"log_scores[{i}] must be a finite number, got {s!r}")
    for i, length in enumerate(sizes):
        if isinstance(length, bool) or not isinstance(length, (int, float)) or not math.isfinite(length):
            raise ValueError(f"lengths[{i}] must be a finite number, got {length!r}")
        if length <= 0:
            raise ValueError(f"lengths[{i}] must be positive, got {length!r}")
    keyed = [s / n for s, n in zip(scores, sizes, strict=True)] if normalize else [float(s) for s in scores]
    best = 0
    for i in range(1, len(keyed)):
        if keyed[i] > keyed[best]:
            best = i
    return best
