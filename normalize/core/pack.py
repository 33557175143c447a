"""Rule packs: YAML files resolved into per-task-type chains, versioned by a hash.

A pack maps task names (``gsm8k``) to task types (``math``); each task type has a chain of
rules in stage order and a strict parser.  ``Pack.hash`` is the sha256 of the canonical JSON
of everything that decides an output, so a number is always tied to exact rules.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Final, Literal

import regex
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from normalize import status as st
from normalize._version import __version__
from normalize.core._frozen import check_plain_frozen
from normalize.core._yaml import Document, load_yaml
from normalize.core.engine import (
    DEFAULT_MAX_INPUT_BYTES,
    Chain,
    Result,
    RuleSpec,
    TraceStep,
    admit,
    build_spec,
    check_stage_order,
    replay,
    run_specs,
)
from normalize.core.registry import (
    DEFAULT_TIMEOUT,
    REGISTRY,
    Params,
    ParseContext,
    SectionError,
)
from normalize.core.tasktypes import FAMILIES
from normalize.errors import CheckSectionError, PackError, RejectText, UsageError
from normalize.io.row import Options, read_options_value
from normalize.limits._budget import (
    DEFAULT_ROW_BUDGET,
    BudgetExceeded,
    end_budget,
    restart_budget,
    start_budget_wall,
)
from normalize.limits._jsonschema import SchemaRefError, bundle, check_schema
from normalize.rules.extract import TRUNCATED_REASONING
from normalize.values._abstention import AbstentionSpec
from normalize.values._abstention import build_spec as build_abstention
from normalize.values._abstention import decide as decide_abstention
from normalize.values._json import canonical_json

check_plain_frozen(ParseContext)

PACK_FORMAT = 1
#: ``include: [shipped:languages/en.yaml]`` reads a file of the shipped packs' folder.
SHIPPED_PREFIX = "shipped:"
_SHORT = 12


# --------------------------------------------------------------------------- file models


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Settings(_Strict):
    """Pack-wide limits, every one part of the hash: each can change a row's status.

    ``regex_timeout`` (seconds per call of a user-supplied pattern), ``max_input_bytes``, and
    ``row_budget`` (CPU seconds per row, chain and parser each): a backstop that no row of a
    shipped rule comes near, but a pack that sets it low turns rows into ``error``, so two
    packs that differ in it must not share a hash.  (Operational choices that cannot change a
    result, like the number of jobs, are not pack settings.)
    """

    regex_timeout: float = Field(DEFAULT_TIMEOUT, gt=0, le=60)
    max_input_bytes: int = Field(DEFAULT_MAX_INPUT_BYTES, gt=0, le=1 << 30)
    row_budget: float = Field(DEFAULT_ROW_BUDGET, gt=0, le=3600)


class _RuleEntry(_Strict):
    rule: str
    version: int | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class _ParserEntry(_Strict):
    name: str
    version: int | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class _AbstentionEntry(_Strict):
    languages: list[str] = Field(min_length=1)
    #: ``unparsed``: only rows the parser read no answer from; ``always``: parsed answers too.
    when: Literal["unparsed", "always"] = "unparsed"


class _TaskEntry(_Strict):
    """A task that maps to a task type with its own parser params (``mode: multi_select``)."""

    type: str
    parser_params: dict[str, Any] = Field(default_factory=dict)


class _TaskTypeEntry(_Strict):
    #: The family a task type of the pack's own shares (parsers' kind, rule scopes, metrics and
    #: target reader): one of :data:`normalize.core.tasktypes.FAMILIES`.  A built-in task type is
    #: its own family (it may say so, nothing else).
    family: str | None = None
    chain: list[str | _RuleEntry]
    parser: str | _ParserEntry
    description: str = ""
    #: Read whole-answer abstentions (``I don't know``) as status ``abstained``: the phrases of
    #: these languages from the pack's ``abstention:`` section (see :mod:`normalize.values._abstention`).
    abstention: _AbstentionEntry | None = None


class _PackFile(_Strict):
    name: str = "unnamed"
    description: str = ""
    extends: str | None = None
    modules: list[str] = Field(default_factory=list)
    include: list[str] = Field(default_factory=list)
    settings: Settings = Field(default_factory=Settings)
    tasks: dict[str, str | _TaskEntry] = Field(default_factory=dict)
    task_types: dict[str, _TaskTypeEntry] = Field(default_factory=dict)
    languages: dict[str, dict[str, Any]] = Field(default_factory=dict)
    formats: dict[str, dict[str, Any]] = Field(default_factory=dict)
    aliases: dict[str, list[list[str]]] = Field(default_factory=dict)
    schemas: dict[str, dict[str, Any]] = Field(default_factory=dict)
    scoring: dict[str, dict[str, Any]] = Field(default_factory=dict)
    check: dict[str, Any] = Field(default_factory=dict)
    abstention: dict[str, dict[str, Any]] = Field(default_factory=dict)


_MERGED_SECTIONS = ("tasks", "task_types", "languages", "formats", "aliases", "schemas", "scoring", "abstention")


# --------------------------------------------------------------------------- resolved pack


@dataclass(frozen=True)
class ParserSpec:
    """The strict parser of a task type, at a version, with frozen params."""

    name: str
    version: int
    params: Params

    def to_json(self) -> dict[str, Any]:
        return {"parser": self.name, "version": self.version, "params": self.params.model_dump(mode="json")}


@dataclass(frozen=True)
class TaskType:
    """A task type's resolved chain and parser, and its family (see :mod:`normalize.core.tasktypes`)."""

    name: str
    chain: Chain
    parser: ParserSpec
    #: The abstention phrases the task type reads after its chain, or None (no abstention).
    abstention: AbstentionSpec | None = None
    #: The family whose rule scopes, metrics and target reader the task type shares; ``""``
    #: (the default) stands for the type's own name, as for every built-in type.
    family: str = ""

    def __post_init__(self) -> None:
        if not self.family:
            object.__setattr__(self, "family", self.name)

    def to_json(self) -> dict[str, Any]:
        # a built-in type is its own family: the family is written only when it says more than
        # the name, so the hash of a pack of built-in types is what it was before families
        out: dict[str, Any] = {} if self.family == self.name else {"family": self.family}
        out |= {"chain": self.chain.to_json(), "parser": self.parser.to_json()}
        if self.abstention is not None:
            out["abstention"] = self.abstention.to_json()
        return out


#: Languages every shipped chain reads without a row's ``lang`` (``languages: [en, zh, lang]``).
_READ_BY_DEFAULT = frozenset({"en", "zh"})
#: Task types whose chains read answer markers (a row is read again in a guessed language).
_MARKED_TYPES = frozenset({"multiple_choice", "math", "extractive_qa"})
#: A run of letters in a marker pattern (``antwort`` of ``antwort\s*[:：]``).
_LETTER_RUN = regex.compile(r"\p{L}{2,}")


#: How an extraction that found the answer stated records it (``extra["found_by"]``).
_STATED: Final = ("marker", "boxed")


def _unstated(result: Result) -> bool:
    """Whether a result states no answer: none, two, or only a solution's last number."""
    if result.status in (st.NO_ANSWER, st.CONTRADICTORY):
        return result.reason is None or TRUNCATED_REASONING not in result.reason
    return result.status == st.OK and result.extra.get("found_by") == "last_number"


@dataclass(frozen=True)
class Pack:
    """A resolved rule pack.  Build one with :func:`load_pack`."""

    name: str
    settings: Settings
    tasks: Mapping[str, str]
    task_types: Mapping[str, TaskType]
    aliases: Mapping[str, tuple[tuple[str, ...], ...]]
    schemas: Mapping[str, Any]
    scoring: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    check_config: Mapping[str, Any] = field(default_factory=dict)
    #: What rules' ``resolve`` hooks read (languages, schemas, aliases), as resolved at load time.
    resources: Mapping[str, Any] = field(default_factory=dict)
    #: Python modules the pack imported rules from (each allowed on the command line).
    modules: tuple[str, ...] = ()
    #: Each task type's chain entries as the pack wrote them: (rule, params), re-resolved for a
    #: row's language by :meth:`chain_for_lang`.
    chain_entries: Mapping[str, tuple[tuple[str, Mapping[str, Any]], ...]] = field(default_factory=dict)
    #: Tasks whose parser differs from their task type's (the pack's ``tasks: {T: {type, parser_params}}``).
    task_parsers: Mapping[str, ParserSpec] = field(default_factory=dict)
    #: :meth:`chain_for_lang`'s chains, by task type and primary language (filled as rows ask).
    #: Not an init field, so a pack made by ``dataclasses.replace`` (the reverse check, ``normalize
    #: diff``) starts with an empty cache instead of sharing chains narrowed from another chain.
    _lang_chains: dict[tuple[str, str], Chain] = field(default_factory=dict, compare=False, repr=False, init=False)

    # ---- identity

    def resolved(self) -> dict[str, Any]:
        """Everything that decides an output, as plain JSON data (what the hash covers)."""
        return {
            "format": PACK_FORMAT,
            "settings": self.settings.model_dump(mode="json"),
            "tasks": dict(sorted(self.tasks.items())),
            "task_types": {name: t.to_json() for name, t in sorted(self.task_types.items())},
            "aliases": {k: [list(g) for g in v] for k, v in sorted(self.aliases.items())},
            "schemas": dict(sorted(self.schemas.items())),
            "scoring": {k: dict(v) for k, v in sorted(self.scoring.items())},
            "task_parsers": {k: v.to_json() for k, v in sorted(self.task_parsers.items())},
            # what a row's lang narrows a chain to (see chain_for_lang), and the verdict shapes
            # no chain step holds
            "languages": dict(sorted(self.resources.get("languages", {}).items())),
            "formats": dict(sorted(self.resources.get("formats", {}).items())),
            "unicode": unicodedata.unidata_version,
        } | ({"modules": sorted(self.modules)} if self.modules else {})

    @cached_property
    def hash(self) -> str:
        """``sha256:`` + hex digest of the canonical JSON of :meth:`resolved` (computed once)."""
        return "sha256:" + hashlib.sha256(canonical_json(self.resolved()).encode("utf-8")).hexdigest()

    @property
    def short_hash(self) -> str:
        return self.hash.split(":", 1)[1][:_SHORT]

    @cached_property
    def signature(self) -> str:
        """A readable signature: library version, Unicode version, each chain, short hash."""
        return self.signature_for(self.task_types)

    def signature_for(self, task_types: Iterable[str]) -> str:
        """The signature printed beside a score: only the chains of ``task_types`` (those
        scored), then the short hash of the whole pack (which pins everything else).

        >>> load_pack().signature_for(["multiple_choice"]).split("|")[3].split(":")[0]
        'multiple_choice'
        """
        parts = [f"harness-normalize:{__version__}", f"pack:{self.name}", f"unicode:{unicodedata.unidata_version}"]
        for name in sorted(set(task_types)):
            t = self.task_types.get(name)
            if t is None:
                continue
            rules = ",".join(f"{s.name}.v{s.version}" for s in t.chain.specs)
            parts.append(f"{name}:[{rules}]->{t.parser.name}.v{t.parser.version}")
        parts.append(f"hash:{self.short_hash}")
        return "|".join(parts)

    # ---- running

    def family_of(self, task: str) -> str:
        """The family of a task name's or a task type name's type; ``UsageError`` if unknown.

        >>> load_pack().family_of("squad")
        'extractive_qa'
        """
        return self.task_types[self.task_type_of(task)].family

    def task_type_of(self, task: str) -> str:
        """The task type for a task name or a task type name; ``ValueError`` if unknown."""
        if task in self.task_types:
            return task
        if task in self.tasks:
            return self.tasks[task]
        close = difflib.get_close_matches(task, [*self.tasks, *self.task_types], n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UsageError(f"unknown task {task!r}: not a task type or a task in pack {self.name!r}{hint}")

    def chain(
        self, task: str, *, schema: Mapping[str, Any] | str | None = None, lang: str | None = None
    ) -> Chain:
        """The chain of ``task``'s type; for a row's ``lang``, narrowed to it
        (:meth:`chain_for_lang`); with a row ``schema``, the chain that applies it."""
        task_type = self.task_type_of(task)
        chain = self.task_types[task_type].chain if lang is None else self.chain_for_lang(task_type, lang)
        return chain if schema is None else self._with_row_schema(chain, schema)

    def chain_for_lang(self, task_type: str, lang: str | None) -> Chain:
        """The chain of ``task_type`` for a row whose language is ``lang``.

        The rules that read the pack's languages (a ``resolve`` hook and a ``languages``
        param: the marker rules) are resolved again with the row's primary language tag (``pt``
        of ``pt-br``): ``lang`` in their ``languages`` stands for it, and what they list is
        narrowed to it and English (:func:`normalize.rules.extract_markers.marker_languages`; the shipped
        chains list ``[en, zh, lang]``).  A language the pack does not define, or ``None``,
        leaves the chain as the pack wrote it.  Deterministic
        from the hashed configuration (the languages are part of the hash), so a result that
        records its ``lang`` replays with the same chain.

        >>> pack = load_pack()
        >>> pack.chain_for_lang("math", "xx-yy") is pack.task_types["math"].chain
        True
        """
        base = self.task_types[task_type].chain
        if lang is None:
            return base
        primary = lang.split("-", 1)[0]
        languages = self.resources.get("languages", {})
        if primary not in languages:
            return base
        key = (task_type, primary)
        chain = self._lang_chains.get(key)
        if chain is None:
            chain = self._lang_chains[key] = self._narrowed(task_type, base, primary)
        return chain

    def _narrowed(self, task_type: str, base: Chain, primary: str) -> Chain:
        entries = self.chain_entries.get(task_type)
        if entries is None or len(entries) != len(base.specs):
            return base
        resources = {**self.resources, "lang": primary}
        specs: list[RuleSpec] = []
        for spec, (name, params) in zip(base.specs, entries, strict=True):
            definition = REGISTRY.rules.get(name)
            if definition is None or definition.resolve is None or "languages" not in definition.params_model.model_fields:
                specs.append(spec)
                continue
            if build_spec(name, params, self.resources) != spec:  # a chain changed after loading (replace):
                specs.append(spec)  # its entry no longer says what this step is, so it is not narrowed
                continue
            narrowed = build_spec(name, params, resources)
            specs.append(spec if narrowed == spec else narrowed)
        return Chain(tuple(specs))

    def _with_row_schema(self, chain: Chain, schema: Mapping[str, Any] | str) -> Chain:
        """``chain`` with a row's JSON Schema applied exactly like a pack schema.

        The chain's ``align_json_schema`` step (if any) gets the row's schema in place of its
        own, keeping its other params; a chain without one gets a default step right after its
        last structure rule.  A string names a schema of the pack's ``schemas:`` section.  A
        chain that does not parse JSON, or a schema that is not valid JSON Schema (draft
        2020-12), raises ``ValueError`` naming the problem.
        """
        from normalize.rules.structure import AlignSchemaParams, resolve_schema

        specs = list(chain.specs)
        stages = [s.stage for s in specs]
        if "structure" not in stages:
            raise ValueError("a row schema needs a chain that parses JSON (structure rules); this one has none")
        if isinstance(schema, str):
            base = AlignSchemaParams(schema_name=schema)
        elif isinstance(schema, Mapping):
            base = AlignSchemaParams(schema_body=dict(schema))
        else:
            raise ValueError(f"a row schema must be a JSON Schema object or a schema name, got {schema!r}")
        existing = next((i for i, s in enumerate(specs) if s.name == "align_json_schema"), None)
        if existing is not None:
            own = specs[existing].params.model_dump(by_alias=False)
            own.pop("schema_name", None)
            own.pop("schema_body", None)
            base = base.model_copy(update=own)
        params = resolve_schema(base, {"schemas": self.schemas})
        step = RuleSpec("align_json_schema", REGISTRY.rule("align_json_schema").version, params)
        if existing is not None:
            specs[existing] = step
        else:
            last_structure = max(i for i, stage in enumerate(stages) if stage == "structure")
            specs.insert(last_structure + 1, step)
        return Chain(tuple(specs))

    def run(
        self,
        text: str | None,
        task: str,
        *,
        options: Sequence[str] | int | None = None,
        task_type: str | None = None,
        schema: Mapping[str, Any] | str | None = None,
        lang: str | None = None,
        reasoning: str | None = None,
        trace: bool = True,
    ) -> Result:
        """Normalize one output and parse it strictly (``task_type``: already resolved from ``task``).

        ``options``: the row's option texts or count (read by
        :func:`normalize.io.row.read_options_value`: ``4.0`` or a numpy integer is a count).
        ``schema``: the row's own JSON Schema (or a name in the pack's ``schemas:``), applied
        like a pack schema; it is kept in ``result.extra["schema"]`` so the result replays.  A
        bad ``options`` or ``schema`` gives status ``invalid`` naming it.
        ``lang``: the row's language tag (read by :func:`normalize.io.row.read_lang`): the chain is
        narrowed to it (:meth:`chain_for_lang`) and it is passed to the parser; when given it is
        kept in ``result.extra["lang"]`` so the result replays.
        ``reasoning``: reasoning the server returned apart (``reasoning_content``): never read
        for an answer, kept in ``result.extra["reasoning_content"]``; with an empty output it
        makes the row ``no_answer`` with the reason ``truncated_reasoning`` (the budget ran out
        while the model was still reasoning).
        ``trace=False``: no trace steps are built (``result.trace`` is ``()``), for a caller that
        drops the trace (``normalize run --trace none``); every other field is the same.

        >>> r = load_pack().run("The answer is (B).", task="multiple_choice", options=4)
        >>> r.answer, r.status
        ('B', 'ok')
        >>> r = load_pack().run('{"age": "87"}', "structured_json",
        ...                     schema={"properties": {"age": {"type": "integer"}}})
        >>> r.answer, [step.rule for step in r.trace]
        ({'age': 87}, ['parse_json', 'align_json_schema'])

        A row without ``lang`` reads the chains as written (English and Chinese markers); when
        that states no answer (no answer, contradictory, or only a solution's last number) and
        the output holds a marker word of another language of the pack, the row is read again
        as that language (:meth:`guess_langs`), and that reading is kept when it states an
        answer (``extra["lang"]`` and ``extra["lang_guessed"]`` record it, so it replays):

        >>> r = load_pack().run("Ответ: 72.\\nПроверка: 24 в мае.", "gsm8k")
        >>> r.answer, r.extra["lang"], r.extra["lang_guessed"]
        ('72', 'ru', True)
        """
        result = self._run_once(text, task, options=options, task_type=task_type, schema=schema, lang=lang,
                                reasoning=reasoning, record=trace)
        if (lang is not None or text is None or not _unstated(result)
                or self.task_types[result.task_type].family not in _MARKED_TYPES):
            return result
        refused: Result | None = None
        for guessed in self.guess_langs(text):
            again = self._run_once(text, task, options=options, task_type=result.task_type, schema=schema,
                                   lang=guessed, reasoning=reasoning, record=trace)
            # a statement the first reading found and refused is not read again under a guessed
            # language ("Final answer: A 0.00" as Spanish: "A" a word, 0.00 a number): only
            # another statement, found by that language's markers, may answer instead
            same = result.extra.get("found_by") in _STATED and again.text == result.text
            if not _unstated(again) and not same:
                return replace(again, extra={**again.extra, "lang_guessed": True})
            if refused is None and again.status != st.OK and again.extra.get("found_by") in _STATED:
                refused = again
        if refused is not None and result.status == st.OK:
            # "Ответ: 18, если 9 яиц.": the marker of the language found a statement the parser
            # refuses (a condition); the whole text's last number (9) is no answer instead of it
            return replace(refused, extra={**refused.extra, "lang_guessed": True})
        return result

    @cached_property
    def _lang_anchors(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Per language of the pack other than those every chain reads, the words of its answer
        markers (every run of letters, four or more in a Latin word, case-folded): a marker
        cannot match without one of them, optional words included, so none is missed."""
        out: list[tuple[str, tuple[str, ...]]] = []
        for name, spec in sorted(self.resources.get("languages", {}).items()):
            if name in _READ_BY_DEFAULT or not isinstance(spec, Mapping):
                continue
            words: set[str] = set()
            for tier in spec.get("answer_markers") or ():
                for pattern in tier if isinstance(tier, (list, tuple)) else ():
                    for run in _LETTER_RUN.findall(str(pattern).replace("\\s", " ")):
                        if len(run) >= 4 or not run.isascii():
                            words.add(run.casefold())
            if words:
                out.append((name, tuple(sorted(words))))
        return tuple(out)

    def guess_langs(self, text: str) -> list[str]:
        """The languages of the pack (beyond English and Chinese) whose answer-marker words occur
        in ``text``: a cheap screen, each a candidate the row is read again as.

        >>> load_pack().guess_langs("Respuesta: B"), load_pack().guess_langs("The answer is B")
        (['es'], [])
        """
        ascii_words, other_words, anchors, unused, first_chars = self._lang_screen
        folded = text.casefold()  # of an ASCII text, its lower case
        # the ASCII words in the text's bytes, each other character one "?" (no word holds one):
        # a byte search, not a search of a wide string; each first looked for in those bytes
        # with every byte no word holds deleted (a word's occurrence stays whole there, so one
        # absent there is absent; the shorter bytes are searched faster); the other words only
        # where their first non-ASCII character occurs
        encoded = folded.encode("ascii", "replace")
        letters = encoded.translate(None, unused)
        found = {word for word, pattern in ascii_words if pattern in letters and pattern in encoded}
        if not folded.isascii():
            present = {char for char in first_chars if char in folded}
            if present:
                found.update(word for word, char in other_words if char in present and word in folded)
        if not found:
            return []
        return [name for name, words in anchors if not found.isdisjoint(words)]

    @cached_property
    def _lang_screen(
        self,
    ) -> tuple[tuple[tuple[str, bytes], ...], tuple[tuple[str, str], ...], tuple[tuple[str, frozenset[str]], ...],
               bytes, tuple[str, ...]]:
        """:attr:`_lang_anchors` as :meth:`guess_langs` reads them: the distinct ASCII words
        (with their bytes), the distinct other words (with their first non-ASCII character),
        each language's words as a set, the bytes no ASCII word holds, and the distinct first
        non-ASCII characters of the other words."""
        words = sorted({word for _, group in self._lang_anchors for word in group})
        for word in words:  # what the byte screen relies on (letter runs hold no "?")
            if not word or "?" in word:
                raise PackError(f"language anchor word {word!r} cannot be screened")
        ascii_words = tuple((w, w.encode("ascii")) for w in words if w.isascii())
        other_words = tuple((w, next(c for c in w if not c.isascii())) for w in words if not w.isascii())
        held = {byte for _, pattern in ascii_words for byte in pattern}
        unused = bytes(byte for byte in range(256) if byte not in held)
        first_chars = tuple(dict.fromkeys(char for _, char in other_words))
        return (ascii_words, other_words, tuple((name, frozenset(group)) for name, group in self._lang_anchors),
                unused, first_chars)

    def _run_once(
        self,
        text: str | None,
        task: str,
        *,
        options: Sequence[str] | int | None = None,
        task_type: str | None = None,
        schema: Mapping[str, Any] | str | None = None,
        lang: str | None = None,
        reasoning: str | None = None,
        record: bool = True,
    ) -> Result:
        if task_type is None or task_type not in self.task_types:
            task_type = self.task_type_of(task)
        t = self.task_types[task_type]
        extra: dict[str, Any] = {}
        chain = t.chain
        if lang is not None:
            extra["lang"] = lang
            chain = self.chain_for_lang(task_type, lang)
        if reasoning is not None:
            extra["reasoning_content"] = reasoning
            if isinstance(text, str) and not text.strip() and reasoning.strip():
                return Result(
                    raw=text, text=None, status=st.NO_ANSWER, trace=(), task=task, task_type=task_type,
                    reason=f"{TRUNCATED_REASONING}: the output is empty and its reasoning (reasoning_content, "
                    f"{len(reasoning)} characters) is never read for an answer",
                    rules_hash=self.hash, extra=extra,
                )
        if schema is not None:
            extra["schema"] = schema
            try:
                chain = self._with_row_schema(chain, schema)
            except ValueError as exc:
                return Result(
                    raw=text if isinstance(text, str) else None, text=None, status=st.INVALID,
                    reason=f"row schema: {exc}", trace=(), task=task, task_type=task_type,
                    rules_hash=self.hash, extra=extra,
                )
        settings = self.settings
        answer: Any = None
        admitted = admit(text, settings.max_input_bytes)
        if not isinstance(admitted, str):
            raw, normalized, status, reason, trace, notes = admitted
            extra.update(notes)
        else:
            # one budget for the row, started over for the parser: the chain and the parser
            # each get all of it (run_chain's outcome, without building it; then _parse)
            token, wall = start_budget_wall(settings.row_budget)
            try:
                raw, normalized, status, reason, trace, notes = run_specs(
                    chain, admitted, settings.regex_timeout, wall, record
                )
                extra.update(notes)
                if status == st.OK and normalized is not None:
                    restart_budget()
                    parser = self.task_parsers.get(task, t.parser) if self.task_parsers else t.parser
                    status, reason, answer, parsed_extra = self._parse(parser, normalized, options, notes, lang)
                    extra.update(parsed_extra)
                    # a stated answer stands, unless any text parses (``when: always``) or the
                    # answer is only a solution's last number (a final sentence may abstain)
                    if t.abstention is not None and (status == st.NO_ANSWER or (status == st.OK and (
                            t.abstention.when == "always" or extra.get("found_by") == "last_number"))):
                        status, reason, answer = self._abstain(t.abstention, normalized, status, reason, answer,
                                                               options, lang, extra, parsed=True)
                elif t.abstention is not None and status == st.NO_ANSWER and normalized is not None:
                    # the chain itself refused the text (a cut-off solution): a whole abstention still counts
                    status, reason, answer = self._abstain(t.abstention, normalized, status, reason, answer,
                                                           options, lang, extra, parsed=False)
            finally:
                end_budget(token)
        result: Result = object.__new__(Result)  # Result(...), built faster: see frozen_instance
        result.__dict__.update(
            raw=raw, text=normalized, status=status, reason=reason, trace=trace,
            task=task, task_type=task_type, answer=answer, rules_hash=self.hash, extra=extra,
        )  # fmt: skip
        return result

    def _abstain(
        self,
        spec: AbstentionSpec,
        text: str,
        status: st.Status,
        reason: str | None,
        answer: Any,
        options: Any,
        lang: str | None,
        extra: dict[str, Any],
        *,
        parsed: bool,
    ) -> tuple[st.Status, str | None, Any]:
        """The row's status, reason and answer after the abstention check (:mod:`normalize.values._abstention`)."""
        try:
            domain = options if options is None or options.__class__ is int else read_options_value(options)
        except ValueError:
            return status, reason, answer  # the parser already recorded the bad options
        try:
            decision = decide_abstention(spec, text, status, domain, lang, timeout=self.settings.regex_timeout,
                                         parsed=parsed, weak=extra.get("found_by") == "last_number")
        except TimeoutError:
            return st.ERROR, "abstention: regular expression timed out", None
        except BudgetExceeded as exceeded:
            return st.ERROR, f"abstention: {exceeded}", None
        if decision is None:
            return status, reason, answer
        extra.update(decision.extra)
        return decision.status, decision.reason, decision.answer

    def _parse(
        self,
        spec: ParserSpec,
        text: str,
        options: Any,
        notes: Mapping[str, Any] | None = None,
        lang: str | None = None,
    ) -> tuple[st.Status, str | None, Any, Mapping[str, Any]]:
        domain: Options
        if options is None or options.__class__ is int:
            domain = options  # what read_options_value gives for them, read without its checks
        else:
            try:
                domain = read_options_value(options)
            except ValueError as exc:
                return st.INVALID, f"parser {spec.name}: {exc}", None, {}
        settings = self.settings
        ctx: ParseContext = object.__new__(ParseContext)  # ParseContext(...): see frozen_instance
        ctx.__dict__.update(
            options=domain, timeout=settings.regex_timeout, notes=dict(notes) if notes else {}, lang=lang
        )
        definition = REGISTRY.parsers[spec.name]
        try:  # under the row's budget, started over for the parser (run)
            parsed = definition.fn(text, spec.params, ctx)
        except BudgetExceeded as exceeded:
            return st.ERROR, f"parser {spec.name}: {exceeded}", None, {}
        except RejectText as rejected:
            return rejected.status, f"parser {spec.name}: {rejected.reason}", None, {}
        except TimeoutError:
            return st.ERROR, f"parser {spec.name}: regular expression timed out", None, {}
        except ValueError as exc:  # bad per-row input such as an option count of 1
            return st.INVALID, f"parser {spec.name}: {exc}", None, {}
        except Exception as exc:  # a parser bug must not abort a batch: recorded as status error, as a rule's is
            return st.ERROR, f"parser {spec.name} raised {type(exc).__name__}: {exc}", None, {}
        if parsed.status != st.OK:
            return parsed.status, parsed.reason, None, parsed.extra
        return st.OK, None, parsed.answer, parsed.extra

    def run_many(
        self,
        texts: Iterable[str | None],
        task: str,
        *,
        options: Sequence[Sequence[str] | int | None] | Sequence[str] | int | None = None,
    ) -> list[Result]:
        """Run a batch; results come back in input order.  ``options`` may be one value for
        every row or a list with one entry per row (a list of texts is one value; a list of
        counts, lists or arrays — ``4.0`` and numpy values included — is one per row)."""
        items = list(texts)
        per_row: list[Any]
        if isinstance(options, (list, tuple)) and len(options) == len(items) and all(
            o is None or not isinstance(o, str) for o in options
        ):
            per_row = list(options)
        else:
            per_row = [options] * len(items)
        return [self.run(text, task, options=o) for text, o in zip(items, per_row, strict=True)]

    def replay(self, result: Result) -> str | None:
        """Reproduce ``result.text`` from ``result.raw`` using only its trace (and the row
        schema the result was run with, if any)."""
        if result.raw is None:
            return None
        lang = result.extra.get("lang")
        chain = self.chain(result.task_type, schema=result.extra.get("schema"), lang=lang if isinstance(lang, str) else None)
        return replay(chain, result.raw, result.trace, timeout=self.settings.regex_timeout)

    def alias_groups(self) -> tuple[tuple[str, ...], ...]:
        """Every alias group of every table, for matching (never for rewriting outputs)."""
        return tuple(group for _, groups in sorted(self.aliases.items()) for group in groups)


# --------------------------------------------------------------------------- loading


def default_pack_path() -> Path:
    """The shipped pack: ``normalize/_packs`` when installed, ``rules/`` in a source checkout."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "_packs" / "default.yaml", here.parent / "rules" / "default.yaml"):
        if candidate.is_file():
            return candidate
    raise PackError("the shipped rule packs are missing from this installation", file=str(here / "_packs"))


def load_pack(
    path: str | Path | None = None,
    *,
    allow_modules: Iterable[str] = (),
    allow_includes: Iterable[str | Path] = (),
) -> Pack:
    """Load and resolve a pack file (and its includes); the shipped packs when ``path`` is None.

    ``extends: shipped:default`` (or a path) starts from another pack: the extending file's
    tasks, task types, scoring settings, aliases, languages and schemas replace or add entries
    of the same name, its settings replace single limits, its ``check.reverse.accept`` entries
    are added.  ``modules:`` names Python modules whose rules the pack uses; each is imported
    only when it is in ``allow_modules`` (``--allow-module`` on the command line): a pack
    file alone never runs code.  Likewise a pack reads only files of its own folder and of the
    shipped packs' folder (``include``, ``extends``, schema files; symbolic links resolved):
    any other folder must be in ``allow_includes`` (``--allow-include DIR``).  Every problem
    raises :class:`PackError` naming the file, line and column.
    """
    root = Path(path) if path is not None else default_pack_path()
    if root.is_dir():
        root = root / "default.yaml"
    reach = _Reach.of(root, allow_includes)
    docs, merged, owner = _read_extended(root, (), reach)
    return _resolve(docs, merged, owner, frozenset(allow_modules), reach)


def _extends_target(doc: Document, value: Any, reach: _Reach) -> Path:
    """The file ``extends:`` names: ``shipped:default`` (the shipped pack), ``shipped:FILE`` or a path."""
    if not isinstance(value, str) or not value.strip():
        raise doc.error(("extends",), f"extends must name a pack: shipped:default or a relative path, got {value!r}")
    if value.startswith(SHIPPED_PREFIX):
        name = value[len(SHIPPED_PREFIX):]
        target = default_pack_path().parent / (name if name.endswith((".yaml", ".yml")) else f"{name}.yaml")
    else:
        target = Path(doc.file).parent / value
    if target.is_dir():
        target = target / "default.yaml"
    if not reach.allows(target):
        raise doc.error(("extends",), reach.outside("extended pack", value, target))
    if not target.is_file():
        raise doc.error(("extends",), f"extended pack {value!r} not found")
    return target


def _read_extended(
    root: Path, chain: tuple[Path, ...], reach: _Reach
) -> tuple[list[Document], dict[str, Any], dict[tuple[str, ...], Document]]:
    """The pack at ``root`` merged over the pack it extends (recursively)."""
    resolved = root.resolve()
    if resolved in chain:
        raise PackError("extends cycle: " + " → ".join(str(p) for p in (*chain, resolved)), file=str(root))
    docs = _read_with_includes(root, reach)
    merged, owner = _merge(docs)
    if "extends" not in merged:
        return docs, merged, owner
    target = _extends_target(docs[0], merged.pop("extends"), reach)
    base_docs, base, base_owner = _read_extended(target, (*chain, resolved), reach)
    return [*docs, *base_docs], _overlay(base, merged), {**base_owner, **owner}


def _overlay(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """``top`` over ``base``: named entries replace or add, settings per key, check entries add."""
    out: dict[str, Any] = {k: v for k, v in base.items() if k not in ("name", "description")}
    for key, value in top.items():
        if key in _MERGED_SECTIONS and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        elif key == "settings" and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        elif key == "modules" and isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = [*out[key], *(m for m in value if m not in out[key])]
        elif key == "check" and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _overlay_check(out[key], value)
        else:
            out[key] = value
    return out


def _overlay_check(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """Accepted leaks of both packs; the extending pack's entry wins for the same rule and task type."""
    base_accept = (base.get("reverse") or {}).get("accept") if isinstance(base.get("reverse"), dict) else None
    top_reverse = top.get("reverse")
    top_accept = top_reverse.get("accept") if isinstance(top_reverse, dict) else None
    if not isinstance(top_reverse, dict) or not isinstance(base_accept, list) or not isinstance(top_accept, list):
        return {**base, **top}

    def key(entry: Any) -> Any:
        return (entry.get("rule"), entry.get("task_type")) if isinstance(entry, dict) else id(entry)

    replaced = {key(e) for e in top_accept}
    accept = [e for e in base_accept if key(e) not in replaced] + list(top_accept)
    return {**base, **top, "reverse": {**base["reverse"], **top_reverse, "accept": accept}}


def _import_modules(names: Sequence[str], allowed: frozenset[str], fail: Any) -> tuple[str, ...]:
    """Import the rule modules a pack names, each only if the user allowed it."""
    import importlib

    for i, name in enumerate(names):
        if name not in allowed:
            raise fail(("modules", i), f"the pack imports Python module {name!r}; a pack alone never runs code: "
                                       f"allow it on the command line with --allow-module {name} "
                                       f"(load_pack(..., allow_modules=[{name!r}]) in Python)")
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise fail(("modules", i), f"cannot import rule module {name!r}: {exc}") from None
    return tuple(names)


def _read_doc(path: Path) -> Document:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PackError("pack file not found", file=str(path)) from None
    except UnicodeDecodeError as exc:
        raise PackError(f"pack file is not UTF-8: {exc}", file=str(path)) from None
    doc = load_yaml(text, str(path))
    if not isinstance(doc.value, dict):
        raise doc.error((), f"a pack file must be a mapping, got {type(doc.value).__name__}")
    return doc


def _read_with_includes(root: Path, reach: _Reach) -> list[Document]:
    docs: list[Document] = []
    seen: set[Path] = set()

    def visit(path: Path, chain: tuple[Path, ...]) -> None:
        resolved = path.resolve()
        if resolved in chain:
            raise PackError("include cycle: " + " → ".join(str(p) for p in (*chain, resolved)), file=str(path))
        if resolved in seen:
            return
        seen.add(resolved)
        doc = _read_doc(path)
        docs.append(doc)
        includes = doc.value.get("include", [])
        if not isinstance(includes, list) or not all(isinstance(i, str) for i in includes):
            raise doc.error(("include",), "include must be a list of relative file paths")
        for i, inc in enumerate(includes):
            if inc.startswith(SHIPPED_PREFIX):  # reuse the shipped overlays and alias tables
                target = default_pack_path().parent / inc[len(SHIPPED_PREFIX) :]
            else:
                target = path.parent / inc
            if not reach.allows(target):
                raise doc.error(("include", i), reach.outside("included file", inc, target))
            if not target.is_file():
                raise doc.error(("include", i), f"included file {inc!r} not found")
            visit(target, (*chain, resolved))

    visit(root, ())
    return docs


def _merge(docs: list[Document]) -> tuple[dict[str, Any], dict[tuple[str, ...], Document]]:
    """Merge included files section by section; a key defined twice is an error."""
    merged: dict[str, Any] = {}
    owner: dict[tuple[str, ...], Document] = {}
    root = docs[0]
    for doc in docs:
        for key, value in doc.value.items():
            if doc is not root and key not in (*_MERGED_SECTIONS, "include"):
                raise doc.error((key,), f"{key!r} may only appear in the root pack file {root.file}")
            if key in _MERGED_SECTIONS:
                if not isinstance(value, dict):
                    raise doc.error((key,), f"{key!r} must be a mapping")
                section = merged.setdefault(key, {})
                for name, item in value.items():
                    if name in section:
                        first = owner[(key, name)]
                        raise doc.error((key, name), f"{key}.{name} is already defined in {first.file}")
                    section[name] = item
                    owner[(key, name)] = doc
            elif key != "include":
                merged[key] = value
                owner[(key,)] = doc
    merged["include"] = root.value.get("include", [])
    return merged, owner


def _locate(owner: Mapping[tuple[str, ...], Document], root: Document, path: tuple[Any, ...]) -> Document:
    for n in (2, 1):
        key = tuple(str(p) for p in path[:n])
        if key in owner:
            return owner[key]
    return root


def _resolve(
    docs: list[Document],
    merged: dict[str, Any],
    owner: Mapping[tuple[str, ...], Document],
    allowed: frozenset[str],
    reach: _Reach,
) -> Pack:
    root = docs[0]

    def fail(path: tuple[Any, ...], message: str) -> PackError:
        return _locate(owner, root, path).error(tuple(path), message)

    modules = merged.get("modules", [])
    if not isinstance(modules, list) or not all(isinstance(m, str) and m for m in modules):
        raise fail(("modules",), f"modules must be a list of Python module names, got {modules!r}")
    imported = _import_modules(modules, allowed, fail)

    try:
        model = _PackFile.model_validate(merged)
    except ValidationError as exc:
        err = exc.errors()[0]
        path = tuple(err["loc"])
        # pydantic puts union branch names into loc; keep only real keys and indexes
        clean = tuple(p for p in path if isinstance(p, int) or p in _path_keys(merged, path))
        raise fail(clean, f"{'.'.join(map(str, clean)) or 'pack'}: {err['msg']}"
                   + (f" (got {err['input']!r})" if "input" in err and not isinstance(err["input"], dict) else "")) from None

    schemas = {
        name: _resolve_schema_refs(name, body, _locate(owner, root, ("schemas", name)), reach, fail)
        for name, body in model.schemas.items()
    }
    resources: dict[str, Any] = {
        "languages": model.languages,
        "formats": model.formats,
        "schemas": schemas,
        "aliases": model.aliases,
    }
    for table, groups in model.aliases.items():
        for gi, group in enumerate(groups):
            if len(group) < 2:
                raise fail(("aliases", table, gi), "an alias group needs at least two equivalent answers")
    task_types: dict[str, TaskType] = {}
    chain_entries: dict[str, tuple[tuple[str, Mapping[str, Any]], ...]] = {}
    for type_name, entry in model.task_types.items():
        family = _family_of(type_name, entry.family, fail)
        specs = tuple(
            _resolve_rule(item, ("task_types", type_name, "chain", i), resources, fail)
            for i, item in enumerate(entry.chain)
        )
        try:
            check_stage_order(specs)
        except ValueError as exc:
            bad = next(i for i, s in enumerate(specs) if f"rule {s.name!r}" in str(exc))
            raise fail(("task_types", type_name, "chain", bad), str(exc)) from None
        parser = _resolve_parser(entry.parser, ("task_types", type_name, "parser"), fail)
        abstention = None
        if entry.abstention is not None:
            try:
                abstention = build_abstention(entry.abstention.languages, model.abstention, entry.abstention.when)
            except ValueError as exc:
                raise fail(("task_types", type_name, "abstention"), str(exc)) from None
        task_types[type_name] = TaskType(type_name, Chain(specs), parser, abstention, family)
        chain_entries[type_name] = tuple(
            (item, {}) if isinstance(item, str) else (item.rule, dict(item.params)) for item in entry.chain
        )
    tasks: dict[str, str] = {}
    task_parsers: dict[str, ParserSpec] = {}
    for task, task_entry in model.tasks.items():
        type_name = task_entry if isinstance(task_entry, str) else task_entry.type
        tasks[task] = type_name
        if type_name not in task_types:
            close = difflib.get_close_matches(type_name, list(task_types), n=1)
            raise fail(("tasks", task), f"task {task!r} maps to unknown task type {type_name!r}"
                       + (f"; did you mean {close[0]!r}?" if close else ""))
        if not isinstance(task_entry, str) and task_entry.parser_params:
            base = task_types[type_name].parser
            definition = REGISTRY.parser(base.name)
            try:
                params = definition.params_model.model_validate({**base.params.model_dump(), **task_entry.parser_params})
            except ValidationError as exc:
                err = exc.errors()[0]
                raise fail(("tasks", task, "parser_params"), f"task {task!r}: parser {base.name!r} parameter "
                           f"{'.'.join(map(str, err['loc']))}: {err['msg']}") from None
            task_parsers[task] = ParserSpec(base.name, base.version, params)
    _validate_check_section(model.check, task_types, fail)
    kinds = {**{t: t for t in task_types}, **tasks}
    families = {name: t.family for name, t in task_types.items()}
    for section_name, validator in REGISTRY.sections.items():
        value = merged.get(section_name)
        try:
            validator(value if isinstance(value, dict) else {}, kinds, families)
        except SectionError as exc:
            raise fail(exc.path if exc.outside else (section_name, *exc.path), str(exc)) from None
    return Pack(
        name=model.name,
        settings=model.settings,
        tasks=tasks,
        task_parsers=task_parsers,
        task_types=task_types,
        aliases={k: tuple(tuple(g) for g in v) for k, v in model.aliases.items()},
        schemas=schemas,
        scoring={k: dict(v) for k, v in model.scoring.items()},
        sources=tuple(d.file for d in docs),
        check_config=dict(model.check),
        resources=resources,
        modules=imported,
        chain_entries=chain_entries,
    )


@dataclass(frozen=True)
class _Reach:
    """The folders a pack may read files from: its own folder, the shipped packs' folder, and
    the folders the caller allowed (``allow_includes``, ``--allow-include DIR``).

    Paths are resolved (symbolic links followed, ``..`` removed) before they are compared, so a
    link inside the folder that points out of it is outside.
    """

    pack_dir: Path
    roots: tuple[Path, ...]

    @classmethod
    def of(cls, root: Path, allowed: Iterable[str | Path] = ()) -> _Reach:
        pack_dir = root.parent.resolve()
        roots = [pack_dir]
        try:
            roots.append(default_pack_path().parent.resolve())
        except PackError:
            pass  # no shipped packs in this installation: nothing of theirs can be read
        roots.extend(Path(a).expanduser().resolve() for a in allowed)
        return cls(pack_dir, tuple(roots))

    def allows(self, path: Path) -> bool:
        resolved = path.resolve()
        return any(resolved.is_relative_to(r) for r in self.roots)

    def outside(self, what: str, written: str, path: Path) -> str:
        """The error for a file outside every allowed folder: the path, and the flag that allows it."""
        resolved = path.resolve()
        folder = resolved.parent
        return (f"{what} {written!r} is outside the pack's folder {self.pack_dir} and the shipped packs "
                f"(it resolves to {resolved}); a pack reads only its own files: allow that folder with "
                f"--allow-include {folder} (load_pack(..., allow_includes=[{str(folder)!r}]) in Python)")


def _read_schema_file(uri: str, base: Path, reach: _Reach) -> Any:
    """The document a pack schema's ``$ref`` names: a JSON (or YAML) file of the pack's folder.

    ``uri`` is the reference as resolved against the schema's base URI; only a relative path
    (no scheme, no host) names a file, read relative to the folder of the pack file that
    defines the schema.  Anything else raises ``ValueError``: nothing is fetched.
    """
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(uri)
    if parts.scheme or parts.netloc or not parts.path:
        raise ValueError(f"it points outside the pack (to {uri}): a pack schema refers only to itself "
                         "and to files of the pack's folder, by relative path (nothing is fetched)")
    path = base / unquote(parts.path)
    if not reach.allows(path):
        raise ValueError(reach.outside("schema file", uri, path))
    if not path.is_file():
        raise ValueError(f"schema file {uri!r} not found ({path})")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"schema file {uri!r} cannot be read: {exc}") from None
    if path.suffix in (".yaml", ".yml"):
        try:
            return load_yaml(text, str(path)).value
        except PackError as exc:
            raise ValueError(str(exc)) from None

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not allowed in strict JSON")

    try:
        return json.loads(text, parse_constant=no_constant)
    except ValueError as exc:
        raise ValueError(f"schema file {uri!r} ({path}) is not JSON: {exc}") from None


def _resolve_schema_refs(name: str, body: dict[str, Any], doc: Document, reach: _Reach, fail: Any) -> dict[str, Any]:
    """A pack schema with the files its ``$ref``s name embedded (so the hash covers them), checked.

    A reference that leaves the schema and the pack's folder, or does not resolve, is a
    load error at the schema.
    """
    base = Path(doc.file).parent

    def where(exc: ValueError) -> tuple[Any, ...]:
        found = _ref_path(body, exc.ref) if isinstance(exc, SchemaRefError) else None
        return ("schemas", name, *(found or ()))

    try:
        bundled = bundle(body, lambda uri: _read_schema_file(uri, base, reach))
    except ValueError as exc:
        raise fail(where(exc), f"schema {name!r}: {exc}") from None
    try:
        check_schema(bundled, name)
    except ValueError as exc:
        raise fail(where(exc), str(exc)) from None
    return dict(bundled)


def _ref_path(schema: Any, ref: str) -> tuple[Any, ...] | None:
    """The path of the first ``$ref``/``$dynamicRef`` equal to ``ref`` in ``schema`` (for a line number)."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(schema, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key in ("$ref", "$dynamicRef"):
                if node.get(key) == ref:
                    return (*path, key)
            stack.extend((v, (*path, k)) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in reversed(list(enumerate(node))))
    return None


def _family_of(type_name: str, written: str | None, fail: Any) -> str:
    """The family of the pack's task type ``type_name`` (``family:`` as written, or None)."""
    if type_name in FAMILIES:
        if written is not None and written != type_name:
            raise fail(("task_types", type_name, "family"),
                       f"{type_name} is a built-in task type, its own family; it cannot be of family {written!r}")
        return type_name
    if written is None:
        raise fail(("task_types", type_name),
                   f"unknown task type {type_name!r}: a task type that is not built in names the family it "
                   f"shares (family: one of {', '.join(FAMILIES)}){_suggest(type_name, FAMILIES)}")
    if written not in FAMILIES:
        raise fail(("task_types", type_name, "family"),
                   f"task type {type_name!r}: unknown family {written!r}; families are "
                   f"{', '.join(FAMILIES)}{_suggest(written, FAMILIES)}")
    return written


def _validate_check_section(config: Mapping[str, Any], task_types: Mapping[str, TaskType], fail: Any) -> None:
    """``check:`` holds ``reverse: accept:`` entries of reviewed out-of-scope effects."""

    def bad(path: tuple[Any, ...], message: str) -> CheckSectionError:
        err = fail(("check", *path), message)
        return CheckSectionError(err.message, file=err.file, line=err.line, column=err.column)

    unknown = set(config) - {"reverse"}
    if unknown:
        raise bad((sorted(unknown)[0],), f"pack check section: unknown keys {sorted(unknown)}; allowed: ['reverse']")
    reverse = config.get("reverse", {})
    if not isinstance(reverse, dict):
        raise bad(("reverse",), f"pack check.reverse must be a mapping, got {reverse!r}")
    unknown = set(reverse) - {"accept"}
    if unknown:
        raise bad(("reverse", sorted(unknown)[0]),
                  f"pack check.reverse: unknown keys {sorted(unknown)}; allowed: ['accept']")
    entries = reverse.get("accept", [])
    if not isinstance(entries, list):
        raise bad(("reverse", "accept"), f"pack check.reverse.accept must be a list, got {entries!r}")
    seen: set[tuple[Any, Any]] = set()
    for i, entry in enumerate(entries):
        where = f"pack check.reverse.accept[{i}]"
        path = ("reverse", "accept", i)
        if not isinstance(entry, dict) or set(entry) != {"rule", "task_type", "reason"}:
            raise bad(path, f"{where}: needs exactly rule, task_type and reason, got {entry!r}")
        rule, task_type, reason = entry["rule"], entry["task_type"], entry["reason"]
        if rule not in REGISTRY.rules:
            raise bad((*path, "rule"), f"{where}: unknown rule {rule!r}{_suggest(str(rule), REGISTRY.rules)}")
        known = task_types.get(task_type) if isinstance(task_type, str) else None
        if known is None and task_type not in FAMILIES:
            raise bad((*path, "task_type"),
                      f"{where}: unknown task type {task_type!r}; known: {', '.join(dict.fromkeys([*FAMILIES, *task_types]))}")
        if not isinstance(reason, str) or not reason.strip():
            raise bad((*path, "reason"), f"{where}: reason must be a non-empty string")
        if (known.family if known is not None else task_type) in REGISTRY.rules[rule].scope:
            raise bad((*path, "task_type"),
                      f"{where}: {task_type} is in the scope of {rule}; only out-of-scope effects are accepted")
        if (rule, task_type) in seen:
            raise bad(path, f"{where}: {rule} on {task_type} is accepted twice")
        seen.add((rule, task_type))


def _path_keys(value: Any, path: tuple[Any, ...]) -> set[Any]:
    keys: set[Any] = set()
    node = value
    for p in path:
        if isinstance(node, dict) and p in node:
            keys.add(p)
            node = node[p]
        elif isinstance(node, list) and isinstance(p, int) and p < len(node):
            node = node[p]
    return keys


def _suggest(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _resolve_rule(item: str | _RuleEntry, path: tuple[Any, ...], resources: Mapping[str, Any], fail: Any) -> RuleSpec:
    entry = _RuleEntry(rule=item) if isinstance(item, str) else item
    definition = REGISTRY.rules.get(entry.rule)
    if definition is None:
        raise fail(path, f"unknown rule {entry.rule!r}{_suggest(entry.rule, REGISTRY.rules)}")
    if entry.version is not None and entry.version != definition.version:
        raise fail(path, f"rule {entry.rule!r} is pinned to version {entry.version}, "
                         f"but this library has version {definition.version}")
    try:
        return build_spec(entry.rule, entry.params, resources)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        raise fail((*path, "params", *loc), f"rule {entry.rule!r} parameter "
                   f"{'.'.join(map(str, loc))}: {err['msg']}"
                   + (f" (got {err['input']!r})" if "input" in err else "")) from None
    except (ValueError, KeyError) as exc:
        raise fail((*path, "params"), f"rule {entry.rule!r}: {exc}") from None


def _resolve_parser(item: str | _ParserEntry, path: tuple[Any, ...], fail: Any) -> ParserSpec:
    entry = _ParserEntry(name=item) if isinstance(item, str) else item
    try:
        definition = REGISTRY.parser(entry.name)
    except KeyError:
        raise fail(path, f"unknown parser {entry.name!r}{_suggest(entry.name, REGISTRY.parsers)}") from None
    if entry.version is not None and entry.version != definition.version:
        raise fail(path, f"parser {entry.name!r} is pinned to version {entry.version}, "
                         f"but this library has version {definition.version}")
    try:
        params = definition.params_model.model_validate(entry.params)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        raise fail((*path, "params", *loc), f"parser {entry.name!r} parameter "
                   f"{'.'.join(map(str, loc))}: {err['msg']}") from None
    return ParserSpec(entry.name, definition.version, params)


__all__ = ["Pack", "ParserSpec", "Settings", "TaskType", "TraceStep", "canonical_json", "load_pack"]
