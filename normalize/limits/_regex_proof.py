"""A load-time proof that a user-supplied pattern matches in time linear in its input.

A pack's own pattern (``extract_regex``, a schema's ``patternProperties``) runs under the pack's
``regex_timeout``, and the ``regex`` module's per-call ``timeout=`` costs ~2.4 µs a call — most of
what such a rule costs a row.  A pattern this module proves linear runs without it; every other
pattern keeps the timeout.  The proof is conservative: what it cannot read, it does not prove.

The pattern is parsed by the standard library's ``re`` parser (``re._parser``).  A pattern that it
cannot parse, that warns (``[[:alpha:]]``: the ``regex`` module reads a POSIX class there), that
holds a literal ``{`` (``regex`` reads fuzzy matching such as ``(?:x){e<=1}`` there), or whose
group count differs from the ``regex`` module's, uses syntax the two modules read differently
and stays unproven.  A proven pattern is a sequence of

* single-character matchers (a literal, a class, ``.``) repeated a bounded number of times
  (at most :data:`MAX_BOUNDED` — ``\\d{1,3}``, ``\\(?``), capture groups and non-capturing groups
  of such, alternations whose branches hold only such (``(?:answer|ANSWER)``), zero-width
  assertions, and look-arounds of such;
* **long repeats**: one character matcher ``X`` under ``*``, ``+``, ``{m,}`` (greedy or lazy).

A long repeat is allowed when both hold:

1. *what may follow it is disjoint from X* (the classes that can be the next character consumed,
   up to the first required item): the repeat then always takes the whole run of ``X`` and giving
   a character back fails at once — no nested or adjacent overlapping quantifiers, so one
   attempt costs the length of the runs it scans;
2. *what may precede it is disjoint from X*, and the pattern is anchored (``\\A``, ``^``) where
   nothing required precedes it: a run the repeat scans then starts at the start of a maximal
   run of ``X``, so attempts from different start positions never rescan the same run
   (``\\w+$`` on ``"a" * n + "!"`` would rescan it n times: quadratic).

Everything else — backreferences, conditionals, repeated groups (``(a+)+``, ``(a|a)*``),
look-arounds holding a long repeat, atomic groups and possessive repeats, scoped flags — stays
unproven.  Together the two conditions bound every long repeat to scanning each maximal run a
constant number of times, and every attempt to a constant amount of work elsewhere: the search
is linear in the text.  Disjointness is decided by the ``regex`` module itself (a look-ahead
searched over every code point), so the classes mean exactly what they mean when matching.

>>> proven_linear(r"(?i)answer:\\s*(\\S+)")
True
>>> proven_linear(r"(a+)+$"), proven_linear(r"\\w+$"), proven_linear(r"(\\w)\\1")
(False, False, False)
"""

from __future__ import annotations

import re
import sys
import warnings
from dataclasses import dataclass
from functools import lru_cache
from re import _constants, _parser  # type: ignore[attr-defined]
from typing import Any, Final

import regex

#: A repeat bounded by at most this many characters counts as bounded (its backtracking is a
#: constant); a larger bound is treated as a long repeat.
MAX_BOUNDED: Final = 16
#: The most ways the bounded items of a pattern may match at one place (the product of their
#: choices): the constant in the linear bound.
MAX_CHOICES: Final = 256

_FLAGS: Final = (
    ("IGNORECASE", regex.IGNORECASE, re.IGNORECASE),
    ("MULTILINE", regex.MULTILINE, re.MULTILINE),
    ("DOTALL", regex.DOTALL, re.DOTALL),
    ("VERBOSE", regex.VERBOSE, re.VERBOSE),
    ("ASCII", regex.ASCII, re.ASCII),
    ("UNICODE", regex.UNICODE, re.UNICODE),
)
_KNOWN_REGEX_FLAGS: Final = int(sum(int(f) for _, f, _ in _FLAGS)) | int(regex.VERSION0)

_CATEGORIES: Final = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


class Unproven(Exception):
    """The pattern holds something the proof does not cover (internal: never leaves the module)."""


@dataclass(frozen=True)
class _Bounded:
    """Bounded items: ``first``/``last`` — classes (``regex`` sources of one character) that can
    be consumed first/last; ``nullable`` when it can match empty; ``choices``: ways to match."""

    first: tuple[str, ...]
    last: tuple[str, ...]
    nullable: bool
    choices: int


@dataclass(frozen=True)
class _Long:
    cls: str
    minimum: int


@dataclass(frozen=True)
class _Assert:
    #: "anchor": \\A, or ^ without MULTILINE; "line": ^ with MULTILINE; "other": transparent
    kind: str


_Item = _Bounded | _Long | _Assert


@lru_cache(maxsize=1)
def _every_character() -> str:
    return "".join(map(chr, range(sys.maxunicode + 1)))


@lru_cache(maxsize=4096)
def _overlap(cls: str, others: tuple[str, ...], flags: int) -> bool:
    """Whether some character is matched both by ``cls`` and by one of ``others``."""
    if not others:
        return False
    probe = regex.compile(f"(?={cls})(?:{'|'.join(others)})", flags)
    return probe.search(_every_character()) is not None


def _char(code: int) -> str:
    return f"\\U{code:08x}"


def _class(op: Any, arg: Any) -> str | None:
    """The ``regex`` source of a one-character matcher, or None when ``op`` is not one."""
    name = str(op)
    if name == "LITERAL":
        return _char(arg)
    if name == "NOT_LITERAL":
        return f"[^{_char(arg)}]"
    if name == "ANY":
        return "."
    if name == "IN":
        parts: list[str] = []
        negate = False
        for sub_op, sub_arg in arg:
            sub = str(sub_op)
            if sub == "NEGATE":
                negate = True
            elif sub == "LITERAL":
                parts.append(_char(sub_arg))
            elif sub == "RANGE":
                parts.append(f"{_char(sub_arg[0])}-{_char(sub_arg[1])}")
            elif sub == "CATEGORY" and str(sub_arg) in _CATEGORIES:
                parts.append(_CATEGORIES[str(sub_arg)])
            else:
                raise Unproven(f"class item {sub}")
        if not parts:
            raise Unproven("empty class")
        return "[" + ("^" if negate else "") + "".join(parts) + "]"
    return None


def _items(seq: Any, flags: int, items: list[_Item], *, in_bounded: bool = False) -> None:
    """Flatten a parsed sequence into ``items`` (groups inlined), or raise :class:`Unproven`."""
    for op, arg in seq:
        name = str(op)
        cls = _class(op, arg)
        if cls is not None:
            items.append(_Bounded((cls,), (cls,), False, 1))
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):
            low, high, body = arg
            if len(body) != 1 or (cls := _class(*body[0])) is None:
                items.append(_repeated_group(low, high, body, flags))
                continue
            if high != _constants.MAXREPEAT and high <= MAX_BOUNDED:
                items.append(_Bounded((cls,), (cls,), low == 0, high - low + 1))
            elif in_bounded:
                raise Unproven("a long repeat inside a look-around or alternation")
            else:
                items.append(_Long(cls, low))
        elif name == "SUBPATTERN":
            _group, add_flags, del_flags, body = arg
            if add_flags or del_flags:
                raise Unproven("scoped flags")
            _items(body, flags, items, in_bounded=in_bounded)
        elif name == "BRANCH":
            items.append(_branch(arg[1], flags))
        elif name == "AT":
            at = str(arg)
            if at == "AT_BEGINNING_STRING" or (at == "AT_BEGINNING" and not flags & re.MULTILINE):
                items.append(_Assert("anchor"))
            elif at == "AT_BEGINNING":
                items.append(_Assert("line"))
            elif at in ("AT_END", "AT_END_STRING", "AT_BOUNDARY", "AT_NON_BOUNDARY"):
                items.append(_Assert("other"))
            else:
                raise Unproven(f"assertion {at}")
        elif name in ("ASSERT", "ASSERT_NOT"):
            inner: list[_Item] = []
            _items(arg[1], flags, inner, in_bounded=True)
            if _choices(inner) > MAX_CHOICES:
                raise Unproven("look-around with too many choices")
            items.append(_Assert("other"))
        else:  # GROUPREF, GROUPREF_EXISTS, ATOMIC_GROUP, POSSESSIVE_REPEAT, ...
            raise Unproven(name)


def _repeated_group(low: int, high: int, body: Any, flags: int) -> _Bounded:
    """A group repeated a bounded number of times (``(?:,\\d{3})?``) whose body holds only bounded
    items; a group under a long repeat (``(a+)+``, ``(a|a)*``, ``(ab)*``) is not proven."""
    if high == _constants.MAXREPEAT or high > MAX_BOUNDED:
        raise Unproven("a group under a long repeat")
    inner: list[_Item] = []
    _items(body, flags, inner, in_bounded=True)
    bounded = [i for i in inner if isinstance(i, _Bounded)]
    first, nullable = _walk(bounded)
    last, _ = _walk(bounded[::-1], last=True)
    per = _choices(inner)
    choices = sum(per**r for r in range(low, high + 1))
    if choices > MAX_CHOICES:
        raise Unproven("a repeated group with too many choices")
    return _Bounded(tuple(first), tuple(last), nullable or low == 0, choices)


def _choices(items: list[_Item]) -> int:
    total = 1
    for item in items:
        if isinstance(item, _Bounded):
            total *= item.choices
    return total


def _branch(branches: Any, flags: int) -> _Bounded:
    first: list[str] = []
    last: list[str] = []
    nullable = False
    choices = 0
    for seq in branches:
        inner: list[_Item] = []
        _items(seq, flags, inner, in_bounded=True)
        bounded = [i for i in inner if isinstance(i, _Bounded)]
        f, f_null = _walk(bounded)
        b, _ = _walk(bounded[::-1], last=True)
        first += f
        last += b
        nullable = nullable or f_null
        choices += _choices(inner)
    return _Bounded(tuple(dict.fromkeys(first)), tuple(dict.fromkeys(last)), nullable, choices)


def _walk(items: list[_Bounded], *, last: bool = False) -> tuple[list[str], bool]:
    """The classes a walk over ``items`` can consume first (or last, walking backwards), and
    whether it can consume nothing."""
    out: list[str] = []
    for item in items:
        out += item.last if last else item.first
        if not item.nullable:
            return out, False
    return out, True


def _check(items: list[_Item], flags: int) -> None:
    if _choices(items) > MAX_CHOICES:
        raise Unproven("too many choices")
    for k, item in enumerate(items):
        if not isinstance(item, _Long):
            continue
        following: list[str] = []
        for nxt in items[k + 1 :]:
            if isinstance(nxt, _Assert):
                continue
            if isinstance(nxt, _Long):
                following.append(nxt.cls)
                if nxt.minimum:
                    break
                continue
            following += nxt.first
            if not nxt.nullable:
                break
        if _overlap(item.cls, tuple(following), flags):
            raise Unproven("a long repeat followed by what it can match")
        preceding: list[str] = []
        anchored = False
        for prev in reversed(items[:k]):
            if isinstance(prev, _Assert):
                if prev.kind == "anchor":
                    anchored = True
                    break
                if prev.kind == "line":
                    preceding.append(r"\n")
                    anchored = True
                    break
                continue
            if isinstance(prev, _Long):
                preceding.append(prev.cls)
                if prev.minimum:
                    anchored = True
                    break
                continue
            preceding += prev.last
            if not prev.nullable:
                anchored = True
                break
        if _in_tail(items, k):
            continue  # an attempt that reaches it succeeds: the run it scans is in the match
        if not anchored:
            raise Unproven("a long repeat an attempt can reach from any start position")
        if _overlap(item.cls, tuple(preceding), flags):
            raise Unproven("a long repeat preceded by what it can match")


def _in_tail(items: list[_Item], k: int) -> bool:
    """Whether an attempt that reaches ``items[k]`` (a long repeat) and gets past its minimum
    always succeeds: nothing after it can fail (only items that match empty, no assertion)."""
    item = items[k]
    if not isinstance(item, _Long) or item.minimum > MAX_BOUNDED:
        return False
    for nxt in items[k + 1 :]:
        if isinstance(nxt, _Assert):
            return False
        if isinstance(nxt, _Bounded) and not nxt.nullable:
            return False
        if isinstance(nxt, _Long) and nxt.minimum:
            return False
    return True


def _re_flags(regex_flags: int) -> int:
    out = 0
    for _, rf, sf in _FLAGS:
        if regex_flags & rf:
            out |= sf
    return out


def _regex_flags(re_flags: int) -> int:
    out = 0
    for _, rf, sf in _FLAGS:
        if re_flags & sf:
            out |= rf
    return out


@lru_cache(maxsize=4096)
def proven_linear(pattern: str, flags: int = 0) -> bool:
    """Whether ``pattern`` (``regex`` syntax, ``flags`` of the ``regex`` module) is proven to
    match in time linear in the text: the search, ``finditer`` and ``sub`` then need no timeout.

    Never raises for a pattern that ``regex`` compiles: what cannot be proven is ``False``.
    """
    if flags & ~_KNOWN_REGEX_FLAGS:
        return False
    try:
        compiled = regex.compile(pattern, flags)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            parsed = _parser.parse(pattern, _re_flags(flags))
    except (re.error, regex.error, Warning, RecursionError, OverflowError):
        return False
    if parsed.state.groups - 1 != compiled.groups:
        return False
    all_flags = _regex_flags(parsed.state.flags) | flags
    if all_flags & ~_KNOWN_REGEX_FLAGS:
        return False
    probe_flags = all_flags & (regex.IGNORECASE | regex.DOTALL | regex.ASCII | regex.UNICODE)
    try:
        if _unescaped_brace(pattern):
            return False
        items: list[_Item] = []
        _items(parsed.data, _re_flags(all_flags), items)
        _check(items, probe_flags)
    except Unproven:
        return False
    return True


#: A quantifier in braces that both modules read alike: ``{m}``, ``{m,}``, ``{,n}``, ``{m,n}``.
_BRACE_REPEAT: Final = re.compile(r"\{\d*(?:,\d*)?\}")


def _unescaped_brace(pattern: str) -> bool:
    r"""An unescaped ``{`` outside a class that is not a plain quantifier: ``regex`` may read
    fuzzy matching (``(?:abc){e<=1}``) where ``re`` reads a literal, so the parses differ.
    (Conservative: a ``{`` in a verbose-mode comment counts too.)

    >>> _unescaped_brace(r"boxed\{(\d+)\}"), _unescaped_brace(r"\d{1,3}"), _unescaped_brace(r"(?:ab){e<=1}")
    (False, False, True)
    """
    i, n, in_class = 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if pattern.startswith("^", i + 1):
                i += 1
            if pattern.startswith("]", i + 1):  # a leading ] is literal
                i += 1
        elif ch == "{" and not _BRACE_REPEAT.match(pattern, i):
            return True
        i += 1
    return False
