"""The short cuts for real-shaped multiple-choice outputs (issue 26 target 2, third round), old
code against new in one process: each on what it receives in the shipped ``mmlu`` chain from 400
real-shaped MMLU outputs (``bench/_realshape.py``, seed 0: 4 options, option-by-option analysis;
marked and unmarked as each short cut sees them), the two alternating in 8 turns (ABBA), CPU
time; every result is checked equal first.  The old code is main's before the short cuts (the
reference copies in ``tests/test_fast_paths_mmlu.py``, the old plan paths written out here).
A figure, not a test.

Run from the repository root: ``python bench/mmlu_shortcuts.py``.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

import _realshape  # noqa: E402

import normalize  # noqa: E402
from normalize.core._build import build_description  # noqa: E402
from normalize.core.registry import REGISTRY  # noqa: E402
from normalize.limits._literals import project  # noqa: E402
from normalize.limits._regex import compile_pattern  # noqa: E402
from normalize.parsers import _choice  # noqa: E402
from normalize.rules import _speed  # noqa: E402
from normalize.rules.format import unescape_newlines  # noqa: E402
from normalize.values import _abstention as ab  # noqa: E402
from tests.test_fast_paths_mmlu import _old_detect, _old_guess_langs  # noqa: E402

_ALTERNATIVES = (r"(?:correct|right|best)\s+(?:option|choice)\s+(?:is|would\s+be)", r"(?:故|所以|因此|因而|应)选(?:择)?\s*[:：]?")


def _inputs(pack: normalize.Pack, marked: bool) -> dict[str, list[str]]:
    """What each rule of the ``mmlu`` chain receives from 400 outputs, and the parser (``parser``)."""
    outputs = [s.output for s in _realshape.corpus("mmlu", 2500, 0) if s.marked == marked][:400]
    seen: dict[str, list[str]] = {"raw": outputs}
    for output in outputs:
        text = output
        for _index, name, fn, params, _version in pack.task_types["multiple_choice"].chain.bound(REGISTRY.rules):
            seen.setdefault(name, []).append(text)
            text = str(fn(text, params, timeout=1.0))
        seen.setdefault("parser", []).append(text)
    return seen


def _marker_pairs(texts: list[str]) -> list[tuple[str, list[str], Callable[[str], object], Callable[[str], object]]]:
    out = []
    for pattern in _ALTERNATIVES:
        plan = _speed._plan(pattern)
        prepared = [(unescape_newlines(t), project(unescape_newlines(t))) for t in texts]
        index = {id(t): p for t, p in zip(texts, prepared, strict=True)}

        def old(text: str, plan: _speed._Plan = plan, index: dict[int, tuple[str, bytes]] = index) -> object:  # main: the anchors, or a scan
            unescaped, projected = index[id(text)]
            return [m.span() for m in _speed._matches_from(plan, None, plan.projected_anchors, unescaped, projected, 1.0)]

        def new(text: str, plan: _speed._Plan = plan, index: dict[int, tuple[str, bytes]] = index) -> object:
            unescaped, projected = index[id(text)]
            return [m.span() for m in _speed._text_matches(plan, unescaped, projected, 1.0)]

        out.append((f"marker {pattern[:22]}…", texts, old, new))
    return out


def main() -> None:
    pack = normalize.load_pack()
    marked, unmarked = _inputs(pack, True), _inputs(pack, False)
    spec = pack.task_types["multiple_choice"].abstention
    assert spec is not None
    tails = [ab.last_sentence(t) for t in unmarked["parser"]]
    prepared = [_choice.prepare_text(t, timeout=1.0) for t in unmarked["parser"]]
    composed = [unicodedata.normalize("NFKC", t) for t in unmarked["parser"]]
    projections = [_choice._projected(t) for t in prepared]
    french = _choice._MARKERS[10]
    plan10 = _choice._PLANS[french]

    def old_marker10(text: str) -> object:  # main: the literal needs, then the whole scan
        projected = _choice._projected(text)
        if not _choice._open_needs(plan10, text, projected):
            return []
        return [m.span() for m in compile_pattern(french).finditer(text)]

    def old_unled(text: str) -> object:
        raw, projected, folded = _choice._ascii_views(text)
        return None if folded else _choice._unled_scan(text, raw, projected)

    pairs: list[tuple[str, list[str], Callable[[str], object], Callable[[str], object]]] = [
        *_marker_pairs(marked["extract_answer_marker"]),
        *[(f"{name} (unmarked)", texts, old, new) for name, texts, old, new in _marker_pairs(unmarked["extract_answer_marker"])],
        ("guess_langs (unmarked raw)", unmarked["raw"], _old_guess_langs, pack.guess_langs),
        ("abstention detect (last sentence)", tails, lambda t: _old_detect(spec, t, None),
         lambda t: ab.detect(spec, t, None, timeout=1.0)),
        ("choice: it/this clause starts", projections,
         lambda p: [m.start() + 1 for m in _choice._IT_AFTER_STOP.finditer(p)], _choice._after_stop_starts),
        ("choice: réponse/respuesta marker", prepared, old_marker10,
         lambda t: [m.span() for m in _choice._finditer(french, t)]),
        ("choice: quote table", composed, _choice._QUOTE_TABLE.translate,
         lambda t: _choice._QUOTE_TABLE.translate(t) if _choice._holds_quote(t) else t),
        ("choice: unled screen (views cached)", prepared, old_unled, _choice._unled),
    ]  # fmt: skip
    print(f"build: {build_description()}")
    _realshape.print_old_new(pairs, width=38)


if __name__ == "__main__":
    main()
