"""What a player knows: a game rebuilt from their own view alone.

A computer player gets exactly the view a human in its seat gets
(:func:`pbem.rules.views.player_view`): the board, the huts, the villages,
everyone's chips and the clans' scores, and its own clan.  The other players'
clans are not in it; :func:`game_from_view` rebuilds a game with the clans it
is told to assume, and :func:`unknown_clans` names the clans any of them may hold.

>>> import random
>>> from pbem.rules.deal import deal_game
>>> from pbem.rules.views import player_view
>>> game = deal_game(["ann", "bob", "cid"], random.Random(4)).game()
>>> game.push(next(iter(game.legal_moves())))
[]
>>> seen = game_from_view(player_view(game, 1))
>>> seen.clans == (None, game.clans[1], None), seen.position() == game.position(), seen.turn == game.turn
(True, True, True)
"""

from __future__ import annotations

from typing import Sequence

from . import errors
from .board import load_board
from .game import Game
from .history import Played, Village
from .move import Move
from .tables import CLANS
from .views import PlayerView


def unknown_clans(view: PlayerView) -> tuple[str, ...]:
    """The clans the other players may hold: every clan but the viewer's own."""
    return tuple(c for c in CLANS if c != view["clan"])


def game_from_view(view: PlayerView, clans: Sequence[str | None] | None = None) -> Game:
    """The game as the viewer sees it, ready to search: same position, villages,
    chips, scores and turn.  ``clans``: the clan to assume in each seat (the
    viewer's own is always the view's); by default the others are unknown
    (``None``).  Raises :class:`~pbem.rules.errors.InvalidRecord` for a view
    that does not describe a game in progress or over."""
    players = [p["name"] for p in view["players"]]
    n = len(players)
    seat = view["seat"]
    assumed: list[str | None] = list(clans) if clans is not None else [None] * n
    if len(assumed) != n:
        raise errors.InvalidRecord(f"game_from_view: {len(assumed)} clans for {n} players")
    assumed[seat] = view["clan"]
    ply = view["ply"]
    if view["next_seat"] is not None:
        first = (view["next_seat"] - ply) % n
    elif view["history"]:
        first = view["history"][0]["seat"]
    else:
        first = 0
    name_to_seat = {name: i for i, name in enumerate(players)}
    board = load_board(view["board"])
    game = Game.__new__(Game)
    game.board = board
    game.players = tuple(players)
    game.clans = tuple(assumed)
    game.first = first
    game.setup = {}
    game._load_position({int(tid): dict(huts) for tid, huts in view["huts"].items()})
    game.villages = [
        Village(v["number"], v["territory"], v["epoch"], name_to_seat[v["founder"]], v["terrain"],
                dict(v["huts"]), dict(v["removed"]), tuple(v["clans"]), v["points"])
        for v in view["villages"]
    ]
    game.clan_scores = [view["clan_scores"].get(c, 0) for c in CLANS]
    game.chips = [p["chips"] for p in view["players"]]
    moves, index = board.moves, board.index
    history = game.history = []
    for i, h in enumerate(view["history"]):
        source, target = Move.parse(h["move"])
        history.append(Played(i, h["seat"], moves[index[source]][index[target]],
                              tuple(h["villages"]), tuple(h["villages"]), False))
    game.end = view["end"]
    if len(history) != ply:
        raise errors.InvalidRecord(f"game_from_view: {len(history)} moves in the history of move {ply}")
    return game
