"""Wall-clock speedup of ``--jobs N`` over one job for ``normalize run`` and ``score`` (issue 13).

Generates a seeded JSONL input in a temporary directory, runs each command with ``--jobs 1``
and ``--jobs N`` (interleaved, best of ``--repeat``), checks that the outputs are byte-identical
and prints the speedup.  The machine's load average is printed beside it: on shared cores the
speedup is bounded by the cores that are actually free, so the CPU seconds of each run (the
command and its workers) are printed too: ``N x CPU(1 job) / CPU(N jobs)`` is the speedup N
free cores would give, the work being split evenly in chunks.

    python bench/jobs_speedup.py                  # 12 MB input, --jobs 2
    python bench/jobs_speedup.py --mb 40 --jobs 4
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rows import write_rows

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # includes the workers the CLI reaped
    return usage.ru_utime + usage.ru_stime


def timed(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and its worker processes)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cpu, start = _cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "scoring.cli", *args], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr}")
    return seconds, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=12, help="input size in MB (default 12)")
    parser.add_argument("--jobs", type=int, default=2, help="jobs compared with one (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, the best counts (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        src = folder / "in.jsonl"
        rows = write_rows(src, total_bytes=args.mb << 20, output_bytes=3000, prompt_bytes=200)
        print(f"input: {rows:,} rows, {src.stat().st_size / (1 << 20):.1f} MB; {os.cpu_count()} cores; "
              f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for command in ("run", "score"):
            best: dict[int, float] = {}
            cpu: dict[int, float] = {}
            outputs: dict[int, bytes] = {}
            for _ in range(args.repeat):
                for jobs in (1, args.jobs):
                    out = folder / f"{command}.{jobs}.jsonl"
                    extra = ["--bootstrap", "100"] if command == "score" else []
                    seconds, used = timed([command, str(src), "-o", str(out), "--jobs", str(jobs), "--no-progress",
                                           *extra])
                    best[jobs] = min(best.get(jobs, float("inf")), seconds)
                    cpu[jobs] = min(cpu.get(jobs, float("inf")), used)
                    outputs[jobs] = out.read_bytes()
            same = outputs[1] == outputs[args.jobs]
            print(f"{command:<6} --jobs 1: {best[1]:6.2f}s ({rows / best[1]:7,.0f} rows/s)   "
                  f"--jobs {args.jobs}: {best[args.jobs]:6.2f}s ({rows / best[args.jobs]:7,.0f} rows/s)   "
                  f"speedup {best[1] / best[args.jobs]:.2f}x   output identical: {same}")
            print(f"{'':<6} CPU: {cpu[1]:.2f}s with one job, {cpu[args.jobs]:.2f}s with {args.jobs} "
                  f"(overhead {cpu[args.jobs] / cpu[1] - 1:+.0%}); on {args.jobs} free cores the speedup would be "
                  f"about {args.jobs * cpu[1] / cpu[args.jobs]:.2f}x")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
