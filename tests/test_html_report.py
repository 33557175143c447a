"""The HTML report without a browser: what it embeds, escaping, rule effects, comparison, audit sample.

The same page rendered in headless Chromium is checked in ``test_html_browser.py``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from normalize.core.engine import Chain
from normalize.core.pack import Pack, TaskType, load_pack
from scoring._comparison import compare_runs
from scoring._html_extra import KNOWN_KEYS
from scoring._items import item_of
from scoring._rule_effects import rule_effects
from scoring._scorefile import score_file
from scoring._svg import esc
from scoring.cli import main
from scoring.html_report import ReportRun, _segments, audit_records, render_html
from scoring.metrics import MathVerifier, Scored, score_result
from scoring.report import build_report
from scoring.stats import paired_bootstrap

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

PACK = """\
name: html-test
include: [shipped:languages/en.yaml]
tasks: {quiz: extractive_qa, sums: math}
task_types:
  extractive_qa:
    chain: [{rule: extract_answer_marker, params: {languages: [en]}}, unify_quotes, normalize_whitespace]
    parser: text
  math:
    chain: [{rule: extract_answer_marker, params: {languages: [en]}}]
    parser: number
scoring:
  math: {rel_tol: 1.0e-6}
"""
INJECTION = ('</script><script>document.body.setAttribute("data-pwned","1")</script>'
             '<img src=x onerror="document.body.setAttribute(\'data-pwned\',\'2\')"><b id="pwned">bold</b>')


def write(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def pack_file(tmp_path: Path) -> Path:
    path = tmp_path / "pack.yaml"
    path.write_text(PACK, encoding="utf-8")
    return path


def scored(pack: Pack, path: Path) -> tuple[list[dict[str, Any]], list[Scored]]:
    with MathVerifier() as verifier:
        return score_file(pack, path, verifier=verifier)




def make_run(pack: Pack, label: str, path: Path, *, effects: bool = True) -> ReportRun:
    outs, samples = scored(pack, path)
    items = [item_of(sample) for sample in samples]
    report = build_report(items, pack, n_resamples=200, seed=3)
    with MathVerifier() as verifier:
        found = rule_effects(pack, samples, verifier=verifier) if effects else None
    return ReportRun(label, str(path), outs, samples, report, found)


# --------------------------------------------------------------------------- rule effects


def test_rule_effects_count_changed_rows_and_the_verdicts_each_rule_decided(pack_file: Path, tmp_path: Path) -> None:
    pack = load_pack(pack_file)
    rows = write(tmp_path / "rows.jsonl", [
        {"id": 1, "task": "quiz", "output": "The answer is: Paris", "target": "Paris"},  # the marker rule helps
        {"id": 2, "task": "quiz", "output": "The answer is: Paris", "target": "The answer is: Paris"},  # it hurts
        {"id": 3, "task": "quiz", "output": "Paris", "target": "Paris"},  # nothing changes
        {"id": 4, "task": "quiz", "output": "The answer is: “Rome”", "target": "Rome"},  # helps; quotes do not matter
        {"id": 5, "task": "sums", "output": "The answer is: 7", "target": "7"},  # number parser finds 7 anyway
    ])
    run = make_run(pack, "r", rows)
    assert run.rule_effects is not None
    table = {(e["task_type"], e["rule"]): e for e in run.rule_effects["rules"]}
    marker = table[("extractive_qa", "extract_answer_marker")]
    assert (marker["rows"], marker["changed"], marker["verdict_changed"], marker["helped"], marker["hurt"]) == (
        4, 3, 3, 2, 1)
    quotes = table[("extractive_qa", "unify_quotes")]
    assert (quotes["changed"], quotes["verdict_changed"]) == (1, 0)  # squad_exact drops punctuation anyway
    assert table[("extractive_qa", "normalize_whitespace")]["changed"] == 0
    math_marker = table[("math", "extract_answer_marker")]
    assert (math_marker["changed"], math_marker["verdict_changed"]) == (1, 0)
    examples = {x["row"] for x in marker["examples"]}
    assert examples == {1, 2, 4}


def _without_rule(pack: Pack, kind: str, index: int) -> Pack:
    t = pack.task_types[kind]
    specs = t.chain.specs[:index] + t.chain.specs[index + 1:]
    return dataclasses.replace(pack, task_types={**pack.task_types, kind: TaskType(t.name, Chain(specs), t.parser)})


def test_rule_effects_equal_a_brute_force_rerun_of_every_row_without_each_rule() -> None:
    """The shortcut (re-run only changed rows, from the text entering the rule) gives the same
    counts as scoring every row again with a pack that lacks the rule."""
    pack = load_pack()
    _, samples = scored(pack, EXAMPLES / "predictions.jsonl")
    with MathVerifier() as verifier:
        effects = rule_effects(pack, samples, verifier=verifier)
        checked = 0
        for entry in effects["rules"]:
            smaller = _without_rule(pack, entry["task_type"], entry["index"])
            differ = 0
            for sample in samples:
                row, score = sample.row, sample.score
                if row.task_type != entry["task_type"]:
                    continue
                again = smaller.run(row.output, entry["task_type"], options=row.options)
                verdict = score_result(pack, row, again, verifier=verifier)
                differ += (verdict.outcome, verdict.value) != (score.outcome, score.value)
            assert entry["verdict_changed"] == differ, entry
            checked += differ
    assert checked > 0  # the examples do contain rules that decide verdicts


def test_a_rule_that_rejects_a_row_is_credited_with_its_verdict(tmp_path: Path) -> None:
    pack_file = tmp_path / "json.yaml"
    pack_file.write_text("""\
name: json-test
tasks: {records: structured_json}
task_types:
  structured_json:
    chain:
      - extract_json_block
      - parse_json
      - rule: align_json_schema
        params: {schema_json: {type: object, required: [b]}}
    parser: json
""", encoding="utf-8")
    pack = load_pack(pack_file)
    rows = write(tmp_path / "rows.jsonl", [
        {"id": 1, "task": "records", "output": '```json\n{"a": 1}\n```', "target": {"a": 1}},  # schema rejects it
        {"id": 2, "task": "records", "output": '{"a": 1, "b": 2}', "target": {"a": 1, "b": 2}},  # passes
        {"id": 3, "task": "records", "output": '{"a": 1,,}', "target": {"a": 1}},  # parse_json rejects it
    ])
    outs, samples = scored(pack, rows)
    assert [o["status"] for o in outs] == ["invalid", "ok", "invalid"]
    table = {e["rule"]: e for e in rule_effects(pack, samples)["rules"]}
    align = table["align_json_schema"]
    assert (align["rejected"], align["verdict_changed"], align["helped"], align["hurt"]) == (1, 1, 0, 1)
    assert align["examples"][0]["without"] == {"status": "ok", "answer": {"a": 1}, "value": 1.0}
    parse = table["parse_json"]
    assert (parse["rejected"], parse["verdict_changed"]) == (1, 0)  # the json parser refuses it too


def test_rule_effects_can_be_limited_to_a_seeded_sample(pack_file: Path, tmp_path: Path) -> None:
    pack = load_pack(pack_file)
    rows = write(tmp_path / "rows.jsonl", [{"id": i, "task": "quiz", "output": "The answer is: x", "target": "x"}
                                           for i in range(50)] + [
        {"id": i, "task": "sums", "output": "7", "target": "7"} for i in range(50)])
    _, samples = scored(pack, rows)
    found = rule_effects(pack, samples, max_rows=20, seed=1)
    assert found["rows_examined"] == 20 and found["rows_total"] == 100 and found["sample"] == {"rows": 20, "seed": 1}
    per_type = {e["task_type"]: e["rows"] for e in found["rules"] if e["index"] == 0}
    assert per_type["extractive_qa"] + per_type["math"] == 20 and per_type["math"] > 0  # not just the first rows
    assert found == rule_effects(pack, samples, max_rows=20, seed=1)
    assert rule_effects(pack, samples, max_rows=200)["sample"] is None
    with pytest.raises(ValueError, match="max_rows"):
        rule_effects(pack, samples, max_rows=-1)


# --------------------------------------------------------------------------- comparison


def test_comparison_per_task_uses_the_paired_bootstrap_and_lists_flips(pack_file: Path, tmp_path: Path) -> None:
    pack = load_pack(pack_file)

    def rows(quiz: list[str], sums: list[str]) -> list[dict[str, Any]]:
        return ([{"id": i, "task": "quiz", "output": out, "target": "x"} for i, out in enumerate(quiz)]
                + [{"id": i, "task": "sums", "output": out, "target": "7"} for i, out in enumerate(sums)])

    a_rows = [*rows(["x", "y", "x", "y"], ["7", "7", "8"]), {"id": 9, "task": "quiz", "output": "x"}]  # no target
    b_rows = [*rows(["x", "x", "y", "y"], ["7", "7", "7"]), {"id": 8, "task": "quiz", "output": "x", "target": "x"}]
    _, a_scored = scored(pack, write(tmp_path / "a.jsonl", a_rows))
    _, b_scored = scored(pack, write(tmp_path / "b.jsonl", b_rows))
    result = compare_runs(a_scored, b_scored, n_resamples=300, seed=5, confidence=0.9)
    quiz = next(t for t in result["tasks"] if t["name"] == "quiz")
    expected = paired_bootstrap([1, 0, 1, 0], [1, 1, 0, 0], n_resamples=300, seed=5, confidence=0.9)
    assert (quiz["diff"], quiz["low"], quiz["high"]) == (expected.diff, expected.low, expected.high)
    assert {(f["task"], f["id"], f["direction"]) for f in result["flipped"]} == {
        ("quiz", "1", "gained"), ("quiz", "2", "lost"), ("sums", "2", "gained")}
    overall = result["overall"]
    assert (overall["n"], overall["gained"], overall["lost"]) == (7, 2, 1)
    assert (result["shared"], result["only_in_a"], result["only_in_b"]) == (7, 0, 1)
    assert overall["diff"] == pytest.approx(1 / 7)


# --------------------------------------------------------------------------- the page


@pytest.fixture(scope="module")
def example_page() -> tuple[str, list[ReportRun], dict[str, Any]]:
    pack = load_pack()
    runs = [make_run(pack, "A", EXAMPLES / "predictions.jsonl"), make_run(pack, "B", EXAMPLES / "predictions_b.jsonl")]
    comparison = compare_runs(runs[0].scored, runs[1].scored, n_resamples=200, seed=3)
    return render_html(pack, runs, comparison=comparison, settings={"extra": "x"}), runs, comparison


def test_page_needs_no_network() -> None:
    pack = load_pack()
    html = render_html(pack, [make_run(pack, "A", EXAMPLES / "predictions.jsonl")])
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}  # the SVG namespace name, never fetched
    assert not re.search(r"<link\b|<img\b|<iframe\b|\bsrc=|@import|url\(", html)
    assert "default-src 'none'" in html  # and the page forbids fetching anything


def test_every_section_carries_the_pack_hash_and_the_header_the_signature(
        example_page: tuple[str, Any, Any]) -> None:
    html = example_page[0]
    pack = load_pack()
    sections = re.findall(r"<section id=\"(\w+)\">(.*?)</section>", html, re.S)
    # "other": the open-writing rows' text metrics and every group's MDD, which the page lists
    assert [name for name, _ in sections] == ["summary", "accuracy", "parse", "other", "compare", "rules", "audit",
                                              "settings"]
    for name, body in sections:
        assert esc(pack.hash) in body and esc(pack.signature) not in body, name  # not ~1,000 characters each time
    header = html.split("<main>", 1)[0]
    assert f"pack <b>{pack.name}</b> · hash <code class=\"hash\">{pack.short_hash}</code> · chains scored: " in header
    details = header.split('<details class="signature">', 1)[1].split("</details>", 1)[0]
    assert esc(pack.signature) in details and esc(pack.hash) in details
    assert html.count(esc(pack.signature)) == 1 + html.count(f'content="{esc(pack.signature)}"')


def test_page_shows_every_number_of_the_report(example_page: tuple[str, list[ReportRun], Any]) -> None:
    html, runs, _ = example_page
    for run in runs:
        for group in run.report["groups"]:
            label = group["name"] if group["level"] != "task_type" else f"type:{group['name']}"
            for series, key in (("A_strict", "a_strict"), ("A_valid", "a_valid"), ("random fallback", "random_fallback")):
                block = group[key]
                if block is None:
                    continue
                text = f"{block['value']:.3f} [{block['low']:.3f}, {block['high']:.3f}]"
                assert f'data-group="{esc(label)}" data-series="{series}" data-value="{block["value"]:.6f}"' in html
                assert text in html
            if group["chance"] is not None:
                assert f'class="chance" data-group="{esc(label)}" data-value="{group["chance"]:.6f}"' in html
            for status, count in group["statuses"].items():
                assert f'data-group="{esc(label)}" data-status="{status}" data-count="{count}"' in html


def test_settings_that_change_a_number_are_written(example_page: tuple[str, Any, Any], pack_file: Path,
                                                   tmp_path: Path) -> None:
    html = example_page[0]
    assert "percentile, 200 resamples, seed 3, 95% confidence" in html
    assert "paired percentile bootstrap, 200 resamples, seed 3, 95% confidence" in html
    assert "items matched on (task, id)" in html and "mean of 1/K over scorable items" in html
    assert "aggregate" in html and "none (one row is one item)" in html
    assert "regex_timeout=" in html and "max_input_bytes=" in html
    assert "metric=math" in html and "metric=squad_exact" in html
    pack = load_pack(pack_file)
    rows = write(tmp_path / "r.jsonl", [{"id": 1, "task": "sums", "output": "7", "target": "7"}])
    page = render_html(pack, [make_run(pack, "r", rows)])
    assert "rel_tol=1e-06" in page


def test_untrusted_output_cannot_become_markup(tmp_path: Path) -> None:
    pack = load_pack()
    rows = write(tmp_path / "evil.jsonl", [
        {"id": "x<b>", "task": "mmlu</script>", "output": INJECTION, "target": "A", "options": 4},
        {"id": 2, "task": "mmlu", "output": "The answer is (A). " + INJECTION, "target": "A", "options": 4},
    ])
    html = render_html(pack, [make_run(pack, "<i>run</i>", rows)], title="<script>t</script>")
    assert html.count("<script") == 2  # the JSON data block and the page's own script
    assert "<img" not in html and 'id="pwned"' not in html and "<i>run</i>" not in html
    data = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert data is not None and "<" not in data.group(1) and ">" not in data.group(1)
    decoded = json.loads(data.group(1))
    raw_texts = ["".join(seg[1] for seg in row[11] if seg[0] != 2) for row in decoded["audit"]["rows"]]
    assert INJECTION in raw_texts[0] and ("The answer is (A). " + INJECTION) in raw_texts[1]


# --------------------------------------------------------------------------- audit data


def test_segments_mark_changed_spans_and_elide_long_unchanged_text() -> None:
    left, right = _segments("The answer is (B).", "B")
    assert [s for s in left if s[0] == 1] and "".join(s[1] for s in left) == "The answer is (B)."
    assert "".join(s[1] for s in right) == "B"
    long = "x" * 5000
    left, right = _segments(long + " The answer is 7", long + " 7")
    assert any(s[0] == 2 for s in left) and sum(len(s[1]) for s in left if s[0] != 2) < 600
    assert [s[1].strip() for s in left if s[0] == 1] == ["The answer is"]


def test_audit_sample_is_seeded_and_keeps_every_task_and_status(tmp_path: Path) -> None:
    pack = load_pack()
    rows = [{"id": i, "task": "mmlu", "output": "The answer is (A).", "target": "A", "options": 4} for i in range(300)]
    rows += [{"id": "n", "task": "mmlu", "output": "hmm, hard to say", "target": "A", "options": 4},
             {"id": "g", "task": "gsm8k", "output": None, "target": "3"}]
    run = make_run(pack, "r", write(tmp_path / "many.jsonl", rows), effects=False)
    first = audit_records([run], cap=20, seed=1)
    assert first == audit_records([run], cap=20, seed=1)
    assert first["sampled"] and len(first["rows"]) == 20 and first["total"] == 302
    seen = Counter((r[3], r[5]) for r in first["rows"])
    assert seen[("mmlu", "no_answer")] == 1 and seen[("gsm8k", "no_output")] == 1
    assert audit_records([run], cap=20, seed=2)["rows"] != first["rows"]
    lines = [r[1] for r in first["rows"]]
    assert lines == sorted(lines)
    assert "20 of 302 rows embedded" in first["note"]
    assert not audit_records([run], cap=1000)["sampled"]


# --------------------------------------------------------------------------- command line


def test_report_command_writes_one_file_and_score_html_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sub" / "report.html"
    code = main(["report", str(EXAMPLES / "predictions.jsonl"), str(EXAMPLES / "predictions_b.jsonl"),
                 "-o", str(out), "--bootstrap", "100", "--seed", "4", "--confidence", "0.9", "--page-size", "7"])
    assert code == 0
    html = out.read_text(encoding="utf-8")
    assert 'id="compare"' in html and "100 resamples, seed 4, 90% confidence" in html and '"pageSize":7' in html
    assert "wrote" in capsys.readouterr().out
    assert list(out.parent.iterdir()) == [out]  # no temporary file left behind
    scored_html = tmp_path / "scored.html"
    code = main(["score", str(EXAMPLES / "runs.jsonl"), "--aggregate", "vote", "--html", str(scored_html),
                 "--no-progress", "--rule-effect-rows", "0"])
    assert code == 0
    page = scored_html.read_text(encoding="utf-8")
    assert "vote" in page and "Rule effects were not computed" in page and 'id="compare"' not in page


def test_compare_html_writes_both_runs_and_the_comparison(tmp_path: Path) -> None:
    out = tmp_path / "cmp.html"
    code = main(["compare", str(EXAMPLES / "predictions.jsonl"), str(EXAMPLES / "predictions_b.jsonl"),
                 "--html", str(out), "--bootstrap", "50", "--audit-rows", "5"])
    assert code == 0
    html = out.read_text(encoding="utf-8")
    assert html.count('class="chart chart-diff"') == 1 and "paired percentile bootstrap, 50 resamples" in html
    total = sum(len(path.read_text(encoding="utf-8").splitlines())
                for path in (EXAMPLES / "predictions.jsonl", EXAMPLES / "predictions_b.jsonl"))
    assert re.search(r"5 of \d+ flipped items embedded", html) and f"5 of {total} rows embedded" in html


def test_report_command_json_says_what_it_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.html"
    code = main(["report", str(EXAMPLES / "predictions.jsonl"), str(EXAMPLES / "predictions_b.jsonl"), "-o", str(out),
                 "--format", "json", "--bootstrap", "50"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["output"] == str(out) and printed["bytes"] == len(out.read_bytes())
    lines = [len((EXAMPLES / name).read_text(encoding="utf-8").splitlines())
             for name in ("predictions.jsonl", "predictions_b.jsonl")]
    assert [r["rows"] for r in printed["runs"]] == lines and printed["comparison"]["n"] > 0
    assert printed["pack"]["hash"] == load_pack().hash


def test_report_command_can_write_the_page_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(EXAMPLES / "predictions.jsonl"), "-o", "-", "--bootstrap", "20"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("<!DOCTYPE html>") and captured.out.endswith("</html>\n")
    assert "wrote the page to stdout" in captured.err


def test_score_html_needs_an_input_it_can_read_again(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO((EXAMPLES / "predictions.jsonl").read_text(encoding="utf-8")))
    assert main(["score", "-", "--html", str(tmp_path / "s.html"), "--no-progress"]) == 2
    assert "--html needs an input file" in capsys.readouterr().err
    assert not (tmp_path / "s.html").exists()


@pytest.mark.parametrize("args, message", [
    (["--page-size", "0"], "--page-size"),
    (["--audit-rows", "-1"], "--audit-rows"),
    (["--confidence", "1.5"], "--confidence"),
    (["--label", "only-one", "--label", "two", "--label", "three"], "--label"),
])
def test_report_command_rejects_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                            message: str) -> None:
    code = main(["report", str(EXAMPLES / "predictions.jsonl"), "-o", str(tmp_path / "r.html"), *args])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_report_command_takes_at_most_two_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "predictions.jsonl")
    assert main(["report", path, path, path, "-o", str(tmp_path / "r.html")]) == 2
    assert "one run or two" in capsys.readouterr().err


def test_readme_shows_a_screenshot_of_the_example_report() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "![The HTML report of the bundled examples](docs/report.png)" in readme
    png = (ROOT / "docs" / "report.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 20_000


def test_empty_run_and_runs_without_shared_items_still_render(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert main(["report", str(empty), "-o", str(tmp_path / "e.html")]) == 0
    assert "all 0 rows embedded" in (tmp_path / "e.html").read_text(encoding="utf-8")
    other = write(tmp_path / "other.jsonl", [{"id": "zz", "task": "mmlu", "output": "A", "target": "A", "options": 4}])
    assert main(["report", str(other), str(EXAMPLES / "predictions.jsonl"), "-o", str(tmp_path / "d.html")]) == 0
    page = (tmp_path / "d.html").read_text(encoding="utf-8")
    assert re.search(r"0 items \(task, id\) scorable in both; 1 only in A and \d+ only in B are left out", page)


def test_sections_the_page_has_no_chart_for_are_listed_with_their_intervals_and_signatures() -> None:
    """Metrics other modules add to a report group (text, ranking, pairwise …) are not dropped."""
    pack = load_pack()
    run = make_run(pack, "A", EXAMPLES / "predictions.jsonl", effects=False)
    groups = [dict(g) for g in run.report["groups"]]
    groups[-1]["mdd"] = 0.25
    groups[-1]["text_metrics"] = {"metrics": {"bleu": {"corpus": {"value": 40.6, "low": 13.5, "high": 63.9},
                                                        "n": 8, "signature": "tok:13a|smooth:exp"}}}
    groups[-1]["ranking"] = {"ndcg": {"value": 0.45, "low": 0.16, "high": 0.71}, "n": 6}
    report = {**run.report, "groups": groups}
    html = render_html(pack, [dataclasses.replace(run, report=report)])
    assert '<section id="other">' in html and 'href="#other"' in html
    assert 'data-metric="metrics · bleu · corpus" data-value="40.600000"' in html and "40.600 [13.500, 63.900]" in html
    assert "0–67.1" in html and 'data-metric="ndcg" data-value="0.450000"' in html and "0–1<" in html
    assert 'data-metric="mdd" data-value="0.250000"' in html
    assert "text_metrics · metrics · bleu signature" in html and "tok:13a|smooth:exp" in html
    plain = [{k: v for k, v in g.items() if k in KNOWN_KEYS} for g in run.report["groups"]]
    assert '<section id="other">' not in render_html(pack, [dataclasses.replace(run, report={**run.report, "groups": plain})])


def test_sibling_figures_share_one_scale() -> None:
    from scoring._html_extra import extra_section

    group = {"level": "overall", "name": "overall", "pairwise": {"bradley_terry": {"ratings": {
        "a": {"value": 1000.0, "low": 1000.0, "high": 1000.0}, "b": {"value": 650.0, "low": 500.0, "high": 800.0}}}}}
    html = extra_section([("r", [group])])
    scales = re.findall(r'<td class="n muted">([^<]+)</td>', html)
    assert len(scales) == 2 and scales[0] == scales[1] == "0–1,050"
