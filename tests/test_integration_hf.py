"""Hugging Face datasets: Dataset.map(NormalizeMap(...), batched=True, num_proc=2) gives the
columns and values of ``normalize run`` / ``score -o`` on the same rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

datasets = pytest.importorskip("datasets")
pytest.importorskip("pyarrow")

from scoring.cli import main  # noqa: E402
from scoring.integrations.hf import NormalizeMap, decode_columns, map_dataset  # noqa: E402
from tests.test_arrow_io import jsonl_rows, rows, same_fields  # noqa: E402


def _source(tmp_path: Path) -> tuple[list[dict[str, object]], Path]:
    items = [*rows(30), {"id": 99, "task": "no_such_task", "output": "#### 1", "target": "1", "options": None}]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({k: v for k, v in r.items() if v is not None}) + "\n" for r in items))
    return items, src


@pytest.mark.parametrize("score", [False, True])
def test_map_with_two_processes_gives_the_rows_of_the_cli(tmp_path: Path, score: bool,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    items, src = _source(tmp_path)
    command = "score" if score else "run"
    assert main([command, str(src), "-o", str(tmp_path / "ref.jsonl"), "--jobs", "1"]) == 0
    ref = jsonl_rows(tmp_path / "ref.jsonl")
    mapper = NormalizeMap(score=score, trace="full")
    ds = datasets.Dataset.from_list(items)
    out = ds.map(mapper, batched=True, batch_size=4, with_indices=True, num_proc=2,
                 features=mapper.features(ds.features))
    assert out.column_names == [*ds.column_names, *mapper.columns]
    assert map_dataset(ds, score=score, trace="full", num_proc=2, batch_size=4).to_list() == out.to_list()
    same_fields([decode_columns(dict(r)) for r in out], ref)  # in order, reasons' line numbers included
    assert out.features["status"].dtype == "string"
    capsys.readouterr()


def test_arrow_formatted_batches_and_declared_features(tmp_path: Path) -> None:
    items, _ = _source(tmp_path)
    mapper = NormalizeMap(task="gsm8k")
    ds = datasets.Dataset.from_list(items[:8])
    as_arrow = ds.with_format("arrow").map(mapper, batched=True, batch_size=3)
    plain = ds.map(mapper, batched=True, batch_size=3, features=mapper.features(ds.features))
    assert as_arrow.with_format(None).to_list() == plain.to_list()
    assert {r["task_type"] for r in plain} == {"math"}  # task= set every row's task
    with pytest.raises(ValueError, match="not the expected"):
        NormalizeMap(pack_hash="sha256:0")
