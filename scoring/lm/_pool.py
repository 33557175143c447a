"""Several OpenAI-compatible servers of the same weights behind one client.

:class:`ServerPool` is a drop-in for :class:`~scoring.lm.openai_backend.Client` (``post``,
``map``, ``config``, ``requests``, ``retries``) that wraps one ``Client`` per server, each
making a single attempt per call; the pool does the retrying:

* **Spread by outstanding work.**  Each request goes to the healthy server with the fewest
  requests in flight relative to its share of ``concurrency`` (ties: the one sent the fewest
  so far, then the first listed).
* **A failing server is taken out.**  A server whose attempt fails for the server's reasons
  (:class:`~scoring.lm.openai_backend.ServerUnavailable`: 429, 5xx, timeouts, lost
  connections, bad JSON) is out for a cooldown (``backoff · 2^(failures in a row − 1)``, at
  most ``max_backoff`` seconds) and the request goes to another server at once; once the
  cooldown is over the server gets requests again (retried later), and a success puts it back
  for good.  When every server is out, the request waits for the first to come back.  A
  request fails for good after ``max_retries + 1`` failed attempts over all servers; an error
  that is the request's own (another 4xx) fails it at once, on whichever server.
* **Same answers, same cache.**  Requests and seeds do not depend on the server, and neither
  does the cache key (``--revision`` names the weights; several servers need it), so the
  output equals one server's when the servers serve the same weights deterministically.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from normalize.errors import UsageError
from scoring.lm.openai_backend import Client, ClientConfig, ServerError, ServerUnavailable, post_all


@dataclass
class _Server:
    client: Client
    share: int  # its part of the pool's concurrency
    outstanding: int = 0
    failures: int = 0  # in a row
    down_until: float = 0.0
    answered: int = 0
    sent: int = 0

    @property
    def url(self) -> str:
        return self.client.config.base_url


class ServerPool:
    """Requests spread over ``configs`` (one per server); see the module docstring."""

    def __init__(self, configs: Sequence[ClientConfig], *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not configs:
            raise UsageError("a server pool needs at least one --base-url")
        urls = [c.base_url.rstrip("/") for c in configs]
        if len(set(urls)) != len(urls):
            raise UsageError(f"a --base-url is given twice: {sorted(u for u in set(urls) if urls.count(u) > 1)}")
        first = configs[0]
        #: What callers read from a client's config: the pool's total concurrency, the first server's other settings.
        self.config = replace(first, concurrency=sum(c.concurrency for c in configs))
        self.max_retries = first.max_retries
        self.backoff = first.backoff
        self.max_backoff = first.max_backoff
        self.servers = [_Server(Client(replace(c, max_retries=0), sleep=sleep), c.concurrency) for c in configs]
        self._sleep = sleep
        self._clock = clock
        self._lock = threading.Lock()
        self.requests = 0
        self.retries = 0

    # ----------------------------------------------------------------- choosing a server

    def _take(self) -> tuple[_Server | None, float]:
        """A healthy server with the least outstanding work (now counted as busier), or the
        seconds until the first one is back."""
        with self._lock:
            now = self._clock()
            healthy = [s for s in self.servers if s.down_until <= now]
            if not healthy:
                return None, min(s.down_until for s in self.servers) - now
            server = min(healthy, key=lambda s: (s.outstanding / s.share, s.sent / s.share))
            server.outstanding += 1
            server.sent += 1
            return server, 0.0

    def _done(self, server: _Server, ok: bool) -> None:
        with self._lock:
            server.outstanding -= 1
            if ok:
                server.failures = 0
                server.down_until = 0.0
                server.answered += 1
                return
            server.failures += 1
            cooldown = min(self.max_backoff, self.backoff * 2 ** (server.failures - 1))
            server.down_until = max(server.down_until, self._clock() + cooldown)

    # ----------------------------------------------------------------- the client interface

    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST ``body`` to one server; another one (or the same, later) on a server failure."""
        failed = 0
        last = ""
        while True:
            server, wait = self._take()
            if server is None:
                self._sleep(max(0.0, wait))
                continue
            try:
                payload = server.client.post(path, body)
            except ServerUnavailable as exc:
                self._done(server, False)
                failed += 1
                last = str(exc)
                if failed > self.max_retries:
                    self._count(failed - 1)
                    raise ServerUnavailable(f"every server failed this request ({failed} attempts over "
                                            f"{len(self.servers)} servers); last error: {last}") from None
                continue
            except ServerError:
                self._done(server, True)  # the server answered: the request itself is refused
                self._count(failed)
                raise
            self._done(server, True)
            self._count(failed)
            return payload

    def _count(self, retries: int) -> None:
        with self._lock:
            self.requests += 1
            self.retries += retries

    def map(self, path: str, bodies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any] | ServerError]:
        """POST every body with at most ``concurrency`` (all servers') in flight; results in order."""
        return post_all(self.post, path, bodies, self.config.concurrency)

    def describe(self) -> list[dict[str, Any]]:
        """Per server: its URL and how many requests it answered."""
        return [{"base_url": s.url, "answered": s.answered} for s in self.servers]


def read_url_file(path: str | Path) -> list[str]:
    """The server URLs of a file, one a line (blank lines and ``#`` comments left out)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read the URL file {path}: {exc.strerror or exc}") from None
    urls = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    urls = [u for u in urls if u]
    if not urls:
        raise UsageError(f"the URL file {path} names no server")
    return urls


__all__ = ["ServerPool", "read_url_file"]
