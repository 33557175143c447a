"""``normalize diff``: two packs on the same outputs, and the difference behind every flipped verdict."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from normalize.core.pack import default_pack_path, load_pack
from normalize.core.registry import REGISTRY
from normalize.io._io import read_jsonl
from scoring.cli import main
from scoring.diff import apply_differences, diff_packs, pack_differences

SAMPLES = default_pack_path().parent / "samples"

def _shipped_type(name: str) -> str:
    """The shipped default pack's YAML block of task type ``name`` (under ``task_types:``), as written."""
    text = default_pack_path().read_text(encoding="utf-8")
    section = text[text.index("\ntask_types:\n"):]
    start = section.index(f"\n  {name}:\n") + 1
    following = re.search(r"\n  [a-z_]+:\n|\n[a-z_]+:", section[start + 1:])
    return section[start:start + 1 + following.start() + 1] if following else section[start:]


def _without(block: str, line: str) -> str:
    assert line in block, line
    return block.replace(line, "", 1)


#: The shipped pack with one rule taken out of the math chain (remove_think_blocks); written from
#: the shipped block itself, so the chain stays the shipped one but for that rule.
NO_THINK = "name: no-think\nextends: shipped:default\ntask_types:\n" + _without(
    _shipped_type("math"), "      - remove_think_blocks\n")

#: Several differences at once: the math change above, no extract_boxed for multiple choice, a parser param.
SEVERAL = NO_THINK.replace("name: no-think", "name: several") + _without(
    _shipped_type("multiple_choice"), "      - extract_boxed\n"
).replace("languages: [en, zh, lang], conflict: keep", "languages: [en], conflict: keep", 1).replace(
    "    parser: choice\n", "    parser: {name: choice, params: {default_options: 10}}\n", 1)

#: The label of the difference NO_THINK makes.
THINK = f"math: remove_think_blocks.v{REGISTRY.rule('remove_think_blocks').version} removed"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _sample_rows(tmp_path: Path, *files: str) -> Path:
    """The shipped golden samples as scored rows: each sample's expected answer is its target;
    plus rows whose reasoning block holds a different number than the answer after it."""
    rows: list[dict[str, Any]] = []
    for name in files:
        for line in (SAMPLES / name).read_text(encoding="utf-8").splitlines():
            data = json.loads(line)
            expected = data.get("expected", {})
            if expected.get("status") == "ok" and isinstance(data.get("output"), str):
                rows.append({"id": data["id"], "task": data["task"], "output": data["output"],
                             "options": data.get("options"), "target": expected["answer"]})
    for i in range(4):
        rows.append({"id": f"think-{i}", "task": "gsm8k", "target": str(10 + i),
                     "output": f"<think>The answer is {i}.</think>\nSo it comes to {10 + i} apples."})
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_every_difference_applied_gives_the_new_pack(tmp_path: Path) -> None:
    old, new = load_pack(), load_pack(_write(tmp_path / "several.yaml", SEVERAL))
    diffs = pack_differences(old, new)
    labels = [d.label for d in diffs]
    assert THINK in labels
    assert "multiple_choice: extract_boxed.v2 removed" in labels
    assert "multiple_choice: parser choice param default_options" in labels
    assert any(label.startswith("multiple_choice: extract_answer_marker params") for label in labels)
    everything = apply_differences(old, new, diffs)
    assert everything is not None and everything.hash == new.hash
    back = pack_differences(new, old)
    reverted = apply_differences(new, old, back)
    assert reverted is not None and reverted.hash == old.hash
    nothing = apply_differences(old, new, [])
    assert nothing is not None and nothing.hash == old.hash
    one = apply_differences(old, new, [d for d in diffs if d.label == THINK])
    assert one is not None and one.task_types["math"].chain == new.task_types["math"].chain
    assert "remove_think_blocks" not in [spec.name for spec in one.task_types["math"].chain.specs]
    assert one.task_types["multiple_choice"] == old.task_types["multiple_choice"]


def test_one_changed_rule_is_the_cause_of_every_flip(tmp_path: Path) -> None:
    old, new = load_pack(), load_pack(_write(tmp_path / "no-think.yaml", NO_THINK))
    rows = read_jsonl(_sample_rows(tmp_path, "math.jsonl", "multiple_choice.jsonl"))
    doc = diff_packs(old, new, rows, n_resamples=50)
    assert [d["label"] for d in doc["differences"]] == [THINK]
    assert doc["rows_replayed"] >= 4  # the think rows at least
    assert doc["overall"]["flips"]["right→wrong"] + doc["overall"]["flips"]["parsed→unparsed"] >= 4
    assert [c["cause"] for c in doc["causes"]] == [THINK]
    assert doc["causes"][0]["rows"] == doc["rows_replayed"]
    assert doc["rows_unexplained_by_any_combination"] == 0
    # multiple-choice rows are untouched by a math change: identical, never replayed
    assert doc["tasks"]["mmlu"]["flips"] == dict.fromkeys(doc["tasks"]["mmlu"]["flips"], 0)
    assert doc["rows_identical"] >= sum(1 for r in rows if r.data and r.data["task"] not in ("gsm8k", "math"))
    assert doc["overall"]["difference"]["diff"] < 0


def test_each_flip_goes_to_the_difference_that_alone_explains_it(tmp_path: Path) -> None:
    old, new = load_pack(), load_pack(_write(tmp_path / "several.yaml", SEVERAL))
    rows = read_jsonl(_sample_rows(tmp_path, "math.jsonl", "multiple_choice.jsonl"))
    doc = diff_packs(old, new, rows, n_resamples=50)
    by_label = {c["cause"]: c for c in doc["causes"]}
    think = by_label[THINK]
    assert think["rows"] >= 4
    assert all(e["task"] in ("gsm8k", "math") for e in think["examples"])
    # no math row is put down to a multiple-choice difference, and the reverse
    for cause in doc["causes"]:
        for e in cause["examples"]:
            assert ("multiple_choice" in cause["cause"]) == (e["task"] not in ("gsm8k", "math", "competition_math"))


def test_same_pack_replays_nothing(tmp_path: Path) -> None:
    rows = read_jsonl(_sample_rows(tmp_path, "math.jsonl"))
    doc = diff_packs(load_pack(), load_pack(), rows, n_resamples=20)
    assert doc["differences"] == [] and doc["causes"] == []
    assert doc["rows_identical"] == doc["rows"] == len(rows) and doc["rows_replayed"] == 0


def test_cli_json_text_and_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = _write(tmp_path / "no-think.yaml", NO_THINK)
    rows = _sample_rows(tmp_path, "math.jsonl")
    html = tmp_path / "diff.html"
    assert main(["diff", "shipped:default", str(pack), str(rows), "--format", "json", "--bootstrap", "30",
                 "--html", str(html)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["old"]["spec"] == "shipped:default" and doc["new"]["name"] == "no-think"
    assert doc["causes"][0]["cause"] == THINK
    page = html.read_text(encoding="utf-8")
    assert '<section id="diff">' in page and THINK.removeprefix("math: ") in page
    assert "<think>" not in page and "&lt;think&gt;" in page  # outputs are escaped
    assert main(["diff", "shipped:default", str(pack), str(rows), "--bootstrap", "30"]) == 0
    text = capsys.readouterr().out
    assert "causes of the flipped verdicts" in text and THINK in text
    assert "overall" in text and "new − old" in text


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_two_versions_of_a_pack_from_git(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    (repo / "packs").mkdir(parents=True)
    env = ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _write(repo / "packs" / "chains.yaml", "task_types:\n  math:\n" + NO_THINK.split("  math:\n", 1)[1])
    _write(repo / "packs" / "mine.yaml", "name: mine\nextends: shipped:default\ninclude: [chains.yaml]\n")
    subprocess.run(["git", *env, "add", "."], cwd=repo, check=True)
    subprocess.run(["git", *env, "commit", "-qm", "v1"], cwd=repo, check=True)
    # version 2 keeps the reasoning block removal: the diff names it as added
    _write(repo / "packs" / "chains.yaml", "task_types:\n  math:\n"
           + NO_THINK.split("  math:\n", 1)[1].replace("    chain:\n", "    chain:\n      - remove_think_blocks\n"))
    subprocess.run(["git", *env, "commit", "-qam", "v2"], cwd=repo, check=True)
    rows = _sample_rows(tmp_path, "math.jsonl")
    monkeypatch.chdir(repo)
    assert main(["diff", "HEAD~1:packs/mine.yaml", "HEAD:packs/mine.yaml", str(rows), "--format", "json",
                 "--bootstrap", "20"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [d["label"] for d in doc["differences"]] == [THINK.replace("removed", "added")]
    assert doc["causes"][0]["cause"] == THINK.replace("removed", "added") and doc["overall"]["flips"]["wrong→right"]
    # the working tree's file is read as a file; outside the repository and bad revisions are refused
    assert main(["diff", "HEAD~1:packs/mine.yaml", "packs/mine.yaml", str(rows), "--bootstrap", "20"]) == 0
    capsys.readouterr()
    assert main(["diff", "HEAD:../outside.yaml", "shipped:default", str(rows)]) == 2
    assert "outside the git repository" in capsys.readouterr().err
    assert main(["diff", "--", "--upload-pack=x:packs/mine.yaml", "shipped:default", str(rows)]) == 2
    assert main(["diff", "nosuchrev:packs/mine.yaml", "shipped:default", str(rows)]) == 2


def test_the_diff_is_a_section_of_the_html_report(tmp_path: Path) -> None:
    from scoring._items import item_of
    from scoring._scorefile import score_file
    from scoring.html_report import ReportRun, render_html
    from scoring.metrics import MathVerifier
    from scoring.report import build_report

    old, new = load_pack(), load_pack(_write(tmp_path / "no-think.yaml", NO_THINK))
    path = _sample_rows(tmp_path, "math.jsonl")
    doc = diff_packs(old, new, read_jsonl(path), n_resamples=20)
    with MathVerifier() as verifier:
        outs, scored = score_file(new, path, verifier=verifier)
    report = build_report([item_of(s) for s in scored], new, n_resamples=20)
    html = render_html(new, [ReportRun("new", str(path), outs, scored, report)], diff=doc)
    assert '<a href="#diff">Pack diff</a>' in html and '<section id="diff">' in html
    assert THINK in html.split('<section id="diff">', 1)[1]


def test_diff_intervals_resample_clusters(tmp_path: Path) -> None:
    old, new = load_pack(), load_pack(_write(tmp_path / "no-think.yaml", NO_THINK))
    rows = []
    for p in range(6):  # six passages of five questions; the odd passages have reasoning blocks that flip
        for q in range(5):
            output = f"<think>The answer is {q}.</think>\nSo it is {q + 10}." if p % 2 else f"#### {q + 10}"
            rows.append({"id": f"{p}-{q}", "task": "gsm8k", "output": output, "target": str(q + 10),
                         "cluster": f"passage-{p}"})
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    clustered = diff_packs(old, new, read_jsonl(path), n_resamples=2000, seed=3)["overall"]["difference"]
    for r in rows:
        del r["cluster"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    plain = diff_packs(old, new, read_jsonl(path), n_resamples=2000, seed=3)["overall"]["difference"]
    assert clustered["diff"] == plain["diff"] == pytest.approx(-0.5)
    assert clustered["high"] - clustered["low"] > 1.5 * (plain["high"] - plain["low"])
