"""Seeded model outputs shaped like real generations, with labels: the benchmarks' shared corpus.

The older generators flattered the chains: prose without a digit in the reasoning, a marker on
every output, short outputs.  Real generations (GSM8K, MATH, MMLU chain-of-thought from the
usual open models) look like this instead:

* **numbers and LaTeX in every reasoning line** — ``Step 3: $3 \\times 12 = 36$ eggs, and
  $36 - 7 = 29$ remain.``, ``\\frac{}{}``, ``\\sqrt{}``, thousands separators, money, percents;
* **option-by-option analysis** for multiple choice — every option letter is named, most of them
  with a number, before the verdict;
* **20 % without a final marker** (``unmarked``): the answer is only the last statement
  (``So she has 29 apples left.``, ``Option C is the only one that fits.``);
* 0.5–4 KB (``min_bytes``/``max_bytes``), English with a share of Chinese lines;
* seeded: the same seed gives the same corpus.

Every :class:`Sample` carries its labels: ``stated`` — the final answer as the output states it
(what a correct extractor returns; ``None`` never: each output states one), ``gold`` — the dataset
answer (equal to ``stated`` in 70 % of samples: the model is sometimes wrong), and ``marked``.
A benchmark checks each tool's extraction against ``stated`` on the labelled subset and prints
that beside the speed.

>>> s = gsm8k(random.Random(0))
>>> 500 <= len(s.output.encode()) <= 4096 and s.stated in s.output
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["UNMARKED_SHARE", "Sample", "corpus", "gsm8k", "math", "mmlu"]

UNMARKED_SHARE = 0.2
MIN_BYTES = 500
MAX_BYTES = 4000

_NOUNS = ("apples", "eggs", "books", "dollars", "students", "marbles", "pages", "minutes", "tickets", "cookies")
_VERBS = ("buys", "sells", "gives away", "collects", "reads", "bakes", "adds", "spends")
_LINK = ("so", "then", "which means", "therefore", "and", "hence")
_ZH = ("所以", "因此", "然后", "接着")


@dataclass(frozen=True)
class Sample:
    output: str
    stated: str
    gold: str
    marked: bool
    task: str


def _arith_line(rng: random.Random, step: int) -> str:
    a, b = rng.randint(2, 999), rng.randint(2, 99)
    kind = rng.randrange(7)
    noun = rng.choice(_NOUNS)
    if kind == 0:
        return f"Step {step}: She {rng.choice(_VERBS)} ${a} \\times {b} = {a * b}$ {noun}, {rng.choice(_LINK)} ${a * b} - {b} = {a * b - b}$ remain."
    if kind == 1:
        return f"{step}. The total is {a:,} + {b * 1000:,} = {a + b * 1000:,} {noun}."
    if kind == 2:
        return f"Each box costs ${a}.{b:02d}, so {b} boxes cost ${a * b + (b * b) // 100}.{(b * b) % 100:02d}."
    if kind == 3:
        f = Fraction(a, b)
        return f"We have $\\frac{{{a}}}{{{b}}} = {f.numerator}/{f.denominator} \\approx {a / b:.3f}$ of the {noun}."
    if kind == 4:
        return f"{rng.choice(_ZH)}，第{step}步：{a} × {b} = {a * b}，再减去 {b} 得到 {a * b - b}。"
    if kind == 5:
        return f"That is {b}% of {a * 100}, i.e. $0.{b:02d} \\cdot {a * 100} = {a * b}$."
    return f"- Subtract: $${a * b} \\div {b} = {a}$$ and $\\sqrt{{{b * b}}} = {b}$."


def _reasoning(rng: random.Random, budget: int, line: object) -> list[str]:
    lines: list[str] = []
    size = 0
    step = 1
    while size < budget:
        text = line(rng, step)  # type: ignore[operator]
        lines.append(text)
        size += len(text.encode()) + 1
        step += 1
    return lines


def _size(rng: random.Random, min_bytes: int, max_bytes: int) -> int:
    return rng.randint(min_bytes, max_bytes)


def _fit(lines: list[str], tail: str, max_bytes: int) -> str:
    while len(("\n".join(lines) + "\n" + tail).encode()) > max_bytes and len(lines) > 1:
        lines.pop()
    return "\n".join(lines) + "\n" + tail


def gsm8k(rng: random.Random, *, min_bytes: int = MIN_BYTES, max_bytes: int = MAX_BYTES) -> Sample:
    """A GSM8K chain-of-thought: arithmetic in every line, then ``#### N`` / "The answer is N" /
    ``\\boxed{N}`` / Chinese — or, unmarked, only a closing sentence with the number."""
    value = rng.randint(-50, 100_000)
    gold = str(value if rng.random() < 0.7 else value + rng.randint(1, 9))
    lines = _reasoning(rng, _size(rng, min_bytes, max_bytes) - 60, _arith_line)
    marked = rng.random() >= UNMARKED_SHARE
    noun = rng.choice(_NOUNS)
    if marked:
        tail = rng.choice([f"#### {value}", f"The answer is {value:,}.", f"So the answer is $\\boxed{{{value}}}$.",
                           f"因此答案是 {value}。", f"**Final Answer:** {value}"])
    else:
        tail = rng.choice([f"So she has {value:,} {noun} left.", f"In total, {value} {noun}.",
                           f"That leaves {value} {noun} at the end of the week."])
    return Sample(_fit(lines, tail, max_bytes), str(value), gold, marked, "gsm8k")


_MATH_ANSWERS = (
    lambda a, b: (f"\\frac{{{a}}}{{{b + 1}}}", str(Fraction(a, b + 1))),
    lambda a, b: (f"{a}\\sqrt{{{b + 1}}}", f"{a}\\sqrt{{{b + 1}}}"),
    lambda a, b: (f"\\frac{{{a}\\pi}}{{{b + 1}}}", f"\\frac{{{a}}}{{{b + 1}}}\\pi"),
    lambda a, b: (f"({a}, -{b})", f"({a},-{b})"),
    lambda a, b: (str(a * b), str(a * b)),
    lambda a, b: (f"[{b}, {a + b})", f"[{b},{a + b})"),
)


def _math_line(rng: random.Random, step: int) -> str:
    a, b = rng.randint(2, 60), rng.randint(2, 12)
    kind = rng.randrange(5)
    if kind == 0:
        return f"Substituting $x = {a}$ gives $x^2 - {b}x = {a * a - b * a}$, so $f({a}) = {a * a - b * a}$."
    if kind == 1:
        return f"By the quadratic formula, $x = \\frac{{-{b} \\pm \\sqrt{{{b * b} + {4 * a}}}}}{{2}}$."
    if kind == 2:
        return f"Then $\\sin^2\\theta + \\cos^2\\theta = 1$ and $\\angle {chr(65 + step % 26)} = {a}^\\circ$."
    if kind == 3:
        return f"So $\\frac{{{a}}}{{{b}}} + \\frac{{1}}{{{b}}} = \\frac{{{a + 1}}}{{{b}}}$ (step {step})."
    return f"$$\\sum_{{k=1}}^{{{a}}} k = \\frac{{{a}({a}+1)}}{{2}} = {a * (a + 1) // 2}$$"


def math(rng: random.Random, *, min_bytes: int = MIN_BYTES, max_bytes: int = MAX_BYTES) -> Sample:
    """A MATH solution: LaTeX in every line, then ``\\boxed{}`` or "The final answer is $…$"; unmarked:
    only a closing ``$x = …$`` line.  ``stated``/``gold`` are in a dataset's notation."""
    a, b = rng.randint(2, 60), rng.randint(2, 9)
    shown, canonical = rng.choice(_MATH_ANSWERS)(a, b)
    wrong_shown, wrong = _MATH_ANSWERS[0](a + 1, b)
    gold = canonical if rng.random() < 0.7 else wrong
    del wrong_shown
    lines = _reasoning(rng, _size(rng, min_bytes, max_bytes) - 80, _math_line)
    marked = rng.random() >= UNMARKED_SHARE
    if marked:
        tail = rng.choice([f"Therefore the answer is $\\boxed{{{shown}}}$.",
                           f"Final Answer: The final answer is ${shown}$. I hope it is correct.",
                           f"So we get $\\boxed{{{shown}}}$."])
    else:
        tail = f"Hence the value is ${shown}$."
    return Sample(_fit(lines, tail, max_bytes), canonical, gold, marked, "math")


def _option_line(rng: random.Random, letter: str, verdict: bool, values: dict[str, int]) -> str:
    v = values[letter]
    if verdict:
        return f"({letter}) {v:,}: this matches, since $ {v // 2} \\times 2 + {v % 2} = {v}$ — correct."
    return rng.choice([
        f"({letter}) {v:,}: if we take {v}, then $ {v} - {v // 3} = {v - v // 3}$, which does not fit. Incorrect.",
        f"Option {letter} ({v}) is too large by {abs(v - values['A']) + 1}, so it is wrong.",
        f"{letter}. {v} — eliminate: {v} / 4 = {v / 4:.2f} is not an integer count.",
        f"选项{letter}：{v}，不符合条件（{v} ≠ {v + 1}）。",
    ])


def mmlu(rng: random.Random, *, min_bytes: int = MIN_BYTES, max_bytes: int = MAX_BYTES, options: int = 4) -> Sample:
    """A multiple-choice chain-of-thought that analyses every option (letters and numbers in each
    line), then "The answer is (X)." / "Answer: X" / ``**X**`` / 答案是X — or, unmarked, only
    "Option X is the only one that fits."."""
    letters = "ABCDEFGHIJ"[:options]
    right = rng.choice(letters)
    gold = right if rng.random() < 0.7 else rng.choice(letters)
    values = {c: rng.randint(10, 5000) for c in letters}
    budget = _size(rng, min_bytes, max_bytes) - 60
    lines = _reasoning(rng, budget // 3, _arith_line)
    while sum(len(x.encode()) + 1 for x in lines) < budget:
        lines += ["Let us check each option."] + [_option_line(rng, c, c == right, values) for c in letters]
    marked = rng.random() >= UNMARKED_SHARE
    if marked:
        tail = rng.choice([f"The answer is ({right}).", f"Answer: {right}", f"**Answer: {right}**", f"答案是{right}。",
                           f"Therefore, the correct answer is {right}."])
    else:
        tail = f"Option {right} is the only one that fits."
    return Sample(_fit(lines, tail, max_bytes), right, gold, marked, "mmlu")


def corpus(kind: str, n: int, seed: int, **sizes: int) -> list[Sample]:
    """``n`` samples of ``kind`` (``gsm8k``, ``math``, ``mmlu``) from ``seed``."""
    make = {"gsm8k": gsm8k, "math": math, "mmlu": mmlu}[kind]
    rng = random.Random(seed)
    return [make(rng, **sizes) for _ in range(n)]


def print_answer_check(samples: list[Sample], answers: dict[str, list[object]], *, width: int = 28) -> None:
    """Print, for each tool, how many of its answers equal the answer each output states, on the
    marked and the unmarked outputs apart (``answers[name][i]`` is the tool's answer to
    ``samples[i]``; ``None`` is no answer)."""
    print("answers equal to the answer the output states (labelled corpus):")
    for name, given in answers.items():
        parts = []
        for label, want in (("marked", True), ("unmarked", False)):
            rows = [(a, s) for a, s in zip(given, samples, strict=True) if s.marked == want]
            right = sum(a == s.stated for a, s in rows)
            none = sum(a is None for a, _ in rows)
            parts.append(f"{label} {right}/{len(rows)} ({right / max(1, len(rows)):.1%}, no answer {none})")
        print(f"  {name:<{width}} " + "; ".join(parts))


def print_marked_cost(run: Callable[[list[str]], object], clock: Callable[..., float], samples: list[Sample],
                      repeat: int) -> None:
    """Print ``run``'s CPU cost a row on the marked and on the unmarked outputs apart (issue 26:
    an output with no answer marker at most 3x a marked one), the fastest of ``repeat`` turns, the
    two alternating; ``clock(run, rows)`` times one call."""
    groups = {label: [s.output for s in samples if s.marked == want] for label, want in (("marked", True), ("unmarked", False))}
    best = dict.fromkeys(groups, float("inf"))
    for turn in range(repeat):
        for label in groups if turn % 2 == 0 else list(groups)[::-1]:
            rows = groups[label]
            best[label] = min(best[label], clock(run, rows) / max(1, len(rows)))
    print(f"ours a row: marked {best['marked'] * 1e6:.0f} us, unmarked {best['unmarked'] * 1e6:.0f} us: "
          f"unmarked / marked {best['unmarked'] / best['marked']:.2f}x (target <= 3x)")


def print_old_new(pairs: list[tuple[str, list[str], Callable[[str], object], Callable[[str], object]]], *,
                  width: int = 30, turns: int = 8) -> None:
    """For each ``(name, texts, old, new)``: check ``old`` and ``new`` give the same on every text
    (exit if not), then time both over the texts in ``turns`` alternating turns (ABBA), CPU time,
    and print each one's cost a row and what the new one saves."""
    for name, texts, old, new in pairs:
        if any(old(t) != new(t) for t in texts):
            raise SystemExit(f"{name}: old and new differ")
        spent = {"old": 0.0, "new": 0.0}
        for turn in range(turns):
            for label, fn in (("old", old), ("new", new)) if turn % 2 == 0 else (("new", new), ("old", old)):
                start = time.process_time()
                for text in texts:
                    fn(text)
                spent[label] += time.process_time() - start
        calls = turns // 2 * len(texts)
        old_us, new_us = spent["old"] / calls * 1e6, spent["new"] / calls * 1e6
        print(f"{name:{width}s} old {old_us:6.1f} us  new {new_us:6.1f} us  saves {old_us - new_us:5.1f} us a row")
