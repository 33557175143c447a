"""Properties every registered rule must have, enumerated from ``REGISTRY.rules``.

A newly registered rule is exercised here without anyone writing a test for it: it must not
raise on arbitrary Unicode (``RejectText`` from a structure rule, or from an extract rule whose
params enable a rejection mode such as ``conflict="contradictory"``, is a recorded status, not a
crash), be deterministic, be idempotent when it says so, not grow text without bound, carry a
docstring example, and be covered by a golden sample that it changes.  The rule's params are
the ones the shipped pack uses, else those of its ``opt_in.jsonl`` row, else its defaults
resolved with the shipped pack's resources.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import get_args

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from normalize.check import build_spec, distinct_specs, pack_resources
from normalize.check.samples import SampleSet, default_samples_dir, load_samples
from normalize.core.engine import RuleSpec
from normalize.core.pack import Pack, load_pack
from normalize.core.registry import REGISTRY
from normalize.errors import RejectText
from normalize.status import Status

RULE_NAMES = sorted(REGISTRY.rules)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --------------------------------------------------------------------------- inputs

PIECES = [
    "{", "}", "[", "]", "(", ")", "\\boxed{", "```", "```python\n", "~~~", "<think>", "</think>",
    "####", "答案是：", "因此答案是", "The answer is ", "Answer:", "**", "__", "_", "*", "#", "> ",
    "\\n", "\\t", "\n", "\t", "\r\n", " ", "\u3000", "\x00", "\x1b", "\x7f", "\u200b", "\u202e",
    "\u2028", "e\u0301", "a\u0308\u0323", "😀", "👍🏽", "مرحبا", "Ответ", "ＡＢ１２", "一千二百", "二分之一",
    "“", "”", "‘", "’", "「", "」", "'", '"', ",", ".", "。", "1,234.50", "-3", "−", "$", "%", "½",
    "\\frac{1}{2}", "\\dfrac", "\\text{", "null", "True", "None", "nan", ":", "'a'", "\\", "ﬁ",
]
_PIECE = st.one_of(st.sampled_from(PIECES), st.text(max_size=8))
_PIECEWISE = st.lists(_PIECE, max_size=60).map("".join)
_REPEATED = st.tuples(st.sampled_from([*PIECES, "ab ", "x"]), st.integers(1, 3000)).map(lambda t: t[0] * t[1])
_NESTED = st.integers(1, 400).map(lambda n: "{" * n + "[" * n + "(" * n + "x" + ")" * n + "]" * n + "}" * n)
ARBITRARY = st.one_of(
    st.text(max_size=200),
    _PIECEWISE,
    _REPEATED,
    _NESTED,
    st.tuples(_PIECEWISE, _REPEATED, _PIECEWISE).map("".join),
)


# --------------------------------------------------------------------------- the shipped pack


@functools.cache
def shipped() -> Pack:
    return load_pack()


@functools.cache
def golden() -> SampleSet:
    return load_samples(default_samples_dir(shipped()), shipped())


@functools.cache
def specs_for(name: str) -> tuple[RuleSpec, ...]:
    """The params the rule is really used with: the shipped chains, else its opt-in rows."""
    used = tuple(s for s in distinct_specs(shipped()) if s.name == name)
    if used:
        return used
    resources = pack_resources(shipped())
    rows = [row for row in golden().opt_in if row.rule == name]
    if rows:
        seen: dict[str, RuleSpec] = {}
        for row in rows:
            spec = build_spec(name, row.params, resources)
            seen.setdefault(json.dumps(spec.params.model_dump(mode="json"), sort_keys=True), spec)
        return tuple(seen.values())
    return (build_spec(name, None, resources),)


#: Extract-stage params that ask the rule to reject text: (rule, param, value) -> the status.
REJECTING_PARAMS: dict[tuple[str, str, str], Status] = {
    ("extract_answer_marker", "conflict", "contradictory"): "contradictory",
    ("extract_code_block", "alternatives", "contradictory"): "contradictory",
    ("extract_json_block", "alternatives", "contradictory"): "contradictory",
}
#: Extract rules that decide, whatever their params, that an output states no single answer
#: (the math statement rule: cut-off solutions, hedged or disagreeing final answers).
DECIDING_EXTRACT_RULES: dict[str, frozenset[Status]] = {
    "extract_math_answer": frozenset({"no_answer", "contradictory"}),
    "extract_json_block": frozenset({"invalid"}),  # JSON nested deeper than any parse_json reads
    # an output that ends inside an unclosed <think> block: truncated reasoning, no answer
    "remove_think_blocks": frozenset({"no_answer"}),
}


def _rejection_statuses(spec: RuleSpec) -> frozenset[str]:
    """The statuses ``spec`` may legitimately stop its chain with (none for most rules)."""
    if spec.stage == "structure":
        return frozenset(get_args(Status)) - {"ok", "no_output"}
    params = spec.params.model_dump(mode="json")
    return DECIDING_EXTRACT_RULES.get(spec.name, frozenset()) | frozenset(
        status for (rule, key, value), status in REJECTING_PARAMS.items()
        if rule == spec.name and params.get(key) == value
    )


def _apply(spec: RuleSpec, text: str) -> str | None:
    """The rule's output, or None when it rejects the text with a recorded status it may use:
    any structure rule, or an extract rule whose params enable a rejection mode."""
    try:
        return str(spec.apply(text))
    except RejectText as rejection:
        if rejection.status not in _rejection_statuses(spec):
            raise
        assert rejection.reason, "a rejection must say why"
        return None


# --------------------------------------------------------------------------- properties


def test_only_rejecting_params_let_an_extract_rule_reject() -> None:
    text = "答案是0.答案是1"
    by_conflict = {spec.params.model_dump()["conflict"]: spec for spec in specs_for("extract_answer_marker")}
    assert _rejection_statuses(by_conflict["contradictory"]) == {"contradictory"}
    with pytest.raises(RejectText) as info:
        by_conflict["contradictory"].apply(text)
    assert info.value.status == "contradictory"
    assert _apply(by_conflict["contradictory"], text) is None
    last = build_spec("extract_answer_marker", {"conflict": "last"}, pack_resources(shipped()))
    assert _apply(last, text) == "1"
    assert not _rejection_statuses(last)
    assert not _rejection_statuses(specs_for("normalize_whitespace")[0])


#: Rules that write JSON text: a control character becomes a six-character escape (``\u0000``).
_WRITE_JSON = frozenset({"parse_json", "canonicalize_json", "repair_json"})


@pytest.mark.parametrize("name", RULE_NAMES)
def test_rule_survives_arbitrary_text_deterministically_and_bounded(name: str) -> None:
    specs = specs_for(name)
    growth = 6 if name in _WRITE_JSON else 2

    @FAST
    @given(text=ARBITRARY)
    def check(text: str) -> None:
        for spec in specs:
            first = _apply(spec, text)
            assert _apply(spec, text) == first, "not deterministic"
            if first is not None:
                assert isinstance(first, str)
                assert len(first) <= growth * len(text) + 4096, f"grew from {len(text)} to {len(first)}"

    check()


@pytest.mark.parametrize("name", [n for n in RULE_NAMES if REGISTRY.rules[n].idempotent])
def test_idempotent_rules_are_idempotent(name: str) -> None:
    specs = specs_for(name)

    @FAST
    @given(text=ARBITRARY)
    def check(text: str) -> None:
        for spec in specs:
            once = _apply(spec, text)
            if once is not None:
                assert spec.apply(once) == once

    check()


@pytest.mark.parametrize("name", RULE_NAMES)
def test_rule_has_a_docstring_example(name: str) -> None:
    doc = REGISTRY.rules[name].doc
    assert doc.strip(), f"rule {name} has no docstring"
    assert ">>>" in doc, f"rule {name}'s docstring has no example (>>>)"


@functools.cache
def traced_rules() -> dict[str, frozenset[str]]:
    """Per task type, the rules in the trace of at least one golden sample."""
    out: dict[str, frozenset[str]] = {}
    for task_type, rows in golden().by_type.items():
        seen: set[str] = set()
        for s in rows:
            seen.update(step.rule for step in shipped().run(s.output, s.task, options=s.options).trace)
        out[task_type] = frozenset(seen)
    return out


@pytest.mark.parametrize("name", RULE_NAMES)
def test_rule_has_a_golden_sample_that_it_changes(name: str) -> None:
    pack = shipped()
    users = sorted(t for t, tt in pack.task_types.items() if any(s.name == name for s in tt.chain.specs))
    if users:
        sampled = [t for t in users if t in golden().by_type]
        assert sampled, f"{name} is used by {users}, but none of them has golden samples"
        assert any(name in traced_rules()[t] for t in sampled), (
            f"{name} is used by {users}, but no golden sample of those types is changed by it; "
            f"add a sample to rules/samples/<type>.jsonl that it changes"
        )
        return
    rows = [r for r in golden().opt_in if r.rule == name]
    assert rows, f"{name} is in no chain of the shipped pack and has no row in rules/samples/opt_in.jsonl"
    resources = pack_resources(pack)
    changing = [
        r for r in rows
        if r.expected is not None and r.expected != r.input
        and build_spec(name, r.params, resources).apply(r.input) == r.expected
    ]
    assert changing, f"no opt_in.jsonl row of {name} has an expected text that differs from its input and holds"


# --------------------------------------------------------------------------- the code chain keeps code

_CODE_CHARS = st.sampled_from([
    *"abcdefxyz_=+-*/%()[]{}:,.;'\"#@!?<>|&^0123456789 ", "\t", "    ", "“", "”", "‘", "’",
    "ＡＢＣ", "１２３", "（）", "，", "　", "**", "\\n", "\\t", "你好", "答案是：", "####", "\\boxed{1}", "__init__",
])
_CODE_LINE = st.lists(_CODE_CHARS, max_size=30).map("".join)
_CODE = st.lists(_CODE_LINE, min_size=1, max_size=12).map("\n".join).filter(lambda c: bool(c.strip()))
_PROSE = st.lists(
    st.sampled_from([*"abc XYZ.,:;!?", "答案", "“引号”", "**bold**", "\n", "Here is the code:", "解释：", "1,234", "\t"]),
    max_size=25,
).map("".join)


@FAST
@given(before=_PROSE, code=_CODE, after=_PROSE)
def test_code_chain_keeps_every_non_whitespace_character_of_fenced_code(before: str, code: str, after: str) -> None:
    pack = shipped()
    assert "code" in pack.task_types, "the shipped pack has no code task type"
    text = f"{before}\n\n```python\n{code}\n```\n\n{after}"
    result = pack.run(text, "code")
    assert result.status == "ok", result.reason
    assert result.text is not None
    assert regex.sub(r"\s", "", result.text) == regex.sub(r"\s", "", code)


def test_every_task_type_of_the_shipped_pack_has_enough_golden_samples() -> None:
    for task_type in shipped().task_types:
        rows = golden().by_type.get(task_type, ())
        assert len(rows) >= 30, f"{task_type} has {len(rows)} golden samples; at least 30 are needed"
    assert Path(golden().directory, "opt_in.jsonl").is_file()
