"""Every command that prints results takes ``--format text|json``, and ``json`` is one valid JSON document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.cli import build_parser, main
from tests.lm_fixtures import tiny_lm_dir

__all__ = ["tiny_lm_dir"]  # a session fixture used by name below

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

#: command → (arguments, the stream its JSON goes to)
COMMANDS: dict[str, tuple[list[str], str]] = {
    "run": ([str(EXAMPLES / "predictions.jsonl"), "-o", "{tmp}/out.jsonl"], "err"),
    "explain": (["--task", "math", r"**Final Answer:** \boxed{\frac{1}{2}}"], "out"),
    "hash": ([], "out"),
    "rules": ([], "out"),
    "check": (["--only", "forward,version"], "out"),
    "score": ([str(EXAMPLES / "predictions.jsonl")], "out"),
    "compare": ([str(EXAMPLES / "predictions.jsonl"), str(EXAMPLES / "predictions_b.jsonl"), "--bootstrap", "50"], "out"),
    "audit": ([str(EXAMPLES / "runs.jsonl"), "--n", "3"], "out"),
    "report": ([str(EXAMPLES / "predictions.jsonl"), "-o", "{tmp}/report.html", "--bootstrap", "50",
                "--rule-effect-rows", "0"], "out"),
}


def test_every_result_printing_command_takes_format_text_and_json() -> None:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name, parser in sub.choices.items():  # type: ignore[union-attr]
        formats = next((a.choices for a in parser._actions if a.dest == "format"), None)
        assert formats is not None and {"text", "json"} <= set(formats), name


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_format_json_is_one_valid_json_document(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args, stream = COMMANDS[command]
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code = main([command, *args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads(out if stream == "out" else err)
    assert isinstance(document, (dict, list)) and document
    if isinstance(document, dict) and "pack" in document and isinstance(document["pack"], dict):
        assert document["pack"]["hash"].startswith("sha256:")
    code = main([command, *args, "--format", "text"])
    assert code == 0


def test_explain_reads_stdin_with_dash(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("The answer is (C)."))
    assert main(["explain", "--task", "mmlu", "--format", "json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["answer"] == "C"


@pytest.mark.parametrize("command", ["loglik", "generate"])
def test_lm_commands_format_json(command: str, tiny_lm_dir: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data.jsonl"
    rows = ([{"id": "a", "context": "Q: 2+2? A:", "choices": ["4", "5"], "target": 0}] if command == "loglik"
            else [{"id": "a", "task": "qa", "prompt": "Hello", "target": "x"}])
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    extra = ["--max-new-tokens", "3", "-o", str(tmp_path / "pred.jsonl")] if command == "generate" else []
    code = main([command, "--model", str(tiny_lm_dir), str(data), "--device", "cpu", "--no-progress",
                 *extra, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    # generate's summary is the last line of stderr (model loading may print before it)
    document = json.loads(out if command == "loglik" else err.strip().splitlines()[-1])
    assert document["metrics" if command == "loglik" else "rows"]


def test_check_update_format_json(capsys: pytest.CaptureFixture[str]) -> None:
    """The shipped golden samples already match the shipped pack: nothing to write, said in JSON."""
    assert main(["check", "--update", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["written"] is False and document["changes"] == [] and document["pins_change"] is False
