"""Throughput of the shipped chains, per task type, against a bare single-regex extraction.

Generates a seeded corpus of model outputs shaped like real generations (``bench/_realshape.py``:
numbers and LaTeX in every reasoning line, option-by-option analysis for multiple choice, 20 %
without a final marker, up to 4 KB; JSON, code; ``--legacy``: the old corpus without a digit in
the prose, which flattered the chains), runs every task type's full chain and parser
over its share, and runs one precompiled regex search over the same outputs as a baseline in
the same process (CPU time of this process: other work on a shared machine does not count).
Prints items/s and how many times slower the full chain is than the least a harness could do,
and for the labelled task types (math, multiple choice) how many parsed answers equal the
answer the output states.
A figure, not a test.  Every repeat reads its own corpus (seeds ``--seed`` on), so nothing
cached by text in one repeat serves the next; an untimed warm-up pass comes first.

The ratio is timed two ways, because one bare search (~1.4 µs a row) runs at very different
speeds depending on what ran just before it (measured: 0.6–1.1M rows/s on one machine, one
corpus): back to back with itself its code and the outputs stay in the CPU's caches; right
after other work they do not.  A chain (~25–45 µs a row) barely notices.

* **paired** (``chain/baseline``): each task type's outputs in blocks of ``--block`` rows, the
  baseline and the chain over each block in turn (ABBA: the order alternates from block to
  block), so both meet the same outputs in the same state of the machine; the ratio of the two
  sums, per repeat; the median over repeats is printed, with the range;
* **apart**: the baseline over all outputs back to back, the fastest of ``--repeat`` runs,
  against each chain's fastest run (the method this script used until 2026-12-01; it gives
  the baseline its best conditions, and a ratio that moves by ±10 % from run to run).

    python bench/normalize_throughput.py            # 100k outputs
    python bench/normalize_throughput.py --n 20000  # quicker
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import regex

from normalize import load_pack
from normalize.core._build import build_description

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _realshape

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


def _real_prose(rng: random.Random, max_bytes: int) -> str:
    """Reasoning lines as real generations write them: numbers and LaTeX in every line."""
    return "\n".join(_realshape._reasoning(rng, rng.randint(0, max_bytes), _realshape._arith_line))


def _real_mc(rng: random.Random) -> tuple[str, str | None]:
    s = _realshape.mmlu(rng, options=10)
    return s.output, s.stated


def _real_math(rng: random.Random) -> tuple[str, str | None]:
    s = _realshape.gsm8k(rng)  # MATH's symbolic answers: bench/math_vs_mathverify.py
    return s.output, s.stated


def _real_qa(rng: random.Random) -> tuple[str, str | None]:
    return _real_prose(rng, 3000) + "\n\nThe answer is: **" + " ".join(rng.choices(WORDS, k=3)) + "**.", None


def _real_json(rng: random.Random) -> tuple[str, str | None]:
    body = ", ".join(f'"k{i}": {rng.choice(JSON_VALUES)}' for i in range(rng.randint(1, 30)))
    return _real_prose(rng, 2000) + "\n```json\n{" + body + "}\n```\n", None


def _real_code(rng: random.Random) -> tuple[str, str | None]:
    lines = "\n".join(f"\tx{i} = {i} * {i + 1}  # {i}" for i in range(rng.randint(1, 60)))
    return _real_prose(rng, 1500) + f"\n```python\ndef f():\n{lines}\n\treturn 1\n```\n" + _real_prose(rng, 500), None


def _real_writing(rng: random.Random) -> tuple[str, str | None]:
    return _real_prose(rng, 4000) + "   \n\n", None


#: real-shaped corpus (the default): (output, the answer it states or None when not labelled)
REAL: dict[str, Callable[[random.Random], tuple[str, str | None]]] = {
    "multiple_choice": _real_mc,
    "math": _real_math,
    "extractive_qa": _real_qa,
    "structured_json": _real_json,
    "code": _real_code,
    "open_writing": _real_writing,
}

#: the old corpus (``--legacy``): no digits in the prose, every output marked: flattering
GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "multiple_choice": _mc,
    "math": _math,
    "extractive_qa": _qa,
    "structured_json": _json,
    "code": _code,
    "open_writing": _writing,
}


def _corpus(n: int, seed: int, legacy: bool = False) -> dict[str, list[str]]:
    """``n`` generated outputs from ``seed``, dealt round-robin to the task types."""
    return {t: [o for o, _ in v] for t, v in _labelled(n, seed, legacy).items()}


def _labelled(n: int, seed: int, legacy: bool = False) -> dict[str, list[tuple[str, str | None]]]:
    rng = random.Random(seed)
    types = list(GENERATORS)
    corpus: dict[str, list[tuple[str, str | None]]] = {t: [] for t in types}
    for i in range(n):
        t = types[i % len(types)]
        if legacy:
            corpus[t].append((GENERATORS[t](rng)[:4096], None))
        else:
            output, stated = REAL[t](rng)
            corpus[t].append((output[:4096], stated))
    return corpus


def _same(answer: object, stated: str) -> bool:
    """The parsed answer is the one the output states (math answers compared as values)."""
    if answer is None:
        return False
    if str(answer) == stated:
        return True
    from scoring.metrics import math_match

    return bool(math_match(str(answer), stated))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000, help="outputs in the corpus (default 100000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="runs, each on its own corpus (default 3)")
    ap.add_argument("--block", type=int, default=100, help="rows a block in the paired timing (default 100)")
    ap.add_argument("--legacy", action="store_true",
                    help="the old corpus (no digits in the prose, every output marked): flatters the chains")
    args = ap.parse_args()

    labelled = _labelled(args.n, args.seed, args.legacy)
    corpora = [{t: [o for o, _ in v] for t, v in labelled.items()}]
    corpora += [_corpus(args.n, args.seed + k, args.legacy) for k in range(1, args.repeat)]
    types = list(GENERATORS)
    total_bytes = sum(len(s.encode()) for v in corpora[0].values() for s in v)
    pack = load_pack()
    kind = "legacy (flattering: no digits in the prose, every output marked)" if args.legacy else "real-shaped"
    print(f"corpus: {args.n} outputs, {kind}, {total_bytes / 1e6:.1f} MB, seeds {args.seed}..{args.seed + args.repeat - 1}")
    print(f"pack: {pack.signature}")
    print(f"build: {build_description()}")

    baseline = regex.compile(r"(?i)answer is\s*(.*)")

    def base_run(outputs: list[str]) -> float:
        start = time.process_time()
        for s in outputs:
            baseline.search(s)
        return time.process_time() - start

    def chain_run(outputs: list[str], t: str) -> float:
        options = 10 if t == "multiple_choice" else None
        start = time.process_time()
        for s in outputs:
            pack.run(s, t, options=options)
        return time.process_time() - start

    warm = _corpus(min(args.n, 3000), args.seed + args.repeat, args.legacy)  # untimed: first calls, built tables
    for t in types:
        base_run(warm[t])
        chain_run(warm[t], t)

    # paired: per repeat and task type, ABBA blocks of the type's outputs
    ratios: dict[str, list[float]] = {t: [] for t in types}
    chain_best = dict.fromkeys(types, float("inf"))
    for corpus in corpora:
        for t in types:
            base_total = chain_total = 0.0
            outputs = corpus[t]
            for number, at in enumerate(range(0, len(outputs), args.block)):
                block = outputs[at : at + args.block]
                if number % 2 == 0:
                    base_total += base_run(block)
                    chain_total += chain_run(block, t)
                else:
                    chain_total += chain_run(block, t)
                    base_total += base_run(block)
            ratios[t].append(chain_total / base_total)
            chain_best[t] = min(chain_best[t], chain_total)

    # apart: the baseline over all outputs back to back, its fastest run
    everything = [[s for v in corpus.values() for s in v] for corpus in corpora]
    apart = args.n / min(base_run(outputs) for outputs in everything)

    print(f"baseline apart (one regex search, all outputs back to back): {apart:,.0f} items/s (fastest of {args.repeat})")
    print(f"{'task type':<18} {'items/s':>9} {'chain/baseline':>15} {'range':>12} {'apart':>8} {'ok share':>9} "
          f"{'right (labelled)':>17}")
    overall_items, overall_time = 0, 0.0
    for t in types:
        options = 10 if t == "multiple_choice" else None
        items = len(corpora[0][t])
        results = [pack.run(s, t, options=options) for s in corpora[0][t]]
        ok = sum(r.status == "ok" for r in results)
        labels = [(r, stated) for r, (_, stated) in zip(results, labelled[t], strict=True) if stated is not None]
        right = sum(_same(r.answer, stated) for r, stated in labels)
        checked = f"{right}/{len(labels)}" if labels else "-"
        overall_items += items
        overall_time += chain_best[t]
        rate = items / chain_best[t]
        spread = f"{min(ratios[t]):.1f}-{max(ratios[t]):.1f}x"
        print(
            f"{t:<18} {rate:>9,.0f} {statistics.median(ratios[t]):>14.1f}x {spread:>12} "
            f"{apart / rate:>7.1f}x {ok / items:>9.2f} {checked:>17}"
        )
    rate = overall_items / overall_time
    print(f"{'all task types':<18} {rate:>9,.0f} {'':>15} {'':>12} {apart / rate:>7.1f}x")
    # the baseline is a speed floor, not an extractor; what its capture reads, for comparison
    checked_types = [t for t in types if any(stated is not None for _, stated in labelled[t])]
    if checked_types:
        parts = []
        for t in checked_types:
            rows = [(o, stated) for o, stated in labelled[t] if stated is not None]
            right = 0
            for output, stated in rows:
                found = baseline.search(output)
                capture = found.group(1).strip(" .*()$").replace(",", "") if found is not None else None
                right += capture == stated.replace(",", "")
            parts.append(f"{t} {right}/{len(rows)}")
        print("the bare search's capture (the rest of the line after 'answer is') equal to the stated answer: "
              + ", ".join(parts))


if __name__ == "__main__":
    main()
