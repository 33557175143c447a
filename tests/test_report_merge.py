"""ReportBuilder.merge: partial running totals of consecutive slices give the report of all the rows."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

from normalize.core.pack import load_pack
from scoring._items import Item, item_of
from scoring._scorefile import score_file
from scoring.metrics import MathVerifier
from scoring.report import ReportBuilder
from tests.test_arrow_io import rows


def _items(tmp_path: Path) -> list[Item]:
    src = tmp_path / "in.jsonl"
    lines = [json.dumps({k: v for k, v in r.items() if v is not None} | {"run": str(i % 3)})
             for i, r in enumerate(rows(80))]
    lines.append(json.dumps({"id": "w", "task": "open_writing", "output": "le chat noir", "target": "le chat"}))
    src.write_text("\n".join(lines) + "\n")
    with MathVerifier() as verifier:
        _, scored = score_file(load_pack(None), src, verifier=verifier)
    return [item_of(s) for s in scored]


def test_merged_slices_build_the_report_of_all_rows(tmp_path: Path) -> None:
    items = _items(tmp_path)
    pack = load_pack(None)
    whole = ReportBuilder()
    for item in items:
        whole.add(item)
    merged = ReportBuilder()
    for start, end in ((0, 7), (7, 8), (8, 40), (40, len(items))):
        part = ReportBuilder()
        for item in items[start:end]:
            part.add(item)
        merged.merge(pickle.loads(pickle.dumps(part)))  # as partials cross processes
    expected = whole.build(pack, n_resamples=100)
    assert merged.build(pack, n_resamples=100) == expected
    assert expected["groups"][-1]["runs"] is not None  # the per-run running sums merged too
    assert any(g.get("text_metrics") for g in expected["groups"])  # and the rows kept for sections
    # an empty partial changes nothing
    merged.merge(ReportBuilder())
    assert merged.build(pack, n_resamples=100) == expected
