"""``normalize run``'s row path around the chain and parser, before and after issue 26, in one
process: what a row costs beyond ``Pack.run``'s chain and parser.

Both paths read the same real-shaped GSM8K lines (``bench/_realshape.py``) and give the same
bytes (checked):

* **typed** (the path before): decode, walk the JSON nesting, a typed ``Row`` and ``Normalized``
  per row, ``Pack.run`` with its trace built, the trace dropped (``--trace none``),
  ``json.dumps`` building an encoder per row;
* **direct** (``normalize.io.rows.output_row``): the output dict built from the input object
  and the result, no trace built, one encoder.

ABBA blocks of 100 rows, CPU time of this process; the per-block ratios' median and quartiles
say how steady the figure is on a shared machine.  A figure, not a test.

    python bench/e2e_rowpath.py --n 5000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _realshape

from normalize.core._build import build_description
from normalize.core.pack import load_pack
from normalize.io._io import to_input_row
from normalize.io._jsonl import decode_held, depth_exceeds, encode_row
from normalize.io.rows import normalize_row, output_row, shape_trace

Block = list[tuple[int, bytes]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--block", type=int, default=100)
    args = ap.parse_args()
    pack = load_pack()
    lines = [json.dumps({"id": i, "task": "gsm8k", "output": s.output, "target": s.gold}, ensure_ascii=False).encode()
             for i, s in enumerate(_realshape.corpus("gsm8k", args.n, args.seed))]

    def typed(block: Block) -> list[bytes]:
        out = []
        for number, raw in block:
            line = decode_held([raw], number)
            if line.data is not None:
                depth_exceeds(line.data)  # walked for every line before
            row = shape_trace(normalize_row(pack, to_input_row(line)), "none")
            out.append((json.dumps(row, ensure_ascii=False, allow_nan=False, default=str) + "\n").encode("utf-8"))
        return out

    def direct(block: Block) -> list[bytes]:
        return [encode_row(output_row(pack, decode_held([raw], number), "none")) for number, raw in block]

    blocks = [[(i + 1, line) for i, line in enumerate(lines[s:s + args.block], start=s)]
              for s in range(0, len(lines), args.block)]
    same = all(typed(b) == direct(b) for b in blocks[:5])
    spent = {"typed": 0.0, "direct": 0.0}
    ratios = []
    for k, block in enumerate(blocks):
        order: tuple[Callable[[Block], list[bytes]], ...] = (typed, direct, direct, typed) if k % 2 == 0 \
            else (direct, typed, typed, direct)
        here = {"typed": 0.0, "direct": 0.0}
        for fn in order:
            start = time.process_time()
            fn(block)
            here[fn.__name__] += time.process_time() - start
        spent["typed"] += here["typed"]
        spent["direct"] += here["direct"]
        ratios.append(here["typed"] / here["direct"])
    ratios.sort()
    rows = 2 * len(lines)
    q = len(ratios) // 4
    print(f"{args.n} real-shaped GSM8K rows, ABBA blocks of {args.block}, CPU time; build: {build_description()}")
    print(f"same bytes on both paths: {same}")
    print(f"typed path   {spent['typed'] / rows * 1e6:7.1f} µs a row")
    print(f"direct path  {spent['direct'] / rows * 1e6:7.1f} µs a row  "
          f"(saves {(spent['typed'] - spent['direct']) / rows * 1e6:.1f} µs a row)")
    print(f"typed / direct: {spent['typed'] / spent['direct']:.3f} "
          f"(blocks: median {ratios[len(ratios) // 2]:.3f}, quartiles {ratios[q]:.3f}-{ratios[-q - 1]:.3f})")


if __name__ == "__main__":
    main()
