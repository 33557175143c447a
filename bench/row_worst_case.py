"""Per-row worst case at 1 MiB: every adversarial input kind, through every task type's chain + parser.

Builds each kind of :data:`normalize.limits._growth.KINDS` (repeated units, nested emphasis, nested
``\\text{``/``\\left``, answer markers between fences, alternating fences, ...) at just under the
pack's ``max_input_bytes`` (1 MiB), runs ``Pack.run`` on it once per task type and prints, per
task type, the slowest kind with its CPU seconds (CPU time of this thread, so other load on the
machine does not inflate it), the status it got, and the median over all kinds.  A figure, not
a test; the tests assert growth ratios instead (tests/adversarial/).

    python bench/row_worst_case.py
    python bench/row_worst_case.py --kinds 10   # the first ten kinds only, quicker
"""

from __future__ import annotations

import argparse
import statistics
import time

from normalize import load_pack
from normalize.limits._growth import KINDS


def _one_mib(build, limit: int) -> str:  # type: ignore[no-untyped-def]
    size = limit
    text = build(size)
    while len(text.encode("utf-8")) > limit:
        size = size * limit // len(text.encode("utf-8")) - 16
        text = build(size)
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kinds", type=int, default=len(KINDS), help="how many input kinds (default all)")
    args = parser.parse_args()
    pack = load_pack()
    limit = pack.settings.max_input_bytes
    kinds = KINDS[: args.kinds]
    texts = [(name, _one_mib(build, limit)) for name, build in kinds]
    print(f"{len(texts)} input kinds, each ≤ {limit} bytes; pack {pack.hash[:19]}; CPU seconds per row")
    print(f"{'task type':<18} {'median':>8} {'worst':>8}  worst kind (status)")
    for task_type in sorted(pack.task_types):
        options = 4 if task_type == "multiple_choice" else None
        times: list[tuple[float, str, str]] = []
        for name, text in texts:
            start = time.thread_time()
            result = pack.run(text, task_type, options=options)
            times.append((time.thread_time() - start, name, result.status))
        worst = max(times)
        median = statistics.median(t for t, _, _ in times)
        print(f"{task_type:<18} {median:>8.3f} {worst[0]:>8.3f}  {worst[1]} ({worst[2]})")


if __name__ == "__main__":
    main()
