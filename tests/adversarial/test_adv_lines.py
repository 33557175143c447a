"""One bad line never aborts a file: each becomes a row with a reason, and the output is valid UTF-8 JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.cli import main
from scoring.metrics import ScoringConfig, read_targets
from tests.adversarial._inputs import BAD_LINES, BAD_TARGETS, good_line, write_lines


def _rows(path: Path) -> list[dict[str, object]]:
    data = path.read_bytes()
    text = data.decode("utf-8")  # strict: the output must be valid UTF-8
    return [json.loads(line) for line in text.splitlines()]


def test_every_bad_line_is_an_invalid_row_in_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = list(BAD_LINES)
    lines = [good_line(0)]
    for i, name in enumerate(names, start=1):
        lines += [BAD_LINES[name], good_line(i)]
    src = write_lines(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    assert main(["run", str(src), "-o", str(out), "--jobs", "1"]) == 0
    rows = _rows(out)
    assert len(rows) == len(lines)
    for i, name in enumerate(names):
        good, bad = rows[2 * i], rows[2 * i + 1]
        assert good["status"] == "ok" and good["answer"] == "42", name
        assert bad["status"] == "invalid", name
        assert isinstance(bad["reason"], str) and bad["reason"], name
    reasons = {name: str(rows[2 * i + 1]["reason"]) for i, name in enumerate(names)}
    assert "4300" in reasons["huge_integer"] or "digits" in reasons["huge_integer"]
    assert "nested" in reasons["deep_nesting"] and "nested" in reasons["moderately_deep"]
    assert "surrogate" in reasons["lone_surrogate"]
    assert "UTF-8" in reasons["invalid_utf8"] and "0xe9" in reasons["invalid_utf8"]
    assert "UTF-8" in reasons["surrogate_bytes"]
    assert "output" in reasons["nan_output"] and "output" in reasons["infinity_output"]
    # the bytes that are not UTF-8 are shown escaped, and the reason says so
    raw = rows[2 * names.index("invalid_utf8") + 1]["raw_line"]
    assert isinstance(raw, str) and "\\xe9" in raw and "\\xff" in raw
    assert f"{len(lines)} rows" in capsys.readouterr().err


def test_bad_targets_cost_only_their_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [good_line(0), *BAD_TARGETS.values(), good_line(1)]
    src = write_lines(tmp_path / "in.jsonl", lines)
    out, report_path = tmp_path / "scored.jsonl", tmp_path / "report.json"
    assert main(["score", str(src), "-o", str(out), "--report", str(report_path), "--bootstrap", "20",
                 "--jobs", "1"]) == 0
    rows = _rows(out)
    assert [r["id"] for r in rows] == ["ok0", "t1", "t2", "t3", "t4", "t5", "ok1"]
    assert rows[0]["correct"] is True and rows[-1]["correct"] is True
    report = json.loads(report_path.read_text(encoding="utf-8"))
    overall = report["groups"][-1]
    assert overall["bad_target"] == len(BAD_TARGETS)
    assert overall["scorable"] == 2 and overall["a_strict"]["value"] == 1.0
    for row in rows[1:-1]:
        assert row["correct"] is None and row["score"] is None and row.get("score_note"), row["id"]
    # a NaN target is written as a string and the row says so
    nan_row = rows[1]
    assert nan_row["target"] == "NaN" and any("/target" in note for note in nan_row["encoding_notes"])
    capsys.readouterr()


def test_output_is_valid_utf8_whatever_the_row_holds(tmp_path: Path) -> None:
    from normalize.io._io import write_jsonl

    out = tmp_path / "o.jsonl"
    write_jsonl([{"a": "x\udc80y", "b": float("inf"), "c": [float("nan")], "\ud800": 1}], out)
    (row,) = _rows(out)
    assert row["a"] == "x\ufffdy" and row["b"] == "Infinity" and row["c"] == ["NaN"]
    assert len(row["encoding_notes"]) == 4


def test_target_parsing_never_builds_a_huge_number(monkeypatch: pytest.MonkeyPatch) -> None:
    # "1e10000000" took 18 s for one row: the rational was built. Count what is built instead of timing it.
    import scoring.metrics as metrics
    import scoring.metrics.numeric as numeric
    from normalize import load_pack

    built: list[str] = []
    real = numeric.Fraction

    def recording(value: object = 0, *rest: object) -> object:
        built.append(str(value)[:20] if isinstance(value, str) else type(value).__name__)
        return real(value, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(numeric, "Fraction", recording)
    pack = load_pack()
    config = ScoringConfig("math", "numeric")
    for exponent in ("1e10000000", "1e" + "9" * 12, "-1E-99999999", "3" * 5000):
        with pytest.raises(ValueError, match="beyond"):
            read_targets(config, exponent)
        row = {"task": "gsm8k", "task_type": "math", "status": "ok", "answer": exponent, "target": "42"}
        assert metrics.score_detail(pack, row).correct is False
    assert not [text for text in built if text.startswith(("1e", "-1E", "333"))]
    # within the semantic stage's bound (exponent up to 1000, 4000 digits): still exact
    assert metrics.parse_number("1e1000") is not None
