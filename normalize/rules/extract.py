r"""Stage 1, extract: cut the part of a raw output that is to be scored out of everything else.

Extraction runs first, on the output as close to raw as possible, and over-captures rather
than cuts off: a tail that later stages can clean is better than a lost answer.

* :func:`remove_think_blocks` drops ``<think>`` reasoning;
* :func:`extract_answer_marker` keeps what follows "the answer is" / "答案是" (tiers of markers
  that come from the pack's language overlays, ``rules/languages/*.yaml``);
* :func:`extract_boxed` keeps the content of the last ``\boxed{…}``;
* :func:`split_on_separator` keeps what follows the last ``####`` / ``最终输出:``;
* :func:`extract_json_block` keeps the first balanced JSON object or array;
* :func:`extract_code_block` keeps one fenced code block, byte for byte;
* :func:`extract_regex` keeps a capture group of a pattern the pack supplies (data only).

Every rule returns its input unchanged when there is nothing to extract.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, AnyStr, Final, cast

import regex

from normalize import status as st
from normalize._budget import check_budget
from normalize._literals import (
    anchored_text_locator,
    entangled,
    fold,
    leading_literals,
    locator_literal,
    locator_source,
    may_match,
    project,
    project_literal,
    required_literals,
    text_locator_source,
)
from normalize._phrases import RETRACTION, may_retract
from normalize._regex import char_finder, compile_pattern
from normalize.errors import RejectText
from normalize.registry import (
    ALL_TYPES,
    DEFAULT_TIMEOUT,
    AnnotatedText,
    NoParams,
    StrTiers,
    rule,
)
from normalize.rules._extract_params import (
    EXTRACT_FORMAT_KINDS,
    FORMAT_KINDS,
)
from normalize.rules._extract_params import (
    AnswerFormat as AnswerFormat,
)
from normalize.rules._extract_params import (
    AnswerFormatParams as AnswerFormatParams,
)
from normalize.rules._extract_params import (
    AnswerMarkerParams as AnswerMarkerParams,
)
from normalize.rules._extract_params import (
    BoxedParams as BoxedParams,
)
from normalize.rules._extract_params import (
    CodeBlockParams as CodeBlockParams,
)
from normalize.rules._extract_params import (
    ExtractRegexParams as ExtractRegexParams,
)
from normalize.rules._extract_params import (
    JsonBlockParams as JsonBlockParams,
)
from normalize.rules._extract_params import (
    RegexFlag as RegexFlag,
)
from normalize.rules._extract_params import (
    SeparatorParams as SeparatorParams,
)
from normalize.rules._fences import Fence, FenceTuple, find_fences, iter_fences
from normalize.rules.format import _fence_free, unescape_newlines

_NO_PARAMS: Final = NoParams()

Tiers = StrTiers


# --------------------------------------------------------------------------- think blocks

_THINK_TAG = r"<\s*(?P<close>/?)\s*think(?:ing)?\s*>"
#: :data:`_THINK_TAG` as the ``regex`` module reads it (case-insensitively), spelt out for the
#: standard library's ``re``: ``\s`` is the ``regex`` module's whitespace (the stdlib's adds
#: ``\x1c-\x1f``), each letter the characters it matches ignoring case (``i`` also ``İ``, ``k``
#: also the Kelvin sign).  A test checks both against every code point; the standard library
#: finds tags and reads their groups several times faster.
_WS: Final = "\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
_THINK_TAG_STDLIB: Final = re.compile(
    rf"<[{_WS}]*(?P<close>/?)[{_WS}]*[tT][hH][iI\u0130][nN][kK\u212a](?:[iI\u0130][nN][gG])?[{_WS}]*>"
)


#: The reason an output that is all unfinished reasoning gets (status ``no_answer``); the report
#: counts the rows whose reason starts with it.
TRUNCATED_REASONING: Final = "truncated_reasoning"


@rule("remove_think_blocks", version=2, scope=ALL_TYPES)
def remove_think_blocks(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Remove ``<think>…</think>`` reasoning (also ``<thinking>``), however it was cut short.

    A closed block is removed, however many there are; an unterminated ``<think>`` drops
    everything from the tag on (the model ran out of tokens while reasoning), and when nothing
    is left outside the reasoning the output is ``no_answer`` with the reason
    ``truncated_reasoning`` (never an answer read out of unfinished thoughts); a ``</think>`` with no opener drops
    everything up to and including it (chat templates that inject the opening tag).  Tags
    are matched case-insensitively.  Outside reasoning, tags inside a closed fenced code block
    are code and stay; inside reasoning, fences are ignored and the first closer ends it.  The
    whitespace where two kept pieces join becomes one separator (none, a space, a newline
    or a blank line, whichever the removed whitespace held).

    Bound: O(n): one tag scan, one fence scan, a bisect per tag.

    >>> remove_think_blocks("<think>\\n2+2 is 4\\n</think>\\n\\nThe answer is 4.")
    'The answer is 4.'
    >>> remove_think_blocks("First, 2+2 ... hmm</think>The answer is 4.")
    'The answer is 4.'
    >>> remove_think_blocks("Answer: 4 <THINKING>let me double-check")
    'Answer: 4'
    >>> remove_think_blocks("<think>a</think>x <think>b</think> y")
    'x y'
    >>> remove_think_blocks("<think>so the answer is 4, but let me check")
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: no_answer: truncated_reasoning: the output ends inside an unclosed <think> block and states nothing outside it (the token budget ran out while reasoning)
    >>> remove_think_blocks("no reasoning here ")
    'no reasoning here '
    """
    if "<" not in text:
        return text  # every tag starts with "<"
    tags = list(_THINK_TAG_STDLIB.finditer(text))
    if not tags:
        return text
    fences = [] if _fence_free(text) else [fence for fence in find_fences(text) if fence.closed]
    starts = [fence.start for fence in fences]
    kept: list[tuple[int, int]] = []  # spans of text outside every block
    pos = 0  # where the current stretch of kept text began
    inside = False
    found = False
    for match in tags:
        if fences and not inside and _in_code(match.start(), pos, fences, starts):
            continue
        found = True
        if match["close"]:
            if not inside:  # a closer with no opener: what came before it was reasoning
                kept = []
            inside = False
            pos = match.end()
        elif not inside:
            kept.append((pos, match.start()))
            inside = True
    if not found:
        return text
    if not inside:
        kept.append((pos, len(text)))
    elif not any(text[start:end].strip() for start, end in kept):
        raise RejectText(
            st.NO_ANSWER,
            f"{TRUNCATED_REASONING}: the output ends inside an unclosed <think> block and states nothing "
            "outside it (the token budget ran out while reasoning)",
        )
    return _join_stripped(text, kept)


def _in_code(position: int, floor: int, fences: Sequence[Fence], starts: Sequence[int]) -> bool:
    """Whether ``position`` lies in a closed fence that opened at or after ``floor``.

    ``fences`` are ordered and disjoint, ``starts`` their starts.  Fences that opened inside
    reasoning do not count: fences there are often unbalanced, and pair up wrongly.
    """
    index = bisect.bisect_right(starts, position) - 1
    return index >= 0 and fences[index].start >= floor and position < fences[index].end


def _join_stripped(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """Join the kept spans, collapsing the whitespace at each place where a block was cut."""
    out: list[str] = []
    pending = ""  # whitespace removed where the current join is
    for start, end in spans:
        piece = text[start:end]
        core = piece.lstrip() if start > 0 else piece
        pending += piece[: len(piece) - len(core)]
        tail = ""
        if end < len(text):
            stripped = core.rstrip()
            tail = core[len(stripped) :]
            core = stripped
        if core:
            if out:
                out.append(_separator(pending))
            out.append(core)
            pending = ""
        pending += tail
    return "".join(out)


def _separator(whitespace: str) -> str:
    newlines = whitespace.count("\n")
    if newlines >= 2:
        return "\n\n"
    if newlines == 1:
        return "\n"
    return " " if whitespace else ""


# --------------------------------------------------------------------------- answer formats


def resolve_answer_formats(params: AnswerFormatParams, resources: Mapping[str, Any]) -> AnswerFormatParams:
    """Fill empty ``entries`` from ``resources["formats"]``: the named entries, or with ``"*"``
    every ``tags`` and ``header`` entry, ordered by tier then name.  An unknown name, or one
    naming a format of another kind, raises ``ValueError``.

    >>> fmts = {"answer_tags": {"kind": "tags", "tier": 1, "open": "<answer>", "close": "</answer>"}}
    >>> [e.name for e in resolve_answer_formats(AnswerFormatParams(), {"formats": fmts}).entries]
    ['answer_tags']
    """
    if params.entries:
        return params
    formats = resources.get("formats", {})
    wanted = list(formats) if "*" in params.formats else list(params.formats)
    entries: list[AnswerFormat] = []
    for name in wanted:
        if name not in formats:
            known = ", ".join(sorted(formats)) or "none"
            raise ValueError(f"unknown answer format {name!r} (the pack defines: {known})")
        entry = formats[name]
        if not isinstance(entry, Mapping):
            raise ValueError(f"format {name!r} must be a mapping, got {entry!r}")
        if entry.get("kind") not in FORMAT_KINDS:
            raise ValueError(f"format {name!r}: kind must be one of {FORMAT_KINDS}, got {entry.get('kind')!r}")
        if entry.get("kind") not in EXTRACT_FORMAT_KINDS:
            if "*" in params.formats:
                continue  # a verdict shape: the judge parser's
            raise ValueError(f"format {name!r} is of kind {entry.get('kind')!r}, not one of {EXTRACT_FORMAT_KINDS}")
        fields = {key: value for key, value in entry.items() if key in ("kind", "tier", "open", "close", "ends")}
        entries.append(AnswerFormat.model_validate({"name": name, **fields}, strict=False))
    entries.sort(key=lambda e: (e.tier, e.name))
    return params.model_copy(update={"entries": tuple(entries)})


@lru_cache(maxsize=256)
def _format_gate(pattern: str) -> str | None:
    """Characters one of which starts every match of ``pattern`` (both cases of a letter), or
    ``None`` when unknown: a text holding none of them is not searched."""
    lead = leading_literals(pattern, True)
    if lead is None or any(not literal for literal in lead):
        return None
    return "".join(dict.fromkeys(c for literal in lead for c in (literal[0].lower(), literal[0].upper())))


def _format_answer(entry: AnswerFormat, text: str, timeout: float) -> tuple[int, str, str] | None:
    """Where the last non-empty answer of ``entry`` in ``text`` opens, the answer, the format's name."""
    gate = _format_gate(entry.open)
    if gate is not None and not any(c in text for c in gate):
        return None
    found: tuple[int, str, str] | None = None
    opener = compile_pattern(entry.open, regex.IGNORECASE)
    if entry.kind == "tags":
        closer = compile_pattern(entry.close, regex.IGNORECASE)
        pos = 0
        while True:
            check_budget()
            match = opener.search(text, pos, timeout=timeout)
            if match is None:
                return found
            close = closer.search(text, match.end(), timeout=timeout)
            end = close.start() if close is not None else len(text)
            answer = text[match.end() : end].strip()
            if answer:
                found = (match.start(), answer, entry.name)
            if close is None:
                return found
            pos = max(close.end(), match.end() + 1)
    enders = [compile_pattern(token, regex.IGNORECASE) for token in entry.ends]
    for match in opener.finditer(text, timeout=timeout):
        check_budget()
        stop = len(text)
        blank = _BLANK_LINE_SEARCH(text, match.end())
        if blank is not None:
            stop = blank.start()
        for ender in enders:
            hit = ender.search(text, match.end(), stop, timeout=timeout)
            if hit is not None:
                stop = hit.start()
        answer = text[match.end() : stop].strip()
        if answer:
            found = (match.start(), answer, entry.name)
    return found


_DEFAULT_FORMATS: Final = AnswerFormatParams()

#: :func:`_formats_gate` of the params seen, by identity (a params object is frozen; hashing
#: its entries at every call would cost more than the search it saves).
_FORMAT_GATES: Final[dict[int, tuple[AnswerFormatParams, str | None]]] = {}


def _formats_gate(params: AnswerFormatParams) -> str | None:
    """Characters one of which starts every opener of ``params``' formats, or ``None``."""
    kept = _FORMAT_GATES.get(id(params))
    if kept is not None and kept[0] is params:
        return kept[1]
    gates = [_format_gate(entry.open) for entry in params.entries]
    gate = None if any(g is None for g in gates) else "".join(dict.fromkeys("".join(g or "" for g in gates)))
    if len(_FORMAT_GATES) >= 256:
        _FORMAT_GATES.clear()
    _FORMAT_GATES[id(params)] = (params, gate)
    return gate


@rule(
    "extract_answer_format",
    version=1,
    scope=("multiple_choice", "math", "extractive_qa", "structured_json"),
    params=AnswerFormatParams,
    idempotent=False,
    resolve=resolve_answer_formats,
)
def extract_answer_format(
    text: str, params: AnswerFormatParams = _DEFAULT_FORMATS, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Keep the answer a named answer format encloses: ``<answer>…</answer>``, a header such as
    ``【答案】 … <eoa>``.  The formats come from the pack's ``formats:`` section.

    The best tier with a non-empty answer wins, and within it the last answer; what is kept is
    the answer as written (later rules read markers and boxes inside it), noted with the
    format's name (``answer_format`` in the result's extra: a stated answer).  No format found, or
    only empty ones → the text unchanged.  Not idempotent: an answer may itself hold a format.

    Bound: O(n) per format pattern (pack patterns carry the regex timeout; skipped when none of the characters that start an opener occurs).

    >>> tags = AnswerFormat(name="answer", kind="tags", tier=1, open="<answer>", close="</answer>")
    >>> head = AnswerFormat(name="ceval", kind="header", tier=2, open="【答案】", ends=("<eoa>",))
    >>> p = AnswerFormatParams(entries=(tags, head))
    >>> extract_answer_format("<think>…</think>\\n<answer> 42 </answer>", p)
    '42'
    >>> extract_answer_format("解析… <eoe>\\n【答案】 C <eoa>", p)
    'C'
    >>> extract_answer_format("no format here", p)
    'no format here'
    """
    if not params.entries:
        raise ValueError(
            "extract_answer_format has no formats: pass entries, or load it from a pack so they are "
            "resolved from its formats: section"
        )
    if timeout <= 0:
        raise ValueError(f"regex timeout must be positive, got {timeout!r}")
    gate = _formats_gate(params)
    if gate is not None:  # most outputs hold no "<" or "【": nothing to look for
        for char in gate:
            if char in text:
                break
        else:
            return text
    best: tuple[int, str, str] | None = None
    entries = sorted(params.entries, key=lambda e: e.tier)
    tier = entries[0].tier
    for entry in entries:
        if entry.tier != tier:
            if best is not None:
                break
            tier = entry.tier
        found = _format_answer(entry, text, timeout)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    if best is None:
        return text
    return AnnotatedText(best[1], answer_format=best[2])


# --------------------------------------------------------------------------- answer markers


_DEFAULT_MARKERS: Final = AnswerMarkerParams()


#: The language every narrowed marker set keeps: prompts ask for ``Answer: X`` in English
#: whatever the question's language, and models answer so (simple-evals' MMMLU, MGSM).
PROMPT_LANGUAGE: Final = "en"


#: In a rule's ``languages``: the row's own language, when the pack defines it.
ROW_LANGUAGE: Final = "lang"


def marker_languages(listed: Sequence[str], resources: Mapping[str, Any]) -> list[str]:
    """The languages whose markers a rule listing ``listed`` uses: ``"lang"`` stands for the
    row's language (when the pack defines it; nothing for a row without one), ``"*"`` for every
    language of the pack with answer markers (en and zh first, then by tag); with
    ``resources["lang"]`` (a row's primary language tag, see :meth:`Pack.chain_for_lang`) only
    that language and English, unless none of those is listed (then all listed ones).

    >>> res = {"languages": {"zh": {"answer_markers": []}, "de": {"answer_markers": []}, "en": {"answer_markers": []}}}
    >>> marker_languages(["*"], res), marker_languages(["*"], {**res, "lang": "de"}), marker_languages(["zh"], {**res, "lang": "de"})
    (['en', 'zh', 'de'], ['en', 'de'], ['zh'])
    >>> marker_languages(["en", "zh", "lang"], res), marker_languages(["en", "zh", "lang"], {**res, "lang": "de"})
    (['en', 'zh'], ['en', 'de'])
    """
    languages = resources.get("languages", {})
    row_lang = resources.get("lang")
    chosen: list[str] = []
    for lang in listed:
        if lang == ROW_LANGUAGE:
            if isinstance(row_lang, str) and row_lang in languages:
                chosen.append(row_lang)
        elif lang == "*":
            marked = [name for name, overlay in languages.items() if isinstance(overlay, Mapping) and "answer_markers" in overlay]
            chosen.extend(sorted(marked, key=lambda name: (name not in ("en", "zh"), name != "en", name)))
        else:
            chosen.append(lang)
    chosen = list(dict.fromkeys(chosen))
    if isinstance(row_lang, str):
        narrowed = [lang for lang in chosen if lang in (PROMPT_LANGUAGE, row_lang)]
        if narrowed:
            return narrowed
    return chosen


def resolve_answer_markers(params: AnswerMarkerParams, resources: Mapping[str, Any]) -> AnswerMarkerParams:
    """Fill empty ``tiers`` from ``resources["languages"][lang]["answer_markers"]``.

    Tier *i* of the result is tier *i* of every listed language (:func:`marker_languages`:
    ``"*"`` is every language, a row's language narrows them).  An
    unknown language, or one without answer markers, raises ``ValueError`` naming it.

    >>> langs = {"en": {"answer_markers": [["final answer:"], ["answer:"]]},
    ...          "zh": {"answer_markers": [["最终答案："], ["答案是"], ["因此"]]}}
    >>> resolve_answer_markers(AnswerMarkerParams(), {"languages": langs}).tiers
    (('final answer:', '最终答案：'), ('answer:', '答案是'), ('因此',))
    """
    if params.tiers:
        return params
    languages = resources.get("languages", {})
    merged: list[list[str]] = []
    for lang in marker_languages(params.languages, resources):
        if lang not in languages:
            known = ", ".join(sorted(languages)) or "none"
            raise ValueError(f"unknown language {lang!r} for answer markers (the pack defines: {known})")
        overlay = languages[lang]
        tiers = overlay.get("answer_markers") if isinstance(overlay, Mapping) else None
        if not isinstance(tiers, list) or not all(
            isinstance(tier, list) and all(isinstance(p, str) for p in tier) for tier in tiers
        ):
            raise ValueError(
                f"language {lang!r} needs answer_markers: a list of tiers, each a list of regex strings"
            )
        for index, tier in enumerate(tiers):
            if index == len(merged):
                merged.append([])
            merged[index].extend(tier)
    if not any(merged):
        raise ValueError(f"no answer markers for languages {list(params.languages)!r}")
    restated: list[str] = []
    letters: list[tuple[str, ...]] = []
    if params.restate:
        for lang in marker_languages(params.languages, resources):
            overlay = languages[lang]
            if overlay.get("parser_reads") is True:
                continue
            restated.extend(p for tier in overlay["answer_markers"] for p in tier)
            native = overlay.get("option_letters")
            if native is not None:
                if not isinstance(native, list) or not all(isinstance(x, str) and x for x in native):
                    raise ValueError(f"language {lang!r}: option_letters must be a list of letters")
                letters.append(tuple(native))
    # validated again (not model_copy): the resolved patterns must compile
    return AnswerMarkerParams.model_validate(
        {
            **params.model_dump(),
            "tiers": tuple(tuple(t) for t in merged if t),
            "restated": tuple(dict.fromkeys(restated)),
            "option_letters": tuple(letters),
        }
    )


@lru_cache(maxsize=64)
def _letter_table(option_letters: tuple[tuple[str, ...], ...]) -> tuple[dict[str, str], regex.Pattern[str] | None]:
    """Native option letter → A, B, C …; a letter two languages read differently is left out."""
    table: dict[str, str] = {}
    clashes: set[str] = set()
    for letters in option_letters:
        for index, letter in enumerate(letters[:26]):
            latin = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[index]
            if table.get(letter, latin) != latin:
                clashes.add(letter)
            table[letter] = latin
    for letter in clashes:
        del table[letter]
    if not table:
        return table, None
    alternatives = "|".join(regex.escape(k) for k in sorted(table, key=len, reverse=True))
    # the letter alone: brackets or blanks before it, and after it the end of the statement (a
    # full stop, a bracket, the line end): "Ответ: В данном случае" starts a sentence with В
    return table, regex.compile(
        rf"[ \t:：*_]*[(\[（【]?[ \t]*({alternatives})(?![\w\u0640])"
        r"(?=[ \t]*(?:$|[\n.,;:!?)\]）】。，；：！？、*_]))"
    )


def _restate(text: str, begin: int, end: int, matches: Sequence[regex.Match[str]], params: AnswerMarkerParams) -> str:
    """``text[begin:end]`` with each restated marker in it written as ``params.restate``, and a
    native option letter right after one as its Latin letter (``الإجابة: ب`` → ``Answer: B``)."""
    table, letter = _letter_table(params.option_letters)
    out: list[str] = []
    pos = begin
    for match in sorted(matches, key=lambda m: m.start()):
        if match.start() < pos or match.end() > end or match.re.pattern not in _restated_sources(params.restated):
            continue
        out.append(text[pos : match.start()])
        out.append(params.restate)
        pos = match.end()
        _refuse_several_letters(text, pos, end, table, match[0])
        found = letter.match(text, pos, end) if letter is not None else None
        if found is not None:
            out.append(" " + table[found[1]])
            pos = found.end()
        elif pos < end and not text[pos].isspace():
            out.append(" ")
    out.append(text[pos:end])
    return "".join(out).strip()


def _refuse_several_letters(text: str, pos: int, end: int, table: Mapping[str, str], marker: str) -> None:
    """Raise ``contradictory`` when the rest of a restated marker's line names two different
    options (``Jawaban: B atau C``, ``Ответ: Б или В``): the parser knows no conjunction of that
    language, so it would read only the first."""
    stop = text.find("\n", pos, end)
    line = text[pos : stop if stop >= 0 else end]
    named = {table.get(m[0], m[0]) for m in _LONE_LETTER.finditer(line) if m[0] in table or m[0].isascii()}
    if len(named) > 1:
        shown = ", ".join(sorted(named))
        raise RejectText(st.CONTRADICTORY, f"the statement after {marker.strip()!r} names several options: {shown}")


#: A letter standing alone (no letter, digit or tatweel joined to it): a possible option letter.
#: A Latin capital counts beside CJK (``BまたはC``), which has no spaces between words.
_LONE_LETTER: Final = regex.compile(
    r"(?<![A-Za-z0-9])[A-Z](?![A-Za-z0-9])|(?<![\w\u0640])[^\W\d_A-Za-z]\u0640?(?![\w\u0640])"
)


@lru_cache(maxsize=64)
def _restated_sources(restated: tuple[str, ...]) -> frozenset[str]:
    """The compiled sources (:func:`_guarded_source`) of the restated patterns."""
    return frozenset(source for p in restated for source in (_guarded_source(p), _guarded_source(f"(?:{p})")))


_MARKER_FLAGS: Final = regex.IGNORECASE | regex.MULTILINE
# after the marker: spaces and colons
_DECORATION = r"[\s:：]*"
_BLANK_LINE = r"\n[^\S\n]*\n"
# emphasis opened shortly before the marker on its line: "**Answer: B**", "**The answer is B.**"
_EMPHASIS_BEFORE = r"(\*{1,3}|_{1,3})[^*_\n]{0,24}\Z"


def _guarded_source(pattern: str) -> str:
    """``pattern`` that neither starts nor ends inside a Latin word ("reanswer:", "answers").

    Only Latin letters count as word characters here: Chinese has no word boundaries, so
    ``答案是`` still matches inside ``因此答案是``.
    """
    return rf"(?<!\p{{Latin}})(?:{pattern})(?:(?<=\p{{Latin}})(?!\p{{Latin}})|(?<!\p{{Latin}}))"


def _guarded(pattern: str) -> regex.Pattern[str]:
    """:func:`_guarded_source`, compiled: raises ``ValueError`` naming a pattern that does not compile."""
    return compile_pattern(_guarded_source(pattern), _MARKER_FLAGS)


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
    anchored = anchored_text_locator(pattern)
    if anchored is not None and isinstance(text_source, bytes):  # from its rarest letter
        text_source = anchored[0]
    shift = anchored[1] if anchored is not None else 0
    return _Plan(
        pattern,
        required,
        lead if cased else None,
        _guarded(pattern),
        screen,
        None if source is None else re.compile(source),
        entangled(pattern),
        re.compile(text_source) if isinstance(text_source, bytes) else None,
        re.compile(text_source) if isinstance(text_source, str) else None,
        tuple(project_literal(literal) for literal in lead) if lead is not None and cased else None,
        None if screen is None else tuple(_probes(_with_prechecks(branch)) for branch in screen),
        locator_literal(pattern) if text_source is not None else None,
        shift,
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
    r"""The matches of the guarded alternation of ``patterns`` (``_guarded("|".join(...))``, each
    pattern wrapped in a group) in ``text``, exactly as its ``finditer`` gives them; found faster.

    ``folded`` is :func:`normalize._literals.fold` of ``text`` (same length).  A pattern whose
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


def _text_matches(
    plan: _Plan, text: str, projected: bytes, timeout: float, start: int = 0
) -> list[regex.Match[str]]:
    """:func:`_single_matches` with no folded text: located over ``projected`` or ``text``
    (with a locator, from ``start`` on: no hit lies before it)."""
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
    return _guarded("|".join(f"(?:{pattern})" for pattern in patterns))


@rule(
    "extract_answer_marker",
    version=2,
    scope=("multiple_choice", "math", "extractive_qa"),
    params=AnswerMarkerParams,
    idempotent=False,
    resolve=resolve_answer_markers,
)
def extract_answer_marker(
    text: str, params: AnswerMarkerParams = _DEFAULT_MARKERS, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Keep what follows the last answer marker of the best tier that has one.

    The first tier with any match wins, and within it the last match.  What is kept runs
    from the marker (and any ``:``, ``**`` after it) to the first blank line or the end of
    the text: over-capture rather than cut an answer off.  Matching ignores case; a marker
    never starts or ends inside a Latin word.  No marker → the text unchanged.  The tiers
    come from the pack's language overlays; with none (params never resolved) this raises
    ``ValueError``.  Not idempotent: a weaker marker may remain in what is kept.

    Bound: O(n) per marker pattern (pack patterns carry the regex timeout; skipped by a substring check when their literals are absent, tried only where their linear-time locator hits); fences found once, a bisect per match.

    >>> p = AnswerMarkerParams(tiers=(("final answer:",), ("the answer is", "答案是"), ("therefore,?",)))
    >>> extract_answer_marker("So x = 2. Therefore, the answer is (B).\\n\\nDone.", p)
    '(B).'
    >>> extract_answer_marker("**Final Answer:** 42", p)
    '42'
    >>> extract_answer_marker("因此答案是 42", p)
    '42'
    >>> extract_answer_marker("All the answers are here.", p)
    'All the answers are here.'
    >>> extract_answer_marker("Hmm. The answer is A or B.", p.model_copy(update={"include_marker": True}))
    'The answer is A or B.'
    """
    if not params.tiers:
        raise ValueError(
            "extract_answer_marker has no marker tiers: pass tiers, or load it from a pack so "
            "they are resolved from the language overlays"
        )
    original = text
    if params.unescape and "\\" in text:  # read escapes as the format stage will
        text = unescape_newlines(text, timeout=timeout)
    fences: list[Fence] | None = None
    projected = project(text)  # folded as far as ASCII literals need it: faster than fold
    if timeout <= 0:  # what marker_matches raises, even where every pattern is skipped
        raise ValueError(f"regex timeout must be positive, got {timeout!r}")
    probes, program = _screen_program(params.tiers)
    seen: list[int | None] = [None] * len(probes)  # where each literal first occurs folded, or -1
    for tier in program:
        matches: list[regex.Match[str]] = []
        for plan, screen, key in tier:  # each pattern on its own: their matches may overlap
            if plan.tangled:
                matches.extend(_alternation((plan.pattern,)).finditer(text, timeout=timeout))
                continue
            if screen is not None:  # may_match, each literal looked for once per text
                for branch in screen:
                    for literal in branch:
                        at = seen[literal]
                        if at is None:  # _occurs, inlined: this runs for every literal of a row
                            kind, probe = probes[literal]
                            if kind == _IN_PROJECTED:
                                at = projected.find(probe)
                            elif kind == _IN_TEXT:
                                at = text.find(probe)
                            else:
                                found = probe.search(text)
                                at = -1 if found is None else found.start()
                            seen[literal] = at
                        if at < 0:
                            break
                    else:
                        break  # every literal of this alternative occurs: it may match
                else:
                    continue  # no alternative can match: skip the pattern
            # every locator hit starts with start_key: none before its first place, if looked for
            start = 0 if key < 0 else seen[key] or 0
            if start < 0:
                continue
            # _text_matches, inlined: this runs for every live pattern of a row
            if plan.projected_locator is not None:
                hits = _matches_from(plan, plan.projected_locator, None, text, projected, timeout, start, plan.shift)
            elif plan.raw_locator is not None:
                hits = _matches_from(plan, plan.raw_locator, None, text, text, timeout, start)
            else:
                hits = _matches_from(plan, None, plan.projected_anchors, text, projected, timeout)
            if hits:
                matches.extend(hits)
        if not matches:
            continue
        if fences is None:
            fences = _closed_and_open_fences(text)
        matches = _outside_fences(matches, fences)
        matches.sort(key=lambda m: (m.end(), m.start()))
        if params.conflict == "contradictory" and len(matches) > 1:
            _refuse_different_answers(text, matches, params, timeout=timeout)
        for index in range(len(matches) - 1, -1, -1):
            check_budget()
            begin, end = _answer_span(text, matches[index])
            if begin == end:
                continue
            if params.justification == "cut":
                end = _justification_start(text, begin, end, timeout=timeout)
            # a retraction is never empty: none starts at the end of the text
            if params.conflict == "keep" and end < len(text) and _RETRACTION_SEARCH(text, end):
                end = len(text)  # taken back later ("Wait, that is wrong."): the parser reads on
            if params.conflict == "keep" and index > 0:
                first = min(m.start() for m in matches[: index + 1])
                if params.restated:
                    return _restate(text, first, end, matches[: index + 1], params)
                return text[first:end].strip()
            if params.include_marker:
                if params.restated:
                    return _restate(text, matches[index].start(), end, matches[: index + 1], params)
                return text[matches[index].start() : end].strip()
            return text[begin:end]
    if params.justification == "cut":  # no marker: a short answer and its reason, "No, because …"
        end = _justification_start(text, 0, len(text), timeout=timeout, pattern=_JUSTIFICATION_AFTER_STOP)
        head = text[:end]
        if end < len(text) and len(head.split()) <= _SHORT_ANSWER_WORDS and len(head) <= _SHORT_ANSWER_CHARS:
            return head.strip()
    return original


#: An unmarked output cut before its justification must have a head this short (words, chars).
_SHORT_ANSWER_WORDS: Final = 6
_SHORT_ANSWER_CHARS: Final = 40


#: Where a marked answer's justification starts: "No, because …", "北京，因为…", "Paris. It is …",
#: "Paris\nExplanation: …".  The answer before it must not be empty.
_JUSTIFICATION: Final = (  # each branch starts where a run of blanks starts: linear time
    r"(?<![ \t])(?:"
    r"[ \t]++(?i:because\b)"
    r"|[ \t]*+[,;:，；：—–][ \t]*+(?i:\b(?:because|since|given\s+that|due\s+to|as\s+(?:the|it|this|they|he|she|we))\b)"
    r"|[ \t]*+[,;，；。][ \t]*+(?:因为|由于|原因是|理由是)"
    r"|,[ \t]*+(?i:(?:which|who)\s+(?:is|was|are|were|has|had)\b)"
    r"|[.!?。！？][ \t]++(?i:(?:this|that|it|these|those|because|since|the\s+reason|here)\b)"
    r"|[ \t]*+\n[ \t]*+(?i:(?:explanation|reason(?:ing)?|justification|because|rationale)\b|解释|理由|原因|解析)"
    r")"
)


#: The same, for an output with no marker: only after punctuation ("No, because …").
_JUSTIFICATION_AFTER_STOP: Final = (
    r"(?<![ \t])(?:[ \t]*+[,;:，；：—–][ \t]*+(?i:\b(?:because|since|given\s+that|due\s+to)\b)"
    r"|[ \t]*+[,;，；。][ \t]*+(?:因为|由于|原因是|理由是))"
)


#: What every branch of :data:`_JUSTIFICATION` needs in the answer (folded): "because" (the
#: only branch without punctuation), one of its punctuation marks or a line break, or a full stop
#: followed by a space or tab.  A stdlib scan of a short span, several times cheaper.
_MAY_JUSTIFY: Final = re.compile("[,;:\uff0c\uff1b\uff1a\u2014\u2013\u3002\n]|[.!?\u3002\uff01\uff1f][ \t]|because")


def _justification_start(
    text: str, begin: int, end: int, *, timeout: float, pattern: str = _JUSTIFICATION
) -> int:
    """Where the answer in ``text[begin:end]`` stops before its justification (else ``end``)."""
    if pattern is _JUSTIFICATION and _MAY_JUSTIFY.search(fold(text[begin:end])) is None:
        return end  # none of what every branch needs: no justification starts here
    found = compile_pattern(pattern).search(text, begin, end)
    while found is not None and not text[begin : found.start()].strip(" \t\n*_\"'“”"):
        found = compile_pattern(pattern).search(text, found.end(), end)
    if found is None:
        return end
    stop = found.start()
    while stop > begin and text[stop - 1].isspace():
        stop -= 1
    return stop


#: A marked "answer" that only says what the answer is not: "the answer is not Lyon", "答案不是上海".
_NEGATED_ANSWER: Final = r"(?:not|n't)\b|不是|并非|不"


def _answer_key(answer: str) -> str:
    """What two marked answers are compared on: case, punctuation, markdown and spacing ignored."""
    kept = "".join(c for c in answer.casefold() if c.isalnum() or c.isspace())
    return " ".join(kept.split())


def _refuse_different_answers(
    text: str, matches: list[regex.Match[str]], params: AnswerMarkerParams, *, timeout: float
) -> None:
    """Raise ``contradictory`` when the markers in ``matches`` state different answers.

    Each answer runs from its marker to the next marker (or its paragraph end), justification
    cut; one answer whose words hold another's ("Paris" and "Paris, France") is the same.  A marker whose answer runs into the next marker without a sentence or line end is
    one statement with it ("Answer: the answer is Paris"); a retraction ("Wait, that is
    wrong.") between two answers drops the ones before it.
    """
    blanks = [m.start() for m in compile_pattern(_BLANK_LINE).finditer(text)]
    answers: list[tuple[int, str]] = []
    for index, match in enumerate(matches):
        begin = _skip_decoration(text, match.end())
        after = bisect.bisect_left(blanks, begin)
        end = blanks[after] if after < len(blanks) else len(text)
        if index + 1 < len(matches):
            following = matches[index + 1].start()
            if following < end:
                if not compile_pattern(r"[.!?。！？\n]").search(text, begin, max(begin, following)):
                    continue  # the same statement goes on in the next marker
                end = following
        end = _justification_start(text, begin, end, timeout=timeout)
        key = _answer_key(text[begin:end])
        if key and not compile_pattern(_NEGATED_ANSWER).match(key):
            answers.append((match.start(), key))
    if len({key for _, key in answers}) < 2:
        return
    last = answers[-1][0]
    mark = None
    for found in compile_pattern(RETRACTION).finditer(text, answers[0][0], last):
        mark = found.start()
    if mark is not None:
        answers = [(at, key) for at, key in answers if at > mark]
    distinct: list[str] = []
    for _, key in answers:  # "Paris" and "Paris, France" state the same answer
        padded = f" {key} "
        if not any(f" {seen} " in padded or padded in f" {seen} " for seen in distinct):
            distinct.append(key)
    if len(distinct) > 1:
        shown = ", ".join(repr(k) for k in distinct[:3])
        raise RejectText(st.CONTRADICTORY, f"the output marks different answers: {shown}")


def _closed_and_open_fences(text: str) -> list[Fence]:
    # the single characters first: a one-character scan is several times faster than "```"
    if ("`" not in text or "```" not in text) and ("~" not in text or "~~~" not in text):
        return []
    return find_fences(text)


def _outside_fences(matches: list[regex.Match[str]], fences: Sequence[Fence]) -> list[regex.Match[str]]:
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


def _outside_code(text: str, matches: list[regex.Match[str]]) -> list[regex.Match[str]]:
    """``matches`` that do not start inside a fenced code block: a marker or a box written
    in code (a comment, a string) is not the model stating its answer."""
    if not matches:
        return matches
    return _outside_fences(matches, _closed_and_open_fences(text))


def _skip_decoration(text: str, pos: int) -> int:
    # the pattern matches (maybe empty) at any place: past one that is no space or colon, empty
    # (every character regex's \s matches is a str.isspace one: a test checks every code point)
    if pos < len(text) and (text[pos].isspace() or text[pos] in ":："):
        return _DECORATION_RUN(text, pos).end()  # type: ignore[union-attr]
    return pos


_DECORATION_RUN: Final = compile_pattern(_DECORATION).match
_BLANK_LINE_SEARCH: Final = compile_pattern(_BLANK_LINE).search
_RETRACTION_SEARCH: Final = compile_pattern(RETRACTION).search


def _answer_span(text: str, match: regex.Match[str]) -> tuple[int, int]:
    """Where the answer after ``match`` lies: to the first blank line, stripped, with the
    emphasis that wraps the marker (``**Answer:** B``, ``**Answer: B**``) left out."""
    start = match.start()
    low = max(0, start - 32)
    emphasis = (  # it needs a "*" or "_" just before the marker: mostly there is none
        compile_pattern(_EMPHASIS_BEFORE).search(text, low, start)
        if text.find("*", low, start) >= 0 or text.find("_", low, start) >= 0
        else None
    )
    run = emphasis[1] if emphasis is not None else ""
    begin = _skip_decoration(text, match.end())
    if run and text.startswith(run, begin):  # the marker's own bold closes: **Answer:** B
        begin = _skip_decoration(text, begin + len(run))
    newline = text.find("\n", begin)  # a blank line starts with one: none after begin, no search
    blank = _BLANK_LINE_SEARCH(text, newline) if newline >= 0 else None
    end = blank.start() if blank is not None else len(text)
    while end > begin and text[end - 1].isspace():
        end -= 1
    if run and text.endswith(run, begin, end) and text.count(run, begin, end) % 2 == 1:
        end -= len(run)  # **Answer: B** → B
        while end > begin and text[end - 1].isspace():
            end -= 1
    return begin, end


# --------------------------------------------------------------------------- boxed


_BOX = r"\\(?:boxed|fbox)(?![A-Za-z])"


_DEFAULT_BOXED: Final = BoxedParams()


@rule("extract_boxed", version=1, scope=("math", "multiple_choice"), params=BoxedParams)
def extract_boxed(text: str, params: BoxedParams = _DEFAULT_BOXED, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    r"""Keep the content of the last ``\boxed{…}`` or ``\fbox{…}``, nested braces included.

    Braces are matched with a counter (``\{`` and ``\}`` do not count); ``\boxed 5`` (the
    space form) keeps the token after the space, up to whitespace or ``$``.  The last box
    (the one that starts last) wins; if it is never closed the text is unchanged, and so it
    is when there is no box.  The content is stripped.  With ``conflict="keep"``, boxes
    that disagree leave the text unchanged.

    Bound: O(n): one box scan, one fence scan; the last box's brace is matched from the box on (``keep``: one pass over all braces).

    >>> extract_boxed(r"First \boxed{1}, finally $\boxed{\frac{1}{2}}$.")
    '\\frac{1}{2}'
    >>> extract_boxed(r"so \boxed 5$ is it")
    '5'
    >>> extract_boxed(r"cut off: \boxed{\frac{1}{2")
    'cut off: \\boxed{\\frac{1}{2'
    >>> extract_boxed(r"\boxed{4} or \boxed{5}", BoxedParams(conflict="keep"))
    '\\boxed{4} or \\boxed{5}'
    >>> extract_boxed("\\boxed{7}\n```latex\n\\boxed{x}\n```")
    '7'
    """
    if "\\" not in text:
        return text  # every box starts with a backslash
    boxes = _outside_code(text, list(compile_pattern(_BOX).finditer(text)))
    if not boxes:
        return text
    if params.conflict == "keep":
        pairs = _brace_pairs(text)
        contents: set[str] = set()
        reach = -1
        for box in boxes:
            if box.start() < reach:
                continue  # inside an earlier box
            span = _box_span(text, box, pairs.get)
            if span is not None:
                contents.add(text[span[0] : span[1]].strip())
                reach = span[1]
        if len(contents) > 1:
            return text
    span = _box_span(text, boxes[-1], lambda at: _closing_brace(text, at))
    return text[span[0] : span[1]].strip() if span is not None else text


def _box_span(
    text: str, box: regex.Match[str], closer: Callable[[int], int | None]
) -> tuple[int, int] | None:
    """The content span of the box that ``box`` opens, or ``None`` if it is not closed."""
    pos = box.end()
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text):
        return None
    if text[pos] == "{":
        end = closer(pos)
        return (pos + 1, end) if end is not None else None
    if pos == box.end():  # neither "{" nor a space: \boxedx is not a box
        return None
    token = compile_pattern(r"[^\s$]+").match(text, pos)
    return (pos, token.end()) if token is not None else None


def _closing_brace(text: str, pos: int) -> int | None:
    """The index of the ``}`` that closes the ``{`` at ``pos`` (not itself escaped), or ``None``.

    Reads only from ``pos`` to the closer, jumping from brace to brace: the same pairs as
    :func:`_brace_pairs` (a backslash escapes the next character), without walking the text
    before the box character by character.  O(distance to the closer).
    """
    depth = 0
    skip = -1
    for match in _BRACE_FINDER.finditer(text, pos):
        at = match.start()
        if at == skip:
            continue
        char = text[at]
        if char == "\\":
            skip = at + 1
        elif char == "{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return at
    return None


def _brace_pairs(text: str) -> dict[int, int]:
    """Every matched ``{`` index → its ``}`` index, in one pass; backslash escapes skip a char."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    skip = -1  # the character after a backslash: escaped (what stepping by two did)
    for match in _BRACE_FINDER.finditer(text):  # jumps from brace to brace, not char by char
        at = match.start()
        if at == skip:
            continue
        char = text[at]
        if char == "\\":
            skip = at + 1
        elif char == "{":
            stack.append(at)
        elif stack:
            pairs[stack.pop()] = at
    return pairs


#: A brace or a backslash, as a stdlib ``re`` class (a plain class scans several times faster).
_BRACE_FINDER: Final = char_finder("\\{}")


# --------------------------------------------------------------------------- separators


_DEFAULT_SEPARATORS: Final = SeparatorParams()


@rule("split_on_separator", version=1, scope=("math", "extractive_qa"), params=SeparatorParams)
def split_on_separator(
    text: str, params: SeparatorParams = _DEFAULT_SEPARATORS, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Keep what follows the last separator (GSM8K's ``####``, ``最终输出:``), stripped.

    Plain substring search, no regex.  A separator with nothing but whitespace after it is
    passed over for the one before; no separator with an answer after it → unchanged.

    Bound: O(n): ``rfind`` per separator, at most two rounds.

    >>> split_on_separator("Natalia sold 48 + 24 = 72 clips.\\n#### 72")
    '72'
    >>> split_on_separator("推理过程……\\n最终输出：北京")
    '北京'
    >>> split_on_separator("no separator")
    'no separator'
    """
    for separator in params.separators:
        for char in separator:
            if char not in text:
                break  # this separator occurs nowhere
        else:
            break  # this one may occur: search
    else:
        # every separator holds a character the text lacks: each rfind would give -1 (one-
        # character ``in`` tests are memchr scans, cheaper than rfind on long texts)
        return text
    limit = len(text)
    while True:
        best_start, best_end = -1, -1
        for separator in params.separators:
            start = text.rfind(separator, 0, limit)
            if start > best_start or (start == best_start and start + len(separator) > best_end):
                best_start, best_end = start, start + len(separator)
        if best_start < 0:
            return text
        answer = text[best_end:].strip()
        if answer:
            return answer
        limit = best_end - 1  # look for the occurrence before this one


# --------------------------------------------------------------------------- JSON


_JSON_START = r"\s*(?:[\"'{\[\]}\-.0-9]|(?:true|false|null|True|False|None)(?![\w]))"
_MAX_PARSE_ATTEMPTS: Final = 1000

#: A stretch of the text: ``(start, end)``, end exclusive.
_Span = tuple[int, int]
#: How a decoding outcome is filed: a short span by its text, a longer one by where it is.
_DecodedKey = str | tuple[int, int]
_SHORT_SPAN: Final = 64
#: The one decoder of every ``raw_decode`` (a ``json.JSONDecoder`` keeps no state between calls).
_DECODER: Final = json.JSONDecoder(strict=False)
_UNTRIED: Final[Any] = object()
#: Whole double-quoted strings and what JSON may hold outside them (a superset: its whitespace
#: and punctuation, digits, number signs, the letters of ``true false null NaN Infinity``).  A
#: span this does not run through (``True``, ``None``, a word, a quote that does not close
#: inside) cannot be one JSON value: ``raw_decode`` need not try it (an error is costly to raise).
_JSON_CHARS: Final = re.compile(r'(?:[ \t\n\r{}\[\],:\d+\-.eEtrufalsnNIiy]++|"[^"\\]*+(?:\\.[^"\\]*+)*+")*+', re.DOTALL)


class _Scan:
    """What one call of :func:`extract_json_block` learns about its text, shared by its searches.

    ``spans``: :func:`_balanced_spans` by hull (see :func:`_region_spans`: the whole text and
    a fence that holds every bracket are scanned once).  ``decoded``: ``(value,)`` when
    ``raw_decode`` at a span's start stops at its end, else None; by the span's text when it
    is short, else by the span.  That outcome depends on the span's text alone (a bracket's
    value ends at its closer, and the decoder reads nothing past the closer it stops after;
    any other stop, or an error, is the same None), so a short span written twice (``[1, 2]``
    in every entry) is decoded once.
    """

    __slots__ = ("decoded", "hull", "single", "spans", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.hull: _Span | None = None  # the whole text's bracket hull, once known
        self.single: _Span | None = None
        self.spans: dict[_Span, list[_Span]] = {}
        self.decoded: dict[_DecodedKey, tuple[Any] | None] = {}


_DEFAULT_JSON_BLOCK: Final = JsonBlockParams()

#: Words between two JSON values that offer the second as an alternative to the first.
_ALTERNATIVE: Final = (
    r"(?i:\b(?:or|alternatively|alternative(?:ly)?|another\s+(?:option|possibility|answer|way|version)"
    r"|(?:option|version|variant)\s*(?:\d+|[a-z])\b|either|otherwise|(?:also|equally)\s+(?:valid|acceptable|possible|correct)"
    r"|could\s+also\s+be|or\s+else)\b)"
    r"|或者|或是|也可以|另一种|另一个|备选|也行|或"
)


@rule("extract_json_block", version=2, scope=("structured_json",), params=JsonBlockParams)
def extract_json_block(
    text: str, params: JsonBlockParams = _DEFAULT_JSON_BLOCK, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Keep the first balanced JSON object or array, looking in a fenced ``json`` block first.

    Order of search: the first fence tagged ``json``; fences with no language whose content
    starts with ``{`` or ``[``; the whole text.  In each, brackets are matched with an
    explicit stack that skips over strings (``"…"``, and ``'…'`` where a value or key can
    start) and their escapes, in one linear pass.  Of the blocks found, the first outermost
    one that parses as JSON wins; failing that the first block that at least starts like
    JSON (a later rule may repair it).  Nothing found → the text unchanged.

    Bound: O(n) scans of at most three regions; at most 1000 parse attempts, each bounded by its span.

    >>> extract_json_block('Sure! Here it is: {"a": "}", "b": [1, 2]} Hope it helps.')
    '{"a": "}", "b": [1, 2]}'
    >>> extract_json_block('See [1].\\n```json\\n{"ok": true}\\n```')
    '{"ok": true}'
    >>> extract_json_block("no json [here]")
    'no json [here]'
    >>> extract_json_block('{"a": 1} or {"a": 2}', JsonBlockParams(alternatives="contradictory"))
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: contradictory: the output offers different JSON values as alternatives: {"a":1} and {"a":2}
    """
    whole = _hull(text, 0, len(text))
    single = whole if _one_value(text, whole) else None
    if single is not None and _fences_cannot_cut(text, *single) and _starts_like_json(text, single):
        # The stated pass finds nothing (_one_value); every fence's content holds the hull or
        # none of it, so each search below returns the hull's span or nothing, the whole text
        # its span (see _first_json_span): that span, with no fence scan.
        check_budget()  # where the fence scan would check it first
        return text[single[0] : single[1]]
    scan = _Scan(text)
    scan.hull, scan.single = whole, single
    if single is None and params.alternatives == "contradictory":
        stated = _stated_json_span(scan, timeout=timeout)
        if stated is not None:
            return text[stated[0] : stated[1]]
    fences = iter_fences(text)  # read up to the first tagged json, further only if it holds nothing
    seen: list[FenceTuple] = []
    for fence in fences:
        seen.append(fence)
        if fence[4] == "json":
            span = _first_json_span(scan, fence[2], fence[3])
            if span is not None:
                return text[span[0] : span[1]]
            break
    seen.extend(fences)
    for _, _, content_start, content_end, lang, _ in seen:
        if lang == "" and text[content_start:content_end].lstrip()[:1] in ("{", "["):
            span = _first_json_span(scan, content_start, content_end)
            if span is not None:
                return text[span[0] : span[1]]
    span = _first_json_span(scan, 0, len(text))
    return text if span is None else text[span[0] : span[1]]


#: Words that introduce the final JSON value ("Final answer:", "最终结果", "Output:" opening a line).
_FINAL_JSON: Final = (
    r"(?i:\bfinal\s+(?:answer|json|output|result|version|object)|(?:corrected|fixed|updated)\s+(?:json|version|output|object)"
    r"|(?<![^\n])[ \t*#]*(?:output|result|answer)[ \t*]*:)"
    r"|最终(?:答案|结果|输出|版本|JSON)|(?<![^\n])[ \t*#]*(?:输出|结果|答案)[ \t*]*[:：]"
)


def _stated_json_span(scan: _Scan, *, timeout: float) -> _Span | None:
    """Among several different outermost JSON values: the one a retraction or a final marker
    points to ("Wait, that is wrong: {…}", "Final answer: {…}", "Output: {…}");
    ``contradictory`` when two of those that count are offered as alternatives ("or",
    "Alternatively", "或者" between them); else None (the usual search decides)."""
    text = scan.text
    decoded = scan.decoded
    values: list[tuple[_Span, str]] = []
    parsed: list[tuple[_Span, Any]] = []
    pieces: set[str] = set()  # the texts of the values parsed
    reach = -1
    attempts = 0
    # The last span whose character scan or decoding stopped short of its end, and where: a span
    # inside it (spans come outer first) that holds that place stops there too, so it is not
    # tried again: nested spans that cannot parse cost one pass, not one each (depth x length).
    # (Such a span starts on a bracket outside strings before that place: the outer scan's
    # tokens align with its own there, and in the JSON read so far that bracket opened a value,
    # read by the same grammar up to the same error.)
    short_start = short_stop = -1
    for span in _region_spans(scan, 0, len(text)):
        start, end = span
        if start < reach:
            continue
        attempts += 1
        if attempts > _MAX_PARSE_ATTEMPTS:
            break
        key: _DecodedKey = text[start:end] if end - start <= _SHORT_SPAN else span
        outcome = decoded.get(key, _UNTRIED)
        if outcome is _UNTRIED:  # decoded here, not in a helper: at the stack depth it always had
            outcome = None
            if not short_start <= start < short_stop < end:
                through = _JSON_CHARS.match(text, start, end)  # (it always matches, if only the empty string)
                if through is not None and through.end() == end:  # else it cannot parse to the end
                    try:
                        value, stop = _DECODER.raw_decode(text, start)
                    except json.JSONDecodeError as error:
                        short_start, short_stop = start, error.pos
                    except (ValueError, RecursionError):
                        pass
                    else:
                        outcome = (value,) if stop == end else None
                elif through is not None:
                    short_start, short_stop = start, through.end()
            decoded[key] = outcome
        if outcome is None:
            continue
        reach = end
        parsed.append((span, outcome[0]))
        pieces.add(text[start:end])
    if len(pieces) < 2:
        return None  # one value (or none), however often written, cannot disagree: no keys to write
    for span, value in parsed:
        try:
            key = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        except (ValueError, RecursionError):
            continue
        values.append((span, key))
    if len({key for _, key in values}) < 2:
        return None
    retracted = False
    for index in range(len(values) - 1, 0, -1):  # what follows the last retraction counts
        gap = (values[index - 1][0][1], values[index][0][0])
        if compile_pattern(RETRACTION).search(text, *gap):
            values, retracted = values[index:], True
            break
    final = [
        i
        for i, (span, _) in enumerate(values)
        if compile_pattern(_FINAL_JSON).search(
            text, max(values[i - 1][0][1] if i else 0, span[0] - _INTRO_CHARS), span[0], timeout=timeout
        )
    ]
    if final:  # from the last value introduced as final on
        values, retracted = values[final[-1] :], True
    for (first, key_a), (second, key_b) in itertools.pairwise(values):
        if key_a == key_b:
            continue
        if compile_pattern(_ALTERNATIVE).search(text, first[1], second[0]):
            raise RejectText(
                st.CONTRADICTORY,
                f"the output offers different JSON values as alternatives: {_clip(key_a)} and {_clip(key_b)}",
            )
    return values[0][0] if retracted else None


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_json_span(scan: _Scan, start: int, end: int) -> _Span | None:
    single = scan.single
    if (
        single is not None
        and start <= single[0]
        and single[1] <= end
        and _starts_like_json(scan.text, single)
    ):
        # the region holds the hull: its spans are the text's, the hull's span first, every
        # other inside it (_one_value).  The loop below would decode the hull's span and, if it
        # parses, return it; if not, skip the rest (inside it) and return it as the first
        # span that starts like JSON.  Either way: that span, with no decoding.
        return single
    spans = _region_spans(scan, start, end)
    if not spans:
        return None
    text = scan.text
    decoded = scan.decoded
    reach = -1
    attempts = 0
    for span in spans:  # outermost spans first: they are the ones not inside an earlier span
        at = span[0]
        if at < reach:
            continue
        reach = span[1]
        attempts += 1
        if attempts > _MAX_PARSE_ATTEMPTS:
            break
        key: _DecodedKey = text[at : span[1]] if span[1] - at <= _SHORT_SPAN else span
        outcome = decoded.get(key, _UNTRIED)
        if outcome is _UNTRIED:  # decoded here, not in a helper: at the stack depth it always had
            outcome = None
            through = _JSON_CHARS.match(text, at, span[1])  # (it always matches, if only the empty string)
            if through is not None and through.end() == span[1]:  # else it cannot parse to the end
                try:
                    value, stop = _DECODER.raw_decode(text, at)
                except (ValueError, RecursionError):
                    pass
                else:
                    outcome = (value,) if stop == span[1] else None
            decoded[key] = outcome
        if outcome is not None:
            return span
    looks_like_json = compile_pattern(_JSON_START)
    for span in spans:
        if looks_like_json.match(text, span[0] + 1, span[1]):
            return span
    return None


#: Inside the outermost bracket: no bracket and no single quote outside strings, whole
#: double-quoted strings with no backslash (stdlib ``re``, possessive: linear).
_GAP: Final = r"""[^\[\]{}"']*+(?:"[^"\\]*+"[^\[\]{}"']*+)*+"""
#: A flat bracket pair with no quote inside (so no string: what it holds is what the scan skips).
_FLAT: Final = r"""\[[^\[\]{}"']*+\]|\{[^\[\]{}"']*+\}"""
#: One bracket pair holding flat pairs that are all one same text (backreference), and
#: between them only what :data:`_GAP` allows.
_ONE_VALUE: Final = re.compile(
    rf"\{{{_GAP}(?:(?P<a>{_FLAT}){_GAP}(?:(?P=a){_GAP})*+)?\}}|\[{_GAP}(?:(?P<b>{_FLAT}){_GAP}(?:(?P=b){_GAP})*+)?\]"
)


def _one_value(text: str, hull: _Span) -> bool:
    """Whether the text's bracket spans are its hull's span and flat spans inside it that are
    all one same text, by one C-level match of the hull (``hull``: :func:`_hull` of the text).

    Proof: :func:`_balanced_spans` of the hull (the whole text's, see :func:`_region_spans`)
    pushes the hull's opener, then reads tokens.  Where :data:`_ONE_VALUE` matches, the tokens
    are: stretches with no bracket and no ``'`` outside strings, and strings with no backslash
    (each skipped whole, as ``_SKIPPED`` does: the same quote pairs), flat pairs (one span
    each), and last the hull's closer, which matches its opener: one span for the hull, the
    stack empty at the hull's end, nothing more to scan.  So no span lies outside the hull's,
    and :func:`_stated_json_span` collects at most one text (the hull's when it parses, else
    those of the flat spans that parse, all the same): it returns None.
    """
    return hull[0] != hull[1] and _ONE_VALUE.fullmatch(text, *hull) is not None


#: What can follow a bracket for :data:`_JSON_START` to match right there (``\s*`` empty).
_VALUE_OPENERS: Final = frozenset('"{[]}-.0123456789')


def _starts_like_json(text: str, span: _Span) -> bool:
    """``looks_like_json`` of :func:`_first_json_span` for a span: :data:`_JSON_START` matches
    after its opener (a character that pattern opens with is proof enough, with no regex call)."""
    return text[span[0] + 1] in _VALUE_OPENERS or compile_pattern(_JSON_START).match(text, span[0] + 1, span[1]) is not None


def _fences_cannot_cut(text: str, start: int, end: int) -> bool:
    """Whether no fence's content can start or end strictly inside ``text[start:end]`` (so each
    holds all of it or none of it), with ``text[start]`` a bracket and ``text[end - 1]`` the
    text's last bracket.

    A content starts after the line break that ends its opening line, and (when not empty) ends
    at the line break before its closing line.  So with no line break inside, neither can
    happen.  Else, a fence line that starts inside holds its run of three backticks or tildes
    inside (a closing line, holding no bracket, ends before ``end - 1``), and an opening line
    that starts before ``start`` and ends inside holds its run before ``start`` on that line.

    >>> _fences_cannot_cut('{"a": 1}', 0, 8), _fences_cannot_cut('{"a": "\\n```\\n"}', 0, 14)
    (True, False)
    """
    if text.find("\n", start, end) < 0:
        return True
    line = text.rfind("\n", 0, start) + 1
    return all(text.find(run, line, end) < 0 for run in _FENCE_RUNS)


_FENCE_RUNS: Final = ("```", "~~~")


def _region_spans(scan: _Scan, start: int, end: int) -> list[_Span]:
    """:func:`_balanced_spans` of ``text[start:end]``, scanned once per hull.

    The hull runs from the region's first opener (``[`` or ``{``) to its last bracket of any
    kind.  The scans of the region and of its hull give the same spans: both reach the hull's
    first opener with an empty stack (with it empty, a closer is ignored and a quote opens
    nothing); from there they read the same tokens (a single quote's look-back stops at an
    opener inside the hull either way); and past the hull nothing can open or close, whatever
    a string or quote running beyond it swallows or cuts short.  So the whole text and a
    fence holding all its brackets (the usual shape) share one scan.
    """
    whole = scan.hull
    if whole is None:
        whole = scan.hull = _hull(scan.text, 0, len(scan.text))
    if whole[0] == whole[1]:
        return []  # no opener at all
    # the region holds the text's first opener and last bracket: its hull is the text's
    hull = whole if start <= whole[0] and whole[1] <= end else _hull(scan.text, start, end)
    if hull[0] == hull[1]:
        return []
    spans = scan.spans.get(hull)
    if spans is None:
        spans = scan.spans[hull] = _balanced_spans(scan.text, *hull)
    return spans


def _hull(text: str, start: int, end: int) -> _Span:
    """From the first opener of ``text[start:end]`` to its last bracket of any kind (empty: no opener)."""
    first = end
    for char in "{[":
        found = text.find(char, start, first)
        if found >= 0:
            first = found
    if first == end:
        return (end, end)
    last = first
    for char in "}]{[":
        found = text.rfind(char, last + 1, end)
        if found >= 0:
            last = found
    return (first, last + 1)


#: The deepest bracket nesting :func:`extract_json_block` reads: the most ``parse_json``'s
#: ``max_depth`` allows (:class:`normalize._json.JsonLimits`), so no text it refuses could parse.
MAX_NESTING: Final = 256


def _balanced_spans(text: str, start: int, end: int) -> list[_Span]:
    """Every balanced ``{…}``/``[…]`` in ``text[start:end]``, ordered by start (outer first).

    One pass with an explicit stack (no recursion).  A closer that does not match the top
    of the stack closes the nearest matching opener below it (the openers above are dropped
    unfinished) or, if there is none, is ignored.  Spans nest or are disjoint.  With the stack
    empty only an opener changes anything (closers are ignored, quotes open no string), so
    the scan jumps to the next one (``str.find``, each kind's next place remembered).  Inside
    a bracket one match runs past whole double-quoted strings and everything else to the next
    bracket or single quote (an unclosed ``"``, or the end: nothing more to find); a bracket
    pair with only that between (a flat ``[1, 2]``) is one match and one span, as its opener
    and closer would have made.

    A pair that closes more than :data:`MAX_NESTING` deep: ``invalid`` (:class:`RejectText`)
    right there, so a deep text costs one pass up to its innermost closer and no decoding
    (openers that never close, ``{{{{…``, hold no span and refuse nothing).
    """
    spans: list[_Span] = []
    stack: list[int] = []  # where the open brackets are
    braces = brackets = 0  # how many of each kind the stack holds
    tokens = _JSON_TOKEN.finditer
    next_brace = next_bracket = -2  # where each opener occurs next (-1: nowhere; -2: not looked for)
    pos = start
    while True:
        if not stack:
            if -1 != next_brace < pos:
                next_brace = text.find("{", pos, end)
            if -1 != next_bracket < pos:
                next_bracket = text.find("[", pos, end)
            if next_brace < 0 and next_bracket < 0:
                break
            if next_bracket < 0 or 0 <= next_brace < next_bracket:
                pos, braces = next_brace, 1
            else:
                pos, brackets = next_bracket, 1
            stack.append(pos)
            pos += 1
        resume = False  # whether the tokens go on from pos
        for found in tokens(text, pos, end):
            group = found.lastindex
            if group == 1:  # a flat pair: pushed and popped at once
                if len(stack) >= MAX_NESTING:
                    raise _too_deep(found.end(1) - 1, len(stack) + 1)
                spans.append(found.span(1))
                continue
            at = found.end() - 1
            if group != 2:
                if group == 3 and text[at] == "'":
                    if not _value_may_start(text, at, start):
                        continue
                    rest = _SINGLE_QUOTED_REST.match(text, at + 1, end)
                    if rest is not None:
                        pos, resume = rest.end(), True
                break  # an unclosed string, or the end of the search: nothing more to find
            char = text[at]
            if char == "{":
                stack.append(at)
                braces += 1
            elif char == "[":
                stack.append(at)
                brackets += 1
            else:
                opener = "{" if char == "}" else "["
                if not (braces if opener == "{" else brackets):
                    continue
                while True:
                    opened = stack.pop()
                    kind = text[opened]
                    if kind == "{":
                        braces -= 1
                    else:
                        brackets -= 1
                    if kind == opener:
                        break
                if len(stack) >= MAX_NESTING:
                    raise _too_deep(at, len(stack) + 1)
                spans.append((opened, at + 1))
                if not stack:
                    pos, resume = at + 1, True  # back to looking for an opener
                    break
        if not resume:
            break
    spans.sort()  # (no two spans share a start)
    return spans


def _too_deep(at: int, depth: int) -> RejectText:
    """The refusal of a bracket pair closed at ``at``, ``depth`` levels deep."""
    return RejectText(st.INVALID, f"the JSON nests more than {MAX_NESTING} levels deep (the bracket closed at "
                      f"character {at} is {depth} deep): no JSON rule parses it")


#: Inside a bracket, what does not matter: runs with no bracket or quote, and whole double-quoted
#: strings (a backslash escapes the next character).  Possessive throughout: linear.
_SKIPPED: Final = r'(?:[^\[\]{}"\']*+"[^"\\]*+(?:\\.[^"\\]*+)*+")*+[^\[\]{}"\']*+'
#: Inside a bracket: what does not matter, then a flat bracket pair (group 1: only what does not
#: matter between), a bracket (group 2), a single quote or an unclosed ``"`` (group 3), or the end
#: of the search (no group).  A stretch is read at most twice (a flat pair tried and given up).
_JSON_TOKEN: Final = re.compile(
    rf"{_SKIPPED}(?:(\[{_SKIPPED}\]|\{{{_SKIPPED}\}})|([\[\]{{}}])|([\"'])|\Z)", re.DOTALL
)
#: The rest of a single-quoted string after its opening quote, to its closing quote: a
#: backslash escapes the next character (possessive: linear even when the string never closes).
_SINGLE_QUOTED_REST: Final = re.compile(r"(?:[^'\\]++|\\.)*+'", re.DOTALL)


def _value_may_start(text: str, pos: int, floor: int) -> bool:
    """Whether a ``'`` at ``pos`` can open a (Python-style) string: after ``{ [ , :``."""
    i = pos - 1
    while i >= floor and text[i].isspace():
        i -= 1
    return i >= floor and text[i] in "{[,:"


# --------------------------------------------------------------------------- code


_DEFAULT_CODE: Final = CodeBlockParams()


@rule(
    "extract_code_block",
    version=1,
    scope=("code",),
    params=CodeBlockParams,
    idempotent=False,
)
def extract_code_block(
    text: str, params: CodeBlockParams = _DEFAULT_CODE, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Keep the content of one fenced code block, byte for byte.

    Among the fences whose language is one of ``languages`` (if any is), else among all
    fences, take the ``first`` or the ``last``.  Indentation, tabs and full-width characters
    stay exactly as they are.  No fence → the text unchanged.  Not idempotent: a block may
    itself hold a fenced block (markdown inside a longer ```` fence).

    Bound: O(n): one fence scan.

    >>> extract_code_block("Here:\\n```python\\ndef f():\\n\\treturn '你好'\\n```\\nDone.")
    "def f():\\n\\treturn '你好'"
    >>> extract_code_block("```sh\\npip install x\\n```\\n```py\\nx = 1\\n```", CodeBlockParams(which="first", languages=("py",)))
    'x = 1'
    """
    fences = find_fences(text)
    if not fences:
        return text
    preferred = [f for f in fences if f.lang in params.languages]
    pool = preferred or fences
    if params.final_markers:
        final = _final_fence(text, pool, params.final_markers, timeout=timeout)
        if final is not None:
            return final.content(text)
    if params.alternatives == "contradictory" and len(pool) > 1:
        pool = _solution_fences(text, pool, timeout=timeout)
    chosen = pool[0] if params.which == "first" else pool[-1]
    return chosen.content(text)


#: How far back before a fence its introducing words are looked for.
_INTRO_CHARS: Final = 300


def _final_fence(text: str, fences: Sequence[Fence], markers: Sequence[str], *, timeout: float) -> Fence | None:
    """The last fence whose introduction (the prose since the previous fence) has a final marker,
    or takes back the block before it ("Wait, that is wrong. Here is the fix:")."""
    pattern = compile_pattern("|".join(f"(?:{m})" for m in markers), regex.IGNORECASE)
    found = None
    previous_end = 0
    for index, fence in enumerate(fences):
        begin = max(previous_end, fence.start - _INTRO_CHARS)
        if _final_marker_before(text, begin, fence.start, tuple(markers), pattern, timeout) or (
            index > 0
            and (fence.start - previous_end < _SHORT_WINDOW or may_retract(fold(text[previous_end : fence.start])))
            and compile_pattern(RETRACTION).search(text, previous_end, fence.start)
        ):
            found = fence
        previous_end = fence.end
    return found


#: Below this many characters a window is searched at once: the literal checks cost more.
_SHORT_WINDOW: Final = 64


@lru_cache(maxsize=64)
def _any_entangled(patterns: tuple[str, ...]) -> bool:
    return any(entangled(p) for p in patterns)


def _final_marker_before(
    text: str, begin: int, end: int, markers: tuple[str, ...], pattern: regex.Pattern[str], timeout: float
) -> bool:
    """Whether the alternation ``pattern`` of ``markers`` matches in ``text[begin:end]``.

    It does exactly when one of the markers does, so only the markers whose literals occur
    there (their required literals, or else one of their leading ones) are searched, each on
    its own (a literal prefix the engine finds fast).  A marker with inline flags or group
    references (which reach the others inside an alternation) sends the search to ``pattern``.
    """
    if end - begin < _SHORT_WINDOW or _any_entangled(markers):
        return pattern.search(text, begin, end, timeout=timeout) is not None
    folded = fold(text[begin:end])
    for marker in markers:
        required = required_literals(marker, True)
        if required is not None:
            if not may_match(required, folded):
                continue
        else:
            lead = leading_literals(marker, True)
            if lead is not None and not any(literal in folded for literal in lead):
                continue
        if compile_pattern(marker, regex.IGNORECASE).search(text, begin, end, timeout=timeout) is not None:
            return True
    return False


_DEFINED: Final = (
    r"(?m)^[ \t]*(?:(?:async[ \t]+)?def|class|function|func|fn|sub)[ \t]+(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
)
_TEST_NAME: Final = r"(?i:test\w*|check\w*|main)"
_TEST_CODE: Final = r"(?m)^[ \t]*(?:assert\b|print[ \t]*\(|console\.log|unittest\b|import[ \t]+(?:unittest|pytest)\b|if[ \t]+__name__)"
_CODE_ALTERNATIVE: Final = (
    r"(?i:\b(?:alternatively|alternative(?:\s+(?:solution|approach|version|implementation))?|another\s+(?:way|approach|solution|option|version|implementation)"
    r"|or\s+(?:you\s+could|we\s+could|simply|just|use)|(?:approach|solution|method|option|version)\s*(?:2|two|b)\b)\b)"
    r"|或者|另一种|另一个(?:版本|写法|方法)|方法二|解法二|也可以"
)


#: Past this many solution blocks, blocks are not compared pairwise for containment.
_MAX_COMPARED_BLOCKS: Final = 64


def _solution_fences(text: str, fences: Sequence[Fence], *, timeout: float) -> list[Fence]:
    """The fences that hold a solution; ``contradictory`` when two of them are alternatives."""
    defined = [
        {m["name"] for m in compile_pattern(_DEFINED).finditer(text, f.content_start, f.content_end)}
        for f in fences
    ]
    everything = set().union(*defined)
    solutions: list[int] = []
    for index, fence in enumerate(fences):
        own = {name for name in defined[index] if not compile_pattern(_TEST_NAME).fullmatch(name)}
        others = everything - defined[index]
        if not own and others and compile_pattern(_TEST_CODE).search(
            text, fence.content_start, fence.content_end, timeout=timeout
        ):
            continue  # tests or a usage example of what another block defines
        if not own and others and not defined[index]:
            calls = "|".join(regex.escape(name) for name in sorted(others)[:50])
            if compile_pattern(rf"\b(?:{calls})[ \t]*\(").search(
                text, fence.content_start, fence.content_end, timeout=timeout
            ):
                continue  # calls of what another block defines: a usage example
        solutions.append(index)
    if not solutions:
        return list(fences)
    contents = {i: fences[i].content(text).strip() for i in solutions}
    solutions = [i for i in solutions if contents[i]] or solutions  # an empty block solves nothing
    if len(solutions) <= _MAX_COMPARED_BLOCKS:
        # a block that holds another whole block is that block plus extras (its tests), not an alternative
        solutions = [
            i
            for i in solutions
            if not any(contents[j] and contents[j] != contents[i] and contents[j] in contents[i] for j in solutions)
        ]
    for first, second in itertools.pairwise(solutions):
        a, b = fences[first], fences[second]
        if contents[first] == contents[second]:
            continue
        shared = (defined[first] & defined[second]) - {""}
        offered = compile_pattern(_CODE_ALTERNATIVE).search(text, a.end, b.start) is not None
        if shared or offered:
            why = f"both define {', '.join(sorted(shared))}" if shared else "offered as alternatives"
            raise RejectText(
                st.CONTRADICTORY,
                f"two different code blocks and no final one ({why}); mark the final block, e.g. 'Final answer:'",
            )
    return [fences[i] for i in solutions]


# --------------------------------------------------------------------------- a pack's own pattern


@rule("extract_regex", version=1, scope=ALL_TYPES, params=ExtractRegexParams, idempotent=False)
def extract_regex(text: str, params: ExtractRegexParams, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Keep a capture group of a pack's own pattern: the last match by default.

    A data-only extraction rule: a pack author adds a pattern without writing Python.  No
    match (or the group took no part in any match) → the text unchanged.

    >>> extract_regex("Reasoning... ANSWER: 42", ExtractRegexParams(pattern=r"ANSWER:\\s*(\\S+)"))
    '42'
    >>> extract_regex("verdict=yes; verdict=no", ExtractRegexParams(pattern=r"verdict=(?P<v>\\w+)", group="v", which="first"))
    'yes'
    >>> extract_regex("no marker here", ExtractRegexParams(pattern=r"ANSWER:\\s*(\\S+)"))
    'no marker here'
    """
    group = params.chosen_group()
    found: str | None = None
    for match in params.finditer(text, timeout):  # no timeout where the pattern is proven linear
        value = match.group(group)
        if value is None:
            continue
        found = value
        if params.which == "first":
            break
    if found is None:
        return text
    return found.strip() if params.strip else found
