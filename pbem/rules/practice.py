"""Practice from a position: a new game that starts where another stood.

A practice game is a game of its own with a record of its own: the original's
board and set-up, the original's first ``ply`` moves, and new players and
clans.  Clans never change what a move does (they only score), so replaying
those moves gives exactly the original's position, and the new game's record
stays a valid ``clans-record/1`` that ``pbem replay`` and the replay page
read as any other.

The clans of a practice game started from a running game come from what the
practising seat may see, and nothing else: :func:`redeal` takes that seat's
view (its own clan; the others' are not in it) and draws the others among the
clans not ruled out for them (:func:`.knowledge.unknown_clans`: in *Clans* no
clan is shown before the end, so every clan but one's own).

>>> import random
>>> from pbem.rules.deal import deal_game
>>> from pbem.rules.record import export_record, play_record
>>> from pbem.rules.views import player_view
>>> from pbem.rules.game import Game
>>> deal = deal_game(["ann", "bob", "cid"], random.Random(4))
>>> game = Game(deal.board, deal.players, {t: [c] for t, c in deal.setup}, clans=deal.clans)  # ann first
>>> for _ in range(5):
...     _ = game.push(next(iter(game.legal_moves())))
>>> view = player_view(game, 1)
>>> clans = redeal(view, random.Random(1))
>>> clans[1] == game.clans[1], len(set(clans)) == 3
(True, True)
>>> record = practice_record(export_record(game, reveal=False), 5, ["Ada", "me", "Alan"], clans)
>>> practice = play_record(record)
>>> practice.position() == game.position(), practice.turn == game.turn, practice.players[1]
(True, True, 'me')
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from . import errors
from .knowledge import unknown_clans
from .record import FORMAT
from .views import PlayerView


def redeal(view: PlayerView, rng: random.Random) -> tuple[str, ...]:
    """A clan for every seat from what the view's seat knows: its own clan in its
    seat, the others drawn from ``rng`` among the clans none of them is ruled out
    from (each a different one).  The view is all it reads: whatever the real
    clans are, this cannot tell them."""
    own = view["clan"]
    if own is None:
        raise errors.InvalidRecord("redeal: the view has no clan of its own (the game has not started)")
    seats = len(view["players"])
    others = rng.sample(unknown_clans(view), seats - 1)
    return tuple(own if n == view["seat"] else others.pop() for n in range(seats))


def practice_record(record: Mapping[str, Any], ply: int, players: Sequence[str],
                    clans: Sequence[str]) -> dict[str, Any]:
    """The ``clans-record/1`` of a practice game from move ``ply`` of ``record``:
    its board, set-up and first ``ply`` moves, with ``players`` (in the record's
    seat order) holding ``clans``.  The record's own clans, if it has them, are
    not read."""
    moves = record.get("moves")
    if not isinstance(moves, list) or isinstance(ply, bool) or not 0 <= ply <= len(moves):
        raise errors.InvalidRecord(f"practice: no position {ply!r} in this record")
    if len(players) != len(record.get("players", ())) or len(clans) != len(players):
        raise errors.InvalidRecord("practice: one player and one clan for each seat of the record")
    return {
        "format": FORMAT,
        "board": record["board"],
        "players": list(players),
        "clans": dict(zip(players, clans)),
        "setup": record["setup"],
        "moves": list(moves[:ply]),
    }
