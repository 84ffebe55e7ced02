"""The package's imports run one way, and never in a circle:

    rules  <-  drawing, words  <-  service  <-  mail  <-  clock  <-  tasks  <-  web  <-  cli, demo, worker

A module may import its own layer and the layers to its left, never one to its
right.  Imports inside functions count too: a cycle held together by an import
in a function body is still a cycle.  That the rules import nothing but the
standard library (and themselves) is checked in tests/rules/test_purity.py."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "pbem"

#: Layer of each module, by name prefix (the longest prefix wins); a module
#: not named here is in the service layer.
LAYERS = {
    "pbem.rules": 0,
    "pbem.drawing": 1,
    "pbem.words": 1,
    "pbem.language": 1,
    "pbem": 2,
    "pbem.mail": 3,
    "pbem.clock": 4,
    "pbem.tasks": 5,
    "pbem.app_context": 5,
    "pbem.web": 6,
    "pbem.cli": 7,
    "pbem.demo": 7,
    "pbem.worker": 7,
}
NAMES = {0: "rules", 1: "drawing/words/language", 2: "service", 3: "mail", 4: "clock", 5: "tasks", 6: "web", 7: "cli/demo/worker"}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "migrations" not in p.parts}


def layer(module: str) -> int:
    prefix = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[prefix]


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``module`` imports anywhere in its file (in
    function bodies too).  ``from x import y`` counts as importing ``x.y`` when
    that is a module, else ``x``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def nearest(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    for node in ast.walk(ast.parse(path.read_text("utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            hit = nearest(target)
            if hit is not None and hit != module:
                found.add(hit)
    return found


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports_of(name, path, set(mods)) for name, path in mods.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_imports_at_the_top_and_in_functions() -> None:
    graph = import_graph()
    assert "pbem.mail.delivery" in graph["pbem.clock"]  # from .mail.delivery import ...
    assert "pbem.services" in graph["pbem.mail.compose"]  # from .. import services
    assert "pbem.web" in graph["pbem.cli"]  # inside _export
    assert "pbem.db" in graph["pbem.cli"]  # inside _db


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


@pytest.mark.parametrize("module", sorted(modules()))
def test_imports_run_one_way(module: str) -> None:
    graph = import_graph()
    upward = sorted(t for t in graph[module] if layer(t) > layer(module))
    assert not upward, (f"{module} ({NAMES[layer(module)]}) imports "
                        + ", ".join(f"{t} ({NAMES[layer(t)]})" for t in upward))


def test_the_layers_are_in_order() -> None:
    assert layer("pbem.rules.game") < layer("pbem.services") < layer("pbem.mail.delivery") \
        < layer("pbem.clock") < layer("pbem.tasks") < layer("pbem.web.pages")
