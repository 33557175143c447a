"""Tiny random-weight causal LMs for the LM-scorer tests (nothing is downloaded).

`build_tiny_gpt2(path)` trains a byte-level BPE tokenizer with the `tokenizers` library on
a few KB of English and Chinese text written below, builds a 2-layer GPT-2 with seeded random
weights and saves both with `save_pretrained`, so `AutoModelForCausalLM.from_pretrained(path)`
and lm-eval's `HFLM(pretrained=path)` load the same model.  Test modules import the
session-scoped fixtures `tiny_lm_dir` and `not_causal_lm_dir` by file path
(tests/ is not a package and pytest runs with ``--import-mode=importlib``).  The model is
built once per session under the session's base temp dir, whichever module asks first.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ENGLISH = """\
The quick brown fox jumps over the lazy dog. A man is sitting on a roof. He starts pulling up
roofing on a roof. The woman is playing the violin in the park while children watch her.
Then she puts the violin away and walks home. A boy is running down a track. He jumps over the
hurdle and lands in the sand. The chef cuts the onions and puts them into the hot pan.
Afterwards he stirs the soup and tastes it with a wooden spoon. Question: What is the capital
of France? Answer: Paris. Question: Which planet is known as the red planet? Answer: Mars.
The students are reading their books in the library. The teacher writes on the blackboard.
It is raining outside, so everyone stays inside and plays board games. The weather is nice
today and the sun is shining. People are walking their dogs along the river. The river flows
into the sea. Ships are sailing on the sea and birds are flying over the water.
"""

CHINESE = """\
今天天气很好，阳光明媚。一个男人坐在屋顶上。他开始拆除屋顶上的瓦片。
女人在公园里拉小提琴，孩子们在旁边看着她。然后她把小提琴收起来走回家。
问题：法国的首都是哪里？答案：巴黎。问题：哪颗行星被称为红色星球？答案：火星。
学生们在图书馆里读书。老师在黑板上写字。外面下雨了，所以大家待在屋里玩棋盘游戏。
人们沿着河边遛狗。河水流入大海。船在海上航行，鸟在水面上飞翔。
"""

EOT = "<|endoftext|>"


def training_text() -> list[str]:
    """The tokenizer training corpus: the English and Chinese paragraphs, repeated."""
    lines = (ENGLISH + CHINESE).splitlines()
    return [line for line in lines if line.strip()] * 4


def train_tokenizer(vocab_size: int = 500) -> object:
    """Train a byte-level BPE tokenizer (GPT-2 style) on `training_text()`."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[EOT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(training_text(), trainer=trainer)
    return PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=tok, bos_token=EOT, eos_token=EOT, unk_token=EOT
    )


def build_tiny_gpt2(
    path: Path,
    *,
    n_layer: int = 2,
    n_embd: int = 64,
    n_head: int = 2,
    n_positions: int = 256,
    vocab_size: int = 500,
    seed: int = 0,
) -> Path:
    """Save a seeded random-weight GPT-2 and its trained tokenizer to `path`; return `path`."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = train_tokenizer(vocab_size)
    config = GPT2Config(
        vocab_size=len(tokenizer),  # type: ignore[arg-type]
        n_positions=n_positions,
        n_embd=n_embd,
        n_layer=n_layer,
        n_head=n_head,
        bos_token_id=tokenizer.bos_token_id,  # type: ignore[attr-defined]
        eos_token_id=tokenizer.eos_token_id,  # type: ignore[attr-defined]
    )
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(config)
    with torch.no_grad():  # larger weights than the init so predictions are not near-uniform
        for param in model.parameters():
            param.mul_(4.0)
    model.eval()  # type: ignore[no-untyped-call]
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)  # type: ignore[attr-defined]
    return path


def _shared_dir(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    return tmp_path_factory.getbasetemp() / name


@pytest.fixture(scope="session")
def tiny_lm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny GPT-2 (2 layers, 64 dims, ~500-token byte-level BPE) saved to a temp dir."""
    path = _shared_dir(tmp_path_factory, "tiny_gpt2")
    if not (path / "config.json").is_file():
        build_tiny_gpt2(path)
    return path


@pytest.fixture(scope="session")
def not_causal_lm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the config of an encoder-only model (DistilBERT), not a causal LM."""
    path = _shared_dir(tmp_path_factory, "distilbert_config")
    path.mkdir(exist_ok=True)
    config = {"model_type": "distilbert", "architectures": ["DistilBertModel"], "vocab_size": 100,
              "dim": 32, "n_layers": 1, "n_heads": 2, "hidden_dim": 64}
    (path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return path

