"""Honest accounting: samples unparsed under --aggregate, strict parse rate over the rows that can be
strict, the lm-eval round trip keeping the filter's options, strict and flexible parse-rate metrics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from normalize.core.pack import load_pack
from normalize.io.jsonl import InputRow
from normalize.io.rows import normalize_typed
from scoring._items import item_of
from scoring.aggregate import aggregate_rows
from scoring.cli import main
from scoring.integrations.lm_eval import (
    NormalizeFilter,
    normalize_parse_rate,
    normalize_parse_rate_flexible,
    normalize_parse_rate_strict,
)
from scoring.metrics import MathVerifier, Scored, score_result
from scoring.report import build_report, render


def _scored(rows: list[dict[str, Any]]) -> list[Scored]:
    pack = load_pack()
    out = []
    with MathVerifier() as verifier:
        for i, data in enumerate(rows, 1):
            typed = normalize_typed(pack, InputRow(i, data))
            out.append(Scored(typed.row, typed.result, score_result(pack, typed.row, typed.result, verifier=verifier)))
    return out


def _group(report: dict[str, Any], level: str, name: str | None = None) -> dict[str, Any]:
    return next(g for g in report["groups"] if g["level"] == level and (name is None or g["name"] == name))


def test_vote_reports_unparsed_samples_and_single_sample_decisions() -> None:
    # 2 items x 3 samples; 3 of 6 samples unparsed; item 2 is decided by its one parsed sample
    rows = [{"id": 1, "task": "gsm8k", "output": o, "target": "12"} for o in ("#### 12", "#### 12", "no idea")] + \
           [{"id": 2, "task": "gsm8k", "output": o, "target": "5"} for o in ("#### 5", "hmm", "not sure")]
    pack = load_pack()
    items = aggregate_rows(pack, _scored(rows), "vote")
    report = build_report(items, pack, aggregate="vote", n_resamples=20)
    overall = _group(report, "overall")
    assert overall["parse_rate"] == 1.0  # every item has an answer after the vote ...
    assert overall["samples"] == {"n": 6, "unparsed": 3, "unparsed_share": 0.5,
                                  "items_decided_by_one_parsed_sample": 1}  # ... but half the samples had none
    text = render(report, "text")
    assert "samples unparsed 3 of 6 (0.500)" in text and "decided by a single parsed sample 1" in text
    plain = build_report([item_of(s) for s in _scored(rows)], pack, n_resamples=20)
    assert _group(plain, "overall")["samples"] is None  # rows, not aggregates: nothing to say


def test_overall_strict_parse_rate_counts_only_rows_that_can_be_strict() -> None:
    math = [("#### 1", "1"), ("The answer is 2.", "2"), ("I computed 3", "3"), ("\\boxed{4}", "4"),
            ("So 5.", "5"), ("The final answer is 6", "6"), ("#### 7", "7")]  # 5 stated, 2 last-number guesses
    rows = [{"id": i, "task": "gsm8k", "output": o, "target": t} for i, (o, t) in enumerate(math)]
    rows += [{"id": 100 + i, "task": "mmlu", "output": "The answer is (B)", "target": "B", "options": 4}
             for i in range(17)]
    pack = load_pack()
    report = build_report([item_of(s) for s in _scored(rows)], pack, n_resamples=20)
    gsm = _group(report, "task", "gsm8k")["parse_rates"]
    overall = _group(report, "overall")["parse_rates"]
    assert gsm["strict"] == pytest.approx(5 / 7)
    assert overall["strict"] == pytest.approx(5 / 7) and overall["rows"] == 7  # not 5/24: mmlu rows cannot be strict
    assert overall["flexible"] == pytest.approx(1.0)
    assert _group(report, "task", "mmlu")["parse_rates"] is None


def test_score_from_lm_eval_keeps_the_filters_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """lm-eval's documented samples line, with harness-normalize's filter output for a 4-option task:
    ``(E)`` is out of range there, and re-scoring the log says so too."""
    filt = NormalizeFilter(task="mmlu", options_field="choices")
    docs = [{"choices": ["a", "b", "c", "d"]}] * 2
    responses = [["The answer is (E)"], ["The answer is (B)"]]
    filtered = filt.apply(responses, docs)
    path = tmp_path / "samples_hn_mc_2024-05-01T12-30-00.123456.jsonl"
    path.write_text("".join(json.dumps({"doc_id": i, "doc": docs[i], "target": "1", "arguments": {},
                                        "resps": [responses[i]], "filtered_resps": [filtered[i]],
                                        "filter": "normalized", "metrics": ["normalize_acc"]}) + "\n"
                            for i in range(2)), encoding="utf-8")
    out = tmp_path / "rows.jsonl"
    assert main(["score", "--from", "lm-eval", str(path), "-o", str(out), "--format", "json", "--bootstrap",
                 "10"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["status"] for r in rows] == ["out_of_range", "ok"] and rows[0]["options"] == ["a", "b", "c", "d"]
    assert _group(report, "overall")["parse_rate"] == 0.5  # lm-eval's own table says 0.5 as well
    assert normalize_parse_rate(["1"], [filtered[0]]) == 0.0


def test_strict_and_flexible_parse_rate_metrics() -> None:
    noise = ["lorem 7 ipsum 3", "dolor 12", "lorem 4 dolor 9"]  # a random model: last-number guesses only
    assert [normalize_parse_rate_flexible(["1"], [r], task="gsm8k") for r in noise] == [1.0, 1.0, 1.0]
    assert [normalize_parse_rate_strict(["1"], [r], task="gsm8k") for r in noise] == [0.0, 0.0, 0.0]
    # a number after a bare name ("zz 12": z·z·12 to SymPy) is no answer at all, not a guess
    assert normalize_parse_rate_flexible(["1"], ["zz 12"], task="gsm8k") == 0.0
    filt = NormalizeFilter(task="gsm8k")
    (doc,) = filt.apply([["The answer is 1.", "7 maybe", "no idea"]], [{}])
    assert normalize_parse_rate_strict(["1"], [doc]) == pytest.approx(1 / 3)
    assert normalize_parse_rate_flexible(["1"], [doc]) == pytest.approx(2 / 3)
    # multiple choice: the choice parser only reads stated choices, so strict is every parse
    assert normalize_parse_rate_strict([1], ["The answer is (B)"], task="mmlu") == 1.0


def test_lm_eval_registers_the_named_metrics() -> None:
    pytest.importorskip("lm_eval")
    from lm_eval.api.registry import get_metric_aggregation

    assert get_metric_aggregation("normalize_parse_rate_strict") is not None
    assert get_metric_aggregation("normalize_parse_rate_flexible") is not None


# --------------------------------------------------------------------------- clustered intervals


def test_cluster_field_makes_the_bootstrap_resample_clusters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from scoring.stats import bootstrap_ci, cluster_bootstrap_ci, paired_bootstrap

    # 10 passages of 6 questions: each passage all right or all wrong; items are far from independent
    values = [float(p % 2) for p in range(10) for _ in range(6)]
    labels = [f"passage-{p}" for p in range(10) for _ in range(6)]
    plain = bootstrap_ci(values, n_resamples=2000, seed=1)
    clustered = cluster_bootstrap_ci(values, labels, n_resamples=2000, seed=1)
    assert clustered[1] - clustered[0] > 1.8 * (plain[1] - plain[0])
    assert cluster_bootstrap_ci(values, [None] * 60, n_resamples=500, seed=1)[0] > clustered[0]  # None: own cluster
    with pytest.raises(ValueError, match="one label per value"):
        cluster_bootstrap_ci(values, labels[:3])
    paired = paired_bootstrap([0.0] * 60, values, n_resamples=2000, seed=1, clusters=labels)
    unpaired = paired_bootstrap([0.0] * 60, values, n_resamples=2000, seed=1)
    assert paired.high - paired.low > 1.8 * (unpaired.high - unpaired.low)
    # through the rows: a cluster field widens the reported interval, and the report says why
    rows = [{"id": i, "task": "gsm8k", "output": "#### 1" if v else "#### 0", "target": "1", "cluster": lab}
            for i, (v, lab) in enumerate(zip(values, labels, strict=True))]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["score", str(path), "--format", "json", "--bootstrap", "2000", "--seed", "1"]) == 0
    overall = _group(json.loads(capsys.readouterr().out), "overall")
    assert overall["clusters"] == 10
    width = overall["a_strict"]["high"] - overall["a_strict"]["low"]
    assert width > 1.8 * (plain[1] - plain[0])
    assert main(["score", str(path), "--bootstrap", "200"]) == 0
    assert "intervals resample 10 clusters" in capsys.readouterr().out


# --------------------------------------------------------------------------- structured output


def test_structured_output_counts_malformed_schema_invalid_and_wrong_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]}
    outputs = ['{"age": 3}', '```json\n{"age": 4}\n```', '{"age": 5}', '{"age": "five"}', '{"name": "x"}',
               '{age: 3', '{"age": 3,,}', "I cannot answer that."]
    rows = [{"id": i, "task": "structured_json", "output": o, "target": {"age": 3}, "schema": schema}
            for i, o in enumerate(outputs)]
    path = tmp_path / "json.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["score", str(path), "--format", "json", "--bootstrap", "10"]) == 0
    overall = _group(json.loads(capsys.readouterr().out), "overall")
    assert overall["structured"] == {"right": 1, "wrong": 2, "malformed": 2, "schema_invalid": 2, "no_json": 1,
                                     "other": 0}
    assert main(["score", str(path), "--bootstrap", "10"]) == 0
    assert "JSON: malformed 2, schema-invalid 2, no JSON 1, parsed but wrong 2, right 1" in capsys.readouterr().out


def test_html_summary_shows_the_samples_behind_a_vote(tmp_path: Path) -> None:
    rows = [{"id": 1, "task": "gsm8k", "sample": i, "output": o, "target": "12"}
            for i, o in enumerate(("#### 12", "no idea", "hmm"))]
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    page = tmp_path / "r.html"
    assert main(["report", str(path), "-o", str(page), "--aggregate", "vote", "--bootstrap", "10"]) == 0
    html = page.read_text(encoding="utf-8")
    assert "samples unparsed: 2 of 3 (0.667); items decided by a single parsed sample: 1" in html


def test_compare_resamples_clusters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def write(name: str, right: set[int], cluster: bool) -> Path:
        rows = [{"id": f"{p}-{q}", "task": "gsm8k", "output": "#### 1" if p in right else "#### 0", "target": "1"}
                | ({"cluster": f"passage-{p}"} if cluster else {}) for p in range(8) for q in range(5)]
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return path

    widths = {}
    for cluster in (True, False):
        a, b = write(f"a{cluster}.jsonl", {0, 1}, cluster), write(f"b{cluster}.jsonl", {0, 1, 2, 3, 4}, cluster)
        assert main(["compare", str(a), str(b), "--format", "json", "--bootstrap", "2000"]) == 0
        doc = json.loads(capsys.readouterr().out)
        widths[cluster] = doc["high"] - doc["low"]
        assert doc["bootstrap"]["method"] == "paired percentile" + (" over clusters" if cluster else "")
    assert widths[True] > 1.5 * widths[False]
