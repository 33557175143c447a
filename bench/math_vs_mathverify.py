"""The ``math`` parser + ``math`` metric against Math-Verify's parse+verify, same outputs, same process.

    python bench/math_vs_mathverify.py [--plain 400] [--symbolic 120] [--long-plain 200] [--long-symbolic 60]
        [--peer ../shared/peer-corpus/cases.jsonl]

MATH-style outputs are generated here (a few sentences of working, then the answer stated in one
of the usual ways: ``\\boxed{}``, "The final answer is $…$", "the answer is …"), each with its
gold answer written as a dataset writes it, half of them wrong on purpose.  Two groups:

* plain numbers (integers, decimals, fractions, thousands separators, negative numbers);
* symbolic answers (surds, multiples of pi, fractions of them, tuples, intervals, sets, ±);
* the same two kinds after ~2 KB of real-shaped working (``bench/_realshape.py``: LaTeX in every
  line — substitutions, the quadratic formula, sums, fractions), as real MATH solutions run:
  the short groups' ~130-character outputs flattered the parser, which scans the whole output;
* with ``--peer FILE``: the math rows of a peer corpus whose gold is symbolic (tier ``symbolic``),
  read from that file at run time (its labels are the source's; nothing is copied here).

Per item: ours = ``pack.run(output, "math500")`` then ``scoring.metrics.math_match(answer, gold)``;
Math-Verify = ``verify(parse(gold), parse(output))`` with its own signal timeouts switched off
(``parsing_timeout=None``, ``timeout_seconds=None``), library defaults otherwise.  Both sides run
on distinct strings with every cache cleared first, so no call is answered from a cache; each side
is timed in CPU seconds, the fastest of ``--repeat`` runs.  Printed:
the verdicts that agree (and the ones that do not), and per group the time per item of each
side and the ratio.  Needs the optional ``math-verify`` package.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path


def _plain_items(n: int, rng: random.Random) -> list[tuple[str, str, bool]]:
    items = []
    for i in range(n):
        kind = i % 5
        if kind == 0:
            value = rng.randint(1, 10**6) * 7 + i
            shown, gold = f"{value:,}", str(value)
        elif kind == 1:
            num, den = rng.randint(1, 500), rng.randint(2, 97)
            frac = Fraction(num, den)
            shown, gold = rf"\frac{{{frac.numerator}}}{{{frac.denominator}}}", rf"\frac{{{frac.numerator}}}{{{frac.denominator}}}"
        elif kind == 2:
            value = rng.randint(-99999, -1) * 3 - i
            shown, gold = str(value), str(value)
        elif kind == 3:
            cents = rng.randint(100, 10**6) + i
            shown, gold = f"{cents // 100}.{cents % 100:02d}", f"{cents // 100}.{cents % 100:02d}"
        else:
            value = rng.randint(10, 5000) + i
            shown, gold = str(value), str(value)
        right = rng.random() < 0.5
        if not right:
            gold = str(rng.randint(1, 10**6) + 10**7 + i)
        items.append((_dress(shown, i), gold, right))
    return items


def _symbolic_items(n: int, rng: random.Random) -> list[tuple[str, str, bool]]:
    items = []
    for i in range(n):
        a, b = rng.randint(2, 60) + i, rng.randint(2, 9)
        kind = i % 6
        if kind == 0:
            shown, gold, wrong = rf"{a}\sqrt{{{b}}}", rf"{a}\sqrt{{{b}}}", rf"{a + 1}\sqrt{{{b}}}"
        elif kind == 1:
            shown, gold, wrong = rf"\frac{{{a}\pi}}{{{b}}}", rf"\frac{{{a}}}{{{b}}}\pi", rf"\frac{{{a}}}{{{b + 1}}}\pi"
        elif kind == 2:
            shown, gold, wrong = f"({a}, -{b})", f"({a},-{b})", f"(-{b},{a})"
        elif kind == 3:
            shown, gold, wrong = rf"[{b}, {a})", rf"[{b},{a})", rf"({b},{a})"
        elif kind == 4:
            shown, gold, wrong = rf"{b} \pm \sqrt{{{a}}}", rf"{b} \pm \sqrt{{{a}}}", rf"{b} + \sqrt{{{a}}}"
        else:
            shown, gold, wrong = rf"\{{{a}, {b}\}}", rf"\{{{b},{a}\}}", rf"\{{{a},{b + a}\}}"
        right = rng.random() < 0.5
        items.append((_dress(shown, i), gold if right else wrong, right))
    return items


def _long(items: list[tuple[str, str, bool]], rng: random.Random, size: int = 2000) -> list[tuple[str, str, bool]]:
    """The same items after ``size`` bytes of real-shaped LaTeX working."""
    import _realshape

    out = []
    for output, gold, right in items:
        working = "\n".join(_realshape._reasoning(rng, size, _realshape._math_line))
        out.append((working + "\n\n" + output, gold, right))
    return out


def _peer_items(path: Path) -> list[tuple[str, str, bool]]:
    """The math rows of a peer corpus file whose gold is symbolic (read at run time, never copied):
    output, target and the source's label."""
    import json

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(r["output"], str(r["target"]), bool(r["expect_correct"])) for r in rows
            if r.get("tier") == "symbolic" and r.get("task") in ("math", "math500") and isinstance(r.get("output"), str)]


def _dress(answer: str, i: int) -> str:
    working = f"We compute step {i} carefully: first $x_{{{i}}} = {i % 7} + 1$, and then we simplify.\n\n"
    style = i % 3
    if style == 0:
        return working + rf"Therefore the answer is $\boxed{{{answer}}}$."
    if style == 1:
        return working + f"Final Answer: The final answer is ${answer}$. I hope it is correct."
    return working + rf"So we get $\boxed{{{answer}}}$."


def _clock(fn: Callable[[], object]) -> float:
    """CPU seconds of this process for ``fn()`` (other work on a shared machine does not count)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plain", type=int, default=400)
    ap.add_argument("--symbolic", type=int, default=120)
    ap.add_argument("--long-plain", type=int, default=200, help="plain-number items after 2 KB of working")
    ap.add_argument("--long-symbolic", type=int, default=60, help="symbolic items after 2 KB of working")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each side per group; the fastest counts (default 3)")
    ap.add_argument("--peer", type=Path, default=None, metavar="CASES.jsonl",
                    help="also time the symbolic rows (tier 'symbolic', task math) of this peer corpus file")
    args = ap.parse_args()

    import math_verify as mv

    from normalize import load_pack
    from normalize.values._mathvalue import _BY_CANONICAL, _read_cached, _same_cached
    from scoring.metrics import math_match

    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    pack = load_pack()
    rng = random.Random(args.seed)
    groups = {"plain numbers": _plain_items(args.plain, rng), "symbolic": _symbolic_items(args.symbolic, rng)}
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    long_rng = random.Random(args.seed + 7)
    groups["plain numbers, 2 KB"] = _long(_plain_items(args.long_plain, random.Random(args.seed + 2)), long_rng)
    groups["symbolic, 2 KB"] = _long(_symbolic_items(args.long_symbolic, random.Random(args.seed + 3)), long_rng)
    if args.peer is not None:
        groups["peer corpus, symbolic rows"] = _peer_items(args.peer)

    def ours(items: list[tuple[str, str, bool]]) -> list[bool]:
        out = []
        for output, gold, _ in items:
            result = pack.run(output, "math500")
            try:
                out.append(result.answer is not None and math_match(result.answer, gold, rel_tol=1e-9))
            except (ValueError, TimeoutError):  # a gold the reader refuses (peer rows): not shown equal
                out.append(False)
        return out

    def theirs(items: list[tuple[str, str, bool]]) -> list[bool]:
        out = []
        for output, gold, _ in items:
            g = gold if "$" in gold else f"${gold}$"
            parsed_gold = mv.parse(g, parsing_timeout=None)
            parsed = mv.parse(output, parsing_timeout=None)
            try:
                out.append(bool(parsed) and bool(mv.verify(parsed_gold, parsed, timeout_seconds=None)))
            except Exception:  # Math-Verify's own errors on odd rows count as not equal
                out.append(False)
        return out

    # warm both (imports, grammar tables) on items outside the measured sets
    warm = _symbolic_items(6, random.Random(args.seed + 1)) + _plain_items(6, random.Random(args.seed + 1))
    ours(warm)
    theirs(warm)
    from normalize.core._build import build_description

    print(f"items: {args.plain} plain-number, {args.symbolic} symbolic, {args.long_plain} + {args.long_symbolic} "
          f"after 2 KB of working (seed {args.seed}); build: {build_description()}")
    for name, items in groups.items():
        print(f"  {name}: mean {sum(len(o) for o, _, _ in items) / max(1, len(items)):.0f} characters")
    def clear() -> None:  # no call may be answered from a cache
        _read_cached.cache_clear()
        _BY_CANONICAL.clear()
        _same_cached.cache_clear()
        mv.parser.parse_latex_cached.cache_clear()

    for name, items in groups.items():
        if not items:  # a group asked to hold none (--plain 0 …): nothing to time
            continue
        box_ours: list[list[bool]] = [[]]
        box_theirs: list[list[bool]] = [[]]
        t_ours = t_theirs = float("inf")
        for _ in range(args.repeat):  # the fastest of --repeat runs of each side, caches cleared before each
            clear()
            t_ours = min(t_ours, _clock(lambda: box_ours.__setitem__(0, ours(items))))  # noqa: B023
            clear()
            t_theirs = min(t_theirs, _clock(lambda: box_theirs.__setitem__(0, theirs(items))))  # noqa: B023
        v_ours, v_theirs = box_ours[0], box_theirs[0]
        same = sum(a == b for a, b in zip(v_ours, v_theirs, strict=True))
        right_ours = sum(v == r for v, (_, _, r) in zip(v_ours, items, strict=True))
        right_theirs = sum(v == r for v, (_, _, r) in zip(v_theirs, items, strict=True))
        print(f"\n{name}: {len(items)} items")
        print(f"  equal verdicts: {same}/{len(items)}; matches the intended label: ours {right_ours}, Math-Verify {right_theirs}")
        for (output, gold, right), a, b in zip(items, v_ours, v_theirs, strict=True):
            if a != b:
                print(f"  differs: gold {gold!r} right={right} ours={a} Math-Verify={b}: …{output[-60:]!r}")
        per_ours, per_theirs = 1000 * t_ours / len(items), 1000 * t_theirs / len(items)
        print(f"  time per item: ours {per_ours:.2f} ms, Math-Verify {per_theirs:.2f} ms, ratio {per_theirs / per_ours:.1f}x")


if __name__ == "__main__":
    main()
