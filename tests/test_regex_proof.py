"""The load-time linearity proof of user patterns (issue 26): what it proves runs in linear time
without the per-call timeout, with the same matches; what it refuses keeps the timeout."""

from __future__ import annotations

import gc
import time

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from normalize.core.engine import Chain, RuleSpec, run_chain
from normalize.core.registry import REGISTRY
from normalize.limits._regex import user_compiled, user_pattern
from normalize.limits._regex_proof import proven_linear
from normalize.rules._extract_params import ExtractRegexParams
from normalize.rules.extract import extract_regex

CATASTROPHIC = [
    r"(a+)+$",
    r"(a|a)*$",
    r"(\w+\s?)*$",
    r"(.*a){12}",
    r"(a|aa)+$",
    r"(?:x+x+)+y",
    r"^(\d+)*$",
]
# linear per attempt but quadratic over a search: every start position rescans the same run
QUADRATIC = [r"\w+$", r"\s*(\w+)\s*$", r"x\w+y", r"a+b", r"\d+\.\d+", r"<answer>(.*?)</answer>", r"a*a*b"]
# syntax the two parsers read differently, backreferences, look-arounds over long repeats
UNREADABLE = [
    r"(\w)\1",
    r"(?P<x>a)(?P=x)",
    r"(a)?(?(1)b|c)",
    r"(?=\w+x)a",
    r"[[:alpha:]]+:",
    r"(?:abc){e<=1}",
    r"\p{L}+",
    r"(?V1)[a--b]+",
    r"(?i:a)\s*b",
    r"a++b",
    r"(?>a+)b",
    r"(?r)ab",
]
PROVEN = [
    r"(?i)answer:\s*(\S+)",
    r"####\s*(-?[\d,\.]+)",
    r"(?i)the answer is\s*\(?([A-D])\)?",
    r"(?:answer|ANSWER)\s*[:：]\s*(\S+)",
    r"\bverdict=(?P<v>\w+)",
    r"^\s*(\w+)",
    r"Final Answer: ?([^\n]+)",
    r"boxed\{(\d+)\}",
    r"\d{1,3}(?:,\d{3})?",
    r"[A-J]",
]


@pytest.mark.parametrize("pattern", CATASTROPHIC + QUADRATIC + UNREADABLE)
def test_refused(pattern: str) -> None:
    assert not proven_linear(pattern)
    assert not user_compiled(pattern)[1]


@pytest.mark.parametrize("pattern", PROVEN)
def test_proven(pattern: str) -> None:
    assert proven_linear(pattern)


def test_flags_count() -> None:
    # DOTALL makes '.' match the newlines around it: then they overlap
    assert proven_linear(r"\n(.+)\n")
    assert not proven_linear(r"\n(.+)\n", regex.DOTALL)
    assert not proven_linear(r"(?s)\n(.+)\n")
    assert not proven_linear(r"x:\s*(\w+)x", regex.IGNORECASE)  # \w matches X
    assert proven_linear(r"x:\s*(\d+)x", regex.IGNORECASE)
    assert not proven_linear(r"ab", regex.BESTMATCH)  # a flag it does not read
    assert not proven_linear(r"ab", 1 << 30)  # a bit that is no flag
    assert not proven_linear(r"ab", regex.FULLCASE | regex.IGNORECASE)


def _time(pattern: regex.Pattern[str], text: str) -> float:
    best = float("inf")
    gc.disable()
    try:
        for _ in range(5):  # CPU time of this thread: other load on the machine does not count
            start = time.thread_time()
            for _m in pattern.finditer(text):
                pass
            best = min(best, time.thread_time() - start)
    finally:
        gc.enable()
    return best


_ATOMS = st.sampled_from(["a", "b", ":", " ", "!", r"\w", r"\s", r"\S", r"\d", "[ab]", "[^a]", ".", r"\b", "$", "^"])
_QUANT = st.sampled_from(["", "", "?", "*", "+", "{1,3}", "*?", "+?", "{2,}"])


@st.composite
def _patterns(draw: st.DrawFn) -> str:
    def piece(depth: int) -> str:
        kind = draw(st.integers(0, 5 if depth < 2 else 3))
        if kind <= 3:
            atom = draw(_ATOMS)
            return atom if atom in (r"\b", "$", "^") else atom + draw(_QUANT)
        inner = "".join(piece(depth + 1) for _ in range(draw(st.integers(1, 3))))
        if kind == 4:
            return "(" + inner + ")" + draw(_QUANT)
        other = "".join(piece(depth + 1) for _ in range(draw(st.integers(1, 2))))
        return "(?:" + inner + "|" + other + ")" + draw(_QUANT)

    return "".join(piece(0) for _ in range(draw(st.integers(1, 5))))


def _adversarial(pattern: str, n: int) -> list[str]:
    fills = ["a", " ", ":", "a:", "a ", ": a", "1"]
    return [(f * n)[:n] + "!" for f in fills]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(_patterns())
def test_what_is_proven_runs_in_linear_time(pattern: str) -> None:
    """Any generated pattern the proof accepts takes time linear in the text on inputs built to
    make a backtracking search rescan (runs of each class, then a character that fails): 4× the
    text costs at most ~4× (a quadratic search costs 16×, and over 0.1 s at 16k characters)."""
    try:
        compiled = regex.compile(pattern)
    except regex.error:
        return
    if not proven_linear(pattern):
        return
    for small, large in zip(_adversarial(pattern, 4000), _adversarial(pattern, 16000), strict=True):
        t_small, t_large = _time(compiled, small), _time(compiled, large)
        assert t_large <= max(12 * t_small, 0.02), (pattern, large[:8], t_small, t_large)


@settings(max_examples=250, deadline=None, derandomize=True)
@given(_patterns(), st.text(alphabet="ab: !1\n", max_size=40))
def test_the_same_matches_with_or_without_the_timeout(pattern: str, text: str) -> None:
    try:
        compiled = regex.compile(pattern)
    except regex.error:
        return
    slow = [(m.span(), m.groups()) for m in compiled.finditer(text, timeout=5.0)]
    up = user_pattern(pattern, timeout=5.0)
    assert [(m.span(), m.groups()) for m in up.finditer(text)] == slow
    if compiled.groups:
        params = ExtractRegexParams(pattern=pattern)
        spans = [(m.span(), m.groups()) for m in params.finditer(text, 5.0)]
        assert spans == slow


def test_extract_regex_keeps_the_timeout_for_an_unproven_pattern() -> None:
    params = ExtractRegexParams(pattern=r"(a|aa)+$")
    with pytest.raises(TimeoutError):
        extract_regex("a" * 60 + "b", params, timeout=0.05)
    proven = ExtractRegexParams(pattern=r"ANSWER:\s*(\S+)")
    assert extract_regex("x ANSWER: 42 ANSWER: 43", proven, timeout=1e-9) == "43"  # no timeout to run out


def test_user_pattern_linear_flag() -> None:
    assert user_pattern(r"ANSWER:\s*(\S+)", timeout=1.0).linear
    slow = user_pattern(r"(a|aa)+$", timeout=0.05)
    assert not slow.linear
    with pytest.raises(TimeoutError):
        slow.search("a" * 60 + "b")


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    _patterns(),
    st.text(alphabet="ab: !1\n", max_size=40),
    st.sampled_from(["last", "first"]),
    st.booleans(),
    st.sampled_from([(), ("IGNORECASE",), ("MULTILINE", "DOTALL")]),
)
def test_the_bound_rule_gives_what_the_rule_gives(
    pattern: str, text: str, which: str, strip: bool, flags: tuple[str, ...]
) -> None:
    """The engine calls extract_regex bound to its params (the registry's ``bind`` hook): the
    same text as the rule itself on every input, under every choice of its params."""
    try:
        params = ExtractRegexParams(pattern=pattern, which=which, strip=strip, flags=flags)
    except ValueError:
        return
    bound = REGISTRY.rules["extract_regex"].bind(params)  # type: ignore[misc]
    assert bound(text, params, timeout=5.0) == extract_regex(text, params, timeout=5.0)


def test_the_bound_rule_keeps_the_timeout_and_the_engine_records_it() -> None:
    slow = ExtractRegexParams(pattern=r"(a|aa)+$")
    bound = REGISTRY.rules["extract_regex"].bind(slow)  # type: ignore[misc]
    with pytest.raises(TimeoutError):
        bound("a" * 60 + "b", slow, timeout=0.05)
    proven = ExtractRegexParams(pattern=r"ANSWER:\s*(\S+)")
    assert REGISTRY.rules["extract_regex"].bind(proven)("x ANSWER: 42 ANSWER: 43", proven, timeout=1e-9) == "43"  # type: ignore[misc]
    chain = Chain((RuleSpec("extract_regex", 1, slow),))
    outcome = run_chain(chain, "a" * 60 + "b", timeout=0.05)
    assert (outcome.status, outcome.reason) == ("error", "extract_regex: regular expression timed out after 0.05s")
    found = run_chain(Chain((RuleSpec("extract_regex", 1, proven),)), "x ANSWER: 42 ANSWER: 43")
    assert (found.text, [(s.index, s.rule, s.after) for s in found.trace]) == ("43", [(0, "extract_regex", "43")])


def _plain_extract(text: str, params: ExtractRegexParams) -> str:
    """extract_regex as first written: every match of one ``finditer`` scan, the last (or first)
    whose group took part; the reading the bound rule's search-first short cut must equal."""
    compiled = regex.compile(params.pattern, params._flag_bits())
    group = params.group if params.group is not None else (1 if compiled.groups else 0)
    found = None
    for match in compiled.finditer(text):
        if match.group(group) is not None:
            found = match.group(group)
            if params.which == "first":
                break
    if found is None:
        return text
    return found.strip() if params.strip else found


#: Proven patterns where the short cut's cases meet: empty matches (the scan resumes apart after
#: one), groups that take no part, look-behinds and ``\b`` before the resume point, ``^``/``$``.
EDGE_PROVEN = [
    r"x*", r"(a)?", r"\b", r"^", r"(?m)^", r"$", r"(?:(a)|b)", r"(?:b|(a))", r"(?<=a)b",
    r"\b(\w)", r"(?m)^(\S)", r"(a)?b?", r"(?<=:) ?(\d)", r"(?P<v>[ab])(?=!)", r"a|", r"(?:(a)|)",
    r"(?i)answer:\s*(\S+)", r"\d{1,3}(?:,\d{3})?",
]


@pytest.mark.parametrize("pattern", EDGE_PROVEN)
def test_the_bound_short_cut_equals_the_plain_scan_on_edge_patterns(pattern: str) -> None:
    assert proven_linear(pattern), pattern
    texts = ["", "a", "b", "ab", "ba", "aab", "a:b", "x:1 a:2", "xx a b!", "\n\na\nb\n", "A: 1, answer: 12,345 b!",
             "answer: x answer: y", "bab!aa:  3", "a" * 5 + "b" * 3 + "!"]
    for which in ("last", "first"):
        for strip in (True, False):
            params = ExtractRegexParams(pattern=pattern, which=which, strip=strip)
            bound = REGISTRY.rules["extract_regex"].bind(params)  # type: ignore[misc]
            for text in texts:
                assert bound(text, params, timeout=5.0) == _plain_extract(text, params), (pattern, which, text)


@settings(max_examples=600, deadline=None, derandomize=True)
@given(
    _patterns(),
    st.lists(st.text(alphabet="ab: !1\n", max_size=30), min_size=1, max_size=4),
    st.sampled_from(["last", "first"]),
    st.booleans(),
    st.sampled_from([(), ("IGNORECASE",), ("MULTILINE",)]),
)
def test_the_bound_short_cut_equals_the_plain_scan(
    pattern: str, texts: list[str], which: str, strip: bool, flags: tuple[str, ...]
) -> None:
    """A proven pattern is searched once, and scanned on from its first match only when there is
    one (``_bind_extract_regex``): the same text as one plain ``finditer`` scan, on generated
    proven patterns (a share of them match empty strings) and texts full of their matches."""
    try:
        params = ExtractRegexParams(pattern=pattern, which=which, strip=strip, flags=flags)
    except ValueError:
        return
    if not user_compiled(pattern, params._flag_bits() if flags else 0)[1]:
        return  # unproven: the timed path, one finditer call as before
    bound = REGISTRY.rules["extract_regex"].bind(params)  # type: ignore[misc]
    for text in texts:
        assert bound(text, params, timeout=5.0) == _plain_extract(text, params)
