"""The engine: stage order, traces that replay, statuses instead of crashes."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from normalize import status as st
from normalize.core.engine import Chain, RuleSpec, make_spec, replay, run_chain
from normalize.core.registry import REGISTRY, NoParams, RuleDef, rule
from normalize.errors import RegistrationError, RejectText


def _temporary_rule(monkeypatch: pytest.MonkeyPatch, name: str, fn: Any, stage: str = "format") -> RuleSpec:
    definition = RuleDef(
        name=name, stage=stage, version=1, scope=("math",), params_model=NoParams,  # type: ignore[arg-type]
        fn=fn, idempotent=True, doc="",
    )
    monkeypatch.setitem(REGISTRY.rules, name, definition)
    return RuleSpec(name, 1, NoParams())


def test_registering_a_name_twice_fails() -> None:
    with pytest.raises(RegistrationError, match="registered twice"):

        @rule("unify_quotes", stage="format", version=1, scope=("math",))
        def again(text: str, params: NoParams | None = None, *, timeout: float = 0.5) -> str:
            return text


def test_bad_declarations_fail() -> None:
    with pytest.raises(RegistrationError, match="stage"):
        rule("x_bad_stage", stage="polish", version=1, scope=("math",))  # type: ignore[arg-type]
    with pytest.raises(RegistrationError, match="version"):
        rule("x_bad_version", stage="format", version=0, scope=("math",))
    with pytest.raises(RegistrationError, match="scope"):
        rule("x_bad_scope", stage="format", version=1, scope=("poetry",))


def test_stage_order_is_enforced_and_names_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    late = _temporary_rule(monkeypatch, "t_extract_late", lambda t, p, timeout: t, stage="extract")
    with pytest.raises(ValueError, match=r"t_extract_late.*after 'unify_quotes'"):
        Chain((make_spec("unify_quotes"), late))


def test_none_stays_none() -> None:
    out = run_chain(Chain((make_spec("unify_quotes"),)), None)
    assert out.text is None and out.raw is None and out.status == st.NO_OUTPUT


def test_trace_records_only_changes_and_replays() -> None:
    chain = Chain((make_spec("unify_quotes"),))
    out = run_chain(chain, "“B”")
    assert out.status == st.OK and out.text == '"B"'
    assert [(s.rule, s.before, s.after) for s in out.trace] == [("unify_quotes", "“B”", '"B"')]
    assert replay(chain, "“B”", out.trace) == out.text
    assert run_chain(chain, "plain").trace == ()


def test_replay_detects_a_tampered_trace() -> None:
    chain = Chain((make_spec("unify_quotes"),))
    out = run_chain(chain, "“B”")
    with pytest.raises(ValueError, match="starts from different text"):
        replay(chain, "«B»x", out.trace)


def test_a_raising_rule_gives_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(text: str, params: Any, timeout: float) -> str:
        raise KeyError("oops")

    spec = _temporary_rule(monkeypatch, "t_boom", boom)
    out = run_chain(Chain((make_spec("unify_quotes"), spec)), "“x”")
    assert out.status == st.ERROR and "t_boom" in (out.reason or "")
    assert out.text == '"x"'  # the text reached before the failing rule is kept


def test_reject_gives_the_rules_status(monkeypatch: pytest.MonkeyPatch) -> None:
    def reject(text: str, params: Any, timeout: float) -> str:
        raise RejectText(st.INVALID, "/a: 'x' is not of type 'number'")

    spec = _temporary_rule(monkeypatch, "t_reject", reject, stage="structure")
    out = run_chain(Chain((spec,)), "{}")
    assert out.status == st.INVALID and out.reason == "t_reject: /a: 'x' is not of type 'number'"


def test_regex_timeout_gives_error_in_worker_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    from normalize.limits._regex import compile_pattern

    evil = compile_pattern(r"(a|aa)+$")

    def slow(text: str, params: Any, timeout: float) -> str:
        evil.search(text, timeout=timeout)
        return text

    spec = _temporary_rule(monkeypatch, "t_slow", slow)
    results: list[Any] = []

    def work() -> None:
        results.append(run_chain(Chain((spec,)), "a" * 60 + "b", timeout=0.05))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(results) == 3
    for out in results:
        assert out.status == st.ERROR and "t_slow" in (out.reason or "") and "timed out" in (out.reason or "")


def test_input_cap() -> None:
    out = run_chain(Chain((make_spec("unify_quotes"),)), "x" * 101, max_input_bytes=100)
    assert out.status == st.ERROR and "101 bytes" in (out.reason or "") and out.raw == "x" * 101


def test_non_string_rule_result_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _temporary_rule(monkeypatch, "t_none", lambda t, p, timeout: None)
    out = run_chain(Chain((spec,)), "x")
    assert out.status == st.ERROR and "t_none returned NoneType" in (out.reason or "")


def test_unknown_rule_in_make_spec() -> None:
    with pytest.raises(ValueError, match="unknown rule 'nope'"):
        make_spec("nope")


def test_a_parser_that_raises_gives_status_error_and_the_batch_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from normalize import load_pack

    pack = load_pack()
    definition = REGISTRY.parsers["text"]

    def broken(text: str, params: Any, ctx: Any) -> Any:
        if text == "boom":
            raise TypeError("Invalid NaN comparison")
        return definition.fn(text, params, ctx)

    monkeypatch.setitem(REGISTRY.parsers, "text", dataclasses.replace(definition, fn=broken))
    results = pack.run_many(["fine", "boom", "also fine"], "open_writing")
    assert [r.status for r in results] == [st.OK, st.ERROR, st.OK]
    assert results[1].reason == "parser text raised TypeError: Invalid NaN comparison"
    assert results[1].answer is None and results[1].text == "boom"  # recorded, not swallowed


def test_a_bind_hook_runs_once_a_chain_and_a_failing_one_leaves_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Chain.bound`` calls a rule's ``bind`` hook once (not once a row); a hook that raises
    leaves the rule itself in place, so the row records the rule's own failure as before."""
    calls: list[object] = []

    def bind(params: object) -> Any:
        calls.append(params)
        return lambda text, params, *, timeout: text.upper()

    definition = RuleDef(
        name="t_bound", stage="format", version=1, scope=("math",), params_model=NoParams,  # type: ignore[arg-type]
        fn=lambda text, params, *, timeout: text.lower(), idempotent=True, doc="", bind=bind,
    )
    monkeypatch.setitem(REGISTRY.rules, "t_bound", definition)
    chain = Chain((RuleSpec("t_bound", 1, NoParams()),))
    assert [run_chain(chain, "Ab").text for _ in range(3)] == ["AB", "AB", "AB"]
    assert len(calls) == 1

    def broken(params: object) -> Any:
        raise ValueError("cannot bind")

    def crash(text: str, params: object, *, timeout: float) -> str:
        raise RuntimeError("rule ran")

    monkeypatch.setitem(REGISTRY.rules, "t_bound", RuleDef(
        name="t_bound", stage="format", version=1, scope=("math",), params_model=NoParams,  # type: ignore[arg-type]
        fn=crash, idempotent=True, doc="", bind=broken,
    ))  # fmt: skip
    outcome = run_chain(chain, "Ab")
    assert (outcome.status, outcome.reason) == (st.ERROR, "t_bound raised RuntimeError: rule ran")
