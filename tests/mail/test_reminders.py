"""The mail the clock sends on its own, with ``ctx.now`` moved by hand: reminders
before a deadline, and the daily digest."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import event

from pbem.workers import clock
from pbem.core.db import as_utc, session_scope
from pbem.core.models import Game
from tests.support.clock import frozen_clock
from tests.support.games import PLAYERS, db_id, deadline, email_of, new_game, play, to_move
from tests.support.messages import caught, parts
from pbem import games


def test_reminder_once_per_deadline_and_rearmed_by_a_move(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)  # 72-hour turns, reminder 24 hours before
    t, view = to_move(ctx, toks)
    due = deadline(ctx, game_id)
    assert due == now.at + timedelta(hours=72)
    now.at = due - timedelta(hours=25)
    clock.tick(ctx)
    assert caught(ctx, kind="reminder") == []
    now.at = due - timedelta(hours=23)
    clock.tick(ctx)
    clock.tick(ctx)
    now.advance(hours=10)
    clock.tick(ctx)
    (reminder,) = caught(ctx, kind="reminder")
    assert reminder["To"] == email_of(view)
    assert "hours left" in reminder["Subject"]
    with session_scope(ctx.engine) as session:
        assert as_utc(session.get(Game, db_id(session, game_id)).reminded_for) == due  # type: ignore[union-attr]
    # A move sets a new deadline and re-arms the reminder for the next player.
    games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])
    t2, view2 = to_move(ctx, toks)
    due2 = deadline(ctx, game_id)
    assert due2 == now.at + timedelta(hours=72)
    clock.tick(ctx)
    assert len(caught(ctx, kind="reminder")) == 1
    now.at = due2 - timedelta(hours=1)
    clock.tick(ctx)
    reminders = caught(ctx, kind="reminder")
    assert [m["To"] for m in reminders] == [email_of(view), email_of(view2)]
    assert "60 minutes left" in reminders[1]["Subject"]


def test_reminder_for_a_short_turn_waits_half_the_turn(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id = games.start_game(ctx, games.parse_players(PLAYERS[:2]), 6)
    from tests.support.games import seat_tokens

    for t in seat_tokens(ctx, game_id):
        games.accept(ctx, t)
    now.advance(hours=2, minutes=59)
    clock.tick(ctx)
    assert caught(ctx, kind="reminder") == []
    now.advance(minutes=2)
    clock.tick(ctx)
    assert len(caught(ctx, kind="reminder")) == 1


def test_no_reminder_for_mail_off_but_still_the_autopilot(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    games.set_mail(ctx, t, "none")
    now.advance(hours=71)
    clock.tick(ctx)
    assert caught(ctx, kind="reminder") == []
    now.advance(hours=2)
    clock.tick(ctx)
    assert games.public_game(ctx, game_id)["ply"] == 1
    assert sorted(m["To"] for m in caught(ctx, kind="deadline")) == sorted(
        p["email"] for p in PLAYERS if p["name"] != view["you"])


def test_reminders_due_together_are_claimed_together_and_once(ctx: Any) -> None:
    """Every reminder due in one beat costs the same few statements (the scan, one
    claim, one look-up of the movers, one insert), however many games; a second
    beat finds them claimed and a mover with mail off is claimed but not mailed."""
    now = frozen_clock(ctx)
    started = [new_game(ctx) for _ in range(3)]
    movers = [to_move(ctx, toks) for _, toks in started]
    games.set_mail(ctx, movers[2][0], "none")
    now.advance(hours=49)  # 72-hour turns: within every reminder's 24 hours
    statements: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if not statement.startswith("BEGIN"):  # SQLite's BEGIN IMMEDIATE (db.py)
            statements.append(statement.split()[0])

    relay, relayed = ctx.relay, []
    ctx.relay = relayed.extend  # delivery's statements are not the clock's: they run after the count
    event.listen(ctx.engine, "before_cursor_execute", count)
    try:
        first = clock.send_reminders(ctx)
        claimed = list(statements)
        statements.clear()
        assert clock.send_reminders(ctx) == []
    finally:
        event.remove(ctx.engine, "before_cursor_execute", count)
        ctx.relay = relay
    assert relayed == first
    relay(relayed)
    assert claimed == ["SELECT", "UPDATE", "SELECT", "INSERT"] and statements == ["SELECT"]
    assert len(first) == 2
    assert sorted(m["To"] for m in caught(ctx, kind="reminder")) == sorted(email_of(v) for _, v in movers[:2])
    with session_scope(ctx.engine) as session:
        for game_id, _ in started:  # the mail-off mover's reminder is claimed too: not looked at again
            game = session.get(Game, db_id(session, game_id))
            assert game is not None and game.reminded_for == game.deadline


def test_daily_digest(ctx: Any) -> None:
    now = frozen_clock(ctx)
    now.at = now.at.replace(hour=5, minute=0)
    game_id, toks = new_game(ctx)
    games.set_mail(ctx, toks[0], "digest")
    games.set_mail(ctx, toks[1], "digest")
    turns_before = len(caught(ctx, kind="turn"))
    play(ctx, toks, 4)
    # Digest players got no turn mail of their own.
    digesters = sorted(email_of(games.seat_view(ctx, t)) for t in toks[:2])
    assert not {m["To"] for m in caught(ctx, kind="turn")[turns_before:]} & set(digesters)
    clock.tick(ctx)  # before DIGEST_HOUR: nothing yet
    assert caught(ctx, kind="digest") == []
    now.at = now.at.replace(hour=ctx.config["DIGEST_HOUR"], minute=5)
    clock.tick(ctx)
    # The hourly runs after it look at no seat that has today's digest: one query.
    statements: list[str] = []
    listen = lambda *args: statements.append(args[2])  # noqa: E731
    event.listen(ctx.engine, "before_cursor_execute", listen)
    try:
        assert clock.send_digests(ctx) == []
    finally:
        event.remove(ctx.engine, "before_cursor_execute", listen)
    assert [q.split()[0] for q in statements if not q.startswith("BEGIN")] == ["SELECT"]
    digests = caught(ctx, kind="digest")
    assert sorted(m["To"] for m in digests) == digesters
    history = games.public_game(ctx, game_id)["history"]
    for m in digests:
        text = parts(m)["text"]
        for h in history:
            assert f"{h['player']} moved {h['move'].replace('-', ' → ')}" in text
    # Next day, nothing happened: no digest.  The day after, only the new moves.
    now.advance(days=1)
    clock.tick(ctx)
    assert len(caught(ctx, kind="digest")) == 2
    play(ctx, toks, 1)
    now.advance(days=1)
    clock.tick(ctx)
    digests = caught(ctx, kind="digest")
    assert len(digests) == 4
    latest = games.public_game(ctx, game_id)["history"][-1]
    for m in digests[2:]:
        text = parts(m)["text"]
        assert text.count(" moved ") == 1 and latest["player"] in text
