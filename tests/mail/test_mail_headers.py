"""Outgoing headers are safe, read in the bytes that leave: List-Unsubscribe as literal
``<URL>``s (one-click unsubscribe, RFC 8058), To as exactly the envelope recipient,
and no stored text (a player's name) able to break a header or add one."""

from __future__ import annotations

import email
import email.policy
import json
import re
from email.message import EmailMessage
from typing import Any, Callable

import pytest
from sqlmodel import col, select

from pbem import games
from pbem.core.db import session_scope
from pbem.mail import messages
from pbem.mail.compose import compose
from pbem.mail.transport import wire_bytes
from pbem.core.models import Game, Outbox, Seat
from pbem.core.outbox import enqueue
from tests.support.clock import frozen_clock
from tests.support.games import db_id, new_game, play, to_move

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
               "base_url": LONG_BASE, "kind": "invite", "view": {"players": [{}, {}, {}]},
               "confirming": False, "inviter": "Ann", "inviter_email": "ann@example.org",
               "never": f"{LONG_BASE}/never/seat"}
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


#: Characters that must not reach a header: controls (C0, DEL, C1), format
#: characters (bidi override, zero widths, BOM), line and paragraph separators.
UNSAFE = ["\x00", "\x0b", "\x0c", "\r", "\r\n", "\t", "\x1c", "\x1f", "\x7f", "\x85", "\x9f",
          "\u2028", "\u2029", "\u202e", "\u200b", "\u200d", "\ufeff", "\u00ad"]


def assert_headers_are_clean(raw: bytes) -> None:
    """Every header line of ``raw`` is a field or the fold of one (CRLF or LF line
    ends only), and none carries NUL, VT or a character listed above."""
    block = head(raw)
    nl = b"\r\n" if b"\r\n" in block else b"\n"
    lines = block.split(nl)
    assert all(b"\r" not in line and b"\n" not in line for line in lines)
    assert all(re.match(rb"[!-9;-~]+:|[ \t]", line) for line in lines), lines
    text = block.decode("utf-8", "surrogateescape")
    assert not set(text) & set("".join(UNSAFE)) - {"\r", "\n", "\t"}


@pytest.mark.parametrize("chars", UNSAFE, ids=["+".join(f"U+{ord(c):04X}" for c in chars) for chars in UNSAFE])
def test_text_with_any_unsafe_character_builds_and_cannot_add_a_header(chars: str) -> None:
    message = invite(game=f"k3vx{chars}Bcc: evil@attacker.example{chars}{chars}", name=f"Zo{chars}ë")
    # One line (a line end in the text ends the template's subject line early).
    subject = str(message["Subject"])
    assert subject.startswith("Ann invites you to play Clans by mail (game k3vx")
    assert subject.isprintable() and "  " not in subject
    for flatten in FLATTEN.values():
        raw = flatten(message)
        assert_headers_are_clean(raw)
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        assert parsed["Bcc"] is None
        assert [a.addr_spec for a in parsed["To"].addresses] == ["zoe@example.org"]


# -- the stored names that stopped a game's mail ---------------------------------

#: Names as they may have been stored before any check on input.  PostgreSQL keeps
#: no NUL in text, so SQLite alone gets those.
NAMES = ["Ann\u2028Bcc: evil@attacker.example", "Bob\x85\x0b\x00", "Cid\u202e\r\nX-Evil: 1"]


def _store_names(ctx: Any, game_id: str) -> None:
    """Rename the players in the database, seats and rules' state alike."""
    names = NAMES if ctx.engine.dialect.name == "sqlite" else [n.replace("\x00", "") for n in NAMES]
    with session_scope(ctx.engine) as session:
        game = session.get(Game, db_id(session, game_id))
        assert game is not None and game.state is not None
        seats = session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.position))).all()
        state = json.loads(game.state)
        state["players"] = names
        for seat, name in zip(seats, names):
            seat.name = name
            session.add(seat)
        game.state = json.dumps(state)
        session.add(game)


def _compose_all(ctx: Any, game_id: str, kind: str, event: str) -> list[EmailMessage]:
    out = []
    with session_scope(ctx.engine) as session:
        game = db_id(session, game_id)
        for seat in session.exec(select(Seat).where(Seat.game_id == game)).all():
            row = session.exec(select(Outbox).where(Outbox.seat_id == seat.id, Outbox.kind == kind,
                                                    Outbox.event == event)).first()
            if row is None:  # the service decided no such mail for this seat: make one
                new_id = enqueue(session, kind=kind, event=event, recipient=seat.email, base_url=ctx.base_url,
                                 now=ctx.now(), game_id=game, seat_id=seat.id)
                row = session.get(Outbox, new_id)
            assert row is not None
            message = compose(ctx, session, row)
            assert message is not None, f"{kind} for seat {seat.position} was not composed"
            out.append(message.to_message())
    return out


def test_stored_names_with_unsafe_characters_do_not_stop_a_games_mail(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    _store_names(ctx, game_id)
    play(ctx, toks, 4)
    # The autopilot moves for the seat to move: the deadline mail names it.
    t, view = to_move(ctx, toks)
    now.advance(hours=view["turn_hours"] + 1)
    assert games.autopilot_move(ctx, db_id(ctx, game_id), view["ply"]) is not None
    sent = _compose_all(ctx, game_id, "deadline", f"autopilot:{view['ply']}")
    while games.public_game(ctx, game_id)["status"] == "active":
        play(ctx, toks, 1)
    sent += _compose_all(ctx, game_id, "game-over", "over")
    assert len(sent) == 6
    for message in sent:
        assert str(message["Subject"]).isprintable()
        for flatten in FLATTEN.values():
            raw = flatten(message)
            assert_headers_are_clean(raw)
            parsed = email.message_from_bytes(raw, policy=email.policy.default)
            assert parsed["Bcc"] is None and parsed["X-Evil"] is None
            assert len(parsed["To"].addresses) == 1

