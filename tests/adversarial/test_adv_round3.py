"""Round 3 of the reliability attacks (issue 24): every line a row, every wait bounded.

Each test builds its attack at test time, scaled down where the issue's size would take long,
and asserts the promise (a row with its status and reason, a bounded time or memory ratio, a
one-line error naming what failed), not only that nothing crashed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from normalize import status
from normalize.errors import RejectText
from normalize.pack import load_pack
from normalize.rules._extract_params import JsonBlockParams
from normalize.rules.extract import MAX_NESTING, extract_json_block

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "scoring.cli", *args], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=timeout)


# --------------------------------------------------------------------------- deep JSON


def _deep_row_output(depth: int = 100_000) -> str:
    """About 1.1 MB of JSON nesting ``depth`` levels: objects holding arrays, in prose."""
    return "Here is the JSON: " + '{"key": [' * depth + "1" + "]}" * depth + " Hope it helps."


@pytest.mark.parametrize("alternatives", ["first", "contradictory"])
def test_deep_json_is_refused_in_one_linear_scan(alternatives: str) -> None:
    text = _deep_row_output()
    assert len(text) > 1_000_000
    started = time.process_time()
    with pytest.raises(RejectText) as refused:
        extract_json_block(text, JsonBlockParams(alternatives=alternatives))  # type: ignore[arg-type]
    assert time.process_time() - started < 0.2
    assert refused.value.status == status.INVALID
    assert f"more than {MAX_NESTING} levels deep" in refused.value.reason


def test_deep_json_row_through_the_shipped_pack_is_invalid_fast() -> None:
    pack = load_pack()
    started = time.process_time()
    result = pack.run(_deep_row_output(90_000), "json_extraction")  # under the pack's 1 MiB max_input_bytes
    assert time.process_time() - started < 0.5
    assert result.status == status.INVALID
    assert result.reason is not None and "levels deep" in result.reason


def test_nesting_up_to_the_limit_still_extracts() -> None:
    depth = MAX_NESTING
    text = "Sure: " + "[" * depth + "1" + "]" * depth + " done"
    assert extract_json_block(text) == "[" * depth + "1" + "]" * depth
    from normalize._json import JsonLimits

    assert JsonLimits.model_fields["max_depth"].metadata[-1].le == MAX_NESTING  # no parse_json limit is deeper
