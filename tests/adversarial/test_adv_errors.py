"""Errors are messages: one line on stderr and exit 2, never a traceback; packs are bounded data."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from normalize.core._yaml import MAX_ALIAS_EXPANSION, load_yaml
from normalize.errors import PackError
from scoring.cache import Cache, CacheError, GenerationKey
from tests.adversarial._inputs import good_line, write_lines

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "scoring.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def _one_line_exit_2(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_unwritable_output_is_exit_2(tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", [good_line(0)])
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    for command in ("run", "score"):
        line = _one_line_exit_2(_cli(command, str(src), "-o", str(blocker / "out.jsonl")))
        assert "cannot write" in line
    line = _one_line_exit_2(_cli("score", str(src), "--report", str(blocker / "r.json")))
    assert "cannot write" in line
    if Path("/dev/full").exists():
        line = _one_line_exit_2(_cli("run", str(src), "-o", "/dev/full"))
        assert "No space left" in line or "cannot write" in line


def test_a_deep_yaml_pack_is_exit_2_with_its_line(tmp_path: Path) -> None:
    pack = tmp_path / "deep.yaml"
    pack.write_text("name: deep\ntask_types:\n  x: " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    src = write_lines(tmp_path / "in.jsonl", [good_line(0)])
    line = _one_line_exit_2(_cli("run", "--pack", str(pack), str(src)))
    assert f"{pack}:3:" in line and "nesting deeper" in line


def _billion_laughs() -> str:
    text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        text += f"{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
    return text


def test_billion_laughs_fails_with_file_and_line(tmp_path: Path) -> None:
    text = _billion_laughs()
    assert len(text.encode()) < 600  # the bomb was 560 bytes and grew past 1.7 GB
    with pytest.raises(PackError) as info:
        load_yaml(text, "bomb.yaml")
    assert info.value.file == "bomb.yaml" and info.value.line is not None
    assert "expand" in str(info.value)
    pack = tmp_path / "bomb.yaml"
    pack.write_text(text, encoding="utf-8")
    line = _one_line_exit_2(_cli("hash", "--pack", str(pack)))
    assert f"{pack}:" in line


def _build_steps(levels: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """Nodes built before an alias bomb of ``levels`` levels (2**levels nodes expanded) is refused."""
    import normalize.core._yaml as yaml_module

    steps = 0
    spend = yaml_module._Budget.spend

    def counting(self: yaml_module._Budget, node: object, doc: object) -> None:
        nonlocal steps
        steps += 1
        spend(self, node, doc)  # type: ignore[arg-type]

    monkeypatch.setattr(yaml_module._Budget, "spend", counting)
    text = "a0: &a0 [x, x]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" for i in range(1, levels))
    with pytest.raises(PackError):
        load_yaml(text, "b.yaml")
    return steps


def test_alias_expansion_work_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # 2**20 vs 2**40 nodes of expansion: both stop at the same budget (step counts, not times)
    small, large = _build_steps(20, monkeypatch), _build_steps(40, monkeypatch)
    assert small <= MAX_ALIAS_EXPANSION + 200 and large <= MAX_ALIAS_EXPANSION + 200
    assert large / small < 1.1


def test_corrupt_cache_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x07" * 4000)
    with pytest.raises(CacheError) as info:
        Cache(bad)
    assert "\n" not in str(info.value) and "not a usable SQLite file" in str(info.value)
    # a cache whose pages are damaged after it was opened fine
    good = tmp_path / "good.sqlite"
    with Cache(good) as cache:
        for i in range(200):
            cache.put_generation(GenerationKey("m", "r", f"p{i}"), "x" * 500)
    data = bytearray(good.read_bytes())
    data[4096 * 2: 4096 * 4] = b"\xff" * (4096 * 2)
    good.write_bytes(bytes(data))
    for suffix in ("-wal", "-shm"):
        Path(f"{good}{suffix}").unlink(missing_ok=True)
    with pytest.raises(CacheError) as info:
        with Cache(good) as cache:
            for i in range(200):
                cache.get_generation(GenerationKey("m", "r", f"p{i}"))
            cache.row_counts()
            assert cache.integrity_check() == "ok"
    assert "\n" not in str(info.value)


def _make_read_only(path: Path) -> None:
    if os.geteuid() != 0:
        path.chmod(0o444)
        path.parent.chmod(0o555)
        return
    if shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: no way to make a file read-only for root")
    done = subprocess.run(["chattr", "+i", str(path), str(path.parent)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"chattr +i is not supported here: {done.stderr.decode().strip()}")


def _undo_read_only(path: Path) -> None:
    if os.geteuid() == 0 and shutil.which("chattr"):
        subprocess.run(["chattr", "-i", str(path), str(path.parent)], capture_output=True)
    path.parent.chmod(0o755)


def test_read_only_cache_is_a_one_line_error(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "c.sqlite"
    with Cache(path) as cache:
        cache.put_generation(GenerationKey("m", "r", "p"), "x")
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    _make_read_only(path)
    try:
        with pytest.raises(CacheError) as info:
            with Cache(path) as cache:
                cache.put_generation(GenerationKey("m", "r", "q"), "y")
        assert "not writable" in str(info.value) and "\n" not in str(info.value)
    finally:
        _undo_read_only(path)


def test_deep_targets_are_bad_targets_not_crashes(tmp_path: Path) -> None:
    deep = b'{"id": "d", "task": "json_extraction", "output": "{}", "target": "' + b"[" * 50_000 + b'"}'
    src = write_lines(tmp_path / "in.jsonl", [good_line(0), deep])
    result = _cli("score", str(src), "--format", "json", "--bootstrap", "10", "--jobs", "1")
    assert result.returncode == 0, result.stderr
    assert '"bad_target": 1' in result.stdout
