"""What a move would do (pbem.rules.effects), against the engine that plays it."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.rules import errors
from pbem.rules.board import Board, classic_board
from pbem.rules.deal import deal_game
from pbem.rules.effects import move_effect, move_effects, standing
from pbem.rules.game import Game
from pbem.rules.move import Move
from pbem.rules.views import player_view

NAMES = ("ann", "bob", "cid", "dee")


def line_board() -> Board:
    return Board.from_data({"territories": [
        {"id": 1, "terrain": "forest", "neighbours": [2]},
        {"id": 2, "terrain": "steppe", "neighbours": [1, 3]},
        {"id": 3, "terrain": "mountain", "neighbours": [2]}]})


def test_a_village_on_favourable_terrain_with_strife():
    board = line_board()
    view = {"huts": {"1": {"red": 1, "yellow": 1, "green": 1, "blue": 3, "black": 2}, "2": {"red": 1},
                     "3": {"red": 1}}, "villages_founded": 0}
    effect = move_effect(board, view, Move(2, 1))
    (village, hostile) = effect.villages
    assert (village.territory, village.terrain, village.standing) == (1, "forest", "favourable")
    # All five colours: those with one hut leave (yellow, green; red now has 2).
    assert village.strife == ("yellow", "green")
    assert village.clans == ("red", "blue", "black") and village.huts == 7 and village.points == 8
    assert (hostile.territory, hostile.standing, hostile.points) == (3, "hostile", 0)
    assert effect.end == "no-legal-move" and effect.new_epoch is None
    assert (effect.moved, effect.joins) == (1, 8)


def test_the_epoch_ends_and_the_twelfth_village_ends_the_game():
    longer = Board.from_data({"territories": [
        {"id": 1, "terrain": "forest", "neighbours": [2]},
        {"id": 2, "terrain": "steppe", "neighbours": [1, 3]},
        {"id": 3, "terrain": "mountain", "neighbours": [2, 4]},
        {"id": 4, "terrain": "grassland", "neighbours": [3]}]})
    huts = {"1": {"blue": 2}, "2": {"red": 1}, "3": {"red": 1}, "4": {"green": 1}}
    fourth = move_effect(longer, {"huts": huts, "villages_founded": 3}, Move(2, 1))
    assert [(v.number, v.epoch) for v in fourth.villages] == [(4, 1)] and fourth.new_epoch == 2
    assert fourth.end is None
    board = line_board()
    huts = {"1": {"blue": 2}, "2": {"red": 1}, "3": {"red": 1}}
    last = move_effect(board, {"huts": huts, "villages_founded": 11}, Move(2, 1))
    # One chip left: the first village is the 12th, the other is none.
    assert [v.number for v in last.villages] == [12] and last.end == "twelfth-village"
    assert last.villages[0].standing == "favourable" and last.villages[0].points == 3 + 5


def test_big_groups_and_illegal_moves_are_refused_as_the_game_refuses_them():
    board = line_board()
    view = {"huts": {"1": {"blue": 7}, "2": {"red": 3}, "3": {"red": 1}}, "villages_founded": 0}
    assert [str(e.move) for e in move_effects(board, view)] == ["2-1", "2-3", "3-2"]
    with pytest.raises(errors.ImmovableGroup):
        move_effect(board, view, Move(1, 2))
    with pytest.raises(errors.NotAdjacent):
        move_effect(board, view, Move(1, 3))
    with pytest.raises(errors.GameOver):
        move_effect(board, {**view, "finished": True}, Move(2, 1))
    assert move_effects(board, {**view, "finished": True}) == []


def test_standing_follows_the_epoch_chart():
    assert [standing("forest", e) for e in (1, 2, 3, 4, 5)] == [
        "favourable", "neutral", "hostile", "neutral", "favourable"]


@settings(max_examples=8, deadline=None, database=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=2, max_value=4))
def test_every_legal_move_has_an_effect_and_it_is_what_the_game_does(seed, players):
    rng = random.Random(seed)
    game = deal_game(NAMES[:players], rng).game()
    board = classic_board()
    while not game.is_over():
        seat = game.turn
        assert seat is not None
        view = player_view(game, seat)
        effects = {str(e.move): e for e in move_effects(board, view)}
        # Every legal move has an effect, and no illegal one does.
        assert list(effects) == view["legal_moves"]
        move = game.random_move(rng)
        assert move is not None
        # An illegal move gets no effect, whatever the reason.
        for other in board.neighbours(move.source) | {move.target + 1000}:
            candidate = Move(move.source, other)
            if str(candidate) not in effects:
                with pytest.raises(errors.IllegalMove):
                    move_effect(board, view, candidate)
        effect = effects[str(move)]
        assert effect == move_effect(board, view, move)
        before_epoch = game.epoch
        played = game.push(move)
        assert [(v.number, v.territory, v.terrain, v.epoch, v.points, tuple(sorted(v.clans)), tuple(sorted(v.removed)))
                for v in played] == [
            (v.number, v.territory, v.terrain, v.epoch, v.points, tuple(sorted(v.clans)), tuple(sorted(v.strife)))
            for v in effect.villages]
        assert effect.end == game.end
        assert effect.new_epoch == (game.epoch if not game.is_over() and game.epoch != before_epoch else None)


def test_effects_read_nothing_but_the_view():
    """The same position seen by any seat (or anyone) gives the same effects:
    nothing in them can depend on whose clan is whose."""
    game = deal_game(NAMES[:3], random.Random(5)).game()
    rng = random.Random(6)
    for _ in range(10):
        move = game.random_move(rng)
        assert move is not None
        game.push(move)
    board = classic_board()
    seen = [move_effects(board, player_view(game, seat)) for seat in range(3)]
    shuffled = Game(board, game.players, game.setup, clans=list(reversed(game.clans)), first=game.first)
    for played in game.history:
        shuffled.push(played.move, list(played.order) if played.explicit_order else None)
    assert seen[0] == seen[1] == seen[2] == move_effects(board, player_view(shuffled, 0))
