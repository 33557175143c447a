"""One self-contained HTML page for a scored run (or two): charts, rule effects, a paged audit.

The page needs no network when opened: CSS and JavaScript are inline, and every chart is
inline SVG drawn in Python (:mod:`scoring._svg`).  Model outputs are untrusted: every text
written into the HTML is escaped, and the audit rows travel as JSON inside a
``<script type="application/json">`` block (``<``, ``>`` and ``&`` written as ``\\u003c``…,
so no output can close the block) and are put on the page by the inline script with
``textContent`` only, never as markup.

Aggregates are drawn for every group; the audit embeds at most ``audit_rows`` rows (all of
them when there are fewer; otherwise a seeded sample drawn round-robin across run × task ×
status so that rare statuses are represented) and shows them a page at a time.  Long texts
keep their changed spans and elide long unchanged stretches.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from normalize.core.pack import Pack
from scoring._html_extra import extra_section, extra_signatures
from scoring._html_style import CSS
from scoring._rule_effects import METHOD as RULE_EFFECTS_METHOD
from scoring._svg import (
    Bar,
    BarGroup,
    Difference,
    difference_chart,
    esc,
    interval_chart,
    status_chart,
)
from scoring.metrics import METRIC_REGISTRY, Score, Scored, ScoringConfig, scoring_config

__all__ = ["DEFAULT_AUDIT_ROWS", "DEFAULT_PAGE_SIZE", "ReportRun", "audit_records", "render_html"]

DEFAULT_AUDIT_ROWS: Final = 5000
DEFAULT_PAGE_SIZE: Final = 50
#: Statuses in the order the parse-rate bars stack them.
STATUS_ORDER: Final = ("ok", "abstained", "no_answer", "contradictory", "out_of_range", "invalid", "no_output", "error")
#: Unchanged stretches longer than this are elided in the audit (head and tail kept).
_KEEP_EQUAL: Final = 240
_EDGE: Final = 100
#: A side of an audit row keeps at most this many characters of text.
_MAX_SIDE: Final = 6000
#: Token sequences longer than this are diffed with difflib's junk heuristic (fast, coarser).
_AUTOJUNK_OVER: Final = 3000
#: Replaced spans up to this long are diffed again character by character.
_REFINE: Final = 60
#: Diff tokens: an ASCII word, a run of whitespace, or any other single character (CJK, punctuation).
_TOKEN: Final = re.compile(r"[A-Za-z0-9_]+|\s+|.", re.S)


@dataclass(frozen=True)
class ReportRun:
    """One scored run: its label, source file, output rows (with full trace: what the page
    shows), the typed scored rows they came from, the report."""

    label: str
    source: str
    rows: Sequence[Mapping[str, Any]]
    scored: Sequence[Scored]
    report: Mapping[str, Any]
    rule_effects: Mapping[str, Any] | None = None
    #: Per row, why the audit shows it first (:func:`scoring._audit_order.audit_flags`); "" for the rest.
    audit_flags: Sequence[str] | None = None

    @property
    def scores(self) -> list[Score]:
        """The score of each row, in order."""
        return [sample.score for sample in self.scored]


# --------------------------------------------------------------------------- audit data


def _common_ends(before: str, after: str) -> tuple[int, int]:
    """Lengths of the common prefix and of the common suffix (not overlapping it)."""
    limit = min(len(before), len(after))
    head = 0
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return head, tail


def _raw_edits(before: str, after: str) -> list[tuple[bool, str, str]]:
    """difflib over tokens (ASCII words, runs of space, single other characters); short replaced
    spans are then diffed again by character, so "$1,000" → "1000" marks only "$" and ","."""
    tokens_a, tokens_b = _TOKEN.findall(before), _TOKEN.findall(after)
    matcher = difflib.SequenceMatcher(None, tokens_a, tokens_b,
                                      autojunk=max(len(tokens_a), len(tokens_b)) > _AUTOJUNK_OVER)
    ops: list[tuple[bool, str, str]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        old, new = "".join(tokens_a[i1:i2]), "".join(tokens_b[j1:j2])
        if tag == "replace" and len(old) <= _REFINE and len(new) <= _REFINE:
            fine = difflib.SequenceMatcher(None, old, new, autojunk=False)
            ops.extend((t == "equal", old[a1:a2], new[b1:b2]) for t, a1, a2, b1, b2 in fine.get_opcodes())
        else:
            ops.append((tag == "equal", old, new))
    return ops


def _edits(before: str, after: str) -> list[tuple[bool, str, str]]:
    """``before`` → ``after`` as (same, old text, new text) spans, with coincidental matches merged away.

    A diff of "The answer is $1,000." against "$1000." could match stray characters inside
    the removed prose; an equal run of at most two characters between two edits is folded
    into them (when one of the edits is six characters or more), so a reader sees one removed
    span and one added span.  The common prefix and
    suffix are split off first, which keeps long texts with one small edit fast.

    >>> _edits("She earns $10 an hour. The answer is $1,000.", "$1000.")
    [(False, 'She earns $10 an hour. The answer is $1,', '$1'), (True, '000.', '000.')]
    >>> _edits("The answer is (B).", "The answer is B")
    [(True, 'The answer is ', 'The answer is '), (False, '(', ''), (True, 'B', 'B'), (False, ').', '')]
    """
    head, tail = _common_ends(before, after)
    ops = [(True, before[:head], after[:head])] if head else []
    ops += _raw_edits(before[head:len(before) - tail], after[head:len(after) - tail])
    if tail:
        ops.append((True, before[len(before) - tail:], after[len(after) - tail:]))
    merged: list[tuple[bool, str, str]] = []
    for index, (same, old, new) in enumerate(ops):
        if not old and not new:
            continue
        short = same and len(old) <= 2 and 0 < index < len(ops) - 1 and max(
            len(ops[index - 1][1]) + len(ops[index - 1][2]), len(ops[index + 1][1]) + len(ops[index + 1][2])) >= 6
        if short or not same:
            if merged and not merged[-1][0]:
                _, o, n = merged.pop()
                merged.append((False, o + old, n + new))
            else:
                merged.append((False, old, new))
        elif merged and merged[-1][0]:
            _, o, n = merged.pop()
            merged.append((True, o + old, n + new))
        else:
            merged.append((True, old, new))
    return merged


def _segments(before: str, after: str) -> tuple[list[list[Any]], list[list[Any]]]:
    """``before`` and ``after`` as segments ``[kind, text]``: 0 same, 1 changed, 2 elided count."""
    left: list[list[Any]] = []
    right: list[list[Any]] = []

    def same(side: list[list[Any]], text: str) -> None:
        if len(text) > _KEEP_EQUAL:
            side.extend(([0, text[:_EDGE]], [2, len(text) - 2 * _EDGE], [0, text[-_EDGE:]]))
        elif text:
            side.append([0, text])

    for equal, old, new in _edits(before, after):
        if equal:
            same(left, old)
            same(right, new)
            continue
        if old:
            left.append([1, old])
        if new:
            right.append([1, new])
    return _cap(left), _cap(right)


def _cap(side: list[list[Any]]) -> list[list[Any]]:
    """Keep at most ``_MAX_SIDE`` characters of a side; the rest becomes one elided count."""
    out: list[list[Any]] = []
    used = 0
    for index, (kind, text) in enumerate(side):
        if kind == 2:
            out.append([kind, text])
            continue
        if used + len(text) > _MAX_SIDE:
            room = max(0, _MAX_SIDE - used)
            if room:
                out.append([kind, text[:room]])
            rest = len(text) - room + sum(t if k == 2 else len(t) for k, t in side[index + 1:])
            out.append([2, rest])
            return out
        used += len(text)
        out.append([kind, text])
    return out


def _json_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _verdict(score: Score) -> str:
    if score.outcome == "scored":
        return "right" if score.correct else ("wrong" if score.value <= 0.0 else "partial")
    return {"no_answer": "unparsed"}.get(score.outcome, score.outcome)


#: Columns of one embedded audit row (the JSON holds arrays in this order); ``row`` numbers the
#: run's rows from 1, in input order.
AUDIT_FIELDS: Final = ("run", "row", "id", "task", "type", "status", "verdict", "answer", "target", "rules",
                       "reason", "raw", "normalized", "score", "first")


def _record(run: str, position: int, row: Mapping[str, Any], score: Score, flag: str = "") -> list[Any]:
    raw = row.get("output")
    normalized = row.get("normalized")
    raw_text = raw if isinstance(raw, str) else ("" if raw is None else json.dumps(raw, default=str))
    norm_text = normalized if isinstance(normalized, str) else ""
    if isinstance(raw, str) and isinstance(normalized, str):
        left, right = _segments(raw_text, norm_text)
    else:
        left, right = _cap([[0, raw_text]] if raw_text else []), _cap([[0, norm_text]] if norm_text else [])
    trace = row.get("trace") or []
    rules = [str(step.get("rule")) for step in trace if isinstance(step, Mapping)]
    return [
        run, position + 1, _json_text(row.get("id")), str(row.get("task") or "(invalid row)"),
        str(row.get("task_type") or ""), str(row.get("status")), _verdict(score), _json_text(row.get("answer")),
        _json_text(row.get("target")), rules, str(row.get("reason") or ""), left, right,
        round(score.value, 4) if score.outcome == "scored" else None, flag,
    ]


def _flag(run: ReportRun, position: int) -> str:
    return run.audit_flags[position] if run.audit_flags is not None else ""


def _choose(runs: Sequence[ReportRun], cap: int, seed: int) -> tuple[list[tuple[int, int]], bool]:
    """(run index, row position) pairs to embed: first the rows an audit shows first (normalization
    flipped the verdict, then a weak tier), then the rest in file order; True when it is a sample
    (flagged rows are taken before the stratified sample of the others)."""
    from scoring._audit_order import RANK

    def order(pair: tuple[int, int]) -> tuple[int, int, int]:
        return RANK.get(_flag(runs[pair[0]], pair[1]), 2), pair[0], pair[1]

    total = sum(len(run.rows) for run in runs)
    if total <= cap:
        return sorted(((r, p) for r, run in enumerate(runs) for p in range(len(run.rows))), key=order), False
    flagged = sorted(((r, p) for r, run in enumerate(runs) for p in range(len(run.rows)) if _flag(run, p)),
                     key=order)[:cap]
    taken = set(flagged)
    strata: dict[tuple[int, str, str], list[int]] = {}
    for r, run in enumerate(runs):
        for p, row in enumerate(run.rows):
            if (r, p) not in taken:
                strata.setdefault((r, str(row.get("task")), str(row.get("status"))), []).append(p)
    rng = random.Random(seed)
    queues = []
    for key in sorted(strata):
        members = strata[key]
        rng.shuffle(members)
        queues.append((key[0], members))
    chosen: list[tuple[int, int]] = []
    depth = 0
    room = cap - len(flagged)
    deepest = max((len(members) for _, members in queues), default=0)
    while len(chosen) < room and depth < deepest:
        for r, members in queues:
            if depth < len(members) and len(chosen) < room:
                chosen.append((r, members[depth]))
        depth += 1
    chosen.sort()
    return flagged + chosen, True


def audit_records(runs: Sequence[ReportRun], *, cap: int = DEFAULT_AUDIT_ROWS, seed: int = 0) -> dict[str, Any]:
    """The audit rows to embed (arrays in :data:`AUDIT_FIELDS` order) and how they were chosen."""
    if cap < 0:
        raise ValueError(f"the audit row cap must be non-negative, got {cap}")
    chosen, sampled = _choose(runs, cap, seed)
    records = [_record(runs[r].label, p, runs[r].rows[p], runs[r].scored[p].score, _flag(runs[r], p))
               for r, p in chosen]
    total = sum(len(run.rows) for run in runs)
    if sampled:
        note = (f"{len(records)} of {total} rows embedded: a seeded sample (seed {seed}) drawn round-robin across "
                "run × task × status, so every combination appears; filters and counts below refer to the "
                "embedded rows, the charts above to all rows.")
    else:
        note = f"all {total} rows embedded."
    if any(run.audit_flags for run in runs):
        note += (" Shown first: the rows where normalization flipped the verdict (the verdict on the raw output "
                 "with no rules differs), then those parsed by a weak tier (the last number), then the rest.")
    return {"fields": list(AUDIT_FIELDS), "rows": records, "total": total, "sampled": sampled, "note": note}


# --------------------------------------------------------------------------- html pieces


def _ci(block: Mapping[str, float] | None, digits: int = 3) -> str:
    if not block:
        return "—"
    return f"{block['value']:.{digits}f} [{block['low']:.{digits}f}, {block['high']:.{digits}f}]"


def _num(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _label(group: Mapping[str, Any]) -> str:
    return f"type:{group['name']}" if group["level"] == "task_type" else str(group["name"])


def _bar_group(group: Mapping[str, Any]) -> BarGroup:
    bars = []
    for series, key in (("A_strict", "a_strict"), ("A_valid", "a_valid"), ("random fallback", "random_fallback")):
        block = group.get(key)
        if block:
            bars.append(Bar(series, block["value"], block["low"], block["high"]))
    note = "no chance baseline: " + group["chance_note"] if group.get("chance_note") else ""
    return BarGroup(_label(group), tuple(bars), group.get("chance"), note)


def _stamp(pack: Pack) -> str:
    """What ends each section: the pack and its hash, which pin every number in it (the signature
    is once in the header, on demand)."""
    return f'<p class="stamp">pack <code>{esc(pack.name)}</code> · hash <code class="hash">{esc(pack.hash)}</code></p>'


def _signature_header(pack: Pack, runs: Sequence[ReportRun]) -> str:
    """The header's short signature (pack name, short hash, the task types whose chains were scored)
    and, in a ``<details>``, the signature of those chains, the pack's full signature and its hash."""
    kinds = sorted({sample.row.task_type for run in runs for sample in run.scored if sample.row.task_type})
    scored = pack.signature_for(kinds)
    return (f'<span class="pack">pack <b>{esc(pack.name)}</b> · hash <code class="hash">{esc(pack.short_hash)}</code>'
            f' · chains scored: {esc(", ".join(kinds) or "none")}</span>'
            '<details class="signature"><summary>signature</summary>'
            f'<div>chains scored: <code class="sig">{esc(scored)}</code></div>'
            f'<div>whole pack: <code class="sig">{esc(pack.signature)}</code></div>'
            f'<div>hash: <code class="hash">{esc(pack.hash)}</code></div></details>')


def _numbers_table(groups: Sequence[Mapping[str, Any]], run: str) -> str:
    head = ("group", "n", "scorable", "parsed", "parse rate", "abstained", "A_valid [CI]", "A_strict [CI]", "chance",
            "chance-adjusted [CI]", "random fallback [CI]", "metric", "left out")
    out = [f'<table class="numbers" data-run="{esc(run)}"><thead><tr>',
           "".join(f"<th>{esc(h)}</th>" for h in head), "</tr></thead><tbody>"]
    for g in groups:
        left_out = ", ".join(f"{k} {g[k]}" for k in ("no_target", "bad_target") if g.get(k))
        cells = [
            _label(g), str(g["n"]), str(g["scorable"]), str(g["parsed"]), _num(g["parse_rate"]),
            f'{g.get("abstained", 0)} ({_num(g.get("abstention_rate"))})', _ci(g["a_valid"]),
            _ci(g["a_strict"]), _num(g["chance"]), _ci(g["chance_adjusted"]), _ci(g["random_fallback"]),
            ", ".join(g.get("metrics") or []) or "—", left_out or "—",
        ]
        level = esc(g["level"])
        out.append(f'<tr class="level-{level}" data-group="{esc(_label(g))}">' + "".join(
            f'<td{" class=n" if i else ""}>{esc(c)}</td>' for i, c in enumerate(cells)) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _accuracy_section(runs: Sequence[ReportRun]) -> str:
    out = ['<section id="accuracy"><h2>Accuracy with bootstrap intervals</h2>',
           '<p class="lede">A_strict counts every unparsed answer wrong (an abstention too: not attempted); A_valid is '
           'the accuracy over parsed answers only, abstentions left out; the random fallback is what A_strict would be had each unparsed multiple-choice answer been '
           'replaced by a uniform random option. Whiskers are bootstrap intervals; the dashed red tick is the chance '
           'baseline (mean of 1/K over items).</p>']
    for index, run in enumerate(runs):
        groups = run.report["groups"]
        tasks = [g for g in groups if g["level"] == "task"]
        others = [g for g in groups if g["level"] != "task"]
        out.append(f'<h3>{esc(run.label)}: <span class="src">{esc(run.source)}</span></h3>')
        out.append('<div class="chartbox">')
        out.append(interval_chart([_bar_group(g) for g in tasks], title=f"{run.label}: accuracy per task",
                                  chart_id=f"acc-task-{index}"))
        out.append(interval_chart([_bar_group(g) for g in others], title=f"{run.label}: accuracy per task type",
                                  chart_id=f"acc-type-{index}"))
        out.append("</div>")
        out.append(f"<details open><summary>Numbers ({esc(run.label)})</summary>")
        out.append(_numbers_table(groups, run.label))
        out.append("</details>")
        spread = [g for g in groups if g.get("runs")]
        if spread:
            out.append(_runs_table(spread, run.report.get("cv_threshold")))
    return "".join(out)


def _runs_table(groups: Sequence[Mapping[str, Any]], threshold: float | None) -> str:
    out = [f"<h4>Run-to-run spread (flagged above CV {esc(threshold)})</h4>",
           '<table class="runs"><thead><tr><th>group</th><th>A_strict per run</th><th>CV</th><th>note</th>'
           "</tr></thead><tbody>"]
    for g in groups:
        spread = g["runs"]
        per_run = ", ".join(f"{k}={v:.3f}" for k, v in spread["a_strict"].items())
        flag = " flagged" if spread["flagged"] else ""
        out.append(f'<tr class="{flag.strip()}"><td>{esc(_label(g))}</td><td>{esc(per_run)}</td>'
                   f'<td class="n">{esc(_num(spread["cv"], 4))}{"  ⚠" if flag else ""}</td>'
                   f'<td>{esc(spread.get("note") or "")}</td></tr>')
    out.append("</tbody></table>")
    return "".join(out)


def _parse_section(runs: Sequence[ReportRun]) -> str:
    out = ['<section id="parse"><h2>Parse rate by status</h2>',
           '<p class="lede">Each bar is every row of the group split by the status the strict parser gave; only '
           '<code>ok</code> rows have an answer. Unparsed rows are never replaced by a guess.</p>']
    for index, run in enumerate(runs):
        groups = run.report["groups"]
        out.append(f"<h3>{esc(run.label)}</h3>")
        for level, title in (("task", "per task"), ("other", "per task type")):
            chosen = [g for g in groups if (g["level"] == "task") == (level == "task")]
            out.append(status_chart([(_label(g), g["statuses"]) for g in chosen], order=STATUS_ORDER,
                                    title=f"{run.label}: statuses {title}", chart_id=f"status-{level}-{index}"))
    return "".join(out)


def _compare_section(comparison: Mapping[str, Any], runs: Sequence[ReportRun], cap: int, seed: int) -> str:
    boot = comparison["bootstrap"]
    rows = [Difference(t["name"], t["diff"], t["low"], t["high"], t["n"]) for t in comparison["tasks"]]
    if comparison["overall"]:
        o = comparison["overall"]
        rows.append(Difference("overall", o["diff"], o["low"], o["high"], o["n"]))
    out = [
        '<section id="compare"><h2>Comparison: B − A</h2>',
        f'<p class="lede">A = <b>{esc(runs[0].label)}</b> ({esc(runs[0].source)}), B = <b>{esc(runs[1].label)}</b> '
        f'({esc(runs[1].source)}). {comparison["shared"]} items (task, id) scorable in both; '
        f'{comparison["only_in_a"]} only in A and {comparison["only_in_b"]} only in B are left out. Intervals: '
        f'{esc(boot["method"])} bootstrap, {boot["n_resamples"]} resamples, seed {boot["seed"]}, '
        f'{boot["confidence"]:.0%} confidence; items are resampled in pairs.</p>',
        difference_chart(rows, title="paired difference B − A per task", chart_id="diff-tasks"),
        '<table class="numbers compare"><thead><tr><th>task</th><th>n</th><th>mean A</th><th>mean B</th>'
        "<th>B − A [CI]</th><th>P(B ≤ A)</th><th>gained</th><th>lost</th></tr></thead><tbody>",
    ]
    for t in [*comparison["tasks"], *([comparison["overall"]] if comparison["overall"] else [])]:
        out.append(
            f'<tr data-group="{esc(t["name"])}"><td>{esc(t["name"])}</td><td class="n">{t["n"]}</td>'
            f'<td class="n">{t["mean_a"]:.3f}</td><td class="n">{t["mean_b"]:.3f}</td>'
            f'<td class="n">{t["diff"]:+.3f} [{t["low"]:+.3f}, {t["high"]:+.3f}]</td>'
            f'<td class="n">{t["p_b_le_a"]:.3f}</td><td class="n">{t["gained"]}</td><td class="n">{t["lost"]}</td></tr>')
    out.append("</tbody></table>")
    flipped = comparison["flipped"]
    out.append(f'<h3>Items that flipped ({len(flipped)})</h3>')
    if len(flipped) > cap:
        out.append(f'<p class="lede">{cap} of {len(flipped)} flipped items embedded: a seeded sample (seed {seed}); '
                   "the counts above are over all of them.</p>")
    out.append('<div class="controls" id="flip-controls"><label>direction <select data-filter="direction">'
               '<option value="">all</option><option>gained</option><option>lost</option></select></label>'
               '<label>task <select data-filter="task"><option value="">all</option></select></label>'
               '<span class="pager"></span></div>')
    out.append('<table class="flips" id="flip-table"><thead><tr><th>task</th><th>id</th><th>direction</th>'
               "<th>target</th><th>A: verdict · answer</th><th>B: verdict · answer</th><th>A output</th>"
               "<th>B output</th></tr></thead><tbody></tbody></table>")
    return "".join(out)


def _flip_records(comparison: Mapping[str, Any], cap: int, seed: int) -> list[list[Any]]:
    """The flipped items to embed: all of them, or a seeded sample of ``cap`` kept in order."""
    def short(text: Any) -> str:
        value = _json_text(text)
        return value if len(value) <= 600 else value[:600] + f"… ({len(value) - 600} more characters)"

    flipped = comparison["flipped"]
    if len(flipped) > cap:
        keep = sorted(random.Random(seed).sample(range(len(flipped)), cap))
        flipped = [flipped[i] for i in keep]
    return [[f["task"], f["id"], f["direction"], _json_text(f["target"]),
             f'{f["verdict_a"]} · {_json_text(f["answer_a"]) or "—"}',
             f'{f["verdict_b"]} · {_json_text(f["answer_b"]) or "—"}', short(f["output_a"]), short(f["output_b"])]
            for f in flipped]


def _example(e: Mapping[str, Any]) -> str:
    """One verdict the rule decided: the answer (or status) and score with and without it."""
    if not e["examples"]:
        return ""
    x = e["examples"][0]

    def side(v: Mapping[str, Any]) -> str:
        if v["status"] != "ok":
            return f'{v["status"]} ({v["value"]:g})'
        answer = _json_text(v["answer"])
        answer = answer if len(answer) <= 40 else answer[:39] + "…"
        return f'{answer} ({v["value"]:g})'

    return f'row {x["row"]}: {side(x["with"])} · without it: {side(x["without"])}'


def _rules_section(runs: Sequence[ReportRun]) -> str:
    with_effects = [run for run in runs if run.rule_effects]
    out = ['<section id="rules"><h2>What the rules did</h2>',
           f'<p class="lede"><b>Method.</b> {esc(RULE_EFFECTS_METHOD)}</p>']
    if not with_effects:
        out.append("<p>Rule effects were not computed for this report.</p>")
        return "".join(out)
    if runs[0].report.get("aggregate"):
        out.append("<p>The run aggregates samples; rule effects count rows (samples), each scored on its own.</p>")
    for run in with_effects:
        effects = run.rule_effects or {}
        note = f"{run.label}: {effects['rows_examined']} of {effects['rows_total']} rows examined"
        if effects.get("sample"):
            note += (f" (a seeded sample of {effects['sample']['rows']} rows, seed {effects['sample']['seed']}; "
                     "the counts are of the sample)")
        if effects.get("rows_without_full_trace"):
            note += f"; {effects['rows_without_full_trace']} rows had no full trace and were skipped"
        out.append(f"<p>{esc(note)}.</p>")
    keyed: dict[tuple[str, int], dict[str, Mapping[str, Any]]] = {}
    for run in with_effects:
        for e in (run.rule_effects or {})["rules"]:
            keyed.setdefault((e["task_type"], e["index"]), {})[run.label] = e
    labels = [run.label for run in with_effects]
    span = ' colspan="5"' if len(labels) > 1 else ""
    idle = sum(1 for per_run in keyed.values() if not any(e["changed"] or e["rejected"] for e in per_run.values()))
    if idle == len(keyed):
        out.append("<p>No rule changed any row.</p>")
    out.append(f'<label class="toggle"><input type="checkbox" id="show-idle"> show the {idle} rules that changed '
               "no row</label>")
    out.append('<div class="scroll"><table class="rules hide-idle" id="rules-table"><thead>')
    if len(labels) > 1:
        out.append('<tr><th colspan="4"></th>' + "".join(f"<th{span}>{esc(x)}</th>" for x in labels) + "<th></th></tr>")
    out.append("<tr><th>task type</th><th>#</th><th>rule</th><th>stage</th>" + "".join(
        "<th>rows</th><th>changed</th><th>rejected</th><th>verdicts changed</th><th>helped / hurt</th>"
        for _ in labels) + "<th>example</th></tr></thead><tbody>")
    for (_, _), per_run in keyed.items():
        first = next(iter(per_run.values()))
        active = any(e["changed"] or e["rejected"] for e in per_run.values())
        cells = [f'<td>{esc(first["task_type"])}</td><td class="n">{first["index"]}</td>'
                 f'<td><code>{esc(first["rule"])}.v{first["version"]}</code></td><td>{esc(first["stage"])}</td>']
        example = ""
        for label in labels:
            e = per_run.get(label)
            if e is None:
                cells.append('<td colspan="5"></td>')
                continue
            share = (e["changed"] + e["rejected"]) / e["rows"] if e["rows"] else 0.0
            cells.append(
                f'<td class="n">{e["rows"]}</td>'
                f'<td class="n changed" data-run="{esc(label)}">{e["changed"]} '
                f'<svg class="spark" width="50" height="9" role="img" aria-label="{share:.0%} of rows">'
                f'<rect width="50" height="9" fill="#eee"/><rect width="{50 * share:.1f}" height="9" fill="#0072b2"/>'
                f'</svg></td><td class="n">{e["rejected"]}</td>'
                f'<td class="n verdicts" data-run="{esc(label)}">{e["verdict_changed"]}</td>'
                f'<td class="n">{e["helped"]} / {e["hurt"]}</td>')
            example = example or _example(e)
        idle_class = "" if active else ' class="idle"'
        out.append(f'<tr{idle_class} data-rule="{esc(first["rule"])}" data-type="{esc(first["task_type"])}">'
                   + "".join(cells) + f'<td class="ex">{esc(example)}</td></tr>')
    out.append("</tbody></table></div>")
    return "".join(out)


def _audit_section(audit: Mapping[str, Any]) -> str:
    return (
        '<section id="audit"><h2>Audit: raw beside normalized</h2>'
        f'<p class="lede">Removed text is struck through in red, text the rules produced is green; long unchanged '
        f'stretches are elided. {esc(audit["note"])} The filters can be set in the address, e.g. '
        '<code>#status=no_answer&amp;task=mmlu</code>.</p>'
        '<div class="controls" id="audit-controls">'
        '<label>run <select data-filter="run"><option value="">all</option></select></label>'
        '<label>task <select data-filter="task"><option value="">all</option></select></label>'
        '<label>status <select data-filter="status"><option value="">all</option></select></label>'
        '<label>verdict <select data-filter="verdict"><option value="">all</option></select></label>'
        '<label><input type="checkbox" data-filter="changed"> changed by the rules</label>'
        '<label>search <input type="search" data-filter="q" placeholder="text in output or id"></label>'
        '<span class="pager"></span></div>'
        '<table class="audit" id="audit-table"><colgroup><col style="width:5%"><col style="width:10%">'
        '<col style="width:10%"><col style="width:29%"><col style="width:22%"><col style="width:11%">'
        '<col style="width:13%"></colgroup><thead><tr><th>row</th><th>task · id</th><th>status · verdict</th>'
        "<th>raw output</th><th>normalized</th><th>answer · target</th><th>rules</th></tr></thead>"
        "<tbody></tbody></table>"
    )


def _settings_section(pack: Pack, runs: Sequence[ReportRun], settings: Mapping[str, Any],
                      comparison: Mapping[str, Any] | None) -> str:
    report = runs[0].report
    boot = report["bootstrap"]
    agg = report.get("aggregate")
    items = [
        ("bootstrap intervals", f"{boot['method']}, {boot['n_resamples']} resamples, seed {boot['seed']}, "
                                f"{boot['confidence']:.0%} confidence"),
        ("aggregate", "none (one row is one item)" if not agg else
         f"{agg['mode']}" + (f", k={agg['k']}" if agg.get("k") is not None else "")),
        ("chance baseline", "mean of 1/K over scorable items, multiple choice only, when every item states its "
                            "option count K; random fallback = each unparsed answer worth 1/K"),
        ("run-to-run CV threshold", f"{report.get('cv_threshold')}"),
        ("pack settings", ", ".join(f"{k}={v}" for k, v in pack.settings.model_dump(mode="json").items())),
    ]
    if comparison is not None:
        paired = comparison["bootstrap"]
        items.insert(1, ("paired comparison", f"{paired['method']} bootstrap, {paired['n_resamples']} resamples, "
                                              f"seed {paired['seed']}, {paired['confidence']:.0%} confidence; "
                                              "items matched on (task, id), several rows of one item averaged"))
    items.extend((str(k), str(v)) for k, v in settings.items())
    for run in runs:
        for where, signature in extra_signatures(run.report["groups"]).items():
            items.append((f"{where} signature" + (f" ({run.label})" if len(runs) > 1 else ""), signature))
    out = ['<section id="settings"><h2>Settings that change a number</h2><table class="settings"><tbody>']
    out.extend(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in items)
    out.append("</tbody></table>")
    out.append('<h3>Scoring per task</h3><table class="settings scoring"><thead><tr><th>tasks</th><th>task type</th>'
               "<th>settings</th></tr></thead><tbody>")
    for (kind, described), tasks in _scoring_settings(pack, runs).items():
        out.append(f"<tr><td>{esc(', '.join(tasks))}</td><td>{esc(kind)}</td><td><code>{esc(described)}</code></td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _scoring_settings(pack: Pack, runs: Sequence[ReportRun]) -> dict[tuple[str, str], list[str]]:
    """Tasks grouped by their resolved scoring settings, as written text."""
    seen: dict[str, str] = {}
    for run in runs:
        for group in run.report["groups"]:
            if group["level"] == "task" and group.get("task_types"):
                seen.setdefault(group["name"], group["task_types"][0])
    grouped: dict[tuple[str, str], list[str]] = {}
    for task, kind in seen.items():
        try:
            config = scoring_config(pack, task, kind)
        except ValueError as exc:
            described = f"(cannot resolve: {exc})"
        else:
            described = _described(config)
        grouped.setdefault((kind, described), []).append(task)
    return grouped


def _aggregate_line(report: Mapping[str, Any]) -> str:
    agg = report.get("aggregate")
    if not agg:
        return ""
    k = f" (k={agg['k']})" if agg.get("k") is not None else ""
    overall = next((g for g in report.get("groups", ()) if g.get("level") == "overall"), None)
    samples = overall.get("samples") if overall else None
    counted = ""
    if samples:
        counted = (f'<div class="small samples">samples unparsed: {samples["unparsed"]} of {samples["n"]} '
                   f'({samples["unparsed_share"]:.3f}); items decided by a single parsed sample: '
                   f'{samples["items_decided_by_one_parsed_sample"]}</div>')
    return f'<div class="small">samples aggregated: {esc(agg["mode"])}{esc(k)}</div>{counted}'


def _described(config: ScoringConfig) -> str:
    """``metric=…`` and each setting the chosen metric takes (all settings if the registry cannot say)."""
    fields = dataclasses.asdict(config)
    try:
        taken = set(METRIC_REGISTRY.get(config.family, config.metric).params_model.model_fields)
    except ValueError:
        taken = set(fields) - {"task_type", "metric", "family"}
    return ", ".join(f"{k}={v}" for k, v in fields.items() if k == "metric" or k in taken)


def _summary(runs: Sequence[ReportRun], comparison: Mapping[str, Any] | None) -> str:
    out = ['<section id="summary"><div class="cards">']
    for run in runs:
        overall = next(g for g in run.report["groups"] if g["level"] == "overall")
        out.append(
            f'<div class="card" data-run="{esc(run.label)}"><div class="card-title">{esc(run.label)}</div>'
            f'<div class="big" data-key="a_strict">{esc(_num((overall["a_strict"] or {}).get("value")))}</div>'
            f'<div class="small">A_strict {esc(_ci(overall["a_strict"]))}</div>'
            f'<div class="small">A_valid {esc(_ci(overall["a_valid"]))}</div>'
            f'<div class="small">parse rate {esc(_num(overall["parse_rate"]))} · {overall["n"]} items · '
            f'{overall["n_samples"]} rows</div>{_aggregate_line(run.report)}</div>')
    if comparison and comparison["overall"]:
        o = comparison["overall"]
        out.append(f'<div class="card"><div class="card-title">B − A</div><div class="big">{o["diff"]:+.3f}</div>'
                   f'<div class="small">[{o["low"]:+.3f}, {o["high"]:+.3f}] over {o["n"]} paired items</div>'
                   f'<div class="small">{len(comparison["flipped"])} flipped: {o["gained"]} gained, '
                   f'{o["lost"]} lost</div></div>')
    out.append("</div>")
    flagged = [name for run in runs for name in run.report.get("flagged", [])]
    if flagged:
        out.append(f'<p class="warn">Run-to-run coefficient of variation above the threshold: {esc(", ".join(flagged))}'
                   "</p>")
    return "".join(out)


def _script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` survives literally."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def render_html(
    pack: Pack,
    runs: Sequence[ReportRun],
    *,
    comparison: Mapping[str, Any] | None = None,
    audit_rows: int = DEFAULT_AUDIT_ROWS,
    audit_seed: int = 0,
    page_size: int = DEFAULT_PAGE_SIZE,
    settings: Mapping[str, Any] | None = None,
    title: str | None = None,
    diff: Mapping[str, Any] | None = None,
) -> str:
    """The whole page as one string; ``runs`` holds one run, or two (A then B) with ``comparison``;
    ``diff``: a :func:`scoring.diff.diff_packs` document, shown as its own section."""
    if not runs or len(runs) > 2:
        raise ValueError(f"an HTML report shows one or two runs, got {len(runs)}")
    if page_size < 1:
        raise ValueError(f"the page size must be at least 1, got {page_size}")
    audit = audit_records(runs, cap=audit_rows, seed=audit_seed)
    shown = dict(settings or {})
    shown["audit rows embedded"] = f"at most {audit_rows} (seed {audit_seed}), {page_size} per page"
    heading = title or " vs ".join(run.label for run in runs)
    nav = [("summary", "Summary"), ("accuracy", "Accuracy"), ("parse", "Parse rate")]
    other = extra_section([(run.label, run.report["groups"]) for run in runs])
    if other:
        nav.append(("other", "Other metrics"))
    if comparison is not None:
        nav.append(("compare", "Comparison"))
    if diff is not None:
        nav.append(("diff", "Pack diff"))
    nav += [("rules", "Rules"), ("audit", "Audit"), ("settings", "Settings")]
    stamp = _stamp(pack)
    body = [
        '<header class="top"><div class="title"><h1>' + esc(heading) + "</h1>",
        _signature_header(pack, runs) + "</div>",
        "<nav>" + "".join(f'<a href="#{key}">{esc(text)}</a>' for key, text in nav) + "</nav></header><main>",
        _summary(runs, comparison), stamp, "</section>",
        _accuracy_section(runs), stamp, "</section>",
        _parse_section(runs), stamp, "</section>",
    ]
    if other:
        body += [other, stamp, "</section>"]
    if comparison is not None:
        body += [_compare_section(comparison, runs, audit_rows, audit_seed), stamp, "</section>"]
    if diff is not None:
        from scoring._html_diff import diff_section

        body.append(diff_section(diff))
    body += [
        _rules_section(runs), stamp, "</section>",
        _audit_section(audit), stamp, "</section>",
        _settings_section(pack, runs, shown, comparison), stamp, "</section>",
        f'<footer>Hash: <code class="hash">{esc(pack.hash)}</code> (the full signature: the header\'s '
        "<em>signature</em>)</footer></main>",
    ]
    flips = _flip_records(comparison, audit_rows, audit_seed) if comparison else []
    data = {"runs": len(runs), "audit": audit, "flips": flips, "pageSize": page_size}
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">",
        f"<title>{esc(heading)} · harness-normalize report</title>",
        f'<meta name="pack-hash" content="{esc(pack.hash)}"><meta name="pack-signature" content="{esc(pack.signature)}">',
        f"<style>{CSS}</style></head><body>",
        *body,
        f'<script type="application/json" id="report-data">{_script_json(data)}</script>',
        f"<script>{_JS}</script></body></html>\n",
    ])


_JS: Final = r"""
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  var PAGE = DATA.pageSize;
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function segments(cell, segs, changedTag) {
    segs.forEach(function (seg) {
      if (seg[0] === 2) { cell.appendChild(el("span", "elided", " \u2026" + seg[1] + " characters\u2026 ")); }
      else if (seg[0] === 1) { cell.appendChild(el(changedTag, null, seg[1])); }
      else { cell.appendChild(document.createTextNode(seg[1])); }
    });
    if (!segs.length) { cell.appendChild(el("span", "muted", "(none)")); }
  }
  function readHash() {
    var state = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv.length === 2) { state[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1]); }
    });
    return state;
  }
  function Table(opts) {
    var self = this;
    self.rows = opts.rows; self.tbody = opts.table.querySelector("tbody");
    self.controls = opts.controls; self.filters = {}; self.page = 0;
    self.pager = self.controls.querySelector(".pager");
    var hash = opts.useHash ? readHash() : {};
    Array.prototype.forEach.call(self.controls.querySelectorAll("[data-filter]"), function (input) {
      var key = input.getAttribute("data-filter");
      if (input.tagName === "SELECT" && input.options.length === 1) {
        var seen = {};
        self.rows.forEach(function (r) { seen[opts.value(r, key)] = true; });
        Object.keys(seen).sort().forEach(function (v) { var o = el("option", null, v); o.value = v; input.appendChild(o); });
      }
      if (hash[key] !== undefined) {
        if (input.type === "checkbox") { input.checked = hash[key] === "1"; } else { input.value = hash[key]; }
      }
      input.addEventListener(input.type === "search" ? "input" : "change", function () {
        self.page = 0; self.draw(); if (opts.useHash) { self.remember(); }
      });
    });
    if (hash.page) { self.page = Math.max(0, parseInt(hash.page, 10) - 1 || 0); }
    self.read = function () {
      var f = {};
      Array.prototype.forEach.call(self.controls.querySelectorAll("[data-filter]"), function (input) {
        f[input.getAttribute("data-filter")] = input.type === "checkbox" ? input.checked : input.value;
      });
      return f;
    };
    self.remember = function () {  // the filters into the address, so that a view can be shared
      var f = self.read(), parts = [];
      Object.keys(f).forEach(function (key) {
        if (f[key] === true) { parts.push(key + "=1"); }
        else if (f[key]) { parts.push(encodeURIComponent(key) + "=" + encodeURIComponent(f[key])); }
      });
      if (self.page) { parts.push("page=" + (self.page + 1)); }
      if (window.history && history.replaceState) { history.replaceState(null, "", "#" + parts.join("&")); }
    };
    self.draw = function () {
      var f = self.read();
      var hits = self.rows.filter(function (r) { return opts.match(r, f); });
      var pages = Math.max(1, Math.ceil(hits.length / PAGE));
      self.page = Math.min(self.page, pages - 1);
      while (self.tbody.firstChild) { self.tbody.removeChild(self.tbody.firstChild); }
      hits.slice(self.page * PAGE, (self.page + 1) * PAGE).forEach(function (r) { self.tbody.appendChild(opts.render(r)); });
      while (self.pager.firstChild) { self.pager.removeChild(self.pager.firstChild); }
      var prev = el("button", null, "\u2039 prev"), next = el("button", null, "next \u203a");
      prev.disabled = self.page === 0; next.disabled = self.page >= pages - 1;
      prev.addEventListener("click", function () { self.page -= 1; self.draw(); if (opts.useHash) { self.remember(); } });
      next.addEventListener("click", function () { self.page += 1; self.draw(); if (opts.useHash) { self.remember(); } });
      var first = hits.length ? self.page * PAGE + 1 : 0;
      var info = el("span", "count", first + "\u2013" + Math.min(hits.length, (self.page + 1) * PAGE) + " of " +
        hits.length + " matching (" + self.rows.length + " embedded) \u00b7 page " + (self.page + 1) + "/" + pages);
      info.setAttribute("data-matching", String(hits.length));
      self.pager.appendChild(prev); self.pager.appendChild(info); self.pager.appendChild(next);
    };
    self.draw();
  }
  var F = {}; DATA.audit.fields.forEach(function (name, i) { F[name] = i; });
  var MULTI = DATA.runs > 1;
  new Table({
    rows: DATA.audit.rows, table: document.getElementById("audit-table"),
    controls: document.getElementById("audit-controls"), useHash: true,
    value: function (r, key) { return r[F[key]]; },
    match: function (r, f) {
      if (f.run && r[F.run] !== f.run) { return false; }
      if (f.task && r[F.task] !== f.task) { return false; }
      if (f.status && r[F.status] !== f.status) { return false; }
      if (f.verdict && r[F.verdict] !== f.verdict) { return false; }
      if (f.changed && !r[F.rules].length) { return false; }
      if (f.q) {
        var q = f.q.toLowerCase(), hay = String(r[F.id]).toLowerCase();
        r[F.raw].forEach(function (s) { if (s[0] !== 2) { hay += "\n" + s[1].toLowerCase(); } });
        if (hay.indexOf(q) < 0) { return false; }
      }
      return true;
    },
    render: function (r) {
      var tr = el("tr", "audit-row");
      tr.setAttribute("data-status", r[F.status]); tr.setAttribute("data-task", r[F.task]);
      tr.appendChild(el("td", "n", r[F.row]));
      var who = el("td"); who.appendChild(el("div", null, r[F.task])); who.appendChild(el("div", "muted", r[F.id]));
      if (MULTI) { who.appendChild(el("div", "muted run", r[F.run])); }
      tr.appendChild(who);
      var st = el("td"); st.appendChild(el("div", "status", r[F.status])); st.appendChild(el("div", "muted verdict", r[F.verdict] +
        (r[F.score] !== null && r[F.verdict] === "partial" ? " " + r[F.score] : "")));
      if (r[F.reason]) { st.appendChild(el("div", "muted reason", r[F.reason])); }
      if (r[F.first]) { st.appendChild(el("div", "warn first", r[F.first])); }
      tr.appendChild(st);
      var raw = el("td", "text raw"); segments(raw, r[F.raw], "del"); tr.appendChild(raw);
      var norm = el("td", "text normalized"); segments(norm, r[F.normalized], "ins"); tr.appendChild(norm);
      var ans = el("td"); ans.appendChild(el("div", "answer", r[F.answer] || "\u2014"));
      ans.appendChild(el("div", "muted", "target " + (r[F.target] || "\u2014"))); tr.appendChild(ans);
      var rules = el("td", "muted rules");
      r[F.rules].forEach(function (name) { rules.appendChild(el("div", null, name)); });
      tr.appendChild(rules);
      return tr;
    }
  });
  var flipTable = document.getElementById("flip-table");
  if (flipTable) {
    var K = {task: 0, id: 1, direction: 2};
    new Table({
      rows: DATA.flips, table: flipTable, controls: document.getElementById("flip-controls"), useHash: false,
      value: function (r, key) { return r[K[key]]; },
      match: function (r, f) { return (!f.direction || r[2] === f.direction) && (!f.task || r[0] === f.task); },
      render: function (r) {
        var tr = el("tr", "flip-row " + r[2]);
        r.forEach(function (v, i) { tr.appendChild(el("td", i >= 6 ? "text" : null, v)); });
        return tr;
      }
    });
  }
  var showIdle = document.getElementById("show-idle");
  if (showIdle) {
    showIdle.addEventListener("change", function () {
      document.getElementById("rules-table").classList.toggle("hide-idle", !showIdle.checked);
    });
  }
  document.body.setAttribute("data-report-ready", "1");
}());
"""
