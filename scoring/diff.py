"""Which rule moved the score: two packs on the same outputs, and the cause of every flipped verdict.

:func:`pack_differences` lists what separates two resolved packs, one *difference* at a time:
a chain step added, removed or with changed params (per task type), a parser or one of its
params, a task's task type, an alias table, a schema, a scoring entry, a setting.  Applying
every difference to the old pack gives the new pack's resolved configuration exactly (same
hash); :func:`apply_differences` applies any subset.

:func:`diff_packs` runs both packs on every row and scores it.  A row whose result and verdict
are identical under both packs is not replayed.  A row whose verdict flipped is re-run from its
raw output under the old pack with each relevant difference applied alone; the differences
that alone give the new pack's verdict are its causes.  When none does, pairs are tried, then
triples (within a bound of re-runs per row); a row no combination within the bound explains is
put down to all its relevant differences together.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from normalize.core.engine import Chain, RuleSpec
from normalize.core.pack import Pack, ParserSpec, Settings, TaskType
from normalize.core.registry import REGISTRY
from normalize.io.jsonl import InputRow
from normalize.io.rows import Normalized, normalize_typed
from scoring.metrics import NO_ANSWER, SCORED, MathVerifier, Score, score_result
from scoring.stats import paired_bootstrap

__all__ = [
    "METHOD",
    "Difference",
    "apply_differences",
    "diff_packs",
    "pack_differences",
    "render_diff_text",
]

METHOD = (
    "Both packs run every row. A row whose result (status, normalized text, answer, trace) and verdict are "
    "identical under both is not replayed. A row whose verdict (outcome and value) changed is re-run from its raw "
    "output under the old pack with each difference that can touch it (its task's chains, parser, task mapping, "
    "scoring entry, alias tables, schemas, settings) applied alone; a difference whose single application gives "
    "the new pack's verdict is a cause. When none does, pairs and then triples are tried (at most "
    "{budget} re-runs a row); a row still unexplained is put down to all its differences together."
)

#: Flip kinds, in the order reports list them.
FLIPS = ("right→wrong", "wrong→right", "parsed→unparsed", "unparsed→parsed", "value changed")
_EXAMPLES = 3
_REPLAY_BUDGET = 64
_MAX_COMBINATION = 3
_RAW_CHARS = 2000  #: an example keeps at most this much of the raw output


# --------------------------------------------------------------------------- differences


@dataclass(frozen=True)
class Difference:
    """One thing that separates two packs, appliable to the old pack on its own.

    ``section`` is ``chain``, ``parser``, ``task``, ``aliases``, ``schemas``, ``scoring`` or
    ``settings``; ``key`` names the entry (a task type, task, table, setting); ``label`` is the
    readable name reports print; ``old``/``new`` hold what is replaced (``None``: absent).
    """

    id: int
    section: str
    key: str
    label: str
    old: Any = None
    new: Any = None
    slot: int = -1  #: chain differences: the aligned slot of the task type's chain
    param: str | None = None  #: parser differences of one param

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "section": self.section, "key": self.key, "label": self.label}


@dataclass(frozen=True)
class _Slot:
    old: RuleSpec | None
    new: RuleSpec | None


def _spec_text(spec: RuleSpec) -> str:
    return f"{spec.name}.v{spec.version}"


def _changed_params(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    return sorted(k for k in set(old) | set(new) if old.get(k, _MISSING) != new.get(k, _MISSING))


_MISSING = object()


def _align(old: Chain, new: Chain) -> list[_Slot]:
    """The two chains' steps aligned by rule name: kept, changed, removed or added slots."""
    a, b = list(old.specs), list(new.specs)
    slots: list[_Slot] = []
    matcher = difflib.SequenceMatcher(None, [s.name for s in a], [s.name for s in b], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            slots += [_Slot(x, y) for x, y in zip(a[i1:i2], b[j1:j2], strict=True)]
        else:
            slots += [_Slot(x, None) for x in a[i1:i2]] + [_Slot(None, y) for y in b[j1:j2]]
    return slots


def _chain_slots(old: Pack, new: Pack) -> dict[str, list[_Slot]]:
    return {name: _align(old.task_types[name].chain, new.task_types[name].chain)
            for name in old.task_types if name in new.task_types}


def pack_differences(old: Pack, new: Pack) -> list[Difference]:
    """Every difference between the resolved ``old`` and ``new`` packs, in a stable order.

    >>> from normalize.core.pack import load_pack
    >>> pack_differences(load_pack(), load_pack())
    []
    """
    out: list[Difference] = []

    def add(section: str, key: str, label: str, old_value: Any, new_value: Any, **more: Any) -> None:
        out.append(Difference(len(out), section, key, label, old_value, new_value, **more))

    for name, slots in _chain_slots(old, new).items():
        for i, slot in enumerate(slots):
            if slot.old is not None and slot.new is not None:
                if slot.old.to_json() == slot.new.to_json():
                    continue
                a, b = slot.old.to_json(), slot.new.to_json()
                if a["version"] != b["version"]:
                    what = f"v{a['version']}→v{b['version']}"
                else:
                    what = "params " + ", ".join(_changed_params(a["params"], b["params"]))
                add("chain", name, f"{name}: {slot.old.name} {what}", slot.old, slot.new, slot=i)
            elif slot.new is not None:
                add("chain", name, f"{name}: {_spec_text(slot.new)} added", None, slot.new, slot=i)
            elif slot.old is not None:
                add("chain", name, f"{name}: {_spec_text(slot.old)} removed", slot.old, None, slot=i)
        p, q = old.task_types[name].parser, new.task_types[name].parser
        if p.to_json() == q.to_json():
            continue
        if p.name == q.name and p.version == q.version:
            pj, qj = p.params.model_dump(mode="json"), q.params.model_dump(mode="json")
            for param in _changed_params(pj, qj):
                add("parser", name, f"{name}: parser {p.name} param {param}", pj.get(param), qj.get(param),
                    param=param)
        else:
            add("parser", name, f"{name}: parser {p.name}.v{p.version}→{q.name}.v{q.version}", p, q)
    for name in sorted(set(old.task_types) & set(new.task_types)):
        a_ab, b_ab = old.task_types[name].abstention, new.task_types[name].abstention
        if _json_of(a_ab) != _json_of(b_ab):
            add("abstention", name, f"{name}: abstention {'changed' if a_ab and b_ab else 'added' if b_ab else 'removed'}",
                a_ab, b_ab)
    for name in sorted(set(old.task_types) ^ set(new.task_types)):
        there = name in new.task_types
        add("task_type", name, f"task type {name} {'added' if there else 'removed'}",
            old.task_types.get(name), new.task_types.get(name))
    for task in sorted(set(old.tasks) | set(new.tasks)):
        a_t, b_t = old.tasks.get(task), new.tasks.get(task)
        if a_t != b_t:
            add("task", task, f"task {task}: {a_t or '(none)'}→{b_t or '(none)'}", a_t, b_t)
    for task in sorted(set(old.task_parsers) | set(new.task_parsers)):
        a_p, b_p = old.task_parsers.get(task), new.task_parsers.get(task)
        if _json_of(a_p) != _json_of(b_p):
            add("task_parser", task, f"task {task}: parser {_json_of(a_p) or '(its type)'}→{_json_of(b_p) or '(its type)'}",
                a_p, b_p)
    for resource, label in (("languages", "language"), ("formats", "format")):
        a_r: Mapping[str, Any] = old.resources.get(resource, {})
        b_r: Mapping[str, Any] = new.resources.get(resource, {})
        for key in sorted(set(a_r) | set(b_r)):
            if _plain(a_r.get(key)) != _plain(b_r.get(key)):
                add(resource, key, f"{label} {key}", a_r.get(key), b_r.get(key))
    for section, label in (("aliases", "alias table"), ("schemas", "schema"), ("scoring", "scoring")):
        a_map: Mapping[str, Any] = getattr(old, section)
        b_map: Mapping[str, Any] = getattr(new, section)
        for key in sorted(set(a_map) | set(b_map)):
            a_v, b_v = a_map.get(key), b_map.get(key)
            if _plain(a_v) != _plain(b_v):
                add(section, key, f"{label} {key}", a_v, b_v)
    a_s = old.settings.model_dump(mode="json", exclude={"row_budget"})
    b_s = new.settings.model_dump(mode="json", exclude={"row_budget"})
    for key in _changed_params(a_s, b_s):
        add("settings", key, f"setting {key}: {a_s[key]}→{b_s[key]}", a_s[key], b_s[key])
    return out


def _json_of(value: Any) -> Any:
    """A task type's abstention or a parser spec as JSON (``None`` stays ``None``)."""
    return None if value is None else value.to_json()


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def apply_differences(old: Pack, new: Pack, chosen: Iterable[Difference]) -> Pack | None:
    """``old`` with the ``chosen`` differences (from :func:`pack_differences` of these two packs)
    applied; ``None`` when the combination is not a valid pack (a chain out of stage order, a
    task mapped to a task type the combination lacks).  The result keeps ``new``'s name when
    every difference is chosen."""
    picked = list(chosen)
    ids = {d.id for d in picked}
    slots = _chain_slots(old, new)
    task_types: dict[str, TaskType] = dict(old.task_types)
    for name, kind_slots in slots.items():
        mine = {d.slot for d in picked if d.section == "chain" and d.key == name}
        parser_diffs = [d for d in picked if d.section == "parser" and d.key == name]
        if not mine and not parser_diffs:
            continue
        base = old.task_types[name]
        specs = tuple(spec for i, slot in enumerate(kind_slots)
                      for spec in [slot.new if i in mine else slot.old] if spec is not None)
        try:
            chain = Chain(specs)
        except ValueError:
            return None
        parser = base.parser
        for d in parser_diffs:
            if d.param is None:
                parser = d.new
            else:
                dumped = parser.params.model_dump(mode="json")
                if d.new is None:
                    dumped.pop(d.param, None)
                else:
                    dumped[d.param] = d.new
                model = REGISTRY.parser(parser.name).params_model
                try:
                    parser = ParserSpec(parser.name, parser.version, model.model_validate(dumped))
                except ValidationError:  # params valid together in the new pack, not in this combination
                    return None
        task_types[name] = dataclasses.replace(base, chain=chain, parser=parser)  # abstention kept
    for d in picked:
        if d.section == "abstention" and d.key in task_types:
            task_types[d.key] = dataclasses.replace(task_types[d.key], abstention=d.new)
    for d in picked:
        if d.section == "task_type":
            if d.new is None:
                task_types.pop(d.key, None)
            else:
                task_types[d.key] = d.new
    maps: dict[str, dict[str, Any]] = {"tasks": dict(old.tasks), "aliases": dict(old.aliases),
                                       "schemas": dict(old.schemas), "scoring": dict(old.scoring),
                                       "task_parsers": dict(old.task_parsers),
                                       "languages": dict(old.resources.get("languages", {})),
                                       "formats": dict(old.resources.get("formats", {}))}
    for d in picked:
        section = {"task": "tasks", "task_parser": "task_parsers"}.get(d.section, d.section)
        if section in maps:
            if d.new is None:
                maps[section].pop(d.key, None)
            else:
                maps[section][d.key] = d.new
    if any(kind not in task_types for kind in maps["tasks"].values()):
        return None
    settings = old.settings
    changed = {d.key: d.new for d in picked if d.section == "settings"}
    if changed:
        try:
            settings = Settings.model_validate({**settings.model_dump(), **changed})
        except ValidationError:
            return None
    everything = ids == set(range(len(pack_differences(old, new)))) if picked else False
    return dataclasses.replace(old, name=new.name if everything else old.name, settings=settings, tasks=maps["tasks"],
                               task_types=task_types, aliases=maps["aliases"], schemas=maps["schemas"],
                               scoring=maps["scoring"], task_parsers=maps["task_parsers"],
                               resources={**old.resources, "languages": maps["languages"], "formats": maps["formats"]})


def _relevant(differences: Sequence[Difference], task: str | None, kinds: set[str]) -> list[Difference]:
    """The differences that can change a row of ``task`` run as one of ``kinds``."""
    out = []
    for d in differences:
        if d.section in ("chain", "parser", "task_type", "abstention") and d.key not in kinds:
            continue
        if d.section == "task_parser" and d.key != task:
            continue
        if d.section == "task" and d.key != task:
            continue
        if d.section == "scoring" and d.key not in ({task} | kinds):
            continue
        out.append(d)
    return out


# --------------------------------------------------------------------------- verdicts


Verdict = tuple[str, float]


def _verdict(score: Score) -> Verdict:
    return score.outcome, round(score.value, 12)


def _flip(a: Score, b: Score) -> str:
    """The kind of change from verdict ``a`` to ``b`` (which differ)."""
    if a.outcome == SCORED and b.outcome == SCORED:
        if a.correct is True and b.correct is not True:
            return "right→wrong"
        if a.correct is not True and b.correct is True:
            return "wrong→right"
        return "value changed"
    if a.outcome == SCORED and b.outcome == NO_ANSWER:
        return "parsed→unparsed"
    if a.outcome == NO_ANSWER and b.outcome == SCORED:
        return "unparsed→parsed"
    return "value changed"


def _same_result(a: Normalized, b: Normalized) -> bool:
    ra, rb = a.result, b.result
    if ra is None or rb is None:
        return ra is None and rb is None and a.row.task_type == b.row.task_type
    # trace steps compared without their chain index: a step added earlier shifts the indexes only
    steps_a = [(t.rule, t.version, t.before, t.after) for t in ra.trace]
    steps_b = [(t.rule, t.version, t.before, t.after) for t in rb.trace]
    return ((ra.status, ra.text, ra.reason, ra.task_type) == (rb.status, rb.text, rb.reason, rb.task_type)
            and steps_a == steps_b and _plain(ra.answer) == _plain(rb.answer))


def _scorable(score: Score) -> bool:
    return score.outcome in (SCORED, NO_ANSWER)


class _Stats:
    """One group's counts under both packs."""

    def __init__(self) -> None:
        self.rows = 0
        self.parsed = [0, 0]
        self.ran = [0, 0]
        self.pairs: list[tuple[float, float]] = []
        self.clusters: list[str | None] = []
        self.flips = dict.fromkeys(FLIPS, 0)
        self.changed_same_verdict = 0

    def add(self, a: Normalized, b: Normalized, sa: Score, sb: Score) -> None:
        self.rows += 1
        for i, n in enumerate((a, b)):
            if n.result is not None:
                self.ran[i] += 1
                self.parsed[i] += n.result.status == "ok"
        if _scorable(sa) and _scorable(sb):
            self.pairs.append((sa.value, sb.value))
            self.clusters.append(b.row.cluster)

    def to_json(self, n_resamples: int, seed: int) -> dict[str, Any]:
        def side(i: int) -> dict[str, Any]:
            values = [p[i] for p in self.pairs]
            return {"score": math.fsum(values) / len(values) if values else None,
                    "parse_rate": self.parsed[i] / self.ran[i] if self.ran[i] else None}

        out: dict[str, Any] = {"rows": self.rows, "paired": len(self.pairs), "old": side(0), "new": side(1),
                               "flips": dict(self.flips), "changed_same_verdict": self.changed_same_verdict}
        if self.pairs:
            clustered = any(c is not None for c in self.clusters)
            r = paired_bootstrap([p[0] for p in self.pairs], [p[1] for p in self.pairs],
                                 n_resamples=n_resamples, seed=seed, clusters=self.clusters if clustered else None)
            out["difference"] = {"diff": r.diff, "low": r.low, "high": r.high, "p_new_le_old": r.p_b_le_a}
        else:
            out["difference"] = None
        return out


# --------------------------------------------------------------------------- the diff

HARNESS_CAUSE = "extraction: the harness's own extracted answer (harness.extracted) → the pack on the raw output"


def their_row(row: InputRow) -> InputRow:
    """``row`` with the harness's own extracted answer (``harness.extracted``) as its output
    (``None``, i.e. no output, when the harness recorded none)."""
    if row.data is None:
        return row
    harness = row.data.get("harness")
    extracted = harness.get("extracted") if isinstance(harness, Mapping) else None
    if extracted is not None and not isinstance(extracted, str):
        extracted = json.dumps(extracted, ensure_ascii=False, default=str)
    return InputRow(row.line, {**row.data, "output": extracted}, row.error, row.raw_line)



class _Variants:
    """Packs made of the old pack with a set of differences applied (built once per set)."""

    def __init__(self, old: Pack, new: Pack, differences: Sequence[Difference]) -> None:
        self.old, self.new, self.differences = old, new, differences
        self._made: dict[frozenset[int], Pack | None] = {}

    def pack(self, chosen: Sequence[Difference]) -> Pack | None:
        key = frozenset(d.id for d in chosen)
        if key not in self._made:
            self._made[key] = apply_differences(self.old, self.new, chosen)
        return self._made[key]


def _attribute(row: InputRow, target: Verdict, candidates: Sequence[Difference], variants: _Variants,
               verifier: MathVerifier, budget: int) -> tuple[list[tuple[Difference, ...]], int]:
    """The smallest sets of ``candidates`` that alone give the ``target`` verdict, and the re-runs spent."""
    spent = 0
    for size in range(1, min(_MAX_COMBINATION, len(candidates)) + 1):
        found: list[tuple[Difference, ...]] = []
        for combo in itertools.combinations(candidates, size):
            if spent >= budget:
                return found, spent
            pack = variants.pack(combo)
            if pack is None:
                continue
            spent += 1
            typed = normalize_typed(pack, row)
            if _verdict(score_result(pack, typed.row, typed.result, verifier=verifier)) == target:
                found.append(combo)
        if found:
            return found, spent
    return [], spent


def _label(n: Normalized, s: Score) -> dict[str, Any]:
    r = n.result
    return {"status": r.status if r is not None else "invalid", "answer": _plain(r.answer) if r is not None else None,
            "outcome": s.outcome, "value": s.value,
            "rules": [f"{t.rule}.v{t.version}" for t in r.trace] if r is not None else []}


def diff_packs(
    old: Pack,
    new: Pack,
    rows: Iterable[InputRow],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    verifier: MathVerifier | None = None,
    replay_budget: int = _REPLAY_BUDGET,
    examples: int = _EXAMPLES,
    harness_side: bool = False,
) -> dict[str, Any]:
    """The diff document: per task and overall figures of both packs, flips, and their causes.

    ``harness_side``: the old side is the harness's own extraction: each row's
    ``harness.extracted`` (what :mod:`normalize.io.harness_logs` keeps) run through ``old`` in place
    of the raw output; the one difference, and so the cause of every flip, is the extraction.
    """
    if replay_budget < 1:
        raise ValueError(f"replay_budget must be at least 1, got {replay_budget}")
    differences = pack_differences(old, new)
    if harness_side:
        differences = [Difference(0, "extraction", "harness", HARNESS_CAUSE)]
    variants = _Variants(old, new, differences)
    overall = _Stats()
    tasks: dict[str, _Stats] = {}
    causes: dict[tuple[int, ...], dict[str, Any]] = {}
    unexplained = 0
    replayed = identical = total = 0
    own = verifier is None
    active = MathVerifier() if verifier is None else verifier
    try:
        for row in rows:
            total += 1
            a, b = normalize_typed(old, their_row(row) if harness_side else row), normalize_typed(new, row)
            sa = score_result(old, a.row, a.result, verifier=active)
            sb = score_result(new, b.row, b.result, verifier=active)
            task = a.row.task or b.row.task or "(no task)"
            group = tasks.setdefault(task, _Stats())
            for g in (overall, group):
                g.add(a, b, sa, sb)
            same_verdict = _verdict(sa) == _verdict(sb)
            if same_verdict:
                if _same_result(a, b):
                    identical += 1
                else:
                    for g in (overall, group):
                        g.changed_same_verdict += 1
                continue
            kind = _flip(sa, sb)
            for g in (overall, group):
                g.flips[kind] += 1
            replayed += 1
            kinds = {k for k in (a.row.task_type, b.row.task_type) if k}
            candidates = _relevant(differences, a.row.task or b.row.task, kinds)
            if harness_side:
                found = [tuple(differences)]
            else:
                found, _ = _attribute(row, _verdict(sb), candidates, variants, active, replay_budget)
            if not found:
                unexplained += 1
                found = [tuple(candidates)]
            raw = b.row.output
            example = {"line": row.line, "id": a.row.id, "task": task, "flip": kind,
                       "old": _label(a, sa), "new": _label(b, sb),
                       "raw": raw if raw is None or len(raw) <= _RAW_CHARS else raw[:_RAW_CHARS] + "…"}
            for combo in found:
                key = tuple(d.id for d in combo)
                entry = causes.setdefault(key, {
                    "cause": " + ".join(d.label for d in combo) or "(no difference of the packs: unexplained)",
                    "differences": list(key), "rows": 0, "flips": dict.fromkeys(FLIPS, 0), "examples": []})
                entry["rows"] += 1
                entry["flips"][kind] += 1
                if len(entry["examples"]) < examples:
                    entry["examples"].append(example)
    finally:
        if own:
            active.close()
    return {
        "old": {"name": old.name, "hash": old.hash},
        "new": {"name": new.name, "hash": new.hash},
        "differences": [d.to_json() for d in differences],
        "rows": total,
        "rows_identical": identical,
        "rows_replayed": replayed,
        "rows_unexplained_by_any_combination": unexplained,
        "overall": overall.to_json(n_resamples, seed),
        "tasks": {name: stats.to_json(n_resamples, seed) for name, stats in sorted(tasks.items())},
        "causes": sorted(causes.values(), key=lambda c: (-c["rows"], c["cause"])),
        "bootstrap": {"method": "paired percentile over rows (over clusters where rows carry a cluster)",
                      "n_resamples": n_resamples, "seed": seed, "confidence": 0.95},
        "method": METHOD.format(budget=replay_budget),
    }


# --------------------------------------------------------------------------- text


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _group_line(name: str, g: Mapping[str, Any]) -> str:
    d = g["difference"]
    delta = "-" if d is None else f"{d['diff']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]"
    flips = ", ".join(f"{k} {v}" for k, v in g["flips"].items() if v) or "no flips"
    return (f"{name:<20} rows {g['rows']:>6}  old {_num(g['old']['score'])} (parsed {_num(g['old']['parse_rate'])})  "
            f"new {_num(g['new']['score'])} (parsed {_num(g['new']['parse_rate'])})  new − old {delta}  {flips}")


def render_diff_text(document: Mapping[str, Any], *, old_label: str = "OLD", new_label: str = "NEW") -> str:
    """The diff document for people."""
    lines = [f"old: {old_label}  pack {document['old']['name']}  {document['old']['hash']}",
             f"new: {new_label}  pack {document['new']['name']}  {document['new']['hash']}"]
    diffs = document["differences"]
    lines.append(f"{len(diffs)} difference(s) between the packs" + (":" if diffs else ""))
    lines += [f"  [{d['id']}] {d['label']}" for d in diffs]
    lines.append("")
    for name, g in document["tasks"].items():
        lines.append(_group_line(name, g))
    lines.append(_group_line("overall", document["overall"]))
    lines.append(f"rows {document['rows']}: identical under both packs (not replayed) {document['rows_identical']}, "
                 f"verdict flipped (replayed) {document['rows_replayed']}, changed with the same verdict "
                 f"{document['overall']['changed_same_verdict']}")
    if document["causes"]:
        lines.append("")
        lines.append("causes of the flipped verdicts (a row with several single causes counts under each):")
        for c in document["causes"]:
            flips = ", ".join(f"{k} {v}" for k, v in c["flips"].items() if v)
            lines.append(f"  {c['rows']:>5}  {c['cause']}  ({flips})")
            for e in c["examples"]:
                raw = (e["raw"] or "")
                raw = raw if len(raw) <= 70 else raw[:67] + "..."
                lines.append(f"         line {e['line']} id {e['id']!r} {e['task']}: {e['old']['answer']!r} "
                             f"({e['old']['outcome']}, {e['old']['value']:g}) → {e['new']['answer']!r} "
                             f"({e['new']['outcome']}, {e['new']['value']:g})  raw {raw!r}")
    b = document["bootstrap"]
    lines.append("")
    lines.append(f"intervals: {b['method']} bootstrap, {b['n_resamples']} resamples, seed {b['seed']}, "
                 f"{b['confidence']:.0%}")
    return "\n".join(lines)
