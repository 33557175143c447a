"""Rule and pack authors: ``normalize rules``, ``extends: shipped:default``, ``extract_regex``,
rule modules only with ``--allow-module``."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from normalize import PackError, load_pack
from normalize.core.registry import REGISTRY, STAGES
from scoring.cli import main

EXTENDING = """\
name: my-pack
extends: shipped:default
tasks:
  fact_check: extractive_qa          # a new task
  gsm8k: math                        # an existing one, unchanged
task_types:
  extractive_qa:                     # replaces the shipped chain of this task type
    chain:
      - remove_think_blocks
      - rule: extract_regex
        params: {pattern: 'VERDICT:\\s*(\\w+)', flags: [IGNORECASE]}
      - rule: normalize_whitespace
        params: {newlines: collapse}
    parser: text
scoring:
  extractive_qa: {metric: exact}
"""


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- normalize rules


def test_rules_lists_every_rule_and_parser_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["rules", "--format", "json"], capsys)
    assert code == 0
    entries = json.loads(out)
    assert {e["name"] for e in entries if e["kind"] == "rule"} == set(REGISTRY.rules)
    assert {e["name"] for e in entries if e["kind"] == "parser"} == set(REGISTRY.parsers)
    for e in entries:
        assert e["doc"] and e["version"] >= 1 and e["scope"]
        assert e["stage"] in (*STAGES, "parse")
    marker = next(e for e in entries if e["name"] == "extract_answer_marker")
    assert marker["stage"] == "extract" and marker["scope"] == ["multiple_choice", "math", "extractive_qa"]
    conflict = next(p for p in marker["params"] if p["name"] == "conflict")
    assert conflict == {"name": "conflict", "type": "'last' | 'keep' | 'contradictory'", "required": False,
                        "default": "last"}
    regex_rule = next(e for e in entries if e["name"] == "extract_regex")
    assert next(p for p in regex_rule["params"] if p["name"] == "pattern")["required"] is True
    think = next(e for e in entries if e["name"] == "remove_think_blocks")
    assert think["params"] == []  # a rule without parameters declares no model


def test_rules_name_shows_one_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["rules", "canonicalize_numbers"], capsys)
    assert code == 0
    assert out.startswith("rule canonicalize_numbers v1  stage semantic")
    assert "percent: 'keep' | 'fraction' | 'percent' (default \"keep\")" in out and ">>> canonicalize_numbers(" in out
    code, out, _ = _run(["rules", "choice", "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["kind"] == "parser"
    code, _, err = _run(["rules", "canonicalise_numbers"], capsys)
    assert code == 2 and "did you mean 'canonicalize_numbers'" in err


def test_rules_text_lists_stages_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["rules"], capsys)
    assert code == 0
    heads = [line for line in out.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert heads == ["extract:", "structure:", "format:", "semantic:", "parse:"]


def test_stage_is_inferred_from_the_module() -> None:
    for definition in REGISTRY.rules.values():
        module = definition.fn.__module__.rsplit(".", 1)[-1]
        assert module == definition.stage or module.startswith(definition.stage + "_"), module


# --------------------------------------------------------------------------- extends + extract_regex


def test_a_pack_extends_the_shipped_one_and_adds_an_extract_regex_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack_path = tmp_path / "my_pack.yaml"
    pack_path.write_text(EXTENDING, encoding="utf-8")
    pack, shipped = load_pack(pack_path), load_pack()
    assert pack.name == "my-pack" and pack.hash != shipped.hash
    # kept from the shipped pack: every other task type and task, scoring, aliases, check accepts
    assert pack.task_types["math"] == shipped.task_types["math"]
    assert set(shipped.tasks) < set(pack.tasks) and pack.tasks["fact_check"] == "extractive_qa"
    assert pack.scoring["math"] == shipped.scoring["math"] and pack.scoring["extractive_qa"] == {"metric": "exact"}
    assert pack.aliases == shipped.aliases and pack.check_config == shipped.check_config
    assert pack.run("The answer is A or B", "mmlu", options=4).status == "contradictory"
    # end to end through the command line: run, then score
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(json.dumps(r) for r in [
        {"id": 1, "task": "fact_check", "output": "<think>verdict: no?</think>Checked.\nVerdict: Supported", "target": "Supported"},
        {"id": 2, "task": "fact_check", "output": "I cannot tell.", "target": "Refuted"},
        {"id": 3, "task": "gsm8k", "output": "#### 1,000", "target": "1000"},
    ]) + "\n", encoding="utf-8")
    out_path = tmp_path / "out.jsonl"
    code, _, _ = _run(["run", "--pack", str(pack_path), str(rows), "-o", str(out_path)], capsys)
    assert code == 0
    out = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    assert [r["answer"] for r in out] == ["Supported", "I cannot tell.", "1000"]
    assert [s["rule"] for s in out[0]["trace"]] == ["remove_think_blocks", "extract_regex"]
    assert out[0]["rules_hash"] == pack.hash
    code, report, _ = _run(["score", "--pack", str(pack_path), str(rows), "--format", "json"], capsys)
    assert code == 0
    overall = json.loads(report)["groups"][-1]
    assert overall["name"] == "overall" and overall["n"] == 3 and overall["parsed"] == 3
    assert overall["a_strict"]["value"] == pytest.approx(2 / 3)


def test_an_extract_regex_pattern_is_checked_when_the_pack_loads(tmp_path: Path) -> None:
    bad = EXTENDING.replace("'VERDICT:\\s*(\\w+)'", "'VERDICT:(\\w+'")
    (tmp_path / "p.yaml").write_text(bad, encoding="utf-8")
    with pytest.raises(PackError, match=r"p.yaml:\d+:\d+: .*invalid regular expression"):
        load_pack(tmp_path / "p.yaml")
    no_group = EXTENDING.replace("flags: [IGNORECASE]", "group: 2")
    (tmp_path / "p.yaml").write_text(no_group, encoding="utf-8")
    with pytest.raises(PackError, match="group 2 is not in pattern"):
        load_pack(tmp_path / "p.yaml")


def test_extract_regex_runs_under_the_pack_timeout(tmp_path: Path) -> None:
    slow = EXTENDING.replace("'VERDICT:\\s*(\\w+)'", "'(a|aa)+$'").replace("name: my-pack", "name: slow\nsettings: {regex_timeout: 0.05}")
    (tmp_path / "p.yaml").write_text(slow, encoding="utf-8")
    result = load_pack(tmp_path / "p.yaml").run("a" * 40 + "!", "fact_check")
    assert result.status == "error" and "extract_regex" in (result.reason or "")


def test_extends_errors_name_the_file(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("name: p\nextends: shipped:nope\n", encoding="utf-8")
    with pytest.raises(PackError, match=r"p.yaml:2:\d+: extended pack 'shipped:nope' not found"):
        load_pack(tmp_path / "p.yaml")
    (tmp_path / "a.yaml").write_text("extends: b.yaml\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\n", encoding="utf-8")
    with pytest.raises(PackError, match="extends cycle"):
        load_pack(tmp_path / "a.yaml")


# --------------------------------------------------------------------------- rule modules

MODULE = '''
from normalize import rule


@rule("t_shout", stage="format", version=1, scope=("extractive_qa",))
def t_shout(text, params, *, timeout=0.5):
    """Upper-case the text.

    >>> t_shout("a", None)
    'A'
    """
    return text.upper()
'''


def test_a_pack_loads_rules_from_a_module_only_when_the_user_allows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "t_user_rules.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "t_user_rules", raising=False)
    monkeypatch.setattr(REGISTRY, "rules", dict(REGISTRY.rules))  # the module's rule leaves with the test
    pack_path = tmp_path / "p.yaml"
    pack_path.write_text(textwrap.dedent("""\
        extends: shipped:default
        modules: [t_user_rules]
        task_types:
          extractive_qa:
            chain: [t_shout]
            parser: text
        """), encoding="utf-8")
    with pytest.raises(PackError, match=r"p.yaml:2:\d+: .*--allow-module t_user_rules"):
        load_pack(pack_path)
    assert "t_user_rules" not in sys.modules  # the YAML alone imported nothing
    code, _, err = _run(["explain", "--pack", str(pack_path), "--task", "squad", "paris"], capsys)
    assert code == 2 and "--allow-module t_user_rules" in err
    code, out, _ = _run(["explain", "--pack", str(pack_path), "--allow-module", "t_user_rules",
                         "--task", "squad", "--format", "json", "paris"], capsys)
    assert code == 0 and json.loads(out)["answer"] == "PARIS"
    assert load_pack(pack_path, allow_modules=["t_user_rules"]).resolved()["modules"] == ["t_user_rules"]
    code, out, _ = _run(["rules", "--allow-module", "t_user_rules", "t_shout"], capsys)
    assert code == 0 and "stage format" in out


# --------------------------------------------------------------------------- a task type without metrics


def _without_metrics(monkeypatch: pytest.MonkeyPatch, task_type: str) -> None:
    """The metric registry as if no module registered a metric for ``task_type``."""
    from scoring.metrics._registry import METRIC_REGISTRY

    kept = {key: d for key, d in METRIC_REGISTRY.metrics.items() if key[0] != task_type}
    monkeypatch.setattr(METRIC_REGISTRY, "metrics", kept)


@pytest.mark.parametrize("entry", ["{metric: ndcg}", "{metric: ndcg, k: 10}", "{k: 10}"])
def test_a_task_type_without_metrics_is_a_configuration_error_with_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    """Issue 24: the loader raised IndexError (an internal error, exit 3) even when the YAML
    named the metric."""
    _without_metrics(monkeypatch, "ranking")
    pack = tmp_path / "p.yaml"
    pack.write_text(f"name: p\nscoring:\n  ranking: {entry}\n", encoding="utf-8")
    with pytest.raises(PackError, match="no metric is registered for task type ranking") as caught:
        load_pack(pack)
    assert (caught.value.file, caught.value.line) == (str(pack), 3)
    assert main(["hash", "--pack", str(pack)]) == 2


def test_a_new_task_type_with_no_metric_is_a_configuration_error(tmp_path: Path) -> None:
    """A task type the library knows but no metric module serves (a new family, declared here)."""
    from normalize.core.tasktypes import FAMILIES, declare_family

    declare_family("translation", "a sentence in another language")
    try:
        _load_translation_pack(tmp_path)
    finally:
        FAMILIES.remove("translation")


def _load_translation_pack(tmp_path: Path) -> None:
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "name: p\n"
        "tasks: {wmt: translation}\n"
        "task_types:\n"
        "  translation:\n"
        "    chain: [normalize_whitespace]\n"
        "    parser: text\n"
        "scoring:\n"
        "  wmt:\n"
        "    metric: exact\n",
        encoding="utf-8",
    )
    with pytest.raises(PackError, match="no metric is registered for task type translation, so 'exact'") as caught:
        load_pack(pack)
    assert (caught.value.file, caught.value.line) == (str(pack), 9)
