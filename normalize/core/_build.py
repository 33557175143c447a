"""Which of this package's modules run compiled: the wheel compiles the hot ones with mypyc
(hatch_build.py); a checkout, an editable install or a pure-Python wheel runs them as source.
Results are the same either way (tests/test_compiled.py); speed figures say which they measured."""

from __future__ import annotations

import importlib
import importlib.machinery
from pathlib import Path


def compiled_modules() -> tuple[str, ...]:
    """The modules of ``normalize`` loaded from an extension module, in name order (empty when
    everything runs as source).

    >>> isinstance(compiled_modules(), tuple)
    True
    """
    root = Path(__file__).resolve().parent.parent
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    found = []
    for path in root.rglob("*"):
        if not path.name.endswith(suffixes):
            continue
        parts = path.relative_to(root.parent).parts
        name = ".".join((*parts[:-1], path.name.split(".", 1)[0]))
        file = getattr(importlib.import_module(name), "__file__", None) or ""
        if file.endswith(suffixes):
            found.append(name)
    return tuple(sorted(found))


def build_description() -> str:
    """One line for a benchmark's header: compiled (how many modules) or pure Python."""
    compiled = compiled_modules()
    if compiled:
        return f"compiled with mypyc ({len(compiled)} modules)"
    return "pure Python (no compiled modules: a checkout, an editable install or a pure wheel)"
