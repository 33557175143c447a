"""Time and size of the HTML report for a large run (default 100k rows).

Generates a seeded JSONL run over all six task types (chain-of-thought prose up to
``--max-bytes`` per output, markers, boxes, JSON, code; targets right about 60 % of the time),
then times, in one process, each step of ``normalize report RUN.jsonl -o OUT.html``:

* normalize + parse + score every row (what ``normalize score`` does: the reference);
* build the report (bootstrap intervals per task, task type and overall);
* rule effects (every changed row re-run without each rule that changed it);
* render the page and write it;

and prints each step's seconds, its ratio to the scoring step, and the file size.  With
``--browser`` it also times headless Chromium loading the page and running its script
(``--dump-dom``) against the bundled 27-row example page as the reference.  A figure, not a test.

    python bench/html_report.py                 # 100k rows
    python bench/html_report.py --n 20000       # quicker
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from normalize import load_pack
from scoring._items import item_of
from scoring._rule_effects import rule_effects
from scoring._scorefile import score_file
from scoring.html_report import DEFAULT_AUDIT_ROWS, ReportRun, render_html
from scoring.metrics import MathVerifier
from scoring.report import build_report

WORDS = ("the model first considers each option carefully and then checks the arithmetic again because a "
         "small slip changes the final result so we verify every step before answering").split()
ZH = "我们先分析题目条件，然后逐步计算，最后检查结果是否合理。"
TASKS = {"multiple_choice": ("mmlu", "ceval"), "math": ("gsm8k", "math"), "extractive_qa": ("squad",),
         "structured_json": ("structured_json",), "code": ("humaneval",), "open_writing": ("open_writing",)}


def _prose(rng: random.Random, max_bytes: int) -> str:
    target, parts, size = rng.randint(0, max_bytes), [], 0
    while size < target:
        piece = ZH if rng.random() < 0.3 else " ".join(rng.choices(WORDS, k=rng.randint(5, 15))) + "."
        parts.append(piece)
        size += len(piece.encode("utf-8")) + 1
    return "\n".join(parts)


def _mc(rng: random.Random, limit: int) -> tuple[str, Any, dict[str, Any]]:
    letter = rng.choice("ABCD")
    tail = rng.choice([f"The answer is ({letter}).", f"**Answer:** {letter}", f"答案是：“{letter}”。", "I am not sure.",
                       f"The answer is {letter} or {'B' if letter != 'B' else 'C'}."])
    think = "<think>" + _prose(rng, limit // 4) + "</think>" if rng.random() < 0.2 else ""
    target = letter if rng.random() < 0.6 else rng.choice("ABCD")
    return think + _prose(rng, limit) + "\n\n" + tail, target, {"options": 4}


def _math(rng: random.Random, limit: int) -> tuple[str, Any, dict[str, Any]]:
    n = rng.randint(-500, 10000)
    tail = rng.choice([f"#### {n}", f"The answer is ${n:,}.", f"**Final Answer:** \\boxed{{{n}}}", f"因此答案是 {n}"])
    return _prose(rng, limit) + "\n" + tail, str(n if rng.random() < 0.6 else n + 1), {}


def _qa(rng: random.Random, limit: int) -> tuple[str, Any, dict[str, Any]]:
    words = " ".join(rng.choices(WORDS, k=3))
    return _prose(rng, limit) + "\n\nThe answer is: **" + words + "**.", words if rng.random() < 0.6 else "other", {}


def _json(rng: random.Random, limit: int) -> tuple[str, Any, dict[str, Any]]:
    value = {f"k{i}": rng.choice([1, True, None, "v"]) for i in range(rng.randint(1, 8))}
    text = json.dumps(value).replace("true", "True") if rng.random() < 0.3 else json.dumps(value)
    return _prose(rng, limit // 2) + "\n```json\n" + text + "\n```\n", value if rng.random() < 0.6 else {}, {}


def _code(rng: random.Random, limit: int) -> tuple[str, Any, dict[str, Any]]:
    body = "def f():\n" + "\n".join(f"    x{i} = {i}" for i in range(rng.randint(1, 20))) + "\n    return 1"
    return _prose(rng, limit // 2) + f"\n```python\n{body}\n```\n", body if rng.random() < 0.6 else "pass", {}


def _writing(rng: random.Random, limit: int) -> tuple[str, Any, dict[str, Any]]:
    return _prose(rng, limit) + "   \n\n", None, {}


GENERATORS: dict[str, Callable[[random.Random, int], tuple[str, Any, dict[str, Any]]]] = {
    "multiple_choice": _mc, "math": _math, "extractive_qa": _qa, "structured_json": _json, "code": _code,
    "open_writing": _writing,
}


def write_corpus(path: Path, n: int, seed: int, max_bytes: int) -> int:
    rng = random.Random(seed)
    kinds = list(GENERATORS)
    size = 0
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            kind = kinds[i % len(kinds)]
            task = rng.choice(TASKS[kind])
            output, target, extra = GENERATORS[kind](rng, max_bytes)
            if rng.random() < 0.01:
                output = None
            row = {"id": i, "task": task, "output": output, "target": target, **extra}
            line = json.dumps(row, ensure_ascii=False) + "\n"
            size += len(line.encode("utf-8"))
            handle.write(line)
    return size


def _chromium_seconds(binary: str, page: Path) -> float:
    with tempfile.TemporaryDirectory() as profile:
        start = time.perf_counter()
        subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                        "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                       capture_output=True, check=True, timeout=600)
        return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000, help="rows in the run (default 100000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-bytes", type=int, default=1500, help="longest prose before each answer (default 1500)")
    ap.add_argument("--audit-rows", type=int, default=DEFAULT_AUDIT_ROWS)
    ap.add_argument("--browser", action="store_true", help="also time headless chromium opening the page")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "run.jsonl"
        size = write_corpus(corpus, args.n, args.seed, args.max_bytes)
        pack = load_pack()
        print(f"run: {args.n} rows, {size / 1e6:.1f} MB, seed {args.seed}; pack hash {pack.short_hash}")
        steps: list[tuple[str, float]] = []
        with MathVerifier() as verifier:
            start = time.perf_counter()
            outs, scored = score_file(pack, corpus, verifier=verifier)
            steps.append(("normalize + score (reference)", time.perf_counter() - start))
            start = time.perf_counter()
            items = [item_of(sample) for sample in scored]
            report = build_report(items, pack)
            steps.append(("build report (1000 resamples)", time.perf_counter() - start))
            start = time.perf_counter()
            effects = rule_effects(pack, scored, verifier=verifier)
            steps.append(("rule effects (every row)", time.perf_counter() - start))
            start = time.perf_counter()
            rule_effects(pack, scored, verifier=verifier, max_rows=min(10_000, args.n))
            sampled = time.perf_counter() - start
        start = time.perf_counter()
        page = Path(tmp) / "report.html"
        html = render_html(pack, [ReportRun("run", str(corpus), outs, scored, report, effects)],
                           audit_rows=args.audit_rows)
        page.write_text(html, encoding="utf-8")
        steps.append((f"render + write ({args.audit_rows} audit rows)", time.perf_counter() - start))
        reference = steps[0][1]
        print(f"{'step':<42} {'seconds':>9} {'x score':>8}")
        for name, seconds in steps:
            print(f"{name:<42} {seconds:>9.1f} {seconds / reference:>8.2f}")
        total = sum(s for _, s in steps)
        print(f"{'total (normalize report)':<42} {total:>9.1f} {total / reference:>8.2f}")
        print(f"{'(rule effects on a 10k-row sample instead)':<42} {sampled:>9.1f} {sampled / reference:>8.2f}")
        print(f"page: {page.stat().st_size / 1e6:.2f} MB ({page.stat().st_size:,} bytes), "
              f"{len(report['groups'])} groups drawn, {min(args.audit_rows, args.n)} audit rows embedded")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory of this process: {peak:,.0f} MB (the run's rows with their traces are held in memory)")
        changed = sum(1 for o in outs if o.get("trace"))
        print(f"rows changed by the rules: {changed}; rule re-runs: "
              f"{sum(e['changed'] + e['rejected'] for e in effects['rules'])}")
        binary = shutil.which("chromium")
        if args.browser and binary:
            example = Path(tmp) / "example.html"
            from scoring.cli import main as cli

            examples = Path(__file__).resolve().parent.parent / "examples" / "predictions.jsonl"
            if cli(["report", str(examples), "-o", str(example)]) != 0:
                sys.exit("the example report failed")
            small = _chromium_seconds(binary, example)
            big = _chromium_seconds(binary, page)
            print(f"chromium load + script: example page {small:.2f} s, this page {big:.2f} s ({big / small:.2f}x)")


if __name__ == "__main__":
    main()
