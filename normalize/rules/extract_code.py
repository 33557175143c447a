r"""Stage 1, extract: :func:`extract_code_block` keeps one fenced code block, byte for byte.

The fence after a final marker ("Final answer:", "最终代码") wins over earlier drafts; otherwise the
``first`` or ``last`` fence, preferring the listed info-string languages.  No fence → the text
unchanged.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache
from typing import Final

import regex

from normalize import status as st
from normalize.core.registry import DEFAULT_TIMEOUT, rule
from normalize.errors import RejectText
from normalize.limits._literals import (
    entangled,
    fold,
    leading_literals,
    may_match,
    required_literals,
)
from normalize.limits._regex import compile_pattern
from normalize.rules._extract_params import CodeBlockParams
from normalize.rules._fences import Fence, find_fences
from normalize.rules._speed import INTRO_CHARS
from normalize.values._phrases import RETRACTION, may_retract

# --------------------------------------------------------------------------- code


_DEFAULT_CODE: Final = CodeBlockParams()


@rule(
    "extract_code_block",
    version=2,
    scope=("code",),
    params=CodeBlockParams,
    idempotent=False,
)
def extract_code_block(
    text: str, params: CodeBlockParams = _DEFAULT_CODE, *, timeout: float = DEFAULT_TIMEOUT
) -> str:
    """Keep the content of one fenced code block, byte for byte.

    Among the fences whose language is one of ``languages`` (if any is), else among all
    fences, take the ``first`` or the ``last``.  Indentation, tabs and full-width characters
    stay exactly as they are.  No fence → the text unchanged.  Not idempotent: a block may
    itself hold a fenced block (markdown inside a longer ```` fence).

    Bound: O(n): one fence scan.

    >>> extract_code_block("Here:\\n```python\\ndef f():\\n\\treturn '你好'\\n```\\nDone.")
    "def f():\\n\\treturn '你好'"
    >>> extract_code_block("```sh\\npip install x\\n```\\n```py\\nx = 1\\n```", CodeBlockParams(which="first", languages=("py",)))
    'x = 1'
    """
    fences = find_fences(text)
    if not fences:
        return text
    preferred = [f for f in fences if f.lang in params.languages]
    pool = preferred or fences
    if params.final_markers:
        final = _final_fence(text, pool, params.final_markers, timeout=timeout)
        if final is not None:
            return final.content(text)
    if params.alternatives == "contradictory" and len(pool) > 1:
        pool = _solution_fences(text, pool, timeout=timeout)
    chosen = pool[0] if params.which == "first" else pool[-1]
    return chosen.content(text)


def _final_fence(text: str, fences: Sequence[Fence], markers: Sequence[str], *, timeout: float) -> Fence | None:
    """The last fence whose introduction (the prose since the previous fence) has a final marker,
    or takes back the block before it ("Wait, that is wrong. Here is the fix:")."""
    pattern = compile_pattern("|".join(f"(?:{m})" for m in markers), regex.IGNORECASE)
    found = None
    previous_end = 0
    for index, fence in enumerate(fences):
        begin = max(previous_end, fence.start - INTRO_CHARS)
        if _final_marker_before(text, begin, fence.start, tuple(markers), pattern, timeout) or (
            index > 0
            and (fence.start - previous_end < _SHORT_WINDOW or may_retract(fold(text[previous_end : fence.start])))
            and compile_pattern(RETRACTION).search(text, previous_end, fence.start)
        ):
            found = fence
        previous_end = fence.end
    return found


#: Below this many characters a window is searched at once: the literal checks cost more.
_SHORT_WINDOW: Final = 64


@lru_cache(maxsize=64)
def _any_entangled(patterns: tuple[str, ...]) -> bool:
    return any(entangled(p) for p in patterns)


def _final_marker_before(
    text: str, begin: int, end: int, markers: tuple[str, ...], pattern: regex.Pattern[str], timeout: float
) -> bool:
    """Whether the alternation ``pattern`` of ``markers`` matches in ``text[begin:end]``.

    It does exactly when one of the markers does, so only the markers whose literals occur
    there (their required literals, or else one of their leading ones) are searched, each on
    its own (a literal prefix the engine finds fast).  A marker with inline flags or group
    references (which reach the others inside an alternation) sends the search to ``pattern``.
    """
    if end - begin < _SHORT_WINDOW or _any_entangled(markers):
        return pattern.search(text, begin, end, timeout=timeout) is not None
    folded = fold(text[begin:end])
    for marker in markers:
        required = required_literals(marker, True)
        if required is not None:
            if not may_match(required, folded):
                continue
        else:
            lead = leading_literals(marker, True)
            if lead is not None and not any(literal in folded for literal in lead):
                continue
        if compile_pattern(marker, regex.IGNORECASE).search(text, begin, end, timeout=timeout) is not None:
            return True
    return False


_DEFINED: Final = (
    r"(?m)^[ \t]*(?:(?:async[ \t]+)?def|class|function|func|fn|sub)[ \t]+(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
)
_TEST_NAME: Final = r"(?i:test\w*|check\w*|main)"
_TEST_CODE: Final = r"(?m)^[ \t]*(?:assert\b|print[ \t]*\(|console\.log|unittest\b|import[ \t]+(?:unittest|pytest)\b|if[ \t]+__name__)"
_CODE_ALTERNATIVE: Final = (
    r"(?i:\b(?:alternatively|alternative(?:\s+(?:solution|approach|version|implementation))?|another\s+(?:way|approach|solution|option|version|implementation)"
    r"|or\s+(?:you\s+could|we\s+could|simply|just|use)|(?:approach|solution|method|option|version)\s*(?:2|two|b)\b)\b)"
    r"|或者|另一种|另一个(?:版本|写法|方法)|方法二|解法二|也可以"
)


#: Past this many solution blocks, blocks are not compared pairwise for containment.
_MAX_COMPARED_BLOCKS: Final = 64


def _solution_fences(text: str, fences: Sequence[Fence], *, timeout: float) -> list[Fence]:
    """The fences that hold a solution; ``contradictory`` when two of them are alternatives."""
    defined = [
        {m["name"] for m in compile_pattern(_DEFINED).finditer(text, f.content_start, f.content_end)}
        for f in fences
    ]
    everything = set().union(*defined)
    solutions: list[int] = []
    for index, fence in enumerate(fences):
        own = {name for name in defined[index] if not compile_pattern(_TEST_NAME).fullmatch(name)}
        others = everything - defined[index]
        if not own and others and compile_pattern(_TEST_CODE).search(
            text, fence.content_start, fence.content_end, timeout=timeout
        ):
            continue  # tests or a usage example of what another block defines
        if not own and others and not defined[index]:
            calls = "|".join(regex.escape(name) for name in sorted(others)[:50])
            if compile_pattern(rf"\b(?:{calls})[ \t]*\(").search(
                text, fence.content_start, fence.content_end, timeout=timeout
            ):
                continue  # calls of what another block defines: a usage example
        solutions.append(index)
    if not solutions:
        return list(fences)
    contents = {i: fences[i].content(text).strip() for i in solutions}
    solutions = [i for i in solutions if contents[i]] or solutions  # an empty block solves nothing
    if len(solutions) <= _MAX_COMPARED_BLOCKS:
        # a block that holds another whole block is that block plus extras (its tests), not an alternative
        solutions = [
            i
            for i in solutions
            if not any(contents[j] and contents[j] != contents[i] and contents[j] in contents[i] for j in solutions)
        ]
    for first, second in itertools.pairwise(solutions):
        a, b = fences[first], fences[second]
        if contents[first] == contents[second]:
            continue
        shared = (defined[first] & defined[second]) - {""}
        offered = compile_pattern(_CODE_ALTERNATIVE).search(text, a.end, b.start) is not None
        if shared or offered:
            why = f"both define {', '.join(sorted(shared))}" if shared else "offered as alternatives"
            raise RejectText(
                st.CONTRADICTORY,
                f"two different code blocks and no final one ({why}); mark the final block, e.g. 'Final answer:'",
            )
    return [fences[i] for i in solutions]
