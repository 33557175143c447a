"""No import cycles inside ``normalize`` or ``scoring`` (the layer test's sibling, also read with ast).

Every import counts: at module level, inside a function (a deferred import hides a cycle, it does
not remove it) and under ``if TYPE_CHECKING:``.  ``from X import Y`` where ``X.Y`` is a module
imports that module; relative imports are resolved; the top-level re-export shims
(``normalize/pack.py`` and the others) are modules like any other.  Importing ``a.b.c`` is an edge
to ``a.b.c`` alone: Python runs the package ``a.b``'s ``__init__`` first, but a package that
imports its own submodules is no cycle unless a submodule imports the package back.

A cycle is a strongly connected component of that graph (Tarjan); each failure names its
modules and the import lines that close it.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("normalize", "scoring")

#: Cycles known on main, each to be removed by the change that breaks it (a test below fails
#: once one is gone, so that the exception goes with it).  None today.
KNOWN_CYCLES: frozenset[frozenset[str]] = frozenset()


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    return {module_name(p, root): p for package in packages for p in sorted((root / package).rglob("*.py"))}


def imported_modules(name: str, path: Path, known: Mapping[str, Path]) -> Iterator[tuple[str, int]]:
    """``(project module, line)`` for every import statement of the module, at any depth."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in known:  # ``import a.b.json``: the project's part
                    target = target.rpartition(".")[0]
                if target:
                    yield target, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in known:  # ``from normalize.cli import _core``: a submodule
                    yield f"{source}.{alias.name}", node.lineno
                elif source in known:
                    yield source, node.lineno


def import_graph(known: Mapping[str, Path]) -> dict[str, dict[str, int]]:
    """Each module's project imports, with the first line importing each."""
    graph: dict[str, dict[str, int]] = {name: {} for name in known}
    for name, path in known.items():
        for target, line in imported_modules(name, path, known):
            if target != name:
                graph[name].setdefault(target, line)
    return graph


def cycles(graph: Mapping[str, Mapping[str, int]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


def describe(component: frozenset[str], graph: Mapping[str, Mapping[str, int]]) -> str:
    edges = [f"{a}:{line} imports {b}" for a in sorted(component)
             for b, line in sorted(graph[a].items()) if b in component]
    return "cycle " + " <-> ".join(sorted(component)) + "\n    " + "\n    ".join(edges)


GRAPH = import_graph(project_modules(ROOT))


def test_no_import_cycles() -> None:
    found = [c for c in cycles(GRAPH) if c not in KNOWN_CYCLES]
    assert not found, "\n".join(describe(c, GRAPH) for c in found)


def test_every_known_cycle_is_still_there() -> None:
    """An exception outlives its cycle only by mistake: once the cycle is broken, remove it above."""
    gone = KNOWN_CYCLES - set(cycles(GRAPH))
    assert not gone, f"no longer cycles, remove them from KNOWN_CYCLES: {sorted(map(sorted, gone))}"


#: The command line of each layer: a package whose ``__init__`` imports its subcommand modules.
CLI_PACKAGES = ("normalize.cli", "scoring.cli")


def in_cli(name: str) -> bool:
    return any(name == package or name.startswith(package + ".") for package in CLI_PACKAGES)


def test_only_the_command_line_imports_the_command_line() -> None:
    """The CLI sits on top: code below it (the streaming job, the integrations) takes what it
    shares with the CLI from a leaf outside it (the exit codes are in ``normalize.errors``), and a
    subcommand module imports its package's ``_common`` leaf, never the package itself (only
    ``__main__``, which nothing imports, does)."""
    below = [f"{a}:{line} imports {b}" for a, targets in sorted(GRAPH.items()) if not in_cli(a)
             for b, line in sorted(targets.items()) if in_cli(b)]
    back = [f"{a}:{line} imports {b}" for a, targets in sorted(GRAPH.items()) for b, line in sorted(targets.items())
            if b in CLI_PACKAGES and a.startswith(b + ".") and a != b + ".__main__"]  # ``python -m`` runs it
    assert below == [] and back == []


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    # the check is only as good as the graph: a cycle closed by each kind of import is found
    files = {
        "pkg/__init__.py": "",
        "pkg/top.py": "from pkg.sub import deep\n",
        "pkg/sub/__init__.py": "from . import deep\n",
        "pkg/sub/deep.py": "def f():\n    from ..top import f\n",  # inside a function, relative
        "pkg/a.py": "import pkg.b.json_like\n",  # ``import`` of a project module's attribute path
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n",
        "pkg/lone.py": "import json\nfrom pkg import top\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(text), encoding="utf-8")
    graph = import_graph(project_modules(tmp_path, ("pkg",)))
    assert sorted(map(sorted, cycles(graph))) == [
        ["pkg.a", "pkg.b"],
        ["pkg.sub.deep", "pkg.top"],
    ]
    assert graph["pkg.sub"] == {"pkg.sub.deep": 1}  # ``from . import deep`` in a package's __init__
    assert graph["pkg.lone"] == {"pkg.top": 2}


def test_the_graph_sees_the_projects_imports() -> None:
    # known edges of the real tree, of each kind: a submodule by ``from``, one inside a function, a shim
    assert "normalize.core.pack" in GRAPH["normalize.pack"]  # ``from normalize.core.pack import *``
    assert "normalize.core.engine" in GRAPH["normalize"]
    assert "normalize.parsers" in GRAPH["normalize"]  # ``from normalize import parsers as _parsers``
    assert {"normalize.cli._core", "normalize.cli._check", "normalize.cli._rules"} <= set(GRAPH["normalize.cli"])
