"""The strict ``choice`` parser: the option letter a multiple-choice output *states*, or a status.

Only a stated answer counts; the parser never takes "the first letter it sees" and never
falls back to a random option.  It reads the output in five tiers and the first tier that
states anything decides (a later tier is never consulted to break a tie):

1. **Markers** — an explicit answer statement followed by a letter (or an option's text):
   ``The answer is (B)``, ``answer: B``, ``Answer: **C**``, ``The final/correct answer is``,
   ``The correct option/choice is``, ``I choose/pick/select/go with B``, ``My choice: B``,
   ``\\boxed{B}``; a letter before the marker: ``B is the (correct) answer``,
   ``(B) is the correct option``; Chinese ``答案是/答案为/答案：/最终答案是/正确答案是/
   正确选项是/答案选``, ``选B/选择B/故选C/所以选A/应选D`` (not after 不/如果/若…),
   ``答：B``, ``B是正确答案``; the same statement in French, Spanish, Portuguese, Italian
   and German (``la réponse est C``).  Adverbs may sit between marker and letter
   (``The answer is for sure D``).
2. **Conclusions** without a marker, whose letter ends its clause: ``Therefore, B.``,
   ``…, therefore I think it's B``, ``So it must be C``, ``所以是B``, ``综上，D``.
3. **Hedges**: ``might be C``, ``could be (F)``, ``perhaps D``, ``可能是B`` — several that
   disagree are ``contradictory``; a single one is the answer.
4. **Weak statements**, used only when nothing above states anything: ``Option B is
   correct``, ``B is correct``/``valid`` at the start of a line or sentence or after
   ``so``/``because``/``only``, ``选项B正确``, ``B项正确``, ``B正确``, ``只有选项B是对的``,
   ``正确的是B``.  They are weak because step-by-step analyses write them for every option.
5. **The output is the answer**: a lone letter with optional punctuation, brackets, quotes
   or markdown (``B``, ``(B)``, ``**B**``, ``b.``, ``: B``), an upper-case letter that opens
   the output as ``(B) …``, ``B. …``, ``B) …``, ``B: …``, ``B不是A``, ``B, not A`` — unless the
   next option is labelled after it (``A) 3\nB) 4``: the list restated) — or a whole output
   equal to an option's text.

Invisible format characters (zero-width spaces and joiners, bidi marks, the BOM) are dropped
first, so ``The answer is\u200b B`` states B whatever the chain before the parser did.

Letters: full-width and other compatibility forms are folded with NFKC here, so the parser
does not depend on the chain.  An upper-case letter counts when it is a word of its own
(``A because`` is the letter A; ``I think`` is the pronoun).  A lower-case letter counts in a
marker context only when bracketed or followed by punctuation or the end (``the answer is
b.``), so ``the answer is a dog`` states no letter; a whole output ``b`` is the letter B.

One statement naming two different letters — ``A or B``, ``A and C``, ``A, C``, ``答案是A或B``,
``AB`` — is ``contradictory``.  A negated letter is not stated: ``The answer is D, not A`` →
``D`` (also ``rather than``, ``instead of``, ``而不是``, ``不是``); a marker followed by a
negated letter states the letter given instead: ``The answer is not B; it is C.`` → ``C``,
``答案不是B，而是C`` → ``C``.  A marker's letter that a verdict follows is judged, not stated:
``Answer: C is wrong, B is right`` and ``Réponse : A est faux`` state nothing.  Several statements with the same letter give that letter.  A
statement taken back by a retraction before a later statement (``ANSWER: A\\nWait, that is
wrong.\\nANSWER: B``, ``等等，不对``) no longer counts.  Several remaining statements with
different letters are ``contradictory`` under ``conflict="contradictory"`` (the default, as in
the seed material: no unique answer → no answer) or resolved by the last statement under
``conflict="last"``.

Option texts: when the domain is given as texts and a marker is followed by text rather than
a letter, the text is matched against the options after normalization (NFKC, casefold,
quotes dropped, whitespace collapsed, trailing punctuation dropped).  Options found in the
stated clause that are contained in a longer found option are dropped, so ``Guilty of
Romance`` beats ``Guilty``; two non-nested options are ``contradictory``; an option preceded
by ``not`` is skipped, unless the option's own text starts with it (``Answer: Not guilty``
with options Guilty / Not guilty is ``Not guilty``).  A letter followed by an option's text
must agree with it: ``The answer is (B) Paris.`` when Paris is option A is ``contradictory``
(a label cut short, ``(B) Guilty`` for ``Guilty of Romance``, agrees).  An option whose text is
itself letters is that option: ``AB`` among the blood groups A / B / AB / O is the third
option, not two letters; a bare letter that is another option's text names both.

Domain: ``ctx.options`` is a tuple of 2–26 option texts or an int count 2–26; anything else
raises ``ValueError`` naming the value (``Pack.run`` records status ``invalid``).  When the
row has no options, ``params.default_options`` is used; its default, 26, is the honest one:
it claims no knowledge of the option count, so every letter A–Z is accepted and
``out_of_range`` cannot happen — a pack that knows its tasks' option count can set it, and
``None`` makes a row without options ``invalid``.  A stated letter past the domain is
``out_of_range``; nothing stated is ``no_answer``.  The answer is the upper-case letter.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Final, NamedTuple

import regex

from normalize import status as st
from normalize.core.registry import ParseContext, Parsed, parser
from normalize.limits._literals import fold
from normalize.limits._regex import char_finder, char_table, compile_pattern
from normalize.parsers._choice_params import MAX_OPTIONS, MIN_OPTIONS, ChoiceParams
from normalize.values._phrases import RETRACTION as _RETRACTION
from normalize.values._phrases import RETRACTION_WORDS

LETTERS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


# --------------------------------------------------------------------------- patterns

_QUOTES: Final = str.maketrans(
    {
        "“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"', "「": '"', "」": '"',
        "『": '"', "』": '"', "〝": '"', "〞": '"', "‘": "'", "’": "'", "‚": "'", "‛": "'",
    }
)
_DROP_QUOTES: Final = str.maketrans("", "", "\"'")
#: ``str.translate(_QUOTES)``, done faster (:class:`normalize.limits._regex.CharTable`).
_QUOTE_TABLE: Final = char_table(_QUOTES)
#: A superset of Unicode category Cf as :mod:`unicodedata` has it (the ``regex`` module's
#: tables may be newer and hold a few more): no match means no format character to drop.
_MAYBE_FORMAT_CHAR: Final = regex.compile(r"\p{Cf}")
# LaTeX wrappers whose argument is plain text: \text{B} -> B.
_LATEX_TEXT: Final = r"\\(?:text|textbf|textrm|textit|mathrm|mathbf|mathit|mbox)\s*\{([^{}\n]*)\}"
# Markdown emphasis and code marks, math delimiters: decoration, never part of a letter.
_DECORATION: Final = r"[*`$]|\\[()\[\]]|(?<![^\W_])_+|_+(?![^\W_])"
#: Every character a :data:`_DECORATION` match starts with.
_DECORATION_CHARS: Final = char_finder("*`$\\_")
#: Every character :func:`prepare_text` changes after NFKC: quotes, the backslash of ``\\text{}``
#: and the decoration marks.
_PREPARE_CHARS: Final = char_finder("".join(sorted(_QUOTE_TABLE.table)) + "*`$\\_")

# Adverbs that may sit between a marker and its letter.
_ADVERBS: Final = (
    r"(?:,?[ \t]*(?:therefore|thus|hence|clearly|definitely|indeed|actually|then|simply|still|obviously|most\s+likely"
    r"|likely|probably|just|for\s+sure|surely|certainly|undoubtedly|unquestionably|absolutely|of\s+course"
    r"|without\s+(?:a\s+|any\s+)?doubt|in\s+fact|really|ultimately|finally)(?:[ \t]*,[ \t]*|\s+))*"
)
_EN_VERB: Final = r"(?:is|would\s+be|should\s+be|must\s+be|has\s+to\s+be|will\s+be)\b"
_NOT_AFTER_XUAN: Final = r"(?<!不|如果|若|假如|假设|要是|若是|是否|不能|不应|不要|别|可能|也许|或许)"

_MARKERS: Final = (
    # The (final/correct) answer is / answer: / Final Answer + newline.
    rf"(?i:\banswer[ \t]*(?:{_EN_VERB}[ \t]*(?:as\s+follows[ \t]*)?[:=]?|[:=]|\n|[–—]|(?<=[ \t])-(?=[ \t]))[ \t]*{_ADVERBS})",
    # The correct/best option is, my (final) choice is.
    rf"(?i:\b(?:(?:the\s+)?(?:correct|right|best|final)\s+(?:option|choice|letter|one)|my\s+(?:final\s+)?(?:choice|pick|selection|option))\s*(?:{_EN_VERB}[ \t]*[:=]?|[:=])[ \t]*{_ADVERBS})",
    # I choose / I'd pick / I will go with.
    r"(?i:\bI(?:'d|'ll|\s+would|\s+will|\s+shall)?\s+(?:choose|pick|select|go\s+with|opt\s+for)\s+)",
    r"\\(?:boxed|fbox)\s*\{",
    # 答案是 / 答案为 / 答案: / 最终答案是 / 答案选.
    r"答案\s*(?:(?:应该|应当|应|就|则|显然|明显|肯定|一定|当然|无疑|确实|只能|必然|也)\s*)*(?:是|为|選|选)\s*:?|答案\s*:",
    # "The answer isn't B", "答案不是B": a negation the parser reads on (… it is C / 而是C)
    r"(?i:\banswer[ \t]+is(?=n't\b))",
    r"答案\s*(?:并|可|肯定|显然|应该)?(?=不是|并非)",
    r"正确的?(?:选项|答案)\s*(?:(?:应该|应当|应|就|则)\s*)?(?:是|为)?\s*:?",
    r"(?m:^[ \t#>]*答\s*:)",
    # 选B / 选择B / 故选C / 所以选A — but not 如果选A, 不选A, 选项, 选择题, 选出.
    rf"{_NOT_AFTER_XUAN}选(?:择)?(?!项|择题|出|取|修|中)\s*:?",
    # The same statement in the other languages harnesses ask in (lighteval's multilingual
    # tasks): French, Spanish, Portuguese, Italian, German.
    r"(?i:\b(?:(?:la\s+)?(?:bonne\s+)?r[ée]ponse(?:\s+correcte)?\s*(?:est|:)"
    r"|(?:la\s+)?respuesta(?:\s+correcta)?\s*(?:es|:)"
    r"|(?:a\s+)?resposta(?:\s+correta)?\s*(?:é|:)"
    r"|(?:la\s+)?risposta(?:\s+corretta)?\s*(?:è|:)"
    r"|(?:die\s+)?(?:richtige\s+)?antwort\s*(?:ist|lautet|:))[ \t]*)",
)

# Conclusions without an answer marker: "Therefore, B.", "so I think it's B", "所以是B".  The
# letter must end its clause ("Therefore, A is wrong" states nothing).
_CONCLUSIONS: Final = (
    r"(?i:\b(?:therefore|thus|hence|so|consequently|accordingly|in\s+conclusion|overall|in\s+summary|to\s+conclude)\b"
    r"[ \t]*,?[ \t]*"
    r"(?:(?:I|we)(?:'d|\s+would|\s+will|'ll)?\s+(?:think|believe|conclude|say|guess|choose|pick|select|go\s+with|opt\s+for)"
    r"(?:\s+that)?\s+)?"
    r"(?:(?:it|this|that)(?:'s|\s+is|\s+must\s+be|\s+should\s+be|\s+has\s+to\s+be|\s+would\s+be|\s+will\s+be)\s+)?"
    rf"{_ADVERBS})",
    # "I think it's B", "It must be D", "Not A, not C, it's B": a clause that opens with it
    r"(?i:(?:\b(?:I|we)(?:'d|\s+would)?\s+(?:think|believe|guess|say|conclude)(?:\s+that)?\s+|(?:(?<![^\n])|(?<=[.;,!?:—–]))[ \t]*)"
    r"(?:it|this)(?:'s|\s+is|\s+must\s+be|\s+should\s+be|\s+has\s+to\s+be|\s+would\s+be)\s+"
    rf"{_ADVERBS})",
    r"(?i:\bit\s+(?:must|has\s+to|should)\s+be\s+)",
    r"(?:我|我们)(?:认为|觉得|判断|倾向于)\s*(?:(?:答案|正确答案|正确选项)\s*)?(?:(?:应该|应当|应)\s*)?(?:是|为|选)\s*",
    r"(?:因此|所以|故而|故|综上(?:所述)?|总之|由此可见|可见)\s*[,，:：]?\s*"
    r"(?:我(?:认为|觉得|选择?)\s*)?(?:(?:应该|应当|应|就|只能)\s*)?(?:是|为)?\s*",
)
# Hedged statements: several that disagree are contradictory; a single one is the answer.
_HEDGES: Final = (
    r"(?i:\b(?:might|may|could)(?:\s+also|\s+well)?\s+be\s+(?:either\s+)?)",
    r"(?i:\b(?:possibly|perhaps|maybe)[ \t]*,?[ \t]*(?:(?:it(?:'s|\s+is)|the\s+answer\s+is)\s+)?)",
    r"(?:可能|也许|或许)(?:是|为|选)\s*",
)
# A second answer offered beside the stated one: "but (C) is also plausible", "or maybe D",
# "也可能是C", "C也正确".  It joins whatever tier decides, so the output is contradictory.
_ALSO_BEFORE: Final = (
    r"(?i:\b(?:(?:could|might|may|would)\s+(?:also|equally)\s+be|or\s+(?:maybe|perhaps|possibly)|(?:also|equally)\s+(?:plausible|possible|likely|valid|correct)\s+(?:is|are)?)\s*(?:either\s+)?)",
    r"也(?:可能|可以|有可能)(?:是|选|为)\s*",
    # an alternative hedged in brackets or after a comma: "B (maybe D)", "B, perhaps D", and
    # "B oder vielleicht D", "B, ou peut-être D", "B o quizás D", "B ou talvez D"
    r"(?i:(?:[(\[,;（][ \t]*(?:maybe|perhaps|possibly)|\boder[ \t]+(?:vielleicht|eventuell|möglicherweise)"
    r"|\bou[ \t]+(?:peut-être|peut-etre|éventuellement|talvez|quiçá)|\bo[ \t]+(?:quizás?|tal[ \t]+vez|posiblemente|forse|magari)"
    r"|\balternatively[ \t]*,?[ \t]*(?:(?:(?:it|the\s+answer)\s+(?:could|might|may)\s+be|it(?:'s|\s+is)|the\s+answer\s+is)(?!\w)"
    # (a bare letter after it only where it ends its clause: not "Alternatively, A is ruled out")
    r"|(?=[(\[]?[A-Z][)\]]?[ \t]*(?:$|[.,;!?\n。，；！？]))))[ \t]*,?[ \t]*)",
    r"[,，;；(（][ \t]*(?:也许|或许)(?:是|为|选)?\s*",
    # the other branch of a conditional answer: "B if x > 0, otherwise C", "否则是C"
    # (not "otherwise it would be C": a reason for the answer, what would follow were it not so)
    r"(?i:\b(?:otherwise|else)\b[ \t]*,?[ \t]*(?:(?:it(?:'s|\s+is)|the\s+answer\s+is)\s+)?)",
    r"否则(?:的话)?\s*[,，]?\s*(?:答案)?(?:就|应该?)?(?:是|为|选)?\s*",
)
_ALSO_AFTER: Final = (
    r"(?<![A-Za-z0-9])(?:(?i:option|choice)\s+|选项\s*)?(?P<open>[(\[【]?)(?P<letter>[A-Z])(?P<close>[)\]】]?)"
    r"(?:(?i:\s+is\s+also\s+an?\s+(?:strong|good|possible|valid|plausible|likely|reasonable|serious|viable)\s+(?:candidate|option|answer|choice|contender)"
    r"|\s+(?:is|seems|looks|would\s+be)\s+(?:also|equally)\s+(?:plausible|possible|correct|right|valid|likely|reasonable|acceptable|defensible|true)|\s+(?:is|(?:could|might|may)\s+(?:also\s+)?be)\s+(?:plausible|possible|correct|right|valid|true)\s+(?:too|as\s+well)"
    r"|\s+(?:could|might|may)\s+(?:also|equally)\s+be\s+(?:plausible|possible|correct|right|valid|true|the\s+answer|an?\s+(?:option|answer)))\b"
    r"|(?i:\s+(?:ist|wäre|könnte)\s+(?:auch|ebenfalls)\s+(?:möglich|richtig|korrekt|plausibel|denkbar)"
    r"|\s+(?:est|serait|pourrait\s+être)\s+aussi\s+(?:possible|correcte?|juste|plausible)"
    r"|\s+(?:también\s+(?:es|sería|podría\s+ser)|es\s+también)\s+(?:posible|correcta?|válida?|plausible))(?!\w)"
    r"|\s*(?:选项|项)?\s*也(?:是)?(?:正确(?!率|与否)|对(?:的)?(?=$|[\s,.;!?，。；！？、)）】\]])|可以(?=$|[\s,.;!?，。；！？、)）】\]])|有可能正确|可能正确"
    r"|(?:有)?可能(?:是对的)?(?=$|[\s,.;!?，。；！？、)）】\]])))"
)

# After a negated letter, the letter stated instead: "not B; it is C", "不是B，而是C".
_INSTEAD: Final = (
    r"[ \t]*[,;:.，；：。—–-]*[ \t]*(?:"
    r"(?i:(?:but|rather|instead)(?:[ \t]*,?[ \t]*(?:rather|instead))?[ \t]*,?[ \t]*"
    r"(?:it(?:'s|\s+is|\s+must\s+be|\s+should\s+be|\s+would\s+be)\s+)?)"
    r"|(?i:it(?:'s|\s+is|\s+must\s+be|\s+should\s+be|\s+would\s+be)\s+)"
    r"|(?:而|但)?(?:应该|应当|应)?(?:是|为|选)"
    r")"
)

# A letter token: optional "option"/"选项", optional opening bracket or quote, letters, close.
_TOKEN: Final = (
    r"[ \t]*(?:\n[ \t]*){0,2}(?:(?i:either|both)\s+)?(?:(?i:option|choice|letter)\s+|选项\s*)?"
    r"(?P<open>[(\[{<【\"']?)[ \t]*(?P<letters>[A-Za-z]+)(?:[ \t]*(?P<close>[)\]}>】\"']))?"
)
_PAIRS: Final = {"(": ")", "[": "]", "{": "}", "<": ">", "【": "】", '"': '"', "'": "'"}
_LOWER_FOLLOW: Final = r"[ \t]*(?:$|\n|[.,;:!?。，；：！？、)\]}])"
_PRONOUN_FOLLOW: Final = r"\s+[a-z]"
_LIST_FOLLOW: Final = r"[ \t]*(?:$|\n|[.,;:!?。，；：！？、/)\]}]|(?i:and|or)\b|和|或|与|及)"
_NEGATION: Final = (
    r"[ \t]*[,;(，；（]?[ \t]*(?:(?i:(?:but|and)\s+)?(?i:not|non|nicht|rather\s+than|instead\s+of)\b|而不是|而非|不是|并非)"
)
_CONJUNCTION: Final = (
    r"[ \t]*(?:(?i:and/or|or|and|as\s+well\s+as|plus)\b|&|\+|和|或者?|与|及|以及|跟"
    # an alternative after a comma or in brackets: "B, or D", "B (or D)", "B，或者D", "B（或D）"
    r"|[,，(（][ \t]*(?:(?i:or|oder|ou|o|oppure)\b|或者?))"
)
_COMMA: Final = r"[ \t]*[,/、，]"

# A letter stated before its marker: "B is the correct answer", "B是正确答案".
_BEFORE_MARKERS: Final = (
    r"(?i:\s+is\s+(?:the\s+)?(?:(?:correct|right|best|final|only\s+correct)\s+)?(?:answer|option|choice)\b)",
    r"\s*(?:选项|项)?\s*(?:是|为)\s*(?:正确|最佳|最终|标准)?的?\s*(?:答案|选项)",
)
_BEFORE_LETTER: Final = (
    r"(?<![A-Za-z0-9])(?:(?i:option|choice)\s+)?(?P<open>[(\[【\"']?)(?P<letter>[A-Z])(?P<close>[)\]】\"']?)"
)
_WEAK: Final = (
    r"(?i:\b(?:option|choice)\s+)(?P<open>[(\[【\"']?)(?P<letter>[A-Za-z])(?P<close>[)\]】\"']?)(?i:\s+is\s+(?:the\s+)?(?:correct|right)\b)",
    r"(?:(?m:^)[ \t#>-]*|(?<=[.!?]\s)|(?i:\b(?:so|therefore|thus|hence|then|because|since|only)\b,?\s+))(?P<open>[(\[【\"']?)(?P<letter>[A-Z])(?P<close>[)\]】\"']?)(?i:\s+is\s+(?:the\s+)?(?:only\s+)?(?:correct|right|valid|true)\b)",
    r"(?:选项\s*(?P<open>[(\[【\"']?)(?P<letter>[A-Za-z])(?P<close>[)\]】\"']?)|(?<![A-Za-z0-9])(?P<open2>[(\[【\"']?)(?P<letter2>[A-Z])(?P<close2>[)\]】\"']?)\s*(?:选项|项)?)\s*(?:是|为)?\s*(?:正确(?!率|与否)|对(?:的)?(?=$|[\s,.;!?，。；！？、]))",
)
_WEAK_MARKERS: Final = (r"正确的(?:一项|选项|是)?\s*(?:是|为)\s*:?",)

_START: Final = (
    r"\A[\s#>\"'-]*(?:(?P<open>[(\[【])[ \t]*(?P<b>[A-Z])[ \t]*[)\]】]|(?P<l>[A-Z])(?=[.:)、。\]]|[ \t]*(?:$|\n)|[ \t]+-[ \t]"
    # "B不是A", "B, not A": a leading letter set against a negated one
    r"|[ \t]*[,，]?[ \t]*(?:不是|而不是|而非|并非|(?i:not|rather\s+than|instead\s+of)\b)[ \t]*[(\[【]?[A-Z](?![A-Za-z])))"
)
_LONE: Final = r"\A[\s\"'(\[【{<:]*(?P<l>[A-Za-z])[\s\"')\]】}>.。,，!！:]*\Z"

_STATEMENT_END: Final = r"[ \t]*(?:$|\n|[.,;:!?。，；：！？)\]】(（]|(?i:because|since|as)\b|因为|由于)"
#: After a marker's letter, a verdict that it is wrong: "Answer: C is wrong", "A est faux",
#: "B ist falsch", "A是错误的" — the marker introduces the judgement of an option, not the answer.
_JUDGED_WRONG: Final = (
    r"[ \t]*[-:–—]?[ \t]*(?:"
    r"(?i:(?:is|are|was|seems|would\s+be)\s+(?:(?:also|clearly|definitely|obviously|certainly|simply)\s+)?"
    r"(?:incorrect|wrong|false|invalid|ruled\s+out|eliminated|excluded|not\s+(?:the\s+)?(?:correct|right|true|valid|answer))\b"
    r"|ist\s+(?:falsch|nicht\s+richtig|inkorrekt)\b|est\s+(?:faux|fausse|incorrecte?)\b"
    r"|es\s+(?:falsa|falso|incorrecta|incorrecto)\b|(?:é|è)\s+(?:falsa|falso|errata|errato|incorreta|sbagliata)\b)"
    r"|(?:是|为)?(?:错误|错的|不对|不正确))"
)
#: After a marker's letter, a verb that describes the option: "Answer: Option A says x, option B
#: says y; B is right", "答案：选项A说的是x" — the marker opens an analysis, not the answer.
_DESCRIBED: Final = (
    r"[ \t]*(?:(?i:(?:says|states|claims|suggests|describes|refers\s+to|argues|assumes|asserts|proposes|mentions)\b)"
    r"|说的是|说|表示|认为|指的是|描述|提到)"
)
_NEGATED_START: Final = r"[ \t]*(?:(?i:not|n't)\b|不是|并非)"
_CLAUSE_END: Final = r"[,，;；.!?。！？:：](?=\s|$)|[。！？；，]|\n"
_NEGATED_BEFORE: Final = r"(?:\bnot|\brather\s+than|\binstead\s+of|而不是|而非|不是|并非)\s*$"
_TRAILING: Final = ".,;:!?。，；：！？、"


#: The letter-before-marker patterns, built once (a string built per call is hashed afresh by
#: every lookup keyed by it).
_BEFORE_PATTERNS: Final = tuple(_BEFORE_LETTER + suffix for suffix in _BEFORE_MARKERS)

#: Whole-word pre-checks: every match of the pattern holds, for each group, one of its words
#: with no ASCII letter right before or after it in the folded text (the pattern puts ``\b``,
#: ``\s`` or an apostrophe on both sides of it), so the word is one of the text's runs of ASCII
#: letters (:func:`_words` of :func:`_projected`; a character folds to an ASCII letter only when
#: it is a word character, which ``\b`` and ``\s`` exclude, a test checks it).  A set lookup per
#: word instead of a string search, for the English patterns whose words prose holds.  Not read
#: when an ``endpos`` cuts the text (a word cut there ends there).
_WORDS: Final[dict[str, tuple[frozenset[bytes], ...]]] = {
    # (the) correct/right/best/final … ; my …
    _MARKERS[1]: (frozenset({b"correct", b"right", b"best", b"final", b"my"}),),
    # I ('d …) choose / pick / select / go with / opt for, then blanks
    _MARKERS[2]: (frozenset({b"i"}), frozenset({b"choose", b"pick", b"select", b"with", b"for"})),
    # answer is(n't)
    _MARKERS[5]: (frozenset({b"answer"}), frozenset({b"isn"})),
    # a letter, is (the) (correct …) answer/option/choice
    _BEFORE_PATTERNS[0]: (frozenset({b"is"}), frozenset({b"answer", b"option", b"choice"})),
    _CONCLUSIONS[0]: (
        frozenset({b"so", b"therefore", b"thus", b"hence", b"consequently", b"accordingly", b"overall", b"conclusion", b"summary", b"conclude"}),
    ),
    # it/this + 's / is / must …, after I think / a line start / a stop
    _CONCLUSIONS[1]: (frozenset({b"it", b"this"}),),
    _CONCLUSIONS[2]: (frozenset({b"it"}), frozenset({b"must", b"has", b"should"}), frozenset({b"be"})),
    _HEDGES[0]: (frozenset({b"might", b"may", b"could"}), frozenset({b"be"})),
    _WEAK[0]: (frozenset({b"option", b"choice"}), frozenset({b"is"}), frozenset({b"correct", b"right"})),
    _WEAK[1]: (frozenset({b"is"}), frozenset({b"correct", b"right", b"valid", b"true"})),
    # could … also be; or maybe …; also/equally plausible …
    _ALSO_BEFORE[0]: (frozenset({b"also", b"equally", b"or"}),),
}
#: Bytes of :func:`_words`' table: ASCII lower-case letters stay, every other byte is a space.
_WORD_TABLE: Final = bytes(c if 0x61 <= c <= 0x7A else 0x20 for c in range(256))


#: Bytes of :func:`_projected`'s table: ASCII upper-case letters to lower case.
_LOWER_TABLE: Final = bytes(c + 0x20 if 0x41 <= c <= 0x5A else c for c in range(256))


#: The non-ASCII characters :func:`fold` makes ASCII letters (``(?i)`` matches İ ſ K to i s k).
_FOLDS_TO_ASCII: Final = ("\u0130", "\u0131", "\u017f", "\u212a")


def _projected(text: str) -> bytes:
    """``text`` as the pre-checks read it, one byte for each character: :func:`fold` of it (only
    done when it holds one of ``İ ı ſ K``, which ``(?i)`` matches to ASCII letters), ASCII letters
    in lower case, other ASCII as it is except ``?`` (``\x00``), ``。、】`` as ``\x01``, any other
    character ``?``.  An ASCII literal of the folded text other than ``?`` is one of this at the
    same place (a test checks that nothing else folds to ASCII)."""
    return _ascii_views(text)[1]


@lru_cache(maxsize=8)
def _ascii_views(text: str) -> tuple[bytes, bytes, bool]:
    """``text`` encoded one byte a character (``?`` as ``\x00``, ``。、】`` as ``\x01``, any other
    non-ASCII character ``?``), :func:`_projected` of it, and whether it holds one of ``İ ı ſ K``
    (then the projection is folded)."""
    marked = text.replace("?", "\x00").replace("。", "\x01").replace("、", "\x01").replace("】", "\x01")
    raw = marked.encode("ascii", "replace")
    if any(char in text for char in _FOLDS_TO_ASCII):
        return raw, fold(marked).encode("ascii", "replace").translate(_LOWER_TABLE), True
    return raw, raw.translate(_LOWER_TABLE), False


@lru_cache(maxsize=8)
def _words(projected: bytes) -> frozenset[bytes]:
    """The runs of ASCII letters in ``projected`` (every other character separates them)."""
    return frozenset(projected.translate(_WORD_TABLE).split())


#: Literal pre-checks for the statement patterns: every match of the pattern holds, for each
#: group, one of its literals — as :func:`normalize.limits._literals.fold` folds the text (``(?i)``
#: matches only the ASCII letters, ``İ``, ``K`` and ``ſ`` there; folding keeps every character
#: one character, so positions agree).  A text that lacks a group skips the scan.  The ASCII
#: literals are looked up in :func:`_projected`, the others (CJK, which nothing folds to) in the
#: text itself: a one-character ``in`` is a memchr.
_NEEDS: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    _MARKERS[3]: (("\\",),),
    _MARKERS[4]: (("答",),),
    _MARKERS[5]: (("isn't",),),
    _MARKERS[6]: (("答",),),
    _MARKERS[7]: (("正",),),
    _MARKERS[8]: (("答",),),
    _MARKERS[9]: (("选",),),
    # r[ée]ponse; respuesta, resposta, risposta (all hold "sp"); antwort
    _MARKERS[10]: (("ponse", "sp", "antwort"),),
    # a letter then 是/为 … 答案/选项
    _BEFORE_PATTERNS[1]: (("答", "选"), ("是", "为")),
    # 我/我们 + 认为/觉得/判断/倾向于
    _CONCLUSIONS[3]: (("认", "觉", "判", "倾"),),
    # 因此 / 所以 / 故(而) / 综上 / 总之 / (由此)可见
    _CONCLUSIONS[4]: (("因", "所", "故", "综", "总", "可"),),
    _HEDGES[0]: (("might", "may", "could"), ("be",)),
    _HEDGES[1]: (("possibly", "perhaps", "maybe"),),
    _HEDGES[2]: (("可", "也", "或"),),
    # option/choice + letter + is (the) correct/right
    _WEAK[0]: (("option", "choice"),),
    _WEAK[2]: (("正", "对"),),
    _WEAK_MARKERS[0]: (("正",),),
    # (could|might|may|would) (also|equally) be; or (maybe|perhaps|possibly); (also|equally) plausible…
    _ALSO_BEFORE[0]: (("also", "equally", "maybe", "perhaps", "possibly"),),
    _ALSO_BEFORE[1]: (("也",),),
    # maybe/perhaps/possibly; vielleicht, eventuell, möglicherweise; peut-être, éventuellement,
    # talvez, quiçá; quizás, tal vez, posiblemente (the ASCII run of each)
    _ALSO_BEFORE[2]: (
        ("maybe", "perhaps", "possibly", "vielleicht", "eventuell", "glicherweise", "peut", "ventuellement", "tal", "qui", "posiblemente",
         "forse", "magari", "alternatively"),
    ),
    _ALSO_BEFORE[3]: (("也", "或"),),
    _ALSO_BEFORE[4]: (("otherwise", "else"),),
    _ALSO_BEFORE[5]: (("否",),),
    _ALSO_AFTER: (("也", "also", "equally", "too", "well", "auch", "ebenfalls", "aussi", "también"),),
    _RETRACTION: (RETRACTION_WORDS,),
}


#: Faster screens (stdlib ``re`` on :func:`_projected` bytes) for statement patterns whose literals
#: occur in most prose: a match of the pattern always holds a match of one of its screens (a
#: screen leaves out the pattern's word boundaries and look-behinds, so it is looser; its ``\s``
#: matches every character ``regex``'s does, a test checks it).  Each screen opens with a
#: literal (a stdlib scan for a literal prefix is fast, an alternation at every position is
#: not) and is searched only when its guard, when it has one, is among the text's words
#: (:func:`_words`; the pattern bounds the guard word on both sides).
def _screen(source: str) -> re.Pattern[bytes]:
    r"""A screen over :func:`_projected` bytes: ``\s`` also takes ``\x1c``–``\x1f`` and ``?`` (the
    ``regex`` module's ``\s`` holds them and non-ASCII blanks, which the projection makes ``?``)."""
    return re.compile(source.replace(r"\s", r"[\s\x1c-\x1f?]").encode())


_VERB_AFTER: Final = r"\s*(?:is|would|should|must|has|will|[:=])"
_SCREENS: Final[dict[str, tuple[tuple[bytes | None, re.Pattern[bytes]], ...]]] = {
    # (the) correct/right/best/final option/choice/letter/one, my (final) choice/pick/selection/option;
    # then a verb or : =  (the first word is a whole word: its guard is looked up in _words)
    _MARKERS[1]: (
        *((word.encode(), _screen(word + r"\s+(?:option|choice|letter|one)" + _VERB_AFTER)) for word in ("correct", "right", "best", "final")),
        (b"my", _screen(r"my\s+(?:final\s+)?(?:choice|pick|selection|option)" + _VERB_AFTER)),
    ),
    _MARKERS[2]: (
        (b"choose", _screen("choose")),
        (b"pick", _screen("pick")),
        (b"select", _screen("select")),
        (b"go", _screen(r"go\s+with")),
        (b"opt", _screen(r"opt\s+for")),
    ),
    _BEFORE_PATTERNS[0]: (
        (None, _screen(r"is\s+(?:the\s+)?(?:(?:correct|right|best|final|only\s+correct)\s+)?(?:answer|option|choice)")),
    ),
    _CONCLUSIONS[1]: (
        (b"it", _screen(r"it(?:'s|\s+(?:is|must|should|has|would))")),
        (b"this", _screen(r"this(?:'s|\s+(?:is|must|should|has|would))")),
    ),
    _CONCLUSIONS[2]: ((None, _screen(r"it\s+(?:must|has|should)")),),
    # r[ée]ponse (é is ? in the projection), respuesta, resposta, risposta, antwort: one of them
    # is in every match ("sp" of _NEEDS is in much English prose: "spends", "special")
    _MARKERS[10]: tuple((None, _screen(word)) for word in ("ponse", "respuesta", "resposta", "risposta", "antwort")),
    _WEAK[0]: ((None, _screen(r"is\s+(?:the\s+)?(?:correct|right)")),),
    _WEAK[1]: ((None, _screen(r"is\s+(?:the\s+)?(?:only\s+)?(?:correct|right|valid|true)")),),
}

#: A function that gives, in order, every place in :func:`_projected` bytes where a pattern's
#: match can start (a :data:`_STARTS` entry too irregular for a word list or one locator).
_Locator = Callable[[bytes], list[int]]
#: ``_CONCLUSIONS[1]``'s clause after a line start or a stop, in :func:`_projected` bytes: the stop
#: (``?`` is every non-ASCII character there, ``\x00`` a ``?``), blanks, it/this.
_IT_AFTER_STOP: Final = re.compile(rb"[\n.;,!:\x00?][ \t]*(?:it|this)")
#: ``_CONCLUSIONS[1]``'s ``I/we (would) think …`` lead, in :func:`_projected` bytes (``\s`` as
#: :func:`_screen` reads it).
_I_THINK: Final = re.compile(rb"(?:i|we)(?:'d|[\s\x1c-\x1f?]+would)?[\s\x1c-\x1f?]+(?:think|believe|guess|say|conclude)")
_THINK_WORDS: Final = frozenset({b"think", b"believe", b"guess", b"say", b"conclude"})


def _it_starts(projected: bytes) -> list[int]:
    """Every place a match of ``_CONCLUSIONS[1]`` can start, in order: the text's start, right
    after a newline or a stop that blanks and it/this follow, and an ``I``/``we`` with no ASCII
    word character before it that ``(would) think`` (believe, guess, say, conclude) follows —
    only when one of those verbs is a word of the text (the pattern bounds it with blanks)."""
    found = [0]
    found.extend(_after_stop_starts(projected))
    if not _words(projected).isdisjoint(_THINK_WORDS):
        for m in _I_THINK.finditer(projected):
            at = m.start()
            if at == 0 or projected[at - 1] not in _ASCII_WORD:
                found.append(at)
        found = sorted(set(found))
    return found


#: The stops of :data:`_IT_AFTER_STOP`, and the blanks it lets follow them.
_IT_STOPS: Final = frozenset(b"\n.;,!:\x00?")
_IT_BLANKS: Final = frozenset(b" \t")


def _after_stop_starts(projected: bytes) -> list[int]:
    """Where each match of :data:`_IT_AFTER_STOP` in ``projected`` starts, plus one (right after
    its stop), in order — found from the words: each ``it`` or ``this``, back over blanks, right
    after a stop.  (A scan for the stops, which a text with CJK — a ``?`` each — holds at most
    places, tries the pattern at each of them.)  A match is a stop, blanks, ``it``/``this``; no
    stop lies inside one, so ``finditer`` gives every stop that blanks and the word follow, each
    found here once, from the word's own place."""
    found: list[int] = []
    for word in (b"it", b"this"):
        at = projected.find(word)
        while at >= 0:
            start = at
            while start > 0 and projected[start - 1] in _IT_BLANKS:
                start -= 1
            if start > 0 and projected[start - 1] in _IT_STOPS:
                found.append(start)
            at = projected.find(word, at + 1)
    found.sort()
    return found


#: Where matches start, for patterns that open with ``\b`` and one of a few words that prose
#: holds often ("so", "answering"): every match starts at an occurrence of one of these words
#: in :func:`_projected` that no ASCII word character precedes, so only those places are tried
#: (``Pattern.match`` there finds what ``finditer`` finds there: look-behinds and ``\b`` see
#: the text before ``pos``).  Per pattern: the words; words whose presence makes that list
#: incomplete (``in conclusion`` starts at ``in``), so the plain scan runs; whether the word
#: must end at a word boundary (the pattern has ``\b`` or ``\s`` right after it, and after
#: each word of the second element: then both are looked up in :func:`_words`); or, in
#: place of the words, a stdlib pattern whose matches in :func:`_projected` start at every place
#: a match can start (it opens with the word and asks for what the pattern needs next), or a
#: :data:`_Locator`.
_STARTS: Final[dict[str, tuple[tuple[str, ...] | re.Pattern[bytes] | _Locator, tuple[str, ...], bool]]] = {
    # answer, then blanks and a verb, : = a line break or a dash (– and — are ? in the projection)
    _MARKERS[0]: (re.compile(rb"answer(?=[ \t]*(?:is|would|should|must|has|will|[:=\n?-]))"), (), False),
    _CONCLUSIONS[0]: (
        ("so", "therefore", "thus", "hence", "consequently", "accordingly", "overall"),
        ("conclusion", "summary", "conclude"),
        True,
    ),
    # a line start or a stop, blanks, it/this; or I/we (would) think … ("it is" fills
    # option-by-option reasoning: without start places the whole text is scanned at every place)
    _CONCLUSIONS[1]: (_it_starts, (), False),
    _HEDGES[0]: (("might", "may", "could"), (), True),
    _HEDGES[1]: (("possibly", "perhaps", "maybe"), (), False),
    _WEAK[0]: (("option", "choice"), (), True),
}
_ASCII_WORD: Final = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")


#: A whole output that is one plain statement of one upper-case letter — ``answer is (B).``,
#: ``Answer: B``, ``The answer is "C"``, ``答案是:"D"。``, ``故选B``, ``(B)``, ``B.`` (what the
#: shipped chain leaves of most outputs).  For such a text (and a domain given as a count) the
#: tiers find exactly this: the marker (``_MARKERS[0]``, ``[4]`` or ``[9]``; none for a lone
#: letter, which the last tier reads) followed by a token of one letter with nothing after it
#: but a full stop, so no continuation, negation, second answer or retraction; no other pattern
#: can match (no ``is``/是 after a letter, no conclusion or hedge word, nothing after the
#: letter).  Every character of such a text is one :func:`prepare_text` keeps (ASCII letters,
#: blanks, ``:()".``, the CJK of the markers, ``。``), so the text is its own prepared form.
#: tests/test_choice_speed.py checks both against the old parser on generated texts.
_WHOLE_STATEMENT: Final = re.compile(
    r"(?:(?:[Tt]he )?(?:answer|Answer|ANSWER)(?: is | is: | is:|: |:)|答案[是为]:?|(?:故|所以|因此)?选)?"
    r"(?:\((?P<b>[A-Z])\)|\"(?P<q>[A-Z])\"|(?P<l>[A-Z]))[.。]?"
)


class _Plan(NamedTuple):
    """What :func:`_finditer` checks before (or instead of) a plain scan of one pattern."""

    compiled: regex.Pattern[str]
    words: tuple[frozenset[bytes], ...]
    #: each group of :data:`_NEEDS`: its ASCII literals (looked up in the projection), the others
    #: (looked up in the text: no other character folds to them)
    needs: tuple[tuple[tuple[bytes, ...], tuple[str, ...]], ...]
    screens: tuple[tuple[bytes | None, re.Pattern[bytes]], ...] | None
    starts: tuple[tuple[bytes, ...] | re.Pattern[bytes] | _Locator, tuple[bytes, ...], bool] | None


def _plan(pattern: str) -> _Plan:
    starts = _STARTS.get(pattern)
    return _Plan(
        compile_pattern(pattern),
        _WORDS.get(pattern, ()),
        tuple(
            (tuple(w.encode() for w in group if w.isascii()), tuple(w for w in group if not w.isascii()))
            for group in _NEEDS.get(pattern, ())
        ),
        _SCREENS.get(pattern),
        None
        if starts is None
        else (
            tuple(w.encode() for w in starts[0]) if isinstance(starts[0], tuple) else starts[0],
            tuple(w.encode() for w in starts[1]),
            starts[2],
        ),
    )


#: Every pre-checked pattern's checks in one place (one lookup per scan).
_PLANS: Final = {pattern: _plan(pattern) for pattern in (*_WORDS, *_NEEDS, *_SCREENS, *_STARTS)}


def _finditer(
    pattern: str,
    text: str,
    pos: int = 0,
    endpos: int | None = None,
    *,
    projected: bytes | None = None,
    keep: Callable[[int], bool] | None = None,
    opened: bool = False,
) -> Iterator[regex.Match[str]]:
    """``compile_pattern(pattern).finditer(text, pos, endpos)``, or nothing when a pre-check
    (:data:`_WORDS`, :data:`_NEEDS`, :data:`_SCREENS`) shows it cannot match; only at the places
    :data:`_STARTS` names when it has them.  ``projected``: :func:`_projected` of ``text``, when
    the caller has it.  ``keep``: the caller's test of a start place, where a match there (if any)
    could not matter to it and would hold no other start place (:func:`_may_conclude`).
    ``opened``: the caller found the pattern among :func:`_open_patterns` of ``text``."""
    plan = _PLANS.get(pattern)
    if plan is None:
        return compile_pattern(pattern).finditer(text, pos, endpos)
    compiled, _, _, screens, starts = plan
    if projected is None:
        projected = _projected(text)
    # A word gate reads words of the whole text; an ``endpos`` inside a word ends the word there.
    whole_text = endpos is None or endpos >= len(text)
    if not (opened and whole_text) and not _open(plan, text, projected, whole_text):
        return iter(())
    if screens is not None:
        for guard, screen in screens:
            if guard is not None and whole_text and guard not in _words(projected):
                continue
            if screen.search(projected) is not None:
                break
        else:
            return iter(())
    if starts is not None:
        starts_at, unless, whole = starts
        whole = whole and whole_text
        if whole and isinstance(starts_at, tuple):  # only the words the text holds
            present = _words(projected)
            starts_at = tuple(word for word in starts_at if word in present)
            missing = present.isdisjoint(unless)
        else:
            missing = not any(word in projected for word in unless)
        if missing:
            places = (
                _word_starts(projected, starts_at, whole)
                if isinstance(starts_at, (tuple, re.Pattern))
                else starts_at(projected)
            )
            return _matches_at(compiled, text, places, pos, endpos, keep)
    return compiled.finditer(text, pos, endpos)


def _open(plan: _Plan, text: str, projected: bytes, whole_text: bool) -> bool:
    """Whether ``plan``'s word gates (read only when ``whole_text``) and literal needs pass."""
    if plan.words and whole_text:
        present = _words(projected)
        for alternatives in plan.words:
            if present.isdisjoint(alternatives):
                return False
    return _open_needs(plan, text, projected)


def _open_needs(plan: _Plan, text: str, projected: bytes) -> bool:
    """Whether ``plan``'s literal needs pass."""
    for ascii_literals, other_literals in plan.needs:  # loops, not any(...): ~20 times a row
        for literal in other_literals:
            if literal in text:
                break
        else:
            for ascii_literal in ascii_literals:
                if ascii_literal in projected:
                    break
            else:
                return False
    return True


def _open_patterns(
    text: str, projected: bytes, patterns: tuple[str, ...], *, screened: bool = False
) -> list[str]:
    """The ``patterns`` whose word gates and literal needs pass on the whole ``text`` (one call
    for a tier instead of one scan call for each of its patterns).  ``screened``: a pattern
    whose screens have no guard is first tried on them (a search each) and dropped when none
    finds anything, as :func:`_finditer` would — before the word gates, whose word set
    (:func:`_words`) costs more than those searches when no other pattern has built it."""
    open_ = []
    for pattern in patterns:
        plan = _PLANS.get(pattern)
        if plan is None:
            open_.append(pattern)
            continue
        if screened and plan.screens is not None and all(guard is None for guard, _ in plan.screens):
            if not _open_needs(plan, text, projected):
                continue
            for _, screen in plan.screens:
                if screen.search(projected) is not None:
                    break
            else:
                continue
        if _open(plan, text, projected, True):
            open_.append(pattern)
    return open_


def _word_starts(projected: bytes, words: tuple[bytes, ...] | re.Pattern[bytes], whole: bool) -> list[int]:
    """Where one of ``words`` (or a match of the locator) occurs in ``projected`` with no ASCII
    word character before it (and, when ``whole``, none after it), in order."""
    found: list[int] = []
    if isinstance(words, re.Pattern):
        for located in words.finditer(projected):
            at = located.start()
            if at == 0 or projected[at - 1] not in _ASCII_WORD:
                found.append(at)
        return found
    size = len(projected)
    for word in words:
        at = projected.find(word)
        while at >= 0:
            after = at + len(word)
            if (at == 0 or projected[at - 1] not in _ASCII_WORD) and not (
                whole and after < size and projected[after] in _ASCII_WORD
            ):
                found.append(at)
            at = projected.find(word, at + 1)
    found.sort()
    return found


def _matches_at(
    compiled: regex.Pattern[str],
    text: str,
    starts: list[int],
    pos: int,
    endpos: int | None,
    keep: Callable[[int], bool] | None = None,
    opened: bool = False,
) -> Iterator[regex.Match[str]]:
    """``compiled.finditer(text, pos, endpos)`` when every match starts at one of ``starts``
    (sorted) and none is empty: the leftmost match is the first place that matches, and the
    next is searched from its end.  Places ``keep`` refuses are passed over."""
    limit = len(text) if endpos is None else endpos
    for at in starts:
        if at < pos:
            continue
        if at >= limit:
            return
        if keep is not None and not keep(at):
            continue
        match = compiled.match(text, at, endpos)
        if match is not None:
            yield match
            pos = match.end()


@dataclass(frozen=True)
class _Statement:
    """Letters one statement names (a set of indices into A–Z), where it starts."""

    at: int
    letters: frozenset[int]


# --------------------------------------------------------------------------- the parser


@parser("choice", version=3, params=ChoiceParams)
def parse_choice(text: str, params: ChoiceParams, ctx: ParseContext) -> Parsed:
    """The upper-case option letter the output states, or ``None`` with a status.

    Bound: O(n): each statement pattern scans the text once; every statement reads a bounded window after its marker.

    >>> ctx = ParseContext(options=4)
    >>> parse_choice("Let's think. ... The answer is (B).", ChoiceParams(), ctx).answer
    'B'
    >>> parse_choice("最终答案是Ｄ", ChoiceParams(), ctx).answer
    'D'
    >>> parse_choice("The answer is D, not A.", ChoiceParams(), ctx).answer
    'D'
    >>> parse_choice("The answer is A or B.", ChoiceParams(), ctx).status
    'contradictory'
    >>> parse_choice("The answer is (F).", ChoiceParams(), ctx).status
    'out_of_range'
    >>> parse_choice("I am not sure.", ChoiceParams(), ctx).status
    'no_answer'
    >>> parse_choice("It's not A since it is too slow, therefore I think it's B", ChoiceParams(), ctx).answer
    'B'
    >>> parse_choice("ANSWER: A\\nWait, that is wrong.\\nANSWER: B", ChoiceParams(), ctx).answer
    'B'
    >>> parse_choice("I think it's (B), but (C) is also plausible.", ChoiceParams(), ctx).status
    'contradictory'
    >>> opts = ParseContext(options=("Guilty", "Guilty of Romance", "Cold Fish"))
    >>> parse_choice("The answer is Guilty of Romance.", ChoiceParams(), opts).answer
    'B'
    """
    count, texts = option_domain(ctx.options, params.default_options)
    timeout = ctx.timeout
    if params.mode == "multi_select":
        return parse_multi_select(text, count, params.conflict, timeout)
    if not texts:  # the common whole statement, read in one step (the tiers would read the same)
        # prepare_text leaves such a statement as it is (none of its characters changes), so
        # the output as given is tried first, then as prepared ("**Answer:** B").
        whole = _WHOLE_STATEMENT.fullmatch(text)
        if whole is not None:
            return _decide_one(LETTERS.index(whole["b"] or whole["q"] or whole["l"]), count)
    prepared = prepare_text(text, timeout=timeout)
    if not texts:
        whole = _WHOLE_STATEMENT.fullmatch(prepared)
        if whole is not None:
            return _decide_one(LETTERS.index(whole["b"] or whole["q"] or whole["l"]), count)
    norm_options = tuple(normalize_option(o, timeout=timeout) for o in texts) if texts else ()

    unled = None if texts else _unled(prepared)
    if unled is not None:
        # No marker, conclusion, hedge or weak marker leads to a letter (proof at _unled): only
        # the letters the before/weak patterns hold and the whole output can state one; those
        # patterns that need an upper-case letter with a blank or CJK after it, only if one is.
        captures = unled.captures
        readers: tuple[Callable[[], list[_Statement]], ...] = (
            (lambda: _marker_statements(prepared, count, norm_options, timeout, led=False)) if captures else list,
            list,
            list,
            lambda: _weak_statements(prepared, count, norm_options, timeout, led=False, captures=captures),
            lambda: _whole_statements(prepared, count, norm_options, timeout),
        )
    else:
        readers = (
            lambda: _marker_statements(prepared, count, norm_options, timeout),
            lambda: _led_statements(prepared, _CONCLUSIONS, count, norm_options, timeout),
            lambda: _led_statements(prepared, _HEDGES, count, norm_options, timeout),
            lambda: _weak_statements(prepared, count, norm_options, timeout),
            lambda: _whole_statements(prepared, count, norm_options, timeout),
        )
    read: dict[int, list[_Statement]] = {}

    def tier(index: int) -> list[_Statement]:  # each tier read once, and only when needed
        if index not in read:
            read[index] = readers[index]()
        return read[index]

    for index in range(len(readers)):
        statements = tier(index)
        if statements:
            after = _after_retraction(prepared, statements, tier, len(readers), timeout)
            chosen = _unretracted(prepared, after, timeout)
            if params.conflict == "contradictory":  # a second answer offered beside the first
                also = _led_statements(prepared, _ALSO_BEFORE, count, norm_options, timeout, strict=False)
                also += _also_after(prepared, timeout)
                taken = {c.at for c in chosen}
                chosen += [a for a in also if a.at > chosen[0].at and a.at not in taken]
                if index == 2 and any(_offered_as_alternative(prepared, c.at) for c in chosen):
                    return Parsed(
                        None,
                        st.CONTRADICTORY,
                        "a hedged alternative ('or maybe D') offered to an answer stated before it",
                    )
            return _decide(sorted(chosen, key=lambda c: c.at), count, params.conflict)
    return Parsed(
        None,
        st.NO_ANSWER,
        "no stated answer: no answer marker, leading letter, lone letter or option text",
    )


# --------------------------------------------------------------------------- multi-select

#: What states a multi-select answer: an answer marker (``Answer:``, ``The answers are``,
#: ``答案是``, ``正确答案：``, ``故选``/``选``), a box, a line-start ``答:``; the letters follow.
_MULTI_MARKER: Final = (
    r"(?i:\b(?:(?:the\s+)?(?:final\s+|correct\s+)?answers?|(?:the\s+)?correct\s+(?:options?|choices?))"
    r"[ \t]*(?:(?:is|are|would\s+be)[ \t]*[:=]?|[:=])[ \t]*)"
    r"|\\(?:boxed|fbox)\s*\{"
    r"|(?:最终|正确)?答案\s*(?:(?:应该|应当|应|就|则|也)\s*)?(?:是|为|選|选|:)\s*:?"
    r"|正确的?选项\s*(?:是|为|:)\s*"
    r"|(?m:^[ \t#>]*答\s*:)"
    r"|(?<!不|如果|若|是否|可能|也许|或许)选(?:择)?(?!项|择题|出|取|修|中)\s*:?"
)
#: A set of letters: single capitals, bracketed or not, joined by nothing, blanks, commas, 、,
#: "and", 和/与/及; it ends where a letter, digit or another word would go on.
_LETTER_SET: Final = (
    r"[ \t]*(?:(?i:options?|choices?)\s+|选项\s*)?"
    r"(?P<set>[(\[【]?[A-Z][)\]】]?(?:[ \t]*(?:[,，、;；/&+]|和|与|及|以及|(?i:and)(?![A-Za-z]))?[ \t]*[(\[【]?[A-Z][)\]】]?)*)"
    r"(?![A-Za-z0-9])"
)
#: What may follow a set: the end of the statement.
_SET_END: Final = r"[ \t]*(?:$|\n|[.。,，;；!！?？)}\]】<*\"']|(?i:because|since)\b|因为|由于)"
#: A set given as alternatives is no answer: "A or B", "A或B".
_SET_ALTERNATIVE: Final = r"(?i:\bor\b)|或"
_WHOLE_SET: Final = r"\A[\s\"'(\[【{<:*]*(?P<set>[A-Z](?:[ \t]*(?:[,，、;；/&+]|和|与|及|(?i:and))?[ \t]*[A-Z])*)[\s\"')\]】}>.。,，!！:*]*\Z"


def parse_multi_select(text: str, count: int, conflict: str, timeout: float) -> Parsed:
    """The set of option letters a multi-select output states, as its letters in order (``ABD``).

    Read after an answer marker (``答案：ABD``, ``The answers are A, B and D``, ``故选ABD``,
    ``\\boxed{AD}``), or as the whole output (``A B D``, ``A、C``).  Letters run together must
    rise (``ABD``; ``BAD`` or ``BECAUSE`` is a word); a set joined by "or"/或 is a guess between
    sets (``contradictory``); two statements of different sets are ``contradictory`` (or the last
    with ``conflict="last"``); a letter past the domain is ``out_of_range``.

    >>> parse_multi_select("解析…\\n答案：ABD", 4, "contradictory", 0.5).answer
    'ABD'
    >>> parse_multi_select("The answers are A, C and D.", 4, "contradictory", 0.5).answer
    'ACD'
    >>> parse_multi_select("答案是A或B", 4, "contradictory", 0.5).status
    'contradictory'
    >>> parse_multi_select("The answer is BECAUSE", 26, "contradictory", 0.5).status
    'no_answer'
    """
    prepared = prepare_text(text, timeout=timeout)
    sets: list[tuple[int, str]] = []
    letter_set = compile_pattern(_LETTER_SET)
    end = compile_pattern(_SET_END)
    alternative = compile_pattern(_SET_ALTERNATIVE)
    for marker in compile_pattern(_MULTI_MARKER).finditer(prepared, timeout=timeout):
        found = letter_set.match(prepared, marker.end(), timeout=timeout)
        if found is None:
            continue
        line_end = prepared.find("\n", found.end())
        tail = prepared[found.end() : line_end if line_end >= 0 else len(prepared)]
        if alternative.match(tail.lstrip(" \t,，")) is not None:
            return Parsed(None, st.CONTRADICTORY, f"the output offers sets as alternatives: {prepared[marker.start() : found.end()]!r} or …")
        if end.match(prepared, found.end(), timeout=timeout) is None:
            continue
        letters = _set_letters(found["set"])
        if letters is None:
            continue
        sets.append((marker.start(), letters))
    if not sets:
        whole = compile_pattern(_WHOLE_SET).match(prepared, timeout=timeout)
        letters = _set_letters(whole["set"]) if whole is not None else None
        if letters is None:
            return Parsed(None, st.NO_ANSWER, "no stated set of option letters (multi-select)")
        sets.append((0, letters))
    distinct = list(dict.fromkeys(letters for _, letters in sets))
    if len(distinct) > 1 and conflict == "contradictory":
        return Parsed(None, st.CONTRADICTORY, f"the output states different sets: {', '.join(distinct[:3])}")
    answer = sets[-1][1]
    past = [c for c in answer if LETTERS.index(c) >= count]
    if past:
        return Parsed(None, st.OUT_OF_RANGE, f"letter {past[0]} is past the {count} options")
    return Parsed(answer, st.OK, extra={"choice_mode": "multi_select"})


def _set_letters(written: str) -> str | None:
    """The letters of a written set in order, or ``None`` when a run of letters written together
    does not rise (a word, not a set)."""
    letters: list[str] = []
    run = ""
    for char in written + " ":
        if "A" <= char <= "Z":
            run += char
            continue
        if len(run) > 1 and any(run[i] >= run[i + 1] for i in range(len(run) - 1)):
            return None
        letters.extend(run)
        run = ""
    if not letters:
        return None
    return "".join(sorted(set(letters)))


def option_domain(options: Sequence[str] | int | None, default: int | None) -> tuple[int, tuple[str, ...]]:
    """The option count and the option texts (empty when only a count is known).

    >>> option_domain(("yes", "no"), 26)
    (2, ('yes', 'no'))
    >>> option_domain(None, 26)
    (26, ())
    >>> option_domain(27, 26)
    Traceback (most recent call last):
    ...
    ValueError: the option count must be 2 to 26, got 27
    """
    if options is None:
        if default is None:
            raise ValueError("the row has no options and the choice parser has no default_options")
        return _check_count(default), ()
    if isinstance(options, bool) or not isinstance(options, (int, tuple, list)):
        raise ValueError(f"options must be a list of option texts or a count, got {options!r}")
    if isinstance(options, int):
        return _check_count(options), ()
    bad = [o for o in options if not isinstance(o, str)]
    if bad:
        raise ValueError(f"option texts must be strings, got {bad[0]!r}")
    if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
        raise ValueError(f"there must be 2 to 26 options, got {len(options)}: {tuple(options)!r}")
    return len(options), tuple(options)


def _check_count(count: int) -> int:
    if not MIN_OPTIONS <= count <= MAX_OPTIONS:
        raise ValueError(f"the option count must be 2 to 26, got {count!r}")
    return count


def prepare_text(text: str, *, timeout: float) -> str:
    """Drop invisible format characters (zero-width spaces and joiners, bidi marks, BOM: Unicode
    category Cf), fold compatibility forms (NFKC), unify quotes, unwrap ``\\text{}``, drop
    markdown marks.

    >>> prepare_text("The answer is \\u200b\\u200fB", timeout=0.5)
    'The answer is B'

    >>> prepare_text("答案：**Ｂ**", timeout=0.5)
    '答案:B'
    >>> prepare_text("$\\\\boxed{\\\\text{C}}$", timeout=0.5)
    '\\\\boxed{C}'
    """
    visible = text
    if not text.isascii() and _may_hold_format_char(text) and _MAYBE_FORMAT_CHAR.search(text) is not None:
        # rare: the slow exact test
        visible = "".join(c for c in text if unicodedata.category(c) != "Cf")
    composed = unicodedata.normalize("NFKC", visible)
    if not _holds_prepare_char(composed):  # no quote to unify, no backslash, no mark: as it is
        return composed
    folded = _QUOTE_TABLE.translate(composed) if _holds_quote(composed) else composed
    unwrapped = compile_pattern(_LATEX_TEXT).sub(r"\1", folded) if _may_wrap_text(folded) else folded
    if not _DECORATION_CHARS.search(unwrapped):
        return unwrapped
    if "_" not in unwrapped and not any(pair in unwrapped for pair in _MATH_DELIMITERS):
        # only the one-character marks can match: what the scan drops, dropped by replace
        return unwrapped.replace("*", "").replace("`", "").replace("$", "")
    return compile_pattern(_DECORATION).sub("", unwrapped)


#: The two-character math delimiters :data:`_DECORATION` drops (its other matches are ``* ` $``
#: and runs of ``_``).
_MATH_DELIMITERS: Final = ("\\(", "\\)", "\\[", "\\]")


def _may_wrap_text(text: str) -> bool:
    """Whether :data:`_LATEX_TEXT` may match: each of its commands opens with one of these
    (LaTeX in reasoning is mostly ``\\frac``, ``\\times``: no ``\\text``-like command)."""
    return "\\" in text and ("\\text" in text or "\\math" in text or "\\mbox" in text)


#: UTF-8 bytes that start no format character (Unicode category Cf): every byte but the lead
#: bytes ``C2`` (U+00AD), ``D8``–``DF`` (Arabic, Syriac), ``E0``–``E2`` (U+0890–U+2FFF),
#: ``EF`` (U+FEFF, U+FFF9–U+FFFB) and ``F0``–``F4`` (supplementary planes); a test checks every
#: Cf character's lead byte is kept.  CJK (``E3``–``E9``) and Latin, Greek, Cyrillic letters go.
_NO_FORMAT_BYTES: Final = bytes(
    b for b in range(256) if not (b == 0xC2 or 0xD8 <= b <= 0xE2 or b == 0xEF or 0xF0 <= b <= 0xF4)
)


def _may_hold_format_char(text: str) -> bool:
    """False only when ``text`` holds no format character (Unicode category Cf): its UTF-8 holds
    no byte that starts one (:data:`_NO_FORMAT_BYTES`; a byte-table pass, faster than the
    ``regex`` scan for category Cf on CJK text)."""
    return bool(text.encode("utf-8", "surrogatepass").translate(None, _NO_FORMAT_BYTES))


#: The characters :data:`_QUOTE_TABLE` maps.
_QUOTE_CHARS: Final = tuple(_QUOTE_TABLE.table)


def _holds_quote(text: str) -> bool:
    """Whether a character :data:`_QUOTE_TABLE` maps occurs in ``text`` (else its ``translate``
    leaves the text as it is): on a long text one ``in`` test each (memchr scans: their low
    bytes are rare) is several times faster than the table's class scan."""
    if len(text) <= 64:
        return _QUOTE_TABLE.present(text)
    for char in _QUOTE_CHARS:
        if char in text:
            return True
    return False


#: The characters :data:`_PREPARE_CHARS` finds, one by one.
_PREPARE_CHAR_LIST: Final = (*sorted(_QUOTE_TABLE.table), "*", "`", "$", "\\", "_")


def _holds_prepare_char(text: str) -> bool:
    """Whether :data:`_PREPARE_CHARS` finds a character in ``text``: on a long text one memchr
    per character is faster than the class scan."""
    if len(text) <= 64:
        return _PREPARE_CHARS.search(text) is not None
    for char in _PREPARE_CHAR_LIST:
        if char in text:
            return True
    return False


def normalize_option(text: str, *, timeout: float) -> str:
    """An option text (or a stated text) as compared: casefolded, no quotes, one space, no end stop.

    >>> normalize_option('  “Guilty of  Romance.” ', timeout=0.5)
    'guilty of romance'
    """
    prepared = prepare_text(text, timeout=timeout).replace('"', "").replace("'", "")
    collapsed = " ".join(prepared.casefold().split())
    return collapsed.rstrip(_TRAILING + " ").strip("()[]【】 ")


# --------------------------------------------------------------------------- tiers


def _marker_statements(
    text: str, count: int, options: tuple[str, ...], timeout: float, *, led: bool = True
) -> list[_Statement]:
    """Statements after a marker and letters before one; ``led=False``: only the latter (the
    caller knows no marker leads to a letter, :func:`_unled`)."""
    found: dict[int, _Statement] = {}
    projected = _projected(text)
    for pattern in _open_patterns(text, projected, _MARKERS) if led else ():
        for marker in _finditer(pattern, text, projected=projected, opened=True):
            statement = _statement_at(text, marker.end(), count, options, timeout)
            if statement is not None:
                found.setdefault(statement.at, statement)
    for pattern in _open_patterns(text, projected, _BEFORE_PATTERNS, screened=not led):
        for match in _finditer(pattern, text, projected=projected, opened=True):
            if _brackets_pair(match["open"], match["close"]):
                at = match.start("letter")
                found.setdefault(at, _Statement(at, frozenset({LETTERS.index(match["letter"])})))
    return [found[at] for at in sorted(found)]


def _led_statements(
    text: str, leads: tuple[str, ...], count: int, options: tuple[str, ...], timeout: float, *, strict: bool = True
) -> list[_Statement]:
    """Statements after a conclusion or a hedge: the letter must end its clause (``strict``)."""
    found: dict[int, _Statement] = {}
    projected = _projected(text)
    for pattern in _open_patterns(text, projected, leads):
        keep = None
        if pattern == _CONCLUSIONS[0] and strict and not options:  # "so the …": no statement
            keep = partial(_may_conclude, text, projected)
        for lead in _finditer(pattern, text, projected=projected, keep=keep, opened=True):
            token = _read_token(text, lead.end(), count, timeout, strict_follow=True)
            if token is None:
                hit = _anchored_option(text, lead.end(), options, timeout) if options else None
                if hit is not None and compile_pattern(_STATEMENT_END).match(text, hit[2]):
                    found.setdefault(hit[1], _Statement(hit[1], frozenset({hit[0]})))  # "Therefore, Light Blue."
                continue
            letters, at, end = token
            more, end = _continuation(text, end, count, timeout)
            if strict and compile_pattern(_STATEMENT_END).match(text, end) is None:
                continue  # "Therefore, A is wrong": the letter is the subject of a clause
            found.setdefault(at, _Statement(at, frozenset(letters | more)))
    return [found[at] for at in sorted(found)]


#: A conclusion word, blanks, a comma, blanks, then the run of ASCII letters there (projected).
_CONCLUSION_HEAD: Final = re.compile(rb"[a-z]+[ \t]*,?[ \t]*([a-z]*)")
#: Every word the conclusion pattern spells: a superset of the words its optional parts open
#: with (``I``/``we`` think, ``it``/``this`` is, the adverbs).
_CONCLUSION_WORDS: Final = frozenset(word.encode() for word in re.findall("[a-z]+", _CONCLUSIONS[0].lower()))


def _may_conclude(text: str, projected: bytes, at: int) -> bool:
    """False only where the conclusion word at ``at`` can lead to no statement when the options
    are a count: what follows its blanks and comma is no comma, no word its optional parts open
    with, and no token (:func:`_may_start_token`).  Then a match there ends right there, before
    the next word (which holds no other start place), and reads no letter."""
    head = _CONCLUSION_HEAD.match(projected, at)
    if head is None:  # pragma: no cover - a start place holds a conclusion word
        return True
    run, after = head[1], head.start(1)
    if after < len(projected) and projected[after] == 0x2C:  # a second comma: an adverb may follow
        return True
    if run and (len(run) == 1 or run in _CONCLUSION_WORDS):
        return True
    return _may_start_token(text, after)


#: Endings of the leads that can end with an ASCII letter and without ``\b`` or a blank after
#: it, so a letter may follow inside one run of ASCII letters ("perhapsB."): ``as follows``
#: (``_MARKERS[0]``); ``réponse … est``, ``respuesta … es``, ``antwort … ist/lautet``
#: (``_MARKERS[10]``; its other endings are ``:``, ``é``, ``è``); ``possibly/perhaps/maybe``
#: (``_HEDGES[1]``).  (``answer is`` before ``n't``, ``_MARKERS[5]``, ends with a letter too, but
#: there the ``n't`` is read as a negation, never as a letter token.)  Every other lead ends with
#: ``\b`` (no letter can follow), a blank, a comma, a colon, ``=``, a dash, ``{`` or CJK.
_MID_WORD_ENDINGS: Final = (b"follows", b"est", b"es", b"ist", b"lautet", b"possibly", b"perhaps", b"maybe")
#: Characters no marker, conclusion or hedge ends with (nor ``not``/``n't``/``不是``/``并非``),
#: even before blanks: the last character of a lead that is no blank and no opening bracket or
#: quote is an ASCII letter (ending one of :data:`_LEAD_END_WORDS`), a CJK character,
#: ``, : = – — - ，：`` or ``{`` (tests/test_choice_speed.py checks it on every lead pattern).
_NO_LEAD_ENDS: Final = frozenset(".。!?！？;；")
#: The last words of leads (as projected): ``answer`` (``answer`` + line break), ``is``/``be``
#: (``is``, ``must be`` …, also glued as in ``answeris``, ``optionis``: any run ending in ``is``
#: counts), the adverbs' last words, ``choose pick select with for`` (I choose …), ``boxed
#: fbox``, ``not`` and ``t`` (``n't``), ``s`` (``it's``), the conclusion words, ``think believe
#: conclude say guess that`` (so I think that), ``either`` (might be either), and the words of
#: :data:`_MID_WORD_ENDINGS`; and the words :data:`_TOKEN` reads before its letters.  Each is a
#: whole run of ASCII letters: the patterns put ``\b``, a blank or an apostrophe before it.
_LEAD_END_WORDS: Final = frozenset(
    word.encode()
    for word in (
        "therefore", "thus", "hence", "clearly", "definitely", "indeed", "actually", "then", "simply", "still",
        "obviously", "likely", "probably", "just", "sure", "surely", "certainly", "undoubtedly", "unquestionably",
        "absolutely", "course", "doubt", "fact", "really", "ultimately", "finally",
        "answer", "is", "be", "follows", "est", "es", "ist", "lautet", "possibly", "perhaps", "maybe",
        "choose", "pick", "select", "with", "for", "boxed", "fbox", "not", "t", "s",
        "so", "consequently", "accordingly", "conclusion", "overall", "summary", "conclude",
        "think", "believe", "say", "guess", "that", "either", "both", "option", "choice", "letter",
    )
)
#: What may stand between a lead's end and its letter when no "option"/"either" word does:
#: blanks (``[ \t]*(?:\n[ \t]*){0,2}``) and one opening bracket or quote (:data:`_TOKEN`).
_TOKEN_OPENERS: Final = frozenset("([{<【\"'")
#: :func:`_projected` bytes for :data:`_LOWER_TOKEN_REVERSED`: ``P`` for a character that may
#: follow a lower-case letter token (``\x00`` stands for ``?``, ``\x01`` for ``。、】``), blanks
#: and lower-case letters as they are, ``?`` for anything else.
_FOLLOW_TABLE: Final = bytes(
    0x50 if c in b"\x00\x01\n.,;:!)]}>\"'" else c if 0x61 <= c <= 0x7A or c in b" \t" else 0x3F for c in range(256)
)
#: In the reversed :data:`_FOLLOW_TABLE` bytes (the end of the text framed as a ``P``, a literal
#: the scan looks for first): a follow, blanks, then a letter that is either no part of a longer
#: run of ASCII letters, or follows one of :data:`_MID_WORD_ENDINGS` (group ``mid``).
_LOWER_TOKEN_REVERSED: Final = re.compile(
    rb"P[ \t]*[a-z](?:(?![a-z])|(?P<mid>" + b"|".join(re.escape(word[::-1]) for word in _MID_WORD_ENDINGS) + rb"))"
)
#: ``U`` for an ASCII upper-case letter, ``.`` for any other byte.
_UPPER_MARK: Final = bytes(0x55 if 0x41 <= c <= 0x5A else 0x2E for c in range(256))
_ASCII_LETTERS: Final = frozenset(b"abcdefghijklmnopqrstuvwxyz")


#: Bytes of :func:`_ascii_views`' encoding that may follow the upper-case letter
#: ``_BEFORE_PATTERNS`` and ``_WEAK[1]`` (and ``_WEAK[2]``'s second form) hold: a closing
#: bracket or quote, ``\s`` (a test checks that the ``regex`` module's ``\s`` holds no other
#: ASCII character), ``\x01`` (``】`` among ``。、】``), ``\x00`` (``?``, taken too), and ``?``
#: (any other non-ASCII character: ``选 项 是 为 正 对``, blanks).
_CAPTURE_FOLLOWS: Final = frozenset(b")]\"'?\x00\x01 \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")


class _Unled(NamedTuple):
    """What :func:`_unled` found when no marker, conclusion, hedge or weak marker of a text is
    followed by a letter token."""

    #: whether an upper-case ASCII letter is followed by one of :data:`_CAPTURE_FOLLOWS` or a
    #: non-ASCII character: only then can ``_BEFORE_PATTERNS`` and ``_WEAK[1]`` match, whose
    #: ``[A-Z]`` letter is followed by a closing bracket or quote, ``\s``, ``选项``, ``项``, ``是``
    #: or ``为``, and ``_WEAK[2]``'s second form (its first needs ``选项`` before the letter).
    captures: bool


def _unled(text: str) -> _Unled | None:
    """Not None only when, the options being a count, no marker, conclusion, hedge or weak marker
    of ``text`` is followed by a letter token :func:`_read_token` accepts — so those tiers state
    nothing, and only the before/weak patterns' own letters and the whole output remain.

    Proof.  With a count, such a statement needs :func:`_read_token` to accept the token at a
    lead's end ``q`` (or at the end of ``not``/``n't``/``不是``/``并非`` right after a marker);
    its letters ``text[s:e]`` are ASCII, ``e`` the end of their run of ASCII letters, and they
    are one upper-case letter, a run of upper-case letters, or one lower-case letter followed by
    ``[ \t]*`` and a line break, the end, ``.,;:!?。，；：！？、`` or a closing bracket or quote
    (``，；：！？`` are not in an NFKC text: :func:`prepare_text`).  ``text[q:s]`` is blanks, an
    opening bracket or quote, and ``either``/``both``/``option``/``choice``/``letter``/``选项``
    words each followed by blanks.  Every such ``s`` is checked:
    (1) ``s`` inside a run of ASCII letters: ``text[q:s]`` is empty (none of its characters is
    an ASCII letter), so a lead ends right before ``s`` with one of :data:`_MID_WORD_ENDINGS`:
    looked up before every upper-case letter inside a run and every lower-case letter that
    ends a run before blanks and a follow (:data:`_LOWER_TOKEN_REVERSED`).
    (2) ``s`` starts its run (an upper-case run, or a lower-case letter found by
    :data:`_LOWER_TOKEN_REVERSED`): :func:`_after_no_lead` goes back from ``s`` over blanks,
    openers and whole runs ``option``/``choice``/``letter``/``both`` (so over ``text[q:s]``, whose
    words are whole runs unless glued to a lead of :data:`_MID_WORD_ENDINGS`, a case it refuses:
    :data:`_GLUED_LEAD_ENDS`) and stops at the lead's last character that is no blank and no
    opener (no lead consists of those only).  No lead ends with a character of
    :data:`_NO_LEAD_ENDS`; one that ends with an ASCII letter ends with a run of
    :data:`_LEAD_END_WORDS`, or one ending as :data:`_GLUED_LEAD_ENDS` lists, or one starting
    with ``follows``; any other character (``:``, ``,``, CJK …) is refused.
    tests/test_choice_speed.py checks this on every lead pattern and compares the parser with the
    old one on texts the screen passes.
    """
    raw, projected, folded = _ascii_views(text)
    if folded:  # rare: (?i) reads İ ı ſ K as ASCII letters
        return None
    if _refused_at_a_glued_capital(text, raw, projected):
        return None  # what the scan below finds at that letter, found first
    return _unled_scan(text, raw, projected)


#: An upper-case ASCII letter right after a character the encoding of :func:`_ascii_views`
#: makes ``?`` (any non-ASCII character but ``。、】``): ``选项C``, ``答B``.
_GLUED_CAPITAL: Final = re.compile(rb"\?[A-Z]")


def _refused_at_a_glued_capital(text: str, raw: bytes, projected: bytes) -> bool:
    """True only where :func:`_unled_scan` refuses the text: a run of upper-case ASCII letters
    right after a non-ASCII character that is no blank, opener (``【``) or stop (``！？；``),
    with no ASCII letter after the run (``选项C：``).  The scan reaches that run (it refuses or
    goes through every run); the run is not inside a word (the character before it is no ASCII
    letter as projected), so it asks :func:`_after_no_lead` at its start, which stops at once at
    that character: no stop, blank or opener, and no ASCII letter — refused.  Chinese reasoning
    names options so on most lines, where the scan would first read every letter before."""
    size = len(raw)
    for found in _GLUED_CAPITAL.finditer(raw):
        at = found.start() + 1
        before = text[at - 1]
        if before.isspace() or before in _TOKEN_OPENERS or before in _NO_LEAD_ENDS:
            continue
        end = at + 1
        while end < size and 0x41 <= raw[end] <= 0x5A:
            end += 1
        if end == size or projected[end] not in _ASCII_LETTERS:
            return True
    return False


def _unled_scan(text: str, raw: bytes, projected: bytes) -> _Unled | None:
    """:func:`_unled` past its first refusals (``raw``, ``projected``: :func:`_ascii_views`)."""
    size = len(projected)
    reversed_ = (projected.translate(_FOLLOW_TABLE) + b"P")[::-1]  # reversed_[k] stands for projected[size - k], k >= 1
    for found in _LOWER_TOKEN_REVERSED.finditer(reversed_):
        if found["mid"] is not None or not _after_no_lead(text, projected, size - (found.end() - 1)):
            return None
    captures = False
    if raw == projected:  # no upper-case letter
        return _Unled(captures)
    upper = raw.translate(_UPPER_MARK)
    at = upper.find(b"U")
    while at >= 0:
        end = at + 1
        while end < size and upper[end] == 0x55:
            end += 1
        inside = at > 0 and projected[at - 1] in _ASCII_LETTERS
        for start in range(at if inside else at + 1, end):  # (1): a letter right after a lead
            if projected.endswith(_MID_WORD_ENDINGS, 0, start):
                return None
        if end < size and raw[end] in _CAPTURE_FOLLOWS:
            captures = True
        if not inside and (end == size or projected[end] not in _ASCII_LETTERS) and not _after_no_lead(text, projected, at):
            return None
        at = upper.find(b"U", end)
    return _Unled(captures)


#: Words :data:`_TOKEN` reads before its letters that end no lead: passed over going back.
_TOKEN_WORDS: Final = frozenset((b"option", b"choice", b"letter", b"both"))
#: How a run of ASCII letters can end with a lead's last word glued to what comes before it:
#: ``is`` (``answeris``, ``optionis``: ``_MARKERS[0]`` and ``[1]`` allow no blank there),
#: ``not`` (``n't``/``not`` right after a lead of :data:`_MID_WORD_ENDINGS`), ``réponseest``,
#: ``respuestaes``, ``antwortist`` … (``_MARKERS[10]``'s ``\s*``), and a word :data:`_TOKEN` reads,
#: right after a lead of :data:`_MID_WORD_ENDINGS`.
_GLUED_LEAD_ENDS: Final = (
    b"is", b"not", b"ponseest", b"correcteest", b"puestaes", b"correctaes", b"antwortist", b"antwortlautet",
    b"option", b"choice", b"letter", b"either", b"both",
)


def _after_no_lead(text: str, projected: bytes, at: int) -> bool:
    """Whether no lead can end before ``at`` with only what :data:`_TOKEN` reads before its
    letters between: going back from ``at`` over blanks, opening brackets and quotes and the
    words of :data:`_TOKEN_WORDS`, the first other character is in :data:`_NO_LEAD_ENDS`, or is
    an ASCII letter (as projected) whose run of ASCII letters is not in :data:`_LEAD_END_WORDS`,
    ends with none of :data:`_GLUED_LEAD_ENDS` and starts with no ``follows`` (an adverb glued
    to ``as follows``); or there is none."""
    i = at - 1
    while i >= 0:
        char = text[i]
        if char in _NO_LEAD_ENDS:
            return True
        if char.isspace() or char in _TOKEN_OPENERS:
            i -= 1
            continue
        if projected[i] not in _ASCII_LETTERS:
            return False
        start = i
        while start > 0 and projected[start - 1] in _ASCII_LETTERS:
            start -= 1
        run = projected[start : i + 1]
        if run in _TOKEN_WORDS:
            i = start - 1
            continue
        return not (run in _LEAD_END_WORDS or run.endswith(_GLUED_LEAD_ENDS) or run.startswith(b"follows"))
    return True


def _after_retraction(
    text: str, statements: list[_Statement], tier: Callable[[int], list[_Statement]], tiers: int, timeout: float
) -> list[_Statement]:
    """The winning tier's ``statements``, unless a retraction follows the last of them and a
    statement of any tier follows the retraction ("The answer is A... no wait, it's B"): then
    the statements after the retraction, from the best tier that has some."""
    last = statements[-1].at
    mark = None
    for found in _finditer(_RETRACTION, text, last):
        mark = found.start()
    if mark is None:
        return statements
    for index in range(tiers):
        later = [s for s in tier(index) if s.at > mark]
        if later:
            return later
    return statements + bare_after_retraction(text, mark)


#: A bare letter that ends its clause: "(B).", "D", "it's C." after "no wait,".
_BARE_LETTER: Final = (
    r"(?<![A-Za-z0-9'’])(?<!(?i:option|choice|letter)\s)(?P<open>[(\[【]?)(?P<letter>[A-Z])(?P<close>[)\]】]?)(?=[ \t]*(?:$|\n|[.,;!?。，；！？]))"
)


def bare_after_retraction(text: str, mark: int) -> list[_Statement]:
    """Bare letters after the retraction at ``mark`` that no tier reads as a statement ("The
    answer is (C) — no wait, (B)."): they join the statements, so the retracted one gives way
    to them (:func:`_unretracted`) rather than stand."""
    found = []
    for match in compile_pattern(_BARE_LETTER).finditer(text, mark):
        if match["letter"] != "I" and _brackets_pair(match["open"], match["close"]):
            found.append(_Statement(match.start("letter"), frozenset({LETTERS.index(match["letter"])})))
    return found


def _also_after(text: str, timeout: float) -> list[_Statement]:
    """Letters offered as a second answer: "(C) is also plausible", "C也正确"."""
    found = []
    for match in _finditer(_ALSO_AFTER, text):
        # "(C is also plausible)": a remark in brackets opened before the letter counts too
        if _brackets_pair(match["open"] or "", match["close"] or "") or (match["open"] and not match["close"]):
            found.append(_Statement(match.start("letter"), frozenset({LETTERS.index(match["letter"])})))
    return found


def _unretracted(text: str, statements: list[_Statement], timeout: float) -> list[_Statement]:
    """``statements`` without those taken back: a statement followed by a retraction ("Wait,
    that is wrong.", "等等，不对") that a later statement follows is dropped."""
    if len(statements) < 2:
        return statements
    last = statements[-1].at
    mark = None
    for found in _finditer(_RETRACTION, text, statements[0].at, last):
        mark = found.start()  # the last retraction before the last statement
    if mark is None:
        return statements
    return [s for s in statements if s.at > mark]


def _weak_statements(
    text: str, count: int, options: tuple[str, ...], timeout: float, *, led: bool = True, captures: bool = True
) -> list[_Statement]:
    """Weak statements; ``led=False``: not those after a weak marker (the caller knows none
    leads to a letter, :func:`_unled`); ``captures=False``: not ``_WEAK[1]``'s (the caller knows
    no upper-case letter has what it needs after it, :class:`_Unled`)."""
    found: dict[int, _Statement] = {}
    projected = _projected(text)
    weak = _WEAK if captures else (_WEAK[0], _WEAK[2])
    for pattern in _open_patterns(text, projected, weak, screened=not led):
        for match in _finditer(pattern, text, projected=projected, opened=True):
            groups = match.groupdict()
            key = "letter" if groups.get("letter") else "letter2"
            suffix = "" if key == "letter" else "2"
            if not _brackets_pair(groups.get("open" + suffix) or "", groups.get("close" + suffix) or ""):
                continue
            at = match.start(key)
            found.setdefault(at, _Statement(at, frozenset({LETTERS.index(match[key].upper())})))
    for pattern in _open_patterns(text, projected, _WEAK_MARKERS) if led else ():
        for marker in _finditer(pattern, text, projected=projected, opened=True):
            statement = _statement_at(text, marker.end(), count, options, timeout)
            if statement is not None:
                found.setdefault(statement.at, statement)
    return [found[at] for at in sorted(found)]


def _whole_statements(text: str, count: int, options: tuple[str, ...], timeout: float) -> list[_Statement]:
    if options:  # the whole output is an option's text (also one spelled in letters: "AB")
        whole = normalize_option(text, timeout=timeout)
        hits = frozenset(i for i, o in enumerate(options) if o and o == whole)
        if hits and not (len(whole) == 1 and compile_pattern(r"[\s(\[【{<]*[A-Za-z][)\]】}>]").match(text)):
            lone_letter = compile_pattern(_LONE).match(text)
            if lone_letter is not None:  # "A" is a letter and an option's text
                hits |= {LETTERS.index(lone_letter["l"].upper())}
            return [_Statement(0, hits)]
    lone = compile_pattern(_LONE).match(text)
    if lone is not None:
        return [_Statement(lone.start("l"), frozenset({LETTERS.index(lone["l"].upper())}))]
    start = compile_pattern(_START).match(text)
    if start is not None:
        group = "b" if start["b"] else "l"
        at = start.start(group)
        if _lists_next_option(text, start[group], start.end()):
            return []  # "A) 3\nB) 4\nC) 5": the options restated, not one chosen
        letters: frozenset[int] | None = frozenset({LETTERS.index(start[group])})
        if options:
            letters = _with_texts(text, frozenset({LETTERS.index(start[group])}), at, start.end(), count, options, timeout)
        if letters is not None:
            letters |= _continuation(text, start.end(), count, timeout)[0]
            return [_Statement(at, letters)]
    run = compile_pattern(r"\A[\s\"'(\[]*(?P<run>[A-Z]{2,26})[\s\"')\].。]*\Z").match(text)
    if run is not None and (letters_run := _letter_run(run["run"], count)):
        return [_Statement(run.start("run"), letters_run)]
    return []


def _lists_next_option(text: str, letter: str, pos: int) -> bool:
    r"""Whether the option after ``letter`` is labelled later in ``text`` as an option list
    labels it (``B)``, ``(B)``, ``B.``, ``B:``, ``B`` alone on a line): a leading ``A) …`` is then
    the list restated, not an answer.

    >>> _lists_next_option("A) 3\nB) 4", "A", 2), _lists_next_option("A) 3 is right.", "A", 2)
    (True, False)
    """
    if letter == "Z":
        return False
    label = re.escape(LETTERS[LETTERS.index(letter) + 1])
    pattern = rf"(?<![A-Za-z0-9])(?:[(\[【][ \t]*{label}[ \t]*[)\]】]|{label}[.:)、\]])|(?m:^[\s#>\"'-]*{label}[ \t]*$)"
    return compile_pattern(pattern).search(text, pos) is not None


#: Before a hedge's letter: "… or maybe", "…, or perhaps it's", "… (maybe": the hedge offers an
#: alternative to something the output put before it ("B... or maybe D", "Berlin, or maybe
#: Madrid", "A (maybe B)").
_OR_HEDGE: Final = (
    r"(?i:(?:[^\s.!?。！？]|\.\.\.|…)[ \t]*(?:[,;]?[ \t]*\bor[ \t]+|[(\[,;][ \t]*)(?:maybe|perhaps|possibly)[ \t]*,?[ \t]*"
    r"(?:(?:it(?:'s|\s+is)|the\s+answer\s+is)\s+)?(?:(?:option|choice)\s+)?[(\[【\"']?[ \t]*)\Z"
)


def _offered_as_alternative(text: str, at: int) -> bool:
    """Whether the hedged letter at ``at`` follows ``or maybe`` after something else on its line.

    >>> _offered_as_alternative("B... or maybe D", 14), _offered_as_alternative("Or maybe D.", 9)
    (True, False)
    """
    return compile_pattern(_OR_HEDGE).search(text[max(0, at - 80) : at]) is not None


def _restates_list(text: str, index: int, end: int, *, lower: bool = False) -> bool:
    r"""Whether the option letter that ends at ``end`` labels the first of an option list: it is
    a label (``A)``, ``(A)``, ``A.``, ``A:``) and, before any sentence ends, the next option is
    labelled the same way on the same line or at the start of the next one.

    >>> _restates_list("Answer: A) True B) False", 0, 10), _restates_list("Answer:\nA) 12\nB) 42", 0, 10)
    (True, True)
    >>> _restates_list("Answer: (A). (B) is wrong.", 0, 11), _restates_list("Answer: A) True", 0, 10)
    (False, False)
    """
    if index + 1 >= len(LETTERS):
        return False
    own = compile_pattern(r"(?<=[)\]】])|[ \t]*[.:)\]](?=[ \t])").match(text, end)
    if own is None:
        return False
    label = re.escape(LETTERS[index + 1].lower() if lower else LETTERS[index + 1])
    nxt = compile_pattern(
        rf"(?P<between>[^\n.;!?。；！？]*?)(?:[ \t]|\n[ \t]*)(?:[(\[【][ \t]*{label}[ \t]*[)\]】]|{label}[.:)\]])"
        rf"(?=[ \t])(?![ \t]+{_REASONING_WORD})"
    ).match(text, own.end())
    return nxt is not None and compile_pattern(_REASONING_WORD).search(nxt["between"]) is None


#: A word that makes the text between two labels reasoning about them, not an option list:
#: "(A) because (B) fails", "A. B. is wrong".
_REASONING_WORD: Final = (
    r"(?i:\b(?:because|since|as|but|and|or|while|whereas|than|not|is|are|was|were|fails?|so|then|if|unlike|over|vs)\b)"
)


def _decide(statements: list[_Statement], count: int, conflict: str) -> Parsed:
    if conflict == "last":
        letters = statements[-1].letters
    else:
        letters = frozenset().union(*(s.letters for s in statements))
    if len(letters) > 1:
        named = ", ".join(LETTERS[i] for i in sorted(letters))
        return Parsed(None, st.CONTRADICTORY, f"the output states different options: {named}")
    (index,) = letters
    return _decide_one(index, count)


def _decide_one(index: int, count: int) -> Parsed:
    """The verdict for one stated letter (its index into A–Z)."""
    if index >= count:
        return Parsed(
            None,
            st.OUT_OF_RANGE,
            f"letter {LETTERS[index]} is past the last option {LETTERS[count - 1]} ({count} options)",
        )
    return Parsed(LETTERS[index], st.OK)


# --------------------------------------------------------------------------- one statement


def _statement_at(
    text: str, pos: int, count: int, options: tuple[str, ...], timeout: float
) -> _Statement | None:
    """The statement that starts at ``pos`` (just after a marker): letters, or an option text."""
    negated = compile_pattern(_NEGATED_START).match(text, pos)
    if negated is not None:
        if options:  # an option whose text starts with "not": "Answer: Not guilty"
            by_text = _text_statement(text, pos, options, timeout, anchored=True)
            if by_text is not None:
                return by_text
        return _instead_statement(text, negated.end(), count, options, timeout)
    token = _read_token(text, pos, count, timeout, strict_follow=False)
    if token is not None:
        letters, at, end = token
        if options:  # a multi-word option that reads like letters: "Both A and B", "A cat"
            hit = _anchored_option(text, pos, options, timeout, multiword=True)
            if hit is not None and hit[2] > end:
                return _Statement(hit[1], frozenset({hit[0]}))
            read = _with_texts(text, letters, at, end, count, options, timeout)
            if read is None:  # the "letter" is the first word of an option's text
                return _text_statement(text, at, options, timeout, anchored=True)
            letters = read
        more, end = _continuation(text, end, count, timeout)
        if compile_pattern(_JUDGED_WRONG).match(text, end):
            return None  # "Answer: C is wrong, B is right": the letter is judged, not stated
        if compile_pattern(_DESCRIBED).match(text, end):
            return None  # "Answer: Option A says x, option B says y": the option described, not chosen
        if not more and len(letters) == 1 and _restates_list(text, min(letters), end, lower=text[at].islower()):
            return None  # "Answer: A) True B) False": the option list restated, not one chosen
        return _Statement(at, frozenset(letters | more))
    if options:
        stated = _text_statement(text, pos, options, timeout)
        hit = _anchored_option(text, pos, options, timeout) if stated is not None else None
        if hit is not None and compile_pattern(_JUDGED_WRONG).match(text, hit[2]):
            return None  # "Answer: Paris is incorrect, it's Berlin": judged, not stated
        if stated is not None and hit is not None:  # "Paris (B)": the text and its letter must agree
            label = compile_pattern(r"[ \t]*[(\[][ \t]*(?:(?i:option|choice)[ \t]+)?(?P<letter>[A-Z])[ \t]*[)\]]").match(text, hit[2])
            if label is not None:
                return _Statement(stated.at, stated.letters | {LETTERS.index(label["letter"])})
        return stated
    return None


def _instead_statement(
    text: str, pos: int, count: int, options: tuple[str, ...], timeout: float
) -> _Statement | None:
    """After "not" at ``pos``: skip the negated letters, then the letter stated instead
    ("not B; it is C", "not A or B but D", "不是B，而是C"); None when no other is stated."""
    negated = _read_token(text, pos, count, timeout, strict_follow=False)
    if negated is None:
        return None
    end = _continuation(text, negated[2], count, timeout)[1]
    instead = compile_pattern(_INSTEAD).match(text, end)
    if instead is None or instead.end() == end:
        return None
    return _statement_at(text, instead.end(), count, options, timeout)


def _with_texts(
    text: str, letters: frozenset[int], at: int, end: int, count: int, options: tuple[str, ...], timeout: float
) -> frozenset[int] | None:
    """The letters of a token read against the option texts.

    A run that is an option's text ("AB" among blood groups) is that option; a lone letter that
    is another option's text names both (contradictory); a letter followed by an option's text
    ("(B) Paris") names that option too, so a disagreeing pair is contradictory.  ``None``:
    the letter is the first word of an option's text ("A cat"), to be read as text.
    """
    raw_match = compile_pattern(r"[A-Za-z]+").match(text, at)
    raw = raw_match[0] if raw_match is not None else ""
    named = frozenset(i for i, option in enumerate(options) if option == raw.casefold())
    if named and len(raw) > 1:
        return named
    bracketed = at > 0 and text[at - 1] in "([{<【"
    if named and not bracketed:
        return named if min(letters) >= count else letters | named
    if len(letters) != 1:
        return letters
    if compile_pattern(r"[ \t]+[A-Za-z]").match(text, end):
        by_text = _text_statement(text, at, options, timeout, anchored=True)
        if by_text is not None and len(by_text.letters) == 1:
            return None
    label = compile_pattern(r"[ \t]*(?:[-:=–—.([][ \t]*)?").match(text, end)
    start = label.end() if label is not None else end
    if start == end and start < len(text) and not text[start].isspace():
        return letters
    stated = _text_statement(text, start, options, timeout, anchored=True)
    if stated is None or stated.letters <= letters:
        return letters
    (own,) = letters
    if own < len(options) and options[own] and any(options[own].startswith(options[i]) for i in stated.letters):
        return letters  # a label cut short: "(B) Guilty" for "Guilty of Romance"
    return letters | stated.letters


def _read_token(
    text: str, pos: int, count: int, timeout: float, *, strict_follow: bool
) -> tuple[frozenset[int], int, int] | None:
    """Letters of the token at ``pos``, where they start, where the token ends; else None."""
    if not _may_start_token(text, pos):
        return None
    match = compile_pattern(_TOKEN).match(text, pos)
    if match is None:
        return None
    opening, letters, closing = match["open"], match["letters"], match["close"]
    bracketed = bool(opening) and _PAIRS.get(opening) == closing
    if opening and not bracketed:
        return None
    end = match.end()
    if end < len(text) and _is_word_char(text[end]):
        return None
    if len(letters) > 1:
        run = _letter_run(letters, count)
        return (run, match.start("letters"), end) if run else None
    if not bracketed:
        follow_end = match.end("letters")
        if letters.islower() and not compile_pattern(_LOWER_FOLLOW).match(text, follow_end):
            return None
        if letters == "I" and compile_pattern(_PRONOUN_FOLLOW).match(text, follow_end):
            return None
        if strict_follow and not compile_pattern(_LIST_FOLLOW).match(text, end):
            return None
    return frozenset({LETTERS.index(letters.upper())}), match.start("letters"), end


#: Where :data:`_TOKEN` may read letters that :func:`_read_token` accepts: after the blanks, a
#: bracket, a quote or a non-ASCII character (``【``, ``选项``); else the run of ASCII letters
#: there is one letter, all upper-case, followed by a non-ASCII character (which may continue a
#: word case-insensitively, ``optİon``), or a whole word ``_TOKEN`` reads before its letters.
#: Anything else (``so the``, ``so we``) is refused: ``_TOKEN`` reads the whole run as the
#: letters, and a run of several letters not all upper-case is no token.
_TOKEN_MAY_START: Final = re.compile(
    r"[ \t\n]*(?:[(\[{<\"']|[^\x00-\x7f]|[A-Za-z](?![A-Za-z])|[A-Z]+(?![A-Za-z])|[A-Za-z]+(?=[^\x00-\x7f])"
    r"|(?i:either|both|option|choice|letter)(?![A-Za-z]))"
)


def _may_start_token(text: str, pos: int) -> bool:
    """False only where :data:`_TOKEN` reads no letters that :func:`_read_token` accepts
    (:data:`_TOKEN_MAY_START`)."""
    return _TOKEN_MAY_START.match(text, pos) is not None


def _continuation(text: str, pos: int, count: int, timeout: float) -> tuple[frozenset[int], int]:
    """Further letters joined to a statement (``or B``, ``, C``, ``和D``), negated ones
    skipped; and where the last token read ends."""
    letters: set[int] = set()
    while True:
        negation = compile_pattern(_NEGATION).match(text, pos)
        if negation is not None:
            token = _read_token(text, negation.end(), count, timeout, strict_follow=False)
            if token is None:
                break
            pos = token[2]
            continue
        joined = compile_pattern(_CONJUNCTION).match(text, pos)
        strict = False
        if joined is None:
            joined = compile_pattern(_COMMA).match(text, pos)
            strict = joined is None or "/" not in joined[0]  # "B/D depending on …" names both
        if joined is None:
            break
        token = _read_token(text, joined.end(), count, timeout, strict_follow=strict)
        if token is None:
            break
        letters |= token[0]
        pos = token[2]
    return frozenset(letters), pos


def _text_statement(
    text: str, pos: int, options: tuple[str, ...], timeout: float, *, anchored: bool = False
) -> _Statement | None:
    """The option whose text the clause at ``pos`` states, or None.

    Options found in the clause that lie inside a longer found option are dropped, so the
    longest option wins; two options side by side are both stated (contradictory).  With
    ``anchored`` only options that start the clause count.
    """
    # Only the rest of the line, and no further than the longest option could reach.
    horizon = pos + 2 * max(len(o) for o in options) + 200
    line_end = text.find("\n", pos, horizon)
    line = text[pos : min(len(text), horizon) if line_end < 0 else line_end]
    lead = len(line) - len(line.lstrip())
    folded = _fold_span(line[lead:])
    cut = compile_pattern(_CLAUSE_END).search(folded)
    clause_end = len(folded) if cut is None else cut.start()
    spans: dict[int, tuple[int, int]] = {}
    for index, option in enumerate(options):
        where = _stated_in(folded, option, clause_end, timeout) if option else None
        if where is not None and (where[0] == 0 or not anchored):
            spans[index] = where
    kept = {
        i
        for i, (s, e) in spans.items()
        if not any(j != i and s2 <= s and e <= e2 and e2 - s2 > e - s for j, (s2, e2) in spans.items())
    }
    if not kept:
        return None
    return _Statement(pos + lead, frozenset(kept))


@lru_cache(maxsize=4096)
def _words_pattern(option: str, gap: str) -> str:
    """A pattern for the words of ``option`` separated by ``gap`` (cached: options repeat)."""
    return gap.join(regex.escape(word) for word in option.split(" "))


def _anchored_option(
    text: str, pos: int, options: tuple[str, ...], timeout: float, *, multiword: bool = False
) -> tuple[int, int, int] | None:
    """The longest option whose text starts at ``pos`` (after blanks and a quote) as whole
    words: (index, start, end), or None.  ``multiword``: only options of several words."""
    start = pos
    while start < len(text) and text[start] in " \t\"'":
        start += 1
    best: tuple[int, int, int] | None = None
    for index, option in enumerate(options):
        if not option or (multiword and " " not in option):
            continue
        words = _words_pattern(option, r"[ \t]+")
        match = compile_pattern(rf"(?i:{words})(?![A-Za-z0-9])").match(text, start)
        if match is not None and (best is None or match.end() > best[2]):
            best = (index, start, match.end())
    if best is not None:
        end = best[2]
        while end < len(text) and text[end] in "\"'":
            end += 1
        best = (best[0], best[1], end)
    return best


def _fold_span(span: str) -> str:
    """Casefold (one character stays one, so clause positions hold) and drop quotes."""
    unquoted = span.translate(_DROP_QUOTES)
    folded = unquoted.casefold()
    if len(folded) == len(unquoted):
        return folded
    return "".join(c.casefold() if len(c.casefold()) == 1 else c.lower() for c in unquoted)


def _stated_in(folded: str, option: str, clause_end: int, timeout: float) -> tuple[int, int] | None:
    """Where ``option`` first occurs as whole words in the clause, not negated; else None."""
    pattern = compile_pattern(_words_pattern(option, r"\s+"))
    for match in pattern.finditer(folded):
        start, end = match.span()
        if start >= clause_end:
            return None
        if start > 0 and _is_word_char(folded[start - 1]) and _is_word_char(folded[start]):
            continue
        if end < len(folded) and _is_word_char(folded[end]) and _is_word_char(folded[end - 1]):
            continue
        if compile_pattern(_NEGATED_BEFORE).search(folded, 0, start):
            continue
        return start, end
    return None


def _letter_run(run: str, count: int) -> frozenset[int]:
    """Letters of an upper-case run such as ``AB`` or ``ACD``: distinct, ascending, in the
    domain; otherwise (``NO``, ``DNA``) the run is a word and states no letters."""
    if not run.isupper() or not run.isascii():
        return frozenset()
    indices = [LETTERS.index(c) for c in run]
    if indices != sorted(set(indices)) or indices[-1] >= count:
        return frozenset()
    return frozenset(indices)


def _brackets_pair(opening: str, closing: str) -> bool:
    return not opening or _PAIRS.get(opening) == closing


def _is_word_char(char: str) -> bool:
    return char.isascii() and char.isalnum()
