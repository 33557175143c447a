"""The statuses a result can carry; ``ok`` is the only one with an answer."""

from __future__ import annotations

from typing import Final, Literal

#: A result's status (str-valued: JSON output is unchanged).
Status = Literal["ok", "no_output", "error", "invalid", "no_answer", "contradictory", "out_of_range", "abstained"]

OK: Final = "ok"
NO_OUTPUT: Final = "no_output"  # the model produced nothing (input was None)
ERROR: Final = "error"  # a rule raised or a regex timed out; names the rule
INVALID: Final = "invalid"  # malformed input row, JSON that fails its schema, size limits
NO_ANSWER: Final = "no_answer"  # the output states no answer the parser accepts
CONTRADICTORY: Final = "contradictory"  # the output states two different answers
OUT_OF_RANGE: Final = "out_of_range"  # e.g. a letter past the option domain
ABSTAINED: Final = "abstained"  # the whole answer declines to answer ("I don't know", "无法确定"): not a wrong answer

ALL_STATUSES: Final[tuple[Status, ...]] = (
    OK, NO_OUTPUT, ERROR, INVALID, NO_ANSWER, CONTRADICTORY, OUT_OF_RANGE, ABSTAINED,
)
