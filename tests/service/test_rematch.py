"""Rematch: "Play again" after the end starts one new game with the same players,
the one who asks in at once, the others invited by mail."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.core import tokens
from pbem.core import errors
from pbem.table import rematch
from pbem.core.db import session_scope
from pbem.core.models import Game, Seat, Suppression
from pbem.people.players import address_hash
from tests.support.games import PLAYERS, db_id, finish, new_game, play, seat_tokens
from tests.support.messages import caught
from pbem import games


def seats_of(ctx: Any, public_id: str) -> list[Seat]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(Seat).where(col(Seat.game_id) == db_id(session, public_id))
                                 .order_by(col(Seat.position))).all())


def games_count(ctx: Any) -> int:
    with session_scope(ctx.engine) as session:
        return len(session.exec(select(Game.id)).all())


def finished_game(ctx: Any) -> tuple[str, list[str]]:
    game_id, toks = new_game(ctx, 3)
    games.set_language(ctx, toks[1], "cs", "Europe/Prague")
    play(ctx, toks, 2)
    finish(ctx, game_id, toks)
    return game_id, toks


def by_email(ctx: Any, public_id: str) -> dict[str, Seat]:
    return {s.email: s for s in seats_of(ctx, public_id)}


def test_a_rematch_has_the_same_players_and_the_one_who_asks_is_in(ctx: Any) -> None:
    game_id, toks = finished_game(ctx)
    old = by_email(ctx, game_id)
    asker = next(s for s in old.values() if s.token_hash == tokens.digest(toks[1]))
    invites_before = len(caught(ctx, kind="invite"))

    made = rematch.play_again(ctx, toks[1])

    assert made.created and made.game != game_id
    new = by_email(ctx, made.game)
    assert set(new) == {p["email"] for p in PLAYERS}
    for email, seat in new.items():
        assert (seat.name, seat.language, seat.time_zone) == (old[email].name, old[email].language,
                                                               old[email].time_zone)
        assert seat.bot is None and seat.clan is None
    # The one who clicked is accepted and holds the returned token; the others are invited by mail.
    assert new[asker.email].accepted_at is not None
    assert made.token is not None and games.seat_view(ctx, made.token)["status"] == "waiting"
    assert games.seat_view(ctx, made.token)["you"] == asker.name
    others = {e for e in new if e != asker.email}
    assert all(new[e].accepted_at is None for e in others)
    invites = caught(ctx, kind="invite")[invites_before:]
    assert sorted(m["To"] for m in invites) == sorted(others)
    assert all(m["X-PBEM-Game"] == made.game for m in invites)
    with session_scope(ctx.engine) as session:
        again = session.exec(select(Game).where(Game.public_id == made.game)).one()
        assert again.status == "invited" and again.turn_hours == 72
        assert again.rematch_of == db_id(session, game_id)
    # When the others accept, it starts like any game.
    for email in others:
        games.accept(ctx, next(t for t in seat_tokens(ctx, made.game)
                                  if games.seat_view(ctx, t)["you"] == new[email].name))
    assert games.public_game(ctx, made.game)["status"] == "active"


def test_asking_twice_or_two_players_asking_makes_one_rematch(ctx: Any) -> None:
    game_id, toks = finished_game(ctx)
    first = rematch.play_again(ctx, toks[0])
    invites = len(caught(ctx, kind="invite"))
    count = games_count(ctx)

    second = rematch.play_again(ctx, toks[0])
    other = rematch.play_again(ctx, toks[2])

    assert not second.created and not other.created
    assert first.game == second.game == other.game
    assert second.token == first.token
    # The other player is shown their own seat in it, not the first one's.
    assert other.token is not None and other.token != first.token
    assert games.seat_view(ctx, other.token)["you"] == games.seat_view(ctx, toks[2])["you"]
    assert games_count(ctx) == count and len(caught(ctx, kind="invite")) == invites
    # The seat page of the third player finds it too, with their own seat.
    shown = rematch.rematch_for_seat(ctx, toks[1])
    assert shown is not None and shown.game == first.game and shown.token not in (None, first.token, other.token)
    assert games.seat_view(ctx, shown.token)["you"] == games.seat_view(ctx, toks[1])["you"]
    assert rematch.public_rematch(ctx, game_id) == first.game


def test_two_players_asking_at_the_same_moment_make_one_rematch(ctx: Any) -> None:
    game_id, toks = finished_game(ctx)
    count = games_count(ctx)
    start = threading.Barrier(2)
    results: list[rematch.Rematch] = []
    failures: list[BaseException] = []

    def ask(token: str) -> None:
        start.wait()
        try:
            results.append(rematch.play_again(ctx, token))
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=ask, args=(t,)) for t in toks[:2]]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not failures, failures
    assert len({r.game for r in results}) == 1 and len(results) == 2
    assert sum(r.created for r in results) == 1
    assert games_count(ctx) == count + 1


def test_not_before_the_end(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 3)
    count = games_count(ctx)
    with pytest.raises(errors.Conflict) as e:
        rematch.play_again(ctx, toks[0])
    assert e.value.code == "not-finished" and e.value.status == 409
    assert games_count(ctx) == count
    assert rematch.public_rematch(ctx, game_id) is None


def test_a_forged_token_is_refused(ctx: Any) -> None:
    finished_game(ctx)
    count = games_count(ctx)
    for forged in ("x" * 43, "not a token", None):
        with pytest.raises(errors.Unauthorized):
            rematch.play_again(ctx, forged)
    assert games_count(ctx) == count


def test_computer_seats_keep_their_level_and_a_handed_over_seat_goes_back_to_its_person(ctx: Any) -> None:
    game_id, toks = finished_game(ctx)
    with session_scope(ctx.engine) as session:
        # By token, not position: the start drew the seats' order anew.
        found = {s.token_hash: s for s in session.exec(select(Seat).where(col(Seat.game_id) == db_id(session, game_id)))}
        seats = [found[tokens.digest(t)] for t in toks]
        # Toks[2]'s seat was the computer's from the start; toks[1]'s was handed to it during the game.
        seats[2].bot, seats[2].bot_from, seats[2].email = "hard", 0, ""
        seats[1].bot, seats[1].bot_from = "medium", 3
        for s in seats:
            session.add(s)
        handed, asker = seats[1].email, seats[0].email
    # The computer's seat, and a seat it took over, cannot ask.
    with pytest.raises(errors.Conflict) as e:
        rematch.play_again(ctx, toks[1])
    assert e.value.code == "computer-seat"

    made = rematch.play_again(ctx, toks[0])

    new = seats_of(ctx, made.game)
    assert sorted((s.bot, s.bot_from) for s in new if s.bot) == [("hard", 0)]
    assert sorted(s.email for s in new if s.bot is None) == sorted([handed, asker])
    assert next(s for s in new if s.bot).accepted_at is not None


def test_a_player_who_asked_never_to_be_mailed_stops_the_rematch(ctx: Any) -> None:
    game_id, toks = finished_game(ctx)
    with session_scope(ctx.engine) as session:
        session.add(Suppression(address_hash=address_hash(PLAYERS[2]["email"])))
    count = games_count(ctx)
    with pytest.raises(errors.Conflict) as e:
        rematch.play_again(ctx, toks[0])
    assert e.value.code == "suppressed" and e.value.params["name"] == PLAYERS[2]["name"]
    # The address itself is not told to the other players.
    assert PLAYERS[2]["email"] not in e.value.message
    assert games_count(ctx) == count


def test_the_database_keeps_one_rematch_per_game_whoever_gets_there_first(ctx: Any) -> None:
    # What a click that lost the race meets: the unique link, not a look that came too early.
    game_id, toks = finished_game(ctx)
    made = rematch.play_again(ctx, toks[0])
    count, invites = games_count(ctx), len(caught(ctx))
    players = games.parse_players(PLAYERS)
    with pytest.raises(errors.Conflict) as e:
        games.start_game(ctx, players, confirmed=True, rematch_of=db_id(ctx, game_id))
    assert e.value.code == "rematch-exists"
    assert games_count(ctx) == count and len(caught(ctx)) == invites
    assert rematch.public_rematch(ctx, game_id) == made.game
