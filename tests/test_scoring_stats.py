"""Statistics: hand-computed values from the seed material, invariants, and bad input."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.stats import (
    PairedResult,
    _resample_means,
    _uniform_indices,
    bootstrap_ci,
    chance_adjusted,
    chance_baseline,
    choice_prediction,
    coefficient_of_variation,
    paired_bootstrap,
    pass_at_k,
    random_fallback_expectation,
    strict_accuracy,
)

# ---------------------------------------------------------------- hand-computed (seed 003)


def test_strict_accuracy_and_random_fallback_from_the_seed() -> None:
    # r = 0.8, A_valid = 0.75, K = 10: strict 0.6, random fallback expectation 0.62.
    assert strict_accuracy(0.8, 0.75) == pytest.approx(0.6, abs=1e-12)
    assert random_fallback_expectation(0.8, 0.75, [10]) == pytest.approx(0.62, abs=1e-12)
    # the fallback adds (1 - r)/K = 0.02 of score that the model never earned
    gap = random_fallback_expectation(0.8, 0.75, [10]) - strict_accuracy(0.8, 0.75)
    assert gap == pytest.approx(0.2 / 10)


def test_chance_baseline_averages_one_over_k_per_item() -> None:
    assert chance_baseline([4, 10]) == pytest.approx(0.175)
    # not 1 / mean(K) = 1/7
    assert chance_baseline([4, 10]) != pytest.approx(1 / 7)
    assert chance_adjusted(0.5, chance_baseline([4, 10])) == pytest.approx(0.3939, abs=1e-4)
    assert chance_adjusted(0.5, 0.175) == pytest.approx(0.325 / 0.825)


def test_negative_adjusted_accuracy_is_kept() -> None:
    assert chance_adjusted(0.1, 0.25) == pytest.approx(-0.2)
    assert chance_adjusted(0.0, 0.5) == -1.0
    assert chance_adjusted(1.0, 0.25) == 1.0


def test_choice_prediction_raw_vs_length_normalized() -> None:
    assert choice_prediction([-2, -3], [1, 4]) == 0
    assert choice_prediction([-2, -3], [1, 4], normalize=True) == 1
    assert choice_prediction([-2.0, -3.0], [1, 4], False) == 0


def test_choice_prediction_ties_go_to_the_first_option() -> None:
    assert choice_prediction([-1.5, -1.5, -1.5], [1, 2, 3]) == 0
    assert choice_prediction([-3.0, -1.0, -1.0], [1, 1, 1]) == 1
    assert choice_prediction([-2.0, -4.0], [1, 2], normalize=True) == 0


@pytest.mark.parametrize(
    ("scores", "lengths", "needle"),
    [
        ([float("nan"), -1.0], [1, 1], "nan"),
        ([-1.0, float("-inf")], [1, 1], "-inf"),
        ([-1.0, -2.0], [1, 0], "lengths[1] must be positive, got 0"),
        ([-1.0, -2.0], [-3, 1], "-3"),
        ([-1.0, -2.0], [1, float("inf")], "inf"),
        ([-1.0], [1, 2], "1 scores but 2 lengths"),
        ([], [], "at least one option"),
        (["a"], [1], "'a'"),
    ],
)
def test_choice_prediction_rejects_bad_values(scores: list[Any], lengths: list[Any], needle: str) -> None:
    with pytest.raises(ValueError) as info:
        choice_prediction(scores, lengths)
    assert needle in str(info.value)


@pytest.mark.parametrize(
    ("counts", "needle"),
    [([4, 1], "got 1"), ([], "empty"), ([4, 2.5], "2.5"), ([True, 4], "True"), ([0], "got 0")],
)
def test_chance_baseline_rejects_bad_counts(counts: list[Any], needle: str) -> None:
    with pytest.raises(ValueError) as info:
        chance_baseline(counts)
    assert needle in str(info.value)


@pytest.mark.parametrize(
    ("accuracy", "chance", "needle"),
    [(1.5, 0.25, "1.5"), (-0.1, 0.25, "-0.1"), (float("nan"), 0.25, "nan"),
     (0.5, 1.0, "below 1"), (0.5, float("inf"), "inf")],
)
def test_chance_adjusted_rejects_bad_values(accuracy: float, chance: float, needle: str) -> None:
    with pytest.raises(ValueError) as info:
        chance_adjusted(accuracy, chance)
    assert needle in str(info.value)


def test_strict_and_fallback_reject_rates_outside_unit_interval() -> None:
    with pytest.raises(ValueError, match=r"1\.2"):
        strict_accuracy(1.2, 0.5)
    with pytest.raises(ValueError, match="a_valid"):
        random_fallback_expectation(0.5, -0.5, [4])
    with pytest.raises(ValueError, match="at least 2"):
        random_fallback_expectation(0.5, 0.5, [1])


# ---------------------------------------------------------------- pass@k


def test_pass_at_k_known_values() -> None:
    assert pass_at_k(10, 0, 1) == 0.0
    assert pass_at_k(10, 10, 5) == 1.0
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - math.comb(3, 2) / math.comb(4, 2))
    # huge n neither overflows nor underflows
    assert 0.0 < pass_at_k(100_000, 1, 5) < 1e-3


@pytest.mark.parametrize(("n", "c", "k"), [(0, 0, 1), (5, 6, 1), (5, -1, 1), (5, 2, 0), (5, 2, 6), (5.0, 2, 1)])
def test_pass_at_k_rejects_bad_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_at_k_is_a_probability_and_monotone_in_k(nc: tuple[int, int]) -> None:
    n, c = nc
    values = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a <= b for a, b in itertools.pairwise(values))
    assert values[0] == pytest.approx(c / n)


# ---------------------------------------------------------------- bootstrap


def test_bootstrap_ci_is_deterministic_for_a_seed() -> None:
    values = [1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 0]
    assert bootstrap_ci(values, seed=7) == bootstrap_ci(values, seed=7)
    low, high = bootstrap_ci(values, n_resamples=2000, seed=3)
    assert 0.2 < low < 7 / 12 < high < 0.9


def test_bootstrap_ci_narrows_with_more_items() -> None:
    small = bootstrap_ci([1, 0] * 10, seed=1)
    large = bootstrap_ci([1, 0] * 500, seed=1)
    assert (large[1] - large[0]) < (small[1] - small[0])


@pytest.mark.parametrize(
    ("values", "kwargs", "needle"),
    [([], {}, "empty"), ([1.0, float("nan")], {}, "values[1]"), ([1.0], {"n_resamples": 0}, "n_resamples"),
     ([1.0], {"confidence": 1.0}, "confidence"), ([True], {}, "True")],
)
def test_bootstrap_ci_rejects_bad_input(values: list[Any], kwargs: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValueError) as info:
        bootstrap_ci(values, **kwargs)
    assert needle in str(info.value)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=25),
    st.integers(0, 2**32),
    st.integers(1, 60),
)
def test_bootstrap_ci_contains_the_point_estimate(values: list[float], seed: int, resamples: int) -> None:
    low, high = bootstrap_ci(values, n_resamples=resamples, seed=seed)
    mean = math.fsum(values) / len(values)
    assert low <= mean <= high


def test_paired_bootstrap_detects_a_clear_improvement() -> None:
    a = [0, 1, 0, 0, 1, 0, 0, 1, 0, 0] * 5
    b = [1, 1, 1, 0, 1, 1, 0, 1, 1, 0] * 5
    result = paired_bootstrap(a, b, n_resamples=1000, seed=0)
    assert isinstance(result, PairedResult)
    assert result.diff == pytest.approx(0.4)
    assert 0 < result.low < result.diff < result.high
    assert result.p_b_le_a == 0.0
    swapped = paired_bootstrap(b, a, n_resamples=1000, seed=0)
    assert swapped.diff == pytest.approx(-0.4)
    assert swapped.p_b_le_a == 1.0


def test_paired_bootstrap_identical_systems() -> None:
    result = paired_bootstrap([1, 0, 1], [1, 0, 1], n_resamples=50, seed=0)
    assert result == PairedResult(0.0, 0.0, 0.0, 1.0)


def test_paired_bootstrap_rejects_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="3 and 2"):
        paired_bootstrap([1, 0, 1], [1, 0], n_resamples=10, seed=0)


# ---------------------------------------------------------------- coefficient of variation


def test_coefficient_of_variation() -> None:
    assert coefficient_of_variation([0.5, 0.5]) == 0.0
    assert coefficient_of_variation([0.0, 0.0, 0.0]) == 0.0
    assert coefficient_of_variation([0.4, 0.6]) == pytest.approx(math.sqrt(0.02) / 0.5)
    with pytest.raises(ValueError, match="at least two runs"):
        coefficient_of_variation([0.5])
    with pytest.raises(ValueError, match="mean 0"):
        coefficient_of_variation([-1.0, 1.0])


def test_bootstrap_does_not_depend_on_the_chunk_size() -> None:
    scores = [float(i % 3 == 0) for i in range(400)]  # few distinct values: multinomial counts
    floats = [((i * 7919) % 1000) / 1000 for i in range(400)]  # many distinct values: index matrix
    for data in (scores, floats):
        reference = _resample_means(data, 37, 5, "test")
        for chunk_items in (1, 3, 400, 401, 10_000, 1 << 20):
            assert _resample_means(data, 37, 5, "test", chunk_items=chunk_items) == reference
    assert _resample_means(scores, 37, 5, "test") != _resample_means(scores, 37, 6, "test")


@pytest.mark.parametrize("distinct", [False, True])
def test_bootstrap_ci_matches_the_binomial_interval(distinct: bool) -> None:
    # 0/1 scores (resampled as counts) and the same scores nudged apart so that every value is
    # distinct (resampled by index) must both give the normal binomial interval p ± 1.96·√(p(1−p)/n).
    n, p = 2000, 0.3
    values = [float(i % 10 < 3) for i in range(n)]
    if distinct:
        values = [v + i * 1e-9 for i, v in enumerate(values)]
    low, high = bootstrap_ci(values, n_resamples=4000, seed=11)
    half = 1.959964 * math.sqrt(p * (1 - p) / n)
    assert low == pytest.approx(p - half, abs=0.003)
    assert high == pytest.approx(p + half, abs=0.003)


def test_paired_bootstrap_matches_the_normal_interval_of_the_differences() -> None:
    a = [float(i % 4 == 0) for i in range(3000)]
    b = [float(i % 3 == 0) for i in range(3000)]
    deltas = [y - x for x, y in zip(a, b, strict=True)]
    mean = math.fsum(deltas) / len(deltas)
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in deltas) / len(deltas))
    result = paired_bootstrap(a, b, n_resamples=4000, seed=2)
    half = 1.959964 * sd / math.sqrt(len(deltas))
    assert result.low == pytest.approx(mean - half, abs=0.003)
    assert result.high == pytest.approx(mean + half, abs=0.003)
    assert result == paired_bootstrap(a, b, n_resamples=4000, seed=2)


def test_uniform_indices_replace_the_words_above_the_last_whole_block() -> None:
    # n = 3: q = 2**32 // 3 words per index; the one word at or above 3q is redrawn from `spare`.
    q = (1 << 32) // 3
    words = np.array([0, q - 1, q, 2 * q, 3 * q - 1, 3 * q, 2**32 - 1], dtype=np.uint32)
    out = np.empty(len(words), dtype=np.int64)
    _uniform_indices(words, 3, np.random.default_rng(9), out)
    assert out[:5].tolist() == [0, 0, 1, 2, 2]
    assert out[5:].tolist() == np.random.default_rng(9).integers(0, 3, size=2).tolist()


def test_bootstrap_rejects_a_negative_seed() -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):
        bootstrap_ci([1.0, 0.0], seed=-1)
    with pytest.raises(ValueError, match="seed"):
        paired_bootstrap([1.0], [0.0], seed=-1)
