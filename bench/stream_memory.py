"""Peak memory of ``normalize run`` and ``normalize score`` on a large input (issue 12, point 7).

Generates a JSONL file of the requested size in a temporary directory (rows with a ~2 KB
prompt and a ~1.5 KB chain-of-thought output, four task types), then runs each command in a
fresh process and prints its peak resident memory (``ru_maxrss``) beside the input size.  A
small input is measured the same way, so the growth between the two is what streaming bounds.

    python bench/stream_memory.py                 # 500 MB
    python bench/stream_memory.py --mb 50         # quicker
    python bench/stream_memory.py --installed     # the installed (e.g. compiled) package

Without ``--installed`` the commands import this source tree (``PYTHONPATH``); with it, the
package this interpreter imports outside the tree (the commands run in the temporary folder, so
the checkout is not on their path).  The build measured is printed.
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
print("maxrss_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
raise SystemExit(code)
"""


def _env(installed: bool) -> dict[str, str]:
    env = {**os.environ}
    if installed:
        env.pop("PYTHONPATH", None)
    else:
        env["PYTHONPATH"] = str(ROOT)
    return env


def _build(installed: bool, folder: Path) -> str:
    """What the measured commands import: compiled modules or source (normalize.core._build)."""
    probe = "from normalize.core._build import build_description; import normalize; print(build_description(), normalize.__file__)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=_env(installed),
                          cwd=folder, check=True)
    return done.stdout.strip()


def peak_rss(args: list[str], *, installed: bool = False, cwd: Path | None = None) -> tuple[int, float]:
    """(peak RSS in bytes, seconds) of one CLI run in a fresh process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True,
                          env=_env(installed), cwd=cwd)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr}")
    line = next(x for x in done.stderr.splitlines() if x.startswith("maxrss_kib"))
    return int(line.split()[1]) * 1024, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=500, help="size of the large input in MB (default 500)")
    parser.add_argument("--small-mb", type=int, default=5, help="size of the small input in MB (default 5)")
    parser.add_argument("--bootstrap", type=int, default=100, help="resamples for score (default 100)")
    parser.add_argument("--installed", action="store_true",
                        help="run the installed package (e.g. the compiled wheel of pip install .), not the source tree")
    args = parser.parse_args()
    mb = 1 << 20
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        inputs = {}
        for label, size in (("small", args.small_mb), ("large", args.mb)):
            path = folder / f"{label}.jsonl"
            rows = write_rows(path, total_bytes=size * mb)
            inputs[label] = (path, rows)
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; one job (--jobs 1), --trace none")
        print(f"build: {_build(args.installed, folder)}")
        print(f"{'command':<8} {'input':>10} {'rows':>9} {'peak RSS':>10} {'RSS/input':>10} {'time':>8}")
        for command in ("run", "score"):
            peaks = {}
            for label in ("small", "large"):
                path, rows = inputs[label]
                out = folder / f"{command}.{label}.out.jsonl"
                extra = ["--trace", "none"] if command == "run" else ["--bootstrap", str(args.bootstrap)]
                rss, seconds = peak_rss([command, str(path), "-o", str(out), "--jobs", "1", "--no-progress", *extra],
                                        installed=args.installed, cwd=folder)
                out.unlink()
                size = path.stat().st_size
                peaks[label] = rss
                print(f"{command:<8} {size / mb:>8.1f}MB {rows:>9,} {rss / mb:>8.1f}MB {rss / size:>10.3f} "
                      f"{seconds:>7.1f}s")
            grown = (peaks["large"] - peaks["small"]) / mb
            print(f"{command:<8} growth from {args.small_mb} MB to {args.mb} MB of input: {grown:+.1f} MB of RSS")


if __name__ == "__main__":
    main()
