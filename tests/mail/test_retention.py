"""Retention (``clock.prune``): games nobody accepted expire, and old sign-ins,
delivered mail and caught mail are deleted, with ``ctx.now`` moved by hand."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import insert, update
from sqlmodel import col, select

from pbem.workers import clock
from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.models import CaughtMail, Game, Login, Outbox
from pbem.workers.tasks import beat_schedule
from tests.support.clock import frozen_clock
from tests.support.games import PLAYERS, db_id, new_game, play, seat_tokens
from tests.support.messages import caught
from tests.support.web import csrf_token
from pbem.people import signin
from pbem import games

NOTHING = {"games_expired": 0, "logins_deleted": 0, "outbox_deleted": 0, "caught_mail_deleted": 0,
           "inbound_deleted": 0, "reply_tokens_deleted": 0}


def status(ctx: Any, game_id: str) -> str:
    with session_scope(ctx.engine) as session:
        return session.exec(select(Game.status).where(Game.public_id == game_id)).one()


def outbox(ctx: Any) -> list[tuple[int, str, str]]:
    """(id, kind, status) of every outbox row."""
    with session_scope(ctx.engine) as session:
        return [tuple(r) for r in session.exec(  # type: ignore[misc]
            select(Outbox.id, Outbox.kind, Outbox.status).order_by(col(Outbox.id)))]


def logins(ctx: Any) -> dict[int, Login]:
    with session_scope(ctx.engine) as session:
        return {r.id: r for r in session.exec(select(Login))}  # type: ignore[misc]


def no_relay(ctx: Any) -> None:
    """New mail stays pending: nothing hands it to a worker."""
    ctx.relay = lambda ids: None


def test_an_unaccepted_game_expires_after_invite_days_and_its_invitations_are_not_sent(ctx: Any) -> None:
    now = frozen_clock(ctx)
    no_relay(ctx)
    old, old_toks = new_game(ctx, start=False)  # its first player accepted: still not started
    playing, _ = new_game(ctx)  # everyone accepted at once
    now.advance(days=10)
    young, _ = new_game(ctx, start=False)
    now.advance(days=4, minutes=-1)  # the first game is 14 days old, less a minute
    assert clock.prune(ctx)["games_expired"] == 0
    now.advance(minutes=2)
    # Its invitations are still pending (no relay ran): the tick expires the game
    # before its sweep, which skips them; none is sent.
    assert clock.tick(ctx)["games_expired"] == 1
    assert [status(ctx, g) for g in (old, playing, young)] == ["expired", "active", "invited"]
    old_id = db_id(ctx, old)
    with session_scope(ctx.engine) as session:
        invites = session.exec(select(Outbox.status).where(Outbox.game_id == old_id)).all()
    assert invites == ["skipped"] * 3
    # The young game's, but for its first player's own: she accepted already.
    assert len(caught(ctx, kind="invite")) == 2
    # Every seat of it, accepted or not, now sees that it expired; accepting is refused.
    for t in old_toks:
        assert games.seat_view(ctx, t)["status"] == "expired"
    with pytest.raises(errors.Conflict, match="expired"):
        games.accept(ctx, old_toks[1])
    # A game being played never expires, however old.
    now.advance(days=365)
    clock.prune(ctx)
    assert [status(ctx, g) for g in (old, playing, young)] == ["expired", "active", "expired"]


def test_the_wait_starts_again_when_the_creator_confirms(ctx: Any) -> None:
    """Confirming late sends the others their invitations: they get the full
    INVITE_DAYS to answer."""
    now = frozen_clock(ctx)
    game_id = games.start_game(ctx, games.parse_players(PLAYERS[:2]))
    now.advance(days=13)
    games.accept(ctx, seat_tokens(ctx, game_id)[0])
    now.advance(days=2)
    clock.prune(ctx)
    assert status(ctx, game_id) == "invited"
    now.advance(days=12, minutes=1)
    clock.prune(ctx)
    assert status(ctx, game_id) == "expired"


def test_an_expired_games_links_show_that_it_expired(client: Any, ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx, start=False)
    now.advance(days=15)
    clock.prune(ctx)
    page = client.get(f"/play/{toks[1]}").get_data(as_text=True)
    assert 'data-status="expired"' in page and ">This game expired<" in page
    assert "This game expired: not everyone accepted within 14 days" in page
    assert "Accept the invitation" not in page
    public = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "This game expired: not everyone accepted within 14 days." in public
    # An accept button on a page opened before it expired: refused, and says why.
    response = client.post(f"/play/{toks[1]}/accept", data={"csrf_token": csrf_token(client)})
    assert response.status_code == 409 and "expired" in response.get_data(as_text=True)


def test_old_sign_ins_go_but_a_live_session_stays(ctx: Any) -> None:
    now = frozen_clock(ctx)
    ctx.limit = lambda name, keys: None  # the sign-in mail limit counts wall-clock time
    new_game(ctx, start=False)
    start = now.at

    def request(email: str = "ann@example.org") -> int:
        signin.request_login(ctx, email)
        with session_scope(ctx.engine) as session:
            return session.exec(select(Login.id).order_by(col(Login.id).desc())).first()  # type: ignore[return-value]

    def use(login_id: int) -> None:
        login = logins(ctx)[login_id]
        signin.use_login(ctx, signin.login_link(ctx, login).rsplit("/", 1)[1])

    never_used = request()
    signed_out = request("bob@example.org")
    use(signed_out)
    with ctx.engine.begin() as conn:
        conn.execute(update(Login).where(col(Login.id) == signed_out).values(ended_at=now.at))
    now.advance(minutes=10)
    session = request("cid@example.org")
    use(session)  # a browser signed in and still signed in
    unsent = request()
    with ctx.engine.begin() as conn:  # its mail failed once and waits for a retry: the row names it
        conn.execute(update(Outbox).where(col(Outbox.login_id) == unsent).values(status="pending"))
    now.advance(days=20)
    young = request()  # expired, but young
    assert {k for _, k, s in outbox(ctx) if s == "sent"} == {"invite", "login"}

    now.at = start + timedelta(days=30, hours=1)
    counts = clock.prune(ctx)
    assert counts["logins_deleted"] == 2
    assert set(logins(ctx)) == {session, unsent, young}
    # The delivered sign-in mail went with them; the pending one stays.
    assert [(k, s) for _, k, s in outbox(ctx) if k == "login"] == [("login", "pending"), ("login", "sent")]
    assert clock.prune(ctx) == NOTHING
    # SESSION_DAYS (31) after it was used, the session is over and its row goes.
    now.at = start + timedelta(days=31, minutes=11)
    assert clock.prune(ctx)["logins_deleted"] == 1
    assert set(logins(ctx)) == {unsent, young}


def test_the_newest_sign_in_stays_so_that_its_id_is_never_handed_out_again(ctx: Any) -> None:
    now = frozen_clock(ctx)
    # The per-address limit on sign-in mail counts wall-clock time, which this
    # test's frozen clock does not move.
    ctx.limit = lambda name, keys: None
    new_game(ctx, start=False)
    signin.request_login(ctx, "ann@example.org")
    (first,) = logins(ctx)
    now.advance(days=31)
    assert clock.prune(ctx)["logins_deleted"] == 0
    signin.request_login(ctx, "ann@example.org")
    second = max(logins(ctx))
    assert second > first
    assert clock.prune(ctx)["logins_deleted"] == 1
    assert set(logins(ctx)) == {second}


def test_done_mail_older_than_retention_days_goes_pending_mail_never(ctx: Any) -> None:
    now = frozen_clock(ctx)
    start = now.at
    game_id, toks = new_game(ctx)  # three invitations and the first turn mail, sent now
    sent = outbox(ctx)
    assert len(sent) == 4 and {s for _, _, s in sent} == {"sent"}
    # One gave up, one was skipped: done too, without a sent time.
    with ctx.engine.begin() as conn:
        conn.execute(update(Outbox).where(col(Outbox.id) == sent[0][0]).values(status="failed", sent_at=None))
        conn.execute(update(Outbox).where(col(Outbox.id) == sent[1][0]).values(status="skipped", sent_at=None))
    now.advance(days=20)
    no_relay(ctx)
    play(ctx, toks, 1)  # the next player's turn mail, left pending
    (pending,) = [r for r in outbox(ctx) if r[2] == "pending"]
    now.at = start + timedelta(days=30, minutes=-1)
    assert clock.prune(ctx) == NOTHING
    now.at = start + timedelta(days=30, minutes=1)
    counts = clock.prune(ctx, batch=3)  # two batches, the second one short
    assert counts["outbox_deleted"] == 4 and counts["caught_mail_deleted"] == 4  # the caught copies
    assert outbox(ctx) == [pending]
    assert len(caught(ctx)) == 0
    now.advance(days=1000)
    assert clock.prune(ctx) == NOTHING
    assert outbox(ctx) == [pending]


def test_the_last_digest_of_a_game_in_play_stays(ctx: Any) -> None:
    """The next digest reports the moves since the last one: deleting it would
    repeat the whole game's history in a player's next digest."""
    now = frozen_clock(ctx)
    now.at = now.at.replace(hour=1)
    game_id, toks = new_game(ctx, 2)
    for t in toks:
        games.set_mail(ctx, t, "digest")
    play(ctx, toks, 1)
    now.advance(hours=8)  # after DIGEST_HOUR
    assert len(clock.send_digests(ctx)) == 2
    now.advance(days=31)
    clock.prune(ctx)
    assert {k for _, k, _ in outbox(ctx)} == {"digest"}
    with ctx.engine.begin() as conn:  # the game ends (how does not matter here)
        conn.execute(update(Game).where(col(Game.public_id) == game_id).values(status="finished"))
    assert clock.prune(ctx)["outbox_deleted"] == 2
    assert outbox(ctx) == []


def test_pruners_running_at_once_delete_each_row_once(ctx: Any) -> None:
    now = frozen_clock(ctx)
    with ctx.engine.begin() as conn:
        conn.execute(insert(CaughtMail), [
            dict(recipient=f"p{n}@example.org", subject="s", kind="turn", message_id=f"<{n}@x>", raw="r",
                 created_at=now.at) for n in range(60)])
    now.advance(days=31)
    results: list[dict[str, int]] = []
    failures: list[BaseException] = []

    def run() -> None:
        try:
            results.append(clock.prune(ctx, batch=4))
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert failures == []
    assert sum(r["caught_mail_deleted"] for r in results) == 60
    assert clock.prune(ctx) == NOTHING


def test_beat_runs_retention_hourly(app: Any) -> None:
    (entry,) = [e for e in beat_schedule().values() if e["task"] == "pbem.clock.prune"]
    assert entry["options"]["expires"] < 3600
    task = app.extensions["celery"].tasks["pbem.clock.prune"]
    assert task.ignore_result and task.time_limit
    assert task.delay().get() == NOTHING
