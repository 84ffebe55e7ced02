"""Quick match through the service: requests confirmed by their seat links become
one game, or a seat at a lobby table that fits; blocked people never sit
together; refusals change nothing; no address reaches anyone else."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlmodel import col, select

from pbem import games
from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.match_tables import MatchRequest
from pbem.core.models import Game, GameStatus, Outbox, Seat
from pbem.games.lobby import Joiner
from pbem.games.quick_match import Wish
from pbem.people import blocks
from tests.support.messages import caught, parts
from tests.support.games import seat_tokens


def ask(ctx: Any, name: str, players: tuple[int, ...] = (3,), turn_hours: int = 24, language: str = "en") -> str:
    """``name`` asks for a quick match and the token of their confirmation mail's link."""
    email = f"{name.lower()}@example.org"
    games.quick_match.request(ctx, Wish(Joiner(name, email, language), players, turn_hours))
    (mail,) = caught(ctx, email, kind="match-confirm")[-1:]
    found = re.search(r"https://clans\.example/play/(\S+)", parts(mail)["text"])
    assert found
    return found.group(1)


def test_three_requests_become_one_game_once_all_confirm(ctx: Any) -> None:
    tokens = [ask(ctx, n) for n in ("Ann", "Bea", "Cy")]
    assert games.accept(ctx, tokens[0])["status"] == "waiting"
    assert games.accept(ctx, tokens[1])["status"] == "waiting"
    view = games.accept(ctx, tokens[2])
    assert view["status"] in ("active", "waiting") and view["ply"] == 0
    # Every confirmation link now opens a seat of that one started game.
    with session_scope(ctx.engine) as session:
        seen = {games.seat_and_game(session, t)[1].public_id for t in tokens}
        (game_id,) = seen
        game = session.exec(select(Game).where(Game.public_id == game_id)).one()
        assert game.status == GameStatus.ACTIVE and game.turn_hours == 24
        names = [s.name for s in session.exec(select(Seat).where(Seat.game_id == game.id))]
        assert sorted(names) == ["Ann", "Bea", "Cy"]
        assert all(r.seated_at is not None for r in session.exec(select(MatchRequest)))
    # Each got a turn mail or a game-started mail naming the others, and never their addresses.
    for name in ("ann", "bea", "cy"):
        for mail in caught(ctx, f"{name}@example.org"):
            body = parts(mail)
            others = {"ann@example.org", "bea@example.org", "cy@example.org"} - {f"{name}@example.org"}
            assert not any(o in body["text"] + body["html"] for o in others)


def test_nobody_is_seated_before_enough_confirm_or_at_another_speed(ctx: Any) -> None:
    a, b = ask(ctx, "Ann"), ask(ctx, "Bea")
    c = ask(ctx, "Cy", turn_hours=48)
    for t in (a, b, c):
        assert games.accept(ctx, t)["status"] == "waiting"
    d = ask(ctx, "Dan", players=(2, 3))
    view = games.accept(ctx, d)
    # Three waiting at 24 hours accept three players: Dan's largest count they reach.
    with session_scope(ctx.engine) as session:
        game = games.seat_and_game(session, d)[1]
        assert len(games.seat_and_game(session, d)[2]) == 3 and game.status == GameStatus.ACTIVE
        assert games.seat_and_game(session, c)[1].status == GameStatus.INVITED
    assert view["ply"] == 0


def test_a_confirmed_person_takes_an_open_table_that_fits(ctx: Any) -> None:
    entries = [{"name": "Ola", "email": "ola@example.org"}, {"open": True}]
    table = games.start_game(ctx, games.parse_players(entries), 24)
    games.accept(ctx, seat_tokens(ctx, table)[0])
    token = ask(ctx, "Bea", players=(2, 3))
    games.accept(ctx, token)
    with session_scope(ctx.engine) as session:
        seat, game, seats = games.seat_and_game(session, token)
        assert game.public_id == table and game.status == GameStatus.ACTIVE
        assert seat.name == "Bea" and seat.email == "bea@example.org"
    assert "ola@example.org" not in repr([parts(m) for m in caught(ctx, "bea@example.org")])


def test_blocked_people_are_never_seated_together(ctx: Any) -> None:
    with session_scope(ctx.engine) as session:
        blocks.block(session, "ann@example.org", "bea@example.org", "Bea", ctx.now())
    a, b, c = ask(ctx, "Ann"), ask(ctx, "Bea"), ask(ctx, "Cy")
    for t in (a, b, c):
        assert games.accept(ctx, t)["status"] == "waiting"
    d = ask(ctx, "Dan")
    games.accept(ctx, d)
    with session_scope(ctx.engine) as session:
        names = sorted(s.name for s in games.seat_and_game(session, d)[2])
        assert names in (["Ann", "Cy", "Dan"], ["Bea", "Cy", "Dan"])
        assert games.seat_and_game(session, a if names[0] == "Bea" else b)[1].status == GameStatus.INVITED


def snapshot(ctx: Any) -> tuple[int, int, int]:
    with session_scope(ctx.engine) as session:
        return (len(session.exec(select(MatchRequest.id)).all()), len(session.exec(select(Seat.id)).all()),
                len(session.exec(select(Outbox.id)).all()))


def test_refusals_change_nothing(ctx: Any) -> None:
    ask(ctx, "Ann")
    before = snapshot(ctx)
    with pytest.raises(errors.Conflict) as e:
        games.quick_match.request(ctx, Wish(Joiner("Ann", "ANN@example.org"), (3,), 24))
    assert e.value.code == "already-waiting"
    for bad in ({"name": "", "email": "x@example.org", "players": [3]},
                {"name": "X", "email": "nope", "players": [3]},
                {"name": "X", "email": "x@example.org", "players": [5]},
                {"name": "X", "email": "x@example.org", "players": []},
                {"name": "X", "email": "x@example.org", "players": [True]},
                {"name": "X", "email": "x@example.org", "players": [3], "turn_hours": 0},
                {"name": "X", "email": "x@example.org", "players": [3], "language": "xx"}):
        with pytest.raises(errors.Invalid):
            games.quick_match.parse_wish(bad, 72)
    assert snapshot(ctx) == before


def test_unconfirmed_requests_count_toward_the_cap(ctx: Any) -> None:
    for _ in range(3):
        entries = [{"name": "Ola", "email": f"ola{_}@example.org"}, {"open": True}]
        table = games.start_game(ctx, games.parse_players(entries), 24)
        games.accept(ctx, seat_tokens(ctx, table)[0])
        if _ < 2:
            games.lobby.join(ctx, table, Joiner("Zed", "zed@example.org"))
    ask(ctx, "Zed")
    with pytest.raises(errors.Conflict) as e:
        games.lobby.join(ctx, table, Joiner("Zed", "zed@example.org"))
    assert e.value.code == "too-many-joins"


def test_the_clock_seats_a_waiting_person_at_a_table_opened_since(ctx: Any) -> None:
    token = ask(ctx, "Bea", players=(2,))
    assert games.accept(ctx, token)["status"] == "waiting"
    entries = [{"name": "Ola", "email": "ola@example.org"}, {"open": True}]
    table = games.start_game(ctx, games.parse_players(entries), 24)
    games.accept(ctx, seat_tokens(ctx, table)[0])
    assert games.quick_match.retry(ctx) == 1
    assert games.quick_match.retry(ctx) == 0
    with session_scope(ctx.engine) as session:
        assert games.seat_and_game(session, token)[1].public_id == table


def test_a_wait_expires_like_an_invitation(ctx: Any) -> None:
    from pbem.workers import clock
    from tests.support.clock import frozen_clock

    clock_ = frozen_clock(ctx)
    token = ask(ctx, "Bea")
    games.accept(ctx, token)
    clock_.advance(days=int(ctx.config["INVITE_DAYS"]) + 1)
    clock.prune(ctx)
    with session_scope(ctx.engine) as session:
        assert games.seat_and_game(session, token)[1].status == GameStatus.EXPIRED
    # Bea may ask again; Cy waits alone (Bea's expired wait seats nobody).
    games.accept(ctx, ask(ctx, "Bea", players=(2,)))
    assert games.quick_match.retry(ctx) == 0
    assert games.accept(ctx, ask(ctx, "Cy", players=(2,)))["status"] in ("active", "waiting")
    with session_scope(ctx.engine) as session:
        assert len(session.exec(select(MatchRequest).where(col(MatchRequest.seated_at).is_not(None))).all()) == 2


def test_the_clock_runs_the_retry_every_ten_minutes() -> None:
    from pbem.workers.tasks import CLOCK_TASKS, beat_schedule

    (entry,) = [e for e in beat_schedule().values() if e["task"] == "pbem.clock.quick_match"]
    assert "pbem.clock.quick_match" in CLOCK_TASKS and entry["options"]["expires"] < 600
