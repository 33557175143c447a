"""The shipped packs travel inside the wheel, so a plain non-editable install finds them."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent


def _build_wheel(out: Path) -> Path:
    """A pure-Python wheel (what these tests check does not depend on compiling the hot
    modules, which tests/test_compiled.py covers, and which takes most of a minute)."""
    from hatchling.builders.wheel import WheelBuilder

    with mock.patch.dict(os.environ, {"HARNESS_NORMALIZE_PURE": "1"}):
        builder = WheelBuilder(str(ROOT))
        return Path(next(iter(builder.build(directory=str(out), versions=["standard"]))))


def test_wheel_ships_the_packs_and_py_typed(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path / "dist")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {p.relative_to(ROOT / "rules").as_posix() for p in (ROOT / "rules").rglob("*") if p.is_file()}
    assert "default.yaml" in shipped
    for rel in shipped:
        assert f"normalize/_packs/{rel}" in names, rel
    assert "normalize/py.typed" in names and "scoring/py.typed" in names
    assert not any(n.startswith("tests/") for n in names)


def test_installed_wheel_loads_the_shipped_pack_outside_the_source_tree(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path / "dist")
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(target), str(wheel)],
        check=True,
    )
    probe = (
        "import normalize, sys; from normalize import load_pack; from normalize.core.pack import default_pack_path;"
        "p = load_pack(); print(default_pack_path()); print(p.hash);"
        "assert str(default_pack_path()).startswith(sys.argv[1]), default_pack_path()"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(target)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    from normalize import load_pack

    assert done.stdout.split()[1] == load_pack().hash
