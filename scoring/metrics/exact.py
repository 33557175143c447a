"""Exact match and aliases: ``exact`` for multiple choice (letters), extractive QA and open writing
(stripped text), plus the alias widening every metric uses and the multiple-choice target reader."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from scoring.metrics._registry import (
    SCORED,
    MetricContext,
    Score,
    ScoringConfig,
    metric,
    target_label,
    targets,
)


def as_text(answer: Any) -> str:
    """The answer as text: a string as is, anything else as JSON."""
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


def exact_match(answer: str, target: str) -> bool:
    """Equal after stripping surrounding whitespace; case and inner spacing count.

    >>> exact_match(" Paris\\n", "Paris"), exact_match("paris", "Paris")
    (True, False)
    """
    return answer.strip() == target.strip()


def choice_letter(target: Any, options: Sequence[str] | int | None = None) -> str:
    """The option letter a multiple-choice target names: a letter, a 0-based index, or option text.

    >>> choice_letter("b"), choice_letter(1), choice_letter("Lyon", ["Paris", "Lyon"])
    ('B', 'B', 'B')
    """
    count: int | None = len(options) if isinstance(options, (list, tuple)) else (
        options if isinstance(options, int) and not isinstance(options, bool) else None)
    if isinstance(target, bool):
        raise ValueError(f"a multiple-choice target must be a letter or an index, got {target!r}")
    if isinstance(target, int):
        if target < 0 or target >= 26 or (count is not None and target >= count):
            raise ValueError(f"option index {target} is outside the {count or 26} options (indexes count from 0)")
        return chr(ord("A") + target)
    if isinstance(target, str):
        text = target.strip()
        if len(text) == 1 and "A" <= text.upper() <= "Z":
            letter = text.upper()
            if count is not None and ord(letter) - ord("A") >= count:
                raise ValueError(f"target letter {letter!r} is outside the {count} options")
            return letter
        if isinstance(options, (list, tuple)) and text in options:
            return chr(ord("A") + list(options).index(text))
    raise ValueError(f"a multiple-choice target must be a letter, a 0-based index or an option text, got {target!r}")


def choice_letters(target: Any, options: Sequence[str] | int | None = None) -> str:
    """The set of option letters a multi-select target names, as its letters in order: ``"ABD"``,
    ``"A, B, D"``, ``["A", "B", "D"]`` or 0-based indexes ``[0, 1, 3]``.

    >>> choice_letters("DBA"), choice_letters("A, c"), choice_letters([0, 2]), choice_letters(["B", "d"])
    ('ABD', 'AC', 'AC', 'BD')
    """
    if isinstance(target, (list, tuple)):
        if not target:
            raise ValueError("a multi-select target must name at least one option")
        letters = [choice_letter(item, options) for item in target]
    elif isinstance(target, str):
        tokens = "".join(" " if c.isspace() or c in ",，、;；/&+" else c for c in target).split()
        if not tokens or not all(
            t.isascii() and t.isalpha() and (len(t) == 1 or t.isupper()) for t in tokens
        ):
            raise ValueError(f"a multi-select target must be option letters (ABD, A,B,D), got {target!r}")
        letters = [choice_letter(c, options) for t in tokens for c in t]
    else:
        letters = [choice_letter(target, options)]
    return "".join(sorted(set(letters)))


def alias_candidates(
    targets: Iterable[str],
    groups: Iterable[Sequence[str]],
    key: Any = str.strip,
) -> list[str]:
    """The targets plus every alias group member reachable from them, matching by ``key``.

    Aliases only widen what counts as a match; the answer itself is never rewritten.

    >>> alias_candidates(["USA"], [("United States", "USA", "US"), ("UK", "Britain")])
    ['USA', 'United States', 'US']
    """
    found: list[str] = []
    keys: set[Any] = set()

    def add(value: str) -> bool:
        k = key(value)
        if k in keys:
            return False
        keys.add(k)
        found.append(value)
        return True

    for t in targets:
        add(t)
    pending = [tuple(g) for g in groups]
    changed = True
    while changed:
        changed = False
        rest = []
        for group in pending:
            if any(key(member) in keys for member in group):
                for member in group:
                    add(member)
                changed = True
            else:
                rest.append(group)
        pending = rest
    return found


# --------------------------------------------------------------------------- targets


@targets("multiple_choice")
def read_choice_targets(
    target: Any, aliases: Sequence[Any], config: ScoringConfig, options: Sequence[str] | int | None
) -> list[Any]:
    """Each accepted target as its option letter (:func:`choice_letter`).

    >>> from scoring.metrics._registry import ScoringConfig
    >>> read_choice_targets(2, ["d"], ScoringConfig("multiple_choice", "exact"), 4)
    ['C', 'D']
    """
    return [choice_letter(t, options) for t in [target, *aliases]]


@targets("multiple_choice", metric_name="choice_set")
def read_choice_set_targets(
    target: Any, aliases: Sequence[Any], config: ScoringConfig, options: Sequence[str] | int | None
) -> list[Any]:
    """Each accepted target as its set of option letters (:func:`choice_letters`)."""
    return [choice_letters(t, options) for t in [target, *aliases]]


@targets("extractive_qa", "open_writing")
def read_text_targets(
    target: Any, aliases: Sequence[Any], config: ScoringConfig, options: Sequence[str] | int | None
) -> list[Any]:
    """The target (a string or a non-empty list of accepted strings), then its aliases (strings)."""
    golds: list[Any] = []
    for i, t in enumerate([target, *aliases]):
        what = target_label(i)
        if i == 0:
            golds.extend(_texts(t, what))
        elif isinstance(t, str):
            golds.append(t)
        else:
            raise ValueError(f"{what} must be a string for {config.task_type}, got {t!r}")
    return golds


@targets("code")
def read_string_targets(
    target: Any, aliases: Sequence[Any], config: ScoringConfig, options: Sequence[str] | int | None
) -> list[Any]:
    """The target and its aliases, each a string."""
    for i, t in enumerate([target, *aliases]):
        if not isinstance(t, str):
            raise ValueError(f"{target_label(i)} must be a string for {config.task_type}, got {t!r}")
    return [target, *aliases]


def _texts(target: Any, what: str) -> list[str]:
    if isinstance(target, str):
        return [target]
    if isinstance(target, list) and target and all(isinstance(t, str) for t in target):
        return list(target)
    raise ValueError(f"{what} must be a string or a non-empty list of strings, got {target!r}")


# --------------------------------------------------------------------------- metrics


@metric("exact", task_types=("multiple_choice",), default=True)
def exact_choice(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """The answer letter is one of the target letters (or an alias of one), case-insensitively."""
    accepted = alias_candidates(golds, ctx.alias_groups, key=lambda s: s.strip().upper())
    hit = isinstance(answer, str) and answer.strip().upper() in {a.strip().upper() for a in accepted}
    return Score(hit, float(hit), config.metric, SCORED)


@metric("choice_set", task_types=("multiple_choice",))
def choice_set(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """Multi-select: the set of answer letters equals a target's set (``ABD`` = ``DBA`` = ``A,B,D``);
    one letter more or less is wrong (as in the Chinese exams: no partial credit)."""
    given = set(answer.strip().upper()) - set(" ,") if isinstance(answer, str) else None
    hit = given is not None and any(given == set(gold) for gold in golds)
    return Score(hit, float(hit), config.metric, SCORED)


@metric("exact", task_types=("extractive_qa",), rank=3)
def exact_text_qa(answer: Any, golds: Sequence[Any], config: ScoringConfig, ctx: MetricContext) -> Score:
    """The stripped answer equals a stripped target or alias."""
    hit = any(exact_match(as_text(answer), g) for g in alias_candidates(golds, ctx.alias_groups))
    return Score(hit, float(hit), config.metric, SCORED)


metric("exact", task_types=("open_writing",), default=True)(exact_text_qa)
