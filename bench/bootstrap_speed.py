"""Bootstrap and paired bootstrap: the vectorized version against the original pure-Python one.

Times are CPU seconds of this process, the best of ``--repeat`` runs of each. The reference is the original implementation
(``random.Random(seed).choices`` per resample, ``math.fsum``, sorted percentiles), kept here as
``reference_ci``; both run in this process on the same data, resample count, confidence and
seed. Their streams differ (numpy PCG64 vs Mersenne Twister), so the intervals are printed side
by side: they agree to Monte Carlo error, not bit for bit.

    python bench/bootstrap_speed.py                   # 10,000 items, 1,000 resamples
    python bench/bootstrap_speed.py --items 100000
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from scoring.stats import bootstrap_ci, paired_bootstrap

T = TypeVar("T")


def reference_ci(data: list[float], n_resamples: int, seed: int, confidence: float = 0.95) -> tuple[float, float]:
    n = len(data)
    point = math.fsum(data) / n
    rng = random.Random(seed)
    means = sorted(math.fsum(rng.choices(data, k=n)) / n for _ in range(n_resamples))

    def quantile(q: float) -> float:
        position = q * (len(means) - 1)
        lower = math.floor(position)
        upper = min(lower + 1, len(means) - 1)
        return means[lower] + (means[upper] - means[lower]) * (position - lower)

    alpha = 1.0 - confidence
    return min(quantile(alpha / 2), point), max(quantile(1 - alpha / 2), point)


def _best(repeat: int, run: Callable[[], T]) -> tuple[float, T]:
    """The shortest CPU time of ``repeat`` runs, and the result (the same every run: seeded)."""
    best = math.inf
    for _ in range(repeat):
        start = time.process_time()
        result = run()
        best = min(best, time.process_time() - start)
    return best, result


def _show(interval: tuple[float, float]) -> str:
    return f"[{interval[0]:.4f}, {interval[1]:.4f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(1)
    kinds = {
        "0/1 scores": [float(rng.random() < 0.6) for _ in range(args.items)],
        "F1-like floats": [rng.random() for _ in range(args.items)],
    }
    print(f"{args.items} items, {args.resamples} resamples, seed {args.seed}, best of {args.repeat}")
    for name, data in kinds.items():
        t_ref, ref = _best(args.repeat, partial(reference_ci, data, args.resamples, args.seed))
        t_new, new = _best(args.repeat, partial(bootstrap_ci, data, n_resamples=args.resamples, seed=args.seed))
        print(f"bootstrap_ci  {name:<15} reference {t_ref:7.3f}s  vectorized {t_new:7.3f}s  "
              f"speed-up {t_ref / t_new:6.1f}x  intervals {_show(ref)} vs {_show(new)}")
    a, b = kinds["0/1 scores"], [float(rng.random() < 0.65) for _ in range(args.items)]
    deltas = [y - x for x, y in zip(a, b, strict=True)]
    t_ref, ref = _best(args.repeat, lambda: reference_ci(deltas, args.resamples, args.seed))
    t_new, new_p = _best(args.repeat, lambda: paired_bootstrap(a, b, n_resamples=args.resamples, seed=args.seed))
    print(f"paired        {'0/1 scores':<15} reference {t_ref:7.3f}s  vectorized {t_new:7.3f}s  "
          f"speed-up {t_ref / t_new:6.1f}x  intervals {_show(ref)} vs {_show((new_p.low, new_p.high))}")


if __name__ == "__main__":
    main()
