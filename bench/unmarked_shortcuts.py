"""The short cuts for unmarked outputs (issue 26 target 2, second round), old code against new
in one process: each rule on what it receives in the shipped chain from 400 real-shaped
unmarked outputs (``bench/_realshape.py``, seed 0), the two alternating in 8 turns (ABBA), CPU
time; every result is checked equal first.  The old code is main's before the short cuts (the
reference copies in ``tests/test_fast_paths_unmarked.py``, main's ``unescape_newlines`` and
``[ \\n]+`` sub written out here).  A figure, not a test.

Run from the repository root: ``python bench/unmarked_shortcuts.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

import _realshape  # noqa: E402

import normalize  # noqa: E402
from normalize.core._build import build_description  # noqa: E402
from normalize.core.registry import REGISTRY  # noqa: E402
from normalize.limits._regex import compile_pattern  # noqa: E402
from normalize.rules import extract_math as em  # noqa: E402
from normalize.rules import format as fmt  # noqa: E402
from normalize.rules._format_params import NormalizeWhitespaceParams  # noqa: E402
from normalize.rules._speed import on_prose  # noqa: E402
from normalize.values import _abstention as ab  # noqa: E402
from tests.test_fast_paths_unmarked import _old_box_spans, _old_last_sentence  # noqa: E402

_COLLAPSE = NormalizeWhitespaceParams(newlines="collapse")


def _inputs(pack: normalize.Pack, kind: str, task: str) -> dict[str, list[str]]:
    """What each rule of ``task``'s chain receives from 400 unmarked outputs."""
    outputs = [s.output for s in _realshape.corpus(kind, 2500, 0) if not s.marked][:400]
    seen: dict[str, list[str]] = {}
    for output in outputs:
        text = output
        for _index, name, fn, params, _version in pack.task_types[task].chain.bound(REGISTRY.rules):
            seen.setdefault(name, []).append(text)
            try:
                text = str(fn(text, params, timeout=1.0))
            except Exception:  # a rejected row: the rest of the chain does not run
                break
    return seen


def _old_unescape(text: str) -> str:
    if "\\" not in text or ("\\n" not in text and "\\t" not in text):
        return text
    pattern = compile_pattern(fmt._ESCAPE)
    return on_prose(text, lambda s: pattern.sub(fmt._unescape_match, s), rule_name="unescape_newlines", timeout=1.0)


def _old_whitespace(text: str) -> str:
    saved = fmt._collapse_spaces
    fmt._collapse_spaces = lambda t: compile_pattern(r"[ \n]+").sub(" ", t)  # main's sub, for the old timing
    try:
        return fmt.normalize_whitespace(text, _COLLAPSE)
    finally:
        fmt._collapse_spaces = saved


def main() -> None:
    pack = normalize.load_pack()
    digits = next(s for s in pack.task_types["math"].chain if s.name == "fold_native_digits").params
    math_in, mc_in = _inputs(pack, "gsm8k", "math"), _inputs(pack, "mmlu", "multiple_choice")

    def old_fold(text: str) -> str:
        return text if text.isascii() or not digits.digits else text.translate(fmt._digit_table(digits.digits))

    pairs: list[tuple[str, list[str], Callable[[str], object], Callable[[str], object]]] = [
        ("unescape_newlines (GSM8K)", math_in["unescape_newlines"], _old_unescape, fmt.unescape_newlines),
        ("unescape_newlines (MMLU)", mc_in["unescape_newlines"], _old_unescape, fmt.unescape_newlines),
        ("normalize_whitespace collapse", math_in["normalize_whitespace"], _old_whitespace,
         lambda t: fmt.normalize_whitespace(t, _COLLAPSE)),
        ("fold_native_digits", math_in["fold_native_digits"], old_fold, lambda t: fmt.fold_native_digits(t, digits)),
        ("last_sentence (MMLU)", mc_in["normalize_whitespace"], _old_last_sentence, ab.last_sentence),
        ("box scans (GSM8K)", math_in["extract_math_answer"], _old_box_spans,
         lambda t: [m.span() for m in em._box_matches(em._Scan(t))]),
    ]  # fmt: skip
    print(f"build: {build_description()}")
    _realshape.print_old_new(pairs, width=30)


if __name__ == "__main__":
    main()
