"""TEST ORACLE — not part of the package, never imported by it.

A compact copy of the format rules, of ``remove_think_blocks`` / ``extract_boxed`` /
``split_on_separator`` and of the engine's row loop as they were at 1c117cc (before the
per-row speed work of issue 13), kept as a differential-testing reference:
tests/test_fast_paths_format.py compares the shipped rules and ``Pack.run`` with these on
generated adversarial texts.  Character tables apply ``str.translate`` itself, and every prose
rule settles through ``outside_fences`` on every round (no fence screen, no skipped round).
Do not "fix" it to follow the package.
"""

from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import regex

from normalize import status as st
from normalize.core.engine import ChainOutcome, Result, RuleFailure, TraceStep
from normalize.core.registry import REGISTRY, AnnotatedText, ParseContext
from normalize.errors import RejectText
from normalize.io.row import read_options_value
from normalize.limits._budget import MAX_ROUNDS, BudgetExceeded, check_budget, row_budget
from normalize.limits._regex import compile_pattern
from normalize.rules import format as shipped
from normalize.rules._fences import Fence, find_fences, outside_fences

# ---------------------------------------------------------------------------------- helpers


def settle(text: str, step: Callable[[str], str]) -> str:
    for _ in range(MAX_ROUNDS):
        changed = step(text)
        if changed == text:
            return changed
        text = changed
        check_budget()
    raise RejectText(st.ERROR, f"did not settle in {MAX_ROUNDS} rounds (emphasis or fences nested deeper than that)")


def on_prose(text: str, fn: Callable[[str], str]) -> str:
    return settle(text, lambda t: outside_fences(t, fn))


def on_prose_segments(text: str, fn: Callable[[str, bool, bool], str]) -> str:
    def once(current: str) -> str:
        fences = find_fences(current)
        if not fences:
            return fn(current, True, True)
        parts: list[str] = []
        pos = 0
        for fence in fences:
            if fence.start > pos or pos == 0:
                parts.append(fn(current[pos : fence.start], pos == 0, False))
            parts.append(current[fence.start : fence.end])
            pos = fence.end
        if pos < len(current):
            parts.append(fn(current[pos:], False, True))
        return "".join(parts)

    return settle(text, once)


# ------------------------------------------------------------------------- format rules


def _unescape_match(match: regex.Match[str]) -> str:
    esc, rest = match["esc"], match["rest"]
    word = ("n" if esc == "r\\n" else esc) + rest
    if word in shipped.LATEX_N_T_COMMANDS:
        return match[0]
    return match["pairs"] + ("\t" if esc == "t" else "\n") + rest


_ESCAPE = r"(?<!\\)(?P<pairs>(?:\\\\)*)\\(?P<esc>r\\n|n|t)(?P<rest>[A-Za-z]*)"


def unescape_newlines(text: str) -> str:
    pattern = compile_pattern(_ESCAPE)
    return on_prose(text, lambda s: pattern.sub(_unescape_match, s))


_CJK = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Bopomofo}"


def _emphasis(marker: str) -> str:
    char = regex.escape(marker[0])
    delim = regex.escape(marker)
    return (
        rf"(?:(?<![\p{{L}}\p{{N}}\\])|(?<=[{_CJK}]))(?<!{char}){delim}(?![\s{char}])"
        rf"(?P<body>[^\n{char}]*?[^\s\\{char}])"
        rf"(?<!{char}){delim}(?!{char})(?:(?![\p{{L}}\p{{N}}])|(?=[{_CJK}]))"
    )


_EMPHASIS = tuple(_emphasis(m) for m in ("***", "___", "**", "__", "*", "_"))
_ATX_HEADER = r"(?m)^[ ]{0,3}#{1,6}(?:[ \t]+(?P<title>[^\n]*?))??(?:[ \t]+#+)?[ \t]*$"
_INLINE_CODE = r"(?<!`)(?P<ticks>`+)(?!`)(?P<code>[^\n]*?[^`\n])(?P=ticks)(?!`)"
_BLOCKQUOTE = r"(?m)^(?:[ ]{0,3}>[ ]?)+"


def _unwrap_code(match: regex.Match[str]) -> str:
    code = match["code"]
    if len(code) >= 2 and code[0] == " " and code[-1] == " " and code.strip(" "):
        return code[1:-1]
    return code


def _strip_markdown_once(text: str, blockquotes: bool) -> str:
    if blockquotes:
        text = compile_pattern(_BLOCKQUOTE).sub("", text)
    text = compile_pattern(_ATX_HEADER).sub(lambda m: m["title"] or "", text)
    text = compile_pattern(_INLINE_CODE).sub(_unwrap_code, text)
    for pattern in _EMPHASIS:
        text = compile_pattern(pattern).sub(r"\g<body>", text)
    return text


def strip_markdown(text: str, blockquotes: bool = False) -> str:
    return on_prose(text, lambda s: _strip_markdown_once(s, blockquotes))


QUOTES = {
    "“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"',
    "「": '"', "」": '"', "『": '"', "』": '"', "〝": '"', "〞": '"',
    "‘": "'", "’": "'", "‚": "'", "‛": "'",
}  # fmt: skip
HALFWIDTH = {0xFF01 + i: 0x21 + i for i in range(0x5E)} | {0x3000: 0x20}


def unify_quotes(text: str) -> str:
    table = str.maketrans(QUOTES)
    return on_prose(text, lambda s: s.translate(table))


def to_halfwidth(text: str) -> str:
    return on_prose(text, lambda s: s.translate(HALFWIDTH))


INVISIBLE = (
    r"[\u00ad\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
    r"|[\u200c\u200d](?!(?<=[^\x00-\x7f][\u200c\u200d])[^\x00-\x7f])"
)


def remove_invisible_chars(text: str) -> str:
    pattern = regex.compile(INVISIBLE)
    return on_prose(text, lambda s: pattern.sub("", s))


def normalize_nfkc(text: str) -> str:
    return on_prose(text, lambda s: unicodedata.normalize("NFKC", s))


def _whitespace_segment(segment: str, at_start: bool, at_end: bool, mode: str) -> str:
    text = regex.sub(r"\r\n|[\r\x0b\x0c\x85\u2028\u2029]", "\n", segment)
    text = regex.sub(r"(?! )[\t\p{Zs}]", " ", text)
    if mode == "collapse":
        body = regex.sub(r"[ \n]+", " ", text).strip(" ")
        lead = "" if at_start else "\n"
        tail = "" if at_end else "\n"
        if not body:
            return "" if at_start or at_end else "\n"
        return lead + body + tail
    text = regex.sub(r" {2,}", " ", text)
    text = regex.sub(r" +(?=\n)| +\Z", "", text)
    text = regex.sub(r"\n{3,}", "\n\n", text)
    if at_start:
        text = text.lstrip(" \n")
    if at_end:
        text = text.rstrip(" \n")
    return text


def normalize_whitespace(text: str, mode: str = "keep") -> str:
    return on_prose_segments(text, lambda seg, start, end: _whitespace_segment(seg, start, end, mode))


_SPACE_SEPARATORS = "".join(c for c in map(chr, range(0x110000)) if unicodedata.category(c) == "Zs")
_LINE_TRAILING = "\t" + _SPACE_SEPARATORS
_TEXT_TRAILING = "\t\n\r\x0b\x0c\x85\u2028\u2029" + _SPACE_SEPARATORS


def strip_trailing_whitespace(text: str, per_line: bool = True) -> str:
    if per_line:
        pieces = regex.split(r"(\r\n|\r|\n)", text)
        text = "".join(p if i % 2 else p.rstrip(_LINE_TRAILING) for i, p in enumerate(pieces))
    return text.rstrip(_TEXT_TRAILING)


# ------------------------------------------------------------------------ extract rules

THINK_TAG = r"<\s*(?P<close>/?)\s*think(?:ing)?\s*>"


def remove_think_blocks(text: str) -> str:
    tags = list(regex.compile(THINK_TAG, regex.IGNORECASE).finditer(text))
    if not tags:
        return text
    fences = [fence for fence in find_fences(text) if fence.closed]
    starts = [fence.start for fence in fences]
    kept: list[tuple[int, int]] = []
    pos = 0
    inside = False
    found = False
    for match in tags:
        if not inside and _in_code(match.start(), pos, fences, starts):
            continue
        found = True
        if match["close"]:
            if not inside:
                kept = []
            inside = False
            pos = match.end()
        elif not inside:
            kept.append((pos, match.start()))
            inside = True
    if not found:
        return text
    if not inside:
        kept.append((pos, len(text)))
    elif not any(text[start:end].strip() for start, end in kept):  # v2: all unfinished reasoning
        raise RejectText(
            "no_answer",
            "truncated_reasoning: the output ends inside an unclosed <think> block and states nothing "
            "outside it (the token budget ran out while reasoning)",
        )
    return _join_stripped(text, kept)


def _in_code(position: int, floor: int, fences: Sequence[Fence], starts: Sequence[int]) -> bool:
    index = bisect.bisect_right(starts, position) - 1
    return index >= 0 and fences[index].start >= floor and position < fences[index].end


def _join_stripped(text: str, spans: Sequence[tuple[int, int]]) -> str:
    out: list[str] = []
    pending = ""
    for start, end in spans:
        piece = text[start:end]
        core = piece.lstrip() if start > 0 else piece
        pending += piece[: len(piece) - len(core)]
        tail = ""
        if end < len(text):
            stripped = core.rstrip()
            tail = core[len(stripped) :]
            core = stripped
        if core:
            if out:
                newlines = pending.count("\n")
                out.append("\n\n" if newlines >= 2 else "\n" if newlines == 1 else " " if pending else "")
            out.append(core)
            pending = ""
        pending += tail
    return "".join(out)


def extract_boxed(text: str, conflict: str = "last") -> str:
    from normalize.rules import _speed, extract

    boxes = _speed.outside_code(text, list(regex.compile(r"\\(?:boxed|fbox)(?![A-Za-z])").finditer(text)))
    if not boxes:
        return text
    if conflict == "keep":
        pairs = extract._brace_pairs(text)
        contents: set[str] = set()
        reach = -1
        for box in boxes:
            if box.start() < reach:
                continue
            span = extract._box_span(text, box, pairs.get)
            if span is not None:
                contents.add(text[span[0] : span[1]].strip())
                reach = span[1]
        if len(contents) > 1:
            return text
    span = extract._box_span(text, boxes[-1], lambda at: extract._closing_brace(text, at))
    if span is None:
        return text
    from normalize.values._phrases import RETRACTION

    if regex.search(RETRACTION, text[span[1] :]) is not None:  # the box taken back: no screen here
        return text
    return text[span[0] : span[1]].strip()


def split_on_separator(text: str, separators: Sequence[str] = ("####", "最终输出:", "最终输出：")) -> str:
    limit = len(text)
    while True:
        best_start, best_end = -1, -1
        for separator in separators:
            start = text.rfind(separator, 0, limit)
            if start > best_start or (start == best_start and start + len(separator) > best_end):
                best_start, best_end = start, start + len(separator)
        if best_start < 0:
            return text
        answer = text[best_end:].strip()
        if answer:
            return answer
        limit = best_end - 1


# ------------------------------------------------------------------------------ engine


def apply_rule(spec: Any, text: str, timeout: float) -> str | RuleFailure:
    try:
        after = REGISTRY.rules[spec.name].fn(text, spec.params, timeout=timeout)
        check_budget()
    except BudgetExceeded as exceeded:
        return RuleFailure(spec.name, "budget", st.ERROR, str(exceeded))
    except RejectText as rejected:
        return RuleFailure(spec.name, "rejected", rejected.status, rejected.reason)
    except TimeoutError:
        return RuleFailure(spec.name, "timeout", st.ERROR, f"regular expression timed out after {timeout}s")
    except Exception as exc:  # the engine's recorded crash, as it was
        return RuleFailure(spec.name, "crash", st.ERROR, f"{type(exc).__name__}: {exc}", type(exc).__name__)
    if not isinstance(after, str):
        return RuleFailure(spec.name, "returned", st.ERROR, f"returned {type(after).__name__}, not str")
    return after


def run_chain(specs: Sequence[Any], raw: str | None, timeout: float, max_input_bytes: int, budget: float | None) -> ChainOutcome:
    if raw is None:
        return ChainOutcome(None, None, st.NO_OUTPUT, "the model produced no output", ())
    if not isinstance(raw, str):
        return ChainOutcome(None, None, st.INVALID, f"output must be a string or null, got {type(raw).__name__}", ())
    size = len(raw.encode("utf-8", "surrogatepass"))
    if size > max_input_bytes:
        reason = f"input is {size} bytes, over the limit of {max_input_bytes} bytes (max_input_bytes)"
        return ChainOutcome(raw, None, st.ERROR, reason, ())
    with row_budget(budget):
        text = raw
        trace: list[TraceStep] = []
        notes: dict[str, Any] = {}
        for index, spec in enumerate(specs):
            after = apply_rule(spec, text, timeout)
            if isinstance(after, RuleFailure):
                return ChainOutcome(raw, text, after.status, after.reason, tuple(trace), notes)
            if isinstance(after, AnnotatedText):
                notes.update(after.notes)
                after = str(after)
            if after != text:
                trace.append(TraceStep(index, spec.name, spec.version, text, after))
                text = after
        return ChainOutcome(raw, text, st.OK, None, tuple(trace), notes)


def parse(pack: Any, spec: Any, text: str, options: Any, notes: Mapping[str, Any]) -> tuple[Any, ...]:
    try:
        domain = read_options_value(options)
    except ValueError as exc:
        return st.INVALID, f"parser {spec.name}: {exc}", None, {}
    ctx = ParseContext(options=domain, timeout=pack.settings.regex_timeout, notes=dict(notes or {}))
    try:
        with row_budget(pack.settings.row_budget):
            parsed = REGISTRY.parser(spec.name).fn(text, spec.params, ctx)
    except BudgetExceeded as exceeded:
        return st.ERROR, f"parser {spec.name}: {exceeded}", None, {}
    except RejectText as rejected:
        return rejected.status, f"parser {spec.name}: {rejected.reason}", None, {}
    except TimeoutError:
        return st.ERROR, f"parser {spec.name}: regular expression timed out", None, {}
    except ValueError as exc:
        return st.INVALID, f"parser {spec.name}: {exc}", None, {}
    if parsed.status != st.OK:
        return parsed.status, parsed.reason, None, parsed.extra
    return st.OK, None, parsed.answer, parsed.extra


def pack_run(pack: Any, text: Any, task: str, options: Any = None) -> Result:
    """``Pack.run`` without a row schema, as it was."""
    task_type = pack.task_type_of(task)
    t = pack.task_types[task_type]
    s = pack.settings
    outcome = run_chain(t.chain.specs, text, s.regex_timeout, s.max_input_bytes, s.row_budget)
    answer: Any = None
    status, reason = outcome.status, outcome.reason
    extra: dict[str, Any] = dict(outcome.notes)
    if status == st.OK and outcome.text is not None:
        status, reason, answer, parsed_extra = parse(pack, t.parser, outcome.text, options, outcome.notes)
        extra.update(parsed_extra)
    return Result(
        raw=outcome.raw, text=outcome.text, status=status, reason=reason, trace=outcome.trace,
        task=task, task_type=task_type, answer=answer, rules_hash=pack.hash, extra=extra,
    )  # fmt: skip
