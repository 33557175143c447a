"""GPU benchmark: tokens/s and MFU of the log-likelihood engine on a random-weight Llama.

Builds a Llama-style model from a config preset (``--preset 1b`` or ``8b``; random bf16
weights, nothing downloaded) with the HellaSwag-shaped workload of
``bench/loglik_vs_lmeval.py`` (context 60-120 tokens, 4 choices of 10-30 tokens) and scores
it on CUDA in bfloat16.  Prints requests/s, processed tokens/s and MFU =
``2 * params * processed_tokens / time / peak`` against the GPU's dense bf16 peak (table
below, looked up by device name).  Processed tokens are those the engine actually ran
(shared contexts count once), so MFU measures the hardware use, and ``lm-eval-equivalent
tokens/s`` counts every request's context + continuation as lm-eval would process them.

Exits with status 2 and a message when no CUDA device is present.

    .venv/bin/python bench/gpu_loglik.py --preset 1b --items 500
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Dense (no sparsity) bf16 tensor-core peaks in FLOP/s, SXM parts unless named otherwise.
BF16_PEAK_FLOPS = {
    "H200": 989e12,
    "H100 SXM": 989e12,
    "H100 NVL": 835e12,
    "H100 PCIE": 756e12,
    "H100": 989e12,
    "A100": 312e12,
}

PRESETS: dict[str, dict[str, Any]] = {
    # a few MB: for the CPU smoke test (--device cpu), not for figures
    "tiny": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000},
    "1b": {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
           "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256},
    "8b": {"hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
           "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256},
}


def peak_flops(device_name: str) -> float | None:
    """Dense bf16 peak for a CUDA device name, longest matching key first; None if unknown.

    >>> peak_flops("NVIDIA H100 80GB HBM3") == 989e12
    True
    >>> peak_flops("NVIDIA A100-SXM4-80GB") == 312e12
    True
    >>> peak_flops("Tesla T4") is None
    True
    """
    name = device_name.upper()
    for key in sorted(BF16_PEAK_FLOPS, key=len, reverse=True):
        if key.upper() in name:
            return BF16_PEAK_FLOPS[key]
    return None


def build_model_dir(path: Path, preset: str, seed: int, device: str = "cuda") -> None:
    """Save a random-weight Llama of the preset (bf16 on CUDA, float32 on CPU) plus a small
    trained BPE tokenizer."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    sys.path.insert(0, str(Path(__file__).parent))
    from loglik_vs_lmeval import build_model  # the tokenizer trainer; the GPT-2 is replaced

    build_model(path, n_layer=1, n_embd=64, vocab=1000, seed=seed)
    config = LlamaConfig(**PRESETS[preset], max_position_embeddings=4096, bos_token_id=0,
                         eos_token_id=0, tie_word_embeddings=False)
    torch.manual_seed(seed)
    model: Any
    with torch.device(device):
        model = LlamaForCausalLM(config)
    model.to(torch.bfloat16 if device == "cuda" else torch.float32)
    model.save_pretrained(path)
    del model
    if device == "cuda":
        torch.cuda.empty_cache()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="1b")
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--batch-size", default="auto", help="'auto' or rows per forward pass")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                        help="cpu: a smoke test of this script (use --preset tiny); no MFU")
    args = parser.parse_args(argv)

    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        print("gpu_loglik: no CUDA device is visible to torch; this benchmark needs a GPU",
              file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).parent))
    from loglik_vs_lmeval import make_items

    from scoring.lm.loglik import LogLikelihoodScorer

    batch = args.batch_size if args.batch_size == "auto" else int(args.batch_size)
    cuda = args.device == "cuda"
    name = torch.cuda.get_device_name(0) if cuda else "cpu"
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(tmp) / f"llama-{args.preset}"
        build_model_dir(model_dir, args.preset, args.seed, args.device)
        scorer = LogLikelihoodScorer(model_dir, device=args.device, dtype="auto", batch_size=batch)
    params = sum(p.numel() for p in scorer.model.parameters())
    embedding = {id(p): p.numel() for m in (scorer.model.get_input_embeddings(),
                                            scorer.model.get_output_embeddings())
                 if m is not None for p in m.parameters()}
    compute_params = params - sum(embedding.values())  # MFU counts no embedding parameters
    items = make_items(scorer.tokenizer, args.items, args.seed)
    requests = [(ctx, " " + e) for ctx, endings in items for e in endings]
    # tokenization stays outside the timed forward loop: encode once, time token-id scoring
    encoded = [scorer.encode_pair(*r) for r in requests]
    token_pairs = [(e.context, e.continuation) for e in encoded]
    scorer.loglikelihood_tokens(token_pairs[:16])  # warm-up (kernels, allocator)
    scorer.stats.reset()
    if cuda:
        torch.cuda.synchronize()
    start = time.perf_counter()
    results = scorer.loglikelihood_tokens(token_pairs)
    if cuda:
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    processed = scorer.stats.forward_tokens
    equivalent = sum(len(e.context) + len(e.continuation) - 1 for e in encoded)
    peak = peak_flops(name) if cuda else None
    print(f"device {name}; preset {args.preset}: {params / 1e9:.2f} B parameters, "
          f"{'bf16' if cuda else 'float32'}, "
          f"attention {scorer.loaded.attn_implementation}")
    print(f"{len(requests)} requests in {elapsed:.2f} s: {len(requests) / elapsed:.1f} requests/s")
    print(f"processed tokens/s {processed / elapsed:,.0f} ({processed} tokens); "
          f"lm-eval-equivalent tokens/s {equivalent / elapsed:,.0f}")
    if peak is None:
        print(f"MFU: unknown peak for {name!r} (known: {', '.join(BF16_PEAK_FLOPS)})")
    else:
        mfu = 2 * compute_params * processed / elapsed / peak
        print(f"MFU {100 * mfu:.1f}% of {peak / 1e12:.0f} TFLOP/s dense bf16 "
              f"(2 x {compute_params / 1e9:.2f} B non-embedding params x processed tokens)")
    print(f"padding share {100 * scorer.stats.padding_share:.1f}% of "
          f"{scorer.stats.batch_tokens} batch token slots")
    print(f"errors {sum(r.error is not None for r in results)}; stats {scorer.stats}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
