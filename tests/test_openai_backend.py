"""The OpenAI-compatible backend against an in-process fake server: request bodies, n samples,
seeds, stops, caching with the backend in the key, retries on 429/5xx/hangs/truncated JSON,
and log-likelihoods over HTTP equal to the local scorer's.  (The real server: llama.cpp, in
tests/test_openai_llama_cpp.py.)"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from scoring.cache import Cache, GenerationKey
from scoring.cli import main
from scoring.lm.generate import Request, SamplingParams
from scoring.lm.loglik import LogLikelihoodScorer
from scoring.lm.openai_backend import (
    Client,
    ClientConfig,
    OpenAIGenerator,
    PromptLogprobsUnavailable,
    RemoteLoglikScorer,
    ServerError,
)
from tests.lm_fixtures import tiny_lm_dir
from tests.openai_fake_server import FakeOpenAI, serve

__all__ = ["tiny_lm_dir"]

PAIRS = [
    ("Question: What is the capital of France? Answer:", " Paris"),
    ("Question: What is the capital of France? Answer: ", "Paris"),  # trailing space moves
    ("The weather is nice", " today and the sun is shining."),
    ("", "The quick brown fox"),  # empty context: conditioned on the prefix token
    ("今天天气", "很好"),
]


def _rows(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _read(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_generate_cli_samples_seeds_stops_and_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeOpenAI()
    prompts = _rows(tmp_path / "p.jsonl", [{"id": "a", "task": "qa", "prompt": "2+2="},
                                           {"id": "b", "task": "qa", "prompt": "3+3=", "seed": 9}, {"id": "c"}])
    args = ["generate", "--backend", "openai", "--model", "served-model", "-n", "2", "--temperature", "0.7",
            "--top-k", "5", "--seed", "3", "--stop", "|stop", "--cache", str(tmp_path / "c.sqlite"),
            "-o", str(tmp_path / "out.jsonl"), prompts.as_posix()]
    with serve(fake) as url:
        assert main([*args[:3], "--base-url", url, *args[3:]]) == 0
        first = _read(tmp_path / "out.jsonl")
        sent = len(fake.requests)
        assert main([*args[:3], "--base-url", url, *args[3:]]) == 0  # every response now cached
        assert len(fake.requests) == sent and _read(tmp_path / "out.jsonl") == first
    assert sent == 4  # 2 prompts x 2 samples, one request each
    assert [(r["id"], r.get("sample")) for r in first] == [("a", 0), ("a", 1), ("b", 0), ("b", 1), ("c", None)]
    assert first[-1]["status"] == "invalid"
    outputs = [r["output"] for r in first[:4]]
    assert all(isinstance(o, str) and "|stop" not in o for o in outputs)  # cut at the stop string locally
    assert outputs[0].startswith("text:2+2=|seed=") and outputs[0] != outputs[1]  # per-sample seeds
    body = fake.requests[0]
    assert body["model"] == "served-model" and body["top_k"] == 5 and body["stop"] == ["|stop"]
    assert body["n"] == 1 and body["temperature"] == 0.7 and body["max_tokens"] == 128
    assert first[0]["generation"]["backend"] == "openai-completions"  # type: ignore[index]
    assert "4 requests, 0 retries" in capsys.readouterr().err


def test_chat_endpoint_and_greedy_shares_one_request(tmp_path: Path) -> None:
    fake = FakeOpenAI()
    with serve(fake) as url:
        gen = OpenAIGenerator(ClientConfig(url), "m", endpoint="chat")
        out = gen.generate([Request("hi", 0, 0), Request("hi", 0, 1)], SamplingParams(n=2))
    assert [g.text for g in out] == ["chat:hi|seed=1473087437|t=0.0"] * 2 or out[0].text == out[1].text
    assert len(fake.requests) == 1 and fake.requests[0]["messages"] == [{"role": "user", "content": "hi"}]
    assert fake.requests[0]["path"] == "/v1/chat/completions"


def test_backend_is_in_the_cache_key(tmp_path: Path) -> None:
    hf = GenerationKey("m", "r", "p")
    assert hf.params().get("backend") is None  # local keys unchanged: old caches stay valid
    assert GenerationKey("m", "r", "p", backend="openai-chat").digest != hf.digest
    with Cache(tmp_path / "c.sqlite") as cache, serve(FakeOpenAI()) as url:
        chat = OpenAIGenerator(ClientConfig(url), "m", endpoint="chat", cache=cache)
        plain = OpenAIGenerator(ClientConfig(url), "m", cache=cache)
        a = chat.generate([Request("p", 0)], SamplingParams())[0].text
        b = plain.generate([Request("p", 0)], SamplingParams())[0].text
        assert a != b and a is not None and b is not None and b.startswith("text:")


@pytest.mark.parametrize("fault", ["429", "500", "truncated", "reset", "hang"])
def test_retries_on_transient_faults(fault: str) -> None:
    fake = FakeOpenAI(hang_s=2.0)
    fake.faults.extend([fault, fault])
    with serve(fake) as url:
        client = Client(ClientConfig(url, timeout=0.5, backoff=0.01, max_retries=3))
        gen = OpenAIGenerator(client.config, "m", client=client)
        (result,) = gen.generate([Request("p", 0)], SamplingParams())
    assert result.text is not None and result.text.startswith("text:p")
    assert client.retries == 2 and len(fake.requests) == 3


def test_gives_up_after_retries_and_fails_fast_on_4xx() -> None:
    fake = FakeOpenAI()
    fake.faults.extend(["500"] * 10)
    with serve(fake) as url:
        client = Client(ClientConfig(url, backoff=0.0, max_retries=2))
        (result,) = OpenAIGenerator(client.config, "m", client=client).generate([Request("p", 0)], SamplingParams())
        assert result.text is None and "failed after 3 attempts" in str(result.error)
        fake.faults.clear()
        with pytest.raises(ServerError, match="HTTP 404"):
            Client(ClientConfig(url, max_retries=5)).post("nowhere", {})
    assert len(fake.requests) == 4  # 3 attempts, then one 404 not retried


def test_client_config_checks() -> None:
    with pytest.raises(ValueError, match="http"):
        ClientConfig("127.0.0.1:8000")
    with pytest.raises(ValueError, match="concurrency"):
        ClientConfig("http://h", concurrency=0)


# --------------------------------------------------------------------------- log-likelihoods


@pytest.fixture(scope="module")
def local_scores(tiny_lm_dir: Path) -> LogLikelihoodScorer:
    return LogLikelihoodScorer(tiny_lm_dir, device="cpu", dtype="float32")


@pytest.mark.parametrize("mode", ["echo", "prompt_logprobs"])
def test_loglik_over_http_equals_local_scorer(tiny_lm_dir: Path, local_scores: LogLikelihoodScorer, mode: str) -> None:
    fake = FakeOpenAI(str(tiny_lm_dir), logprobs_mode=mode)
    with serve(fake) as url:
        remote = RemoteLoglikScorer(ClientConfig(url, concurrency=3), "tiny", tiny_lm_dir)
        got = remote.loglikelihood(PAIRS)
        rolling = remote.loglikelihood_rolling(["The river flows into the sea."])
    want = local_scores.loglikelihood(PAIRS)
    for g, w in zip(got, want, strict=True):
        assert g.error is None and (g.n_tokens, g.boundary, g.truncated) == (w.n_tokens, w.boundary, w.truncated)
        assert g.logprob == pytest.approx(w.logprob, abs=1e-4)
        assert g.is_greedy == w.is_greedy
    (r,) = rolling
    assert r.logprob == pytest.approx(local_scores.loglikelihood_rolling(["The river flows into the sea."])[0].logprob,
                                      abs=1e-4)
    assert all(isinstance(b["prompt"], list) for b in fake.requests)  # token ids: the boundary is ours


def test_loglik_refuses_an_echo_one_position_late(tiny_lm_dir: Path) -> None:
    with serve(FakeOpenAI(str(tiny_lm_dir), logprobs_mode="late")) as url:
        remote = RemoteLoglikScorer(ClientConfig(url), "tiny", tiny_lm_dir)
        with pytest.raises(PromptLogprobsUnavailable, match="one position off"):
            remote.loglikelihood(PAIRS[:1])


def test_loglik_server_without_prompt_logprobs(tiny_lm_dir: Path) -> None:
    with serve(FakeOpenAI(str(tiny_lm_dir), logprobs_mode="none")) as url:
        remote = RemoteLoglikScorer(ClientConfig(url), "tiny", tiny_lm_dir)
        with pytest.raises(PromptLogprobsUnavailable, match="cannot return prompt log-probabilities"):
            remote.loglikelihood(PAIRS[:1])


def test_loglik_cli_backend_openai(tiny_lm_dir: Path, tmp_path: Path, local_scores: LogLikelihoodScorer,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    data = _rows(tmp_path / "mc.jsonl", [
        {"id": "a", "context": "Question: What is the capital of France? Answer:", "choices": ["Paris", "Mars"],
         "target": 0},
        {"id": "b", "context": "今天天气", "choices": ["很好", "下雨"], "target": "A"},
    ])
    fake = FakeOpenAI(str(tiny_lm_dir))
    with serve(fake) as url:
        code = main(["loglik", "--backend", "openai", "--base-url", url, "--model", "tiny", "--tokenizer",
                     str(tiny_lm_dir), "--cache", str(tmp_path / "c.sqlite"), "-o", str(tmp_path / "o.jsonl"),
                     "--format", "json", str(data)])
        assert code == 0
        report = json.loads(capsys.readouterr().out)
        sent = len(fake.requests)
        assert main(["loglik", "--backend", "openai", "--base-url", url, "--model", "tiny", "--tokenizer",
                     str(tiny_lm_dir), "--cache", str(tmp_path / "c.sqlite"), str(data)]) == 0
        assert len(fake.requests) == sent  # all from the cache
    assert report["model"]["backend"] == "openai-completions" and report["n_errors"] == 0
    rows = _read(tmp_path / "o.jsonl")
    want = local_scores.loglikelihood([("Question: What is the capital of France? Answer:", " Paris")])
    assert math.isclose(rows[0]["logprobs"][0], want[0].logprob, abs_tol=1e-4)  # type: ignore[index]
    assert main(["loglik", "--backend", "openai", "--base-url", "http://127.0.0.1:9", "--model", "tiny",
                 str(data)]) == 2  # no --tokenizer: a clear error, exit 2
    assert "--tokenizer" in capsys.readouterr().err


def test_vllm_backend_without_vllm_is_a_clear_error(tiny_lm_dir: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vllm is installed here; this checks the message without it")
    prompts = _rows(tmp_path / "p.jsonl", [{"id": "a", "prompt": "hi"}])
    assert main(["generate", "--backend", "vllm", "--model", str(tiny_lm_dir), str(prompts)]) == 2
    assert "pip install vllm" in capsys.readouterr().err


def test_local_chat_template_on_the_completions_endpoint(tiny_lm_dir: Path, tmp_path: Path) -> None:
    import shutil

    tokenizer_dir = tmp_path / "tok"
    shutil.copytree(tiny_lm_dir, tokenizer_dir)
    config_path = tokenizer_dir / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["chat_template"] = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
                               "{% if add_generation_prompt %}<|assistant|>{% endif %}")
    config_path.write_text(json.dumps(config), encoding="utf-8")
    fake = FakeOpenAI()
    with serve(fake) as url:
        gen = OpenAIGenerator(ClientConfig(url), "m", tokenizer_dir=tokenizer_dir, chat_template=True)
        gen.generate([Request("2+2=", 0)], SamplingParams())
        with pytest.raises(ValueError, match="no chat template"):
            OpenAIGenerator(ClientConfig(url), "m", tokenizer_dir=tiny_lm_dir, chat_template=True)
        with pytest.raises(ValueError, match="needs --tokenizer"):
            OpenAIGenerator(ClientConfig(url), "m", chat_template=True)
    assert fake.requests[0]["prompt"] == "<|user|>2+2=\n<|assistant|>"
    assert gen.backend.startswith("openai-completions+template:")
