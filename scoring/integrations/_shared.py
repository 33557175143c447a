"""What every integration needs: one loaded pack per path, and one row scored end to end."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from normalize import status as st
from normalize.core.pack import Pack, load_pack
from normalize.io.row import Options, Row, read_lang, read_options_value
from scoring.metrics import NO_ANSWER, SCORED, MathVerifier, Score, score_result, scoring_config

_PACKS: dict[str, Pack] = {}
_PACKS_LOCK = threading.Lock()


def cached_pack(pack: Pack | str | Path | None) -> Pack:
    """``pack`` itself, or the pack at that path (None: the shipped packs), loaded once per process.

    A pack is immutable, so sharing one between threads is safe.

    >>> cached_pack(None) is cached_pack(None)
    True
    """
    if isinstance(pack, Pack):
        return pack
    key = "" if pack is None else str(Path(pack).resolve())
    with _PACKS_LOCK:
        found = _PACKS.get(key)
        if found is None:
            found = _PACKS[key] = load_pack(pack)
        return found


@dataclass(frozen=True)
class Verdict:
    """One output normalized, parsed and scored: what a harness records per sample.

    ``strict`` counts an unparsed answer as wrong (0.0); ``valid`` is None for it (left out of
    valid-only accuracy); ``parsed`` says whether the strict parser gave an answer.
    """

    task: str
    task_type: str
    status: str
    answer: Any
    reason: str | None
    correct: bool | None
    value: float
    outcome: str
    metric: str
    rules_hash: str
    normalized: str | None = None
    note: str | None = None
    rules: tuple[str, ...] = ()
    """The rules that changed the output, as ``name.vN``, in order."""
    found_by: str | None = None
    """How the chain found the answer (``marker``, ``boxed``, ``last_number``), when it says."""

    @property
    def parsed(self) -> bool:
        return self.status == st.OK

    @property
    def strict(self) -> float:
        """The score with an unparsed answer counted as 0 (only scored rows have a value)."""
        return self.value if self.outcome in (SCORED, NO_ANSWER) else 0.0

    @property
    def valid(self) -> float | None:
        """The score among parsed answers; None for an unparsed one (never a silent 0)."""
        return self.value if self.outcome == SCORED else None

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task, "task_type": self.task_type, "status": self.status, "answer": self.answer,
            "reason": self.reason, "correct": self.correct, "value": self.value, "outcome": self.outcome,
            "metric": self.metric, "rules_hash": self.rules_hash,
        }


def _found_by(extra: Any) -> str | None:
    method = extra.get("found_by") if isinstance(extra, Mapping) else None
    return method if isinstance(method, str) else None


def judge(pack: Pack, output: str | None, task: str, target: Any = None, *,
          options: Sequence[str] | int | None = None, aliases: Any = None,
          verifier: MathVerifier | None = None, task_type: str | None = None,
          lang: str | None = None) -> Verdict:
    """Normalize ``output`` for ``task``, parse it and (with a target) score it (``task_type``:
    the task's type when the caller has already resolved it, so it is resolved once; ``lang``:
    the row's language tag, whose answer markers then apply).

    An unknown task raises ``ValueError``; a target that cannot be read is ``bad_target``.

    >>> v = judge(cached_pack(None), "so the answer is 12", "gsm8k", 12)
    >>> v.answer, v.correct, v.strict
    ('12', True, 1.0)
    >>> v = judge(cached_pack(None), "the weather is nice", "gsm8k", 12)
    >>> v.status, v.correct, v.strict, v.valid
    ('no_answer', None, 0.0, None)
    >>> judge(cached_pack(None), "no idea", "gsm8k", 12).status
    'abstained'
    """
    result = pack.run(output, task, options=options, task_type=task_type, lang=read_lang(lang))
    row = Row(task=task, output=output, options=row_options(options),  # a bad value: pack.run said invalid
              target=target, aliases=aliases, task_type=result.task_type)
    if verifier is None and _needs_math_verify(pack, task, result.task_type):
        with MathVerifier() as own:
            score: Score = score_result(pack, row, result, verifier=own)
    else:
        score = score_result(pack, row, result, verifier=verifier)
    return Verdict(task=task, task_type=result.task_type, status=result.status, answer=result.answer,
                   reason=result.reason, correct=score.correct, value=score.value, outcome=score.outcome,
                   metric=score.metric, rules_hash=result.rules_hash, normalized=result.text, note=score.note,
                   found_by=_found_by(result.extra),
                   rules=tuple(f"{step.rule}.v{step.version}" for step in result.trace))


def _needs_math_verify(pack: Pack, task: str, kind: str) -> bool:
    declared = pack.task_types.get(kind)
    family = declared.family if declared is not None else kind
    return family == "math" and scoring_config(pack, task, kind).metric == "math_verify"


def row_options(value: Any) -> Options:
    """A document's option domain as :func:`normalize.io.row.read_options_value` reads it (the one
    reader of options); a value it refuses is None (the document names no usable options).

    >>> row_options(["yes", "no"]), row_options(4.0), row_options("A, B")
    (('yes', 'no'), 4, None)
    """
    try:
        return read_options_value(value)
    except ValueError:
        return None


def mapping_or_empty(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
