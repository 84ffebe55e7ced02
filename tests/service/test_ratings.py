"""Ratings: each game that ends by the rules and that only people played moves
its players' OpenSkill ratings once; games with the computer, cancelled or
unfinished games move nothing; a rating is shown only to a player who opted in,
and only after ratings.SHOWN_AFTER rated games."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.core import tokens
from pbem.ops import admin
from pbem.core import errors
from pbem.people import ratings
from pbem import rules
from pbem.core.db import as_utc, session_scope
from pbem.core.models import Game, Rating, Seat
from pbem.people.players import address_hash
from tests.support.clock import frozen_clock
from tests.support.games import PLAYERS, db_id, finish, last_move_position, new_game, play, set_huts, to_move
from pbem import games


def rating_rows(ctx: Any) -> dict[str, tuple[float, float, int]]:
    """Each rated address's (mu, sigma, games), by its player's name."""
    names = {address_hash(p["email"]): p["name"] for p in PLAYERS}
    with session_scope(ctx.engine) as session:
        return {names[r.address_hash]: (r.mu, r.sigma, r.games) for r in session.exec(select(Rating)).all()}


def game_row(ctx: Any, public_id: str) -> Game:
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(Game.public_id == public_id)).one()
        session.expunge(game)
        return game


def final_scores(ctx: Any, public_id: str) -> dict[str, int]:
    view = games.public_game(ctx, public_id)
    return {p["name"]: p["final_score"] for p in view["players"]}


def test_a_game_of_people_moves_every_players_rating_once(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 2)
    huts, _ = last_move_position()
    set_huts(ctx, game_id, huts)
    mover, view = to_move(ctx, toks)
    final = view["legal_moves"][0]
    assert games.submit_move(ctx, mover, final, None, view["ply"])["status"] == "finished"

    rows = rating_rows(ctx)
    scores = final_scores(ctx, game_id)
    assert set(rows) == {"Ann", "Bob", "Cid"}
    assert all(games == 1 for _, _, games in rows.values())
    assert all(sigma < 25 / 3 for _, sigma, _ in rows.values())  # surer than a newcomer
    for a in rows:
        for b in rows:
            if scores[a] > scores[b]:
                assert rows[a][0] > rows[b][0]
            elif scores[a] == scores[b]:
                assert rows[a][0] == pytest.approx(rows[b][0])
    assert game_row(ctx, game_id).rated_at is not None
    # Each seat's result is stored with it.
    public = games.public_game(ctx, game_id)
    with session_scope(ctx.engine) as session:
        seats = {s.name: s for s in session.exec(select(Seat).where(col(Seat.game_id) == db_id(session, game_id)))}
    for name, seat in seats.items():
        assert seat.final_score == scores[name]
        assert seat.won == (name in public["winners"])

    # The finishing path again: the same final move resubmitted, and the end recorded a second time.
    assert games.submit_move(ctx, mover, final, None, view["ply"])["status"] == "finished"
    assert rating_rows(ctx) == rows
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(Game.public_id == game_id)).one()
        seats_now = list(session.exec(select(Seat).where(col(Seat.game_id) == game.id)
                                      .order_by(col(Seat.position))).all())
        position = rules.Game.from_json(json.loads(game.state or "{}"))
        assert ratings.record_end(session, game, seats_now, position, ctx.now()) is False
    assert rating_rows(ctx) == rows


def test_the_final_move_sent_twice_at_once_rates_once(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 3)
    huts, _ = last_move_position()
    set_huts(ctx, game_id, huts)
    token, view = to_move(ctx, toks)
    start = threading.Barrier(2)
    outcomes: list[object] = []

    def send(move: str) -> None:
        start.wait()
        try:
            outcomes.append(games.submit_move(ctx, token, move, None, view["ply"])["status"])
        except errors.ServiceError as e:
            outcomes.append(e.code)

    # The two moves the position allows (either way round), sent at the same moment.
    moves = (view["legal_moves"] * 2)[:2]
    threads = [threading.Thread(target=send, args=(m,)) for m in moves]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(outcomes) == 2 and "finished" in outcomes
    assert games.public_game(ctx, game_id)["status"] == "finished"
    assert sorted(games for _, _, games in rating_rows(ctx).values()) == [1, 1, 1]


def test_two_games_ending_count_both(ctx: Any) -> None:
    first, first_toks = new_game(ctx, 3)
    second, second_toks = new_game(ctx, 2)
    finish(ctx, first, first_toks)
    finish(ctx, second, second_toks)
    rows = rating_rows(ctx)
    assert rows["Ann"][2] == rows["Bob"][2] == 2 and rows["Cid"][2] == 1


@pytest.mark.parametrize("computer", ["from the start", "handed over"])
def test_a_game_the_computer_played_any_part_of_is_not_rated(ctx: Any, computer: str) -> None:
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 2)
    huts, _ = last_move_position()
    set_huts(ctx, game_id, huts)
    mover, _ = to_move(ctx, toks)
    with session_scope(ctx.engine) as session:
        seat = next(s for s in session.exec(select(Seat).where(col(Seat.game_id) == db_id(session, game_id)))
                    if s.token_hash != tokens.digest(mover))
        seat.bot, seat.bot_from = "medium", 0 if computer == "from the start" else 1
        session.add(seat)
    finish(ctx, game_id, toks)
    assert rating_rows(ctx) == {}
    assert game_row(ctx, game_id).rated_at is None
    # The results are kept all the same (the people's stats count the game).
    with session_scope(ctx.engine) as session:
        assert all(s.final_score is not None
                   for s in session.exec(select(Seat).where(col(Seat.game_id) == db_id(session, game_id))))


def test_a_cancelled_game_is_not_rated(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 3)
    huts, _ = last_move_position()
    set_huts(ctx, game_id, huts)
    admin.cancel(ctx, game_id)
    token, view = next((t, v) for t in toks if (v := games.seat_view(ctx, t))["legal_moves"])
    with pytest.raises(errors.Conflict):
        games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    assert rating_rows(ctx) == {}
    assert game_row(ctx, game_id).rated_at is None


def test_a_game_the_autopilot_ended_is_rated(ctx: Any) -> None:
    # The autopilot moves for an absent player: the result is theirs (their reliability shows it).
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx, 3)
    huts, _ = last_move_position()
    set_huts(ctx, game_id, huts)
    game = game_row(ctx, game_id)
    deadline = as_utc(game.deadline)
    assert deadline is not None
    now.at = deadline + timedelta(seconds=1)
    assert games.autopilot_move(ctx, db_id(ctx, game_id), game.ply) is not None
    assert games.public_game(ctx, game_id)["status"] == "finished"
    assert sorted(games for _, _, games in rating_rows(ctx).values()) == [1, 1, 1]


def test_a_rating_is_shown_only_to_a_player_who_opted_in_and_after_five_games(ctx: Any) -> None:
    ann = PLAYERS[0]["email"]
    assert ratings.shown_rating(ctx, ann) == ratings.Shown(False, 0, None, None, None)
    for n in range(1, ratings.SHOWN_AFTER + 1):
        game_id, toks = new_game(ctx, 2)
        finish(ctx, game_id, toks)
        shown = ratings.shown_rating(ctx, ann)
        # Not opted in: nothing shown, though the games are rated.
        assert not shown.opted_in and shown.rating is None and shown.games == 0
        ratings.set_opt_in(ctx, ann, True)
        shown = ratings.shown_rating(ctx, ann)
        assert shown.opted_in and shown.games == n
        if n < ratings.SHOWN_AFTER:
            assert shown.rating is None  # provisional
        else:
            mu, sigma, _ = rating_rows(ctx)["Ann"]
            assert shown.rating == round(mu - 3 * sigma, 1)
            assert (shown.mu, shown.sigma) == (round(mu, 1), round(sigma, 1))
        ratings.set_opt_in(ctx, ann, False)
    # Opting in twice is opting in once; out again hides it and keeps the rating.
    ratings.set_opt_in(ctx, ann, True)
    ratings.set_opt_in(ctx, ann, True)
    with session_scope(ctx.engine) as session:
        rows = session.exec(select(Rating).where(Rating.address_hash == address_hash(ann))).all()
        assert len(rows) == 1 and rows[0].opted_in and rows[0].games == ratings.SHOWN_AFTER


def test_opting_in_before_any_game(ctx: Any) -> None:
    ratings.set_opt_in(ctx, "zoe@example.org", True)
    assert ratings.shown_rating(ctx, "Zoe@Example.org") == ratings.Shown(True, 0, None, None, None)
    ratings.set_opt_in(ctx, "zoe@example.org", False)
    assert not ratings.shown_rating(ctx, "zoe@example.org").opted_in
