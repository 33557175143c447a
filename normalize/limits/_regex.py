"""Regex helpers: built-in patterns are safe by construction; user-supplied ones run with a timeout.

Two kinds of pattern, two ways of calling them:

* **Built-in** patterns (the rules' and parsers' own) are written to match in linear time (no
  nested quantifiers that can backtrack, bounded look-behinds) and are called *without* the
  ``regex`` module's per-call ``timeout=`` (it costs ~2.4 µs per call plus ~1 µs per match).
  ``normalize check`` proves their bound by the growth of work between input sizes *n* and
  *2n* (see :mod:`normalize.limits._growth`).  Compile them with :func:`compile_pattern`.
* **User-supplied** patterns (answer-marker tiers and schema ``patternProperties`` written in
  a pack, a data-only ``extract_regex`` rule) may backtrack; they go through
  :class:`UserPattern`, which passes the pack's ``regex_timeout`` and turns a timeout into
  :class:`TimeoutError`, which the engine records as status ``error`` naming the rule — unless
  the pattern is proven linear when it is compiled (:mod:`normalize.limits._regex_proof`: no
  backreference, no nested or overlapping quantifiers, no run rescanned from another start
  position); such a pattern is called without the timeout, as the built-in ones are.

The per-row CPU-time budget (:mod:`normalize.limits._budget`) bounds the whole row on top of both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

import regex

from normalize.limits._regex_proof import proven_linear

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


@lru_cache(maxsize=4096)
def user_compiled(pattern: str, flags: int = 0) -> tuple[regex.Pattern[str], bool]:
    """A user-supplied pattern compiled (as :func:`compile_pattern`) and whether it is proven
    linear (:func:`normalize.limits._regex_proof.proven_linear`): then it needs no per-call timeout.

    >>> user_compiled(r"ANSWER:\\s*(\\S+)")[1], user_compiled(r"(a+)+$")[1]
    (True, False)
    """
    compiled = compile_pattern(pattern, flags)
    return compiled, proven_linear(pattern, flags)


@dataclass(frozen=True)
class UserPattern:
    """A user-supplied pattern: every call carries ``timeout`` seconds of wall clock, unless
    the pattern is ``linear`` (proven when compiled; it then runs as a built-in pattern does).

    >>> p = user_pattern(r"(?i)answer:\\s*(\\w+)", timeout=0.5)
    >>> p.search("Final ANSWER: 42")[1], p.sub("#", "answer: x"), [m[1] for m in p.finditer("answer: a answer: b")]
    ('42', '#', ['a', 'b'])
    """

    compiled: regex.Pattern[str]
    timeout: float
    linear: bool = False

    @property
    def pattern(self) -> str:
        return self.compiled.pattern

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> regex.Match[str] | None:
        if self.linear:
            return self.compiled.search(text, pos, endpos)
        return self.compiled.search(text, pos, endpos, timeout=self.timeout)

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> regex.Match[str] | None:
        if self.linear:
            return self.compiled.match(text, pos, endpos)
        return self.compiled.match(text, pos, endpos, timeout=self.timeout)

    def fullmatch(self, text: str, pos: int = 0, endpos: int | None = None) -> regex.Match[str] | None:
        if self.linear:
            return self.compiled.fullmatch(text, pos, endpos)
        return self.compiled.fullmatch(text, pos, endpos, timeout=self.timeout)

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[regex.Match[str]]:
        if self.linear:
            return self.compiled.finditer(text, pos, endpos)
        return self.compiled.finditer(text, pos, endpos, timeout=self.timeout)

    def sub(self, repl: str | Callable[[regex.Match[str]], str], text: str, count: int = 0) -> str:
        if self.linear:
            return self.compiled.sub(repl, text, count)
        return self.compiled.sub(repl, text, count, timeout=self.timeout)


def user_pattern(pattern: str, flags: int = 0, *, timeout: float) -> UserPattern:
    """A pattern that came from a pack or a user, compiled (cached) and bound to ``timeout``.

    What a data-only rule such as ``extract_regex`` should call: a bad pattern raises
    ``ValueError`` naming it, a match that runs past ``timeout`` seconds raises ``TimeoutError``.
    """
    if timeout <= 0:
        raise ValueError(f"regex timeout must be positive, got {timeout!r}")
    compiled, linear = user_compiled(pattern, flags)
    return UserPattern(compiled, timeout, linear)


@dataclass(frozen=True)
class CharTable:
    """A one-character mapping (``str.translate`` semantics) applied fast, and a presence test.

    ``str.translate`` with a dict looks every character up (~50 ns each on non-ASCII text), and
    the ``regex`` module scans a plain character class several times slower than the standard
    library's ``re``; so a stdlib class (linear: one character per step, no backtracking) finds
    whether any mapped character occurs, and only the distinct ones found are replaced.  That
    equals ``text.translate(table)`` because no replacement holds a mapped character (checked
    when the table is built).

    >>> t = char_table({"“": '"', "”": '"'})
    >>> t.translate("say “hi”"), t.present("plain")
    ('say "hi"', False)
    """

    table: Mapping[str, str]
    finder: re.Pattern[str]

    def present(self, text: str) -> bool:
        return self.finder.search(text) is not None

    def translate(self, text: str) -> str:
        """``text.translate(table)``: each mapped character that occurs is replaced everywhere
        at once, found by a search that resumes where the last one was found (the text before
        it holds no mapped character, the replacement none either): one pass over the text."""
        search = self.finder.search
        match = search(text)
        while match is not None:  # none found: the text as it is
            char = match.group()
            text = text.replace(char, self.table[char])
            match = search(text, match.start())
        return text


def char_table(mapping: Mapping[str, str] | Mapping[int, int] | Mapping[int, str]) -> CharTable:
    """A :class:`CharTable` for ``mapping`` (characters or code points, as ``str.maketrans`` takes).

    Raises ``ValueError`` when a replacement holds a mapped character (the replacements would
    then depend on their order).
    """
    table = {
        (chr(k) if isinstance(k, int) else k): (chr(v) if isinstance(v, int) else v) for k, v in mapping.items()
    }
    if any(len(k) != 1 for k in table):
        raise ValueError(f"a CharTable maps single characters, got {sorted(table)!r}")
    if any(c in table for v in table.values() for c in v):
        raise ValueError("a CharTable replacement must not hold a mapped character")
    return CharTable(table, char_finder("".join(sorted(table))))


@lru_cache(maxsize=64)
def char_finder(chars: str) -> re.Pattern[str]:
    """A stdlib ``re`` class matching any one of ``chars``: a presence test for a fixed set of
    characters (linear; several times faster than a ``regex`` class scan).

    >>> char_finder("*_").search("a*b") is not None
    True
    """
    return re.compile("[" + "".join(re.escape(c) for c in chars) + "]")
