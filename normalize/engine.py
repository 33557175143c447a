"""Running a chain: ordered rule specs, a result with a replayable trace, statuses not crashes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from normalize import status as st
from normalize.errors import RejectText
from normalize.registry import DEFAULT_TIMEOUT, REGISTRY, STAGES, Params, RuleDef

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


def make_spec(name: str, **params: Any) -> RuleSpec:
    """Build a spec for the registered rule ``name`` at its current version.

    >>> make_spec("unify_quotes").name
    'unify_quotes'
    """
    try:
        definition = REGISTRY.rule(name)
    except KeyError:
        raise ValueError(f"unknown rule {name!r}") from None
    return RuleSpec(name, definition.version, definition.params_model(**params))


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
class ChainOutcome:
    """What running a chain gives, before the parser."""

    raw: str | None
    text: str | None
    status: str
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
    status: str
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


def run_chain(
    chain: Chain,
    raw: str | None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES,
) -> ChainOutcome:
    """Apply every rule of ``chain`` in order; record each one that changed the text.

    ``None`` stays ``None`` (status ``no_output``).  A rule that raises, or whose regex times
    out, gives status ``error`` naming the rule; a rule that rejects the text (e.g. JSON that
    fails its schema) gives the status it chose.  Nothing here raises on bad text.
    """
    if raw is None:
        return ChainOutcome(None, None, st.NO_OUTPUT, "the model produced no output", ())
    if not isinstance(raw, str):
        return ChainOutcome(
            None, None, st.INVALID, f"output must be a string or null, got {type(raw).__name__}", ()
        )
    size = len(raw.encode("utf-8", "surrogatepass"))
    if size > max_input_bytes:
        return ChainOutcome(
            raw,
            None,
            st.ERROR,
            f"input is {size} bytes, over the limit of {max_input_bytes} bytes (max_input_bytes)",
            (),
        )
    text = raw
    trace: list[TraceStep] = []
    notes: dict[str, Any] = {}
    for index, spec in enumerate(chain.specs):
        try:
            after = spec.apply(text, timeout=timeout)
        except RejectText as rejected:
            return ChainOutcome(raw, text, rejected.status, f"{spec.name}: {rejected.reason}", tuple(trace), notes)
        except TimeoutError:
            return ChainOutcome(
                raw,
                text,
                st.ERROR,
                f"{spec.name}: regular expression timed out after {timeout}s",
                tuple(trace),
            )
        except (RecursionError, MemoryError) as exc:
            return ChainOutcome(raw, text, st.ERROR, f"{spec.name}: {type(exc).__name__}", tuple(trace))
        except Exception as exc:  # a rule bug must not abort a batch: recorded, never swallowed
            return ChainOutcome(
                raw, text, st.ERROR, f"{spec.name} raised {type(exc).__name__}: {exc}", tuple(trace)
            )
        if not isinstance(after, str):
            return ChainOutcome(
                raw, text, st.ERROR, f"{spec.name} returned {type(after).__name__}, not str", tuple(trace)
            )
        if isinstance(after, AnnotatedText):
            notes.update(after.notes)
            after = str(after)
        if after != text:
            trace.append(TraceStep(index, spec.name, spec.version, text, after))
            text = after
    return ChainOutcome(raw, text, st.OK, None, tuple(trace), notes)


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
