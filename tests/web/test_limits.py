"""The rate limiter's guards, each by what a client sees (status codes), so
that removing one fails a test: a limit store that is down does not open the
door, "never email me again" and games started signed in are limited, an
IPv4 client is one client whether it comes as IPv4 or IPv4-mapped IPv6,
X-Forwarded-For counts only behind a trusted proxy, and the windows hold on the
real Redis store, shared by every process, as well as in memory; Flask-Limiter's
per-request hooks run only when a limit on every request is set."""

from __future__ import annotations

import re
import socket
import time
import uuid
from typing import Any, Iterator

import pytest

from pbem import games
from pbem.core.errors import RateLimited
from tests.support.config import app_config
from tests.support.messages import caught
from tests.support.web import csrf_from, csrf_token


@pytest.fixture
def make_app(sqlite_url: str) -> Iterator[Any]:
    """Apps on the session's SQLite database with the given settings (what is
    counted here is not stored there: games pile up harmlessly)."""
    from pbem.web import create_app

    made: list[Any] = []

    def make(**config: Any) -> Any:
        app = create_app(app_config(sqlite_url, **config))
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["pbem"].engine.dispose()


def _client_ip() -> str:
    """An address no earlier run has counted in the shared Redis store."""
    n = uuid.uuid4().int
    return f"10.{n % 250 + 1}.{n // 250 % 250 + 1}.{n // 62500 % 250 + 1}"


def start(client: Any, ip: str | None = None, **headers: str) -> int:
    n = uuid.uuid4().hex[:8]
    body = {"players": [{"name": "Ann", "email": f"a{n}@example.org"}, {"name": "Bob", "email": f"b{n}@example.org"}]}
    environ = {"REMOTE_ADDR": ip} if ip else {}
    response = client.post("/api/v1/games", json=body, environ_base=environ, headers=headers)
    if response.status_code == 429:
        assert response.json["error"]["code"] == "rate-limited" and int(response.headers["Retry-After"]) >= 1
    return int(response.status_code)


def _closed_port() -> int:
    """A local port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- the store is down -------------------------------------------------------------------


def test_when_the_limit_store_is_down_each_process_still_counts(make_app: Any, caplog: Any) -> None:
    """Never unlimited: with Redis unreachable the process counts on its own
    (LIMIT_NEW_GAMES: 5 per minute) and says so in the log."""
    app = make_app(RATELIMIT_STORAGE_URL=f"redis://127.0.0.1:{_closed_port()}/0")
    client = app.test_client()
    codes = [start(client, "198.51.100.20") for _ in range(7)]
    assert codes == [201] * 5 + [429] * 2
    assert "limit store unreachable" in caplog.text
    # Still per client, not one count for everybody.
    assert start(client, "198.51.100.21") == 201


# -- the limits without a test of their own ------------------------------------------------


def test_never_email_me_again_is_limited_per_client(make_app: Any) -> None:
    """Each press costs a token look-up (a way to probe tokens): LIMIT_NEVER per
    IP, counted before the token is checked, bad tokens too."""
    app = make_app(LIMIT_NEVER="2 per hour")
    client = app.test_client()
    form = {"csrf_token": csrf_token(client)}
    codes = [client.post(f"/never/{'x' * 43}", data=form, environ_base={"REMOTE_ADDR": "198.51.100.30"}).status_code
             for _ in range(3)]
    assert codes == [401, 401, 429]
    # A real token from another client still works.
    ctx = app.extensions["pbem"]
    n = uuid.uuid4().hex[:8]
    game_id = games.start_game(ctx, games.parse_players([{"name": "Ann", "email": f"a{n}@example.org"},
                                                               {"name": "Bob", "email": f"b{n}@example.org"}]))
    invite = caught(ctx, recipient=f"a{n}@example.org")[-1]
    path = re.search(r"https://clans\.example(/never/\S+)",  # type: ignore[union-attr]
                     invite.get_body(preferencelist=("plain",)).get_content()).group(1)
    other = client.post(path, data={"csrf_token": csrf_from(client.get(path).get_data(as_text=True))},
                        environ_base={"REMOTE_ADDR": "198.51.100.31"})
    assert other.status_code == 200 and game_id


def test_games_a_signed_in_player_starts_are_limited_per_player(make_app: Any) -> None:
    """Starting signed in invites everybody at once: LIMIT_CONFIRMED_GAMES per
    creator; a refused start creates nothing and mails nobody."""
    ctx = make_app(LIMIT_CONFIRMED_GAMES="2 per day").extensions["pbem"]
    n = uuid.uuid4().hex[:8]
    creator, friend = f"c{n}@example.org", f"f{n}@example.org"

    def players(first: str) -> Any:
        return games.parse_players([{"name": "Cre", "email": first}, {"name": "Fri", "email": friend}])

    games.start_game(ctx, players(creator), confirmed=True)
    games.start_game(ctx, players(creator), confirmed=True)
    with pytest.raises(RateLimited):
        games.start_game(ctx, players(creator), confirmed=True)
    assert len(caught(ctx, recipient=friend, kind="invite")) == 2
    # Another player's games are counted apart.
    games.start_game(ctx, players(f"d{n}@example.org"), confirmed=True)
    assert len(caught(ctx, recipient=friend, kind="invite")) == 3


# -- who the client is -----------------------------------------------------------------------


def test_an_ipv4_client_is_one_client_as_ipv4_or_ipv4_mapped_ipv6(make_app: Any) -> None:
    client = make_app().test_client()
    codes = [start(client, "::ffff:198.51.100.40") for _ in range(3)] + [start(client, "198.51.100.40")
                                                                          for _ in range(3)]
    assert codes == [201] * 5 + [429]
    # ... and mapped addresses are not one /64 of IPv6: each IPv4 client is its own.
    assert [start(client, f"::ffff:198.51.100.{50 + n}") for n in range(7)] == [201] * 7


def test_x_forwarded_for_is_ignored_without_a_trusted_proxy(make_app: Any) -> None:
    """Anyone can write the header: without PBEM_TRUSTED_PROXIES a client that
    names another address each time is still one client."""
    client = make_app().test_client()
    codes = [start(client, "198.51.100.60", **{"X-Forwarded-For": f"203.0.113.{n}"}) for n in range(7)]
    assert codes == [201] * 5 + [429] * 2


def test_behind_a_trusted_proxy_the_forwarded_client_is_counted(make_app: Any) -> None:
    """With one trusted proxy the clients it forwards are counted apart (the
    proxy's own address is everybody's), by the address the proxy added: what a
    client wrote before it changes nothing."""
    client = make_app(TRUSTED_PROXIES=1).test_client()
    proxy = "192.0.2.1"
    assert [start(client, proxy, **{"X-Forwarded-For": f"203.0.113.{n}"}) for n in range(7)] == [201] * 7
    real = "203.0.113.100"
    codes = [start(client, proxy, **{"X-Forwarded-For": f"198.51.100.{n}, {real}"}) for n in range(7)]
    assert codes == [201] * 5 + [429] * 2


# -- the windows on Redis ----------------------------------------------------------------------


def test_on_redis_every_process_shares_the_count(make_app: Any, redis_url: str) -> None:
    """Two apps (two processes' worth of limiter) on one Redis: the client's
    five starts a minute are five in all, not five each."""
    apps = [make_app(RATELIMIT_STORAGE_URL=redis_url) for _ in range(2)]
    clients = [a.test_client() for a in apps]
    ip = _client_ip()
    codes = [start(clients[n % 2], ip) for n in range(8)]
    assert codes == [201] * 5 + [429] * 3


def test_on_redis_a_window_ends_and_the_client_may_start_again(make_app: Any, redis_url: str) -> None:
    client = make_app(RATELIMIT_STORAGE_URL=redis_url, LIMIT_NEW_GAMES="2 per 2 seconds").test_client()
    ip = _client_ip()
    assert [start(client, ip) for _ in range(3)] == [201, 201, 429]
    # Wait for what the client sees: the window's end lets it in again.
    deadline = time.monotonic() + 15
    while (code := start(client, ip)) == 429:
        assert time.monotonic() < deadline, "the window never ended"
        time.sleep(0.2)
    assert code == 201


# -- Flask-Limiter's own limits, on every request --------------------------------------------


def _limiter_hooks(app: Any) -> list[Any]:
    """Flask-Limiter's hooks on every request of ``app`` (a bound method of the
    limiter, or a partial over it)."""
    limiter = app.extensions["pbem_limits"].extension
    hooks = [*app.before_request_funcs.get(None, []), *app.after_request_funcs.get(None, []),
             *app.teardown_request_funcs.get(None, [])]
    return [h for h in hooks if getattr(h, "__self__", None) is limiter or limiter in getattr(h, "args", ())]


def test_without_a_limit_on_every_request_no_request_runs_the_limiters_hooks(make_app: Any) -> None:
    """The service's limits are counted where they apply: with no default limit
    set, no request pays for Flask-Limiter's hooks, and those limits still hold."""
    app = make_app()
    assert _limiter_hooks(app) == []
    assert [start(app.test_client(), "198.51.100.70") for _ in range(6)] == [201] * 5 + [429]


def test_a_default_limit_still_counts_every_request(make_app: Any) -> None:
    """A deployment that sets Flask-Limiter's default limit gets it: every page
    counted, the health probes not."""
    app = make_app(RATELIMIT_DEFAULT="2 per minute")
    assert len(_limiter_hooks(app)) == 3
    client = app.test_client()
    environ = {"REMOTE_ADDR": "198.51.100.71"}
    assert [client.get("/", environ_base=environ).status_code for _ in range(3)] == [200, 200, 429]
    assert client.get("/healthz", environ_base=environ).status_code == 200
