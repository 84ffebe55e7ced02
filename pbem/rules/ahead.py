"""Moves set ahead of a turn (pre-moves): which could still become legal.

A pre-move is checked twice: when it is set, against what can never change
(:func:`check_ahead`), and when the turn comes, fully (:meth:`Game.check`).
What can never change in *Clans*: the board; and an empty territory, which
stays empty (huts only ever move onto huts).  So a move from or onto an empty
territory, between territories that do not border each other, or naming one
the board lacks, is refused at once with the rules' own codes; a big group
that may not move now (``immovable-group``) or an order that does not match
the villages the move would found now may fit later, and are kept."""

from __future__ import annotations

from . import errors
from .game import Game
from .move import Move

#: At most this many villages in a pre-move's order (one move founds at most
#: one per territory it touches; the reply reader allows as many).
MAX_ORDER = 12


def check_ahead(game: Game, move: Move, order: object = None) -> None:
    """Refuse ``move`` (with ``order``, if given) if it can never be legal in
    this game from ``game``'s position on, with the code :meth:`Game.check`
    would give; return if it may be legal once it is the mover's turn."""
    text = str(move)
    if game.is_over():
        raise errors.GameOver(f"{text}: the game is over ({game.end})", move=text, end=game.end)
    board = game.board
    for territory in (move.source, move.target):
        if territory not in board:
            raise errors.UnknownTerritory(f"{text}: there is no territory {territory} on this board", move=text,
                                          territory=territory)
    if not game.count(move.source):
        raise errors.EmptySource(f"{text}: territory {move.source} has no huts to move at ply {game.ply}",
                                 move=text, territory=move.source, ply=game.ply)
    if not board.adjacent(move.source, move.target):
        raise errors.NotAdjacent(f"{text}: territory {move.target} does not border {move.source}", move=text,
                                 source=move.source, target=move.target)
    if not game.count(move.target):
        raise errors.EmptyTarget(f"{text}: territory {move.target} is empty at ply {game.ply}; huts may only "
                                 f"join huts", move=text, territory=move.target, ply=game.ply)
    if order is None:
        return
    if (not isinstance(order, (list, tuple)) or len(order) > MAX_ORDER
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in order)
            or len(set(order)) != len(order)):
        raise errors.BadOrder(f"{text}: order must be a list of territory ids, not {order!r:.40}", move=text,
                              given=f"{order!r:.40}")
    # A village this move founds stands where it leaves huts behind: on the
    # target or on a neighbour of the source; nothing else can ever be in its order.
    near = board.neighbours(move.source) | {move.target}
    if not set(order) <= near:
        raise errors.BadOrder(f"{text}: order must be a list of territory ids, not {order!r:.40}", move=text,
                              given=f"{order!r:.40}")
