"""The SMTP adapter against a real SMTP server (aiosmtpd): what goes on the wire, and
the envelope for non-ASCII addresses (SMTPUTF8)."""

from __future__ import annotations

import dataclasses
import io
from email.generator import BytesGenerator
from typing import Iterator

import smtplib

import pytest
from hypothesis import given, strategies as st

from pbem.mail.transport import PermanentFailure, SmtpTransport, dot_stuffed, wire_bytes
from tests.support.messages import login_mail, login_message
from tests.support.smtp import SmtpServer


def test_wire_bytes_are_what_the_standard_generator_writes() -> None:
    message = login_message()
    out = io.BytesIO()
    BytesGenerator(out, policy=message.policy).flatten(message, linesep="\r\n")
    assert wire_bytes(message) == out.getvalue()
    assert b"\r\n\r\niVBORw0KGgo" in wire_bytes(message)  # the picture, base64, after its headers


@pytest.fixture
def smtputf8() -> Iterator[SmtpServer]:
    """The test server, offering SMTPUTF8 (the ``smtp`` fixture's does not)."""
    server = SmtpServer(smtputf8=True)
    server.start()
    yield server
    server.stop()


def test_non_ascii_address_goes_with_smtputf8(smtputf8: SmtpServer) -> None:
    collector = smtputf8.collector
    SmtpTransport(smtputf8.host, smtputf8.port, timeout=5).send(login_mail("Zoë <zoë@example.org>"))
    (got,) = collector.messages()
    assert got.rcpt_tos == ["zoë@example.org"]
    # The header is raw UTF-8 on the wire (the parser keeps such bytes as surrogates).
    to = got.message["To"].addresses[0].addr_spec
    assert to.encode("ascii", "surrogateescape").decode("utf-8") == "zoë@example.org"
    assert {"SMTPUTF8", "BODY=8BITMIME"} <= set(got.mail_options)
    assert got.message.get_body(preferencelist=("related",)) is not None


def test_non_ascii_address_is_refused_for_good_without_smtputf8(smtp: SmtpServer) -> None:
    collector = smtp.collector
    with pytest.raises(PermanentFailure, match="SMTPUTF8"):
        SmtpTransport(smtp.host, smtp.port, timeout=5).send(login_mail("Zoë <zoë@example.org>"))
    assert collector.messages() == []


def test_ascii_addresses_need_no_smtputf8(smtp: SmtpServer) -> None:
    collector = smtp.collector
    SmtpTransport(smtp.host, smtp.port, timeout=5).send(login_mail())
    (got,) = collector.messages()
    assert got.mail_from == "clans@clans.example" and got.rcpt_tos == ["zoe@example.org"]
    assert got.message.get_body(preferencelist=("related",)) is not None
    assert "SMTPUTF8" not in got.mail_options


def test_an_8bit_body_is_declared(smtp: SmtpServer) -> None:
    collector = smtp.collector
    message = dataclasses.replace(login_mail(), text="Zoë moved 12 → 13\n")
    assert not message.wire().isascii()
    SmtpTransport(smtp.host, smtp.port, timeout=5).send(message)
    (got,) = collector.messages()
    assert "BODY=8BITMIME" in got.mail_options
    assert got.message.get_body(preferencelist=("plain",)).get_content().rstrip() == "Zoë moved 12 → 13"


# -- a worker's connection, kept open between messages ---------------------------------


def _kept(server: SmtpServer) -> SmtpTransport:
    return SmtpTransport(server.host, server.port, timeout=5, keep_open=True)


def test_a_kept_connection_carries_message_after_message(smtp: SmtpServer) -> None:
    transport = _kept(smtp)
    for n in range(3):
        transport.send(login_mail(message_id=f"<{n}.login@clans.example>"))
    got = smtp.collector.messages()
    assert [str(r.message["Message-ID"]) for r in got] == [f"<{n}.login@clans.example>" for n in range(3)]
    assert len({r.peer for r in got}) == 1  # one connection
    transport.close()
    transport.send(login_mail())  # closed, then a new one
    assert len({r.peer for r in smtp.collector.messages()}) == 2


def test_a_connection_the_server_dropped_is_replaced_and_nothing_is_lost() -> None:
    """The server restarts between two messages: the next one goes on a new
    connection; while it is down, sending fails (the row is retried), and
    nothing is taken for sent that the server did not accept."""
    server = SmtpServer()
    server.start()
    transport = _kept(server)
    transport.send(login_mail(message_id="<1.login@clans.example>"))
    server.stop()
    with pytest.raises(OSError):
        transport.send(login_mail(message_id="<2.login@clans.example>"))
    restarted = SmtpServer()
    restarted.port = server.port
    restarted.start()
    try:
        transport.send(login_mail(message_id="<3.login@clans.example>"))
        (got,) = restarted.collector.messages()
        assert str(got.message["Message-ID"]) == "<3.login@clans.example>"
    finally:
        transport.close()
        restarted.stop()


def test_a_connection_idle_too_long_is_not_used_again(smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.mail import transport as module

    transport = _kept(smtp)
    transport.send(login_mail())
    monkeypatch.setattr(module, "KEEP_SECONDS", -1.0)
    transport.send(login_mail())
    assert len({r.peer for r in smtp.collector.messages()}) == 2
    transport.close()


def test_a_connection_that_failed_is_not_used_again(smtp: SmtpServer) -> None:
    transport = _kept(smtp)
    smtp.collector.refuse = "451 4.3.0 try again later"
    with pytest.raises(Exception, match="451"):
        transport.send(login_mail())
    smtp.collector.refuse = None
    transport.send(login_mail())
    transport.send(login_mail())
    first, second = smtp.collector.messages()
    # A new connection after the refusal, kept from then on.
    assert first.peer == second.peer and smtp.collector.refused_peers != [first.peer]
    transport.close()


def test_a_forked_process_never_uses_its_parents_connection(smtp: SmtpServer) -> None:
    transport = _kept(smtp)
    transport.send(login_mail())
    (parents,) = transport._idle
    transport._pid = -1  # as a child of the process that opened it sees it
    transport.send(login_mail())
    assert parents not in transport._idle
    assert len({r.peer for r in smtp.collector.messages()}) == 2
    transport.close()


@given(st.lists(st.sampled_from([b".", b"..", b"\r\n", b"\n", b"\r", b"a", b" .", b"\r\n.\r\n"]), max_size=30)
       .map(b"".join))
def test_dots_are_doubled_where_smtplib_doubles_them(data: bytes) -> None:
    assert dot_stuffed(data) == smtplib._quote_periods(data)  # type: ignore[attr-defined]


@pytest.mark.parametrize("keep_open", [False, True])
def test_lines_that_start_with_a_dot_arrive_as_they_were_written(smtp: SmtpServer, keep_open: bool) -> None:
    text = ".\n.. two dots\n.hidden\nend.\n."
    message = dataclasses.replace(login_mail(), text=text)
    transport = SmtpTransport(smtp.host, smtp.port, timeout=5, keep_open=keep_open)
    transport.send(message)
    transport.send(message)
    transport.close()
    for got in smtp.collector.messages():
        assert got.raw.replace(b"\r\n", b"\n") == message.wire().replace(b"\r\n", b"\n")
        body = got.message.get_body(preferencelist=("plain",)).get_content()
        assert body.replace("\r\n", "\n") == text + "\n"


def test_a_forked_child_starts_with_free_locks() -> None:
    """A worker forked while another thread of its parent held a transport's lock
    (or the table of shared transports) must not wait on it for ever."""
    import os

    from pbem.mail import transport as module

    config = {"SMTP_HOST": "127.0.0.1", "SMTP_PORT": 9, "SMTP_USER": "", "SMTP_PASSWORD": "", "SMTP_TLS": False,
              "SMTP_TIMEOUT": 1.0}
    shared = module.transport_for(config, None)  # type: ignore[arg-type]  (SMTP needs no engine)
    assert isinstance(shared, SmtpTransport)
    with shared._lock, module._SHARED_LOCK:  # held by this thread at the fork
        pid = os.fork()
        if pid == 0:  # the child: both locks must be free
            free = shared._lock.acquire(timeout=2) and module._SHARED_LOCK.acquire(timeout=2)
            os._exit(0 if free else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
