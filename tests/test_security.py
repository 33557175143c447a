"""Security: data never causes network or file access; a pack reads only its own files.

Each test is an attack that worked before: a row's JSON Schema with a ``$ref`` to a URL (a
GET was sent) or to a ``file://`` path (the file was read), a pack schema ``$ref`` to a file
outside the pack.  Network access is observed with a real HTTP server on 127.0.0.1 that counts
requests; file access with an audit hook that records every ``open`` of the bait file.
"""

from __future__ import annotations

import http.server
import json
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from normalize import status
from normalize.core.pack import load_pack
from normalize.errors import PackError
from scoring.cli import main

# --------------------------------------------------------------------------- observers


class _CountingHandler(http.server.BaseHTTPRequestHandler):
    requests: list[str]

    def do_GET(self) -> None:  # a schema that would change the verdict if it were used
        self.requests.append(self.path)
        body = b'{"type": "object", "properties": {"age": {"type": "string"}}}'
        self.send_response(200)
        self.send_header("Content-Type", "application/schema+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server: its base URL and the list of paths it was asked for."""
    seen: list[str] = []
    handler = type("Handler", (_CountingHandler,), {"requests": seen})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


_OPENED: list[str] = []
_WATCHED: set[str] = set()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and args and isinstance(args[0], (str, Path)) and str(args[0]) in _WATCHED:
        _OPENED.append(str(args[0]))


sys.addaudithook(_audit)  # (an audit hook cannot be removed: it only records the watched files)


@pytest.fixture
def bait(tmp_path: Path) -> Iterator[Path]:
    """A schema file outside everything; every ``open`` of it is recorded in ``_OPENED``."""
    path = tmp_path / "elsewhere" / "bait.json"
    path.parent.mkdir()
    path.write_text('{"type": "object", "properties": {"age": {"type": "string"}}}', encoding="utf-8")
    _WATCHED.add(str(path))
    _OPENED.clear()
    try:
        yield path
    finally:
        _WATCHED.discard(str(path))


# --------------------------------------------------------------------------- row schemas


def _ref_schemas(url: str) -> list[dict[str, Any]]:
    """Every place a reference can hide in a row's schema."""
    return [
        {"$ref": url},
        {"type": "object", "properties": {"age": {"$ref": url}}},
        {"$defs": {"a": {"$ref": url + "#/properties/age"}}, "properties": {"age": {"$ref": "#/$defs/a"}}},
        {"allOf": [{"$ref": url}]},
        {"anyOf": [{"type": "object"}, {"$ref": url}]},
        {"$dynamicRef": url},
        {"$id": url.rsplit("/", 1)[0] + "/base/", "properties": {"age": {"$ref": "age.json"}}},
        {"$schema": url, "type": "object"},
    ]


def test_a_row_schema_never_fetches_a_url(server: tuple[str, list[str]]) -> None:
    base, requests = server
    pack = load_pack()
    for schema in _ref_schemas(f"{base}/schema.json"):
        result = pack.run('{"age": "87"}', "structured_json", schema=schema)
        if "$schema" in schema:  # a dialect URI is not a reference: ignored, never fetched
            assert result.status == status.OK
            continue
        assert result.status == status.INVALID, schema
        assert result.answer is None
        assert "outside the schema" in (result.reason or "") and "no network or file access" in (result.reason or "")
    assert requests == []


def test_normalize_run_with_a_url_in_a_row_schema_sends_nothing(
    server: tuple[str, list[str]], tmp_path: Path
) -> None:
    base, requests = server
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    rows = [{"id": i, "task": "structured_json", "output": '{"age": "87"}', "schema": s}
            for i, s in enumerate(_ref_schemas(f"{base}/s.json"))]
    rows.append({"id": "plain", "task": "structured_json", "output": '{"age": "87"}',
                 "schema": {"properties": {"age": {"type": "integer"}}}})
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["run", str(src), "-o", str(out)]) == 0
    got = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in got] == [r["id"] for r in rows]
    assert [r["status"] for r in got[:-1]] == [
        "ok" if "$schema" in r["schema"] else "invalid" for r in rows[:-1]
    ]
    assert got[-1]["status"] == "ok" and got[-1]["answer"] == {"age": 87}
    assert requests == []


def test_a_file_ref_in_a_row_schema_is_never_read(bait: Path) -> None:
    pack = load_pack()
    for ref in (bait.as_uri(), str(bait), bait.name, f"{bait.as_uri()}#/properties/age"):
        for schema in ({"$ref": ref}, {"properties": {"age": {"$ref": ref}}}):
            result = pack.run('{"age": 87}', "structured_json", schema=schema)
            assert result.status == status.INVALID, (ref, result)
            assert "outside the schema" in (result.reason or "")
    assert _OPENED == []


def test_references_inside_the_schema_still_work() -> None:
    schema = {
        "$defs": {"age": {"type": "integer"}, "named": {"$anchor": "n", "type": "string", "default": "x"}},
        "properties": {
            "age": {"$ref": "#/$defs/age"},
            "name": {"$ref": "#n"},
            "meta": {"$ref": "https://json-schema.org/draft/2020-12/schema"},  # bundled, not fetched
        },
    }
    result = load_pack().run('{"age": "87"}', "structured_json", schema=schema)
    assert (result.status, result.answer) == (status.OK, {"age": 87, "name": "x"})
    missing = load_pack().run("{}", "structured_json", schema={"$ref": "#/$defs/nope"})
    assert missing.status == status.INVALID and "does not resolve inside the schema" in (missing.reason or "")


def test_every_validator_goes_through_the_local_registry() -> None:
    """No jsonschema validator is built anywhere but in normalize.limits._jsonschema (which passes
    the registry that refuses retrieval)."""
    root = Path(__file__).resolve().parent.parent
    construct = re.compile(r"Draft\d+Validator\b|validator_for\b|RefResolver\b|\.check_schema\(|"
                           r"jsonschema\.validate\b|^\s*(from|import) (jsonschema|referencing)(?!\.exceptions)")
    offenders = []
    for path in [*(root / "normalize").rglob("*.py"), *(root / "scoring").rglob("*.py")]:
        if path.name == "_jsonschema.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if construct.search(line) and not line.lstrip().startswith(("#", ">>>")):
                offenders.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert offenders == []


# --------------------------------------------------------------------------- pack schemas


def _schema_pack(folder: Path, ref: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    pack = folder / "pack.yaml"
    pack.write_text(
        "extends: shipped:default\n"
        "name: refs\n"
        "schemas:\n"
        "  person:\n"
        "    type: object\n"
        "    properties:\n"
        "      age:\n"
        f"        $ref: {json.dumps(ref)}\n"
        "task_types:\n"
        "  structured_json:\n"
        "    chain: [parse_json, {rule: align_json_schema, params: {schema: person}}]\n"
        "    parser: json\n",
        encoding="utf-8",
    )
    return pack


def test_a_pack_schema_ref_to_a_url_is_a_load_error(server: tuple[str, list[str]], tmp_path: Path) -> None:
    base, requests = server
    pack = _schema_pack(tmp_path / "p", f"{base}/age.json")
    with pytest.raises(PackError, match="points outside the pack") as caught:
        load_pack(pack)
    assert (caught.value.file, caught.value.line) == (str(pack), 8)
    assert requests == []


def test_a_pack_schema_ref_outside_the_pack_folder_is_not_read(bait: Path, tmp_path: Path) -> None:
    folder = tmp_path / "p"
    (folder / "defs").mkdir(parents=True)
    (folder / "defs" / "link.json").symlink_to(bait)
    for ref in (bait.as_uri(), "../elsewhere/bait.json", str(bait), "defs/link.json"):
        pack = _schema_pack(folder, ref)
        with pytest.raises(PackError, match="outside the pack") as caught:
            load_pack(pack)
        assert (caught.value.file, caught.value.line) == (str(pack), 8), ref
    assert _OPENED == []


def test_a_pack_schema_ref_to_a_file_of_the_pack_is_bundled_and_hashed(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    (folder / "defs").mkdir(parents=True)
    (folder / "defs" / "age.json").write_text('{"$ref": "int.json"}', encoding="utf-8")
    (folder / "defs" / "int.json").write_text('{"type": "integer"}', encoding="utf-8")
    pack_file = _schema_pack(folder, "defs/age.json")
    first = load_pack(pack_file)
    assert first.run('{"age": "87"}', "structured_json").answer == {"age": 87}
    (folder / "defs" / "int.json").write_text('{"type": "string"}', encoding="utf-8")
    second = load_pack(pack_file)
    assert second.run('{"age": "87"}', "structured_json").answer == {"age": "87"}
    assert first.hash != second.hash  # the file's content decides results, so the hash covers it
    assert second.schemas["person"]["$defs"]["defs/int.json"]["type"] == "string"


# --------------------------------------------------------------------------- include / extends


_ALIASES = "aliases:\n  evil:\n    - ['yes', 'no']\n"


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """``elsewhere/x.yaml`` (an alias table) and ``elsewhere/base.yaml`` (a pack), outside the
    pack folder ``packs/p``; every ``open`` of them is recorded in ``_OPENED``."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "x.yaml").write_text(_ALIASES, encoding="utf-8")
    (folder / "base.yaml").write_text("name: base\nextends: shipped:default\n" + _ALIASES, encoding="utf-8")
    (tmp_path / "packs" / "p").mkdir(parents=True)
    watched = {str(folder / "x.yaml"), str(folder / "base.yaml")}
    _WATCHED.update(watched)
    _OPENED.clear()
    try:
        yield folder
    finally:
        _WATCHED.difference_update(watched)


def _pack_in(folder: Path, body: str) -> Path:
    path = folder / "pack.yaml"
    path.write_text("name: p\n" + body, encoding="utf-8")
    return path


def test_an_include_outside_the_pack_folder_is_refused_until_allowed(outside: Path) -> None:
    pack = _pack_in(outside.parent / "packs" / "p", "extends: shipped:default\ninclude: [../../elsewhere/x.yaml]\n")
    with pytest.raises(PackError, match="outside the pack's folder") as caught:
        load_pack(pack)
    err = caught.value
    assert (err.file, err.line) == (str(pack), 3)
    assert "../../elsewhere/x.yaml" in err.message and f"--allow-include {outside}" in err.message
    assert "allow_includes=" in err.message
    assert _OPENED == []  # refused before it is read
    allowed = load_pack(pack, allow_includes=[outside])
    assert allowed.aliases["evil"] == (("yes", "no"),)


def test_extends_outside_the_pack_folder_is_refused_until_allowed(outside: Path) -> None:
    pack = _pack_in(outside.parent / "packs" / "p", "extends: ../../elsewhere/base.yaml\n")
    with pytest.raises(PackError, match=re.escape("extended pack '../../elsewhere/base.yaml' is outside")) as caught:
        load_pack(pack)
    assert (caught.value.file, caught.value.line) == (str(pack), 2)
    assert _OPENED == []
    assert "evil" in load_pack(pack, allow_includes=[str(outside)]).aliases


def test_symbolic_links_out_of_the_pack_folder_are_outside(outside: Path) -> None:
    folder = outside.parent / "packs" / "p"
    (folder / "linked.yaml").symlink_to(outside / "x.yaml")
    (folder / "linked_dir").symlink_to(outside, target_is_directory=True)
    for include in ("linked.yaml", "linked_dir/x.yaml", str(outside / "x.yaml")):
        pack = _pack_in(folder, f"extends: shipped:default\ninclude: [{include!r}]\n")
        with pytest.raises(PackError, match="outside the pack's folder"):
            load_pack(pack)
    pack = _pack_in(folder, "extends: linked_dir/base.yaml\n")
    with pytest.raises(PackError, match="outside the pack's folder"):
        load_pack(pack)
    assert _OPENED == []


def test_shipped_prefix_cannot_climb_out_of_the_shipped_folder(outside: Path) -> None:
    folder = outside.parent / "packs" / "p"
    shipped = Path(load_pack().sources[0]).resolve().parent
    climb = "../" * len(shipped.parts) + str(outside / "x.yaml").lstrip("/")
    for body in (f"extends: shipped:default\ninclude: ['shipped:{climb}']\n", f"extends: 'shipped:{climb}'\n"):
        with pytest.raises(PackError, match="outside the pack's folder"):
            load_pack(_pack_in(folder, body))
    assert _OPENED == []


def test_includes_inside_the_pack_folder_and_the_shipped_packs_still_load(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.yaml").write_text("include: [../b.yaml]\n" + _ALIASES, encoding="utf-8")
    (tmp_path / "b.yaml").write_text("aliases:\n  ok:\n    - [x, y]\n", encoding="utf-8")
    pack = _pack_in(tmp_path, "extends: shipped:default\ninclude: [sub/a.yaml, 'shipped:aliases.yaml']\n")
    loaded = load_pack(pack)
    assert {"evil", "ok"} <= set(loaded.aliases)


def test_every_command_that_takes_a_pack_takes_allow_include(
    outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    from scoring.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    with_pack = {name: p for name, p in sub.choices.items() if "--pack" in p._option_string_actions}
    assert {"run", "explain", "hash", "check", "score"} <= set(with_pack)
    assert [name for name, p in with_pack.items() if "--allow-include" not in p._option_string_actions] == []
    pack = _pack_in(outside.parent / "packs" / "p", "extends: shipped:default\ninclude: [../../elsewhere/x.yaml]\n")
    assert main(["hash", "--pack", str(pack)]) == 2
    err = capsys.readouterr().err
    assert f"{pack}:3" in err and "--allow-include" in err and "Traceback" not in err
    assert main(["hash", "--pack", str(pack), "--allow-include", str(outside)]) == 0
