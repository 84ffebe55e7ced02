"""The SMTP adapter against a real SMTP server (aiosmtpd): what goes on the wire, and
the envelope for non-ASCII addresses (SMTPUTF8)."""

from __future__ import annotations

import dataclasses
import io
from email.generator import BytesGenerator
from typing import Iterator

import pytest

from pbem.mail.transport import PermanentFailure, SmtpTransport, wire_bytes
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
