"""Golden samples for ``normalize check``: reading, validating and rewriting them.

A samples folder holds ``<task_type>.jsonl`` (raw outputs with their recorded result),
``opt_in.jsonl`` (one row per rule that no chain of the pack uses) and ``_recorded.json``, the one
file of pins: the pack's hash (per Unicode version) and content hash, and the resolved pack the
samples were recorded with.  Sample rows do not each carry the hash, so adding a rule rewrites
the rows whose results change and this one file, nothing else; ``check --update`` writes it.  Every malformed row raises
:class:`SamplesError` naming the file and line: a broken golden file is a configuration error,
never a silent skip.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from normalize.core.pack import Pack
from normalize.core.registry import REGISTRY
from normalize.core.tasktypes import FAMILIES
from normalize.io.row import read_lang, read_options_value

OPT_IN_FILE: Final = "opt_in.jsonl"
RECORDED_FILE: Final = "_recorded.json"

_SAMPLE_KEYS: Final = frozenset({"id", "task", "output", "options", "schema", "lang", "expected", "rules_hash", "note"})
_OPT_IN_KEYS: Final = frozenset(
    {"id", "rule", "params", "task_type", "input", "expected", "status", "version", "note"}
)
_EXPECTED_KEYS: Final = frozenset({"normalized", "answer", "status"})


class SamplesError(ValueError):
    """A golden-sample file or row is malformed (configuration error, exit code 2)."""


@dataclass(frozen=True)
class Observed:
    """What decides a score: the normalized text, the parsed answer (as JSON data), the status."""

    normalized: str | None
    answer: Any
    status: str

    def to_json(self) -> dict[str, Any]:
        return {"normalized": self.normalized, "answer": self.answer, "status": self.status}

    def same_as(self, other: Observed) -> bool:
        return (
            self.normalized == other.normalized
            and self.status == other.status
            and _canonical(self.answer) == _canonical(other.answer)
        )


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def as_json_data(value: Any) -> Any:
    """``value`` as plain JSON data (tuples become lists), so it compares like a recorded one.

    >>> as_json_data(("a", {"b": (1, 2)}))
    ['a', {'b': [1, 2]}]
    """
    return json.loads(json.dumps(value, ensure_ascii=False, default=repr))


@dataclass(frozen=True)
class Sample:
    """One golden row of ``<task_type>.jsonl``."""

    file: Path
    line: int
    id: str
    task: str
    task_type: str
    output: str | None
    options: tuple[str, ...] | int | None
    expected: Observed | None
    rules_hash: str | None
    raw: Mapping[str, Any]
    schema: Mapping[str, Any] | str | None = None  # the row's own JSON Schema, as Pack.run takes it
    lang: str | None = None  # the row's language tag, as Pack.run takes it (narrows the markers)


@dataclass(frozen=True)
class OptInSample:
    """One row of ``opt_in.jsonl``: a rule applied on its own to ``input``."""

    file: Path
    line: int
    id: str
    rule: str
    params: Mapping[str, Any]
    task_type: str
    input: str
    expected: str | None
    status: str
    version: int | None
    raw: Mapping[str, Any]


@dataclass(frozen=True)
class SampleSet:
    """Everything in a samples folder, validated against a pack."""

    directory: Path
    by_type: Mapping[str, tuple[Sample, ...]]
    opt_in: tuple[OptInSample, ...]
    recorded: Mapping[str, Any] | None
    #: sample files whose task type the pack does not define (left out of every check)
    skipped: tuple[str, ...] = field(default=())
    #: the pins of ``_recorded.json`` (name, hashes by Unicode version, content hash); None when
    #: the file is missing or in the old form that held only the resolved pack
    pins: Mapping[str, Any] | None = None

    @property
    def count(self) -> int:
        return sum(len(rows) for rows in self.by_type.values())


def default_samples_dir(pack: Pack) -> Path:
    """``samples/`` next to the pack's root file (``rules/samples`` for the shipped pack)."""
    if not pack.sources:
        raise SamplesError("the pack has no source file, so there is no default samples folder; pass --samples")
    return Path(pack.sources[0]).parent / "samples"


def _read_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    rows: list[tuple[int, dict[str, Any]]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise SamplesError(f"{path}: not UTF-8: {exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SamplesError(f"{path}:{number}: not valid JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(data, dict):
            raise SamplesError(f"{path}:{number}: a row must be a JSON object, got {type(data).__name__}")
        rows.append((number, data))
    return rows


def _fail(path: Path, line: int, message: str) -> SamplesError:
    return SamplesError(f"{path}:{line}: {message}")


def _parse_expected(value: Any, path: Path, line: int) -> Observed | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != _EXPECTED_KEYS:
        raise _fail(path, line, f"expected must be an object with exactly {sorted(_EXPECTED_KEYS)}, got {value!r}")
    normalized, status = value["normalized"], value["status"]
    if normalized is not None and not isinstance(normalized, str):
        raise _fail(path, line, f"expected.normalized must be a string or null, got {normalized!r}")
    if not isinstance(status, str):
        raise _fail(path, line, f"expected.status must be a string, got {status!r}")
    return Observed(normalized, value["answer"], status)


def _parse_options(value: Any, path: Path, line: int) -> tuple[str, ...] | int | None:
    """A sample's options, read by the one reader of options (:func:`normalize.io.row.read_options_value`)."""
    try:
        return read_options_value(value)
    except ValueError as exc:
        raise _fail(path, line, str(exc)) from None


def _parse_sample(path: Path, line: int, data: dict[str, Any], task_type: str, pack: Pack) -> Sample:
    unknown = set(data) - _SAMPLE_KEYS
    if unknown:
        raise _fail(path, line, f"unknown keys {sorted(unknown)}; a sample row has {sorted(_SAMPLE_KEYS)}")
    sample_id, task, output = data.get("id"), data.get("task"), data.get("output", ...)
    if not isinstance(sample_id, str) or not sample_id:
        raise _fail(path, line, f"id must be a non-empty string, got {sample_id!r}")
    if not isinstance(task, str):
        raise _fail(path, line, f"sample {sample_id}: task must be a string, got {task!r}")
    if output is ... or (output is not None and not isinstance(output, str)):
        raise _fail(path, line, f"sample {sample_id}: output must be a string or null")
    try:
        resolved = pack.task_type_of(task)
    except ValueError as exc:
        raise _fail(path, line, f"sample {sample_id}: {exc}") from None
    if resolved != task_type:
        raise _fail(path, line, f"sample {sample_id}: task {task!r} is of type {resolved!r}, but the file is for {task_type!r}")
    rules_hash = data.get("rules_hash")
    if rules_hash is not None and not isinstance(rules_hash, str):
        raise _fail(path, line, f"sample {sample_id}: rules_hash must be a string, got {rules_hash!r}")
    return Sample(
        file=path,
        line=line,
        id=sample_id,
        task=task,
        task_type=task_type,
        output=output,
        options=_parse_options(data.get("options"), path, line),
        expected=_parse_expected(data.get("expected"), path, line),
        rules_hash=rules_hash,
        raw=data,
        schema=_parse_schema(data.get("schema"), path, line),
        lang=read_lang(data.get("lang")),
    )


def _parse_schema(value: Any, path: Path, line: int) -> Mapping[str, Any] | str | None:
    if value is None or isinstance(value, (dict, str)):
        return value
    raise _fail(path, line, f"schema must be a JSON Schema object, a schema name or null, got {value!r}")


def _parse_opt_in(path: Path, line: int, data: dict[str, Any], known: Sequence[str]) -> OptInSample:
    unknown = set(data) - _OPT_IN_KEYS
    if unknown:
        raise _fail(path, line, f"unknown keys {sorted(unknown)}; an opt-in row has {sorted(_OPT_IN_KEYS)}")
    sample_id, name = data.get("id"), data.get("rule")
    if not isinstance(sample_id, str) or not sample_id:
        raise _fail(path, line, f"id must be a non-empty string, got {sample_id!r}")
    if not isinstance(name, str) or name not in REGISTRY.rules:
        raise _fail(path, line, f"sample {sample_id}: unknown rule {name!r}")
    params = data.get("params", {})
    if not isinstance(params, dict):
        raise _fail(path, line, f"sample {sample_id}: params must be an object, got {params!r}")
    task_type = data.get("task_type")
    if task_type not in known:
        raise _fail(path, line, f"sample {sample_id}: task_type must be one of {tuple(known)}, got {task_type!r}")
    text = data.get("input")
    if not isinstance(text, str):
        raise _fail(path, line, f"sample {sample_id}: input must be a string, got {text!r}")
    expected = data.get("expected")
    if expected is not None and not isinstance(expected, str):
        raise _fail(path, line, f"sample {sample_id}: expected must be a string or null, got {expected!r}")
    status = data.get("status", "ok")
    if not isinstance(status, str):
        raise _fail(path, line, f"sample {sample_id}: status must be a string, got {status!r}")
    version = data.get("version")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise _fail(path, line, f"sample {sample_id}: version must be an int, got {version!r}")
    return OptInSample(path, line, sample_id, name, params, str(task_type), text, expected, status, version, data)


def load_samples(directory: str | Path, pack: Pack) -> SampleSet:
    """Read and validate every golden file in ``directory`` against ``pack``."""
    root = Path(directory)
    if not root.is_dir():
        raise SamplesError(f"samples folder not found: {root}")
    by_type: dict[str, tuple[Sample, ...]] = {}
    skipped: list[str] = []
    seen_ids: dict[str, Path] = {}
    opt_in: list[OptInSample] = []
    # the declared task types, then the pack's own (``task_types: {yes_no: {family: ...}}``)
    known = tuple(dict.fromkeys([*FAMILIES, *pack.task_types]))
    for path in sorted(root.glob("*.jsonl")):
        stem = path.stem
        if path.name == OPT_IN_FILE:
            for line, data in _read_rows(path):
                row = _parse_opt_in(path, line, data, known)
                if row.id in seen_ids:
                    raise _fail(path, line, f"sample id {row.id!r} is also used in {seen_ids[row.id]}")
                seen_ids[row.id] = path
                opt_in.append(row)
            continue
        if stem not in known:
            raise SamplesError(
                f"{path}: a samples file is named <task type>.jsonl or {OPT_IN_FILE}; task types are {', '.join(known)}"
            )
        if stem not in pack.task_types:
            skipped.append(stem)
            continue
        rows: list[Sample] = []
        for line, data in _read_rows(path):
            sample = _parse_sample(path, line, data, stem, pack)
            if sample.id in seen_ids:
                raise _fail(path, line, f"sample id {sample.id!r} is also used in {seen_ids[sample.id]}")
            seen_ids[sample.id] = path
            rows.append(sample)
        by_type[stem] = tuple(rows)
    recorded: Mapping[str, Any] | None = None
    recorded_path = root / RECORDED_FILE
    if recorded_path.is_file():
        try:
            loaded = json.loads(recorded_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise SamplesError(f"{recorded_path}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
        if not isinstance(loaded, dict):
            raise SamplesError(f"{recorded_path}: must hold the pins and the resolved pack as a JSON object")
        if "resolved" in loaded:
            if not isinstance(loaded["resolved"], dict) or not isinstance(loaded.get("hashes", {}), dict):
                raise SamplesError(f"{recorded_path}: 'resolved' and 'hashes' must be JSON objects")
            recorded = loaded["resolved"]
            pins = {k: v for k, v in loaded.items() if k != "resolved"}
        else:  # the old form: the resolved pack alone (rewritten by the next --update)
            recorded, pins = loaded, None
    else:
        pins = None
    return SampleSet(root, by_type, tuple(opt_in), recorded, tuple(skipped), pins)


# --------------------------------------------------------------------------- rewriting


def updated_sample_row(sample: Sample, observed: Observed) -> dict[str, Any]:
    """The row with ``expected`` replaced (and an old per-row ``rules_hash`` dropped: the pack
    hash is pinned once, in ``_recorded.json``); other keys keep their order."""
    row = dict(sample.raw)
    row["expected"] = observed.to_json()
    row.pop("rules_hash", None)
    return row


def updated_opt_in_row(sample: OptInSample, text: str | None, status: str, version: int) -> dict[str, Any]:
    row = dict(sample.raw)
    row["expected"] = text
    if status == "ok":
        row.pop("status", None)
    else:
        row["status"] = status
    row["version"] = version
    return row


def dump_row(row: Mapping[str, Any]) -> str:
    """One JSONL line: UTF-8 kept, so Chinese and curly quotes stay readable in review."""
    return json.dumps(row, ensure_ascii=False, allow_nan=False)


def write_rows(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    path.write_text("".join(dump_row(r) + "\n" for r in rows), encoding="utf-8")


def pins_for(pack: Pack, previous: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The pins of ``pack``: its name, content hash (the resolved pack without the Unicode
    version) and full hash by Unicode version.  Hashes that ``previous`` recorded for other
    Unicode versions are kept while the content hash is the same (they still hold)."""
    import hashlib
    import unicodedata

    from normalize.values._json import canonical_json

    resolved = dict(pack.resolved())
    resolved.pop("unicode", None)
    content = hashlib.sha256(canonical_json(resolved).encode("utf-8")).hexdigest()
    hashes: dict[str, str] = {}
    if previous is not None and previous.get("content_hash") == content and isinstance(previous.get("hashes"), dict):
        hashes.update(previous["hashes"])
    hashes[unicodedata.unidata_version] = pack.hash
    return {"pack": pack.name, "content_hash": content, "hashes": dict(sorted(hashes.items()))}


def write_recorded(directory: Path, pins: Mapping[str, Any], resolved: Mapping[str, Any]) -> None:
    """Write ``_recorded.json``: the pins, then the resolved pack they were computed from."""
    document = {
        "about": "pins written by `normalize check --update`: do not edit or hand-merge; regenerate",
        **pins,
        "resolved": resolved,
    }
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    (directory / RECORDED_FILE).write_text(text, encoding="utf-8")
