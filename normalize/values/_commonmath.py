r"""The common forms of a symbolic math answer read without latex2sympy's ANTLR parser.

Private to :mod:`normalize.values._mathvalue`.  Profiled on MATH-style answers (``7\sqrt{3}``,
``\frac{7\pi}{3}``, ``(3, -5)``, ``[2, 7)``, ``3 \pm \sqrt{5}``, ``\{3, 7\}``), ~95 % of a symbolic
reading was latex2sympy's ANTLR grammar (adaptive prediction: ~10 ms an answer), and SymPy's
own arithmetic and printing well under a millisecond.  This module is a small recursive-descent
reader for the forms that make up most answers — integers and decimals, ``\frac``, ``\sqrt`` of a
rational, ``\pi``, ``e``, sums, products, integer powers, parentheses, unary signs, one ``\pm``,
tuples, intervals (``\infty`` ends), unions of intervals and sets of such values, and one relation
between a variable and such a value (``x < 3``, ``5 \geq x``) — that builds the same SymPy value
latex2sympy builds (SymPy evaluates the arithmetic, so the value and its printed spelling do not
depend on the front end: property test in tests/test_math_common_forms.py, over generated
expressions, that both readers give the same object and the same canonical spelling).  Anything
else — a letter other than ``e``, a command it does not know, ``\sqrt[n]``, juxtaposed numbers,
an unbalanced bracket — gives ``None`` and the caller uses latex2sympy, as before.

Written here rather than taken from a library: the readers that exist (latex2sympy2_extended,
SymPy's own ``parse_latex``) are the ANTLR or Lark grammars whose cost this removes.
"""

from __future__ import annotations

from typing import Any, Final

from normalize.limits._regex import compile_pattern

#: Tokens of the common forms; anything else stops the reader (the caller falls back).
_TOKEN: Final = (
    r"\s*(?:(?P<num>[0-9]+(?:\.[0-9]+)?)|(?P<cmd>\\[A-Za-z]+)|(?P<brace>\\[{}])|(?P<e>e)(?![A-Za-z])"
    r"|(?P<var>[a-df-hj-zA-Z])(?![A-Za-z])|(?P<rel><=|>=|!=|[<>])|(?P<op>[-+*/^(),\[\]{}]))"
)
#: Decimals with more significant digits than SymPy's Float keeps are left to the general path
#: (which reads them through a Float and ``str``).
_MAX_DECIMAL_DIGITS: Final = 15
_PRODUCT_COMMANDS: Final = frozenset({r"\cdot", r"\times"})


class _Unsupported(Exception):
    """Not one of the common forms: the general reader decides."""


class _Reader:
    def __init__(self, sp: Any, tokens: list[tuple[str, str]], pm: int | None) -> None:
        self.sp = sp
        self.tokens = tokens
        self.i = 0
        self.pm = pm  # None: no \pm in the text; -1 or +1: the sign \pm stands for

    # ------------------------------------------------------------------ tokens

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, text: str) -> None:
        tok = self.peek()
        if tok is None or tok[1] != text:
            raise _Unsupported(text)
        self.i += 1

    def at(self, text: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[1] == text

    # ------------------------------------------------------------------ grammar

    def expr(self) -> Any:
        value = self.term(signed=True)
        while True:
            tok = self.peek()
            if tok is None:
                return value
            if tok[1] == "+":
                self.i += 1
                value = value + self.term(signed=False)
            elif tok[1] == "-":
                self.i += 1
                value = value - self.term(signed=False)
            elif tok[1] == r"\pm":
                self.i += 1
                if self.pm is None:
                    raise _Unsupported(r"\pm")
                value = value + self.pm * self.term(signed=False)
            else:
                return value

    def term(self, *, signed: bool) -> Any:
        tok = self.peek()
        if tok is not None and tok[1] in ("-", "+", r"\pm") and signed:
            self.i += 1
            if tok[1] == r"\pm":
                if self.pm is None:
                    raise _Unsupported(r"\pm")
                return self.pm * self.term(signed=False)
            inner = self.term(signed=False)
            return -inner if tok[1] == "-" else inner
        value = self.power()
        while True:
            tok = self.peek()
            if tok is None:
                return value
            if tok[1] in _PRODUCT_COMMANDS or tok[1] == "*":
                self.i += 1
                value = value * self.power()
            elif tok[1] == "/":
                self.i += 1
                value = value / self.power()
            elif (tok[0] in ("cmd", "e") and tok[1] in (r"\frac", r"\sqrt", r"\pi", "e")) or tok[1] == "(":
                if tok[1] == "(" and self.tokens[self.i - 1][1] == ")":
                    raise _Unsupported("(a)(b)")  # latex2sympy reads (-1)(1) as -2: its reading stands
                value = value * self.power()  # juxtaposition: 2\sqrt{3}, 3\pi, 2(1 + \sqrt{3})
            else:
                return value

    def power(self) -> Any:
        base = self.atom()
        if not self.at("^"):
            return base
        self.i += 1
        exponent = self.exponent()
        if base is self.sp.E:
            return self.sp.exp(exponent)
        return base**exponent

    def exponent(self) -> Any:
        tok = self.peek()
        if tok is not None and tok[0] == "num" and "." not in tok[1]:
            self.i += 1
            if len(tok[1]) != 1:
                raise _Unsupported("x^23")  # a multi-digit exponent without braces: LaTeX takes one digit
            return self.sp.Integer(int(tok[1]))
        self.take("{")
        sign = 1
        if self.at("-"):
            self.i += 1
            sign = -1
        tok = self.peek()
        if tok is None or tok[0] != "num" or "." in tok[1] or len(tok[1]) > 3:
            raise _Unsupported("exponent")
        self.i += 1
        self.take("}")
        return self.sp.Integer(sign * int(tok[1]))

    def argument(self) -> Any:
        """A command's argument: ``{…}``, or one digit as TeX reads it (``\\frac94``, ``\\sqrt 2``)."""
        tok = self.peek()
        if tok is not None and tok[0] == "num" and "." not in tok[1]:
            if len(tok[1]) == 1:
                self.i += 1
            else:
                self.tokens[self.i] = ("num", tok[1][1:])
            return self.sp.Integer(int(tok[1][0]))
        self.take("{")
        value = self.expr()
        self.take("}")
        return value

    def atom(self) -> Any:
        sp = self.sp
        tok = self.peek()
        if tok is None:
            raise _Unsupported("end")
        kind, text = tok
        self.i += 1
        if kind == "num":
            nxt = self.peek()
            if nxt is not None and nxt[0] == "num":
                raise _Unsupported("2 3")  # juxtaposed numbers: a mixed number, a product or a typo
            if "." in text:
                if len(text) - 1 > _MAX_DECIMAL_DIGITS:
                    raise _Unsupported("long decimal")
                return sp.Rational(text)
            return sp.Integer(int(text))
        if kind == "e":
            return sp.E
        if text == r"\pi":
            return sp.pi
        if text == r"\frac":
            numerator = self.argument()
            denominator = self.argument()
            return numerator / denominator
        if text == r"\sqrt":
            if self.at("["):
                raise _Unsupported(r"\sqrt[n]")
            radicand = self.argument()
            if not isinstance(radicand, sp.Rational):
                raise _Unsupported("a radical of an irrational value")
            return sp.sqrt(radicand)
        if text in ("(", "{"):
            inner = self.expr()
            self.take(")" if text == "(" else "}")
            return inner
        raise _Unsupported(text)


def _tokens(s: str) -> list[tuple[str, str]] | None:
    pattern = compile_pattern(_TOKEN)
    out: list[tuple[str, str]] = []
    pos = 0
    end = len(s.rstrip())
    while pos < end:
        m = pattern.match(s, pos)
        if m is None or m.end() == pos:
            return None
        kind = m.lastgroup
        assert kind is not None  # every alternative is a named group
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def _split_top(tokens: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """``tokens`` split at the commas outside every bracket."""
    parts: list[list[tuple[str, str]]] = [[]]
    depth = 0
    for tok in tokens:
        if tok[1] in ("(", "[", "{", r"\{"):
            depth += 1
        elif tok[1] in (")", "]", "}", r"\}"):
            depth -= 1
        if tok[1] == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(tok)
    return parts


def _values(sp: Any, tokens: list[tuple[str, str]]) -> list[Any]:
    """The value(s) of one member: two when it holds one ``\\pm`` (``3 \\pm \\sqrt{5}``)."""
    pms = sum(1 for t in tokens if t[1] == r"\pm")
    if pms > 1:
        raise _Unsupported(r"two \pm")
    signs: tuple[int | None, ...] = (-1, 1) if pms else (None,)
    out = []
    for sign in signs:
        reader = _Reader(sp, tokens, sign)
        value = reader.expr()
        if reader.i != len(tokens):
            raise _Unsupported("trailing tokens")
        out.append(value)
    return out


#: The interval ends read here: latex2sympy leaves an interval's ends unevaluated (``(-1)(-1)``
#: stays a product of two factors, ``2\\sqrt{8}`` is printed ``2 \\cdot 2 \\sqrt{2}``), so only the
#: forms whose unevaluated and evaluated spellings are one: a signed number, ``\\frac`` of two
#: integers, ``\\sqrt{n}``, ``k\\sqrt{m}`` (``m`` squarefree), ``\\pi``, ``k\\pi`` and their quotients by an integer.
_SIMPLE_END: Final = (
    r"^[-+]? ?(?:N|\\frac \{ N \} \{ N \}|(?:N )?(?:\\sqrt \{ N \}|\\pi)"
    r"|\\frac \{ (?:N )?(?:\\sqrt \{ N \}|\\pi) \} \{ N \})$"
)


def _end(sp: Any, tokens: list[tuple[str, str]]) -> Any:
    """An interval's end: a value, or ``\\infty`` with a sign."""
    texts = [t[1] for t in tokens]
    if texts in ([r"\infty"], ["+", r"\infty"]):
        return sp.oo
    if texts == ["-", r"\infty"]:
        return sp.S.NegativeInfinity
    shape = " ".join("N" if kind == "num" else text for kind, text in tokens)
    if compile_pattern(_SIMPLE_END).match(shape) is None:
        raise _Unsupported("an interval end latex2sympy keeps unevaluated")
    unsigned = [tok for tok in tokens if tok[1] not in ("+", "-")]
    if len(unsigned) < len(tokens) and len(unsigned) > 1 and shape.lstrip("+- ") not in (r"\sqrt { N }", r"\pi", r"\frac { N } { N }"):
        raise _Unsupported("a sign before a product")  # latex2sympy prints -1\pi as \left(-1\right) 1 \pi
    if any(kind == "num" and text == "1" for kind, text in unsigned[:1]) and len(unsigned) > 1:
        raise _Unsupported("a coefficient 1")
    if len(unsigned) > 1 and any(kind == "num" and "." in text for kind, text in unsigned):
        raise _Unsupported("a decimal in a product")
    for k in range(3, len(tokens)):
        if tokens[k - 2][1] == r"\sqrt" and tokens[k - 3][0] == "num" and not sp.sqrt(sp.Rational(tokens[k][1])).is_Pow:
            raise _Unsupported("k\\sqrt{m} with a square in m")  # printed 2 \cdot 2 \sqrt{2} by latex2sympy
    values = _values(sp, tokens)
    if len(values) != 1:
        raise _Unsupported(r"\pm in an interval")
    return values[0]


def read_common(s: str, sp: Any) -> Any | None:
    r"""The SymPy value of ``s`` when it is one of the common forms (module docstring), else ``None``.

    ``sp`` is the ``sympy`` module (imported by the caller, outside any time bound).

    >>> import sympy
    >>> [str(read_common(s, sympy)) for s in [r"7\sqrt{3}", r"\frac{7\pi}{3}", "(3, -5)", "[2, 7)", r"3 \pm \sqrt{5}"]]
    ['7*sqrt(3)', '7*pi/3', '(3, -5)', 'Interval.Ropen(2, 7)', '{3 - sqrt(5), sqrt(5) + 3}']
    >>> read_common(r"x^2 + 1", sympy) is None, read_common(r"\sqrt[3]{2}", sympy) is None
    (True, True)
    """
    tokens = _tokens(s)
    if not tokens:
        return None
    try:
        return _read_tokens(sp, tokens)
    except (_Unsupported, ZeroDivisionError, TypeError, ValueError):
        return None


#: Relations read here, by their spellings.
_RELATIONS: Final = {"<": "StrictLessThan", r"\lt": "StrictLessThan", ">": "StrictGreaterThan", r"\gt": "StrictGreaterThan",
                     "<=": "LessThan", r"\le": "LessThan", r"\leq": "LessThan", ">=": "GreaterThan", r"\ge": "GreaterThan",
                     r"\geq": "GreaterThan", "!=": "Unequality", r"\ne": "Unequality", r"\neq": "Unequality"}


def _side(sp: Any, tokens: list[tuple[str, str]]) -> Any:
    """One side of a relation: a variable with an optional sign (``x``, ``-x``), or a value."""
    texts = [t[1] for t in tokens]
    if len(tokens) == 1 and tokens[0][0] == "var":
        return sp.Symbol(texts[0])
    if len(tokens) == 2 and texts[0] == "-" and tokens[1][0] == "var":
        return -sp.Symbol(texts[1])
    value = _end(sp, tokens)  # latex2sympy leaves a relation's sides unevaluated, as an interval's ends
    if value in (sp.oo, sp.S.NegativeInfinity):
        raise _Unsupported("a relation with infinity")
    return value


def _relation(sp: Any, tokens: list[tuple[str, str]]) -> Any | None:
    """``x < 3``, ``5 \\geq x``, ``-x > -1``: one relation between a variable and a value; ``None``
    when ``tokens`` hold no relation."""
    at = [k for k, (kind, text) in enumerate(tokens) if kind == "rel" or text in _RELATIONS]
    if not at:
        if any(kind == "var" for kind, _ in tokens):
            raise _Unsupported("a variable outside a relation")
        return None
    if len(at) != 1 or at[0] == 0 or at[0] == len(tokens) - 1:
        raise _Unsupported("a chain of relations")
    k = at[0]
    left, right = _side(sp, tokens[:k]), _side(sp, tokens[k + 1 :])
    if (left.free_symbols and right.free_symbols) or not (left.free_symbols or right.free_symbols):
        raise _Unsupported("a relation between two values or two variables")
    return getattr(sp, _RELATIONS[tokens[k][1]])(left, right)


def _union(sp: Any, tokens: list[tuple[str, str]]) -> Any | None:
    r"""``[-1, 0) \cup (1, \infty)``: a union of intervals and sets, nested from the left and not
    evaluated, as latex2sympy builds it; ``None`` without ``\cup``."""
    if not any(text == r"\cup" for _, text in tokens):
        return None
    parts: list[list[tuple[str, str]]] = [[]]
    for tok in tokens:
        if tok[1] == r"\cup":
            parts.append([])
        else:
            parts[-1].append(tok)
    sets = []
    for part in parts:
        if not part:
            raise _Unsupported("an empty member of a union")
        member = _read_tokens(sp, part)
        if not isinstance(member, sp.Interval):  # latex2sympy merges sets ({1, 2} ∪ {3} is {1, 2, 3}), not intervals
            raise _Unsupported("a union member that is no interval")
        sets.append(member)
    value = sets[0]
    for member in sets[1:]:
        value = sp.Union(value, member, evaluate=False)
    return value


def _read_tokens(sp: Any, tokens: list[tuple[str, str]]) -> Any:
    union = _union(sp, tokens)
    if union is not None:
        return union
    relation = _relation(sp, tokens)
    if relation is not None:
        return relation
    first, last = tokens[0][1], tokens[-1][1]
    if first == r"\{" and last == r"\}":
        inner = tokens[1:-1]
        if not inner:
            return sp.S.EmptySet
        members = _split_top(inner)
        if any(not m for m in members):
            raise _Unsupported("empty member")
        return sp.FiniteSet(*(v for m in members for v in _values(sp, m)))
    if first in ("(", "[") and last in (")", "]"):
        members = _split_top(tokens[1:-1])
        if _balanced(tokens[1:-1]) and len(members) >= 2:
            if any(not m for m in members):
                raise _Unsupported("empty member")
            if len(members) == 2:
                return _pair(sp, first, last, members)
            if first == "(" and last == ")":
                return sp.Tuple(*(_single(sp, m) for m in members))
            raise _Unsupported("a bracketed list of three or more")
    members = _split_top(tokens)
    if len(members) >= 2:
        if any(not m for m in members):
            raise _Unsupported("empty member")
        return sp.FiniteSet(*(v for m in members for v in _values(sp, m)))
    values = _values(sp, tokens)
    return values[0] if len(values) == 1 else sp.FiniteSet(*values)


def _single(sp: Any, member: list[tuple[str, str]]) -> Any:
    values = _values(sp, member)
    if len(values) != 1:
        raise _Unsupported(r"\pm in a tuple")
    return values[0]


def _pair(sp: Any, first: str, last: str, members: list[list[tuple[str, str]]]) -> Any:
    """``(a, b)``, ``[a, b)``, …: an interval when ``a < b`` (latex2sympy's reading), else a tuple
    (``(5, 2)``; ``[5, 2]`` too, which latex2sympy reads as the tuple ``(5, 2)``)."""
    a, b = _end(sp, members[0]), _end(sp, members[1])
    less = sp.Lt(a, b)
    if less is sp.true:
        return sp.Interval(a, b, left_open=first == "(", right_open=last == ")")
    if less is sp.false and a != b and not (a in (sp.oo, sp.S.NegativeInfinity) or b in (sp.oo, sp.S.NegativeInfinity)):
        return sp.Tuple(a, b)
    raise _Unsupported("equal ends or an undecided order")


def _balanced(tokens: list[tuple[str, str]]) -> bool:
    depth = 0
    for _, text in tokens:
        if text in ("(", "[", "{", r"\{"):
            depth += 1
        elif text in (")", "]", "}", r"\}"):
            depth -= 1
            if depth < 0:
                return False
    return depth == 0
