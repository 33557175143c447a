"""End to end: ``normalize run IN -o OUT --trace none --jobs 1`` against the JSONL floor and a
minimal lm-eval-style script, on real-shaped GSM8K rows (issue 26, target 1).

Three commands read the same JSONL file of ``--n`` real-shaped GSM8K rows
(``bench/_realshape.py``: arithmetic and LaTeX in every reasoning line, 20 % without a final
marker, 0.5–4 KB) and write one JSONL row per input row:

* **floor** — per row ``json.loads``, add four fields, ``json.dumps``, write: the least any
  tool that reads and writes these rows does;
* **lm-eval-style** — the rows read, lm-eval's two GSM8K filter pipelines applied as lm-eval
  applies them (``strict-match``: ``RegexFilter`` on ``#### (-?[0-9.,]+)`` then take-first;
  ``flexible-extract``: ``RegexFilter(group_select=-1)`` on ``(-?[$0-9.,]{2,})|(-?[0-9]+)``
  then take-first), both answers written beside each row;
* **normalize run** — this project's CLI, one process (``--jobs 1``), no trace.

Each runs as its own process, in turns (ABC, then CBA, ...), timed in CPU seconds of the child
(user + system: other load on a shared machine does not count).  Start-up (interpreter,
imports, pack load) is measured apart, on a one-row file, and subtracted: printed are the
steady rows/s and the two ratios the issue names (ours / floor, ours / lm-eval-style), with and
without start-up.  Then each tool's answers are checked against the answer each output states
(labelled corpus; lm-eval's answers after its own ``regexes_to_ignore``: ``,``, ``$``, a final
``.``), on the marked and the unmarked outputs apart.  A figure, not a test.

The children write and read bytecode caches (in a temporary ``PYTHONPYCACHEPREFIX``, even where
``PYTHONDONTWRITEBYTECODE`` is set), as an installed package's are: otherwise every start-up of a
source tree compiles its modules again, which no user's run does; the fastest turn counts.

    python bench/e2e_floor.py            # 20,000 rows
    python bench/e2e_floor.py --n 5000   # quicker
    python bench/e2e_floor.py --site /tmp/site   # a wheel installed with pip install --target /tmp/site
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _realshape

FLOOR = r"""
import json, sys
with open(sys.argv[1], encoding="utf-8") as src, open(sys.argv[2], "w", encoding="utf-8") as dst:
    for line in src:
        row = json.loads(line)
        row["normalized"] = row["output"]
        row["answer"] = None
        row["status"] = "ok"
        row["reason"] = None
        dst.write(json.dumps(row, ensure_ascii=False) + "\n")
"""

LMEVAL = r"""
import json, sys
from lm_eval.filters.extraction import RegexFilter
from lm_eval.filters.selection import TakeFirstFilter
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
docs = [{}] * len(rows)
pipelines = {
    "strict-match": [RegexFilter(regex_pattern=r"#### (\-?[0-9\.\,]+)"), TakeFirstFilter()],
    "flexible-extract": [RegexFilter(group_select=-1, regex_pattern=r"(-?[$0-9.,]{2,})|(-?[0-9]+)"), TakeFirstFilter()],
}
for name, steps in pipelines.items():
    resps = [[row["output"]] for row in rows]
    for step in steps:
        resps = step.apply(resps, docs)
    for row, answer in zip(rows, list(resps)):
        row[name] = answer
with open(sys.argv[2], "w", encoding="utf-8") as dst:
    for row in rows:
        dst.write(json.dumps(row, ensure_ascii=False) + "\n")
"""

_IGNORE = (re.compile(","), re.compile(r"\$"), re.compile(r"(?s).*#### "), re.compile(r"\.$"))


def _lmeval_normal(answer: str) -> str:
    """lm-eval's gsm8k ``exact_match`` normalization (``regexes_to_ignore``), then strip."""
    for pattern in _IGNORE:
        answer = pattern.sub("", answer)
    return answer.strip()


def _cpu(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    """CPU seconds (user + system) of the child process running ``cmd`` in ``cwd`` (not the
    caller's directory: ``python -m`` puts it first on the path)."""
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:4]} failed ({proc.returncode}): {err[-2000:]}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="turns of the three commands (default 3)")
    ap.add_argument("--installed", action="store_true",
                    help="run the installed package (no PYTHONPATH to this checkout)")
    ap.add_argument("--site", metavar="DIR",
                    help="run the package installed in DIR (pip install --target DIR): PYTHONPATH=DIR")
    args = ap.parse_args()

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    if args.site:
        env["PYTHONPATH"] = str(Path(args.site).resolve())
        cwd_note = f"installed in {args.site}"
    elif args.installed:
        env.pop("PYTHONPATH", None)
        cwd_note = "installed package"
    else:
        env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
        cwd_note = f"source tree {root}"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        found = subprocess.run(
            [sys.executable, "-c", "import normalize; from normalize.core._build import build_description; "
             "print(build_description()); print(normalize.__file__)"],
            env=env, capture_output=True, text=True, check=True, cwd=folder,
        ).stdout.strip().splitlines()
        build, imported = found[0], found[-1]
        _measure(args, folder, env, build, imported, cwd_note)


def _measure(args: argparse.Namespace, folder: Path, env: dict[str, str], build: str, imported: str,
             cwd_note: str) -> None:
    samples = _realshape.corpus("gsm8k", args.n, args.seed)
    big, one = folder / "in.jsonl", folder / "one.jsonl"
    with big.open("w", encoding="utf-8") as handle:
        for i, s in enumerate(samples):
            handle.write(json.dumps({"id": i, "task": "gsm8k", "output": s.output, "target": s.gold},
                                    ensure_ascii=False) + "\n")
    one.write_text(big.read_text(encoding="utf-8").splitlines(keepends=True)[0], encoding="utf-8")
    (folder / "floor.py").write_text(FLOOR, encoding="utf-8")
    (folder / "lmeval.py").write_text(LMEVAL, encoding="utf-8")

    def command(tool: str, src: Path, dst: Path) -> list[str]:
        if tool == "floor":
            return [sys.executable, str(folder / "floor.py"), str(src), str(dst)]
        if tool == "lm-eval-style":
            return [sys.executable, str(folder / "lmeval.py"), str(src), str(dst)]
        return [sys.executable, "-m", "scoring.cli", "run", str(src), "-o", str(dst), "--trace", "none",
                "--jobs", "1", "--no-progress"]

    tools = ["floor", "lm-eval-style", "normalize run"]
    full: dict[str, list[float]] = {t: [] for t in tools}
    start_up: dict[str, list[float]] = {t: [] for t in tools}
    for turn in range(args.repeat):
        for tool in tools if turn % 2 == 0 else tools[::-1]:
            full[tool].append(_cpu(command(tool, big, folder / f"{tool}.out"), env, folder))
            start_up[tool].append(_cpu(command(tool, one, folder / f"{tool}.one"), env, folder))
    outputs = {t: [json.loads(line) for line in (folder / f"{t}.out").open(encoding="utf-8")] for t in tools}
    mean_chars = sum(len(s.output) for s in samples) / len(samples)

    print(f"{args.n} real-shaped GSM8K rows, mean {mean_chars:.0f} chars, {big.name}; CPU s of each child, "
          f"{args.repeat} turns (ABC/CBA), fastest counts; {cwd_note}")
    print(f"build: {build}; normalize from {imported}")
    steady = {t: (args.n - 1) / (min(full[t]) - statistics.median(start_up[t])) for t in tools}
    whole = {t: args.n / min(full[t]) for t in tools}
    print(f"{'command':<16} {'CPU s':>7} {'start-up s':>11} {'rows/s steady':>14} {'rows/s whole':>13}")
    for t in tools:
        print(f"{t:<16} {min(full[t]):7.2f} {statistics.median(start_up[t]):11.2f} {steady[t]:>14,.0f} {whole[t]:>13,.0f}")
    ours = "normalize run"
    print(f"normalize run / JSONL floor:    {steady[ours] / steady['floor']:6.1%} steady   "
          f"{whole[ours] / whole['floor']:6.1%} with start-up   (target >= 50%)")
    print(f"normalize run / lm-eval-style:  {steady[ours] / steady['lm-eval-style']:6.2f}x steady   "
          f"{whole[ours] / whole['lm-eval-style']:6.2f}x with start-up   (target >= 1.5x)")

    _realshape.print_answer_check(samples, {
        "normalize run": [row["answer"] for row in outputs[ours]],
        "lm-eval strict-match": [_lmeval_normal(row["strict-match"]) for row in outputs["lm-eval-style"]],
        "lm-eval flexible-extract": [_lmeval_normal(row["flexible-extract"]) for row in outputs["lm-eval-style"]],
    }, width=26)


if __name__ == "__main__":
    main()
