"""Seeded JSONL rows for the streaming benchmarks: realistic fields, several task types."""

from __future__ import annotations

import json
import random
from pathlib import Path

WORDS = (
    "the model first considers each option carefully and then checks the arithmetic again "
    "because a small slip changes the final result so we verify every step before answering"
).split()


def _prose(rng: random.Random, size: int) -> str:
    parts: list[str] = []
    held = 0
    while held < size:
        piece = " ".join(rng.choices(WORDS, k=rng.randint(5, 15))) + "."
        parts.append(piece)
        held += len(piece) + 1
    return "\n".join(parts)


def row(rng: random.Random, i: int, *, output_bytes: int, prompt_bytes: int) -> dict[str, object]:
    """One row of a harness file: a prompt, a chain-of-thought output and a target."""
    thought = _prose(rng, rng.randint(output_bytes // 2, output_bytes))
    kind = i % 4
    if kind == 0:
        value = rng.randint(1, 500)
        task, output, target = "gsm8k", f"{thought}\n#### {value}", str(value if rng.random() < 0.7 else value + 1)
    elif kind == 1:
        letter = rng.choice("ABCD")
        task, output, target = "mmlu", f"{thought}\nThe answer is ({letter}).", rng.choice("ABCD")
    elif kind == 2:
        task, output, target = "math", f"{thought}\nSo the answer is $\\boxed{{\\frac{{1}}{{2}}}}$.", "1/2"
    else:
        task, output, target = "squad", f"{thought}\nAnswer: the red house", "the red house"
    data: dict[str, object] = {"id": i, "task": task, "prompt": _prose(rng, prompt_bytes), "output": output,
                               "target": target, "run": i % 2}
    if task == "mmlu":
        data["options"] = 4
    return data


def write_rows(path: Path, *, total_bytes: int, seed: int = 0, output_bytes: int = 1500,
               prompt_bytes: int = 2000) -> int:
    """Write rows until the file holds ``total_bytes``; returns the row count.

    Rows are generated in a pool of 500 and repeated (with fresh ids), so writing 500 MB
    takes seconds, not minutes.
    """
    rng = random.Random(seed)
    pool = [row(rng, i, output_bytes=output_bytes, prompt_bytes=prompt_bytes) for i in range(500)]
    count = written = 0
    with path.open("w", encoding="utf-8") as handle:
        while written < total_bytes:
            data = dict(pool[count % len(pool)])
            data["id"] = count
            line = json.dumps(data, ensure_ascii=False) + "\n"
            handle.write(line)
            written += len(line.encode("utf-8"))
            count += 1
    return count
