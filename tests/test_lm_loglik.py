"""The log-likelihood engine and multiple-choice metrics on a tiny random-weight GPT-2."""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.lm._model import ModelLoadError
from scoring.lm.choice import (
    ChoiceRowResult,
    TextRowResult,
    choice_report,
    score_rows,
    whitespace_warnings,
)
from scoring.lm.loglik import LogLikelihoodScorer, LoglikResult, length_chunks, truncate_left

_spec = importlib.util.spec_from_file_location(
    "lm_fixtures_for_loglik", Path(__file__).with_name("lm_fixtures.py")
)
assert _spec is not None and _spec.loader is not None
fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixtures)
tiny_lm_dir = fixtures.tiny_lm_dir
not_causal_lm_dir = fixtures.not_causal_lm_dir

REQUESTS = [
    ("The quick brown fox", " jumps over the lazy dog"),
    ("The quick brown fox", " sat"),
    ("The quick brown fox", " jumps"),
    ("A man is sitting on a roof.", " He starts pulling up roofing."),
    ("A man is sitting on a roof.", " He"),
    ("问题：法国的首都是哪里？答案：", "巴黎"),
    ("", "Hello world"),
    ("Answer: ", "Paris"),
    ("The cat", "s are running"),
]


@pytest.fixture(scope="module")
def scorer(tiny_lm_dir: Path) -> LogLikelihoodScorer:
    return LogLikelihoodScorer(tiny_lm_dir, device="cpu", batch_size=8)


class FakeBackend:
    """Deterministic log-likelihoods from a table; records every request it is sent."""

    def __init__(self, table: dict[tuple[str, str], float]) -> None:
        self.table = table
        self.sent: list[tuple[str, str]] = []

    def loglikelihood(self, requests: Sequence[tuple[str, str]]) -> list[LoglikResult]:
        self.sent.extend(requests)
        return [LoglikResult(self.table.get(r, -1.0), len(r[1]), False, "joint") for r in requests]

    def loglikelihood_rolling(self, texts: Sequence[str]) -> list[LoglikResult]:
        return [LoglikResult(-2.0 * len(t), len(t), False, "prefix") for t in texts]


def choice_rows(rows: list[Any], backend: Any, **options: Any) -> list[ChoiceRowResult]:
    """score_rows for rows that are all choice rows (narrows the result type)."""
    results = score_rows(rows, backend, **options)
    assert all(isinstance(r, ChoiceRowResult) for r in results)
    return [r for r in results if isinstance(r, ChoiceRowResult)]


def find_merge_across_join(scorer: LogLikelihoodScorer) -> tuple[str, str]:
    """A (context, continuation) whose tokens merge across the join, from the corpus words."""
    tok = scorer.tokenizer
    words = sorted({w.strip(".,?") for w in fixtures.ENGLISH.split() if len(w) > 3})
    for word in words:
        for cut in range(1, len(word)):
            ctx, cont = "The " + word[:cut], word[cut:]
            if tok.encode(ctx) + tok.encode(cont) != tok.encode(ctx + cont) and \
                    tok.encode(ctx + cont)[: len(tok.encode(ctx))] != tok.encode(ctx):
                return ctx, cont
    raise AssertionError("the trained tokenizer has no merge across any word split")


# ----------------------------------------------------------------------------- import laziness


def test_importing_scoring_lm_does_not_import_torch() -> None:
    code = ("import sys, scoring, scoring.lm, scoring.lm.loglik, scoring.lm.choice, "
            "scoring.lm._model; print('torch' in sys.modules, 'transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# ----------------------------------------------------------------------------- loading


def test_missing_model_dir_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="does not exist"):
        LogLikelihoodScorer(tmp_path / "no-such-model", device="cpu")


def test_dir_without_config_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match=r"no config\.json"):
        LogLikelihoodScorer(tmp_path, device="cpu")


def test_not_a_causal_lm_is_a_clear_error(not_causal_lm_dir: Path) -> None:
    with pytest.raises(ModelLoadError, match=r"not a causal language model.*distilbert"):
        LogLikelihoodScorer(not_causal_lm_dir, device="cpu")


def test_bad_arguments_raise_value_error(tiny_lm_dir: Path) -> None:
    with pytest.raises(ValueError, match="batch_size"):
        LogLikelihoodScorer(tiny_lm_dir, device="cpu", batch_size=0)
    with pytest.raises(ValueError, match="device"):
        LogLikelihoodScorer(tiny_lm_dir, device="tpu")
    with pytest.raises(ValueError, match="dtype"):
        LogLikelihoodScorer(tiny_lm_dir, device="cpu", dtype="int8")


# ----------------------------------------------------------------------------- boundary


def test_bpe_merge_across_join_is_encoded_separately(scorer: LogLikelihoodScorer) -> None:
    ctx, cont = find_merge_across_join(scorer)
    tok = scorer.tokenizer
    enc = scorer.encode_pair(ctx, cont)
    assert enc.boundary == "separate"
    assert enc.context == tuple(tok.encode(ctx))
    assert enc.continuation == tuple(tok.encode(cont, add_special_tokens=False))
    (result,) = scorer.loglikelihood([(ctx, cont)])
    assert result.boundary == "separate" and result.error is None
    (direct,) = scorer.loglikelihood_tokens([(enc.context, enc.continuation)])
    assert result.logprob == pytest.approx(direct.logprob, abs=1e-6)
    # what a silent slice of the joint encoding would have scored instead
    whole = tok.encode(ctx + cont)
    n = len(tok.encode(ctx))
    (sliced,) = scorer.loglikelihood_tokens([(whole[:n], whole[n:])])
    assert sliced.n_tokens != result.n_tokens or abs(sliced.logprob - result.logprob) > 1e-3


def test_joint_boundary_and_trailing_whitespace(scorer: LogLikelihoodScorer) -> None:
    enc = scorer.encode_pair("Answer: ", "Paris")
    assert enc.boundary == "joint"
    assert enc.context == tuple(scorer.tokenizer.encode("Answer:"))
    assert enc.continuation == tuple(scorer.tokenizer.encode(" Paris"))


def test_empty_context_conditions_on_prefix_token(scorer: LogLikelihoodScorer) -> None:
    enc = scorer.encode_pair("", "Hello")
    assert enc.boundary == "prefix"
    assert enc.context == (scorer.prefix_token_id,)
    whitespace_only = scorer.encode_pair("  ", "Hello")
    assert whitespace_only.boundary == "prefix"
    assert whitespace_only.continuation == tuple(scorer.tokenizer.encode("  Hello"))


def test_truncate_left_keeps_max_length_plus_one() -> None:
    assert truncate_left([1, 2, 3], [4], 10) == ((1, 2, 3), 0)
    assert truncate_left(list(range(10)), [10, 11], 5) == ((6, 7, 8, 9), 6)


def test_long_context_is_truncated_from_the_left(tiny_lm_dir: Path) -> None:
    short = LogLikelihoodScorer(tiny_lm_dir, device="cpu", max_length=16)
    ctx = fixtures.ENGLISH[:400]
    (result,) = short.loglikelihood([(ctx, " the river")])
    assert result.error is None and result.truncated > 0
    enc = short.encode_pair(ctx, " the river")
    assert len(enc.context) + len(enc.continuation) == 17
    (too_long,) = short.loglikelihood([("Q", " " + fixtures.ENGLISH[:300])])
    assert too_long.error is not None and "max_length" in too_long.error


# ----------------------------------------------------------------------------- engine


def test_bad_requests_do_not_stop_the_run(scorer: LogLikelihoodScorer) -> None:
    requests: list[Any] = [("The quick", " fox"), ("x", ""), (1, "y"), ("a", "b", "c"),
                           ("The quick", " dog")]
    results = scorer.loglikelihood(requests)
    assert [r.error is None for r in results] == [True, False, False, False, True]
    assert results[1].error == "empty continuation"
    assert all(math.isinf(r.logprob) for r in results[1:4])


def test_results_match_one_by_one_scoring(scorer: LogLikelihoodScorer) -> None:
    together = scorer.loglikelihood(REQUESTS)
    for request, result in zip(REQUESTS, together, strict=True):
        (alone,) = scorer.loglikelihood([request])
        assert result.logprob == pytest.approx(alone.logprob, abs=1e-4)
        assert result.is_greedy == alone.is_greedy
        assert result.n_tokens == alone.n_tokens > 0


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, len(REQUESTS) - 1), min_size=1, max_size=12),
       st.integers(1, 6))
def test_padding_invariance(scorer: LogLikelihoodScorer, picks: list[int], batch: int) -> None:
    requests = [REQUESTS[i] for i in picks]
    reference = {r: scorer.loglikelihood([r])[0].logprob for r in set(requests)}
    other = LogLikelihoodScorer.from_loaded(scorer.loaded, batch_size=batch)
    for request, result in zip(requests, other.loglikelihood(requests), strict=True):
        assert abs(result.logprob - reference[request]) <= 1e-4


def test_shared_context_runs_once_per_context(scorer: LogLikelihoodScorer) -> None:
    fresh = LogLikelihoodScorer.from_loaded(scorer.loaded, batch_size=64)
    choices = [" jumps over", " sat down", " ran", " is brown and quick"]
    fresh.loglikelihood([("The quick brown fox", c) for c in choices])
    # one pass over the context prefix, one over the four continuations (too few to chunk)
    n_ctx = len(scorer.tokenizer.encode("The quick brown fox"))
    lengths = sorted((len(scorer.tokenizer.encode("The quick brown fox" + c)) - n_ctx
                      for c in choices), reverse=True)
    assert fresh.stats.forward_calls == 1 + len(length_chunks(lengths, min_rows=8)) == 2
    n_cont = sum(lengths)
    assert fresh.stats.forward_tokens == (n_ctx - 1) + 4 + (n_cont - 4)


def test_duplicate_requests_are_scored_once(scorer: LogLikelihoodScorer) -> None:
    fresh = LogLikelihoodScorer.from_loaded(scorer.loaded)
    results = fresh.loglikelihood([REQUESTS[0]] * 5)
    assert fresh.stats.unique_pairs == 1 and len({r.logprob for r in results}) == 1


def test_out_of_memory_halves_the_batch_and_retries(
    scorer: LogLikelihoodScorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = LogLikelihoodScorer.from_loaded(scorer.loaded, batch_size=16)
    real_flat, real_shared = fresh._forward_flat, fresh._forward_shared

    def flaky(real: Any) -> Any:
        def call(batch: list[Any]) -> Any:
            if sum(len(u.conts) for u in batch) > 2:
                raise RuntimeError("CUDA out of memory. Tried to allocate 1.00 GiB")
            return real(batch)
        return call

    monkeypatch.setattr(fresh, "_forward_flat", flaky(real_flat))
    monkeypatch.setattr(fresh, "_forward_shared", flaky(real_shared))
    results = fresh.loglikelihood(REQUESTS)
    expected = scorer.loglikelihood(REQUESTS)
    assert fresh.stats.oom_backoffs > 0 and fresh._max_rows < 16
    for got, want in zip(results, expected, strict=True):
        assert got.error is None and got.logprob == pytest.approx(want.logprob, abs=1e-4)


def test_a_failing_forward_only_fails_its_own_rows(
    scorer: LogLikelihoodScorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = LogLikelihoodScorer.from_loaded(scorer.loaded, batch_size=16)
    bad = tuple(scorer.tokenizer.encode("The cat"))
    real_flat = fresh._forward_flat

    def flat(batch: list[Any]) -> Any:
        if any((*u.prefix, u.last) == bad for u in batch):
            raise ValueError("boom")
        return real_flat(batch)

    monkeypatch.setattr(fresh, "_forward_flat", flat)
    results = fresh.loglikelihood(REQUESTS)
    assert [r.error is not None for r in results] == [r[0] == "The cat" for r in REQUESTS]
    assert "boom" in (results[-1].error or "")


def test_rolling_loglikelihood_covers_every_token_once(tiny_lm_dir: Path) -> None:
    short = LogLikelihoodScorer(tiny_lm_dir, device="cpu", max_length=16)
    text = fixtures.ENGLISH[:200]
    (rolled,) = short.loglikelihood_rolling([text])
    assert rolled.n_tokens == len(short.tokenizer.encode(text))
    (single,) = short.loglikelihood_rolling(["The dog."])
    (plain,) = short.loglikelihood([("", "The dog.")])
    assert single.logprob == pytest.approx(plain.logprob, abs=1e-5)


# ----------------------------------------------------------------------------- metrics


def test_acc_norm_divides_by_utf8_bytes_of_chinese_choice() -> None:
    backend = FakeBackend({("答案：", " 巴黎"): -5.5, ("答案：", " Paris"): -5.0})
    row = {"id": 1, "context": "答案：", "choices": ["巴黎", "Paris"], "target": 0}
    (by_bytes,) = choice_rows([row], backend, metrics=("acc", "acc_norm"))
    (by_chars,) = choice_rows([row], backend, metrics=("acc", "acc_norm"), length_unit="chars")
    assert by_bytes.lengths == [6, 5] and by_chars.lengths == [2, 5]
    assert by_bytes.predictions == {"acc": 1, "acc_norm": 0}
    assert by_chars.predictions == {"acc": 1, "acc_norm": 1}


def test_chinese_choice_on_the_real_model(scorer: LogLikelihoodScorer) -> None:
    row = {"id": "zh", "context": "问题：法国的首都是哪里？答案：", "choices": ["巴黎", "火星"],
           "target": 0}
    (result,) = choice_rows([row], scorer)
    assert result.error is None and result.lengths == [6, 6]
    lls = result.logprobs
    assert result.predictions["acc_norm"] == (0 if lls[0] / 6 >= lls[1] / 6 else 1)


def test_ties_go_to_the_first_choice() -> None:
    backend = FakeBackend({})
    row = {"id": 1, "context": "Q:", "choices": ["bb", "aa", "cc"], "target": 2,
           "unconditional_context": "Answer:"}
    (result,) = choice_rows([row], backend)
    assert result.predictions == {"acc": 0, "acc_norm": 0, "per_token": 0, "pmi": 0}
    assert result.correct == {"acc": False, "acc_norm": False, "per_token": False, "pmi": False}


def test_pmi_scores_each_unconditional_choice_once() -> None:
    table = {("Q1", " yes"): -1.0, ("Q1", " no"): -2.0, ("Answer:", " yes"): -0.5,
             ("Answer:", " no"): -3.0}
    backend = FakeBackend(table)
    rows = [{"id": i, "context": f"Q{i}", "choices": ["yes", "no"], "target": 1}
            for i in (1, 2, 3)]
    results = choice_rows(rows, backend)
    unconditional = [r for r in backend.sent if r[0] == "Answer:"]
    assert sorted(unconditional) == [("Answer:", " no"), ("Answer:", " yes")]
    assert len(backend.sent) == len(set(backend.sent)) == 8
    # row 1: pmi = [-1 - -0.5, -2 - -3] = [-0.5, 1.0] -> choice 1, while acc picks 0
    assert results[0].predictions["acc"] == 0 and results[0].predictions["pmi"] == 1


def test_pmi_with_real_scorer_counts_requests(scorer: LogLikelihoodScorer) -> None:
    fresh = LogLikelihoodScorer.from_loaded(scorer.loaded)
    rows = [{"id": i, "context": f"Question {i}: is the sky blue?", "choices": ["yes", "no"],
             "target": 0} for i in range(3)]
    results = choice_rows(rows, fresh)
    assert fresh.stats.unique_pairs == 3 * 2 + 2
    assert all(r.error is None and r.unconditional_logprobs is not None for r in results)


def test_single_letter_choices_flag_acc_norm_as_acc() -> None:
    backend = FakeBackend({("Q", " B"): -0.5})
    row = {"id": 1, "context": "Q", "choices": ["A", "B", "C", "D"], "target": 1}
    (result,) = choice_rows([row], backend)
    assert result.acc_norm_same_as_acc
    assert result.predictions["acc_norm"] == result.predictions["acc"] == 1
    (words,) = choice_rows([{**row, "choices": ["Ab", "B", "C", "D"]}], backend)
    assert not words.acc_norm_same_as_acc


def test_inconsistent_whitespace_warns() -> None:
    backend = FakeBackend({})
    row = {"id": 1, "context": "Q:", "choices": [" yes", "no", "maybe "], "target": 0}
    (result,) = choice_rows([row], backend, target_delimiter="")
    assert any("leading" in w for w in result.warnings)
    assert any("trailing" in w for w in result.warnings)
    assert whitespace_warnings("Q: ", ["a"], " ") == [
        "context ends with whitespace and the delimiter adds more"]
    (clean,) = choice_rows([{**row, "choices": ["yes", "no"]}], backend)
    assert clean.warnings == []


def test_bad_rows_are_reported_not_raised() -> None:
    rows: list[Any] = [{"id": 1, "context": "Q", "choices": [], "target": 0},
                       {"id": 2, "context": "Q", "choices": ["a", "b"], "target": 5},
                       {"id": 3, "context": "Q", "choices": ["a", ""], "target": 0},
                       "not a row"]
    results = score_rows(rows, FakeBackend({}))
    assert all(r.error for r in results)
    with pytest.raises(ValueError, match="unknown metrics"):
        score_rows([], FakeBackend({}), metrics=("accuracy",))


def test_text_rows_give_bits_per_byte() -> None:
    (result,) = score_rows([{"id": "t", "text": "abcd"}], FakeBackend({}))
    assert isinstance(result, TextRowResult) and result.to_dict()["kind"] == "text"
    assert result.bits_per_byte == pytest.approx(8.0 / (4 * math.log(2)))


def test_report_intervals_and_disagreement() -> None:
    table = {("Q0", " a"): -1.0, ("Q0", " bbbbbb"): -2.0,   # acc 0, acc_norm 1
             ("Q1", " a"): -1.0, ("Q1", " bbbbbb"): -9.0}   # both 0
    rows = [{"id": i, "context": f"Q{i}", "choices": ["a", "bbbbbb"], "target": 0}
            for i in (0, 1)]
    rows.append({"id": "t", "text": "hello"})
    results = score_rows(rows, FakeBackend(table), metrics=("acc", "acc_norm"))
    report = choice_report(results, n_resamples=200, seed=1)
    assert report.metrics["acc"].accuracy == 1.0 and report.metrics["acc_norm"].accuracy == 0.5
    low, high = report.metrics["acc_norm"].ci_low, report.metrics["acc_norm"].ci_high
    assert 0.0 <= low <= 0.5 <= high <= 1.0
    assert report.acc_vs_acc_norm_disagreement == 0.5
    assert report.bits_per_byte == pytest.approx(10.0 / (5 * math.log(2)))
    assert report.to_dict()["n_rows"] == 3


def test_hidden_projection_path_equals_full_logits_path(scorer: LogLikelihoodScorer) -> None:
    assert scorer._head is not None  # GPT-2 passes the start-up probe
    plain = LogLikelihoodScorer.from_loaded(scorer.loaded, batch_size=8, project_hidden=False)
    assert plain._head is None
    for fast, slow in zip(scorer.loglikelihood(REQUESTS), plain.loglikelihood(REQUESTS),
                          strict=True):
        assert fast.logprob == pytest.approx(slow.logprob, abs=1e-5)
        assert fast.is_greedy == slow.is_greedy


def test_padding_is_measured_in_the_stats(scorer: LogLikelihoodScorer) -> None:
    # Issue 13: padding waste is counted (rows × width slots, and the padded ones).
    scorer.stats.reset()
    scorer.loglikelihood([("a b c d e f g h", " x"), ("a", " y z w v u")])
    stats = scorer.stats
    assert stats.batch_tokens > 0 and 0 <= stats.padding_tokens < stats.batch_tokens
    assert stats.padding_share == stats.padding_tokens / stats.batch_tokens


def _gpu_bench() -> Any:
    path = Path(__file__).resolve().parents[1] / "bench" / "gpu_loglik.py"
    spec = importlib.util.spec_from_file_location("gpu_loglik", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gpu_bench_smoke_runs_on_cpu_with_a_tiny_config(capsys: pytest.CaptureFixture[str]) -> None:
    # bench/gpu_loglik.py is meant for a lent GPU; its CPU path runs the same code end to end.
    module = _gpu_bench()
    argv = ["--device", "cpu", "--preset", "tiny", "--hellaswag", "3", "--mmlu", "2",
            "--lambada", "3"]
    assert module.main(argv) == 0
    out = capsys.readouterr().out
    for needle in ("padding share", "processed tokens/s", "MFU", "errors 0", "non-embedding"):
        assert needle in out
    n_requests = int(out.split(" requests;")[0].split()[-1])
    assert f"from the cache ({n_requests} hits)" in out  # the timed pass tokenized nothing


def test_gpu_bench_without_cuda_exits_with_a_message(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert _gpu_bench().main(["--preset", "1b,8b"]) == 2
    assert "no CUDA device" in capsys.readouterr().err


# ----------------------------------------------------------------------------- issue 13: speed

MIXED = [
    ("The quick brown fox", " jumps over the lazy dog and runs into the forest"),
    ("A man is sitting on a roof.", " He"),
    (fixtures.ENGLISH[:400], " The end."),
    ("The quick brown fox", " sat"),
    ("Question: What is the capital of France? Answer:", " Paris"),
    ("A man is sitting on a roof.", " He starts pulling up roofing on a roof and jumps"),
    ("The weather", " is nice today and the sun is shining over the river and the sea"),
    (fixtures.ENGLISH[:300], " A"),
    (fixtures.ENGLISH[:300], " B"),
    ("The cat", "s"),
    ("", "Hello world"),
    ("问题：法国的首都是哪里？答案：", "巴黎"),
    (fixtures.ENGLISH[:200], " The river flows into the sea."),
    ("The quick brown fox", " jumps"),
]


def test_length_bucketing_reduces_padding_on_a_mixed_batch(scorer: LogLikelihoodScorer) -> None:
    arrival = LogLikelihoodScorer.from_loaded(scorer.loaded, batch_size=64,
                                              bucket_by_length=False)
    bucketed = LogLikelihoodScorer.from_loaded(scorer.loaded, batch_size=64)
    first, second = arrival.loglikelihood(MIXED), bucketed.loglikelihood(MIXED)
    assert arrival.stats.padding_share > 0.3
    assert bucketed.stats.padding_share < arrival.stats.padding_share / 2
    assert bucketed.stats.forward_tokens == arrival.stats.forward_tokens
    for a, b, request in zip(first, second, MIXED, strict=True):  # input order, same values
        assert a.error is None and b.error is None
        assert a.n_tokens == b.n_tokens == len(scorer.encode_pair(*request).continuation)
        assert abs(a.logprob - b.logprob) <= 1e-4 and a.is_greedy == b.is_greedy


@pytest.fixture(scope="module")
def scorer64(tiny_lm_dir: Path) -> LogLikelihoodScorer:
    """A float64 copy of the tiny model: batch composition must not change a single bit."""
    fresh = LogLikelihoodScorer(tiny_lm_dir, device="cpu", batch_size=1)
    fresh.model.double()
    return fresh


@settings(max_examples=12, deadline=None)
@given(st.permutations(list(range(len(MIXED)))), st.integers(1, 8),
       st.sampled_from([16, 64, 300, 1 << 20]), st.booleans())
def test_results_do_not_depend_on_batch_composition_or_order(
    scorer64: LogLikelihoodScorer, order: list[int], rows: int, budget: int, bucket: bool
) -> None:
    reference = [scorer64.loglikelihood([r])[0] for r in MIXED]
    other = LogLikelihoodScorer.from_loaded(scorer64.loaded, batch_size=rows, token_budget=budget,
                                            bucket_by_length=bucket)
    results = other.loglikelihood([MIXED[i] for i in order])
    for i, result in zip(order, results, strict=True):
        assert abs(result.logprob - reference[i].logprob) <= 1e-9
        assert (result.n_tokens, result.is_greedy) == (reference[i].n_tokens,
                                                      reference[i].is_greedy)


def test_padded_continuation_slots_stay_inside_the_position_table(
    scorer: LogLikelihoodScorer,
) -> None:
    # one long prefix (near the model's 256 positions) with short choices, batched with a short
    # prefix whose choices are long: the padded slots of the first must not run past position 255
    long_ctx = " ".join(fixtures.ENGLISH.split())
    n_positions = scorer.model.config.n_positions
    ids = scorer.tokenizer.encode(long_ctx)[: n_positions - 4]
    requests = [(scorer.tokenizer.decode(ids), " A"), (scorer.tokenizer.decode(ids), " B"),
                ("The man", " quick brown fox jumps over the lazy dog and the man sits on a roof"),
                ("The man", " woman plays the violin in the park while children watch her play")]
    fresh = LogLikelihoodScorer.from_loaded(scorer.loaded, batch_size=64, bucket_by_length=False)
    results = fresh.loglikelihood(requests)
    assert [r.error for r in results] == [None] * 4
    assert fresh.stats.forward_calls == 2  # one prefix pass, one continuation pass: no retry


def test_encode_cache_skips_the_tokenizer_for_seen_requests(
    scorer: LogLikelihoodScorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = LogLikelihoodScorer.from_loaded(scorer.loaded)
    tokenized: list[str] = []
    real = fresh._tokenize

    def counting(texts: list[str], add_special_tokens: bool) -> list[list[int]]:
        tokenized.extend(texts)
        return real(texts, add_special_tokens)

    monkeypatch.setattr(fresh, "_tokenize", counting)
    shots = "Question: What is the capital of France? Answer: Paris.\n\n" * 3
    requests = [(shots + "Question: Which planet is red? Answer:", f" {c}") for c in "ABCD"]
    requests += requests[:2]  # repeated within the call
    first = fresh.loglikelihood(requests)
    assert (fresh.stats.encode_cache_misses, fresh.stats.encode_cache_hits) == (4, 2)
    assert tokenized.count(shots + "Question: Which planet is red? Answer:") == 1
    assert fresh.stats.encode_seconds > 0 and fresh.stats.forward_seconds > 0
    calls = len(tokenized)
    second = fresh.loglikelihood(requests)  # re-running the request set
    assert len(tokenized) == calls  # no tokenizer call at all
    assert (fresh.stats.encode_cache_misses, fresh.stats.encode_cache_hits) == (4, 8)
    assert [r.logprob for r in first] == [r.logprob for r in second]
    fresh.loglikelihood([(shots + "Question: Which planet is red? Answer:", " E")])
    assert tokenized.count(shots + "Question: Which planet is red? Answer:") == 1  # context hit


def test_batched_encoding_equals_one_by_one(scorer: LogLikelihoodScorer) -> None:
    # encode_pairs tokenizes in batched calls; the ids must be lm-eval's one-by-one encode()s
    from scoring.lm.loglik import move_trailing_whitespace

    tok = scorer.tokenizer
    fresh = LogLikelihoodScorer.from_loaded(scorer.loaded)
    merged = find_merge_across_join(scorer)
    requests = [*MIXED, merged, ("Answer: ", "Paris"), ("  ", " x"), (fixtures.ENGLISH, " end")]
    together = fresh.encode_pairs(requests)
    boundaries = set()
    for (context, continuation), enc in zip(requests, together, strict=True):
        context, continuation = move_trailing_whitespace(context, continuation)
        if context == "":
            assert enc.boundary == "prefix"
            assert enc.continuation == tuple(tok.encode(continuation, add_special_tokens=False))
            continue
        ctx, whole = tok.encode(context), tok.encode(context + continuation)
        if whole[: len(ctx)] == ctx:
            boundary, cont = "joint", whole[len(ctx):]
        else:
            boundary, cont = "separate", tok.encode(continuation, add_special_tokens=False)
        boundaries.add(boundary)
        assert (enc.boundary, enc.continuation) == (boundary, tuple(cont))
        assert enc.context == tuple(ctx[enc.truncated:])
    assert boundaries == {"joint", "separate"} and any(e.truncated for e in together)


def test_encode_cache_is_bounded(scorer: LogLikelihoodScorer) -> None:
    from scoring.lm.loglik import EncodeCache, EncodedPair

    small = LogLikelihoodScorer.from_loaded(scorer.loaded, encode_cache_size=2)
    small.loglikelihood(REQUESTS[:4])
    assert len(small.encode_cache) == 2
    small.loglikelihood(REQUESTS[2:4])  # the two most recent are kept
    assert small.stats.encode_cache_hits == 2

    cache = EncodeCache(max_entries=3)
    for i in range(5):
        cache.put_pair((str(i), "x"), EncodedPair((i,), (1,), "joint"))
    assert len(cache) == 3 and cache.pair(("0", "x")) is None and cache.pair(("4", "x"))
    with pytest.raises(ValueError, match="max_entries"):
        EncodeCache(max_entries=0)


def test_auto_batch_rows_follow_the_token_budget(scorer: LogLikelihoodScorer) -> None:
    # issue 13: no fixed 256-row cap: with a large budget 600 short rows run in one pass
    fresh = LogLikelihoodScorer.from_loaded(scorer.loaded, batch_size="auto", token_budget=100_000)
    pairs = [((1 + i % 400, 2 + i // 400, 7), (9, 11)) for i in range(600)]  # distinct contexts
    results = fresh.loglikelihood_tokens(pairs)
    assert all(r.error is None for r in results)
    assert fresh.stats.forward_calls == 1 and fresh.stats.padding_tokens == 0
    small = LogLikelihoodScorer.from_loaded(scorer.loaded, batch_size="auto", token_budget=1000)
    small.loglikelihood_tokens(pairs)
    assert small.stats.forward_calls == 600 * 4 // 1000 + 1  # 4-token rows, 250 per pass
    with pytest.raises(ValueError, match="token_budget"):
        LogLikelihoodScorer.from_loaded(scorer.loaded, token_budget=0)


def test_token_budget_from_memory_grows_with_free_memory() -> None:
    from scoring.lm.loglik import token_budget_from_memory

    small = token_budget_from_memory(8 << 30, 128256, 4096)
    large = token_budget_from_memory(120 << 30, 128256, 4096)
    assert 256 < small < large <= 1 << 17
    assert token_budget_from_memory(1 << 20, 128256, 4096) == 256


def test_non_embedding_parameters_leave_out_embeddings_and_head(
    scorer: LogLikelihoodScorer,
) -> None:
    from scoring.lm._model import non_embedding_parameters

    model = scorer.model
    total = sum(p.numel() for p in model.parameters())
    tables = model.transformer.wte.weight.numel() + model.transformer.wpe.weight.numel()
    assert non_embedding_parameters(model) == total - tables  # GPT-2's head is tied to wte
