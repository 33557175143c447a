"""lm-evaluation-harness: the filter and metrics inside a real ``lm_eval`` run, and
``normalize score --from lm-eval`` on the samples log that run wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from normalize.io.lm_eval_log import lm_eval_task_of, read_lm_eval_samples
from scoring.cli import main
from scoring.integrations._shared import cached_pack
from scoring.integrations.lm_eval import (
    FILTER_FORMAT,
    NormalizeFilter,
    normalize_acc,
    normalize_parse_rate,
    read_normalized,
)
from tests.lm_fixtures import tiny_lm_dir

__all__ = ["tiny_lm_dir"]

ROOT = Path(__file__).resolve().parent.parent

MATH_DOCS = [
    {"question": "What is 2 plus 3?", "answer": "5"},
    {"question": "What is 10 minus 4?", "answer": "6"},
    {"question": "How many legs does a dog have?", "answer": "4"},
]
QA_DOCS = [
    {"question": "What is the capital of France?", "answers": ["Paris", "paris"]},
    {"question": "Which planet is red?", "answers": ["Mars"]},
]

TASK_YAML = """\
task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_target: {target}
generation_kwargs:
  until: ["\\n\\n"]
  max_gen_toks: 6
  do_sample: false
repeats: {repeats}
filter_list:
  - name: normalized
    filter:
      - function: !function scoring.integrations.lm_eval.NormalizeFilter
        task: {pack_task}
metric_list:
  - metric: !function scoring.integrations.lm_eval.normalize_acc
  - metric: !function scoring.integrations.lm_eval.normalize_parse_rate
  - metric: !function scoring.integrations.lm_eval.normalize_parse_rate_strict
"""


@pytest.fixture(scope="module")
def lm_eval_run(tiny_lm_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run the real ``lm_eval`` CLI (offline, CPU) on two local tasks that use the filter."""
    pytest.importorskip("lm_eval")
    root = tmp_path_factory.mktemp("lm_eval_run")
    tasks = root / "tasks"
    tasks.mkdir()
    for name, docs, target, repeats, pack_task in (
        ("hn_math", MATH_DOCS, '"{{answer}}"', 2, "gsm8k"),
        ("hn_qa", QA_DOCS, '"{{answers}}"', 1, "squad"),
    ):
        data = root / f"{name}.jsonl"
        data.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
        (tasks / f"{name}.yaml").write_text(
            TASK_YAML.format(name=name, data=data, target=target, repeats=repeats, pack_task=pack_task),
            encoding="utf-8")
    out = root / "out"
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_DATASETS_CACHE": str(root / "hf_datasets"), "TOKENIZERS_PARALLELISM": "false",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-m", "lm_eval", "--model", "hf",
         "--model_args", f"pretrained={tiny_lm_dir},dtype=float32", "--device", "cpu",
         "--include_path", str(tasks), "--tasks", "hn_math,hn_qa", "--output_path", str(out),
         "--log_samples", "--seed", "0"],
        capture_output=True, text=True, env=env, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


def _results(out: Path) -> dict[str, Any]:
    (path,) = out.rglob("results_*.json")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_lm_eval_run_writes_json_values(lm_eval_run: Path) -> None:
    results = _results(lm_eval_run)["results"]
    for task in ("hn_math", "hn_qa"):
        assert isinstance(results[task]["normalize_acc,normalized"], float)
        assert isinstance(results[task]["normalize_parse_rate,normalized"], float)
    # squad-style answers are free text: every response parses
    assert results["hn_qa"]["normalize_parse_rate,normalized"] == 1.0
    lines = [json.loads(line) for p in sorted(lm_eval_run.rglob("samples_hn_math_*.jsonl"))
             for line in p.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == len(MATH_DOCS)
    for line in lines:
        (repeats,) = line["filtered_resps"]
        assert len(repeats) == 2  # every repeat kept
        for value in repeats:
            payload = read_normalized(value)  # a JSON string, not a Python repr
            assert payload is not None and payload["format"] == FILTER_FORMAT
            assert payload["task"] == "gsm8k" and payload["rules_hash"] == cached_pack(None).hash


@pytest.mark.parametrize("task", ["hn_math", "hn_qa"])
def test_score_from_lm_eval_agrees_with_lm_eval(lm_eval_run: Path, tmp_path: Path, task: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    results = _results(lm_eval_run)["results"][task]
    report_path = tmp_path / "report.json"
    out_path = tmp_path / "rows.jsonl"
    pattern = str(lm_eval_run / "*" / f"samples_{task}_*.jsonl")
    code = main(["score", "--from", "lm-eval", pattern, "--no-progress", "--report", str(report_path),
                 "-o", str(out_path)])
    assert code == 0
    capsys.readouterr()
    report = json.loads(report_path.read_text(encoding="utf-8"))
    group = next(g for g in report["groups"] if g["level"] == "task")
    assert group["parse_rate"] == pytest.approx(results["normalize_parse_rate,normalized"])
    assert group["a_strict"]["value"] == pytest.approx(results["normalize_acc,normalized"])
    if group.get("parse_rates"):  # math: the strict metric counts what the report's strict parse rate counts
        assert group["parse_rates"]["strict"] == pytest.approx(results["normalize_parse_rate_strict,normalized"])
    rows = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    docs = MATH_DOCS if task == "hn_math" else QA_DOCS
    assert len(rows) == len(docs) * (2 if task == "hn_math" else 1)
    assert sorted({r["id"] for r in rows}) == list(range(len(docs)))
    for row in rows:  # the filter's parse is what `normalize run` finds again
        payload = read_normalized(row["lm_eval"]["filtered"])
        assert payload is not None
        assert (payload["status"], payload["answer"]) == (row["status"], row["answer"])
    if task == "hn_qa":
        assert rows[0]["target"] == ["Paris", "paris"]  # lm-eval's str(list) read back as a list


def test_score_takes_several_files_as_a_shell_glob_gives_them(lm_eval_run: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(str(p) for p in lm_eval_run.rglob("samples_*.jsonl"))
    assert len(files) == 2
    assert main(["score", "--from", "lm-eval", *files, "-o", str(tmp_path / "all.jsonl"), "--no-progress"]) == 0
    capsys.readouterr()
    rows = [json.loads(x) for x in (tmp_path / "all.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {r["task"] for r in rows} == {"gsm8k", "squad"} and len(rows) == 2 * len(MATH_DOCS) + len(QA_DOCS)
    assert main(["score", str(tmp_path / "all.jsonl"), str(tmp_path / "all.jsonl")]) == 2  # jsonl: one file


def test_run_audit_compare_read_lm_eval(lm_eval_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--from", "lm-eval", str(lm_eval_run), "-o", str(tmp_path / "run.jsonl"),
                 "--no-progress"]) == 0
    rows = [json.loads(x) for x in (tmp_path / "run.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 2 * len(MATH_DOCS) + len(QA_DOCS)
    assert main(["audit", "--from", "lm-eval", str(lm_eval_run), "--n", "2"]) == 0
    assert "rows were changed by the rules" in capsys.readouterr().out
    (math_log,) = lm_eval_run.rglob("samples_hn_math_*.jsonl")
    assert main(["compare", "--from", "lm-eval", str(math_log), str(math_log), "--json", "--bootstrap", "50"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert compared["shared"] == len(MATH_DOCS) and compared["diff"] == 0.0


# --------------------------------------------------------------------------- without running lm-eval


def _sample(doc_id: int, resps: list[Any], filtered: list[Any], target: str, filt: str = "none") -> str:
    return json.dumps({"doc_id": doc_id, "doc": {}, "target": target, "arguments": {}, "resps": resps,
                       "filtered_resps": filtered, "filter": filt, "metrics": ["exact_match"]})


def test_reader_takes_first_filter_raw_responses_and_named_filter(tmp_path: Path) -> None:
    path = tmp_path / "samples_gsm8k_2024-05-01T12-30-00.123456.jsonl"
    path.write_text("\n".join([
        _sample(0, [["The answer is 7.", "It is 8"]], ["7"], "7", "strict-match"),
        _sample(1, [["#### 3", "3"]], ["3"], "3", "strict-match"),
        _sample(0, [["The answer is 7.", "It is 8"]], [["7", "8"]], "7", "flexible-extract"),
        _sample(1, [["#### 3", "3"]], [["3", "3"]], "3", "flexible-extract"),
        "not json",
    ]) + "\n", encoding="utf-8")
    assert lm_eval_task_of(path) == "gsm8k"
    rows = read_lm_eval_samples(path)
    data = [r.data for r in rows]
    assert [(d["id"], d["sample"], d["output"]) for d in data if d] == [
        (0, 0, "The answer is 7."), (0, 1, "It is 8"), (1, 0, "#### 3"), (1, 1, "3")]
    assert all(d["task"] == "gsm8k" and d["lm_eval"]["filter"] == "strict-match" for d in data if d)
    assert rows[-1].data is None and "not valid JSON" in str(rows[-1].error)
    flexible = [r.data for r in read_lm_eval_samples(path, filter_name="flexible-extract") if r.data]
    assert [(d["id"], d["output"]) for d in flexible] == [(0, "7"), (0, "8"), (1, "3"), (1, "3")]
    strict = [r.data for r in read_lm_eval_samples(path, filter_name="strict-match", task="math") if r.data]
    assert [(d["id"], d["output"], d["task"]) for d in strict] == [(0, "7", "math"), (1, "3", "math")]


def test_reader_keeps_loglikelihood_lines_as_invalid_and_reads_choice_index(tmp_path: Path) -> None:
    path = tmp_path / "samples_mmlu_2024-05-01T12-30-00.jsonl"
    path.write_text(_sample(0, [[[-1.0, "False"]], [[-2.0, "True"]]], [[-1.0, "False"]], "1") + "\n"
                    + _sample(1, [["The answer is (B)"]], ["The answer is (B)"], "1") + "\n", encoding="utf-8")
    rows = read_lm_eval_samples(path, pack=cached_pack(None))
    assert rows[0].data is None and "log-likelihoods" in str(rows[0].error)
    assert rows[1].data is not None and rows[1].data["target"] == 1  # index from 0, like lm-eval


def test_reader_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not found"):
        read_lm_eval_samples(tmp_path / "missing.jsonl")
    with pytest.raises(ValueError, match="no lm-eval samples"):
        read_lm_eval_samples(tmp_path / "*.jsonl")
    assert main(["score", "--task", "gsm8k", str(tmp_path / "x.jsonl")]) == 2  # --task needs --from lm-eval


def test_filter_and_metrics_as_python() -> None:
    filt = NormalizeFilter(task="gsm8k")
    out = filt.apply([["So the answer is 12.", "no idea"], "#### 7"], [{}, {}])
    assert [len(x) for x in out] == [2, 1]
    assert normalize_acc(["12"], [out[0]]) == 0.5
    assert normalize_parse_rate(["12"], [out[0]]) == 0.5
    assert normalize_acc([7], [out[1][0]]) == 1.0
    with pytest.raises(ValueError, match="unknown task"):
        NormalizeFilter(task="no-such-task")
    with pytest.raises(ValueError, match="needs task"):
        NormalizeFilter()
    with pytest.raises(ValueError, match="raw response"):
        normalize_acc(["12"], ["The answer is 12"])


def test_filter_options_field_and_pack_mismatch(tmp_path: Path) -> None:
    filt = NormalizeFilter(task="mmlu", options_field="choices")
    (first,), (second,) = filt.apply([["The answer is (E)"], ["The answer is (B)"]],
                                     [{"choices": ["a", "b", "c", "d"]}, {"choices": ["a", "b", "c", "d"]}])
    assert read_normalized(first)["status"] == "out_of_range"  # type: ignore[index]
    assert normalize_acc([1], [second]) == 1.0 and normalize_acc(["b"], [second]) == 1.0
    other = tmp_path / "pack.yaml"
    other.write_text("name: other\ntasks: {qa: open_writing}\ntask_types:\n  open_writing: {chain: [], parser: text}\n",
                     encoding="utf-8")
    with pytest.raises(ValueError, match="same pack"):
        normalize_acc([1], [second], pack=str(other))


def test_lm_eval_registration() -> None:
    pytest.importorskip("lm_eval")
    from lm_eval.api.registry import get_filter, get_metric_aggregation, is_higher_better

    assert get_filter("harness_normalize") is NormalizeFilter
    assert get_metric_aggregation("normalize_acc") is not None and is_higher_better("normalize_parse_rate")
    assert get_metric_aggregation("acc") is not None  # lm-eval's own metrics are still there
