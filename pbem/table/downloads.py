"""Take it with you: a game's record and the board of any of its positions, to
download.

The record is the game's ``clans-record/1`` as ``pbem export`` and
``/api/v1/games/{id}/record`` give it: the clans only once the game is over.
A position's board is drawn from what anyone may see of it (the huts are on the
table for all; whose clan is whose is not), rebuilt by the rules as the replay
rebuilds it.  A seat's own current position is its own view (``game_view``): its
clan, never the others' before the end."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .. import rules
from ..core import errors
from ..core.context import Context
from ..core.db import session_scope
from ..rules.record import export_record, load_record, parse_record_move
from ..rules.views import PublicView, SeatView, View, public_view
from ..words import N_
from pbem.games.lookup import game_and_seats, game_by_public_id, rules_game, seat_and_game
from pbem.games.views import export_game, game_view


@dataclass(frozen=True)
class Position:
    """A position to draw: what may be seen of it, and where it stands."""

    game: str
    ply: int
    #: The number of moves played so far (positions run from 0 to ``moves``).
    moves: int
    view: PublicView | View | SeatView
    #: The board style its viewer chose (``None``: standard).
    style: str | None = None
    #: A seat's own view (its language and time zone too), for its own board.
    own: SeatView | None = None


def record(ctx: Context, public_id: object) -> dict[str, Any]:
    """The game's record to download (the clans only once it is over)."""
    return export_game(ctx, public_id)


def public_position(ctx: Context, public_id: object, ply: int) -> Position:
    """The position after move ``ply`` (0: the set-up) as anyone sees it;
    ``NotFound`` for a game not started or a position beyond it."""
    with session_scope(ctx.engine) as session:
        game = game_by_public_id(session, public_id)
        current = rules_game(game)
        if current is None:
            raise errors.NotFound(N_("game %(game)s has not started: it has no board yet"), game=game.public_id,
                                  code="not-started")
        moves = len(current.history)
        if not 0 <= ply <= moves:
            raise errors.NotFound(N_("game %(game)s has no position %(ply)s: they run from 0 to %(last)s"),
                                  game=game.public_id, ply=str(ply)[:12], last=moves, code="no-such-position")
        if ply == moves:
            # The position as it stands: the one view anyone gets of the game.
            _, seats = game_and_seats(session, game.id)
            return Position(game=game.public_id, ply=ply, moves=moves,
                            view=game_view(ctx, game, seats, None, position=current))
        public_id_text = game.public_id
    return Position(game=public_id_text, ply=ply, moves=moves, view=public_view(_rebuilt(current, ply)))


def _rebuilt(current: rules.Game, ply: int) -> rules.Game:
    """The game after its first ``ply`` moves, replayed by the rules from its set-up
    (the clans stay here: only :func:`public_view` of it leaves)."""
    full = export_record(current, reveal=True)
    position = load_record(json.loads(json.dumps(full)))
    for raw in full["moves"][:ply]:
        move, order = parse_record_move(raw)
        position.push(move, order)
    return position


def seat_position(ctx: Context, token: object) -> Position:
    """The seat's own current position, as its own view shows it (its clan, in
    its board style); ``NotFound`` before the game has started."""
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        if not game.state:
            raise errors.NotFound(N_("game %(game)s has not started: it has no board yet"), game=game.public_id,
                                  code="not-started")
        view = game_view(ctx, game, seats, seat)
        return Position(game=game.public_id, ply=view["ply"], moves=view["ply"], view=view, style=seat.board_style,
                        own=view)
