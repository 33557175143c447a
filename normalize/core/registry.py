"""The rule and parser registries: decorators that record name, stage, version, scope, params.

A rule is a pure function ``fn(text, params, *, timeout) -> str``.  Registering it with
:func:`rule` records everything a pack, the hash and ``normalize check`` need to know about it;
the function itself is returned unchanged, so it can be called (and doctested) directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Final, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict

from normalize.core.tasktypes import EVERY_FAMILY, FAMILIES
from normalize.errors import RegistrationError
from normalize.status import Status

Stage = Literal["extract", "structure", "format", "semantic"]
STAGES: Final[tuple[Stage, ...]] = ("extract", "structure", "format", "semantic")

#: The task types' families, declared once in :mod:`normalize.core.tasktypes` (a live sequence:
#: a family declared in Python later is in it).  A rule's ``scope`` names families; a pack's own
#: task type (``task_types: {yes_no: {family: extractive_qa}}``) is in the scope of its family.
TASK_TYPES: Final = FAMILIES
#: Every task type: for rules that are safe on any output (e.g. removing ``<think>`` blocks).
ALL_TYPES: Final = EVERY_FAMILY
#: Task types whose answer is short text, where cosmetic format rules are meant to act.
TEXT_ANSWER_TYPES: Final = FAMILIES.short_answer()

DEFAULT_TIMEOUT: Final = 0.5


class Params(BaseModel):
    """Base of every rule's and parser's parameter model: frozen, strict, no unknown keys."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


def as_tuple(value: Any) -> Any:
    """Let a YAML list stand for a tuple param (params are strict: a list is not a tuple).

    >>> as_tuple([["a"], "b"])
    (('a',), 'b')
    """
    if isinstance(value, (list, tuple)):
        return tuple(as_tuple(item) for item in value)
    return value


#: A tuple-of-strings parameter that a pack may write as a YAML list.
StrTuple = Annotated[tuple[str, ...], BeforeValidator(as_tuple)]
#: Tiers of patterns (best first) that a pack may write as a list of lists.
StrTiers = Annotated[tuple[tuple[str, ...], ...], BeforeValidator(as_tuple)]


class NoParams(Params):
    """For rules that take no parameters."""


P = TypeVar("P", bound=Params)
P_contra = TypeVar("P_contra", bound=Params, contravariant=True)


class RuleFn(Protocol[P_contra]):
    def __call__(self, text: str, params: P_contra, /, *, timeout: float = ...) -> str: ...


#: A hook that fills a rule's params from pack-level resources (language overlays, schemas).
Resolver = Callable[[Any, Mapping[str, Any]], Any]
#: A rule's ``bind`` hook: its params → a function called as the rule is (``fn(text, params,
#: timeout=...)``) that gives what the rule gives on those params, with the work that depends on
#: the params alone (compiling, choosing a group) done once, when a chain is bound.
Binder = Callable[[Any], Callable[..., str]]


@dataclass(frozen=True)
class RuleDef(Generic[P]):
    """What the registry knows about one rule."""

    name: str
    stage: Stage
    version: int
    scope: tuple[str, ...]
    params_model: type[P]
    fn: Callable[..., str]
    idempotent: bool
    doc: str
    resolve: Resolver | None = None
    bind: Binder | None = None

    def default_params(self) -> P:
        return self.params_model()

    def __call__(self, text: str, params: P | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> str:
        return self.fn(text, params if params is not None else self.default_params(), timeout=timeout)


class AnnotatedText(str):
    """A rule's output text carrying notes about how it was obtained (``found_by="boxed"``).

    The engine records the notes of the last rule that gave annotated text on the result
    (``Result.extra``) and passes them to the parser (``ParseContext.notes``); the text itself
    is stored as a plain ``str``, so traces and replay are unaffected.

    >>> t = AnnotatedText("42", found_by="marker")
    >>> t == "42", t.notes["found_by"]
    (True, 'marker')
    """

    notes: Mapping[str, Any]

    def __new__(cls, text: str, **notes: Any) -> AnnotatedText:
        made = super().__new__(cls, text)
        made.notes = dict(notes)
        return made


@dataclass(frozen=True)
class Parsed:
    """A parser's verdict: an answer with status ``ok``, or ``None`` with a status and reason."""

    answer: Any
    status: Status
    reason: str | None = None
    #: What the parser noted about how it read the answer (units dropped, ...): JSON values.
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class ParseContext:
    """Per-row information a parser may use: the option domain, the regex timeout, the row's
    language."""

    options: tuple[str, ...] | int | None = None
    timeout: float = DEFAULT_TIMEOUT
    #: Notes the chain's rules left (``found_by``: how the answer statement was found).
    notes: Mapping[str, Any] = field(default_factory=dict)
    #: The row's ``lang`` (a BCP 47 tag, lower case, ``-`` separated: ``"de"``, ``"pt-br"``), or
    #: ``None`` when the row does not say; see :func:`normalize.io.row.read_lang`.
    lang: str | None = None


@dataclass(frozen=True)
class ParserDef(Generic[P]):
    """What the registry knows about one strict parser."""

    name: str
    version: int
    params_model: type[P]
    fn: Callable[..., Parsed]
    doc: str
    #: Rules whose logic the parser calls (through a shared leaf module), with the rule version
    #: the parser was last released against; :meth:`Registry.check_embeds` fails when a rule's
    #: version moved without the parser's, so the pack hash always sees the change.
    embeds: Mapping[str, int] = field(default_factory=dict)


class SectionError(ValueError):
    """A pack section's validator found a bad value at ``path``: keys inside the section, or,
    with ``outside``, keys from the pack's top (``("task_types", "yes_no")``)."""

    def __init__(self, path: tuple[str | int, ...], message: str, *, outside: bool = False) -> None:
        self.path = path
        self.outside = outside
        super().__init__(message)


#: Validates one pack section when the pack loads: ``fn(section, kinds, families)`` where
#: ``section`` is the section as written (``{}`` when the pack has none), ``kinds`` maps every
#: task type and task of the pack to its task type and ``families`` every task type to its
#: family; raises :class:`SectionError`.
SectionValidator = Callable[[Mapping[str, Any], Mapping[str, str], Mapping[str, str]], None]


V = TypeVar("V")


class CountedTable(dict[str, V]):
    """A table by name that counts its changes in ``generation``: a chain keeps the rule
    functions it looked up for as long as the table is unchanged (the engine then skips a
    lookup per rule and row), and looks them up again after any change, such as a test
    swapping a rule with ``monkeypatch.setitem``.

    >>> table = CountedTable(a=1)
    >>> table["b"] = 2; del table["a"]; table.generation
    2
    """

    generation: int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.generation = 0

    def __setitem__(self, key: str, value: V) -> None:
        super().__setitem__(key, value)
        self.generation += 1

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self.generation += 1

    def __ior__(self, other: Any) -> CountedTable[V]:  # type: ignore[override,misc]
        self.update(other)
        return self

    def pop(self, *args: Any) -> Any:
        self.generation += 1
        return super().pop(*args)

    def popitem(self) -> tuple[str, V]:
        self.generation += 1
        return super().popitem()

    def clear(self) -> None:
        self.generation += 1
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.generation += 1
        super().update(*args, **kwargs)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self.generation += 1
        return super().setdefault(key, default)


@dataclass
class Registry:
    """Rules and parsers by name.  One instance, :data:`REGISTRY`, is filled when
    ``normalize`` is imported (its ``__init__`` imports the built-in rule modules)."""

    #: a :class:`CountedTable` (a plain dict put in its place works too: looked up every row)
    rules: dict[str, RuleDef[Any]] = field(default_factory=CountedTable)
    parsers: dict[str, ParserDef[Any]] = field(default_factory=dict)
    #: Validators of pack sections owned by an upper layer (``scoring:``, registered by
    #: ``scoring.metrics`` from its metric registry), run by the pack loader.
    sections: dict[str, SectionValidator] = field(default_factory=dict)

    def add_section(self, name: str, validator: SectionValidator) -> None:
        """Let the pack loader check section ``name`` with ``validator`` (idempotent per validator)."""
        if self.sections.get(name, validator) is not validator:
            raise RegistrationError(f"pack section {name!r} already has a validator")
        self.sections[name] = validator

    def add_rule(self, definition: RuleDef[Any]) -> None:
        if definition.name in self.rules:
            raise RegistrationError(f"rule {definition.name!r} is registered twice")
        self.rules[definition.name] = definition

    def add_parser(self, definition: ParserDef[Any]) -> None:
        if definition.name in self.parsers:
            raise RegistrationError(f"parser {definition.name!r} is registered twice")
        self.parsers[definition.name] = definition

    def rule(self, name: str) -> RuleDef[Any]:
        return self.rules[name]

    def parser(self, name: str) -> ParserDef[Any]:
        return self.parsers[name]

    def check_embeds(self) -> None:
        """Fail when a parser embeds a rule that is missing or at another version than declared."""
        for definition in self.parsers.values():
            for name, version in definition.embeds.items():
                found = self.rules.get(name)
                if found is None:
                    raise RegistrationError(f"parser {definition.name!r} embeds unknown rule {name!r}")
                if found.version != version:
                    raise RegistrationError(
                        f"parser {definition.name!r} embeds rule {name!r} v{version} but the rule is now "
                        f"v{found.version}: bump the parser's version and its embeds entry together"
                    )

    def iter_rules(self) -> Iterator[RuleDef[Any]]:
        """Every rule, in stage order then by name."""
        return iter(sorted(self.rules.values(), key=lambda d: (STAGES.index(d.stage), d.name)))


REGISTRY: Final = Registry()


def _validate_declaration(name: str, version: int, scope: tuple[str, ...]) -> None:
    if not name.isidentifier():
        raise RegistrationError(f"rule name {name!r} is not an identifier")
    if type(version) is not int or version < 1:
        raise RegistrationError(f"rule {name!r}: version must be a positive int, got {version!r}")
    unknown = [t for t in scope if t not in FAMILIES]
    if unknown or not scope:
        raise RegistrationError(f"rule {name!r}: bad scope {scope!r}; task type families are {FAMILIES.names()}")


F = TypeVar("F", bound=Callable[..., str])


def _module_stage(module: str) -> Stage | None:
    """The stage a rule module stands for: ``normalize.rules.extract`` → ``extract``, and a module
    of one stage's rules on one topic, ``normalize.rules.extract_math`` → ``extract`` (one stage per
    module).

    >>> _module_stage("normalize.rules.semantic"), _module_stage("normalize.rules.extract_math"), _module_stage("mypkg.rules")
    ('semantic', 'extract', None)
    """
    last = module.rsplit(".", 1)[-1]
    for stage in STAGES:
        if last == stage or last.startswith(stage + "_"):
            return stage
    return None


def rule(
    name: str,
    *,
    stage: Stage | None = None,
    version: int,
    scope: tuple[str, ...],
    params: type[Params] = NoParams,
    idempotent: bool = True,
    resolve: Resolver | None = None,
    bind: Binder | None = None,
) -> Callable[[F], F]:
    """Register a rule function; fails at import when ``name`` is taken.

    ``version`` must be bumped whenever the rule's behaviour changes: it is part of the pack
    hash.  ``scope`` lists the task types the rule is meant for; ``normalize check`` reports
    what it would change outside them.  ``stage`` is inferred from the module a rule lives in
    (a module named ``extract``, ``structure``, ``format`` or ``semantic``); a rule defined
    elsewhere (a user's module) names it.  A rule without parameters needs no ``params`` model.
    ``bind`` (optional): params → the rule's function specialised to them, which the engine calls
    in its place (:meth:`normalize.core.engine.Chain.bound`); it must give the same text and
    raise the same exceptions as the rule on every input.
    """
    if stage is not None and stage not in STAGES:
        raise RegistrationError(f"rule {name!r}: unknown stage {stage!r}; stages are {STAGES}")
    _validate_declaration(name, version, scope)

    def decorate(fn: F) -> F:
        doc = (fn.__doc__ or "").strip()
        inferred = _module_stage(fn.__module__)
        if stage is not None and inferred is not None and stage != inferred:
            raise RegistrationError(f"rule {name!r} is declared stage {stage!r} but lives in the {inferred} module")
        resolved = stage if stage is not None else inferred
        if resolved is None:
            raise RegistrationError(
                f"rule {name!r}: module {fn.__module__} is not a stage module ({', '.join(STAGES)}); pass stage="
            )
        REGISTRY.add_rule(
            RuleDef(
                name=name,
                stage=resolved,
                version=version,
                scope=scope if isinstance(scope, tuple) else tuple(scope),
                params_model=params,
                fn=fn,
                idempotent=idempotent,
                doc=doc,
                resolve=resolve,
                bind=bind,
            )
        )
        return fn

    return decorate


G = TypeVar("G", bound=Callable[..., Parsed])


def parser(
    name: str, *, version: int, params: type[Params] = NoParams, embeds: Mapping[str, int] | None = None
) -> Callable[[G], G]:
    """Register a strict parser ``fn(text, params, ctx) -> Parsed``.

    ``embeds`` names the rules (with their versions) whose logic the parser runs itself, so that
    a rule's version bump forces the parser's (checked by :meth:`Registry.check_embeds`).
    """
    _validate_declaration(name, version, EVERY_FAMILY)

    def decorate(fn: G) -> G:
        REGISTRY.add_parser(
            ParserDef(
                name=name,
                version=version,
                params_model=params,
                fn=fn,
                doc=(fn.__doc__ or "").strip(),
                embeds=dict(embeds or {}),
            )
        )
        return fn

    return decorate

