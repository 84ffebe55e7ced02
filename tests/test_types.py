"""The whole package is typed: ``mypy --strict`` over ``pbem`` (the settings in
pyproject.toml) finds nothing, so ``make test`` fails on a type error as on any
other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_mypy_finds_nothing() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", "/dev/null"],
        capture_output=True, text=True, cwd=REPO, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
