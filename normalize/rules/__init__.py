"""Built-in rules; importing this package registers them all.

One module per stage (``extract``, ``structure``, ``format``, ``semantic``), or per stage and
topic (``extract_markers``, ``extract_json``, ``extract_code``, ``extract_math``): the registry
reads a rule's stage from its module's name.  Every module of this package is imported below,
so a new rule module needs no line here.

Beside them: ``_speed`` (the fixed-point loops over prose between code fences, fence screens,
guarded marker patterns: the machinery the rules share, so each rule reads as its idea),
``_fences`` (finding code fences) and the params modules ``_extract_params``,
``_extract_math_params`` and ``_format_params``.

Why the params live apart (``normalize/parsers/_*_params.py`` likewise): the wheel compiles
the rule modules with mypyc (``hatch_build.py``), and mypyc cannot compile a pydantic model — a
class attribute such as ``final_tiers: int = Field(default=2, ge=1)`` fails when the compiled
module is imported, and a compiled class keeps no docstring, which ``normalize rules`` shows.
So every params model lives in an uncompiled ``_<module>_params.py`` that imports nothing from
the rule modules; a rule module imports its models from there, and so does any caller:
``from normalize.rules._extract_params import AnswerMarkerParams``.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
