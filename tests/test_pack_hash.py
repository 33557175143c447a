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
from normalize.registry import REGISTRY

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

    from normalize.pack import canonical_json

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
