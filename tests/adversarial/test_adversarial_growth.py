"""Every shipped chain + parser is linear in the output length: work at 2n over work at n.

Bounds are growth ratios of CPU time (medians of alternating runs, normalize.limits._growth), never
absolute times, so the suite holds on a loaded machine.  The inputs are generated here, of each
kind issue 12 names (nested emphasis, nested \\text{ / \\left, answer markers between fences,
alternating fences) and the rest of the adversarial kinds.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import normalize
from normalize.limits._growth import KINDS, Builder, measure_growth, nested, repeated

PACK = normalize.load_pack()
TYPES = sorted(PACK.task_types)

#: The shapes that were quadratic before (issue 12, point 1), by task types they reach.
ISSUE_SHAPES: dict[str, Builder] = {
    "nested emphasis": nested("*a _b ", "x", " b_ a*"),
    "nested bold": nested("**a ", "x", " a**"),
    "nested \\text{": nested("\\text{", "5", "}"),
    "nested \\left(": nested("\\left(", "5", "\\right)"),
    "answer markers between fences": repeated("The answer is 7.\n```\nanswer: 8\n```\n"),
    "alternating fences": repeated("```\n~~~\n"),
    "full-width fences": repeated("｀｀｀\n"),
    "escaped newline before a fence": repeated("\\n```"),
}


def _row(task_type: str) -> object:
    options = 4 if task_type == "multiple_choice" else None
    return lambda text: PACK.run(text, task_type, options=options)


@pytest.mark.parametrize("task_type", TYPES)
@pytest.mark.parametrize("shape", sorted(ISSUE_SHAPES))
def test_issue_shapes_are_linear(task_type: str, shape: str) -> None:
    growth = measure_growth(_row(task_type), ISSUE_SHAPES[shape])  # type: ignore[arg-type]
    assert not growth.superlinear, f"{task_type} on {shape}: work ×{growth.ratios} per doubling"


@pytest.mark.parametrize("task_type", ["math", "multiple_choice"])
@pytest.mark.parametrize("kind", [name for name, _ in KINDS])
def test_every_adversarial_kind_is_linear_through_the_longest_chains(task_type: str, kind: str) -> None:
    build = dict(KINDS)[kind]
    growth = measure_growth(_row(task_type), build)  # type: ignore[arg-type]
    assert not growth.superlinear, f"{task_type} on {kind}: work ×{growth.ratios} per doubling"


def _quadratic(text: str) -> int:
    return sum(text.count("a", i) for i in range(0, len(text), 16))


def test_the_growth_measure_tells_quadratic_from_linear() -> None:
    # The measure must be able to fail: a quadratic function is caught, a linear one is not.  Each
    # verdict is the measure's in one of three tries: a CPU-time ratio on a loaded machine (a clean-
    # clone CI run beside a wheel build) once read a linear count as superlinear; what is held is
    # that the measure can tell them apart, not that no single measurement ever strays.
    def tries(fn: Callable[[str], object], text: str) -> list[bool]:
        verdicts: list[bool] = []
        for _ in range(3):
            verdicts.append(measure_growth(fn, repeated(text)).superlinear)
            if verdicts[-1] == (fn is _quadratic):
                break
        return verdicts

    assert tries(_quadratic, "ab")[-1]
    assert not tries(lambda t: t.count("a"), "ab")[-1]
    assert not tries(lambda t: sorted(t), "ba")[-1]  # n log n is fine


_IN_PACK = {spec.name for t in PACK.task_types.values() for spec in t.chain.specs}
_NEEDS_RESOURCES = {"align_json_schema"}  # needs a schema from a pack: covered through packs that use it
#: Third-party work bounded by its own max_bytes/max_seconds, not by construction (not in a shipped chain).
_EXTERNAL = {"repair_json"}
#: Its pattern is the pack author's: bounded by the regex module's timeout (and the row budget), not by
#: construction; tests/test_pack_authors.py covers the timeout.
_USER_PATTERN = {"extract_regex"}


@pytest.mark.parametrize(
    "name", sorted(n for n in normalize.REGISTRY.rules if n not in _IN_PACK | _NEEDS_RESOURCES | _EXTERNAL | _USER_PATTERN)
)
def test_registered_rules_outside_the_shipped_chains_are_linear_too(name: str) -> None:
    from normalize.errors import RejectText
    from normalize.limits._growth import probe

    definition = normalize.REGISTRY.rule(name)
    problems = probe(lambda text: definition(text), budget=10.0, benign=(RejectText,))
    assert problems == []
