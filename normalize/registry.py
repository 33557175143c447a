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

from normalize.errors import RegistrationError

Stage = Literal["extract", "structure", "format", "semantic"]
STAGES: Final[tuple[Stage, ...]] = ("extract", "structure", "format", "semantic")

TASK_TYPES: Final[tuple[str, ...]] = (
    "multiple_choice",
    "math",
    "extractive_qa",
    "structured_json",
    "code",
    "open_writing",
)
#: Every task type: for rules that are safe on any output (e.g. removing ``<think>`` blocks).
ALL_TYPES: Final = TASK_TYPES
#: Task types whose answer is short text, where cosmetic format rules are meant to act.
TEXT_ANSWER_TYPES: Final = ("multiple_choice", "math", "extractive_qa", "structured_json")

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

    def default_params(self) -> P:
        return self.params_model()

    def __call__(self, text: str, params: P | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> str:
        return self.fn(text, params if params is not None else self.default_params(), timeout=timeout)


@dataclass(frozen=True)
class Parsed:
    """A parser's verdict: an answer with status ``ok``, or ``None`` with a status and reason."""

    answer: Any
    status: str
    reason: str | None = None
    #: What the parser noted about how it read the answer (units dropped, ...): JSON values.
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ParseContext:
    """Per-row information a parser may use: the option domain, the regex timeout."""

    options: tuple[str, ...] | int | None = None
    timeout: float = DEFAULT_TIMEOUT
    #: Notes the chain's rules left (``found_by``: how the answer statement was found).
    notes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ParserDef(Generic[P]):
    """What the registry knows about one strict parser."""

    name: str
    version: int
    params_model: type[P]
    fn: Callable[..., Parsed]
    doc: str


@dataclass
class Registry:
    """Rules and parsers by name.  One instance, :data:`REGISTRY`, is filled when
    ``normalize`` is imported (its ``__init__`` imports the built-in rule modules)."""

    rules: dict[str, RuleDef[Any]] = field(default_factory=dict)
    parsers: dict[str, ParserDef[Any]] = field(default_factory=dict)

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

    def iter_rules(self) -> Iterator[RuleDef[Any]]:
        """Every rule, in stage order then by name."""
        return iter(sorted(self.rules.values(), key=lambda d: (STAGES.index(d.stage), d.name)))


REGISTRY: Final = Registry()


def _validate_declaration(name: str, version: int, scope: tuple[str, ...]) -> None:
    if not name.isidentifier():
        raise RegistrationError(f"rule name {name!r} is not an identifier")
    if type(version) is not int or version < 1:
        raise RegistrationError(f"rule {name!r}: version must be a positive int, got {version!r}")
    unknown = [t for t in scope if t not in TASK_TYPES]
    if unknown or not scope:
        raise RegistrationError(f"rule {name!r}: bad scope {scope!r}; task types are {TASK_TYPES}")


F = TypeVar("F", bound=Callable[..., str])


def rule(
    name: str,
    *,
    stage: Stage,
    version: int,
    scope: tuple[str, ...],
    params: type[Params] = NoParams,
    idempotent: bool = True,
    resolve: Resolver | None = None,
) -> Callable[[F], F]:
    """Register a rule function; fails at import when ``name`` is taken.

    ``version`` must be bumped whenever the rule's behaviour changes: it is part of the pack
    hash.  ``scope`` lists the task types the rule is meant for; ``normalize check`` reports
    what it would change outside them.
    """
    if stage not in STAGES:
        raise RegistrationError(f"rule {name!r}: unknown stage {stage!r}; stages are {STAGES}")
    _validate_declaration(name, version, scope)

    def decorate(fn: F) -> F:
        doc = (fn.__doc__ or "").strip()
        REGISTRY.add_rule(
            RuleDef(
                name=name,
                stage=stage,
                version=version,
                scope=tuple(scope),
                params_model=params,
                fn=fn,
                idempotent=idempotent,
                doc=doc,
                resolve=resolve,
            )
        )
        return fn

    return decorate


G = TypeVar("G", bound=Callable[..., Parsed])


def parser(name: str, *, version: int, params: type[Params] = NoParams) -> Callable[[G], G]:
    """Register a strict parser ``fn(text, params, ctx) -> Parsed``."""
    _validate_declaration(name, version, TASK_TYPES)

    def decorate(fn: G) -> G:
        REGISTRY.add_parser(
            ParserDef(
                name=name,
                version=version,
                params_model=params,
                fn=fn,
                doc=(fn.__doc__ or "").strip(),
            )
        )
        return fn

    return decorate

