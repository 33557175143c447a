"""Write the tiny test GPT-2 (tests/lm_fixtures.py) as a GGUF file with the ``gguf`` package.

llama.cpp's ``gpt2`` architecture: token and position embeddings, per block a pre-attention
LayerNorm, one fused QKV projection, the attention output, a pre-MLP LayerNorm, the MLP up and
down projections (all with biases), a final LayerNorm and the output matrix (GPT-2 ties it to
the token embedding; it is written out explicitly).  Hugging Face's GPT-2 keeps its projections
as ``Conv1D`` weights of shape [in, out]; llama.cpp wants [out, in] like ``nn.Linear``, so they
are transposed.  The tokenizer goes in as llama.cpp's byte-level BPE (``gpt2`` model, ``gpt-2``
pre-tokenizer: the same regex as the trained ``ByteLevel`` pre-tokenizer) with its merges.
Weights stay float32, so llama.cpp computes what torch computes up to kernel rounding.
"""

from __future__ import annotations

import json
from pathlib import Path


def write_gguf(model_dir: Path, out: Path) -> Path:
    """Convert the Hugging Face GPT-2 folder ``model_dir`` to ``out`` (a .gguf file)."""
    import gguf
    import numpy as np
    import torch
    from transformers import GPT2LMHeadModel

    model = GPT2LMHeadModel.from_pretrained(model_dir, local_files_only=True)
    config = model.config
    state = {k: v.detach().to(torch.float32).numpy() for k, v in model.state_dict().items()}
    tokenizer = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    vocab: dict[str, int] = tokenizer["model"]["vocab"]
    for added in tokenizer.get("added_tokens", []):
        vocab[added["content"]] = added["id"]
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    if [vocab[t] for t in tokens] != list(range(len(tokens))):
        raise ValueError("token ids are not contiguous")
    specials = {a["id"] for a in tokenizer.get("added_tokens", []) if a.get("special")}
    merges = [m if isinstance(m, str) else " ".join(m) for m in tokenizer["model"]["merges"]]

    writer = gguf.GGUFWriter(str(out), "gpt2")
    writer.add_name("tiny-gpt2-test")
    writer.add_context_length(config.n_positions)
    writer.add_embedding_length(config.n_embd)
    writer.add_feed_forward_length(config.n_inner or 4 * config.n_embd)
    writer.add_block_count(config.n_layer)
    writer.add_head_count(config.n_head)
    writer.add_layer_norm_eps(config.layer_norm_epsilon)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(tokens)
    writer.add_token_types([gguf.TokenType.CONTROL if i in specials else gguf.TokenType.NORMAL
                            for i in range(len(tokens))])
    writer.add_token_merges(merges)
    writer.add_bos_token_id(config.bos_token_id)
    writer.add_eos_token_id(config.eos_token_id)
    writer.add_add_bos_token(False)

    def put(name: str, array: np.ndarray) -> None:
        writer.add_tensor(name, np.ascontiguousarray(array, dtype=np.float32))

    put("token_embd.weight", state["transformer.wte.weight"])
    put("position_embd.weight", state["transformer.wpe.weight"])
    for i in range(config.n_layer):
        p = f"transformer.h.{i}."
        put(f"blk.{i}.attn_norm.weight", state[p + "ln_1.weight"])
        put(f"blk.{i}.attn_norm.bias", state[p + "ln_1.bias"])
        put(f"blk.{i}.attn_qkv.weight", state[p + "attn.c_attn.weight"].T)
        put(f"blk.{i}.attn_qkv.bias", state[p + "attn.c_attn.bias"])
        put(f"blk.{i}.attn_output.weight", state[p + "attn.c_proj.weight"].T)
        put(f"blk.{i}.attn_output.bias", state[p + "attn.c_proj.bias"])
        put(f"blk.{i}.ffn_norm.weight", state[p + "ln_2.weight"])
        put(f"blk.{i}.ffn_norm.bias", state[p + "ln_2.bias"])
        put(f"blk.{i}.ffn_up.weight", state[p + "mlp.c_fc.weight"].T)
        put(f"blk.{i}.ffn_up.bias", state[p + "mlp.c_fc.bias"])
        put(f"blk.{i}.ffn_down.weight", state[p + "mlp.c_proj.weight"].T)
        put(f"blk.{i}.ffn_down.bias", state[p + "mlp.c_proj.bias"])
    put("output_norm.weight", state["transformer.ln_f.weight"])
    put("output_norm.bias", state["transformer.ln_f.bias"])
    put("output.weight", state["lm_head.weight"])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out
