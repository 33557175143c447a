"""The GSM8K-side short cuts (issue 26 target 2, third round), old code against new in one
process: ``Pack.run(output, "gsm8k")`` on real-shaped GSM8K outputs (``bench/_realshape.py``,
seed 0), marked and unmarked apart, with every short cut of the round switched off ("old") or on
("new") in alternating turns (ABBA), CPU time; the results of both are checked equal first.

"Old" puts back, in this process: the part before a tier's cut read as one piece
(``extract_math._CHUNK``), a segment's runs read whole by the ``regex`` module's pattern
(``_math._RUN_PIECE``, ``_math._RUN_STD``), the accounting reader's old token pattern (the
reference copy in ``tests/test_fast_paths_gsm8k.py``), the ``regex`` module's numeral screen
(``_numbers._CN_ANY_STD``) and ``normalize_whitespace``'s confirming second round.  The source
tree only (a compiled module inlines those constants).  A figure, not a test.

Run from the repository root: ``python bench/gsm8k_shortcuts.py``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

import _realshape  # noqa: E402

import normalize  # noqa: E402
from normalize.core._build import build_description  # noqa: E402
from normalize.limits._regex import compile_pattern  # noqa: E402
from normalize.parsers import _math  # noqa: E402
from normalize.rules import extract_math  # noqa: E402
from normalize.rules import format as fmt  # noqa: E402
from normalize.values import _numbers, _quantity  # noqa: E402
from normalize.values._mathvalue import _BY_CANONICAL, _read_cached, _same_cached  # noqa: E402
from tests.test_fast_paths_gsm8k import _tokens_slow  # noqa: E402

_NEW: dict[str, Any] = {
    "chunk": extract_math._CHUNK, "piece": _math._RUN_PIECE, "run": _math._RUN_STD, "tokens": _quantity._tokens,
    "cn": _numbers._CN_ANY_STD, "whitespace": fmt._whitespace_in_one_round,
}
_OLD: dict[str, Any] = {
    "chunk": sys.maxsize, "piece": sys.maxsize, "run": compile_pattern(_math._RUN), "tokens": _tokens_slow,
    "cn": compile_pattern(_numbers._CN_ANY), "whitespace": lambda text, mode, timeout: None,
}


def _use(variant: dict[str, Any]) -> None:
    extract_math._CHUNK = variant["chunk"]  # type: ignore[misc]
    _math._RUN_PIECE = variant["piece"]  # type: ignore[misc]
    _math._RUN_STD = variant["run"]  # type: ignore[misc]
    _quantity._tokens = variant["tokens"]
    _numbers._CN_ANY_STD = variant["cn"]  # type: ignore[misc]
    fmt._whitespace_in_one_round = variant["whitespace"]


def _results(pack: normalize.Pack, outputs: list[str]) -> list[tuple[Any, ...]]:
    return [(r.status, r.answer, r.reason, r.text, tuple(sorted(r.extra.items()))) for r in map(lambda o: pack.run(o, "gsm8k"), outputs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2000, help="outputs in the corpus (default 2000)")
    parser.add_argument("--turns", type=int, default=8, help="ABBA turns (default 8)")
    args = parser.parse_args()
    print(f"build: {build_description()}")
    pack = normalize.load_pack()
    samples = _realshape.corpus("gsm8k", args.n, 0)
    per_row: dict[str, dict[str, float]] = {}
    for label, marked in (("marked", True), ("unmarked", False)):
        outputs = [s.output for s in samples if s.marked == marked]
        _use(_OLD)
        old = _results(pack, outputs)
        _use(_NEW)
        if _results(pack, outputs) != old:
            raise SystemExit(f"the short cuts changed a result on the {label} outputs")
        spent: dict[str, list[float]] = {"old": [], "new": []}
        for turn in range(args.turns):
            order = (("old", _OLD), ("new", _NEW)) if turn % 2 == 0 else (("new", _NEW), ("old", _OLD))
            for name, variant in order:
                _use(variant)
                _read_cached.cache_clear()  # every turn reads the outputs afresh
                _BY_CANONICAL.clear()
                _same_cached.cache_clear()
                start = time.process_time()
                for output in outputs:
                    pack.run(output, "gsm8k")
                spent[name].append((time.process_time() - start) / len(outputs) * 1e6)
        _use(_NEW)
        per_row[label] = {name: statistics.median(times) for name, times in spent.items()}
        ratios = [o / n for o, n in zip(spent["old"], spent["new"], strict=True)]
        print(f"{label:<9} ({len(outputs):>5} rows) old {per_row[label]['old']:7.1f} us a row  new {per_row[label]['new']:7.1f} us a row"
              f"  (medians of {args.turns} turns; old/new {statistics.median(ratios):.2f}, turns {min(ratios):.2f}-{max(ratios):.2f})")
    for name in ("old", "new"):
        print(f"unmarked / marked, {name}: {per_row['unmarked'][name] / per_row['marked'][name]:.2f}x (target <= 3x)")
    print("results equal with and without the short cuts: True")


if __name__ == "__main__":
    main()
