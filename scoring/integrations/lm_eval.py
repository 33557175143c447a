"""An lm-evaluation-harness filter and metrics: the pack from a task YAML, one line each.

In a task YAML (tested with lm-eval 0.4.13, whose ``!function`` imports an installed module by name)::

    filter_list:
      - name: normalized
        filter:
          - function: !function scoring.integrations.lm_eval.NormalizeFilter
            task: gsm8k                     # the pack's task name (or a task type)
            # pack: /path/to/pack.yaml      # optional; default: the shipped packs
    metric_list:
      - metric: !function scoring.integrations.lm_eval.normalize_acc
      - metric: !function scoring.integrations.lm_eval.normalize_parse_rate_strict
      - metric: !function scoring.integrations.lm_eval.normalize_parse_rate_flexible

The filter turns every response (every repeat) into a compact JSON *string* holding the parsed
answer, its status and reason, the task and the pack hash.  lm-eval writes filtered responses
into ``--log_samples`` files with ``str()``, so a dict would become a Python repr; a JSON string
stays JSON, and ``normalize score --from lm-eval`` reads it back.  The metrics return plain
floats per document: ``normalize_acc`` is **strict** accuracy (an unparsed answer counts as
wrong, F1 metrics give their value); ``normalize_parse_rate_strict`` the share of responses
whose answer was *stated* (a marker, a box, ``####``; a last-number guess is not counted) and
``normalize_parse_rate_flexible`` (also ``normalize_parse_rate``) the share that gave any
answer; ``normalize_abstention_rate`` the share that abstain (status ``abstained``); a document
with several repeats counts the mean over its repeats.  All are registered with lm-eval
(aggregation ``mean``, higher is better) when this module is
imported, which the ``!function`` line does.

The metrics also work without the filter: give them ``task:`` (and ``pack:``) in the YAML and
they normalize the raw response themselves.  A filter JSON made with another pack than the
metric's ``pack:`` raises ``ValueError`` rather than mixing two rule sets.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from normalize import status as st
from normalize.core.pack import Pack
from scoring.integrations._shared import Verdict, cached_pack, judge, row_options

__all__ = [
    "FILTER_FORMAT",
    "NormalizeFilter",
    "normalize_acc",
    "normalize_parse_rate",
    "normalize_parse_rate_flexible",
    "normalize_parse_rate_strict",
    "normalized_json",
    "read_normalized",
    "register",
]

#: The ``format`` field of the filter's JSON strings.
FILTER_FORMAT = "harness-normalize/lm-eval-filter/1"


def normalized_json(pack: Pack, response: Any, task: str, options: Sequence[str] | int | None = None) -> str:
    """The filter's output for one response: compact, sorted JSON of the parsed result.

    >>> from scoring.integrations._shared import cached_pack
    >>> normalized_json(cached_pack(None), "So the answer is **42**.", "gsm8k")[:60]
    '{"answer":"42","extra":{"found_by":"marker"},"format":"harne'
    """
    text = response if isinstance(response, str) or response is None else str(response)
    result = pack.run(text, task, options=options)
    payload: dict[str, Any] = {
        "format": FILTER_FORMAT,
        "task": task,
        "task_type": result.task_type,
        "answer": result.answer,
        "status": result.status,
        "reason": result.reason,
        "rules_hash": result.rules_hash,
    }
    if options is not None:
        payload["options"] = options
    if result.extra:  # the parser's record (how the answer was found, dropped units): the metric scores with it
        payload["extra"] = dict(result.extra)
    return json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def read_normalized(value: Any) -> dict[str, Any] | None:
    """The payload of a filter JSON string, or None when ``value`` is not one.

    >>> read_normalized('{"format": "harness-normalize/lm-eval-filter/1", "answer": "4"}')["answer"]
    '4'
    >>> read_normalized("The answer is 4") is None
    True
    """
    if not isinstance(value, str) or not value.startswith("{") or FILTER_FORMAT not in value:
        return None
    try:
        payload = json.loads(value)
    except json.JSONDecodeError:
        return None
    if isinstance(payload, dict) and payload.get("format") == FILTER_FORMAT:
        return payload
    return None


class NormalizeFilter:
    """lm-eval filter: every response of every document → :func:`normalized_json`.

    ``task`` is the pack's task name or task type; ``pack`` a pack YAML path (default: shipped);
    ``options_field`` names a document field holding the option texts (or their count) for
    multiple choice, so letters past the last option are ``out_of_range``.
    """

    def __init__(self, task: str | None = None, pack: str | None = None, options_field: str | None = None,
                 **kwargs: Any) -> None:
        if kwargs:
            raise ValueError(f"NormalizeFilter: unknown arguments {sorted(kwargs)}; it takes task, pack, "
                             "options_field")
        if not isinstance(task, str) or not task:
            raise ValueError(f"NormalizeFilter needs task: <a task name or type of the pack>, got {task!r}")
        self.pack = cached_pack(pack)
        self.pack.task_type_of(task)  # an unknown task fails when the task is built, not per response
        self.task = task
        self.options_field = options_field

    def apply(self, resps: Iterable[Any], docs: Sequence[Mapping[str, Any]]) -> list[list[str]]:
        """One list of JSON strings per document, one string per response (repeats kept)."""
        out: list[list[str]] = []
        for responses, doc in zip(resps, docs, strict=True):
            options = None
            if self.options_field is not None and isinstance(doc, Mapping):
                options = row_options(doc.get(self.options_field))
            items = responses if isinstance(responses, (list, tuple)) else [responses]
            out.append([normalized_json(self.pack, r, self.task, options) for r in items])
        return out


# --------------------------------------------------------------------------- metrics


def _verdicts(references: Sequence[Any], predictions: Sequence[Any], task: str | None,
              pack: str | None) -> list[Verdict]:
    """Score every response of one document (lm-eval passes one reference and one prediction)."""
    if len(references) != 1 or len(predictions) != 1:
        raise ValueError(f"expected one reference and one prediction per document, got "
                         f"{len(references)} and {len(predictions)}")
    target = references[0]
    prediction = predictions[0]
    responses = list(prediction) if isinstance(prediction, (list, tuple)) else [prediction]
    if not responses:
        raise ValueError("the document has no responses")
    the_pack = cached_pack(pack)
    verdicts: list[Verdict] = []
    for response in responses:
        payload = read_normalized(response)
        if payload is None:
            if task is None:
                raise ValueError("the metric got a raw response: put the NormalizeFilter before it, or give the "
                                 "metric task: <name> in the task YAML")
            verdicts.append(judge(the_pack, response if isinstance(response, str) else None, task,
                                  _read_target(target, the_pack, task)))
            continue
        if payload.get("rules_hash") != the_pack.hash:
            raise ValueError(f"the filter used pack {payload.get('rules_hash')}, the metric pack {the_pack.hash}; "
                             "give both the same pack:")
        name = str(payload.get("task") if task is None else task)
        verdicts.append(_score_payload(the_pack, payload, name, _read_target(target, the_pack, name)))
    return verdicts


def _score_payload(pack: Pack, payload: Mapping[str, Any], task: str, target: Any) -> Verdict:
    from scoring.metrics import score_detail

    row = {"task": task, "task_type": payload.get("task_type"), "status": payload.get("status"),
           "answer": payload.get("answer"), "target": target}
    for field in ("options", "extra"):
        if field in payload:
            row[field] = payload[field]
    score = score_detail(pack, row)  # the payload read back: read_output_row's edge
    return Verdict(task=task, task_type=str(payload.get("task_type")), status=str(payload.get("status")),
                   answer=payload.get("answer"), reason=payload.get("reason"), correct=score.correct,
                   value=score.value, outcome=score.outcome, metric=score.metric,
                   rules_hash=str(payload.get("rules_hash")), note=score.note,
                   found_by=(payload.get("extra") or {}).get("found_by") if isinstance(payload.get("extra"), dict)
                   else None)


def _read_target(target: Any, pack: Pack, task: str) -> Any:
    """lm-eval's target as the scorer reads it; a target that is unusable raises ``ValueError``."""
    if target is None:
        raise ValueError("the document has no target (doc_to_target gave None)")
    return target_from_lm_eval(target, pack.family_of(task))


def target_from_lm_eval(target: Any, task_type: str) -> Any:
    """Undo lm-eval's ``str()`` of a target where it is unambiguous: a digit string is a choice
    index for multiple choice, and a printed list of strings is a list of accepted answers.
    ``task_type``: the task type's family (``Pack.family_of``: a pack's ``yes_no`` reads as
    ``extractive_qa``).

    >>> target_from_lm_eval("2", "multiple_choice"), target_from_lm_eval("['a', 'b']", "extractive_qa")
    (2, ['a', 'b'])
    >>> target_from_lm_eval("2", "math")
    '2'
    """
    if not isinstance(target, str):
        return target
    text = target.strip()
    if task_type == "multiple_choice" and text.isdigit():
        return int(text)
    if task_type in ("extractive_qa", "open_writing") and text.startswith("[") and text.endswith("]"):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return target
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return value
    return target


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def normalize_acc(references: Sequence[Any], predictions: Sequence[Any], task: str | None = None,
                  pack: str | None = None) -> float:
    """Strict accuracy of one document: unparsed counts as wrong; the mean over its repeats.

    >>> normalize_acc([12], ["The answer is 12"], task="gsm8k"), normalize_acc([12], ["zz"], task="gsm8k")
    (1.0, 0.0)
    """
    verdicts = _verdicts(references, predictions, task, pack)
    bad = next((v for v in verdicts if v.outcome not in ("scored", "no_answer")), None)
    if bad is not None:
        raise ValueError(f"cannot score the target for task {bad.task!r}: {bad.note}")
    return _mean([v.strict for v in verdicts])


def normalize_parse_rate(references: Sequence[Any], predictions: Sequence[Any], task: str | None = None,
                         pack: str | None = None) -> float:
    """Share of the document's responses that the strict parser accepted.

    >>> normalize_parse_rate([12], [["The answer is 12", "hmm"]], task="gsm8k")
    0.5
    """
    return _mean([float(v.status == st.OK) for v in _verdicts(references, predictions, task, pack)])


def normalize_parse_rate_flexible(references: Sequence[Any], predictions: Sequence[Any], task: str | None = None,
                                  pack: str | None = None) -> float:
    """Share of the document's responses that gave an answer at all, a last-number guess
    included (the same as :func:`normalize_parse_rate`; named for what it counts).

    >>> normalize_parse_rate_flexible([12], ["lorem 12"], task="gsm8k")
    1.0
    """
    return normalize_parse_rate(references, predictions, task, pack)


def normalize_parse_rate_strict(references: Sequence[Any], predictions: Sequence[Any], task: str | None = None,
                                pack: str | None = None) -> float:
    """Share of the document's responses whose answer was stated (a final-answer marker, a box,
    ``####``): a last-number guess is not counted, so noise from a random model scores 0 here.
    Task types whose chain does not say how the answer was found (multiple choice: the choice
    parser only reads stated choices) count every parsed response.

    >>> normalize_parse_rate_strict([12], ["lorem 12"], task="gsm8k")
    0.0
    >>> normalize_parse_rate_strict([12], ["The answer is 12."], task="gsm8k")
    1.0
    """
    from scoring.report import STRICT_METHODS

    return _mean([float(v.status == st.OK and (v.found_by is None or v.found_by in STRICT_METHODS))
                  for v in _verdicts(references, predictions, task, pack)])


def normalize_abstention_rate(references: Sequence[Any], predictions: Sequence[Any], task: str | None = None,
                              pack: str | None = None) -> float:
    """Share of the document's responses that abstain (status ``abstained``: ``I don't know``).

    >>> normalize_abstention_rate([12], [["The answer is 12", "I don't know."]], task="gsm8k")
    0.5
    """
    return _mean([float(v.status == st.ABSTAINED) for v in _verdicts(references, predictions, task, pack)])


def register() -> None:
    """Register the filter (``harness_normalize``) and the metrics' aggregation with lm-eval.

    Runs on import when lm-eval is installed; registering again is harmless.
    """
    import lm_eval.api.metrics  # noqa: F401  (fills the built-in registries before we add to them)
    from lm_eval.api import registry

    if "harness_normalize" not in registry.filter_registry:
        registry.register_filter("harness_normalize")(NormalizeFilter)
    for fn in (normalize_acc, normalize_parse_rate, normalize_parse_rate_strict, normalize_parse_rate_flexible):
        if fn.__name__ not in registry.metric_registry:
            registry.register_metric(metric=fn.__name__, higher_is_better=True, aggregation="mean")(fn)
    if normalize_abstention_rate.__name__ not in registry.metric_registry:
        registry.register_metric(metric=normalize_abstention_rate.__name__, higher_is_better=False,
                                 aggregation="mean")(normalize_abstention_rate)


try:
    import lm_eval as _lm_eval  # noqa: F401
except ImportError:  # the module still works as plain Python without lm-eval
    pass
else:
    register()
