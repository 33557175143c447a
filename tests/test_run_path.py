"""``normalize run``'s row path (issue 26, target 1): no trace built for ``--trace none``, output
rows built directly but equal to the typed path's, output written in blocks, a start-up without
the scoring layer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from normalize.core import engine
from normalize.core import pack as pack_module
from normalize.core.pack import load_pack
from normalize.io._io import to_input_row
from normalize.io._jsonl import decode_line, encode_row
from normalize.io.rows import normalize_row, output_row, shape_trace
from normalize.io.stream import OUTPUT_BUFFER, open_output

ROOT = Path(__file__).resolve().parent.parent

#: Rows of every kind the row path branches on: runnable rows of each task type, rows refused
#: for each reason Row.parse, the task lookup or the row schema gives, rows whose own fields
#: collide with the output's (``trace``, ``status``, ``extra``), lang and reasoning rows.
ROWS = [
    {"id": 1, "task": "gsm8k", "output": "<think>hmm</think>Step 1: 3 + 4 = 7.\n#### 7", "target": "7"},
    {"id": 2, "task": "mmlu", "output": "Option A is wrong. The answer is (B).", "options": 4},
    {"id": 3, "task": "math", "output": "So $x = \\boxed{\\frac{1}{2}}$.", "trace": "old", "status": "pre"},
    {"id": 4, "task": "structured_json", "output": '{"age": "87"}',
     "schema": {"properties": {"age": {"type": "integer"}}}},
    {"id": 5, "task": "gsm8k", "output": "Ответ: 72."},
    {"id": 6, "task": "gsm8k", "output": "", "reasoning_content": "a long thought"},
    {"id": 7, "task": "gsm8k", "output": None},
    {"id": 8, "task": "gsm8k", "output": "The answer is 5.", "extra": {"mine": 1}, "lang": "en"},
    {"id": 9, "task": "gsm8k"},
    {"id": 10, "output": "x"},
    {"id": 11, "task": "no_such_task", "output": "1"},
    {"id": 12, "task": "gsm8k", "output": 3},
    {"id": 13, "task": "mmlu", "output": "B", "options": 4.5},
    {"id": 14, "task": "structured_json", "output": "{}", "schema": 3},
    {"id": 15, "task": "", "output": "1"},
]


def _lines() -> list[bytes]:
    lines = [json.dumps(row, ensure_ascii=False).encode() for row in ROWS]
    for path in sorted((ROOT / "rules" / "samples").glob("*.jsonl")):
        lines += [line for line in path.read_bytes().splitlines() if line.strip()][:40]
    return [*lines, b"not json", b"[1, 2]"]


@pytest.mark.parametrize("mode", ["none", "rules", "full"])
def test_output_rows_are_the_typed_paths_rows(mode: str) -> None:
    pack = load_pack()
    for number, raw in enumerate(_lines(), start=1):
        line = decode_line(raw, number, keep_text=False)
        expected = shape_trace(normalize_row(pack, to_input_row(decode_line(raw, number, keep_text=False))), mode)
        got = output_row(pack, line, mode)
        assert encode_row(got) == encode_row(expected), raw[:80]


def test_no_trace_is_built_for_trace_none(monkeypatch: pytest.MonkeyPatch) -> None:
    pack = load_pack()
    text = "<think>hmm</think>**The answer is ５０%.**"
    traced = pack.run(text, "gsm8k")
    assert traced.trace  # the rules change this text: a recorded run has steps
    asked: list[bool] = []
    real = pack_module.run_specs

    def spying(*args: object) -> object:
        asked.append(bool(args[4]) if len(args) > 4 else True)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(pack_module, "run_specs", spying)
    bare = pack.run(text, "gsm8k", trace=False)
    assert bare.trace == ()
    assert asked == [False]  # the engine was asked for no trace steps at all
    for field in ("raw", "text", "status", "reason", "answer", "task_type", "rules_hash", "extra"):
        assert getattr(bare, field) == getattr(traced, field), field
    out = output_row(pack, decode_line(json.dumps({"task": "gsm8k", "output": text}).encode(), 1), "none")
    assert "trace" not in out and out["answer"] == traced.answer


def test_run_specs_without_record_gives_the_same_fields() -> None:
    chain = load_pack().task_types["math"].chain
    for text in ["#### 1,000", "The answer is \\boxed{\\frac{3}{4}}.", "no answer here", "Ｘ＝３"]:
        recorded = engine.run_specs(chain, text, 1.0, float("inf"))
        bare = engine.run_specs(chain, text, 1.0, float("inf"), record=False)
        assert bare[4] == ()
        assert bare[:4] + bare[5:] == recorded[:4] + recorded[5:]


def test_output_goes_out_in_blocks(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    line = encode_row({"id": 1, "output": "x" * 2000})
    rows = (OUTPUT_BUFFER // 2) // len(line)  # half a block: nothing reaches the file yet
    with open_output(out, meta={"m": 1}, resume=False) as output:
        for _ in range(rows):
            output.write(line)
        assert Path(f"{out}.partial").stat().st_size == 0  # one write a row would have written them
        output.commit()
    assert out.read_bytes() == line * rows


def test_stop_flushes_the_block_for_resume(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    line = encode_row({"id": 1, "output": "y"})
    with open_output(out, meta={"m": 1}, resume=False) as output:
        for _ in range(10):
            output.write(line)
        output.stop()
    assert Path(f"{out}.partial").read_bytes() == line * 10 and not out.exists()
    with open_output(out, meta={"m": 1}, resume=True) as output:
        assert output.rows_kept == 10
        output.write(line)
        output.commit()
    assert out.read_bytes() == line * 11


def test_run_starts_without_the_scoring_layer(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": 1, "task": "gsm8k", "output": "#### 4"}) + "\n", encoding="utf-8")
    code = ("import sys; from scoring.cli import main; "
            f"rc = main(['run', {str(src)!r}, '-o', {str(tmp_path / 'out.jsonl')!r}, '--trace', 'none', '--jobs', '1']); "
            "print(rc, sorted(m for m in sys.modules if m == 'numpy' or (m.startswith('scoring.') and m != 'scoring.cli')))")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120, check=True)
    assert done.stdout.split() == ["0", "[]"]
    assert json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8"))["answer"] == "4"
