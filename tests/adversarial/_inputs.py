"""Adversarial inputs, generated at test time (nothing is stored in the repository)."""

from __future__ import annotations

import json
import random
from pathlib import Path

#: One bad line of each kind, as raw bytes, with what its row must say.
BAD_LINES: dict[str, bytes] = {
    "huge_integer": b'{"id": "a", "task": "gsm8k", "output": "1", "n": ' + b"9" * 5000 + b"}",
    "deep_nesting": b'{"id": "b", "task": "gsm8k", "output": "1", "meta": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "nan_output": b'{"id": "c", "task": "gsm8k", "output": NaN}',
    "infinity_output": b'{"id": "d", "task": "gsm8k", "output": -Infinity}',
    "lone_surrogate": b'{"id": "e", "task": "gsm8k", "output": "The answer is \\ud800 42"}',
    "invalid_utf8": b'{"id": "f", "task": "gsm8k", "output": "caf\xe9 \xff 42"}',
    "surrogate_bytes": b'{"id": "g", "task": "gsm8k", "output": "\xed\xa0\x80 42"}',
    "not_json": b"{this is not json",
    "array": b"[1, 2, 3]",
    "moderately_deep": b'{"id": "h", "task": "gsm8k", "output": "1", "meta": ' + b"[" * 500 + b"]" * 500 + b"}",
}

#: Lines that stay valid rows: the damage is only in the target, which scoring reports.
BAD_TARGETS: dict[str, bytes] = {
    "nan_target": b'{"id": "t1", "task": "gsm8k", "output": "#### 4", "target": NaN}',
    "overflow_target": b'{"id": "t2", "task": "gsm8k", "output": "#### 4", "target": 1e999}',
    "huge_exponent_target": b'{"id": "t3", "task": "gsm8k", "output": "#### 4", "target": "1e10000000"}',
    "deep_json_target": (b'{"id": "t4", "task": "json_extraction", "output": "{}", "target": "'
                         + b"[" * 100_000 + b'"}'),
    "nan_in_json_target": b'{"id": "t5", "task": "json_extraction", "output": "{}", "target": {"a": NaN}}',
}

GOOD = {"id": "ok", "task": "gsm8k", "output": "So the answer is #### 42", "target": "42"}


def good_line(i: int) -> bytes:
    return json.dumps({**GOOD, "id": f"ok{i}"}).encode()


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def mixed_rows(n: int, *, seed: int = 0, pad: int = 0) -> list[bytes]:
    """``n`` lines of several task types, some bad; ``pad`` extra bytes per row in a ``meta`` field."""
    rng = random.Random(seed)
    kinds = [
        ("gsm8k", lambda: f"Let me think step by step. {rng.randint(1, 99)} + {rng.randint(1, 99)}. #### {rng.randint(1, 200)}",
         lambda: str(rng.randint(1, 200))),
        ("mmlu", lambda: f"The answer is ({rng.choice('ABCD')}).", lambda: rng.choice("ABCD")),
        ("math", lambda: rf"So \boxed{{\frac{{{rng.randint(1, 9)}}}{{{rng.randint(2, 9)}}}}}", lambda: "1/2"),
        ("squad", lambda: f"Answer: the {rng.choice(['red', 'blue'])} house", lambda: "the red house"),
        ("json_extraction", lambda: '```json\n{"b": 1, "a": [' + str(rng.randint(0, 3)) + "]}\n```",
         lambda: '{"a": [1], "b": 1}'),
    ]
    lines: list[bytes] = []
    for i in range(n):
        if i % 97 == 13:
            lines.append(b'{"id": "bad' + str(i).encode() + b'", "task": "gsm8k", "output": "\xff"}')
            continue
        task, output, target = kinds[i % len(kinds)]
        row = {"id": i, "task": task, "output": output(), "target": target(), "run": i % 3}
        if task == "mmlu":
            row["options"] = 4
        if pad:
            row["meta"] = rng.randbytes(pad // 2).hex()
        lines.append(json.dumps(row, ensure_ascii=False).encode())
    return lines
