"""``normalize audit`` and the report's audit show first the rows where normalization flipped the
verdict, then rows parsed by a weak tier (``found_by: last_number``), then the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring._audit_order import FLIPPED, WEAK
from scoring.cli import main

ROWS = [
    {"id": "plain-1", "task": "gsm8k", "output": "So the total is 12.\n#### 12", "target": "12"},
    {"id": "plain-2", "task": "mmlu", "output": "**The answer is (B).**", "options": 4, "target": "B"},
    {"id": "weak", "task": "gsm8k", "output": "I computed 3 and then 12", "target": "12"},
    {"id": "plain-3", "task": "gsm8k", "output": "The answer is 7.", "target": "7"},
    {"id": "flip-zh", "task": "cmath", "output": "答案是 **12**。", "target": "12"},  # bold: the chain reads 12
    {"id": "flip-wide", "task": "cmath", "output": "答案是 ２５", "target": "25"},  # full-width digits
]


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    return path


def test_audit_shows_flipped_then_weak_then_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path)
    assert main(["audit", str(path), "--n", "4", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["flipped"] == 2 and doc["weak_tier"] == 1
    shown = [(s["id"], s["first_because"]) for s in doc["shown"]]
    assert shown[:3] == [("flip-zh", FLIPPED), ("flip-wide", FLIPPED), ("weak", WEAK)]
    assert len(shown) == 4 and shown[3][1] is None
    assert main(["audit", str(path), "--n", "2"]) == 0
    text = capsys.readouterr().out
    assert "first the 2 where normalization flipped the verdict" in text
    assert text.index("flip-zh") < text.index("flip-wide") and "'weak'" not in text  # --n 2: the flips only


def test_report_audit_embeds_flagged_rows_first(tmp_path: Path) -> None:
    path = _write(tmp_path)
    page = tmp_path / "report.html"
    assert main(["report", str(path), "-o", str(page), "--bootstrap", "10", "--audit-rows", "3"]) == 0
    html = page.read_text(encoding="utf-8")
    data = json.loads(html.split('<script type="application/json" id="report-data">', 1)[1].split("</script>", 1)[0])
    fields = {name: i for i, name in enumerate(data["audit"]["fields"])}
    rows = data["audit"]["rows"]
    assert [r[fields["id"]] for r in rows] == ["flip-zh", "flip-wide", "weak"]  # the cap is spent on them
    assert [r[fields["first"]] for r in rows] == [FLIPPED, FLIPPED, WEAK]
    assert "Shown first: the rows where normalization flipped the verdict" in html
