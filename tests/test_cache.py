"""The SQLite cache: keys cover every parameter, pack hashes isolate results, writers don't clash."""

from __future__ import annotations

import dataclasses
import multiprocessing
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.cache import (
    SCHEMA_VERSION,
    Cache,
    GenerationKey,
    Loglik,
    LoglikKey,
    canonical_json,
    model_id_of,
    model_revision,
)

BASE = GenerationKey(
    "tiny", "stat:1", "Q: 2+2?\nA:", temperature=0.7, top_p=0.9, top_k=40,
    max_new_tokens=16, seed=3, stop=("\n",), sample_index=0, dtype="float32",
)

#: One changed value per field of GenerationKey: each must be a different key.
CHANGES: dict[str, Any] = {
    "model_id": "tiny2",
    "revision": "stat:2",
    "prompt": "Q: 2+2?\nA: ",
    "temperature": 0.70001,
    "top_p": 0.95,
    "top_k": 41,
    "max_new_tokens": 17,
    "seed": 4,
    "stop": ("\n", "Q:"),
    "sample_index": 1,
    "dtype": "bfloat16",
    "backend": "openai-completions",
}


def test_every_field_is_covered_by_the_change_table() -> None:
    assert set(CHANGES) == {f.name for f in dataclasses.fields(GenerationKey)}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_changed_sampling_parameter_never_serves_another_output(tmp_path: Path, name: str) -> None:
    other = dataclasses.replace(BASE, **{name: CHANGES[name]})
    with Cache(tmp_path / "c.sqlite") as cache:
        cache.put_generation(BASE, "base output")
        assert other.digest != BASE.digest
        assert cache.get_generation(other) is None
        cache.put_generation(other, "other output")
        assert cache.get_generation(BASE) == "base output"
        assert cache.get_generation(other) == "other output"


def test_greedy_and_sampled_differ_and_do_sample_is_in_the_params() -> None:
    greedy = dataclasses.replace(BASE, temperature=0.0)
    assert greedy.params()["do_sample"] is False and BASE.params()["do_sample"] is True
    assert greedy.digest != BASE.digest


def test_stored_params_json_is_the_hashed_canonical_json(tmp_path: Path) -> None:
    with Cache(tmp_path / "c.sqlite") as cache:
        cache.put_generation(BASE, "x")
    conn = sqlite3.connect(tmp_path / "c.sqlite")
    key, params_json, prompt_hash = conn.execute(
        "SELECT key, params_json, prompt_sha256 FROM generations").fetchone()
    conn.close()
    assert key == BASE.digest
    assert params_json == canonical_json(BASE.params())
    assert prompt_hash == BASE.prompt_sha256
    assert "Q: 2+2?" not in params_json  # the prompt is stored as its hash


def test_a_changed_pack_hash_never_serves_old_normalized_results(tmp_path: Path) -> None:
    with Cache(tmp_path / "c.sqlite") as cache:
        cache.put_normalized(BASE, "pack-hash-1", {"answer": "4", "status": "ok"})
        assert cache.get_normalized(BASE, "pack-hash-2") is None
        assert cache.get_normalized(BASE, "pack-hash-1") == {"answer": "4", "status": "ok"}
        cache.put_normalized(BASE, "pack-hash-2", {"answer": None, "status": "no_answer"})
        assert cache.get_normalized(BASE.digest, "pack-hash-1") == {"answer": "4", "status": "ok"}
        assert cache.get_normalized(BASE, "pack-hash-2") == {"answer": None, "status": "no_answer"}
        other = dataclasses.replace(BASE, sample_index=1)
        assert cache.get_normalized(other, "pack-hash-1") is None


def test_loglik_round_trip_and_keys(tmp_path: Path) -> None:
    key = LoglikKey("tiny", "stat:1", "The sky is", " blue", dtype="float32")
    with Cache(tmp_path / "c.sqlite") as cache:
        assert cache.get_loglik(key) is None
        cache.put_loglik(key, Loglik(-3.25, True, 2, "joint", 1))
        assert cache.get_loglik(key) == Loglik(-3.25, True, 2, "joint", 1)
        assert cache.get_loglik(dataclasses.replace(key, max_length=128)) is None
        assert cache.get_loglik(dataclasses.replace(key, mode="rolling")) is None
        assert cache.get_loglik(dataclasses.replace(key, revision="stat:2")) is None
        assert cache.get_loglik(dataclasses.replace(key, context="The sky is ", continuation="blue")) is None
        assert cache.get_loglik(dataclasses.replace(key, dtype="bfloat16")) is None
        stats = cache.stats()
        assert stats.by_table["loglik"] == {"hits": 1, "misses": 6, "writes": 1}


def test_stats_count_hits_misses_and_writes(tmp_path: Path) -> None:
    with Cache(tmp_path / "c.sqlite") as cache:
        cache.get_generation(BASE)
        cache.put_generation(BASE, "a")
        cache.get_generation(BASE)
        cache.get_generation(BASE)
        stats = cache.stats()
    assert (stats.hits, stats.misses, stats.writes) == (2, 1, 1)
    assert stats.to_json()["by_table"]["generations"] == {"hits": 2, "misses": 1, "writes": 1}


def test_the_file_is_wal_versioned_and_reopens(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "c.sqlite"
    with Cache(path) as cache:
        cache.put_generation(BASE, "persisted")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    with Cache(path) as cache:
        assert cache.get_generation(BASE) == "persisted"
        assert cache.integrity_check() == "ok"


def test_another_schema_version_or_foreign_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    Cache(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(ValueError, match="schema version"):
        Cache(path)
    foreign = tmp_path / "foreign.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    with pytest.raises(ValueError, match="not a harness-normalize cache"):
        Cache(foreign)
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ValueError, match="not a usable SQLite file"):
        Cache(garbage)


def test_closed_cache_and_bad_arguments_raise(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "c.sqlite")
    with pytest.raises(ValueError, match="pack_hash"):
        cache.put_normalized(BASE, "", {})
    with pytest.raises(ValueError, match="generation key"):
        cache.get_normalized("not-a-digest", "h")
    cache.close()
    with pytest.raises(ValueError, match="closed"):
        cache.get_generation(BASE)
    with pytest.raises(ValueError, match="file path"):
        Cache(":memory:")


@pytest.mark.parametrize(
    ("field", "value"),
    [("temperature", -0.1), ("top_p", 0.0), ("top_p", 1.5), ("top_k", -1), ("max_new_tokens", -1),
     ("seed", -1), ("stop", "\n"), ("stop", ("",)), ("sample_index", True), ("temperature", float("nan"))],
)
def test_invalid_key_values_raise(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field.split("_")[0]):
        dataclasses.replace(BASE, **{field: value})


@settings(max_examples=100, deadline=None)
@given(a=st.text(max_size=20), b=st.text(max_size=20), c=st.text(max_size=20), d=st.text(max_size=20))
def test_loglik_keys_differ_when_the_pair_differs(a: str, b: str, c: str, d: str) -> None:
    same = (a, b) == (c, d)
    assert (LoglikKey("m", "r", a, b).digest == LoglikKey("m", "r", c, d).digest) == same


def test_threads_share_one_cache_object(tmp_path: Path) -> None:
    with Cache(tmp_path / "c.sqlite") as cache:
        def work(worker: int) -> None:
            for i in range(50):
                cache.put_generation(dataclasses.replace(BASE, sample_index=worker * 1000 + i), f"{worker}-{i}")
        threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert cache.row_counts()["generations"] == 200
        assert cache.get_generation(dataclasses.replace(BASE, sample_index=3049)) == "3-49"


ROWS_PER_PROCESS = 300


def _write_rows(path: str, worker: int, start: Any) -> None:
    """Run in a spawned process: write generations, normalized results and logliks one by one."""
    start.wait(30)
    with Cache(path) as cache:
        for i in range(ROWS_PER_PROCESS):
            key = dataclasses.replace(BASE, seed=worker, sample_index=i)
            cache.put_generation(key, f"worker {worker} row {i}")
            cache.put_normalized(key, "pack", {"answer": i, "worker": worker})
            cache.put_loglik(LoglikKey("tiny", "r", f"ctx {worker}", f"cont {i}"), Loglik(-float(i), i % 2 == 0, i))


def test_two_processes_writing_at_once_corrupt_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    procs = [ctx.Process(target=_write_rows, args=(path, w, start)) for w in (1, 2)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    with Cache(path) as cache:
        assert cache.integrity_check() == "ok"
        assert cache.row_counts() == {"generations": 2 * ROWS_PER_PROCESS, "normalized": 2 * ROWS_PER_PROCESS,
                                      "loglik": 2 * ROWS_PER_PROCESS}
        for worker in (1, 2):
            for i in range(ROWS_PER_PROCESS):
                key = dataclasses.replace(BASE, seed=worker, sample_index=i)
                assert cache.get_generation(key) == f"worker {worker} row {i}"
                assert cache.get_normalized(key, "pack") == {"answer": i, "worker": worker}
                got = cache.get_loglik(LoglikKey("tiny", "r", f"ctx {worker}", f"cont {i}"))
                assert got == Loglik(-float(i), i % 2 == 0, i)


def test_opening_the_cache_does_not_import_torch() -> None:
    code = "import sys, scoring, scoring.cache; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_model_revision_tracks_file_changes(tmp_path: Path) -> None:
    model = tmp_path / "tiny-model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"\0" * 10)
    first = model_revision(model)
    assert first.startswith("stat:") and model_revision(model) == first
    (model / ".hidden").write_text("ignored")
    assert model_revision(model) == first
    (model / "model.safetensors").write_bytes(b"\0" * 11)
    assert model_revision(model) != first
    assert model_id_of(model) == "tiny-model"
    with pytest.raises(ValueError, match="not found"):
        model_revision(tmp_path / "missing")
