"""A recorded game: every stored row, every API answer and every mail's bytes of
one whole game, played the same way each time.

What the service draws at random is drawn from counters and seeded generators
here (public ids, salts and so tokens, Message-IDs, MIME boundaries, the deal),
its clock is frozen and moved by hand, and ``Date`` is fixed: what is left is
what the code decides.  ``tests/service/test_recorded_game.py`` compares a run
with ``tests/data/recorded_game.<database>.json``, which an earlier tree wrote, so a
change meant to alter nothing (issue 34's cheaper moves and mail) shows it
altered nothing.  A change meant to alter what is stored, answered or mailed
writes the file again, on purpose: ``PBEM_RECORD=write``."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import secrets
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from tests.support.clock import Clock

DATA = Path(__file__).resolve().parents[1] / "data"


def recorded_path(database_url: str) -> Path:
    """One record per database: each gives its own types back (booleans, times)."""
    return DATA / f"recorded_game.{database_url.split(':', 1)[0].split('+')[0]}.json"
PLAYERS = [{"name": "Anna", "email": "anna@example.org", "language": "hu", "time_zone": "Europe/Budapest"},
           {"name": "Bruno", "email": "bruno@example.org", "language": "pt", "time_zone": "Europe/Lisbon"},
           {"name": "Cyril", "email": "cyril@example.org", "language": "cs"}]
#: The tables written, in a fixed order, with the column rows are ordered by.
TABLES = ["game", "seat", "move", "outbox", "reply_token", "rating", "table_message"]
START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def determined(monkeypatch: pytest.MonkeyPatch, ctx: Any) -> Clock:
    """Everything the service draws, drawn the same way every run; the clock frozen at START."""
    from pbem.core import tokens
    from pbem.mail import messages

    counter = itertools.count(1)
    monkeypatch.setattr(secrets, "token_hex", lambda n=32: f"{next(counter):0{2 * n}x}")
    monkeypatch.setattr(secrets, "randbits", lambda k: 12345 % (1 << k))
    ids = itertools.count(1)
    monkeypatch.setattr(tokens, "public_id", lambda: f"game{next(ids):0{tokens.PUBLIC_ID_LENGTH - 4}d}"
                        .translate(str.maketrans("0123456789", "abcdefghjk")))
    uuids = itertools.count(1)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=next(uuids)))
    monkeypatch.setattr(random, "SystemRandom", lambda *a: random.Random(4242))
    monkeypatch.setattr(messages, "formatdate", lambda *a, **k: "Mon, 02 Mar 2026 09:00:00 -0000")
    clock = Clock(START)
    ctx.now = clock
    return clock


def play(client: Any, ctx: Any, clock: Clock, smtp: Any) -> dict[str, Any]:
    """Start a game by the API, accept it, talk, and play it to the end by the
    API (each seat's first legal move): what was answered, mailed and stored."""
    from tests.support.games import seat_tokens

    answers: list[Any] = []

    def call(method: str, path: str, token: str | None = None, body: Any = None) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = client.open(path, method=method, json=body, headers=headers)
        answers.append([method, path, response.status_code, response.get_json()])
        return response.get_json()

    created = call("POST", "/api/v1/games", body={"players": PLAYERS, "turn_hours": 48})
    game = created["id"]
    toks = seat_tokens(ctx, game)
    for token in toks:
        clock.advance(minutes=7)
        call("POST", "/api/v1/seat/accept", token)
    from pbem.table import talk

    talk.talk(ctx, toks[1], "Jó játékot! Boa sorte, all.")
    while True:
        clock.advance(hours=3)
        public = call("GET", f"/api/v1/games/{game}")
        if public["status"] != "active":
            break
        mover = toks[public["players"].index(next(p for p in public["players"] if p.get("to_move")))]
        view = call("GET", "/api/v1/seat", mover)
        call("POST", "/api/v1/seat/moves", mover, {"move": view["legal_moves"][0], "ply": view["ply"]})
    call("GET", f"/api/v1/games/{game}/record")
    for token in toks:
        call("GET", "/api/v1/seat", token)
    mails = [[r.to, r.kind, str(r.message["Subject"]), _digest(r.raw)] for r in smtp.collector.messages()]
    table_rows = rows(ctx)
    return {"answers": [[method, path, status, _digest(body)] for method, path, status, body in answers],
            "mails": mails, "rows": {t: [_digest(row) for row in r] for t, r in table_rows.items()},
            "_full": {"answers": answers, "rows": table_rows,
                      "mails": {_digest(r.raw): r.raw for r in smtp.collector.messages()}}}


def _digest(value: Any) -> str:
    """What the record keeps of an answer, a row or a mail: its SHA-256 (the file
    stays small; a test that finds a difference shows the new value in full)."""
    data = value if isinstance(value, bytes) else json.dumps(value, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(data).hexdigest()


def rows(ctx: Any) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    with ctx.engine.connect() as conn:
        for table in TABLES:
            result = conn.execute(text(f"SELECT * FROM {table} ORDER BY id"))
            out[table] = [{k: _plain(v) for k, v in sorted(row._mapping.items())} for row in result]
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        # SQLite gives back naive UTC, PostgreSQL an aware time.
        return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).astimezone(timezone.utc).isoformat()
    if isinstance(value, (bytes, memoryview)):
        return bytes(value).hex()
    return value


def load(database_url: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(recorded_path(database_url).read_text())
    return data


def write(database_url: str, recorded: dict[str, Any]) -> None:
    DATA.mkdir(exist_ok=True)
    kept = {k: v for k, v in recorded.items() if k != "_full"}
    recorded_path(database_url).write_text(json.dumps(kept, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
