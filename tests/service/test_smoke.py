from pbem import games
from tests.support.games import new_game, play, to_move
from tests.support.messages import caught


def test_game_starts_and_moves(ctx):
    game_id, toks = new_game(ctx)
    t, view = to_move(ctx, toks)
    assert view["status"] == "active" and view["clan"] in {"red", "yellow", "green", "blue", "black"}
    play(ctx, toks, 3)
    assert games.public_game(ctx, game_id)["ply"] == 3
    assert len(caught(ctx, kind="invite")) == 3
