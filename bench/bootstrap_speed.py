"""Bootstrap and paired bootstrap: the vectorized version against the pure-Python reference.

Times are CPU seconds of this process. The reference is the previous implementation (``random.Random(seed).choices`` per resample and
``math.fsum``), written out here; both run in this process on the same data and seed, and the
script checks that they give the same interval before printing the speed-up.

    python bench/bootstrap_speed.py                   # 10,000 items, 1,000 resamples
    python bench/bootstrap_speed.py --items 100000
"""

from __future__ import annotations

import argparse
import math
import random
import time

from scoring.stats import bootstrap_ci, paired_bootstrap


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(1)
    kinds = {
        "0/1 scores": [float(rng.random() < 0.6) for _ in range(args.items)],
        "F1-like floats": [rng.random() for _ in range(args.items)],
    }
    print(f"{args.items} items, {args.resamples} resamples, seed {args.seed}")
    for name, data in kinds.items():
        start = time.process_time()
        ref = reference_ci(data, args.resamples, args.seed)
        t_ref = time.process_time() - start
        start = time.process_time()
        new = bootstrap_ci(data, n_resamples=args.resamples, seed=args.seed)
        t_new = time.process_time() - start
        same = "identical" if ref == new else f"DIFFERENT {ref} vs {new}"
        print(f"bootstrap_ci  {name:<15} reference {t_ref:7.3f}s  vectorized {t_new:7.3f}s  "
              f"speed-up {t_ref / t_new:6.1f}x  interval {same}")
    a, b = kinds["0/1 scores"], [float(rng.random() < 0.65) for _ in range(args.items)]
    deltas = [y - x for x, y in zip(a, b, strict=True)]
    start = time.process_time()
    ref = reference_ci(deltas, args.resamples, args.seed)
    t_ref = time.process_time() - start
    start = time.process_time()
    new_p = paired_bootstrap(a, b, n_resamples=args.resamples, seed=args.seed)
    t_new = time.process_time() - start
    same = "identical" if ref == (new_p.low, new_p.high) else f"DIFFERENT {ref} vs {new_p}"
    print(f"paired        {'0/1 scores':<15} reference {t_ref:7.3f}s  vectorized {t_new:7.3f}s  "
          f"speed-up {t_ref / t_new:6.1f}x  interval {same}")


if __name__ == "__main__":
    main()
