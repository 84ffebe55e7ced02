"""The API is exactly what its document says.

schemathesis reads ``/api/v1/openapi.json`` as the app serves it and runs every
check it has against every operation, in process over WSGI, on SQLite: the
examples, coverage and fuzzing phases with valid and invalid data (undeclared
methods, missing or invalid tokens included), then a stateful run that follows
the document's links, where ``ensure_resource_availability`` looks
(``use_after_free`` and ``object_level_authorization`` run too, with nothing to
find: the API deletes nothing and a seat token opens one seat).  The seat
operations get real seat tokens, the game ids real games and some moves are
legal moves, so that the 200 answers are checked too, not only the refusals.

What the fuzzer does not reach is checked directly: a flood of new games, an
oversized body, and the name and address rules value by value."""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterator

import jsonschema_rs
import pytest
import schemathesis
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from pbem.core import errors
from tests.support.config import app_config
from tests.support.games import new_game, play, seat_tokens
from pbem.table import talk
from tests.support.push import Browser, vapid_key
from pbem import games

# Valid and invalid data for each operation, bounded so that the file runs in seconds.
MAX_EXAMPLES = 30
SETTINGS = settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])
# What positive_data_acceptance counts as accepting valid data by default, and 422.
ACCEPTED = '["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]'
CONFIG = f"""
[generation]
max-examples = {MAX_EXAMPLES}
database = "none"
# Strings of every code point, NUL and lone surrogates included (JSON carries
# them as \\u0000 and \\uD800 escapes; the default codec, UTF-8, leaves the
# surrogates out).  A body holding one anywhere is refused with 422 bad-text, as the
# document says of every operation that reads a body: such a case is held to
# that (see _check), since JSON Schema cannot say it of every string.
codec = "raw-unicode-escape"

# Every check schemathesis has (on by default; said so that it stays so).
[checks]
enabled = true

# Whether a move is legal depends on the position: a move the document calls
# well-formed may still be refused by the rules (422, with record.md's code).
[[operations]]
include-name = "POST /seat/moves"
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

# A lone surrogate cannot be put in a URL (schemathesis itself fails to encode one
# in a query or path parameter, now and then), so the strings of the operations
# with parameters are UTF-8's; text that cannot be stored in a query is the 400 of
# test_text_that_cannot_be_stored, and in a body the 422 bad-text of the others.
[[operations]]
include-name = "GET /lobby"
generation.codec = "utf-8"

[[operations]]
include-name = "GET /lobby/{{id}}"
generation.codec = "utf-8"

[[operations]]
include-name = "POST /seat/talk/{{message_id}}/report"
generation.codec = "utf-8"

[[operations]]
include-name = "GET /games/{{id}}"
generation.codec = "utf-8"

[[operations]]
include-name = "GET /games/{{id}}/record"
generation.codec = "utf-8"

[[operations]]
include-name = "DELETE /seat/webhooks/{{id}}"
generation.codec = "utf-8"

# A player's name has a pattern hypothesis cannot draw from (a look-ahead), so
# schemathesis draws any string and asks its validator, which fails on a lone
# surrogate ("surrogates not allowed": 1 run in 3 at 300 examples).  These bodies
# get their lone surrogates from test_text_that_cannot_be_stored instead.
[[operations]]
include-name = "POST /games"
generation.codec = "utf-8"

# Days are a whole number from 1, but no more than the seat has left in this
# game (its own state, 7 at the start): more is refused with 422 invalid-days.
[[operations]]
include-name = "POST /seat/pause"
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

# A seat is handed to the computer once: after that the same valid request is
# refused (409 computer-seat), as is handing over a player who is not away.
[[operations]]
include-name = "POST /seat/computer"
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

# A push subscription is taken only with a P-256 point for its key and an
# endpoint that resolves to an allowed address (422 otherwise; 409 for a game over).
[[operations]]
include-name = "POST /seat/push"
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

# Whether a webhook's address is taken depends on where its name resolves (422
# for a name that cannot be found or leads to a private address), and a game
# takes five webhooks, a seat a few an hour (409, 429).
[[operations]]
include-name = "POST /seat/webhooks"
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

# Whether a pre-move can still be legal depends on the position (422 with
# record.md's code for one that never can), and on whose turn it is (409 your-turn).
[[operations]]
include-name = "PUT /seat/premoves"
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

# A nudge depends on the game's state and the clock: on your own turn 409, before
# the wait or again within a day 429 nudge-too-soon.
[[operations]]
include-name = "POST /seat/nudge"
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

# A lobby table's open seats go to the first joiners (409 seat-taken, full, already-seated,
# too-many-joins after that), and a name someone at the table has is refused (422 invalid-name).
[[operations]]
include-name = "POST /lobby/{{id}}/join"
generation.codec = "utf-8"  # a path parameter (see GET /lobby)
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

# Quick match: one request waits per address (409 already-waiting), and an address
# holds three unconfirmed joins and requests (409 too-many-joins).
[[operations]]
include-name = "POST /lobby/quick"
generation.codec = "utf-8"  # a player's name (see POST /games)
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

# Substitutes: whether a seat waits for one depends on the game (409 no-substitute-seat).
[[operations]]
include-name = "POST /lobby/{{id}}/substitute"
generation.codec = "utf-8"  # a path parameter (see GET /lobby)
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

# Blocking: a seat the document allows may not be in this game (422
# invalid-seat) or be the caller's own (409 own-seat).
[[operations]]
include-name = "POST /seat/block"
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

[[operations]]
include-name = "DELETE /seat/block/{{seat}}"
generation.codec = "utf-8"  # a path parameter (see GET /lobby)
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}

# Practice starts from the position the client saw: another ply is refused
# (409 stale), and a seat's address starts a few practice games an hour (429).
[[operations]]
include-name = "POST /seat/practice"
checks.positive_data_acceptance.expected-statuses = {ACCEPTED}
"""

# What the seat token provider answers before the test database exists (the
# examples are built when the tests are collected); replaced when they run.
PENDING = "pending-seat-token"


@dataclass
class World:
    app: Any
    ctx: Any
    invited: list[str]  # the seat tokens of a game nobody has accepted yet
    started: list[str]  # ... of a dealt game, some moves in
    game_ids: list[str]  # games that exist: one invited, one started, a lobby table
    handed: list[str]  # ... of a dealt four-player game whose seats go to the computer
    messages: list[int]  # table messages of the started game, written by another seat than the caller's

    def to_move(self) -> tuple[str, dict[str, Any]]:
        """The token and view of the seat to move in the started game (any seat
        once the game is over: the moves fuzzed into it may finish it)."""
        views = [(token, games.seat_view(self.ctx, token)) for token in self.started]
        return next(((t, v) for t, v in views if v["your_turn"]), views[0])

    def token_for(self, path: str) -> str:
        """An invited seat accepts, the seat to move moves, another seat of the
        started game does the rest."""
        if path == "/seat/accept":
            return self.invited[0]
        if path == "/seat/moves":
            return self.to_move()[0]
        if path == "/seat/computer":
            return self.handed[0]
        if path == "/seat/premoves":
            # A seat whose turn it is not: pre-moves are for the others' turns.
            mover = self.to_move()[0]
            return next(t for t in self.started if t != mover)
        return self.started[1]


def _document_app() -> Any:
    """An app that only serves the document, read when the tests are collected;
    the requests go to the ``world`` fixture's app, on the test database."""
    from pbem.web import create_app

    return create_app(app_config("sqlite://"))


schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", _document_app(),
                                        config=schemathesis.Config.from_str(CONFIG))


@schema.auth(refresh_interval=None, retry_on=[])
class SeatToken:
    world: World | None = None

    def get(self, case: Any, context: Any) -> str:
        return PENDING if SeatToken.world is None else SeatToken.world.token_for(case.operation.path)

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@pytest.fixture(scope="module")
def world(sqlite_url: str) -> Iterator[World]:
    from pbem.web import create_app

    # Limits high enough that valid data is never refused for its number; the
    # document still says what a client that floods gets (429, Retry-After).
    # Push is on (a VAPID key), its subscriptions' endpoints may be this machine.
    app = create_app(app_config(sqlite_url, LIMIT_NEW_GAMES="10000 per minute", LIMIT_INVITES="10000 per day",
                                LIMIT_JOINS="10000 per day", LIMIT_JOINS_IP="10000 per day",
                                VAPID_PRIVATE_KEY=vapid_key(), WEBHOOK_ALLOW="127.0.0.1"))
    ctx = app.extensions["pbem"]
    invited_id, invited = new_game(ctx, start=False)
    # A lobby table with three open seats, confirmed: the lobby's operations find it.
    table_id = games.start_game(ctx, games.parse_players([{"name": "Hana", "email": "hana@example.org"}]
                                                         + [{"open": True}] * 3))
    games.accept(ctx, seat_tokens(ctx, table_id)[0])
    started_id, started = new_game(ctx)
    play(ctx, started, 3)
    _, handed = new_game(ctx, 4)
    # Messages to report and block by, written by the seat that does not call the API.
    for text in ("well played", "good luck"):
        talk.talk(ctx, started[0], text)
    messages = [m["id"] for m in talk.table(ctx, started[0]).messages]
    SeatToken.world = World(app, ctx, invited, started, [invited_id, started_id, table_id], handed, messages)
    yield SeatToken.world
    SeatToken.world = None
    ctx.engine.dispose()


_turns = itertools.count()  # Hypothesis fixes `random` for each example: take turns instead


def _prepare(case: Any, world: World, *, game_ids: bool = True) -> None:
    """The real token for examples built at collection, and for two valid
    requests in three a real game (unless the id comes from a link) or a legal
    move: random ones find only 404s and refusals."""
    if (case.headers or {}).get("Authorization") == f"Bearer {PENDING}":
        case.headers["Authorization"] = f"Bearer {world.token_for(case.operation.path)}"
    turn = next(_turns)
    if not _positive(case) or turn % 3 == 0:
        return
    if "id" in (case.path_parameters or {}):
        if game_ids:
            case.path_parameters["id"] = world.game_ids[turn % len(world.game_ids)]
    elif "message_id" in (case.path_parameters or {}):
        case.path_parameters["message_id"] = world.messages[turn % len(world.messages)]
    elif case.operation.path == "/seat/block" and isinstance(case.body, dict) and "message" in case.body:
        case.body = {"message": world.messages[turn % len(world.messages)]}
    elif case.operation.path == "/seat/push" and case.method.upper() == "POST" and isinstance(case.body, dict):
        # A real browser's subscription: random keys are no points of the curve.
        case.body = Browser("https://127.0.0.1:8443/push").subscription()
    elif case.operation.path == "/seat/moves" and isinstance(case.body, dict):
        _, view = world.to_move()
        if view["legal_moves"]:
            case.body = {"move": view["legal_moves"][turn % len(view["legal_moves"])], "ply": view["ply"]}
    elif case.operation.path == "/seat/premoves" and isinstance(case.body, dict):
        # Moves legal now (so they may be legal when the turn comes): the list is taken.
        _, view = world.to_move()
        legal = view["legal_moves"]
        if legal:
            case.body = {"moves": [legal[(turn + i) % len(legal)] for i in range(min(3, len(legal)))]}
    elif case.operation.path == "/seat/practice" and isinstance(case.body, dict):
        # The position the seat sees now: another is refused as stale.
        case.body = {"level": games.LEVELS[turn % len(games.LEVELS)],
                     "ply": games.seat_view(world.ctx, world.started[1])["ply"]}


def _positive(case: Any) -> bool:
    return case.meta is not None and case.meta.generation.mode == schemathesis.GenerationMode.POSITIVE


def _same_players(case: Any) -> bool:
    """Whether a new game names a player or an address twice: JSON Schema
    cannot say "the names differ, ignoring case" (uniqueItems compares whole
    players), so for such a body the document's 422 is checked instead."""
    players = case.body.get("players") if isinstance(case.body, dict) else None
    if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
        return False
    # The computer's names are made up; an open seat has none yet.
    players = [p for p in players if p.get("bot") is None and p.get("open") is not True]
    names = [" ".join(unicodedata.normalize("NFC", str(p.get("name"))).split()).lower() for p in players]
    emails = [str(p.get("email")).strip().lower() for p in players]
    return len(set(names)) < len(names) or len(set(emails)) < len(emails)


def _short_clock(case: Any) -> bool:
    """Whether a new game's clock holds fewer days at most than it starts with:
    JSON Schema cannot compare two of an object's numbers, so for such a body
    the document's 422 is checked instead."""
    clock = case.body.get("clock") if isinstance(case.body, dict) else None
    if not isinstance(clock, dict):
        return False
    days, most = clock.get("days"), clock.get("max_days")
    # A whole number may come as 25.0: JSON has one kind of number (the API reads it as 25).
    numbers = all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in (days, most))
    return numbers and most < days  # type: ignore[operator]


def _texts(value: Any) -> Iterator[Any]:
    """Every key and value of a JSON document."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    else:
        yield value


def _bad_text(case: Any) -> bool:
    """Whether the case's body holds NUL or a lone surrogate anywhere."""
    return case.method.upper() != "GET" and any(
        isinstance(t, str) and re.search("[\x00\ud800-\udfff]", t) for t in _texts(case.body))


def _excluded(case: Any) -> list[Any]:
    """The checks one case is not held to (see the reasons above)."""
    if _positive(case) and (_bad_text(case) or case.operation.path == "/games"
                            and (_same_players(case) or _short_clock(case))):
        return [positive_data_acceptance]
    return []


def _check(case: Any, response: Any) -> None:
    """What the checks left out are replaced with."""
    if _bad_text(case):
        assert response.status_code == 422 and response.json()["error"]["code"] == "bad-text", response.text
    elif case.operation.path == "/games" and _positive(case) and _same_players(case):
        assert response.status_code == 422 and response.json()["error"]["code"] == "invalid-players"
    elif case.operation.path == "/games" and _positive(case) and _short_clock(case):
        assert response.status_code == 422 and response.json()["error"]["code"] == "invalid-clock"


@schema.parametrize()
@SETTINGS
def test_every_operation_is_what_the_document_says(case: Any, world: World) -> None:
    _prepare(case, world)
    response = case.call_and_validate(app=world.app, excluded_checks=_excluded(case))
    _check(case, response)


def test_the_links_lead_where_the_document_says(world: World) -> None:
    class Links(schema.as_state_machine()):  # type: ignore[misc]
        def before_call(self, case: Any) -> None:
            _prepare(case, world, game_ids=False)

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"app": world.app}

        def validate_response(self, response: Any, case: Any, additional_checks: Any = None,
                              **kwargs: Any) -> None:
            case.validate_response(response, additional_checks=additional_checks, excluded_checks=_excluded(case),
                                   transport_kwargs=kwargs or None, recorder=self.recorder)
            _check(case, response)

    Links.run(settings=settings(max_examples=10, stateful_step_count=6, deadline=None, database=None,
                                suppress_health_check=list(HealthCheck)))



# -- what the fuzzer does not reach: floods and oversized bodies ----------------------

# The checks that hold for any answer, whatever the request was.
ANSWER_CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
                 response_headers_conformance, response_schema_conformance]


def test_a_flood_of_new_games_gets_what_the_document_says(world: World) -> None:
    from pbem.web import create_app

    app = create_app(app_config(world.ctx.config["DATABASE_URL"], LIMIT_NEW_GAMES="1 per minute"))
    case = schema["/games"]["POST"].Case(body={"players": [{"name": "Flo", "email": "flo@example.org"},
                                                           {"name": "Od", "email": "od@example.org"}]})
    try:
        first, second = case.call(app=app), case.call(app=app)
    finally:
        app.extensions["pbem"].engine.dispose()
    assert first.status_code == 201 and second.status_code == 429
    case.validate_response(second, checks=ANSWER_CHECKS)


def test_a_clocked_game_gets_what_the_document_says(world: World) -> None:
    """The start body's time options (which the fuzzer may or may not draw), a
    valid clock and a refused one, each answered as the document says."""
    players = [{"name": "Cleo", "email": "cleo@example.org"}, {"name": "Dan", "email": "dan@example.org"}]
    for body, status in (({"clock": {"days": 2, "increment_hours": 6, "max_days": 4}, "weekends_off": True,
                           "vacation": "off"}, 201),
                         ({"clock": {"days": 2, "max_days": 1}}, 422), ({"clock": {"days": 0}}, 422)):
        case = schema["/games"]["POST"].Case(body={"players": players, **body})
        response = case.call(app=world.app)
        assert response.status_code == status, response.text
        case.validate_response(response, checks=ANSWER_CHECKS)
        if status == 201:
            assert response.json()["clock"] == body["clock"]
            assert [p["bank_hours"] for p in response.json()["players"]] == [48.0, 48.0]


def test_the_start_body_describes_the_time_options() -> None:
    new_game = schema.raw_schema["components"]["schemas"]["NewGame"]["properties"]
    assert {"clock", "weekends_off", "vacation"} <= set(new_game)
    player = schema.raw_schema["components"]["schemas"]["View"]["properties"]["players"]["items"]
    assert "bank_hours" in player["properties"] and "bank_hours" in player["required"]


@pytest.mark.parametrize("path", ["/games", "/seat/moves", "/seat/pause", "/seat/mail", "/seat/practice"])
def test_an_oversized_body_gets_what_the_document_says(world: World, path: str) -> None:
    case = schema[path]["POST"].Case(body={"padding": "x" * 70_000},
                                     headers={"Authorization": f"Bearer {world.started[1]}"})
    response = case.call(app=world.app)
    assert response.status_code == 413
    case.validate_response(response, checks=ANSWER_CHECKS)

# Valid bodies of every operation that reads one, to which a bad text is added.
_VALID_BODIES = {
    "/games": {"players": [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]},
    "/seat/moves": {"move": "1-2", "ply": 0},
    "/seat/pause": {"days": 1},
    "/seat/mail": {"mail": "every"},
    "/seat/style": {"style": "standard"},
    "/seat/webhooks": {"kind": "json", "url": "https://hooks.example.org/clans"},
    "/seat/discord": {"discord_id": None},
    "/seat/computer": {"bot": "easy"},
    "/seat/block": {"seat": 0},
    "/seat/practice": {"level": "easy"},
    "/lobby/quick": {"name": "Cyd", "email": "cyd@example.org", "players": [2]},
}


@pytest.mark.parametrize("path", sorted(_VALID_BODIES))
@pytest.mark.parametrize("where", ["value", "key", "deep"])
@pytest.mark.parametrize("bad", ["\ud800", "a\udfffb", "\x00"], ids=["high", "low", "nul"])
def test_text_that_cannot_be_stored_gets_what_the_document_says(world: World, path: str, where: str,
                                                                 bad: str) -> None:
    """A lone surrogate or a NUL in a body the schema takes: 422 bad-text (the
    document's answer), whatever the operation, and nothing changes."""
    body = dict(_VALID_BODIES[path])
    body.update({"value": {"note": bad}, "key": {bad: 1}, "deep": {"notes": [[{"x": ["ok", bad]}]]}}[where])
    case = schema[path]["POST"].Case(body=body, headers={"Authorization": f"Bearer {world.started[1]}"})
    before = games.public_game(world.ctx, world.game_ids[1])
    response = case.call(app=world.app)
    assert response.status_code == 422 and response.json()["error"]["code"] == "bad-text", response.text
    case.validate_response(response, checks=ANSWER_CHECKS)
    assert games.public_game(world.ctx, world.game_ids[1]) == before


@pytest.mark.parametrize("bad", ["\ud800", "a\udfffb", "\x00"], ids=["high", "low", "nul"])
def test_notes_that_cannot_be_stored_get_what_the_document_says(world: World, bad: str) -> None:
    """The notes are a PUT: the same 422 bad-text, and the notes kept stay as they were."""
    case = schema["/seat/notes"]["PUT"].Case(body={"text": f"plan {bad}"},
                                             headers={"Authorization": f"Bearer {world.started[1]}"})
    before = games.notes(world.ctx, world.started[1])
    response = case.call(app=world.app)
    assert response.status_code == 422 and response.json()["error"]["code"] == "bad-text", response.text
    case.validate_response(response, checks=ANSWER_CHECKS)
    assert games.notes(world.ctx, world.started[1]) == before


def test_a_nudge_that_goes_and_one_too_soon_get_what_the_document_says(world: World) -> None:
    """The fuzzer's nudges come too soon (the game's moves were just made): one
    after the wait is held to the document's 202, the next to its 429."""
    from datetime import timedelta

    from pbem.core.models import utcnow

    # Players of their own: the world's creator has used up their confirmations for the day.
    game_id = games.start_game(world.ctx, games.parse_players([{"name": "Nia", "email": "nia@example.org"},
                                                               {"name": "Ola", "email": "ola@example.org"}]))
    tokens = seat_tokens(world.ctx, game_id)
    for token in tokens:
        games.accept(world.ctx, token)
    waiter = next(t for t in tokens if not games.seat_view(world.ctx, t)["your_turn"])
    kept = world.ctx.now
    world.ctx.now = lambda: utcnow() + timedelta(hours=25)
    try:
        case = schema["/seat/nudge"]["POST"].Case(headers={"Authorization": f"Bearer {waiter}"})
        sent, again = case.call(app=world.app), case.call(app=world.app)
    finally:
        world.ctx.now = kept
    assert sent.status_code == 202 and again.status_code == 429, (sent.text, again.text)
    assert again.json()["error"]["code"] == "nudge-too-soon" and int(again.headers["retry-after"][0]) == 86400
    case.validate_response(sent, checks=ANSWER_CHECKS)
    case.validate_response(again, checks=ANSWER_CHECKS)


def test_a_nudge_to_a_mover_who_is_away_gets_what_the_document_says(world: World) -> None:
    """A mover on a paused clock is not nudged: 409 mover-away, documented with that code."""
    game_id = games.start_game(world.ctx, games.parse_players([{"name": "Pia", "email": "pia@example.org"},
                                                               {"name": "Rui", "email": "rui@example.org"}]))
    tokens = seat_tokens(world.ctx, game_id)
    for token in tokens:
        games.accept(world.ctx, token)
    mover = next(t for t in tokens if games.seat_view(world.ctx, t)["your_turn"])
    waiter = next(t for t in tokens if t != mover)
    kept = world.ctx.config["VACATION_DAYS"]
    world.ctx.config["VACATION_DAYS"] = 7  # the bank pauses spend from
    try:
        games.pause_clock(world.ctx, mover, 3)
    finally:
        world.ctx.config["VACATION_DAYS"] = kept
    case = schema["/seat/nudge"]["POST"].Case(headers={"Authorization": f"Bearer {waiter}"})
    response = case.call(app=world.app)
    assert response.status_code == 409 and response.json()["error"]["code"] == "mover-away", response.text
    case.validate_response(response, checks=ANSWER_CHECKS)


def test_the_extras_operations_are_in_the_document() -> None:
    """Nudges and notes are described (and so fuzzed by the test above, which takes every operation)."""
    operations = {(path, method) for path, methods in schema.raw_schema["paths"].items() for method in methods}
    assert {("/seat/nudge", "post"), ("/seat/notes", "get"), ("/seat/notes", "put")} <= operations


@pytest.mark.parametrize("path, body", [("/seat/discord", {"discord_id": "123456789012345678"}),
                                        ("/seat/webhooks", {"kind": "json", "url": "https://hooks.example.org/x"})])
def test_a_seat_the_computer_plays_gets_what_the_document_says(world: World, path: str, body: dict[str, Any]) -> None:
    """Its link only shows the game: 409 computer-seat, documented with that code."""
    _, tokens = new_game(world.ctx)
    games.hand_to_computer(world.ctx, tokens[0], "easy", None)
    case = schema[path]["POST"].Case(body=body, headers={"Authorization": f"Bearer {tokens[0]}"})
    response = case.call(app=world.app)
    assert response.status_code == 409 and response.json()["error"]["code"] == "computer-seat", response.text
    case.validate_response(response, checks=ANSWER_CHECKS)


# -- the name and address rules, value by value ---------------------------------------
#
# The fuzzer above seldom lands next to the edges of these two rules, so here
# the document's schemas (as the JSON Schema validator reads them, and as
# Python's re does) meet the service's own check on values built from the
# pieces the rules are about.

_PLAYER = schema.raw_schema["components"]["schemas"]["Player"]["properties"]
_NAME_PIECES = ["a", "Zoë", "é", "中", "٣", "_", "-", ".", "x.com", "bob.CO", ".org", "www.", "WwW.", "http://",
                "ſ", "K", " ", "  ", "\t", "\n", "\u00a0", "\u2028", "\u3000", "\x00", "\x1f", "\x7f", "\u0085",
                "\u200b", "\u202e", "\ufeff", "\U000e0041", "\U0001d173"]
_ADDRESS_PIECES = ["a", "Z", "0", "-", "_", ".", "..", "@", "=", "?", "=?", "'", '"', "+", "!", "#", "~", "é",
                   "b.com", "x.co", "c1", "ab--", "xn--", ".local", ".TEST", ".arpa", ".example", "a" * 63, " ",
                   "\t", "\u200b"]


def _search(pattern: str, value: str) -> bool:
    # A closing $ is the end of the text in JSON Schema (ECMAScript), where
    # Python's would also match before a final newline.
    return re.search(re.sub(r"\$$", r"\\Z", pattern), value) is not None


def _agree(schema_part: dict[str, Any], value: str, accepted: bool) -> None:
    validator = jsonschema_rs.validator_for(schema_part)
    by_re = _search(schema_part["pattern"], value) and not _search(schema_part["not"]["pattern"], value)
    assert validator.is_valid(value) == by_re == accepted, (value, accepted)


def _takes(player: dict[str, str], field: str) -> bool:
    """Whether the service takes this player's ``field`` (the other player is plain)."""
    try:
        games.parse_players([player, {"name": "Other Player", "email": "other@example.org"}])
    except errors.Invalid as e:
        if e.player == 1 and e.field == field:
            return False
        assume(False)  # refused for something else (say, a name the other player has)
    return True


# Names about as long as the rule allows: random text seldom is, and seldom a valid one.
_LONG_NAMES = st.text(st.sampled_from("aZé中٣_-. "), min_size=38, max_size=44)


# The length's edge, every run: 40 characters (once trimmed and folded) pass, 41 do not.
@example("x" * 40)
@example("x" * 41)
@example(" " + "x" * 20 + "   " + "y" * 19 + " ")
@given(st.lists(st.sampled_from(_NAME_PIECES), max_size=45).map("".join) | st.text(max_size=45) | _LONG_NAMES)
@settings(max_examples=400, deadline=None, database=None)
def test_a_name_is_valid_exactly_when_the_service_takes_it(name: str) -> None:
    assume(unicodedata.is_normalized("NFC", name))  # the document counts what the client sends
    _agree(_PLAYER["name"], name, _takes({"name": name, "email": "first@example.org"}, "name"))


@given(st.lists(st.sampled_from(_ADDRESS_PIECES), max_size=12).map("".join)
       | st.emails().map(lambda a: a.replace("'", "")))
@settings(max_examples=400, deadline=None, database=None)
def test_an_address_is_valid_exactly_when_the_service_takes_it(address: str) -> None:
    # The document describes ASCII addresses and cannot check punycode.
    assume(address.isascii() and "xn--" not in address.lower())
    _agree(_PLAYER["email"], address, _takes({"name": "First", "email": address}, "email"))
