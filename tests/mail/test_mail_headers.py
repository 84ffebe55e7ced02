"""Outgoing headers are safe, read in the bytes that leave: List-Unsubscribe as literal
``<URL>``s (one-click unsubscribe, RFC 8058), To as exactly the envelope recipient,
and no stored text (a player's name) able to break a header or add one."""

from __future__ import annotations

import email
import email.policy
import re
from email.message import EmailMessage
from typing import Callable

import pytest
from pbem.mail import messages
from pbem.mail.transport import wire_bytes

#: A base URL as long as a deployment's might be: 150+ characters of path.
LONG_BASE = "https://clans.example/" + "/".join(["a-rather-long-path-segment"] * 7)
UNSUBSCRIBE = f"{LONG_BASE}/unsubscribe/AbC-dEf_123.xyz"

#: Every way a message is turned into bytes: the email package's own, the SMTP
#: adapter's (ASCII headers, and UTF-8 ones for an SMTPUTF8 server), and the
#: demo mailbox's text.
FLATTEN: dict[str, Callable[[EmailMessage], bytes]] = {
    "as_bytes": lambda m: m.as_bytes(),
    "bytes": bytes,
    "wire": wire_bytes,
    "wire-utf8": lambda m: wire_bytes(m, utf8=True),
    "as_string": lambda m: m.as_string().encode("utf-8"),
}


def invite(*, game: str = "k3vx9q2mtr7hwa", name: str = "Zoë", recipient: str = "zoe@example.org",
           unsubscribe: str = UNSUBSCRIBE) -> EmailMessage:
    """An invitation through the real templates: its subject carries ``game`` and
    its text ``name``; ``unsubscribe`` becomes List-Unsubscribe."""
    envelope = messages.Envelope(sender="Clans <clans@clans.example>", recipient=recipient,
                                 message_id="<1.invite@clans.example>", kind="invite",
                                 game_id="k3vx9q2mtr7hwa", unsubscribe=unsubscribe)
    context = {"game": game, "name": name, "others": "Ann and Bob", "turn_hours": 24,
               "link": f"{LONG_BASE}/play/seat", "unsubscribe": unsubscribe,
               "base_url": LONG_BASE, "kind": "invite", "view": {"players": [{}, {}, {}]}}
    return messages.build(envelope, context)


def head(raw: bytes) -> bytes:
    """The header block of a flattened message, with its own line ends."""
    return re.split(rb"\r?\n\r?\n", raw, maxsplit=1)[0]


def fields(raw: bytes) -> dict[str, bytes]:
    """Each header of the block, folded lines as they are, by lower-case name."""
    out: dict[str, bytes] = {}
    for field in re.split(rb"\r?\n(?![ \t])", head(raw)):
        name = field.partition(b":")[0].decode("ascii").lower()
        assert name not in out, f"{name} twice"
        out[name] = field
    return out


@pytest.mark.parametrize("flatten", FLATTEN.values(), ids=list(FLATTEN))
def test_list_unsubscribe_goes_out_as_a_literal_url(flatten: Callable[[EmailMessage], bytes]) -> None:
    assert len(UNSUBSCRIBE) > 150
    got = fields(flatten(invite()))
    # One URL: one unfolded line, the URL whole and in angle brackets, nothing encoded.
    assert got["list-unsubscribe"] == f"List-Unsubscribe: <{UNSUBSCRIBE}>".encode("ascii")
    assert got["list-unsubscribe-post"] == b"List-Unsubscribe-Post: List-Unsubscribe=One-Click"


def test_list_unsubscribe_reads_back_as_the_url() -> None:
    parsed = email.message_from_bytes(wire_bytes(invite()), policy=email.policy.default)
    assert parsed["List-Unsubscribe"] == f"<{UNSUBSCRIBE}>"
    assert parsed["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_a_message_with_list_unsubscribe_can_be_pickled() -> None:
    import pickle

    built = invite()
    assert pickle.loads(pickle.dumps(built)).as_bytes() == built.as_bytes()


@pytest.mark.parametrize("flatten", FLATTEN.values(), ids=list(FLATTEN))
def test_several_unsubscribe_urls_are_folded_only_between_them(flatten: Callable[[EmailMessage], bytes]) -> None:
    message = invite()
    # Commas inside a URL belong to it: only those between items may fold.
    with_comma = f"{LONG_BASE}/x,y?z=1,2"
    del message["List-Unsubscribe"]
    message["List-Unsubscribe"] = f"<mailto:leave@clans.example?subject=stop>, <{with_comma}>,<{UNSUBSCRIBE}>"
    raw = flatten(message)
    nl = b"\r\n" if b"\r\n" in head(raw) else b"\n"
    assert fields(raw)["list-unsubscribe"] == nl.join([
        b"List-Unsubscribe: <mailto:leave@clans.example?subject=stop>,",
        f" <{with_comma}>,".encode("ascii"),
        f" <{UNSUBSCRIBE}>".encode("ascii"),
    ])


@pytest.mark.parametrize("url", [
    f"{LONG_BASE}/unsubscribe/ä",  # beyond ASCII: it would have to be encoded
    f"{LONG_BASE}/unsub scribe",
    f"{LONG_BASE}/x>, <https://attacker.example/",
    f"{LONG_BASE}/x\r\nBcc: evil@attacker.example",
    f"{LONG_BASE}/x\u2028Bcc: evil@attacker.example",
])
def test_an_unsubscribe_url_that_cannot_go_out_literally_is_refused(url: str) -> None:
    with pytest.raises(ValueError):
        invite(unsubscribe=url)


@pytest.mark.parametrize("recipient", [
    "zoe@example.org", "Zoe.Smith+clans@mail.example.org", "x@[192.0.2.1]", '"zoe smith"@example.org',
])
def test_to_names_exactly_the_envelope_recipient(recipient: str) -> None:
    parsed = email.message_from_bytes(wire_bytes(invite(recipient=recipient)), policy=email.policy.default)
    (to,) = parsed["To"].addresses
    assert to.addr_spec == recipient and to.display_name == ""


def test_a_recipient_beyond_ascii_is_the_to_address_over_smtputf8() -> None:
    raw = wire_bytes(invite(recipient="zoë@example.org"), utf8=True)
    assert fields(raw)["to"] == "To: zoë@example.org".encode("utf-8")


@pytest.mark.parametrize("recipient", [
    # Encoded words a mail client decodes into two addresses at a bank.
    "=?utf-8?q?ceo=40bank.example=2c_cfo=40bank.example?=@attacker.example",
    "=?utf-8?q?ceo=40bank.example=2c_cfo=40bank.example?= @attacker.example",
    '"=?utf-8?q?ceo=40bank.example=2c_cfo=40bank.example?="@attacker.example',
    "ceo@bank.example, cfo@bank.example",
    "Zoë <zoe@example.org>",
    "zoe@example.org (comment)",
    "zoe@example.org\r\nBcc: evil@attacker.example",
    "zoe@example.org\u2028Bcc: evil@attacker.example",
    "zoe\x00@example.org",
    "", "zoe", "zoe@", "@example.org",
])
def test_a_recipient_that_is_not_one_plain_address_is_refused(recipient: str) -> None:
    with pytest.raises(ValueError, match="recipient"):
        invite(recipient=recipient)
