"""Phrases shared by the extract rules and the strict parsers (one list, so they agree)."""

from __future__ import annotations

from typing import Final

#: A phrase that takes back what was stated before it: "Wait, that is wrong.", "等等，不对".
#: A statement followed by one of these, and then by a later statement, no longer counts.
RETRACTION: Final = (
    r"(?i:\b(?:wait|hold\s+on|oops|correction|scratch\s+that|on\s+second\s+thoughts?|I\s+take\s+(?:that|it)\s+back"
    r"|(?:I\s+(?:was|am)|I'm)\s+(?:wrong|mistaken)|I\s+made\s+(?:a|an)\s+(?:mistake|error)"
    r"|(?:that|this)(?:'s|\s+is|\s+was)\s+(?:wrong|incorrect|not\s+(?:right|correct)|a\s+mistake|an\s+error)"
    r"|let\s+me\s+(?:correct|reconsider|re-?check|re-?evaluate|rethink|re-?think)"
    r"|correct(?:ing)?\s+(?:myself|that)|actually,?\s+no|no,?\s+wait|I\s+misread|(?:up)?on\s+reflection"
    r"|(?:just\s+)?kidding)\b)"
    r"|(?<![\w'’])No[,，](?=\s)"  # a sentence that opens by denying the one before: "B. No, it's C."
    r"|等等|等一下|不对|错了|有误|更正|纠正|修正|重新考虑|再想想|再考虑|我(?:搞|弄|算|看)错"
    r"|(?:^|(?<=[\s.!?。！？…]))不[,，]"  # "B。不，应该是C。": 不 opening a sentence, then a comma
)

#: Literals (as :func:`normalize.limits._literals.fold` folds a text) of which every :data:`RETRACTION`
#: match holds one: a text with none of them skips the scan.  Each alternative of the pattern
#: needs the word listed against it: ``wait``, ``hold``, ``oops``, ``correct`` (correction,
#: incorrect, correcting), ``scratch``, ``second``, ``back`` (I take it back), ``wrong``,
#: ``mistake`` (mistaken), ``error``, ``not`` (not right), ``let``, ``actually``, ``misread``,
#: ``reflection``, ``kidding``, ``no,`` (a sentence opened by "No,") and ``no，``; 不, and 不， opening a sentence; 等 (等等, 等一下), 不对, 错 (错了, 我搞错), 有误, 更正, 纠正, 修正, 重新考虑, 再想, 再考虑.
RETRACTION_WORDS: Final = (
    "wait", "hold", "oops", "correct", "scratch", "second", "back", "wrong", "mistake", "error",
    "not", "let", "actually", "misread", "reflection", "kidding", "no,", "no，",
    "等", "不,", "不，", "不对", "错", "有误", "更正", "纠正", "修正", "重新考虑", "再想", "再考虑",
)


def may_retract(folded: str) -> bool:
    """Whether ``folded`` (a text folded by :func:`normalize.limits._literals.fold`) may hold a
    :data:`RETRACTION` phrase: a necessary condition, checked with substring scans."""
    return any(word in folded for word in RETRACTION_WORDS)
