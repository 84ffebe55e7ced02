"""Migration 0011: rows of the never-mail list written before it (the hash of
the address as written) also stop the address's mailbox, when the database
still holds the address."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import text

from pbem.core.db import make_engine, session_scope, upgrade
from pbem.people.players import address_hash
from pbem.people.reachability import is_suppressed


def test_old_rows_come_to_stop_their_mailbox(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/old.sqlite3"
    upgrade(url, "0009")
    engine = make_engine(url)
    now = datetime.now(timezone.utc)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO game (id, public_id, status, turn_hours, created_at, ply, seed) "
                          "VALUES (1, 'k3vx9q2mtr7hwa', 'invited', 72, :now, 0, 1)"), {"now": now})
        for n, email in enumerate(["Victim+0@Example.org", "vic.tim@gmail.com", "other+1@example.org"]):
            conn.execute(text("INSERT INTO seat (game_id, position, name, email, token_salt, token_hash, clan, mail, "
                              "autopilot_streak, vacation_days_left, language, talk_mail, board_style) VALUES "
                              "(1, :n, :name, :email, 's', :h, NULL, 'none', 0, 7, 'en', 0, 'standard')"),
                         {"n": n, "name": f"P{n}", "email": email.lower(), "h": f"h{n}"})
        # Before 0011: the first two asked never to be mailed, under their address as written;
        # a third row's address is gone from the database.
        for address in ("victim+0@example.org", "vic.tim@gmail.com", "gone+2@example.org"):
            conn.execute(text("INSERT INTO suppression (address_hash, created_at) VALUES (:h, :now)"),
                         {"h": address_hash(address), "now": now})
    upgrade(url)
    with session_scope(engine) as session:
        for stopped in ("victim@example.org", "Victim+9@example.org", "victim+0@example.org", "v.i.c.t.i.m@gmail.com",
                        "victim+x@googlemail.com", "gone+2@example.org"):
            assert is_suppressed(session, stopped), stopped
        for free in ("other@example.org", "other+1@example.org", "gone@example.org"):
            assert not is_suppressed(session, free), free
    upgrade(url)  # again: nothing changes, nothing fails
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM suppression")).scalar() == 5
    engine.dispose()
