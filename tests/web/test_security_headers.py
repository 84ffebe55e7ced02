"""Every response carries the security headers (pbem/web/security.py), the ones
that show a seat, a token or a clan are never stored, and no address, however
hostile, is answered with a 500."""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator
from urllib.parse import unquote

import pytest
from werkzeug.routing import Rule

from pbem import games
from pbem.web.security import CSP, HSTS
from tests.support.config import app_config
from tests.support.games import new_game
from tests.support.messages import caught
from tests.support.web import csrf_token

LOCAL = "http://127.0.0.1:5000"
NO_STORE = "private, no-store"


@pytest.fixture
def make_app(database_url: str) -> Iterator[Callable[..., Any]]:
    """Apps on the test database with other settings (BASE_URL, MAILBOX)."""
    from pbem.web import create_app

    made = []

    def make(**extra: Any) -> Any:
        app = create_app(app_config(database_url, **extra))
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["pbem"].engine.dispose()


@pytest.fixture
def mailbox_app(make_app: Callable[..., Any]) -> Any:
    """The mailbox exists only on a loopback base URL."""
    return make_app(BASE_URL=LOCAL, MAILBOX=True)


def assert_headers(response: Any, *, private: bool, token_in_url: bool = False,
                   csp: str = CSP) -> None:
    """The headers every response has, and no-store exactly where asked for."""
    h = response.headers
    assert h.get("Content-Security-Policy") == csp, h
    assert h.get("X-Content-Type-Options") == "nosniff", h
    assert h.get("Referrer-Policy") == ("no-referrer" if token_in_url else "same-origin"), h
    if private:
        assert h.get("Cache-Control") == NO_STORE, h
        assert h.get("X-Robots-Tag") == "noindex, nofollow", h
    else:
        assert "no-store" not in h.get("Cache-Control", ""), h
        assert "X-Robots-Tag" not in h, h


# -- every kind of response ---------------------------------------------------


def test_home_page(client: Any) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert_headers(response, private=False)
    assert "frame-ancestors 'self'" in response.headers["Content-Security-Policy"]


def test_seat_page_and_its_posts(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, start=False)
    response = client.get(f"/play/{toks[0]}")
    assert response.status_code == 200
    assert_headers(response, private=True, token_in_url=True)
    # The answer to a POST (here the redirect after accepting) as well.
    form = {"csrf_token": csrf_token(client, f"/play/{toks[0]}")}
    response = client.post(f"/play/{toks[0]}/accept", data=form)
    assert response.status_code == 303
    assert_headers(response, private=True, token_in_url=True)
    # A bad token's 401 page too, and a 404 below a seat address.
    for url, status in ((f"/play/{toks[0][:-1]}", 401), (f"/play/{toks[0]}/nothing-here", 404)):
        response = client.get(url)
        assert response.status_code == status, url
        assert_headers(response, private=True, token_in_url=True)


def test_never_mail_links_whatever_answers_them(client: Any, ctx: Any) -> None:
    """``/never/<token>`` (the "never email me again" link) holds a token
    whether or not its page exists yet in this version."""
    game_id, toks = new_game(ctx, start=False)
    response = client.get(f"/never/{toks[0]}")
    assert response.status_code < 500
    assert_headers(response, private=True, token_in_url=True)


def test_public_game_page_may_be_cached(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    response = client.get(f"/games/{game_id}")
    assert response.status_code == 200
    assert_headers(response, private=False)


def test_api_game(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    for url in (f"/api/v1/games/{game_id}", "/api/v1/openapi.json"):
        response = client.get(url)
        assert response.status_code == 200 and response.is_json
        assert_headers(response, private=False)


def test_api_seat_with_a_bearer_token(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    response = client.get("/api/v1/seat", headers={"Authorization": f"Bearer {toks[0]}"})
    assert response.status_code == 200 and response.json["clan"]
    # The token is in a header, not the address: the usual Referrer-Policy.
    assert_headers(response, private=True)
    response = client.post("/api/v1/seat/mail", json={"mail": "digest"},
                           headers={"Authorization": f"Bearer {toks[0]}"})
    assert response.status_code == 200
    assert_headers(response, private=True)


def test_api_errors(client: Any, ctx: Any) -> None:
    response = client.get("/api/v1/seat")
    assert response.status_code == 401 and response.json["error"]["code"] == "unauthorized"
    assert_headers(response, private=True)
    response = client.get("/api/v1/games/abcdefghijkmnp")
    assert response.status_code == 404 and response.is_json
    assert_headers(response, private=False)
    response = client.post("/api/v1/games", data=b"x" * (ctx.config["MAX_CONTENT_LENGTH"] + 1),
                           content_type="application/json")
    assert response.status_code == 413 and response.is_json
    assert_headers(response, private=False)


def test_not_found_and_method_not_allowed(client: Any) -> None:
    response = client.get("/no/such/page")
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert_headers(response, private=False)
    response = client.get("/logout")
    assert response.status_code == 405
    assert_headers(response, private=False)
    response = client.get("/api/v1/seat/accept")
    assert response.status_code == 405 and response.is_json
    assert_headers(response, private=True)


def test_a_forged_form_is_refused_with_the_headers(client: Any) -> None:
    response = client.post("/login", data={"email": "ann@example.org"})
    assert response.status_code == 400
    assert_headers(response, private=True)


def test_unexpected_error_page(make_app: Callable[..., Any]) -> None:
    app = make_app()

    @app.get("/boom")
    def boom() -> Any:
        raise RuntimeError("a bug")

    response = app.test_client().get("/boom")
    assert response.status_code == 500 and b"a bug" not in response.data
    assert_headers(response, private=False)


def test_static_file(client: Any) -> None:
    response = client.get("/static/style.css")
    assert response.status_code == 200
    assert_headers(response, private=False)


def test_unsubscribe(client: Any, app: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    for method in (client.get, client.head):
        response = method(f"/unsubscribe/{toks[0]}")
        assert response.status_code == 200
        assert_headers(response, private=True, token_in_url=True)
    one_click = app.test_client().post(f"/unsubscribe/{toks[0]}", data="List-Unsubscribe=One-Click",
                                       content_type="application/x-www-form-urlencoded")
    assert one_click.status_code == 200 and one_click.mimetype == "text/plain"
    assert_headers(one_click, private=True, token_in_url=True)


def test_login_signin_and_the_games_list(client: Any, ctx: Any) -> None:
    new_game(ctx, start=False)
    response = client.get("/login")
    assert response.status_code == 200
    assert_headers(response, private=True)
    response = client.post("/login", data={"csrf_token": csrf_token(client, "/login"),
                                           "email": "ann@example.org"})
    assert response.status_code == 200
    assert_headers(response, private=True)
    text = caught(ctx, kind="login")[0].get_body(preferencelist=("plain",)).get_content()
    link = re.search(r"https://clans\.example(/signin/\S+)", text)
    assert link, text
    response = client.get(link.group(1))
    assert response.status_code == 200
    assert_headers(response, private=True, token_in_url=True)
    response = client.post(link.group(1), data={"csrf_token": csrf_token(client, link.group(1))})
    assert response.status_code == 303
    assert_headers(response, private=True, token_in_url=True)
    for url in ("/games", "/games?page=2"):
        response = client.get(url)
        assert response.status_code == 200
        assert "ann@example.org" in response.get_data(as_text=True)
        assert_headers(response, private=True)


def test_mailbox(mailbox_app: Any) -> None:
    ctx = mailbox_app.extensions["pbem"]
    client = mailbox_app.test_client()
    new_game(ctx, start=True)
    ids = [int(i) for i in re.findall(r'href="/mailbox/(\d+)"', client.get("/mailbox/").get_data(as_text=True))]
    mail_id = max(ids)
    for url, status in (("/mailbox/", 200), (f"/mailbox/{mail_id}", 200), ("/mailbox/0", 404), ("/mailbox", 308)):
        response = client.get(url)
        assert response.status_code == status, (url, response.status_code)
        assert_headers(response, private=True)
    pictures = [client.get(f"/mailbox/{i}/board.png") for i in ids]
    assert any(p.status_code == 200 and p.mimetype == "image/png" for p in pictures)
    for response in pictures:
        assert_headers(response, private=True)
    # The mail's own HTML keeps its stricter policy; the rest is added.
    response = client.get(f"/mailbox/{mail_id}/html")
    assert response.status_code == 200
    assert response.headers["Content-Security-Policy"] == (
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'")
    assert_headers(response, private=True, csp=response.headers["Content-Security-Policy"])


# -- https --------------------------------------------------------------------


def test_https_site_sends_hsts_and_a_secure_samesite_session_cookie(client: Any, ctx: Any) -> None:
    assert ctx.config["BASE_URL"].startswith("https://")
    for url in ("/", "/no/such/page", "/static/app.js", "/api/v1/seat"):
        assert client.get(url).headers.get("Strict-Transport-Security") == HSTS, url
    client.delete_cookie("session")
    cookie = session_cookie(client.get("/"))  # the form puts a CSRF token in the session
    assert {"Secure", "HttpOnly", "SameSite=Lax"} <= cookie


def test_plain_http_site_sends_neither(make_app: Callable[..., Any]) -> None:
    client = make_app(BASE_URL=LOCAL).test_client()
    response = client.get("/")
    assert "Strict-Transport-Security" not in response.headers
    cookie = session_cookie(response)
    assert {"HttpOnly", "SameSite=Lax"} <= cookie and "Secure" not in cookie


def session_cookie(response: Any) -> set[str]:
    """The attributes of the session cookie a response sets."""
    cookies = [c for c in response.headers.getlist("Set-Cookie") if c.startswith("session=")]
    assert len(cookies) == 1, response.headers
    return {part.strip() for part in cookies[0].split(";")[1:]}


# -- hostile addresses -------------------------------------------------------

HOSTILE = [
    "2147483648",                 # PostgreSQL's integer + 1
    "9223372036854775808",        # SQLite's integer + 1
    "9" * 5000,                   # more digits than Python converts by default
    "-1",
    "0",
    "x" * 20_000,                 # a very long segment (and a form over the size limit)
    "A" * 43,                     # a well-formed token of no seat
    "abcdefghijkmnp",             # a well-formed public id of no game
    "{token}%00",                 # a real token, then NUL
    "%00",
    "ann%00@example.org",         # NUL in an address that is otherwise fine
    "{token}\u00fc",              # a real token, then a non-ASCII letter
    "\u00fc" * 43,
    "\U0001f600",
    "%ff%fe",                     # not UTF-8
    "%ed%a0%80",                  # an encoded lone surrogate
    "..%2f..%2fetc%2fpasswd",
    "{token}/..",
    "{game}%20",
    "<script>alert(1)</script>",
    "%25%32%65",
    " ",
]


def _url(rule: Rule, value: str) -> str:
    return re.sub(r"<[^>]+>", lambda _: value, rule.rule)


def _hostile_id(value: str) -> str:
    return repr(value[:24]) + (f"…{len(value)}" if len(value) > 24 else "")


@pytest.mark.parametrize("value", HOSTILE, ids=_hostile_id)
def test_hostile_route_parameters_are_never_a_500(mailbox_app: Any, value: str) -> None:
    """Every route (read from the app, so new ones are tried too) with every
    method it has: the value in each route parameter, in every form field (with
    a valid form token) and in the API's JSON bodies and bearer token, on SQLite
    and PostgreSQL.  A route with a parameter answers 4xx; none answers 5xx, and
    every answer has its headers."""
    ctx = mailbox_app.extensions["pbem"]
    game_id, toks = new_game(ctx)
    value = value.format(token=toks[0], game=game_id)
    client = mailbox_app.test_client()
    plain = unquote(value)
    form = {"csrf_token": csrf_token(client), "move": plain, "order": plain, "ply": plain, "mail": plain,
            "days": plain, "email": plain, "name0": plain, "email0": plain, "turn_hours": plain}
    body = {"players": [{"name": plain, "email": plain}] * 2, "turn_hours": plain, "move": plain,
            "order": [plain], "ply": plain, "mail": plain, "days": plain}
    # A header carries bytes: what a server hands on for these (NUL cannot be sent).
    bearer = plain.replace("\x00", "").encode().decode("latin-1")
    wrong = []
    for rule in mailbox_app.url_map.iter_rules():
        url = _url(rule, value)
        for method in sorted(rule.methods - {"OPTIONS"}):
            if rule.endpoint.startswith("api."):
                asked = [dict(json=body, headers={"Authorization": f"Bearer {bearer}"}),
                         dict(json=body, headers={"Authorization": f"Bearer {toks[1]}"})]
            else:
                asked = [dict(data=form)]
            for kwargs in asked:
                response = client.open(url, method=method, **kwargs)
                status = response.status_code
                if status >= 500 or rule.arguments and not 400 <= status < 500:
                    wrong.append((method, url[:80], status))
                assert response.headers.get("X-Content-Type-Options") == "nosniff", url[:80]
                assert response.headers.get("Content-Security-Policy"), url[:80]
    assert not wrong


HOSTILE_JSON = [10**30, 2**31, 2**63, -1, 1e308, True, None, [], {}, "9" * 5000,
                "\x00", "a\x00@example.org", "\ud800", "a\ud800@example.org"]


@pytest.mark.parametrize("value", HOSTILE_JSON, ids=lambda v: repr(v)[:20])
def test_hostile_json_values_are_never_a_500(client: Any, ctx: Any, value: Any) -> None:
    """Numbers out of every range, wrong types, NUL and lone surrogates in the
    API's bodies: never a 500, and the seat's game is unchanged."""
    game_id, toks = new_game(ctx)
    seat = {"Authorization": f"Bearer {toks[0]}"}
    ann, bob = {"name": "Ann", "email": "a@example.org"}, {"name": "Bob", "email": "b@example.org"}
    asked = [
        ("/api/v1/games", {"players": [{**ann, "email": value}, bob]}),
        ("/api/v1/games", {"players": [{**ann, "name": value}, bob]}),
        ("/api/v1/games", {"players": [ann, bob], "turn_hours": value}),
        ("/api/v1/games", {"players": value}),
        ("/api/v1/seat/moves", {"move": value, "ply": 0}),
        ("/api/v1/seat/moves", {"move": "1-2", "order": [value], "ply": value}),
        ("/api/v1/seat/mail", {"mail": value}),
        ("/api/v1/seat/pause", {"days": value}),
        ("/api/v1/seat/pause", {value if isinstance(value, str) else "x": 1}),
    ]
    before = games.public_game(ctx, game_id)
    for url, body in asked:
        response = client.post(url, json=body, headers=seat)
        assert response.status_code < 500 and response.is_json, (url, body, response.status_code)
    assert games.public_game(ctx, game_id) == before


def test_nul_in_any_form_or_query_value_is_a_400(client: Any, ctx: Any) -> None:
    """Also in a repeated field's later values, which ``MultiDict.values()`` skips."""
    new_game(ctx, start=False)  # Ann has a game: a sign-in request would mail her
    form = {"csrf_token": csrf_token(client, "/login"), "email": ["ann@example.org", "a\x00@example.org"]}
    response = client.post("/login", data=form)
    assert response.status_code == 400
    assert_headers(response, private=True)
    assert client.get("/?x=1&x=%00").status_code == 400
    assert not caught(ctx, kind="login")


def test_json_nested_too_deeply_is_a_400(client: Any) -> None:
    for url in ("/api/v1/games", "/api/v1/seat/moves"):
        response = client.post(url, data="[" * 60_000, content_type="application/json")
        assert response.status_code == 400 and response.is_json, response.status_code
