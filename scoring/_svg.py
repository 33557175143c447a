"""Inline SVG charts for the HTML report, drawn in Python: no charting library, no network.

Every chart is a string of SVG with its numbers written as text and as ``data-*`` attributes
(so a test, or a reader with a screen reader, finds the figures the bars show).  Every piece
of text goes through :func:`esc`; labels such as task names come from input files and are
untrusted.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Final

__all__ = ["Bar", "BarGroup", "Difference", "difference_chart", "esc", "interval_chart", "status_chart"]

#: Colours (colour-blind safe Okabe–Ito where it matters) for series and statuses.
SERIES_COLORS: Final = {"A_strict": "#0072b2", "A_valid": "#56b4e9", "random fallback": "#e69f00"}
STATUS_COLORS: Final = {
    "ok": "#009e73",
    "abstained": "#f0e442",
    "no_answer": "#999999",
    "contradictory": "#e69f00",
    "out_of_range": "#cc79a7",
    "invalid": "#d55e00",
    "no_output": "#dddddd",
    "error": "#8b0000",
}
_SHORT: Final = {"A_strict": "strict", "A_valid": "valid", "random fallback": "fallback"}
CHANCE_COLOR: Final = "#c00000"
_FONT: Final = 'font-family="system-ui, -apple-system, Segoe UI, sans-serif"'
_LABEL_W: Final = 190
_PLOT_W: Final = 420
_TEXT_W: Final = 200


def esc(text: object) -> str:
    """HTML-escape any value for text or a quoted attribute.

    >>> esc('<script>"x"</script>')
    '&lt;script&gt;&quot;x&quot;&lt;/script&gt;'
    """
    return escape(str(text), quote=True)


def _f(value: float) -> str:
    """A coordinate with at most two decimals."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _clip_label(label: str, limit: int = 28) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


@dataclass(frozen=True)
class Bar:
    """One bar: a series name, the point value and its interval (all in [0, 1])."""

    series: str
    value: float
    low: float
    high: float


@dataclass(frozen=True)
class BarGroup:
    """The bars of one group (a task, a task type, overall), with its chance baseline if any."""

    label: str
    bars: tuple[Bar, ...]
    chance: float | None = None
    note: str = ""


def interval_chart(groups: Sequence[BarGroup], *, title: str, chart_id: str, digits: int = 3) -> str:
    """Horizontal bars with interval whiskers on a 0–1 axis; a dashed red tick marks chance."""
    series = [name for name in SERIES_COLORS if any(b.series == name for g in groups for b in g.bars)]
    bar_h, gap, pad = 12, 3, 10
    bands = [max(1, len(g.bars)) * (bar_h + gap) + pad for g in groups]
    top, bottom = 34, 28
    height = top + bottom + max(sum(bands), bar_h + gap + pad)
    width = _LABEL_W + _PLOT_W + _TEXT_W
    x0 = _LABEL_W

    def x(value: float) -> float:
        return x0 + _PLOT_W * min(1.0, max(0.0, value))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-accuracy" id="{esc(chart_id)}" '
        f'role="img" aria-label="{esc(title)}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" {_FONT} '
        'font-size="11">',
        f"<title>{esc(title)}</title>",
    ]
    # legend
    lx = x0
    for name in series:
        out.append(f'<rect x="{_f(lx)}" y="8" width="12" height="10" fill="{SERIES_COLORS[name]}"/>')
        out.append(f'<text x="{_f(lx + 16)}" y="17">{esc(name)}</text>')
        lx += 22 + 7 * len(name) + 14
    if any(g.chance is not None for g in groups):
        out.append(f'<line x1="{_f(lx)}" y1="13" x2="{_f(lx + 14)}" y2="13" stroke="{CHANCE_COLOR}" '
                   'stroke-width="2" stroke-dasharray="3,2"/>')
        out.append(f'<text x="{_f(lx + 18)}" y="17">chance</text>')
    # grid
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        gx = x(tick)
        out.append(f'<line x1="{_f(gx)}" y1="{top - 4}" x2="{_f(gx)}" y2="{height - bottom + 2}" stroke="#e3e3e3"/>')
        out.append(f'<text x="{_f(gx)}" y="{height - bottom + 15}" text-anchor="middle" fill="#555">{tick:g}</text>')
    y_band = top
    for gi, group in enumerate(groups):
        band = bands[gi]
        if gi % 2 == 1:
            out.append(f'<rect x="0" y="{y_band}" width="{width}" height="{band}" fill="#f7f7f9"/>')
        out.append(f'<text x="{_LABEL_W - 8}" y="{_f(y_band + band / 2 + 4)}" text-anchor="end" '
                   f'font-weight="600"><title>{esc(group.label)}</title>{esc(_clip_label(group.label))}</text>')
        if not group.bars:
            out.append(f'<text x="{_f(x0 + 4)}" y="{y_band + 5 + bar_h - 2}" fill="#888" font-size="10">'
                       "no scorable items</text>")
        ordered = sorted(group.bars, key=lambda b: series.index(b.series))
        for si, bar in enumerate(ordered):
            y = y_band + 5 + si * (bar_h + gap)
            name = bar.series
            text = f"{bar.value:.{digits}f} [{bar.low:.{digits}f}, {bar.high:.{digits}f}]"
            out.append(
                f'<g class="bar" data-group="{esc(group.label)}" data-series="{esc(name)}" '
                f'data-value="{bar.value:.6f}" data-low="{bar.low:.6f}" data-high="{bar.high:.6f}">'
                f"<title>{esc(group.label)} · {esc(name)}: {esc(text)}</title>"
                f'<rect x="{x0}" y="{y}" width="{_f(x(bar.value) - x0)}" height="{bar_h}" fill="{SERIES_COLORS[name]}"/>'
                f'<line x1="{_f(x(bar.low))}" y1="{y + bar_h / 2}" x2="{_f(x(bar.high))}" y2="{y + bar_h / 2}" '
                'stroke="#222" stroke-width="1.3"/>'
                f'<line x1="{_f(x(bar.low))}" y1="{y + 2}" x2="{_f(x(bar.low))}" y2="{y + bar_h - 2}" stroke="#222"/>'
                f'<line x1="{_f(x(bar.high))}" y1="{y + 2}" x2="{_f(x(bar.high))}" y2="{y + bar_h - 2}" stroke="#222"/>'
                f'<text x="{x0 + _PLOT_W + 8}" y="{y + bar_h - 2}" class="num">'
                f'<tspan fill="#666">{esc(_SHORT[name])}</tspan> {esc(text)}</text>'
                "</g>"
            )
        if group.chance is not None:
            cx = x(group.chance)
            out.append(
                f'<line class="chance" data-group="{esc(group.label)}" data-value="{group.chance:.6f}" '
                f'x1="{_f(cx)}" y1="{y_band + 2}" x2="{_f(cx)}" y2="{y_band + band - 3}" stroke="{CHANCE_COLOR}" '
                f'stroke-width="2" stroke-dasharray="3,2"><title>chance {group.chance:.{digits}f}</title></line>'
            )
        elif group.note:
            out.append(f'<text x="{_f(x0 + _PLOT_W - 2)}" y="{y_band + band - 4}" text-anchor="end" fill="#888" '
                       f'font-size="9">{esc(group.note)}</text>')
        y_band += band
    out.append("</svg>")
    return "".join(out)


def status_chart(groups: Sequence[tuple[str, Mapping[str, int]]], *, order: Sequence[str], title: str,
                 chart_id: str) -> str:
    """One 100 % bar per group, split by status, each segment labelled with its count."""
    present = [s for s in order if any(counts.get(s) for _, counts in groups)]
    present += sorted({s for _, counts in groups for s in counts if counts[s]} - set(present))
    bar_h, band, top, bottom = 16, 24, 34, 10
    height = top + bottom + band * max(1, len(groups))
    width = _LABEL_W + _PLOT_W + _TEXT_W
    x0 = _LABEL_W
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-status" id="{esc(chart_id)}" role="img" '
        f'aria-label="{esc(title)}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" {_FONT} '
        'font-size="11">',
        f"<title>{esc(title)}</title>",
    ]
    lx = float(x0)
    for status in present:
        out.append(f'<rect x="{_f(lx)}" y="8" width="12" height="10" fill="{STATUS_COLORS.get(status, "#444")}"/>')
        out.append(f'<text x="{_f(lx + 16)}" y="17">{esc(status)}</text>')
        lx += 16 + 6.5 * len(status) + 14
    for gi, (label, counts) in enumerate(groups):
        y = top + gi * band
        total = sum(counts.get(s, 0) for s in present)
        out.append(f'<text x="{_LABEL_W - 8}" y="{y + bar_h - 3}" text-anchor="end" font-weight="600">'
                   f"<title>{esc(label)}</title>{esc(_clip_label(label))}</text>")
        ok = counts.get("ok", 0)
        rate = f"parsed {ok}/{total} ({ok / total:.1%})" if total else "no rows"
        out.append(f'<text x="{x0 + _PLOT_W + 8}" y="{y + bar_h - 3}" class="num">{esc(rate)}</text>')
        cursor = float(x0)
        for status in present:
            count = counts.get(status, 0)
            if not count or not total:
                continue
            w = _PLOT_W * count / total
            out.append(
                f'<g class="segment" data-group="{esc(label)}" data-status="{esc(status)}" data-count="{count}">'
                f"<title>{esc(label)} · {esc(status)}: {count} of {total} ({count / total:.1%})</title>"
                f'<rect x="{_f(cursor)}" y="{y}" width="{_f(w)}" height="{bar_h}" '
                f'fill="{STATUS_COLORS.get(status, "#444")}" stroke="#fff" stroke-width="0.5"/>'
            )
            if w >= 8 * len(str(count)) + 4:
                fill = "#000" if status in ("no_output", "ok", "no_answer", "contradictory", "abstained") else "#fff"
                out.append(f'<text x="{_f(cursor + w / 2)}" y="{y + bar_h - 4}" text-anchor="middle" '
                           f'fill="{fill}" font-size="10">{count}</text>')
            out.append("</g>")
            cursor += w
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True)
class Difference:
    """A paired difference B − A with its interval, for one task (or overall)."""

    label: str
    diff: float
    low: float
    high: float
    n: int


def difference_chart(rows: Sequence[Difference], *, title: str, chart_id: str, digits: int = 3) -> str:
    """A forest plot of B − A per task: a point, its interval, a zero line; green above, red below."""
    span = max([0.05, *(abs(v) for r in rows for v in (r.low, r.high, r.diff))])
    span = min(1.0, math.ceil(span * 20) / 20)
    band, top, bottom = 22, 20, 28
    height = top + bottom + band * max(1, len(rows))
    width = _LABEL_W + _PLOT_W + _TEXT_W
    x0 = _LABEL_W

    def x(value: float) -> float:
        return x0 + _PLOT_W * (max(-span, min(span, value)) + span) / (2 * span)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-diff" id="{esc(chart_id)}" role="img" '
        f'aria-label="{esc(title)}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" {_FONT} '
        'font-size="11">',
        f"<title>{esc(title)}</title>",
    ]
    for tick in (-span, -span / 2, 0.0, span / 2, span):
        gx = x(tick)
        stroke = "#888" if tick == 0 else "#e3e3e3"
        out.append(f'<line x1="{_f(gx)}" y1="{top - 6}" x2="{_f(gx)}" y2="{height - bottom + 2}" stroke="{stroke}"/>')
        out.append(f'<text x="{_f(gx)}" y="{height - bottom + 15}" text-anchor="middle" fill="#555">{tick:+.2f}</text>')
    out.append(f'<text x="{x0}" y="12" fill="#555">← A better</text>')
    out.append(f'<text x="{x0 + _PLOT_W}" y="12" text-anchor="end" fill="#555">B better →</text>')
    for ri, row in enumerate(rows):
        y = top + ri * band + band / 2
        color = "#009e73" if row.low > 0 else ("#d55e00" if row.high < 0 else "#555")
        text = f"{row.diff:+.{digits}f} [{row.low:+.{digits}f}, {row.high:+.{digits}f}] n={row.n}"
        if ri % 2 == 1:
            out.append(f'<rect x="0" y="{_f(y - band / 2)}" width="{width}" height="{band}" fill="#f7f7f9"/>')
        out.append(
            f'<g class="diff" data-group="{esc(row.label)}" data-value="{row.diff:.6f}" data-low="{row.low:.6f}" '
            f'data-high="{row.high:.6f}"><title>{esc(row.label)}: B − A {esc(text)}</title>'
            f'<text x="{_LABEL_W - 8}" y="{_f(y + 4)}" text-anchor="end" font-weight="600">{esc(_clip_label(row.label))}</text>'
            f'<line x1="{_f(x(row.low))}" y1="{_f(y)}" x2="{_f(x(row.high))}" y2="{_f(y)}" stroke="{color}" stroke-width="2"/>'
            f'<circle cx="{_f(x(row.diff))}" cy="{_f(y)}" r="4.5" fill="{color}"/>'
            f'<text x="{x0 + _PLOT_W + 8}" y="{_f(y + 4)}" class="num">{esc(text)}</text></g>'
        )
    out.append("</svg>")
    return "".join(out)
