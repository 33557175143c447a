"""The typed row: a JSONL object parsed once at the edge into a frozen :class:`Row`.

Dicts exist only when reading and writing; inside, code passes a :class:`Row` (the input) and
a :class:`~normalize.core.engine.Result` (what the pack made of it).  :func:`read_options` is the one
reader of a row's option domain.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: A row's option domain: the option texts, their count, or unknown.
Options = tuple[str, ...] | int | None


def read_options(data: Mapping[str, Any]) -> Options:
    """The option domain of a row: its ``options`` (texts or a count), or ``choices``.

    Values as data frames give them are read as what they are (see
    :func:`read_options_value`); ``ValueError`` naming anything else (a bool, 4.5, a string,
    a mapping).

    >>> read_options({"options": ["Paris", "Lyon"]}), read_options({"choices": 4}), read_options({})
    (('Paris', 'Lyon'), 4, None)
    >>> read_options({"options": 4.0})
    4
    """
    return read_options_value(data.get("options", data.get("choices")))


def read_options_value(value: Any) -> Options:
    """An ``options`` value as the parsers take it: option texts, a count, or None.

    Rows from data frames carry ``4.0`` or numpy integers for a count and numpy arrays for the
    texts; those are read as the count or texts they are.  Anything else raises
    ``ValueError`` naming the bad value, never a crash further down.

    >>> read_options_value(4.0), read_options_value(["yes", "no"]), read_options_value(None)
    (4, ('yes', 'no'), None)
    >>> read_options_value(4.5)
    Traceback (most recent call last):
    ...
    ValueError: options must be a list of option texts or a count, got 4.5
    """
    if value is None:
        return None
    if isinstance(value, (bool, str, bytes, Mapping)):
        raise ValueError(f"options must be a list of option texts or a count, got {value!r}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isfinite(number) and number.is_integer():
            return int(number)
        raise ValueError(f"options must be a list of option texts or a count, got {value!r}")
    items = value.tolist() if hasattr(value, "tolist") else value  # numpy arrays, pandas series
    if isinstance(items, (list, tuple)):
        bad = [item for item in items if not isinstance(item, str)]
        if bad:
            raise ValueError(f"option texts must be strings, got {bad[0]!r} in {list(items)!r}")
        return tuple(items)
    raise ValueError(f"options must be a list of option texts or a count, got {value!r}")


class RowError(ValueError):
    """An input row that cannot be normalized; the message is the ``invalid`` row's reason."""


@dataclass(frozen=True)
class Row:
    """One input row, typed: ``task``, ``output``, ``options`` and the scoring fields.

    ``task_type`` is the task type the row carries: the one the pack resolved once it ran the
    row (see :func:`normalize.io.rows.normalize_typed`; it is written to the output row), else the
    row's own ``task_type`` field (a row read back from output).  ``run`` labels the run a row
    belongs to; ``turn``, ``model_a``, ``model_b`` and ``model`` are what a judge row says about
    whom it judged.  ``data`` keeps the whole JSON object so that output rows carry every input
    field; code between the edges reads the typed fields, never ``data``.
    """

    task: str | None
    output: str | None
    options: Options = None
    id: Any = None
    target: Any = None
    aliases: Any = None
    line: int = 0
    data: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    task_type: str | None = None
    run: str | None = None
    turn: Any = None
    model_a: str | None = None
    model_b: str | None = None
    model: str | None = None
    lang: str | None = None
    #: Items sharing a passage or source (the bootstrap resamples clusters); a label, so ``3`` reads ``"3"``.
    cluster: str | None = None
    #: The reasoning an OpenAI-compatible server returned apart from the output
    #: (``reasoning_content``, or ``reasoning``): never read for an answer, kept on the result.
    reasoning: str | None = None

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], line: int = 0) -> Row:
        """A row from any JSON object, never raising: unusable fields read as absent.

        >>> Row.from_mapping({"task": "", "options": 4.5, "run": 2, "model_a": ""})
        Row(task=None, output=None, options=None, id=None, target=None, aliases=None, line=0, task_type=None, run='2', turn=None, model_a=None, model_b=None, model=None, lang=None, cluster=None, reasoning=None)
        """
        task, output = data.get("task"), data.get("output")
        try:
            options = read_options(data)
        except ValueError:
            options = None
        return cls(
            task=task if isinstance(task, str) and task else None,
            output=output if isinstance(output, str) else None,
            options=options,
            line=line,
            **_plain_fields(data),
        )

    @classmethod
    def parse(cls, data: Mapping[str, Any], line: int) -> Row:
        """A row to normalize; :class:`RowError` says why one cannot be (task, output, options).

        >>> Row.parse({"task": "math", "output": "42"}, 1).output
        '42'
        >>> Row.parse({"task": "math"}, 3)
        Traceback (most recent call last):
        ...
        normalize.io.row.RowError: line 3: the row has no 'output' field
        """
        task = data.get("task")
        if not isinstance(task, str) or not task:
            raise RowError(f"line {line}: the row has no 'task' field")
        if "output" not in data:
            raise RowError(f"line {line}: the row has no 'output' field")
        output = data["output"]
        if output is not None and not isinstance(output, str):
            raise RowError(f"line {line}: 'output' must be a string or null, got {type(output).__name__}")
        try:
            options = read_options(data)
        except ValueError as exc:
            raise RowError(f"line {line}: {exc}") from None
        return cls(task=task, output=output, options=options, line=line, **_plain_fields(data))


def _plain_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """The fields every reading of a row takes as they are (a name that is not a non-empty
    string reads as absent; ``run`` is a label, so ``2`` reads as ``"2"``)."""
    kind, run = data.get("task_type"), data.get("run")
    return {
        "id": data.get("id"),
        "target": data.get("target"),
        "aliases": data.get("aliases"),
        "data": data,
        "task_type": kind if isinstance(kind, str) else None,
        "run": None if run is None else str(run),
        "turn": data.get("turn"),
        **{name: _name(data.get(name)) for name in ("model_a", "model_b", "model")},
        "lang": read_lang(data.get("lang")),
        "cluster": None if data.get("cluster") is None else _label(data["cluster"]),
        "reasoning": read_reasoning(data),
    }


def _label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def read_reasoning(data: Mapping[str, Any]) -> str | None:
    """A row's separately returned reasoning: ``reasoning_content`` (DeepSeek, vLLM, SGLang),
    else ``reasoning`` (OpenRouter, newer vLLM); ``None`` when neither is a string.

    >>> read_reasoning({"reasoning_content": "Let me think"}), read_reasoning({"reasoning": 3})
    ('Let me think', None)
    """
    for key in ("reasoning_content", "reasoning"):
        value = data.get(key)
        if isinstance(value, str):
            return value
    return None


def read_lang(value: Any) -> str | None:
    """A row's ``lang`` as a lower-case BCP 47 tag with ``-`` separators; ``None`` when absent,
    empty or not a string (a language the pack does not know is the pack's business, not the row's).

    >>> read_lang("pt_BR"), read_lang(" ZH "), read_lang(""), read_lang(3)
    ('pt-br', 'zh', None, None)
    """
    if not isinstance(value, str):
        return None
    tag = value.strip().replace("_", "-").lower()
    return tag or None


def _name(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


__all__ = ["Options", "Row", "RowError", "read_lang", "read_options", "read_options_value", "read_reasoning"]
