"""Benchmark: our log-likelihood engine vs lm-eval's HF backend on HellaSwag-shaped items.

Builds (in a temp dir, nothing downloaded) a random-weight GPT-2 (4 layers, 256 dims by
default, vocabulary 32000 so the LM head costs what a real one does) and a byte-level BPE
tokenizer trained on seeded random text, then scores ``--items`` items (context of 60-120
tokens, 4 choices of 10-30 tokens, continuation = " " + ending as lm-eval's multiple_choice
builds it) through ``lm_eval.models.huggingface.HFLM`` and through `LogLikelihoodScorer`
in one process, alternating ``--repeats`` times (our encode cache cleared before each run, so
both tokenize inside the timed call).  Prints both (fastest) wall times, the speed ratio, the
largest |Δ logprob| and our tokenization time, forward time and padding share.

    .venv/bin/python bench/loglik_vs_lmeval.py --items 100
    .venv/bin/python bench/loglik_vs_lmeval.py --preset small-real --items 100

``--preset small-real`` is shaped like a small real model (8 layers, 512 dims, 8 heads,
vocabulary 32000): the transformer blocks, not the output layer, then take most of the forward
time, as in a real model (the default 4 x 256 shape is mostly output layer).
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WORDS = (
    "the a man woman child dog cat house river tree car road city park ball book table chair "
    "window door garden kitchen water fire light music song game team player coach teacher "
    "student doctor street market bridge mountain forest beach boat train plane phone picture "
    "runs walks jumps sits stands talks looks opens closes throws catches holds pulls pushes "
    "climbs swims cooks eats drinks reads writes paints plays sings dances laughs smiles waits "
    "quickly slowly carefully happily quietly loudly again then after before while because "
    "into onto over under behind beside through across around toward from with without and "
    "but or so very still just also never always often red blue green small large old new "
    "bright dark warm cold heavy light long short wooden metal empty full first last next"
).split()


#: model shapes: (layers, dims, vocabulary)
PRESETS = {"toy": (4, 256, 32000), "small-real": (8, 512, 32000)}


def random_sentence(rng: random.Random, n_words: int) -> str:
    """Seeded random words joined with spaces, with a period at the end."""
    return " ".join(rng.choice(WORDS) for _ in range(n_words)).capitalize() + "."


def text_of_tokens(rng: random.Random, tokenizer: object, low: int, high: int) -> str:
    """Random sentences whose token count lies in [low, high]."""
    target = rng.randint(low, high)
    words: list[str] = []
    while True:
        words.append(rng.choice(WORDS))
        text = " ".join(words)
        n = len(tokenizer.encode(" " + text))  # type: ignore[attr-defined]
        if n >= target:
            return text if n <= high else " ".join(words[:-1])


def build_model(path: Path, *, n_layer: int, n_embd: int, vocab: int, seed: int) -> None:
    """Train a BPE tokenizer on seeded text and save a random-weight GPT-2 with it."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    rng = random.Random(seed)
    corpus = [random_sentence(rng, rng.randint(5, 25)) for _ in range(2000)]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=min(vocab, 600), special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(corpus, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=tok, bos_token="<|endoftext|>",
                                        eos_token="<|endoftext|>")
    config = GPT2Config(vocab_size=vocab, n_positions=512, n_embd=n_embd, n_layer=n_layer,
                        n_head=max(1, n_embd // 64), bos_token_id=0, eos_token_id=0)
    torch.manual_seed(seed)
    model: Any = GPT2LMHeadModel(config)
    model.eval()
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)


def make_items(tokenizer: object, n_items: int, seed: int) -> list[tuple[str, list[str]]]:
    """HellaSwag-shaped items: context 60-120 tokens, 4 endings of 10-30 tokens."""
    rng = random.Random(seed)
    items = []
    for _ in range(n_items):
        context = text_of_tokens(rng, tokenizer, 60, 120).capitalize() + "."
        endings = [text_of_tokens(rng, tokenizer, 10, 30) + "." for _ in range(4)]
        items.append((context, endings))
    return items


def make_mmlu_items(tokenizer: object, n_items: int, seed: int,
                    subjects: int = 5) -> list[tuple[str, list[str]]]:
    """MMLU-shaped items: a 5-shot prompt per subject (the same for every item of that
    subject, 350-550 tokens in all) + a question; the choices are " A" .. " D"."""
    rng = random.Random(seed + 1)

    def question() -> str:
        stem = text_of_tokens(rng, tokenizer, 20, 60).capitalize() + "?"
        options = "".join(f"\n{letter}. {text_of_tokens(rng, tokenizer, 2, 8)}"
                          for letter in "ABCD")
        return stem + options + "\nAnswer:"

    prompts = []
    for s in range(subjects):
        shots = "".join(f"{question()} {rng.choice('ABCD')}\n\n" for _ in range(5))
        prompts.append(f"The following are questions about subject {s}.\n\n{shots}")
    return [(prompts[i % subjects] + question(), [" A", " B", " C", " D"])
            for i in range(n_items)]


def make_mixed_requests(tokenizer: object, seed: int, *, hellaswag: int, mmlu: int,
                        lambada: int) -> list[tuple[str, str]]:
    """A mixed-length request list in arrival order: HellaSwag-shaped items (4 choices of
    10-30 tokens after 60-120), MMLU-shaped 5-shot items (4 one-token choices after ~500) and
    LAMBADA-shaped single continuations (1-3 tokens after 40-200), interleaved by task."""
    rng = random.Random(seed + 2)
    groups = [
        [[(c, " " + e) for e in endings] for c, endings in make_items(tokenizer, hellaswag, seed)],
        [[(c, x) for x in choices] for c, choices in make_mmlu_items(tokenizer, mmlu, seed)],
        [[(text_of_tokens(rng, tokenizer, 40, 200).capitalize(),
           " " + text_of_tokens(rng, tokenizer, 1, 3))] for _ in range(lambada)],
    ]
    items = [item for group in groups for item in group]
    rng.shuffle(items)
    return [request for item in items for request in item]


#: torch ops grouped into the phases of a log-likelihood request (self CPU time)
_PHASES = (
    ("matmul (blocks and output layer)", ("aten::addmm", "aten::mm", "aten::matmul", "aten::linear", "aten::bmm",
                                          "aten::baddbmm")),
    ("attention", ("aten::scaled_dot_product_attention", "aten::_scaled_dot_product", "aten::softmax",
                   "aten::_softmax")),
    ("log-softmax / logsumexp / gather", ("aten::log_softmax", "aten::_log_softmax", "aten::logsumexp",
                                          "aten::gather", "aten::argmax", "aten::max", "aten::index")),
)


def profile_breakdown(run: Any, label: str) -> None:
    """One run of ``run`` under torch.profiler (CPU): wall time split into the main op groups,
    the rest of the torch ops, and what is not inside any op (Python, tokenization, batching)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    start = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        run()
    wall = time.perf_counter() - start
    events = prof.key_averages()
    total_ops = sum(e.self_cpu_time_total for e in events) / 1e6
    threads = max(1, torch.get_num_threads())
    print(f"\nprofile of {label}: {wall:.2f} s wall under the profiler; torch ops {total_ops:.2f} s of CPU "
          f"(self time, summed over {threads} threads)")
    seen = 0.0
    for name, prefixes in _PHASES:
        spent = sum(e.self_cpu_time_total for e in events if e.key.startswith(prefixes)) / 1e6
        seen += spent
        print(f"  {name:<36} {spent:7.2f} s CPU  {spent / max(total_ops, 1e-9):6.1%} of op time")
    print(f"  {'other torch ops (copies, layer norm, gelu, ...)':<36} {total_ops - seen:7.2f} s CPU  "
          f"{(total_ops - seen) / max(total_ops, 1e-9):6.1%} of op time")
    top = sorted(events, key=lambda e: -e.self_cpu_time_total)[:8]
    print("  top ops: " + ", ".join(f"{e.key} {e.self_cpu_time_total / 1e6:.2f}s" for e in top))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--preset", choices=sorted(PRESETS), default=None,
                        help="a model shape (sets --layers/--dim/--vocab): " +
                        "; ".join(f"{k}: {v[0]} layers x {v[1]}, vocab {v[2]}" for k, v in PRESETS.items()))
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--batch-size", type=int, default=32,
                        help="rows per forward pass for both engines")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3,
                        help="alternating timed runs per engine; the fastest of each counts")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch intra-op threads (default: torch's). On a loaded machine use 1: with 2 "
                             "threads every op's barrier waits for a descheduled thread, and time then follows the "
                             "number of ops, not the work")
    parser.add_argument("--profile", action="store_true",
                        help="after the timed runs, one run of each engine under torch.profiler: where the "
                             "time goes (transformer blocks, output layer, log-softmax/gather, tokenization, "
                             "Python between the ops)")
    args = parser.parse_args(argv)
    if args.preset is not None:
        args.layers, args.dim, args.vocab = PRESETS[args.preset]

    import torch
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    from scoring.lm.loglik import LogLikelihoodScorer

    if args.threads is not None:
        torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(tmp) / "gpt2"
        build_model(model_dir, n_layer=args.layers, n_embd=args.dim, vocab=args.vocab,
                    seed=args.seed)
        ours = LogLikelihoodScorer(model_dir, device="cpu", dtype="float32",
                                   batch_size=args.batch_size)
        items = make_items(ours.tokenizer, args.items, args.seed)
        requests = [(ctx, " " + e) for ctx, endings in items for e in endings]
        theirs = HFLM(pretrained=str(model_dir), device="cpu", dtype="float32",
                      batch_size=args.batch_size)
        instances = [Instance(request_type="loglikelihood", doc={}, arguments=r, idx=i)
                     for i, r in enumerate(requests)]
        n_ctx = sum(len(ours.tokenizer.encode(c)) for c, _ in items) / len(items)
        n_cont = sum(ours.encode_pair(*r).continuation.__len__() for r in requests) / len(requests)
        print(f"{len(items)} items, {len(requests)} requests, mean context {n_ctx:.0f} tokens, "
              f"mean choice {n_cont:.1f} tokens; model {args.layers} layers x {args.dim}, "
              f"vocab {args.vocab}", flush=True)

        ours.loglikelihood(requests[:8])  # warm-up both
        theirs.loglikelihood(instances[:8], disable_tqdm=True)

        t_lmeval = t_ours = c_lmeval = c_ours = float("inf")
        for _ in range(max(1, args.repeats)):  # alternate, so background load hits both
            start, cpu = time.perf_counter(), time.process_time()
            reference = theirs.loglikelihood(instances, disable_tqdm=True)
            t_lmeval = min(t_lmeval, time.perf_counter() - start)
            c_lmeval = min(c_lmeval, time.process_time() - cpu)
            ours.stats.reset()
            ours.encode_cache.clear()  # tokenize inside the timed call, as lm-eval does
            start, cpu = time.perf_counter(), time.process_time()
            mine = ours.loglikelihood(requests)
            t_ours = min(t_ours, time.perf_counter() - start)
            c_ours = min(c_ours, time.process_time() - cpu)

        timed = copy.copy(ours.stats)  # the last timed run, not the profiled one
        if args.profile:
            profile_breakdown(lambda: theirs.loglikelihood(instances, disable_tqdm=True), "lm-eval HFLM")
            ours.encode_cache.clear()
            profile_breakdown(lambda: ours.loglikelihood(requests), "ours")

    deltas = [abs(m.logprob - float(r[0])) for m, r in zip(mine, reference, strict=True)
              if m.boundary != "separate"]
    greedy_diff = sum(m.is_greedy != bool(r[1]) for m, r in zip(mine, reference, strict=True)
                      if m.boundary != "separate")
    separate = sum(m.boundary == "separate" for m in mine)
    errors = sum(m.error is not None for m in mine)
    print(f"lm-eval HFLM : {t_lmeval:8.2f} s  ({len(requests) / t_lmeval:7.1f} requests/s)")
    print(f"ours         : {t_ours:8.2f} s  ({len(requests) / t_ours:7.1f} requests/s)")
    print(f"speed-up     : {t_lmeval / t_ours:8.2f}x wall; CPU time (all threads): lm-eval {c_lmeval:.2f} s, "
          f"ours {c_ours:.2f} s, {c_lmeval / c_ours:.2f}x")
    print(f"max |Δ logprob| over {len(deltas)} comparable requests: {max(deltas):.2e}; "
          f"is_greedy differences: {greedy_diff}; 'separate' boundaries (not compared): "
          f"{separate}; errors: {errors}")
    st = timed
    print(f"ours, of which tokenization {st.encode_seconds:.2f} s and forward passes "
          f"{st.forward_seconds:.2f} s; padding share {100 * st.padding_share:.1f}% of "
          f"{st.batch_tokens} batch token slots")
    print(f"our work: {st}")
    return 0 if max(deltas) <= 1e-4 and greedy_diff == 0 and errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
