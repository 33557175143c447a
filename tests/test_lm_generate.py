"""Generation: greedy matches transformers, seeds reproduce across batches, stops cut, cache hits."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from normalize.io._io import parse_lines
from scoring.cache import Cache
from scoring.lm._model import ModelLoadError
from scoring.lm.generate import (
    LocalGenerator,
    Request,
    SamplingParams,
    derive_seed,
    generate_rows,
    sample_tokens,
    truncate_at_stop,
)
from tests.lm_fixtures import not_causal_lm_dir, tiny_lm_dir

__all__ = ["not_causal_lm_dir", "tiny_lm_dir"]  # session fixtures used by name below



PROMPTS = ["The quick brown fox", "今天天气", "Question: What is the capital of France? Answer:", "A"]


@pytest.fixture(scope="module")
def generator(tiny_lm_dir: Path) -> LocalGenerator:
    return LocalGenerator(tiny_lm_dir, device="cpu", dtype="float32")


def texts(gen: LocalGenerator, requests: list[Request], params: SamplingParams) -> list[str | None]:
    return [g.text for g in gen.generate(requests, params)]


def test_greedy_is_deterministic_and_matches_transformers_generate(generator: LocalGenerator) -> None:
    params = SamplingParams(max_new_tokens=10)
    first = texts(generator, [Request(p, 0) for p in PROMPTS], params)
    assert first == texts(generator, [Request(p, 7) for p in PROMPTS], params)  # greedy ignores the seed
    loaded = generator.loaded
    for prompt, text in zip(PROMPTS, first, strict=True):
        enc = loaded.tokenizer(prompt, return_tensors="pt")
        out = loaded.model.generate(**enc, max_new_tokens=10, do_sample=False,
                                    pad_token_id=loaded.tokenizer.eos_token_id)
        expected = loaded.tokenizer.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        assert text == expected


def test_same_seed_same_text_and_different_seed_different_text(generator: LocalGenerator) -> None:
    params = SamplingParams(temperature=1.0, max_new_tokens=8)
    seed0 = texts(generator, [Request(p, 0) for p in PROMPTS], params)
    assert seed0 == texts(generator, [Request(p, 0) for p in PROMPTS], params)
    seed1 = texts(generator, [Request(p, 1) for p in PROMPTS], params)
    assert sum(a != b for a, b in zip(seed0, seed1, strict=True)) >= 3
    samples = texts(generator, [Request(PROMPTS[0], 0, k) for k in range(4)], params)
    assert len(set(samples)) >= 3  # sample indices get distinct streams


@pytest.mark.parametrize("params", [SamplingParams(temperature=1.0, max_new_tokens=8, seed=3),
                                    SamplingParams(temperature=0.8, top_p=0.9, top_k=50, max_new_tokens=8),
                                    SamplingParams(max_new_tokens=8)])
def test_a_seeded_request_gives_the_same_text_whatever_its_batch(tiny_lm_dir: Path, params: SamplingParams) -> None:
    requests = [Request(p, 5, k) for p in PROMPTS for k in range(2)]
    alone = [LocalGenerator(tiny_lm_dir, device="cpu").generate([r], params)[0].text for r in requests]
    together = texts(LocalGenerator(tiny_lm_dir, device="cpu", batch_size=8), requests, params)
    in_pairs = texts(LocalGenerator(tiny_lm_dir, device="cpu", batch_size=3), requests[::-1], params)[::-1]
    assert alone == together == in_pairs


def test_stop_sequences_truncate_and_end_decoding_early(tiny_lm_dir: Path) -> None:
    free = LocalGenerator(tiny_lm_dir, device="cpu")
    long_params = SamplingParams(max_new_tokens=24)
    full = texts(free, [Request(PROMPTS[0], 0)], long_params)[0]
    assert full is not None and len(full) > 6
    stop = full[3:5]
    expected = full[: full.find(stop)]
    stopped = LocalGenerator(tiny_lm_dir, device="cpu")
    got = texts(stopped, [Request(PROMPTS[0], 0)], SamplingParams(max_new_tokens=24, stop=(stop, "\u2603never")))
    assert got == [expected]
    assert stopped.forward_calls < free.forward_calls == 24


def test_a_batch_stops_once_every_row_hit_a_stop(tiny_lm_dir: Path) -> None:
    probe = LocalGenerator(tiny_lm_dir, device="cpu")
    outs = texts(probe, [Request(p, 0) for p in PROMPTS[:2]], SamplingParams(max_new_tokens=20))
    stops = tuple(o[1:3] for o in outs if o)  # each row's output has one of these early on
    gen = LocalGenerator(tiny_lm_dir, device="cpu", batch_size=2)
    got = texts(gen, [Request(p, 0) for p in PROMPTS[:2]], SamplingParams(max_new_tokens=20, stop=stops))
    assert got == [truncate_at_stop(o or "", stops)[0] for o in outs]
    assert gen.forward_calls < 20


def test_the_cache_answers_a_second_run_without_loading_the_model(tiny_lm_dir: Path, tmp_path: Path) -> None:
    params = SamplingParams(n=1, temperature=0.7, max_new_tokens=6, seed=2)
    requests = [Request(p, 2, k) for p in PROMPTS for k in range(2)]
    with Cache(tmp_path / "c.sqlite") as cache:
        first = LocalGenerator(tiny_lm_dir, device="cpu", cache=cache)
        out1 = first.generate(requests, params)
        assert first.forward_calls > 0 and not any(g.cached for g in out1)
    with Cache(tmp_path / "c.sqlite") as cache:
        second = LocalGenerator(tiny_lm_dir, device="cpu", cache=cache)
        out2 = second.generate(requests, params)
        assert [g.text for g in out2] == [g.text for g in out1]
        assert all(g.cached for g in out2)
        assert second.forward_calls == 0 and second._loaded is None
        assert cache.stats().by_table["generations"]["hits"] == len(requests)
        other = LocalGenerator(tiny_lm_dir, device="cpu", cache=cache)
        other.generate(requests[:1], SamplingParams(temperature=0.8, max_new_tokens=6, seed=2))
        assert other.forward_calls > 0  # another temperature is another key


def test_greedy_samples_of_one_prompt_are_decoded_once(tiny_lm_dir: Path, tmp_path: Path) -> None:
    params = SamplingParams(n=3, max_new_tokens=5)
    single = LocalGenerator(tiny_lm_dir, device="cpu")
    texts(single, [Request(PROMPTS[0], 0)], params)
    with Cache(tmp_path / "c.sqlite") as cache:
        gen = LocalGenerator(tiny_lm_dir, device="cpu", cache=cache)
        got = texts(gen, [Request(PROMPTS[0], s, k) for s, k in [(0, 0), (1, 1), (2, 2)]], params)
        assert len(set(got)) == 1 and gen.forward_calls == single.forward_calls
        assert cache.row_counts()["generations"] == 1


def test_max_new_tokens_zero_and_empty_prompt(tiny_lm_dir: Path) -> None:
    gen = LocalGenerator(tiny_lm_dir, device="cpu")
    assert texts(gen, [Request("hi", 0)], SamplingParams(max_new_tokens=0)) == [""]
    assert gen._loaded is None
    empty = gen.generate([Request("", 0)], SamplingParams(max_new_tokens=4))[0]
    assert empty.error is None and isinstance(empty.text, str)


def test_a_prompt_longer_than_the_context_is_an_error_not_a_crash(generator: LocalGenerator) -> None:
    long_prompt = "The quick brown fox jumps over the lazy dog. " * 60
    got = generator.generate([Request(long_prompt, 0), Request("A", 0)], SamplingParams(max_new_tokens=4))
    assert got[0].text is None and got[0].error is not None and "context of 256 tokens" in got[0].error
    assert got[1].text is not None


def test_generate_rows_keeps_every_row_in_order(generator: LocalGenerator) -> None:
    lines = [
        '{"id": 1, "prompt": "The quick", "task": "gsm8k", "target": "4"}',
        "not json",
        '{"id": 3, "task": "gsm8k"}',
        '{"id": 4, "prompt": "A", "seed": -1}',
        '{"id": 5, "prompt": "今天", "seed": 9, "output": "stale"}',
    ]
    params = SamplingParams(n=2, temperature=1.0, max_new_tokens=4, seed=1)
    out = list(generate_rows(list(parse_lines(lines)), generator, params))
    assert [(r.get("id"), r.get("sample"), r.get("status")) for r in out] == [
        (1, 0, None), (1, 1, None), (None, None, "invalid"), (3, None, "invalid"), (4, None, "invalid"),
        (5, 0, None), (5, 1, None),
    ]
    assert out[0]["target"] == "4" and out[0]["task"] == "gsm8k" and isinstance(out[0]["output"], str)
    assert out[0]["model"] == generator.model_id and out[0]["model_revision"] == generator.revision
    assert out[0]["generation"]["seed"] == 1 and out[5]["generation"]["seed"] == 9
    assert out[0]["generation"]["temperature"] == 1.0 and out[0]["generation"]["n"] == 2
    for bad in out[2:5]:
        assert "output" not in bad and bad["reason"]
    assert "prompt" in out[3]["reason"] and "seed" in out[4]["reason"]
    assert out[5]["output"] != "stale"
    alone = generator.generate([Request("今天", 9, 1)], params)[0].text
    assert out[6]["output"] == alone


def test_generate_rows_with_one_sample_has_no_sample_field(generator: LocalGenerator) -> None:
    out = list(generate_rows(list(parse_lines(['{"id": "a", "prompt": "A"}'])), generator,
                             SamplingParams(max_new_tokens=2)))
    assert len(out) == 1 and "sample" not in out[0] and out[0]["generation"]["do_sample"] is False


def test_a_missing_or_non_causal_model_dir_is_a_load_error(tmp_path: Path, not_causal_lm_dir: Path) -> None:
    with pytest.raises(ModelLoadError, match="does not exist"):
        LocalGenerator(tmp_path / "missing", device="cpu")
    with pytest.raises(ModelLoadError, match="not a causal language model"):
        LocalGenerator(not_causal_lm_dir, device="cpu")


@pytest.mark.parametrize(("field", "value"), [("n", 0), ("temperature", -1.0), ("top_k", -2),
                                              ("max_new_tokens", -1), ("seed", -3), ("stop", ("",))])
def test_bad_sampling_params_raise(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=field):
        SamplingParams(**{field: value})


# --------------------------------------------------------------------------- the sampler


def test_inverse_cdf_sampling_follows_the_distribution() -> None:
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.2]]))
    grid = 1000
    picks = [int(sample_tokens(logits, torch.tensor([(i + 0.5) / grid]), temperature=1.0)[0]) for i in range(grid)]
    freq = [picks.count(t) / grid for t in range(3)]
    assert freq == pytest.approx([0.5, 0.3, 0.2], abs=0.002)
    cut = [int(sample_tokens(logits, torch.tensor([(i + 0.5) / grid]), temperature=1.0, top_p=0.6)[0])
           for i in range(grid)]
    assert [cut.count(t) / grid for t in range(3)] == pytest.approx([0.5 / 0.8, 0.3 / 0.8, 0.0], abs=0.002)


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.floats(-5, 5), min_size=2, max_size=12),
    u=st.floats(0, 1, exclude_max=True),
    temperature=st.floats(0.05, 3),
    top_k=st.integers(0, 12),
    top_p=st.floats(0.01, 1),
)
def test_a_sampled_token_is_inside_the_top_k_and_nucleus(values: list[float], u: float, temperature: float,
                                                         top_k: int, top_p: float) -> None:
    logits = torch.tensor([values])
    values = logits[0].tolist()  # compare as the sampler sees them, in float32
    token = int(sample_tokens(logits, torch.tensor([u]), temperature=temperature, top_p=top_p, top_k=top_k)[0])
    if top_k:
        assert values[token] >= sorted(values, reverse=True)[min(top_k, len(values)) - 1]
    probs = torch.softmax(torch.tensor(values) / temperature, dim=-1).tolist()
    more_likely = sum(p for p in probs if p > probs[token])
    assert more_likely < top_p + 1e-6 or math.isclose(probs[token], max(probs))


def test_derived_seeds_and_stop_truncation() -> None:
    assert len({derive_seed(s, k) for s in range(10) for k in range(10)}) == 100
    assert truncate_at_stop("abc\n\nQ:", ["Q:", "\n\n"]) == ("abc", True)
    assert truncate_at_stop("", ["x"]) == ("", False)


def test_a_progress_bar_shows_throughput_only_when_asked(tiny_lm_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = list(parse_lines(['{"id": 1, "prompt": "A"}', '{"id": 2, "prompt": "B"}']))
    gen = LocalGenerator(tiny_lm_dir, device="cpu")
    list(generate_rows(rows, gen, SamplingParams(max_new_tokens=3), progress=False))
    assert "generate" not in capsys.readouterr().err
    list(generate_rows(rows, LocalGenerator(tiny_lm_dir, device="cpu"), SamplingParams(max_new_tokens=3),
                       progress=True))
    err = capsys.readouterr().err
    assert "generate" in err and "tok_s=" in err and "2/2" in err
