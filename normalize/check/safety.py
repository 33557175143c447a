"""The safety check: each rule spec and parser on adversarial inputs, with a short regex
timeout and a wall-clock budget (timeouts, exceptions, slow calls, unbounded growth)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Final

from normalize._json import canonical_json
from normalize.check.findings import (
    DEFAULT_SAFETY_BUDGET,
    DEFAULT_SAFETY_TIMEOUT,
    Finding,
    distinct_parsers,
    distinct_specs,
)
from normalize.engine import RuleSpec, apply_rule
from normalize.pack import Pack, ParserSpec
from normalize.registry import REGISTRY, ParseContext


def _mixed_scripts(size: int) -> str:
    unit = "Answer 答案是 Ответ الإجابة हिन्दी 😀👍🏽 e\u0301 a\u0308\u0323 ＡＢＣ１２３ “q” ‘s’ \t 한국어 ー "
    unit_bytes = len(unit.encode("utf-8"))
    return unit * (size // unit_bytes)


#: Adversarial inputs: (name, builder).  Built lazily so importing this module stays cheap.
ADVERSARIAL: Final[tuple[tuple[str, Callable[[], str]], ...]] = (
    ("'answer is ' x 20000", lambda: "answer is " * 20000),
    ("'{' x 100000", lambda: "{" * 100000),
    ("'\\boxed{' x 5000", lambda: "\\boxed{" * 5000),
    ("'(' x 50000", lambda: "(" * 50000),
    ("1 MiB of mixed scripts", lambda: _mixed_scripts((1 << 20) - 64)),
    ("'#' x 10000 + 'x'", lambda: "#" * 10000 + "x"),
    ("'**_' x 30000", lambda: "**_" * 30000),
    ("'```\\n' x 20000", lambda: "```\n" * 20000),
    ("'<think>' x 20000", lambda: "<think>" * 20000),
    ("'[\"a\", ' x 20000", lambda: '["a", ' * 20000),
    ("'\\n' (literal) x 50000", lambda: "\\n" * 50000),
    ("'1,' x 100000", lambda: "1," * 100000),
    ("'答案是：' x 20000", lambda: "答案是：" * 20000),
    ("'####' x 20000", lambda: "####" * 20000),
    ("' ' x 100000 + 'x'", lambda: " " * 100000 + "x"),
    ("'一千二百' x 20000", lambda: "一千二百三十四点五" * 20000),
)


def _grows(before: str, after: str) -> bool:
    return len(after) > 2 * len(before) + 4096


def _safety_rule(spec: RuleSpec, name: str, text: str, timeout: float, budget: float) -> Finding | None:
    start = time.perf_counter()
    problem = ""
    out: str | None = None
    applied = apply_rule(spec, text, timeout=timeout)
    if isinstance(applied, str):
        out = applied
    elif applied.kind == "timeout":
        problem = f"timed out (regex timeout {timeout}s)"
    elif applied.kind == "crash":
        problem = f"blew up: {applied.detail[:len(applied.error) + 2 + 200]}"
    elif applied.kind == "returned":
        problem = applied.detail
    # "rejected" is a recorded status, not a failure
    elapsed = time.perf_counter() - start
    if not problem and elapsed > budget:
        problem = f"slow: {elapsed:.2f}s, over the budget of {budget}s"
    if not problem and isinstance(out, str) and _grows(text, out):
        problem = f"grows: {len(text)} → {len(out)} characters"
    if not problem:
        return None
    params = spec.params.model_dump(mode="json")
    label = spec.name + (f" {canonical_json(params)}" if params and len(canonical_json(params)) <= 80 else "")
    return Finding("safety", f"rule {label} on {name}: {problem}", rule=spec.name)


def _safety_parser(spec: ParserSpec, name: str, text: str, timeout: float, budget: float) -> Finding | None:
    definition = REGISTRY.parser(spec.name)
    start = time.perf_counter()
    problem = ""
    try:
        parsed = definition.fn(text, spec.params, ParseContext(options=None, timeout=timeout))
        answer = parsed.answer
    except ValueError:
        answer = None  # Pack.run records status invalid
    except TimeoutError:
        problem, answer = f"timed out (regex timeout {timeout}s)", None
    except Exception as exc:  # the check's purpose is to find these
        problem, answer = f"blew up: {type(exc).__name__}: {str(exc)[:200]}", None
    elapsed = time.perf_counter() - start
    if not problem and elapsed > budget:
        problem = f"slow: {elapsed:.2f}s, over the budget of {budget}s"
    if not problem and isinstance(answer, str) and _grows(text, answer):
        problem = f"grows: {len(text)} → {len(answer)} characters"
    if not problem:
        return None
    return Finding("safety", f"parser {spec.name} on {name}: {problem}")


def check_safety(
    pack: Pack,
    *,
    timeout: float = DEFAULT_SAFETY_TIMEOUT,
    budget: float = DEFAULT_SAFETY_BUDGET,
    inputs: Sequence[tuple[str, Callable[[], str]]] = ADVERSARIAL,
) -> list[Finding]:
    """Each distinct rule spec and parser on each adversarial input."""
    findings: list[Finding] = []
    specs, parsers = distinct_specs(pack), distinct_parsers(pack)
    for name, build in inputs:
        text = build()
        for spec in specs:
            found = _safety_rule(spec, name, text, timeout, budget)
            if found:
                findings.append(found)
        for parser in parsers:
            found_p = _safety_parser(parser, name, text, timeout, budget)
            if found_p:
                findings.append(found_p)
    return findings
