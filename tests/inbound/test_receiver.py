"""The receiver (pbem/inbound/receiver.py, store.py, handling.py): a real aiosmtpd
receiver on a free port, spoken to by a real ``smtplib`` client, over SMTP and LMTP.

Recipients are checked at RCPT; what is accepted is stored before ``250``, once
per delivery; a database that is down makes it ``451`` (the sender retries and
nothing is lost); a broker or worker that is down leaves the message pending
for the sweep."""

from __future__ import annotations

import re

import os
import signal
import smtplib
import socket
import subprocess
import sys
import threading
from email.message import EmailMessage
from email.policy import SMTP
from typing import Any, Callable

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlmodel import col, select

from pbem.inbound import reply_tokens
from pbem.workers import clock
from pbem.core import tokens
from pbem.core.context import Context
from pbem.core.db import session_scope, upgrade
from pbem.inbound import handling
from pbem.inbound.receiver import MAX_HEADER_BYTES, header_bytes, receiver
from pbem.core.models import Inbound, Outbox, ReplyToken, Seat
from tests.support.clock import frozen_clock, wait_until
from tests.support.config import SECRET, app_config
from tests.support.games import db_id, new_game
from tests.support.smtp import free_port

DOMAIN = "clans.example"  # the host of the tests' base URL
ANN = "ann@example.org"


# --- helpers ---------------------------------------------------------------------------------------


def replied(outcome: str | None) -> bool:
    """Whether ``outcome`` is one the reply handler gives (tests/inbound/test_replies.py
    says which one when)."""
    return bool(re.fullmatch(r"accepted(:.*)?|refused:.*|confirm:.*|ignored-.*", outcome or ""))


def reply_token(ctx: Any, game: str, position: int = 0, ply: int = 0, *, used: bool = False) -> str:
    """A live reply token for a seat and ply, made as the turn mail's is
    (the one that mail made already, if it did)."""
    with session_scope(ctx.engine) as session:
        game_id = db_id(session, game)
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == position)).one()
        token = reply_tokens.reply_token(ctx, session, seat, ply)
        if used:
            row = session.exec(select(ReplyToken).where(ReplyToken.seat_id == seat.id,
                                                        ReplyToken.ply == ply)).one()
            row.used_at = ctx.now()
            session.add(row)
    return token


def mail(to: str, *, message_id: str | None = "<reply-1@example.org>", body: str = "12-13\n",
         sender: str = ANN, padding: int = 0) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = "Re: Your turn"
    if message_id:
        msg["Message-ID"] = message_id
    msg.set_content(body + "x" * padding)
    return msg.as_bytes(policy=SMTP)  # CRLF, as mail travels


def stored(ctx: Any) -> list[Inbound]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(Inbound).order_by(col(Inbound.id))))




def handled(ctx: Any, count: int = 1) -> list[Inbound]:
    """The stored messages, once ``count`` of them are handled (the eager relay
    handles them in the receiver's thread pool, after the answer)."""
    def done() -> list[Inbound] | None:
        rows = stored(ctx)
        return rows if sum(r.status == "done" for r in rows) >= count else None

    result: list[Inbound] = wait_until(done)
    return result


class Server:
    """A receiver for the test's context on 127.0.0.1 and a free port."""

    def __init__(self, ctx: Any, relay: Callable[[Any], None], *, lmtp: bool = False) -> None:
        self.port = free_port()
        self.lmtp = lmtp
        self.controller = receiver(ctx, relay, host="127.0.0.1", port=self.port, lmtp=lmtp)

    def __enter__(self) -> "Server":
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()

    def client(self) -> smtplib.SMTP:
        if self.lmtp:
            lmtp = smtplib.LMTP("127.0.0.1", self.port, timeout=10)
            lmtp.ehlo_or_helo_if_needed()
            return lmtp
        smtp = smtplib.SMTP("127.0.0.1", self.port, timeout=10)
        smtp.ehlo()
        return smtp

    def send(self, to: str | list[str], raw: bytes, sender: str = ANN) -> dict[str, Any]:
        with self.client() as smtp:
            return smtp.sendmail(sender, to, raw)


@pytest.fixture
def live(app: Any, ctx: Any) -> tuple[Any, str, Callable[[Any], None]]:
    """The test app's context, a started two-player game, and the receiver's
    hand-off to Celery (whose tasks run in-process here: no broker)."""
    game, _ = new_game(ctx, 2)
    return ctx, game, app.extensions["celery"].relay_inbound


# --- recipients ------------------------------------------------------------------------------------


def test_unknown_recipients_are_refused_at_rcpt_and_nothing_is_stored(live: Any) -> None:
    ctx, game, relay = live
    token = reply_token(ctx, game)
    made_up = tokens.derive("another key", "reply", tokens.new_salt())
    with session_scope(ctx.engine) as session:
        outbox_ids = session.exec(select(Outbox.id)).all()
    missing_row = max(i for i in outbox_ids if i is not None) + 1000
    refused = [f"move+{made_up}@{DOMAIN}", f"talk+{made_up}@{DOMAIN}", f"move+{token}@other.example",
               f"move+{token[:-1]}@{DOMAIN}", f"move+short@{DOMAIN}",
               f"bounce+{missing_row}@{DOMAIN}", f"bounce+x1@{DOMAIN}", f"bounce@{DOMAIN}",
               f"postmaster@{DOMAIN}", f"ann@{DOMAIN}", "move@example.org", "someone@example.org"]
    with Server(ctx, relay) as server, server.client() as smtp:
        smtp.mail(ANN)
        for address in refused:
            code, answer = smtp.rcpt(address)
            assert (code, answer[:5]) == (550, b"5.1.1"), address
        assert smtp.rcpt(f"move+{token}@{DOMAIN}")[0] == 250
        smtp.rset()
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            smtp.sendmail(ANN, refused[:3], mail(refused[0]))
    assert stored(ctx) == []


def test_every_kind_of_live_address_is_accepted(live: Any) -> None:
    ctx, game, relay = live
    token = reply_token(ctx, game)
    used = reply_token(ctx, game, 1, 1, used=True)  # a late reply gets a kind refusal, not a bounce
    talk = reply_token(ctx, game, 1, 2)
    with session_scope(ctx.engine) as session:
        outbox_id = session.exec(select(Outbox.id)).first()
    accepted = [f"move+{token}@{DOMAIN}", f"MOVE+{token}@Clans.Example", f"move+{used}@{DOMAIN}",
                f"talk+{talk}@{DOMAIN}", f"move@{DOMAIN}", f"Talk@{DOMAIN}", f"bounce+{outbox_id}@{DOMAIN}"]
    with Server(ctx, relay) as server, server.client() as smtp:
        smtp.mail(ANN)
        for address in accepted:
            assert smtp.rcpt(address)[0] == 250, address


# --- storing ---------------------------------------------------------------------------------------


def test_a_reply_is_stored_once_and_handed_to_the_worker(live: Any) -> None:
    ctx, game, relay = live
    to = f"move+{reply_token(ctx, game)}@{DOMAIN}"
    raw = mail(to)
    with Server(ctx, relay) as server:
        assert server.send(to, raw) == {}
        (row,) = handled(ctx)
        assert (row.recipient, row.sender, row.raw) == (to, ANN, raw)
        assert row.message_key == f"<reply-1@example.org> {to}"
        assert (row.status, row.attempts) == ("done", 1) and replied(row.outcome)
        # The same message again (its server never saw our 250, say): accepted, kept once.
        assert server.send(to, raw) == {}
        # Without a Message-ID the message itself is the key.
        plain = mail(to, message_id=None)
        assert server.send(to, plain) == {} and server.send(to, plain) == {}
        rows = handled(ctx, 2)
    assert len(rows) == 2 and rows[1].message_key.startswith("sha256:")
    assert handling.handle(ctx, row.id) == "done"  # handled once, however often it is handed on
    assert stored(ctx)[0].attempts == 1


def test_a_message_for_two_addresses_is_kept_for_each(live: Any) -> None:
    ctx, game, relay = live
    move = f"move+{reply_token(ctx, game)}@{DOMAIN}"
    talk = f"talk+{reply_token(ctx, game, 0, 5)}@{DOMAIN}"
    with Server(ctx, relay) as server:
        assert server.send([move, talk], mail(move)) == {}
        rows = handled(ctx, 2)
    by_address = {r.recipient: r.outcome for r in rows}
    assert set(by_address) == {move, talk}
    assert replied(by_address[move]) and re.fullmatch(r"talk(-refused:.*)?|ignored-.*", by_address[talk])


def test_a_bounce_with_the_null_sender_is_stored(live: Any) -> None:
    ctx, game, relay = live
    with session_scope(ctx.engine) as session:
        outbox_id = session.exec(select(Outbox.id)).first()
    to = f"bounce+{outbox_id}@{DOMAIN}"
    with Server(ctx, relay) as server:
        server.send(to, mail(to, sender="MAILER-DAEMON@example.org"), sender="<>")
        (row,) = handled(ctx)
    # Stored with the null sender and handed to the bounce handler, which finds no
    # report of ours in it (tests/inbound/test_bounces.py has real ones).
    assert (row.sender, row.outcome) == ("", "bounce-unknown")


def test_too_big_is_refused_and_nothing_is_stored(live: Any) -> None:
    ctx, game, relay = live
    ctx.config["INBOUND_MAX_BYTES"] = 4000
    to = f"move+{reply_token(ctx, game)}@{DOMAIN}"
    big = mail(to, padding=5000)
    with Server(ctx, relay) as server, server.client() as smtp:
        assert smtp.has_extn("size") and smtp.esmtp_features["size"] == "4000"
        # A client that declares the size is refused at MAIL FROM...
        with pytest.raises(smtplib.SMTPSenderRefused) as refused:
            smtp.sendmail(ANN, to, big)
        assert refused.value.smtp_code == 552
        # ...one that does not, after DATA.
        smtp.rset()
        assert smtp.mail(ANN)[0] == 250 and smtp.rcpt(to)[0] == 250
        assert smtp.data(big)[0] == 552
        assert stored(ctx) == []
        # Just under the limit is fine.
        assert smtp.sendmail(ANN, to, mail(to, padding=3000)) == {}
    assert len(handled(ctx)) == 1


def test_a_message_with_huge_headers_is_refused_before_anything_parses_it(live: Any) -> None:
    """Python's header parser is quadratic in a header's length: a 200 KB folded
    To: would keep a worker busy for a minute. The receiver refuses such mail
    at DATA (to the tag-less addresses too, which need no token)."""
    ctx, game, relay = live
    to = f"move@{DOMAIN}"
    msg = EmailMessage()
    msg["From"] = ANN
    msg["To"] = to
    msg["Cc"] = ", ".join(f"a{i}@example.org" for i in range(3000))  # ~50 KB, folded
    msg.set_content("12-13\n")
    raw = msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))
    assert header_bytes(raw) > MAX_HEADER_BYTES
    with Server(ctx, relay) as server, server.client() as smtp:
        assert smtp.mail(ANN)[0] == 250 and smtp.rcpt(to)[0] == 250
        assert smtp.data(raw)[0] == 552
    assert stored(ctx) == []


def test_lmtp_answers_for_each_recipient(live: Any) -> None:
    ctx, game, relay = live
    move = f"move+{reply_token(ctx, game)}@{DOMAIN}"
    talk = f"talk+{reply_token(ctx, game, 0, 5)}@{DOMAIN}"
    with Server(ctx, relay, lmtp=True) as server:
        with server.client() as lmtp:
            assert lmtp.ehlo_resp is not None and lmtp.has_extn("size")
            assert lmtp.helo()[0] == 500  # LMTP has LHLO only
            assert lmtp.sendmail(ANN, move, mail(move)) == {}
            # Two recipients, two answers after the data.
            assert lmtp.mail(ANN)[0] == 250
            assert lmtp.rcpt(move)[0] == 250 and lmtp.rcpt(talk)[0] == 250
            assert lmtp.rcpt(f"talk+{tokens.derive('x', 'reply', 'y')}@{DOMAIN}")[0] == 550
            assert lmtp.data(mail(move, message_id="<second@example.org>"))[0] == 250
            assert lmtp.getreply()[0] == 250
            assert lmtp.noop()[0] == 250  # in step: nothing more was said
        rows = handled(ctx, 3)
    assert [(r.recipient, r.message_key.split()[0]) for r in rows] == [
        (move, "<reply-1@example.org>"), (move, "<second@example.org>"), (talk, "<second@example.org>")]


# --- when things are down --------------------------------------------------------------------------


def _unreachable(database_url: str, tmp_path: Any) -> str:
    """A database that cannot be opened: a PostgreSQL database that does not
    exist, or an SQLite file in a folder that does not."""
    url = make_url(database_url)
    if url.get_backend_name() == "postgresql":
        return url.set(database="pbem_no_such_database").render_as_string(hide_password=False)
    return f"sqlite:///{tmp_path / 'no-such-folder' / 'pbem.sqlite3'}"


def test_database_unreachable_means_try_again_at_rcpt(live: Any, database_url: str, tmp_path: Any) -> None:
    ctx, game, relay = live
    to = f"move+{reply_token(ctx, game)}@{DOMAIN}"
    down = Context(engine=create_engine(_unreachable(database_url, tmp_path)), config=ctx.config)
    try:
        with Server(down, lambda ids: None) as server, server.client() as smtp:
            smtp.mail(ANN)
            code, answer = smtp.rcpt(to)
            assert (code, answer[:5]) == (451, b"4.3.0")
    finally:
        down.engine.dispose()
    assert stored(ctx) == []


def test_database_failing_at_data_means_try_again_and_nothing_is_lost(live: Any) -> None:
    """The table cannot be written when the message comes (renamed away: a
    real failure of the database, not a stand-in): ``451``, and the sender's
    server sends it again later, when it is stored and handled once."""
    ctx, game, relay = live
    to = f"move+{reply_token(ctx, game)}@{DOMAIN}"
    raw = mail(to)
    with Server(ctx, relay) as server:
        with ctx.engine.begin() as conn:
            conn.execute(text("ALTER TABLE inbound RENAME TO inbound_away"))
        try:
            with pytest.raises(smtplib.SMTPDataError) as refused:
                server.send(to, raw)
            assert refused.value.smtp_code == 451 and refused.value.smtp_error.startswith(b"4.3.0")
        finally:
            with ctx.engine.begin() as conn:
                conn.execute(text("ALTER TABLE inbound_away RENAME TO inbound"))
        assert stored(ctx) == []
        assert server.send(to, raw) == {}  # the retry
        (row,) = handled(ctx)
    assert row.raw == raw and replied(row.outcome)


def test_broker_down_the_message_waits_for_the_sweep(database_url: str) -> None:
    """Redis unreachable: the reply is accepted at once all the same, stays
    pending, and the sweep hands it on a minute later."""
    from pbem.web import create_app

    app = create_app(app_config(database_url, BROKER_URL="redis://127.0.0.1:1/0", BROKER_TIMEOUT=1.0))
    ctx = app.extensions["pbem"]
    celery = app.extensions["celery"]
    try:
        now = frozen_clock(ctx)
        game, _ = new_game(ctx, 2)
        to = f"move+{reply_token(ctx, game)}@{DOMAIN}"
        # The hand-off is held (a broker that does not answer) until the SMTP
        # answer has come: were the answer to wait for it, it would come only
        # once the hand-off had given up, and find it over.
        answered, over = threading.Event(), threading.Event()

        def held(ids: Any) -> None:
            answered.wait(30)
            try:
                celery.relay_inbound(ids)
            finally:
                over.set()

        with Server(ctx, held) as server:
            assert server.send(to, mail(to)) == {}
            assert not over.is_set()  # the answer did not wait for the broker
            answered.set()
            wait_until(over.is_set)
            assert celery.pbem_paused_until > 0  # the hand-off failed
        (row,) = stored(ctx)
        assert (row.status, row.attempts) == ("pending", 0)
        assert handling.due(ctx) == []  # the receiver's hand-off has it for a minute
        now.advance(seconds=61)
        assert handling.due(ctx) == [row.id]
        # Beat's sweep with the broker still down hands it to nobody: still pending.
        with app.app_context():
            celery.pbem_paused_until = 0.0
            assert celery.tasks["pbem.sweep_inbound"].apply().get() == 1
        assert stored(ctx)[0].status == "pending"
        # The sweep of `tick` (the demo's) handles it in-process.
        assert clock.tick(ctx)["inbound"] == 1
        (row,) = stored(ctx)
        assert (row.status, row.attempts) == ("done", 1) and replied(row.outcome)
        assert clock.tick(ctx)["inbound"] == 0
    finally:
        ctx.engine.dispose()


def test_worker_down_the_beat_sweep_hands_it_over(live: Any, app: Any) -> None:
    """The hand-off reached no worker (it died with the message): beat's sweep
    task gives it to a worker (here in-process) a minute later, once."""
    ctx, game, relay = live
    now = frozen_clock(ctx)
    to = f"move+{reply_token(ctx, game)}@{DOMAIN}"
    lost: list[int] = []
    with Server(ctx, lost.extend) as server:
        assert server.send(to, mail(to)) == {}
        wait_until(lambda: lost)
    assert stored(ctx)[0].status == "pending"
    sweep = app.extensions["celery"].tasks["pbem.sweep_inbound"]
    with app.app_context():
        assert sweep.apply().get() == 0
        now.advance(minutes=2)
        assert sweep.apply().get() == 1
        assert sweep.apply().get() == 0
    (row,) = stored(ctx)
    assert (row.status, row.attempts) == ("done", 1) and replied(row.outcome)


def stored_unhanded(ctx: Any, game: str, *message_ids: str) -> list[Inbound]:
    """Replies received and stored, but handed to no worker (the hand-off lost)."""
    to = f"move+{reply_token(ctx, game)}@{DOMAIN}"
    with Server(ctx, lambda ids: None) as server:
        for message_id in message_ids:
            server.send(to, mail(to, message_id=message_id))
    return stored(ctx)


def test_a_claimed_message_is_left_alone_until_its_lease_ends(live: Any) -> None:
    ctx, game, _ = live
    now = frozen_clock(ctx)
    (row,) = stored_unhanded(ctx, game, "<reply-1@example.org>")
    # A worker claimed it and died before it was done.
    with ctx.engine.begin() as conn:
        conn.execute(handling._CLAIM, {"row_id": row.id, "now": now(), "lease_until": now() + handling.LEASE})
    assert handling.handle(ctx, row.id) == "busy"
    now.advance(minutes=2)
    assert handling.due(ctx) == []
    now.advance(seconds=handling.LEASE.total_seconds())
    assert handling.due(ctx) == [row.id]
    assert replied(handling.handle(ctx, row.id))
    assert stored(ctx)[0].attempts == 2
    assert handling.handle(ctx, row.id + 1) == "missing"


def _refuse_outcome(ctx: Any) -> None:
    """Make the database itself refuse to record any message as handled (a
    trigger): the handling fails as it would on a real error, after the handler ran."""
    with ctx.engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("""CREATE FUNCTION refuse_outcome() RETURNS trigger AS $$
                BEGIN IF NEW.status = 'done' AND NEW.outcome <> 'failed' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END
                $$ LANGUAGE plpgsql"""))
            conn.execute(text("CREATE TRIGGER refuse_outcome BEFORE UPDATE ON inbound "
                              "FOR EACH ROW EXECUTE FUNCTION refuse_outcome()"))
        else:
            conn.execute(text("""CREATE TRIGGER refuse_outcome BEFORE UPDATE ON inbound
                WHEN NEW.status = 'done' AND NEW.outcome <> 'failed' BEGIN SELECT RAISE(ABORT, 'refused'); END"""))


def _allow_outcomes(ctx: Any) -> None:
    with ctx.engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("DROP TRIGGER IF EXISTS refuse_outcome ON inbound"))
            conn.execute(text("DROP FUNCTION IF EXISTS refuse_outcome()"))
        else:
            conn.execute(text("DROP TRIGGER IF EXISTS refuse_outcome"))


def test_a_failing_message_is_tried_again_later_then_given_up(live: Any) -> None:
    ctx, game, _ = live
    now = frozen_clock(ctx)
    first, second = stored_unhanded(ctx, game, "<reply-1@example.org>", "<other@example.org>")
    _refuse_outcome(ctx)
    try:
        assert handling.handle(ctx, first.id) == "retry"
        row = stored(ctx)[0]
        assert (row.status, row.attempts) == ("pending", 1)
        assert handling.handle(ctx, first.id) == "busy"  # its next try is not due yet
        now.advance(minutes=1)
        assert handling.due(ctx) == [second.id]  # the failed one waits longer: 2 minutes
        now.advance(minutes=1, seconds=1)
        assert handling.due(ctx) == [first.id, second.id]
        for _ in range(handling.MAX_ATTEMPTS):  # the pauses grow to at most 2 hours
            clock.sweep_inbound(ctx)
            now.advance(hours=3)
        rows = stored(ctx)
        assert [(r.status, r.outcome, r.attempts) for r in rows] == [("done", "failed", handling.MAX_ATTEMPTS)] * 2
    finally:
        _allow_outcomes(ctx)


# --- the command -----------------------------------------------------------------------------------


def _pbem(*args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "pbem.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, **env})


def test_pbem_inbound_runs_the_receiver(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'inbound.sqlite3'}"
    upgrade(url)
    port = free_port()
    env = {"PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": SECRET, "PBEM_BASE_URL": "http://localhost:5000",
           "PBEM_INBOUND_PORT": str(port), "PBEM_INBOUND_DOMAIN": DOMAIN, "PBEM_INBOUND_LMTP": "1"}
    process = _pbem("inbound", env=env)
    try:
        def up() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0
        wait_until(up, timeout=30)
        with smtplib.LMTP("127.0.0.1", port, timeout=10) as lmtp:
            lmtp.ehlo_or_helo_if_needed()
            lmtp.mail(ANN)
            assert lmtp.rcpt(f"nobody@{DOMAIN}")[0] == 550
            assert lmtp.rcpt(f"move@{DOMAIN}")[0] == 250
            assert lmtp.data(mail(f"move@{DOMAIN}"))[0] == 250
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    log = process.stderr.read().decode() if process.stderr else ""
    assert f"receiving mail on lmtp://127.0.0.1:{port}" in log and f"@{DOMAIN}" in log
    engine = create_engine(url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT recipient, status, outcome FROM inbound")).all() == [
            (f"move@{DOMAIN}", "done", "ignored-unknown")]  # no turn named: nobody to answer
    engine.dispose()


def test_pbem_inbound_refuses_unsafe_settings(tmp_path: Any) -> None:
    env = {"PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}", "PBEM_SECRET_KEY": "short",
           "PBEM_INBOUND_PORT": str(free_port())}
    process = _pbem("inbound", env=env)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2 and b"refusing to start" in err and b"PBEM_SECRET_KEY" in err
