"""``normalize generate`` and ``normalize loglik`` end to end on a tiny random-weight GPT-2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scoring.cli import main
from scoring.cli._lm import batch_size_arg, choice_row, render_choice_report
from tests.lm_fixtures import not_causal_lm_dir, tiny_lm_dir

__all__ = ["not_causal_lm_dir", "tiny_lm_dir"]  # session fixtures used by name below

PACK = """\
name: lm-cli-test
tasks:
  qa: open_writing
  mc: multiple_choice
task_types:
  open_writing:
    chain: []
    parser: text
  multiple_choice:
    chain: []
    parser: text
"""

PROMPTS = [
    {"id": "q1", "task": "qa", "prompt": "Question: What is the capital of France? Answer:", "target": "Paris"},
    {"id": "q2", "task": "qa", "prompt": "今天天气", "target": "很好", "seed": 5},
]

CHOICE_ROWS = [
    {"id": "a", "context": "Question: What is the capital of France? Answer:", "choices": ["Paris", "Mars", "the sea"],
     "target": 0},
    {"id": "b", "question": "Which planet is known as the red planet?", "options": ["Venus", "Mars"], "target": "B"},
    {"id": "c", "context": "x", "choices": [], "target": 0},
    {"id": "d", "text": "The river flows into the sea."},
]


def write_jsonl(path: Path, rows: list[Any], extra_lines: tuple[str, ...] = ()) -> Path:
    lines = [json.dumps(r, ensure_ascii=False) for r in rows] + list(extra_lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def generate(model: Path, prompts: Path, out: Path, *extra: str) -> int:
    return main(["generate", "--model", str(model), str(prompts), "-o", str(out), "--device", "cpu",
                 "--max-new-tokens", "6", "--no-progress", *extra])


def test_generate_then_score_reads_the_predictions(tiny_lm_dir: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    prompts = write_jsonl(tmp_path / "prompts.jsonl", PROMPTS, ("{broken",))
    preds = tmp_path / "preds.jsonl"
    code = generate(tiny_lm_dir, prompts, preds, "-n", "2", "--temperature", "0.9", "--seed", "3",
                    "--cache", str(tmp_path / "cache.sqlite"))
    assert code == 0
    rows = read_jsonl(preds)
    assert [(r.get("id"), r.get("sample")) for r in rows] == [("q1", 0), ("q1", 1), ("q2", 0), ("q2", 1), (None, None)]
    assert all(isinstance(r["output"], str) for r in rows[:4])
    assert rows[4]["status"] == "invalid" and "output" not in rows[4]
    assert rows[0]["generation"]["seed"] == 3 and rows[2]["generation"]["seed"] == 5
    assert rows[0]["target"] == "Paris" and rows[0]["model"] == tiny_lm_dir.name
    assert "cache 0 hits, 4 misses" in capsys.readouterr().err

    pack = tmp_path / "pack.yaml"
    pack.write_text(PACK, encoding="utf-8")
    scored = tmp_path / "scored.jsonl"
    report = tmp_path / "report.json"
    code = main(["score", "--pack", str(pack), str(preds), "-o", str(scored), "--report", str(report),
                 "--no-progress"])
    assert code == 0
    scored_rows = read_jsonl(scored)
    assert [r.get("id") for r in scored_rows] == ["q1", "q1", "q2", "q2", None]
    assert [r["status"] for r in scored_rows] == ["ok"] * 4 + ["invalid"]
    assert all(r["normalized"] == r["output"] for r in scored_rows[:4])  # an empty chain keeps the text
    assert all(r["correct"] is False for r in scored_rows[:4])  # random weights never say "Paris"
    groups = json.loads(report.read_text(encoding="utf-8"))["groups"]
    assert [g["n"] for g in groups if g["name"] == "qa"] == [4]
    assert main(["score", "--pack", str(pack), str(preds), "--aggregate", "vote", "--no-progress"]) == 0


def test_a_second_run_is_served_by_the_cache(tiny_lm_dir: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    prompts = write_jsonl(tmp_path / "prompts.jsonl", PROMPTS)
    cache = str(tmp_path / "cache.sqlite")
    args = ("--temperature", "0.7", "--top-k", "20", "--top-p", "0.9", "--cache", cache, "--stop", "\n")
    assert generate(tiny_lm_dir, prompts, tmp_path / "a.jsonl", *args) == 0
    assert "cache 0 hits, 2 misses" in capsys.readouterr().err
    assert generate(tiny_lm_dir, prompts, tmp_path / "b.jsonl", *args) == 0
    err = capsys.readouterr().err
    assert "cache 2 hits, 0 misses" in err and "| 0 new tokens in" in err
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert generate(tiny_lm_dir, prompts, tmp_path / "c.jsonl", *args, "--seed", "1") == 0
    assert "cache 1 hits, 1 misses" in capsys.readouterr().err  # q2 keeps its own seed 5


def test_greedy_generate_to_stdout_is_deterministic(tiny_lm_dir: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    prompts = write_jsonl(tmp_path / "prompts.jsonl", PROMPTS)
    argv = ["generate", "--model", str(tiny_lm_dir), str(prompts), "--device", "cpu", "--max-new-tokens", "5",
            "--batch-size", "1"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main([*argv[:-1], "2"]) == 0
    assert capsys.readouterr().out == first
    assert [r["generation"]["do_sample"] for r in map(json.loads, first.splitlines())] == [False, False]


@pytest.mark.parametrize("command", ["generate", "loglik"])
def test_a_missing_model_dir_is_exit_2_with_one_line(command: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", PROMPTS)
    assert main([command, "--model", str(tmp_path / "no-such-model"), str(data)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err and err.startswith("normalize: error:")


@pytest.mark.parametrize("command", ["generate", "loglik"])
def test_a_dir_that_is_not_a_causal_lm_is_exit_2_with_one_line(command: str, tmp_path: Path, not_causal_lm_dir: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", PROMPTS)
    assert main([command, "--model", str(not_causal_lm_dir), str(data)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a causal language model" in err


def test_bad_options_are_exit_2(tiny_lm_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", PROMPTS)
    with pytest.raises(SystemExit) as exc:
        main(["generate", "--model", str(tiny_lm_dir), str(data), "--batch-size", "0"])
    assert exc.value.code == 2
    assert main(["generate", "--model", str(tiny_lm_dir), str(data), "--temperature", "-1"]) == 2
    assert "temperature" in capsys.readouterr().err
    assert main(["generate", "--model", str(tiny_lm_dir), str(tmp_path / "missing.jsonl")]) == 2


def test_without_torch_the_commands_say_how_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['torch'] = None\n"  # makes `import torch` raise ImportError
        "from scoring.cli import main\n"
        "sys.exit(main(['generate', '--model', '.', 'in.jsonl']))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "normalize: error: the LM commands need torch and transformers: install harness-normalize[lm]"]


def test_registering_the_commands_does_not_import_torch() -> None:
    code = ("import sys\nfrom scoring.cli import build_parser\nbuild_parser()\n"
            "print('torch' in sys.modules, 'transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "False False"


def test_loglik_writes_rows_and_a_report_and_caches(tiny_lm_dir: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    data = write_jsonl(tmp_path / "mc.jsonl", CHOICE_ROWS, ("not json",))
    out, report_path, cache = tmp_path / "ll.jsonl", tmp_path / "report.json", str(tmp_path / "c.sqlite")
    argv = ["loglik", "--model", str(tiny_lm_dir), str(data), "--device", "cpu", "--cache", cache, "--no-progress"]
    assert main([*argv, "-o", str(out), "--report", str(report_path)]) == 0
    table = capsys.readouterr().out
    assert "acc_norm" in table and "bits per byte" in table
    rows = read_jsonl(out)
    assert [r.get("id") for r in rows] == ["a", "b", "c", "d", None]
    assert [r["status"] for r in rows] == ["ok", "ok", "invalid", "ok", "invalid"]
    assert rows[1]["target_index"] == 1 and rows[1]["target"] == "B"
    assert set(rows[0]["predictions"]) == {"acc", "acc_norm", "per_token", "pmi"}
    assert len(rows[0]["logprobs"]) == 3 and all(lp < 0 for lp in rows[0]["logprobs"])
    assert rows[3]["kind"] == "text" and rows[3]["bits_per_byte"] > 0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["metrics"]["acc"]["n"] == 2 and report["n_errors"] == 1
    assert report["cache"]["hits"] == 0 and report["cache"]["writes"] > 0
    assert report["model"]["model_revision"].startswith("stat:")

    assert main([*argv, "-o", str(tmp_path / "ll2.jsonl"), "--format", "json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["cache"]["misses"] == 0 and again["cache"]["hits"] == report["cache"]["writes"]
    assert again["metrics"] == report["metrics"]
    assert read_jsonl(tmp_path / "ll2.jsonl") == rows

    assert main([*argv, "--format", "markdown"]) == 0
    assert capsys.readouterr().out.startswith("| metric | n | accuracy | 95% CI |")


def test_choice_row_maps_aliases_and_letters() -> None:
    assert choice_row({"prompt": "p", "options": ["x", "y", "z"], "target": "c"}) == {
        "prompt": "p", "context": "p", "options": ["x", "y", "z"], "choices": ["x", "y", "z"], "target": 2}
    assert choice_row({"context": "c", "choices": ["x"], "target": "Q"})["target"] == "Q"  # out of range: kept
    assert choice_row({"context": "c", "choices": ["x"], "target": 0})["target"] == 0


def test_choice_row_reads_options_with_the_one_options_reader() -> None:
    np = pytest.importorskip("numpy")
    row = choice_row({"question": "q", "options": np.array(["x", "y"]), "target": "B"})
    assert row["choices"] == ["x", "y"] and row["target"] == 1
    # a count or a bad value is passed on as written: the row check names it
    assert choice_row({"question": "q", "options": 4, "target": 0})["choices"] == 4
    assert choice_row({"question": "q", "options": ["x", 3], "target": 0})["choices"] == ["x", 3]


def test_batch_size_and_report_rendering_reject_bad_values() -> None:
    import argparse

    with pytest.raises(argparse.ArgumentTypeError):
        batch_size_arg("-3")
    with pytest.raises(argparse.ArgumentTypeError):
        batch_size_arg("big")
    with pytest.raises(ValueError, match="format"):
        render_choice_report({}, "html")


def test_chunked_scoring_groups_contexts_and_keeps_request_order(tiny_lm_dir: Path) -> None:
    # issue 13: with a progress bar the scorer gets chunks; they are ordered longest context
    # first with each context's requests together, and the results come back in request order
    from scoring.lm._backends import CachedScorer

    requests = [("A man", " sits"), ("The quick brown fox jumps", " over"), ("A man", " runs"),
                ("The cat", " sat"), ("The quick brown fox jumps", " high"), ("The cat", " ran")]
    whole = CachedScorer(tiny_lm_dir, device="cpu").loglikelihood(requests)
    seen: list[list[tuple[str, str]]] = []
    chunked = CachedScorer(tiny_lm_dir, device="cpu", chunk=2,
                           on_chunk=lambda done, total: None)
    real = chunked.scorer.loglikelihood

    def spy(todo: Any) -> Any:
        seen.append(list(todo))
        return real(todo)

    chunked.scorer.loglikelihood = spy  # type: ignore[method-assign]
    results = chunked.loglikelihood(requests)
    assert [r.logprob for r in results] == pytest.approx([r.logprob for r in whole], abs=1e-4)
    assert seen == [[requests[1], requests[4]], [requests[3], requests[5]],
                    [requests[0], requests[2]]]
