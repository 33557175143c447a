"""Our log-likelihoods equal lm-eval 0.4.13's HF backend on the same tiny model (float32).

Requests whose boundary is "joint" or "prefix" must match lm-eval's ``HFLM.loglikelihood``
within 1e-4 with the same is_greedy.  "separate" requests (a BPE merge across the join) are
where we deliberately differ — lm-eval slices the joint encoding — so for them we check the
engine against lm-eval's ``_loglikelihood_tokens`` fed with our token ids.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from scoring.lm.loglik import LogLikelihoodScorer

_spec = importlib.util.spec_from_file_location(
    "lm_fixtures_for_equivalence", Path(__file__).with_name("lm_fixtures.py")
)
assert _spec is not None and _spec.loader is not None
fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixtures)
tiny_lm_dir = fixtures.tiny_lm_dir

import accelerate  # noqa: E402, F401  (lm-eval's HF backend needs it: a dev dependency, never skipped)


def make_requests(scorer: LogLikelihoodScorer) -> list[tuple[str, str]]:
    """Joint, prefix, Chinese, trailing-space, long (truncated), merged and greedy requests."""
    requests = [
        ("The quick brown fox", " jumps over the lazy dog"),
        ("The quick brown fox", " sat"),
        ("The quick brown fox", " j"),
        ("A man is sitting on a roof.", " He starts pulling up roofing on a roof."),
        ("A man is sitting on a roof.", " The woman is playing the violin."),
        ("问题：法国的首都是哪里？答案：", "巴黎"),
        ("问题：法国的首都是哪里？答案：", "火星。"),
        ("", "Hello world"),
        ("", "今天天气很好"),
        ("Answer: ", "Paris"),
        ("Question: What is the capital of France?\nAnswer:", " Paris"),
        (fixtures.ENGLISH, " The end."),  # longer than max_length=64: truncated from the left
        ("The cat", "s are running"),
    ]
    requests.append(find_greedy_request(scorer))
    return requests


def find_greedy_request(scorer: LogLikelihoodScorer) -> tuple[str, str]:
    """A context plus its argmax continuation that re-encodes to the same tokens."""
    import torch

    for sentence in fixtures.ENGLISH.replace("\n", " ").split(". "):
        ids = scorer.tokenizer.encode(sentence)
        with torch.no_grad():
            for _ in range(2):
                logits = scorer.model(torch.tensor([ids])).logits
                ids.append(int(logits[0, -1].argmax()))
        greedy = scorer.tokenizer.decode(ids[-2:])
        if scorer.encode_pair(sentence, greedy).continuation == tuple(ids[-2:]):
            return sentence, greedy
    raise AssertionError("no context has a greedy continuation that re-encodes identically")


@pytest.fixture(scope="module")
def lm_eval_model(tiny_lm_dir: Path) -> Any:
    from lm_eval.models.huggingface import HFLM

    return HFLM(pretrained=str(tiny_lm_dir), device="cpu", batch_size=3, dtype="float32",
                max_length=64)


@pytest.fixture(scope="module")
def scorer(tiny_lm_dir: Path) -> LogLikelihoodScorer:
    return LogLikelihoodScorer(tiny_lm_dir, device="cpu", dtype="float32", batch_size=4,
                               max_length=64)


def run_lm_eval(lm: Any, requests: list[tuple[str, str]]) -> list[tuple[float, bool]]:
    from lm_eval.api.instance import Instance

    instances = [Instance(request_type="loglikelihood", doc={}, arguments=r, idx=i)
                 for i, r in enumerate(requests)]
    return [(float(a), bool(b)) for a, b in lm.loglikelihood(instances, disable_tqdm=True)]


def test_matches_lm_eval_hf_backend(lm_eval_model: Any, scorer: LogLikelihoodScorer) -> None:
    requests = make_requests(scorer)
    ours = scorer.loglikelihood(requests)
    theirs = run_lm_eval(lm_eval_model, requests)
    boundaries = {r.boundary for r in ours}
    assert {"joint", "prefix", "separate"} <= boundaries
    assert any(r.truncated for r in ours) and any(r.is_greedy for r in ours)
    compared = 0
    for request, mine, (logprob, greedy) in zip(requests, ours, theirs, strict=True):
        assert mine.error is None, request
        if mine.boundary == "separate":
            continue
        assert abs(mine.logprob - logprob) <= 1e-4, (request, mine.logprob, logprob)
        assert mine.is_greedy == greedy, request
        compared += 1
    assert compared == len(requests) - 1


def test_separate_boundary_matches_lm_eval_on_our_tokens(
    lm_eval_model: Any, scorer: LogLikelihoodScorer
) -> None:
    requests = [r for r in make_requests(scorer) if scorer.encode_pair(*r).boundary == "separate"]
    assert requests
    encoded = [scorer.encode_pair(*r) for r in requests]
    theirs = lm_eval_model._loglikelihood_tokens(
        [(r, list(e.context), list(e.continuation)) for r, e in zip(requests, encoded, strict=True)],
        disable_tqdm=True,
    )
    for mine, (logprob, greedy) in zip(scorer.loglikelihood(requests), theirs, strict=True):
        assert abs(mine.logprob - float(logprob)) <= 1e-4
        assert mine.is_greedy == bool(greedy)


def test_rolling_matches_lm_eval(lm_eval_model: Any, scorer: LogLikelihoodScorer) -> None:
    from lm_eval.api.instance import Instance

    texts = [fixtures.ENGLISH[:600], "今天天气很好，阳光明媚。", "Short."]
    instances = [Instance(request_type="loglikelihood_rolling", doc={}, arguments=(t,), idx=i)
                 for i, t in enumerate(texts)]
    theirs = lm_eval_model.loglikelihood_rolling(instances, disable_tqdm=True)
    for mine, logprob in zip(scorer.loglikelihood_rolling(texts), theirs, strict=True):
        assert mine.error is None
        assert abs(mine.logprob - float(logprob)) <= 1e-4
