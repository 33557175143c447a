"""The ``normalize diff`` section of the HTML report, and the page ``normalize diff --html`` writes.

Every text on the page comes from packs or model outputs and is escaped (:func:`scoring._svg.esc`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring._svg import esc


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _group_row(name: str, g: Mapping[str, Any]) -> str:
    d = g["difference"]
    delta = "–" if d is None else f"{d['diff']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}]"
    flips = ", ".join(f"{k} {v}" for k, v in g["flips"].items() if v) or "none"
    cells = [name, str(g["rows"]), _num(g["old"]["score"]), _num(g["old"]["parse_rate"]), _num(g["new"]["score"]),
             _num(g["new"]["parse_rate"]), delta, flips]
    return "<tr>" + "".join(f'<td{" class=n" if 0 < i < 7 else ""}>{esc(c)}</td>' for i, c in enumerate(cells)) + "</tr>"


def diff_section(document: Mapping[str, Any]) -> str:
    """``<section id="diff">``: both packs' figures per task, the differences, and the causes of flips."""
    old, new = document["old"], document["new"]
    parts = [
        '<section id="diff"><h2>Pack diff: which difference moved each verdict</h2>',
        f'<p class="lede">old <b>{esc(old.get("spec", old["name"]))}</b> (<code class="hash">{esc(old["hash"])}</code>)'
        f' → new <b>{esc(new.get("spec", new["name"]))}</b> (<code class="hash">{esc(new["hash"])}</code>). '
        f'{esc(document["method"])}</p>',
        "<h3>Differences between the packs</h3><ul class=differences>",
        *(f"<li>[{d['id']}] {esc(d['label'])}</li>" for d in document["differences"]),
        "</ul>" if document["differences"] else "</ul><p>none: the packs resolve to the same configuration</p>",
        '<div class="scroll"><table class="diff-groups"><thead><tr><th>task</th><th>rows</th><th>old score</th>'
        "<th>old parsed</th><th>new score</th><th>new parsed</th><th>new − old [95% CI]</th><th>flips</th></tr>"
        "</thead><tbody>",
        *(_group_row(name, g) for name, g in document["tasks"].items()),
        _group_row("overall", document["overall"]).replace("<tr>", '<tr class="level-overall">', 1),
        "</tbody></table></div>",
        f"<p class=small>rows {document['rows']}: identical under both packs (not replayed) "
        f"{document['rows_identical']}; verdict flipped (replayed) {document['rows_replayed']}</p>",
        "<h3>Causes of the flipped verdicts</h3>",
    ]
    if not document["causes"]:
        parts.append("<p>no verdict flipped</p>")
    else:
        parts.append('<table class="diff-causes"><thead><tr><th>cause</th><th>rows</th><th>flips</th>'
                     "<th>examples</th></tr></thead><tbody>")
        for c in document["causes"]:
            flips = ", ".join(f"{k} {v}" for k, v in c["flips"].items() if v)
            examples = "".join(
                f"<div>line {esc(e['line'])} · {esc(e['task'])} · {esc(e['flip'])}: "
                f"<code>{esc(repr(e['old']['answer']))}</code> → <code>{esc(repr(e['new']['answer']))}</code>"
                f"<br><code class=text>{esc((e['raw'] or '')[:300])}</code></div>"
                for e in c["examples"])
            parts.append(f"<tr><td>{esc(c['cause'])}</td><td class=n>{c['rows']}</td><td>{esc(flips)}</td>"
                         f"<td class=ex>{examples}</td></tr>")
        parts.append("</tbody></table>")
    parts.append("</section>")
    return "".join(parts)


def render_diff_page(document: Mapping[str, Any]) -> str:
    """A self-contained page holding the diff section (the report's styles, no script)."""
    from scoring._html_style import CSS

    title = f"{document['old'].get('spec', document['old']['name'])} vs {document['new'].get('spec', document['new']['name'])}"
    return "".join([
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{esc(title)} · harness-normalize diff</title><style>{CSS}</style></head><body><main>",
        f"<h1>{esc(title)}</h1>", diff_section(document), "</main></body></html>\n",
    ])
