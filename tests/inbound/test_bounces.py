"""Mail that comes back (pbem/inbound/bounces.py): the VERP return path every message
goes out with, and the delivery status notifications for it.

The bounces are built with the email package as Postfix writes them
(``multipart/report; report-type=delivery-status``: the notification, the
``message/delivery-status`` part, the returned headers or message) and stored
as the receiver stores what it accepts, as ``Inbound`` rows."""

from __future__ import annotations

import email
import email.policy
import html
import uuid
from datetime import timedelta
from email.message import EmailMessage, Message
from email.mime.base import MIMEBase
from email.mime.message import MIMEMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import formatdate
from typing import Any, Iterator

import pytest
from sqlmodel import col, select

from pbem.inbound import bounces
from pbem.core.db import session_scope
from pbem.mail.compose import compose
from pbem.core.models import Bounce, CaughtMail, Inbound, Outbox
from pbem.people.players import address_hash
from tests.support.clock import frozen_clock
from tests.support.games import EMAILS, new_game, play, seat_tokens, to_move
from tests.support.messages import caught, parts
from tests.support.smtp import SmtpServer
from pbem.people import signin
from pbem.people import reachability
from pbem import games

DOMAIN = "clans.example"  # the tests' base URL's host


# -- bounces as Postfix writes them ------------------------------------------------------------


def returned_headers(ctx: Any, row: Outbox) -> str:
    """The header block of the message the service sent for ``row`` (caught by the
    mailbox), with the lines the receiving servers add before they bounce it."""
    with session_scope(ctx.engine) as session:
        raw = session.exec(select(CaughtMail.raw).where(CaughtMail.message_id == row.message_id)).one()
    head = raw.split("\n\n", 1)[0]
    return (f"Return-Path: <{return_path(ctx, row)}>\n"
            f"Received: from clans.example (clans.example [192.0.2.10])\n"
            f"\tby mx.clans.example (Postfix) with ESMTPS id 3F2A1C0123\n"
            f"\tfor <{row.recipient}>; {formatdate()}\n{head}\n")


NOTIFICATION = """\
This is the mail system at host mx.clans.example.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients. It's attached below.

For further assistance, please send mail to postmaster.

If you do so, please include this problem report. You can
delete your own text from the attached returned message.

                   The mail system

<{recipient}>: host mx.example.org[192.0.2.25] said: {diagnostic} (in reply to RCPT TO command)
"""

DELAY_NOTIFICATION = """\
This is the mail system at host mx.clans.example.

####################################################################
# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #
####################################################################

Your message could not be delivered for 4.0 hours.
It will be retried until it is 5.0 days old.

<{recipient}>: host mx.example.org[192.0.2.25] said: {diagnostic}
"""


def postfix_dsn(to: str, recipient: str, returned: str | EmailMessage | None, *, action: str = "failed",
                status: str = "5.1.1",
                diagnostic: str = "550 5.1.1 <{recipient}>: Recipient address rejected: User unknown") -> bytes:
    """A delivery status notification to ``to`` about ``recipient``; ``returned``:
    the original's headers (text/rfc822-headers) or the whole original
    (message/rfc822), as Postfix returns them."""
    diagnostic = diagnostic.format(recipient=recipient)
    report = MIMEMultipart("report", report_type="delivery-status")
    report["Date"] = formatdate()
    report["From"] = "MAILER-DAEMON@mx.clans.example (Mail Delivery System)"
    report["Subject"] = ("Delayed Mail (still being retried)" if action == "delayed"
                         else "Undelivered Mail Returned to Sender")
    report["To"] = to
    report["Auto-Submitted"] = "auto-replied"
    report["Message-Id"] = f"<{uuid.uuid4().hex}@mx.clans.example>"
    report.preamble = "This is a MIME-encapsulated message.\n"
    notification = MIMEText((DELAY_NOTIFICATION if action == "delayed" else NOTIFICATION)
                            .format(recipient=recipient, diagnostic=diagnostic))
    notification["Content-Description"] = "Notification"
    report.attach(notification)
    per_message = Message()
    per_message["Reporting-MTA"] = "dns; mx.clans.example"
    per_message["X-Postfix-Queue-ID"] = "3F2A1C0123"
    per_message["X-Postfix-Sender"] = f"rfc822; {to}"
    per_message["Arrival-Date"] = formatdate()
    per_recipient = Message()
    per_recipient["Final-Recipient"] = f"rfc822; {recipient}"
    per_recipient["Original-Recipient"] = f"rfc822;{recipient}"
    per_recipient["Action"] = action
    per_recipient["Status"] = status
    per_recipient["Remote-MTA"] = "dns; mx.example.org"
    per_recipient["Diagnostic-Code"] = f"smtp; {diagnostic}"
    if action == "delayed":
        per_recipient["Will-Retry-Until"] = formatdate()
    delivery_status = MIMEBase("message", "delivery-status")
    delivery_status.set_payload([per_message, per_recipient])
    delivery_status["Content-Description"] = "Delivery report"
    report.attach(delivery_status)
    if isinstance(returned, str):
        headers = MIMEText(returned, "rfc822-headers")
        headers["Content-Description"] = "Undelivered Message Headers"
        report.attach(headers)
    elif returned is not None:
        whole = MIMEMessage(returned)
        whole["Content-Description"] = "Undelivered Message"
        report.attach(whole)
    return report.as_bytes()


def store(ctx: Any, raw: bytes, recipient: str, sender: str = "") -> int:
    """Keep the message as the receiver does (the null sender: bounces have no return path)."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    with session_scope(ctx.engine) as session:
        row = Inbound(message_key=str(message["Message-ID"]), recipient=recipient, sender=sender, raw=raw,
                      received_at=ctx.now())
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id


def return_path(ctx: Any, row: Outbox) -> str:
    """The envelope sender the row's message went out with."""
    assert row.id is not None
    return f"bounce+{bounces.bounce_tag(ctx.secret_key, row.id)}@{DOMAIN}"


def bounce(ctx: Any, row: Outbox, **dsn: Any) -> str:
    """Bounce the message of ``row`` (its headers returned) and handle the bounce."""
    to = return_path(ctx, row)
    returned = dsn.pop("returned", returned_headers(ctx, row))
    return bounces.handle_bounce(ctx, store(ctx, postfix_dsn(to, row.recipient, returned, **dsn), to))


# -- looking at the world -----------------------------------------------------------------------


def outbox(ctx: Any, recipient: str | None = None, kind: str | None = None) -> list[Outbox]:
    with session_scope(ctx.engine) as session:
        query = select(Outbox).order_by(col(Outbox.id))
        if recipient is not None:
            query = query.where(Outbox.recipient == recipient)
        if kind is not None:
            query = query.where(Outbox.kind == kind)
        rows = session.exec(query).all()
        for r in rows:
            session.expunge(r)
        return list(rows)


def bounce_row(ctx: Any, address: str) -> Bounce | None:
    with session_scope(ctx.engine) as session:
        row = session.exec(select(Bounce).where(Bounce.address_hash == address_hash(address))).first()
        if row is not None:
            session.expunge(row)
        return row


def page(client: Any, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return html.unescape(response.get_data(as_text=True))


def position_of(view: dict[str, Any], name: str) -> int:
    return next(p["seat"] for p in view["players"] if p["name"] == name)


# -- hard bounces -------------------------------------------------------------------------------


def test_a_hard_bounce_stops_mail_to_the_address_and_tells_the_others(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    # Bob is next after the player to move (whoever the deal made first), so that
    # a turn mail would be his next.
    bob = view["players"][(view["seat"] + 1) % 3]["name"]
    address = EMAILS[bob]
    # Bob is invited to a second game too, started by Dee and not yet begun.
    dee = "dee@example.org"
    waiting = games.start_game(ctx, games.parse_players(
        [{"name": "Dee", "email": dee}, {"name": bob, "email": address}]))
    games.accept(ctx, seat_tokens(ctx, waiting)[0])
    (invite, _) = outbox(ctx, address, "invite")
    before = {r.id for r in outbox(ctx)}

    assert bounce(ctx, invite) == "bounce-hard"

    marked = bounce_row(ctx, address)
    assert marked is not None and marked.bouncing_at is not None and marked.soft == 0
    assert marked.last_status is not None and marked.last_status.startswith("5.1.1 smtp; 550 5.1.1")
    # Told: the others at the active game, and at the waiting one the one who started it.
    told = [r for r in outbox(ctx) if r.id not in before]
    assert {r.kind for r in told} == {"unreachable"}
    others = sorted(e for n, e in EMAILS.items() if n != bob)
    assert sorted(r.recipient for r in told) == sorted([*others, dee])
    assert len({r.event for r in told}) == 2  # unreachable:<Bob's seat>, in each game
    mails = caught(ctx, kind="unreachable")
    assert sorted(str(m["To"]) for m in mails) == sorted(r.recipient for r in told)
    for mail in mails:
        assert str(mail["Subject"]).startswith(f"We can't reach {bob} by email (Clans game ")
        text = parts(mail)["text"]
        assert f"our mail to {bob} comes back undelivered" in text
        assert f"We can't reach {bob} by email." in html.unescape(parts(mail)["html"])
    started = next(m for m in mails if game_id in str(m["Subject"]))
    assert "autopilot" in parts(started)["text"]
    creator = next(m for m in mails if waiting in str(m["Subject"]))
    assert "start a new game with the right one" in parts(creator)["text"]
    # The bounce itself is never answered.
    assert not [r for r in told if "mx.clans.example" in r.recipient or r.recipient == address]

    # No more mail for Bob: his turn comes, and his turn mail is not built.
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    (turn,) = outbox(ctx, address, "turn")
    assert turn.status == "skipped"
    assert caught(ctx, address, kind="turn") == []
    with session_scope(ctx.engine) as session:
        assert compose(ctx, session, session.get(Outbox, turn.id)) is None  # type: ignore[arg-type]
    # ... while the others still get theirs.
    play(ctx, toks, 1)
    after = outbox(ctx, kind="turn")[-1]
    assert after.recipient != address and after.status == "sent"

    # The others' pages say so; Bob's says it of him; the public page does not.
    seat = {games.seat_view(ctx, t)["you"]: t for t in toks}
    for name, token in seat.items():
        mine = games.seat_view(ctx, token)
        assert [p["unreachable"] for p in mine["players"]] == [p["name"] == bob for p in mine["players"]]
        text = page(client, f"/play/{token}")
        if name == bob:
            assert "We can't reach you by email" in text and "reach Bob by" not in text
        else:
            assert f"We can't reach {bob} by email." in text
    public = games.public_game(ctx, game_id)
    assert not any(p["unreachable"] for p in public["players"])
    assert "We can't reach" not in page(client, f"/games/{game_id}")

    # Handling the same bounce again changes nothing.
    (handled,) = _inbound_ids(ctx)
    assert bounces.handle_bounce(ctx, handled) == "bounce-hard"
    assert len(outbox(ctx, kind="unreachable")) == len(told)


def _inbound_ids(ctx: Any) -> list[int]:
    with session_scope(ctx.engine) as session:
        rows = session.exec(select(Inbound).order_by(col(Inbound.id))).all()
        assert all(r.status == "done" and r.outcome and r.handled_at for r in rows)
        return [r.id for r in rows if r.id is not None]


def test_a_second_hard_bounce_tells_nobody_again(ctx: Any) -> None:
    new_game(ctx)
    (invite,) = outbox(ctx, EMAILS["Bob"], "invite")
    assert bounce(ctx, invite) == "bounce-hard"
    told = len(outbox(ctx, kind="unreachable"))
    assert told == 2
    # Another report (another Message-ID) on the same message: still hard, nobody told twice.
    assert bounce(ctx, invite, status="5.2.1",
                  diagnostic="550 5.2.1 <{recipient}>: mailbox disabled") == "bounce-hard"
    assert len(outbox(ctx, kind="unreachable")) == told
    marked = bounce_row(ctx, EMAILS["Bob"])
    assert marked is not None and marked.last_status is not None and marked.last_status.startswith("5.2.1")


def test_the_whole_returned_message_counts_too(ctx: Any) -> None:
    new_game(ctx, start=False)
    (invite,) = outbox(ctx, EMAILS["Cid"], "invite")
    (original,) = [m for m in caught(ctx, EMAILS["Cid"]) if m["Message-ID"] == invite.message_id]
    assert bounce(ctx, invite, returned=original) == "bounce-hard"
    with session_scope(ctx.engine) as session:
        assert reachability.is_unreachable(session, EMAILS["Cid"])
        assert not reachability.is_unreachable(session, EMAILS["Bob"])


def test_a_non_standard_bounce_with_a_permanent_status_in_its_text(ctx: Any) -> None:
    new_game(ctx, start=False)
    (invite,) = outbox(ctx, EMAILS["Bob"], "invite")
    to = f"bounce+{invite.id}@{DOMAIN}"
    gmail = EmailMessage()
    gmail["From"] = "Mail Delivery Subsystem <mailer-daemon@googlemail.com>"
    gmail["To"] = to
    gmail["Subject"] = "Delivery Status Notification (Failure)"
    gmail["Message-ID"] = f"<{uuid.uuid4().hex}@mx.google.com>"
    gmail["Auto-Submitted"] = "auto-replied"
    gmail.set_content(
        "** Address not found **\n\nYour message wasn't delivered to bob@example.org because the address "
        "couldn't be found, or is unable to receive mail.\n\nThe response from the remote server was:\n"
        "550 5.1.1 The email account that you tried to reach does not exist.\n\n"
        "----- Original message -----\n\n" + returned_headers(ctx, invite))
    raw = gmail.as_bytes()
    assert bounces.handle_bounce(ctx, store(ctx, raw, to)) == "bounce-hard"
    assert bounce_row(ctx, EMAILS["Bob"]).bouncing_at is not None  # type: ignore[union-attr]


# -- soft bounces -------------------------------------------------------------------------------


def test_soft_bounces_count_and_the_third_marks_the_address(ctx: Any) -> None:
    # Three games, each with an invitation to Bob: three messages to bounce.
    for _ in range(3):
        new_game(ctx, start=False)
    first, second, third = outbox(ctx, EMAILS["Bob"], "invite")
    full = dict(status="4.2.2", diagnostic="452 4.2.2 <{recipient}>: Mailbox full")

    # Postfix warns of the delay, then gives up on the same message: one count.
    assert bounce(ctx, first, action="delayed", status="4.4.1",
                  diagnostic="connect to mx.example.org[192.0.2.25]:25: Connection timed out") == "bounce-soft"
    assert bounce(ctx, first, **full) == "bounce-soft"
    assert bounce_row(ctx, EMAILS["Bob"]).soft == 1  # type: ignore[union-attr]
    assert bounce(ctx, second, **full) == "bounce-soft"
    marked = bounce_row(ctx, EMAILS["Bob"])
    assert marked is not None and marked.soft == 2 and marked.bouncing_at is None
    assert outbox(ctx, kind="unreachable") == []
    with session_scope(ctx.engine) as session:
        assert not reachability.is_unreachable(session, EMAILS["Bob"])

    assert bounce(ctx, third, **full) == "bounce-soft"
    marked = bounce_row(ctx, EMAILS["Bob"])
    assert marked is not None and marked.soft == 3 and marked.bouncing_at is not None
    # Three games still gathering players: the one who started each is told.
    told = outbox(ctx, kind="unreachable")
    assert [r.recipient for r in told] == [EMAILS["Ann"]] * 3 and len({r.game_id for r in told}) == 3


def test_soft_bounces_far_apart_start_the_count_again(ctx: Any) -> None:
    clock = frozen_clock(ctx)
    for _ in range(3):
        new_game(ctx, start=False)
    rows = outbox(ctx, EMAILS["Bob"], "invite")
    full = dict(status="4.2.2", diagnostic="452 4.2.2 <{recipient}>: Mailbox full")
    assert bounce(ctx, rows[0], **full) == bounce(ctx, rows[1], **full) == "bounce-soft"
    clock.advance(days=ctx.config["RETENTION_DAYS"] + 1)
    assert bounce(ctx, rows[2], **full) == "bounce-soft"
    marked = bounce_row(ctx, EMAILS["Bob"])
    assert marked is not None and marked.soft == 1 and marked.bouncing_at is None


# -- what does not count ------------------------------------------------------------------------


def test_a_bounce_for_an_unknown_outbox_id_does_nothing(ctx: Any) -> None:
    new_game(ctx)
    (invite,) = outbox(ctx, EMAILS["Bob"], "invite")
    before = outbox(ctx)
    to = f"bounce+{invite.id + 1000}@{DOMAIN}"
    raw = postfix_dsn(to, EMAILS["Bob"], returned_headers(ctx, invite))
    assert bounces.handle_bounce(ctx, store(ctx, raw, to)) == "bounce-unknown"
    assert bounce_row(ctx, EMAILS["Bob"]) is None
    assert [r.id for r in outbox(ctx)] == [r.id for r in before]


def test_a_forged_bounce_that_does_not_quote_the_message_does_nothing(ctx: Any) -> None:
    """Outbox ids are easy to guess; the Message-ID of the mail they name is not."""
    new_game(ctx)
    (invite,) = outbox(ctx, EMAILS["Bob"], "invite")
    forged = returned_headers(ctx, invite).replace(invite.message_id, f"<{uuid.uuid4().hex}.invite@{DOMAIN}>")
    assert bounce(ctx, invite, returned=forged) == "bounce-unknown"
    assert bounce(ctx, invite, returned=None) == "bounce-unknown"
    assert bounce_row(ctx, EMAILS["Bob"]) is None


def test_a_report_of_success_or_an_auto_reply_is_not_a_bounce(ctx: Any) -> None:
    new_game(ctx)
    (invite,) = outbox(ctx, EMAILS["Bob"], "invite")
    assert bounce(ctx, invite, action="delivered", status="2.0.0",
                  diagnostic="250 2.0.0 Ok: queued as 1A2B3C") == "bounce-unknown"
    to = f"bounce+{invite.id}@{DOMAIN}"
    away = EmailMessage()
    away["From"], away["To"], away["Subject"] = EMAILS["Bob"], to, "Out of office"
    away["Message-ID"], away["Auto-Submitted"] = f"<{uuid.uuid4().hex}@example.org>", "auto-replied"
    away["In-Reply-To"] = invite.message_id
    away.set_content("I am away until Monday, back on the 5.12.")
    assert bounces.handle_bounce(ctx, store(ctx, away.as_bytes(), to, EMAILS["Bob"])) == "bounce-unknown"
    assert bounce_row(ctx, EMAILS["Bob"]) is None


def test_bounce_addresses() -> None:
    """The return path names its row by a tag that tells no id (issue 27): the id
    encrypted under the secret key; return paths of mail sent before (the plain
    id) are still read."""
    key = "k" * 40
    config = {"BASE_URL": "https://Clans.Example:8443", "INBOUND_DOMAIN": "", "SECRET_KEY": key}
    paths = [bounces.return_path(config, n) for n in (1, 2, 3, 12, 10**12)]
    for n, path in zip((1, 2, 3, 12, 10**12), paths):
        local, _, host = path.partition("@")
        tag = local.removeprefix("bounce+")
        assert host == "clans.example" and len(tag) == 26 and tag.isalnum() and not tag.isdigit()
        assert bounces.outbox_id_of(path, key) == n
        assert bounces.outbox_id_of(f"<Bounce+{tag.upper()}@clans.example>", key) == n  # case changed on the way
        assert bounces.outbox_id_of(path, "another key of forty characters ........") is None
    assert len(set(paths)) == 5
    assert bounces.return_path({**config, "INBOUND_DOMAIN": "mail.clans.example"}, 7).endswith("@mail.clans.example")
    assert bounces.outbox_id_of("<Bounce+12@clans.example>", key) == 12  # mail sent before tags
    tag = paths[0].partition("@")[0].removeprefix("bounce+")
    for other in ("move+12@clans.example", "bounce+x@clans.example", "bounce@clans.example", "bounce+12",
                  f"bounce+{tag[:-1]}a@clans.example" if tag[-1] != "a" else f"bounce+{tag[:-1]}b@clans.example",
                  f"bounce+{tag}x@clans.example", f"bounce+{'a' * 26}@clans.example"):
        assert bounces.outbox_id_of(other, key) is None, other


def test_the_receiver_accepts_the_return_path_of_a_row_that_exists(ctx: Any) -> None:
    from pbem.inbound.store import accept_recipient

    new_game(ctx, start=False)
    row = outbox(ctx)[0]
    assert row.id is not None
    assert accept_recipient(ctx, return_path(ctx, row))
    assert accept_recipient(ctx, f"bounce+{row.id}@{DOMAIN}")  # mail sent before tags
    other_key = bounces.bounce_tag("another secret key of forty characters ..", row.id)
    missing = bounces.bounce_tag(ctx.secret_key, row.id + 1000)
    for refused in (f"bounce+{other_key}@{DOMAIN}", f"bounce+{missing}@{DOMAIN}", f"bounce+{row.id + 1000}@{DOMAIN}"):
        assert not accept_recipient(ctx, refused), refused


# -- the return path on the wire ----------------------------------------------------------------


@pytest.fixture
def smtp_ctx(database_url: str, smtp: SmtpServer) -> Iterator[Any]:
    from pbem.web import create_app

    app = create_app(smtp.config(database_url))
    yield app.extensions["pbem"]
    app.extensions["pbem"].engine.dispose()


def test_mail_goes_out_with_a_verp_return_path(smtp_ctx: Any, smtp: SmtpServer) -> None:
    ctx = smtp_ctx
    new_game(ctx, start=False)
    got = smtp.collector.wait_for(3)
    rows = {r.message_id: r for r in outbox(ctx)}
    for received in got:
        row = rows[str(received.message["Message-ID"])]
        assert received.mail_from == f"bounce+{bounces.bounce_tag(ctx.secret_key, row.id)}@{DOMAIN}"
        assert received.rcpt_tos == [row.recipient]
        # The From header stays the service's; the receiving server writes Return-Path.
        assert str(received.message["From"]) == ctx.config["MAIL_FROM"]
        assert "Return-Path" not in received.message
    # A bounce sent back to that very envelope sender, returning what arrived, is understood.
    bob = next(r for r in got if r.rcpt_tos == [EMAILS["Bob"]])
    head = bob.message.as_string().split("\n\n", 1)[0]
    raw = postfix_dsn(bob.mail_from, EMAILS["Bob"], f"Return-Path: <{bob.mail_from}>\n{head}\n")
    assert bounces.handle_bounce(ctx, store(ctx, raw, bob.mail_from)) == "bounce-hard"
    with session_scope(ctx.engine) as session:
        assert reachability.is_unreachable(session, EMAILS["Bob"])


def test_a_sign_in_link_asked_for_still_goes_to_an_address_that_bounces(ctx: Any) -> None:
    """The one asking is at the page now: the link is their way back to their seats."""
    new_game(ctx)
    (invite,) = outbox(ctx, EMAILS["Bob"], "invite")
    assert bounce(ctx, invite) == "bounce-hard"
    signin.request_login(ctx, EMAILS["Bob"])
    (login,) = outbox(ctx, EMAILS["Bob"], "login")
    assert login.status == "sent" and caught(ctx, EMAILS["Bob"], kind="login")
