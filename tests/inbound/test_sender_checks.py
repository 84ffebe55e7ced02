"""Who sent a reply (pbem/inbound/senders.py, pbem/inbound/authresults.py): the From header must name exactly the
seat's address, and with ``INBOUND_TRUST`` our own server's
Authentication-Results must show that address's domain authenticated, by a
domain aligned with it as DMARC aligns them (the same organisational domain)."""

from __future__ import annotations

from email.message import Message
from typing import Any

import pytest

from pbem.inbound import authresults, received, replies, senders
from pbem.core.models import Seat
from tests.support.games import EMAILS, new_game, to_move
from tests.support.messages import caught
from tests.support.replies import reply_message, store, turn_mail
from pbem import games

SERVER = "mx.clans.example"


def _message(from_values: list[str]) -> Message:
    """A message as it arrives (two From headers cannot be built, only received)."""
    head = "".join(f"From: {value}\r\n" for value in from_values)
    return received.parse(f"{head}To: move@clans.example\r\nSubject: Re: your turn\r\n\r\n12-13\r\n".encode())


# -- the From header ----------------------------------------------------------------


@pytest.mark.parametrize("from_values, problem", [
    (["ann@example.org"], None),
    (["Ann <ann@example.org>"], None),
    (['"Ann A." <ANN@Example.org>'], None),
    # Several addresses, in one header or two: whose is it?
    (["ann@example.org, mallory@evil.example"], "sender"),
    (["mallory@evil.example, ann@example.org"], "sender"),
    (["Friends: ann@example.org, mallory@evil.example;"], "sender"),
    (["ann@example.org", "mallory@evil.example"], "sender"),
    (["ann@example.org", "ann@example.org"], "sender"),
    ([], "sender"),
    (["mallory@evil.example"], "sender"),
])
def test_the_from_header_must_name_the_seat_alone(from_values: list[str], problem: str | None) -> None:
    seat = Seat(game_id=1, position=0, name="Ann", email="ann@example.org", token_salt="s", token_hash="h")
    ctx: Any = type("Ctx", (), {"config": {}})()
    assert senders.sender_problem(ctx, _message(from_values), "ann@example.org", seat) == problem


def test_a_reply_from_several_addresses_is_not_played(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view = to_move(ctx, toks)
    address = EMAILS[view["you"]]
    message = reply_message(turn_mail(ctx, address), view["legal_moves"][0],
                            sender=f"{address}, mallory@evil.example")
    outcome = replies.handle_reply(ctx, store(ctx, message, sender=address))
    assert outcome == "confirm:sender"
    assert games.public_game(ctx, game_id)["ply"] == 0
    assert caught(ctx, address, kind="reply-confirm")


# -- alignment ----------------------------------------------------------------------


@pytest.mark.parametrize("domain, aligned", [
    ("example.org", True),
    ("EXAMPLE.ORG.", True),
    ("mail.example.org", True),  # a subdomain of the From domain
    ("ann@mail.example.org", True),  # smtp.mailfrom and header.i are addresses
    ("evilexample.org", False),  # no dot: another name
    ("example.org.evil.example", False),
    ("org", False),  # a public suffix is nobody's domain
    ("", False),
    ("other.example", False),
])
def test_alignment_is_by_organisational_domain(domain: str, aligned: bool) -> None:
    assert authresults._aligned(domain, "example.org") is aligned


def test_a_domain_under_a_public_suffix_is_aligned_only_with_its_own() -> None:
    assert authresults._aligned("mail.example.co.uk", "example.co.uk")
    assert not authresults._aligned("co.uk", "example.co.uk")
    assert not authresults._aligned("other.co.uk", "example.co.uk")
    # Private suffixes of the list too: one customer's subdomain is not another's.
    assert not authresults._aligned("evil.herokuapp.com", "victim.herokuapp.com")


# -- our server's results -------------------------------------------------------------


@pytest.mark.parametrize("results, passed", [
    ([f"{SERVER}; dkim=pass header.d=example.org"], True),
    ([f"{SERVER}; dkim=pass header.d=mail.example.org"], True),
    ([f"{SERVER}; dkim=pass header.d=org"], False),
    ([f"{SERVER}; dkim=pass header.d=evilexample.org"], False),
    ([f"{SERVER}; spf=pass smtp.mailfrom=bounce@evilexample.org"], False),
    ([f"{SERVER}; spf=pass smtp.mailfrom=bounce@org"], False),
    ([f"{SERVER}; dmarc=pass header.from=org"], False),
    # The authserv-id may be quoted (RFC 8601): it counts when it is ours once unquoted ...
    ([f'"{SERVER}"; dkim=pass header.d=example.org'], True),
    ([f'"{SERVER}" 1; dkim=pass header.d=example.org'], True),
    ([f'"MX.Clans.\\Example"; dkim=pass header.d=example.org'], True),
    # ... and only then: not a quoted string that starts with it, nor a quote left open.
    ([f'"{SERVER} evil.example"; dkim=pass header.d=example.org'], False),
    ([f'"{SERVER}.evil.example"; dkim=pass header.d=example.org'], False),
    ([f'"{SERVER}; dkim=pass header.d=example.org'], False),
    ([f'{SERVER}"; dkim=pass header.d=example.org'], False),
    ([f'"evil.example" {SERVER}; dkim=pass header.d=example.org'], False),
])
def test_only_our_server_and_an_aligned_domain_count(results: list[str], passed: bool) -> None:
    assert authresults.authenticated(results, SERVER, "example.org") is passed


def test_with_inbound_trust_a_pass_for_a_public_suffix_is_not_played(ctx: Any) -> None:
    ctx.config["INBOUND_TRUST"] = f"authres:{SERVER}"
    game_id, toks = new_game(ctx, 2)
    _, view = to_move(ctx, toks)
    address = EMAILS[view["you"]]
    message = reply_message(turn_mail(ctx, address), view["legal_moves"][0], sender=address)
    message["Authentication-Results"] = f"{SERVER}; dkim=pass header.d=org"
    assert replies.handle_reply(ctx, store(ctx, message)) == "confirm:trust"
    assert games.public_game(ctx, game_id)["ply"] == 0
