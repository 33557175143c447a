"""The params of the extract rules (pydantic models; why they live apart: :mod:`normalize.rules`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Final, Literal

import regex
from pydantic import BeforeValidator, Field, field_validator, model_validator

from normalize.core.registry import Params, StrTiers, StrTuple, as_tuple
from normalize.limits._regex import compile_pattern, user_compiled
from normalize.rules._speed import guarded


class AnswerMarkerParams(Params):
    """``tiers``: regex patterns, best tier first; empty → filled from the pack's
    ``languages.<lang>.answer_markers`` for each of ``languages`` when the pack loads.

    ``conflict``: ``"last"`` keeps the answer after the last marker of the winning tier;
    ``"keep"`` keeps everything from its first marker (included) to the end of the last
    one's paragraph (to the end of the text when a retraction, "Wait, that is wrong.", comes
    later), so a strict parser still sees statements that disagree or take one back.

    ``"contradictory"``: every marker of the winning tier states an answer (up to the next
    marker); when they differ (compared case- and punctuation-blind, retracted ones left out)
    the output is ``contradictory``, else the last answer is kept as with ``"last"``.

    ``include_marker``: keep the marker itself in front of the answer, for a parser that
    only accepts stated answers (the ``choice`` parser needs "the answer is A or B" to see
    that two letters were stated, and "D, not A" to see which one was negated).

    ``justification``: ``"cut"`` ends the kept answer where its justification starts ("No,
    because …", "北京，因为…", "Paris. It is …"); ``"keep"`` over-captures to the paragraph end.

    ``unescape``: resolve literal ``\\n``/``\\t`` escapes (as ``unescape_newlines`` does)
    before looking for markers, so an escaped line break before "Answer:" does not hide it;
    the kept answer then has real line breaks.  No marker → the text unchanged.
    """

    languages: StrTuple = ("en", "zh")
    tiers: StrTiers = ()
    conflict: Literal["last", "keep", "contradictory"] = "last"
    include_marker: bool = False
    justification: Literal["keep", "cut"] = "keep"
    unescape: bool = False
    #: With ``include_marker``: the label written in place of a marker of a language the parser
    #: does not read itself (``Answer:``); ``restated`` holds those languages' patterns and
    #: ``option_letters`` their native option letters (each list read as A, B, C … right
    #: after a restated marker), both filled from the languages (``parser_reads: true`` marks
    #: a language the parser reads).
    restate: str = ""
    restated: StrTuple = ()
    option_letters: StrTiers = ()

    @field_validator("tiers")
    @classmethod
    def _patterns_compile(cls, tiers: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        for tier in tiers:
            for pattern in tier:
                if not pattern:
                    raise ValueError("an answer marker pattern must not be empty")
                guarded(pattern)  # raises ValueError naming a pattern that does not compile
        return tiers


class BoxedParams(Params):
    """``conflict``: ``"last"`` — the last box wins; ``"keep"`` — when the outermost closed
    boxes disagree the text is left unchanged, so a strict parser can report the conflict."""

    conflict: Literal["last", "keep"] = "last"


class SeparatorParams(Params):
    """The separators after whose last occurrence the answer comes."""

    separators: StrTuple = ("####", "最终输出:", "最终输出：")

    @field_validator("separators")
    @classmethod
    def _not_empty(cls, separators: tuple[str, ...]) -> tuple[str, ...]:
        if not separators or any(not s for s in separators):
            raise ValueError(f"separators must be non-empty strings, got {separators!r}")
        return separators


class JsonBlockParams(Params):
    """``alternatives``: ``"first"`` keeps the block found first (see below) however many
    others there are; ``"contradictory"`` first looks at every outermost JSON value in the
    text, and when two different ones are offered as alternatives ("Option 1: {…}
    Alternatively: {…}", "或者 {…}": an alternative word between them) the output is
    ``contradictory``.  The same value written twice is one answer."""

    alternatives: Literal["first", "contradictory"] = "first"


class CodeBlockParams(Params):
    """Which fence to keep, and the info-string languages to prefer (lowercase).

    ``final_markers``: regexes (case-insensitive) that introduce the final block ("Final
    answer:", "最终代码"); the last fence with one in the prose just before it wins over every
    other fence (earlier drafts).  ``alternatives``: ``"which"`` keeps the ``which`` fence;
    ``"contradictory"`` first sets aside test and usage blocks (asserts, ``def test_``, calls
    of what another block defines), then two different solution blocks offered as
    alternatives (they define the same function or class, or an "Alternatively"/"或者" stands
    between them) with no final marker make the output ``contradictory``.
    """

    which: Literal["first", "last"] = "last"
    languages: StrTuple = ()
    final_markers: StrTuple = ()
    alternatives: Literal["which", "contradictory"] = "which"

    @field_validator("languages")
    @classmethod
    def _lowercase(cls, languages: tuple[str, ...]) -> tuple[str, ...]:
        if any(not lang or lang != lang.lower() or lang.split() != [lang] for lang in languages):
            raise ValueError(f"languages must be lowercase single words, got {languages!r}")
        return languages


#: Flag names an ``extract_regex`` pattern may use (those of the ``regex`` module).
RegexFlag = Literal["IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE", "ASCII", "UNICODE"]


class ExtractRegexParams(Params):
    """``pattern``: a regular expression (``regex`` module syntax), supplied by the pack.

    ``group``: the capture group to keep, a number or a name; by default group 1 when the
    pattern has a group, else the whole match.  ``flags``: names such as ``IGNORECASE``,
    ``MULTILINE``, ``DOTALL``.  ``which``: ``last`` (the default: the last match is the
    final answer) or ``first``.  ``strip``: trim whitespace around what is kept.

    The pattern is checked when the pack loads (it must compile and have the group) and, as a
    user-supplied pattern, runs under the pack's ``regex_timeout`` on every call: a pattern
    that backtracks catastrophically gives the row status ``error``, never a hang.  A pattern
    proven linear when it is compiled (:mod:`normalize.limits._regex_proof`) runs without the
    timeout, as built-in patterns do: the same matches, without ~2.4 µs a call.
    """

    pattern: str
    group: int | str | None = None
    flags: Annotated[tuple[RegexFlag, ...], BeforeValidator(as_tuple)] = ()
    which: Literal["last", "first"] = "last"
    strip: bool = True

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        if not pattern:
            raise ValueError("pattern must not be empty")
        compile_pattern(pattern)  # ValueError naming the pattern when it does not compile
        return pattern

    @model_validator(mode="after")
    def _group_exists(self) -> ExtractRegexParams:
        compiled, _linear = user_compiled(self.pattern, self._flag_bits())  # proven (or not) at load time
        if isinstance(self.group, int) and not 0 <= self.group <= compiled.groups:
            raise ValueError(f"group {self.group} is not in pattern {self.pattern!r} ({compiled.groups} groups)")
        if isinstance(self.group, str) and self.group not in compiled.groupindex:
            raise ValueError(f"group {self.group!r} is not a named group of pattern {self.pattern!r}")
        return self

    def compiled(self) -> regex.Pattern[str]:
        return compile_pattern(self.pattern, self._flag_bits())

    def finditer(self, text: str, timeout: float) -> Iterator[regex.Match[str]]:
        """The pattern's matches in ``text``: under ``timeout`` seconds per call, or without a
        timeout when the pattern is proven linear (:func:`normalize.limits._regex.user_compiled`)."""
        compiled, linear = user_compiled(self.pattern, self._flag_bits() if self.flags else 0)
        if linear:
            return compiled.finditer(text)
        return compiled.finditer(text, timeout=timeout)

    def _flag_bits(self) -> int:
        flags = 0
        for name in self.flags:
            flags |= int(getattr(regex, name))
        return flags

    def chosen_group(self) -> int | str:
        if self.group is not None:
            return self.group
        return 1 if self.compiled().groups else 0


#: The kinds of answer format the ``extract_answer_format`` rule reads; ``verdict`` entries (a
#: judge's verdict shapes) are held by the same ``formats:`` section for the judge parser.
EXTRACT_FORMAT_KINDS: Final = ("tags", "header")
FORMAT_KINDS: Final = (*EXTRACT_FORMAT_KINDS, "verdict")


class AnswerFormat(Params):
    """One named answer format of a pack's ``formats:`` section, as ``extract_answer_format``
    reads it.

    ``kind``: ``tags`` — the answer is what ``open`` and ``close`` enclose (``<answer>…</answer>``;
    an ``open`` with no ``close`` after it runs to the end of the text: the output was cut
    short); ``header`` — the answer follows ``open`` up to the first of ``ends`` (end tokens
    such as ``<eoa>``), a blank line or the end of the text.  ``open``, ``close`` and ``ends``
    are regexes (``regex`` module syntax, matched ignoring case).  ``tier``: 1 is the strongest;
    the best tier with a non-empty answer wins, and within it the last one.
    """

    name: str
    kind: Literal["tags", "header"]
    tier: int = Field(ge=1, le=9)
    open: str
    close: str = ""
    ends: StrTuple = ()

    @model_validator(mode="after")
    def _well_formed(self) -> AnswerFormat:
        if not self.open:
            raise ValueError(f"format {self.name!r}: open must not be empty")
        if self.kind == "tags" and not self.close:
            raise ValueError(f"format {self.name!r}: a tags format needs close")
        if self.kind == "header" and self.close:
            raise ValueError(f"format {self.name!r}: a header format ends with ends, not close")
        for pattern in (self.open, self.close, *self.ends):
            if pattern:
                compile_pattern(pattern, regex.IGNORECASE)  # ValueError naming a pattern that does not compile
        if any(not end for end in self.ends):
            raise ValueError(f"format {self.name!r}: an end token must not be empty")
        return self


class AnswerFormatParams(Params):
    """``formats``: names of entries of the pack's ``formats:`` section, or ``"*"`` for every
    ``tags`` and ``header`` entry; ``entries``: those entries, filled when the pack loads (or
    given directly)."""

    formats: StrTuple = ("*",)
    entries: tuple[AnswerFormat, ...] = ()
