r"""latex2sympy's own object for the common shapes with variables, built without its ANTLR parser.

Private to :mod:`normalize.values._mathvalue`.  :mod:`normalize.values._commonmath` reads the
common *values* (radicals, π, fractions, tuples, intervals, sets) and builds their evaluated SymPy
value; answers with letters — polynomials (``2-2p``, ``x^2/4 + y^2/3``), equations (``y = 2x+3``,
``2x+4y-3=0``, ``x_{1} = \frac{1}{2}``), lists of such equations, lists of tuples
(``(1, 2), (2, 1)``) and matrices of such entries — cannot be read that way: latex2sympy keeps
what it builds from them unevaluated (``-34x`` is ``Mul(-1, 34, x)``, printed so), and the answer
is printed and compared from that object.  This module parses the subset of latex2sympy's
grammar those shapes use (numbers, one-letter names with a simple subscript, ``f(x)``, ``^``,
sums, products by juxtaposition, ``\cdot``, ``\times``, ``*`` and ``/``, ``\frac``, ``\sqrt``,
``\sum``, groups, relations and their chains, commas, ``{…}`` sets, ``\begin{pmatrix}``) and builds the object exactly as latex2sympy's
converter does — with the converter's own helpers (``add_flat``, ``mul_flat``,
``parse_number``), the same ``evaluate=False`` constructors, in the same order — so that the
caller's post-processing, printing and comparison see the same object.  Anything outside the
subset (any other command, a letter run that its lexer reads as a name, a call of anything but
one atom, ``d``, ``e``, ``E`` and ``I``, which its lexer reads specially)
gives ``None`` and latex2sympy reads it.  tests/test_math_common_forms.py checks, on listed and
generated LaTeX, that both give the same ``srepr``.

Written here rather than taken from a library: the readers that exist are the ANTLR grammar whose
cost this removes.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from normalize.limits._regex import compile_pattern

#: Tokens, as latex2sympy's lexer splits them for the subset read here.
_TOKEN: Final = (
    r"(?P<ws>\s+|\\[,;:!](?![A-Za-z])|\\q?quad(?![A-Za-z]))"
    r"|(?P<quadletter>\\q?quad)(?=[A-Za-z](?![A-Za-z]))"
    r"|(?P<matrix>\\begin\{(?:pmatrix|bmatrix|matrix)\}|\\begin\{array\}\{[clr]*\}|\\end\{(?:pmatrix|bmatrix|matrix|array)\})"
    r"|(?P<num>[0-9]*\.[0-9]+|[0-9]+)"
    r"|(?P<cmd>\\[A-Za-z]+)"
    r"|(?P<letter>[a-cf-zA-DF-HJ-Z])(?![A-Za-z])"
    r"|(?P<rowsep>\\\\)"
    r"|(?P<rel><=|>=|!=|[<>=])"
    r"|(?P<op>[-+*/^_(){}\[\],&])"
)
_COMMANDS: Final = frozenset({r"\frac", r"\dfrac", r"\tfrac", r"\cfrac", r"\sqrt", r"\cdot", r"\times", r"\pi", r"\sum", r"\prod",
                              r"\le", r"\leq", r"\ge", r"\geq", r"\lt", r"\gt", r"\ne", r"\neq"})
_FRACS: Final = frozenset({r"\frac", r"\dfrac", r"\tfrac", r"\cfrac"})
_TIMES: Final = frozenset({"*", r"\times", r"\cdot"})
_RELATIONS: Final = {"=": "Eq", "<": "StrictLessThan", r"\lt": "StrictLessThan", ">": "StrictGreaterThan",
                     r"\gt": "StrictGreaterThan", "<=": "LessThan", r"\le": "LessThan", r"\leq": "LessThan",
                     ">=": "GreaterThan", r"\ge": "GreaterThan", r"\geq": "GreaterThan", "!=": "Ne", r"\ne": "Ne",
                     r"\neq": "Ne"}
#: latex2sympy's parser reads a whole answer like ``3,333`` as one number: left to it.
_COMMA_NUMBER: Final = r"^\s*-?\d{1,3}(,\d{3})+(\.\d+)?\s*$"
#: Subscripts read here: digits, or one-letter names and digits joined by signs (``n-k-1``).
_SUBSCRIPT: Final = r"^(?:[0-9]+|[a-cf-zA-DF-HJ-Z](?:[-+]?(?:[0-9]+|[a-cf-zA-DF-HJ-Z](?![A-Za-z])))*)$"


class _Unsupported(Exception):
    """Not in the subset: latex2sympy reads the text."""


def _tokens(text: str) -> list[tuple[str, str]] | None:
    pattern = compile_pattern(_TOKEN)
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = pattern.match(text, pos)
        if m is None:
            return None
        kind = m.lastgroup
        assert kind is not None  # every alternative is a named group
        pos = m.end()
        if kind in ("ws", "quadletter"):
            continue
        if kind == "cmd" and m.group(0) not in _COMMANDS:
            return None
        out.append((kind, m.group(0)))
    return out


@lru_cache(maxsize=1)
def library() -> tuple[Any, Any, Any, Any] | None:
    """latex2sympy's converter (its helpers build the objects), its ``FiniteSet``, ``get_symbol``
    and ``And``; ``None`` when the installed latex2sympy has none of them where 1.11 keeps them
    (private names): then :func:`read_tree` reads nothing and latex2sympy reads everything."""
    try:
        from latex2sympy2_extended.latex2sympy2 import ConversionConfig, _Latex2Sympy
        from latex2sympy2_extended.logic import And
        from latex2sympy2_extended.sets import FiniteSet
        from latex2sympy2_extended.symbols import get_symbol
    except ImportError:
        return None
    return _Latex2Sympy(config=ConversionConfig(lowercase_symbols=False)), FiniteSet, get_symbol, And


class _Reader:
    def __init__(self, sp: Any, tokens: list[tuple[str, str]]) -> None:
        self.sp = sp
        found = library()
        if found is None:
            raise ImportError("latex2sympy's converter is not where this reader expects it")
        self.conv, self.finite_set, self.get_symbol, self.and_ = found
        self.tokens = tokens
        self.i = 0

    # ------------------------------------------------------------------ tokens

    def peek(self, ahead: int = 0) -> tuple[str, str] | None:
        k = self.i + ahead
        return self.tokens[k] if k < len(self.tokens) else None

    def at(self, text: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[1] == text

    def take(self, text: str) -> None:
        if not self.at(text):
            raise _Unsupported(text)
        self.i += 1

    # ------------------------------------------------------------------ elements

    def elements(self) -> Any:
        """``math``: one element, or a comma list of them as latex2sympy's ``FiniteSet``."""
        sp = self.sp
        named = self.peek() is not None and self.peek()[0] == "letter"  # type: ignore[index]
        members = [self.element()]
        while self.at(","):
            self.i += 1
            members.append(self.element())
        if self.peek() is not None:
            raise _Unsupported("trailing tokens")
        if len(members) == 1:
            return members[0]
        if any(isinstance(m, (sp.MatrixBase, sp.And)) for m in members):
            raise _Unsupported("a list of matrices or of chained relations")
        relations = [isinstance(m, sp.core.relational.Relational) for m in members]
        if all(relations):
            return self.finite_set(*members)
        first = members[0]
        if relations[0] and not any(relations[1:]) and named and isinstance(first, sp.Eq) and isinstance(first.lhs, sp.Symbol):
            # n = 1, 2, 3: the grammar's first choice, a name equal to the set of the values
            return sp.Eq(first.lhs, self.finite_set(first.rhs, *members[1:]), evaluate=False)
        if any(relations):
            raise _Unsupported("a list mixing relations and values")
        return self.finite_set(*members)

    def element(self) -> Any:
        tok = self.peek()
        if tok is not None and tok[1] == "(" and self._is_tuple():
            return self.tuple_()
        if tok is not None and tok[1] in ("(", "[") and self.peek(1) is not None and self.peek(1)[0] == "matrix":  # type: ignore[index]
            close = ")" if tok[1] == "(" else "]"
            self.i += 1
            value = self.matrix()
            self.take(close)
            return value
        if tok is not None and tok[0] == "matrix":
            return self.matrix()
        if tok is not None and tok[1] == "{":
            if not self._is_tuple():
                raise _Unsupported("{x}: a set of one member, or a group")
            return self.brace_set()
        return self.relation()

    def brace_set(self) -> Any:
        """``{1, 3}``: latex2sympy's ``FiniteSet`` of the members."""
        self.take("{")
        members = [self.expr()]
        while self.at(","):
            self.i += 1
            members.append(self.expr())
        self.take("}")
        return self.finite_set(*members)

    def _is_tuple(self) -> bool:
        """Whether the group opening here holds a comma or a semicolon at its own depth."""
        depth = 0
        for _, text in self.tokens[self.i :]:
            if text in ("(", "{", "["):
                depth += 1
            elif text in (")", "}", "]"):
                depth -= 1
                if depth == 0:
                    return False
            elif text == "," and depth == 1:
                return True
        return False

    def tuple_(self) -> Any:
        r"""``(a, b)``: an open interval when ``a < b``, else the tuple; ``(a, b, c, …)``: the tuple.
        Members are numbers (latex2sympy compares a pair's ends to choose)."""
        sp = self.sp
        self.take("(")
        members = [self.expr()]
        while self.at(","):
            self.i += 1
            members.append(self.expr())
        self.take(")")
        if not all(isinstance(m, sp.Number) for m in members):
            raise _Unsupported("a tuple of expressions")
        if len(members) == 2:
            left, right = members
            if right <= left:
                return sp.Tuple(left, right)
            return sp.Interval(left, right, left_open=True, right_open=True)
        return sp.Tuple(*members)

    def matrix(self) -> Any:
        tok = self.peek()
        if tok is None or tok[0] != "matrix" or not tok[1].startswith(r"\begin"):
            raise _Unsupported("matrix")
        kind = "array" if r"{array}" in tok[1] else tok[1][len(r"\begin{") : -1]
        self.i += 1
        rows: list[list[Any]] = [[self.expr()]]
        while True:
            tok = self.peek()
            if tok is None:
                raise _Unsupported("an unclosed matrix")
            if tok[1] == "&":
                self.i += 1
                rows[-1].append(self.expr())
            elif tok[0] == "rowsep":
                self.i += 1
                nxt = self.peek()
                if nxt is not None and nxt[0] == "matrix" and nxt[1].startswith(r"\end"):
                    continue  # a row separator before \end
                rows.append([self.expr()])
            elif tok[0] == "matrix" and tok[1] == rf"\end{{{kind}}}":
                self.i += 1
                break
            else:
                raise _Unsupported("a matrix entry")
        if len({len(r) for r in rows}) != 1:
            raise _Unsupported("rows of different lengths")
        if any(isinstance(x, self.sp.MatrixBase) for r in rows for x in r):
            raise _Unsupported("a matrix of matrices")
        return self.sp.Matrix(rows)

    def relation(self) -> Any:
        """``relation``: left-associative, a chain (``-2 \\le x \\le 7``) an ``And`` of its links, as
        ``convert_relation`` builds it."""
        sp = self.sp
        value = self.expr()
        while True:
            tok = self.peek()
            if tok is None or tok[1] not in _RELATIONS:
                return value
            self.i += 1
            right = self.expr()
            build = getattr(sp, _RELATIONS[tok[1]])
            if isinstance(value, self.and_):
                value = self.and_(*value._unsorted_args, build(value._unsorted_args[-1].rhs, right, evaluate=False))
            elif isinstance(value, sp.core.relational.Relational):
                value = self.and_(value, build(value.rhs, right, evaluate=False))
            else:
                value = build(value, right, evaluate=False)

    # ------------------------------------------------------------------ expressions

    def expr(self) -> Any:
        """``additive``: left-associative ``+`` and ``-``, as ``convert_add`` builds them."""
        left = self.mp()
        while True:
            tok = self.peek()
            if tok is None or tok[1] not in ("+", "-"):
                return left
            self.i += 1
            right = self.mp()
            if tok[1] == "-":
                right = -right if getattr(right, "func", None) is not None and right.func.is_Number else self.conv.mul_flat(-1, right)
            left = self.conv.add_flat(left, right)

    def mp(self) -> Any:
        """``mp``: left-associative ``*``, ``\\cdot``, ``\\times`` and ``/``, as ``convert_mp``."""
        sp = self.sp
        left = self.unary()
        while True:
            tok = self.peek()
            if tok is None or (tok[1] not in _TIMES and tok[1] != "/"):
                return left
            self.i += 1
            right = self.unary()
            if tok[1] in _TIMES:
                left = self.conv.mul_flat(left, right)
            elif getattr(left, "is_Integer", False) and getattr(right, "is_Integer", False):
                left = sp.Rational(left, right)
            else:
                left = sp.Mul(left, sp.Pow(right, -1, evaluate=False), evaluate=False)

    def unary(self) -> Any:
        """``unary``: signs, then juxtaposed factors, as ``convert_unary``/``convert_postfix_list``."""
        tok = self.peek()
        if tok is not None and tok[1] == "+":
            self.i += 1
            return self.unary()
        if tok is not None and tok[1] == "-":
            self.i += 1
            inner = self.unary()
            if (getattr(inner, "func", None) is not None and inner.func.is_Number) or getattr(inner, "is_Number", False):
                return -inner
            return self.conv.mul_flat(-1, inner)
        factors = [self.exp()]
        while self._starts_factor():
            factors.append(self.exp())
        return self._postfix_list(factors)

    def _starts_factor(self) -> bool:
        tok = self.peek()
        if tok is None:
            return False
        kind, text = tok
        return kind in ("num", "letter") or text in ("(", r"\frac", r"\dfrac", r"\tfrac", r"\cfrac", r"\sqrt", r"\pi", r"\sum", r"\prod")

    def _postfix_list(self, factors: list[Any]) -> Any:
        sp = self.sp
        res = factors[0]
        if len(factors) == 1:
            return res
        if not isinstance(res, sp.Expr):
            raise _Unsupported("a product with a non-expression")
        rh = self._postfix_list(factors[1:])
        if getattr(res, "is_Integer", False) and getattr(rh, "is_Rational", False) and rh.p > 0 and rh.q > 0:
            if res < 0:
                return sp.Rational(res * rh.q - rh.p, rh.q)
            return sp.Rational(res * rh.q + rh.p, rh.q)
        return self.conv.mul_flat(res, rh)

    def exp(self) -> Any:
        """``exp``: a factor with powers (``exp CARET (atom | {expr})``), as ``convert_exp``."""
        sp = self.sp
        base = self.comp()
        powered = False
        while self.at("^"):
            self.i += 1
            exponent = self.exponent()
            base = sp.Pow(base, exponent, evaluate=False)
            powered = True
        if self.at("_") or (powered and self.at("(")):
            raise _Unsupported("a subscript or a call after a power")
        return base

    def exponent(self) -> Any:
        tok = self.peek()
        if tok is None:
            raise _Unsupported("end")
        if tok[1] == "{":
            self.i += 1
            value = self.expr()
            self.take("}")
            return value
        if tok[0] == "num":
            self.i += 1
            return self._number(tok[1])
        if tok[0] == "letter":
            self.i += 1
            return self._symbol(tok[1], "")
        raise _Unsupported("exponent")

    def comp(self) -> Any:
        sp = self.sp
        tok = self.peek()
        if tok is None:
            raise _Unsupported("end")
        kind, text = tok
        self.i += 1
        if kind == "num":
            if self.at("_"):
                raise _Unsupported("a number with a subscript")
            return self._number(text)
        if kind == "letter":
            return self._letter(text)
        if text == r"\pi":
            if self.at("(") or self.at("_") or self.at("{") or self.at("["):
                raise _Unsupported(r"\pi(...)")
            return self.get_symbol(r"\pi", None, False)
        if text in ("(", "{"):
            inner = self.expr()
            self.take(")" if text == "(" else "}")
            return inner
        if text in _FRACS:
            self.take("{")
            top = self.expr()
            self.take("}")
            self.take("{")
            bottom = self.expr()
            self.take("}")
            if getattr(top, "is_Integer", False) and getattr(bottom, "is_Integer", False):
                return sp.Rational(top, bottom)
            return sp.Mul(top, sp.Pow(bottom, -1, evaluate=False), evaluate=False)
        if text in (r"\sum", r"\prod"):
            return self.sum_or_product(text)
        if text == r"\sqrt":
            self.take("{")
            radicand = self.expr()
            self.take("}")
            return sp.Pow(radicand, sp.S.Half, evaluate=False)
        raise _Unsupported(text)

    def sum_or_product(self, command: str) -> Any:
        """``\\sum_{k=0}^{n} body``: ``(subeq supexpr | supexpr subeq) mp``, as ``handle_sum_or_prod``."""
        sp = self.sp
        bounds: dict[str, Any] = {}
        for _ in range(2):
            if self.at("_") and "sub" not in bounds:
                self.i += 1
                self.take("{")
                variable = self.expr()
                self.take("=")
                start = self.expr()
                self.take("}")
                bounds["sub"] = (variable, start)
            elif self.at("^") and "sup" not in bounds:
                self.i += 1
                bounds["sup"] = self.exponent()
            else:
                raise _Unsupported("a sum without both bounds")
        body = self.mp()
        variable, start = bounds["sub"]
        build = sp.Sum if command == r"\sum" else sp.Product
        return build(body, (variable, start, bounds["sup"]))

    def _number(self, text: str) -> Any:
        """``parse_number``'s value: an integer directly (its ``Number(text)`` parses the string
        with ``parse_expr`` to the same ``Integer``), a decimal through it (its ``Float``)."""
        if text.isdigit():
            return self.sp.Integer(int(text))
        return self.conv.parse_number(text)

    def _letter(self, letter: str) -> Any:
        """A one-letter name with an optional subscript and power (``atom_expr``)."""
        sp = self.sp
        subscript = ""
        power = None
        for _ in range(2):
            if self.at("_") and not subscript:
                self.i += 1
                subscript = self._subscript()
            elif self.at("^") and power is None:
                self.i += 1
                power = self.exponent()
            else:
                break
        if self.at("(") and not subscript and power is None:
            return self._call(letter)
        if self.at("(") or self.at("[") or self.at("{") or self.at("_"):
            raise _Unsupported("a call with a subscript or a power")
        symbol = self._symbol(letter, subscript)
        return symbol if power is None else sp.Pow(symbol, power, evaluate=False)

    def _call(self, name: str) -> Any:
        """``f(x)``, ``f(2)``: a function of one atom (``func_common_args: atom``; latex2sympy reads
        ``f(x+1)`` as a product), its argument read as a whole answer, as latex2sympy re-parses it."""
        argument, close = self.peek(1), self.peek(2)
        if argument is None or argument[0] not in ("num", "letter") or close is None or close[1] != ")":
            raise _Unsupported("a call of anything but one atom")
        self.i += 3
        value = self._number(argument[1]) if argument[0] == "num" else self._symbol(argument[1], "")
        return self.sp.Function(name)(value)

    def _subscript(self) -> str:
        tok = self.peek()
        if tok is None:
            raise _Unsupported("end")
        if tok[0] in ("num", "letter"):
            self.i += 1
            text = tok[1]
        else:
            self.take("{")
            parts = []
            while not self.at("}"):
                part = self.peek()
                if part is None:
                    raise _Unsupported("an unclosed subscript")
                parts.append(part[1])
                self.i += 1
            self.i += 1
            text = "".join(parts)
        if "." in text or compile_pattern(_SUBSCRIPT).match(text) is None:
            raise _Unsupported("subscript")
        return text

    def _symbol(self, letter: str, subscript: str) -> Any:
        name = letter if not subscript else letter + (f"_{{{subscript}}}" if len(subscript) > 1 else f"_{subscript}")
        return self.get_symbol(name, None, False)


def read_tree(text: str, sp: Any) -> Any | None:
    r"""latex2sympy's object for ``text`` (already normalized by its ``normalize_latex``) when
    ``text`` is in the subset read here (module docstring), else ``None``.

    >>> import sympy
    >>> [sympy.srepr(read_tree(s, sympy)) for s in ["2-2p", "a_3 = 2"]]
    ["Add(Mul(Integer(-1), Integer(2), Symbol('p')), Integer(2))", "Equality(Symbol('a_3'), Integer(2))"]
    >>> read_tree(r"f(x+1)", sympy) is None, read_tree(r"\sin x", sympy) is None
    (True, True)
    """
    if library() is None or compile_pattern(_COMMA_NUMBER).match(text):
        return None
    tokens = _tokens(text)
    if not tokens:
        return None
    try:
        return _Reader(sp, tokens).elements()
    except Exception:  # outside the subset, or an error latex2sympy's build meets too: latex2sympy decides
        return None
