"""Several servers behind --base-url: work spread by what is in flight, a failing server taken
out and tried again later, the output and the cache those of one server."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from scoring.cli import main
from scoring.lm._pool import ServerPool
from scoring.lm.openai_backend import ClientConfig, ServerError, ServerUnavailable
from tests.lm_fixtures import tiny_lm_dir
from tests.openai_fake_server import FakeOpenAI, serve

__all__ = ["tiny_lm_dir"]


class Flaky(FakeOpenAI):
    """Answers ``good`` requests, then fails the next ``bad`` ones with ``fault`` (a server going
    down midway), then answers again (``bad=None``: never again)."""

    def __init__(self, good: int, bad: int | None, fault: str = "500") -> None:
        super().__init__()
        self.good, self.bad, self.fault = good, bad, fault
        self.seen = 0
        self.refused = 0
        self._count_lock = threading.Lock()

    def next_fault(self) -> str | None:
        with self._count_lock:
            self.seen += 1
            if self.seen <= self.good or (self.bad is not None and self.refused >= self.bad):
                return None
            self.refused += 1
            return self.fault


def _prompts(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps({"id": f"p{i}", "task": "qa", "prompt": f"{i}+{i}="}) + "\n"
                            for i in range(n)), encoding="utf-8")
    return path


def test_generate_over_three_servers_one_dying_midway_writes_one_servers_bytes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompts = _prompts(tmp_path / "p.jsonl", 30)
    common = ["--backend", "openai", "--model", "m", "-n", "2", "--temperature", "0.7", "--seed", "5",
              "--concurrency", "2", "--max-retries", "3"]
    alone = FakeOpenAI()
    with serve(alone) as url:
        assert main(["generate", *common, "--base-url", url, "--revision", "weights-v1", "-o", str(tmp_path / "one.jsonl"),
                     str(prompts)]) == 0
    a, b, c = FakeOpenAI(), Flaky(good=4, bad=None, fault="reset"), FakeOpenAI()
    with serve(a) as url_a, serve(b) as url_b, serve(c) as url_c:
        (tmp_path / "urls.txt").write_text(f"# the pool\n{url_c}\n", encoding="utf-8")
        args = ["generate", *common, "--base-url", url_a, "--base-url", url_b, "--base-url-file",
                str(tmp_path / "urls.txt"), "--revision", "weights-v1", "--cache", str(tmp_path / "c.sqlite")]
        assert main([*args, "-o", str(tmp_path / "many.jsonl"), str(prompts)]) == 0
        assert f"answered by {url_a} " in capsys.readouterr().err  # the summary says who answered
    assert (tmp_path / "many.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    answered = [len(a.requests), b.seen - b.refused, len(c.requests)]
    assert sum(answered) == 60 and answered[1] == 4  # the dying server answered only before it died
    assert min(answered[0], answered[2]) > 10  # the others shared the rest
    assert b.refused < 10  # taken out: not sent every other request
    # the cache key names the weights, not the server: another server (one alone) is never asked
    other = FakeOpenAI()
    with serve(other) as url:
        assert main(["generate", *common, "--base-url", url, "--revision", "weights-v1", "--cache",
                     str(tmp_path / "c.sqlite"), "-o", str(tmp_path / "cached.jsonl"), str(prompts)]) == 0
    assert other.requests == []
    assert (tmp_path / "cached.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["generate", *common, "--base-url", "http://127.0.0.1:9", "--base-url", "http://127.0.0.1:10",
                 str(prompts)]) == 2
    assert "--revision" in capsys.readouterr().err


def test_a_failed_server_is_retried_later_and_comes_back() -> None:
    a, b = FakeOpenAI(), Flaky(good=2, bad=3, fault="500")
    with serve(a) as url_a, serve(b) as url_b:
        pool = ServerPool([ClientConfig(url_a, backoff=0.01, max_backoff=0.02, concurrency=1),
                           ClientConfig(url_b, backoff=0.01, max_backoff=0.02, concurrency=1)])
        answers: list[Any] = []
        for i in range(40):
            answers.append(pool.post("completions", {"model": "m", "prompt": f"q{i}", "max_tokens": 4}))
            if i % 4 == 3:
                threading.Event().wait(0.03)  # time passes: cooldowns end
    assert all(x["choices"][0]["text"].startswith("text:q") for x in answers)
    assert b.refused == 3 and b.seen - b.refused > 2  # down for a while, then back in the pool
    assert pool.requests == 40 and pool.retries == 3
    assert {s["answered"] for s in pool.describe()} != {0}


def test_spread_by_outstanding_work_and_failures_for_good() -> None:
    a, b = FakeOpenAI(hang_s=0.3), FakeOpenAI()
    with serve(a) as url_a, serve(b) as url_b:
        pool = ServerPool([ClientConfig(url_a, concurrency=4), ClientConfig(url_b, concurrency=4)])
        out = pool.map("completions", [{"model": "m", "prompt": f"q{i}"} for i in range(16)])
        assert all(not isinstance(x, ServerError) for x in out)
        assert [x["choices"][0]["text"].split("|")[0] for x in out] == [f"text:q{i}" for i in range(16)]  # type: ignore[index]
        assert len(a.requests) >= 4 and len(b.requests) >= 4  # both busy
        # a request the server refuses (a 4xx) fails at once and takes no server out
        before = len(a.requests) + len(b.requests)
        with pytest.raises(ServerError, match="HTTP 404") as refused:
            pool.post("nowhere", {"model": "m"})
        assert not isinstance(refused.value, ServerUnavailable)
        assert len(a.requests) + len(b.requests) == before + 1
        assert all(s.down_until == 0.0 for s in pool.servers)
    # every server down: the request fails after max_retries + 1 attempts over the pool
    dead = ServerPool([ClientConfig("http://127.0.0.1:9", max_retries=2, backoff=0.001, timeout=1),
                       ClientConfig("http://127.0.0.1:10", max_retries=2, backoff=0.001, timeout=1)])
    with pytest.raises(ServerUnavailable, match="3 attempts over 2 servers"):
        dead.post("completions", {"model": "m"})


def test_loglik_over_two_servers_one_failing_equals_one_server(tiny_lm_dir: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "mc.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [
        {"id": f"q{i}", "context": f"Question {i}: what is the capital of France? Answer:", "choices": [" Paris", " Mars"],
         "target": 0} for i in range(6)]), encoding="utf-8")
    common = ["loglik", "--backend", "openai", "--model", "tiny", "--tokenizer", str(tiny_lm_dir), "--revision", "w1",
              "--max-retries", "2"]
    with serve(FakeOpenAI(str(tiny_lm_dir))) as url:
        assert main([*common, "--base-url", url, "-o", str(tmp_path / "one.jsonl"), str(data)]) == 0
    flaky = Flaky(good=3, bad=None, fault="500")
    flaky._model = FakeOpenAI(str(tiny_lm_dir))._model
    with serve(FakeOpenAI(str(tiny_lm_dir))) as url_a, serve(flaky) as url_b:
        assert main([*common, "--base-url", url_a, "--base-url", url_b, "-o", str(tmp_path / "two.jsonl"),
                     str(data)]) == 0
    assert (tmp_path / "two.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    assert flaky.refused >= 1  # it did fail midway
    capsys.readouterr()
