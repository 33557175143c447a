"""Ray Data on a real local cluster: NormalizeBatches / ScoreBatches give the rows of
``normalize run`` / ``score -o``, and report_from_dataset gives ``normalize score``'s report."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")
pa = pytest.importorskip("pyarrow")

from scoring.cli import main  # noqa: E402
from scoring.integrations.ray import (  # noqa: E402
    NormalizeBatches,
    ScoreBatches,
    decode_columns,
    report_from_dataset,
)
from tests.test_arrow_io import jsonl_rows, rows, same_fields  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """One local Ray cluster of 2 CPUs for the module; its workers import this checkout."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"PYTHONPATH": path}})
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], Path]:
    tmp = tmp_path_factory.mktemp("ray")
    items = [*rows(60), {"id": 999, "task": "no_such_task", "output": "#### 1", "target": "1", "options": None}]
    items = [{**r, "line": i} for i, r in enumerate(items, start=1)]  # the reasons of invalid rows name it
    src = tmp / "in.jsonl"
    src.write_text("".join(json.dumps({k: v for k, v in r.items() if v is not None}) + "\n" for r in items))
    return items, src


def _by_id(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(found, key=lambda r: r["id"])


@pytest.mark.parametrize("batch_format", ["pyarrow", "pandas"])
def test_normalize_batches_give_the_rows_of_normalize_run(cluster: None, data: tuple[list[dict[str, Any]], Path],
                                                          tmp_path: Path, batch_format: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    items, src = data
    assert main(["run", str(src), "-o", str(tmp_path / "ref.jsonl"), "--trace", "rules", "--jobs", "1"]) == 0
    ref = jsonl_rows(tmp_path / "ref.jsonl")
    ds = ray.data.from_items(items).map_batches(
        NormalizeBatches, fn_constructor_kwargs={"trace": "rules", "line_column": "line"}, batch_format=batch_format, batch_size=16,
        concurrency=2)
    got = [decode_columns(dict(r)) for r in ds.take_all()]
    if batch_format == "pandas":  # pandas gives numpy arrays for list cells and NaN for missing ids
        for r in got:
            r["options"] = None if r["options"] is None else list(r["options"])
    same_fields(_by_id(got), _by_id(ref))
    assert any(r["status"] == "invalid" for r in got)  # the unknown task: a row, not a crash
    capsys.readouterr()


def test_score_batches_and_the_reduced_report_equal_normalize_score(
        cluster: None, data: tuple[list[dict[str, Any]], Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    items, src = data
    assert main(["score", str(src), "-o", str(tmp_path / "s.jsonl"), "--report", str(tmp_path / "r.json"),
                 "--bootstrap", "200", "--jobs", "1"]) == 0
    ref_rows = jsonl_rows(tmp_path / "s.jsonl")
    ref_report = json.loads((tmp_path / "r.json").read_text())
    scored = ray.data.from_items(items, override_num_blocks=5).map_batches(
        ScoreBatches, fn_constructor_kwargs={"line_column": "line", "trace": "full"}, batch_format="pyarrow", batch_size=8, concurrency=2)
    same_fields(_by_id([decode_columns(dict(r)) for r in scored.take_all()]), _by_id(ref_rows))
    report = report_from_dataset(scored, n_resamples=200)
    assert report == ref_report  # intervals included: the totals are merged in the rows' order
    # the rows as score -o writes them to Parquet, read by Ray from disk, give the same report
    assert main(["score", str(src), "-o", str(tmp_path / "s.parquet"), "--jobs", "1"]) == 0
    assert report_from_dataset(ray.data.read_parquet(str(tmp_path / "s.parquet")), n_resamples=200) == ref_report
    capsys.readouterr()


def test_a_pack_with_another_hash_fails_on_the_worker(cluster: None) -> None:
    ds = ray.data.from_items([{"task": "gsm8k", "output": "#### 1"}])
    with pytest.raises(Exception, match="expected"):
        ds.map_batches(NormalizeBatches, fn_constructor_kwargs={"pack_hash": "sha256:0"}, batch_format="pyarrow",
                       concurrency=1).take_all()


def test_numpy_batches_get_the_columns_of_arrow_batches() -> None:
    """``batch_format="numpy"`` (Ray's default): a dict of arrays in, the same values out."""
    import numpy as np

    from scoring.integrations._batches import BatchScorer
    from scoring.integrations.ray import apply_to_batch

    items = rows(10)
    table = pa.Table.from_pylist(items)
    batch = {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}
    scorer = BatchScorer(score=True)
    got = apply_to_batch(scorer, batch)
    want = apply_to_batch(scorer, table)
    for name in scorer.columns:
        assert isinstance(got[name], np.ndarray)
        assert list(got[name]) == want.column(name).to_pylist(), name
    with pytest.raises(TypeError, match="a batch must be"):
        apply_to_batch(scorer, [1, 2])
