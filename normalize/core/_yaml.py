"""Data-only YAML loading with YAML 1.2 core scalars, duplicate-key errors and source marks.

PyYAML resolves scalars by YAML 1.1, where ``yes``/``no``/``on``/``off`` become booleans and
``1e3`` stays a string; it also keeps the last of two duplicate keys.  Silently changing an
alias table or a parameter that way is exactly what a rule pack must not do, so this module
composes the node tree with PyYAML (no construction, hence no ``!python`` tags) and builds
plain Python values itself, recording the line and column of every node by its path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import regex
import yaml

from normalize.errors import PackError

Path = tuple[str | int, ...]

_NULL = regex.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL_TRUE = regex.compile(r"^(?:true|True|TRUE)$")
_BOOL_FALSE = regex.compile(r"^(?:false|False|FALSE)$")
_INT = regex.compile(r"^[-+]?[0-9]+$|^0o[0-7]+$|^0x[0-9a-fA-F]+$")
_FLOAT = regex.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = regex.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = regex.compile(r"^\.(?:nan|NaN|NAN)$")

#: Deepest nesting of mappings and sequences a pack may use (shipped packs use under 10).
MAX_DEPTH = 100
#: Most aliases (``*name``) one document may hold.
MAX_ALIASES = 10_000
#: Most nodes the built value may have beyond those written out in the file: every alias
#: copies its anchor's whole subtree, and anchors of anchors grow exponentially ("billion
#: laughs": 560 bytes that expand to 10^9 nodes).
MAX_ALIAS_EXPANSION = 100_000


class _NoImplicitLoader(yaml.SafeLoader):
    """Composes nodes without YAML 1.1 implicit typing: every plain scalar is tagged str,
    so any other tag on a scalar was written explicitly in the file.

    Composition is bounded: nesting deeper than :data:`MAX_DEPTH` and more than
    :data:`MAX_ALIASES` aliases stop it with a :class:`PackError` at the offending mark
    (PyYAML composes recursively, so 5000 levels would otherwise end in ``RecursionError``).
    """

    yaml_implicit_resolvers: dict[str, list[tuple[str, object]]] = {}  # noqa: RUF012

    def __init__(self, stream: str, file: str = "<yaml>") -> None:
        super().__init__(stream)
        self.file = file
        self.depth = 0
        self.aliases = 0
        self.nodes = 0

    def _fail(self, message: str, mark: Any) -> PackError:
        return PackError(message, file=self.file, line=mark.line + 1 if mark else None,
                         column=mark.column + 1 if mark else None)

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                raise self._fail(f"more than {MAX_ALIASES} YAML aliases: packs are bounded data", event.start_mark)
        else:
            self.nodes += 1
        if self.depth > MAX_DEPTH:
            raise self._fail(f"YAML nesting deeper than {MAX_DEPTH} levels", event.start_mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


_STANDARD_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
}


@dataclass
class Document:
    """A loaded YAML document: its value and the 1-based line/column of each node by path."""

    file: str
    value: Any
    marks: dict[Path, tuple[int, int]] = field(default_factory=dict)

    def where(self, path: Path) -> tuple[int | None, int | None]:
        """The mark of ``path`` or of its nearest ancestor that has one."""
        while True:
            if path in self.marks:
                return self.marks[path]
            if not path:
                return None, None
            path = path[:-1]

    def error(self, path: Path, message: str) -> PackError:
        line, column = self.where(path)
        return PackError(message, file=self.file, line=line, column=column)


def resolve_scalar(node: yaml.ScalarNode, file: str) -> Any:
    """YAML 1.2 core schema: quoted scalars are strings; ``yes``/``on`` stay strings."""
    value: str = node.value
    if node.tag != "tag:yaml.org,2002:str":
        raise PackError(
            f"explicit tag {node.tag!r} is not allowed: packs are data only",
            file=file,
            line=node.start_mark.line + 1,
            column=node.start_mark.column + 1,
        )
    if node.style in ("'", '"', "|", ">"):
        return value
    if _NULL.match(value):
        return None
    if _BOOL_TRUE.match(value):
        return True
    if _BOOL_FALSE.match(value):
        return False
    if _INT.match(value):
        if value.startswith("0o"):
            return int(value[2:], 8)
        if value.startswith("0x"):
            return int(value[2:], 16)
        return int(value)
    if _FLOAT.match(value):
        return float(value)
    if _INF.match(value):
        return -math.inf if value.startswith("-") else math.inf
    if _NAN.match(value):
        return math.nan
    return value


def load_yaml(text: str, file: str) -> Document:
    """Parse ``text`` into a :class:`Document`; raise :class:`PackError` with a location."""
    loader = _NoImplicitLoader(text, file)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise PackError(
            f"YAML syntax error: {exc.problem}",
            file=file,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as exc:
        raise PackError(f"YAML error: {exc}", file=file) from None
    finally:
        loader.dispose()
    doc = Document(file=file, value=None)
    if node is None:
        doc.value = {}
        return doc
    budget = _Budget(loader.nodes + MAX_ALIAS_EXPANSION)
    doc.value = _build(node, (), doc, 0, budget)
    return doc


class _Budget:
    """How many more nodes the built value may have: aliases copy subtrees, so the value can
    be exponentially larger than the file; building stops at the node where it runs out."""

    def __init__(self, nodes: int) -> None:
        self.left = nodes

    def spend(self, node: yaml.Node, doc: Document) -> None:
        self.left -= 1
        if self.left < 0:
            raise PackError(
                f"YAML aliases expand to more than {MAX_ALIAS_EXPANSION} nodes beyond the file's own "
                "(anchors of anchors grow exponentially); write the values out or use fewer aliases",
                file=doc.file, line=node.start_mark.line + 1, column=node.start_mark.column + 1)


def _build(node: yaml.Node, path: Path, doc: Document, depth: int, budget: _Budget) -> Any:
    budget.spend(node, doc)
    if depth > MAX_DEPTH:
        raise doc.error(path, f"YAML nesting deeper than {MAX_DEPTH} levels")
    doc.marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.ScalarNode):
        return resolve_scalar(node, doc.file)
    if node.tag.startswith("!") or node.tag not in _STANDARD_TAGS:
        raise doc.error(path, f"tag {node.tag!r} is not allowed: packs are data only")
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, (*path, i), doc, depth + 1, budget) for i, item in enumerate(node.value)]
    if isinstance(node, yaml.MappingNode):
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise doc.error(path, "mapping keys must be plain scalars")
            if key_node.value == "<<" and key_node.style is None:
                raise PackError(
                    "merge keys ('<<') are not supported; repeat the keys or use an anchor for the whole value",
                    file=doc.file,
                    line=key_node.start_mark.line + 1,
                    column=key_node.start_mark.column + 1,
                )
            key = key_node.value  # keys are always strings: `yes:` and `1:` stay "yes" and "1"
            if key in result:
                first = doc.marks.get((*path, key))
                raise PackError(
                    f"duplicate key {key!r}"
                    + (f" (first defined at line {first[0]})" if first else ""),
                    file=doc.file,
                    line=key_node.start_mark.line + 1,
                    column=key_node.start_mark.column + 1,
                )
            doc.marks[(*path, key)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            result[key] = _build(value_node, (*path, key), doc, depth + 1, budget)
            doc.marks[(*path, key)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
        return result
    raise doc.error(path, f"unsupported YAML node {type(node).__name__}")
