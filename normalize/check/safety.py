"""The safety check: each rule spec and parser on adversarial input kinds, load-independently.

Per kind, one run at a fixed size looks for exceptions, blown-up output and a run past a
CPU-time backstop; then the growth of work from n to 2n (CPU time of this thread, medians of
alternating runs) must stay below ×3 (:mod:`normalize.limits._growth`).  No absolute wall-clock time
decides a finding and no measured figure enters its text, so the findings are the same on an
idle and on a saturated machine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from tqdm import tqdm

from normalize.check.findings import (
    DEFAULT_SAFETY_BUDGET,
    DEFAULT_SAFETY_TIMEOUT,
    Finding,
    distinct_parsers,
    distinct_specs,
)
from normalize.core.pack import Pack
from normalize.core.registry import REGISTRY, ParseContext
from normalize.errors import RejectText
from normalize.limits._growth import KINDS, Builder, probe
from normalize.values._json import canonical_json

#: Adversarial input kinds: (name, builder of a text of about ``size`` characters).
ADVERSARIAL: Final[tuple[tuple[str, Builder], ...]] = KINDS


def check_safety(
    pack: Pack,
    *,
    timeout: float = DEFAULT_SAFETY_TIMEOUT,
    budget: float = DEFAULT_SAFETY_BUDGET,
    inputs: Sequence[tuple[str, Callable[[int], str]]] = ADVERSARIAL,
) -> list[Finding]:
    """Each distinct rule spec and parser on each adversarial input kind: exceptions, output
    blow-up, a CPU-time backstop of ``budget`` seconds per call, and superlinear growth of work
    (:func:`normalize.limits._growth.probe`).  ``timeout`` is the per-call limit of user-supplied
    patterns (built-in ones run without one)."""
    findings: list[Finding] = []
    specs, parsers = distinct_specs(pack), distinct_parsers(pack)
    # a bar on a terminal only (stderr, so the report on stdout stays the same)
    bar = tqdm(total=len(specs) + len(parsers), desc="safety", unit="rule", leave=False, disable=None)
    for spec in specs:
        bar.update()
        params = spec.params.model_dump(mode="json")
        label = spec.name + (f" {canonical_json(params)}" if params and len(canonical_json(params)) <= 80 else "")
        run_rule = (lambda s: lambda text: s.apply(text, timeout=timeout))(spec)
        for kind, problem in probe(run_rule, inputs, budget=budget, benign=(RejectText,)):
            findings.append(Finding("safety", f"rule {label} on {kind}: {problem}", rule=spec.name))
    for parser in parsers:
        bar.update()
        definition = REGISTRY.parser(parser.name)
        ctx = ParseContext(options=None, timeout=timeout)
        run_parser = (lambda d, p, c: lambda text: d.fn(text, p.params, c))(definition, parser, ctx)
        for kind, problem in probe(run_parser, inputs, budget=budget, benign=(ValueError, RejectText)):
            findings.append(Finding("safety", f"parser {parser.name} on {kind}: {problem}"))
    bar.close()
    return findings
