"""Dump every result of the shipped pack over a fixed corpus and print its count and sha256.

A change that should leave outputs byte-identical (a speed change, a refactor) must leave this
sha256 unchanged: run it before and after, on the same checkout's pack and Python, and compare.
``--out`` writes the results as JSONL so two dumps can be compared row by row
(``--diff A B`` prints the rows that differ).

The corpus, all seeded or shipped, read at run time:

* every golden sample of a task type in ``rules/samples/`` through its own task, and through one task of every
  other task type (what the reverse check does, so an out-of-scope change shows too);
* ``bench/_realshape.py``'s labelled GSM8K, MATH and MMLU outputs (``--n`` of each, seeds fixed);
* with ``--peer DIR``, the outputs of a peer corpus (``DIR/cases.jsonl``) through their tasks:
  they are read, never copied, so the dump holds results only when written with ``--out``
  outside the repository.

Each result is ``Result.to_json()`` (normalized text, answer, status, reason, the trace, the
pack hash) with the row's source and index.

    python bench/result_dump.py                       # count and sha256
    python bench/result_dump.py --peer ../shared/peer-corpus --out /tmp/before.jsonl
    python bench/result_dump.py --diff /tmp/before.jsonl /tmp/after.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from normalize import load_pack
from normalize.core._build import build_description

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _realshape

ROOT = Path(__file__).resolve().parent.parent


def _cases(peer: Path | None, n: int) -> Iterator[tuple[str, dict[str, Any]]]:
    pack = load_pack()
    one_task = {}
    for task, task_type in pack.tasks.items():
        one_task.setdefault(task_type, task)
    for path in sorted((ROOT / "rules" / "samples").glob("*.jsonl")):
        if path.name == "opt_in.jsonl":  # single opt-in rules' rows, not pack outputs
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            own = row.get("task", "")
            extra = {k: row[k] for k in ("options", "lang", "schema") if k in row}
            yield f"samples/{path.name}", {"text": row.get("output"), "task": own, **extra}
            own_type = pack.tasks.get(own, own)
            for task_type, task in sorted(one_task.items()):
                if task_type == own_type:
                    continue
                yield f"samples/{path.name}>{task_type}", {"text": row.get("output"), "task": task}
    for kind, task in (("gsm8k", "gsm8k"), ("math", "math500"), ("mmlu", "mmlu")):
        for sample in _realshape.corpus(kind, n, seed=20261202):
            extra = {"options": 4} if kind == "mmlu" else {}
            yield f"realshape/{kind}", {"text": sample.output, "task": task, **extra}
    if peer is not None:
        for line in (peer / "cases.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            extra = {k: row[k] for k in ("options",) if k in row}
            yield "peer", {"text": row.get("output"), "task": row.get("task", ""), **extra}


def dump(peer: Path | None, n: int) -> Iterator[str]:
    pack = load_pack()
    counts: dict[str, int] = {}
    for source, case in _cases(peer, n):
        i = counts[source] = counts.get(source, -1) + 1
        kwargs = {k: v for k, v in case.items() if k not in ("text", "task")}
        try:
            result: dict[str, Any] = pack.run(case["text"], case["task"], **kwargs).to_json()
        except ValueError as err:  # an unknown task or a bad option list: recorded, not lost
            result = {"error": f"{type(err).__name__}: {err}"}
        yield json.dumps({"source": source, "i": i, "task": case["task"], **result},
                         ensure_ascii=False, sort_keys=True, default=str)


def _diff(a: Path, b: Path) -> int:
    left = a.read_text(encoding="utf-8").splitlines()
    right = b.read_text(encoding="utf-8").splitlines()
    if len(left) != len(right):
        print(f"{len(left)} vs {len(right)} rows")
    moved = 0
    for x, y in zip(left, right, strict=False):
        if x != y:
            moved += 1
            if moved <= 20:
                print("-", x[:600])
                print("+", y[:600])
    print(f"{moved} rows differ")
    return 1 if moved or len(left) != len(right) else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="real-shaped outputs of each kind")
    ap.add_argument("--peer", type=Path, help="a peer corpus folder holding cases.jsonl")
    ap.add_argument("--out", type=Path, help="write the results as JSONL")
    ap.add_argument("--diff", type=Path, nargs=2, metavar=("A", "B"), help="compare two dumps")
    args = ap.parse_args()
    if args.diff:
        return _diff(*args.diff)
    digest = hashlib.sha256()
    rows = 0
    out = args.out.open("w", encoding="utf-8") if args.out else None
    try:
        for line in dump(args.peer, args.n):
            digest.update(line.encode("utf-8") + b"\n")
            rows += 1
            if out is not None:
                out.write(line + "\n")
    finally:
        if out is not None:
            out.close()
    print(f"build: {build_description()}")
    print(f"{rows} results, sha256 {digest.hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
