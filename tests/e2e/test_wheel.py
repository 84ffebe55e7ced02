"""The built wheel works anywhere: built from a copy of the checkout, installed
into a new virtualenv, and used from a working directory outside the checkout,
it migrates a database (``pbem db upgrade``), serves a page and a static file
and writes its mail, picture and languages included.

The new virtualenv gets the wheel alone (``--no-deps``); the project's
dependencies come from the test's own environment through a ``.pth`` line that
names its site-packages.  That directory is not a site directory of the new
one, so the checkout's editable install of pbem in it is not loaded: ``import
pbem`` finds the installed wheel, and the test checks that it does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.support.config import SECRET

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "support" / "installed.py"

pytestmark = pytest.mark.wheel


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


def build_wheel(tmp: Path) -> Path:
    """The wheel of a copy of the checkout's sources (the build writes its own
    folders; the checkout, shared with other work, is left as it is)."""
    source = tmp / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc", "build", "dist")
    shutil.copytree(ROOT / "pbem", source / "pbem", ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", tmp / "dist",
        source, cwd=tmp)
    (wheel,) = (tmp / "dist").glob("pbem-*.whl")
    return wheel


def test_the_wheel_carries_every_file_the_package_reads(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    package = ROOT / "pbem"
    wanted = {str(p.relative_to(ROOT)) for p in package.rglob("*")
              if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
              # The catalogs' extraction settings are for `make catalog` in a checkout.
              and p.name != "babel.cfg"}
    assert not sorted(wanted - names), "missing from the wheel"

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "--quiet", wheel,
        cwd=tmp_path)
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path).strip())
    (site / "_pbem_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {"PBEM_DATABASE_URL": f"sqlite:///{work / 'pbem.sqlite3'}", "PBEM_SECRET_KEY": SECRET,
           "PBEM_BASE_URL": "http://127.0.0.1:5000", "PBEM_BROKER_URL": "", "PBEM_SMTP_HOST": "",
           "PYTHONPATH": "", "PYTHONNOUSERSITE": "1"}
    assert "newest schema" in run(venv / "bin" / "pbem", "db", "upgrade", cwd=work, env=env)
    checked = run(venv / "bin" / "pbem", "admin", "check", cwd=work, env=env)
    assert "all good" in checked, checked
    # The worker's and beat's entry point is in the package (the checkout's
    # worker.py is not installed): Celery loads the app from it.
    report = run(python, "-m", "celery", "-A", "pbem.worker", "report", cwd=work, env=env)
    assert "pbem.web" in report or "include" in report or "software" in report, report[:500]
    # A copy of the script, so that nothing of the checkout is on the path (a
    # script's own folder comes first on it).
    script = shutil.copy2(SCRIPT, work / "installed.py")
    seen = json.loads(run(python, script, cwd=work, env=env).strip().splitlines()[-1])

    assert Path(seen["package"]).is_relative_to(site), seen["package"]
    assert not [p for p in seen["path"] if p and Path(p).resolve().is_relative_to(ROOT)
                and not Path(p).resolve().is_relative_to(ROOT / ".venv")]
    assert not Path(seen["cwd"]).is_relative_to(ROOT)
    assert seen["pages"] == {"/": 200, "/static/style.css": 200, "/healthz": 200, "/readyz": 200}
    assert seen["css"] > 1000
    mail = seen["mail"]
    assert {"invite", "turn", "talk", "login", "link", "reminder", "deadline", "digest", "cancelled",
            "game-over"} <= set(mail), sorted(mail)
    assert all(m["html"] for m in mail.values())
    for kind in ("turn", "reminder", "deadline", "digest", "game-over"):
        assert mail[kind]["picture"], kind  # the board PNG, drawn from the installed board
    # The catalogs are installed: Cid's invitation is in Hungarian, Bob's (the same words) in English.
    invites = mail["invite"]["subjects"]
    (bob_language, bob), (cid_language, cid) = invites["bob@example.org"], invites["cid@example.org"]
    assert (bob_language, cid_language) == ("en", "hu") and bob != cid, (bob, cid)
    # Every kind the outbox can write that is mail has its templates in the wheel.
    assert set(seen["kinds"]) - {"webhook", "push"} <= set(seen["templates"])  # those two are posts, not mail
