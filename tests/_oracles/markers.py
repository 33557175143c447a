"""TEST ORACLE — not imported by the package.

A compact copy of answer-marker scanning as it was at 1c117cc (before the one-screen-per-literal
and locator fast paths), used by the differential property tests in tests/test_fast_paths.py.
It finds matches the slow, general way: every pattern's guarded regex (or a tier's guarded
alternation) scanned with ``finditer`` over the whole text, no literal screens, no locators;
the answer span, justification, retraction and contradiction logic are copied verbatim.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import regex

from normalize import status as st
from normalize.errors import RejectText
from normalize.rules._extract_params import AnswerMarkerParams
from normalize.rules._fences import Fence, find_fences
from normalize.rules._speed import guarded
from normalize.rules.extract_markers import (
    _BLANK_LINE,
    _DECORATION,
    _EMPHASIS_BEFORE,
    _JUSTIFICATION,
    _JUSTIFICATION_AFTER_STOP,
    _NEGATED_ANSWER,
    _SHORT_ANSWER_CHARS,
    _SHORT_ANSWER_WORDS,
    _answer_key,
    _unless_taken_back,
)
from normalize.rules.format import unescape_newlines
from normalize.values._phrases import RETRACTION


def marker_matches(patterns: tuple[str, ...], text: str) -> list[regex.Match[str]]:
    """What ``marker_matches`` is defined as: the guarded alternation's ``finditer``."""
    return list(guarded("|".join(f"(?:{p})" for p in patterns)).finditer(text, timeout=5.0))


def _skip_decoration(text: str, pos: int) -> int:
    found = regex.compile(_DECORATION).match(text, pos)
    return found.end() if found is not None else pos


def _answer_span(text: str, match: regex.Match[str]) -> tuple[int, int]:
    emphasis = regex.compile(_EMPHASIS_BEFORE).search(text, max(0, match.start() - 32), match.start())
    run = emphasis[1] if emphasis is not None else ""
    begin = _skip_decoration(text, match.end())
    if run and text.startswith(run, begin):
        begin = _skip_decoration(text, begin + len(run))
    blank = regex.compile(_BLANK_LINE).search(text, begin)
    end = blank.start() if blank is not None else len(text)
    while end > begin and text[end - 1].isspace():
        end -= 1
    if run and text.endswith(run, begin, end) and text.count(run, begin, end) % 2 == 1:
        end -= len(run)
        while end > begin and text[end - 1].isspace():
            end -= 1
    return begin, end


def _justification_start(text: str, begin: int, end: int, pattern: str = _JUSTIFICATION) -> int:
    found = regex.compile(pattern).search(text, begin, end)
    while found is not None and not text[begin : found.start()].strip(" \t\n*_\"'“”"):
        found = regex.compile(pattern).search(text, found.end(), end)
    if found is None:
        return end
    stop = found.start()
    while stop > begin and text[stop - 1].isspace():
        stop -= 1
    return stop


def _refuse_different_answers(text: str, matches: list[regex.Match[str]]) -> None:
    blanks = [m.start() for m in regex.compile(_BLANK_LINE).finditer(text)]
    answers: list[tuple[int, str]] = []
    for index, match in enumerate(matches):
        begin = _skip_decoration(text, match.end())
        after = bisect.bisect_left(blanks, begin)
        end = blanks[after] if after < len(blanks) else len(text)
        if index + 1 < len(matches):
            following = matches[index + 1].start()
            if following < end:
                if not regex.compile(r"[.!?。！？\n]").search(text, begin, max(begin, following)):
                    continue
                end = following
        end = _justification_start(text, begin, end)
        key = _answer_key(text[begin:end])
        if key and not regex.compile(_NEGATED_ANSWER).match(key):
            answers.append((match.start(), key))
    if len({key for _, key in answers}) < 2:
        return
    last = answers[-1][0]
    mark = None
    for found in regex.compile(RETRACTION).finditer(text, answers[0][0], last):
        mark = found.start()
    if mark is not None:
        answers = [(at, key) for at, key in answers if at > mark]
    distinct: list[str] = []
    for _, key in answers:
        padded = f" {key} "
        if not any(f" {seen} " in padded or padded in f" {seen} " for seen in distinct):
            distinct.append(key)
    if len(distinct) > 1:
        shown = ", ".join(repr(k) for k in distinct[:3])
        raise RejectText(st.CONTRADICTORY, f"the output marks different answers: {shown}")


def matches_outside(matches: list[regex.Match[str]], fences: Sequence[Fence]) -> list[regex.Match[str]]:
    starts = [f.start for f in fences]
    kept = []
    for m in matches:
        index = bisect.bisect_right(starts, m.start()) - 1
        if index < 0 or m.start() >= fences[index].end:
            kept.append(m)
    return kept


def extract_answer_marker(text: str, params: AnswerMarkerParams) -> str:
    """``extract_answer_marker`` as at 1c117cc, every pattern scanned in full."""
    original = text
    if params.unescape and "\\" in text:
        text = unescape_newlines(text)
    for tier in params.tiers:
        matches: list[regex.Match[str]] = []
        for pattern in tier:
            matches.extend(marker_matches((pattern,), text))
        if not matches:
            continue
        matches = matches_outside(matches, find_fences(text))
        matches.sort(key=lambda m: (m.end(), m.start()))
        if params.conflict == "contradictory" and len(matches) > 1:
            _refuse_different_answers(text, matches)
        for index in range(len(matches) - 1, -1, -1):
            begin, end = _answer_span(text, matches[index])
            if begin == end:
                continue
            kept = _unless_taken_back(text, begin, end) if params.conflict == "contradictory" else end
            if params.justification == "cut":
                end = _justification_start(text, begin, end)
            end = min(end, kept)
            if params.conflict == "keep" and regex.compile(RETRACTION).search(text, end):
                end = len(text)
            if params.conflict == "keep" and index > 0:
                return text[min(m.start() for m in matches[: index + 1]) : end].strip()
            if params.include_marker:
                return text[matches[index].start() : end].strip()
            return text[begin:end]
    if params.justification == "cut":
        end = _justification_start(text, 0, len(text), pattern=_JUSTIFICATION_AFTER_STOP)
        head = text[:end]
        if end < len(text) and len(head.split()) <= _SHORT_ANSWER_WORDS and len(head) <= _SHORT_ANSWER_CHARS:
            return head.strip()
    return original
