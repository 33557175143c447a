"""JSON Schema validation that never leaves the schema: no network, no file access.

jsonschema's default reference resolution fetches any ``$ref`` it cannot resolve locally
(``http://…`` with ``urlopen``, ``file://…`` from disk).  A schema here comes from a pack or
from a data row, and data must never cause network or file access, so every validator of
this code base is built by :func:`validator` (and every schema checked by
:func:`check_schema`) over :data:`LOCAL`: a ``referencing`` registry whose ``retrieve``
refuses every URI.  A reference resolves only inside the schema itself: ``#/$defs/x``,
anchors, subschemas with their own ``$id``, and the draft 2020-12 meta-schemas (which are
bundled with jsonschema, never downloaded).

:func:`unresolved_refs` walks a schema and every schema its references reach, so a schema
with a reference that leaves it is refused before any data is validated (a row's schema:
the row is ``invalid`` with the reason; a pack's: a load error with file and line).  The
pack loader bundles files of the pack's folder into a pack schema first (see
:func:`bundle`), so what they say is part of the schema and of the pack hash.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match
from jsonschema_specifications import REGISTRY as _SPECIFICATIONS
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012

#: ``referencing``'s resolver (its class is not exported, so it is typed loosely here).
Resolver = Any


class SchemaRefError(ValueError):
    """A ``$ref`` that does not resolve inside the schema; ``ref`` is the reference as written."""

    def __init__(self, message: str, ref: str) -> None:
        super().__init__(message)
        self.ref = ref


Retrieve = Callable[[str], "Resource[Any]"]


def _registry(retrieve: Retrieve) -> Registry[Any]:
    """The draft meta-schemas, and ``retrieve`` for any other URI."""
    # referencing's attrs classes declare ``_retrieve`` with the alias ``retrieve`` (and
    # ``ref`` likewise on its exceptions), which mypy's attrs plugin does not read
    own: Registry[Any] = Registry(retrieve=retrieve)  # type: ignore[call-arg]
    combined: Registry[Any] = _SPECIFICATIONS.combine(own)
    return combined


def _unresolvable(uri: str) -> NoSuchResource:
    return NoSuchResource(ref=uri)  # type: ignore[call-arg]


def _refuse(uri: str) -> Resource[Any]:
    """Every retrieval (network or file) is refused: the reference is unresolvable."""
    raise _unresolvable(uri)


#: Every schema resolves its references here: the meta-schemas, and nothing retrievable.
LOCAL: Final[Registry[Any]] = _registry(_refuse)

#: Keywords whose values are instances (data), not subschemas: a ``$ref`` key in them is data.
_DATA_KEYWORDS: Final = frozenset({"const", "enum", "default", "examples"})
#: Keywords whose value maps names to subschemas.
_MAP_KEYWORDS: Final = frozenset({"$defs", "definitions", "properties", "patternProperties", "dependentSchemas"})
#: Keywords whose value is a list of subschemas (``items`` too, in drafts before 2020-12).
_LIST_KEYWORDS: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_REF_KEYWORDS: Final = ("$ref", "$dynamicRef")


def resolver_for(schema: Any, registry: Registry[Any] = LOCAL) -> Resolver:
    """A resolver rooted at ``schema`` that resolves only inside it (and the meta-schemas)."""
    return registry.resolver_with_root(DRAFT202012.create_resource(schema))


def validator(schema: Mapping[str, Any] | bool) -> Draft202012Validator:
    """The draft 2020-12 validator of ``schema``, resolving references only inside it.

    A reference that leaves the schema raises ``referencing.exceptions.Unresolvable`` when
    validation reaches it: nothing is fetched or read.

    >>> [e.message for e in validator({"$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n"}).iter_errors("x")]
    ["'x' is not of type 'integer'"]
    """
    return Draft202012Validator(schema, registry=LOCAL)


def _subschemas(schema: Any) -> Iterator[Any]:
    """The direct subschemas of ``schema`` (every keyword but those holding data)."""
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key in _DATA_KEYWORDS:
            continue
        if key in _MAP_KEYWORDS and isinstance(value, dict):
            yield from value.values()
        elif key in _LIST_KEYWORDS and isinstance(value, list):
            yield from value
        elif isinstance(value, (dict, bool)):
            yield value
        elif isinstance(value, list):  # an unknown keyword holding schemas, to be safe
            yield from (item for item in value if isinstance(item, dict))


def walk_refs(schema: Any, resolver: Resolver) -> Iterator[tuple[str, str, Resolver]]:
    """Each ``$ref``/``$dynamicRef`` of ``schema`` with the resolver of its resource.

    Yields ``(keyword, reference, resolver)``; ``$id`` scopes are entered as validation
    enters them (``resolver`` is already in ``schema``'s own: a root or a resolved
    reference).  Iterative: a deep schema costs no recursion.
    """
    stack: list[tuple[Any, Resolver]] = [(schema, resolver)]
    while stack:
        node, scope = stack.pop()
        if not isinstance(node, dict):
            continue
        if node is not schema and isinstance(node.get("$id"), str):
            scope = scope.in_subresource(DRAFT202012.create_resource(node))
        for keyword in _REF_KEYWORDS:
            ref = node.get(keyword)
            if isinstance(ref, str):
                yield keyword, ref, scope
        stack.extend((sub, scope) for sub in reversed(list(_subschemas(node))))


def unresolved_refs(schema: Any) -> list[tuple[str, str]]:
    """The references of ``schema`` (and of every schema they reach) that do not resolve inside it.

    Each entry is ``(reference as written, why)``; an empty list means validation never
    needs a retrieval.

    >>> unresolved_refs({"$defs": {"a": {}}, "properties": {"x": {"$ref": "#/$defs/a"}}})
    []
    >>> unresolved_refs({"$ref": "http://example.com/s.json"})
    [('http://example.com/s.json', 'it points outside the schema: references resolve only inside the schema itself (no network or file access)')]
    """
    refused: list[str] = []

    def refuse(uri: str) -> Resource[Any]:
        refused.append(uri)
        raise _unresolvable(uri)

    registry = _registry(refuse)
    problems: list[tuple[str, str]] = []
    for ref, failure in _follow(schema, registry):
        if refused:
            target = f" (to {refused[-1]})" if refused[-1] != ref else ""
            problems.append((ref, f"it points outside the schema{target}: references resolve only "
                                  "inside the schema itself (no network or file access)"))
            refused.clear()
        else:
            problems.append((ref, f"it does not resolve inside the schema ({failure})"))
    return problems


def _follow(schema: Any, registry: Registry[Any]) -> Iterator[tuple[str, Unresolvable]]:
    """Resolve every reference of ``schema`` and of what they reach; yield each that fails."""
    seen: set[int] = set()
    pending: list[tuple[Any, Resolver]] = [(schema, resolver_for(schema, registry))]
    while pending:
        node, scope = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for _, ref, ref_scope in walk_refs(node, scope):
            try:
                resolved = ref_scope.lookup(ref)
            except Unresolvable as exc:
                yield ref, exc
            else:
                pending.append((resolved.contents, resolved.resolver))


#: The draft 2020-12 meta-schema's validator (its references are the bundled vocabularies).
_META: Final = Draft202012Validator(Draft202012Validator.META_SCHEMA, registry=LOCAL)


def check_schema(schema: Any, name: str = "") -> None:
    """``ValueError`` unless ``schema`` is valid draft 2020-12 and resolves every reference inside itself.

    >>> check_schema({"type": "object"})
    >>> check_schema({"$ref": "file:///etc/passwd"}, "s")
    Traceback (most recent call last):
    ...
    normalize.limits._jsonschema.SchemaRefError: schema 's' has $ref 'file:///etc/passwd': it points outside the schema: references resolve only inside the schema itself (no network or file access)
    """
    label = repr(name) if name else "(inline)"
    error = best_match(_META.iter_errors(schema))
    if error is not None:
        exc = SchemaError.create_from(error)
        raise ValueError(f"schema {label} is not a valid JSON Schema (draft 2020-12): {exc.message}")
    problems = unresolved_refs(schema)
    if problems:
        ref, why = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise SchemaRefError(f"schema {label} has $ref {ref!r}: {why}{more}", ref)


#: Reads one referenced document: the URI as the reference resolved it → its contents.
Fetch = Callable[[str], Any]


def bundle(schema: Any, fetch: Fetch) -> Any:
    """``schema`` with every document its references retrieve embedded in it.

    ``fetch(uri)`` returns the contents of the document a reference names (the pack loader
    reads files of the pack's folder; it raises ``ValueError`` for anything else, which
    becomes a :class:`SchemaRefError` naming the reference).  Each is
    embedded under ``$defs`` with ``$id`` set to the URI the reference resolved to, so the
    bundled schema resolves everything inside itself (draft 2020-12 compound documents) and
    its canonical JSON, which the pack hash covers, holds every byte that decides a result.
    A schema without such references is returned unchanged (the same object).

    >>> docs = {"defs/n.json": {"type": "integer"}}
    >>> bundle({"$ref": "defs/n.json"}, docs.__getitem__)
    {'$ref': 'defs/n.json', '$defs': {'defs/n.json': {'type': 'integer', '$id': 'defs/n.json'}}}
    """
    fetched: dict[str, Any] = {}
    failures: list[str] = []

    def retrieve(uri: str) -> Resource[Any]:
        try:
            contents = fetch(uri)
            if not isinstance(contents, (dict, bool)):
                raise ValueError(f"{uri}: a schema file must hold a JSON object or a boolean")
            if isinstance(contents, dict) and "$id" in contents:
                raise ValueError(f"{uri}: a schema file a pack schema refers to may not set its own $id")
        except ValueError as exc:
            failures.append(str(exc))
            raise
        if isinstance(contents, dict):
            embedded = {**contents, "$id": uri}
        else:
            embedded = {"$id": uri} if contents else {"$id": uri, "not": {}}
        fetched[uri] = embedded
        return DRAFT202012.create_resource(embedded)

    registry = _registry(retrieve)
    for ref, _ in _follow(schema, registry):
        if failures:
            raise SchemaRefError(f"$ref {ref!r}: {failures[-1]}", ref)
        # any other failure is check_schema's to report
    if not fetched:
        return schema
    if not isinstance(schema, dict):  # (a boolean schema has no references)
        return schema
    defs = dict(schema.get("$defs") or {})
    for uri, embedded in sorted(fetched.items()):
        if uri in defs and defs[uri] != embedded:
            raise ValueError(f"$defs already has an entry named {uri!r}")
        defs[uri] = embedded
    return {**schema, "$defs": defs}


__all__ = ["LOCAL", "SchemaRefError", "bundle", "check_schema", "resolver_for", "unresolved_refs", "validator"]
