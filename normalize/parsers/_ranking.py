"""The strict ``ranking`` parser: the ranked list of ids a reranker *states*, best first.

Read in tiers; the first that states anything decides:

1. **A chain of ``>``**, as RankGPT-style rerankers write it: ``[2] > [1] > [3]``,
   ``[d3] > [d1]``, or bare ids ``2 > 1 > 3`` when that is a whole line.  The last chain in the output counts (reasoning may quote
   partial orders before the final one); each id is a run of letters, digits, ``_ . : -``.
2. **A numbered list**, one id per line, numbered 1, 2, 3, …: ``1. [2]`` / ``2. [1]`` or
   ``1) d2`` / ``2) d1``.
3. **A JSON array** of ids (strings or integers): ``["d3", "d1"]``, ``[12, 7, 3]`` — the last
   one in the output, fenced or not.  A one-element array such as ``[3]`` is how rerankers
   *name* a passage, so it counts only when it is the only array in the output.

The answer is the list of ids as strings (``12`` → ``"12"``).  An id ranked twice is
``contradictory`` (it cannot hold two ranks); an id outside the row's candidates is
``out_of_range`` — ``options`` as a list names the candidate ids, as an int N means ids
``1``..``N``; nothing stated is ``no_answer``.  Full-width forms are folded with NFKC here.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any, Final

from normalize import status as st
from normalize.core.registry import NoParams, ParseContext, Parsed, parser
from normalize.limits._regex import compile_pattern

_ID: Final = r"[A-Za-z0-9_.:\-]+"
_BRACKETED: Final = r"\[\s*+" + _ID + r"+\s*+\]"
_CHAIN: Final = compile_pattern(_BRACKETED + r"(?:\s*+>\s*+" + _BRACKETED + r")++")
#: A chain of bare ids (``2 > 1 > 3``) counts only as a whole line: in prose ``3 > 2`` is a comparison.
_BARE_LINE: Final = compile_pattern(r"[ \t]*+" + _ID + r"+(?:[ \t]*+>[ \t]*+" + _ID + r"+)++[ \t]*+[.。]?+[ \t]*+")
_ONE_ID: Final = compile_pattern(_ID)
_NUMBERED: Final = compile_pattern(r"[ \t]*+([0-9]{1,4})[.)][ \t]*+(?:\[[ \t]*+(" + _ID + r"+)[ \t]*+\]|(" + _ID + r"+))[ \t]*+")


def _numbered(text: str, timeout: float) -> list[str] | None:
    """The ids of the last run of lines numbered 1, 2, 3, … with one id each (two or more lines)."""
    best: list[str] | None = None
    run: list[str] = []
    for line in text.split("\n"):
        m = _NUMBERED.fullmatch(line, timeout=timeout)
        if m is not None and int(m[1]) == len(run) + 1:
            run.append(m[2] or m[3])
            continue
        if len(run) >= 2:
            best = run
        run = [m[2] or m[3]] if m is not None and m[1] == "1" else []
    if len(run) >= 2:
        best = run
    return best


_SCALAR: Final = r'(?:"(?:[^"\\\n]|\\.)*+"|-?[0-9]++)'
#: A flat JSON array of strings and integers (nested arrays are no list of ids); the pattern
#: cannot backtrack into itself, so finding every array is linear in the text.
_FLAT_ARRAY: Final = compile_pattern(r"\[\s*+" + _SCALAR + r"(?:\s*+,\s*+" + _SCALAR + r")*+\s*+\]")


def _json_lists(text: str, timeout: float) -> list[list[Any]]:
    found: list[list[Any]] = []
    for m in _FLAT_ARRAY.finditer(text, timeout=timeout):
        try:
            value = json.loads(m.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(value, list) and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
            found.append(value)
    return found


def _check_domain(ids: list[str], options: tuple[str, ...] | int | None) -> Parsed | None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            return Parsed(None, st.CONTRADICTORY, f"id {i!r} is ranked twice")
        seen.add(i)
    if isinstance(options, int) and not isinstance(options, bool):
        allowed = {str(n) for n in range(1, options + 1)}
    elif isinstance(options, tuple):
        allowed = {str(o) for o in options}
    else:
        return None
    outside = [i for i in ids if i not in allowed]
    if outside:
        return Parsed(None, st.OUT_OF_RANGE, f"id {outside[0]!r} is not among the row's candidates")
    return None


@parser("ranking", version=1)
def parse_ranking(text: str, params: NoParams, ctx: ParseContext) -> Parsed:
    """The stated ranking: a ``>`` chain or a JSON array of ids; never a guess.

    >>> c = ParseContext()
    >>> parse_ranking("The most relevant is [2], then [3].\\n[2] > [3] > [1]", NoParams(), c).answer
    ['2', '3', '1']
    >>> parse_ranking('```json\\n["d3", "d1"]\\n```', NoParams(), c).answer
    ['d3', 'd1']
    >>> parse_ranking("[2] > [1] > [2]", NoParams(), c).status
    'contradictory'
    >>> parse_ranking("[4] > [1]", NoParams(), ParseContext(options=3)).status
    'out_of_range'
    """
    folded = unicodedata.normalize("NFKC", text)
    chains = [(m.start(), m.group(0)) for m in _CHAIN.finditer(folded, timeout=ctx.timeout)]
    offset = 0
    for line in folded.split("\n"):
        if _BARE_LINE.fullmatch(line, timeout=ctx.timeout):
            chains.append((offset, line))
        offset += len(line) + 1
    ids: list[str]
    numbered = None if chains else _numbered(folded, ctx.timeout)
    if chains:
        last = max(chains)[1]
        ids = [m.group(0) for m in _ONE_ID.finditer(last.rstrip(" \t.。"), timeout=ctx.timeout)]
    elif numbered is not None:
        ids = numbered
    else:
        lists = _json_lists(folded, ctx.timeout)
        if len(lists) > 1:
            lists = [a for a in lists if len(a) > 1]
        if not lists or not lists[-1]:
            return Parsed(None, st.NO_ANSWER, "no ranking stated (a '>' chain, a numbered list or a JSON array of ids)")
        ids = [str(v) for v in lists[-1]]
    problem = _check_domain(ids, ctx.options)
    if problem is not None:
        return problem
    return Parsed(ids, st.OK)
