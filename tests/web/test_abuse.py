"""What an anonymous visitor or a spammer can make the service do, and how often
(issue: safe to open to the public): invitations wait for the creator's
confirmation, floods get 429s and send almost nothing, the suppression list
holds, names and addresses that could break or abuse mail are refused, sign-in
does the same work for every address, signing out and replacing a link revoke."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlmodel import select

from pbem import games
from pbem.games import starting
from pbem.people import signin
from pbem.core.db import session_scope
from pbem.core.models import Game, Outbox
from tests.support.games import PLAYERS, db_id, new_game, seat_tokens
from tests.support.messages import caught
from tests.support.web import ask_for_link, csrf_from, csrf_token, link_in, snapshot

ENCODED = "=?utf-8?q?ceo=40bank.example=2c_cfo=40bank.example?=@attacker.example"


def players(*emails: str) -> list[dict[str, str]]:
    return [{"name": f"P{n}", "email": e} for n, e in enumerate(emails)]


def start(client: Any, body: dict[str, Any], ip: str = "198.51.100.7") -> Any:
    return client.post("/api/v1/games", json=body, environ_base={"REMOTE_ADDR": ip})


# -- the creator confirms -------------------------------------------------------


def test_an_anonymous_start_mails_only_the_creator_until_they_accept(client: Any, ctx: Any) -> None:
    r = start(client, {"players": PLAYERS})
    assert r.status_code == 201
    assert [m["To"] for m in caught(ctx)] == ["ann@example.org"]
    toks = seat_tokens(ctx, r.json["id"])
    # Bob's link exists but nobody sent it; his accepting would not mail anyone.
    games.accept(ctx, toks[0])
    assert sorted(m["To"] for m in caught(ctx, kind="invite")) == sorted(p["email"] for p in PLAYERS)
    games.accept(ctx, toks[0])  # accepting again sends nothing again
    assert len(caught(ctx, kind="invite")) == 3


def test_a_signed_in_creator_has_confirmed_by_starting(client: Any, ctx: Any) -> None:
    new_game(ctx, 2)  # Ann has a game, so she can sign in
    ask_for_link(client, ctx, "ann@example.org")
    path = link_in(caught(ctx, kind="login")[-1])
    client.post(path, data={"csrf_token": csrf_from(client.get(path).get_data(as_text=True))})
    before = len(caught(ctx, kind="invite"))
    form = {"csrf_token": csrf_token(client), "name0": "Ann", "email0": "ann@example.org",
            "name1": "Zed", "email1": "zed@example.org", "name2": "Yve", "email2": "yve@example.org"}
    response = client.post("/games", data=form)
    assert response.status_code == 303 and "new=confirmed" in response.headers["Location"]
    sent = caught(ctx, kind="invite")[before:]
    assert sorted(m["To"] for m in sent) == ["yve@example.org", "zed@example.org"]
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Invitations sent" in page
    # Signed in as someone else, starting a game for Ann is not her confirmation.
    other = {**form, "csrf_token": csrf_token(client), "name0": "Xan", "email0": "xan@example.org"}
    before = len(caught(ctx, kind="invite"))
    client.post("/games", data=other)
    assert [m["To"] for m in caught(ctx, kind="invite")[before:]] == ["xan@example.org"]


# -- floods -----------------------------------------------------------------------


def test_a_flood_of_game_starts_from_one_client_gets_429_and_sends_almost_nothing(client: Any, ctx: Any) -> None:
    answers = [start(client, {"players": players(f"a{n}@example.org", f"b{n}@example.org")})
               for n in range(40)]
    made = [r for r in answers if r.status_code == 201]
    refused = [r for r in answers if r.status_code == 429]
    assert len(made) == 5 and len(refused) == 35  # LIMIT_NEW_GAMES: 5 per minute
    for r in refused:
        assert r.json["error"]["code"] == "rate-limited"
        assert 0 < int(r.headers["Retry-After"]) <= 60
    assert len(caught(ctx)) == 5  # one confirmation per game made, nothing else
    # Another client is not held back by this one.
    assert start(client, {"players": players("c@example.org", "d@example.org")}, ip="203.0.113.9").status_code == 201


def test_the_form_answers_a_flood_with_a_page(client: Any, ctx: Any) -> None:
    for n in range(6):
        form = {"csrf_token": csrf_token(client), "name0": "Ann", "email0": f"a{n}@example.org",
                "name1": "Bob", "email1": f"b{n}@example.org"}
        response = client.post("/games", data=form)
    assert response.status_code == 429 and response.headers["Retry-After"]
    page = response.get_data(as_text=True)
    assert "<html" in page and "Too many requests: please wait and try again later." in page


def test_one_address_gets_at_most_five_confirmations_a_day_whoever_asks(client: Any, ctx: Any) -> None:
    victim = "victim@example.org"
    codes = [start(client, {"players": players(victim, f"x{n}@example.org")}, ip=f"192.0.2.{n}").status_code
             for n in range(12)]
    assert codes == [201] * 5 + [429] * 7
    assert len(caught(ctx, recipient=victim)) == 5
    # The victim can still be invited by a friend: invitations are counted apart.
    r = start(client, {"players": players("friend@example.org", victim)}, ip="192.0.2.99")
    client.post("/api/v1/seat/accept", headers={"Authorization": f"Bearer {seat_tokens(ctx, r.json['id'])[0]}"})
    assert len(caught(ctx, recipient=victim)) == 6


def test_invitations_to_one_address_over_the_limit_wait_for_the_next_day(client: Any, ctx: Any) -> None:
    creators = []
    for n in range(6):
        r = start(client, {"players": players(f"c{n}@example.org", "target@example.org")}, ip=f"192.0.2.{50 + n}")
        creators.append(seat_tokens(ctx, r.json["id"])[0])
    results = [client.post("/api/v1/seat/accept", headers={"Authorization": f"Bearer {t}"}).status_code
               for t in creators]
    assert results == [200] * 6  # a confirmation is never refused for someone else's limit
    assert len(caught(ctx, recipient="target@example.org")) == 5
    with session_scope(ctx.engine) as session:
        waiting = session.exec(select(Outbox).where(Outbox.recipient == "target@example.org",
                                                    Outbox.status == "pending")).all()
    assert len(waiting) == 1
    assert (waiting[0].next_attempt_at.replace(tzinfo=None) - ctx.now().replace(tzinfo=None)).total_seconds() > 3600


def test_a_stranger_named_in_an_unconfirmed_game_gets_no_sign_in_mail(client: Any, ctx: Any) -> None:
    """Naming an address in a game nobody confirmed does not make it one that
    may ask for sign-in links."""
    start(client, {"players": players("attacker@example.org", "stranger@example.org")})
    ask_for_link(client, ctx, "stranger@example.org")
    assert not caught(ctx, recipient="stranger@example.org")


def test_ipv6_clients_are_counted_by_their_64(client: Any, ctx: Any) -> None:
    codes = [start(client, {"players": players(f"a{n}@example.org", f"b{n}@example.org")},
                   ip=f"2001:db8:1:2::{n:x}").status_code for n in range(8)]
    assert codes == [201] * 5 + [429] * 3
    other = start(client, {"players": players("c@example.org", "d@example.org")}, ip="2001:db8:1:3::1")
    assert other.status_code == 201


def test_requests_at_the_same_moment_cannot_all_pass_a_limit(app: Any, redis_url: str) -> None:
    """Each count is one atomic increment in the shared store."""
    import threading
    import uuid

    from pbem.core.errors import RateLimited
    from pbem.web import create_app
    from tests.support.config import app_config

    shared = create_app(app_config(app.config["DATABASE_URL"], RATELIMIT_STORAGE_URL=redis_url))
    limit = shared.extensions["pbem"].limit
    key = f"race-{uuid.uuid4().hex}@example.org"
    passed: list[bool] = []
    barrier = threading.Barrier(20)

    def one() -> None:
        barrier.wait()
        try:
            limit("LIMIT_CONFIRMATIONS", [key])
            passed.append(True)
        except RateLimited:
            passed.append(False)

    threads = [threading.Thread(target=one) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shared.extensions["pbem"].engine.dispose()
    import redis

    from pbem.web.limits import stored_key

    store = redis.Redis.from_url(redis_url)
    for leftover in store.scan_iter(f"*{stored_key(shared.config['SECRET_KEY'], key)}*"):  # an address is kept hashed
        store.delete(leftover)
    assert passed.count(True) == 5 and passed.count(False) == 15


def test_a_flood_of_sign_ins_for_one_address_sends_one_mail(client: Any, ctx: Any) -> None:
    new_game(ctx, 2)
    statuses = []
    for n in range(40):
        token = csrf_token(client, "/login")
        statuses.append(client.post("/login", data={"csrf_token": token, "email": "ann@example.org"},
                                    environ_base={"REMOTE_ADDR": f"192.0.2.{n}"}).status_code)
    assert statuses == [200] * 40  # each answer is the same page
    assert len(caught(ctx, kind="login")) == 1
    # One client asking again and again is stopped outright.
    codes = []
    for n in range(8):
        token = csrf_token(client, "/login")
        codes.append(client.post("/login", data={"csrf_token": token, "email": f"z{n}@example.org"}).status_code)
    assert codes == [200] * 5 + [429] * 3


def test_moves_and_page_views_are_never_limited(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    for _ in range(60):
        assert client.get(f"/play/{toks[0]}").status_code == 200
        assert client.get(f"/api/v1/games/{game_id}").status_code == 200
    for _ in range(30):
        token = next(t for t in toks if games.seat_view(ctx, t)["your_turn"])
        view = games.seat_view(ctx, token)
        r = client.post("/api/v1/seat/moves", headers={"Authorization": f"Bearer {token}"},
                        json={"move": view["legal_moves"][0], "ply": view["ply"]})
        assert r.status_code == 200


# -- never email me again -------------------------------------------------------


def test_never_email_me_again_holds_for_every_later_game(client: Any, ctx: Any) -> None:
    new_game(ctx, start=False)
    invite = caught(ctx, recipient="bob@example.org", kind="invite")[0]
    body = invite.get_body(preferencelist=("plain",)).get_content()
    path = re.search(r"https://clans\.example(/never/\S+)", body).group(1)  # type: ignore[union-attr]
    before = snapshot(ctx)
    page = client.get(path).get_data(as_text=True)
    assert client.head(path).status_code == 200
    assert snapshot(ctx) == before  # opening the link changes nothing
    assert client.post(path, data={}).status_code == 400  # a form of this site only
    done = client.post(path, data={"csrf_token": csrf_from(page)})
    assert done.status_code == 200 and "We will never email this address again" in done.get_data(as_text=True)
    assert "bob@example.org" not in done.get_data(as_text=True)  # a leaked link shows nobody's address
    # No game can name the address again: refused at the API and the form.
    r = start(client, {"players": [PLAYERS[0], {"name": "Bob", "email": "BOB@example.org"}]})
    assert r.status_code == 422 and r.json["error"]["code"] == "cannot-invite"
    form = {"csrf_token": csrf_token(client), "name0": "Ann", "email0": "ann@example.org",
            "name1": "Bob", "email1": "bob@example.org"}
    page = client.post("/games", data=form).get_data(as_text=True)
    assert "bob@example.org cannot be invited" in page
    # Nothing reaches it any more, even mail decided before: sign-in, or a turn.
    ask_for_link(client, ctx, "bob@example.org")
    assert not caught(ctx, recipient="bob@example.org", kind="login")
    with session_scope(ctx.engine) as session:
        statuses = session.exec(select(Outbox.status).where(Outbox.recipient == "bob@example.org",
                                                            Outbox.kind == "login")).all()
    assert statuses == ["skipped"]


# -- names and addresses --------------------------------------------------------


@pytest.mark.parametrize("email", [
    ENCODED, '"ceo bank"@example.org', "ann@example.org, bob@example.org", "Ann <ann@example.org>",
    "ann\x0b@example.org", "ann@example.org\r\nBcc: x@example.org", "ann@[127.0.0.1]", "ann@localhost",
    "a" * 250 + "@example.org",
])
def test_addresses_that_could_name_someone_else_are_refused(client: Any, ctx: Any, email: str) -> None:
    before = snapshot(ctx)
    r = start(client, {"players": [PLAYERS[0], {"name": "Bob", "email": email}]})
    assert r.status_code == 422 and r.json["error"]["code"] == "invalid-email"
    assert r.json["error"]["message"].startswith("player 2:")
    assert snapshot(ctx) == before


@pytest.mark.parametrize("name, why", [
    ("Ann\u2028Bcc", "control or invisible"), ("Ann\u0085", "control or invisible"),
    ("Ann\u202egnp.exe", "control or invisible"), ("Ann\t", "control or invisible"),
    ("Zed\u200b", "control or invisible"), ("x" * 41, "at most 40 characters"),
    ("   ", "a name is needed"), ("Win at https://spam.example", "web address"),
    ("cheap-pills.com", "web address"), ("see www.spam.example", "web address"),
])
def test_names_that_could_break_or_abuse_mail_are_refused(client: Any, ctx: Any, name: str, why: str) -> None:
    before = snapshot(ctx)
    r = start(client, {"players": [PLAYERS[0], {"name": name, "email": "bob@example.org"}]})
    assert r.status_code == 422 and why in r.json["error"]["message"], r.json
    assert snapshot(ctx) == before


def test_a_nul_anywhere_in_a_request_is_refused_before_it_is_read(client: Any, ctx: Any) -> None:
    before = snapshot(ctx)
    r = start(client, {"players": [PLAYERS[0], {"name": "Bob\x00", "email": "bob@example.org"}]})
    assert r.status_code == 422 and r.json["error"]["code"] == "bad-text"
    assert snapshot(ctx) == before


def test_names_are_stored_normalised(client: Any, ctx: Any) -> None:
    r = start(client, {"players": [{"name": "  Zoe\u0308   Smith ", "email": "Zoe@Example.ORG"}, PLAYERS[1]]})
    assert r.status_code == 201
    assert r.json["players"][0]["name"] == "Zoë Smith"
    assert caught(ctx)[0]["To"] == "zoe@example.org"


# -- sign-in tells nothing ------------------------------------------------------


def test_sign_in_does_the_same_work_whether_or_not_the_address_has_games(ctx: Any) -> None:
    """The request writes one outbox row either way; the look-up and the mail are
    the worker's.  Counted in SQL statements, not in (noisy) time."""
    new_game(ctx, 2)
    handed: list[list[int | None]] = []
    ctx.relay = lambda ids: handed.append(list(ids))
    statements: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(re.sub(r"'[^']*'", "?", statement))

    event.listen(ctx.engine, "before_cursor_execute", count)
    try:
        signin.request_login(ctx, "ann@example.org")
        known = list(statements)
        statements.clear()
        signin.request_login(ctx, "zed@example.org")
        unknown = list(statements)
    finally:
        event.remove(ctx.engine, "before_cursor_execute", count)
    assert known == unknown and known
    assert all("from seat" not in s.lower() for s in known)  # nobody looked the address up
    assert len(handed) == 2 and all(len(ids) == 1 for ids in handed)


# -- revoking ---------------------------------------------------------------------


def test_signing_out_ends_the_session_for_a_copied_cookie_too(client: Any, ctx: Any, app: Any) -> None:
    new_game(ctx, 2)
    ask_for_link(client, ctx, "ann@example.org")
    path = link_in(caught(ctx, kind="login")[-1])
    client.post(path, data={"csrf_token": csrf_from(client.get(path).get_data(as_text=True))})
    assert client.get("/games").status_code == 200
    cookie = client.get_cookie("session")
    thief = app.test_client()
    thief.set_cookie("session", cookie.value, domain=cookie.domain)
    assert thief.get("/games").status_code == 200
    client.post("/logout", data={"csrf_token": csrf_token(client, "/games")})
    assert client.get("/games").status_code == 303
    response = thief.get("/games")
    assert response.status_code == 303 and response.headers["Location"].endswith("/login")


def test_a_leaked_seat_link_can_be_replaced(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    old = toks[0]
    page = client.get(f"/play/{old}").get_data(as_text=True)
    assert f'action="/play/{old}/new-link"' in page
    done = client.post(f"/play/{old}/new-link", data={"csrf_token": csrf_from(page)})
    assert done.status_code == 200 and "A new link is on its way" in done.get_data(as_text=True)
    assert client.get(f"/play/{old}").status_code == 401
    assert client.get("/api/v1/seat", headers={"Authorization": f"Bearer {old}"}).status_code == 401
    (mail,) = caught(ctx, kind="link")
    assert mail["To"] == "ann@example.org"
    new = re.search(r"https://clans\.example/play/(\S+)", mail.get_body(preferencelist=("plain",)).get_content())
    assert new and new.group(1) != old and new.group(1) not in done.get_data(as_text=True)
    assert games.seat_view(ctx, new.group(1))["you"] == "Ann"
    assert new.group(1) in seat_tokens(ctx, game_id) and old not in seat_tokens(ctx, game_id)


def test_new_links_are_limited_per_seat(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    codes = []
    for _ in range(4):
        token = seat_tokens(ctx, game_id)[1]
        page = client.get(f"/play/{token}").get_data(as_text=True)
        codes.append(client.post(f"/play/{token}/new-link", data={"csrf_token": csrf_from(page)}).status_code)
    assert codes == [200, 200, 200, 429]
    assert len(caught(ctx, kind="link")) == 3


# -- ids and lists ----------------------------------------------------------------


def test_game_ids_cannot_be_walked(client: Any, ctx: Any) -> None:
    ids = [new_game(ctx, 2)[0] for _ in range(3)]
    assert all(re.fullmatch(r"[a-z2-9]{14}", i) for i in ids) and len(set(ids)) == 3
    for probe in ("1", "2", "3", str(db_id(ctx, ids[0])), "2147483648", ids[0].upper(), ids[0][:-1]):
        assert client.get(f"/api/v1/games/{probe}").status_code == 404
        assert client.get(f"/games/{probe}").status_code == 404
    assert client.get(f"/api/v1/games/{ids[0]}").json["game"] == ids[0]


def test_my_games_are_listed_a_page_at_a_time(client: Any, ctx: Any) -> None:
    ctx.limit = lambda name, keys: None  # 23 games for Ann in a minute: not what this is about
    for _ in range(23):
        new_game(ctx, 2, start=False)
    ask_for_link(client, ctx, "ann@example.org")
    path = link_in(caught(ctx, kind="login")[-1])
    client.post(path, data={"csrf_token": csrf_from(client.get(path).get_data(as_text=True))})
    first = client.get("/games").get_data(as_text=True)
    second = client.get("/games?page=2").get_data(as_text=True)
    one, two = re.findall(r'data-game="(\w+)"', first), re.findall(r'data-game="(\w+)"', second)
    assert len(one) == 20 and len(two) == 3 and not set(one) & set(two)
    assert 'rel="next"' in first and 'rel="prev"' in second and 'rel="next"' not in second
    assert "No more games" in client.get("/games?page=9").get_data(as_text=True)
    assert client.get("/games?page=x").status_code == 200


def test_the_mailbox_is_not_there_on_a_public_address(client: Any) -> None:
    assert client.get("/mailbox/").status_code == 404


def test_clans_do_not_follow_the_stored_seed(ctx: Any, monkeypatch: Any) -> None:
    """Games whose stored seed (and so public set-up) is the same are dealt
    clans independently."""
    monkeypatch.setattr(starting.secrets, "randbits", lambda bits: 4242)
    ctx.limit = lambda name, keys: None  # ten games for the same players in a moment
    deals = set()
    setups = set()
    for _ in range(10):
        game_id, toks = new_game(ctx, 2)
        setups.add(str(games.public_game(ctx, game_id)["huts"]))
        deals.add(tuple(games.seat_view(ctx, t)["clan"] for t in toks))
        with session_scope(ctx.engine) as session:
            assert session.exec(select(Game.seed).where(Game.public_id == game_id)).one() == 4242
    assert len(setups) == 1
    # 20 ordered pairs of clans: ten equal deals from an independent draw would be a 20**-9 chance.
    assert len(deals) > 1
    with ctx.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM game")).scalar() == 10
