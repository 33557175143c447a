"""Throughput of the shipped chains, per task type, against a bare single-regex extraction.

Generates a seeded corpus of model outputs (mixed lengths up to 4 KB, English and Chinese,
chain-of-thought, markers, boxes, JSON, code), runs every task type's full chain and parser
over its share, and runs one precompiled regex search over the same outputs as a baseline in
the same process (CPU time, the fastest of ``--repeat`` runs of each; each run reads its own
corpus, seeds ``--seed`` on, so nothing cached by text in one run serves the next).  Prints
items/s and the ratio baseline/chain (how many times slower the full chain is than the least a
harness could do).  A figure, not a test.

    python bench/normalize_throughput.py            # 100k outputs
    python bench/normalize_throughput.py --n 20000  # quicker
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import regex

from normalize import load_pack

WORDS = (
    "the model first considers each option carefully and then checks the arithmetic again "
    "because a small slip changes the final result so we verify every step before answering"
).split()
JSON_VALUES = ("1", "True", "None", '"v"', "[1, 2]", '"引号“内”"')
ZH = "我们先分析题目条件，然后逐步计算，最后检查结果是否合理。"


def _prose(rng: random.Random, max_bytes: int) -> str:
    target = rng.randint(0, max_bytes)
    parts: list[str] = []
    size = 0
    while size < target:
        piece = ZH if rng.random() < 0.3 else " ".join(rng.choices(WORDS, k=rng.randint(5, 15))) + "."
        parts.append(piece)
        size += len(piece.encode("utf-8")) + 1
    return "\n".join(parts)


def _mc(rng: random.Random) -> str:
    letter = rng.choice("ABCDEFGHIJ")
    tail = rng.choice(
        [f"The answer is ({letter}).", f"**Answer:** {letter}", f"答案是：“{letter}”。", f"故选{letter}", letter]
    )
    think = "<think>" + _prose(rng, 600) + "</think>" if rng.random() < 0.2 else ""
    return think + _prose(rng, 3000) + "\n\n" + tail


def _math(rng: random.Random) -> str:
    n = rng.randint(-5000, 100000)
    tail = rng.choice(
        [f"#### {n}", f"The answer is ${n:,}.", f"**Final Answer:** \\boxed{{{n}}}",
         f"因此答案是 {n}", f"\\boxed{{\\frac{{{abs(n) + 1}}}{{{rng.randint(2, 9)}}}}}"]
    )
    return _prose(rng, 3500) + "\n" + tail


def _qa(rng: random.Random) -> str:
    return _prose(rng, 3000) + "\n\nThe answer is: **" + " ".join(rng.choices(WORDS, k=3)) + "**."


def _json(rng: random.Random) -> str:
    body = ", ".join(f'"k{i}": {rng.choice(JSON_VALUES)}' for i in range(rng.randint(1, 30)))
    return _prose(rng, 2000) + "\n```json\n{" + body + "}\n```\n"


def _code(rng: random.Random) -> str:
    lines = "\n".join(f"\tx{i} = \"你好，世界\"  # {i}" for i in range(rng.randint(1, 60)))
    return _prose(rng, 1500) + f"\n```python\ndef f():\n{lines}\n\treturn 1\n```\n" + _prose(rng, 500)


def _writing(rng: random.Random) -> str:
    return _prose(rng, 4000) + "   \n\n"


GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "multiple_choice": _mc,
    "math": _math,
    "extractive_qa": _qa,
    "structured_json": _json,
    "code": _code,
    "open_writing": _writing,
}


def _corpus(n: int, seed: int) -> dict[str, list[str]]:
    """``n`` generated outputs from ``seed``, dealt round-robin to the task types."""
    rng = random.Random(seed)
    types = list(GENERATORS)
    corpus: dict[str, list[str]] = {t: [] for t in types}
    for i in range(n):
        t = types[i % len(types)]
        corpus[t].append(GENERATORS[t](rng)[:4096])
    return corpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000, help="outputs in the corpus (default 100000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement; the fastest counts (default 3)")
    args = ap.parse_args()

    # One fresh corpus per run (seeds seed, seed+1, ...): no run reads outputs an earlier run
    # read, so nothing cached by text (parsed answers, say) from an earlier run is reused and
    # the figures are those of new outputs.  Repeats within one corpus, as real outputs have
    # (the same short answer in many rows), still count.
    corpora = [_corpus(args.n, args.seed + k) for k in range(args.repeat)]
    types = list(GENERATORS)
    total_bytes = sum(len(s.encode()) for v in corpora[0].values() for s in v)
    pack = load_pack()
    print(f"corpus: {args.n} outputs, {total_bytes / 1e6:.1f} MB, seeds {args.seed}..{args.seed + args.repeat - 1}")
    print(f"pack: {pack.signature}")

    baseline = regex.compile(r"(?i)answer is\s*(.*)")
    everything = [[s for v in corpus.values() for s in v] for corpus in corpora]

    def base_run(k: int) -> None:
        for s in everything[k]:
            baseline.search(s)

    # CPU time of this process (other work on a shared machine does not count), the fastest
    # of --repeat runs (one a corpus) for the baseline and for each chain alike
    base_rate = args.n / _best(base_run, args.repeat)
    print(f"{'baseline (one regex search)':<30} {base_rate:>12,.0f} items/s  (CPU time, best of {args.repeat})")

    print(f"{'task type':<30} {'items/s':>12} {'baseline/chain':>15} {'ok share':>9}")
    overall_items, overall_time = 0, 0.0
    for t in types:
        options = 10 if t == "multiple_choice" else None

        def chain_run(k: int, t: str = t, options: int | None = options) -> None:
            for s in corpora[k][t]:
                pack.run(s, t, options=options)

        elapsed = _best(chain_run, args.repeat)
        items = len(corpora[0][t])
        ok = sum(pack.run(s, t, options=options).status == "ok" for s in corpora[0][t])
        overall_items += items
        overall_time += elapsed
        rate = items / elapsed
        print(f"{t:<30} {rate:>12,.0f} {base_rate / rate:>14.1f}x {ok / items:>9.2f}")
    rate = overall_items / overall_time
    print(f"{'all task types':<30} {rate:>12,.0f} {base_rate / rate:>14.1f}x")


def _best(fn: Callable[[int], None], repeat: int) -> float:
    """The least CPU time (``time.process_time``) of ``fn(0)`` … ``fn(repeat - 1)``."""
    best = float("inf")
    for k in range(repeat):
        start = time.process_time()
        fn(k)
        best = min(best, time.process_time() - start)
    return best


if __name__ == "__main__":
    main()
