"""Rewards per second of :class:`scoring.integrations.rewards.NormalizeReward` on 4 KB outputs.

Builds a seeded batch of chain-of-thought completions of about 4 KB each (English and Chinese
prose, then a final answer in one of the usual forms, or none), calls the reward the way TRL
does (one call per batch) and the way verl does (``compute_score`` per completion), in one
thread, in a thread pool and in a process pool, and prints rewards/s.  As a reference it times
``pack.run`` alone over the same outputs in the same process: the ratio says what scoring and
the reward wrapper add over normalization.  A figure, not a test.

    python bench/rewards_throughput.py                # 4,000 completions
    python bench/rewards_throughput.py --n 1000 --workers 2
"""

from __future__ import annotations

import argparse
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from scoring.integrations.rewards import NormalizeReward

WORDS = ("first we compute the total cost of the apples then subtract the discount and check "
         "the arithmetic twice because one slip changes the final result").split()
ZH = "我们先分析题目条件，然后逐步计算，最后检查结果是否合理。"
ENDINGS = ("The answer is {a}.", "#### {a}", "So the final answer is $\\boxed{{{a}}}$.", "答案是{a}。",
           "**Final Answer:** {a}", "I am not sure.")


def completion(rng: random.Random, size: int = 4096) -> tuple[str, str]:
    """One ~``size``-byte completion and its target."""
    answer = str(rng.randint(1, 5000))
    parts: list[str] = []
    used = 0
    while used < size - 80:
        piece = ZH if rng.random() < 0.2 else " ".join(rng.choices(WORDS, k=rng.randint(6, 14))) + "."
        parts.append(piece)
        used += len(piece.encode("utf-8")) + 1
    shown = answer if rng.random() < 0.7 else str(int(answer) + 1)
    parts.append(rng.choice(ENDINGS).format(a=shown))
    return "\n".join(parts), answer


def _chunk(args: tuple[NormalizeReward, list[str], list[str]]) -> list[float]:
    reward, texts, targets = args
    return reward(texts, answer=targets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    data = [completion(rng) for _ in range(args.n)]
    texts, targets = [t for t, _ in data], [a for _, a in data]
    reward = NormalizeReward(task="gsm8k")
    mean_kb = sum(len(t.encode("utf-8")) for t in texts) / len(texts) / 1024
    print(f"{args.n} completions, mean {mean_kb:.2f} KB; pack {reward.pack_hash[:19]}; cpus {os.cpu_count()}")

    def timed(label: str, fn: object) -> float:
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        elapsed = time.perf_counter() - start
        print(f"{label:<34} {args.n / elapsed:>9.0f} rewards/s  ({elapsed:.2f} s)")
        return args.n / elapsed

    base = timed("pack.run only (reference)", lambda: [reward.pack.run(t, "gsm8k") for t in texts])
    trl = timed("TRL call, 1 thread", lambda: reward(texts, answer=targets))
    timed("verl compute_score, 1 thread", lambda: [reward.compute_score("gsm8k", t, a) for t, a in data])
    size = max(1, args.n // (args.workers * 4))
    chunks = [(reward, texts[i:i + size], targets[i:i + size]) for i in range(0, args.n, size)]
    with ThreadPoolExecutor(args.workers) as pool:
        timed(f"TRL call, {args.workers} threads", lambda: list(pool.map(_chunk, chunks)))
    with ProcessPoolExecutor(args.workers) as pool:
        list(pool.map(_chunk, chunks[:args.workers]))  # start the workers outside the timing
        timed(f"TRL call, {args.workers} processes", lambda: list(pool.map(_chunk, chunks)))
    print(f"reward overhead over pack.run: {base / trl:.2f}x the time")


if __name__ == "__main__":
    main()
