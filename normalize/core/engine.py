"""Running a chain: ordered rule specs, a result with a replayable trace, statuses not crashes."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from normalize import status as st
from normalize.core._frozen import check_plain_frozen, frozen_instance
from normalize.core.registry import (
    DEFAULT_TIMEOUT,
    REGISTRY,
    STAGES,
    AnnotatedText,
    Params,
    RuleDef,
)
from normalize.errors import RejectText
from normalize.limits._budget import (
    DEFAULT_ROW_BUDGET,
    BudgetExceeded,
    check_budget,
    end_budget,
    start_budget_wall,
)

DEFAULT_MAX_INPUT_BYTES = 1 << 20


@dataclass(frozen=True)
class RuleSpec:
    """One step of a chain: a registered rule at a given version with frozen params."""

    name: str
    version: int
    params: Params

    @property
    def definition(self) -> RuleDef[Any]:
        return REGISTRY.rule(self.name)

    @property
    def stage(self) -> str:
        return self.definition.stage

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.name, "version": self.version, "params": self.params.model_dump(mode="json")}

    def apply(self, text: str, *, timeout: float = DEFAULT_TIMEOUT) -> str:
        return self.definition.fn(text, self.params, timeout=timeout)


#: A chain step as the engine's loop reads it: index, rule name, function, params, version.
BoundStep = tuple[int, str, Callable[..., str], Params, int]


def _lookup(rules: Mapping[str, RuleDef[Any]], name: str, params: Params | None = None) -> Callable[..., str]:
    """The function of rule ``name`` in ``rules`` (bound to ``params`` where the rule has a
    ``bind`` hook), or one that raises the lookup's ``KeyError``."""
    definition = rules.get(name)
    if definition is not None:
        if definition.bind is not None and params is not None:
            try:
                return definition.bind(params)
            except Exception:  # params the hook cannot bind: the rule itself runs (and records its failure)
                return definition.fn
        return definition.fn

    def missing(text: str, params: Params, *, timeout: float = DEFAULT_TIMEOUT) -> str:
        raise KeyError(name)

    return missing


class UnknownRule(KeyError):
    """No rule of that name is registered."""


def build_spec(
    name: str, params: Mapping[str, Any] | None = None, resources: Mapping[str, Any] | None = None
) -> RuleSpec:
    """The one way a rule spec is built: ``params`` validated by the rule's model, then (given
    ``resources``: the pack's languages, schemas, aliases) filled by the rule's ``resolve`` hook.

    Raises :class:`UnknownRule`, pydantic's ``ValidationError`` or the hook's ``ValueError``;
    callers add the location (the pack loader) or wording (``normalize check``).

    >>> build_spec("unify_quotes").version
    1
    """
    definition = REGISTRY.rules.get(name)
    if definition is None:
        raise UnknownRule(name)
    model = definition.params_model.model_validate(dict(params or {}))
    if resources is not None and definition.resolve is not None:
        model = definition.resolve(model, resources)
    return RuleSpec(name, definition.version, model)


def make_spec(name: str, **params: Any) -> RuleSpec:
    """Build a spec for the registered rule ``name`` at its current version.

    >>> make_spec("unify_quotes").name
    'unify_quotes'
    """
    try:
        return build_spec(name, params)
    except UnknownRule:
        raise ValueError(f"unknown rule {name!r}") from None


FailureKind = Literal["rejected", "timeout", "budget", "crash", "returned"]


@dataclass(frozen=True)
class RuleFailure:
    """How a rule failed on one text, as a row status: the one mapping of a rule's exceptions
    (:func:`apply_rule`) shared by the engine and ``normalize check``.

    ``detail`` says what happened without the rule's name; ``reason`` is the engine's wording.
    """

    rule: str
    kind: FailureKind
    status: st.Status
    detail: str
    error: str = ""  #: ``crash``: the exception's type name

    @property
    def reason(self) -> str:
        if self.kind == "crash" and self.error not in ("RecursionError", "MemoryError"):
            return f"{self.rule} raised {self.detail}"
        if self.kind == "returned":
            return f"{self.rule} {self.detail}"
        return f"{self.rule}: {self.error if self.kind == 'crash' else self.detail}"


def apply_rule(spec: RuleSpec, text: str, *, timeout: float = DEFAULT_TIMEOUT) -> str | RuleFailure:
    """``spec`` applied to ``text``: the new text, or how the rule failed (never raises for a
    rule's own failure: a rule bug must not abort a batch, so it is recorded, never swallowed)."""
    return _apply_from(REGISTRY.rules, spec, text, timeout)


def _apply_from(rules: Mapping[str, RuleDef[Any]], spec: RuleSpec, text: str, timeout: float) -> str | RuleFailure:
    """:func:`apply_rule` with the registry's rule table passed in (the engine's loop: fewer
    calls per rule than ``spec.apply``, the same lookup, inside the same ``try``)."""
    try:
        after = rules[spec.name].fn(text, spec.params, timeout=timeout)
        check_budget()
    except Exception as exc:  # see apply_rule's docstring: recorded as status error
        return _failure(spec.name, exc, timeout)
    if not isinstance(after, str):
        return _not_text(spec.name, after)
    return after


def _failure(rule: str, exc: Exception, timeout: float) -> RuleFailure:
    """How the exception a rule raised is recorded (the one mapping; see :func:`apply_rule`)."""
    if isinstance(exc, BudgetExceeded):
        return RuleFailure(rule, "budget", st.ERROR, str(exc))
    if isinstance(exc, RejectText):
        return RuleFailure(rule, "rejected", exc.status, exc.reason)
    if isinstance(exc, TimeoutError):
        return RuleFailure(rule, "timeout", st.ERROR, f"regular expression timed out after {timeout}s")
    return RuleFailure(rule, "crash", st.ERROR, f"{type(exc).__name__}: {exc}", type(exc).__name__)


def _not_text(rule: str, after: object) -> RuleFailure:
    return RuleFailure(rule, "returned", st.ERROR, f"returned {type(after).__name__}, not str")


@dataclass(frozen=True)
class Chain:
    """An ordered tuple of rule specs that respects the stage order extract → semantic."""

    specs: tuple[RuleSpec, ...]

    def __post_init__(self) -> None:
        check_stage_order(self.specs)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.specs)

    def __len__(self) -> int:
        return len(self.specs)

    def __getstate__(self) -> dict[str, Any]:
        """The fields only: the functions :meth:`bound` keeps are looked up again after unpickling."""
        return {key: value for key, value in self.__dict__.items() if key != "_bound"}

    def bound(self, rules: Mapping[str, RuleDef[Any]]) -> tuple[BoundStep, ...]:
        """``(index, name, function, params, version)`` of each spec, the function looked up in
        ``rules`` (the registry's table; a rule with a ``bind`` hook gets the function it binds to
        the spec's params, its params-only work done once), for the engine's loop.  Kept on the chain while the
        table is unchanged (:class:`~normalize.core.registry.CountedTable`), so a row looks nothing
        up; a rule missing from the table gets a function that raises the ``KeyError`` its
        lookup would (recorded on the row as that rule's failure, as before)."""
        generation = getattr(rules, "generation", None)
        kept = self.__dict__.get("_bound")  # written below, outside the frozen fields
        if kept is not None and kept[0] is rules and kept[1] == generation:
            return kept[2]  # type: ignore[no-any-return]
        steps = tuple(
            (index, spec.name, _lookup(rules, spec.name, spec.params), spec.params, spec.version)
            for index, spec in enumerate(self.specs)
        )
        if generation is not None:
            self.__dict__["_bound"] = (rules, generation, steps)
        return steps

    def to_json(self) -> list[dict[str, Any]]:
        return [spec.to_json() for spec in self.specs]


def check_stage_order(specs: tuple[RuleSpec, ...]) -> None:
    """Raise ``ValueError`` naming the first rule that comes before an earlier stage's rule."""
    highest = 0
    previous = None
    for spec in specs:
        try:
            stage = REGISTRY.rule(spec.name).stage
        except KeyError:
            raise ValueError(f"unknown rule {spec.name!r}") from None
        index = STAGES.index(stage)
        if index < highest and previous is not None:
            raise ValueError(
                f"rule {spec.name!r} (stage {stage}) comes after {previous.name!r} "
                f"(stage {STAGES[highest]}); stages run in the order {' → '.join(STAGES)}"
            )
        if index >= highest:
            highest, previous = index, spec


@dataclass(frozen=True)
class TraceStep:
    """A rule that changed the text: its position in the chain, name, version, before, after."""

    index: int
    rule: str
    version: int
    before: str
    after: str

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "rule": self.rule,
            "version": self.version,
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True)
class ChainOutcome:
    """What running a chain gives, before the parser."""

    raw: str | None
    text: str | None
    status: st.Status
    reason: str | None
    trace: tuple[TraceStep, ...]
    notes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Result:
    """The outcome for one output: raw and final text, status, reason, trace, parsed answer.

    ``answer`` is ``None`` unless ``status == "ok"``; a ``None`` is never replaced by a guess.
    """

    raw: str | None
    text: str | None
    status: st.Status
    reason: str | None
    trace: tuple[TraceStep, ...]
    task: str
    task_type: str
    answer: Any = None
    rules_hash: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == st.OK

    def to_json(self) -> dict[str, Any]:
        out = {
            "normalized": self.text,
            "answer": self.answer,
            "status": self.status,
            "reason": self.reason,
            "trace": [step.to_json() for step in self.trace],
            "rules_hash": self.rules_hash,
        }
        if self.extra:
            out["extra"] = dict(self.extra)
        return out


check_plain_frozen(TraceStep, ChainOutcome, Result)


def run_chain(
    chain: Chain,
    raw: str | None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES,
    budget: float | None = DEFAULT_ROW_BUDGET,
) -> ChainOutcome:
    """Apply every rule of ``chain`` in order; record each one that changed the text.

    ``None`` stays ``None`` (status ``no_output``).  A rule that raises, or whose user-supplied
    regex times out (``timeout`` seconds per call), gives status ``error`` naming the rule; a
    rule that rejects the text (e.g. JSON that fails its schema) gives the status it chose.  The
    whole chain runs under ``budget`` seconds of CPU time (:mod:`normalize.limits._budget`), checked
    between rules and inside the long loops of rules; past it the row gets ``error`` naming
    the rule that was running.  Nothing here raises on bad text.
    """
    return _outcome(*chain_fields(chain, raw, timeout, max_input_bytes, budget))


#: What :func:`run_chain` gives, as the tuple of :class:`ChainOutcome`'s fields in order.
OutcomeFields = tuple[str | None, str | None, st.Status, str | None, tuple[TraceStep, ...], dict[str, Any]]


def chain_fields(
    chain: Chain, raw: str | None, timeout: float, max_input_bytes: int, budget: float | None
) -> OutcomeFields:
    """:func:`run_chain`'s outcome as a tuple of its fields."""
    admitted = admit(raw, max_input_bytes)
    if not isinstance(admitted, str):
        return admitted
    token, wall = start_budget_wall(budget)
    try:
        return run_specs(chain, admitted, timeout, wall)
    finally:
        end_budget(token)


def admit(raw: str | None, max_input_bytes: int) -> str | OutcomeFields:
    """``raw`` when the chain runs on it, else the row's outcome: no output (``None``), not a
    string, or over ``max_input_bytes``."""
    if raw is None:
        return None, None, st.NO_OUTPUT, "the model produced no output", (), {}
    if not isinstance(raw, str):
        return None, None, st.INVALID, f"output must be a string or null, got {type(raw).__name__}", (), {}
    # at most 4 UTF-8 bytes a code point: a text that short is within the limit, unencoded
    size = len(raw.encode("utf-8", "surrogatepass")) if len(raw) * 4 > max_input_bytes else 0
    if size > max_input_bytes:
        reason = f"input is {size} bytes, over the limit of {max_input_bytes} bytes (max_input_bytes)"
        return raw, None, st.ERROR, reason, (), {}
    return raw


def run_specs(chain: Chain, raw: str, timeout: float, wall: float, record: bool = True) -> OutcomeFields:
    """The chain over ``raw`` (a row :func:`admit` let through) under the active budget
    (``wall``: its :func:`wall_deadline`; the caller starts and ends it): :func:`_apply_from`
    per rule, written out in the loop (each rule's function from :meth:`Chain.bound`, a call
    fewer per rule; ``check_budget()`` is called only once the monotonic clock passes the wall
    deadline, before which it would return at once).
    Trace steps are built by filling their ``__dict__`` (what :func:`frozen_instance` does, inline).

    ``record=False`` builds no trace steps (the trace is ``()``; a caller that drops the trace,
    ``normalize run --trace none``); the text, status, reason and notes are the same."""
    if not record:
        return _run_unrecorded(chain, raw, timeout, wall)
    text = raw
    trace: list[TraceStep] = []
    notes: dict[str, Any] = {}
    monotonic = time.monotonic
    new = object.__new__
    for index, name, fn, params, version in chain.bound(REGISTRY.rules):
        try:
            after = fn(text, params, timeout=timeout)
            if monotonic() >= wall:
                check_budget()
        except Exception as exc:  # see apply_rule's docstring: recorded as status error
            failure = _failure(name, exc, timeout)
            return raw, text, failure.status, failure.reason, tuple(trace), notes
        if after.__class__ is not str:  # the usual case, a plain str, skips these tests
            if not isinstance(after, str):
                failure = _not_text(name, after)
                return raw, text, failure.status, failure.reason, tuple(trace), notes
            if isinstance(after, AnnotatedText):
                notes.update(after.notes)
                after = str(after)
        if after is not text and after != text:
            step = new(TraceStep)
            step.__dict__.update(index=index, rule=name, version=version, before=text, after=after)
            trace.append(step)
            text = after
    return raw, text, st.OK, None, tuple(trace), notes


def _run_unrecorded(chain: Chain, raw: str, timeout: float, wall: float) -> OutcomeFields:
    """:func:`run_specs`' loop without its trace: the same steps, failures and notes."""
    text = raw
    notes: dict[str, Any] = {}
    monotonic = time.monotonic
    for _index, name, fn, params, _version in chain.bound(REGISTRY.rules):
        try:
            after = fn(text, params, timeout=timeout)
            if monotonic() >= wall:
                check_budget()
        except Exception as exc:  # see apply_rule's docstring: recorded as status error
            failure = _failure(name, exc, timeout)
            return raw, text, failure.status, failure.reason, (), notes
        if after.__class__ is not str:
            if not isinstance(after, str):
                failure = _not_text(name, after)
                return raw, text, failure.status, failure.reason, (), notes
            if isinstance(after, AnnotatedText):
                notes.update(after.notes)
                after = str(after)
        text = after
    return raw, text, st.OK, None, (), notes


def _outcome(
    raw: str | None,
    text: str | None,
    status: st.Status,
    reason: str | None,
    trace: tuple[TraceStep, ...],
    notes: dict[str, Any],
) -> ChainOutcome:
    fields = {"raw": raw, "text": text, "status": status, "reason": reason, "trace": trace, "notes": notes}
    return frozen_instance(ChainOutcome, fields)


def replay(chain: Chain, raw: str, trace: tuple[TraceStep, ...], *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Re-apply the traced steps to ``raw``; raise ``ValueError`` where a step no longer matches.

    Rules absent from the trace did not change their input, so applying only the traced steps
    reproduces the final text.
    """
    text = raw
    for step in trace:
        spec = chain.specs[step.index]
        if spec.name != step.rule or spec.version != step.version:
            raise ValueError(
                f"trace step {step.index} names {step.rule} v{step.version}, "
                f"but the chain has {spec.name} v{spec.version} there"
            )
        if text != step.before:
            raise ValueError(f"trace step {step.index} ({step.rule}) starts from different text")
        text = str(spec.apply(text, timeout=timeout))
        if text != step.after:
            raise ValueError(f"trace step {step.index} ({step.rule}) gives different text on replay")
    return text
