"""MIME bombs (issue 27, section 2): a message that would cost a worker seconds
to minutes of CPU to parse (tens of thousands of parameters in a part's fields,
hundreds of multiparts inside one another) is refused at the door with a 5xx,
before it is stored or parsed; one stored anyway (before the check existed) is
marked at the worker without the full parse; a message that ran out of time is
never tried again.

The CPU each costs is printed (``-s``) but not asserted: the tests assert that
the full parse never runs, that nothing overflows the stack, and that nothing
is retried."""

from __future__ import annotations

import email
import email.policy
import time
from email.message import EmailMessage
from email.mime.message import MIMEMessage
from email.mime.multipart import MIMEMultipart
from typing import Any, Iterator

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from pbem.inbound import bounces, replies
from pbem.inbound import handling, message_text, structure
from pbem.inbound.store import store
from tests.inbound.test_receiver import ANN, DOMAIN, Server, live, mail, reply_token, stored  # noqa: F401

CRLF = b"\r\n"


# -- hostile messages --------------------------------------------------------------------------------


def parameter_bomb(to: str, size: int) -> bytes:
    """A reply whose one text part has ``size`` bytes of Content-Type parameters."""
    count = size // 16
    params = "".join(f";\r\n p{i}=v{i}" for i in range(count)).encode()
    return (f"From: {ANN}\r\nTo: {to}\r\nSubject: Re: Your turn\r\nMessage-ID: <bomb-{size}@example.org>\r\n"
            "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=BB\r\n\r\n"
            "--BB\r\nContent-Type: text/plain".encode() + params + b"\r\n\r\n12-13\r\n--BB--\r\n")


def nesting_bomb(to: str, depth: int) -> bytes:
    """A reply with ``depth`` multiparts inside one another."""
    out = [f"From: {ANN}\r\nTo: {to}\r\nSubject: Re: Your turn\r\nMessage-ID: <nest-{depth}@example.org>\r\n"
           "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b0\r\n\r\n".encode()]
    out += [f"--b{i - 1}\r\nContent-Type: multipart/mixed; boundary=b{i}\r\n\r\n".encode() for i in range(1, depth)]
    out.append(f"--b{depth - 1}\r\nContent-Type: text/plain\r\n\r\n12-13\r\n".encode())
    out += [f"--b{i}--\r\n".encode() for i in reversed(range(depth))]
    return b"".join(out)


def parts_bomb(to: str, count: int) -> bytes:
    body = b"".join(b"--BB\r\nContent-Type: text/plain\r\n\r\nhi\r\n" for _ in range(count))
    return (f"From: {ANN}\r\nTo: {to}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=BB\r\n\r\n"
            .encode() + body + b"--BB--\r\n")


def bombs(to: str) -> dict[str, bytes]:
    return {"params-0.5MB": parameter_bomb(to, 500_000), "params-1MB": parameter_bomb(to, 1_000_000),
            "nested-500": nesting_bomb(to, 500), "nested-2000": nesting_bomb(to, 2000),
            "parts-1000": parts_bomb(to, 1000)}


# -- what a mail program writes is within the bounds --------------------------------------------------


def _smtp(msg: Any) -> bytes:
    raw: bytes = msg.as_bytes(policy=email.policy.SMTP)
    return raw


def everyday_messages() -> dict[str, bytes]:
    """Replies and reports as mail programs and servers write them."""
    plain = EmailMessage()
    plain["From"], plain["To"], plain["Subject"] = ANN, f"move@{DOMAIN}", "Re: Your turn"
    plain.set_content("12-13\n\nGood luck!\n")
    rich = EmailMessage()
    rich["From"], rich["To"], rich["Subject"] = ANN, f"move@{DOMAIN}", "Re: Your turn"
    rich.set_content("12-13\n")
    rich.add_alternative("<p>12-13</p><p><img src=\"cid:logo\"></p>", subtype="html")
    rich.get_payload()[1].add_related(b"\x89PNG" + bytes(200), "image", "png", cid="<logo>")
    rich.add_attachment(b"%PDF" + bytes(300), maintype="application", subtype="pdf",
                        filename="Ein sehr langer Dateiname mit Umlauten äöü " * 3 + ".pdf")
    original = EmailMessage()
    original["From"], original["To"], original["Subject"] = f"game@{DOMAIN}", "bob@example.org", "Your turn"
    original.set_content("Your turn")
    original.add_alternative("<p>Your turn</p>", subtype="html")
    # As Postfix writes one: the notice, the delivery status (blocks of fields), the original.
    report = (b"From: MAILER-DAEMON@mx.clans.example\r\nTo: bounce+1@clans.example\r\nMIME-Version: 1.0\r\n"
              b"Content-Type: multipart/report; report-type=delivery-status;\r\n\tboundary=\"R\"\r\n\r\n"
              b"--R\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nYour message could not be delivered.\r\n"
              b"--R\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.clans.example\r\n\r\n"
              b"Final-Recipient: rfc822; bob@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
              b"Final-Recipient: rfc822; eve@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
              b"--R\r\nContent-Type: message/rfc822\r\n\r\n" + _smtp(original) + b"\r\n--R--\r\n")
    digest = MIMEMultipart("digest")
    for n in range(3):
        digest.attach(MIMEMessage(plain))
    return {"plain": _smtp(plain), "rich": _smtp(rich), "report": report, "digest": _smtp(digest)}


def test_what_mail_programs_write_is_within_the_bounds() -> None:
    for name, raw in everyday_messages().items():
        assert structure.problem(raw) is None, name
        # The scan counts parts as the parser does (a report's status blocks are parts too).
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert len(list(message.walk())) <= structure.MAX_PARTS, name


def test_every_kind_of_bomb_is_found_without_parsing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # The scan never builds a message of the whole (the parser would be the cost).
    monkeypatch.setattr(email.feedparser.FeedParser, "feed", _no_parse)
    found = {}
    for name, raw in bombs(f"move@{DOMAIN}").items():
        started = time.process_time()
        found[name] = structure.problem(raw)
        print(f"{name}: {len(raw)} bytes, found {found[name]!r} in {time.process_time() - started:.4f} s of CPU")
    assert found == {"params-0.5MB": "header-bytes", "params-1MB": "header-bytes", "nested-500": "depth",
                     "nested-2000": "depth", "parts-1000": "parts"}


def _no_parse(self: Any, data: Any) -> None:
    raise AssertionError("a hostile message was parsed")


@pytest.mark.parametrize("make, bound, expected", [
    (lambda n: nesting_bomb("x@y", n), structure.MAX_DEPTH, "depth"),
    (lambda n: parts_bomb("x@y", n), structure.MAX_PARTS - 1, "parts"),  # the message itself is a part
    (lambda n: b"Content-Type: text/plain" + b"; a=b" * n + b"\r\n\r\nhi\r\n", structure.MAX_PARAMETERS,
     "parameters"),
    (lambda n: b"Content-Type: multipart/mixed; boundary=B\r\n\r\n--B\r\n" + b"X-A: b\r\n" * n
     + b"\r\nhi\r\n--B--\r\n", structure.MAX_PART_FIELDS, "part-fields"),
])
def test_each_bound_is_where_it_says(make: Any, bound: int, expected: str) -> None:
    """At the bound the message is taken (and parses without trouble); one more is refused."""
    at = make(bound)
    assert structure.problem(at) is None
    message_text.reply_text(email.message_from_bytes(at, policy=email.policy.default))
    assert structure.problem(make(bound + 1)) == expected


def test_nesting_hidden_in_messages_and_delivery_status_blocks_counts() -> None:
    """``message/rfc822`` parts nest as multiparts do, a digest's parts are
    messages without saying so, and each block of a delivery status is a part."""
    nested = b"".join(b"Content-Type: message/rfc822\r\n\r\n" for _ in range(structure.MAX_DEPTH + 1)) + b"hi\r\n"
    assert structure.problem(nested) == "depth"
    blocks = (b"Content-Type: message/delivery-status\r\n\r\n"
              + b"Action: failed\r\nStatus: 5.1.1\r\n\r\n" * structure.MAX_PARTS)
    assert structure.problem(blocks) == "parts"
    # A part of a digest with no fields is a message; each holds the next digest.
    digest = (b"Content-Type: multipart/digest; boundary=D0\r\n\r\n"
              + b"".join(b"--D%d\r\n\r\nContent-Type: multipart/digest; boundary=D%d\r\n\r\n" % (n, n + 1)
                         for n in range(structure.MAX_DEPTH // 2)))
    assert structure.problem(digest) == "depth"


# -- at the door -------------------------------------------------------------------------------------


@pytest.fixture
def no_parse(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The full parse of a stored message, in replies and bounces, fails the test."""
    def refuse(raw: bytes, *args: Any, **kwargs: Any) -> None:
        raise AssertionError("a hostile message was parsed")

    monkeypatch.setattr(replies, "parse", refuse)
    monkeypatch.setattr(bounces.email, "message_from_bytes", refuse)
    yield


def test_bombs_are_refused_at_data_and_nothing_is_stored(live: Any, no_parse: None) -> None:
    ctx, game, relay = live
    tagged = f"move+{reply_token(ctx, game)}@{DOMAIN}"
    for to in (f"move@{DOMAIN}", tagged):
        for name, raw in bombs(to).items():
            with Server(ctx, relay) as server, server.client() as smtp:
                assert smtp.mail(ANN)[0] == 250 and smtp.rcpt(to)[0] == 250
                started = time.process_time()
                code, said = smtp.data(raw)
                print(f"{name} to {to[:6]}: {code} after {time.process_time() - started:.3f} s of this process's CPU")
                if len(raw) > int(ctx.config["INBOUND_MAX_BYTES"]):
                    assert code == 552, name  # too big, whatever it holds
                else:
                    assert (code, said[:5]) == (554, b"5.6.0"), name
    assert stored(ctx) == []


def test_lmtp_refuses_a_bomb_for_each_recipient(live: Any) -> None:
    ctx, game, relay = live
    to = [f"move@{DOMAIN}", f"talk@{DOMAIN}"]
    with Server(ctx, relay, lmtp=True) as server, server.client() as lmtp:
        assert lmtp.mail(ANN)[0] == 250 and lmtp.rcpt(to[0])[0] == 250 and lmtp.rcpt(to[1])[0] == 250
        assert lmtp.data(nesting_bomb(to[0], 500))[0] == 554
        assert lmtp.getreply()[0] == 554
        assert lmtp.noop()[0] == 250  # in step: nothing more was said
    assert stored(ctx) == []


# -- at the worker -----------------------------------------------------------------------------------


def test_a_stored_bomb_is_marked_without_the_full_parse_and_not_retried(live: Any, no_parse: None) -> None:
    """Rows stored before the door checked (or by another way in) are refused
    by the worker from the same scan: done at once, never handed on again."""
    ctx, game, _ = live
    to = f"move+{reply_token(ctx, game)}@{DOMAIN}"
    ids = [store(ctx, to, ANN, raw) for raw in bombs(to).values()]
    outcomes = [handling.handle(ctx, i) for i in ids if i is not None]
    assert outcomes == ["refused:structure:header-bytes"] * 2 + ["refused:structure:depth"] * 2 \
        + ["refused:structure:parts"]
    assert {(r.status, r.attempts) for r in stored(ctx)} == {("done", 1)}
    assert handling.due(ctx) == []


def test_a_tagless_reply_without_a_turn_in_its_header_is_not_parsed(live: Any, no_parse: None) -> None:
    """To ``move@`` anyone may write: without a token in the addresses or
    Message-IDs of its header, a message is ignored before its body is read."""
    ctx, game, _ = live
    to = f"move@{DOMAIN}"
    row = store(ctx, to, ANN, mail(to, body="12-13\n" + "x" * 50_000))
    assert row is not None and handling.handle(ctx, row) == "ignored-unknown"
    talk = store(ctx, f"talk@{DOMAIN}", ANN, mail(f"talk@{DOMAIN}", message_id="<t-1@example.org>"))
    assert talk is not None and handling.handle(ctx, talk) == "ignored-unknown"


def test_a_tagless_reply_answering_a_turn_is_still_read(live: Any) -> None:
    ctx, game, _ = live
    token = reply_token(ctx, game)
    to = f"move@{DOMAIN}"
    # A Message-ID of a turn mail sent before they had values of their own (it held the
    # token); find_turn reads both forms, and the check before parsing asks find_turn.
    raw = mail(to).replace(b"Subject:", f"In-Reply-To: <{token}.turn.1@{DOMAIN}>".encode() + b"\r\nSubject:")
    row = store(ctx, to, ANN, raw)
    assert row is not None and handling.handle(ctx, row).startswith(("accepted", "confirm"))


def test_a_message_that_runs_out_of_time_is_given_up_not_retried(app: Any, live: Any,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Celery's soft time limit raises inside the handler: the message is done
    (``failed:time-limit``), not left for the sweep to try five more times."""
    ctx, game, _ = live
    to = f"move+{reply_token(ctx, game)}@{DOMAIN}"
    row = store(ctx, to, ANN, mail(to))
    assert row is not None

    def slow(*args: Any) -> str:
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(handling, "dispatch", slow)
    # The worker's task, run here (no broker: eager).
    assert app.extensions["celery"].tasks["pbem.inbound.handle"].delay(row).get() == "failed:time-limit"
    (done,) = stored(ctx)
    assert (done.status, done.outcome, done.attempts) == ("done", "failed:time-limit", 1)
    assert handling.due(ctx) == []
