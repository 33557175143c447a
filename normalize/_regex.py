"""Regex helpers: everything is compiled with the ``regex`` module and matched with a timeout.

``regex`` raises :class:`TimeoutError` when a match runs past ``timeout`` seconds; unlike a
signal-based alarm this works in any thread.  The engine turns that into status ``error``.
"""

from __future__ import annotations

from functools import lru_cache

import regex

Pattern = regex.Pattern


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """Compile (and cache) ``pattern`` with the ``regex`` module, VERSION1 semantics off.

    A bad pattern raises ``ValueError`` naming it.
    """
    try:
        return regex.compile(pattern, flags)
    except regex.error as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from exc
