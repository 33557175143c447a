"""The wheel's compiled modules (mypyc, hatch_build.py) give exactly the source's results.

The test builds the wheel as ``pip install .`` does (compiling is required here: a build that
falls back to pure Python fails the test), installs it into a folder of its own, and runs the
installed package in a child process over the golden samples, a generated corpus of every
task type and the adversarial input kinds, each text through every task type; the source in
this process runs the same rows.  Every result (normalized text, answer, status, reason,
trace) must be equal, as must ``normalize rules`` (a compiled function keeps no docstring: the
listing reads it from the source file).
"""

from __future__ import annotations

import ast
import json
import os
import random
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from normalize import load_pack
from normalize.limits._growth import KINDS

ROOT = Path(__file__).resolve().parent.parent
COMPILED = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]["build"]["targets"][
    "wheel"
]["hooks"]["custom"]["compile"]

#: What the child process runs: each row of the corpus file through the installed package.
_CHILD = """
import json, sys
import normalize, importlib
from normalize import load_pack
from normalize.cli._rules import catalogue
modules = json.loads(sys.argv[3])
for name in modules:  # every listed module runs compiled
    file = importlib.import_module(name).__file__
    assert file.endswith((".so", ".pyd")), file
pack = load_pack()
with open(sys.argv[1], encoding="utf-8") as rows, open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in rows:
        text, task_type, options = json.loads(line)
        out.write(json.dumps(pack.run(text, task_type, options=options).to_json(), sort_keys=True,
                             ensure_ascii=False, default=repr) + "\\n")
    out.write(json.dumps(catalogue(), sort_keys=True, ensure_ascii=False) + "\\n")
"""


def _bounded(reason: object) -> bool:
    """Whether a refusal was decided by a time bound or by the depth of the stack."""
    return isinstance(reason, str) and ("(timeout)" in reason or "RecursionError" in reason or "budget" in reason)


def _corpus() -> list[str]:
    """Golden sample outputs, seeded generated outputs of every task type, adversarial kinds."""
    texts: list[str] = []
    for path in sorted((ROOT / "rules" / "samples").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                output = json.loads(line).get("output")
                if isinstance(output, str):
                    texts.append(output)
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from normalize_throughput import GENERATORS
    finally:
        sys.path.remove(str(ROOT / "bench"))
    rng = random.Random(20261201)
    for _ in range(40):
        for generate in GENERATORS.values():
            text = generate(rng)[:4096]
            texts.append(text)
            cut = rng.randint(0, len(text))
            texts += [text[cut:], text.upper()]
    for _, build in KINDS:
        texts += [build(60), build(2000)]
    return texts


def _rows(texts: list[str], task_types: list[str]) -> list[tuple[str, str, Any]]:
    return [
        (text, task_type, options)
        for text in texts
        for task_type in task_types
        for options in ((None, 4) if task_type == "multiple_choice" else (None,))
    ]


def test_the_compiled_wheel_gives_the_source_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hatchling.builders.wheel import WheelBuilder

    monkeypatch.setenv("HARNESS_NORMALIZE_REQUIRE_COMPILED", "1")
    monkeypatch.delenv("HARNESS_NORMALIZE_PURE", raising=False)
    wheel = Path(next(iter(WheelBuilder(str(ROOT)).build(directory=str(tmp_path / "dist"), versions=["standard"]))))
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in COMPILED:  # an extension beside each listed module, and its source
        stem = path.removesuffix(".py")
        assert any(n.startswith(stem + ".") and n.endswith((".so", ".pyd")) for n in names), path
        assert path in names, path
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(site), str(wheel)],
        check=True,
    )

    pack = load_pack()
    rows = _rows(_corpus(), sorted(pack.task_types))
    corpus = tmp_path / "rows.jsonl"
    corpus.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    modules = [path.removesuffix(".py").replace("/", ".") for path in COMPILED]
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(corpus), str(tmp_path / "out.jsonl"), json.dumps(modules)],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]

    from normalize.cli._rules import catalogue

    compiled = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(compiled) == len(rows) + 1
    for row, line in zip(rows, compiled, strict=False):
        result = pack.run(row[0], row[1], options=row[2])
        expected = json.dumps(result.to_json(), sort_keys=True, ensure_ascii=False, default=repr)
        if _bounded(result.reason) or _bounded(json.loads(line).get("reason")):
            # a time bound or the stack's depth decided this row (a 2 KB \left( nest runs near the
            # parser's 2 s): which one comes first depends on the machine's load and the caller's
            # stack, not on the build; both builds must still refuse it
            assert json.loads(line)["status"] != "ok" and result.status != "ok", row[0][:200]
            continue
        assert line == expected, f"{row[1]} options={row[2]} on {row[0][:200]!r}"
    assert compiled[-1] == json.dumps(catalogue(), sort_keys=True, ensure_ascii=False)


# --------------------------------------------------------------------------- what the build asks of the source (fast)


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (inside functions too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_no_compiled_module_defines_or_imports_a_pydantic_model() -> None:
    """mypyc cannot compile a pydantic model (hatch_build.py): the params live in ``_*_params``."""
    for path in COMPILED:
        source = ROOT / path
        assert source.is_file(), path
        assert not any(m.split(".")[0] == "pydantic" for m in _imported_modules(source)), path
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases}
                assert not bases & {"BaseModel", "Params", "NoParams"}, f"{path}: class {node.name}"


#: The shared leaves a params module may import from the rule and parser packages.
_PARAMS_MAY_IMPORT = ("normalize.rules._speed", "normalize.rules._fences")


def test_params_modules_import_no_rule_or_parser_module() -> None:
    """A params module sits below its rules: it imports other params modules and the shared leaves,
    never a rule or parser module (no import cycle, even one hidden inside a validator)."""
    params_modules = sorted([*ROOT.glob("normalize/rules/_*_params.py"), *ROOT.glob("normalize/parsers/_*_params.py")])
    assert len(params_modules) >= 5
    for path in params_modules:
        bad = sorted(
            m for m in _imported_modules(path)
            if m.startswith(("normalize.rules.", "normalize.parsers."))
            and not m.rsplit(".", 1)[0].endswith("_params") and not m.endswith("_params")
            and not m.startswith(_PARAMS_MAY_IMPORT)
        )
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"
