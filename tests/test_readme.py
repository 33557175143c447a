"""The README's Python example runs and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_python_example_prints_what_its_comments_promise() -> None:
    block = re.search(r"## Python in ten lines\n\n```python\n(.*?)```", README, re.S)
    assert block is not None
    code = block.group(1)
    assert len(code.strip().splitlines()) <= 11
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    printed = out.getvalue().splitlines()
    promised = [m.group(1).strip() for m in re.finditer(r"print\(.*\)\s+# (.+)$", code, re.M)]
    for line in promised:
        if line.startswith(("library,", "sha256")):
            continue
        assert line in printed, (line, printed)


def test_readme_states_the_two_commands_that_ci_runs() -> None:
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "normalize score examples/predictions.jsonl" in README
    test_command = re.search(r"&& (python -m pytest[^\n`]*)", README)
    assert test_command is not None and test_command.group(1).strip() in ci


def _yaml_blocks() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", README, re.S)


def test_the_pack_example_keeps_contradiction_detection(tmp_path: Path) -> None:
    """A pack copied from the README must not lose what the shipped pack guarantees."""
    from normalize import load_pack

    block = next(b for b in _yaml_blocks() if b.startswith("name: my-pack"))
    (tmp_path / "my_pack.yaml").write_text(block, encoding="utf-8")
    pack = load_pack(tmp_path / "my_pack.yaml")
    for text in ("The answer is A or B", "The answer is A. … the answer is C."):
        assert pack.run(text, "my_quiz", options=4).status == "contradictory", text
    assert pack.run("The answer is (B).", "my_quiz", options=4).answer == "B"


def test_the_extending_pack_example_runs_as_shown(tmp_path: Path) -> None:
    from normalize import load_pack

    block = next(b for b in _yaml_blocks() if "extends: shipped:default" in b)
    (tmp_path / "fact_check.yaml").write_text(block, encoding="utf-8")
    pack = load_pack(tmp_path / "fact_check.yaml")
    result = pack.run("Checked.\nVerdict: Supported", "fact_check")
    assert (result.answer, result.status) == ("Supported", "ok")
    assert 'answer: "Supported"  status: ok' in README
    assert pack.task_types["math"] == load_pack().task_types["math"]  # the rest is inherited


def test_the_extending_pack_console_example_prints_what_the_readme_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end: the README's ``normalize explain --pack fact_check.yaml …`` session, run as shown."""
    from scoring.cli import main

    block = next(b for b in _yaml_blocks() if "extends: shipped:default" in b)
    (tmp_path / "fact_check.yaml").write_text(block, encoding="utf-8")
    session = re.search(r"```console\n\$ (normalize explain --pack fact_check\.yaml [^\n]*)\n(.*?)```", README, re.S)
    assert session is not None
    command, shown = session.group(1), session.group(2)
    argv = shlex.split(command.replace("$'Checked.\\nVerdict: Supported'", "'Checked.\nVerdict: Supported'"))
    monkeypatch.chdir(tmp_path)
    assert main(argv[1:]) == 0
    printed = capsys.readouterr().out.splitlines()
    for line in shown.splitlines():
        if line != "…":  # an elided part
            assert line in printed, (line, printed)
