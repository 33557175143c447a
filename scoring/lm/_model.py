"""Load a local Hugging Face causal LM directory (torch and transformers imported lazily).

Nothing is downloaded: the directory must exist and hold a ``config.json`` whose model type
``AutoModelForCausalLM`` knows, plus the tokenizer files.  Every failure raises
`ModelLoadError` (a ``ValueError``) naming the directory and what is wrong.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from normalize.errors import UsageError

if TYPE_CHECKING:
    import torch

DEVICES = ("auto", "cpu", "cuda")
DTYPES = ("auto", "float32", "bfloat16", "float16")
ATTN_IMPLEMENTATIONS = ("auto", "sdpa", "eager", "flash_attention_2")


class ModelLoadError(UsageError):
    """A model directory is missing, unreadable or not a causal language model."""


@dataclass(frozen=True)
class LoadedModel:
    """A causal LM ready for scoring: model in eval mode, its tokenizer, device and dtype."""

    model: Any
    tokenizer: Any
    device: torch.device
    dtype: torch.dtype
    attn_implementation: str
    max_length: int


def resolve_device(device: str) -> str:
    """Map ``auto|cpu|cuda`` to a concrete device name; ``auto`` picks cuda when present.

    >>> resolve_device("cpu")
    'cpu'
    """
    if device not in DEVICES:
        raise UsageError(f"device must be one of {DEVICES}, got {device!r}")
    if device == "cpu":
        return "cpu"
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        raise UsageError("device='cuda' was requested but torch sees no CUDA device")
    return "cuda" if torch.cuda.is_available() else "cpu"


def resolve_dtype(dtype: str, device: str) -> torch.dtype:
    """Map a dtype name to a torch dtype; ``auto`` is bfloat16 on CUDA and float32 on CPU.

    >>> str(resolve_dtype("auto", "cpu"))
    'torch.float32'
    """
    if dtype not in DTYPES:
        raise UsageError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    import torch

    if dtype == "auto":
        return torch.bfloat16 if device == "cuda" else torch.float32
    resolved: torch.dtype = getattr(torch, dtype)
    return resolved


def resolve_attn_implementation(attn_implementation: str, device: str) -> str:
    """Pick the attention kernel; ``auto`` is ``sdpa`` (flash_attention_2 only when asked).

    ``flash_attention_2`` needs the ``flash_attn`` package and CUDA; asking for it without
    them raises ValueError.  SDPA already dispatches to fused kernels on CUDA.

    >>> resolve_attn_implementation("auto", "cpu")
    'sdpa'
    """
    if attn_implementation not in ATTN_IMPLEMENTATIONS:
        raise UsageError(
            f"attn_implementation must be one of {ATTN_IMPLEMENTATIONS}, got {attn_implementation!r}"
        )
    if attn_implementation == "flash_attention_2":
        if device != "cuda" or importlib.util.find_spec("flash_attn") is None:
            raise UsageError("attn_implementation='flash_attention_2' needs CUDA and flash_attn")
        return attn_implementation
    return "sdpa" if attn_implementation == "auto" else attn_implementation


def check_causal_lm_dir(model_dir: str | Path) -> Path:
    """Return the directory as a Path if its config names a causal LM; else ModelLoadError."""
    path = Path(model_dir)
    if not path.exists():
        raise ModelLoadError(f"model directory {str(path)!r} does not exist (nothing is downloaded)")
    if not path.is_dir():
        raise ModelLoadError(f"model path {str(path)!r} is not a directory")
    config_file = path / "config.json"
    if not config_file.is_file():
        raise ModelLoadError(
            f"{str(path)!r} has no config.json; expected a Hugging Face model directory "
            "saved with save_pretrained"
        )
    try:
        config = json.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"cannot read {str(config_file)!r}: {exc}") from exc
    model_type = config.get("model_type") if isinstance(config, dict) else None
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    if model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        raise ModelLoadError(
            f"{str(path)!r} is not a causal language model: config model_type={model_type!r}, "
            f"architectures={config.get('architectures') if isinstance(config, dict) else None!r}"
        )
    return path


def resolve_max_length(config: Any, tokenizer: Any, default: int = 2048) -> int:
    """Context length like lm-eval's HF backend: config n_positions / max_position_embeddings /
    n_ctx, then the tokenizer's model_max_length when set, then `default`."""
    cfg = getattr(config, "text_config", None) or config
    for attr in ("n_positions", "max_position_embeddings", "n_ctx"):
        value = getattr(cfg, attr, None)
        if value is not None:
            return int(value)
    tok_max = getattr(tokenizer, "model_max_length", None)
    if isinstance(tok_max, int) and tok_max < 10**12:
        return tok_max
    return default


def load_causal_lm(
    model_dir: str | Path,
    *,
    device: str = "auto",
    dtype: str = "auto",
    attn_implementation: str = "auto",
) -> LoadedModel:
    """Load model and tokenizer from a local directory, in eval mode on the chosen device."""
    path = check_causal_lm_dir(model_dir)
    dev = resolve_device(device)
    torch_dtype = resolve_dtype(dtype, dev)
    attn = resolve_attn_implementation(attn_implementation, dev)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError, KeyError) as exc:
        raise ModelLoadError(f"cannot load a tokenizer from {str(path)!r}: {exc}") from exc
    import transformers

    major_minor = tuple(int(p) for p in transformers.__version__.split(".")[:2])
    dtype_kw = "dtype" if major_minor >= (4, 56) else "torch_dtype"
    model: Any
    try:
        model = AutoModelForCausalLM.from_pretrained(
            path, attn_implementation=attn, local_files_only=True, **{dtype_kw: torch_dtype}
        )
    except (OSError, ValueError, KeyError) as exc:
        raise ModelLoadError(f"cannot load a causal LM from {str(path)!r}: {exc}") from exc
    model.to(torch.device(dev))
    model.eval()
    return LoadedModel(
        model=model,
        tokenizer=tokenizer,
        device=torch.device(dev),
        dtype=torch_dtype,
        attn_implementation=attn,
        max_length=resolve_max_length(model.config, tokenizer),
    )


def non_embedding_parameters(model: Any) -> int:
    """Parameters outside embedding tables and the output projection: the N of MFU.

    The usual convention (Kaplan et al. 2020; Chinchilla): a forward pass costs 2·N FLOPs per
    token (training 6·N) with N excluding the input embeddings, position embeddings and the LM
    head, tied or not.  Every ``torch.nn.Embedding`` and the model's output embeddings are left
    out; tied weights count once.
    """
    import torch

    skip = {id(p) for m in model.modules() if isinstance(m, torch.nn.Embedding)
            for p in m.parameters()}
    head = model.get_output_embeddings()
    if head is not None:
        skip.update(id(p) for p in head.parameters())
    return sum(p.numel() for p in model.parameters() if id(p) not in skip)
