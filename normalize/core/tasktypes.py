"""Task types as declared data: each built-in task type once, with what it is for.

A **family** is what the code knows about a kind of answer: the strict parsers written for it,
the rules whose ``scope`` names it, the scorer's metrics and its target reader (how a row's
``target`` is read: an option letter, a JSON value, a list of strings).  Each built-in task type
is a family of its own, declared here once; everything that lists task types (rule scopes, the
pack loader, ``normalize check``, the metric registry, counts in the docs) reads this table.

A pack adds a task type on an existing family without code (``task_types: {yes_no: {family:
extractive_qa, chain: [...], parser: text}}``): it shares the family's rule scopes, metrics and
target reader and keeps its own chain, parser and ``scoring:`` entry.  A new family (a new kind
of answer, with its own metrics) is declared in Python with :func:`declare_family`.

>>> FAMILIES.names()[:3]
('multiple_choice', 'math', 'extractive_qa')
>>> len(FAMILIES), "judge" in FAMILIES, "yes_no" in FAMILIES
(8, True, False)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, overload

from normalize.errors import RegistrationError


@dataclass(frozen=True)
class Family:
    """One declared family (a built-in task type): its name and what it reads."""

    name: str
    description: str
    #: Whether answers are short text, where the cosmetic format rules are meant to act.
    short_answer: bool = False


#: The built-in task types, in the order the project lists them.
_BUILT_IN: Final[tuple[Family, ...]] = (
    Family("multiple_choice", "an option letter (or a set of letters) out of a row's options", True),
    Family("math", "a number, a formula, an interval or a quantity with its unit", True),
    Family("extractive_qa", "a short span of text, compared with one or more accepted answers", True),
    Family("structured_json", "a JSON value, optionally aligned to a JSON Schema", True),
    Family("code", "a program, taken from a fenced code block"),
    Family("open_writing", "free text, compared with references by text metrics"),
    Family("judge", "an LLM judge's verdict: a preference between two answers, or a rating"),
    Family("ranking", "ids ranked best first, compared with relevance labels"),
)


class FamilyTable(Sequence[str]):
    """The declared families by name, in declaration order: a live sequence of their names, so
    ``name in FAMILIES``, ``len(FAMILIES)`` and ``", ".join(FAMILIES)`` see a family declared
    later (:func:`declare_family`).  One instance, :data:`FAMILIES`."""

    def __init__(self, families: Sequence[Family]) -> None:
        self._by_name: dict[str, Family] = {}
        for family in families:
            self.add(family)

    def add(self, family: Family) -> Family:
        if not family.name.isidentifier():
            raise RegistrationError(f"task type family {family.name!r} is not an identifier")
        if family.name in self._by_name:
            raise RegistrationError(f"task type family {family.name!r} is declared twice")
        self._by_name[family.name] = family
        return family

    def remove(self, name: str) -> None:
        """Forget a family declared with :func:`declare_family` (tests); a built-in one stays."""
        if any(f.name == name for f in _BUILT_IN):
            raise RegistrationError(f"{name!r} is a built-in task type family")
        self._by_name.pop(name, None)

    def get(self, name: str) -> Family | None:
        return self._by_name.get(name)

    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)

    def short_answer(self) -> tuple[str, ...]:
        """The families whose answers are short text (the cosmetic format rules' scope)."""
        return tuple(f.name for f in self._by_name.values() if f.short_answer)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(self._by_name))

    def __len__(self) -> int:
        return len(self._by_name)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self.names()[index]

    def __repr__(self) -> str:
        return repr(self.names())


#: Every declared family (the built-in task types first).
FAMILIES: Final = FamilyTable(_BUILT_IN)


def declare_family(name: str, description: str, *, short_answer: bool = False) -> Family:
    """Declare a new family (a new kind of answer) in Python; ``RegistrationError`` if the name
    is taken.  Declare it before the rules, parsers and metrics that name it are registered; a
    rule scoped to every family (:data:`EVERY_FAMILY`) applies to it at once.

    >>> f = declare_family("translation", "a sentence in another language")
    >>> "translation" in FAMILIES
    True
    >>> FAMILIES.remove("translation")
    """
    return FAMILIES.add(Family(name, description, short_answer))


def builtin_names() -> tuple[str, ...]:
    """The built-in task types' names (those the shipped pack chains), in the project's order."""
    return tuple(f.name for f in _BUILT_IN)


class EveryFamily(tuple[str, ...]):
    """A rule scope that holds every declared family, those declared later included: ``in``
    asks :data:`FAMILIES`; as a tuple (listing, JSON) it holds the built-in task types."""

    def __contains__(self, name: object) -> bool:
        return name in FAMILIES


#: The scope of rules that are safe on any output (removing ``<think>`` blocks).
EVERY_FAMILY: Final = EveryFamily(builtin_names())


def count() -> int:
    """How many task types the library declares (the docs' "eight task types").

    >>> count()
    8
    """
    return len(builtin_names())


__all__ = ["EVERY_FAMILY", "FAMILIES", "EveryFamily", "Family", "FamilyTable", "builtin_names", "count",
           "declare_family"]
