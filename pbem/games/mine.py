"""A person's own games, for the signed-in dashboard ("My games")."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from ..core.context import Context
from ..core.db import session_scope
from ..core.links import seat_link, seat_token
from ..core.models import Game, GameStatus, Seat
from .views import game_view, status_for


GAMES_PER_PAGE = 20


def games_of(ctx: Context, email: str, page: int = 1) -> tuple[list[dict[str, Any]], bool]:
    """One page of the games of the player with this email, newest first, with
    their links; and whether there are more.  Each says who the others are,
    who is to move or how it ended — from the game's public view, so nothing
    hidden shows — and, once over, its rematch (with this player's own seat in
    it) if one has started."""
    page = max(1, page)
    address = email.lower()
    with session_scope(ctx.engine) as session:
        rows = session.exec(
            select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id))
            .where(col(Seat.email) == address).order_by(col(Game.id).desc())
            .offset((page - 1) * GAMES_PER_PAGE).limit(GAMES_PER_PAGE + 1)
        ).all()
        more = len(rows) > GAMES_PER_PAGE
        rows = rows[:GAMES_PER_PAGE]
        # Every seat of these games, and the rematches of the finished ones with this
        # player's seat in each: a query each rather than some per game.
        seats: dict[int, list[Seat]] = {}
        for other in session.exec(select(Seat).where(col(Seat.game_id).in_([g.id for _, g in rows]))
                                  .order_by(col(Seat.game_id), col(Seat.position))):
            seats.setdefault(other.game_id, []).append(other)
        rematches: dict[int, dict[str, str | None]] = {}
        finished = [g.id for _, g in rows if g.status == GameStatus.FINISHED]
        if finished:
            for of, public_id in session.exec(select(Game.rematch_of, Game.public_id)
                                              .where(col(Game.rematch_of).in_(finished))):
                assert of is not None  # selected by it
                rematches[of] = {"game": public_id, "link": None}
            for of, own in session.exec(select(Game.rematch_of, Seat).join(Seat, col(Seat.game_id) == col(Game.id))
                                        .where(col(Game.rematch_of).in_(finished), col(Seat.email) == address)):
                assert of is not None
                rematches[of]["link"] = seat_link(ctx, own)
        out = []
        for seat, game in rows:
            assert game.id is not None  # loaded
            view = game_view(ctx, game, seats[game.id], None)
            you = view["players"][seat.position]
            out.append({
                "game": game.public_id, "status": status_for(game, seat), "ply": game.ply,
                # A seat handed to the computer is never the person's turn.
                "your_turn": game.status == GameStatus.ACTIVE and game.turn_seat == seat.position and seat.bot is None,
                "players": [p["name"] for p in view["players"]], "link": seat_link(ctx, seat),
                "token": seat_token(ctx, seat), "name": seat.name,
                "others": [p["name"] for p in view["players"] if p["seat"] != seat.position],
                "next": view["next"] if game.status == GameStatus.ACTIVE else None,
                "winners": view["winners"] if game.status == GameStatus.FINISHED else None,
                # Clans are public once the game is over (the view has them only then).
                "result": {"clan": you["clan"], "final": you["final_score"], "chips": you["chips"],
                           "clan_score": view["clan_scores"].get(you["clan"], 0)}
                if game.status == GameStatus.FINISHED and you["clan"] else None,
                "rematch": rematches.get(game.id),
                # "Play again" is a person's: a seat the computer plays has none.
                "can_rematch": game.status == GameStatus.FINISHED and seat.bot is None,
            })
        return out, more
