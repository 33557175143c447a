"""Speedup of ``--jobs N`` over one job for ``normalize run`` and ``score`` (issue 13).

Generates a seeded JSONL input in a temporary directory, runs each command with ``--jobs 1``
and ``--jobs N`` (interleaved, best of ``--repeat``), checks that the outputs are byte-identical
and prints the wall-clock speedup.

On shared cores the wall clock only shows the cores that happened to be free, so the CPU time
of each part is printed too, measured inside the command: start-up (imports and pack loading,
measured on a one-row input), the parent's loop (reading, writing, totals) and the workers.
``model`` is the speedup N free cores give by those figures: one job takes its CPU time; N
jobs take start-up + max(parent loop, workers / N), as the parent runs beside the workers
("after start-up": the same without the fixed start-up, i.e. the throughput on long inputs).

    python bench/jobs_speedup.py                  # 200 MB input (~78k rows), --jobs 2
    python bench/jobs_speedup.py --mb 40 --repeat 1
    python bench/jobs_speedup.py --mb 80 --jobs 4
    python bench/jobs_speedup.py --installed      # the installed (e.g. compiled) package

The default input is large (~78k rows of 3 KB: the scale of the 100k-row runs the target is
about): a process starts in ~0.45 s whatever the input (imports, the pack), which ``--jobs``
cannot share, so a small input shows that fixed cost more than the throughput (40 MB: ~1.6x;
the "after start-up" model line gives the throughput alone).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rows import write_rows

ROOT = Path(__file__).resolve().parent.parent

_MEASURE = """
import resource, sys
from scoring.cli import main
code = main(sys.argv[1:])
own = resource.getrusage(resource.RUSAGE_SELF)
workers = resource.getrusage(resource.RUSAGE_CHILDREN)
print("cpu", own.ru_utime + own.ru_stime, workers.ru_utime + workers.ru_stime, file=sys.stderr)
raise SystemExit(code)
"""


def measure(args: list[str], pycache: Path, installed: bool = False) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds of the command's own process, CPU seconds of its workers).

    The command runs from the source tree (``installed``: the package this interpreter imports
    outside it, e.g. the compiled wheel ``pip install .`` gives) with its compiled bytecode kept
    in ``pycache``, as an installed package has it (pip compiles it at install time): where
    ``PYTHONDONTWRITEBYTECODE`` is set, every start would otherwise compile all the package's
    modules again (~0.13 s)."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(pycache)}
    if not installed:
        env["PYTHONPATH"] = str(ROOT)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True, env=env, cwd=pycache.parent
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr}")
    _, own, workers = next(x for x in done.stderr.splitlines() if x.startswith("cpu ")).split()
    return seconds, float(own), float(workers)


def _build(installed: bool, folder: Path) -> str:
    """What the measured commands import: compiled modules or source (normalize.core._build)."""
    env = {**os.environ}
    if not installed:
        env["PYTHONPATH"] = str(ROOT)
    probe = "from normalize.core._build import build_description; print(build_description())"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=folder, check=True)
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=200, help="input size in MB (default 200)")
    parser.add_argument("--jobs", type=int, default=2, help="jobs compared with one (default 2)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each, the best counts (default 2)")
    parser.add_argument("--installed", action="store_true",
                        help="run the installed package (e.g. the compiled wheel of pip install .), not the source tree")
    args = parser.parse_args()
    n = args.jobs
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pycache = folder / "pycache"
        src, tiny = folder / "in.jsonl", folder / "tiny.jsonl"
        rows = write_rows(src, total_bytes=args.mb << 20, output_bytes=3000, prompt_bytes=200)
        write_rows(tiny, total_bytes=1, output_bytes=3000, prompt_bytes=200)
        print(f"build: {_build(args.installed, folder)}")
        print(f"input: {rows:,} rows, {src.stat().st_size / (1 << 20):.1f} MB; {os.cpu_count()} cores; "
              f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for command in ("run", "score"):
            extra = ["--bootstrap", "100"] if command == "score" else []
            startup = min(measure([command, str(tiny), "-o", str(folder / "tiny.out"), "--jobs", "1", *extra], pycache,
                                  args.installed)[1]
                          for _ in range(args.repeat))
            wall: dict[int, float] = {}
            cpu: dict[int, tuple[float, float]] = {}
            outputs: dict[int, bytes] = {}
            for _ in range(args.repeat):
                for jobs in (1, n):
                    out = folder / f"{command}.{jobs}.jsonl"
                    seconds, own, workers = measure([command, str(src), "-o", str(out), "--jobs", str(jobs),
                                                     "--no-progress", *extra], pycache, args.installed)
                    wall[jobs] = min(wall.get(jobs, float("inf")), seconds)
                    cpu[jobs] = min(cpu.get(jobs, (float("inf"), 0.0)), (own, workers))
                    outputs[jobs] = out.read_bytes()
            same = outputs[1] == outputs[n]
            one = cpu[1][0]
            own, workers = cpu[n]
            modelled = startup + max(own - startup, workers / n)
            steady = (one - startup) / max(own - startup, workers / n)
            print(f"{command:<6} wall: --jobs 1 {wall[1]:6.2f}s, --jobs {n} {wall[n]:6.2f}s, "
                  f"speedup {wall[1] / wall[n]:.2f}x; output identical: {same}")
            print(f"{'':<6} CPU: one job {one:.2f}s (start-up {startup:.2f}s); {n} jobs: parent {own:.2f}s, "
                  f"workers {workers:.2f}s (overhead {(own + workers) / one - 1:+.0%}); "
                  f"model on {n} free cores: {one / modelled:.2f}x end to end, {steady:.2f}x after start-up")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
