"""Structured JSON: ``exact`` (structural equality) and ``field_f1`` (JSON-pointer leaves)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from normalize.core.pack import canonical_json
from normalize.io.jsonl import MAX_JSON_DEPTH, depth_exceeds
from scoring.metrics._registry import SCORED, MetricContext, Score, ScoringConfig, metric, targets
from scoring.metrics.squad import F1Params


def canonicalize_json(value: Any) -> Any:
    """Keys sorted, integral floats as ints (``1.0`` → ``1``); booleans stay booleans; lists keep order.

    >>> canonicalize_json({"b": [1.0, True], "a": {"y": 2.5, "x": None}})
    {'a': {'x': None, 'y': 2.5}, 'b': [1, True]}
    """
    if isinstance(value, dict):
        return {str(k): canonicalize_json(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [canonicalize_json(v) for v in value]
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"JSON has no value {value!r}")
        if value.is_integer():
            return int(value)
    return value


def json_equal(answer: Any, target: Any) -> bool:
    """Structural equality after :func:`canonicalize_json`.

    >>> json_equal({"a": 1, "b": [2, 3]}, {"b": [2.0, 3], "a": 1}), json_equal([1, 2], [2, 1])
    (True, False)
    """
    return canonical_json(canonicalize_json(answer)) == canonical_json(canonicalize_json(target))


def _pointer_token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def flatten_json(value: Any) -> dict[str, str]:
    """JSON-pointer path → canonical JSON of the leaf; empty objects and arrays are leaves.

    >>> flatten_json({"a": {"b": 1, "c/d": [True, {}]}})
    {'/a/b': '1', '/a/c~1d/0': 'true', '/a/c~1d/1': '{}'}
    """
    leaves: dict[str, str] = {}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict) and node:
            for key in sorted(node, key=str):
                walk(node[key], f"{path}/{_pointer_token(str(key))}")
        elif isinstance(node, list) and node:
            for i, item in enumerate(node):
                walk(item, f"{path}/{i}")
        else:
            leaves[path] = canonical_json(canonicalize_json(node))

    walk(value, "")
    return leaves


class FieldScores(NamedTuple):
    """Field-level precision, recall and F1 over JSON-pointer leaves."""

    precision: float
    recall: float
    f1: float


def json_field_scores(answer: Any, target: Any) -> FieldScores:
    """A leaf counts when the same pointer holds an equal value in both documents.

    >>> json_field_scores({"name": "Ada", "age": 36, "x": 1}, {"name": "Ada", "age": 37})
    FieldScores(precision=0.3333333333333333, recall=0.5, f1=0.4)
    """
    pred, gold = flatten_json(answer), flatten_json(target)
    hits = sum(1 for path, leaf in pred.items() if gold.get(path) == leaf)
    precision = hits / len(pred)
    recall = hits / len(gold)
    f1 = 0.0 if hits == 0 else 2 * precision * recall / (precision + recall)
    return FieldScores(precision, recall, f1)


def _as_json(value: Any, what: str) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{what} is not JSON text: {exc.msg} at column {exc.colno}") from None
        except RecursionError:
            raise ValueError(f"{what} is JSON nested too deeply to read") from None
        except ValueError as exc:  # an integer of more than 4300 digits
            raise ValueError(f"{what} is JSON with a number that cannot be read: {str(exc).split(';')[0]}") from None
    return value


def read_json_value(value: Any, what: str) -> Any:
    """A JSON value (text is parsed) that the comparisons can walk: bounded depth, no NaN or Infinity.

    ``ValueError`` says what is wrong, so a bad target is a ``bad_target`` and a bad answer a
    wrong one, never a crash deep in a recursive comparison.
    """
    parsed = _as_json(value, what)
    if depth_exceeds(parsed):
        raise ValueError(f"{what} nests deeper than {MAX_JSON_DEPTH} levels")
    canonicalize_json(parsed)  # a NaN or Infinity inside is not JSON: ValueError
    return parsed


@targets("structured_json")
def read_json_targets(
    target: Any, aliases: Sequence[Any], config: ScoringConfig, options: Sequence[str] | int | None
) -> list[Any]:
    """The target and its aliases as JSON values (:func:`read_json_value`)."""
    return [read_json_value(t, "the target") for t in [target, *aliases]]


@metric("exact", task_types=("structured_json",), default=True)
def exact_json(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """The answer equals a target structurally (:func:`json_equal`)."""
    try:
        pred = read_json_value(answer, "the answer")
    except ValueError as exc:
        return Score(False, 0.0, config.metric, SCORED, str(exc))
    hit = any(json_equal(pred, g) for g in golds)
    return Score(hit, float(hit), config.metric, SCORED)


@metric("field_f1", task_types=("structured_json",), params=F1Params, rank=1)
def field_f1(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """The best field-level F1 over the targets; ``correct`` when it reaches ``f1_threshold``."""
    try:
        pred = read_json_value(answer, "the answer")
    except ValueError as exc:
        return Score(False, 0.0, config.metric, SCORED, str(exc))
    best = max(json_field_scores(pred, g).f1 for g in golds)
    return Score(best >= config.f1_threshold, best, config.metric, SCORED)
