"""The pure message builder: the MIME structure the service contract names, read back
from the bytes that go on the wire."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from pbem.mail.transport import wire_bytes
from tests.support.messages import PNG, login_message


def _wire(message: EmailMessage) -> EmailMessage:
    parsed = message_from_bytes(wire_bytes(message), policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def test_html_mail_with_a_picture_is_alternative_over_related() -> None:
    built = login_message()
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
    first = login_message()
    second = login_message()
    boundaries = [first.get_boundary(), first.get_payload()[1].get_boundary(),  # type: ignore[index]
                  second.get_boundary(), second.get_payload()[1].get_boundary()]  # type: ignore[index]
    assert all(boundaries) and len(set(boundaries)) == 4


def test_text_that_looks_like_a_boundary_does_not_split_the_message() -> None:
    built = login_message(name="=_pbem_" + "0" * 32)
    parsed = _wire(built)
    text, related = parsed.get_payload()  # type: ignore[misc]
    assert "=_pbem_" + "0" * 32 in text.get_content()
    assert [p.get_content_type() for p in related.get_payload()] == ["text/html", "image/png"]


def test_headers_read_back_from_the_wire_message_after_message() -> None:
    # Header values are parsed once and shared between messages: each message must
    # still carry its own, and the headers stay ASCII on the wire.
    people = [("Zoë", "zoe@example.org"), ("Ana", "ana@example.org"), ("Zoë", "zoe@example.org")]
    for n, (name, address) in enumerate(people):
        built = login_message(f"{name} <{address}>", name=name, message_id=f"<{n}.login@clans.example>",
                              picture=None)
        assert wire_bytes(built).partition(b"\r\n\r\n")[0].isascii()
        parsed = _wire(built)
        (to,) = parsed["To"].addresses
        assert (to.display_name, to.addr_spec) == ("", address)
        assert parsed["Message-ID"] == f"<{n}.login@clans.example>"
        assert parsed["X-PBEM-Kind"] == "login"


def test_a_built_message_can_be_pickled() -> None:
    import pickle

    built = login_message()
    again = pickle.loads(pickle.dumps(built))
    assert again.as_bytes() == built.as_bytes()
