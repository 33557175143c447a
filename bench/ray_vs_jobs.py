"""Ray Data with N actors against ``normalize run --jobs N`` on the same rows (issue 27, point 6).

Writes ``--rows`` seeded rows (bench/_rows.py: gsm8k, mmlu, math, squad; short outputs, as RL
rollouts scored per step are) as JSONL and as Parquet, then times, interleaved:

* ``jobs``: ``normalize run IN.jsonl -o OUT.jsonl --jobs N --trace none`` in a child process
  (the CLI's fastest path: workers read byte ranges) — peak RSS of the parent and of the
  largest worker;
* ``jobs-parquet``: the same from and to Parquet;
* ``ray``: ``ray.data.read_parquet(SHARDS).map_batches(NormalizeBatches, concurrency=N,
  batch_format="pyarrow").write_parquet(DIR)`` (the same rows as a folder of Parquet shards, at
  least 8·N: from one file Ray makes one block, and one actor does all the work) on a local cluster started with ``num_cpus=N``
  (N one-CPU actors and one more logical CPU for the read and write tasks; start-up timed
  apart; workers at nice 0 like the CLI's, not Ray's default 15) — peak RSS of the driver (a
  child process of this one) and of each Ray worker
  process (sampled every 0.1 s; the object store's shared memory is counted in the workers'
  RSS where they touch it).

It checks that every mode gives the same status counts, and prints rows/s (wall), the CPU
time of every process involved (on shared cores the wall clock favours the side with more
runnable processes; CPU per row does not), and the
per-row CPU cost measured in one process (normalize, and normalize + score), which is what the
100-node plan in the README rests on.

    python bench/ray_vs_jobs.py                      # 1M rows, N = 2 (tens of minutes on 2 shared cores)
    python bench/ray_vs_jobs.py --rows 200000
    python bench/ray_vs_jobs.py --rows 50000 --skip jobs-parquet
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rows import row as make_row

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Peak RSS of the process itself from /proc (VmHWM): Linux keeps ru_maxrss across exec, so a
# child of a large benchmark process would report the benchmark's own peak.
_MEASURE = """
import resource, sys
from scoring.cli import main
code = main(sys.argv[1:])
own = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print("peak_kib", own, kids.ru_maxrss, me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime, file=sys.stderr)
raise SystemExit(code)
"""


def own_peak_mib() -> float:
    """This process's peak RSS since it started (VmHWM), in MiB."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


def _env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def run_cli(args: list[str]) -> dict[str, Any]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True, env=_env(),
                          check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    peak = next(line for line in done.stderr.splitlines() if line.startswith("peak_kib")).split()
    return {"wall": wall, "driver_mib": int(peak[1]) / 1024, "worker_mib": int(peak[2]) / 1024, "cpu": float(peak[3])}


def statuses_jsonl(path: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    with path.open("rb") as handle:
        for line in handle:
            counts[json.loads(line)["status"]] += 1
    return counts


def statuses_parquet(path: Path) -> Counter[str]:
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=["status"])
    return Counter(table.column("status").to_pylist())


class RssSampler:
    """Peak RSS of this process's Ray worker processes, sampled in a thread."""

    def __init__(self) -> None:
        self.peaks: dict[int, int] = {}
        self.cpu: dict[int, float] = {}  # each worker's CPU seconds when last seen
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            for proc in psutil.process_iter(["pid", "cmdline", "memory_info", "cpu_times"]):
                cmd = " ".join(proc.info.get("cmdline") or [])
                info = proc.info.get("memory_info")
                if info is not None and ("ray::" in cmd or "default_worker.py" in cmd):
                    self.peaks[proc.info["pid"]] = max(self.peaks.get(proc.info["pid"], 0), info.rss)
                    times = proc.info.get("cpu_times")
                    if times is not None:
                        self.cpu[proc.info["pid"]] = times.user + times.system
            self._stop.wait(0.1)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def run_ray(src: Path, out_dir: Path, actors: int, batch_size: int) -> dict[str, Any]:
    import ray

    from scoring.integrations.ray import NormalizeBatches

    # Ray starts its workers at nice 15 (RAY_worker_niceness) so that its own daemons stay
    # responsive; the CLI's workers run at nice 0, so on shared cores Ray's would only get the
    # leftovers: the comparison runs both at the same priority.
    os.environ.setdefault("RAY_worker_niceness", "0")
    started = time.perf_counter()
    # N actors of one CPU each, plus one logical CPU for Ray Data's read and write tasks: with
    # exactly N the actors hold every CPU and the read waits forever.
    ray.init(num_cpus=actors + 1, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"PYTHONPATH": _env()["PYTHONPATH"]}})
    ray.data.DataContext.get_current().enable_progress_bars = False
    startup = time.perf_counter() - started
    try:
        with RssSampler() as sampler:
            before = dict(sampler.cpu)  # CPU the idle workers used starting up
            start = time.perf_counter()
            cpu_start = time.process_time()
            ds = ray.data.read_parquet(str(src)).map_batches(
                NormalizeBatches, batch_format="pyarrow", batch_size=batch_size, concurrency=actors)
            ds.write_parquet(str(out_dir))
            wall = time.perf_counter() - start
            driver_cpu = time.process_time() - cpu_start
            time.sleep(0.3)  # one more sample of the workers' CPU times
    finally:
        ray.shutdown()
    workers = sorted(sampler.peaks.values(), reverse=True)
    cpu = driver_cpu + sum(t - before.get(pid, 0.0) for pid, t in sampler.cpu.items())
    return {"wall": wall, "startup": startup, "driver_mib": own_peak_mib(), "cpu": cpu,
            "worker_mib": workers[0] / 2**20 if workers else 0.0,
            "workers_top": [round(w / 2**20) for w in workers[:actors + 2]]}


def per_row_costs(src: Path, n: int = 4000) -> dict[str, float]:
    """CPU µs per row in one process: normalize; normalize + score; the pickled report totals per row."""
    import pyarrow.parquet as pq

    from normalize.io._arrow import JSON_COLUMNS, batch_rows
    from normalize.io._jsonl import restore_written_values
    from scoring._items import item_of
    from scoring.integrations._batches import BatchScorer
    from scoring.metrics import MathVerifier, read_scored
    from scoring.report import ReportBuilder

    rows = batch_rows(pq.ParquetFile(str(src)).read_row_group(0).slice(0, n))
    out: dict[str, float] = {}
    for name, scorer in (("normalize_us", BatchScorer()), ("score_us", BatchScorer(score=True))):
        scorer.added(rows[:200])  # warm: lazy imports, compiled patterns
        start = time.process_time()
        added = scorer.added(rows)
        out[name] = (time.process_time() - start) / len(rows) * 1e6
        scorer.close()
    scored = [{**r, **{k: v[i] for k, v in added.items()}} for i, r in enumerate(rows)]
    builder = ReportBuilder()
    with MathVerifier() as verifier:
        start = time.process_time()
        for row in batch_rows_from(scored, JSON_COLUMNS):
            builder.add(item_of(read_scored(scorer.pack, restore_written_values(row), verifier=verifier)))
        out["report_us"] = (time.process_time() - start) / len(rows) * 1e6
    out["report_bytes_per_row"] = len(pickle.dumps(builder)) / len(rows)
    out["pack_pickle_kb"] = len(pickle.dumps(scorer.pack)) / 1024
    return out


def batch_rows_from(rows: list[dict[str, Any]], json_columns: Any) -> list[dict[str, Any]]:
    from normalize.io._arrow import decode_json_fields

    return [decode_json_fields(dict(r), json_columns) for r in rows]


def write_exact(path: Path, n: int, seed: int = 0) -> int:
    """``n`` rows of a seeded pool of 500 (fresh ids): short rollouts (~400 bytes) and prompts."""
    import random

    rng = random.Random(seed)
    pool = [make_row(rng, i, output_bytes=400, prompt_bytes=60) for i in range(500)]
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            handle.write(json.dumps({**pool[i % len(pool)], "id": i}, ensure_ascii=False) + "\n")
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--jobs", type=int, default=2, help="--jobs N and N Ray actors (default 2)")
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--skip", action="append", default=[], choices=("jobs", "jobs-parquet", "ray"))
    parser.add_argument("--ray-child", nargs=2, metavar=("IN", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.ray_child:
        print(json.dumps(run_ray(Path(args.ray_child[0]), Path(args.ray_child[1]), args.jobs, args.batch_size)))
        return
    import pyarrow as pa
    import pyarrow.json as pj
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        src = tmp / "in.jsonl"
        count = write_exact(src, args.rows)
        table = pj.read_json(src)
        pq.write_table(table, tmp / "in.parquet", row_group_size=8192)
        # Ray reads a folder of shards, as data on a cluster is kept: from one file it makes one
        # read task and one block, and only one actor gets work.
        shards = tmp / "shards"
        shards.mkdir()
        n_shards = max(8 * args.jobs, table.num_rows // 25_000)
        step = -(-table.num_rows // n_shards)
        for k, start in enumerate(range(0, table.num_rows, step)):
            pq.write_table(table.slice(start, step), shards / f"part-{k:05d}.parquet", row_group_size=8192)
        rows = table.num_rows
        del table
        print(f"{rows} rows ({count} written), {src.stat().st_size / 2**20:.0f} MB JSONL, "
              f"{(tmp / 'in.parquet').stat().st_size / 2**20:.0f} MB Parquet; N = {args.jobs}; "
              f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
        results: dict[str, dict[str, Any]] = {}
        counts: dict[str, Counter[str]] = {}
        if "jobs" not in args.skip:
            results["jobs"] = run_cli(["run", str(src), "-o", str(tmp / "out.jsonl"), "--jobs", str(args.jobs),
                                       "--trace", "none", "--no-progress"])
            counts["jobs"] = statuses_jsonl(tmp / "out.jsonl")
            (tmp / "out.jsonl").unlink()
        if "jobs-parquet" not in args.skip:
            results["jobs-parquet"] = run_cli(["run", str(tmp / "in.parquet"), "-o", str(tmp / "out.parquet"),
                                               "--jobs", str(args.jobs), "--trace", "none", "--no-progress"])
            counts["jobs-parquet"] = statuses_parquet(tmp / "out.parquet")
            (tmp / "out.parquet").unlink()
        if "ray" not in args.skip:  # in a child process: its driver's peak is then its own
            child = subprocess.run([sys.executable, __file__, "--ray-child", str(shards),
                                    str(tmp / "ray_out"), "--jobs", str(args.jobs), "--batch-size",
                                    str(args.batch_size)], capture_output=True, text=True, env=_env(), check=False)
            if child.returncode != 0:
                raise SystemExit(child.stderr[-3000:])
            results["ray"] = json.loads(child.stdout.strip().splitlines()[-1])
            counts["ray"] = statuses_parquet(tmp / "ray_out")
        for mode, result in results.items():
            extra = f"  (cluster start {result['startup']:.1f}s; workers' peaks MiB {result['workers_top']})" \
                if "startup" in result else ""
            print(f"{mode:13s} {result['wall']:7.1f}s  {rows / result['wall']:8.0f} rows/s  "
                  f"CPU {result['cpu']:6.1f}s ({result['cpu'] / rows * 1e6:5.0f} µs/row)  "
                  f"driver {result['driver_mib']:6.0f} MiB  largest worker {result['worker_mib']:6.0f} MiB{extra}")
        first = next(iter(counts.values()), None)
        agree = all(c == first for c in counts.values())
        print(f"status counts {'agree' if agree else 'DIFFER'}: {dict(sorted(first.items())) if first else {}}")
        costs = per_row_costs(tmp / "in.parquet")
        print("per row, one process: " + ", ".join(f"{k} {v:.1f}" for k, v in costs.items()))
        del pa
        if not agree:
            raise SystemExit(f"status counts differ: {counts}")


if __name__ == "__main__":
    main()
