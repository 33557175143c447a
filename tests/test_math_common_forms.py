"""Issue 26 target 3: the common forms of a symbolic answer are read without latex2sympy, to the
same value and the same canonical spelling (so every verdict and every answer stays the same)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from normalize.values import _mathvalue as mv
from normalize.values._commonmath import read_common
from normalize.values._mathvalue import NotMath, Tolerance, equivalent, read_value


def _sympy():  # type: ignore[no-untyped-def]
    import sympy

    return sympy


def _both(text: str) -> tuple[object, object]:
    """(fast reading, latex2sympy reading) of ``text``, each as its MathValue or its refusal."""
    sp = _sympy()
    fast = read_common(text, sp)
    assert fast is not None, f"not read as a common form: {text!r}"
    out = []
    for obj in (fast, mv._latex2sympy_value(text)):
        try:
            out.append(mv._value_of(obj, text, False, []))
        except NotMath as exc:
            out.append(("refused", exc.reason))
    return out[0], out[1]


def _assert_same(text: str) -> None:
    fast, slow = _both(text)
    if isinstance(fast, tuple) or isinstance(slow, tuple):
        assert fast == slow, text
        return
    assert isinstance(fast, mv.MathValue) and isinstance(slow, mv.MathValue)
    assert (fast.kind, fast.canonical, fast.number) == (slow.kind, slow.canonical, slow.number), text
    if fast.kind == "expr":
        assert fast.obj == slow.obj or (equivalent(fast, slow) and equivalent(slow, fast)), text


@pytest.mark.parametrize(
    "text",
    [r"7\sqrt{3}", r"\frac{7\pi}{3}", r"\frac{7}{3}\pi", "(3, -5)", "[2, 7)", "(3, 7)", "[5, 2]", r"3 \pm \sqrt{5}",
     r"\pm 2021", r"\frac{-1 \pm \sqrt{13}}{4}", r"\{3, 7\}", r"\{\}", "3, 5", "(1, 2, 3)", r"0.5\pi", r"\pi^2",
     r"\sqrt{\frac{1}{2}}", r"3-\sqrt{2}", r"\sqrt{2}-3", r"\frac{1}{\sqrt{2}}", r"(1+\sqrt{2})^2", r"\sqrt{2}(1+\sqrt{3})",
     r"2(1+\sqrt{3})", r"-\pi", "e", r"\frac{e}{2}", r"\pi e", r"e^{2}", r"\sqrt{12}\pi", r"(-\infty, \infty)",
     r"[0, \infty)", r"(-\infty, 3]", r"\sqrt{-4}", r"2 \times 3\sqrt{2}", r"3\cdot\pi", r"\frac{1}{0}", r"2^{-1}\pi",
     r"1-\frac{\pi}{4}", r"(\frac{1}{2}, \frac{\sqrt{3}}{2})", r"\frac{\sqrt{6}-\sqrt{2}}{4}", r"4\pi^2", r"\frac{3}{\pi}",
     r"\sqrt3", r"\frac94\pi", r"\sqrt 2+\sqrt 5", r"\frac12", "x < 3", r"5 \geq x", "-x > -1", r"x \neq 3", "x <= 2",
     r"x \lt 3", "x != 5", r"y \geq -\frac{1}{2}", r"x < \sqrt{2}", r"[0, 1) \cup [1, 2)", r"(-\infty, 2) \cup (3, \infty)"],
)
def test_common_forms_read_as_latex2sympy_reads_them(text: str) -> None:
    _assert_same(text)


@pytest.mark.parametrize("text", [r"x^2 + 1", r"\sqrt[3]{2}", r"2\pi r", r"(1, 2) \cup \{5\}", r"\sin 30", "2 3", "(3, 3)",
                                  r"\sqrt{\sqrt{2}}", r"-2 \le x \le 7", "(-1)(1)", "2x + 1", "x < y",
                                  r"\{1, 2\} \cup \{3\}", "3 < 5", r"\log 8", r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}"])
def test_other_forms_are_left_to_latex2sympy(text: str) -> None:
    assert read_common(text, _sympy()) is None


# --------------------------------------------------------------------------- generated expressions

_RADICANDS = hs.sampled_from([2, 3, 5, 6, 7, 8, 12, 18, 20, 27, 50])


@hs.composite
def _atoms(draw: hs.DrawFn) -> str:
    kind = draw(hs.sampled_from(["int", "sqrt", "pi", "e", "frac", "coef_sqrt", "decimal"]))
    n = draw(hs.integers(1, 60))
    if kind == "int":
        return str(n)
    if kind == "sqrt":
        return rf"\sqrt{{{draw(_RADICANDS)}}}"
    if kind == "pi":
        return rf"{n}\pi" if draw(hs.booleans()) else r"\pi"
    if kind == "e":
        return "e"
    if kind == "frac":
        return rf"\frac{{{n}}}{{{draw(hs.integers(1, 12))}}}"
    if kind == "coef_sqrt":
        return rf"{n}\sqrt{{{draw(_RADICANDS)}}}"
    return f"{n}.{draw(hs.integers(0, 99)):02d}"


@hs.composite
def _exprs(draw: hs.DrawFn, depth: int = 2) -> str:
    if depth == 0 or draw(hs.booleans()):
        atom = draw(_atoms())
        return f"-{atom}" if draw(hs.integers(0, 4)) == 0 else atom
    left, right = draw(_exprs(depth - 1)), draw(_exprs(depth - 1))
    op = draw(hs.sampled_from(["+", "-", r"\cdot", "frac", "paren"]))
    if op == "frac":
        return rf"\frac{{{left}}}{{{right}}}"
    if op == "paren":
        return rf"{left} \cdot ({right})"
    return f"{left} {op} {right}"


@hs.composite
def _answers(draw: hs.DrawFn) -> str:
    kind = draw(hs.sampled_from(["expr", "expr", "tuple", "set", "interval", "pm", "relation", "union"]))
    if kind == "tuple":
        return f"({draw(_exprs(1))}, {draw(_exprs(1))}, {draw(_exprs(1))})"
    if kind == "set":
        return rf"\{{{draw(_exprs(1))}, {draw(_exprs(1))}\}}"
    if kind == "interval":
        ends = draw(hs.sampled_from(["()", "[)", "(]", "[]"]))
        low = draw(hs.sampled_from([r"-\infty", draw(_exprs(1))]))
        high = draw(hs.sampled_from([r"\infty", draw(_exprs(1))]))
        return f"{ends[0]}{low}, {high}{ends[1]}"
    if kind == "pm":
        return rf"{draw(_atoms())} \pm {draw(_atoms())}"
    if kind == "relation":
        op = draw(hs.sampled_from(["<", ">", r"\le", r"\geq", r"\neq", "<=", ">="]))
        value = draw(_exprs(1))
        return f"x {op} {value}" if draw(hs.booleans()) else f"{value} {op} x"
    if kind == "union":
        low, mid, high = sorted(draw(hs.lists(hs.integers(-50, 50), min_size=3, max_size=3, unique=True)))
        return rf"[{low}, {mid}) \cup ({mid}, {high}]"
    return draw(_exprs())


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_answers())
def test_the_fast_reader_and_latex2sympy_agree_on_generated_answers(text: str) -> None:
    if read_common(text, _sympy()) is None:
        return  # (an interval with equal ends, say): left to latex2sympy, nothing to compare
    _assert_same(text)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_answers(), _answers())
def test_verdicts_on_pairs_are_those_of_the_latex2sympy_values(a: str, b: str) -> None:
    """Equal and unequal pairs: the verdict on the fast values is the verdict on latex2sympy's."""
    sp = _sympy()
    fast_a, fast_b = read_common(a, sp), read_common(b, sp)
    if fast_a is None or fast_b is None:
        return
    try:
        values = [mv._value_of(obj, text, False, []) for obj, text in
                  ((fast_a, a), (fast_b, b), (mv._latex2sympy_value(a), a), (mv._latex2sympy_value(b), b))]
    except NotMath:
        return  # no value (a division by zero): refused by both (the test above)
    tol = Tolerance(1e-9, 0.0)
    assert equivalent(values[0], values[1], tol=tol) == equivalent(values[2], values[3], tol=tol), (a, b)
    assert equivalent(values[0], values[0], tol=tol)


def test_an_equal_pair_in_other_spellings_is_equal() -> None:
    for a, b in [(r"\frac{7\pi}{3}", r"\frac{7}{3}\pi"), (r"2\sqrt{2}", r"\sqrt{8}"), (r"\{3, 7\}", r"\{7, 3\}"),
                 (r"3 \pm \sqrt{5}", r"\{3+\sqrt{5}, 3-\sqrt{5}\}"), (r"\frac{1}{\sqrt{2}}", r"\frac{\sqrt{2}}{2}")]:
        assert equivalent(read_value(a), read_value(b)), (a, b)
    assert not equivalent(read_value("[2, 7)"), read_value("(2, 7)"))


# --------------------------------------------------------------------------- two-stage parsing

def _stock_and_two_stage(text: str) -> tuple[str, str]:
    """(latex2sympy's reading, the two-stage reading) of ``text`` as normalized for reading: each
    the ``srepr`` of its object or the message of its error."""
    from latex2sympy2_extended import latex2sympy

    from normalize.values._latexparse import latex_to_sympy

    sp = _sympy()
    _, normalize_latex, norm, conv = mv._front_end()
    normalized = normalize_latex(text, norm)
    out = []
    for read in (lambda: latex2sympy(normalized, normalization_config=None, conversion_config=conv),
                 lambda: latex_to_sympy(normalized, conv)):
        try:
            out.append(sp.srepr(read()))
        except Exception as exc:  # latex2sympy's errors are plain Exception: compared by message
            out.append(f"error {type(exc).__name__}: {exc}")
    return out[0], out[1]


_TWO_STAGE_CASES = [
    r"\begin{pmatrix}1 & 2 \\ 3 & 4\end{pmatrix}", r"\begin{pmatrix}\frac{1}{3x^{2/3}}&0\\-\sin(x)&0\end{pmatrix}",
    r"2x+4y-3=0", r"a^2 + b = 0", r"x_{1}=\frac{1}{2}, x_{2}=3", r"a_3 = 2, a_{37} = 19", r"F_n = \sum_{k=0}^{n-1} F_k F_{n-k-1}",
    r"(1, 2), (2, 1), (-1, -20)", r"(0;0;0),(0;-2;0)", r"f(2) < f(1) < f(4)", r"\sec^2(y)", r"x \in [-2,7]",
    r"(a+5)(b+2)", r"\frac{x}{7}+\frac{2}{7}", r"y=-\frac{1}{2}x+\frac{3}{4}", r"\{-1\} \cup [0,7)", r"-2 \le x \le 7",
    r"10^{\frac{\sqrt{13} - 5}{6}}", r"x^2/4 + y^2/3 = 1", r"2 \sin b \cos a", r"(", r"1 +* 2", r"\frac{1}{", "x =",
]


@pytest.mark.parametrize("text", _TWO_STAGE_CASES)
def test_the_two_stage_parse_reads_as_latex2sympy(text: str) -> None:
    stock, two_stage = _stock_and_two_stage(text)
    assert two_stage == stock


@hs.composite
def _latex(draw: hs.DrawFn, depth: int = 2) -> str:
    """LaTeX of the shapes answers take, well-formed or not: variables with subscripts and powers,
    functions, fractions, juxtaposed products, relations, lists, matrices."""
    if depth == 0 or draw(hs.integers(0, 2)) == 0:
        return draw(hs.sampled_from(["x", "y", "a_3", "x_{1}", "a_{37}", "F_n", "2", "17", "0.5", r"\pi", "e", r"\sqrt{2}",
                                     "x^2", "y^{3}", r"\infty", "f(x)", r"\sin x", r"\cos(2y)", r"\alpha", "-1", "k"]))
    op = draw(hs.sampled_from(["+", "-", "juxt", r"\cdot", "/", "frac", "pow", "paren", "rel", "list", "matrix", "fn", "bad"]))
    left, right = draw(_latex(depth - 1)), draw(_latex(depth - 1))
    if op == "juxt":
        return f"{left} {right}"
    if op == "frac":
        return rf"\frac{{{left}}}{{{right}}}"
    if op == "pow":
        return f"{{{left}}}^{{{right}}}"
    if op == "paren":
        return f"({left})"
    if op == "rel":
        relation = draw(hs.sampled_from(["=", "<", r"\le", ">", r"\geq", r"\neq"]))
        return f"{left} {relation} {right}"
    if op == "list":
        return f"({left}, {right}), ({right}, {left})" if draw(hs.booleans()) else f"{left}, {right}"
    if op == "matrix":
        return rf"\begin{{pmatrix}}{left} & {right} \\ {right} & {left}\end{{pmatrix}}"
    if op == "fn":
        name = draw(hs.sampled_from(["sin", "log", "tan"]))
        return rf"\{name}^2({left})"
    if op == "bad":
        junk = draw(hs.sampled_from(["(", "}", "^", "_", "&", "= ="]))
        return f"{left} {junk} {right}"
    return f"{left} {op} {right}"


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_latex())
def test_the_two_stage_parse_reads_generated_latex_as_latex2sympy(text: str) -> None:
    stock, two_stage = _stock_and_two_stage(text)
    assert two_stage == stock, text


@pytest.mark.parametrize("text", [r"\begin{pmatrix}1 & 2 \\ 3 & 4\end{pmatrix}", r"(1, 2), (2, 1), (-1, -20)", r"2x+4y-3=0",
                                  r"f(2) < f(1) < f(4)", r"(a+5)(b+2)", r"\{-1\} \cup [0,7)"])
def test_the_sll_stage_alone_reads_the_common_shapes(text: str) -> None:
    """The speed-up is real: these are read by the SLL stage, without the LL parse."""
    from normalize.values._latexparse import sll_converter

    _, normalize_latex, norm, conv = mv._front_end()
    assert sll_converter()(config=conv).parse(normalize_latex(text, norm)) is not None


# --------------------------------------------------------------------------- latex2sympy's tree, built directly

def _tree_and_latex2sympy(text: str) -> tuple[object, str]:
    """(the direct reading, latex2sympy's reading) of ``text`` as normalized for reading: the direct
    one ``None`` or its ``srepr``, latex2sympy's the ``srepr`` of its object or its error."""
    from latex2sympy2_extended import latex2sympy

    from normalize.values._latextree import read_tree

    sp = _sympy()
    _, normalize_latex, norm, conv = mv._front_end()
    normalized = normalize_latex(text, norm)
    mine = read_tree(normalized, sp)
    try:
        theirs = _typed_srepr(latex2sympy(normalized, normalization_config=None, conversion_config=conv))
    except Exception as exc:  # latex2sympy's errors are plain Exception
        theirs = f"error {type(exc).__name__}: {exc}"
    return (None if mine is None else _typed_srepr(mine)), theirs


def _typed_srepr(obj: object) -> str:
    """``srepr`` plus the class of every node (latex2sympy's ``FiniteSet`` and ``And`` are
    subclasses that ``srepr`` writes as SymPy's)."""
    sp = _sympy()

    def classes(node: object) -> str:
        kind = f"{type(node).__module__}.{type(node).__qualname__}"
        if isinstance(node, sp.MatrixBase):
            return kind + "[" + ",".join(classes(x) for x in node) + "]"
        if isinstance(node, sp.Basic) and node.args:
            return kind + "(" + ",".join(classes(a) for a in node.args) + ")"
        return kind

    return f"{sp.srepr(obj)} | {classes(obj)}"


_TREE_SHAPES = [
    "2-2p", "11a+c", "4t", "x+1", "x+2n+1", "4a-2", r"\frac{x+2}{7}", r"\frac{x}{7}+\frac{2}{7}", "(a+5)(b+2)", "(+5)(b+2)",
    "2x+4y-3=0", "-34x-45y+20z-100=0", "a +3z = 0", "7 = 11a+c", "a^2 + b = 0", "x^2/4 + y^2/3 = 1", r"y=-\frac{1}{2}x+\frac{3}{4}",
    "y = 2x+3", "x = 5", "x^2 - 5x + 6 = 0", r"3x^{2} - \frac{1}{2}x + 7", "x_{1}=3", "a_3 = 2, a_{37} = 19", "n=1, 2, 3",
    r"x_{1}=\frac{1}{2}+\frac{31\sqrt{5}}{216},\quadx_{2}=\frac{1}{2}-\frac{31\sqrt{5}}{216}", "-793 < a < 10", r"-2 \le x \le 7",
    "(1, 2), (2, 1), (-1, -20)", "(2, 2), (6, 2)", "(3, 37, 3, 13), (3, 17, 3, 7)", "{1,3}", r"\begin{pmatrix}1 & 2 \\ 3 & 4\end{pmatrix}",
    r"\begin{pmatrix}\frac{1}{2} & -3 \\ 0.5 & x\end{pmatrix}", r"[\begin{array}{cc}1 & 2 \\3 & 4\end{array}]", r"\begin{bmatrix}0 & 0 \\0 & 0\end{bmatrix}",
    "2 3", r"2\frac{1}{2}", r"2\frac{1}{2}x", "(-1)(1)", "x^23", r"\pi r^2", "1.5x", r"x \cdot y z", "x/2/3", "x = 1, y",
    r"F_n = \sum_{k=0}^{n-1} F_k F_{n-k-1}", r"\sum_{k=1}^n k + 1", "f(x)", "f(2) < f(1) < f(4)", "0<f(x)<1", "f(y) = y",
    "2g(3)^2", "f(1.5)", r"\prod_{i=1}^{5} i", r"2\sum_{k=1}^{n} k^2 \cdot 3",
]


@pytest.mark.parametrize("text", _TREE_SHAPES)
def test_the_common_shapes_with_letters_are_built_as_latex2sympy_builds_them(text: str) -> None:
    mine, theirs = _tree_and_latex2sympy(text)
    assert mine is not None, f"not read directly: {text!r}"
    assert mine == theirs


@pytest.mark.parametrize("text", ["f(x, y)", "f_1(x)", "f^2(x)", "f(x+1)", r"\sin x", "2xy", "dx", "e^x", "E", "I + 1", r"x \in [-2,7]", "{1}", "(p,q)=(3,2)",
                                  r"\sum_{k} k", "1,000", r"\sqrt[3]{2}", "x!", "7:32", "3%"])
def test_other_shapes_are_left_to_latex2sympy(text: str) -> None:
    mine, _ = _tree_and_latex2sympy(text)
    assert mine is None


@hs.composite
def _tree_latex(draw: hs.DrawFn, depth: int = 2) -> str:
    """LaTeX in and around the directly read subset: letters, subscripts, powers, signs, juxtaposition,
    ``\\cdot``, ``/``, ``\\frac``, ``\\sqrt``, groups, relations, lists, tuples, sets, matrices."""
    if depth == 0 or draw(hs.integers(0, 2)) == 0:
        return draw(hs.sampled_from(["x", "y", "p", "a_3", "x_{1}", "a_{37}", "F_n", "2", "17", "0", "0.5", "1.25", r"\pi", "x^2",
                                     "y^{3}", "b^{-1}", "3x", "2x^2", "-1", "n_{k-1}", "x_1^2", "f(x)", "d", "E", "xy", "1,000",
                                     "g(2)", "f(x)^2", "h(x, 1)", "f(-1)", "f(x+1)"]))
    op = draw(hs.sampled_from(["+", "-", "juxt", r"\cdot", "/", "frac", "sqrt", "pow", "paren", "neg", "rel", "chain", "list",
                               "tuples", "set", "matrix", "sum"]))
    left, right = draw(_tree_latex(depth - 1)), draw(_tree_latex(depth - 1))
    if op == "sum":
        return rf"\sum_{{k={right}}}^{{n}} {left}"
    if op == "juxt":
        return f"{left}{draw(hs.sampled_from(['', ' ']))}{right}"
    if op == "frac":
        return rf"\frac{{{left}}}{{{right}}}"
    if op == "sqrt":
        return rf"\sqrt{{{left}}}"
    if op == "pow":
        return f"({left})^{{{right}}}"
    if op == "paren":
        return f"({left})"
    if op == "neg":
        return f"-{left}"
    if op in ("rel", "chain"):
        relation = draw(hs.sampled_from(["=", "<", r"\le", ">", r"\geq", r"\neq", "<="]))
        tail = f" {relation} {draw(_tree_latex(depth - 1))}" if op == "chain" else ""
        return f"{left} {relation} {right}{tail}"
    if op == "list":
        return f"{left}, {right}"
    if op == "tuples":
        a, b, c = (draw(hs.integers(-9, 9)) for _ in range(3))
        return f"({a}, {b}), ({b}, {c}, {a}), ({c}, {a})"
    if op == "set":
        return f"{{{left}, {right}}}"
    if op == "matrix":
        return rf"\begin{{pmatrix}}{left} & {right} \\ {right} & {left}\end{{pmatrix}}"
    return f"{left} {op} {right}"


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_tree_latex())
def test_the_direct_reading_of_generated_latex_is_latex2sympys(text: str) -> None:
    mine, theirs = _tree_and_latex2sympy(text)
    if mine is not None:
        assert mine == theirs, text


# --------------------------------------------------------------------------- bounds as a set, without the solver

_BOUND_OPS = ["Lt", "Le", "Gt", "Ge"]


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(hs.lists(hs.tuples(hs.sampled_from(_BOUND_OPS), hs.fractions(min_value=-20, max_value=20, max_denominator=6), hs.booleans()),
                min_size=1, max_size=3),
       hs.sampled_from(["x", "f(x)", "2x", "|x|"]))
def test_bounds_by_numbers_give_the_set_sympys_as_set_gives(bounds: list[tuple[str, object, bool]], subject_kind: str) -> None:
    sp = _sympy()
    x = sp.Symbol("x")
    subject = {"x": x, "f(x)": sp.Function("f")(x), "2x": 2 * x, "|x|": sp.Abs(x)}[subject_kind]
    relations = []
    for op, value, subject_left in bounds:
        bound = sp.Rational(value.numerator, value.denominator)  # type: ignore[attr-defined]
        sides = (subject, bound) if subject_left else (bound, subject)
        relations.append(getattr(sp, op)(*sides, evaluate=False))
    condition = relations[0] if len(relations) == 1 else sp.And(*relations)
    if not mv._is_condition(condition):
        return  # (the bounds folded to True or False)
    t = sp.Symbol("_t", real=True)
    fast = mv._bounded_by_numbers(condition, mv._subject(condition))
    if subject_kind == "|x|":
        if fast is None:
            return  # no value, or every value (as_set's UniversalSet): left to the solver
        assert fast == condition.xreplace({x: t}).as_set()
        return
    assert fast is not None
    assert fast == condition.xreplace({subject: t}).as_set()


def test_bounds_on_an_absolute_value_give_both_signs() -> None:
    sp = _sympy()
    z = sp.Symbol("z")
    condition = sp.And(sp.Le(1, sp.Abs(z)), sp.Le(sp.Abs(z), sp.Rational(3, 2)))
    assert mv._bounded_by_numbers(condition, mv._subject(condition)) == sp.Union(
        sp.Interval(sp.Rational(-3, 2), -1), sp.Interval(1, sp.Rational(3, 2)))
    assert mv._bounded_by_numbers(sp.Ge(sp.Abs(z), 0, evaluate=False), sp.Abs(z)) is None  # every value: as_set's UniversalSet
    assert mv._bounded_by_numbers(sp.Lt(sp.Abs(z + 1), 2), sp.Abs(z + 1)) is None
    assert equivalent(read_value(r"1\leq|z|\leq \frac{3}{2}"), read_value(r"[-\frac{3}{2}, -1] \cup [1, \frac{3}{2}]"))
    assert equivalent(read_value(r"-2 \le x \le 7"), read_value("[-2, 7]"))
    assert not equivalent(read_value(r"-2 < x \le 7"), read_value("[-2, 7]"))


def test_without_latex2sympys_private_converter_latex2sympy_reads_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """The direct reader builds latex2sympy's objects with its private converter; a latex2sympy
    that keeps it elsewhere leaves every reading to latex2sympy, with the same values."""
    import sympy

    from normalize.values import _latextree

    texts = ["2-2p", "y = 2x+3", r"\begin{pmatrix} 1 & x \\ 0 & 1 \end{pmatrix}"]
    direct = [sympy.srepr(_latextree.read_tree(t, sympy)) for t in texts]
    monkeypatch.setattr(_latextree, "library", lambda: None)
    assert all(_latextree.read_tree(t, sympy) is None for t in texts)
    for text in texts:
        assert read_value(text).canonical == mv._value_of(mv._latex2sympy_value(text), text, False, []).canonical
    assert direct[0] == sympy.srepr(mv._latex2sympy_value("2-2p"))
