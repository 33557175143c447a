"""Calibration of log-probability choice scores: ECE, RMS calibration error, Brier score, reliability bins.

A multiple-choice row scored by ``normalize loglik`` has the summed log-probability of each
choice given the context.  Their softmax over the row's choices is the model's distribution over
the options (what ``acc`` takes the argmax of); its top probability is the row's *confidence*,
and the row is *correct* when the top choice is the target.  Over rows:

* reliability bins: ``bins`` equal-width confidence intervals of [0, 1] (the last one closed),
  each with its row count, mean confidence and accuracy;
* ECE (expected calibration error): ``Σ_b n_b/N · |accuracy_b − confidence_b|``;
* RMS calibration error: ``√(Σ_b n_b/N · (accuracy_b − confidence_b)²)``;
* Brier score: the multi-class Brier score, ``mean over rows of Σ_k (p_k − [k = target])²``
  (0 is perfect; always answering uniformly over K options gives ``1 − 1/K``).

``acc_norm`` and PMI rank choices by scores that are not probabilities, so only the model's own
distribution is calibrated here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from scoring._svg import esc

__all__ = ["DEFAULT_BINS", "calibration", "calibration_of_rows", "calibration_section", "reliability_svg",
           "render_calibration_page"]

DEFAULT_BINS: Final = 10


def _softmax(logprobs: Sequence[float]) -> list[float]:
    top = max(logprobs)
    weights = [math.exp(v - top) for v in logprobs]
    total = math.fsum(weights)
    return [w / total for w in weights]


def calibration(rows: Iterable[tuple[Sequence[float | None], int]], *, bins: int = DEFAULT_BINS) -> dict[str, Any]:
    """Calibration figures from ``(log-probabilities of the choices, target index)`` per row.

    A row with fewer than two choices, a target out of range, or a log-probability that is
    missing or not finite for every choice is left out (counted in ``skipped``); a choice whose
    log-probability is ``-inf`` or missing has probability 0.

    >>> c = calibration([([0.0, -10.0], 0), ([0.0, -10.0], 1)], bins=2)
    >>> round(c["ece"], 3), round(c["brier"], 3), [b["n"] for b in c["bins"]]
    (0.5, 1.0, [0, 2])
    """
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}")
    counts = [0] * bins
    conf_sums = [0.0] * bins
    right = [0] * bins
    brier: list[float] = []
    skipped = 0
    for logprobs, target in rows:
        values = [v if v is not None and not math.isnan(v) else -math.inf for v in logprobs]
        if len(values) < 2 or not isinstance(target, int) or not 0 <= target < len(values) \
                or not any(math.isfinite(v) for v in values):
            skipped += 1
            continue
        probs = _softmax(values)
        top = max(range(len(probs)), key=probs.__getitem__)
        confidence = probs[top]
        b = min(bins - 1, int(confidence * bins))
        counts[b] += 1
        conf_sums[b] += confidence
        right[b] += top == target
        brier.append(math.fsum((p - (k == target)) ** 2 for k, p in enumerate(probs)))
    n = sum(counts)
    table = [{"low": i / bins, "high": (i + 1) / bins, "n": counts[i],
              "confidence": conf_sums[i] / counts[i] if counts[i] else None,
              "accuracy": right[i] / counts[i] if counts[i] else None} for i in range(bins)]
    if not n:
        return {"n": 0, "skipped": skipped, "bins": table, "ece": None, "rms_calibration_error": None,
                "brier": None, "accuracy": None, "mean_confidence": None}
    gaps = [(counts[i] / n, right[i] / counts[i] - conf_sums[i] / counts[i]) for i in range(bins) if counts[i]]
    return {
        "n": n,
        "skipped": skipped,
        "bins": table,
        "ece": math.fsum(w * abs(g) for w, g in gaps),
        "rms_calibration_error": math.sqrt(math.fsum(w * g * g for w, g in gaps)),
        "brier": math.fsum(brier) / n,
        "accuracy": sum(right) / n,
        "mean_confidence": math.fsum(conf_sums) / n,
        "method": "softmax of the summed log-probabilities over the row's choices; confidence = the top "
                  f"probability; {bins} equal-width bins; multi-class Brier score",
    }


def calibration_of_rows(rows: Iterable[Mapping[str, Any]], *, bins: int = DEFAULT_BINS) -> dict[str, Any]:
    """:func:`calibration` of choice rows: ``normalize loglik -o`` output rows (``logprobs`` and
    ``target_index``) or :class:`~scoring.lm.choice.ChoiceRowResult` dicts (``logprobs``, ``target``)."""
    def pairs() -> Iterable[tuple[Sequence[float | None], int]]:
        for row in rows:
            if row.get("kind", "choice") != "choice" or row.get("error"):
                continue
            logprobs = row.get("logprobs")
            target = row.get("target_index", row.get("target"))
            if isinstance(logprobs, list) and isinstance(target, int) and not isinstance(target, bool):
                yield logprobs, target
    return calibration(pairs(), bins=bins)


def reliability_svg(block: Mapping[str, Any], *, title: str = "Reliability (log-prob choice scores)") -> str:
    """An inline SVG reliability diagram: accuracy per confidence bin as bars, the diagonal of
    perfect calibration, and each bin's row count."""
    width, height, pad = 360, 300, 40
    inner_w, inner_h = width - 2 * pad, height - 2 * pad
    parts = [f'<svg class="chart reliability" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(title)}"><title>{esc(title)}</title>',
             f'<rect x="{pad}" y="{pad}" width="{inner_w}" height="{inner_h}" fill="none" stroke="#bbb"/>',
             f'<line x1="{pad}" y1="{pad + inner_h}" x2="{pad + inner_w}" y2="{pad}" stroke="#999" '
             'stroke-dasharray="4 3"/>']
    for b in block["bins"]:
        x = pad + b["low"] * inner_w
        w = (b["high"] - b["low"]) * inner_w
        if b["n"]:
            h = (b["accuracy"] or 0.0) * inner_h
            tip = (f"confidence {b['low']:.1f}-{b['high']:.1f}: {b['n']} rows, accuracy {b['accuracy']:.3f}, "
                   f"mean confidence {b['confidence']:.3f}")
            parts.append(f'<rect class="bin" x="{x + 1:.1f}" y="{pad + inner_h - h:.1f}" width="{max(w - 2, 1):.1f}" '
                         f'height="{h:.1f}" fill="#0072b2" opacity="0.8"><title>{esc(tip)}</title></rect>')
            cy = pad + inner_h - (b["confidence"] or 0.0) * inner_h
            parts.append(f'<circle cx="{x + w / 2:.1f}" cy="{cy:.1f}" r="2.5" fill="#d55e00"/>')
            parts.append(f'<text x="{x + w / 2:.1f}" y="{pad + inner_h + 12}" font-size="8" text-anchor="middle">'
                         f'{b["n"]}</text>')
    for tick in (0.0, 0.5, 1.0):
        parts.append(f'<text x="{pad + tick * inner_w:.1f}" y="{height - 8}" font-size="10" text-anchor="middle">'
                     f'{tick:.1f}</text>')
        parts.append(f'<text x="{pad - 6}" y="{pad + inner_h - tick * inner_h + 3:.1f}" font-size="10" '
                     f'text-anchor="end">{tick:.1f}</text>')
    parts.append(f'<text x="{pad + inner_w / 2}" y="{pad - 10}" font-size="11" text-anchor="middle">'
                 "accuracy (bars) and mean confidence (dots) per confidence bin</text></svg>")
    return "".join(parts)


def calibration_section(block: Mapping[str, Any]) -> str:
    """``<section id="calibration">``: the figures and the reliability diagram."""
    def num(value: float | None) -> str:
        return "–" if value is None else f"{value:.4f}"

    return (f'<section id="calibration"><h2>Calibration</h2><p class="lede">{esc(block.get("method", ""))}. '
            f'{block["n"]} rows ({block["skipped"]} left out).</p>'
            f'<table><tr><th>ECE</th><th>RMS calibration error</th><th>Brier score</th><th>accuracy</th>'
            f'<th>mean confidence</th></tr><tr><td class=n>{num(block["ece"])}</td>'
            f'<td class=n>{num(block["rms_calibration_error"])}</td><td class=n>{num(block["brier"])}</td>'
            f'<td class=n>{num(block["accuracy"])}</td><td class=n>{num(block["mean_confidence"])}</td></tr></table>'
            f'<div class="chartbox">{reliability_svg(block) if block["n"] else ""}</div></section>')


def render_calibration_page(block: Mapping[str, Any], *, title: str = "Calibration") -> str:
    """A self-contained page with the calibration section (``normalize loglik --html``)."""
    from scoring._html_style import CSS

    return "".join([
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{esc(title)} · harness-normalize</title><style>{CSS}</style></head><body><main>",
        f"<h1>{esc(title)}</h1>", calibration_section(block), "</main></body></html>\n",
    ])
