"""The README's Python example runs and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

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
