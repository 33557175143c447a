"""Headless Chromium for the HTML report tests: render a page, run its script, read the DOM back.

``chromium --headless --dump-dom`` prints the DOM after the page's scripts ran (with
``--virtual-time-budget`` the page gets that much virtual time first); :func:`parse_dom` turns
the printout into a small element tree that tests can query.  :class:`Page` drives a live page
over the DevTools protocol on ``--remote-debugging-pipe`` (JSON messages separated by NUL on
file descriptors 3 and 4), to change a filter or click a button as a reader would.  No
third-party package: no websocket client and no selenium/playwright download is needed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

#: Set to 1 (``.ci/run`` does) to turn "chromium is absent" from a skip into a failure.
REQUIRE_ENV = "HN_REQUIRE_CHROMIUM"
_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                   "wbr"})


def find_chromium() -> str | None:
    """The Chromium binary: ``$HN_CHROMIUM`` if set, else the first one on ``PATH``."""
    explicit = os.environ.get("HN_CHROMIUM")
    if explicit:
        return explicit if shutil.which(explicit) else None
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _base_args(binary: str, profile: str) -> list[str]:
    # --no-sandbox: CI containers run as root, where Chromium's sandbox refuses to start.
    return [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--disable-extensions", "--disable-background-networking",
            f"--user-data-dir={profile}"]


def dump_dom(binary: str, url: str, *, budget_ms: int = 5000, timeout: float = 120.0) -> str:
    """The serialized DOM of ``url`` after its scripts ran."""
    with tempfile.TemporaryDirectory(prefix="hn-chromium-") as profile:
        done = subprocess.run(
            [*_base_args(binary, profile), f"--virtual-time-budget={budget_ms}", "--dump-dom", url],
            capture_output=True, text=True, timeout=timeout, check=False,
        )
    if done.returncode != 0 or "<html" not in done.stdout:
        raise RuntimeError(f"chromium --dump-dom failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def screenshot(binary: str, url: str, out: Path, *, width: int = 1280, height: int = 2400,
               budget_ms: int = 5000, timeout: float = 120.0) -> None:
    """A PNG of the first ``height`` pixels of ``url``."""
    with tempfile.TemporaryDirectory(prefix="hn-chromium-") as profile:
        done = subprocess.run(
            [*_base_args(binary, profile), "--hide-scrollbars", f"--window-size={width},{height}",
             f"--virtual-time-budget={budget_ms}", f"--screenshot={out}", url],
            capture_output=True, text=True, timeout=timeout, check=False,
        )
    if done.returncode != 0 or not out.exists():
        raise RuntimeError(f"chromium --screenshot failed ({done.returncode}): {done.stderr[-2000:]}")


class Page:
    """A page open in headless Chromium, driven over the DevTools protocol (a context manager):
    ``with Page(binary, url) as page: page.evaluate("document.title")``."""

    def __init__(self, binary: str, url: str, *, timeout: float = 60.0) -> None:
        self.binary, self.url, self.timeout = binary, url, timeout
        self._next_id = 0
        self._buffer = b""

    def __enter__(self) -> Page:
        to_child, self._commands = os.pipe()
        self._responses, from_child = os.pipe()

        def wire() -> None:  # in the child: the protocol wants its pipes on fds 3 (in) and 4 (out)
            keep_in, keep_out = os.dup(to_child), os.dup(from_child)
            os.dup2(keep_in, 3)
            os.dup2(keep_out, 4)

        self._profile = tempfile.TemporaryDirectory(prefix="hn-chromium-")
        self._process = subprocess.Popen(
            [*_base_args(self.binary, self._profile.name), "--remote-debugging-pipe", self.url],
            close_fds=False, preexec_fn=wire, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(to_child)
        os.close(from_child)
        targets = self._call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self._session = self._call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._send("Browser.close")
            self._process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        finally:
            os.close(self._commands)
            os.close(self._responses)
            self._profile.cleanup()

    def _send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode("utf-8") + b"\0")
        return self._next_id

    def _call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message = json.loads(raw)
                if message.get("id") == wanted:
                    if "error" in message:
                        raise RuntimeError(f"{method}: {message['error']}")
                    return message["result"]
            if time.monotonic() > deadline:
                raise TimeoutError(f"no answer to {method} within {self.timeout} s")
            chunk = os.read(self._responses, 1 << 16)
            if not chunk:
                raise RuntimeError(f"chromium closed the DevTools pipe while waiting for {method}")
            self._buffer += chunk

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page; a thrown error raises ``RuntimeError``."""
        result = self._call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, self._session)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, *, timeout: float = 30.0) -> Any:
        """Poll ``expression`` until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise TimeoutError(f"{expression!r} stayed falsy for {timeout} s")


@dataclass
class Element:
    """An element of the parsed DOM: tag, attributes, children (elements and text)."""

    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    @property
    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    def iter(self) -> Iterator[Element]:
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Element]:
        """Elements below (and including) this one with the tag, class and attribute values given."""
        found = []
        for node in self.iter():
            if tag is not None and node.tag != tag:
                continue
            if cls is not None and cls not in node.classes:
                continue
            if any(node.attrs.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            found.append(node)
        return found

    def by_id(self, ident: str) -> Element | None:
        return next((n for n in self.iter() if n.attrs.get("id") == ident), None)


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_dom(html: str) -> Element:
    """A tree of :class:`Element` from serialized HTML."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root
