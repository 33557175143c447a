"""Rows are typed once: between the JSONL edges, scoring passes Row, Result and Score, never dicts.

Issue 11, point 3: a frozen ``Row`` is parsed at the edge, the scorer maps ``(Row, Result) ->
Score``, aggregation and reports take the typed triple (:class:`scoring.metrics.Scored`), and
dicts exist only where JSON is read or written.
"""

from __future__ import annotations

import inspect
import json
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from normalize import Result, load_pack
from normalize.io._io import InputRow
from normalize.io.row import Row
from normalize.io.rows import normalize_typed
from scoring import _comparison, _items, _rule_effects, _scorefile, aggregate
from scoring.aggregate import SampleAggregator
from scoring.cli import _common as _cli_common
from scoring.cli import _score as _cli_score
from scoring.cli import main
from scoring.integrations._shared import judge
from scoring.integrations.lm_eval import _score_payload, normalized_json, read_normalized
from scoring.metrics import Scored, score_result

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

#: The functions that read or write JSON objects: the edges, where a dict is the point.
EDGES = {
    "scoring._scorefile.add_score_fields",  # writes the score fields into the output row
    "scoring.cli._common.check_scoring",
    "scoring.cli._score.paired_tests",
}


def _functions(module: types.ModuleType) -> Iterator[tuple[str, Callable[..., Any]]]:
    for name, value in vars(module).items():
        if inspect.isfunction(value) and value.__module__ == module.__name__:
            yield f"{module.__name__}.{name}", value
        elif inspect.isclass(value) and value.__module__ == module.__name__:
            for attr, member in vars(value).items():
                if inspect.isfunction(member):
                    yield f"{module.__name__}.{name}.{attr}", member


def _is_json_object(hint: Any) -> bool:
    """``dict[str, Any]`` / ``Mapping[str, Any]`` (a JSON object, i.e. a row as a dict), anywhere in ``hint``."""
    origin = typing.get_origin(hint)
    if origin in (dict, Mapping) and typing.get_args(hint) == (str, Any):
        return True
    return any(_is_json_object(arg) for arg in typing.get_args(hint))


@pytest.mark.parametrize("module", [aggregate, _items, _comparison, _rule_effects, _scorefile, _cli_score, _cli_common], ids=lambda m: m.__name__)
def test_no_row_travels_as_a_dict_between_the_edges(module: types.ModuleType) -> None:
    """Aggregation, report items, comparisons and the score/compare/audit commands take typed rows:
    a parameter annotated as a JSON object (``Mapping[str, Any]``) outside the listed edges fails
    (mypy strict then holds every caller to the typed signature)."""
    offenders = []
    for name, fn in _functions(module):
        if name in EDGES or name.split(".")[-1].startswith("cmd_"):
            continue  # cmd_* take the argparse namespace
        hints = typing.get_type_hints(fn)
        offenders += [f"{name}({param})" for param, hint in hints.items() if param != "return" and _is_json_object(hint)]
    assert not offenders, offenders


def test_the_guard_sees_a_dict_parameter() -> None:
    def takes_a_row(row: Mapping[str, Any], rows: list[dict[str, Any]]) -> None: ...

    hints = typing.get_type_hints(takes_a_row)
    assert _is_json_object(hints["row"]) and _is_json_object(hints["rows"])
    assert not _is_json_object(typing.get_type_hints(_items.item_of)["scored"])


def test_aggregation_receives_typed_samples(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``normalize score --aggregate`` hands the aggregator Scored samples (Row, Result, Score),
    slimmed of raw text, and the report is unchanged by it."""
    seen: list[Any] = []
    add = SampleAggregator.add

    def spy(self: SampleAggregator, sample: Scored) -> None:
        seen.append(sample)
        add(self, sample)

    monkeypatch.setattr(SampleAggregator, "add", spy)
    assert main(["score", str(EXAMPLES / "runs.jsonl"), "--aggregate", "vote", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = sum(1 for _ in (EXAMPLES / "runs.jsonl").open())
    assert len(seen) == rows
    for sample in seen:
        assert type(sample) is Scored and type(sample.row) is Row
        assert sample.result is None or type(sample.result) is Result
    kept = SampleAggregator(load_pack(), "vote")
    kept.add(seen[0])
    (slim,) = next(iter(kept.groups.values()))
    assert slim.row.output is None and not slim.row.data and slim.result is not None and slim.result.trace == ()
    overall = report["groups"][-1]
    assert (overall["name"], overall["n"], overall["n_samples"]) == ("overall", 48, rows)  # 3 samples an item


def test_the_aggregator_refuses_a_dict() -> None:
    with pytest.raises(TypeError, match="takes a Scored sample, got dict"):
        SampleAggregator(load_pack(), "mean").add({"id": 1, "task": "gsm8k", "answer": "4"})  # type: ignore[arg-type]


def test_the_row_carries_the_task_type_the_pack_ran_it_as() -> None:
    pack = load_pack()
    ran = normalize_typed(pack, InputRow(1, {"task": "gsm8k", "output": "#### 4", "task_type": "judge"}))
    assert ran.row.task_type == ran.result.task_type == ran.out["task_type"] == "math"  # type: ignore[union-attr]
    refused = normalize_typed(pack, InputRow(2, {"task": "gsm8k", "output": 5}))
    assert refused.result is not None and refused.result.status == "invalid"
    assert refused.row.task_type is None and "task_type" not in refused.out  # as written: no type for a refused row


def test_report_parse_rates_read_the_parsers_record_not_an_input_field(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    """``found_by`` comes from the chain (Result.extra); an ``extra`` the input row brings is not it."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": 1, "task": "mmlu", "output": "The answer is A", "options": 4, "target": "A",
                                "extra": {"found_by": "marker"}}) + "\n", encoding="utf-8")
    assert main(["score", str(rows), "--format", "json"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    assert all(group["parse_rates"] is None for group in groups)  # multiple choice records no found_by


def test_integrations_score_like_normalize_score() -> None:
    """The integrations score the typed pair too: a gold with a unit wants it in the answer."""
    pack = load_pack()
    for output, correct in (("The answer is 5", False), ("The answer is 5 cm", True)):
        verdict = judge(pack, output, "math500", r"5\text{ cm}")
        typed = normalize_typed(pack, InputRow(1, {"task": "math500", "output": output, "target": r"5\text{ cm}"}))
        assert verdict.correct is correct
        assert score_result(pack, typed.row, typed.result).correct is correct
        payload = read_normalized(normalized_json(pack, output, "math500"))  # lm-eval: filter, then metric
        assert payload is not None
        assert _score_payload(pack, payload, "math500", r"5\text{ cm}").correct is correct
