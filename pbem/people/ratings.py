"""Players' ratings: an OpenSkill (Plackett-Luce) rating per address, taken from
each game that ended by the rules (the twelfth village, or no move left) and
that only people played, and shown to those who chose to see it.

Who is rated: every person of such a game, opted in or not, so that everyone's
rating measures the same field (a player who has not opted in is rated as the
opponent they really were, not as a newcomer each time); it is kept under the
address's SHA-256 only, and shown to nobody but its own signed-in player, and
only once they opt in.  Not rated: a game any seat of which the computer played
at any time (made for it, or handed to it during the game: ``Seat.bot`` stays
set), practice games (``Game.practice_of``: they play on from another game's
position), and games that expired or were cancelled (they never reach the end).
Moves the autopilot made for an absent player do not make a game unrated: that
result is the absent player's own (their reliability figure shows it).

Each game is rated once: :func:`record_end` runs in the transaction of the move
that ends it, and ``Game.rated_at`` is set there with a guarded update, so a
second call for the same game (a retried worker, a replayed finishing path)
changes nothing.  Two games ending at once for the same player lock their
rating rows in one order (by hash), so neither loses the other's update."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Sequence

from openskill.models import PlackettLuce
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from .. import rules
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import Game, Rating, Seat
from .players import address_hash

#: A rating is provisional (shown as such, without its number) before this many rated games.
SHOWN_AFTER = 5

_MODEL = PlackettLuce()


def record_end(session: Session, game: Game, seats: Sequence[Seat], position: rules.Game, now: datetime) -> bool:
    """Write each seat's result and, for a game of people only, their new
    ratings, in the caller's transaction (the move that ended the game).
    Returns whether the game was rated now."""
    outcome = position.outcome()
    if outcome is None:
        return False
    best = max(outcome.final_scores)
    by_position = {s.position: s for s in seats}
    for n, score in enumerate(outcome.final_scores):
        seat = by_position[n]
        seat.final_score = score
        seat.won = score == best
        session.add(seat)
    if game.practice_of is not None or not rated(seats):
        return False
    claimed = session.exec(update(Game).where(col(Game.id) == game.id, col(Game.rated_at).is_(None))
                           .values(rated_at=now))
    if claimed.rowcount != 1:
        return False  # rated already
    set_committed_value(game, "rated_at", now)
    rows = _rows_for_update(session, [address_hash(by_position[n].email) for n in range(len(seats))], now)
    teams = [[_MODEL.rating(mu=row.mu, sigma=row.sigma)] for row in rows]
    new = _MODEL.rate(teams, scores=list(outcome.final_scores))
    for row, (player,) in zip(rows, new):
        row.mu, row.sigma = float(player.mu), float(player.sigma)
        row.games += 1
        row.updated_at = now
        session.add(row)
    session.flush()
    return True


def rated(seats: Sequence[Seat]) -> bool:
    """Whether a game with these seats is rated: people only, for its whole length."""
    return all(s.bot is None and s.bot_from is None and s.email for s in seats)


def _rows_for_update(session: Session, hashes: list[str], now: datetime) -> list[Rating]:
    """The rating rows of these addresses (made if missing), locked, in the order given."""
    for digest in sorted(set(hashes)):
        if session.exec(select(Rating.id).where(col(Rating.address_hash) == digest)).first() is None:
            try:
                with session.begin_nested():  # made at the same moment by another game's end
                    session.add(Rating(address_hash=digest, updated_at=now))
            except IntegrityError:
                pass
    # One order for every transaction, so that two games ending at once cannot deadlock.
    # populate_existing: what the lock's last holder committed, not what this session read before.
    found = session.exec(select(Rating).where(col(Rating.address_hash).in_(hashes))
                         .order_by(col(Rating.address_hash)).with_for_update()
                         .execution_options(populate_existing=True)).all()
    by_hash = {r.address_hash: r for r in found}
    return [by_hash[h] for h in hashes]


# -- what a signed-in player sees ------------------------------------------------


@dataclass(frozen=True)
class Shown:
    """A player's own rating as their dashboard shows it."""

    opted_in: bool
    games: int
    #: ``None`` while provisional (fewer than SHOWN_AFTER rated games) or not opted in.
    rating: float | None
    mu: float | None
    sigma: float | None


def shown_rating(ctx: Context, email: str) -> Shown:
    """The signed-in player's rating (only the number once it is no longer provisional)."""
    with session_scope(ctx.engine) as session:
        row = session.exec(select(Rating).where(col(Rating.address_hash) == address_hash(email))).first()
        if row is None or not row.opted_in:
            return Shown(opted_in=row is not None and row.opted_in, games=0, rating=None, mu=None, sigma=None)
        if row.games < SHOWN_AFTER:
            return Shown(opted_in=True, games=row.games, rating=None, mu=None, sigma=None)
        # The ordinal (mu - 3 sigma): what OpenSkill ranks by, cautious while it is unsure.
        ordinal = row.mu - 3 * row.sigma
        return Shown(opted_in=True, games=row.games, rating=round(ordinal, 1), mu=round(row.mu, 1),
                     sigma=round(row.sigma, 1))


def set_opt_in(ctx: Context, email: str, on: bool) -> None:
    """Show (or stop showing) the signed-in player their rating and stats.  The
    caller has checked the browser's sign-in for ``email``."""
    now = ctx.now()
    digest = address_hash(email)
    with session_scope(ctx.engine) as session:
        changed = session.exec(update(Rating).where(col(Rating.address_hash) == digest)
                               .values(opted_in=on, updated_at=now))
        if changed.rowcount == 1 or not on:
            return
        try:
            with session.begin_nested():  # two clicks at once: the second finds the row
                session.add(Rating(address_hash=digest, opted_in=True, updated_at=now))
        except IntegrityError:
            session.exec(update(Rating).where(col(Rating.address_hash) == digest).values(opted_in=True))
