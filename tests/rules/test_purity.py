"""The rules core is a pure library: standard library only, and typed (mypy --strict)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.rules import REPO

RULES = REPO / "pbem" / "rules"
MODULES = sorted(RULES.glob("*.py"))


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(level, absolute-or-relative module name) of every import in the file, nested ones too."""
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((0, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module or ""))
    return out


def test_there_are_modules() -> None:
    names = {p.stem for p in MODULES}
    assert {"board", "tables", "move", "errors", "game", "record", "deal", "views", "bots", "playout"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_imports_only_the_standard_library_and_itself(path: Path) -> None:
    for level, name in imported_modules(path):
        if level == 0:
            top = name.split(".")[0]
            if top == "pbem":
                assert name == "pbem.rules" or name.startswith("pbem.rules."), f"{path.name} imports {name}"
            else:
                assert top in sys.stdlib_module_names, f"{path.name} imports {name}"
        else:
            # relative: "from . import x" / "from .game import y" stay in pbem.rules;
            # "from .. import" would leave it
            assert level == 1, f"{path.name} imports {'.' * level}{name}"


def test_the_import_check_sees_imports() -> None:
    # the check above is not vacuous: game.py imports random and .board
    found = imported_modules(RULES / "game.py")
    assert (0, "random") in found and (1, "board") in found


def test_importing_the_rules_pulls_in_nothing_else() -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import pbem.rules, pbem.rules.record, pbem.rules.views, pbem.rules.bots, "
        "pbem.rules.deal, pbem.rules.playout\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "bad = sorted(m for m in new if m not in sys.stdlib_module_names and m != 'pbem')\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_mypy_strict() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", "/dev/null", "pbem/rules"],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout
