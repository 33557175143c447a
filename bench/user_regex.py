"""Cost of a pack's own regex rule (``extract_regex``) a row: proven-linear patterns without the
per-call timeout against today's path (every call with ``timeout=``), in one process.

Three packs run the same real-shaped outputs (``bench/_realshape.py``: GSM8K and MMLU
chains of thought, 0.5–4 KB): a chain of ``--rules`` ``extract_regex`` rules with patterns the
load-time proof accepts, the same chain with patterns it refuses (they keep the timeout), and an
empty chain.  The patterns do not match these outputs, so every rule scans the whole text (the
most a rule costs).  "the path before the proof" is the same proven chain with
``ExtractRegexParams.finditer`` switched back to the call it replaced
(``compiled.finditer(text, timeout=timeout)``) and the rule's ``bind`` hook off (the engine calls
the rule itself, which reads its params on every call) for those blocks only.  The proven chain
and the empty one also run with ``trace=False`` (``normalize run --trace none``'s path).  Blocks of ``--block`` rows take turns (ABBA), CPU time of this process; the cost a
rule a row is ``(chain − empty) / rules / rows``.  A figure, not a test.

    python bench/user_regex.py            # 4,000 outputs, 8 rules
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import regex

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _realshape

from normalize import load_pack
from normalize.core._build import build_description
from normalize.core.registry import REGISTRY
from normalize.limits._regex_proof import proven_linear
from normalize.rules._extract_params import ExtractRegexParams

PROVEN = [
    r"VERDICT:\s*(\w+)",
    r"(?i)final verdict\s*[:：]\s*(\S+)",
    r"<score>\s*(\d+)",
    r"####\s*\[(-?[\d,\.]+)\]",
    r"(?i)\bgrade\s*=\s*([A-F])\b",
    r"ANSWER_TAG\s*[:=]\s*\(?([A-J])\)?",
    r"\[\[(\d{1,2})\]\]",
    r"(?i)rating\s*:\s*(\d+)\s*/\s*10",
]
UNPROVEN = [
    r"(?m)^VERDICT:\s*(.+)$",
    r"<verdict>(.*?)</verdict>",
    r"(?s)FINAL\s*(.+)END",
    r"(\w+)@@",
    r"(?i)grade\s*(\w+)\s*!!",
    r"ANSWER_TAG(\s*\w+)+;",
    r"\[\[([^\]]*)\]\]!",
    r"(?i)rating:\s*(\d+)\s*(\d+)?##",
]


def _pack(patterns: list[str], folder: Path, name: str) -> object:
    rules = "".join(f"      - rule: extract_regex\n        params: {{pattern: '{p}'}}\n" for p in patterns)
    chain = ("    chain:\n" + rules) if patterns else "    chain: []\n"
    text = f"name: {name}\ntask_types:\n  extractive_qa:\n{chain}    parser: text\n"
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return load_pack(path)


def _old_finditer(self: ExtractRegexParams, text: str, timeout: float) -> Iterator[regex.Match[str]]:
    return self.compiled().finditer(text, timeout=timeout)  # the call before the proof


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--rules", type=int, default=8)
    ap.add_argument("--block", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    proven, unproven = PROVEN[: args.rules], UNPROVEN[: args.rules]
    assert all(proven_linear(p) for p in proven), [p for p in proven if not proven_linear(p)]
    assert not any(proven_linear(p) for p in unproven), [p for p in unproven if proven_linear(p)]
    half = args.n // 2
    outputs = [s.output for s in _realshape.corpus("gsm8k", half, args.seed)]
    outputs += [s.output for s in _realshape.corpus("mmlu", args.n - half, args.seed + 1)]
    new_finditer = ExtractRegexParams.finditer
    with tempfile.TemporaryDirectory() as tmp:
        packs = {
            "proven": _pack(proven, Path(tmp), "proven"),
            "unproven": _pack(unproven, Path(tmp), "unproven"),
            "empty": _pack([], Path(tmp), "empty"),
        }

    bound_rule = REGISTRY.rules["extract_regex"]
    unbound_rule = dataclasses.replace(bound_rule, bind=None)

    def switch(old: bool) -> None:
        ExtractRegexParams.finditer = _old_finditer if old else new_finditer  # type: ignore[method-assign]
        wanted = unbound_rule if old else bound_rule
        if REGISTRY.rules["extract_regex"] is not wanted:
            REGISTRY.rules["extract_regex"] = wanted  # the chains bind again (once, untimed below)

    def run(pack: object, block: list[str], old: bool, trace: bool = True) -> float:
        switch(old)
        run_row: Callable[..., object] = pack.run  # type: ignore[attr-defined]
        run_row(block[0], "extractive_qa", trace=trace)  # binds the chain after a switch, untimed
        start = time.process_time()
        for s in block:
            run_row(s, "extractive_qa", trace=trace)
        spent = time.process_time() - start
        switch(False)
        return spent

    arms = [("proven", False), ("proven", True), ("unproven", False), ("empty", False), ("proven-nt", False), ("empty-nt", False)]
    for arm in arms:  # warm-up, untimed
        run(packs[arm[0].removesuffix("-nt")], outputs[:200], arm[1], not arm[0].endswith("-nt"))
    # the same results either way (the proof changes no match): checked on a share of the rows
    probe = [s + "\nVERDICT: yes" for s in outputs[:100]] + outputs[:100]

    def results(old: bool) -> list[tuple[object, ...]]:
        switch(old)
        try:
            return [(r.text, r.status, r.answer, r.trace) for r in map(lambda s: packs["proven"].run(s, "extractive_qa"), probe)]  # type: ignore[attr-defined]
        finally:
            switch(False)

    same = results(False) == results(True)
    totals: list[dict[tuple[str, bool], float]] = []
    for _ in range(args.repeat):
        spent = dict.fromkeys(arms, 0.0)
        for number, at in enumerate(range(0, len(outputs), args.block)):
            block = outputs[at : at + args.block]
            order = arms if number % 2 == 0 else arms[::-1]
            for arm in order:
                spent[arm] += run(packs[arm[0].removesuffix("-nt")], block, arm[1], not arm[0].endswith("-nt"))
        totals.append(spent)
    per = args.rules * len(outputs)

    def cost(arm: tuple[str, bool]) -> list[float]:
        empty = ("empty-nt", False) if arm[0].endswith("-nt") else ("empty", False)
        return [1e6 * (t[arm] - t[empty]) / per for t in totals]

    print(f"{len(outputs)} real-shaped outputs (GSM8K + MMLU), mean {sum(map(len, outputs)) / len(outputs):.0f} chars; "
          f"{args.rules} extract_regex rules; CPU time, ABBA blocks of {args.block}, {args.repeat} repeats")
    print(f"build: {build_description()}")
    for label, arm in (("proven, no timeout, traced", ("proven", False)),
                       ("proven, no timeout, --trace none", ("proven-nt", False)),
                       ("proven, path before the proof", ("proven", True)),
                       ("unproven, timeout kept", ("unproven", False))):
        values = cost(arm)
        print(f"  {label:<34} {statistics.median(values):6.2f} µs a rule a row  (range {min(values):.2f}-{max(values):.2f})")
    compiled = [regex.compile(p) for p in proven]
    start = time.process_time()
    for s in outputs:
        for c in compiled:
            c.search(s)
    bare = 1e6 * (time.process_time() - start) / per
    print(f"  {'(one bare search of each pattern)':<34} {bare:6.2f} µs a rule a row: the scan itself, no rule around it")
    print(f"  results equal on both paths ({len(probe)} rows, half with a match): {same}")


if __name__ == "__main__":
    main()
