"""Mail that goes wrong on the way: a refusing or stopped SMTP server, a broker
that is down, a worker that dies mid-task, a relay and a sweep racing."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

import psycopg
import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from sqlmodel import col, select

from pbem.workers import clock
from pbem.core.db import as_utc, session_scope
from pbem.mail import delivery
from pbem.mail.compose import compose
from pbem.mail.transport import transport_for
from pbem.core.models import Outbox
from tests.support.clock import frozen_clock
from tests.support.config import POSTGRES_ADMIN
from tests.support.games import PLAYERS, db_id, new_game, seat_tokens, to_move
from pbem import games


def _claim(ctx: Any, outbox_id: int) -> int | None:
    """A worker taking a row in a transaction of its own (and then, in these tests,
    dying): the number of this attempt, or ``None``."""
    with session_scope(ctx.engine) as session:
        row = delivery._claim(session, outbox_id, ctx.now(), delivery.lease(ctx))
        return None if row is None else row.attempts


def rows(ctx: Any, kind: str | None = None) -> list[Outbox]:
    with session_scope(ctx.engine) as session:
        query = select(Outbox).order_by(col(Outbox.id))
        if kind is not None:
            query = query.where(Outbox.kind == kind)
        return list(session.exec(query))


def _unsent_invite(ctx: Any) -> tuple[Any, Outbox]:
    """A frozen clock, and an invitation left pending: no relay hands it to a worker."""
    now = frozen_clock(ctx)
    ctx.relay = lambda ids: None
    new_game(ctx, start=False)
    return now, rows(ctx, "invite")[-1]  # Cid's: he has not accepted


def test_refusing_server_then_recovering_delivers_once_late(sctx: Any, smtp: Any) -> None:
    ctx = sctx
    now = frozen_clock(ctx)
    box = smtp.collector
    box.refuse = "451 4.3.0 try again later"
    game_id, toks = new_game(ctx, start=False)
    invites = rows(ctx, "invite")
    assert len(invites) == 3 and box.refused == 3 and not box.messages()
    for row in invites:
        assert row.status == "pending" and row.attempts == 1 and "451" in (row.last_error or "")
        # The next try is backed off (about 30 s, with jitter), not immediate.
        assert as_utc(row.next_attempt_at) > now.at  # type: ignore[operator]
    # Still refusing at the next try: backed off again, longer.
    now.advance(seconds=40)
    clock.tick(ctx)
    # Ann accepted (her invitation asked her to confirm): hers is no longer wanted,
    # and the other two were refused again.
    creator, *others = rows(ctx, "invite")
    assert creator.status == "skipped"
    assert box.refused == 5 and all(r.attempts == 2 for r in others)
    # Not yet due: a sweep right away sends nothing.
    box.refuse = None
    clock.tick(ctx)
    assert not box.messages()
    now.advance(seconds=80)
    clock.tick(ctx)
    got = box.wait_for(2, kind="invite")
    assert sorted(r.to for r in got) == sorted(p["email"] for p in PLAYERS[1:])
    clock.tick(ctx)
    now.advance(hours=2)
    clock.tick(ctx)
    assert len(box.messages()) == 2
    assert all(r.status == "sent" and r.attempts == 3 for r in rows(ctx, "invite")[1:])


def test_stopped_server_then_back(sctx: Any, smtp: Any) -> None:
    ctx = sctx
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    smtp.collector.wait_for(1, kind="turn")
    smtp.stop()
    t, view = to_move(ctx, toks)
    games.submit_move(ctx, t, view["legal_moves"][0], None, view["ply"])  # the move stands
    (row,) = [r for r in rows(ctx, "turn") if r.event == f"ply:{view['ply'] + 1}"]
    assert row.status == "pending" and row.last_error
    smtp.start()
    now.advance(minutes=2)
    clock.tick(ctx)
    got = smtp.collector.wait_for(2, kind="turn")
    assert [str(r.message["Message-ID"]) for r in got].count(row.message_id) == 1


def test_permanent_refusal_is_not_retried(sctx: Any, smtp: Any) -> None:
    ctx = sctx
    now = frozen_clock(ctx)
    smtp.collector.refuse = "550 5.1.1 no such mailbox"
    new_game(ctx, start=False)
    assert all(r.status == "failed" for r in rows(ctx, "invite"))
    smtp.collector.refuse = None
    now.advance(days=1)
    clock.tick(ctx)
    assert smtp.collector.refused == 3 and not smtp.collector.messages()


def test_broker_down_the_move_is_saved_and_the_sweep_sends(database_url: str, smtp: Any) -> None:
    """Redis unreachable when a move is made: the move is saved (200) and quick;
    its mail waits in the outbox until a sweep with a working transport sends it."""
    from pbem.web import create_app

    app = create_app(smtp.config(database_url, BROKER_URL="redis://127.0.0.1:1/0"))
    ctx = app.extensions["pbem"]
    try:
        game_id, _, moved, took = _start_and_move(app.test_client(), ctx)
        assert moved.status_code == 200 and moved.json["ply"] == 1
        assert took < 5  # the relay gives up fast
        assert games.public_game(ctx, game_id)["ply"] == 1
        pending = rows(ctx)
        assert len(pending) == 5 and all(r.status == "pending" and r.attempts == 0 for r in pending)
        (mine,) = [r for r in pending if r.event == "ply:1"]
        assert not smtp.collector.messages()
        # The sweep (beat's, or the demo's tick) delivers what is still true:
        # the turn of ply 1, once; the invites (accepted since) and the turn
        # of ply 0 (played since) are skipped.
        clock.tick(ctx)
        (got,) = smtp.collector.wait_for(1)
        # A turn mail's Message-ID carries its reply token: decided when it is first built, then kept.
        (mine,) = [r for r in rows(ctx) if r.id == mine.id]
        assert str(got.message["Message-ID"]) == mine.message_id and got.kind == "turn"
        assert {r.event: r.status for r in rows(ctx)} == {"invite": "skipped", "ply:0": "skipped",
                                                          "ply:1": "sent"}
        clock.tick(ctx)
        assert len(smtp.collector.messages()) == 1
    finally:
        ctx.engine.dispose()


def test_a_broker_that_does_not_answer_delays_one_request_not_every_move(database_url: str, smtp: Any) -> None:
    """Redis accepts connections but never answers (hung, or behind a black hole): the
    first publish waits for BROKER_TIMEOUT, and for BROKER_PAUSE after it the relay does
    not try, so moves answer at once.  Every change is saved; the mail waits in the
    outbox for the sweep."""
    import socket

    from pbem.web import create_app

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)  # connections complete in the backlog and are never answered
    port = silent.getsockname()[1]
    app = create_app(smtp.config(database_url, BROKER_URL=f"redis://127.0.0.1:{port}/0",
                                 BROKER_TIMEOUT=1.0, BROKER_PAUSE=600.0))
    ctx = app.extensions["pbem"]
    # Each publish the relay tries (the only way a request can wait for the broker).
    # (pbem.workers.handoff pushes onto a redis:// broker itself; apply_async is the other way.)
    celery = app.extensions["celery"]
    deliver, handoff = celery.tasks["pbem.deliver"], celery.pbem_handoff
    assert handoff is not None
    tried: list[Any] = []
    publish, push = deliver.apply_async, handoff.publish
    deliver.apply_async = lambda *a, **k: (tried.append(a), publish(*a, **k))[1]
    handoff.publish = lambda *a, **k: (tried.append(a), push(*a, **k))[1]
    try:
        _, started_in, moved, _ = _start_and_move(app.test_client(), ctx, before_move=tried.clear)
        assert started_in >= 0.9  # the invites' publish waited for the broker
        assert moved.status_code == 200 and moved.json["ply"] == 1
        assert tried == []  # paused: the move did not try the broker, so did not wait for it
        assert all(r.status == "pending" for r in rows(ctx))
        (turn,) = [r for r in rows(ctx) if r.event == "ply:1"]
        # Once the pause is over the relay tries the broker again (and waits again).
        app.extensions["celery"].pbem_paused_until = 0.0
        started = time.monotonic()
        with app.app_context():
            app.extensions["celery"].relay([turn.id])
        assert time.monotonic() - started >= 0.9
        # The sweep, with a working transport, delivers what is still true.
        clock.tick(ctx)
        (got,) = smtp.collector.wait_for(1)
        (turn,) = [r for r in rows(ctx) if r.id == turn.id]  # its Message-ID is kept as it was sent
        assert str(got.message["Message-ID"]) == turn.message_id
    finally:
        ctx.engine.dispose()
        silent.close()


def _start_and_move(client: Any, ctx: Any, before_move: Callable[[], Any] = lambda: None
                    ) -> tuple[int, float, Any, float]:
    """Create a game over the API, accept it, make its first move (``before_move``
    just before): the game's id, the seconds the creation took, the move's
    response and the seconds the move took."""
    started = time.monotonic()
    made = client.post("/api/v1/games", json={"players": PLAYERS})
    created_in = time.monotonic() - started
    assert made.status_code == 201
    game_id = made.json["id"]
    toks = seat_tokens(ctx, game_id)
    token, view = to_move_or_accept(client, ctx, toks)
    before_move()
    started = time.monotonic()
    moved = client.post("/api/v1/seat/moves", headers={"Authorization": f"Bearer {token}"},
                        json={"move": view["legal_moves"][0], "ply": view["ply"]})
    return game_id, created_in, moved, time.monotonic() - started


def to_move_or_accept(client: Any, ctx: Any, toks: list[str]) -> tuple[str, Any]:
    for t in toks:
        assert client.post("/api/v1/seat/accept", headers={"Authorization": f"Bearer {t}"}).status_code == 200
    return to_move(ctx, toks)


def test_worker_killed_before_sending(sctx: Any, smtp: Any) -> None:
    """A worker claims a row and dies before sending: after the lease the sweep sends it."""
    ctx = sctx
    now, row = _unsent_invite(ctx)  # the relay's message is lost with the worker
    assert _claim(ctx, row.id)  # ... and the worker dies here
    clock.tick(ctx)
    assert row.message_id not in _ids(smtp)  # leased: nobody else takes it yet
    now.advance(seconds=delivery.LEASE.total_seconds() + 1)
    clock.tick(ctx)
    assert _ids(smtp).count(row.message_id) == 1
    now.advance(hours=1)
    clock.tick(ctx)
    assert _ids(smtp).count(row.message_id) == 1


def test_beats_sweep_leaves_a_new_row_to_the_relay_for_a_minute(sctx: Any, smtp: Any) -> None:
    """A row written under a minute ago is the relay's: handed on again at every
    sweep while it waits behind a backlog, its copies would lengthen the backlog.
    After the minute the sweep hands it on (the relay's message was lost)."""
    ctx = sctx
    now, row = _unsent_invite(ctx)
    handed: list[int] = []
    now.advance(seconds=59)
    assert clock.sweep_outbox(ctx, handoff=handed.extend) == [] and handed == []
    now.advance(seconds=2)
    assert row.id in clock.sweep_outbox(ctx, handoff=handed.extend) and row.id in handed
    assert row.message_id not in _ids(smtp)  # handed on, not sent here


def test_the_in_process_sweep_delivers_new_rows_at_once(sctx: Any, smtp: Any) -> None:
    """The demo's tick has no relay to wait for: it sends what is pending now."""
    ctx = sctx
    now, row = _unsent_invite(ctx)
    clock.tick(ctx)
    assert _ids(smtp).count(row.message_id) == 1


def test_the_lease_is_the_setting(sctx: Any, smtp: Any) -> None:
    """PBEM_MAIL_LEASE_SECONDS, not a constant: with 20 s, a dead worker's row goes
    after 21 s (the several-hosts benchmark waits out a short one)."""
    ctx = sctx
    ctx.config["MAIL_LEASE_SECONDS"] = 20.0
    now, row = _unsent_invite(ctx)
    assert _claim(ctx, row.id)
    now.advance(seconds=19)
    clock.tick(ctx)
    assert row.message_id not in _ids(smtp)
    now.advance(seconds=2)
    clock.tick(ctx)
    assert _ids(smtp).count(row.message_id) == 1


def test_worker_killed_after_sending_duplicates_at_most_once(sctx: Any, smtp: Any) -> None:
    """A worker sends and dies before marking the row sent: the sweep sends it
    again after the lease, with the same Message-ID (so clients can drop it),
    and never a third time."""
    ctx = sctx
    now, row = _unsent_invite(ctx)
    assert _claim(ctx, row.id)
    with session_scope(ctx.engine) as session:
        message = compose(ctx, session, session.get(Outbox, row.id))  # type: ignore[arg-type]
    assert message is not None
    transport_for(ctx.config, ctx.engine).send(message)  # sent ... and the worker dies here
    now.advance(seconds=delivery.LEASE.total_seconds() + 1)
    clock.tick(ctx)
    now.advance(hours=3)
    clock.tick(ctx)
    assert _ids(smtp).count(row.message_id) == 2
    assert [r.status for r in rows(ctx) if r.id == row.id] == ["sent"]


def test_relay_and_sweep_racing_send_once(sctx: Any, smtp: Any) -> None:
    """The same row handed out twice (the relay and a sweep, or a redelivered
    task), one after the other and at the same moment: one message."""
    ctx = sctx
    ctx.relay = lambda ids: None
    new_game(ctx, 4, start=False)
    _, first, second, third = rows(ctx, "invite")  # Ann's own is no longer wanted: she accepted
    transport = transport_for(ctx.config, ctx.engine)
    assert delivery.deliver(ctx, first.id, transport) == "sent"
    assert delivery.deliver(ctx, first.id, transport) == "busy"
    outcomes: list[str] = []
    barrier = threading.Barrier(6)

    def race(outbox_id: int) -> None:
        barrier.wait()
        outcomes.append(delivery.deliver(ctx, outbox_id, transport))

    threads = [threading.Thread(target=race, args=(rid,)) for rid in [second.id, third.id] * 3]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(outcomes).count("sent") == 2 and outcomes.count("busy") == 4
    clock.tick(ctx)
    ids = _ids(smtp)
    assert sorted(ids) == sorted([first.message_id, second.message_id, third.message_id])


def test_same_turn_decided_twice_is_one_row(ctx: Any) -> None:
    """Deciding the same message twice (e.g. two clocks) writes one outbox row."""
    from pbem.core.outbox import enqueue
    from pbem.core.models import Seat

    game_id, toks = new_game(ctx)
    with session_scope(ctx.engine) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == db_id(session, game_id))).first()
        assert seat is not None
        kw = dict(kind="turn", event="ply:0", recipient=seat.email, base_url=ctx.base_url, now=ctx.now(),
                  game_id=db_id(session, game_id), seat_id=seat.id)
        a = enqueue(session, **kw)  # type: ignore[arg-type]
        b = enqueue(session, **kw)  # type: ignore[arg-type]
    assert b is None and (a is None or isinstance(a, int))
    assert len([r for r in rows(ctx, "turn") if r.event == "ply:0" and r.seat_id == seat.id]) == 1


def _ids(smtp: Any) -> list[str]:
    return [str(r.message["Message-ID"]) for r in smtp.collector.messages()]


def test_a_message_that_cannot_be_built_is_retried_then_given_up(sctx: Any, smtp: Any, monkeypatch: Any) -> None:
    """Building a message fails (here: a bug): the row stays pending with a
    backed-off retry, and after MAX_ATTEMPTS it is marked failed, not tried forever."""
    ctx = sctx
    now, row = _unsent_invite(ctx)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("template exploded")

    monkeypatch.setattr(delivery, "compose", broken)
    transport = transport_for(ctx.config, ctx.engine)
    assert delivery.deliver(ctx, row.id, transport) == "retry"
    again = next(r for r in rows(ctx) if r.id == row.id)
    assert again.status == "pending" and again.attempts == 1 and "template exploded" in (again.last_error or "")
    assert as_utc(again.next_attempt_at) > now.at  # type: ignore[operator]
    outcome = "retry"
    for _ in range(delivery.MAX_ATTEMPTS + 2):
        now.advance(hours=2)
        outcome = delivery.deliver(ctx, row.id, transport)
        if outcome != "retry":
            break
    assert outcome == "failed"
    final = next(r for r in rows(ctx) if r.id == row.id)
    assert final.status == "failed" and final.attempts == delivery.MAX_ATTEMPTS
    assert row.message_id not in _ids(smtp)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_database_connection_lost_while_the_server_talks_still_marks_the_mail_sent(
        sctx: Any, smtp: Any, monkeypatch: Any) -> None:
    """PostgreSQL drops the connection that claimed the row while the SMTP server
    accepts the message (a restart, a fail-over): the message went, so it is marked
    sent, and the sweep does not send it again once the lease is over."""
    ctx = sctx
    now, row = _unsent_invite(ctx)
    backends: list[int] = []
    real_compose = delivery.compose

    def noting_the_backend(ctx: Any, session: Any, claimed: Any) -> Any:
        backends.append(session.connection().exec_driver_sql("SELECT pg_backend_pid()").scalar())
        return real_compose(ctx, session, claimed)

    monkeypatch.setattr(delivery, "compose", noting_the_backend)
    smtp_transport = transport_for(ctx.config, ctx.engine)

    class SendsThenTheDatabaseDrops:
        def send(self, message: Any, **envelope: Any) -> None:
            smtp_transport.send(message, **envelope)
            admin = POSTGRES_ADMIN.replace("postgresql+psycopg://", "postgresql://")
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute("SELECT pg_terminate_backend(%s)", (backends[0],))

    invalidated: list[object] = []
    event.listen(ctx.engine, "invalidate", lambda *args: invalidated.append(args[0]))
    assert delivery.deliver(ctx, row.id, SendsThenTheDatabaseDrops()) == "sent"
    # The mark found the dropped connection in the pool and replaced it.
    assert len(invalidated) == 1
    assert next(r for r in rows(ctx) if r.id == row.id).status == "sent"
    monkeypatch.setattr(delivery, "compose", real_compose)
    now.advance(minutes=10)
    clock.tick(ctx)
    assert _ids(smtp).count(row.message_id) == 1


def test_a_short_database_outage_after_sending_does_not_send_twice(sctx: Any, smtp: Any, monkeypatch: Any) -> None:
    """The server took the message, then the database refuses for a moment: the
    'sent' mark is tried again until it holds, instead of leaving the row leased for
    the sweep to send again."""
    ctx = sctx
    now, row = _unsent_invite(ctx)
    real_finish = delivery._finish
    refusals = [2]

    def outage(ctx: Any, outbox_id: int, status: str, *args: Any, **kwargs: Any) -> None:
        if status == "sent" and refusals[0]:
            refusals[0] -= 1
            raise OperationalError("UPDATE outbox", {}, ConnectionError("the database is restarting"))
        real_finish(ctx, outbox_id, status, *args, **kwargs)

    monkeypatch.setattr(delivery, "_finish", outage)
    monkeypatch.setattr(delivery, "MARK_SENT_DELAYS", (0.0, 0.0, 0.0))
    assert delivery.deliver(ctx, row.id, transport_for(ctx.config, ctx.engine)) == "sent"
    assert refusals == [0]
    assert next(r for r in rows(ctx) if r.id == row.id).status == "sent"
    now.advance(minutes=10)
    clock.tick(ctx)
    assert _ids(smtp).count(row.message_id) == 1
