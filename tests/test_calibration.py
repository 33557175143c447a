"""Calibration of log-prob choice scores: ECE, RMS calibration error, Brier, reliability bins."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from scoring.calibration import calibration, calibration_of_rows, reliability_svg
from scoring.cli import main
from tests.lm_fixtures import tiny_lm_dir

__all__ = ["tiny_lm_dir"]


def _logprobs(p_top: float, k: int, top: int) -> list[float]:
    rest = (1.0 - p_top) / (k - 1)
    return [math.log(p_top if i == top else rest) for i in range(k)]


def test_figures_against_hand_computation() -> None:
    # 4 rows at confidence 0.9 (3 right), 2 rows at 0.6 (1 right), 4 options each
    rows = [(_logprobs(0.9, 4, 0), t) for t in (0, 0, 0, 1)] + [(_logprobs(0.6, 4, 2), t) for t in (2, 3)]
    c = calibration(rows, bins=10)
    assert c["n"] == 6 and c["skipped"] == 0
    by_bin = {round(b["low"], 1): b for b in c["bins"] if b["n"]}
    assert set(by_bin) == {0.9, 0.6}
    assert by_bin[0.9]["n"] == 4 and by_bin[0.9]["accuracy"] == 0.75
    assert by_bin[0.9]["confidence"] == pytest.approx(0.9)
    ece = 4 / 6 * abs(0.75 - 0.9) + 2 / 6 * abs(0.5 - 0.6)
    rms = math.sqrt(4 / 6 * (0.75 - 0.9) ** 2 + 2 / 6 * (0.5 - 0.6) ** 2)
    assert c["ece"] == pytest.approx(ece) and c["rms_calibration_error"] == pytest.approx(rms)
    r1 = (0.9 - 1) ** 2 + 3 * (0.1 / 3) ** 2  # right at 0.9
    w1 = 0.9 ** 2 + (0.1 / 3 - 1) ** 2 + 2 * (0.1 / 3) ** 2  # wrong at 0.9
    r2 = (0.6 - 1) ** 2 + 3 * (0.4 / 3) ** 2
    w2 = 0.6 ** 2 + (0.4 / 3 - 1) ** 2 + 2 * (0.4 / 3) ** 2
    assert c["brier"] == pytest.approx((3 * r1 + w1 + r2 + w2) / 6)
    assert c["accuracy"] == pytest.approx(4 / 6)


def test_perfectly_calibrated_and_uniform_and_bad_rows() -> None:
    uniform = calibration([([math.log(0.25)] * 4, i % 4) for i in range(8)])
    assert uniform["brier"] == pytest.approx(0.75)  # 1 - 1/K
    skipped = calibration([([-1.0], 0), ([-1.0, -2.0], 5), ([None, None], 0), ([-math.inf, -1.0], 1)])
    assert skipped["n"] == 1 and skipped["skipped"] == 3 and skipped["accuracy"] == 1.0
    empty = calibration([])
    assert empty["n"] == 0 and empty["ece"] is None
    with pytest.raises(ValueError):
        calibration([], bins=0)
    svg = reliability_svg(calibration([(_logprobs(0.9, 4, 0), 0)]))
    assert svg.startswith("<svg") and svg.count('class="bin"') == 1


def test_loglik_reports_calibration_and_draws_reliability_bins(tiny_lm_dir: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"id": i, "context": f"Question {i}: the colour of the sky is", "choices": [" blue", " green", " red"],
             "target": i % 3} for i in range(6)]
    data = tmp_path / "mc.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out, page = tmp_path / "ll.jsonl", tmp_path / "cal.html"
    assert main(["loglik", "--model", str(tiny_lm_dir), str(data), "--device", "cpu", "--no-progress",
                 "-o", str(out), "--html", str(page), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    cal = report["calibration"]
    assert cal["n"] == 6 and 0.0 <= cal["ece"] <= 1.0 and 0.0 <= cal["brier"] <= 2.0
    assert sum(b["n"] for b in cal["bins"]) == 6
    assert cal["accuracy"] == pytest.approx(report["metrics"]["acc"]["accuracy"])  # top probability = acc's pick
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert calibration_of_rows(written) == cal  # the same from the written rows
    html = page.read_text(encoding="utf-8")
    assert '<section id="calibration">' in html and 'class="bin"' in html and "Brier score" in html
