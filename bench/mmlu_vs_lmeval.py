"""MMLU chain-of-thought: our multiple-choice chain + choice parser against lm-evaluation-harness's
``mmlu_flan_cot_zeroshot`` filter pipelines.

lm-eval scores that task with two pipelines over each response: ``strict-match`` (``RegexFilter``
on ``The answer is (.*)(?=.)`` and its three variants, then take-first) and ``flexible-extract``
(``MultiChoiceRegexFilter``: the last ``(X)``, else an option's text, else ``: X``; then
take-first).  Both run here, in this process, on the same seeded real-shaped MMLU outputs
(``bench/_realshape.py``: option-by-option analysis with a number in every line, 0.5–4 KB, then
"The answer is (X).", "Answer: X", ``**Answer: X**``, 答案是X — or, in 20 %, no marker at all),
against our full ``mmlu`` chain and strict ``choice`` parser (which also reads Chinese, refuses
two answers, and says why it found none).

Timing: CPU seconds of this process.  lm-eval's ``MultiChoiceRegexFilter.apply`` builds a table
of every Unicode punctuation character on each call (~1 s): a harness calls it once per task, so
each side is timed over the whole corpus in one call, the two alternating over ``--repeat`` runs;
the fastest run counts.  "steady" subtracts that per-call set-up (the same call on one row);
"with set-up" is what a harness pays for this many rows.  Prints each side's answers against the
answer the output states (marked and unmarked outputs apart).  A figure, not a test.

    python bench/mmlu_vs_lmeval.py            # 10,000 outputs
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from lm_eval.filters.extraction import RegexFilter
from lm_eval.filters.selection import TakeFirstFilter
from lm_eval.tasks.mmlu.flan_cot_zeroshot.utils import MultiChoiceRegexFilter

from normalize import load_pack
from normalize.core._build import build_description

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _realshape

STRICT = (r"((?<=The answer is )(.*)(?=.)|(?<=answer is )(.*)(?=.)|(?<=The answer: )(.*)(?=.)"
          r"|(?<=The final answer: )(.*)(?=.))")


def _letter(answer: object) -> str | None:
    """lm-eval's answer as an option letter (``(B)`` -> ``B``; its exact_match ignores case and
    punctuation)."""
    text = str(answer).strip().strip("().").upper()
    return text if len(text) == 1 and "A" <= text <= "Z" else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--options", type=int, default=4, help="options per question (default 4, as MMLU)")
    args = parser.parse_args()
    samples = _realshape.corpus("mmlu", args.n, args.seed, options=args.options)
    outputs = [s.output for s in samples]
    letters = "ABCDEFGHIJ"[: args.options]
    # the option texts lm-eval's fallback looks for: the generator's options are numbers it
    # names in every analysis line, so these stand for texts the outputs do not repeat
    doc = {"choices": [f"the text of option {c}" for c in letters]}
    pack = load_pack()
    strict = [RegexFilter(regex_pattern=STRICT), TakeFirstFilter()]
    flexible = [MultiChoiceRegexFilter(regex_pattern=r"(\([A-Z]\))", group_select=-1, ignore_case=True,
                                       ignore_punctuation=True), TakeFirstFilter()]

    def lm_eval(block: list[str]) -> list[list[str]]:
        docs = [doc] * len(block)
        answers = []
        for pipeline in (strict, flexible):
            resps: object = [[o] for o in block]
            for step in pipeline:
                resps = step.apply(resps, docs)  # type: ignore[arg-type]
            answers.append(list(resps))  # type: ignore[call-overload]
        return answers

    def ours(block: list[str]) -> list[str | None]:
        return [pack.run(o, "mmlu", options=args.options).answer for o in block]

    def clock(fn: object, block: list[str]) -> float:
        start = time.process_time()
        fn(block)  # type: ignore[operator]
        return time.process_time() - start

    lm_eval(outputs[:50])  # untimed warm-up
    ours(outputs[:50])
    setup = min(clock(lm_eval, outputs[:1]) for _ in range(3))  # the per-call table, and one row
    best = {"lm-eval": float("inf"), "ours": float("inf")}
    for turn in range(args.repeat):
        order = (("lm-eval", lm_eval), ("ours", ours))
        for name, fn in order if turn % 2 == 0 else order[::-1]:
            best[name] = min(best[name], clock(fn, outputs))
    print(f"{args.n} MMLU-style outputs ({args.options} options), real-shaped (bench/_realshape.py), "
          f"mean {sum(map(len, outputs)) / len(outputs):.0f} chars; CPU s, whole corpus a call, "
          f"{args.repeat} alternating runs, fastest counts")
    print(f"build: {build_description()}")
    steady = best["lm-eval"] - setup
    print(f"lm-eval   {best['lm-eval']:8.3f}s  {args.n / best['lm-eval']:>10,.0f} items/s with set-up "
          f"({setup:.3f}s a call: the punctuation table); steady {args.n / steady:>10,.0f} items/s")
    print(f"ours      {best['ours']:8.3f}s  {args.n / best['ours']:>10,.0f} items/s")
    print(f"ours / lm-eval (speed): {best['lm-eval'] / best['ours']:.2f}x with lm-eval's set-up, "
          f"{steady / best['ours']:.2f}x steady")
    _realshape.print_marked_cost(ours, clock, samples, args.repeat)
    strict_answers, flexible_answers = lm_eval(outputs)
    _realshape.print_answer_check(samples, {
        "ours (mmlu chain + choice)": ours(outputs),
        "lm-eval strict-match": [_letter(a) for a in strict_answers],
        "lm-eval flexible-extract": [_letter(a) for a in flexible_answers],
    })


if __name__ == "__main__":
    main()
