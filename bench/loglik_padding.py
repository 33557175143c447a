"""Benchmark: padding share of the log-likelihood engine's batches on a mixed-length workload.

Builds the random-weight GPT-2 and BPE tokenizer of ``bench/loglik_vs_lmeval.py`` (nothing
downloaded) and a mixed request list in arrival order (``make_mixed_requests``: HellaSwag-,
MMLU- and LAMBADA-shaped items interleaved), then scores it on CPU twice with the same row
and token caps: batches in arrival order (``bucket_by_length=False``) and length-bucketed
(sorted longest first, batches cut by padded token slots, continuation rows chunked by
length; the default).  Prints padding share, batch token slots, forward passes, processed tokens/s,
wall time and the largest |Δ log p| between the two (the results must not depend on batch composition).
Also prints the padding share lm-eval's layout would have (each request its own row, sorted
by length descending, ``--batch-size`` rows per batch), computed from our encodings.

    .venv/bin/python bench/loglik_padding.py
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def lm_eval_padding(lengths: list[int], batch_size: int) -> float:
    """Padding share of rows sorted by length (descending) in batches of ``batch_size``.

    >>> lm_eval_padding([4, 2, 2, 1], 2)
    0.25
    """
    ordered = sorted(lengths, reverse=True)
    slots = sum(max(ordered[i:i + batch_size]) * len(ordered[i:i + batch_size])
                for i in range(0, len(ordered), batch_size))
    return 1 - sum(ordered) / slots if slots else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hellaswag", type=int, default=150)
    parser.add_argument("--mmlu", type=int, default=60)
    parser.add_argument("--lambada", type=int, default=150)
    parser.add_argument("--batch-size", type=int, default=32, help="rows per forward pass")
    parser.add_argument("--token-budget", type=int, default=8192,
                        help="padded token slots per forward pass")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).parent))
    from loglik_vs_lmeval import build_model, make_mixed_requests

    from scoring.lm.loglik import LogLikelihoodScorer

    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(tmp) / "gpt2"
        build_model(model_dir, n_layer=4, n_embd=256, vocab=32000, seed=args.seed)
        base = LogLikelihoodScorer(model_dir, device="cpu", dtype="float32", batch_size=1)
    requests = make_mixed_requests(base.tokenizer, args.seed, hellaswag=args.hellaswag,
                                   mmlu=args.mmlu, lambada=args.lambada)
    encoded = (base.encode_pairs(requests) if hasattr(base, "encode_pairs")  # older engine:
               else [base.encode_pair(*r) for r in requests])            # one by one
    lengths = [len(e.context) + len(e.continuation) - 1 for e in encoded]
    print(f"{len(requests)} requests ({args.hellaswag} HellaSwag-, {args.mmlu} MMLU-, "
          f"{args.lambada} LAMBADA-shaped items), row lengths {min(lengths)}-{max(lengths)} "
          f"tokens, mean {sum(lengths) / len(lengths):.0f}; caps {args.batch_size} rows, "
          f"{args.token_budget} token slots")
    print(f"lm-eval layout (one row per request, sorted, {args.batch_size} rows): padding share "
          f"{100 * lm_eval_padding(lengths, args.batch_size):.1f}%")
    runs: dict[str, list[Any]] = {}
    for label, bucket in (("arrival order", False), ("length-bucketed", True)):
        try:
            scorer = LogLikelihoodScorer.from_loaded(
                base.loaded, batch_size=args.batch_size, token_budget=args.token_budget,
                bucket_by_length=bucket)
        except TypeError:  # an engine without these options (an older checkout)
            if not bucket:
                continue
            label = "this checkout's engine"
            scorer = LogLikelihoodScorer.from_loaded(base.loaded, batch_size=args.batch_size)
        scorer.loglikelihood(requests[:8])
        scorer.stats.reset()
        start = time.perf_counter()
        runs[label] = scorer.loglikelihood(requests)
        wall = time.perf_counter() - start
        st = scorer.stats
        print(f"{label:16}: padding share {100 * st.padding_share:5.1f}% of "
              f"{st.batch_tokens:,} slots; {st.forward_calls} forward passes; "
              f"{st.forward_tokens:,} tokens; "
              f"{st.forward_tokens / wall:,.0f} tokens/s; {wall:.1f} s")
    results = list(runs.values())
    deltas = [abs(a.logprob - b.logprob) for a, b in zip(results[0], results[-1], strict=True)]
    errors = sum(r.error is not None for run in results for r in run)
    print(f"max |Δ log p| between the runs: {max(deltas):.2e}; errors: {errors}")
    return 0 if max(deltas) <= 1e-4 and errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
