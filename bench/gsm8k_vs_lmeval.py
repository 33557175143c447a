"""GSM8K: our math chain + number parser against lm-evaluation-harness's GSM8K filter pipeline.

lm-eval's gsm8k task scores with two filter pipelines over each response: ``strict-match``
(``RegexFilter`` on ``#### (-?[0-9.,]+)``, then take-first) and ``flexible-extract``
(``RegexFilter`` with ``group_select=-1`` on ``(-?[$0-9.,]{2,})|(-?[0-9]+)``, then take-first).
Both run here, in this process, on the same seeded real-shaped GSM8K outputs
(``bench/_realshape.py``: arithmetic, money, fractions and LaTeX in every reasoning line, 0.5–4 KB,
then ``#### N``, "The answer is N.", ``\\boxed{N}``, Chinese — or, in 20 %, no marker at all),
against our full ``math`` chain and strict ``number`` parser, which also removes ``<think>``,
reads boxes, answer markers, LaTeX, Chinese numerals, and reports why it found no answer.
Timed in CPU seconds of this process, in ABBA blocks (both meet the same outputs in the same
state of the machine); prints items/s of each, the paired ratio, and each side's answers checked
against the answer the output states (marked and unmarked outputs apart).  A figure, not a test.
``--legacy`` reproduces the old corpus (no digits in the prose, every output marked).

    python bench/gsm8k_vs_lmeval.py            # 20,000 outputs
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from pathlib import Path

from lm_eval.filters.extraction import RegexFilter
from lm_eval.filters.selection import TakeFirstFilter

from normalize import load_pack
from normalize.core._build import build_description
from normalize.values._mathvalue import _BY_CANONICAL, _read_cached, _same_cached

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _realshape

WORDS = (
    "first we compute how many apples each friend gets and then we add the remaining ones "
    "because the total must match so we check every step before writing the final number"
).split()


def _output(rng: random.Random) -> str:
    target = rng.randint(500, 4000)
    parts: list[str] = []
    size = 0
    while size < target:
        a, b = rng.randint(1, 999), rng.randint(1, 999)
        piece = " ".join(rng.choices(WORDS, k=rng.randint(6, 14))) + f": {a} + {b} = {a + b}."
        parts.append(piece)
        size += len(piece) + 1
    n = rng.randint(-500, 100000)
    tail = rng.choice([f"#### {n}", f"The answer is ${n:,}.", f"So the answer is \\boxed{{{n}}}.", f"因此答案是 {n}"])
    return "\n".join(parts) + "\n" + tail


def _lmeval_normal(answer: str) -> str:
    """lm-eval's gsm8k ``exact_match`` normalization (``regexes_to_ignore``: ``,``, ``$``, up to
    ``#### ``, a final ``.``), then strip."""
    for pattern in (r",", r"\$", r"(?s).*#### ", r"\.$"):
        answer = re.sub(pattern, "", answer)
    return answer.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--block", type=int, default=200, help="rows a block in the paired timing (default 200)")
    parser.add_argument("--legacy", action="store_true",
                        help="the old generator (no digits in the reasoning but 'a + b = c', every output marked): "
                             "flatters the chain; kept to reproduce the old figures")
    args = parser.parse_args()
    if args.legacy:
        rng = random.Random(args.seed)
        outputs = [_output(rng) for _ in range(args.n)]
        samples: list[_realshape.Sample] = []
    else:
        samples = _realshape.corpus("gsm8k", args.n, args.seed)
        outputs = [s.output for s in samples]
    pack = load_pack()
    strict = [RegexFilter(regex_pattern=r"#### (\-?[0-9\.\,]+)"), TakeFirstFilter()]
    flexible = [RegexFilter(group_select=-1, regex_pattern=r"(-?[$0-9.,]{2,})|(-?[0-9]+)"), TakeFirstFilter()]

    def lm_eval(block: list[str]) -> list[list[str]]:
        docs = [{}] * len(block)
        answers = []
        for pipeline in (strict, flexible):
            resps: object = [[o] for o in block]
            for step in pipeline:
                resps = step.apply(resps, docs)  # type: ignore[arg-type]
            answers.append(list(resps))  # type: ignore[call-overload]
        return answers

    def ours(block: list[str]) -> list[str | None]:
        # every run reads the outputs afresh: nothing a previous run cached by text answers it
        _read_cached.cache_clear()
        _BY_CANONICAL.clear()
        _same_cached.cache_clear()
        return [pack.run(o, "gsm8k").answer for o in block]

    def clock(fn: object, block: list[str]) -> float:
        start = time.process_time()
        fn(block)  # type: ignore[operator]
        return time.process_time() - start

    lm_eval(outputs[:200])  # untimed warm-up
    ours(outputs[:200])
    ratios: list[float] = []
    totals = {"lm-eval": float("inf"), "ours": float("inf")}
    for _ in range(args.repeat):  # ABBA blocks: both meet the same outputs in the same state of the machine
        spent = {"lm-eval": 0.0, "ours": 0.0}
        for number, at in enumerate(range(0, len(outputs), args.block)):
            block = outputs[at : at + args.block]
            order = (("lm-eval", lm_eval), ("ours", ours))
            for name, fn in order if number % 2 == 0 else order[::-1]:
                spent[name] += clock(fn, block)
        ratios.append(spent["ours"] / spent["lm-eval"])
        totals = {k: min(totals[k], spent[k]) for k in totals}
    corpus = "legacy generator (flattering)" if args.legacy else "real-shaped (bench/_realshape.py)"
    print(f"{args.n} GSM8K-style outputs, {corpus}, mean {sum(map(len, outputs)) / len(outputs):.0f} chars; "
          f"CPU s, ABBA blocks of {args.block}, {args.repeat} repeats")
    print(f"build: {build_description()}")
    for name in ("lm-eval", "ours"):
        print(f"{name:<8} {totals[name]:8.3f}s  {args.n / totals[name]:>10,.0f} items/s  (fastest repeat)")
    print(f"ours / lm-eval (time, paired): {statistics.median(ratios):.2f}x  (range {min(ratios):.2f}-{max(ratios):.2f}); "
          f"lm-eval / ours (speed): {1 / statistics.median(ratios):.2f}x")
    if samples:
        _realshape.print_marked_cost(ours, clock, samples, args.repeat)
        strict_answers, flexible_answers = lm_eval(outputs)
        _realshape.print_answer_check(samples, {
            "ours (math chain + number)": ours(outputs),
            "lm-eval strict-match": [_lmeval_normal(a) for a in strict_answers],
            "lm-eval flexible-extract": [_lmeval_normal(a) for a in flexible_answers],
        })


if __name__ == "__main__":
    main()
