"""Report sections the page has no dedicated chart for (text, ranking, pairwise metrics, …).

``build_report`` groups may carry more than accuracies: any key this module does not know is
walked, and every interval block in it (a mapping with numeric ``value``, ``low`` and
``high``) becomes a row — group, section, metric path, value [low, high] and a small interval
drawn on a scale shared by sibling figures across groups (0–1 when they fit, else from 0 or
over their own range, such as the Bradley–Terry ratings of all models).  Plain numbers at a group's top level (``mdd``) are
listed beside them, and every ``signature`` string found is a setting that changes a number.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from scoring._svg import esc

__all__ = ["KNOWN_KEYS", "extra_rows", "extra_section", "extra_signatures"]

#: Group keys the page draws itself (or that are bookkeeping).
KNOWN_KEYS: Final = frozenset({
    "level", "name", "task_types", "metrics", "n", "n_samples", "statuses", "no_target", "bad_target", "scorable",
    "parsed", "parse_rate", "abstained", "abstention_rate", "a_valid", "a_strict", "ties", "chance",
    "chance_adjusted", "random_fallback", "chance_note", "runs", "pack_signature", "pack_hash", "samples",
    "clusters", "structured",
})
_MAX_DEPTH: Final = 6
_OTHER_HELP: Final = "a further block of the report, as its JSON holds it"
#: What each section of "Other metrics" holds (shown above its table).
SECTION_HELP: Final = {
    "mdd": "minimum detectable difference: the smallest accuracy difference this many items would detect "
           "(two-sided 5 %, 80 % power); compare it with the differences you report",
    "text_metrics": "corpus-level text similarity of the parsed answers to the references (BLEU, chrF, ROUGE, "
                    "…), each with its sacrebleu-style signature",
    "ranking": "ranking metrics of ranking rows (NDCG, MRR, recall@k, …), averaged over rows",
    "pairwise": "judge verdicts: win rates and Bradley–Terry ratings of the compared models, position bias",
}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _blocks(value: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Mapping[str, Any]]]:
    if len(path) > _MAX_DEPTH or not isinstance(value, Mapping):
        return
    if all(_number(value.get(k)) for k in ("value", "low", "high")):
        yield path, value
        return
    for key, child in value.items():
        yield from _blocks(child, (*path, str(key)))


def extra_rows(groups: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per interval block or top-level number outside :data:`KNOWN_KEYS`, in group order."""
    rows: list[dict[str, Any]] = []
    for group in groups:
        label = f"type:{group['name']}" if group.get("level") == "task_type" else str(group.get("name"))
        for key, value in group.items():
            if key in KNOWN_KEYS or value is None:
                continue
            if _number(value):
                rows.append({"group": label, "section": key, "metric": key, "value": float(value), "low": None,
                             "high": None})
                continue
            for path, block in _blocks(value, (key,)):
                rows.append({"group": label, "section": key, "metric": " · ".join(path[1:]) or key,
                             "value": float(block["value"]), "low": float(block["low"]),
                             "high": float(block["high"])})
    return rows


def extra_signatures(groups: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """``section · path`` → signature string, for every ``signature`` under an unknown key."""
    found: dict[str, str] = {}

    def walk(value: Any, path: tuple[str, ...]) -> None:
        if len(path) > _MAX_DEPTH + 1:
            return
        if isinstance(value, Mapping):
            for key, child in value.items():
                if key == "signature" and isinstance(child, str):
                    found.setdefault(" · ".join(path), child)
                else:
                    walk(child, (*path, str(key)))

    for group in groups:
        for key, value in group.items():
            if key not in KNOWN_KEYS:
                walk(value, (key,))
    return found


def _scale(rows: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    """0–1 when every figure fits; from 0 when all are non-negative and spread over more than
    half of the top value; else the figures' own range, padded by 5 %."""
    values = [v for r in rows for v in (r["low"], r["high"], r["value"]) if v is not None]
    low, high = min(values), max(values)
    if low >= 0.0 and high <= 1.0:
        return 0.0, 1.0
    if low >= 0.0 and low <= high / 2:
        return 0.0, high * 1.05
    pad = (high - low) * 0.05 or abs(high) * 0.05 or 1.0
    return low - pad, high + pad


def _tick(value: float) -> str:
    """A scale end for people: ``1,050``, ``67.1``, ``0``.

    >>> _tick(1050.0), _tick(67.11), _tick(0.0)
    ('1,050', '67.1', '0')
    """
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _scale_key(row: Mapping[str, Any]) -> tuple[str, str]:
    """Rows that share a scale: same section and same parent path (``bradley_terry · ratings``)."""
    return row["section"], " · ".join(row["metric"].split(" · ")[:-1])


def _mini(row: Mapping[str, Any], lo: float, hi: float) -> str:
    width, height = 160, 12

    def x(v: float) -> float:
        return width * (min(hi, max(lo, v)) - lo) / (hi - lo)

    parts = [f'<svg class="mini" width="{width}" height="{height}" role="img" '
             f'aria-label="{esc(row["metric"])} on a {lo:g} to {hi:g} scale">',
             f'<line x1="0" y1="{height / 2}" x2="{width}" y2="{height / 2}" stroke="#ddd"/>']
    if row["low"] is not None:
        parts.append(f'<line x1="{x(row["low"]):.1f}" y1="{height / 2}" x2="{x(row["high"]):.1f}" y2="{height / 2}" '
                     'stroke="#0072b2" stroke-width="2"/>')
    parts.append(f'<circle cx="{x(row["value"]):.1f}" cy="{height / 2}" r="3.5" fill="#0072b2"/></svg>')
    return "".join(parts)


def extra_section(runs: Sequence[tuple[str, Sequence[Mapping[str, Any]]]]) -> str:
    """The "Other metrics" section for (run label, groups) pairs; empty when there is nothing to show."""
    per_run = [(label, extra_rows(groups)) for label, groups in runs]
    if not any(rows for _, rows in per_run):
        return ""
    present = sorted({row["section"] for _, rows in per_run for row in rows})
    out = ['<section id="other"><h2>Other metrics</h2><p class="lede">The figures of the report that the '
           "accuracy and parse-rate charts above do not show, one row per figure: the <b>group</b> (task, task type "
           "or overall), the report <b>section</b> it comes from, the <b>metric</b> (its path inside the section), "
           "its <b>value</b> with the bootstrap interval where the report gives one, and a small bar on the "
           "<b>scale</b> shared by that metric across groups (0–1 when the values fit).</p>",
           '<dl class="other-sections">',
           *(f"<dt>{esc(name)}</dt><dd>{esc(SECTION_HELP.get(name, _OTHER_HELP))}</dd>" for name in present),
           "</dl>"]
    for label, rows in per_run:
        if not rows:
            continue
        alike: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
        for row in rows:  # one scale per block of siblings (the models of one rating table), across groups
            alike.setdefault(_scale_key(row), []).append(row)
        scales = {key: _scale(members) for key, members in alike.items()}
        out.append(f"<h3>{esc(label)}</h3>")
        out.append('<table class="numbers other"><thead><tr><th>group</th><th>section</th><th>metric</th>'
                   "<th>value [CI]</th><th>scale</th><th></th></tr></thead><tbody>")
        for row in rows:
            lo, hi = scales[_scale_key(row)]
            text = f"{row['value']:.3f}" if row["low"] is None else (
                f"{row['value']:.3f} [{row['low']:.3f}, {row['high']:.3f}]")
            out.append(
                f'<tr data-group="{esc(row["group"])}" data-section="{esc(row["section"])}" '
                f'data-metric="{esc(row["metric"])}" data-value="{row["value"]:.6f}"><td>{esc(row["group"])}</td>'
                f'<td>{esc(row["section"])}</td><td>{esc(row["metric"])}</td><td class="n">{esc(text)}</td>'
                f'<td class="n muted">{_tick(lo)}–{_tick(hi)}</td><td>{_mini(row, lo, hi)}</td></tr>')
        out.append("</tbody></table>")
    return "".join(out)
