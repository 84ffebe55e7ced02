"""bench/clockscale.py's plan checker, on a small PostgreSQL database: it sees a Seq Scan
where there is one, and the clock's deadline scan and outbox sweep can use their indexes
(checked with sequential scans priced out, as a table this small would be read whole).
No timings here: ``python -m bench --only clock`` measures."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import text


def test_the_plan_checker_sees_seq_scans_and_the_clock_uses_its_indexes(bench_db: Any) -> None:
    from bench import clockscale, gamedata
    from pbem.workers import clock

    url, ctx = bench_db.url, bench_db.ctx
    game_id, toks = gamedata.new_game(ctx, 2)
    gamedata.play(ctx, toks, 4, random.Random(5))
    gamedata.clone_games_in_db(url, [game_id], 200)
    with bench_db.engine.begin() as conn:  # one copy's time is up, so the autopilot's statements run too
        conn.execute(text("UPDATE game SET deadline = now() - interval '1 minute' WHERE id = :g"),
                     {"g": game_id + 1})
    gamedata.analyze(url)

    # No index on turn_hours: the table is read whole.
    whole = clockscale.explain(url, [("SELECT id FROM game WHERE turn_hours = %(h)s", {"h": 72})])
    assert whole[0]["seq_scans"] == ["game"] and whole[0]["nodes"][0].startswith("Seq Scan on game")
    by_id = clockscale.explain(url, [("SELECT id FROM game WHERE id = %(g)s", {"g": game_id})])
    assert by_id[0]["seq_scans"] == [] and "game_pkey" in by_id[0]["nodes"][0]

    moves = bench_db.count("SELECT count(*) FROM move")
    # Nobody has vacation days here: the lapsed deadline is the autopilot's at once
    # (with days, the clock would spend one first; the bench's own data has both).
    ctx.config["VACATION_DAYS"] = 0
    deadlines = clockscale._statements(ctx, lambda: clock.expire_deadlines(ctx))
    assert bench_db.count("SELECT count(*) FROM move") == moves + 1  # the autopilot moved
    reminders = clockscale._statements(ctx, lambda: clock.send_reminders(ctx))
    sweep = clockscale._statements(ctx, lambda: clock.sweep_outbox(ctx, handoff=lambda ids: None))
    assert any("FROM game" in s and "deadline" in s for s, _ in deadlines)
    assert any("FROM outbox" in s and "next_attempt_at" in s for s, _ in sweep)

    priced_out = url + "?options=-c%20enable_seqscan%3Doff"
    plans = clockscale.explain(priced_out, deadlines + reminders + sweep)
    assert [p for p in plans if p["seq_scans"]] == []
    # The lapsed games with their movers' addresses, then the movers' vacation banks at once.
    scan = next(p for p in plans if p["sql"].startswith("SELECT game.id, game.ply, game.vacation_off, seat.email"))
    assert "ix_game_deadline" in " ".join(scan["nodes"])
    banks = next(p for p in plans if p["sql"].startswith("SELECT vacation_bank.id"))
    assert "ix_vacation_bank_address_hash" in " ".join(banks["nodes"])
    remind = next(p for p in plans if p["sql"].startswith("SELECT game.id, game.ply, game.turn_seat"))
    assert "ix_game_reminder_due" in " ".join(remind["nodes"])
    due = next(p for p in plans if p["sql"].startswith("SELECT outbox.id FROM outbox"))
    assert "ix_outbox_pending" in " ".join(due["nodes"])
    # Each statement was explained in a transaction rolled back: the move is still the one.
    assert bench_db.count("SELECT count(*) FROM move") == moves + 1
