"""The pure message builder: the MIME structure the service contract names, read back
from the bytes that go on the wire."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from pbem.mail import messages

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40


def _context(name: str) -> dict[str, Any]:
    # The login kind's templates need only these; its text and HTML carry the name.
    return {"link": f"https://clans.example/login/{name}", "minutes": 30,
            "base_url": "https://clans.example", "kind": "login"}


def _wire(message: EmailMessage) -> EmailMessage:
    raw = message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
    parsed = message_from_bytes(raw, policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def _envelope(kind: str = "login") -> messages.Envelope:
    return messages.Envelope(sender="Clans <clans@clans.example>", recipient="Zoë <zoe@example.org>",
                             message_id="<1.login@clans.example>", kind=kind, game_id=None)


def test_html_mail_with_a_picture_is_alternative_over_related() -> None:
    built = messages.build(_envelope(), _context("abc"), picture=PNG)
    parsed = _wire(built)
    assert parsed.get_content_type() == "multipart/alternative"
    text, related = parsed.get_payload()  # type: ignore[misc]
    assert text.get_content_type() == "text/plain"
    assert related.get_content_type() == "multipart/related"
    html, image = related.get_payload()
    assert html.get_content_type() == "text/html"
    assert image.get_content_type() == "image/png"
    assert image["Content-ID"] == "<board>"
    assert image.get_content() == PNG
    assert "https://clans.example/login/abc" in text.get_content()


def test_each_message_draws_its_own_boundaries() -> None:
    first = messages.build(_envelope(), _context("abc"), picture=PNG)
    second = messages.build(_envelope(), _context("abc"), picture=PNG)
    boundaries = [first.get_boundary(), first.get_payload()[1].get_boundary(),  # type: ignore[index]
                  second.get_boundary(), second.get_payload()[1].get_boundary()]  # type: ignore[index]
    assert all(boundaries) and len(set(boundaries)) == 4


def test_text_that_looks_like_a_boundary_does_not_split_the_message() -> None:
    built = messages.build(_envelope(), _context("=_pbem_" + "0" * 32), picture=PNG)
    parsed = _wire(built)
    text, related = parsed.get_payload()  # type: ignore[misc]
    assert "=_pbem_" + "0" * 32 in text.get_content()
    assert [p.get_content_type() for p in related.get_payload()] == ["text/html", "image/png"]


def test_headers_read_back_from_the_wire_message_after_message() -> None:
    # Header values are parsed once and shared between messages: each message must
    # still carry its own, and non-ASCII names must be encoded on the wire.
    people = [("Zoë", "zoe@example.org"), ("Ana", "ana@example.org"), ("Zoë", "zoe@example.org")]
    for n, (name, address) in enumerate(people):
        envelope = messages.Envelope(sender="Clans <clans@clans.example>", recipient=f"{name} <{address}>",
                                     message_id=f"<{n}.login@clans.example>", kind="login")
        built = messages.build(envelope, _context(name))
        raw = built.as_bytes(policy=built.policy.clone(linesep="\r\n"))
        assert raw.partition(b"\r\n\r\n")[0].isascii()
        parsed = _wire(built)
        (to,) = parsed["To"].addresses
        assert (to.display_name, to.addr_spec) == (name, address)
        assert parsed["Message-ID"] == f"<{n}.login@clans.example>"
        assert parsed["X-PBEM-Kind"] == "login"


def test_a_built_message_can_be_pickled() -> None:
    import pickle

    built = messages.build(_envelope(), _context("abc"), picture=PNG)
    again = pickle.loads(pickle.dumps(built))
    assert again.as_bytes() == built.as_bytes()
