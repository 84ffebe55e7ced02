"""The house's shape: packages by domain, each saying in its docstring what it may
import ("May import: …"), and the README's "What it is" table saying the same.
This test holds both: an import of another package that the importing package
does not name fails, and so does an import cycle anywhere (imports inside
functions count too: a cycle held together by an import in a function body is
still a cycle).  At the top of ``pbem/`` only the entry points stand beside the
packages, and no module grows past 600 lines.  That the rules import nothing
but the standard library (and themselves) is checked in tests/rules/test_purity.py."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "pbem"
#: The modules at the top of the package: the entry points, which may import anything.
ENTRY_POINTS = {"pbem", "pbem.cli", "pbem.demo", "pbem.worker", "pbem.gunicorn_conf"}
#: The longest a module may be: past it, it holds more than one thing.  Split it along what it holds.
MAX_LINES = 600


def packages() -> list[str]:
    return sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py") if p.parent.name != "migrations")


def may_import(package: str) -> set[str]:
    """What a package's docstring says it may import."""
    doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text("utf-8"))) or ""
    found = re.search(r"^May import: (.*)\.$", doc, re.M)
    assert found, f"pbem/{package}/__init__.py does not say what it may import ('May import: …')"
    said = found.group(1)
    return set() if said.startswith("nothing") else {p.strip() for p in said.split(",")}


def readme_table() -> dict[str, set[str]]:
    """The README's table of packages: ``| `name/` | job | may import |``."""
    out: dict[str, set[str]] = {}
    for row in re.finditer(r"^\| `(\w+)/` \|[^|]*\| ([^|]*) \|$", (REPO / "README.md").read_text("utf-8"), re.M):
        said = row.group(2).strip()
        out[row.group(1)] = set() if said.startswith("nothing") else {p.strip() for p in said.split(",")}
    return out


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "migrations" not in p.parts}


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


@functools.cache
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


def package_of(module: str) -> str:
    return module if module in ENTRY_POINTS else module.split(".")[1]


def test_the_graph_sees_imports_at_the_top_and_in_functions() -> None:
    graph = import_graph()
    assert "pbem.mail.delivery" in graph["pbem.workers.clock"]  # from ..mail.delivery import ...
    assert "pbem.games" in graph["pbem.mail.compose"]  # from .. import games
    assert "pbem.web" in graph["pbem.cli"]  # inside _export
    assert "pbem.core.db" in graph["pbem.cli"]  # inside _db


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


@pytest.mark.parametrize("module", sorted(m for m in modules() if m not in ENTRY_POINTS))
def test_a_module_imports_only_what_its_package_may(module: str) -> None:
    own = package_of(module)
    allowed = may_import(own) | {own}
    wrong = sorted(t for t in import_graph()[module] if package_of(t) not in allowed)
    assert not wrong, f"{module} imports {', '.join(wrong)}; pbem/{own}/ may import only {', '.join(sorted(allowed))}"


def test_an_allow_list_names_only_packages_below_it() -> None:
    """The packages' allow-lists, read as "may import", form no circle."""
    graph = {p: may_import(p) for p in packages()}
    assert all(set(v) <= set(graph) for v in graph.values()), graph
    assert cycles(graph) == []


def test_the_readme_says_what_the_packages_say() -> None:
    assert readme_table() == {p: may_import(p) for p in packages()}


def test_only_the_entry_points_stand_at_the_top() -> None:
    top = {f"pbem.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"} | {"pbem"}
    assert top == ENTRY_POINTS
    assert len(top) <= 8


@pytest.mark.parametrize("path", sorted(p for p in PACKAGE.rglob("*.py") if "migrations" not in p.parts),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_too_long_to_read(path: Path) -> None:
    lines = path.read_text("utf-8").count("\n")
    assert lines <= MAX_LINES, f"{path.relative_to(REPO)} has {lines} lines; split it along what it holds"
