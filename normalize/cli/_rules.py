"""``normalize rules [NAME]``: every registered rule and parser, for rule and pack authors.

Each entry says what a pack needs to use it: kind, stage, scope, version, its parameters
(type, default, whether required) and its docstring.  ``--pack`` with ``--allow-module``
also lists the rules a user module registers.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import importlib
import inspect
import json
import sys
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from normalize.cli._common import add_format_option, add_pack_option, load_pack_from_args
from normalize.core.registry import REGISTRY, STAGES, TASK_TYPES
from normalize.errors import UsageError


def _type_name(annotation: Any) -> str:
    """A readable type: ``tuple[str, ...]``, ``'last' | 'keep'``, ``int | None``.

    >>> _type_name(typing.Literal["a", "b"]), _type_name(int | None), _type_name(tuple[str, ...])
    ("'a' | 'b'", 'int | None', 'tuple[str, ...]')
    """
    if typing.get_origin(annotation) is typing.Annotated:
        return _type_name(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) is typing.Literal:
        return " | ".join(repr(a) for a in typing.get_args(annotation))
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return "None" if annotation is type(None) else annotation.__name__
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (tuple, list, dict) and args:
        inner = ", ".join("..." if a is Ellipsis else _wrap(_type_name(a)) for a in args)
        return f"{origin.__name__}[{inner}]"
    if args:  # a union
        return " | ".join(_type_name(a) for a in args)
    return str(annotation).replace("typing.", "")


def _wrap(name: str) -> str:
    return f"({name})" if " | " in name else name


def describe_params(model: type[BaseModel]) -> list[dict[str, Any]]:
    """Every parameter of a params model: name, type, default (as JSON data), required."""
    out: list[dict[str, Any]] = []
    for name, info in model.model_fields.items():
        entry: dict[str, Any] = {"name": name, "type": _type_name(info.annotation), "required": info.is_required()}
        if not info.is_required():
            default = info.get_default(call_default_factory=True)
            entry["default"] = json.loads(json.dumps(default, ensure_ascii=False, default=repr))
        if info.description:
            entry["description"] = info.description
        out.append(entry)
    return out


def _model_doc(model: type[BaseModel]) -> str:
    doc = inspect.cleandoc(model.__doc__ or "")
    return "" if doc.startswith(("Base of every", "For rules that take no")) else doc


def _function_doc(fn: Any, doc: str) -> str:
    """``doc`` (what the registry recorded), or for a function compiled with mypyc (no
    ``__code__``; a compiled function keeps no docstring) the docstring its source file beside
    the compiled module gives it: the same text either way."""
    if doc or hasattr(fn, "__code__"):
        return doc
    module = sys.modules.get(fn.__module__)
    path = Path(getattr(module, "__file__", None) or "")
    source = path.with_name(path.name.split(".", 1)[0] + ".py")
    if not source.is_file():
        return doc
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and node.name == fn.__name__:
            return (ast.get_docstring(node, clean=False) or "").strip()
    return doc


def catalogue() -> list[dict[str, Any]]:
    """Every rule (in stage order) then every parser, as JSON data."""
    entries: list[dict[str, Any]] = []
    for d in REGISTRY.iter_rules():
        entries.append({
            "kind": "rule", "name": d.name, "stage": d.stage, "scope": list(d.scope), "version": d.version,
            "idempotent": d.idempotent, "module": d.fn.__module__,
            "params": describe_params(d.params_model), "params_doc": _model_doc(d.params_model), "doc": inspect.cleandoc(_function_doc(d.fn, d.doc)),
        })
    for name, p in sorted(REGISTRY.parsers.items()):
        entries.append({
            "kind": "parser", "name": name, "stage": "parse", "scope": list(TASK_TYPES), "version": p.version,
            "module": p.fn.__module__, "embeds": dict(p.embeds),
            "params": describe_params(p.params_model), "params_doc": _model_doc(p.params_model), "doc": inspect.cleandoc(_function_doc(p.fn, p.doc)),
        })
    return entries


def _summary(doc: str) -> str:
    return doc.split("\n\n", 1)[0].replace("\n", " ").strip()


def _param_line(p: dict[str, Any]) -> str:
    default = "required" if p["required"] else f"default {json.dumps(p['default'], ensure_ascii=False)}"
    return f"{p['name']}: {p['type']} ({default})"


def render_entry(entry: dict[str, Any]) -> str:
    """One entry in full: header, scope, parameters, docstring."""
    lines = [f"{entry['kind']} {entry['name']} v{entry['version']}  stage {entry['stage']}",
             f"  scope: {', '.join(entry['scope'])}", f"  module: {entry['module']}"]
    if entry.get("embeds"):
        lines.append("  embeds: " + ", ".join(f"{k} v{v}" for k, v in entry["embeds"].items()))
    if entry["params"]:
        lines.append("  params:")
        lines += [f"    {_param_line(p)}" for p in entry["params"]]
        if entry["params_doc"]:
            lines += ["      " + line if line else "" for line in entry["params_doc"].splitlines()]
    else:
        lines.append("  params: none")
    lines.append("")
    lines += ["  " + line if line else "" for line in entry["doc"].splitlines()]
    return "\n".join(lines)


def render_table(entries: list[dict[str, Any]]) -> str:
    """One line per rule and parser: stage, name, version, parameters, the docstring's first sentence."""
    lines = []
    for stage in (*STAGES, "parse"):
        chosen = [e for e in entries if e["stage"] == stage]
        if not chosen:
            continue
        lines.append(f"{stage}:")
        for e in chosen:
            params = ", ".join(_param_line(p) for p in e["params"]) or "no params"
            lines.append(f"  {e['name']} v{e['version']}  [{', '.join(e['scope'])}]")
            lines.append(f"      {_summary(e['doc'])}")
            lines.append(f"      params: {params}")
    lines.append("normalize rules NAME shows one in full")
    return "\n".join(lines)


def register(sub: Any) -> None:
    rules = sub.add_parser("rules", help="list every rule and parser: stage, scope, version, parameters, docstring")
    add_pack_option(rules)
    rules.add_argument("name", nargs="?", metavar="NAME", help="one rule or parser, shown in full")
    add_format_option(rules, help_json="a list of entries (one object with NAME)")
    rules.set_defaults(func=cmd_rules)
    formats = sub.add_parser(
        "formats", help="list the pack's answer formats: each language's marker tiers, letters, digits; tags and headers"
    )
    add_pack_option(formats)
    add_format_option(formats, help_json="an object: languages and formats as the pack resolved them")
    formats.set_defaults(func=cmd_formats)


def cmd_formats(args: argparse.Namespace) -> int:
    """``normalize formats``: the answer formats the pack holds (all of them in its hash)."""
    pack = load_pack_from_args(args)
    languages = dict(pack.resources.get("languages", {}))
    formats = dict(pack.resources.get("formats", {}))
    if args.format == "json":
        print(json.dumps({"languages": languages, "formats": formats}, ensure_ascii=False, indent=2))
        return 0
    lines = [f"pack {pack.name} ({pack.short_hash}): {len(languages)} languages, {len(formats)} formats", "languages:"]
    for name, overlay in sorted(languages.items()):
        tiers = overlay.get("answer_markers", []) if isinstance(overlay, dict) else []
        sizes = "/".join(str(len(t)) for t in tiers)
        extra = []
        if isinstance(overlay, dict) and overlay.get("option_letters"):
            extra.append("letters " + " ".join(overlay["option_letters"]))
        if isinstance(overlay, dict) and overlay.get("digits"):
            extra.append(f"digits {overlay['digits']}")
        if isinstance(overlay, dict) and overlay.get("parser_reads"):
            extra.append("read by the choice parser")
        lines.append(f"  {name}: marker tiers {sizes}" + (f"; {'; '.join(extra)}" if extra else ""))
    lines.append("formats (tier: the best with an answer wins, within it the last):")
    for name, entry in sorted(formats.items(), key=lambda kv: (kv[1].get("tier", 9), kv[0])):
        kind = entry.get("kind")
        shape = f"{entry.get('open')} … {entry.get('close')}" if kind == "tags" else f"{entry.get('open')} … {entry.get('ends', [])}"
        lines.append(f"  {name}: {kind}, tier {entry.get('tier')}: {shape}")
    print("\n".join(lines))
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    for name in args.allow_module:  # the user named these modules: list their rules too
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise UsageError(f"cannot import rule module {name!r}: {exc}") from None
    if args.pack is not None:
        load_pack_from_args(args)  # a bad pack is reported, not silently listed around
    entries = catalogue()
    if args.name is not None:
        found = [e for e in entries if e["name"] == args.name]
        if not found:
            close = difflib.get_close_matches(args.name, [e["name"] for e in entries], n=1)
            raise UsageError(f"no rule or parser named {args.name!r}"
                             + (f"; did you mean {close[0]!r}?" if close else ""))
        if args.format == "json":
            print(json.dumps(found[0] if len(found) == 1 else found, ensure_ascii=False, indent=2))
        else:
            print("\n\n".join(render_entry(e) for e in found))
        return 0
    if args.format == "json":
        print(json.dumps(entries, ensure_ascii=False, indent=2))
    else:
        print(render_table(entries))
    return 0
