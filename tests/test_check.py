"""``normalize check``: forward, reverse (leak), safety and version checks, --rule, --update, CLI.

Every test builds its own small pack and samples under ``tmp_path`` so it does not depend on
the state of the shipped pack.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from normalize import cli
from normalize.check import (
    CheckConfigError,
    accepted_leaks,
    analyze_rule,
    build_spec,
    check_forward,
    check_reverse,
    check_safety,
    check_version,
    compute_baseline,
    insert_spec,
    run_check,
)
from normalize.check.samples import SamplesError, load_samples
from normalize.cli._check import render_report
from normalize.core.engine import Chain, make_spec
from normalize.core.pack import Pack, load_pack
from normalize.core.registry import REGISTRY, NoParams, RuleDef
from normalize.limits._regex import compile_pattern

_NO_PARAMS = NoParams()
_CURLY = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})

CODE_ROWS = [
    {"id": "c-hello", "task": "code", "output": "Here you go:\n```python\nprint(“你好”)\n```\nDone."},
    {"id": "c-plain", "task": "code", "output": "```python\ndef add(a, b):\n    return a + b\n```"},
]
MATH_ROWS = [
    {"id": "m-quote", "task": "math", "output": "“42”"},
    {"id": "m-plain", "task": "math", "output": "7"},
]


def _quotes_everywhere(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = 0.5) -> str:
    return text.translate(_CURLY)


def _register(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    fn: Callable[..., str],
    *,
    scope: tuple[str, ...] = ("math",),
    stage: str = "format",
    version: int = 1,
) -> None:
    definition = RuleDef(
        name=name, stage=stage, version=version, scope=scope, params_model=NoParams,  # type: ignore[arg-type]
        fn=fn, idempotent=True, doc="",
    )
    monkeypatch.setitem(REGISTRY.rules, name, definition)


def _write_pack(root: Path, math_chain: list[str], *, extra: str = "") -> Path:
    chain = "[" + ", ".join(math_chain) + "]"
    path = root / "pack.yaml"
    path.write_text(
        "name: checktest\n"
        "task_types:\n"
        f"  math:\n    chain: {chain}\n    parser: text\n"
        "  code:\n    chain: [extract_code_block]\n    parser: code\n" + extra,
        encoding="utf-8",
    )
    return path


def _write_samples(root: Path, rows: dict[str, list[dict[str, Any]]]) -> Path:
    folder = root / "samples"
    folder.mkdir(exist_ok=True)
    for task_type, items in rows.items():
        (folder / f"{task_type}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8"
        )
    return folder


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """A pack (math: unify_quotes; code: extract_code_block) and samples recorded with it."""
    pack = _write_pack(tmp_path, ["unify_quotes"])
    samples = _write_samples(tmp_path, {"math": MATH_ROWS, "code": CODE_ROWS})
    code, _, err = _main(["--pack", str(pack), "--update", "--yes"], capsys)
    assert code == 0, err
    return pack, samples


# --------------------------------------------------------------------------- done-when


def test_a_leaking_math_rule_fails_the_check_and_names_the_code_sample(
    recorded: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pack, _ = recorded
    code, out, _ = _main(["--pack", str(pack)], capsys)
    assert code == 0, out

    _register(monkeypatch, "t_quotes_everywhere", _quotes_everywhere)
    _write_pack(tmp_path, ["unify_quotes", "t_quotes_everywhere"])
    code, out, _ = _main(["--pack", str(pack), "--only", "reverse"], capsys)
    assert code == 1
    assert "t_quotes_everywhere" in out and "c-hello" in out and "code" in out
    assert "c-plain" not in out  # no curly quotes: the leak changes nothing there

    _write_pack(tmp_path, ["unify_quotes"])
    code, out, _ = _main(["--pack", str(pack)], capsys)
    assert code == 0, out


# --------------------------------------------------------------------------- forward


def test_forward_finding_shows_a_per_field_diff(recorded: tuple[Path, Path]) -> None:
    pack_path, samples_dir = recorded
    rows = [json.loads(line) for line in (samples_dir / "math.jsonl").read_text(encoding="utf-8").splitlines()]
    rows[0]["expected"]["normalized"] = '"41"'
    rows[0]["expected"]["answer"] = '"41"'
    (samples_dir / "math.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    pack = load_pack(pack_path)
    samples = load_samples(samples_dir, pack)
    findings = check_forward(pack, samples, compute_baseline(pack, samples))
    assert [f.sample for f in findings] == ["m-quote"]
    detail = findings[0].detail
    assert "normalized:" in detail and "answer:" in detail and "status" not in detail
    assert "- expected: '\"41\"'" in detail and "+ actual:   '\"42\"'" in detail


def test_forward_reports_unrecorded_samples(tmp_path: Path) -> None:
    pack = load_pack(_write_pack(tmp_path, ["unify_quotes"]))
    samples = load_samples(_write_samples(tmp_path, {"math": MATH_ROWS}), pack)
    findings = check_forward(pack, samples, compute_baseline(pack, samples))
    assert len(findings) == 1 and "2 sample(s) have no recorded expected" in findings[0].summary


def test_forward_checks_opt_in_rows(tmp_path: Path) -> None:
    pack = load_pack(_write_pack(tmp_path, ["unify_quotes"]))
    folder = _write_samples(tmp_path, {"math": []})
    good = {"id": "o1", "rule": "unify_quotes", "params": {}, "task_type": "math", "input": "“x”", "expected": '"x"'}
    bad = {**good, "id": "o2", "expected": "“x”"}
    (folder / "opt_in.jsonl").write_text(
        json.dumps(good, ensure_ascii=False) + "\n" + json.dumps(bad, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    samples = load_samples(folder, pack)
    findings = check_forward(pack, samples, compute_baseline(pack, samples))
    assert [(f.sample, f.rule) for f in findings] == [("o2", "unify_quotes")]
    assert "+ actual:" in findings[0].detail


# --------------------------------------------------------------------------- reverse


def test_reverse_finding_names_rule_type_sample_and_change(
    recorded: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _register(monkeypatch, "t_quotes_everywhere", _quotes_everywhere)
    pack = load_pack(_write_pack(tmp_path, ["unify_quotes", "t_quotes_everywhere"]))
    samples = load_samples(recorded[1], pack)
    findings = check_reverse(pack, samples, compute_baseline(pack, samples), accepted_leaks(pack))
    assert [(f.rule, f.task_type, f.sample) for f in findings] == [("t_quotes_everywhere", "code", "c-hello")]
    assert "print(“你好”)" in findings[0].change and "print(\"你好\")" in findings[0].change
    assert not findings[0].accepted


def test_accepted_leaks_do_not_fail(
    recorded: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _register(monkeypatch, "t_quotes_everywhere", _quotes_everywhere)
    accept = (
        "check:\n  reverse:\n    accept:\n"
        "      - {rule: t_quotes_everywhere, task_type: code, reason: reviewed in a test}\n"
    )
    pack = _write_pack(tmp_path, ["unify_quotes", "t_quotes_everywhere"], extra=accept)
    code, out, _ = _main(["--pack", str(pack), "--only", "reverse", "--format", "json"], capsys)
    report = json.loads(out)
    assert code == 0 and report["findings"] == []
    assert [(a["rule"], a["sample"], a["accept_reason"]) for a in report["accepted"]] == [
        ("t_quotes_everywhere", "c-hello", "reviewed in a test")
    ]
    code, out, _ = _main(["--pack", str(pack), "--only", "reverse"], capsys)
    assert code == 0 and "c-hello" not in out and "1 accepted" in out
    code, out, _ = _main(["--pack", str(pack), "--only", "reverse", "--verbose"], capsys)
    assert code == 0 and "c-hello" in out and "reviewed in a test" in out


@pytest.mark.parametrize(
    "entry, message",
    [
        ("{rule: no_such_rule, task_type: code, reason: x}", "unknown rule"),
        ("{rule: unify_quotes, task_type: poetry, reason: x}", "unknown task type"),
        ("{rule: unify_quotes, task_type: code}", "needs exactly"),
        ("{rule: unify_quotes, task_type: math, reason: x}", "in the scope"),
    ],
)
def test_bad_accept_entries_are_configuration_errors(
    recorded: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: str, message: str
) -> None:
    pack = _write_pack(tmp_path, ["unify_quotes"], extra=f"check:\n  reverse:\n    accept:\n      - {entry}\n")
    code, _, err = _main(["--pack", str(pack)], capsys)
    assert code == 2 and message in err
    with pytest.raises(CheckConfigError, match=message):
        accepted_leaks(load_pack(pack))


# --------------------------------------------------------------------------- safety


def test_safety_reports_a_catastrophic_regex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def catastrophic(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = 0.5) -> str:
        return compile_pattern(r"(a|aa)+$").sub("", text, timeout=timeout)

    def explodes(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = 0.5) -> str:
        return text * 3 + "x" * 5000

    def blows_up(text: str, params: NoParams = _NO_PARAMS, *, timeout: float = 0.5) -> str:
        raise KeyError("boom")

    for name, fn in (("t_catastrophic", catastrophic), ("t_grows", explodes), ("t_blows_up", blows_up)):
        _register(monkeypatch, name, fn)
    pack = load_pack(_write_pack(tmp_path, ["t_catastrophic", "t_grows", "t_blows_up"]))
    inputs = (("40 a then b", lambda size: "a" * 40 + "b"),)
    findings = check_safety(pack, timeout=0.05, budget=5.0, inputs=inputs)
    by_rule = {f.rule: f.summary for f in findings}
    assert "timed out" in by_rule["t_catastrophic"]
    assert "grows" in by_rule["t_grows"]
    assert "blew up: KeyError" in by_rule["t_blows_up"]


def test_safety_is_clean_for_a_linear_rule(tmp_path: Path) -> None:
    pack = load_pack(_write_pack(tmp_path, ["unify_quotes"]))
    assert check_safety(pack, timeout=0.2, budget=10.0) == []


# --------------------------------------------------------------------------- version


def test_version_drift_lists_changed_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _register(monkeypatch, "t_drift", _quotes_everywhere, version=1)
    pack_path = _write_pack(tmp_path, ["t_drift"])
    samples_dir = _write_samples(tmp_path, {"math": MATH_ROWS, "code": CODE_ROWS})
    assert _main(["--pack", str(pack_path), "--update", "--yes"], capsys)[0] == 0
    assert check_version(load_pack(pack_path), load_samples(samples_dir, load_pack(pack_path))) == []

    _register(monkeypatch, "t_drift", _quotes_everywhere, version=2)
    _write_pack(tmp_path, ["t_drift", "unify_quotes"])
    pack = load_pack(pack_path)
    findings = check_version(pack, load_samples(samples_dir, pack))
    messages = [f.summary for f in findings]
    assert any("recorded with another pack" in m for m in messages)
    assert "math: t_drift changed: t_drift v1 → t_drift v2" in messages
    assert any(m.startswith("math: unify_quotes added") for m in messages)
    # forward is clean (same behaviour), yet the check fails on the hash alone
    code, out, _ = _main(["--pack", str(pack_path)], capsys)
    assert code == 1 and "forward  ✓ clean" in out and "t_drift v1 → t_drift v2" in out


# --------------------------------------------------------------------------- --rule


def test_rule_option_in_and_out_of_scope(
    recorded: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pack_path, samples_dir = recorded
    _register(monkeypatch, "t_quotes_everywhere", _quotes_everywhere)
    pack = load_pack(pack_path)
    samples = load_samples(samples_dir, pack)
    report = analyze_rule(pack, samples, compute_baseline(pack, samples), build_spec("t_quotes_everywhere", None, {}))
    per_type = {r.task_type: (r.in_scope, [c.sample for c in r.changes]) for r in report.per_type}
    assert per_type == {"math": (True, []), "code": (False, ["c-hello"])}
    assert report.exit_code == 1
    code, out, _ = _main(["--pack", str(pack_path), "--rule", "t_quotes_everywhere"], capsys)
    assert code == 1 and "c-hello" in out and "1/2 samples change" in out
    # an in-scope-only rule: unify_quotes inserted again in math changes nothing → exit 0
    code, out, _ = _main(["--pack", str(pack_path), "--rule", "unify_quotes", "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["exit_code"] == 0


def test_rule_option_errors(recorded: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    pack = str(recorded[0])
    assert _main(["--pack", pack, "--rule", "unify_quote"], capsys)[2].count("did you mean 'unify_quotes'") == 1
    code, _, err = _main(["--pack", pack, "--rule", "normalize_whitespace", "--params", '{"newlines": "fold"}'], capsys)
    assert code == 2 and "bad params" in err
    assert _main(["--pack", pack, "--params", "{}"], capsys)[0] == 2


def test_insert_spec_goes_to_the_end_of_its_stage_group() -> None:
    chain = Chain((make_spec("remove_think_blocks"), make_spec("unify_quotes"), make_spec("canonicalize_numbers")))
    names = [s.name for s in insert_spec(chain, make_spec("to_halfwidth")).specs]
    assert names == ["remove_think_blocks", "unify_quotes", "to_halfwidth", "canonicalize_numbers"]


# --------------------------------------------------------------------------- --update, exit codes, output


def test_update_refuses_without_yes_when_stdin_is_not_a_tty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _write_pack(tmp_path, ["unify_quotes"])
    folder = _write_samples(tmp_path, {"math": MATH_ROWS})
    before = (folder / "math.jsonl").read_text(encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, out, err = _main(["--pack", str(pack), "--update"], capsys)
    assert code == 2 and "--yes" in err and "m-quote" in out  # the diff is shown first
    assert (folder / "math.jsonl").read_text(encoding="utf-8") == before
    assert not (folder / "_recorded.json").exists()


def test_update_asks_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _write_pack(tmp_path, ["unify_quotes"])
    folder = _write_samples(tmp_path, {"math": MATH_ROWS})

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    assert _main(["--pack", str(pack), "--update"], capsys)[0] == 0
    assert not (folder / "_recorded.json").exists()
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    assert _main(["--pack", str(pack), "--update"], capsys)[0] == 0
    recorded = json.loads((folder / "_recorded.json").read_text(encoding="utf-8"))
    assert recorded["resolved"] == json.loads(json.dumps(load_pack(pack).resolved()))
    import unicodedata

    assert recorded["hashes"] == {unicodedata.unidata_version: load_pack(pack).hash}  # the pins, once
    row = json.loads((folder / "math.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert row["expected"] == {"normalized": '"42"', "answer": '"42"', "status": "ok"}
    assert "rules_hash" not in row  # the hash is pinned once, not per row
    assert list(row)[:3] == ["id", "task", "output"]  # key order kept


def test_exit_codes(recorded: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack, samples = recorded
    assert _main(["--pack", str(pack)], capsys)[0] == 0
    assert _main(["--pack", str(pack), "--only", "nonsense"], capsys)[0] == 2
    assert _main(["--pack", str(pack), "--samples", str(tmp_path / "missing")], capsys)[0] == 2
    assert _main(["--pack", str(tmp_path / "nope.yaml")], capsys)[0] == 2
    (samples / "math.jsonl").write_text('{"id": "x", "task": "math"\n', encoding="utf-8")
    code, _, err = _main(["--pack", str(pack)], capsys)
    assert code == 2 and "math.jsonl:1" in err
    (samples / "math.jsonl").write_text('{"id": "x", "task": "math", "output": "“1”"}\n', encoding="utf-8")
    assert _main(["--pack", str(pack)], capsys)[0] == 1  # unrecorded sample


def test_json_format_parses(recorded: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(["--pack", str(recorded[0]), "--format", "json"], capsys)
    report = json.loads(out)
    assert code == 0 and report["exit_code"] == 0 and report["checks"] == ["forward", "reverse", "safety", "version"]
    assert report["counts"]["samples"] == 4 and report["rules_hash"] == load_pack(recorded[0]).hash


def test_colour_only_on_a_terminal_without_no_color(
    recorded: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    args = ["check", "--pack", str(recorded[0]), "--only", "forward"]
    monkeypatch.delenv("NO_COLOR", raising=False)
    tty = Terminal()
    monkeypatch.setattr(sys, "stdout", tty)
    assert cli.main(args) == 0 and "\033[" in tty.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    tty = Terminal()
    monkeypatch.setattr(sys, "stdout", tty)
    assert cli.main(args) == 0 and "\033[" not in tty.getvalue()


def test_render_report_is_plain_without_colour(recorded: tuple[Path, Path]) -> None:
    pack = load_pack(recorded[0])
    report = run_check(pack, load_samples(recorded[1], pack), checks=("forward",))
    assert "\033[" not in render_report(report, color=False, verbose=True)
    assert "\033[32m" in render_report(report, color=True, verbose=False)


def test_samples_are_validated(tmp_path: Path) -> None:
    pack = load_pack(_write_pack(tmp_path, ["unify_quotes"]))
    folder = _write_samples(tmp_path, {"math": [{"id": "a", "task": "code", "output": "x"}]})
    with pytest.raises(SamplesError, match="is of type 'code'"):
        load_samples(folder, pack)
    _write_samples(tmp_path, {"math": [{"id": "a", "task": "math", "output": "x", "colour": 1}]})
    with pytest.raises(SamplesError, match="unknown keys"):
        load_samples(folder, pack)
    _write_samples(tmp_path, {"math": [{"id": "a", "task": "math", "output": 1}]})
    with pytest.raises(SamplesError, match="output must be"):
        load_samples(folder, pack)
    _write_samples(tmp_path, {"math": [{"id": "a", "task": "math", "output": "1"}], "code": [{"id": "a", "task": "code", "output": "1"}]})
    with pytest.raises(SamplesError, match="also used"):
        load_samples(folder, pack)


def test_types_the_pack_lacks_are_left_out(tmp_path: Path) -> None:
    pack: Pack = load_pack(_write_pack(tmp_path, ["unify_quotes"]))
    folder = _write_samples(tmp_path, {"math": MATH_ROWS, "open_writing": [{"id": "w", "task": "open_writing", "output": "x"}]})
    samples = load_samples(folder, pack)
    assert samples.skipped == ("open_writing",) and set(samples.by_type) == {"math"}
