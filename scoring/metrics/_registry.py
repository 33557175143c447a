"""The metric registry: ``@metric(name, task_types, params)`` records a comparison like ``@rule``
records a rule; :func:`compare` is a lookup in it, and the pack's ``scoring:`` section is checked
against the registered parameter models when the pack loads (with file:line:column).

A metric is ``fn(answer, golds, config, ctx) -> Score``: ``answer`` is the parser's answer (never
``None`` here: a missing answer is ``no_answer`` before any metric runs), ``golds`` the targets
from :func:`~scoring.metrics.read_targets`, ``config`` the resolved :class:`ScoringConfig`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from normalize.core.registry import SectionError
from normalize.core.tasktypes import FAMILIES
from scoring._textsim import TextSettings

if TYPE_CHECKING:
    from normalize.core.pack import Pack
    from scoring._mathverify import MathVerifier

#: How one row was scored (str-valued, so JSON output is unchanged).
Outcome = Literal["scored", "no_answer", "no_target", "bad_target"]
SCORED: Final = "scored"  # compared with the target: correct is True or False
NO_ANSWER: Final = "no_answer"  # the parser gave no answer: wrong in strict accuracy
NO_TARGET: Final = "no_target"  # the row has no target: left out of every accuracy
BAD_TARGET: Final = "bad_target"  # the target cannot be read for this task type: left out, reported
OUTCOMES: Final[tuple[Outcome, ...]] = (SCORED, NO_ANSWER, NO_TARGET, BAD_TARGET)


@dataclass(frozen=True)
class Score:
    """The verdict on one row: ``value``, ``answer``, ``outcome``, ``explanation``.

    ``outcome`` is ``scored``, ``no_answer`` (wrong in strict accuracy), ``no_target`` or
    ``bad_target`` (both left out of accuracies and counted apart); ``value`` is in [0, 1]
    and 0 unless scored; ``correct`` is None unless scored; ``note`` says why, when useful;
    ``answer`` is the parsed answer that was scored (None when there was none).
    What reports need beyond the value rides along unprinted: ``texts`` (the hypothesis —
    empty when unparsed — and the references, for corpus-level text metrics), ``ranking``
    (every ranking metric of the row), ``config`` (the resolved scoring settings) and
    ``alternatives`` (other metrics' verdicts on the row, for the report's comparison).
    """

    correct: bool | None
    value: float
    metric: str
    outcome: Outcome
    note: str | None = None
    answer: Any = None
    texts: tuple[str, tuple[str, ...]] | None = field(default=None, repr=False, compare=False)
    ranking: Mapping[str, float] | None = field(default=None, repr=False, compare=False)
    config: ScoringConfig | None = field(default=None, repr=False, compare=False)
    #: The verdict (``correct``) another metric of the same family gives the row, by name: the
    #: SQuAD metrics record the official script's against the default normalization's, and
    #: reports count the rows where they disagree.
    alternatives: Mapping[str, bool] | None = field(default=None, repr=False, compare=False)

    @property
    def explanation(self) -> str | None:
        """Why the row got this outcome, when there is more to say than the outcome."""
        return self.note


@dataclass(frozen=True)
class ScoringConfig:
    """The resolved ``scoring:`` settings for one task (see :mod:`scoring.metrics`).

    ``family``: the task type's family, whose metrics and target reader it uses (``""``, the
    default, stands for ``task_type`` itself, as for every built-in task type).
    """

    task_type: str
    metric: str
    rel_tol: float = 0.0
    abs_tol: float = 0.0
    timeout: float = 5.0
    f1_threshold: float = 1.0
    percent_bare: bool = False
    text: TextSettings = field(default=TextSettings(), repr=False)
    k: int | None = field(default=None, repr=False)
    gain: str = field(default="exponential", repr=False)
    position_bias: str = field(default="tie", repr=False)
    anchor: str | None = field(default=None, repr=False)
    anchor_rating: float = field(default=1000.0, repr=False)
    family: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if not self.family:
            object.__setattr__(self, "family", self.task_type)


class MetricParams(BaseModel):
    """Base of a metric's parameter model: frozen, strict, no unknown keys, finite numbers."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


class NoMetricParams(MetricParams):
    """For metrics without settings."""


@dataclass(frozen=True)
class MetricContext:
    """Per-call inputs a metric may use besides the answer and targets."""

    alias_groups: Sequence[Sequence[str]] = ()
    verifier: MathVerifier | None = None
    #: The answer's units as its parser recorded them (``extra.dropped``); ``None``: unknown, so the
    #: ``math`` metric's unit rule (a gold's unit wants the same in the answer) is not applied.
    answer_units: Sequence[str] | None = None


MetricFn = Callable[[Any, Sequence[Any], ScoringConfig, MetricContext], Score]
#: A target reader ``fn(target, aliases, config, options) -> golds``: a row's target and its
#: aliases (a list) in the form the family's metrics compare; ``ValueError`` names a target that
#: cannot be read (the row is ``bad_target``).
TargetReader = Callable[[Any, Sequence[Any], ScoringConfig, Sequence[str] | int | None], list[Any]]


@dataclass(frozen=True)
class MetricDef:
    """What the registry knows about one metric of one task type family."""

    name: str
    task_type: str
    params_model: type[MetricParams]
    fn: MetricFn
    doc: str
    default: bool
    rank: int = 0


@dataclass
class MetricRegistry:
    """Metrics by (task type family, name), in registration order; target readers by family
    (and metric, for a metric that reads targets its own way)."""

    metrics: dict[tuple[str, str], MetricDef] = field(default_factory=dict)
    readers: dict[tuple[str, str | None], TargetReader] = field(default_factory=dict)

    def add_reader(self, family: str, reader: TargetReader, metric_name: str | None = None) -> None:
        key = (family, metric_name)
        if key in self.readers:
            what = family if metric_name is None else f"{family} (metric {metric_name})"
            raise ValueError(f"task type {what} has two target readers")
        self.readers[key] = reader

    def reader(self, family: str, metric_name: str) -> TargetReader:
        """The target reader of ``metric_name`` for ``family``, else the family's."""
        found = self.readers.get((family, metric_name)) or self.readers.get((family, None))
        if found is None:
            raise ValueError(f"no target reader is registered for task type {family}: its targets cannot be read")
        return found

    def add(self, definition: MetricDef) -> None:
        key = (definition.task_type, definition.name)
        if key in self.metrics:
            raise ValueError(f"metric {definition.name!r} is registered twice for {definition.task_type}")
        if definition.default and any(d.default for (t, _), d in self.metrics.items() if t == definition.task_type):
            raise ValueError(f"task type {definition.task_type} has two default metrics")
        self.metrics[key] = definition

    def get(self, task_type: str, name: str) -> MetricDef:
        try:
            return self.metrics[(task_type, name)]
        except KeyError:
            raise ValueError(f"{name!r} is not a metric for {task_type}; "
                             f"choose one of {', '.join(self.names(task_type))}") from None

    def names(self, task_type: str) -> tuple[str, ...]:
        """The metrics of ``task_type``: the default first, then by ``rank``."""
        defs = [d for (t, _), d in self.metrics.items() if t == task_type]
        return tuple(d.name for d in sorted(defs, key=lambda d: (not d.default, d.rank)))

    def param_models(self, task_type: str) -> dict[str, type[MetricParams]]:
        """Each settings key any metric of ``task_type`` takes → the model that declares it."""
        keys: dict[str, type[MetricParams]] = {}
        for (t, _), d in self.metrics.items():
            if t == task_type:
                for key in d.params_model.model_fields:
                    keys.setdefault(key, d.params_model)
        return keys


METRIC_REGISTRY: Final = MetricRegistry()


def metric(
    name: str,
    *,
    task_types: Sequence[str],
    params: type[MetricParams] = NoMetricParams,
    default: bool = False,
    rank: int = 0,
) -> Callable[[MetricFn], MetricFn]:
    """Register ``fn`` as metric ``name`` for each of ``task_types`` (families: a pack's own task
    type of a family is scored with its metrics); ``default``: the types' default metric;
    ``rank`` orders the others where a type's metrics are listed."""
    unknown = [t for t in task_types if t not in FAMILIES]
    if unknown or not task_types:
        raise ValueError(f"metric {name!r}: bad task types {task_types!r}; task types are {FAMILIES.names()}")

    def decorate(fn: MetricFn) -> MetricFn:
        for task_type in task_types:
            METRIC_REGISTRY.add(MetricDef(name, task_type, params, fn, (fn.__doc__ or "").strip(), default, rank))
        return fn

    return decorate


R = TypeVar("R", bound=TargetReader)


def targets(*families: str, metric_name: str | None = None) -> Callable[[R], R]:
    """Register ``fn`` as the target reader of ``families`` (for their metric ``metric_name``
    only, when given: ``choice_set`` reads a set of letters where ``exact`` reads one)."""
    unknown = [t for t in families if t not in FAMILIES]
    if unknown or not families:
        raise ValueError(f"target reader: bad task types {families!r}; task types are {FAMILIES.names()}")

    def decorate(fn: R) -> R:
        for family in families:
            METRIC_REGISTRY.add_reader(family, fn, metric_name)
        return fn

    return decorate


def target_label(index: int) -> str:
    """How a message names the row's ``index``-th accepted target: the target, then its aliases.

    >>> target_label(0), target_label(2)
    ('the target', 'aliases[1]')
    """
    return "the target" if index == 0 else f"aliases[{index - 1}]"


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr`` of a value cut to ``limit`` characters, for messages about huge inputs."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


class MetricsView(Mapping[str, tuple[str, ...]]):
    """Task type → its metric names (the default first): a live view of the registry."""

    def __getitem__(self, task_type: str) -> tuple[str, ...]:
        names = METRIC_REGISTRY.names(task_type)
        if not names:
            raise KeyError(task_type)
        return names

    def __iter__(self) -> Any:
        return iter([t for t in FAMILIES if METRIC_REGISTRY.names(t)])

    def __len__(self) -> int:
        return sum(1 for _ in self)


#: Metrics each task type family accepts; the first is the default.
METRICS: Final[Mapping[str, tuple[str, ...]]] = MetricsView()


# --------------------------------------------------------------------------- settings


class SettingError(ValueError):
    """A bad ``scoring:`` setting; ``key`` is the offending key (``None``: the entry as a whole)."""

    def __init__(self, key: str | None, message: str) -> None:
        self.key = key
        super().__init__(message)


def _number_setting(value: Any, where: str, *, positive: bool = False, at_most_one: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where} must be a finite number, got {value!r}")
    if value < 0 or (positive and value == 0) or (at_most_one and value > 1):
        bound = "(0, 1]" if at_most_one else ("> 0" if positive else ">= 0")
        raise ValueError(f"{where} must be {bound}, got {value!r}")
    return float(value)


def _family_note(kind: str, family: str) -> str:
    return "" if family == kind else f" (family {family})"


def config_from(kind: str, merged: Mapping[str, Any], where: str, family: str | None = None) -> ScoringConfig:
    """A :class:`ScoringConfig` from a task's merged settings; :class:`SettingError` names the bad key.

    ``family``: the family of task type ``kind`` (``None``: ``kind`` is a family itself).
    """
    fam = kind if family is None else family
    names = METRIC_REGISTRY.names(fam)
    if not names:
        named = merged.get("metric")
        raise SettingError("metric" if named is not None else None,
                           f"{where}: no metric is registered for task type {kind}{_family_note(kind, fam)}"
                           + (f", so {named!r} is not available" if named is not None else "")
                           + ": its rows cannot be scored (is the module that registers its metrics imported?)")
    models = METRIC_REGISTRY.param_models(fam)
    for key in merged:
        if key != "metric" and key not in models:
            allowed = sorted({"metric", *models})
            raise SettingError(key, f"{where}: unknown key {key!r} for task type {kind}; "
                                    f"known keys: {', '.join(allowed)}")
    metric_name = merged.get("metric", names[0])
    if metric_name not in names:
        raise SettingError("metric", f"{where}.metric: {metric_name!r} is not a metric for {kind}; "
                                     f"choose one of {', '.join(names)}")
    values: dict[str, Any] = {}
    for key, value in merged.items():
        if key == "metric":
            continue
        try:
            checked = models[key].model_validate({key: value})
        except ValidationError as exc:
            err = exc.errors()[0]
            raise SettingError(key, f"{where}.{key}: {err['msg']} (got {value!r})") from None
        read = getattr(checked, key)
        values[key] = float(read) if key in _FLOAT_KEYS else read
    text = TextSettings(**{key[5:] if key.startswith("text_") else key: values.pop(key)
                           for key in _TEXT_KEYS if key in values})
    if "bertscore" in text.metrics and text.bertscore_model is None:
        raise SettingError("text_metrics", f"{where}.text_metrics has bertscore but no bertscore_model "
                                           "(a local model directory)")
    return ScoringConfig(task_type=kind, metric=metric_name, text=text, family=fam, **values)


#: Settings stored as floats whatever number the pack wrote.
_FLOAT_KEYS: Final = frozenset({"rel_tol", "abs_tol", "timeout", "f1_threshold", "anchor_rating"})
#: Settings that go into :class:`~scoring._textsim.TextSettings` (``text_metrics`` → ``metrics``).
_TEXT_KEYS: Final = ("text_metrics", "bleu_tokenize", "bertscore_model", "bertscore_layers",
                     "bertscore_baseline", "bertscore_idf")


def scoring_config(pack: Pack, task: str, task_type: str | None = None) -> ScoringConfig:
    """The scoring settings for ``task`` from ``pack.scoring``; ``ValueError`` on a bad key.

    >>> from normalize.core.pack import load_pack
    >>> scoring_config(load_pack(), "multiple_choice")
    ScoringConfig(task_type='multiple_choice', metric='exact', rel_tol=0.0, abs_tol=0.0, timeout=5.0, f1_threshold=1.0, percent_bare=False)
    """
    kind = task_type if task_type is not None else pack.task_type_of(task)
    declared = pack.task_types.get(kind)
    family = declared.family if declared is not None else kind
    if not METRIC_REGISTRY.names(family):
        raise ValueError(f"unknown task type {kind!r}: no metric is registered for it")
    merged: dict[str, Any] = dict(pack.scoring.get(kind, {}))
    if task != kind:
        merged.update(pack.scoring.get(task, {}))
    return config_from(kind, merged, f"scoring.{task}", family)


def validate_scoring_section(
    section: Mapping[str, Any], kinds: Mapping[str, str], families: Mapping[str, str] | None = None
) -> None:
    """The pack loader's check of ``scoring:`` (``kinds``: each task type and task → its type;
    ``families``: each task type of the pack → its family), then of every task type of the pack:
    one whose family has no metric cannot be scored, an error at its declaration.

    Raises :class:`normalize.core.registry.SectionError` with the path of the bad key.
    """
    fams: Mapping[str, str] = families if families is not None else {}
    for name, entry in section.items():
        kind = kinds.get(name, name if name in FAMILIES else None)
        if kind is None:
            raise SectionError((name,), f"scoring: {name!r} is neither a task type nor a task of this pack")
        if not isinstance(entry, Mapping):
            raise SectionError((name,), f"scoring.{name} must be a mapping")
        merged = dict(section.get(kind, {})) if name != kind else {}
        merged.update(entry)
        try:
            config_from(kind, merged, f"scoring.{name}", fams.get(kind, kind))
        except SettingError as exc:
            where = (name, exc.key) if exc.key is not None and exc.key in entry else (name,)
            raise SectionError(where, str(exc)) from None
    for kind, family in fams.items():
        if not METRIC_REGISTRY.names(family):
            raise SectionError(("task_types", kind), f"task type {kind}{_family_note(kind, family)}: no metric is "
                               "registered for it, so its rows cannot be scored (is the module that registers "
                               "its metrics imported?)", outside=True)
