"""The SMTP adapter against a real SMTP server (aiosmtpd): what goes on the wire, and
the envelope for non-ASCII addresses (SMTPUTF8)."""

from __future__ import annotations

import io
from email.generator import BytesGenerator
from typing import Any, Iterator

import pytest
from aiosmtpd.controller import Controller

from pbem.mail import messages
from pbem.mail.transport import PermanentFailure, SmtpTransport, wire_bytes
from tests.mail.smtpd import Collector, free_port

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 300


def _message(recipient: str = "Zoë <zoe@example.org>") -> Any:
    envelope = messages.Envelope(sender="Clans <clans@clans.example>", recipient=recipient,
                                 message_id="<7.login@clans.example>", kind="login")
    context = {"link": "https://clans.example/login/abc", "minutes": 30,
               "base_url": "https://clans.example", "kind": "login"}
    return messages.build(envelope, context, picture=PNG)


def test_wire_bytes_are_what_the_standard_generator_writes() -> None:
    message = _message()
    out = io.BytesIO()
    BytesGenerator(out, policy=message.policy).flatten(message, linesep="\r\n")
    assert wire_bytes(message) == out.getvalue()
    assert b"\r\n\r\niVBORw0KGgo" in wire_bytes(message)  # the picture, base64, after its headers


@pytest.fixture
def server(request: Any) -> Iterator[tuple[Collector, int]]:
    collector, port = Collector(), free_port()
    controller = Controller(collector, hostname="127.0.0.1", port=port, enable_SMTPUTF8=request.param)
    controller.start()
    yield collector, port
    controller.stop()


@pytest.mark.parametrize("server", [True], indirect=True)
def test_non_ascii_address_goes_with_smtputf8(server: tuple[Collector, int]) -> None:
    collector, port = server
    SmtpTransport("127.0.0.1", port, timeout=5).send(_message("Zoë <zoë@example.org>"))
    (got,) = collector.messages()
    assert got.rcpt_tos == ["zoë@example.org"]
    # The header is raw UTF-8 on the wire (the parser keeps such bytes as surrogates).
    to = got.message["To"].addresses[0].addr_spec
    assert to.encode("ascii", "surrogateescape").decode("utf-8") == "zoë@example.org"
    assert {"SMTPUTF8", "BODY=8BITMIME"} <= set(got.mail_options)
    assert got.message.get_body(preferencelist=("related",)) is not None


@pytest.mark.parametrize("server", [False], indirect=True)
def test_non_ascii_address_is_refused_for_good_without_smtputf8(server: tuple[Collector, int]) -> None:
    collector, port = server
    with pytest.raises(PermanentFailure, match="SMTPUTF8"):
        SmtpTransport("127.0.0.1", port, timeout=5).send(_message("Zoë <zoë@example.org>"))
    assert collector.messages() == []


@pytest.mark.parametrize("server", [False], indirect=True)
def test_ascii_addresses_need_no_smtputf8(server: tuple[Collector, int]) -> None:
    collector, port = server
    SmtpTransport("127.0.0.1", port, timeout=5).send(_message())
    (got,) = collector.messages()
    assert got.mail_from == "clans@clans.example" and got.rcpt_tos == ["zoe@example.org"]
    assert got.message.get_body(preferencelist=("related",)) is not None
    assert "SMTPUTF8" not in got.mail_options


@pytest.mark.parametrize("server", [False], indirect=True)
def test_an_8bit_body_is_declared(server: tuple[Collector, int]) -> None:
    collector, port = server
    message = _message()
    message.get_body(preferencelist=("plain",)).set_content("Zoë moved 12 → 13\n")
    assert not wire_bytes(message).isascii()
    SmtpTransport("127.0.0.1", port, timeout=5).send(message)
    (got,) = collector.messages()
    assert "BODY=8BITMIME" in got.mail_options
    assert got.message.get_body(preferencelist=("plain",)).get_content().rstrip() == "Zoë moved 12 → 13"
