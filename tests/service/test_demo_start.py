"""``pbem demo`` helps a newcomer find their way (issue 28): its port is checked
before anything is seeded, ``--help`` names the settings, and the banner names
the mail to open first."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from pbem.cli import main
from pbem.core.db import session_scope
from pbem.demo import DEMO_PLAYERS, banner, first_turn_mail, run_demo, seed
from pbem.core.models import CaughtMail
from pbem.web.mailbox import game_of
from tests.support.config import app_config


def _demo_env(monkeypatch: Any, tmp_path: Path, port: str) -> Path:
    for name in ("PBEM_DEMO_HOST", "PBEM_BASE_URL", "PBEM_INBOUND_PORT"):
        monkeypatch.delenv(name, raising=False)
    database = tmp_path / "demo.sqlite3"
    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{database}")
    monkeypatch.setenv("PBEM_DEMO_PORT", port)
    return database


def test_a_port_in_use_stops_the_demo_before_anything_is_seeded(monkeypatch: Any, tmp_path: Path,
                                                                capsys: Any) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        database = _demo_env(monkeypatch, tmp_path, str(port))
        assert run_demo() == 1
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and "nothing was started" in err and "PBEM_DEMO_PORT=" in err
    assert not database.exists()  # no database, no game, no mail


@pytest.mark.parametrize("port", ["http", "0", "70000", ""])
def test_a_port_that_is_no_port_is_refused(monkeypatch: Any, tmp_path: Path, capsys: Any, port: str) -> None:
    database = _demo_env(monkeypatch, tmp_path, port)
    assert run_demo() == 2
    assert f"PBEM_DEMO_PORT={port!r} is not a port number" in capsys.readouterr().err
    assert not database.exists()


def test_demo_help_names_its_port_and_host(capsys: Any) -> None:
    with pytest.raises(SystemExit) as done:
        main(["demo", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "PBEM_DEMO_PORT" in out and "default 5000" in out and "PBEM_DEMO_HOST" in out


def test_the_banner_names_the_turn_mail_of_whoever_moves_first(database_url: str) -> None:
    from pbem.web import create_app

    app = create_app(app_config(database_url, BASE_URL="http://localhost:8000", WEBHOOK_ALLOW="localhost"))
    ctx: Any = app.extensions["pbem"]
    try:
        with app.app_context():
            game_id = seed(ctx)
            name, mail_id = first_turn_mail(ctx, game_id) or ("", 0)
            lines = banner(ctx, game_id, None, "smtp://127.0.0.1:2525")
            with session_scope(ctx.engine) as session:
                mail = session.get(CaughtMail, mail_id)
                turns = session.exec(select(CaughtMail).where(CaughtMail.kind == "turn")).all()
    finally:
        ctx.engine.dispose()
    assert mail is not None and len(turns) == 1 and mail.id == turns[0].id
    assert mail.kind == "turn" and game_of(mail.raw) == game_id
    assert mail.recipient == next(p["email"] for p in DEMO_PLAYERS if p["name"] == name)
    text = "\n".join(lines)
    assert f"{name} moves first. Open {name}'s turn mail:  http://localhost:8000/mailbox/{mail_id}" in text
    assert f"http://localhost:8000/mailbox/?game={game_id}" in text
