"""GPU benchmark: padding share, tokens/s and MFU of the log-likelihood engine, 1B and 8B.

For each preset in ``--preset`` (default ``1b,8b``) builds a random-weight Llama-style model
in memory (bf16 on CUDA, nothing downloaded or written to disk beyond a small trained BPE
tokenizer) and scores the mixed workload of ``bench/loglik_padding.py`` (HellaSwag-, MMLU-
and LAMBADA-shaped items in arrival order) twice through `LogLikelihoodScorer.loglikelihood`:
a first pass that tokenizes (cold encode cache) and a timed second pass whose encodings all
come from the cache.  Tokenization is timed apart from the forward passes
(``stats.encode_seconds`` / ``stats.forward_seconds``).  Prints per preset: padding share of
the batch token slots, processed tokens/s and

    MFU = 2 · N · processed tokens / forward seconds / peak

where N is the non-embedding parameter count (input and position embeddings and the LM head
left out, `scoring.lm._model.non_embedding_parameters`; inference is 2·N FLOPs per token,
training would be 6·N), processed tokens are those the engine ran (a shared context counts
once), and the peak is the GPU's dense bf16 figure (table below).  Attention-score FLOPs and
the LM-head projection at scored positions are not counted, so the figure is conservative.

Both presets together take well under 5 minutes on one H100/H200-class GPU (model build in
seconds, ~200k processed tokens per pass).  Without CUDA it exits with status 2 and says so;
``--device cpu --preset tiny`` runs the same code path (float32, no MFU) as a smoke test.

    .venv/bin/python bench/gpu_loglik.py                       # 1b then 8b on CUDA
    .venv/bin/python bench/gpu_loglik.py --device cpu --preset tiny --hellaswag 8 --mmlu 4 --lambada 8
"""

from __future__ import annotations

import argparse
import gc
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


def mfu(non_embedding_params: int, tokens: int, seconds: float, peak: float) -> float:
    """Model FLOPs utilization of inference: 2·N FLOPs per processed token over the peak.

    >>> round(mfu(7_000_000_000, 100_000, 2.0, 989e12), 3)
    0.708
    """
    return 2 * non_embedding_params * tokens / seconds / peak


def build_loaded(tokenizer_dir: Path, preset: str, seed: int, device: str) -> Any:
    """A random-weight Llama of the preset in memory (bf16 on CUDA, float32 on CPU) with the
    trained BPE tokenizer saved in ``tokenizer_dir``, as a `LoadedModel`."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from scoring.lm._model import LoadedModel, resolve_attn_implementation

    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    attn = resolve_attn_implementation("auto", device)
    config = LlamaConfig(**PRESETS[preset], max_position_embeddings=4096, bos_token_id=0,
                         eos_token_id=0, tie_word_embeddings=False, attn_implementation=attn)
    torch.manual_seed(seed)
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)  # build in the target dtype: no float32 copy of 8B weights
    try:
        with torch.device(device):
            model: Any = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(default)
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir, local_files_only=True)
    return LoadedModel(model=model, tokenizer=tokenizer, device=torch.device(device),
                       dtype=dtype, attn_implementation=attn, max_length=4096)


def run_preset(preset: str, args: argparse.Namespace, tokenizer_dir: Path) -> None:
    """Build, warm up and score the workload for one preset; print the figures."""
    import torch

    from scoring.lm._model import non_embedding_parameters
    from scoring.lm.loglik import LogLikelihoodScorer

    sys.path.insert(0, str(Path(__file__).parent))
    from loglik_vs_lmeval import make_mixed_requests

    cuda = args.device == "cuda"
    started = time.perf_counter()
    loaded = build_loaded(tokenizer_dir, preset, args.seed, args.device)
    batch = args.batch_size if args.batch_size == "auto" else int(args.batch_size)
    scorer = LogLikelihoodScorer.from_loaded(loaded, batch_size=batch)
    params = sum(p.numel() for p in scorer.model.parameters())
    n_compute = non_embedding_parameters(scorer.model)
    requests = make_mixed_requests(scorer.tokenizer, args.seed, hellaswag=args.hellaswag,
                                   mmlu=args.mmlu, lambada=args.lambada)
    built = time.perf_counter() - started
    scorer.loglikelihood(requests[:16])  # warm-up (kernels, allocator)
    scorer.stats.reset()
    cold = scorer.loglikelihood(requests)  # tokenizes everything, then scores
    encode_cold = scorer.stats.encode_seconds
    scorer.stats.reset()
    if cuda:
        torch.cuda.synchronize()
    results = scorer.loglikelihood(requests)  # every encoding from the cache
    if cuda:
        torch.cuda.synchronize()
    st = scorer.stats
    name = torch.cuda.get_device_name(0) if cuda else "cpu"
    peak = peak_flops(name) if cuda else None
    drift = max(abs(a.logprob - b.logprob) for a, b in zip(cold, results, strict=True))
    print(f"== preset {preset} on {name}: {params / 1e6:,.1f} M parameters, "
          f"{n_compute / 1e6:,.1f} M non-embedding; {loaded.dtype}; attention "
          f"{loaded.attn_implementation}; built in {built:.1f} s")
    print(f"{len(requests)} requests; token budget {scorer._max_tokens} slots per pass; "
          f"{st.forward_calls} forward passes")
    print(f"tokenization: {encode_cold:.2f} s cold, {st.encode_seconds:.3f} s from the cache "
          f"({st.encode_cache_hits} hits); outside the forward time")
    print(f"forward {st.forward_seconds:.2f} s: processed tokens/s {st.tokens_per_second:,.0f} "
          f"({st.forward_tokens:,} tokens, {len(requests) / st.forward_seconds:,.1f} requests/s)")
    print(f"padding share {100 * st.padding_share:.1f}% of {st.batch_tokens:,} batch token slots")
    if cuda and peak is None:
        print(f"MFU: unknown peak for {name!r} (known: {', '.join(BF16_PEAK_FLOPS)})")
    elif peak is not None:
        print(f"MFU {100 * mfu(n_compute, st.forward_tokens, st.forward_seconds, peak):.1f}% of "
              f"{peak / 1e12:.0f} TFLOP/s dense bf16 (2 x {n_compute / 1e9:.2f} B non-embedding "
              f"params x processed tokens; inference convention, training would be 6N)")
    else:
        print("MFU: not computed on CPU (no bf16 peak)")
    errors = sum(r.error is not None for r in results)
    print(f"errors {errors}; cold vs cached run max |Δ log p| {drift:.2e}; "
          f"preset wall {time.perf_counter() - started:.1f} s", flush=True)
    del scorer, loaded
    gc.collect()
    if cuda:
        torch.cuda.empty_cache()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="1b,8b",
                        help=f"comma-separated presets, of {', '.join(PRESETS)}")
    parser.add_argument("--hellaswag", type=int, default=500)
    parser.add_argument("--mmlu", type=int, default=200)
    parser.add_argument("--lambada", type=int, default=500)
    parser.add_argument("--batch-size", default="auto", help="'auto' or rows per forward pass")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                        help="cpu: a smoke test of this script (use --preset tiny); no MFU")
    args = parser.parse_args(argv)
    presets = [p.strip() for p in args.preset.split(",") if p.strip()]
    unknown = [p for p in presets if p not in PRESETS]
    if unknown or not presets:
        parser.error(f"unknown preset(s) {unknown or args.preset!r}; choose from {sorted(PRESETS)}")

    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        print("gpu_loglik: no CUDA device is visible to torch; this benchmark needs a GPU "
              "(run `--device cpu --preset tiny` for a smoke test of the script)",
              file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).parent))
    from loglik_vs_lmeval import build_model

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tokenizer_dir = Path(tmp) / "tokenizer"
        build_model(tokenizer_dir, n_layer=1, n_embd=64, vocab=1000, seed=args.seed)
        for preset in presets:
            run_preset(preset, args, tokenizer_dir)
    print(f"total wall {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
