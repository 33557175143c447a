"""Dependencies point one way: the layer rules, checked on the import statements (parsed with ast).

* ``normalize`` never imports ``scoring`` (not even by a module name in a string);
* rules and parsers never reach the pack loader, the engine, the row edge, ``check`` or the CLI,
  directly or through a helper they import;
* parsers never reach a rule module: shared logic lives in private leaf modules;
* ``scoring`` uses only public ``normalize`` names (no ``_private`` module or name).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULE_NAME = re.compile(r"scoring(?:\.\w+)+")  # "scoring" alone is also a pack section


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: str) -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / package).rglob("*.py"))}


ALL = {**modules("normalize"), **modules("scoring")}


def imports(path: Path) -> Iterator[tuple[str, str | None, int]]:
    """(module, imported name or None, line) for every import statement, at any depth."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                if sub in ALL:  # ``from normalize import status`` imports the module normalize.status
                    yield sub, None, node.lineno
                else:
                    yield node.module, alias.name, node.lineno


def edges(name: str) -> set[str]:
    """The project modules ``name`` imports directly (a package's ``__init__`` is not followed)."""
    return {mod for mod, _, _ in imports(ALL[name]) if mod in ALL and mod not in ("normalize", "scoring")}


def reachable(name: str) -> set[str]:
    seen: set[str] = set()
    todo = [name]
    while todo:
        for nxt in edges(todo.pop()) - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_normalize_never_imports_scoring() -> None:
    bad = []
    for name, path in modules("normalize").items():
        bad += [f"{name}:{line} imports {mod}" for mod, _, line in imports(path) if mod.split(".")[0] == "scoring"]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_NAME.fullmatch(node.value):
                bad.append(f"{name}:{node.lineno} names module {node.value!r} in a string")
    assert bad == []


#: What a rule or parser must never reach: the layers above the registry.
ABOVE_RULES = ("normalize.core.pack", "normalize.core._yaml", "normalize.core.engine", "normalize.io.rows", "normalize.io._io",
               "normalize.io.jsonl", "normalize.cli", "normalize.cli._core", "normalize.check", "normalize.cli._check")


@pytest.mark.parametrize("name", [n for n in ALL if n.startswith(("normalize.rules", "normalize.parsers"))])
def test_rules_and_parsers_never_reach_the_pack_loader(name: str) -> None:
    reached = reachable(name)
    assert sorted(m for m in reached if m.startswith(ABOVE_RULES)) == []
    if name.startswith("normalize.parsers"):
        assert sorted(m for m in reached if m.startswith("normalize.rules")) == []


@pytest.mark.parametrize("name", list(modules("scoring")))
def test_scoring_uses_only_public_normalize_names(name: str) -> None:
    bad = [f"line {line}: {mod}{'.' + imported if imported else ''}"
           for mod, imported, line in imports(ALL[name])
           if mod.split(".")[0] == "normalize"
           and (any(part.startswith("_") for part in mod.split(".")) or (imported or "").startswith("_"))]
    assert bad == []


def test_the_layer_rules_see_the_imports_they_guard() -> None:
    # the checks above are only as good as the graph: make sure it sees known edges
    assert "normalize.core.registry" in reachable("normalize.parsers._number")
    assert "normalize.values._latex" in edges("normalize.parsers._number")
    assert "normalize.core.pack" in reachable("normalize.io.rows")
    assert {"normalize.cli", "scoring.cli._score"} <= edges("scoring.cli")


def test_a_parser_that_embeds_a_rule_moves_its_version_with_it() -> None:
    from dataclasses import replace

    from normalize.core.registry import REGISTRY, Registry
    from normalize.errors import RegistrationError

    assert REGISTRY.parser("number").embeds["simplify_latex_numbers"] == REGISTRY.rule("simplify_latex_numbers").version
    registry = Registry()
    latex = REGISTRY.rule("simplify_latex_numbers")
    registry.add_rule(replace(latex, version=latex.version + 1))
    registry.add_parser(replace(REGISTRY.parser("number"), embeds={"simplify_latex_numbers": latex.version}))
    with pytest.raises(RegistrationError, match="bump the parser's version"):
        registry.check_embeds()


def test_the_console_command_is_mounted_from_the_upper_layer() -> None:
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    module, _, function = scripts["normalize"].partition(":")
    assert module.split(".")[0] == "scoring" and function == "main"
    assert {"normalize.cli", "scoring.cli._score", "scoring.cli._lm"} <= edges(module)
