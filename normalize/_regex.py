"""Regex helpers: built-in patterns are safe by construction; user-supplied ones run with a timeout.

Two kinds of pattern, two ways of calling them:

* **Built-in** patterns (the rules' and parsers' own) are written to match in linear time (no
  nested quantifiers that can backtrack, bounded look-behinds) and are called *without* the
  ``regex`` module's per-call ``timeout=`` (it costs ~2.4 µs per call plus ~1 µs per match).
  ``normalize check`` proves their bound by the growth of work between input sizes *n* and
  *2n* (see :mod:`normalize._growth`).  Compile them with :func:`compile_pattern`.
* **User-supplied** patterns (answer-marker tiers and schema ``patternProperties`` written in
  a pack, a data-only ``extract_regex`` rule) may backtrack; they go through
  :class:`UserPattern`, which always passes the pack's ``regex_timeout`` and turns a timeout
  into :class:`TimeoutError`, which the engine records as status ``error`` naming the rule.

The per-row CPU-time budget (:mod:`normalize._budget`) bounds the whole row on top of both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import regex

Pattern = regex.Pattern


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """Compile (and cache) ``pattern`` with the ``regex`` module, VERSION1 semantics off.

    A bad pattern raises ``ValueError`` naming it.
    """
    try:
        return regex.compile(pattern, flags)
    except regex.error as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from exc


@dataclass(frozen=True)
class UserPattern:
    """A user-supplied pattern: every call carries ``timeout`` seconds of wall clock.

    >>> p = user_pattern(r"(?i)answer:\\s*(\\w+)", timeout=0.5)
    >>> p.search("Final ANSWER: 42")[1], p.sub("#", "answer: x"), [m[1] for m in p.finditer("answer: a answer: b")]
    ('42', '#', ['a', 'b'])
    """

    compiled: regex.Pattern[str]
    timeout: float

    @property
    def pattern(self) -> str:
        return self.compiled.pattern

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> regex.Match[str] | None:
        return self.compiled.search(text, pos, endpos, timeout=self.timeout)

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> regex.Match[str] | None:
        return self.compiled.match(text, pos, endpos, timeout=self.timeout)

    def fullmatch(self, text: str, pos: int = 0, endpos: int | None = None) -> regex.Match[str] | None:
        return self.compiled.fullmatch(text, pos, endpos, timeout=self.timeout)

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[regex.Match[str]]:
        return self.compiled.finditer(text, pos, endpos, timeout=self.timeout)

    def sub(self, repl: str | Callable[[regex.Match[str]], str], text: str, count: int = 0) -> str:
        return self.compiled.sub(repl, text, count, timeout=self.timeout)


def user_pattern(pattern: str, flags: int = 0, *, timeout: float) -> UserPattern:
    """A pattern that came from a pack or a user, compiled (cached) and bound to ``timeout``.

    What a data-only rule such as ``extract_regex`` should call: a bad pattern raises
    ``ValueError`` naming it, a match that runs past ``timeout`` seconds raises ``TimeoutError``.
    """
    if timeout <= 0:
        raise ValueError(f"regex timeout must be positive, got {timeout!r}")
    return UserPattern(compile_pattern(pattern, flags), timeout)
