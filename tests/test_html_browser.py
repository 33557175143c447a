"""The HTML report in a real browser: headless Chromium renders the bundled example report, runs
its script, and the DOM it prints back must hold the charts, the numbers and the audit rows.

Skipped only when no Chromium is installed; ``.ci/run`` installs Debian's ``chromium`` and sets
``HN_REQUIRE_CHROMIUM=1``, which turns that skip into a failure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from normalize.core.pack import load_pack
from scoring._comparison import compare_runs
from scoring._items import item_of
from scoring._rule_effects import rule_effects
from scoring._scorefile import score_file
from scoring._svg import esc
from scoring.cli import main
from scoring.metrics import MathVerifier
from scoring.report import build_report
from tests.browser import REQUIRE_ENV, Element, Page, dump_dom, find_chromium, parse_dom

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CHROMIUM = find_chromium()
INJECTION = ('</script><script>document.body.setAttribute("data-pwned","1")</script>'
             '<img src=x onerror="document.body.setAttribute(\'data-pwned\',\'2\')"><b id="pwned">bold</b>')


def chromium() -> str:
    if CHROMIUM is None:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but no chromium binary was found on PATH")
        pytest.skip("chromium is not installed (apt-get install chromium); .ci/run installs it")
    return CHROMIUM


def render(path: Path, fragment: str = "") -> Element:
    dom = parse_dom(dump_dom(chromium(), path.resolve().as_uri() + fragment))
    body = dom.find_all("body")[0]
    assert body.attrs.get("data-report-ready") == "1", "the page's script did not run to the end"
    return dom


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]], dict[str, Any]]:
    """The bundled example report (two runs compared), and the numbers it must show."""
    chromium()
    out = tmp_path_factory.mktemp("html") / "example.html"
    a, b = EXAMPLES / "predictions.jsonl", EXAMPLES / "predictions_b.jsonl"
    assert main(["report", str(a), str(b), "-o", str(out)]) == 0
    pack = load_pack()
    reports, scored = [], []
    with MathVerifier() as verifier:
        for path in (a, b):
            _, samples = score_file(pack, path, verifier=verifier)
            scored.append(samples)
            reports.append(build_report([item_of(s) for s in samples], pack))
    comparison = compare_runs(scored[0], scored[1])
    return out, reports, comparison


def test_example_report_charts_hold_every_number(example: tuple[Path, list[dict[str, Any]], dict[str, Any]]) -> None:
    path, reports, comparison = example
    dom = render(path)
    charts = dom.find_all("svg", cls="chart-accuracy")
    assert len(charts) == 4 and len(dom.find_all("svg", cls="chart-status")) == 4
    for index, report in enumerate(reports):
        mine = charts[2 * index].find_all() + charts[2 * index + 1].find_all()
        chance_lines = [n for n in mine if "chance" in n.classes]
        for group in report["groups"]:
            label = group["name"] if group["level"] != "task_type" else f"type:{group['name']}"
            for series, key in (("A_strict", "a_strict"), ("A_valid", "a_valid"),
                                ("random fallback", "random_fallback")):
                bars = [n for n in mine if "bar" in n.classes and n.attrs.get("data-group") == label
                        and n.attrs.get("data-series") == series]
                block = group[key]
                if block is None:
                    assert not bars
                    continue
                assert len(bars) == 1, (label, series)
                assert float(bars[0].attrs["data-value"]) == pytest.approx(block["value"], abs=1e-6)
                assert f"{block['value']:.3f} [{block['low']:.3f}, {block['high']:.3f}]" in bars[0].text
                assert bars[0].find_all("rect")  # the bar is drawn, not only written
            drawn = [n for n in chance_lines if n.attrs.get("data-group") == label]
            if group["chance"] is None:
                assert not drawn
            else:
                assert float(drawn[0].attrs["data-value"]) == pytest.approx(group["chance"], abs=1e-6)
        segments = [n for n in dom.find_all("g", cls="segment")]
        for group in report["groups"]:
            label = group["name"] if group["level"] != "task_type" else f"type:{group['name']}"
            for status, count in group["statuses"].items():
                assert any(s.attrs.get("data-group") == label and s.attrs.get("data-status") == status
                           and s.attrs.get("data-count") == str(count) for s in segments), (label, status)
    diffs = {n.attrs["data-group"]: float(n.attrs["data-value"]) for n in dom.find_all("g", cls="diff")}
    expected = {t["name"]: t["diff"] for t in [*comparison["tasks"], comparison["overall"]]}
    assert diffs == pytest.approx(expected, abs=1e-6)


def test_example_report_shows_audit_rows_flips_rules_and_the_hash(
        example: tuple[Path, list[dict[str, Any]], dict[str, Any]]) -> None:
    path, _, comparison = example
    dom = render(path)
    rows = dom.find_all("tr", cls="audit-row")
    total = sum(1 for _ in (EXAMPLES / "predictions.jsonl").open()) + sum(1 for _ in (EXAMPLES / "predictions_b.jsonl").open())
    assert len(rows) == 50  # the first page
    count = dom.by_id("audit-controls")
    assert count is not None and f"1–50 of {total} matching" in count.text
    pack = load_pack()
    with MathVerifier() as verifier:
        outs, samples = score_file(pack, EXAMPLES / "predictions.jsonl", verifier=verifier)
        outs_b, _ = score_file(pack, EXAMPLES / "predictions_b.jsonl", verifier=verifier)
        effects = rule_effects(pack, samples, verifier=verifier)
    # the audit shows flipped and weak-tier rows first, so rows are matched to outputs by their text
    by_text: dict[str, list[dict[str, Any]]] = {}
    for out in [*outs, *outs_b]:
        if isinstance(out.get("output"), str):
            by_text.setdefault(out["output"], []).append(out)
    checked = 0
    for row in rows:  # raw beside normalized, the changed spans marked
        raw, normalized = row.find_all("td", cls="raw")[0], row.find_all("td", cls="normalized")[0]
        candidates = [o for o in by_text.get(raw.text, []) if not isinstance(o.get("normalized"), str)
                      or len(o["normalized"]) >= 240 or normalized.text == o["normalized"]]
        if not candidates:  # a long output is clipped on the page
            continue
        out = candidates[0]
        checked += 1
        if out.get("trace"):
            assert raw.find_all("del") or normalized.find_all("ins"), out.get("id")
        else:
            assert not raw.find_all("del") and not normalized.find_all("ins"), out.get("id")
    assert checked >= 25  # most of the page's rows are short enough to be shown whole
    flips = dom.find_all("tr", cls="flip-row")
    assert len(flips) == len(comparison["flipped"]) > 0
    label = "predictions.jsonl"
    shown = 0
    for entry in effects["rules"]:
        row = [r for r in dom.find_all("tr", data_rule=entry["rule"]) if r.attrs.get("data-type") == entry["task_type"]]
        changed = [td for td in row[0].find_all("td", cls="changed") if td.attrs.get("data-run") == label]
        verdicts = [td for td in row[0].find_all("td", cls="verdicts") if td.attrs.get("data-run") == label]
        assert int(changed[0].text.split()[0]) == entry["changed"], entry["rule"]
        assert int(verdicts[0].text) == entry["verdict_changed"], entry["rule"]
        shown += entry["verdict_changed"]
    assert shown > 0
    for section in dom.find_all("section"):  # every section names the hash; the full signature is said once
        assert pack.hash in section.text and pack.signature not in section.text, section.attrs.get("id")
    assert dom.text.count(pack.signature) == 1


def test_audit_filters_and_pages_read_from_the_address(
        example: tuple[Path, list[dict[str, Any]], dict[str, Any]]) -> None:
    path, _, _ = example
    data = json.loads(render(path).by_id("report-data").text)  # type: ignore[union-attr]
    fields = {name: i for i, name in enumerate(data["audit"]["fields"])}
    wanted = [r for r in data["audit"]["rows"] if r[fields["status"]] == "no_answer" and r[fields["task"]] == "mmlu"]
    rows = render(path, "#status=no_answer&task=mmlu").find_all("tr", cls="audit-row")
    assert len(rows) == len(wanted) > 0
    assert all(r.attrs["data-status"] == "no_answer" and r.attrs["data-task"] == "mmlu" for r in rows)
    second = render(path, "#page=2").find_all("tr", cls="audit-row")
    assert len(second) == len(data["audit"]["rows"]) - 50
    changed = render(path, "#changed=1").find_all("tr", cls="audit-row")
    assert 0 < len(changed) <= 50 and all(r.find_all("td")[-1].text for r in changed)


def test_a_script_in_a_model_output_stays_text(tmp_path: Path) -> None:
    chromium()
    rows = tmp_path / "evil.jsonl"
    rows.write_text("\n".join(json.dumps(r) for r in [
        {"id": "<b>x</b>", "task": "mmlu", "output": INJECTION, "target": "A", "options": 4},
        {"id": 2, "task": "mmlu</script>", "output": "The answer is (A). " + INJECTION, "target": "A", "options": 4},
    ]) + "\n", encoding="utf-8")
    out = tmp_path / "evil.html"
    assert main(["report", str(rows), "-o", str(out), "--label", "<i>x</i>"]) == 0
    dom = render(out)
    body = dom.find_all("body")[0]
    assert "data-pwned" not in body.attrs
    assert dom.by_id("pwned") is None and not dom.find_all("img") and not dom.find_all("i")
    assert len(dom.find_all("script")) == 2
    raws = [td.text for td in dom.find_all("td", cls="raw")]
    assert INJECTION in raws[0] and INJECTION in raws[1]
    assert any(esc("<b>x</b>") in esc(td.text) for td in dom.find_all("td"))


def test_a_reader_filters_searches_and_pages_the_audit(
        example: tuple[Path, list[dict[str, Any]], dict[str, Any]]) -> None:
    """Driven over the DevTools protocol: change the filters and click as a reader would."""
    path, _, comparison = example
    with Page(chromium(), path.resolve().as_uri()) as page:
        page.wait_for("document.body && document.body.getAttribute('data-report-ready') === '1'")
        rows = "document.querySelectorAll('#audit-table tr.audit-row')"
        assert page.evaluate(f"{rows}.length") == 50
        assert page.evaluate("performance.getEntriesByType('resource').length") == 0  # nothing fetched
        assert page.evaluate("document.querySelectorAll('svg.chart').length") == 9

        def choose(filter_name: str, value: str) -> None:
            page.evaluate(f"(function () {{ var s = document.querySelector('#audit-controls [data-filter={filter_name}]');"
                          f" s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }}())")

        data = json.loads(page.evaluate("document.getElementById('report-data').textContent"))
        fields = {name: i for i, name in enumerate(data["audit"]["fields"])}
        embedded = data["audit"]["rows"]
        task = embedded[0][fields["task"]]
        choose("task", task)
        tasks = page.evaluate(f"Array.from({rows}).map(function (r) {{ return r.dataset.task; }})")
        assert tasks == [task] * sum(1 for r in embedded if r[fields["task"]] == task)
        assert page.evaluate("location.hash") == f"#task={task}"
        status = next(r[fields["status"]] for r in embedded if r[fields["task"]] == task and r[fields["status"]] != "ok")
        choose("status", status)
        assert page.evaluate(f"{rows}.length") == sum(
            1 for r in embedded if r[fields["task"]] == task and r[fields["status"]] == status) > 0
        assert f"status={status}" in page.evaluate("location.hash")
        choose("status", "")
        choose("task", "")
        needle = "guilty of romance"
        page.evaluate("(function () { var q = document.querySelector('#audit-controls [data-filter=q]');"
                      f" q.value = {json.dumps(needle.upper())}; q.dispatchEvent(new Event('input')); }}())")
        found = [r for r in embedded if needle in "".join(seg[1] for seg in r[fields["raw"]] if seg[0] != 2).lower()]
        assert page.evaluate(f"{rows}.length") == len(found) > 0  # found case-insensitively
        page.evaluate("(function () { var q = document.querySelector('#audit-controls [data-filter=q]');"
                      " q.value = ''; q.dispatchEvent(new Event('input')); }())")
        page.evaluate("document.querySelectorAll('#audit-controls .pager button')[1].click()")
        assert page.evaluate(f"{rows}.length") == len(embedded) - 50
        assert page.evaluate("location.hash").endswith("page=2")
        assert f"51–{len(embedded)} of {len(embedded)}" in page.evaluate(
            "document.querySelector('#audit-controls .count').textContent")
        flips = "document.querySelectorAll('#flip-table tr.flip-row')"
        page.evaluate("(function () { var s = document.querySelector('#flip-controls [data-filter=direction]');"
                      " s.value = 'lost'; s.dispatchEvent(new Event('change')); }())")
        assert page.evaluate(f"{flips}.length") == sum(1 for f in comparison["flipped"] if f["direction"] == "lost")
        assert page.evaluate("getComputedStyle(document.querySelector('#rules-table tr.idle')).display") == "none"
        page.evaluate("document.getElementById('show-idle').click()")
        assert page.evaluate("getComputedStyle(document.querySelector('#rules-table tr.idle')).display") != "none"
