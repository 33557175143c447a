"""`normalize run`, `explain` and `hash`: every row out in order, sensible traces, exit codes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from normalize import load_pack
from scoring.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _explain(capsys: pytest.CaptureFixture[str], task: str, text: str, *extra: str) -> str:
    assert main(["explain", "--task", task, *extra, text]) == 0
    return capsys.readouterr().out


def test_explain_boxed_fraction_under_a_bold_marker(capsys: pytest.CaptureFixture[str]) -> None:
    out = _explain(capsys, "math", r"**Final Answer:** \boxed{\frac{1}{2}}")
    assert "extract_math_answer" in out  # one rule decides the statement: the box under the marker
    assert "status: ok" in out
    assert load_pack().run(r"**Final Answer:** \boxed{\frac{1}{2}}", "math").answer in ("1/2", "0.5")


def test_explain_chinese_multiple_choice(capsys: pytest.CaptureFixture[str]) -> None:
    out = _explain(capsys, "multiple_choice", "答案是：“B”。", "--options", "4")
    assert "unify_quotes" in out and 'answer: "B"  status: ok' in out


def test_explain_json_in_a_fence_is_sorted(capsys: pytest.CaptureFixture[str]) -> None:
    out = _explain(capsys, "structured_json", 'Here:\n```json\n{"b": 1, "a": 2}\n```')
    assert "extract_json_block" in out and "parse_json" in out
    assert """normalized: '{"a":2,"b":1}'""" in out


def test_explain_code_keeps_a_full_width_literal(capsys: pytest.CaptureFixture[str]) -> None:
    code = 'def greet():\n\treturn "你好，世界！"  # “quoted”'
    out = _explain(capsys, "code", f"Here you go:\n\n```python\n{code}\n```\nDone.")
    assert "extract_code_block" in out
    result = load_pack().run(f"Here you go:\n\n```python\n{code}\n```\nDone.", "humaneval")
    assert result.answer == code and result.text == code


def test_run_keeps_every_row_in_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(
        "\n".join(
            [
                json.dumps({"id": 1, "task": "mmlu", "output": "The answer is (B).", "options": 4}),
                "{not json",
                json.dumps({"id": 3, "output": "x"}),
                json.dumps({"id": 4, "task": "nope", "output": "x"}),
                json.dumps({"id": 5, "task": "gsm8k", "output": None}),
                json.dumps({"id": 6, "task": "gsm8k", "output": 7}),
                json.dumps([1, 2]),
                "",
                json.dumps({"id": 8, "task": "math", "output": "#### 1,000"}),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    assert main(["run", str(src), "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r.get("id", r.get("line")) for r in rows] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert [r["status"] for r in rows] == ["ok", "invalid", "invalid", "invalid", "no_output", "invalid", "invalid", "ok"]
    assert rows[0]["answer"] == "B" and rows[-1]["answer"] == "1000"
    assert rows[4]["answer"] is None and rows[4]["normalized"] is None
    assert "unknown task 'nope'" in rows[3]["reason"]
    assert all(r["rules_hash"] == load_pack().hash for r in rows)
    assert rows[0]["trace"] and {"rule", "before", "after"} <= set(rows[0]["trace"][0])
    assert "8 rows" in capsys.readouterr().err


def test_run_on_the_bundled_examples(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    assert main(["run", str(ROOT / "examples" / "predictions.jsonl"), "-o", str(out), "--no-progress"]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    src = [line for line in (ROOT / "examples" / "predictions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) == len(src)
    task_types = {r.get("task_type") for r in rows}
    assert {"multiple_choice", "math", "extractive_qa", "structured_json", "code", "open_writing"} <= task_types
    for r in rows:  # an answer, or a non-ok status with a reason
        assert (r["status"] == "ok" and r["answer"] is not None) or (r["status"] != "ok" and r["reason"])


def test_hash_prints_signature_and_full_hash(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hash"]) == 0
    signature, full = capsys.readouterr().out.splitlines()[:2]
    pack = load_pack()
    assert signature == pack.signature and full == pack.hash


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["explain", "text without task"])
    assert info.value.code == 2
    assert main(["run", "/nonexistent/file.jsonl"]) == 2
    assert "not found" in capsys.readouterr().err


def test_replay_reproduces_every_example(tmp_path: Path) -> None:
    pack = load_pack()
    for line in (ROOT / "examples" / "predictions.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        result = pack.run(row["output"], row["task"], options=row.get("options"))
        if result.raw is not None and result.text is not None:
            assert pack.replay(result) == result.text


@pytest.mark.parametrize("mode", ["full", "rules", "none"])
def test_run_trace_modes(tmp_path: Path, mode: str) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": 1, "task": "mmlu", "output": "**Answer:** “B”", "options": 4}) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["run", str(src), "-o", str(out), "--trace", mode]) == 0
    row = json.loads(out.read_text(encoding="utf-8"))
    assert row["answer"] == "B"
    if mode == "none":
        assert "trace" not in row
    elif mode == "rules":
        assert row["trace"] and all(set(step) == {"index", "rule", "version"} for step in row["trace"])
    else:
        assert all({"before", "after"} <= set(step) for step in row["trace"])


# ---------------------------------------------------------------- one CLI convention (issue 11 point 6)


def test_format_json_is_valid_json_for_each_normalize_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["hash", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["hash"].startswith("sha256:") and "task_types" in doc["resolved"]
    assert main(["hash", "--json"]) == 0 and json.loads(capsys.readouterr().out) == doc
    assert main(["explain", "--task", "math", "--format", "json", "The answer is \\boxed{42}"]) == 0
    explained = json.loads(capsys.readouterr().out)
    assert (explained["answer"], explained["status"], explained["task_type"]) == ("42", "ok", "math")
    monkeypatch.setattr("sys.stdin", io.StringIO("Answer: (C)"))
    assert main(["explain", "--task", "multiple_choice", "--options", "4", "--format", "json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["answer"] == "C"
    rows = tmp_path / "in.jsonl"
    rows.write_text('{"id": 1, "task": "math", "output": "42"}\nnot json\n', encoding="utf-8")
    assert main(["run", str(rows), "-o", str(tmp_path / "out.jsonl"), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().err)
    assert summary["rows"] == 2 and summary["statuses"] == {"invalid": 1, "ok": 1}
    assert main(["check", "--only", "version", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["exit_code"] == 0


@pytest.mark.parametrize("exc", [KeyError("boom"), ValueError("boom")])
def test_an_unexpected_exception_is_a_bug_report_with_exit_3(
    exc: Exception, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain ValueError is a bug too: user-input errors raise UsageError (exit 2)."""

    def broken(*_: object, **__: object) -> None:
        raise exc

    monkeypatch.setattr("normalize.cli._core.load_pack_from_args", broken)
    assert main(["hash"]) == 3
    err = capsys.readouterr().err
    assert f"{type(exc).__name__}: " in err and "this is a bug" in err and "usage" in err


def test_a_user_error_exits_2_without_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--task", "gsm8kk", "42"]) == 2
    err = capsys.readouterr().err
    assert "unknown task 'gsm8kk'" in err and "did you mean 'gsm8k'" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("env", "tty", "expected"),
    [({}, True, True), ({}, False, False), ({"NO_COLOR": ""}, True, True), ({"NO_COLOR": "1"}, True, False),
     ({"FORCE_COLOR": "1"}, False, True), ({"FORCE_COLOR": "0"}, False, False), ({"FORCE_COLOR": ""}, False, False),
     ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, False)],
)
def test_colours_follow_no_color_and_force_color(
    env: dict[str, str], tty: bool, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from normalize.cli import use_color

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    stream = io.StringIO()
    stream.isatty = lambda: tty  # type: ignore[method-assign]
    assert use_color(stream) is expected
