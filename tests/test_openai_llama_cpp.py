"""The OpenAI backend against a REAL server: llama.cpp's (llama-cpp-python[server]) serving the
tiny test GPT-2 converted to GGUF with the ``gguf`` package, on 127.0.0.1.

What holds: greedy generations through the server equal local greedy decoding; sampled ones
are reproducible per seed with n samples and stops; the served model's per-position
distributions equal the local model's.  What does not: llama-cpp-python 0.3.36 echoes, for each
prompt token, its log-probability under the distribution *after* it (llama_cpp/llama.py,
``_create_completion``: ``token_logprobs.append(logprobs_token[int(token)])`` with the logits of
the token's own position), and its server takes no token-id prompts; so prompt log-likelihoods
from it are wrong by construction.  The test checks that the server really behaves so (against the
local model) and that our scorer refuses it with a clear error instead of reporting wrong numbers;
log-likelihoods over HTTP equal to the local scorer's are shown against the fake server
(tests/test_openai_backend.py), whose echo follows the OpenAI/vLLM convention.  Skipped only when llama-cpp-python or
gguf is not installed (CI installs both: see .ci/run)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is not installed")
pytest.importorskip("gguf")

from normalize.io.jsonl import InputRow
from scoring.cli import main
from scoring.lm.generate import LocalGenerator, Request, SamplingParams, generate_rows
from scoring.lm.openai_backend import (
    ClientConfig,
    OpenAIGenerator,
    PromptLogprobsUnavailable,
    RemoteLoglikScorer,
)
from tests.gguf_fixture import write_gguf
from tests.lm_fixtures import tiny_lm_dir

__all__ = ["tiny_lm_dir"]

START_TIMEOUT_S = 180.0

PAIRS = [
    ("Question: What is the capital of France? Answer:", " Paris"),
    ("Question: What is the capital of France? Answer: ", "Paris"),
    ("The weather is nice", " today and the sun is shining."),
    ("A man is sitting on a roof. He", " starts pulling up roofing on a roof."),
    ("Question: Which planet is known as the red planet? Answer:", " Mars"),
]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def llama_server(tiny_lm_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start ``python -m llama_cpp.server`` on the GGUF model; yield its base URL; stop it."""
    root = tmp_path_factory.mktemp("llama_cpp")
    model = write_gguf(tiny_lm_dir, root / "tiny.gguf")
    port = _free_port()
    log = open(root / "server.log", "w", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", "tiny",
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "256", "--logits_all", "true",
         "--n_threads", "1", "--n_batch", "256", "--verbose", "false"],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "NO_PROXY": "127.0.0.1"})
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while True:  # bounded: the deadline, or the server process exiting
            if proc.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited with {proc.returncode}: "
                                   f"{(root / 'server.log').read_text(encoding='utf-8')[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama.cpp server did not answer within {START_TIMEOUT_S:.0f}s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        log.close()


def _echo(url: str, prompt: str) -> dict[str, object]:
    body = json.dumps({"model": "tiny", "prompt": prompt, "max_tokens": 1, "temperature": 0.0, "echo": True,
                       "logprobs": 1}).encode("utf-8")
    request = urllib.request.Request(f"{url}/completions", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        payload: dict[str, object] = json.loads(response.read().decode("utf-8"))
    return payload


def test_served_weights_equal_local_and_echo_is_one_position_late(llama_server: str, tiny_lm_dir: Path) -> None:
    """The GGUF model on the real server computes the local model's distributions (to ~1e-3), and
    llama-cpp-python's echo reports log P(x_i | x_<=i) for token i, not log P(x_i | x_<i)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_lm_dir, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(tiny_lm_dir, local_files_only=True)
    for context, continuation in PAIRS:
        text = context + continuation
        ids = tokenizer.encode(text)
        with torch.no_grad():
            logprobs = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
        choice = _echo(llama_server, text)["choices"][0]  # type: ignore[index]
        echoed = choice["logprobs"]["token_logprobs"]
        assert len(choice["logprobs"]["tokens"]) == len(ids)  # the same tokenisation
        same_position = [float(logprobs[i, ids[i]]) for i in range(1, len(ids))]
        assert echoed[1:len(ids)] == pytest.approx(same_position, abs=2e-2)
        previous_position = [float(logprobs[i - 1, ids[i]]) for i in range(1, len(ids))]
        assert echoed[1:len(ids)] != pytest.approx(previous_position, abs=0.5)


def test_loglik_refuses_misaligned_echo_with_a_clear_error(llama_server: str, tiny_lm_dir: Path) -> None:
    remote = RemoteLoglikScorer(ClientConfig(llama_server, concurrency=2), "tiny", tiny_lm_dir)
    with pytest.raises(PromptLogprobsUnavailable, match="one position off"):
        remote.loglikelihood(PAIRS[:1])
    assert remote._mode is None  # token-id prompts were refused (HTTP 422), text echo was caught


def test_loglik_cli_against_llama_cpp_fails_clearly(llama_server: str, tiny_lm_dir: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "mc.jsonl"
    data.write_text(json.dumps({"id": "a", "context": "Question: What is the capital of France? Answer:",
                                "choices": ["Paris", "Mars", "the sea"], "target": 0}) + "\n", encoding="utf-8")
    assert main(["loglik", "--backend", "openai", "--base-url", llama_server, "--model", "tiny", "--tokenizer",
                 str(tiny_lm_dir), str(data)]) == 2
    assert "one position off" in capsys.readouterr().err


def test_greedy_generation_matches_local(llama_server: str, tiny_lm_dir: Path) -> None:
    params = SamplingParams(max_new_tokens=6)
    prompts = ["Question: What is the capital of France? Answer:", "The students are reading"]
    served = OpenAIGenerator(ClientConfig(llama_server), "tiny").generate([Request(p, 0) for p in prompts], params)
    local = LocalGenerator(tiny_lm_dir, device="cpu", dtype="float32").generate(
        [Request(p, 0) for p in prompts], params)
    # the same tokens; llama-cpp-python drops the bytes of a split UTF-8 character, transformers shows U+FFFD
    # (and may finish that character with one more token): compare the shared part
    for s_, loc in zip(served, local, strict=True):
        expected = str(loc.text).replace("\ufffd", "")
        assert s_.text is not None and s_.text.startswith(expected) and len(s_.text) - len(expected) <= 1


def test_sampled_generation_with_seeds_n_and_stop(llama_server: str) -> None:
    gen = OpenAIGenerator(ClientConfig(llama_server), "tiny")
    params = SamplingParams(n=3, temperature=1.0, top_k=20, max_new_tokens=8, seed=5, stop=("\n",))
    rows = [InputRow(1, {"id": "a", "prompt": "The river flows"})]
    first = list(generate_rows(rows, gen, params))
    again = list(generate_rows(rows, gen, params))
    assert [r["output"] for r in first] == [r["output"] for r in again]  # seeded per sample
    assert len(first) == 3 and all("\n" not in str(r["output"]) for r in first)
    assert len({str(r["output"]) for r in first}) > 1  # samples differ
