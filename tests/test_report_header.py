"""The report's header: a short signature, the full one on demand; a progress bar on long reports
(only on a terminal); "Other metrics" says what it shows."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import normalize.io.rows
from normalize.core.pack import load_pack
from scoring.cli import main


def _rows(tmp_path: Path, n: int = 30) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"id": i, "task": "gsm8k", "output": f"#### {i}", "target": str(i)}) + "\n"
                            for i in range(n)), encoding="utf-8")
    return path


def test_text_header_is_short_and_the_signature_is_on_demand(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    pack = load_pack()
    path = _rows(tmp_path)
    assert main(["score", str(path), "--bootstrap", "10"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == f"pack {pack.name} · hash {pack.short_hash} · chains scored: math"
    assert pack.signature_for(["math"]) not in text and "signature: shown with --signature" in text
    assert main(["score", str(path), "--bootstrap", "10", "--signature"]) == 0
    assert f"signature: {pack.signature_for(['math'])}" in capsys.readouterr().out
    assert main(["score", str(path), "--bootstrap", "10", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["pack"]["signature"] == pack.signature_for(["math"])


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_long_reports_show_a_progress_bar_only_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = _rows(tmp_path)
    monkeypatch.setattr(normalize.io.rows, "PROGRESS_MIN_ROWS", 10)  # "long": 30 rows here
    assert main(["report", str(path), "-o", str(tmp_path / "a.html"), "--bootstrap", "10"]) == 0
    assert "normalize:" not in capsys.readouterr().err  # not a terminal: no bar
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["report", str(path), "-o", str(tmp_path / "b.html"), "--bootstrap", "10"]) == 0
    assert "normalize: 100%" in terminal.getvalue() and "30/30" in terminal.getvalue()
    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert main(["report", str(path), "-o", str(tmp_path / "c.html"), "--bootstrap", "10", "--no-progress"]) == 0
    assert "normalize:" not in quiet.getvalue()


def test_other_metrics_says_what_it_shows(tmp_path: Path) -> None:
    path = _rows(tmp_path)
    page = tmp_path / "r.html"
    assert main(["report", str(path), "-o", str(page), "--bootstrap", "10"]) == 0
    html = page.read_text(encoding="utf-8")
    other = html.split('<section id="other">', 1)[1].split("</section>", 1)[0]
    assert "one row per figure" in other and "<dt>mdd</dt>" in other and "minimum detectable difference" in other
