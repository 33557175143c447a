"""A small in-process OpenAI-compatible server for fault injection (the real-server test is
tests/test_openai_llama_cpp.py).

It listens on 127.0.0.1 only, on a free port, and answers ``/v1/completions`` and
``/v1/chat/completions``: generations are a deterministic function of the request (so tests
can check what was sent), and ``echo`` + ``logprobs`` requests with token-id prompts are
answered from a real local Hugging Face model's forward pass (so log-likelihoods through the
HTTP path can be compared with the local scorer).  ``faults`` is a queue consumed one per
request: ``429``, ``500``, ``hang`` (sleeps past the client's timeout), ``truncated`` (half a
JSON body), ``reset`` (closes the connection), ``trickle_headers`` / ``trickle_body`` (one byte
every ``trickle_s`` of the status line and headers, or of the body after whole headers; at most
``trickle_bytes`` bytes, then the connection is closed), ``two_choices`` (two choices for n=1).  ``logprobs_mode`` is ``echo``,
``prompt_logprobs`` (rejects echo with HTTP 400, like a server without it), ``late`` (echo one
position late, like llama-cpp-python 0.3 for BOS-less models) or ``none``.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI:
    def __init__(self, model_dir: str | None = None, *, logprobs_mode: str = "echo", hang_s: float = 3.0,
                 trickle_s: float = 0.5, trickle_bytes: int = 240) -> None:
        self.faults: deque[str] = deque()
        self.trickle_s = trickle_s
        self.trickle_bytes = trickle_bytes
        self.requests: list[dict[str, Any]] = []
        self.logprobs_mode = logprobs_mode
        self.hang_s = hang_s
        self._lock = threading.Lock()
        self._model: Any = None
        if model_dir is not None:
            from transformers import AutoModelForCausalLM

            self._model = AutoModelForCausalLM.from_pretrained(model_dir, local_files_only=True)
            self._model.eval()

    def next_fault(self) -> str | None:
        with self._lock:
            return self.faults.popleft() if self.faults else None

    def record(self, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append({"path": path, **body})

    def prompt_logprobs(self, ids: list[int]) -> tuple[list[float | None], list[int]]:
        values, tops, _ = self._forward(ids)
        return values, tops

    def _late(self, ids: list[int]) -> dict[str, Any]:
        """Each token's value from the distribution *after* it; no generated token echoed."""
        import torch

        with torch.no_grad():
            logprobs = torch.log_softmax(self._model(torch.tensor([ids])).logits[0].float(), dim=-1)
        values: list[float | None] = [None] + [float(logprobs[i, ids[i]]) for i in range(1, len(ids))]
        tops: list[Any] = [None] + [{str(int(logprobs[i].argmax())): float(logprobs[i].max()),
                                     str(ids[i]): float(logprobs[i, ids[i]])} for i in range(1, len(ids))]
        return {"tokens": [str(t) for t in ids], "token_logprobs": values, "top_logprobs": tops}

    def _forward(self, ids: list[int]) -> tuple[list[float | None], list[int], list[float]]:
        import torch

        with torch.no_grad():
            logits = self._model(torch.tensor([ids])).logits[0].float()
        logprobs = torch.log_softmax(logits, dim=-1)
        values: list[float | None] = [None]
        tops: list[int] = [ids[0]]
        top_values: list[float] = [0.0]
        for i in range(1, len(ids)):
            values.append(float(logprobs[i - 1, ids[i]]))
            tops.append(int(logprobs[i - 1].argmax()))
            top_values.append(float(logprobs[i - 1].max()))
        tops.append(int(logprobs[-1].argmax()))
        top_values.append(float(logprobs[-1].max()))
        return values, tops, top_values

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path.endswith("/chat/completions"):
            content = f"chat:{body['messages'][-1]['content']}|seed={body.get('seed')}|t={body.get('temperature')}"
            return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                         "usage": {"completion_tokens": 3}}
        if not path.endswith("/completions"):
            return 404, {"error": {"message": f"no route {path}"}}
        prompt = body.get("prompt")
        wants_echo = bool(body.get("echo"))
        wants_prompt = body.get("prompt_logprobs") is not None
        if isinstance(prompt, list) and (wants_echo or wants_prompt):
            if self.logprobs_mode == "none" or (wants_echo and self.logprobs_mode == "prompt_logprobs"):
                if wants_echo and self.logprobs_mode == "prompt_logprobs":
                    return 400, {"error": {"message": "echo is not supported"}}
                return 200, {"choices": [{"index": 0, "text": "x", "logprobs": None}]}
            values, tops, top_values = self._forward([int(t) for t in prompt])
            if wants_echo and self.logprobs_mode == "late":  # like llama-cpp-python 0.3 without BOS
                late = self._late([int(t) for t in prompt])
                return 200, {"choices": [{"index": 0, "text": "", "logprobs": late}]}
            if wants_echo:  # the prompt, then the one greedy token generated after it
                generated = tops[len(prompt)]
                logprobs = {"tokens": [str(t) for t in prompt] + [str(generated)],
                            "token_logprobs": [*values, top_values[len(prompt)]],
                            "top_logprobs": [None] + [{str(tops[i]): top_values[i]} for i in range(1, len(prompt) + 1)]}
                return 200, {"choices": [{"index": 0, "text": "", "logprobs": logprobs}]}
            entries: list[Any] = [None]
            for i in range(1, len(prompt)):
                entry = {str(prompt[i]): {"logprob": values[i], "rank": 1 if tops[i] == prompt[i] else 2}}
                if tops[i] != prompt[i]:
                    entry[str(tops[i])] = {"logprob": 0.0, "rank": 1}
                entries.append(entry)
            return 200, {"choices": [{"index": 0, "text": "", "prompt_logprobs": entries}]}
        if isinstance(prompt, list) and body.get("logprobs") and self._model is not None:  # one greedy step
            _, tops, top_values = self._forward([int(t) for t in prompt])
            return 200, {"choices": [{"index": 0, "text": str(tops[-1]), "logprobs": {
                "tokens": [str(tops[-1])], "token_logprobs": [top_values[-1]],
                "top_logprobs": [{str(tops[-1]): top_values[-1]}]}}]}
        text = f"text:{prompt}|seed={body.get('seed')}|t={body.get('temperature')}|stop={body.get('stop')}"
        return 200, {"choices": [{"index": 0, "text": text}], "usage": {"completion_tokens": 5}}


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length).decode("utf-8"))
            fake.record(self.path, body)
            fault = fake.next_fault()
            if fault in ("429", "500"):
                self._send(int(fault), {"error": {"message": f"injected {fault}"}},
                           {"Retry-After": "0"} if fault == "429" else {})
                return
            if fault == "hang":
                time.sleep(fake.hang_s)
                return
            if fault == "reset":
                self.close_connection = True
                self.connection.close()
                return
            status, payload = fake.answer(self.path, body)
            if fault == "two_choices":
                payload = {**payload, "choices": [*payload["choices"], {**payload["choices"][0], "index": 1}]}
            if fault in ("trickle_headers", "trickle_body"):
                self._trickle(json.dumps(payload).encode("utf-8"), fault == "trickle_headers")
                return
            if fault == "truncated":
                data = json.dumps(payload).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data) // 2))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                return
            self._send(status, payload)

        def _trickle(self, data: bytes, headers_too: bool) -> None:
            head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                    "\r\n").encode("ascii")
            slow = head + data if headers_too else data
            self.close_connection = True
            try:
                if not headers_too:
                    self.wfile.write(head)
                    self.wfile.flush()
                for i in range(min(len(slow), fake.trickle_bytes)):  # bounded: the test never waits for ever
                    self.wfile.write(slow[i:i + 1])
                    self.wfile.flush()
                    time.sleep(fake.trickle_s)
            except OSError:  # the client gave up and closed the connection
                return

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def serve(fake: FakeOpenAI) -> Iterator[str]:
    """Run ``fake`` on 127.0.0.1 (a free port) in a thread; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
