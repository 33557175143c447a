r"""latex2sympy's reading of a LaTeX answer, parsed in two stages: ANTLR's SLL prediction first, LL on failure.

Private to :mod:`normalize.values._mathvalue`.  latex2sympy2_extended parses with ANTLR's
default LL prediction, and on the answers it gets (matrices, equations in several variables,
subscripts, functions) ~95 % of a reading was full-context prediction
(``execATNWithFullContext``).  ANTLR's documented two-stage strategy gives the same tree for
less: in SLL mode "the parser will either return a correct parse tree (i.e. the same parse tree
that would be returned with the LL prediction mode), or it will report a syntax error"
(``PredictionMode.SLL``); the grammar's only predicates are the precedence predicates of its
left-recursive rules, which SLL evaluates as LL does, and its start rule ends in ``EOF``, so no
shorter parse can pass for a whole one.  So the SLL parse is tried first, and anything it raises
— a syntax error SLL cannot resolve (``a^2 + b``, ``x_{1} = …``), a real one, or an error of the
conversion — sends the text to the stock LL reader, whose result or error stands.  Equal
objects, every verdict the same: tests/test_math_common_forms.py compares both readers on
generated expressions and on every spelling the tests know.

Written here rather than changing the library: latex2sympy exposes no prediction-mode setting;
the converter's class is subclassed, not patched, and a version without it reads as before.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from normalize.limits._deadline import TimeUp


@lru_cache(maxsize=1)
def sll_converter() -> Any:
    """latex2sympy's converter class with an SLL-mode parser, or ``None`` when the installed
    library has no such class (then :func:`latex_to_sympy` is latex2sympy alone)."""
    try:
        from antlr4.atn.PredictionMode import PredictionMode
        from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy
    except ImportError:
        return None

    class _SLLConverter(_Latex2Sympy):  # type: ignore[misc]
        def create_parser(self, latex_str: str) -> Any:
            parser = super().create_parser(latex_str)
            parser._interp.predictionMode = PredictionMode.SLL
            return parser

    return _SLLConverter


def latex_to_sympy(text: str, conversion_config: Any) -> Any:
    r"""``latex2sympy(text, normalization_config=None, conversion_config=conversion_config)``, the
    same object or the same exception, parsed in SLL mode where that suffices (module docstring).

    >>> from latex2sympy2_extended.latex2sympy2 import ConversionConfig
    >>> latex_to_sympy(r"\begin{pmatrix}1 & 2\\3 & 4\end{pmatrix}", ConversionConfig())
    Matrix([
    [1, 2],
    [3, 4]])
    """
    converter = sll_converter()
    if converter is not None:
        try:
            return converter(config=conversion_config).parse(text)
        except TimeUp:
            raise
        except Exception:  # SLL could not decide, or the text is no expression: LL decides
            pass
    from latex2sympy2_extended import latex2sympy

    return latex2sympy(text, normalization_config=None, conversion_config=conversion_config)
