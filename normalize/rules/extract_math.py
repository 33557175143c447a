r"""Stage 1, extract, for math: which statement of a solution is its answer.

:func:`extract_math_answer` replaces the generic ``split_on_separator`` → ``extract_boxed`` →
``extract_answer_marker`` sequence in math chains, because a math solution needs one decision
over all three kinds of statement, not three independent cuts:

* **final statements**: what follows ``####`` / ``最终输出:`` (to the end of its line) and what
  follows a marker of the strong tiers (``final answer:``, ``the answer is``, ``答案是``…), to the
  end of its sentence;
* **boxes**: each outermost ``\boxed{…}``; boxes that stand side by side, joined only by
  commas, ``and``, ``or``, ``\quad`` (``\boxed{3}, \boxed{5}``), are one statement listing
  several solutions;
* **weak markers** (``therefore``, ``thus``, ``因此``…) count only when there is nothing else.

The last final statement wins, and it beats any earlier box (a final-answer sentence after a
box is the answer; a box *inside* it is its value).  Two final statements, or two box
statements, that state different values are ``contradictory``: the output is rejected, never
resolved by position.  A final statement that a retraction right after it takes back for
another number (``The answer is 5. Wait, no: 6.``) is ``contradictory`` too.  With no statement at all the whole text is kept for the parser, which
reads the last number of a finished solution; a solution cut off mid-sentence
(``… 19 × 2 = 38. Then we subtract the``) or an unclosed last box is ``no_answer``.

The rule marks its output with how the answer was found (``marker``, ``boxed`` or
``last_number``); the engine records that on the result (``Result.extra["found_by"]``) and the
score report turns it into strict and flexible parse rates.  A marked statement whose value is
the box inside it is also marked ``from_box``: its value is mathematics (``1,2`` lists two
numbers there, ``7:32`` is a ratio), as a box's is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final, NamedTuple

import regex

from normalize import status as st
from normalize.core.registry import DEFAULT_TIMEOUT, AnnotatedText, rule
from normalize.errors import RejectText
from normalize.limits._literals import (
    anchored_text_locator,
    entangled,
    fold,
    project,
    text_locator_source,
)
from normalize.limits._regex import char_finder, compile_pattern
from normalize.rules._extract_math_params import MathAnswerParams
from normalize.rules._extract_params import AnswerMarkerParams
from normalize.rules._speed import (
    _IN_PROJECTED,
    _IN_TEXT,
    _alternation,
    _located,
    _Plan,
    _plan,
    _tier_plans,
    marker_matches,
    outside_code,
)
from normalize.rules.extract import _BOX, _box_span, _brace_pairs, _closing_brace
from normalize.rules.extract_markers import _answer_span, resolve_answer_markers
from normalize.values._numbers import to_fraction
from normalize.values._phrases import RETRACTION
from normalize.values._quantity import NUMBER_WORD

FOUND_BY_MARKER: Final = "marker"
FOUND_BY_BOXED: Final = "boxed"
FOUND_BY_LAST_NUMBER: Final = "last_number"
#: How a stated answer was found; ``last_number`` is the flexible fallback, not a statement.
STRICT_METHODS: Final = (FOUND_BY_MARKER, FOUND_BY_BOXED)


def resolve_math_markers(params: MathAnswerParams, resources: Mapping[str, Any]) -> MathAnswerParams:
    """Fill empty ``tiers`` from the language overlays, as :func:`resolve_answer_markers` does."""
    if params.tiers:
        return params
    resolved = resolve_answer_markers(AnswerMarkerParams(languages=params.languages), resources)
    return MathAnswerParams.model_validate({**params.model_dump(), "tiers": resolved.tiers})


_DEFAULT: Final = MathAnswerParams()


@rule(
    "extract_math_answer",
    stage="extract",
    version=5,
    scope=("math",),
    params=MathAnswerParams,
    idempotent=False,
    resolve=resolve_math_markers,
)
def extract_math_answer(text: str, params: MathAnswerParams = _DEFAULT, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    r"""Keep the statement that is the answer of a math solution (see the module docstring).

    >>> p = MathAnswerParams(tiers=(("final answer is",), ("the answer is",), ("therefore",)))
    >>> str(extract_math_answer(r"So $\boxed{255}$ first. The final answer is $10,455$. I hope it is correct.", p))
    '$10,455$'
    >>> str(extract_math_answer("Natalia sold 72 clips.\n#### 72", p))
    '72'
    >>> extract_math_answer("#### 18\nThe answer is 20", p)
    Traceback (most recent call last):
    ...
    normalize.errors.RejectText: contradictory: two final answers disagree: '18' and '20'
    >>> str(extract_math_answer(r"the roots are \boxed{3}, \boxed{5}.", p))
    '3, 5'
    """
    if not params.tiers:
        raise ValueError("extract_math_answer has no marker tiers: load it from a pack or pass tiers")
    # built in, linear; "<" first: a one-character scan is several times faster than "<|"
    special = compile_pattern(_SPECIAL_TOKEN).search(text) if "<" in text and "<|" in text else None
    if special is not None and text[: special.start()].strip():
        text = text[: special.start()]  # the model ran on into a new chat turn
    # the last statement of each kind counts: the last ####, the last marker of the best tier
    finals: list[_Statement] = []
    scan = _Scan(text)
    last_separator = _last_separated(text, params.separators, timeout=timeout)
    if last_separator is not None:
        finals.append(last_separator)
    for tier in params.tiers[: params.final_tiers]:
        marker = _last_statement(scan, tier, params.separators, final=True, timeout=timeout)
        if marker is not None:
            finals.append(marker)
            break
    boxes = _boxes(scan, timeout=timeout)
    finals.sort(key=lambda s: s.start)
    if finals:
        last = finals[-1]
        inside = [b for b in boxes if last.start <= b.start < last.end]
        chosen = last
        if inside:
            chosen = _Statement(last.start, last.end, _join(inside), FOUND_BY_MARKER)
        later_boxes = [b for b in boxes if b.start >= last.end]
        values = _final_values(finals, boxes)
        groups = _box_groups(text, later_boxes, timeout=timeout) if later_boxes else []
        _check_agree([*values, *(_join(g) for g in groups)], timeout=timeout)
        if groups:
            _check_not_taken_back(text, groups[-1][-1].end, _join(groups[-1]), timeout=timeout)
            return AnnotatedText(_listed(text, groups[-1], timeout=timeout), found_by=FOUND_BY_BOXED)
        _check_not_taken_back(text, last.end, values[-1], timeout=timeout)
        if inside:  # the marked statement's value is its box's: mathematics (\boxed{1,2} lists two)
            return AnnotatedText(chosen.value, found_by=chosen.kind, from_box=True)
        return AnnotatedText(chosen.value, found_by=chosen.kind)
    if boxes:
        groups = _box_groups(text, boxes, timeout=timeout)
        _check_agree([_join(g) for g in groups], timeout=timeout)
        _check_not_taken_back(text, groups[-1][-1].end, _join(groups[-1]), timeout=timeout)  # "\boxed{5}. Wait, 6."
        return AnnotatedText(_listed(text, groups[-1], timeout=timeout), found_by=FOUND_BY_BOXED)
    if _unclosed_box(scan, timeout=timeout):
        raise RejectText(st.NO_ANSWER, "the last \\boxed{} is never closed: the output was cut off")
    # the weak tiers count only now, with no final statement and no box: not scanned before
    for tier in params.tiers[params.final_tiers :]:
        weak = _last_statement(scan, tier, params.separators, final=False, timeout=timeout)
        if weak is not None:  # a hint ("Therefore, …"): the rest of its paragraph, read for its last item
            return AnnotatedText(weak.value, found_by=FOUND_BY_MARKER, statement="paragraph")
    if compile_pattern(_TRUNCATED_TAIL).search(_last_sentence(text), timeout=timeout) and not _has_number(
        _last_sentence(text)
    ):
        raise RejectText(st.NO_ANSWER, "the solution stops mid-sentence with no answer stated (cut off)")
    return AnnotatedText(text, found_by=FOUND_BY_LAST_NUMBER)


class _Statement(NamedTuple):  # a tuple: built several times a row, several times cheaper than a frozen dataclass
    start: int
    end: int
    value: str  # the text that states the value
    kind: str  # FOUND_BY_*


# a sentence ends at . ! ? followed by a space, a line break or the end (after a digit: by a
# capital or a letter of an uncased script, 한글, 日本語, кириллица capitals, العربية), and at a
# full-width 。！？ wherever it stands (CJK writes no space after them: 答案：12。验证：5 is two
# sentences); a decimal point (3.5) or a dot inside $…$ does not end it, nor a "!" after a number
# and before "=" (a factorial: 10! = 3628800 was 10)
_SENTENCE_END: Final = (
    r"(?:(?<![0-9])\.|(?<=[0-9])\.(?=\s*$|\s+[\p{Lu}\p{Lo}]))(?=\s|$)|\?(?=\s|$)|!(?=\s|$)(?<![0-9)}]!(?=\s*[=<>≤≥]))|[。！？]|\n"
)
_LIST_JOIN: Final = (
    r"^(?:\s|\$|,|;|&|\\\\|\\quad|\\qquad|\\,|\\;|\\text\s*\{\s*(?:and|or|,)?\s*\}"
    # a short typeset connective that ends in "and" names the next part: \text{ for part (a) and }
    r"|\\text\s*\{[^{}\n]{0,40}(?<![A-Za-z])and\s*\}"
    r"|(?<![A-Za-z])(?:and|or)(?![A-Za-z])|\\\]|\\\[|\\\(|\\\))*$"
)
#: Chat-template tokens (``<|im_start|>``, ``<|eot_id|>``): what follows is not this answer.
_SPECIAL_TOKEN: Final = r"<\|[A-Za-z_]{2,30}\|>"
_TRUNCATED_TAIL: Final = r"[A-Za-z\p{Han},;:(\[{=+\-*/^_\\]\s*$"
#: What _cut_sentence reads: math delimiters and sentence ends.
_SENTENCE_TOKEN: Final = compile_pattern(r"\$|\\\(|\\\)|\\\[|\\\]|" + _SENTENCE_END)
#: What every token of _SENTENCE_TOKEN starts with (stdlib: a plain scan of a short span).
_SENTENCE_TOKEN_START: Final = re.compile(r"[$.!?\n\u3002\uff01\uff1f]|\\[()\[\]]")


#: A period that abbreviates a unit, with more of the quantity after it (``3 ft. 4 in.``).
_UNIT_DOT: Final = re.compile(r"(?<![A-Za-z])(?:ft|in|yd|oz|lbs?|hrs?|mins?|secs?)\.\s+[0-9]")
#: A period that abbreviates a word written before a number: a hedge or a currency
#: (``approx. 18``, ``ca. 18``, ``Rs. 12``); the number after it is the answer, not a new sentence.
_WORD_DOT: Final = re.compile(r"(?<![A-Za-z])(?:approx|appr|ca|Rs|Rp|aprox|env|прибл|ок)\.\s*[-$€£¥₹0-9]", re.IGNORECASE)


def _cut_sentence(text: str, begin: int, end: int) -> int:
    """Where the sentence starting at ``begin`` ends (math inside ``$…$`` never ends it)."""
    if _SENTENCE_TOKEN_START.search(text, begin, end) is None:
        return end  # nothing a token of _SENTENCE_TOKEN starts with: one stdlib scan of the span
    pos = begin
    in_math = False
    seen_content = False
    for m in _SENTENCE_TOKEN.finditer(text, begin, end):  # built in, linear: no per-call timeout
        token = m.group(0)
        if token == "$" or token in ("\\(", "\\["):
            in_math = not in_math if token == "$" else True
            seen_content = True
            continue
        if token in ("\\)", "\\]"):
            in_math = False
            continue
        if in_math:
            continue
        if token == "\n" and not text[begin : m.start()].strip():
            continue  # "Final Answer\n42": the answer is on the next line
        if token == "." and _UNIT_DOT.search(text, max(begin, m.start() - 6), m.end() + 3) is not None:
            continue  # "3 ft. 4 in.": an abbreviated unit before more of the quantity
        if token == "." and _WORD_DOT.search(text, max(begin, m.start() - 6), m.end() + 3) is not None:
            continue  # "approx. 18", "Rs. 12": an abbreviation before the number
        if text[pos : m.start()].strip() or seen_content:
            return m.start()
    return end


def _value_key(value: str, *, timeout: float) -> Any:
    """What two statements are compared by: the exact number, else the squeezed text."""
    text = compile_pattern(r"\\boxed\s*\{|\\fbox\s*\{|\$|\\[()\[\]]|\\[,!; ]|\s").sub("", value)  # built in, linear
    text = text.rstrip(".。").replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").replace("\\left", "").replace("\\right", "")
    text = text.rstrip("}") if value.count("{") < value.count("}") else text
    number: Fraction | None = to_fraction(text, timeout=timeout)
    return ("n", number) if number is not None else ("s", text)


class _Scan:
    """What several steps read of one text, computed once and only when needed: its
    :func:`project`-ion (one byte a character, folded as far as ASCII literals need), where
    each screened marker literal first occurs (shared by every tier), :func:`fold` of it (only
    on the general path), and whether it has a code fence (without one, nothing is inside
    code: what ``outside_code`` finds)."""

    __slots__ = ("_fenced", "_folded", "_projected", "_tails", "cuts", "seen", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.cuts: dict[str, int | None] = {}  # _cut, by the stops it cuts at
        self.seen: dict[str, int] = {}  # folded literal → where it first occurs, or -1
        self._folded: str | None = None
        self._projected: bytes | None = None
        self._tails: dict[int, str] = {}
        self._fenced: bool | None = None

    def whole(self) -> str:
        if self._folded is None:
            self._folded = fold(self.text)
        return self._folded

    def projected(self) -> bytes:
        """``project(text)``."""
        if self._projected is None:
            self._projected = project(self.text)
        return self._projected


    def live(self, tier: _Tier, end: int) -> list[_Plan]:
        """The tier's plans whose screen passes on ``text[:end]``: each literal is looked for
        once a text (its first place; it occurs in ``text[:end]`` when that place leaves room
        for it before ``end``), shared by every tier.  What ``marker_matches`` keeps of a tier."""
        seen = self.seen
        out = []
        for plan, screen in tier.screens:
            if screen is None:
                out.append(plan)
                continue
            for branch in screen:
                for literal, kind, probe, length in branch:
                    at = seen.get(literal)
                    if at is None:  # what _occurs looks for, with its first place
                        if kind == _IN_PROJECTED:
                            at = self.projected().find(probe)
                        elif kind == _IN_TEXT:
                            at = self.text.find(probe)
                        else:
                            found = probe.search(self.text)
                            at = -1 if found is None else found.start()
                        seen[literal] = at
                    if at < 0 or at + length > end:
                        break
                else:
                    out.append(plan)  # every literal of this alternative occurs: it may match
                    break
        return out

    def folded_tail(self, start: int) -> str:
        """``fold(text[start:])``, once for each place the tiers cut at."""
        folded = self._tails.get(start)
        if folded is None:
            folded = self._tails[start] = fold(self.text[start:])
        return folded

    def outside_code(self, matches: list[regex.Match[str]]) -> list[regex.Match[str]]:
        """``outside_code(text, matches)``; the fence check done once a text."""
        if not matches:
            return matches
        if self._fenced is None:
            self._fenced = _has_fence(self.text)
        return outside_code(self.text, matches) if self._fenced else matches


class _Tier(NamedTuple):
    """What :func:`_last_statement` needs of a tier, derived once."""

    plans: tuple[_Plan, ...]
    tangled: bool  # inline flags or group references: scanned as one alternation
    stops: _Stops | None
    keys: tuple[tuple[str, ...], ...]  # _key_branches
    # each plan beside its screen (None: none) as (literal, kind, probe, length) alternatives
    screens: tuple[tuple[_Plan, tuple[tuple[tuple[str, int, Any, int], ...], ...] | None], ...]


@lru_cache(maxsize=256)
def _tier(tier: tuple[str, ...]) -> _Tier:
    plans, tangled = _tier_plans(tier)
    screens = tuple(
        (plan, None if plan.text_screen is None else tuple(_lean(branch) for branch in plan.text_screen))
        for plan in plans
    )
    return _Tier(plans, tangled, _window_stops(tier), _key_branches(tier), screens)


def _lean(branch: tuple[tuple[str, int, Any], ...]) -> tuple[tuple[str, int, Any, int], ...]:
    """A screen alternative without the one-character pre-checks that cost more than the
    literal they come from (a CJK character whose low byte is an ASCII lower-case letter: the
    character scan of a 16-bit text stops at every such letter; ``正`` is U+6B63, ``c``).  A
    character of a literal of the alternative occurs wherever the literal does: the
    alternative holds exactly when it did."""
    kept = []
    for literal, kind, probe in branch:
        implied = len(literal) == 1 and any(len(other) > 1 and literal in other for other, _, _ in branch)
        if implied and ord(literal) > 0xFF and 0x61 <= ord(literal) & 0xFF <= 0x7A:
            continue
        kept.append((literal, kind, probe, len(literal)))
    return tuple(kept)


@lru_cache(maxsize=256)
def _key_branches(tier: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    r"""The screens' alternatives of all of ``tier``'s patterns, folded literals, without those
    that hold another one (where they hold, it does): some pattern of the tier may match in a
    text only if one of these holds there.  A pattern without a screen gives ``()``: always.

    >>> _key_branches((r"final\s+answer", r"\*\*\s*final\s+answer\s*\*\*", "最终答案"))
    (('final', 'answer'), ('最', '终', '最终答案'))
    """
    plans, _ = _tier_plans(tier)
    branches: list[tuple[str, ...]] = []
    for plan in plans:
        if plan.text_screen is None:
            return ((),)
        branches.extend(tuple(literal for literal, _, _ in branch) for branch in plan.text_screen)
    keys = list(dict.fromkeys(branches))
    return tuple(b for b in keys if not any(set(o) < set(b) for o in keys))


def _may_match_tail(keys: tuple[tuple[str, ...], ...], folded_tail: str) -> bool:
    """Whether some pattern of a tier (``keys``: its :func:`_key_branches`) may match in the
    folded ``folded_tail``."""
    for branch in keys:
        for literal in branch:
            if literal not in folded_tail:
                break
        else:
            return True
    return False


def _last_statement(
    scan: _Scan, tier: tuple[str, ...], separators: tuple[str, ...], *, final: bool, timeout: float
) -> _Statement | None:
    """The statement of the last match of ``tier`` (a ``marker_matches`` match outside code)
    that has something after it, or ``None``.

    Only the tier's patterns whose screen passes on the part scanned are looked for (a
    pattern that cannot match there changes nothing in the alternation; none: no match).
    The last lines are read first when that provably decides (see :func:`_window_stops`): the
    matches of the tier after ``text[i]``, a character no match can contain, are the matches
    of the whole text that start after it; when one of them states something, no earlier
    match counts.  Otherwise the rest, ``text[: i + 1]``, holds exactly the earlier matches.
    """
    text = scan.text
    info = _tier(tier)
    if info.tangled:  # patterns that reach each other: one alternation over the whole text
        everywhere = marker_matches(tier, text, scan.whole(), timeout=timeout)
        return _stated(scan, everywhere, separators, final=final, timeout=timeout)
    if info.stops is not None and len(text) > _WINDOW_MIN:
        at = _cut(scan, info.stops)
        if at is not None:
            tail: list[regex.Match[str]] | None = []
            if _may_match_tail(info.keys, scan.folded_tail(at)):  # a few short scans: mostly no marker there
                tail = list(_alternation(tier).finditer(text, at, timeout=timeout))
                if not all(m.end() > m.start() for m in tail):
                    tail = None
            if tail is not None:
                found = _stated(scan, tail, separators, final=final, timeout=timeout) if tail else None
                if found is not None:
                    return found
                decided, found = _stated_from_end(scan, info, at, separators, final=final, timeout=timeout)
                if decided:
                    return found
    live = scan.live(info, len(text))
    if not live:
        return None  # no pattern of the tier can match: marker_matches gives nothing
    matches = _plan_matches(scan, live, len(text), timeout)
    if matches is None:  # an empty match: finditer's own stepping
        return _stated(scan, marker_matches(tier, text, scan.whole(), timeout=timeout), separators, final=final, timeout=timeout)
    return _stated(scan, matches, separators, final=final, timeout=timeout)


def _stated_from_end(
    scan: _Scan, info: _Tier, at: int, separators: tuple[str, ...], *, final: bool, timeout: float
) -> tuple[bool, _Statement | None]:
    """What :func:`_stated` gives for the matches of the tier in ``text[: at + 1]`` (``at``:
    a stop of the tier), read in pieces from the end: ``(True, statement)``, or ``(False,
    None)`` when a piece holds an empty match (the caller's general path decides then).

    The weak tier's markers ("therefore", "hence", 因此) open many lines of a solution, and
    only the last one that states something counts: so the part before ``at`` is cut at stops
    too (the first one at least :data:`_CHUNK` characters back, then twice as far each time),
    and each piece is scanned only when every later piece stated nothing.  Exact by the cut
    argument of :func:`_window_stops`: no match contains a stop, so the matches of
    ``text[: hi + 1]`` that start after the stop at ``lo`` are those of a scan from ``lo`` with
    ``endpos`` ``hi + 1``, and a piece's matches are the whole part's matches that start in
    it; the last match with a statement lies in the last piece that has one.

    Only the patterns whose screen passes on that part are looked for (:meth:`_Scan.live`: none,
    no match); a weak tier's first piece is read with all of them instead, before the screens of
    the whole part are run (its markers are mostly there: a pattern that cannot match in the text
    finds nothing in the piece either, and a few short scans cost less than the screens)."""
    text = scan.text
    stops = info.stops
    if stops is None:  # (the caller cut at one)
        return False, None
    plans: list[_Plan] | None = None if final else list(info.plans)
    hi = at
    size = _CHUNK
    while True:
        if plans is None:
            plans = scan.live(info, at + 1)
            if not plans:
                return True, None  # no pattern of the tier can match there
        lo = 0
        if hi - size > 0:
            cut = stops.finder.search(text, hi - size, hi)
            lo = cut.start() if cut is not None else 0
        matches = _plan_matches(scan, plans, hi + 1, timeout, lo)
        if matches is None:
            return False, None
        if matches:
            found = _stated(scan, matches, separators, final=final, timeout=timeout)
            if found is not None:
                return True, found
        if lo == 0:
            return True, None
        if not final and hi == at:
            plans = None  # past the first piece: the screens decide which patterns are read
        hi = lo
        size *= 2


def _plan_matches(
    scan: _Scan, plans: list[_Plan], end: int, timeout: float, begin: int = 0
) -> list[regex.Match[str]] | None:
    """The matches of the guarded alternation of ``plans`` in ``text[:end]`` (read as if the
    text ended there: ``endpos``), as its ``finditer`` gives them from ``begin`` on; ``None``
    when one is empty.

    Each pattern is looked for on its own, only where its locator hits (over the projection,
    or over the text when it has no ASCII letter), from the first place of its leading literal
    on (a hit starts with it); the leftmost next match wins, on a tie the first pattern in
    order (what the alternation tries first): as ``marker_matches`` merges them.
    """
    text, projected, seen = scan.text, scan.projected(), scan.seen
    floors = _joint_floors(plans, projected, end, seen, begin) if len(plans) > 1 else {}
    finders: list[tuple[regex.Pattern[str], re.Pattern[Any] | None, tuple[bytes, ...] | None, Any, int, int]] = []
    for plan in plans:
        start = begin
        if plan.start_key is not None:
            start = floors.get(plan.pattern, seen.get(plan.start_key, 0))
            if start < 0:
                continue  # every locator hit starts with it: no hit
            start = max(start, begin)
        if plan.projected_locator is not None:
            finders.append((plan.compiled, plan.projected_locator, None, projected, start, plan.shift))
        elif plan.raw_locator is not None:
            finders.append((plan.compiled, plan.raw_locator, None, text, start, 0))
        else:
            finders.append((plan.compiled, None, plan.projected_anchors, projected, begin, 0))
    found: list[regex.Match[str]] = []
    if len(finders) == 1:
        compiled, locator, anchors, haystack, at, shift = finders[0]
        while True:
            match = _located(compiled, locator, anchors, text, haystack, at, timeout, shift, end)
            if match is None:
                return found
            at = match.end()
            if at == match.start():
                return None
            found.append(match)
    upcoming = [_located(c, loc, anc, text, hay, at, timeout, sh, end) for c, loc, anc, hay, at, sh in finders]
    pos = begin
    while True:
        best: regex.Match[str] | None = None
        for index, match in enumerate(upcoming):
            if match is not None and match.start() < pos:  # overtaken: search on from pos
                compiled, locator, anchors, haystack, at, shift = finders[index]
                match = _located(compiled, locator, anchors, text, haystack, max(pos, at), timeout, shift, end)
                upcoming[index] = match
            if match is not None and (best is None or match.start() < best.start()):
                best = match  # on a tie the earlier pattern, as the alternation tries it first
        if best is None:
            return found
        if best.end() == best.start():
            return None
        found.append(best)
        pos = best.end()


def _joint_floors(plans: list[_Plan], projected: bytes, end: int, seen: dict[str, int], begin: int = 0) -> dict[str, int]:
    """For patterns whose projected locators start with the same leading literal (``answer\\s+
    (?:is|…)`` and ``answer\\s*[:：]``), where the first hit of any of them from ``begin`` on
    is (``-1``: none), by pattern: one scan of their joint locator (the literal, then either
    rest) instead of one scan each, which a text without their markers needs whole."""
    floors: dict[str, int] = {}
    for key, joint, shift, members in _joint_groups(tuple([plan.pattern for plan in plans])):
        hit = joint.search(projected, max(0, seen.get(key, 0), begin) + shift, end)
        floor = -1 if hit is None else hit.start() - shift
        for pattern in members:
            floors[pattern] = floor
    return floors


@lru_cache(maxsize=256)
def _joint_groups(patterns: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[bytes], int, tuple[str, ...]], ...]:
    """The groups :func:`_joint_floors` scans jointly among the plans of ``patterns`` (a plan is
    its pattern's, :func:`_plan`: derived once for each set of live patterns): the shared
    literal, the joint locator, how many characters into the literal it hits (its anchored
    form, :func:`_anchored_joint`), the patterns of the group."""
    groups: dict[str, list[_Plan]] = {}
    for plan in map(_plan, patterns):
        if plan.projected_locator is not None and plan.start_key is not None:
            groups.setdefault(plan.start_key, []).append(plan)
    out: list[tuple[str, re.Pattern[bytes], int, tuple[str, ...]]] = []
    for key, group in groups.items():
        if len(group) < 2:
            continue
        # the plain locators (a plan's own may start from its literal's rarest letter, shifted)
        sources = [text_locator_source(plan.pattern) for plan in group]
        plain = tuple(source for source in sources if isinstance(source, bytes))
        if len(plain) < len(sources):
            continue
        joint = _joint_locator(key, plain)
        if joint is None:
            continue
        anchored = _anchored_joint(joint, [plan.pattern for plan in group])
        located, shift = anchored if anchored is not None else (joint, 0)
        out.append((key, located, shift, tuple(plan.pattern for plan in group)))
    return tuple(out)


def _anchored_joint(joint: re.Pattern[bytes], patterns: list[str]) -> tuple[re.Pattern[bytes], int] | None:
    r"""``joint`` searched from the rarest letter of its literal, as each pattern's own locator
    is (:func:`anchored_text_locator`): when every pattern's anchored locator is its plain one
    with the literal's first ``shift`` characters moved into one look-behind, the joint locator
    so changed, and ``shift``; it hits ``shift`` characters after ``joint`` does, at every hit
    (the look-behind may look before the search's start).  ``None`` otherwise.

    >>> j = _joint_locator("answer", (rb"answer\s", rb"answer\s*:"))
    >>> _anchored_joint(j, [r"answer\s+(?:is|be)", r"answer\s*[:：]"])[0].pattern[:14], _anchored_joint(j, [r"final\s+answer"])
    (b'wer(?<=answer)', None)
    """
    heads = set()
    shifts = set()
    for pattern in patterns:
        plain, anchored = text_locator_source(pattern), anchored_text_locator(pattern)
        if not isinstance(plain, bytes) or anchored is None or not isinstance(anchored[0], bytes) or anchored[1] <= 0:
            return None
        # the anchored locator is rare-part + look-behind + the plain one's rest
        shift = anchored[1]
        literal = plain[:_literal_bytes(plain)]
        if len(literal) <= shift or not anchored[0].endswith(plain[len(literal):]):
            return None
        head = anchored[0][: len(anchored[0]) - (len(plain) - len(literal))]
        if head != literal[shift:] + b"(?<=" + literal + b")":
            return None
        heads.add(head)
        shifts.add(shift)
    if len(heads) != 1 or len(shifts) != 1:
        return None
    head, shift = heads.pop(), shifts.pop()
    source = joint.pattern
    literal = head[head.index(b"(?<=") + 4 : -1]
    if not source.startswith(literal):
        return None
    return re.compile(head + source[len(literal):]), shift


def _literal_bytes(source: bytes) -> int:
    """How many leading bytes of a locator source are plain letters (its literal)."""
    n = 0
    while n < len(source) and source[n : n + 1].isalpha():
        n += 1
    return n


@lru_cache(maxsize=256)
def _joint_locator(key: str, sources: tuple[bytes, ...]) -> re.Pattern[bytes] | None:
    r"""One locator whose hits are the hits of all of ``sources`` (each starting with the
    literal ``key``, as rendered over the projection): ``key(?:rest|rest…)``; ``None`` when a
    source does not start so.  Linear as they are: at each hit of the literal, each rest in turn.

    >>> _joint_locator("answer", (rb"answer\s", rb"answer\s*:")).pattern
    b'answer(?:\\s|\\s*:)'
    """
    prefix = "".join(re.escape(c if c.isascii() else "?") for c in key).encode("ascii")
    if not all(source.startswith(prefix) for source in sources):
        return None
    return re.compile(prefix + b"(?:" + b"|".join(source[len(prefix) :] for source in sources) + b")")


def _cut(scan: _Scan, stops: _Stops) -> int | None:
    """Where the last lines are cut off: the last stop before the last line (looked for
    within :data:`_BACK` characters), else the first stop among the last :data:`_WINDOW`
    characters; ``None`` without one.  Found once a text for each set of stops."""
    known = scan.cuts.get(stops.chars, -2)
    if known != -2:
        return known
    text = scan.text
    window = max(0, len(text) - _WINDOW)
    line = text.rfind("\n", window)
    at: int | None = None
    for i in range(line - 1, max(window, line - _BACK) - 1, -1):
        if text[i] in stops.chars:
            at = i
            break
    if at is None:
        cut = stops.finder.search(text, window)
        at = cut.start() if cut is not None else None
    scan.cuts[stops.chars] = at
    return at


def _stated(
    scan: _Scan, matches: list[regex.Match[str]], separators: tuple[str, ...], *, final: bool, timeout: float
) -> _Statement | None:
    """The statement after the last of ``matches`` outside code that has something after it."""
    text = scan.text
    # the last match with something after it (a later marker inside an earlier statement is
    # the innermost one: "Final Answer: The final answer is 5" → "5"); linear, not per match
    for m in reversed(scan.outside_code(matches)):
        begin, end = _answer_span(text, m)
        if begin == end:
            continue
        if final:
            end = _cut_sentence(text, begin, end)
        value = text[begin:end].strip()
        for separator in separators:  # "the answer is #### 42": one statement, 42
            if separator in value:
                value = value.rsplit(separator, 1)[1].strip()
        if not value:
            continue
        return _Statement(m.start(), end, value, FOUND_BY_MARKER)
    return None


#: The last characters read first, and the shortest text for which that is tried.
_WINDOW: Final = 200
_WINDOW_MIN: Final = 400
#: How far before the last line its cut is looked for.
_BACK: Final = 32
#: The first piece read from the end before a tier's cut (:func:`_stated_from_end`).
_CHUNK: Final = 256
#: Characters that may cut a text: no letter, no space (a marker may hold either), none a
#: case-insensitive letter matches.
_STOP_CANDIDATES: Final = ".。!?！？$=;0123456789"


@dataclass(frozen=True)
class _Stops:
    chars: str  # the characters no match of the tier can contain
    finder: re.Pattern[str]  # one of them


@lru_cache(maxsize=256)
def _window_stops(tier: tuple[str, ...]) -> _Stops | None:
    r"""For a tier whose patterns :func:`_consumed_chars` understands (literals, escaped
    punctuation, ``\s \t \n \r``, plain classes without ranges or negation, groups
    ``(…)``/``(?:…)``, ``|``, ``^``, ``$``, counted and plain repeats; no look-around, no
    inline flags, no ``.``): the characters of :data:`_STOP_CANDIDATES` none of them can match.  ``None`` otherwise.

    Why a cut at such a character ``c`` is exact: no match contains ``c``, so none runs
    across it, and the scan of the text after it goes as the scan of the whole text does
    from there; a match starting after ``c`` sees at most one character back (the guard's
    look-behind, ``^``), which the part after the cut still holds when it starts at ``c``.
    The part up to ``c`` sees at most one character ahead of a match (the guard, ``$``):
    ``c`` itself.  An empty match (where no character is consumed) would break this: a scan
    that meets one falls back to the whole text.

    >>> _window_stops((r"final\s+answer\s*(?:is|[:：])",)) is not None
    True
    >>> _window_stops((r"answer.*",)) is None, _window_stops((r"(?<=x)answer",)) is None
    (True, True)
    """
    consumed: set[str] = set()
    for pattern in tier:
        chars = _consumed_chars(pattern)
        if chars is None or entangled(pattern):
            return None
        consumed |= chars
    stops = "".join(c for c in _STOP_CANDIDATES if c not in consumed and c.lower() not in consumed)
    if not stops:
        return None
    return _Stops(stops, char_finder(stops))


_REPEAT: Final = re.compile(r"\{(?:[0-9]+(?:,[0-9]*)?|,[0-9]+)\}")


def _consumed_chars(pattern: str) -> set[str] | None:
    """Every character a match of ``pattern`` may consume, folded (whitespace as ``" "``), or
    ``None`` when the pattern uses anything outside the plain subset of :func:`_window_stops`."""
    chars: set[str] = set()
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                return None
            nxt = pattern[i + 1]
            if nxt in "stnr":
                chars.add(" ")
            elif nxt.isalnum() or nxt == "_" or not nxt.isascii():
                return None  # \d, \w, \p{…}, \b, \A, \x41, \1 …: not understood
            else:
                chars.add(nxt)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            elif c in "[-^":
                return None  # nested sets, ranges, a negation not at the start
            else:
                chars.add(c)
            i += 1
            continue
        if c == "[":
            if pattern.startswith("[^", i) or pattern.startswith("[]", i):
                return None
            in_class = True
        elif c == "(":
            if pattern.startswith("(?", i) and not pattern.startswith("(?:", i):
                return None  # look-around, inline flags, named groups, conditionals, comments
            if pattern.startswith("(?:", i):
                i += 3
                continue
        elif c == "{":
            repeat = _REPEAT.match(pattern, i)
            if repeat is None:
                return None  # a literal brace or a fuzzy constraint: not understood
            i = repeat.end()
            continue
        elif c == ".":
            return None
        elif c not in ")|^$?*+":
            chars.add(c)
        i += 1
    if in_class:
        return None
    return chars | {ch.lower() for ch in chars} | {ch.upper() for ch in chars}


@lru_cache(maxsize=64)
def _separator_chars(separators: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each separator beside its distinct characters."""
    return tuple((sep, tuple(dict.fromkeys(sep))) for sep in separators)


def _last_separated(text: str, separators: tuple[str, ...], *, timeout: float) -> _Statement | None:
    """The statement after the last separator that has one (to the end of its line or the next
    separator), outside code fences."""
    # one-character scans rule most out (a separator occurs only where each of its characters
    # does; "最终输出" is mostly ruled out by its second character, past the common first one)
    present = []
    for sep, chars in _separator_chars(separators):
        for c in chars:
            if c not in text:
                break
        else:
            present.append(sep)
    limit = len(text)
    while True:
        # the last separator; at one place the longer one (what max over (place, length) picks)
        start, separator = -1, ""
        for sep in present:
            at = text.rfind(sep, 0, limit)
            if at > start or (at == start >= 0 and len(sep) > len(separator)):
                start, separator = at, sep
        if start < 0:
            return None
        begin = start + len(separator)
        line_end = text.find("\n", begin)
        stop = len(text) if line_end < 0 else line_end
        following = [p for p in (text.find(sep, begin, stop) for sep in separators) if p >= 0]
        stop = min([stop, *following])
        value = text[begin:stop].strip()
        if value and not _in_fence(text, start, timeout=timeout):
            return _Statement(start, stop, value, FOUND_BY_MARKER)
        limit = start


def _has_fence(text: str) -> bool:
    """Whether ``text`` holds a fence opener (one-character scans first: several times faster)."""
    return ("`" in text and "```" in text) or ("~" in text and "~~~" in text)


def _in_fence(text: str, pos: int, *, timeout: float) -> bool:
    if not _has_fence(text):
        return False
    from normalize.rules._fences import find_fences

    return any(f.start <= pos < f.end for f in find_fences(text, timeout=timeout))


def _box_matches(scan: _Scan) -> list[regex.Match[str]]:
    """Every ``\\boxed``/``\\fbox`` outside code (a built-in literal pattern: no timeout needed)."""
    text = scan.text
    if "\\" not in text:  # a one-character scan
        return []
    if "\\boxed" not in text and "\\fbox" not in text:
        return []  # every match starts with one: a solution's LaTeX without a box (~5x less than the scan)
    return scan.outside_code(list(compile_pattern(_BOX).finditer(text)))


def _boxes(scan: _Scan, *, timeout: float) -> list[_Statement]:
    text = scan.text
    found = _box_matches(scan)
    if not found:
        return []
    closer = _closer(text, len(found))
    out: list[_Statement] = []
    reach = -1
    for box in found:
        if box.start() < reach:
            continue  # inside an earlier box
        span = _box_span(text, box, closer)
        if span is None:
            continue
        content = text[span[0] : span[1]].strip()
        reach = span[1] + (1 if span[1] < len(text) and text[span[1]] == "}" else 0)
        if content:
            out.append(_Statement(box.start(), reach, content, FOUND_BY_BOXED))
    return out


def _unclosed_box(scan: _Scan, *, timeout: float) -> bool:
    text = scan.text
    found = _box_matches(scan)
    return bool(found) and _box_span(text, found[-1], _closer(text, 1)) is None


#: Up to this many boxes, each box's brace is matched from the box on; past it, all braces at once.
_FEW_BOXES: Final = 4


def _closer(text: str, boxes: int) -> Callable[[int], int | None]:
    """Where the ``}`` closing the box brace at a given place is: :func:`_closing_brace` reads
    from that brace to its closer, the same pair :func:`_brace_pairs` gives (the brace follows
    a box name or a space, never a backslash, so it is never escaped); for many boxes (some
    may be unclosed, each read to the end) one pass over all braces."""
    if boxes <= _FEW_BOXES:
        return lambda at: _closed_group_end(text, at)
    return _brace_pairs(text).get


#: A brace group nested at most three deep, a backslash escaping the character after it (as
#: :func:`_closing_brace` reads it); possessive: each character is read once, never again.
_BRACE_GROUP: Final = re.compile(
    r"\{(?:[^{}\\]++|\\.|\{(?:[^{}\\]++|\\.|\{(?:[^{}\\]++|\\.)*+\})*+\})*+\}", re.DOTALL
)


def _closed_group_end(text: str, at: int) -> int | None:
    """:func:`_closing_brace`: one stdlib match for a group nested at most three deep (its
    characters split into runs, escapes and groups one way only, so the first ``}`` at depth 0
    ends both), else the brace walk."""
    group = _BRACE_GROUP.match(text, at)
    return group.end() - 1 if group is not None else _closing_brace(text, at)


def _box_groups(text: str, boxes: list[_Statement], *, timeout: float) -> list[list[_Statement]]:
    """Boxes joined only by list punctuation form one statement listing several values."""
    groups: list[list[_Statement]] = [[boxes[0]]]
    join = compile_pattern(_LIST_JOIN)
    for box in boxes[1:]:
        previous = groups[-1][-1]
        if join.match(text[previous.end : box.start], timeout=timeout):
            groups[-1].append(box)
        else:
            groups.append([box])
    return groups


_HEDGE_WORDS: Final = r"(?i)(?<![A-Za-z])(?:either|possibly|maybe|perhaps|might|could\s+(?:also\s+)?be|not\s+sure)(?![A-Za-z])"


def _listed(text: str, group: list[_Statement], *, timeout: float) -> str:
    """The values of a box group; several boxes in a hedging sentence ("either … or …") are
    not a list of solutions but two candidate answers."""
    if len(group) > 1:
        start = max(text.rfind("\n", 0, group[0].start), text.rfind(". ", 0, group[0].start)) + 1
        ends = [p for p in (text.find("\n", group[-1].end), text.find(". ", group[-1].end)) if p >= 0]
        sentence = text[start : min(ends) if ends else len(text)]
        if compile_pattern(_HEDGE_WORDS).search(sentence, timeout=timeout):
            raise RejectText(st.CONTRADICTORY, f"the answer hedges between {group[0].value[:40]!r} and {group[-1].value[:40]!r}")
    return _join(group)


def _join(boxes: list[_Statement]) -> str:
    return ", ".join(b.value for b in boxes)


def _final_values(finals: list[_Statement], boxes: list[_Statement]) -> list[str]:
    values = []
    for f in finals:
        inside = [b for b in boxes if f.start <= b.start < f.end]
        values.append(_join(inside) if inside else f.value)
    return values


def _check_agree(values: list[str], *, timeout: float) -> None:
    if len(values) < 2 or len(set(values)) < 2:
        return
    keys: dict[Any, str] = {}
    for value in values:
        key = _value_key(value, timeout=timeout)
        if key not in keys:
            keys[key] = value
    if len(keys) > 1:
        first, *rest = keys.values()
        raise RejectText(st.CONTRADICTORY, f"two final answers disagree: {first[:60]!r} and {rest[-1][:60]!r}")


#: A retraction right after a final statement or box: "The answer is 5. Wait, no: 6.", "… Actually,
#: 6.", "\\boxed{5}. But wait, it is 6."
_TAKEN_BACK: Final = (
    rf"[\s.,;:!?。，；：！？…*)\]]*(?:(?i:\b(?:but|hmm+|oh|ah|well|so)\b)[\s,.!…]*)?"  # "But wait, …", "Hmm, actually …"
    rf"(?:{RETRACTION}|(?i:\b(?:actually|sorry)\b)|不[,，])"
)


def _check_not_taken_back(text: str, end: int, value: str, *, timeout: float) -> None:
    """Reject a final statement that a retraction right after it takes back for another number
    ("The answer is 5. Wait, no: 6."): the last number after the retraction differs from it.
    A check that ends on the same number ("Wait, let me verify: 2*3 = 6.") keeps it."""
    retraction = compile_pattern(_TAKEN_BACK).match(text, end, timeout=timeout)
    if retraction is None:
        _check_not_concluded_otherwise(text, end, value, timeout=timeout)
        return
    numbers = compile_pattern(r"(?<![0-9.,])-?[0-9]+(?:[.,][0-9]+)*").findall(text, retraction.end(), timeout=timeout)
    if numbers and _value_key(numbers[-1], timeout=timeout) != _value_key(value, timeout=timeout):
        raise RejectText(
            st.CONTRADICTORY, f"the final answer {value[:60]!r} is taken back for {numbers[-1][:60]!r}"
        )


#: A check that opens right after a final statement or box: "Let me verify: …", "Check: …", "验证：…".
_CHECK_OPENS: Final = (
    r"[\s.,;:!?。，；：！？…*)\]$]*(?:(?i:let\s+me\s+(?:verify|check|double[- ]?check|confirm)|let'?s\s+(?:verify|check)"
    r"|to\s+(?:verify|check|confirm)|verif(?:y|ying|ication)|check(?:ing)?(?=\s*:)|double[- ]?check(?:ing)?"
    r"|прове(?:рка|рим|рю)|prüfung|probe|vérification|vérifions|verificación|comprobación|comprobamos)|验证|检验|检查)"
)
#: A check's last sentence that concludes a value: "So she makes 20." (no "=": "So 13 = 13" checks an equation).
_CHECK_CONCLUDES: Final = (
    r"^\s*(?:(?i:so|thus|therefore|hence|which\s+means|that\s+means|итак|значит|also|donc|entonces|por\s+lo\s+tanto)"
    r"(?![\p{L}])|所以|因此)[^=\n]*$"
)


def _check_not_concluded_otherwise(text: str, end: int, value: str, *, timeout: float) -> None:
    """Reject a final statement whose check, right after it, concludes another number ("The
    answer is 18. Let me verify: … So she makes 20."): the output ends on a value that is not
    its stated answer.  A check that ends on the answer, on an equation that holds or on no
    conclusion ("Проверка: 24 в мае.") keeps it."""
    if compile_pattern(_CHECK_OPENS).match(text, end, timeout=timeout) is None:
        return
    last = _last_sentence(text[end:])
    if compile_pattern(_CHECK_CONCLUDES).match(last, timeout=timeout) is None:
        return
    numbers = compile_pattern(r"(?<![0-9.,])-?[0-9]+(?:[.,][0-9]+)*").findall(last, timeout=timeout)
    if len(numbers) == 1 and _value_key(numbers[0], timeout=timeout) != _value_key(value, timeout=timeout):
        raise RejectText(
            st.CONTRADICTORY, f"the check after the final answer {value[:60]!r} concludes {numbers[0][:60]!r}"
        )


def _last_sentence(text: str) -> str:
    stripped = text.rstrip()
    cut = max(stripped.rfind(". "), stripped.rfind(".\n"), stripped.rfind("\n"), stripped.rfind("。"))
    return stripped[cut + 1 :] if cut >= 0 else stripped


def _has_number(text: str) -> bool:
    """Digits or number words (``eleven``, ``two hundred and six``): a sentence that ends in a
    number written in words is finished."""
    return any(c.isdigit() for c in text) or NUMBER_WORD.search(text) is not None


__all__ = [
    "FOUND_BY_BOXED",
    "FOUND_BY_LAST_NUMBER",
    "FOUND_BY_MARKER",
    "STRICT_METHODS",
    "MathAnswerParams",
    "extract_math_answer",
]
