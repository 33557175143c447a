"""The rule-configuration hash: stable under YAML cosmetics, sensitive to anything that decides output."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from normalize import load_pack
from normalize.core.registry import REGISTRY

BASE = """\
name: t
settings: {regex_timeout: 0.5}
tasks: {quiz: multiple_choice}
task_types:
  multiple_choice:
    chain:
      - unify_quotes
      - rule: strip_trailing_whitespace
        params: {per_line: true}
    parser: text
aliases:
  caps: [[北京, 北京市]]
"""

REORDERED = """\
# the same pack: keys reordered, comments and whitespace added
aliases:
  caps:
    - [北京, 北京市]   # Beijing
task_types:
  multiple_choice:
    parser: text
    chain:
      - unify_quotes
      - params: {per_line: true}
        rule: strip_trailing_whitespace
tasks:
    quiz:    multiple_choice
settings:
  regex_timeout: 0.5
name: t
"""


def _hash(tmp_path: Path, text: str, name: str = "p.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_pack(path).hash


def test_cosmetic_yaml_changes_keep_the_hash(tmp_path: Path) -> None:
    assert _hash(tmp_path, BASE, "a.yaml") == _hash(tmp_path, REORDERED, "b.yaml")


def test_name_and_description_are_not_in_the_hash(tmp_path: Path) -> None:
    other = BASE.replace("name: t", "name: renamed\ndescription: words")
    assert _hash(tmp_path, BASE, "a.yaml") == _hash(tmp_path, other, "b.yaml")


@pytest.mark.parametrize(
    "old,new",
    [
        ("per_line: true", "per_line: false"),  # a parameter
        ("[北京, 北京市]", "[北京, 北京市, 京]"),  # an alias
        ("quiz: multiple_choice", "quiz2: multiple_choice"),  # the task map
        ("regex_timeout: 0.5", "regex_timeout: 0.25"),  # a limit
        ("parser: text", "parser: code"),  # the parser
    ],
)
def test_changes_that_decide_output_change_the_hash(tmp_path: Path, old: str, new: str) -> None:
    assert old in BASE
    assert _hash(tmp_path, BASE, "a.yaml") != _hash(tmp_path, BASE.replace(old, new), "b.yaml")


def test_chain_order_changes_the_hash(tmp_path: Path) -> None:
    swapped = BASE.replace(
        "      - unify_quotes\n      - rule: strip_trailing_whitespace\n        params: {per_line: true}\n",
        "      - rule: strip_trailing_whitespace\n        params: {per_line: true}\n      - unify_quotes\n",
    )
    assert swapped != BASE
    assert _hash(tmp_path, BASE, "a.yaml") != _hash(tmp_path, swapped, "b.yaml")


def test_a_rule_version_bump_changes_the_hash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _hash(tmp_path, BASE)
    bumped = dataclasses.replace(REGISTRY.rules["unify_quotes"], version=REGISTRY.rules["unify_quotes"].version + 1)
    monkeypatch.setitem(REGISTRY.rules, "unify_quotes", bumped)
    assert _hash(tmp_path, BASE) != before


def test_unicode_version_is_hashed(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(BASE, encoding="utf-8")
    pack = load_pack(path)
    import unicodedata

    assert pack.resolved()["unicode"] == unicodedata.unidata_version
    assert f"unicode:{unicodedata.unidata_version}" in pack.signature


def test_signature_is_readable_and_ends_with_the_short_hash(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(BASE, encoding="utf-8")
    pack = load_pack(path)
    assert pack.signature.startswith("harness-normalize:")
    assert "multiple_choice:[unify_quotes.v1,strip_trailing_whitespace.v1]->text.v1" in pack.signature
    assert pack.signature.endswith(f"hash:{pack.short_hash}")
    assert pack.hash.startswith("sha256:") and len(pack.hash) == len("sha256:") + 64


_PROBE = """
import json
from normalize import load_pack
pack = load_pack()
texts = ["The answer is (B).", "答案是：“B”。", "#### 1,000", "```json\\n{\\"b\\": 1, \\"a\\": 2}\\n```", None]
out = {t: [pack.run(x, t, options=4).to_json() for x in texts] for t in sorted(pack.task_types)}
print(json.dumps({"hash": pack.hash, "out": out}, ensure_ascii=False, sort_keys=True))
"""


def test_same_output_and_hash_in_a_fresh_process_with_another_hash_seed() -> None:
    runs = []
    for seed in ("0", "12345", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, check=True)
        runs.append(json.loads(done.stdout))
    assert runs[0] == runs[1] == runs[2]
    assert runs[0]["hash"] == load_pack().hash


# --------------------------------------------------------------------------- pinned hashes
# An accidental change to the shipped packs' output fails here.  The pins live in one data
# file, rules/samples/_recorded.json, which `normalize check --update` rewrites (with the
# golden samples, after review).  When a change is intended: bump the versions of the rules
# whose behaviour changed, run `normalize check --update`, review the diff, and add an
# "Output change:" entry to CHANGELOG.md.

PINS = json.loads((Path(__file__).resolve().parent.parent / "rules" / "samples" / "_recorded.json").read_text("utf-8"))


def test_shipped_pack_content_hash_is_pinned() -> None:
    import hashlib

    from normalize.core.pack import canonical_json

    resolved = load_pack().resolved()
    resolved.pop("unicode")
    assert hashlib.sha256(canonical_json(resolved).encode("utf-8")).hexdigest() == PINS["content_hash"]


def test_shipped_pack_full_hash_is_pinned_for_this_unicode_version() -> None:
    import unicodedata

    pack = load_pack()
    expected = PINS["hashes"].get(unicodedata.unidata_version)
    if expected is None:  # another Python: the hash must still follow from the pinned content
        assert pack.resolved()["unicode"] == unicodedata.unidata_version
        assert pack.hash not in PINS["hashes"].values()
    else:
        assert pack.hash == expected


def test_the_pins_are_the_resolved_pack_they_were_computed_from() -> None:
    resolved = load_pack().resolved()
    resolved.pop("unicode")
    recorded = dict(PINS["resolved"])
    recorded.pop("unicode")
    assert recorded == json.loads(json.dumps(resolved))


def test_golden_rows_do_not_each_store_the_pack_hash() -> None:
    folder = Path(__file__).resolve().parent.parent / "rules" / "samples"
    for path in folder.glob("*.jsonl"):
        for line in path.read_text("utf-8").splitlines():
            assert "rules_hash" not in json.loads(line), path


# --------------------------------------------------------------------------- one hash, one behaviour


def _probe_rows() -> list[dict[str, object]]:
    """Rows of several task types, with targets: what results are compared on."""
    return [
        {"task": "gsm8k", "output": "So the total is 6*7.\n#### 42", "target": 42},
        {"task": "math", "output": "The answer is $\\boxed{\\frac{1}{2}}$", "target": "1/2"},
        {"task": "mmlu", "output": "The answer is (B).", "options": 4, "target": "B"},
        {"task": "squad", "output": "Answer: the Eiffel Tower", "target": "Eiffel Tower"},
        {"task": "structured_json", "output": '{"age": "87"}', "schema": "person", "target": {"age": 87}},
        {"task": "structured_json", "output": '{"age": "87"}', "target": {"age": "87"}},
        {"task": "open_writing", "output": "forty-two", "target": "42"},
    ]


def _results(pack: object) -> list[tuple[object, ...]]:
    """Every row's status, answer and verdict under ``pack`` (what a reader of the output sees)."""
    from normalize.core.pack import Pack
    from normalize.io._io import InputRow
    from normalize.io.rows import normalize_row
    from scoring.metrics import score_detail

    assert isinstance(pack, Pack)
    out = []
    for line, row in enumerate(_probe_rows(), 1):
        normalized = normalize_row(pack, InputRow(line, dict(row)))
        score = score_detail(pack, {**normalized, "target": row["target"]})
        out.append((normalized["status"], json.dumps(normalized["answer"], sort_keys=True),
                    normalized.get("reason"), score.outcome, score.correct, score.metric))
    return out


_SCHEMA_PACK = """\
name: probe
extends: shipped:default
schemas:
  person:
    type: object
    properties: {age: {type: integer}}
"""


def _mutation(name: str, field: object) -> object:
    """A valid value of settings field ``field`` far from its default: its lower bound's end."""
    import annotated_types
    from pydantic.fields import FieldInfo

    assert isinstance(field, FieldInfo)
    low = next((m.gt for m in field.metadata if isinstance(m, annotated_types.Gt)), None)
    low_inclusive = next((m.ge for m in field.metadata if isinstance(m, annotated_types.Ge)), None)
    if field.annotation is int:
        return (low + 1) if low is not None else (low_inclusive if low_inclusive is not None else field.default + 1)
    if field.annotation is float:
        base = low if low is not None else (low_inclusive if low_inclusive is not None else 0.0)
        return base + 1e-6
    if field.annotation is bool:
        return not field.default
    raise AssertionError(f"settings field {name} ({field.annotation}): add how to change it to this test")


@pytest.mark.parametrize("name", sorted(__import__("normalize.core.pack", fromlist=["Settings"]).Settings.model_fields))
def test_every_setting_moves_the_hash(tmp_path: Path, name: str) -> None:
    """Each field of the settings model (read from the model, so a new setting is covered):
    changed, it changes the hash; where it changes the probe results the hash must move too
    (issue 24: ``row_budget: 1e-6`` had the shipped pack's hash with every row ``error``)."""
    from normalize.core.pack import Settings

    value = _mutation(name, Settings.model_fields[name])
    base = _write(tmp_path, "base.yaml", _SCHEMA_PACK)
    mutated = _write(tmp_path, "mutated.yaml", _SCHEMA_PACK + f"settings:\n  {name}: {json.dumps(value)}\n")
    assert getattr(mutated.settings, name) == value
    assert mutated.hash != base.hash, f"settings.{name} is not in the hash"


def _write(tmp_path: Path, file: str, text: str) -> object:
    path = tmp_path / file
    path.write_text(text, encoding="utf-8")
    return load_pack(path)


def test_a_row_budget_that_errors_every_row_has_its_own_hash(tmp_path: Path) -> None:
    shipped = load_pack()
    starved = _write(tmp_path, "starved.yaml", "name: starved\nextends: shipped:default\nsettings:\n  row_budget: 1.0e-6\n")
    assert all(status == "error" for status, *_ in _results(starved)[:4])
    assert starved.hash != shipped.hash


def _pack_mutations() -> dict[str, object]:
    """Each field of :class:`Pack` → a function giving a pack that differs in that field."""
    from normalize.core.pack import Settings

    def task_types(p: object) -> object:  # math read by extractive QA's parser
        types = p.task_types  # type: ignore[attr-defined]
        return {**types, "math": dataclasses.replace(types["math"], parser=types["extractive_qa"].parser)}

    return {
        "name": lambda p: "renamed",
        "settings": lambda p: Settings(row_budget=1e-6),
        "tasks": lambda p: {**p.tasks, "squad": "open_writing"},
        "task_types": task_types,
        "aliases": lambda p: {**p.aliases, "numbers": (("42", "forty-two"),)},
        "schemas": lambda p: {**p.schemas, "person": {"type": "object", "properties": {"age": {"type": "string"}}}},
        "scoring": lambda p: {**p.scoring, "extractive_qa": {"metric": "f1", "f1_threshold": 0.5}},
        "sources": lambda p: ("elsewhere.yaml",),
        "check_config": lambda p: {"reverse": {"accept": []}},
        "resources": lambda p: {},
        "modules": lambda p: ("some_rules_module",),
        # derived from the chains as written (re-resolved for a row's lang; a stale entry is not used)
        "chain_entries": lambda p: {},
        "task_parsers": lambda p: {"squad": p.task_types["math"].parser},
    }


def test_a_pack_field_that_changes_results_changes_the_hash(tmp_path: Path) -> None:
    """Every field of the resolved pack (read from the dataclass, so a new one is covered): a
    change that moves the probe results moves the hash; one that cannot is named here."""
    from normalize.core.pack import Pack

    base = _write(tmp_path, "base.yaml", _SCHEMA_PACK)
    assert isinstance(base, Pack)
    mutations = _pack_mutations()
    fields = {f.name for f in dataclasses.fields(Pack) if f.init}  # not the caches
    assert set(mutations) == fields, f"add a mutation for the new Pack fields {sorted(fields - set(mutations))}"
    before = _results(base)
    moved = set()
    for name, mutate in mutations.items():
        changed = dataclasses.replace(base, **{name: mutate(base)})  # type: ignore[operator]
        assert getattr(changed, name) != getattr(base, name)
        if _results(changed) != before:
            moved.add(name)
            assert changed.hash != base.hash, f"Pack.{name} changes results but not the hash"
    assert moved >= {"settings", "tasks", "task_types", "aliases", "schemas", "scoring"}
    assert fields - moved == {"name", "sources", "check_config", "resources", "modules", "chain_entries"}
