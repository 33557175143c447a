"""The machinery the rule modules share: fixed-point loops over the prose between code fences,
fence screens, the guarded answer-marker patterns and the marker scan (literal screens,
anchors and gates that decide, before any regex runs, where a marker can match).

The rules (``normalize.rules.*``) read as their idea; the loops that make them fence-safe,
idempotent and bounded, and the screens that let most texts skip work, live here.  The wheel
compiles this module with mypyc, as it does the rule modules (see ``hatch_build.py``).
"""

from __future__ import annotations

import bisect
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, AnyStr, Final, cast

import regex

from normalize import status as st
from normalize.errors import RejectText
from normalize.limits._budget import MAX_ROUNDS, check_budget
from normalize.limits._literals import (
    alternative_locators,
    alternatives_text_locator,
    anchored_text_locator,
    entangled,
    leading_literals,
    locator_literal,
    locator_source,
    may_match,
    project_literal,
    required_literals,
    text_locator_source,
)
from normalize.limits._regex import compile_pattern
from normalize.rules._fences import Fence, find_fences, outside_fences

# ---------------------------------------------------------------------------------------------
# prose between fences, to a fixed point


def settle(text: str, step: Callable[[str], str], *, rule_name: str) -> str:
    """Apply ``step`` until the text stops changing; the result is a fixed point of ``step``.

    At most :data:`MAX_ROUNDS` rounds, so the work is O(MAX_ROUNDS · n): emphasis nested more
    than ~15 levels deep on one line, or a text whose every edit opens a new fence, does not
    settle, and the rule rejects the row with status ``error`` (a recorded status, in bounded
    time; earlier versions kept going and took quadratic time on such input).
    """
    for _ in range(MAX_ROUNDS):
        changed = step(text)
        if changed == text:
            return changed
        text = changed
        check_budget()
    raise unsettled()


def unsettled() -> RejectText:
    return RejectText(
        st.ERROR,
        f"did not settle in {MAX_ROUNDS} rounds (emphasis or fences nested deeper than that)",
    )


def fence_free(text: str) -> bool:
    """``not may_have_fences(text)``, screened by one character first (a one-character ``in`` is
    a ``memchr``; a three-character one scans several times slower): no fence can open here."""
    return ("`" not in text or "```" not in text) and ("~" not in text or "~~~" not in text)


def on_prose(
    text: str,
    fn: Callable[[str], str],
    *,
    rule_name: str,
    timeout: float,
    inert: Callable[[str], bool] | None = None,
) -> str:
    """Apply ``fn`` outside fences, repeated until the fence layout and the prose are stable.

    :func:`settle` of ``outside_fences(·, fn)``, with that step written out: on a round whose
    text can hold no fence, ``outside_fences`` is ``fn`` itself (it finds no fence and applies
    ``fn`` to the whole text), so ``fn`` is called directly.  ``inert(t)``, when given, must
    hold only if ``fn`` leaves every substring of ``t`` as it is (``t`` holds no character
    ``fn`` acts on): then the next round would return ``t`` unchanged, and is not run.
    """
    for _ in range(MAX_ROUNDS):
        changed = fn(text) if fence_free(text) else outside_fences(text, fn)
        if changed == text:
            return changed
        if inert is not None and inert(changed):
            return changed  # the confirming round: every segment it would edit is left as it is
        text = changed
        check_budget()
    raise unsettled()


def on_prose_idempotent(text: str, fn: Callable[[str], str], *, rule_name: str, timeout: float) -> str:
    """:func:`on_prose` for an ``fn`` with ``fn(fn(s)) == fn(s)`` for every ``s`` (a character
    table whose replacements hold no mapped character, NFKC).

    When neither the text nor ``fn(text)`` can hold a fence, the second round of
    :func:`on_prose` would be ``fn(fn(text))``, equal to ``fn(text)``: it is not run.  Any
    other text takes :func:`on_prose` from the start.
    """
    if fence_free(text):
        changed = fn(text)
        if changed == text or fence_free(changed):
            return changed
    return on_prose(text, fn, rule_name=rule_name, timeout=timeout)


def on_prose_segments(
    text: str,
    fn: Callable[[str, bool, bool], str],
    *,
    rule_name: str,
    timeout: float,
) -> str:
    """Like :func:`on_prose`, but ``fn(segment, at_start, at_end)`` knows where its segment lies.

    A segment that is not at the start of the text follows a fence (it begins with the line break
    that ends the fence); one that is not at the end precedes a fence (it ends with a line break).
    """

    def once(current: str) -> str:
        if fence_free(current):
            return fn(current, True, True)  # what the loop below does when find_fences is empty
        fences = find_fences(current)
        if not fences:
            return fn(current, True, True)
        parts: list[str] = []
        pos = 0
        for fence in fences:
            if fence.start > pos or pos == 0:
                parts.append(fn(current[pos : fence.start], pos == 0, False))
            parts.append(current[fence.start : fence.end])
            pos = fence.end
        if pos < len(current):
            parts.append(fn(current[pos:], False, True))
        return "".join(parts)

    return settle(text, once, rule_name=rule_name)


# ---------------------------------------------------------------------------------------------
# answer-marker patterns

#: The flags every answer-marker pattern is compiled with.
MARKER_FLAGS: Final = regex.IGNORECASE | regex.MULTILINE


def guarded_source(pattern: str) -> str:
    """``pattern`` that neither starts nor ends inside a Latin word ("reanswer:", "answers").

    Only Latin letters count as word characters here: Chinese has no word boundaries, so
    ``答案是`` still matches inside ``因此答案是``.
    """
    return rf"(?<!\p{{Latin}})(?:{pattern})(?:(?<=\p{{Latin}})(?!\p{{Latin}})|(?<!\p{{Latin}}))"


def guarded(pattern: str) -> regex.Pattern[str]:
    """:func:`guarded_source`, compiled: raises ``ValueError`` naming a pattern that does not compile."""
    return compile_pattern(guarded_source(pattern), MARKER_FLAGS)


# ---------------------------------------------------------------------------------------------
# code fences and the statements written in them

#: How far back before a fence its introducing words are looked for.
INTRO_CHARS: Final = 300


def closed_and_open_fences(text: str) -> list[Fence]:
    # the single characters first: a one-character scan is several times faster than "```"
    if ("`" not in text or "```" not in text) and ("~" not in text or "~~~" not in text):
        return []
    return find_fences(text)


def matches_outside(matches: list[regex.Match[str]], fences: Sequence[Fence]) -> list[regex.Match[str]]:
    """``matches`` that do not start inside one of ``fences`` (ordered, disjoint): a binary
    search per match, O(m log f)."""
    if not matches or not fences:
        return matches
    starts = [f.start for f in fences]
    kept = []
    for m in matches:
        index = bisect.bisect_right(starts, m.start()) - 1
        if index < 0 or m.start() >= fences[index].end:
            kept.append(m)
    return kept


def outside_code(text: str, matches: list[regex.Match[str]]) -> list[regex.Match[str]]:
    """``matches`` that do not start inside a fenced code block: a marker or a box written
    in code (a comment, a string) is not the model stating its answer."""
    if not matches:
        return matches
    return matches_outside(matches, closed_and_open_fences(text))


# ---------------------------------------------------------------------------------------------
# the answer-marker scan: literal screens, anchors and gates before any regex runs

#: Past this many places where a marker's first literals occur, one scan beats a match at each.
_MAX_ANCHORS: Final = 8

#: Cased letters of Latin-1 to Latin Extended-B, Cyrillic and Latin Extended Additional whose
#: case orbit (what ``regex``'s IGNORECASE matches to them) is more than their lower and upper
#: case (Å, ß, İ, ſ, ǅ, Cyrillic в д о с т ъ ѣ with their old variants ᲀ–ᲈ, ẞ …): never a gate.
#: tests/test_formats_languages.py checks it against every code point.
_WIDE_CASE_ORBITS: Final = frozenset(
    "\xc5\xdf\xe5\u0130\u0131\u0149\u017f\u01c4\u01c5\u01c6\u01c7\u01c8\u01c9\u01ca\u01cb\u01cc\u01f0"
    "\u01f1\u01f2\u01f3\u0412\u0414\u041e\u0421\u0422\u042a\u0432\u0434\u043e\u0441\u0442\u044a\u0462"
    "\u0463\u1e60\u1e61\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9b\u1e9e"
)
#: The blocks whose cased letters may gate (see :data:`_WIDE_CASE_ORBITS`).
_GATE_BLOCKS: Final = ((0xC0, 0x250), (0x400, 0x500), (0x1E00, 0x1F00))


def _gate_variants(char: str) -> str | None:
    """``char`` and what IGNORECASE matches to it, when that is known exactly: an uncased
    non-ASCII character alone, a cased one of :data:`_GATE_BLOCKS` with its other case; else
    ``None`` (ASCII, which prose holds anyway, or a letter with a wider case orbit)."""
    if char.isascii():
        return None
    lower, upper = char.lower(), char.upper()
    if lower == upper == char:
        return char
    point = ord(char)
    if char in _WIDE_CASE_ORBITS or not any(a <= point < b for a, b in _GATE_BLOCKS):
        return None
    if len(lower) != 1 or len(upper) != 1:
        return None
    return lower + upper


def _mandatory_chars(items: Any) -> str | None:
    """Characters one of which occurs in every match of the parsed sequence ``items``
    (``re._parser`` nodes), from its first mandatory character that :func:`_gate_variants` knows."""
    for op, av in items:
        name = str(op)
        found: str | None = None
        if name == "LITERAL":
            found = _gate_variants(chr(av))
        elif name == "IN":
            parts = [_gate_variants(chr(v)) if str(o) == "LITERAL" else None for o, v in av]
            found = None if not parts or any(p is None for p in parts) else "".join(dict.fromkeys("".join(p or "" for p in parts)))
        elif name == "SUBPATTERN":
            found = _mandatory_chars(av[-1])
        elif name == "BRANCH":
            options = [_mandatory_chars(branch) for branch in av[1]]
            found = None if any(o is None for o in options) else "".join(dict.fromkeys("".join(o or "" for o in options)))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and av[0] >= 1:
            found = _mandatory_chars(av[2])
        elif name == "ATOMIC_GROUP":
            found = _mandatory_chars(av)
        if found:
            return found
    return None


@lru_cache(maxsize=1024)
def char_gate(pattern: str) -> str | None:
    """Characters one of which occurs in every match of ``pattern`` (matched ignoring case), or
    ``None`` when none is known: a text holding none of them is not searched (a ``memchr`` scan
    each, so the markers of a language whose words are cased letters, Cyrillic ``ответ``, are
    ruled out for a text in another script at that speed).

    >>> char_gate("(?:правильный\\\\s+)?ответ\\\\s*[:：]"), char_gate("答案\\\\s*[:：]"), char_gate("answer:")
    ('еЕ', '答', None)
    """
    try:
        parsed = _sre_parse(pattern)
    except Exception:  # the regex module's own syntax: no gate, never an error
        return None
    return _mandatory_chars(parsed)


def _sre_parse(pattern: str) -> Any:
    try:
        from re import _parser as sre  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_parse as sre
    return sre.parse(pattern)


@dataclass(frozen=True)
class _Plan:
    """How :func:`marker_matches` looks for one marker pattern (derived once per pattern)."""

    pattern: str
    required: tuple[tuple[str, ...], ...] | None  # required_literals: none of them → no match
    anchors: tuple[str, ...] | None  # literals one of which starts every match (see _plan)
    compiled: regex.Pattern[str]
    # what is checked first: the required literals, else the leading ones as alternatives (one
    # of them starts every match); ``None``: nothing known, always scan
    screen: tuple[tuple[str, ...], ...] | None
    locator: re.Pattern[str] | None  # literals.locator_source over folded text: every match starts at a hit
    tangled: bool  # inline flags or group references: scanned as an alternation
    # the same for extract_answer_marker, which folds no text: over project(text) (bytes) or
    # over the text itself (str; no ASCII letter in it)
    projected_locator: re.Pattern[bytes] | None
    raw_locator: re.Pattern[str] | None
    projected_anchors: tuple[bytes, ...] | None
    # the screen, each literal's _prechecks before it, each with how _occurs looks for it
    text_screen: tuple[tuple[tuple[str, int, Any], ...], ...] | None
    # the literal every hit of projected_locator / raw_locator starts with (as screens name it)
    start_key: str | None
    # projected_locator hits this many characters into that literal (anchored_text_locator)
    shift: int
    # for a pattern opening with literal alternatives, each one's locator (the locator above
    # is their alternation), over projected text (bytes) or the text itself (str): see
    # _spread_matches
    spread: tuple[re.Pattern[Any], ...] | None


@lru_cache(maxsize=1024)
def _plan(pattern: str) -> _Plan:
    lead = leading_literals(pattern, True)
    # A pattern that starts with one of several cased literals, (?:correct|right|best)…, is
    # scanned slowly: under IGNORECASE the engine finds no prefix to search for and tries
    # every position.  One literal, or uncased ones (故|所以), the engine searches for itself.
    cased = lead is not None and len(lead) > 1 and any(c.isascii() and c.isalpha() for c in "".join(lead))
    required = required_literals(pattern, True)
    screen = required if required is not None or lead is None else tuple((literal,) for literal in lead)
    screen = _gated(screen, pattern)
    source = locator_source(pattern)
    text_source = text_locator_source(pattern)
    spread = None
    if text_source is None:  # (?:correct|right|best)\s+option, (?:故|所以)选: each alternative's
        text_source = alternatives_text_locator(pattern)
        alternatives = alternative_locators(pattern)
        spread = None if alternatives is None else tuple(re.compile(source) for source in alternatives)
    anchored = anchored_text_locator(pattern)
    if anchored is not None and isinstance(text_source, bytes):  # from its rarest letter
        text_source = anchored[0]
    shift = anchored[1] if anchored is not None else 0
    return _Plan(
        pattern,
        required,
        lead if cased else None,
        guarded(pattern),
        screen,
        None if source is None else re.compile(source),
        entangled(pattern),
        re.compile(text_source) if isinstance(text_source, bytes) else None,
        re.compile(text_source) if isinstance(text_source, str) else None,
        tuple(project_literal(literal) for literal in lead) if lead is not None and cased else None,
        None if screen is None else tuple(_probes(_with_prechecks(branch)) for branch in screen),
        locator_literal(pattern) if text_source is not None else None,
        shift,
        spread,
    )


def _gated(screen: tuple[tuple[str, ...], ...] | None, pattern: str) -> tuple[tuple[str, ...], ...] | None:
    """``screen`` with :func:`char_gate`'s characters in front (one of them occurs in every
    match, so the screen holds exactly when it did and the gate does), when that makes it
    cheaper: the pattern had no screen, or only ASCII-letter literals (a search of the whole
    text each), and no gate character is one ``memchr`` stops at often (:func:`_stops_often`).

    >>> _gated(None, "ответ\\\\s*[:：]"), _gated((("antwort",),), "antwort:")
    ((('е',), ('Е',)), (('antwort',),))
    """
    if screen is not None and not all(c.isascii() for branch in screen for literal in branch for c in literal):
        return screen
    gate = char_gate(pattern)
    if gate is None or any(_gate_stops_often(c) for c in gate):
        return screen
    if screen is None:
        return tuple((c,) for c in gate)
    return tuple((c, *branch) for c in gate for branch in screen)


def _gate_stops_often(char: str) -> bool:
    """:func:`_stops_often`, digits allowed: a gate character is looked for alone, and a text
    holds far fewer digits than letters (Cyrillic а–и have digit low bytes).  In a text of
    one-byte characters (ASCII, Latin-1) a wider character is ruled out without a scan."""
    low = ord(char) & 0xFF
    return 0xFF < ord(char) < 0x10000 and ((chr(low).isascii() and chr(low).isalpha()) or 0x4E <= low <= 0x9F)


def _with_prechecks(branch: tuple[str, ...]) -> tuple[str, ...]:
    """``branch`` with each literal's :func:`_prechecks` characters in front of it (all of them
    occur wherever the literal does, so the alternative holds exactly when it did; each looked
    for once a text, a fast one-character scan first).

    >>> _with_prechecks(("**", "final", "answer")), _with_prechecks(("最终答案",))
    (('*', '**', 'final', 'answer'), ('最', '终', '最终答案'))
    """
    return tuple(dict.fromkeys(key for literal in branch for key in (*_prechecks(literal), literal)))


@lru_cache(maxsize=256)
def _tier_plans(patterns: tuple[str, ...]) -> tuple[tuple[_Plan, ...], bool]:
    return tuple(_plan(p) for p in patterns), any(entangled(p) for p in patterns)


def _first_match(plan: _Plan, text: str, folded: str, pos: int, timeout: float) -> regex.Match[str] | None:
    """The leftmost match of ``plan`` starting at ``pos`` or later (what ``search`` gives)."""
    return _located(plan.compiled, plan.locator, plan.anchors, text, folded, pos, timeout)


def _located(
    compiled: regex.Pattern[str],
    locator: re.Pattern[AnyStr] | None,
    anchors: tuple[AnyStr, ...] | None,
    text: str,
    haystack: AnyStr,
    pos: int,
    timeout: float,
    shift: int = 0,
    end: int = sys.maxsize,
) -> regex.Match[str] | None:
    """The leftmost match of ``compiled`` in ``text[:end]`` at ``pos`` or later (what ``search``
    gives; ``end`` is an ``endpos``: the text is read as if it ended there).

    ``haystack`` is ``text`` folded (or projected, or itself) as ``locator`` and ``anchors``
    expect, position for position.  With a locator, the pattern is matched only where the
    locator hits (every match starts at a hit, so none starts between ``pos`` and the first
    hit; a locator from :func:`anchored_text_locator` hits ``shift`` characters in); with
    anchors, only where one of them occurs; after a few misses, one scan.
    """
    if locator is not None:
        for _ in range(_MAX_ANCHORS):
            hit = locator.search(haystack, pos + shift, end)
            if hit is None:
                return None
            at = hit.start() - shift
            match = compiled.match(text, at, end, timeout=timeout)
            if match is not None:
                return match
            pos = at + 1
        return compiled.search(text, pos, end, timeout=timeout)
    if anchors is None:
        return compiled.search(text, pos, end, timeout=timeout)
    for _ in range(_MAX_ANCHORS):
        at = -1  # the first place where one of the anchors occurs: no match can start before it
        for literal in anchors:
            place = haystack.find(cast(Any, literal), pos, end)  # AnyStr: mypyc's check reads it unbound
            if place >= 0 and (at < 0 or place < at):
                at = place
        if at < 0:
            return None
        match = compiled.match(text, at, end, timeout=timeout)
        if match is not None:
            return match
        pos = at + 1
    return compiled.search(text, pos, end, timeout=timeout)


def marker_matches(patterns: tuple[str, ...], text: str, folded: str, *, timeout: float) -> list[regex.Match[str]]:
    r"""The matches of the guarded alternation of ``patterns`` (``guarded("|".join(...))``, each
    pattern wrapped in a group) in ``text``, exactly as its ``finditer`` gives them; found faster.

    ``folded`` is :func:`normalize.limits._literals.fold` of ``text`` (same length).  A pattern whose
    required literals (or, lacking those, all of its leading literals) are absent cannot match
    and is left out.  The others are searched one by one, each with a literal prefix the engine
    finds fast (or only where its locator hits in ``folded``), and merged: from the current
    position the alternation matches where the leftmost of the patterns' next matches starts,
    with the first pattern (in order) that matches there — the same match, since no pattern's
    match can start before its leftmost one.  A pattern that starts with one of several cased
    literals (``(?:correct|right|best)\s+option``) is tried only where one occurs in ``folded``
    (a handful of places; then a scan).  Patterns with inline flags or group references reach
    each other inside an alternation: those tiers are scanned as one alternation.  Every call
    carries ``timeout`` (pack patterns are user-supplied).
    """
    if timeout <= 0:
        raise ValueError(f"regex timeout must be positive, got {timeout!r}")
    plans, tangled = _tier_plans(patterns)
    if tangled:
        return list(_alternation(patterns).finditer(text, timeout=timeout))
    live = [plan for plan in plans if may_match(plan.screen, folded)]
    if len(live) == 1:
        return _single_matches(live[0], text, folded, timeout)
    found: list[regex.Match[str]] = []
    upcoming = [_first_match(plan, text, folded, 0, timeout) for plan in live]
    pos = 0
    while True:
        best: regex.Match[str] | None = None
        for index, match in enumerate(upcoming):
            if match is not None and match.start() < pos:  # overtaken: search on from pos
                match = upcoming[index] = _first_match(live[index], text, folded, pos, timeout)
            if match is not None and (best is None or match.start() < best.start()):
                best = match  # on a tie the earlier pattern, as the alternation tries it first
        if best is None:
            return found
        if best.end() == best.start():  # an empty match: leave finditer's stepping to finditer
            return list(_alternation(patterns).finditer(text, timeout=timeout))
        found.append(best)
        pos = best.end()


def _single_matches(plan: _Plan, text: str, folded: str, timeout: float) -> list[regex.Match[str]]:
    """:func:`marker_matches` of one untangled pattern: its leftmost match, then on from its end."""
    return _matches_from(plan, plan.locator, plan.anchors, text, folded, timeout)


def _matches_from(
    plan: _Plan,
    locator: re.Pattern[AnyStr] | None,
    anchors: tuple[AnyStr, ...] | None,
    text: str,
    haystack: AnyStr,
    timeout: float,
    pos: int = 0,
    shift: int = 0,
) -> list[regex.Match[str]]:
    """The matches of ``plan`` alone, as ``finditer`` gives them (see :func:`_located`); with a
    locator, ``pos`` may be where its first hit can be at the earliest."""
    found: list[regex.Match[str]] = []
    compiled = plan.compiled
    while True:
        if locator is not None:  # _located, inlined: this runs for every live pattern of a row
            hit = locator.search(haystack, pos + shift)
            if hit is None:
                return found
            at = hit.start() - shift
            match = compiled.match(text, at, timeout=timeout)
            if match is None:
                match = _located(compiled, locator, None, text, haystack, at + 1, timeout, shift)
                if match is None:
                    return found
        else:
            match = _located(compiled, None, anchors, text, haystack, pos, timeout)
            if match is None:
                return found
        pos = match.end()
        if pos == match.start():  # an empty match: leave finditer's stepping to finditer
            return list(_alternation((plan.pattern,)).finditer(text, timeout=timeout))
        found.append(match)


def _spread_matches(
    plan: _Plan, spread: tuple[re.Pattern[Any], ...], text: str, haystack: Any, timeout: float
) -> list[regex.Match[str]]:
    """:func:`_matches_from` for a plan with :attr:`_Plan.spread` locators (``haystack`` is what
    they read: ``project(text)`` for bytes ones, ``text`` for str ones): the pattern is matched
    at the leftmost next hit of any of them, each searched on its own with its literal prefix
    (one alternation of them stops at every place holding one of their first characters).
    Every match starts at a hit of one of them, so trying the hits left to right from the last
    match's end finds what ``finditer`` finds; after a few misses, one scan (as :func:`_located`).
    """
    found: list[regex.Match[str]] = []
    compiled = plan.compiled
    upcoming = [locator.search(haystack) for locator in spread]
    pos = 0
    misses = 0
    while True:
        at = -1
        for index, hit in enumerate(upcoming):
            if hit is not None and hit.start() < pos:  # overtaken: search on from pos
                hit = upcoming[index] = spread[index].search(haystack, pos)
            if hit is not None and (at < 0 or hit.start() < at):
                at = hit.start()
        if at < 0:
            return found
        if misses >= _MAX_ANCHORS:
            match = compiled.search(text, at, timeout=timeout)
        else:
            match = compiled.match(text, at, timeout=timeout)
        if match is None:
            if misses >= _MAX_ANCHORS:
                return found
            misses += 1
            pos = at + 1
            continue
        if match.end() == match.start():  # an empty match: leave finditer's stepping to finditer
            return list(_alternation((plan.pattern,)).finditer(text, timeout=timeout))
        found.append(match)
        pos = match.end()


def _text_matches(
    plan: _Plan, text: str, projected: bytes, timeout: float, start: int = 0
) -> list[regex.Match[str]]:
    """:func:`_single_matches` with no folded text: located over ``projected`` or ``text``
    (with a locator, from ``start`` on: no hit lies before it)."""
    if plan.spread is not None:
        return _spread_matches(plan, plan.spread, text, projected if plan.projected_locator is not None else text, timeout)
    if plan.projected_locator is not None:
        return _matches_from(plan, plan.projected_locator, None, text, projected, timeout, start, plan.shift)
    if plan.raw_locator is not None:
        return _matches_from(plan, plan.raw_locator, None, text, text, timeout, start)
    return _matches_from(plan, None, plan.projected_anchors, text, projected, timeout)


_IN_PROJECTED: Final = 0  # bytes, looked for with ``in`` in the projected text
_IN_TEXT: Final = 1  # str, looked for with ``in`` in the text itself
_SEARCH_TEXT: Final = 2  # a stdlib pattern's prefix search in the text itself


def _probes(branch: tuple[str, ...]) -> tuple[tuple[str, int, Any], ...]:
    """Each literal of ``branch`` beside how :func:`_occurs` looks for it."""
    out: list[tuple[str, int, Any]] = []
    for literal in branch:
        needle, finder = _needle(literal)
        if finder is not None:
            out.append((literal, _SEARCH_TEXT, finder))
        elif needle is not None:
            out.append((literal, _IN_PROJECTED, needle))
        else:
            out.append((literal, _IN_TEXT, literal))
    return tuple(out)


def _occurs(literal: str, text: str, projected: bytes) -> bool:
    """Whether the folded ``literal`` occurs in the folded text: looked for in ``projected`` when
    it has an ASCII letter, else (uncased characters: folding leaves them) in ``text`` itself."""
    needle, finder = _needle(literal)
    if finder is not None:
        return finder.search(text) is not None
    return literal in text if needle is None else needle in projected


@lru_cache(maxsize=1024)
def _needle(literal: str) -> tuple[bytes | None, re.Pattern[str] | None]:
    """How :func:`_occurs` looks for ``literal``: its projected bytes (``None``: no ASCII letter,
    looked for in the text itself), and for a longer one starting with a character that is no
    ASCII letter or digit (``**``, ``答案``), a stdlib pattern: its prefix search skips to that
    rare first character in a tight loop, several times faster than ``in`` then."""
    if any(c.isascii() and c.isalpha() for c in literal):
        return project_literal(literal), None
    first = literal[0]
    if len(literal) > 1 and not (first.isascii() and first.isalnum()):
        return None, re.compile(re.escape(literal))
    return None, None


@lru_cache(maxsize=1024)
def _prechecks(literal: str) -> tuple[str, ...]:
    """Characters of ``literal`` that are looked for alone first (a single character is found
    by a fast ``memchr`` scan; a longer literal is not): those that are no ASCII letter or digit,
    rare in prose, so a literal like ``**`` or ``答案`` is mostly ruled out at that speed.

    Not a character whose ``memchr`` would stop all the time: CPython looks for a character of a
    two-byte string by its low byte, over the string's bytes, so one whose low byte is an ASCII
    letter or digit, or the high byte of a CJK ideograph (0x4E-0x9F), stops at nearly every
    character of a mixed text (正 is 0x6B63: each "c"); the literal's own prefix search, which
    compares whole characters, is cheaper than that.

    >>> _prechecks("**"), _prechecks("最终"), _prechecks("正确"), _prechecks("选")
    (('*',), ('最', '终'), (), ())
    """
    if len(literal) < 2:
        return ()
    return tuple(dict.fromkeys(c for c in literal if not (c.isascii() and c.isalnum()) and not _stops_often(c)))


def _stops_often(char: str) -> bool:
    """Whether a two-byte character's low byte is an ASCII letter or digit or a CJK high byte."""
    low = ord(char) & 0xFF
    return 0xFF < ord(char) < 0x10000 and ((chr(low).isascii() and chr(low).isalnum()) or 0x4E <= low <= 0x9F)


@lru_cache(maxsize=64)
def _tier_markers(tiers: tuple[tuple[str, ...], ...]) -> tuple[tuple[_Plan, ...], ...]:
    """Each tier's patterns' plans, each pattern scanned on its own."""
    return tuple(tuple(_plan(pattern) for pattern in tier) for tier in tiers)


#: Per tier, each plan beside its screen as indices into the distinct literals' probes (``None``:
#: always scanned) and its start_key's index (-1: none).
_Step = tuple[_Plan, tuple[tuple[int, ...], ...] | None, int]


@lru_cache(maxsize=64)
def _screen_program(
    tiers: tuple[tuple[str, ...], ...],
) -> tuple[tuple[tuple[int, Any], ...], tuple[tuple[_Step, ...], ...]]:
    """:func:`_tier_markers` with every distinct screen literal numbered once (how it is looked
    for beside it), so a text keeps where each occurs in a list instead of a dict by literal."""
    index: dict[str, int] = {}
    probes: list[tuple[int, Any]] = []

    def number(literal: str, kind: int, probe: Any) -> int:
        if literal not in index:
            index[literal] = len(probes)
            probes.append((kind, probe))
        return index[literal]

    program = tuple(
        tuple(
            (
                plan,
                None
                if plan.text_screen is None
                else tuple(tuple(number(*probe) for probe in branch) for branch in plan.text_screen),
                -1,
            )
            for plan in tier
        )
        for tier in _tier_markers(tiers)
    )
    # start keys are numbered once every screen literal is (a key no screen names is never looked for)
    program = tuple(
        tuple((plan, screen, index.get(plan.start_key, -1) if plan.start_key else -1) for plan, screen, _ in tier)
        for tier in program
    )
    return tuple(probes), program


@lru_cache(maxsize=256)
def _alternation(patterns: tuple[str, ...]) -> regex.Pattern[str]:
    """One guarded alternation of ``patterns``: one scan of the text for all of them."""
    return guarded("|".join(f"(?:{pattern})" for pattern in patterns))
