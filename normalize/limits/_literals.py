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
_SPECIAL_FOLD: Final = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})  # İ ı ſ K
_SPECIAL_CHARS: Final = ("\u0130", "\u0131", "\u017f", "\u212a")  # the Kelvin sign, not "K"


def fold(text: str) -> str:
    """``text`` folded for a case-insensitive literal check.

    >>> fold("FİNAL ANſWER")
    'final answer'
    """
    if not text.isascii() and _has_special(text):  # rare: translate is slow
        text = text.translate(_SPECIAL_FOLD)
    return text.lower()


def _has_special(text: str) -> bool:
    """Whether one of :data:`_SPECIAL_CHARS` occurs in ``text`` (four scans, no generator)."""
    return "\u0130" in text or "\u0131" in text or "\u017f" in text or "\u212a" in text


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


_WHITESPACE: Final = "\\s"  # stands for the whitespace class in an atom's character set
_NO_QUANTIFIER: Final = (1, 1)


def _class_chars(branch: str, i: int, end: int) -> frozenset[str] | None:
    """The characters of the simple class ``branch[i:end]`` (``[:：]``, ``[ \\t]``, ``[,，]``):
    plain ASCII-or-uncased non-letters, ``\\t``, ``\\s`` or escaped punctuation; else ``None``."""
    j = i + 1
    chars: set[str] = set()
    if branch[j] in "^]":
        return None  # negated or starting with "]": not simple
    while j < end - 1:
        c = branch[j]
        if c == "\\":
            nxt = branch[j + 1]
            if nxt == "t":
                chars.add("\t")
            elif nxt == "s":
                chars.add(_WHITESPACE)
            elif not nxt.isalnum() and nxt != "_" and _usable(nxt, True):
                chars.add(nxt)
            else:
                return None
            j += 2
            continue
        if c in "-[" or c.isalpha() or not _usable(c, True):
            return None  # ranges, nested sets, letters (cased or not): not simple
        chars.add(c)
        j += 1
    return frozenset(chars) if chars else None


def _quantifier(branch: str, i: int) -> tuple[tuple[int, int | None], int] | None:
    """The quantifier at ``branch[i]`` as ``((min, max), next index)``; ``None`` for a lazy or
    possessive one or a malformed count."""
    n = len(branch)
    c = branch[i] if i < n else ""
    if c == "?":
        bounds: tuple[int, int | None] = (0, 1)
        i += 1
    elif c == "*":
        bounds, i = (0, None), i + 1
    elif c == "+":
        bounds, i = (1, None), i + 1
    elif c == "{":
        count = re.compile(r"\{([0-9]+)(,([0-9]*))?\}").match(branch, i)
        if count is None:
            return None
        low = int(count.group(1))
        high = low if count.group(2) is None else (int(count.group(3)) if count.group(3) else None)
        bounds, i = (low, high), count.end()
    else:
        return _NO_QUANTIFIER, i
    if i < n and branch[i] in "?+":
        return None
    return bounds, i


def _overlap(first: frozenset[str], second: frozenset[str]) -> bool:
    if first & second:
        return True
    spaces = [s for s in (first, second) if _WHITESPACE in s]
    if not spaces:
        return False
    other = second if _WHITESPACE in first else first
    return any(c != _WHITESPACE and (c.isspace() or re.match(r"\s", c) is not None) for c in other)


def _atom_source(chars: frozenset[str]) -> str:
    if len(chars) == 1:
        (char,) = chars
        return r"\s" if char == _WHITESPACE else re.escape(char)
    return "[" + "".join(r"\s" if c == _WHITESPACE else re.escape(c) for c in sorted(chars)) + "]"


Atoms = list[tuple[frozenset[str], tuple[int, int | None]]]


@lru_cache(maxsize=1024)
def _locator_atoms(pattern: str) -> tuple[tuple[frozenset[str], tuple[int, int | None]], ...] | None:
    """The pattern's leading run of simple atoms (characters lower-cased, ``\\s`` as
    ``_WHITESPACE``) with their quantifiers; ``None`` when the pattern is not read here."""
    if entangled(pattern) or "(?" in pattern.replace("(?:", ""):
        return None  # inline flags, look-arounds, named groups: not read here
    branches = _branches(pattern)
    if branches is None or len(branches) != 1:
        return None
    branch = branches[0]
    atoms: Atoms = []
    i, n = 0, len(branch)
    while i < n:
        c = branch[i]
        chars: frozenset[str] | None = None
        step = 1
        if c == "\\":
            if i + 1 >= n:
                break
            nxt = branch[i + 1]
            if nxt == "s":
                chars = frozenset({_WHITESPACE})
            elif not nxt.isalnum() and nxt != "_" and _usable(nxt, True):  # "\Ⓐ" is cased
                chars = frozenset({nxt})
            step = 2
        elif c == "[":
            end = _skip_class(branch, i)
            if end is not None:
                chars = _class_chars(branch, i, end)
                step = end - i
        elif c not in _META and _usable(c, True):
            chars = frozenset({c.lower()})
        if chars is None:
            break
        quantified = _quantifier(branch, i + step)
        if quantified is None:
            break
        bounds, i = quantified
        atoms.append((chars, bounds))
    return tuple(atoms)


#: What :func:`project` leaves of a whitespace character: itself (ASCII) or ``?`` (any other).
_PROJECTED_SPACE: Final = frozenset("\t\n\x0b\x0c\r ?")


def _projected(chars: frozenset[str]) -> frozenset[str]:
    out: set[str] = set()
    for c in chars:
        if c == _WHITESPACE:
            out |= _PROJECTED_SPACE
        else:
            out.add(c if c.isascii() else "?")
    return frozenset(out)


def _render(atoms: Atoms, projected: bool) -> str | None:
    """The locator source for ``atoms``: over :func:`fold`-ed text, or over :func:`project`-ed
    text (non-ASCII characters read as ``?``).

    Linear time: a quantified atom never holds the first character, and is followed by an atom
    disjoint from it (giving back a character never lets the next atom match, so each give-back
    fails at once) or else by one single atom that ends the locator (each give-back costs one
    comparison).  So the work at a start is the length of its runs, and runs from different
    starts do not overlap beyond the locator's fixed characters.  Where neither holds the
    locator ends, keeping the atom's required minimum.
    """
    if projected:
        atoms = [(_projected(chars), bounds) for chars, bounds in atoms]
    if not atoms or atoms[0][1] != _NO_QUANTIFIER or len(atoms[0][0]) != 1:
        return None
    first = atoms[0][0]
    if _WHITESPACE in first or (projected and "?" in first):
        return None  # no fast prefix to search for
    kept: list[str] = []
    for index, (chars, bounds) in enumerate(atoms):
        if bounds == _NO_QUANTIFIER:
            kept.append(_atom_source(chars))
            continue
        low, high = bounds
        count = {(0, 1): "?", (0, None): "*", (1, None): "+"}.get(bounds)
        if count is None:
            count = f"{{{low},{'' if high is None else high}}}"
        following = atoms[index + 1] if index + 1 < len(atoms) else None
        if following is not None and not _overlap(chars, first):
            if not _overlap(chars, following[0]):
                kept.append(_atom_source(chars) + count)
                continue
            if following[1] == _NO_QUANTIFIER:  # the last two atoms: one comparison a give-back
                kept.append(_atom_source(chars) + count + _atom_source(following[0]))
                break
        if low:  # at least ``low`` of them follow in any match: "answer\\s+(?:is|…)" → answer\\s
            kept.append(_atom_source(chars) + (f"{{{low}}}" if low > 1 else ""))
        break
    return "".join(kept)


@lru_cache(maxsize=1024)
def locator_source(pattern: str) -> str | None:
    r"""A stdlib :mod:`re` pattern over :func:`fold`-ed text that matches wherever ``pattern``
    (``regex``, IGNORECASE) can start a match — a superset — or ``None`` when none is known.

    It is the pattern's leading run of simple atoms: literal characters (ASCII or uncased,
    lower-cased), ``\s`` and small classes of non-letters, each once or quantified; it stops
    before the first group, anchor, letter class or anything else, and drops a quantified atom
    it cannot follow.  It starts with a literal character (the engine's fast prefix search), and
    every quantified atom's characters are disjoint from the next atom's and from that first
    character, so it never backtracks more than once per atom: linear time without a timeout.
    Patterns with one top-level alternative only, and no inline flags or group references.

    >>> locator_source(r"final\s+answer\s*(?:is|[:：])"), locator_source(r"answer\s*[:：]")
    ('final\\s+answer', 'answer\\s*[:：]')
    >>> locator_source(r"\*\*\s*Answer\s*\*\*"), locator_source(r"^[ \t]*answer") is None
    ('\\*\\*\\s*answer\\s*\\*\\*', True)
    >>> locator_source(r"a\s*\s*b"), locator_source(r"answer\s+(?:is|be)"), locator_source(r"(?:x|y)z") is None
    ('a', 'answer\\s', True)
    """
    atoms = _locator_atoms(pattern)
    return None if atoms is None else _render(list(atoms), projected=False)


@lru_cache(maxsize=1024)
def projected_locator_source(pattern: str) -> bytes | None:
    r""":func:`locator_source` over :func:`project`-ed text (bytes; ``?`` for any non-ASCII
    character, whitespace or not), or ``None`` when it has no ASCII letter to look for (run
    :func:`locator_source` over the text itself then: its characters are uncased).

    >>> projected_locator_source(r"answer\s*[:：]"), projected_locator_source(r"答案\s*是") is None
    (b'answer[\\\t\\\n\\\x0b\\\x0c\\\r\\ \\?]*[:\\?]', True)
    """
    atoms = _locator_atoms(pattern)
    if atoms is None or not any(c.isascii() and c.isalpha() for chars, _ in atoms for c in chars if c != _WHITESPACE):
        return None
    source = _render(list(atoms), projected=True)
    return None if source is None else source.encode("ascii")


def project(text: str) -> bytes:
    """``text`` folded as :func:`fold` folds it, ASCII only: every other character is ``?``
    (one byte a character, so positions are the text's).  Where :func:`fold` gives an ASCII
    character, this gives the same one; faster to build, and searched like the folded text for
    literals of ASCII characters.

    >>> project("FİNAL Answer：42 ſ")
    b'final answer?42 s'
    """
    if not text.isascii() and _has_special(text):
        text = text.translate(_SPECIAL_FOLD)
    return text.encode("ascii", "replace").lower()


@lru_cache(maxsize=1024)
def text_locator_source(pattern: str) -> str | bytes | None:
    r"""The locator to run over a text rather than its :func:`fold`: :func:`projected_locator_source`
    (bytes, over :func:`project`) when it has an ASCII letter, else :func:`locator_source` (str,
    over the text itself: uncased characters and whitespace, which folding leaves alone).

    >>> text_locator_source(r"Answer\s*:"), text_locator_source(r"答案\s*是")
    (b'answer[\\\t\\\n\\\x0b\\\x0c\\\r\\ \\?]*:', '答案\\s*是')
    """
    atoms = _locator_atoms(pattern)
    if atoms is None:
        return None
    if any(c.isascii() and c.isalpha() for chars, _ in atoms for c in chars if c != _WHITESPACE):
        return projected_locator_source(pattern)
    return locator_source(pattern)


@lru_cache(maxsize=1024)
def alternative_locators(pattern: str) -> tuple[bytes, ...] | tuple[str, ...] | None:
    r"""For a pattern that opens with a group of literal alternatives, ``(?:correct|right|best)\s+
    option``, which has no :func:`text_locator_source` of its own: each alternative's locator
    (``correct\s+option``, ``right\s+option`` …), all over :func:`project`-ed text when every one
    has an ASCII letter, all over the text itself when none has; else ``None``.

    A match of the pattern is a match of one alternative followed by the rest, so it starts where
    that alternative's locator hits.  Each locator is linear time (:func:`locator_source`) and
    opens with a literal the stdlib engine looks for in a tight loop; the ``regex`` engine finds
    no literal prefix in such a pattern under IGNORECASE and tries it at every place.

    >>> [s[:5] for s in alternative_locators(r"(?:correct|best)\s+(?:option|choice)")]
    [b'corre', b'best[']
    >>> alternative_locators(r"(?:故|所以)选(?:择)?"), alternative_locators(r"(?:故|so)选") is None
    (('故选', '所以选'), True)
    """
    if entangled(pattern) or "(?" in pattern.replace("(?:", ""):
        return None  # inline flags, look-arounds, named groups: not read here
    branches = _branches(pattern)
    if branches is None or len(branches) != 1 or not branches[0].startswith("(?:"):
        return None
    branch = branches[0]
    end = _skip_group(branch, 0)
    if end is None or (end < len(branch) and branch[end] in "?*+{"):
        return None  # the group is optional or repeated: its alternatives need not start a match
    inner = _branches(branch[3 : end - 1])
    if inner is None or len(inner) < 2:
        return None
    sources: list[str | bytes] = []
    for alternative in inner:
        if _leading_run(alternative) != alternative.replace("\\", ""):
            return None  # only plain literals, each standing once
        source = text_locator_source(alternative + branch[end:])
        if source is None:
            return None
        sources.append(source)
    projected = tuple(s for s in sources if isinstance(s, bytes))
    if len(projected) == len(sources):
        return projected
    raw = tuple(s for s in sources if isinstance(s, str))
    if len(raw) == len(sources):
        return raw
    return None  # some over the projection, some over the text: no one haystack for all


def alternatives_text_locator(pattern: str) -> str | bytes | None:
    r"""The alternation of :func:`alternative_locators` (one pattern for callers that take one):
    it hits wherever one of them does.

    >>> alternatives_text_locator(r"(?:故|所以)选(?:择)?"), alternatives_text_locator(r"answer:") is None
    ('(?:故选|所以选)', True)
    """
    sources = alternative_locators(pattern)
    if sources is None:
        return None
    projected = [s for s in sources if isinstance(s, bytes)]
    if projected:
        return b"(?:" + b"|".join(projected) + b")"
    return "(?:" + "|".join(s for s in sources if isinstance(s, str)) + ")"


#: English letter frequencies (per cent; the usual table for prose).  A locator's literal search
#: loops over its first character: starting it at a rarer letter of the key stops less often.
_LETTER_FREQUENCY: Final = {
    "e": 12.7, "t": 9.1, "a": 8.2, "o": 7.5, "i": 7.0, "n": 6.7, "s": 6.3, "h": 6.1, "r": 6.0,
    "d": 4.3, "l": 4.0, "c": 2.8, "u": 2.8, "m": 2.4, "w": 2.4, "f": 2.2, "g": 2.0, "y": 2.0,
    "p": 1.9, "b": 1.5, "v": 1.0, "k": 0.8, "j": 0.15, "x": 0.15, "q": 0.1, "z": 0.07,
}


@lru_cache(maxsize=1024)
def anchored_text_locator(pattern: str) -> tuple[str | bytes, int] | None:
    r""":func:`text_locator_source` searched from the rarest letter of its key: ``(source, shift)``
    where ``source`` matches at ``at + shift`` exactly where the locator matches at ``at``.

    The key's first ``shift`` characters move into a look-behind (fixed width; it may look before
    the search's start), so the stdlib engine's prefix loop stops at ``w`` rather than at every
    ``a`` for ``answer``.  Still linear: no quantified atom after the key can hold the new first
    character, so runs from different hits never overlap.  ``shift`` is 0 (the locator itself)
    when the key starts with its rarest letter or with a non-letter, or for a locator over the
    text itself (no ASCII letter: no frequencies known).

    >>> anchored_text_locator(r"answer\s*[:：]")[0][:14], anchored_text_locator(r"answer\s*[:：]")[1]
    (b'wer(?<=answer)', 3)
    >>> anchored_text_locator(r"final\s+answer")[1], anchored_text_locator(r"\*\*\s*answer")[1]
    (0, 0)
    """
    source = text_locator_source(pattern)
    key = locator_literal(pattern)
    atoms = _locator_atoms(pattern)
    if source is None or key is None or atoms is None or not isinstance(source, bytes):
        return None if source is None else (source, 0)
    first = _LETTER_FREQUENCY.get(key[0])
    if first is None:
        return source, 0  # a punctuation mark or digit: rare enough
    shift = min(range(len(key)), key=lambda i: (_LETTER_FREQUENCY.get(key[i], first), i))
    if shift == 0:
        return source, 0
    prefix = "".join(_atom_source(_projected(frozenset(c))) for c in key).encode("ascii")
    later = set().union(*(_projected(chars) for chars, _ in atoms[len(key) :]))
    if not source.startswith(prefix) or key[shift] in later:
        return source, 0  # not rendered as read here, or a later run could hold the new start
    head = "".join(_atom_source(_projected(frozenset(c))) for c in key[shift:]).encode("ascii")
    return head + b"(?<=" + prefix + b")" + source[len(prefix) :], shift


def project_literal(literal: str) -> bytes:
    """A folded literal as :func:`project` shows it: ``?`` for each non-ASCII character.

    >>> project_literal("answer：")
    b'answer?'
    """
    return literal.encode("ascii", "replace")



@lru_cache(maxsize=1024)
def locator_literal(pattern: str) -> str | None:
    r"""The literal (folded) that every hit of the pattern's locators starts with: its leading
    characters that stand once each, or ``None``.

    >>> locator_literal(r"Final\s+answer"), locator_literal(r"\*\*\s*答案"), locator_literal(r"^x") is None
    ('final', '**', True)
    """
    atoms = _locator_atoms(pattern)
    literal = ""
    for chars, bounds in atoms or ():
        if bounds != _NO_QUANTIFIER or len(chars) != 1 or _WHITESPACE in chars:
            break
        literal += next(iter(chars))
    return literal or None
