"""What each viewer may see of a game: the only functions that turn a game into
something shown (pages, API answers, emails).  Views are data only; the words
people read are made from them in ``pbem/words.py``.

Nobody's clan appears before the end, except a player's own clan in that
player's own view.

>>> import random
>>> from pbem.rules.deal import deal_game
>>> game = deal_game(["ann", "bob"], random.Random(3)).game()
>>> [p["clan"] for p in public_view(game)["players"]]
[None, None]
>>> mine = player_view(game, 0)
>>> mine["clan"] == game.clans[0], [p["clan"] for p in mine["players"]]
(True, [None, None])
"""

from __future__ import annotations

from typing import Any

from .game import Game, Played, village_json

Viewer = int | None


def public_view(game: Game) -> dict[str, Any]:
    """The game as anyone may see it: a spectator, the public API, every email."""
    finished = game.end is not None
    outcome = game.outcome()
    turn = game.turn
    return {
        "board": game.board.name,
        "ply": game.ply,
        "epoch": game.epoch,
        "villages_founded": len(game.villages),
        "players": [
            {
                "seat": i,
                "name": name,
                "chips": game.chips[i],
                "clan": game.clans[i] if finished else None,
                "to_move": turn == i,
                "final_score": outcome.final_scores[i] if outcome else None,
            }
            for i, name in enumerate(game.players)
        ],
        "huts": {str(tid): h for tid, h in game.position().items()},
        "villages": [village_json(v, game.players) for v in game.villages],
        "clan_scores": game.scores(),
        "next": None if turn is None else game.players[turn],
        "next_seat": turn,
        "finished": finished,
        "end": game.end,
        "final_scores": dict(zip(game.players, outcome.final_scores)) if outcome else None,
        "winners": list(outcome.winners) if outcome else None,
        "last_move": str(game.history[-1].move) if game.history else None,
        "history": [_history_entry(game, p) for p in game.history],
    }


def player_view(game: Game, seat: int) -> dict[str, Any]:
    """The public view plus what only the player in ``seat`` may know: their own
    clan, and on their turn the legal moves (with the villages each would found,
    so a client can ask for their order)."""
    view = public_view(game)
    yours = game.turn == seat
    moves = game.legal_moves_with_villages() if yours else []
    legal = [str(m) for m, _ in moves]
    founding = {str(m): list(villages) for m, villages in moves if villages}
    view.update(
        seat=seat,
        you=game.players[seat],
        clan=game.clans[seat],
        your_turn=yours,
        legal_moves=legal,
        founding=founding,
    )
    return view


def view_for(game: Game, viewer: Viewer) -> dict[str, Any]:
    """``player_view`` for a seat, ``public_view`` for anyone else (``None``)."""
    return public_view(game) if viewer is None else player_view(game, viewer)


def _history_entry(game: Game, p: Played) -> dict[str, Any]:
    return {
        "ply": p.ply + 1,
        "seat": p.seat,
        "player": game.players[p.seat],
        "move": str(p.move),
        "villages": list(p.villages),
    }
