"""Re-scoring other harnesses' stored logs: inspect_ai, lighteval, OpenCompass, evalscope; --map;
a run in which every row is invalid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from normalize.errors import UsageError
from normalize.io.harness_logs import map_fields, parse_field_map, read_harness_log
from normalize.io.jsonl import InputRow
from scoring.cli import main

# --------------------------------------------------------------------------- inspect_ai (its own writer)

inspect_log = pytest.importorskip("inspect_ai.log")


def _inspect_log(path: Path, *, sample_ids: bool = True) -> Path:
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalSample,
        EvalSpec,
        write_eval_log,
    )
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Score

    options = ["Paris", "Lyon", "Nice", "Metz"]
    rows = [  # (id, completion, target, inspect's extracted answer, its score)
        (1, "Let me think. ANSWER: A", "A", "A", "C"),
        (2, "The answer is (C), not B.", "C", "B", "I"),  # their extraction is wrong, ours right
        (3, "I am not sure.", "D", None, "I"),
    ]
    samples = [EvalSample(id=i, epoch=1, input="Capital of France?", choices=options, target=t,
                          output=ModelOutput.from_content("mockllm/model", text),
                          scores={"choice": Score(value=v, answer=a)}) for i, text, t, a, v in rows]
    spec = EvalSpec(created="2025-01-01T00:00:00+00:00", task="mmlu", model="mockllm/model", config=EvalConfig(),
                    dataset=EvalDataset(name="cities", samples=3, sample_ids=[1, 2, 3] if sample_ids else None))
    write_eval_log(EvalLog(eval=spec, samples=samples, status="success"), str(path))
    return path


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_inspect_logs_written_by_inspect_read_as_rows(tmp_path: Path, suffix: str) -> None:
    path = _inspect_log(tmp_path / f"log{suffix}")
    rows = list(read_harness_log(path, "inspect"))
    assert [r.data["id"] for r in rows if r.data] == [1, 2, 3]
    first = rows[0].data
    assert first is not None
    assert first["task"] == "mmlu" and first["output"] == "Let me think. ANSWER: A" and first["target"] == "A"
    assert first["options"] == ["Paris", "Lyon", "Nice", "Metz"]
    assert first["harness"]["name"] == "inspect_ai" and first["harness"]["extracted"] == "A"
    assert first["harness"]["score"] == "C"


def test_inspect_log_without_sample_ids_is_read_whole(tmp_path: Path) -> None:
    rows = list(read_harness_log(_inspect_log(tmp_path / "old.json", sample_ids=False), "inspect"))
    assert len(rows) == 3 and all(r.data is not None for r in rows)


def test_score_inspect_log_and_diff_their_extraction(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _inspect_log(tmp_path / "log.eval")
    assert main(["score", str(path), "--from", "inspect", "--format", "json", "--bootstrap", "20"]) == 0
    report = json.loads(capsys.readouterr().out)
    overall = next(g for g in report["groups"] if g["level"] == "overall")
    assert overall["n"] == 3
    assert main(["diff", "harness", "shipped:default", str(path), "--from", "inspect", "--format", "json",
                 "--bootstrap", "20"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["overall"]["flips"]["wrong→right"] == 1  # row 2: their B, our C
    (cause,) = doc["causes"]
    assert cause["cause"].startswith("extraction: the harness's own") and cause["examples"][0]["id"] == 2


def test_a_file_that_is_not_an_inspect_log_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}', encoding="utf-8")
    with pytest.raises(UsageError, match="not an inspect_ai log"):
        list(read_harness_log(bad, "inspect"))


# --------------------------------------------------------------------------- lighteval (details parquet)


def _parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def test_lighteval_details_current_layout(tmp_path: Path) -> None:
    # lighteval >= 0.10 saves Detail(doc, model_response, metric) as columns
    rows = [
        {"doc": {"query": "Q1", "choices": ["72"], "gold_index": 0, "specific": {"extracted_predictions": ["72"]},
                 "task_name": "lighteval|gsm8k|0", "id": "0"},
         "model_response": {"text": ["She has 72 apples.\n#### 72"], "text_post_processed": None},
         "metric": {"extractive_match": 1.0}},
        {"doc": {"query": "Q2", "choices": [" A", " B", " C", " D"], "gold_index": 2, "specific": None,
                 "task_name": "lighteval|mmlu|0", "id": "1"},
         "model_response": {"text": ["The answer is C"], "text_post_processed": ["C"]},
         "metric": {"em": 1.0}},
    ]
    path = _parquet(tmp_path / "details_lighteval|gsm8k|0_2025-01-01T00-00-00.000.parquet", rows)
    got = [r.data for r in read_harness_log(path, "lighteval")]
    assert got[0] is not None and got[1] is not None
    assert got[0]["task"] == "lighteval|gsm8k|0" and got[0]["output"] == "She has 72 apples.\n#### 72"
    assert got[0]["target"] == "72" and got[0]["harness"]["extracted"] == "72"
    assert got[1]["target"] == 2 and got[1]["options"] == [" A", " B", " C", " D"]
    assert got[1]["harness"]["extracted"] == "C" and got[1]["harness"]["score"] == {"em": 1.0}


def test_lighteval_details_earlier_layout_and_scoring(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"example": "Q1", "predictions": ["#### 12"], "gold": ["12"], "choices": [], "gold_index": [],
         "metrics": {"qem": 1.0}, "specifics": {"extracted_predictions": ["12"]}},
        {"example": "Q2", "predictions": ["I think 7"], "gold": ["8"], "choices": [], "gold_index": [],
         "metrics": {"qem": 0.0}, "specifics": {"extracted_predictions": ["7"]}},
    ]
    path = _parquet(tmp_path / "details_gsm8k.parquet", rows)
    got = [r.data for r in read_harness_log(path, "lighteval", task="gsm8k")]
    assert [g["target"] for g in got if g] == ["12", "8"] and [g["output"] for g in got if g] == ["#### 12", "I think 7"]
    assert main(["score", str(path), "--from", "lighteval", "--task", "gsm8k", "--format", "json",
                 "--bootstrap", "20"]) == 0
    overall = next(g for g in json.loads(capsys.readouterr().out)["groups"] if g["level"] == "overall")
    assert overall["n"] == 2


# --------------------------------------------------------------------------- OpenCompass, evalscope


def test_opencompass_predictions(tmp_path: Path) -> None:
    path = tmp_path / "gsm8k.json"
    path.write_text(json.dumps({
        "0": {"origin_prompt": "Q", "prediction": "So 5 + 7 = 12.\nThe answer is 12", "gold": "12"},
        "1": {"origin_prompt": "Q", "gold": "3"},  # no prediction: an invalid row, kept in place
        "2": {"origin_prompt": "Q", "prediction": "4", "gold": "4", "pred": "4"},
    }), encoding="utf-8")
    rows = list(read_harness_log(path, "opencompass"))
    assert len(rows) == 3 and rows[1].data is None and "needs prediction" in str(rows[1].error)
    assert rows[0].data is not None and rows[0].data["task"] == "gsm8k" and rows[0].data["target"] == "12"
    assert rows[2].data is not None and rows[2].data["harness"]["extracted"] == "4"


def test_evalscope_reviews_both_layouts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "gsm8k_main.jsonl"
    lines = [
        {"index": 0, "input": "Q", "target": "18",
         "sample_score": {"score": {"value": {"acc": 1.0}, "prediction": "... so she makes $18.\nANSWER: 18",
                                    "extracted_prediction": "18"}, "sample_id": 0}},
        {"raw_input": "Q", "index": 1, "choices": [{"index": 0, "message": {"content": "The answer is 3"},
                                                    "review": {"gold": "3", "pred": "3", "result": True}}]},
        "not json",
    ]
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    rows = list(read_harness_log(path, "evalscope", task="gsm8k"))
    assert rows[0].data is not None and rows[0].data["output"].endswith("ANSWER: 18")
    assert rows[0].data["harness"]["extracted"] == "18" and rows[0].data["target"] == "18"
    assert rows[1].data is not None and rows[1].data["output"] == "The answer is 3"
    assert rows[1].data["harness"]["score"] is True and rows[2].data is None
    assert main(["run", str(path), "--from", "evalscope", "--task", "gsm8k"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert [o["status"] for o in out] == ["ok", "ok", "invalid"] and [o.get("answer") for o in out[:2]] == ["18", "3"]


# --------------------------------------------------------------------------- --map, every row invalid


def test_field_map() -> None:
    assert parse_field_map("output=prediction,target=doc.gold") == {"output": "prediction", "target": "doc.gold"}
    with pytest.raises(UsageError):
        parse_field_map("output")
    rows = [InputRow(1, {"task": "gsm8k", "prediction": "12", "doc": {"gold": "12"}}),
            InputRow(2, {"task": "gsm8k", "doc": {"gold": "1"}})]
    mapped = list(map_fields(rows, {"output": "prediction", "target": "doc.gold"}))
    assert mapped[0].data == {"task": "gsm8k", "doc": {"gold": "12"}, "output": "12", "target": "12"}
    assert mapped[1].data is None and "'prediction' is missing" in str(mapped[1].error)


def test_map_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "theirs.jsonl"
    path.write_text(json.dumps({"id": 1, "task": "gsm8k", "prediction": "#### 12", "gold": "12"}) + "\n",
                    encoding="utf-8")
    assert main(["score", str(path), "--map", "output=prediction,target=gold", "--format", "json",
                 "--bootstrap", "10"]) == 0
    overall = next(g for g in json.loads(capsys.readouterr().out)["groups"] if g["level"] == "overall")
    assert overall["statuses"]["ok"] == 1


def test_every_row_invalid_exits_1_and_says_why_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "theirs.jsonl"
    path.write_text("".join(json.dumps({"id": i, "task": "gsm8k", "prediction": "1", "gold": "1"}) + "\n"
                            for i in range(5)), encoding="utf-8")
    assert main(["score", str(path), "--bootstrap", "10"]) == 1  # no output field: the fields need --map
    err = capsys.readouterr().err
    assert err.count("every row is invalid") == 1 and "(5 rows)" in err
    assert main(["score", str(path), "--bootstrap", "10", "--map", "output=prediction,target=gold"]) == 0


def test_run_in_which_every_row_is_invalid_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "gsm8k.json"  # an OpenCompass file whose entries lack a prediction
    path.write_text(json.dumps({str(i): {"origin_prompt": "Q", "gold": "1"} for i in range(3)}), encoding="utf-8")
    assert main(["run", str(path), "--from", "opencompass"]) == 1
    err = capsys.readouterr().err
    assert err.count("every row is invalid") == 1 and "not an OpenCompass prediction (needs prediction)" in err
    path.write_text(json.dumps({"0": {"origin_prompt": "Q", "gold": "1"}, "1": {"prediction": "1", "gold": "1"}}),
                    encoding="utf-8")
    assert main(["run", str(path), "--from", "opencompass"]) == 0  # one row is not invalid: a run, not a failure


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_inspect_logs_read_without_inspect_give_the_same_rows(tmp_path: Path, suffix: str) -> None:
    from normalize.io import harness_logs

    path = _inspect_log(tmp_path / f"log{suffix}")
    task, samples = harness_logs._inspect_plain(path)
    plain = [harness_logs._inspect_row(s, task, None, path) for s in samples]
    with_inspect = [r.data for r in read_harness_log(path, "inspect")]
    assert plain == with_inspect
