"""Metrics: does a parsed answer match the target?  One small pure function per comparison.

Answers come from the strict parser (see ``normalize.parsers``): a letter for multiple choice,
a canonical number string for math, a dict/list for structured JSON, a string otherwise.
Metrics only *compare*; they never rewrite the answer.  Aliases (the pack's alias groups and a
row's ``aliases``) widen the set of accepted targets when matching.

Targets, by task type:

* ``multiple_choice``: a letter (``"B"``, any case), an ``int`` option index counted **from 0**
  (``1`` → ``"B"``), or the exact text of one option when the row's ``options`` are texts.
* ``math``: a number (``int``/``float``) or a number string (``"42"``, ``"-3"``, ``"0.5"``,
  ``"2/3"``, ``"1e-3"``, ``"1,234"``); other strings are compared as stripped text.
* ``structured_json``: a dict/list (or any JSON value), or a string holding JSON text.
* ``extractive_qa`` / ``open_writing``: a string, or a list of strings (any of them is right).
* ``code``: a string.

The pack's ``scoring:`` section sets the metric per task type, and may override it per task
name (a task's entry is laid over its type's entry).  Keys, with defaults:

====================  ========================================  ==============================
key                   meaning                                   default / allowed
====================  ========================================  ==============================
``metric``            which comparison                          per type, see ``METRICS``
``rel_tol``           math: relative tolerance                  ``0`` (exact)
``abs_tol``           math: absolute tolerance                  ``0`` (exact)
``timeout``           math_verify: seconds per comparison       ``5``
``f1_threshold``      f1 metrics: value counted as ``correct``  ``1.0``
====================  ========================================  ==============================

A metric gives a :class:`Score`: ``value`` in [0, 1] (1/0 for yes/no metrics, the F1 for
``f1``/``field_f1``), which reports average, and ``correct`` (``value >= f1_threshold`` for F1
metrics), which goes into the ``correct`` column.
"""

from __future__ import annotations

import json
import math
import string
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, NamedTuple

from normalize._deadline import TimeUp
from normalize._mathvalue import DEFAULT_MATH_TIMEOUT, NotMath, Tolerance, equivalent, read_value
from normalize.pack import Pack, canonical_json
from scoring._mathverify import MathVerifier

__all__ = [
    "METRICS",
    "FieldScores",
    "MathVerifier",
    "Score",
    "ScoringConfig",
    "alias_candidates",
    "canonicalize_json",
    "choice_letter",
    "code_match",
    "compare",
    "exact_match",
    "flatten_json",
    "json_equal",
    "json_field_scores",
    "math_match",
    "math_verify_match",
    "normalize_squad",
    "numeric_match",
    "parse_number",
    "read_targets",
    "score_answer",
    "score_detail",
    "score_row",
    "score_rows",
    "scoring_config",
    "squad_exact_match",
    "squad_tokens",
    "token_f1",
]

#: Metrics each task type accepts; the first is the default.
METRICS: Final[Mapping[str, tuple[str, ...]]] = {
    "multiple_choice": ("exact",),
    "math": ("math", "numeric", "exact", "math_verify"),
    "extractive_qa": ("squad_exact", "f1", "exact"),
    "structured_json": ("exact", "field_f1"),
    "code": ("exact",),
    "open_writing": ("exact", "squad_exact", "f1"),
}

_TYPE_KEYS: Final[Mapping[str, frozenset[str]]] = {
    "multiple_choice": frozenset({"metric"}),
    "math": frozenset({"metric", "rel_tol", "abs_tol", "timeout", "percent_bare"}),
    "extractive_qa": frozenset({"metric", "f1_threshold"}),
    "structured_json": frozenset({"metric", "f1_threshold"}),
    "code": frozenset({"metric"}),
    "open_writing": frozenset({"metric", "f1_threshold"}),
}

# Outcomes of scoring one row.
SCORED: Final = "scored"  # compared with the target: correct is True or False
NO_ANSWER: Final = "no_answer"  # the parser gave no answer: wrong in strict accuracy
NO_TARGET: Final = "no_target"  # the row has no target: left out of every accuracy
BAD_TARGET: Final = "bad_target"  # the target cannot be read for this task type: left out, reported


# --------------------------------------------------------------------------- configuration


@dataclass(frozen=True)
class ScoringConfig:
    """The resolved ``scoring:`` settings for one task (see the module docstring)."""

    task_type: str
    metric: str
    rel_tol: float = 0.0
    abs_tol: float = 0.0
    timeout: float = 5.0
    f1_threshold: float = 1.0
    percent_bare: bool = False


def _number_setting(value: Any, where: str, *, positive: bool = False, at_most_one: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where} must be a finite number, got {value!r}")
    if value < 0 or (positive and value == 0) or (at_most_one and value > 1):
        bound = "(0, 1]" if at_most_one else ("> 0" if positive else ">= 0")
        raise ValueError(f"{where} must be {bound}, got {value!r}")
    return float(value)


def scoring_config(pack: Pack, task: str, task_type: str | None = None) -> ScoringConfig:
    """The scoring settings for ``task`` from ``pack.scoring``; ``ValueError`` on a bad key.

    >>> from normalize.pack import load_pack
    >>> scoring_config(load_pack(), "multiple_choice")
    ScoringConfig(task_type='multiple_choice', metric='exact', rel_tol=0.0, abs_tol=0.0, timeout=5.0, f1_threshold=1.0, percent_bare=False)
    """
    kind = task_type if task_type is not None else pack.task_type_of(task)
    if kind not in METRICS:
        raise ValueError(f"unknown task type {kind!r}")
    merged: dict[str, Any] = dict(pack.scoring.get(kind, {}))
    if task != kind:
        merged.update(pack.scoring.get(task, {}))
    allowed = _TYPE_KEYS[kind]
    for key in merged:
        if key not in allowed:
            raise ValueError(f"scoring.{task}: unknown key {key!r} for task type {kind}; "
                             f"known keys: {', '.join(sorted(allowed))}")
    metric = merged.get("metric", METRICS[kind][0])
    if metric not in METRICS[kind]:
        raise ValueError(f"scoring.{task}.metric: {metric!r} is not a metric for {kind}; "
                         f"choose one of {', '.join(METRICS[kind])}")
    where = f"scoring.{task}"
    return ScoringConfig(
        task_type=kind,
        metric=metric,
        rel_tol=_number_setting(merged.get("rel_tol", 0.0), f"{where}.rel_tol"),
        abs_tol=_number_setting(merged.get("abs_tol", 0.0), f"{where}.abs_tol"),
        timeout=_number_setting(merged.get("timeout", 5.0), f"{where}.timeout", positive=True),
        f1_threshold=_number_setting(merged.get("f1_threshold", 1.0), f"{where}.f1_threshold",
                                     positive=True, at_most_one=True),
        percent_bare=_bool_setting(merged.get("percent_bare", False), f"{where}.percent_bare"),
    )


def _bool_setting(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{where} must be true or false, got {value!r}")
    return value


# --------------------------------------------------------------------------- text


def exact_match(answer: str, target: str) -> bool:
    """Equal after stripping surrounding whitespace; case and inner spacing count.

    >>> exact_match(" Paris\\n", "Paris"), exact_match("paris", "Paris")
    (True, False)
    """
    return answer.strip() == target.strip()


def _is_punctuation(ch: str) -> bool:
    return ch in string.punctuation or unicodedata.category(ch).startswith("P")


_ARTICLES: Final = frozenset({"a", "an", "the"})


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x4E00 <= cp <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= cp <= 0x4DBF  # extension A
        or 0x20000 <= cp <= 0x2EBEF  # extensions B–F
        or 0x30000 <= cp <= 0x323AF  # extensions G–H
        or 0xF900 <= cp <= 0xFAFF  # compatibility ideographs
        or 0x3040 <= cp <= 0x30FF  # hiragana, katakana
        or 0x31F0 <= cp <= 0x31FF  # katakana phonetic extensions
        or 0xFF66 <= cp <= 0xFF9F  # half-width katakana
        or 0xAC00 <= cp <= 0xD7AF  # hangul syllables
        or 0x1100 <= cp <= 0x11FF  # hangul jamo
        or 0x3130 <= cp <= 0x318F  # hangul compatibility jamo
    )


def _split_cjk(word: str) -> Iterator[str]:
    run: list[str] = []
    for ch in word:
        if _is_cjk(ch):
            if run:
                yield "".join(run)
                run = []
            yield ch
        else:
            run.append(ch)
    if run:
        yield "".join(run)


def squad_tokens(text: str) -> list[str]:
    """SQuAD tokens: lower case, punctuation removed, articles dropped, each CJK character a token.

    Punctuation is ASCII punctuation (as in the SQuAD script) plus every Unicode ``P*`` character,
    so ``，`` and ``。`` go too.  Removal joins (``don't`` → ``dont``), as in SQuAD.

    >>> squad_tokens("The Eiffel-Tower, in Paris!")
    ['eiffeltower', 'in', 'paris']
    >>> squad_tokens("北京大学 Beijing")
    ['北', '京', '大', '学', 'beijing']
    """
    lowered = "".join(ch for ch in text.lower() if not _is_punctuation(ch))
    tokens: list[str] = []
    for word in lowered.split():
        if word in _ARTICLES:
            continue
        tokens.extend(_split_cjk(word))
    return tokens


def normalize_squad(text: str) -> str:
    """The SQuAD-normalized form: :func:`squad_tokens` joined by single spaces.

    >>> normalize_squad("  The  answer: an apple. ")
    'answer apple'
    """
    return " ".join(squad_tokens(text))


def squad_exact_match(answer: str, target: str) -> bool:
    """Exact match after SQuAD normalization.

    >>> squad_exact_match("the Eiffel Tower.", "Eiffel tower")
    True
    """
    return squad_tokens(answer) == squad_tokens(target)


def token_f1(answer: str, target: str) -> float:
    """SQuAD token F1 (bag of tokens); two empty texts score 1, one empty text 0.

    >>> round(token_f1("the big red house", "red house"), 4)
    0.8
    >>> round(token_f1("北京大学", "北京"), 4)
    0.6667
    """
    pred, gold = squad_tokens(answer), squad_tokens(target)
    if not pred or not gold:
        return float(pred == gold)
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision = common / len(pred)
    recall = common / len(gold)
    return 2 * precision * recall / (precision + recall)


# --------------------------------------------------------------------------- numbers


def _without_thousands(text: str) -> str:
    """``1,234,567.5`` → ``1234567.5``; text with commas in any other place is returned as is."""
    if "," not in text:
        return text
    sign = text[0] if text[:1] in "+-" else ""
    body = text[len(sign):]
    whole, dot, frac = body.partition(".")
    groups = whole.split(",")
    if (1 <= len(groups[0]) <= 3 and groups[0].isdigit()
            and all(len(g) == 3 and g.isdigit() for g in groups[1:])):
        return sign + "".join(groups) + dot + frac
    return text


def parse_number(value: Any) -> Fraction | None:
    """An exact rational for a number or number string; ``None`` when it is not one.

    Accepts integers, decimals, exponents, ``p/q`` fractions, a leading sign (also ``−``) and
    thousands separators (``1,234``).  Floats convert through their shortest repr, so ``0.1``
    is 1/10.

    >>> parse_number("2/3"), parse_number("-0.50"), parse_number("1,234"), parse_number(0.1)
    (Fraction(2, 3), Fraction(-1, 2), Fraction(1234, 1), Fraction(1, 10))
    >>> parse_number("x+1") is None, parse_number("1/0") is None, parse_number(float("nan")) is None
    (True, True, True)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(repr(value)) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = value.strip().replace("\u2212", "-")
    if not text or "_" in text or any(ch.isspace() for ch in text):
        return None
    text = _without_thousands(text)
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def numeric_match(answer: Any, target: Any, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> bool:
    """Numbers equal exactly as rationals, or within ``max(rel_tol·max(|a|,|b|), abs_tol)``.

    The comparison is done in exact rationals, so ``2/3`` equals ``0.6666666667`` only under a
    tolerance.  When either side is not a number the stripped texts are compared.

    >>> numeric_match("2/3", "0.6666666667"), numeric_match("2/3", "0.6666666667", rel_tol=1e-9)
    (False, True)
    >>> numeric_match("0.5", "1/2"), numeric_match("42", 42), numeric_match("x", " x ")
    (True, True, True)
    """
    a, b = parse_number(answer), parse_number(target)
    if a is None or b is None:
        return isinstance(answer, str) and isinstance(target, str) and exact_match(answer, target)
    if a == b:
        return True
    bound = max(Fraction(rel_tol) * max(abs(a), abs(b)), Fraction(abs_tol))
    return abs(a - b) <= bound


def math_match(
    answer: str,
    target: str,
    *,
    rel_tol: float = 0.0,
    abs_tol: float = 0.0,
    percent_bare: bool = False,
    timeout: float = DEFAULT_MATH_TIMEOUT,
) -> bool:
    r"""Mathematical equivalence of an answer and a gold, both read by the ``math`` parser's reader.

    Plain numbers compare as exact rationals (within the tolerances); sets unordered, tuples and
    intervals ordered, matrices element-wise, expressions and relations by SymPy.  A gold
    written in LaTeX works as the dataset writes it.  A gold that cannot be read raises
    ``ValueError``; past ``timeout`` seconds ``TimeoutError``.

    >>> math_match("5/4", r"1\frac{1}{4}"), math_match(r"\{-2021, 2021\}", r"\pm 2021"), math_match("2021", r"\pm 2021")
    (True, True, False)
    >>> math_match("20%", "20"), math_match("20%", "20", percent_bare=True), math_match("20", r"20\%")
    (False, True, True)
    """
    try:
        gold = read_value(target, timeout=timeout)
    except NotMath as exc:
        raise ValueError(f"the target {target!r} is not a mathematical answer: {exc.reason}") from None
    except TimeUp:
        raise TimeoutError(f"reading the target {target!r} took longer than {timeout:g} s") from None
    try:
        pred = read_value(answer, timeout=timeout)
    except NotMath:
        return False
    except TimeUp:
        raise TimeoutError(f"reading the answer {answer!r} took longer than {timeout:g} s") from None
    try:
        return equivalent(pred, gold, tol=Tolerance(rel_tol, abs_tol), percent_bare=percent_bare, timeout=timeout)
    except TimeUp:
        raise TimeoutError(f"comparing {answer!r} with {target!r} took longer than {timeout:g} s") from None


def math_verify_match(answer: str, target: str, verifier: MathVerifier, *, timeout: float | None = None) -> bool:
    """Symbolic equivalence by Math-Verify (extra ``math``), run in ``verifier``'s worker process.

    Raises ``TimeoutError`` when the comparison runs past ``timeout`` (default: the verifier's).
    """
    return verifier.equivalent(answer, target, timeout=timeout)


# --------------------------------------------------------------------------- JSON


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
    return value


# --------------------------------------------------------------------------- code and choices


def _code_lines(text: str) -> str:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def code_match(answer: str, target: str) -> bool:
    """Exact match of code, ignoring line-ending style, trailing spaces and blank edge lines.

    Indentation and everything inside lines count (it is meaningful in Python).

    >>> code_match("def f():\\r\\n    return 1  \\n\\n", "def f():\\n    return 1")
    True
    >>> code_match("def f():\\n  return 1", "def f():\\n    return 1")
    False
    """
    return _code_lines(answer) == _code_lines(target)


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


# --------------------------------------------------------------------------- aliases


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


def _number_key(text: str) -> Any:
    number = parse_number(text)
    return ("n", number) if number is not None else ("s", text.strip())


# --------------------------------------------------------------------------- scoring one answer


@dataclass(frozen=True)
class Score:
    """The verdict on one row.

    ``outcome`` is ``scored``, ``no_answer`` (wrong in strict accuracy), ``no_target`` or
    ``bad_target`` (both left out of accuracies and counted apart); ``value`` is in [0, 1]
    and 0 unless scored; ``correct`` is None unless scored; ``note`` says why, when useful.
    """

    correct: bool | None
    value: float
    metric: str
    outcome: str
    note: str | None = None


def read_targets(
    config: ScoringConfig,
    target: Any,
    aliases: Any = None,
    options: Sequence[str] | int | None = None,
) -> list[Any]:
    """The accepted targets of a row (target first, then its ``aliases``) in comparable form.

    Letters for multiple choice, JSON values for structured JSON, strings otherwise.
    ``ValueError`` names a target that cannot be read for the task type.

    >>> read_targets(ScoringConfig("multiple_choice", "exact"), 2, ["d"], 4)
    ['C', 'D']
    """
    kind = config.task_type
    extra = _row_aliases(aliases)
    if kind == "multiple_choice":
        return [choice_letter(t, options) for t in [target, *extra]]
    if kind == "structured_json":
        return [_as_json(t, "the target") for t in [target, *extra]]
    golds: list[Any] = []
    for i, t in enumerate([target, *extra]):
        what = "the target" if i == 0 else f"aliases[{i - 1}]"
        if kind == "math" and isinstance(t, (int, float)) and not isinstance(t, bool):
            if parse_number(t) is None:
                raise ValueError(f"{what} must be a finite number, got {t!r}")
            golds.append(repr(t) if isinstance(t, float) else str(t))
        elif i == 0 and kind in ("extractive_qa", "open_writing"):
            golds.extend(_texts(t, what))
        elif isinstance(t, str):
            golds.append(t)
        else:
            raise ValueError(f"{what} must be a string for {kind}, got {t!r}")
    return golds


def _texts(target: Any, what: str) -> list[str]:
    if isinstance(target, str):
        return [target]
    if isinstance(target, list) and target and all(isinstance(t, str) for t in target):
        return list(target)
    raise ValueError(f"{what} must be a string or a non-empty list of strings, got {target!r}")


def _row_aliases(aliases: Any) -> list[Any]:
    if aliases is None:
        return []
    if not isinstance(aliases, list):
        raise ValueError(f"aliases must be a list, got {aliases!r}")
    return list(aliases)


def compare(
    config: ScoringConfig,
    answer: Any,
    golds: Sequence[Any],
    *,
    alias_groups: Sequence[Sequence[str]] = (),
    verifier: MathVerifier | None = None,
) -> Score:
    """Compare a parsed answer with targets from :func:`read_targets` using ``config``'s metric.

    >>> compare(ScoringConfig("extractive_qa", "f1", f1_threshold=0.5), "the red house", ["red house", "home"])
    Score(correct=True, value=1.0, metric='f1', outcome='scored', note=None)
    """
    kind, metric = config.task_type, config.metric
    if answer is None:
        return Score(None, 0.0, metric, NO_ANSWER)
    if kind == "multiple_choice":
        accepted = alias_candidates(golds, alias_groups, key=lambda s: s.strip().upper())
        hit = isinstance(answer, str) and answer.strip().upper() in {a.strip().upper() for a in accepted}
        return Score(hit, float(hit), metric, SCORED)
    if kind == "structured_json":
        try:
            pred = _as_json(answer, "the answer")
        except ValueError as exc:
            return Score(False, 0.0, metric, SCORED, str(exc))
        if metric == "exact":
            hit = any(json_equal(pred, g) for g in golds)
            return Score(hit, float(hit), metric, SCORED)
        best = max(json_field_scores(pred, g).f1 for g in golds)
        return Score(best >= config.f1_threshold, best, metric, SCORED)
    if kind == "code":
        hit = isinstance(answer, str) and any(code_match(answer, g) for g in golds)
        return Score(hit, float(hit), metric, SCORED)
    text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    if kind == "math":
        if metric == "math_verify":
            if verifier is None:
                raise TypeError("the math_verify metric needs a MathVerifier: use score_rows or pass verifier=")
            try:
                hit = any(math_verify_match(text, g, verifier, timeout=config.timeout)
                          for g in alias_candidates(golds, alias_groups))
            except TimeoutError as exc:
                return Score(False, 0.0, metric, SCORED, str(exc))
            return Score(hit, float(hit), metric, SCORED)
        if metric == "math":
            notes = []
            hit = False
            accepted = alias_candidates(golds, alias_groups, key=_number_key)
            for g in accepted:
                if exact_match(text, g):
                    hit = True
                    break
                try:
                    hit = math_match(text, g, rel_tol=config.rel_tol, abs_tol=config.abs_tol,
                                     percent_bare=config.percent_bare, timeout=config.timeout)
                except (ValueError, TimeoutError) as exc:
                    notes.append(str(exc))
                    continue
                if hit:
                    break
            if not hit and notes and len(notes) == len(accepted):
                return Score(None, 0.0, metric, BAD_TARGET, notes[0])
            return Score(hit, float(hit), metric, SCORED, "; ".join(notes) or None)
        accepted = alias_candidates(golds, alias_groups, key=_number_key)
        if metric == "exact":
            hit = any(exact_match(text, g) for g in accepted)
        else:
            hit = any(numeric_match(text, g, rel_tol=config.rel_tol, abs_tol=config.abs_tol) for g in accepted)
        return Score(hit, float(hit), metric, SCORED)
    # extractive_qa and open_writing
    if metric == "exact":
        hit = any(exact_match(text, g) for g in alias_candidates(golds, alias_groups))
        return Score(hit, float(hit), metric, SCORED)
    accepted = alias_candidates(golds, alias_groups, key=normalize_squad)
    if metric == "squad_exact":
        hit = any(squad_exact_match(text, g) for g in accepted)
        return Score(hit, float(hit), metric, SCORED)
    best = max(token_f1(text, g) for g in accepted)
    return Score(best >= config.f1_threshold, best, metric, SCORED)


def score_answer(
    config: ScoringConfig,
    answer: Any,
    target: Any,
    *,
    aliases: Any = None,
    alias_groups: Sequence[Sequence[str]] = (),
    options: Sequence[str] | int | None = None,
    verifier: MathVerifier | None = None,
) -> Score:
    """:func:`read_targets` then :func:`compare`; a target that cannot be read raises ``ValueError``.

    >>> cfg = ScoringConfig("math", "numeric")
    >>> score_answer(cfg, "0.5", "1/2").correct, score_answer(cfg, None, "1/2").outcome
    (True, 'no_answer')
    """
    golds = read_targets(config, target, aliases, options)
    return compare(config, answer, golds, alias_groups=alias_groups, verifier=verifier)


# --------------------------------------------------------------------------- scoring rows


def _row_task_type(pack: Pack, row: Mapping[str, Any]) -> str | None:
    kind = row.get("task_type")
    if isinstance(kind, str) and kind in METRICS:
        return kind
    task = row.get("task")
    if not isinstance(task, str):
        return None
    try:
        return pack.task_type_of(task)
    except ValueError:
        return None


def score_detail(pack: Pack, row: Mapping[str, Any], *, verifier: MathVerifier | None = None) -> Score:
    """Score an output row of :func:`normalize.rows.normalize_row` (fields ``answer``, ``target``...).

    A row without a target is ``no_target``; a row whose task is unknown or whose line was
    not JSON has no answer and is ``no_answer`` when it has a target.  A pack ``scoring:``
    error raises ``ValueError``; a target that cannot be read gives ``bad_target``.
    """
    target = row.get("target")
    kind = _row_task_type(pack, row)
    if target is None:
        return Score(None, 0.0, "none", NO_TARGET, "the row has no target")
    if kind is None:
        return Score(None, 0.0, "none", NO_ANSWER, "the row has no known task")
    task = row.get("task")
    config = scoring_config(pack, task if isinstance(task, str) else kind, kind)
    answer = row.get("answer") if row.get("status", "ok") == "ok" else None
    options = row.get("options", row.get("choices"))
    if not (options is None or (isinstance(options, (list, int)) and not isinstance(options, bool))):
        options = None
    try:
        golds = read_targets(config, target, row.get("aliases"), options)
    except ValueError as exc:
        return Score(None, 0.0, config.metric, BAD_TARGET, str(exc))
    return compare(config, answer, golds, alias_groups=pack.alias_groups(), verifier=verifier)


def score_row(pack: Pack, row: Mapping[str, Any]) -> bool | None:
    """True/False for a scored row; None when there is no target or no answer (see :class:`Score`)."""
    if _needs_verifier(pack, row):
        with MathVerifier() as verifier:
            return score_detail(pack, row, verifier=verifier).correct
    return score_detail(pack, row).correct


def _needs_verifier(pack: Pack, row: Mapping[str, Any]) -> bool:
    kind = _row_task_type(pack, row)
    if kind != "math":
        return False
    task = row.get("task")
    return scoring_config(pack, task if isinstance(task, str) else kind, kind).metric == "math_verify"


def score_rows(pack: Pack, rows: Iterable[Mapping[str, Any]]) -> list[Score]:
    """Score many rows; one Math-Verify worker (started only if needed) serves them all."""
    with MathVerifier() as verifier:
        return [score_detail(pack, r, verifier=verifier) for r in rows]
