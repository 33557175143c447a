"""Pack YAML is data only, YAML 1.2 scalars, duplicate keys fail, errors carry file:line:col."""

from __future__ import annotations

from pathlib import Path

import pytest

from normalize import load_pack
from normalize.core._yaml import load_yaml
from normalize.errors import PackError


def test_yaml_11_surprises_do_not_happen() -> None:
    doc = load_yaml("a: yes\nb: no\nc: on\nd: off\ne: 1e3\nf: true\ng: ~\nh: '1e3'\ni: 0o17\nj: 1_000\n", "x.yaml")
    assert doc.value == {
        "a": "yes", "b": "no", "c": "on", "d": "off", "e": 1000.0, "f": True, "g": None,
        "h": "1e3", "i": 15, "j": "1_000",
    }


def test_alias_table_keeps_yes_and_no() -> None:
    doc = load_yaml("aliases:\n  answers:\n    - [yes, Y, true answer]\n    - [no, N]\n", "a.yaml")
    assert doc.value["aliases"]["answers"] == [["yes", "Y", "true answer"], ["no", "N"]]


def test_duplicate_keys_are_errors_with_location() -> None:
    with pytest.raises(PackError) as info:
        load_yaml("tasks:\n  gsm8k: math\n  gsm8k: code\n", "p.yaml")
    err = info.value
    assert (err.file, err.line, err.column) == ("p.yaml", 3, 3)
    assert "duplicate key 'gsm8k'" in str(err) and "line 2" in str(err)


@pytest.mark.parametrize(
    "text",
    ["a: !!python/object/apply:os.system ['echo hi']\n", "a: !custom 3\n", "a: !!binary aGk=\n"],
)
def test_tags_are_refused(text: str) -> None:
    with pytest.raises(PackError, match="not allowed"):
        load_yaml(text, "t.yaml")


def test_syntax_error_has_location() -> None:
    with pytest.raises(PackError) as info:
        load_yaml("a: [1, 2\nb: 3\n", "s.yaml")
    assert info.value.line is not None and "s.yaml:" in str(info.value)


def test_merge_keys_are_refused() -> None:
    with pytest.raises(PackError, match="merge keys"):
        load_yaml("base: &b {x: 1}\nother:\n  <<: *b\n", "m.yaml")


def _write(tmp_path: Path, text: str, name: str = "pack.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_unknown_rule_suggests_the_close_name(tmp_path: Path) -> None:
    path = _write(tmp_path, "name: t\ntask_types:\n  math:\n    chain:\n      - unify_qoutes\n    parser: text\n")
    with pytest.raises(PackError) as info:
        load_pack(path)
    err = info.value
    assert err.file == str(path) and (err.line, err.column) == (5, 9)
    assert "unknown rule 'unify_qoutes'; did you mean 'unify_quotes'?" in str(err)


def test_parameter_type_error_names_the_node(tmp_path: Path) -> None:
    path = _write(tmp_path, "task_types:\n  math:\n    chain: [unify_quotes]\n    parser: text\nsettings:\n  regex_timeout: fast\n")
    with pytest.raises(PackError) as info:
        load_pack(path)
    assert info.value.line == 6 and "regex_timeout" in str(info.value) and "'fast'" in str(info.value)


def test_unknown_key_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "task_types:\n  math:\n    chain: [unify_quotes]\n    parser: text\n    parsr: x\n")
    with pytest.raises(PackError) as info:
        load_pack(path)
    assert info.value.line == 5 and "parsr" in str(info.value)


def test_unknown_parser_and_task_type(tmp_path: Path) -> None:
    path = _write(tmp_path, "task_types:\n  math:\n    chain: [unify_quotes]\n    parser: txet\n")
    with pytest.raises(PackError, match="unknown parser 'txet'; did you mean 'text'"):
        load_pack(path)
    path = _write(tmp_path, "task_types:\n  maths:\n    chain: [unify_quotes]\n    parser: text\n")
    with pytest.raises(PackError, match="unknown task type 'maths'"):
        load_pack(path)
    path = _write(tmp_path, "tasks: {gsm8k: mth}\ntask_types:\n  math:\n    chain: [unify_quotes]\n    parser: text\n")
    with pytest.raises(PackError, match=r"did you mean 'math'"):
        load_pack(path)


def test_pinned_version_mismatch(tmp_path: Path) -> None:
    path = _write(tmp_path, "task_types:\n  math:\n    chain:\n      - {rule: unify_quotes, version: 9}\n    parser: text\n")
    with pytest.raises(PackError, match="pinned to version 9"):
        load_pack(path)


def test_includes_merge_and_conflicts_name_both_files(tmp_path: Path) -> None:
    _write(tmp_path, "aliases:\n  t: [[a, b]]\n", "extra.yaml")
    root = _write(tmp_path, "include: [extra.yaml]\ntask_types:\n  math:\n    chain: [unify_quotes]\n    parser: text\n")
    assert load_pack(root).aliases == {"t": (("a", "b"),)}
    _write(tmp_path, "aliases:\n  t: [[c, d]]\n", "again.yaml")
    root = _write(tmp_path, "include: [extra.yaml, again.yaml]\ntask_types:\n  math:\n    chain: [unify_quotes]\n    parser: text\n")
    with pytest.raises(PackError) as info:
        load_pack(root)
    assert "again.yaml" in str(info.value) and "extra.yaml" in str(info.value)


def test_missing_include_and_cycle(tmp_path: Path) -> None:
    root = _write(tmp_path, "include: [nope.yaml]\n")
    with pytest.raises(PackError, match=r"'nope\.yaml' not found"):
        load_pack(root)
    _write(tmp_path, "include: [pack.yaml]\n", "b.yaml")
    root = _write(tmp_path, "include: [b.yaml]\n")
    with pytest.raises(PackError, match="cycle"):
        load_pack(root)


def test_cli_exit_code_2_on_pack_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from scoring.cli import main

    path = _write(tmp_path, "task_types:\n  math:\n    chain: [strip_qoutes]\n    parser: text\n")
    assert main(["hash", "--pack", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3:13" in err and "unknown rule 'strip_qoutes'" in err


def test_a_user_pack_can_include_the_shipped_overlays(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "include: [shipped:languages/en.yaml, shipped:aliases.yaml]\n"
        "task_types:\n  multiple_choice:\n    chain:\n"
        "      - rule: extract_answer_marker\n        params: {languages: [en], include_marker: true}\n"
        "    parser: choice\n",
    )
    pack = load_pack(path)
    assert pack.run("Reasoning... The answer is (C).", "multiple_choice", options=4).answer == "C"
    assert ("北京", "北京市") in pack.alias_groups()
