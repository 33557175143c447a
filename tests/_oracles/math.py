r"""ORACLE (test-only): ``extract_math_answer`` as it was before the speed-up of the math chain
(branch math13), kept as a differential-testing reference.  Not imported by the package.

It scans every marker tier over the whole text with one guarded alternation (what
``marker_matches`` is specified to return), finds boxes with ``_brace_pairs`` over the whole
text, and computes the weak tier whenever no final-tier marker is found.  The package's
:func:`normalize.rules.extract_math.extract_math_answer` must give the same output, the same
``found_by``/``statement`` annotations and the same rejections on every text.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

import regex

from normalize import status as st
from normalize.core.registry import DEFAULT_TIMEOUT, AnnotatedText
from normalize.errors import RejectText
from normalize.limits._regex import compile_pattern
from normalize.rules._speed import outside_code
from normalize.rules.extract import _BOX, _box_span, _brace_pairs
from normalize.rules.extract_markers import _answer_span
from normalize.rules.extract_math import MathAnswerParams, _check_not_taken_back
from normalize.values._numbers import to_fraction
from normalize.values._quantity import NUMBER_WORD

FOUND_BY_MARKER: Final = "marker"
FOUND_BY_BOXED: Final = "boxed"
FOUND_BY_LAST_NUMBER: Final = "last_number"


def _alternation(patterns: tuple[str, ...]) -> regex.Pattern[str]:
    """The guarded alternation of a tier's patterns (a Latin letter may neither precede nor follow)."""
    body = "|".join(f"(?:{p})" for p in patterns)
    guarded = rf"(?<!\p{{Latin}})(?:{body})(?:(?<=\p{{Latin}})(?!\p{{Latin}})|(?<!\p{{Latin}}))"
    return compile_pattern(guarded, regex.IGNORECASE | regex.MULTILINE)


@dataclass(frozen=True)
class _Statement:
    start: int
    end: int
    value: str
    kind: str


# a sentence ends at . ! ? 。 followed by a space and a capital, a line break or the end; a
# decimal point (3.5) or a dot inside $…$ does not end it
# extract_math_answer v4: a full-width stop ends a sentence wherever it stands; a point after a
# digit before a capital or a letter of an uncased script
_SENTENCE_END: Final = r"(?:(?<![0-9])\.|(?<=[0-9])\.(?=\s*$|\s+[\p{Lu}\p{Lo}]))(?=\s|$)|\?(?=\s|$)|!(?=\s|$)(?<![0-9)}]!(?=\s*[=<>≤≥]))|[。！？]|\n"
_LIST_JOIN: Final = (
    r"^(?:\s|\$|,|;|&|\\\\|\\quad|\\qquad|\\,|\\;|\\text\s*\{\s*(?:and|or|,)?\s*\}"
    # a short typeset connective that ends in "and" names the next part: \text{ for part (a) and }
    r"|\\text\s*\{[^{}\n]{0,40}(?<![A-Za-z])and\s*\}"
    r"|(?<![A-Za-z])(?:and|or)(?![A-Za-z])|\\\]|\\\[|\\\(|\\\))*$"
)
#: Chat-template tokens (``<|im_start|>``, ``<|eot_id|>``): what follows is not this answer.
_SPECIAL_TOKEN: Final = r"<\|[A-Za-z_]{2,30}\|>"
_TRUNCATED_TAIL: Final = r"[A-Za-z\p{Han},;:(\[{=+\-*/^_\\]\s*$"


def _cut_sentence(text: str, begin: int, end: int, *, timeout: float) -> int:
    """Where the sentence starting at ``begin`` ends (math inside ``$…$`` never ends it)."""
    pos = begin
    in_math = False
    pattern = compile_pattern(r"\$|\\\(|\\\)|\\\[|\\\]|" + _SENTENCE_END)
    seen_content = False
    for m in pattern.finditer(text, begin, end, timeout=timeout):
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
        if token == "." and regex.search(r"(?<![A-Za-z])(?:ft|in|yd|oz|lbs?|hrs?|mins?|secs?)\.\s+[0-9]", text[max(begin, m.start() - 6) : m.end() + 3]):
            continue  # "3 ft. 4 in."
        if token == "." and regex.search(r"(?i)(?<![A-Za-z])(?:approx|appr|ca|Rs|Rp|aprox|env|прибл|ок)\.\s*[-$€£¥₹0-9]",
                                         text[max(begin, m.start() - 6) : m.end() + 3]):
            continue  # "approx. 18", "Rs. 12"
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


def extract_math_answer(text: str, params: MathAnswerParams, *, timeout: float = DEFAULT_TIMEOUT) -> str:
    """Today's (pre-speed-up) extract_math_answer, for differential tests."""
    if not params.tiers:
        raise ValueError("extract_math_answer has no marker tiers: load it from a pack or pass tiers")
    special = compile_pattern(_SPECIAL_TOKEN).search(text) if "<|" in text else None  # built in, linear
    if special is not None and text[: special.start()].strip():
        text = text[: special.start()]  # the model ran on into a new chat turn
    # the last statement of each kind counts: the last ####, the last marker of the best tier
    finals: list[_Statement] = []
    last_separator = _last_separated(text, params.separators, timeout=timeout)
    if last_separator is not None:
        finals.append(last_separator)
    weak: _Statement | None = None
    marked = False
    for index, tier in enumerate(params.tiers):
        if marked or (index >= params.final_tiers and weak is not None):
            break
        matches = list(_alternation(tier).finditer(text, timeout=timeout))  # what marker_matches gives
        matches = outside_code(text, matches)
        # the last match with something after it (a later marker inside an earlier statement is
        # the innermost one: "Final Answer: The final answer is 5" → "5"); linear, not per match
        for m in reversed(matches):
            begin, end = _answer_span(text, m)
            if begin == end:
                continue
            if index < params.final_tiers:
                end = _cut_sentence(text, begin, end, timeout=timeout)
            value = text[begin:end].strip()
            for separator in params.separators:  # "the answer is #### 42": one statement, 42
                if separator in value:
                    value = value.rsplit(separator, 1)[1].strip()
            if not value:
                continue
            statement = _Statement(m.start(), end, value, FOUND_BY_MARKER)
            if index < params.final_tiers:
                finals.append(statement)
                marked = True
            elif weak is None:
                weak = statement
            break
    boxes = _boxes(text, timeout=timeout)
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
        if inside:
            return AnnotatedText(chosen.value, found_by=chosen.kind, from_box=True)
        return AnnotatedText(chosen.value, found_by=chosen.kind)
    if boxes:
        groups = _box_groups(text, boxes, timeout=timeout)
        _check_agree([_join(g) for g in groups], timeout=timeout)
        _check_not_taken_back(text, groups[-1][-1].end, _join(groups[-1]), timeout=timeout)
        return AnnotatedText(_listed(text, groups[-1], timeout=timeout), found_by=FOUND_BY_BOXED)
    if _unclosed_box(text, timeout=timeout):
        raise RejectText(st.NO_ANSWER, "the last \\boxed{} is never closed: the output was cut off")
    if weak is not None:  # a hint ("Therefore, …"): the rest of its paragraph, read for its last item
        return AnnotatedText(weak.value, found_by=FOUND_BY_MARKER, statement="paragraph")
    if compile_pattern(_TRUNCATED_TAIL).search(_last_sentence(text), timeout=timeout) and not _has_number(
        _last_sentence(text)
    ):
        raise RejectText(st.NO_ANSWER, "the solution stops mid-sentence with no answer stated (cut off)")
    return AnnotatedText(text, found_by=FOUND_BY_LAST_NUMBER)


def _last_separated(text: str, separators: tuple[str, ...], *, timeout: float) -> _Statement | None:
    """The statement after the last separator that has one (to the end of its line or the next
    separator), outside code fences."""
    limit = len(text)
    while True:
        best = max(((text.rfind(sep, 0, limit), sep) for sep in separators), key=lambda p: (p[0], len(p[1])))
        start, separator = best
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


def _in_fence(text: str, pos: int, *, timeout: float) -> bool:
    if "```" not in text and "~~~" not in text:
        return False
    from normalize.rules._fences import find_fences

    return any(f.start <= pos < f.end for f in find_fences(text, timeout=timeout))


def _box_matches(text: str) -> list[regex.Match[str]]:
    """Every ``\\boxed``/``\\fbox`` outside code (a built-in literal pattern: no timeout needed)."""
    if "\\boxed" not in text and "\\fbox" not in text:
        return []
    return outside_code(text, list(compile_pattern(_BOX).finditer(text)))


def _boxes(text: str, *, timeout: float) -> list[_Statement]:
    found = _box_matches(text)
    if not found:
        return []
    pairs = _brace_pairs(text)
    out: list[_Statement] = []
    reach = -1
    for box in found:
        if box.start() < reach:
            continue  # inside an earlier box
        span = _box_span(text, box, pairs.get)
        if span is None:
            continue
        content = text[span[0] : span[1]].strip()
        reach = span[1] + (1 if span[1] < len(text) and text[span[1]] == "}" else 0)
        if content:
            out.append(_Statement(box.start(), reach, content, FOUND_BY_BOXED))
    return out


def _unclosed_box(text: str, *, timeout: float) -> bool:
    found = _box_matches(text)
    return bool(found) and _box_span(text, found[-1], _brace_pairs(text).get) is None


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


def _last_sentence(text: str) -> str:
    stripped = text.rstrip()
    cut = max(stripped.rfind(". "), stripped.rfind(".\n"), stripped.rfind("\n"), stripped.rfind("。"))
    return stripped[cut + 1 :] if cut >= 0 else stripped


def _has_number(text: str) -> bool:
    return any(c.isdigit() for c in text) or NUMBER_WORD.search(text) is not None


