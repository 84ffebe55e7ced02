"""The never-mail list and the per-address limits count mailboxes, not the
letters of an address (issue 27, section 3): ``victim+1@``, ``Victim+2@`` and
``victim@`` are one mailbox, and at Gmail ``v.ictim@`` is too.  A stranger who
names an opted-out address is told that it cannot be invited, never why; and
the limits' store holds no address that anyone could read."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlmodel import select

from pbem import games
from pbem.people import reachability
from pbem.core.db import session_scope
from pbem.core.models import Outbox, Suppression
from pbem.people.players import address_hash, mailbox
from tests.support.games import seat_tokens
from tests.support.messages import caught
from tests.support.web import csrf_from, csrf_token


def players(*emails: str) -> list[dict[str, str]]:
    return [{"name": f"P{n}", "email": e} for n, e in enumerate(emails)]


def start(client: Any, *emails: str, ip: str = "198.51.100.7") -> Any:
    return client.post("/api/v1/games", json={"players": players(*emails)}, environ_base={"REMOTE_ADDR": ip})


def never_email(client: Any, ctx: Any, address: str) -> None:
    """``address`` presses "never email me again" in the invitation it got."""
    r = start(client, "host@example.org", address, ip="192.0.2.200")
    assert r.status_code == 201
    games.accept(ctx, seat_tokens(ctx, r.json["id"])[0])  # the host confirms: the invitation goes
    invite = caught(ctx, recipient=address, kind="invite")[-1]
    body = invite.get_body(preferencelist=("plain",)).get_content()
    path = re.search(r"https://clans\.example(/never/\S+)", body).group(1)  # type: ignore[union-attr]
    page = client.get(path).get_data(as_text=True)
    assert client.post(path, data={"csrf_token": csrf_from(page)}).status_code == 200


@pytest.mark.parametrize(("address", "mailbox_of"), [
    ("Victim+0@Example.ORG", "victim@example.org"),
    ("victim@example.org", "victim@example.org"),
    ("vic.tim+a+b@example.org", "vic.tim@example.org"),  # dots count at most providers
    ("V.ic.Tim+x@googlemail.com", "victim@gmail.com"),  # not at Gmail
    ("v.ictim@gmail.com", "victim@gmail.com"),
    ("+tag@example.org", "+tag@example.org"),  # nothing before the tag: the address is the mailbox
])
def test_the_mailbox_of_an_address(address: str, mailbox_of: str) -> None:
    assert mailbox(address) == mailbox_of


def test_never_email_me_again_holds_for_every_tag_and_case_of_the_mailbox(client: Any, ctx: Any) -> None:
    # A game naming victim+9@ was made before victim+0@ opted out: its mail stops too.
    earlier = start(client, "friend@example.org", "victim+9@example.org", ip="192.0.2.201")
    never_email(client, ctx, "victim+0@example.org")
    games.accept(ctx, seat_tokens(ctx, earlier.json["id"])[0])
    with session_scope(ctx.engine) as session:
        statuses = session.exec(select(Outbox.status).where(Outbox.recipient == "victim+9@example.org")).all()
    assert statuses == ["skipped"]
    assert not caught(ctx, recipient="victim+9@example.org")
    for n, variant in enumerate(["victim+9@example.org", "victim@example.org", "Victim@Example.org",
                                 "VICTIM+other@EXAMPLE.ORG"]):
        r = start(client, f"someone{n}@example.org", variant, ip=f"192.0.2.{n}")
        assert r.status_code == 422, variant
        error = r.json["error"]
        # The stranger learns that the address cannot be invited, not that it opted out.
        assert error["code"] == "cannot-invite" and error["message"].startswith("player 2:")
        assert "cannot be invited" in error["message"] and "asked" not in error["message"]
    # The start form says the same.
    form = {"csrf_token": csrf_token(client), "name0": "Ann", "email0": "ann@example.org",
            "name1": "Vic", "email1": "victim+77@example.org"}
    page = client.post("/games", data=form).get_data(as_text=True)
    assert "victim+77@example.org cannot be invited" in page and "asked us never" not in page
    # Other mailboxes are not touched.
    assert start(client, "ann@example.org", "victim2@example.org", ip="192.0.2.99").status_code == 201


def test_at_gmail_the_dots_make_no_other_mailbox(client: Any, ctx: Any) -> None:
    never_email(client, ctx, "vic.tim+0@gmail.com")
    for n, variant in enumerate(["victim@gmail.com", "v.i.c.t.i.m+1@googlemail.com", "VicTim@Gmail.com"]):
        assert start(client, f"someone{n}@example.org", variant, ip=f"192.0.2.{n}").status_code == 422, variant
    # At other providers dots make another mailbox.
    assert start(client, "ann@example.org", "vic.tim@example.org", ip="192.0.2.98").status_code == 201


def test_rows_written_before_mailboxes_still_stop_their_address(client: Any, ctx: Any) -> None:
    """A row made before this change holds the SHA-256 of the address as written:
    it still stops that address (a hash cannot be turned back into its mailbox)."""
    with session_scope(ctx.engine) as session:
        session.add(Suppression(address_hash=address_hash("old+tag@example.org")))
    r = start(client, "ann@example.org", "Old+Tag@example.org")
    assert r.status_code == 422 and r.json["error"]["code"] == "cannot-invite"
    with session_scope(ctx.engine) as session:
        assert reachability.is_suppressed(session, "old+tag@example.org")


def test_confirmations_to_one_mailbox_are_counted_together(client: Any, ctx: Any) -> None:
    """LIMIT_CONFIRMATIONS (5 a day) is per mailbox: an attacker cannot send a
    sixth by writing another tag, another case or (at Gmail) another dot."""
    variants = [f"victim+{n}@example.org" for n in range(1, 5)] + ["Victim@example.org", "victim+6@example.org",
                                                                   "VICTIM+7@example.org"]
    codes = [start(client, v, f"x{n}@example.org", ip=f"192.0.2.{n}").status_code for n, v in enumerate(variants)]
    assert codes == [201] * 5 + [429] * 2
    assert len([m for m in caught(ctx) if "victim" in m["To"].lower()]) == 5
    gmail = ["a.b+1@gmail.com", "ab+2@googlemail.com", "A.B@gmail.com", "a.b.+3@gmail.com", "ab@gmail.com",
             "a.b+6@gmail.com"]
    codes = [start(client, v, f"y{n}@example.org", ip=f"192.0.2.{50 + n}").status_code for n, v in enumerate(gmail)]
    assert codes == [201] * 5 + [429]


def test_invitations_to_one_mailbox_are_counted_together(client: Any, ctx: Any) -> None:
    """LIMIT_INVITES (5 a day): six games inviting victim+1@ ... victim+6@ mail
    five; the sixth invitation waits for the next window."""
    for n in range(1, 7):
        r = start(client, f"c{n}@example.org", f"victim+{n}@example.org", ip=f"192.0.2.{50 + n}")
        games.accept(ctx, seat_tokens(ctx, r.json["id"])[0])
    assert len([m for m in caught(ctx, kind="invite") if m["To"].startswith("victim")]) == 5
    with session_scope(ctx.engine) as session:
        waiting = session.exec(select(Outbox.recipient).where(Outbox.status == "pending")).all()
    assert waiting == ["victim+6@example.org"]


def test_the_limits_store_holds_no_address(app: Any, redis_url: str) -> None:
    """Every count keyed on an address is kept under an HMAC of its mailbox:
    nothing in Redis names the person (before or after ``pbem admin forget``)."""
    import uuid

    import redis

    from pbem.core.errors import RateLimited
    from pbem.web import create_app
    from pbem.web.limits import stored_key
    from tests.support.config import app_config

    shared = create_app(app_config(app.config["DATABASE_URL"], RATELIMIT_STORAGE_URL=redis_url))
    try:
        limit = shared.extensions["pbem"].limit
        person = f"person{uuid.uuid4().hex[:12]}"
        for n in range(5):
            limit("LIMIT_CONFIRMATIONS", [f"{person}+{n}@example.org"])
        with pytest.raises(RateLimited):
            limit("LIMIT_CONFIRMATIONS", [f"{person.upper()}@Example.org"])
    finally:
        shared.extensions["pbem"].engine.dispose()
    store = redis.Redis.from_url(redis_url)
    keys = [k.decode() for k in store.scan_iter("*LIMIT_CONFIRMATIONS*")]
    hashed = stored_key(shared.config["SECRET_KEY"], f"{person}@example.org")
    mine = [k for k in keys if hashed in k]
    try:
        assert mine, keys
        assert not [k for k in keys if person in k.lower() or "example.org" in k]
    finally:
        for k in mine:
            store.delete(k)
