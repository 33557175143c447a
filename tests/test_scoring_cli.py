"""``normalize score``, ``compare`` and ``audit`` end to end, and the report's numbers."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from normalize.core.pack import load_pack
from scoring._items import Item
from scoring.cli import main
from scoring.cli._score import mark_differences
from scoring.report import build_report, render

PACK = """\
name: cli-test
tasks: {mmlu: multiple_choice, gsm8k: math, squad: extractive_qa}
task_types:
  multiple_choice: {chain: [], parser: text}
  math: {chain: [], parser: text}
  extractive_qa: {chain: [unify_quotes], parser: text}
scoring:
  math: {rel_tol: 1.0e-9}
"""


def write(tmp_path: Path, name: str, rows: Sequence[Mapping[str, Any] | str]) -> Path:
    path = tmp_path / name
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def pack_file(tmp_path: Path) -> Path:
    path = tmp_path / "pack.yaml"
    path.write_text(PACK, encoding="utf-8")
    return path


def mc(id_: str, output: str, target: str = "B", k: int = 4, **extra: Any) -> dict[str, Any]:
    return {"id": id_, "task": "mmlu", "options": k, "target": target, "output": output, **extra}


def read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------- report numbers (seed 003)


def item(outcome: str, value: float, k: int | None = 10, run: str | None = None) -> Item:
    status = "ok" if outcome == "scored" else "no_answer"
    return Item(task="mmlu", task_type="multiple_choice", status=status, outcome=outcome, value=value,
                metric="exact", option_count=k, run=run)


def test_report_reproduces_strict_and_fallback_numbers(tmp_path: Path, pack_file: Path) -> None:
    # 20 items, K = 10: 16 parsed (r = 0.8), 12 of them right (A_valid = 0.75)
    items = [item("scored", 1.0)] * 12 + [item("scored", 0.0)] * 4 + [item("no_answer", 0.0)] * 4
    report = build_report(items, load_pack(pack_file), n_resamples=200, seed=3)
    overall = report["groups"][-1]
    assert overall["name"] == "overall"
    assert overall["parse_rate"] == pytest.approx(0.8)
    assert overall["a_valid"]["value"] == pytest.approx(0.75)
    assert overall["a_strict"]["value"] == pytest.approx(0.6)
    assert overall["random_fallback"]["value"] == pytest.approx(0.62)
    assert overall["chance"] == pytest.approx(0.1)
    for key in ("a_valid", "a_strict", "random_fallback", "chance_adjusted"):
        block = overall[key]
        assert block["low"] <= block["value"] <= block["high"]
    assert report["bootstrap"] == {"method": "percentile", "n_resamples": 200, "seed": 3, "confidence": 0.95}
    assert overall["pack_hash"] == load_pack(pack_file).hash
    # beside a score: only the chains scored, plus the short hash (not every chain of the pack)
    assert overall["pack_signature"] == load_pack(pack_file).signature_for(overall["task_types"])
    assert overall["pack_signature"].endswith(f"|hash:{load_pack(pack_file).short_hash}")


def test_report_chance_baseline_for_mixed_option_counts(pack_file: Path) -> None:
    items = [item("scored", 1.0, k=4), item("scored", 0.0, k=10)]
    overall = build_report(items, load_pack(pack_file), n_resamples=50)["groups"][-1]
    assert overall["chance"] == pytest.approx(0.175)
    assert overall["chance_adjusted"]["value"] == pytest.approx(0.3939, abs=1e-4)


def test_report_keeps_negative_chance_adjusted_accuracy(pack_file: Path) -> None:
    items = [item("scored", 0.0, k=4)] * 3 + [item("no_answer", 0.0, k=4)]
    overall = build_report(items, load_pack(pack_file), n_resamples=50)["groups"][-1]
    assert overall["chance_adjusted"]["value"] == pytest.approx(-1 / 3)
    assert "-0.333" in render(build_report(items, load_pack(pack_file), n_resamples=50), "table")


def test_report_names_missing_option_counts(pack_file: Path) -> None:
    overall = build_report([item("scored", 1.0, k=None)], load_pack(pack_file), n_resamples=10)["groups"][-1]
    assert overall["chance"] is None and "option count" in overall["chance_note"]


def test_report_run_spread(pack_file: Path) -> None:
    items = [item("scored", 1.0, run="1")] * 3 + [item("scored", 0.0, run="1")] + \
            [item("scored", 1.0, run="2")] * 2 + [item("scored", 0.0, run="2")] * 2
    report = build_report(items, load_pack(pack_file), n_resamples=10, cv_threshold=0.05)
    runs = report["groups"][-1]["runs"]
    assert runs["a_strict"] == {"1": 0.75, "2": 0.5}
    assert runs["cv"] == pytest.approx(0.2828, abs=1e-4)
    assert runs["flagged"] and "overall" in report["flagged"]
    assert not build_report(items, load_pack(pack_file), n_resamples=10, cv_threshold=0.5)["flagged"]


# ---------------------------------------------------------------- normalize score


def test_score_keeps_every_row_in_order_and_adds_correct(tmp_path: Path, pack_file: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    src = write(tmp_path, "in.jsonl", [
        mc("1", "B"), mc("2", "C"), "{not json", mc("3", ""), {"id": "4", "task": "gsm8k", "output": "2/3",
                                                              "target": "0.6666666667"},
        {"id": "5", "task": "mmlu", "output": "A"},
    ])
    out, report_path = tmp_path / "out.jsonl", tmp_path / "r" / "report.json"
    code = main(["score", "--pack", str(pack_file), str(src), "-o", str(out), "--report", str(report_path),
                 "--bootstrap", "100", "--seed", "1"])
    assert code == 0
    rows = read_rows(out)
    assert [r.get("id") for r in rows] == ["1", "2", None, "3", "4", "5"]
    assert [r["correct"] for r in rows] == [True, False, None, None, True, None]
    assert rows[2]["status"] == "invalid"
    report = json.loads(report_path.read_text(encoding="utf-8"))
    mmlu = next(g for g in report["groups"] if g["name"] == "mmlu")
    assert (mmlu["n"], mmlu["scorable"], mmlu["parsed"], mmlu["no_target"]) == (4, 3, 2, 1)
    assert mmlu["a_strict"]["value"] == pytest.approx(1 / 3)
    assert mmlu["statuses"] == {"ok": 3, "no_answer": 1}
    printed = capsys.readouterr().out
    assert report["pack"]["hash"] in printed and "A_strict" in printed and "seed 1" in printed


def test_score_formats(tmp_path: Path, pack_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write(tmp_path, "in.jsonl", [mc("1", "B"), mc("2", "A")])
    assert main(["score", "--pack", str(pack_file), str(src), "--format", "json", "--bootstrap", "20"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["groups"][-1]["a_strict"]["value"] == 0.5
    assert main(["score", "--pack", str(pack_file), str(src), "--format", "markdown", "--bootstrap", "20"]) == 0
    markdown = capsys.readouterr().out
    assert "| group |" in markdown and f"`{load_pack(pack_file).hash}`" in markdown
    assert "\033[" not in markdown


def test_score_fail_on_variance(tmp_path: Path, pack_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    steady = [mc(str(i), "B", run=r) for r in (1, 2) for i in range(4)]
    shaky = [mc(str(i), "B" if (r == 1 or i < 2) else "A", run=r) for r in (1, 2) for i in range(4)]
    args = ["score", "--pack", str(pack_file), "--bootstrap", "20", "--fail-on-variance"]
    assert main([*args, str(write(tmp_path, "steady.jsonl", steady))]) == 0
    assert main([*args, str(write(tmp_path, "shaky.jsonl", shaky))]) == 1
    assert "run-to-run CV above 0.05" in capsys.readouterr().out
    assert main([*args, "--cv-threshold", "0.9", str(write(tmp_path, "shaky.jsonl", shaky))]) == 0


def test_score_vote_aggregate(tmp_path: Path, pack_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [mc("q", a, sample=i) for i, a in enumerate(["B", "B", "C", "D", "E"])]
    src = write(tmp_path, "in.jsonl", rows)
    args = ["score", "--pack", str(pack_file), str(src), "--format", "json", "--bootstrap", "20"]
    assert main([*args, "--aggregate", "vote"]) == 0
    voted = json.loads(capsys.readouterr().out)
    assert voted["groups"][-1]["a_strict"]["value"] == 1.0 and voted["groups"][-1]["n_samples"] == 5
    assert main([*args, "--aggregate", "mean"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"][-1]["a_strict"]["value"] == pytest.approx(0.4)
    assert main([*args, "--aggregate", "pass@k", "--k", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"][-1]["a_strict"]["value"] == pytest.approx(0.7)


def test_score_usage_errors(tmp_path: Path, pack_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write(tmp_path, "in.jsonl", [mc("1", "B")])
    assert main(["score", "--pack", str(pack_file), str(src), "--aggregate", "pass@k"]) == 2
    assert main(["score", "--pack", str(pack_file), str(src), "--k", "2"]) == 2
    assert main(["score", "--pack", str(pack_file), str(src), "--bootstrap", "0"]) == 2
    assert main(["score", "--pack", str(pack_file), str(tmp_path / "missing.jsonl")]) == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text(PACK.replace("rel_tol: 1.0e-9", "tolerance: 1"), encoding="utf-8")
    assert main(["score", "--pack", str(bad), str(src)]) == 2
    assert "unknown key 'tolerance'" in capsys.readouterr().err


# ---------------------------------------------------------------- normalize compare


def test_compare_paired_bootstrap(tmp_path: Path, pack_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write(tmp_path, "a.jsonl", [mc(str(i), "B" if i % 2 else "A") for i in range(20)] + [mc("only-a", "B")])
    b = write(tmp_path, "b.jsonl", [mc(str(i), "B") for i in range(20)] + [mc("only-b", "B")])
    assert main(["compare", "--pack", str(pack_file), str(a), str(b), "--bootstrap", "300", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "difference B − A: +0.500" in out
    assert "share of resamples with B ≤ A: 0.000" in out
    assert "ids only in A (1, left out): mmlu/only-a" in out
    assert "ids only in B (1, left out): mmlu/only-b" in out
    assert main(["compare", "--pack", str(pack_file), str(a), str(b), "--json", "--bootstrap", "50"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["shared"] == 20 and data["diff"] == pytest.approx(0.5) and data["low"] <= 0.5 <= data["high"]
    assert main(["compare", "--pack", str(pack_file), str(a), str(b), "--format", "json", "--bootstrap", "50"]) == 0
    assert json.loads(capsys.readouterr().out) == data


def test_compare_without_shared_ids_is_an_error(tmp_path: Path, pack_file: Path) -> None:
    a = write(tmp_path, "a.jsonl", [mc("1", "B")])
    b = write(tmp_path, "b.jsonl", [mc("2", "B")])
    assert main(["compare", "--pack", str(pack_file), str(a), str(b)]) == 2


# ---------------------------------------------------------------- normalize audit


def test_mark_differences() -> None:
    assert mark_differences("it’s", "it's") == "it[-’-]{+'+}s"
    assert mark_differences("same", "same") == "same"


def test_audit_shows_changed_rows_and_run_spread(tmp_path: Path, pack_file: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"id": "1", "task": "squad", "target": "rock 'n' roll", "output": "rock ‘n’ roll", "run": "a"},
        {"id": "2", "task": "squad", "target": "it's", "output": "it’s", "run": "a"},
        {"id": "1", "task": "squad", "target": "rock 'n' roll", "output": "rock 'n' roll", "run": "b"},
        {"id": "2", "task": "squad", "target": "it's", "output": "it's", "run": "b"},
    ]
    src = write(tmp_path, "in.jsonl", rows)
    assert main(["audit", "--pack", str(pack_file), str(src), "--n", "1", "--seed", "0"]) == 0
    first = capsys.readouterr().out
    assert "2 of 4 rows were changed by the rules; showing 1 (seed 0)" in first
    assert "{+'+}" in first and "[-’-]" in first
    assert "raw exact match   CV 1.4142" in first
    assert "normalized score  CV 0.0000" in first
    assert main(["audit", "--pack", str(pack_file), str(src), "--n", "1", "--seed", "0"]) == 0
    assert capsys.readouterr().out == first  # the sample is seeded


def test_the_signature_beside_a_score_lists_only_the_chains_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The full signature of the shipped pack is over 1,000 characters; a gsm8k score needs one chain."""
    from scoring.cli import main as cli_main

    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": 1, "task": "gsm8k", "output": "#### 72", "target": "72"}) + "\n", encoding="utf-8")
    assert cli_main(["score", str(rows), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    pack = load_pack()
    signature = report["pack"]["signature"]
    assert signature == pack.signature_for(["math"]) and "|math:[" in signature
    assert "multiple_choice" not in signature and signature.endswith(f"|hash:{pack.short_hash}")
    assert len(signature) < 400 < len(pack.signature)


def test_typed_scoring_equals_scoring_the_output_dicts(tmp_path: Path) -> None:
    """score_file scores (Row, Result) pairs; the dict edge (score_detail) must agree row by row."""
    from normalize.io.jsonl import read_jsonl
    from normalize.io.rows import normalize_rows_typed
    from scoring.metrics import MathVerifier, score_detail, score_result

    extra = tmp_path / "bad.jsonl"
    extra.write_text("\n".join([
        "not json",
        json.dumps({"id": 1, "task": "gsm8k", "output": 5, "target": "5"}),       # invalid, known task
        json.dumps({"id": 2, "task": "nope", "output": "5", "target": "5"}),      # unknown task
        json.dumps({"id": 3, "task": "", "output": "5", "target": "5"}),          # empty task
        json.dumps({"id": 4, "task": "mmlu", "output": "B", "options": "x", "target": "B"}),  # bad options
        json.dumps({"id": 5, "task": "gsm8k", "output": "#### \\frac{1}{2}", "target": "0.5"}),
    ]) + "\n", encoding="utf-8")
    pack = load_pack()
    root = Path(__file__).resolve().parent.parent / "examples"
    with MathVerifier() as verifier:
        for path in [*sorted(root.glob("*.jsonl")), extra]:
            for n in normalize_rows_typed(pack, read_jsonl(path)):
                typed = score_result(pack, n.row, n.result, verifier=verifier)
                assert typed == score_detail(pack, n.out, verifier=verifier), (path, n.out)
                if typed.outcome == "scored":
                    assert typed.answer == n.out["answer"]
