"""Headless Chromium for the HTML report tests: render a page, run its script, read the DOM back.

``chromium --headless --dump-dom`` prints the DOM after the page's scripts ran (with
``--virtual-time-budget`` the page gets that much virtual time first); :func:`parse_dom` turns
the printout into a small element tree that tests can query.  No third-party package: the
standard library's HTML parser is enough for reading back a page we wrote.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

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
