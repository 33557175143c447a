"""Helpers for the adversarial suite: temporary rules, a pack that uses them, busy-loop load."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from normalize.core.registry import REGISTRY, NoParams, RuleDef

#: A busy loop that ends by itself after ``seconds``: the test kills it sooner, but a crashed
#: test never leaves it spinning.
_BUSY = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"


@contextmanager
def saturated(processes: int = 2, seconds: float = 300.0) -> Iterator[None]:
    """Run the body with ``processes`` busy-loop processes (both cores of a 2-core machine)."""
    busy = [
        subprocess.Popen([sys.executable, "-c", _BUSY.format(seconds=seconds)])
        for _ in range(processes)
    ]
    try:
        yield
    finally:
        for proc in busy:
            proc.kill()
        for proc in busy:
            proc.wait(timeout=30)


def register(monkeypatch: pytest.MonkeyPatch, name: str, fn: Callable[..., str], *, stage: str = "format") -> None:
    definition = RuleDef(
        name=name, stage=stage, version=1, scope=("math",), params_model=NoParams,  # type: ignore[arg-type]
        fn=fn, idempotent=True, doc="",
    )
    monkeypatch.setitem(REGISTRY.rules, name, definition)


def write_pack(root: Path, math_chain: list[str], *, settings: str = "") -> Path:
    path = root / "pack.yaml"
    path.write_text(
        "name: adversarial\n" + settings
        + f"task_types:\n  math:\n    chain: [{', '.join(math_chain)}]\n    parser: text\n",
        encoding="utf-8",
    )
    return path
