"""Task types as declared data (issue 25, point 1): the built-in task types are declared once
(:mod:`normalize.core.tasktypes`), each a family; a pack declares its own task type on a family
and it runs through ``run``, ``score``, ``explain`` and ``check``; rule scopes, metrics and target
readers are looked up by family."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import scoring.metrics  # registers the metrics and the scoring: section check
from normalize import PackError, load_pack
from normalize.check.reverse import in_scope
from normalize.core.registry import REGISTRY, TASK_TYPES
from normalize.core.tasktypes import FAMILIES, builtin_names, count, declare_family
from scoring.cli import main
from scoring.metrics import METRIC_REGISTRY, SCORED, ScoringConfig, read_targets, score_detail
from scoring.metrics._registry import MetricContext, Score, metric, targets

YES_NO = """\
name: boolq-pack
extends: shipped:default
task_types:
  yes_no:
    family: extractive_qa
    chain: [remove_think_blocks, extract_answer_marker, normalize_whitespace]
    parser: text
tasks: {boolq: yes_no}
scoring: {yes_no: {metric: exact}}
"""

ACCEPT = """\
check:
  reverse:
    accept:
      - {rule: parse_json, task_type: yes_no, reason: "structure rule: rejects any output that is not JSON, by design"}
"""


def _write_yes_no(tmp_path: Path, extra: str = "") -> Path:
    pack = tmp_path / "pack.yaml"
    pack.write_text(YES_NO + extra, encoding="utf-8")
    return pack


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# --------------------------------------------------------------------------- the declaration


def test_the_shipped_pack_chains_exactly_the_declared_task_types() -> None:
    pack = load_pack()
    assert tuple(pack.task_types) == builtin_names() == FAMILIES.names()[: count()]
    assert count() == len(pack.task_types)
    assert all(t.family == name for name, t in pack.task_types.items())
    # a built-in type is its own family: nothing about families enters the hashed form
    assert all("family" not in entry for entry in pack.resolved()["task_types"].values())
    assert set(TASK_TYPES) == set(builtin_names())


def test_a_rule_scoped_to_every_family_covers_one_declared_later() -> None:
    scope = REGISTRY.rule("remove_think_blocks").scope
    assert "translation" not in scope
    declare_family("translation", "a sentence in another language")
    try:
        assert "translation" in scope and "translation" in TASK_TYPES
        assert "translation" not in REGISTRY.rule("extract_boxed").scope
    finally:
        FAMILIES.remove("translation")
    assert "translation" not in FAMILIES


def test_a_family_is_declared_once() -> None:
    from normalize.errors import RegistrationError

    with pytest.raises(RegistrationError, match="declared twice"):
        declare_family("math", "again")
    with pytest.raises(RegistrationError, match="built-in"):
        FAMILIES.remove("math")


# --------------------------------------------------------------------------- a pack's own task type


def test_a_pack_task_type_shares_its_familys_scopes_metrics_and_targets(tmp_path: Path) -> None:
    pack = load_pack(_write_yes_no(tmp_path))
    assert pack.family_of("boolq") == pack.family_of("yes_no") == "extractive_qa"
    assert pack.task_types["yes_no"].family == "extractive_qa"
    assert in_scope(pack, "extract_answer_marker", "yes_no")  # scoped to extractive_qa
    assert not in_scope(pack, "canonicalize_numbers", "yes_no")  # math only
    assert pack.resolved()["task_types"]["yes_no"]["family"] == "extractive_qa"
    config = scoring.metrics.scoring_config(pack, "boolq")
    assert (config.task_type, config.family, config.metric) == ("yes_no", "extractive_qa", "exact")
    # the family's target reader: a list of accepted answers is read as the QA reader reads it
    assert read_targets(config, ["yes", "Yes."], ["true"]) == ["yes", "Yes.", "true"]
    with pytest.raises(ValueError, match="must be a string for yes_no"):
        read_targets(config, "yes", [1])
    scored = score_detail(pack, {"task": "boolq", "answer": "yes", "status": "ok", "target": ["no", "yes"]})
    assert (scored.outcome, scored.correct, scored.metric) == (SCORED, True, "exact")


def test_the_family_is_part_of_the_hash(tmp_path: Path) -> None:
    qa = load_pack(_write_yes_no(tmp_path))
    other = tmp_path / "other"
    other.mkdir()
    (other / "pack.yaml").write_text(YES_NO.replace("family: extractive_qa", "family: open_writing"), encoding="utf-8")
    writing = load_pack(other / "pack.yaml")
    assert qa.task_types["yes_no"].chain == writing.task_types["yes_no"].chain
    assert qa.hash != writing.hash


def test_a_pack_task_type_runs_through_run_score_explain_and_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _write_yes_no(tmp_path)
    rows = tmp_path / "in.jsonl"
    rows.write_text(
        '{"id": 1, "task": "boolq", "output": "<think>no?</think>The answer is: yes", "target": "yes"}\n'
        '{"id": 2, "task": "boolq", "output": "Answer: no", "target": "yes"}\n'
        '{"id": 3, "task": "boolq", "output": "I cannot tell.", "target": "no"}\n',
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    assert main(["run", "--pack", str(pack), str(rows), "-o", str(out), "--no-progress"]) == 0
    written = _rows(out)
    assert [(r["task_type"], r["answer"], r["status"]) for r in written] == [
        ("yes_no", "yes", "ok"), ("yes_no", "no", "ok"), ("yes_no", "I cannot tell.", "ok")]
    capsys.readouterr()

    assert main(["score", "--pack", str(pack), str(out), "--format", "json", "--no-progress"]) == 0
    report = json.loads(capsys.readouterr().out)
    overall = next(g for g in report["groups"] if g["level"] == "overall")
    assert overall["task_types"] == ["yes_no"] and overall["metrics"] == ["exact"]
    assert overall["a_strict"]["value"] == pytest.approx(1 / 3)
    assert "yes_no:[remove_think_blocks.v2,extract_answer_marker.v3,normalize_whitespace.v1]->text.v1" in (
        report["pack"]["signature"])

    assert main(["explain", "--pack", str(pack), "--task", "boolq", "The answer is:  yes"]) == 0
    explained = capsys.readouterr().out
    assert "task: boolq (type yes_no)" in explained and "answer: \"yes\"  status: ok" in explained

    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "yes_no.jsonl").write_text(
        '{"id": "yn-1", "task": "boolq", "output": "<think>hmm</think>The answer is: yes"}\n'
        '{"id": "yn-2", "task": "boolq", "output": "Answer: no"}\n',
        encoding="utf-8",
    )
    # the reverse check runs every other rule of the pack over the new type's samples
    assert main(["check", "--pack", str(pack), "--only", "reverse", "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)
    leaks = {(f["rule"], f["task_type"]) for f in found["findings"]}
    assert ("parse_json", "yes_no") in leaks
    assert all(rule not in ("extract_answer_marker", "remove_think_blocks") for rule, _ in leaks)  # in scope

    reviewed = _write_yes_no(tmp_path, ACCEPT)
    assert main(["check", "--pack", str(reviewed), "--update", "--yes", "--only", "forward,reverse"]) == 0
    recorded = _rows(samples / "yes_no.jsonl")
    assert [r["expected"]["answer"] for r in recorded] == ["yes", "no"]
    capsys.readouterr()
    assert main(["check", "--pack", str(reviewed), "--only", "forward,reverse,version"]) == 0
    assert "OK" in capsys.readouterr().out


# --------------------------------------------------------------------------- errors with file:line


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def test_an_unknown_family_is_a_pack_error_at_its_line(tmp_path: Path) -> None:
    text = YES_NO.replace("family: extractive_qa", "family: extractive")
    pack = tmp_path / "pack.yaml"
    pack.write_text(text, encoding="utf-8")
    with pytest.raises(PackError, match=r"unknown family 'extractive'.*did you mean 'extractive_qa'") as caught:
        load_pack(pack)
    assert (caught.value.file, caught.value.line) == (str(pack), _line_of(text, "family:"))


def test_a_task_type_without_a_family_is_a_pack_error(tmp_path: Path) -> None:
    text = YES_NO.replace("    family: extractive_qa\n", "")
    pack = tmp_path / "pack.yaml"
    pack.write_text(text, encoding="utf-8")
    with pytest.raises(PackError, match=r"unknown task type 'yes_no'.*names the family it shares") as caught:
        load_pack(pack)
    assert (caught.value.file, caught.value.line) == (str(pack), _line_of(text, "yes_no:"))


def test_a_built_in_task_type_keeps_its_family(tmp_path: Path) -> None:
    text = "name: p\ntask_types:\n  code:\n    family: extractive_qa\n    chain: [normalize_whitespace]\n    parser: code\n"
    pack = tmp_path / "pack.yaml"
    pack.write_text(text, encoding="utf-8")
    with pytest.raises(PackError, match="code is a built-in task type, its own family") as caught:
        load_pack(pack)
    assert caught.value.line == 4
    # saying so is allowed, and hashes as if unsaid
    (tmp_path / "same.yaml").write_text(text.replace("extractive_qa", "code"), encoding="utf-8")
    (tmp_path / "unsaid.yaml").write_text(text.replace("    family: extractive_qa\n", ""), encoding="utf-8")
    assert load_pack(tmp_path / "same.yaml").hash == load_pack(tmp_path / "unsaid.yaml").hash


@pytest.fixture
def translation() -> Iterator[str]:
    """A family declared in Python for one test (removed after it, with what it registered)."""
    declare_family("translation", "a sentence in another language")
    try:
        yield "translation"
    finally:
        FAMILIES.remove("translation")
        for key in [k for k in METRIC_REGISTRY.metrics if k[0] == "translation"]:
            del METRIC_REGISTRY.metrics[key]
        for rkey in [k for k in METRIC_REGISTRY.readers if k[0] == "translation"]:
            del METRIC_REGISTRY.readers[rkey]


def test_a_task_type_whose_family_has_no_metric_is_a_pack_error_at_its_line(tmp_path: Path, translation: str) -> None:
    text = (
        "name: p\n"
        "tasks: {wmt: en_de}\n"
        "task_types:\n"
        "  en_de:\n"
        "    family: translation\n"
        "    chain: [normalize_whitespace]\n"
        "    parser: text\n"
    )
    pack = tmp_path / "pack.yaml"
    pack.write_text(text, encoding="utf-8")
    with pytest.raises(PackError, match=r"task type en_de \(family translation\): no metric is registered") as caught:
        load_pack(pack)
    assert (caught.value.file, caught.value.line) == (str(pack), 4)
    assert main(["hash", "--pack", str(pack)]) == 2  # a configuration error, not a crash


def test_a_new_family_in_python_is_scored_by_its_own_metric_and_reader(tmp_path: Path, translation: str) -> None:
    @targets("translation")
    def read_sentences(target: Any, aliases: Any, config: ScoringConfig, options: Any) -> list[Any]:
        return [str(t).casefold() for t in [target, *aliases]]

    @metric("exact", task_types=("translation",), default=True)
    def exact_sentence(answer: Any, golds: Any, config: ScoringConfig, ctx: MetricContext) -> Score:
        hit = str(answer).casefold() in golds
        return Score(hit, float(hit), config.metric, SCORED)

    pack_file = tmp_path / "pack.yaml"
    pack_file.write_text(
        "name: p\ntasks: {wmt: translation}\n"
        "task_types:\n  translation:\n    chain: [normalize_whitespace]\n    parser: text\n",
        encoding="utf-8",
    )
    pack = load_pack(pack_file)
    assert pack.family_of("wmt") == "translation" and "family" not in pack.resolved()["task_types"]["translation"]
    result = pack.run("  Guten   Tag ", "wmt")
    scored = score_detail(pack, {"task": "wmt", "answer": result.answer, "status": result.status,
                                 "target": "guten tag", "aliases": ["Hallo"]})
    assert (scored.correct, scored.metric) == (True, "exact")


def test_the_readme_task_type_example_loads_and_reads_a_verdict(tmp_path: Path) -> None:
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "family: extractive_qa" in b)
    (tmp_path / "boolq.yaml").write_text(block, encoding="utf-8")
    pack = load_pack(tmp_path / "boolq.yaml")
    assert pack.family_of("boolq") == "extractive_qa"
    result = pack.run("<think>maybe</think>Answer: yes", "boolq")
    assert (result.task_type, result.answer, result.status) == ("yes_no", "yes", "ok")
