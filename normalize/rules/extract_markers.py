r"""Stage 1, extract: the answer a model states, found by its marker.

* :func:`extract_answer_marker` keeps what follows "the answer is" / "答案是" (tiers of markers
  that come from the pack's language overlays, ``rules/languages/*.yaml``; the best tier wins,
  and within it the last marker);
* :func:`extract_answer_format` keeps what a pack's named answer formats enclose
  (``<answer>…</answer>``, a header up to an end token).

No marker → the text unchanged.  The scan that finds the markers fast on long outputs (literal
screens, anchors, gates) lives in :mod:`normalize.rules._speed`, shared with
:mod:`normalize.rules.extract_math`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Final

import regex

from normalize import status as st
from normalize.core.registry import DEFAULT_TIMEOUT, AnnotatedText, rule
from normalize.errors import RejectText
from normalize.limits._budget import check_budget
from normalize.limits._literals import fold, leading_literals, project
from normalize.limits._regex import compile_pattern
from normalize.rules._extract_params import (
    EXTRACT_FORMAT_KINDS,
    FORMAT_KINDS,
    AnswerFormat,
    AnswerFormatParams,
    AnswerMarkerParams,
)
from normalize.rules._fences import Fence
from normalize.rules._speed import (
    _IN_PROJECTED,
    _IN_TEXT,
    _alternation,
    _matches_from,
    _screen_program,
    _spread_matches,
    closed_and_open_fences,
    guarded_source,
    matches_outside,
)
from normalize.rules.format import unescape_newlines
from normalize.values._phrases import RETRACTION

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


@rule(
    "extract_answer_marker",
    version=3,
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
            if plan.spread is not None:  # (?:correct|right|best)\s+option: each alternative's locator
                hits = _spread_matches(plan, plan.spread, text, projected if plan.projected_locator is not None else text, timeout)
            elif plan.projected_locator is not None:
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
            fences = closed_and_open_fences(text)
        matches = matches_outside(matches, fences)
        matches.sort(key=lambda m: (m.end(), m.start()))
        if params.conflict == "contradictory" and len(matches) > 1:
            _refuse_different_answers(text, matches, params, timeout=timeout)
        for index in range(len(matches) - 1, -1, -1):
            check_budget()
            begin, end = _answer_span(text, matches[index])
            if begin == end:
                continue
            # taken back anywhere in the statement, its justification too ("Paris, because …. Wait, no, Lyon.")
            kept = _unless_taken_back(text, begin, end) if params.conflict == "contradictory" else end
            if params.justification == "cut":
                end = _justification_start(text, begin, end, timeout=timeout)
            end = min(end, kept)
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


def _unless_taken_back(text: str, begin: int, end: int) -> int:
    """Where the answer ``text[begin:end]`` ends when a sentence in it takes it back: before the
    retraction when what follows states the answer again ("Paris. Wait, let me check. Yes,
    Paris." → ``Paris``); a retraction for something else raises ``contradictory`` ("Paris.
    Wait, no, London."); ``end`` when nothing is taken back.  A retraction must open a sentence
    or clause: "Wait Until Dark" is a title."""
    found = _RETRACTION_SEARCH(text, begin, end)
    while (found is not None and text[begin : found.start()].strip()
           and not compile_pattern(_CLAUSE_BEFORE).search(text, begin, found.start())):
        found = _RETRACTION_SEARCH(text, found.end(), end)
    if found is None:
        return end
    segment = text[begin : found.start()]
    head = segment.strip().rstrip(".,;:!?。，；：！？ ")
    if not head:
        return end
    if fold(head) in fold(text[found.end() : end]):
        return begin + (len(segment) - len(segment.lstrip())) + len(head)
    raise RejectText(st.CONTRADICTORY, f"the answer {head[:60]!r} is taken back: {text[found.start() : end].strip()[:80]!r}")


#: What stands right before a retraction that opens a sentence or clause.
_CLAUSE_BEFORE: Final = r"(?:[.!?;,。！？；，…]|\n)[ \t]*[*_]*[ \t]*$"


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
    """The compiled sources (:func:`guarded_source`) of the restated patterns."""
    return frozenset(source for p in restated for source in (guarded_source(p), guarded_source(f"(?:{p})")))


# after the marker: spaces and colons
_DECORATION = r"[\s:：]*"
_BLANK_LINE = r"\n[^\S\n]*\n"
# emphasis opened shortly before the marker on its line: "**Answer: B**", "**The answer is B.**"
_EMPHASIS_BEFORE = r"(\*{1,3}|_{1,3})[^*_\n]{0,24}\Z"


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
