"""bench/clockscale.py's plan checker, on a small PostgreSQL database: it sees a Seq Scan
where there is one, and the clock's deadline scan and outbox sweep can use their indexes
(checked with sequential scans priced out, as a table this small would be read whole).
No timings here: ``python -m bench --only clock`` measures."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import text


def _count(engine: Any, sql: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text(sql)).scalar_one())


def test_the_plan_checker_sees_seq_scans_and_the_clock_uses_its_indexes(postgresql_url: str) -> None:
    from bench import clockscale, gamedata
    from pbem import clock
    from pbem.db import make_engine
    from tests.support.config import TABLES

    engine = make_engine(postgresql_url)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE"))
    ctx = gamedata.context(postgresql_url)
    try:
        game_id, toks = gamedata.new_game(ctx, 2)
        gamedata.play(ctx, toks, 4, random.Random(5))
        gamedata.clone_games_in_db(postgresql_url, [game_id], 200)
        with engine.begin() as conn:  # one copy's time is up, so the autopilot's statements run too
            conn.execute(text("UPDATE game SET deadline = now() - interval '1 minute' WHERE id = :g"),
                         {"g": game_id + 1})
        gamedata.analyze(postgresql_url)

        # No index on turn_hours: the table is read whole.
        whole = clockscale.explain(postgresql_url, [("SELECT id FROM game WHERE turn_hours = %(h)s", {"h": 72})])
        assert whole[0]["seq_scans"] == ["game"] and whole[0]["nodes"][0].startswith("Seq Scan on game")
        by_id = clockscale.explain(postgresql_url, [("SELECT id FROM game WHERE id = %(g)s", {"g": game_id})])
        assert by_id[0]["seq_scans"] == [] and "game_pkey" in by_id[0]["nodes"][0]

        moves = _count(engine, "SELECT count(*) FROM move")
        deadlines = clockscale._statements(ctx, lambda: clock.expire_deadlines(ctx))
        assert _count(engine, "SELECT count(*) FROM move") == moves + 1  # the autopilot moved
        sweep = clockscale._statements(ctx, lambda: clock.sweep_outbox(ctx, handoff=lambda ids: None))
        assert any("FROM game" in s and "deadline" in s for s, _ in deadlines)
        assert any("FROM outbox" in s and "next_attempt_at" in s for s, _ in sweep)

        priced_out = postgresql_url + "?options=-c%20enable_seqscan%3Doff"
        plans = clockscale.explain(priced_out, deadlines + sweep)
        assert [p for p in plans if p["seq_scans"]] == []
        scan = next(p for p in plans if p["sql"].startswith("SELECT game.id, game.ply FROM game"))
        assert "ix_game_deadline" in " ".join(scan["nodes"])
        due = next(p for p in plans if p["sql"].startswith("SELECT outbox.id FROM outbox"))
        assert "ix_outbox_pending" in " ".join(due["nodes"])
        # The reminder scan's index, for a scan that ranges over its expression.
        remind = clockscale.explain(priced_out, [(
            "SELECT id FROM game WHERE status = 'active' AND nullif(deadline, reminded_for) > now() "
            "AND nullif(deadline, reminded_for) <= now() + interval '1 day'", {})])
        assert "ix_game_unreminded_deadline" in " ".join(remind[0]["nodes"])
        # Each statement was explained in a transaction rolled back: the move is still the one.
        assert _count(engine, "SELECT count(*) FROM move") == moves + 1
    finally:
        ctx.engine.dispose()
        engine.dispose()
