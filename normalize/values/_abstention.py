"""Abstention: an output whose whole answer declines to answer gets status ``abstained``.

``I don't know``, ``cannot be determined from the passage``, ``not enough information``,
``无法确定``, ``我不知道``, ``I cannot answer that``: the model did not attempt the question
(SimpleQA's "not attempted").  That is neither a wrong answer nor an unreadable one, so it is
kept apart: A_valid leaves it out, A_strict counts it as not correct, the report gives the
abstention rate beside the parse rate.

The phrases are data (the pack's ``abstention:`` section, ``rules/abstention.yaml``), per
language and kind (``undetermined``, ``unknown``, ``refusal``) plus ``filler`` — words that
state nothing (``Sorry,``, ``Based on the passage,``, ``the answer is``) — a ``subject`` (what
may stand before an ``undetermined`` phrase: *the age of the author* cannot be determined) and
``keywords`` (a fast skip).  A task type opts in with ``abstention: {languages: [...]}`` in its
pack entry (``when: always`` to check answers the parser read too); the phrases of those
languages are part of the task type's resolved JSON, so the hash covers them.  A row whose
``lang`` is one of them reads that language's phrases; any other row reads all of them at once.

The rule (:func:`detect`): the text is cut into clauses (at ``. ! ? ; : ,``, line breaks and
``。！？；：，、``); a clause abstains when, once every phrase match (with its subject) and then
every filler match is taken out, no letter or digit is left; the text abstains when at least
one phrase matched and every clause abstains or is filler.  Any digit means an answer may be
stated, so never an abstention; nor is a text over :data:`MAX_ABSTENTION_CHARS` characters.  So
``I don't know why, but the answer is 5`` is an answer, ``Paris, but I'm not sure`` is an
answer, and ``Sorry, I don't know.`` abstains.

:func:`decide` applies it to a row: the whole normalized text first; when the parser read no
answer, or only a solution's last number (``found_by: last_number``), the last sentence alone
(``… So the value cannot be determined.``).  A multiple-choice row whose option texts hold an
abstention (``Cannot be determined``, BBQ's unknown option) is handled apart: an answer the
parser read stands; an ``undetermined``/``unknown`` abstention chooses the one such option
(two such options: ``no_answer``, which one is not said); a refusal chooses none.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

import regex

from normalize import status as st
from normalize.limits._regex import compile_pattern, user_pattern

#: A whole answer that abstains is short: a longer text (or last sentence) is never one, so the
#: phrases never run over a long output.
MAX_ABSTENTION_CHARS: Final = 300
#: The kinds of abstention, in the order a report names them.
KINDS: Final = ("undetermined", "unknown", "refusal")
#: Clause boundaries; a phrase never spans one.
_CLAUSES: Final = compile_pattern(r"[.!?;:,\n\r。！？；：，、…]+")
#: Sentence boundaries, for the last-sentence rule.
_SENTENCES: Final = compile_pattern(r"(?:[.!?\n\r。！？]+\s*)")
#: One character a match of :data:`_SENTENCES` can hold (for :func:`last_sentence`).
_SENTENCE_CHAR: Final = compile_pattern(r"[.!?\n\r。！？]|\s")
#: How far back :func:`last_sentence` reads at a time.
_BLOCK: Final = 256
_APOSTROPHES: Final = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "＇": "'"})
_CONTENT: Final = compile_pattern(r"[^\W_]")
_DIGIT: Final = compile_pattern(r"\d")
#: Markdown emphasis and quotes around an abstention: decoration.
_DECORATION: Final = compile_pattern(r"[*_\"“”「」『』()\[\]（）【】]")
_BEFORE: Final = r"(?<![\p{Latin}\p{Cyrillic}\p{Greek}\p{N}_'])"
_AFTER: Final = r"(?![\p{Latin}\p{Cyrillic}\p{Greek}\p{N}_])"


@dataclass(frozen=True)
class Found:
    """An abstention found: its ``kind`` and the first phrase matched, as written."""

    kind: str
    phrase: str


@dataclass(frozen=True)
class _Language:
    """One language's compiled phrases: one pattern (a named group per kind), filler, subject."""

    phrases: str
    filler: str | None
    subject: str | None
    #: A stdlib scan for any keyword (escaped literals: linear), or None when some language
    #: declares none (then no skip); ``ascii_keywords``: the ASCII ones, for an ASCII text (which
    #: no other keyword can be in); None when there are none.
    keywords: re.Pattern[str] | None
    ascii_keywords: re.Pattern[str] | None = None
    #: Per language (several only for ``*``): its keyword scan beside its phrases (the pattern
    #: :attr:`phrases` is for that language alone), or None when some language declares no
    #: keywords.  Each language's phrases can match only where one of its own keywords occurs:
    #: :func:`detect` searches only those languages' phrases for whether any phrase occurs.
    screens: tuple[tuple[re.Pattern[str], str], ...] | None = None


@dataclass(frozen=True)
class AbstentionSpec:
    """A task type's abstention phrases: per language, per kind (and ``filler``), regexes; and
    per language an optional ``subject`` (what may stand before an ``undetermined`` phrase) and
    ``keywords`` (lower-case literals of which every phrase match holds one: a text with none of
    them skips the language with substring scans, as :data:`normalize.values._phrases.RETRACTION_WORDS`
    does for retractions).

    Built by the pack loader from the ``abstention:`` section for the ``languages`` the task
    type names; :meth:`to_json` is what the pack hash covers.
    """

    languages: tuple[str, ...]
    phrases: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: ``unparsed``: checked only when the parser read no answer (a stated letter or number
    #: stands); ``always``: over a parsed answer too (free-text answers, where any text parses).
    when: str = "unparsed"

    def to_json(self) -> dict[str, Any]:
        return {"languages": list(self.languages), "when": self.when,
                "phrases": {lang: {key: list(v) if isinstance(v, tuple) else v for key, v in sorted(kinds.items())}
                            for lang, kinds in sorted(self.phrases.items())}}

    @cached_property
    def _compiled(self) -> dict[str, _Language]:
        """Each language alone, and ``*``: all of them at once (a row without a known language
        may mix them: ``抱歉，I don't know``)."""
        out = {lang: self._language((lang,)) for lang in self.languages}
        out["*"] = self._language(self.languages)
        return out

    def _language(self, langs: tuple[str, ...]) -> _Language:
        entries = [self.phrases.get(lang, {}) for lang in langs]
        groups = [f"(?P<{kind}>{_alternatives([p for e in entries for p in e.get(kind, ())])})"
                  for kind in KINDS if any(e.get(kind) for e in entries)]
        filler = [p for e in entries for p in e.get("filler", ())]
        subjects = [e["subject"] for e in entries if isinstance(e.get("subject"), str)]
        keywords = [k for e in entries for k in e.get("keywords", ())]
        every_keyed = all(e.get("keywords") for e in entries)
        ascii_words = [k for k in keywords if k.isascii()]
        screens = None
        if every_keyed and len(langs) > 1:
            screens = tuple((_literals(e["keywords"]), self._language((lang,)).phrases)
                            for lang, e in zip(langs, entries, strict=True) if any(e.get(kind) for kind in KINDS))
        return _Language(
            _BEFORE + "(?:" + "|".join(groups) + ")" + _AFTER,
            _BEFORE + "(?:" + _alternatives(filler) + ")" + _AFTER if filler else None,
            _alternatives(subjects) if subjects else None,
            _literals(keywords) if every_keyed else None,
            _literals(ascii_words) if every_keyed and ascii_words else None,
            screens,
        )

    def language_for(self, lang: str | None) -> str:
        """The phrases that apply to a row: its own language's (``zh-cn`` → ``zh``) when this
        spec has it, else every language's at once (``*``)."""
        if lang is not None:
            base = lang.split("-", 1)[0]
            if base in self.languages:
                return base
        return "*"


def _literals(words: Sequence[str]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(k) for k in sorted(set(words), key=len, reverse=True)))


def _alternatives(patterns: Sequence[str]) -> str:
    return "|".join(f"(?:{p})" for p in patterns)


#: The list keys of a language's entry: the kinds and ``filler`` (``subject`` is one pattern,
#: ``keywords`` a list of literals).
_LIST_KEYS: Final = (*KINDS, "filler")


def build_spec(languages: Sequence[str], section: Mapping[str, Any], when: str = "unparsed") -> AbstentionSpec:
    """The spec for ``languages`` from a pack's ``abstention:`` section; ``ValueError`` names a
    missing language, an unknown key, or a pattern that does not compile."""
    phrases: dict[str, dict[str, Any]] = {}
    for lang in languages:
        entry = section.get(lang)
        if not isinstance(entry, Mapping):
            known = ", ".join(sorted(section)) or "none"
            raise ValueError(f"abstention: no phrases for language {lang!r} (the pack's abstention: section has {known})")
        kinds: dict[str, Any] = {}
        for kind, patterns in entry.items():
            if kind == "subject":
                if not isinstance(patterns, str) or not patterns:
                    raise ValueError(f"abstention.{lang}.subject must be a non-empty regex string")
                _compiles(patterns, f"abstention.{lang}.subject")
                kinds["subject"] = patterns
                continue
            if kind == "keywords":
                if not isinstance(patterns, list) or not all(
                        isinstance(k, str) and k and k == k.lower() for k in patterns):
                    raise ValueError(f"abstention.{lang}.keywords must be a list of non-empty lower-case strings")
                kinds["keywords"] = tuple(patterns)
                continue
            if kind not in _LIST_KEYS:
                raise ValueError(f"abstention.{lang}: unknown kind {kind!r}; kinds are "
                                 f"{', '.join((*_LIST_KEYS, 'subject', 'keywords'))}")
            if not isinstance(patterns, list) or not all(isinstance(p, str) and p for p in patterns):
                raise ValueError(f"abstention.{lang}.{kind} must be a list of non-empty regex strings")
            for i, pattern in enumerate(patterns):
                _compiles(_BEFORE + f"(?:{pattern})" + _AFTER, f"abstention.{lang}.{kind}[{i}]")
            kinds[str(kind)] = tuple(patterns)
        if not any(kinds.get(kind) for kind in KINDS):
            raise ValueError(f"abstention.{lang} states no phrase (kinds: {', '.join(KINDS)})")
        phrases[lang] = kinds
    return AbstentionSpec(tuple(languages), phrases, when)


def _compiles(pattern: str, where: str) -> None:
    try:
        compile_pattern(pattern, _FLAGS)
    except (regex.error, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None


_FLAGS: Final = regex.IGNORECASE | regex.V0


def _fold(text: str) -> str:
    """NFKC and one apostrophe (ASCII text is left as it is: NFKC keeps it)."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)


def detect(spec: AbstentionSpec, text: str, lang: str | None = None, *, timeout: float) -> Found | None:
    """The abstention ``text`` states as a whole answer, or None (see the module docstring).

    >>> from normalize.core.pack import load_pack
    >>> spec = load_pack().task_types["extractive_qa"].abstention
    >>> detect(spec, "Sorry, I don't know.", timeout=1.0)
    Found(kind='unknown', phrase="I don't know")
    >>> detect(spec, "I don't know why, but the answer is 5", timeout=1.0) is None
    True
    >>> detect(spec, "根据文章无法确定。", timeout=1.0).kind
    'undetermined'
    """
    if len(text) > MAX_ABSTENTION_CHARS or _DIGIT.search(text) is not None:
        return None
    folded = _fold(text)
    lowered = folded.lower()
    compiled = spec._compiled[spec.language_for(lang)]
    if compiled.keywords is not None:
        keywords = compiled.ascii_keywords if lowered.isascii() else compiled.keywords
        if keywords is None or keywords.search(lowered) is None:
            return None  # no keyword: none of the phrases can occur (the usual case)
    if compiled.screens is not None:  # only the languages one of whose keywords occurs
        if not _any_phrase(compiled.screens, folded, lowered, timeout):
            return None  # no phrase at all: nothing to take apart
    elif user_pattern(compiled.phrases, _FLAGS, timeout=timeout).search(folded) is None:
        return None  # no phrase at all: nothing to take apart
    return _detect_in(compiled, _DECORATION.sub(" ", folded), timeout)


def _any_phrase(screens: tuple[tuple[re.Pattern[str], str], ...], folded: str, lowered: str, timeout: float) -> bool:
    """Whether a phrase of some language occurs in ``folded`` (what a search of every language's
    phrases at once says), searched only in the languages one of whose keywords ``lowered``
    holds: a phrase match holds a keyword of its own language (abstention.yaml), and one
    alternation matches where one of its parts does.  The phrases of all the pack's languages
    are one pattern of thousands of characters the regex engine tries at every place; a
    keyword of one language ("ne " in "the only one") leaves that language's alone."""
    for keywords, phrases in screens:
        if keywords.search(lowered) is not None and user_pattern(phrases, _FLAGS, timeout=timeout).search(folded) is not None:
            return True
    return False


def _detect_in(language: _Language, text: str, timeout: float) -> Found | None:
    phrases = user_pattern(language.phrases, _FLAGS, timeout=timeout)
    filler = None if language.filler is None else user_pattern(language.filler, _FLAGS, timeout=timeout)
    subject = None if language.subject is None else user_pattern(language.subject, _FLAGS, timeout=timeout)
    first: Found | None = None
    for clause in _CLAUSES.split(text):
        parts: list[str] = []
        at = 0
        for match in phrases.finditer(clause):
            kind = match.lastgroup or KINDS[0]
            before = clause[at:match.start()]
            if kind == "undetermined" and subject is not None and before.strip():
                # the subject of "… cannot be determined": the words right before it in the clause
                if subject.fullmatch(before.strip()) is not None:
                    before = ""
            parts.append(before)
            at = match.end()
            if first is None:
                first = Found(kind, " ".join(match[0].split()))
        parts.append(clause[at:])
        rest = " ".join(parts)
        if filler is not None and _CONTENT.search(rest) is not None:
            rest = filler.sub(" ", rest)
        if _CONTENT.search(rest) is not None:
            return None
    return first


def last_sentence(text: str) -> str:
    """The last sentence of ``text``: what follows the last sentence end that has text after it.

    >>> last_sentence("The passage is about bees. So the year cannot be determined.")
    'So the year cannot be determined.'
    """
    stripped = text.strip()
    size = len(stripped)
    # Read from the end, a block at a time.  Every match lies inside one run of the characters
    # of _SENTENCES (its marks and \s), so a place holding none of them is inside no match: the
    # matches that start in text[lo:hi], lo and hi such places (or the ends), are the scan's
    # own, found by a scan of text[lo:hi] alone; the last one of the last block with one wins.
    hi = size
    while True:
        lo = max(0, hi - _BLOCK)
        while lo > 0 and _SENTENCE_CHAR.match(stripped, lo) is not None:
            lo -= 1
        start = -1
        for match in _SENTENCES.finditer(stripped, lo, hi):
            if match.end() < size:
                start = match.end()
        if start >= 0:
            return stripped[start:]
        if lo == 0:
            return stripped
        hi = lo


@dataclass(frozen=True)
class Decision:
    """What the abstention check makes of a row: a new status, reason, answer and extra."""

    status: st.Status
    reason: str | None
    answer: Any
    extra: Mapping[str, Any]


def decide(
    spec: AbstentionSpec,
    text: str,
    status: st.Status,
    options: Any,
    lang: str | None,
    *,
    timeout: float,
    parsed: bool,
    weak: bool = False,
) -> Decision | None:
    """The abstention verdict on a row whose normalized text is ``text`` and whose parser gave
    ``status`` (``parsed``: the parser ran — False when the chain itself refused the text), or
    None when the row's result stands.  ``weak``: the answer was not stated but only taken as
    the last number of the solution (``found_by: last_number``), so a last sentence that
    abstains outweighs it."""
    found = detect(spec, text, lang, timeout=timeout)
    if found is None and parsed and (status == st.NO_ANSWER or weak):
        tail = last_sentence(text)
        if tail != text.strip():
            found = detect(spec, tail, lang, timeout=timeout)
    if found is None:
        return None
    like = _abstaining_options(spec, options, lang, timeout)
    if like:
        if status == st.OK:
            return None  # the parser read an answer (an option's own text, a letter): it stands
        if found.kind != "refusal":
            if len(like) == 1:
                letter = like[0]
                return Decision(st.OK, None, letter, {"abstention_option": letter})
            return Decision(st.NO_ANSWER, f"the answer abstains ({found.phrase!r}) and options "
                            f"{', '.join(like)} both say so: which one is not stated", None, {})
    return Decision(st.ABSTAINED, f"the answer abstains ({found.kind}): {found.phrase!r}", None,
                    {"abstention": {"kind": found.kind, "phrase": found.phrase}})


def _abstaining_options(spec: AbstentionSpec, options: Any, lang: str | None, timeout: float) -> list[str]:
    """The letters of the options whose own text is an abstention (``Cannot be determined``)."""
    if not isinstance(options, tuple):
        return []
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return [letters[i] for i, option in enumerate(options[:26])
            if isinstance(option, str) and detect(spec, option, lang, timeout=timeout) is not None]
