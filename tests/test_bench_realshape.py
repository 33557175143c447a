"""The benchmarks' real-shaped corpus keeps its promises (issue 26): sizes, markers, digits and
LaTeX in the reasoning, labels that the outputs state, seeded."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def realshape() -> Iterator[ModuleType]:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        yield importlib.import_module("_realshape")
    finally:
        sys.path.remove(str(ROOT / "bench"))


@pytest.mark.parametrize("kind", ["gsm8k", "math", "mmlu"])
def test_corpus_shape(realshape: ModuleType, kind: str) -> None:
    samples = realshape.corpus(kind, 400, 3)
    assert samples == realshape.corpus(kind, 400, 3)  # seeded
    sizes = [len(s.output.encode()) for s in samples]
    assert min(sizes) >= 400 and max(sizes) <= 4000
    unmarked = sum(not s.marked for s in samples) / len(samples)
    assert 0.14 <= unmarked <= 0.26
    for s in samples:
        lines = s.output.splitlines()[:-1]
        assert all(any(c.isdigit() for c in line) for line in lines if not line.startswith("Let us"))
        tail = s.output.splitlines()[-1]
        if kind == "gsm8k":
            assert s.stated in tail or f"{int(s.stated):,}" in tail
        elif kind == "mmlu":
            assert s.stated in tail
        # math states it in LaTeX (\\frac{20}{8} for 5/2): the benches compare values
    if kind != "gsm8k":
        assert sum("\\" in s.output for s in samples) == len(samples)  # LaTeX in every output
    if kind == "mmlu":
        assert all(all(f"({c})" in s.output or f"Option {c}" in s.output or f"选项{c}" in s.output
                       or f"{c}. " in s.output for c in "ABCD") for s in samples)
