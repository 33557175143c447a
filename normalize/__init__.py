"""harness-normalize: versioned, replayable post-processing of LLM outputs for evaluation.

>>> from normalize import load_pack
>>> pack = load_pack()
>>> pack.run("**Final Answer:** \\\\boxed{42}", task="math").answer
'42'
"""

from __future__ import annotations

# Importing the built-in rule and parser modules registers them.
from normalize import parsers as _parsers  # noqa: F401
from normalize import rules as _rules  # noqa: F401
from normalize._version import __version__
from normalize.core.engine import Chain, Result, RuleSpec, TraceStep, make_spec, run_chain
from normalize.core.pack import Pack, load_pack
from normalize.core.registry import REGISTRY, Params, ParseContext, Parsed, parser, rule
from normalize.errors import PackError, RejectText, UsageError
from normalize.values._numbers import to_fraction as read_number

REGISTRY.check_embeds()

__all__ = [
    "REGISTRY",
    "Chain",
    "Pack",
    "PackError",
    "Params",
    "ParseContext",
    "Parsed",
    "RejectText",
    "Result",
    "RuleSpec",
    "TraceStep",
    "UsageError",
    "__version__",
    "load_pack",
    "make_spec",
    "parser",
    "read_number",
    "rule",
    "run_chain",
]
