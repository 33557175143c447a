"""What the intervals cost: text metrics and Bradley–Terry with bootstrap, against one plain call.

Run from the repository root (extra ``text``)::

    .venv/bin/python bench/text_metrics.py            # 2000 sentences, 1000 resamples
    .venv/bin/python bench/text_metrics.py --sentences 500 --resamples 200

For each metric it times the reference library's own corpus score once (sacrebleu
``corpus_bleu``, rouge-score over every sentence, jiwer ``wer``…) and our
``text_metric_report`` (corpus and sentence level, each with a bootstrap interval), and prints
the ratio.  BLEU's corpus bootstrap sums per-sentence sufficient statistics, so 1000 resamples
cost a fraction of 1000 corpus_bleu calls.  Then Bradley–Terry: one maximum-likelihood fit of
``--battles`` seeded battles between 8 models, and its bootstrap.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable
from typing import Any

from scoring._textsim import TextSettings, text_metric_report
from scoring.pairwise import Battle, bradley_terry, bt_bootstrap

WORDS = ("the cat dog sat ran on under a mat park quickly slowly red blue big small house tree river "
         "morning evening city council budget approved rain schools closed study found drug").split()


def sentences(n: int, seed: int) -> tuple[list[str], list[tuple[str, ...]]]:
    rng = random.Random(seed)
    hyps, refs = [], []
    for _ in range(n):
        ref = [rng.choice(WORDS) for _ in range(rng.randint(5, 25))]
        hyp = [w if rng.random() < 0.7 else rng.choice(WORDS) for w in ref]
        if rng.random() < 0.3:
            hyp = hyp[: max(1, len(hyp) - rng.randint(1, 4))]
        hyps.append(" ".join(hyp) + ".")
        refs.append((" ".join(ref) + ".",))
    return hyps, refs


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def references() -> dict[str, Callable[[list[str], list[tuple[str, ...]]], Any]]:
    import jiwer
    import sacrebleu
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"])
    return {
        "bleu": lambda h, r: sacrebleu.corpus_bleu(h, [[x[0] for x in r]]),
        "chrf": lambda h, r: sacrebleu.corpus_chrf(h, [[x[0] for x in r]]),
        "ter": lambda h, r: sacrebleu.corpus_ter(h, [[x[0] for x in r]]),
        "rougeL": lambda h, r: [scorer.score(x[0], y) for x, y in zip(r, h, strict=True)],
        "wer": lambda h, r: jiwer.wer([x[0] for x in r], h),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--battles", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    hyps, refs = sentences(args.sentences, args.seed)
    print(f"{args.sentences} sentences, {args.resamples} bootstrap resamples, seed {args.seed}")
    print(f"{'metric':<8} {'reference s':>12} {'ours s':>8} {'ours/ref':>9}  corpus [CI]")
    for name, ref_fn in references().items():
        ref_s = timed(lambda ref_fn=ref_fn: ref_fn(hyps, refs))
        out: dict[str, Any] = {}
        ours_s = timed(lambda name=name, out=out: out.update(text_metric_report(
            hyps, refs, TextSettings(metrics=(name,)), n_resamples=args.resamples, seed=args.seed)))
        c = out[name]["corpus"]
        print(f"{name:<8} {ref_s:>12.3f} {ours_s:>8.2f} {ours_s / ref_s:>8.1f}x  "
              f"{c['value']:.3f} [{c['low']:.3f}, {c['high']:.3f}]")
    rng = random.Random(args.seed)
    models = [f"m{i}" for i in range(8)]
    battles = []
    for _ in range(args.battles):
        a, b = rng.sample(models, 2)
        p = 1 / (1 + math.exp((int(b[1]) - int(a[1])) * 0.3))
        u = rng.random()
        battles.append(Battle(a, b, "tie" if abs(u - p) < 0.05 else ("A" if u < p else "B")))
    fit_s = timed(lambda: bradley_terry(battles))
    boot_s = timed(lambda: bt_bootstrap(battles, n_resamples=args.resamples, seed=args.seed))
    print(f"Bradley–Terry, {args.battles} battles, 8 models: one fit {fit_s:.3f} s; "
          f"{args.resamples} bootstrap refits {boot_s:.2f} s ({boot_s / fit_s:.0f}x one fit)")


if __name__ == "__main__":
    main()
