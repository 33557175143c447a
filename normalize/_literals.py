"""Required literals of a regular expression: a cheap, sound pre-check before running it.

:func:`required_literals` reads a pattern and returns strings of which every match must contain
at least one alternative's worth (or ``None`` when the pattern uses something it does not
understand).  :func:`may_match` is then a necessary condition for a match, so a
text without any of them can skip the pattern: a C-level substring scan instead of a regex
scan with look-behinds at every position.  Under IGNORECASE, only literals whose characters are
ASCII or uncased (CJK, punctuation) are used, and the text is folded with :func:`fold`, which
also maps the four non-ASCII characters that match ASCII letters case-insensitively
(``İ ı ſ K``), so the check never says "absent" when the regex would match.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

_INLINE_VERBOSE: Final = re.compile(r"\(\?[a-zA-Z^-]*x")
_SPECIAL_FOLD: Final = str.maketrans({"İ": "i", "ı": "i", "ſ": "s", "K": "k"})
_SPECIAL_CHARS: Final = ("İ", "ı", "ſ", "K")


def fold(text: str) -> str:
    """``text`` folded for a case-insensitive literal check.

    >>> fold("FİNAL ANſWER")
    'final answer'
    """
    if any(c in text for c in _SPECIAL_CHARS):  # rare: str.translate is slow on long text
        text = text.translate(_SPECIAL_FOLD)
    return text.lower()


def _usable(literal: str, ignorecase: bool) -> bool:
    if not literal:
        return False
    if not ignorecase:
        return True
    return all(c.isascii() or (c.lower() == c and c.upper() == c) for c in literal)


def _skip_group(pattern: str, i: int) -> int | None:
    """Index just past the group opening at ``pattern[i] == "("``, or ``None`` if unbalanced."""
    depth = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = _skip_class(pattern, i)
            if end is None:
                return None
            i = end
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _skip_class(pattern: str, i: int) -> int | None:
    """Index just past the character class opening at ``pattern[i] == "["``."""
    j = i + 1
    n = len(pattern)
    if j < n and pattern[j] == "^":
        j += 1
    if j < n and pattern[j] == "]":
        j += 1
    while j < n:
        if pattern[j] == "\\":
            j += 2
            continue
        if pattern[j] == "[":  # nested sets (VERSION1) or POSIX classes: not understood
            return None
        if pattern[j] == "]":
            return j + 1
        j += 1
    return None


def _branches(pattern: str) -> list[str] | None:
    """The top-level alternatives of ``pattern``."""
    out: list[str] = []
    start = 0
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
        elif c == "[":
            end = _skip_class(pattern, i)
            if end is None:
                return None
            i = end
        elif c == "(":
            end = _skip_group(pattern, i)
            if end is None:
                return None
            i = end
        elif c == "|":
            out.append(pattern[start:i])
            i += 1
            start = i
        else:
            i += 1
    out.append(pattern[start:])
    return out


_REPEAT: Final = re.compile(r"\{([0-9]+)(?:,[0-9]*)?\}")


def _at_least_once(branch: str, i: int) -> bool:
    """Whether the counted repeat ``{m}``/``{m,}``/``{m,n}`` at ``branch[i]`` has ``m >= 1``."""
    repeat = _REPEAT.match(branch, i)
    return repeat is not None and int(repeat.group(1)) >= 1


def _required_runs(branch: str, ignorecase: bool) -> tuple[str, ...] | None:
    """Every run of mandatory literal characters at the top level of ``branch`` (all must occur)."""
    runs: list[str] = []
    run = ""
    i = 0
    n = len(branch)
    while i < n:
        c = branch[i]
        char: str | None = None
        if c == "\\":
            if i + 1 >= n:
                return None
            nxt = branch[i + 1]
            if not nxt.isalnum() and nxt != "_":
                char = nxt  # an escaped punctuation character is itself
            i += 2
        elif c == "[":
            end = _skip_class(branch, i)
            if end is None:
                return None
            i = end
        elif c == "(":
            end = _skip_group(branch, i)
            if end is None:
                return None
            i = end
        elif c in "?*+{":
            return None  # a quantifier with nothing before it at this level: not understood
        elif c in ".^$)":
            i += 1
        else:
            char = c
            i += 1
        quantifier = branch[i] if i < n else ""
        if char is not None and quantifier == "{" and _at_least_once(branch, i):
            run += char  # {1,6}: at least once, the run ends after it
            runs.append(run)
            run = ""
            i = branch.find("}", i) + 1
            if i < n and branch[i] in "?+":
                i += 1
            continue
        if char is not None and quantifier not in ("?", "*", "{"):
            run += char
            if quantifier == "+":  # at least once: the run ends after it
                runs.append(run)
                run = ""
                i += 1
                if i < n and branch[i] in "?+":  # lazy or possessive
                    i += 1
            continue
        runs.append(run)
        run = ""
        if quantifier in ("?", "*", "+"):
            i += 1
            if i < n and branch[i] in "?+":
                i += 1
        elif quantifier == "{":
            close = branch.find("}", i)
            if close < 0:
                return None
            i = close + 1
            if i < n and branch[i] in "?+":
                i += 1
    runs.append(run)
    usable = tuple(dict.fromkeys(r for r in runs if _usable(r, ignorecase)))
    return usable or None


@lru_cache(maxsize=1024)
def required_literals(pattern: str, ignorecase: bool) -> tuple[tuple[str, ...], ...] | None:
    """For each top-level alternative of ``pattern``, the literals that all occur in any of its
    matches (folded when ``ignorecase``); ``None`` when some alternative has none that is known.

    >>> required_literals(r"final\\s+answer\\s*(?:is|[:：])", True)
    (('final', 'answer'),)
    >>> required_literals(r"答案\\s*(?:应该?是|是)|\\*\\*\\s*答案\\s*\\*\\*", True)
    (('答案',), ('**', '答案'))
    >>> required_literals(r"(?:correct|right)\\s+option", True)
    (('option',),)
    >>> required_literals(r"(?:a|b)+", True) is None
    True
    >>> required_literals(r"^[ \\t]*\\#{1,6}[ \\t]*answer", True)
    (('#', 'answer'),)
    """
    if _INLINE_VERBOSE.search(pattern):
        return None  # whitespace in the pattern would not be literal
    ignorecase = ignorecase or "(?" in pattern  # inline flags may turn IGNORECASE on: fold anyway
    branches = _branches(pattern)
    if branches is None:
        return None
    required: list[tuple[str, ...]] = []
    for branch in branches:
        runs = _required_runs(branch, ignorecase)
        if runs is None:
            return None
        required.append(tuple(r.lower() for r in runs) if ignorecase else runs)
    return tuple(dict.fromkeys(required))


def may_match(required: tuple[tuple[str, ...], ...] | None, text: str) -> bool:
    r"""Whether ``text`` (folded as the literals were) holds every literal of some alternative.

    >>> may_match(required_literals("final answer", True), fold("The FINAL Answer"))
    True
    >>> may_match(required_literals("final answer", True), fold("the answer"))
    False
    """
    if required is None:
        return True
    for branch in required:  # loops, not any(all(...)): this runs for every marker of every row
        for literal in branch:
            if literal not in text:
                break
        else:
            return True
    return False


_META: Final = frozenset(".^$*+?{}[]|()\\")
_GROUP_REFERENCE: Final = re.compile(r"\(\?[a-zA-Z^-]+\)|\\[1-9]|\(\?P=|\\g<|\(\?\||\(\?\(")


def _leading_run(branch: str) -> str | None:
    """The literal characters every match of ``branch`` starts with, or ``None``."""
    run = ""
    i = 0
    n = len(branch)
    while i < n:
        c = branch[i]
        if c == "\\":
            if i + 1 >= n or branch[i + 1].isalnum() or branch[i + 1] == "_":
                break  # a class (\s), an anchor (\b) or a reference: not a literal
            char, step = branch[i + 1], 2
        elif c in _META:
            break
        else:
            char, step = c, 1
        quantifier = branch[i + step] if i + step < n else ""
        if quantifier in ("?", "*", "{"):
            break  # optional or counted: the run ends before it
        run += char
        i += step
        if quantifier == "+":
            break
    return run or None


@lru_cache(maxsize=1024)
def entangled(pattern: str) -> bool:
    """Whether ``pattern`` has inline flags, group references or conditionals: inside an
    alternation those reach the other alternatives, so it cannot be split or thinned.

    >>> entangled(r"(a)\\1"), entangled("(?s)a"), entangled("(?i:a)b")
    (True, True, False)
    """
    return _GROUP_REFERENCE.search(pattern) is not None or _INLINE_VERBOSE.search(pattern) is not None


@lru_cache(maxsize=1024)
def leading_literals(pattern: str, ignorecase: bool) -> tuple[str, ...] | None:
    r"""Literals (folded when ``ignorecase``) one of which starts every match of ``pattern``,
    or ``None`` when that is not known: each top-level alternative starts with a literal run or
    with a group of literal alternatives (``(?:故|所以)选``).  Patterns with inline flags, group
    references or conditionals give ``None``, so a caller can also split an alternation of
    such patterns safely.

    >>> leading_literals(r"final\s+answer", True), leading_literals(r"(?:故|所以)选", True)
    (('final',), ('故', '所以'))
    >>> leading_literals(r"^[ \t]*answer", True) is None, leading_literals(r"ab?c", False)
    (True, ('a',))
    """
    if entangled(pattern):
        return None
    branches = _branches(pattern)
    if branches is None:
        return None
    found: list[str] = []
    for branch in branches:
        if branch.startswith("(?:"):
            end = _skip_group(branch, 0)
            if end is None or (end < len(branch) and branch[end] in "?*{"):
                return None
            inner = _branches(branch[3 : end - 1])
            if inner is None:
                return None
            for alternative in inner:
                run = _leading_run(alternative)
                if run is None or run != alternative.replace("\\", ""):
                    return None  # only a group of plain literals
                found.append(run)
            continue
        run = _leading_run(branch)
        if run is None:
            return None
        found.append(run)
    if not all(_usable(r, ignorecase) for r in found):
        return None
    return tuple(dict.fromkeys(r.lower() if ignorecase else r for r in found))
