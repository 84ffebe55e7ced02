"""Pre-moves: a ranked list of moves a player sets while it is not their turn;
when the turn comes, the first of them that is legal then is played at once,
in the transaction of the move that brought the turn (:func:`fire`, called by
:func:`pbem.games.moves.store_move`, so it is the same ply guard whoever moved:
a person, a reply, the autopilot, the computer or another pre-move).

The list is the seat's alone: it lives in its own table
(:mod:`pbem.core.premove_tables`), and no view, webhook post, record or
computer player reads it.  A fired pre-move is stored as the seat's move like
any other; nothing tells the others it was set ahead.

The list is cleared when one fires or when none is legal as the turn comes
(the turn mail then says so); a player's own move finds it empty (it can only
be set while it is not their turn, under the game row's lock, and every turn
that comes clears it)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from .. import rules
from ..core import errors
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import Game, GameStatus, Seat
from ..core.premove_tables import SET_LISTS, PremoveList
from ..rules import Move, RulesError
from ..rules.ahead import MAX_ORDER, check_ahead
from ..rules.errors import BadOrder
from ..words import N_
from .lookup import refuse_computer_seat, rules_game, seat_and_game

log = logging.getLogger(__name__)

#: The longest list a seat may set (the turn comes after two or three others'
#: moves: ten choices cover what a player can foresee).
MAX_PREMOVES = 10


@dataclass(frozen=True)
class Premove:
    """One entry of the list: a move and, optionally, its villages' order."""

    move: Move
    order: tuple[int, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"move": str(self.move), "order": list(self.order) if self.order is not None else None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Premove":
        order = data.get("order")
        return cls(Move.parse(data["move"]), tuple(order) if order is not None else None)


def parse_premoves(raw: object, *, strict: bool = False) -> list[Premove]:
    """The list as a client sent it (``["12-13", {"move": "4-5", "order": [6, 7]}]``),
    read for its form only: ``Invalid`` for a list that is not one, too long, or an
    entry of another shape; ``MoveRefused`` (the rules' codes) for a move that is no
    move or an order that is no list of territory ids."""
    if not isinstance(raw, list):
        raise errors.Invalid(N_("moves must be a list of moves, e.g. [\"12-13\", \"4-5\"]"),
                             code="invalid-premoves", field="moves")
    if len(raw) > MAX_PREMOVES:
        raise errors.Invalid(N_("at most %(max)d pre-moves"), max=MAX_PREMOVES, code="too-many-premoves",
                             field="moves")
    found: list[Premove] = []
    for entry in raw:
        order: object = None
        text: object = entry
        if isinstance(entry, dict):
            if not set(entry) <= {"move", "order"}:
                raise errors.Invalid(N_("a pre-move is a move, or an object with \"move\" and \"order\""),
                                     code="invalid-premoves", field="moves")
            text, order = entry.get("move"), entry.get("order")
        try:
            move = Move.parse(text, strict=strict)
        except RulesError as e:
            raise errors.MoveRefused(e) from e
        if order is not None:
            if (not isinstance(order, list) or len(order) > MAX_ORDER or len(set(map(repr, order))) != len(order)
                    or not all(isinstance(x, int) and not isinstance(x, bool) for x in order)):
                error = BadOrder(f"{move}: order must be a list of territory ids, not {order!r:.40}",
                                 move=str(move), given=f"{order!r:.40}")
                raise errors.MoveRefused(error)
        premove = Premove(move, tuple(order) if order is not None else None)
        if premove not in found:  # the same choice twice ranks where it came first
            found.append(premove)
    return found


# -- the seat's own list -------------------------------------------------------------------

def premoves_view(row: PremoveList | None) -> dict[str, Any]:
    """What the seat itself is shown of its list (the API's body, the page's section)."""
    moves = json.loads(row.moves) if row is not None and row.moves else []
    return {"moves": moves, "limit": MAX_PREMOVES,
            "fired": json.loads(row.fired) if row is not None and row.fired else None,
            "missed": json.loads(row.missed) if row is not None and row.missed else None}


def own_premoves(session: Session, seat: Seat) -> dict[str, Any]:
    """The seat's own list, read in the caller's transaction (its page's)."""
    return premoves_view(session.get(PremoveList, seat.id))


def premoves_of(ctx: Context, token: object) -> dict[str, Any]:
    """The token's seat's list (``GET /api/v1/seat/premoves``)."""
    with session_scope(ctx.engine) as session:
        seat, _, _ = seat_and_game(session, token)
        return premoves_view(session.get(PremoveList, seat.id))


def set_premoves(ctx: Context, token: object, raw: object, *, strict: bool = False) -> dict[str, Any]:
    """Replace the seat's list (``raw`` as :func:`parse_premoves` reads it; an empty
    list clears it).  Only while the game is being played and it is not the
    seat's turn (``409``: ``not-started``, ``game-over``, ``your-turn``,
    ``computer-seat``); a move that can never be legal is refused with the
    rules' code (``422``).  Nothing changes on a refusal."""
    premoves = parse_premoves(raw, strict=strict)
    return _store(ctx, token, lambda _: premoves)


def add_premove(ctx: Context, token: object, move: Move, order: Sequence[int] | None) -> dict[str, Any]:
    """Add one move at the end of the seat's list (the seat page's form)."""
    entry = Premove(move, tuple(order) if order is not None else None)

    def added(current: list[Premove]) -> list[Premove]:
        if entry in current:
            return current
        if len(current) >= MAX_PREMOVES:
            raise errors.Invalid(N_("at most %(max)d pre-moves"), max=MAX_PREMOVES, code="too-many-premoves",
                                 field="moves")
        return current + [entry]
    return _store(ctx, token, added)


def remove_premove(ctx: Context, token: object, index: object) -> dict[str, Any]:
    """Take the entry at ``index`` (counted from 0) off the seat's list."""
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise errors.BadRequest(N_("which pre-move? (a whole number)"), code="bad-request")
    return _store(ctx, token, lambda current: [p for i, p in enumerate(current) if i != index], checks=False)


def clear_premoves(ctx: Context, token: object) -> dict[str, Any]:
    """Empty the seat's list (``DELETE``): at any time, and idempotent."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, _, _ = seat_and_game(session, token)
        row = session.get(PremoveList, seat.id)
        if row is not None and row.moves is not None:
            row.moves, row.updated_at = None, now
            session.add(row)
        return premoves_view(row)


# Reads the game row again under a lock: a move being stored for this game
# (which locks it too) either finished first, and the turn is seen, or waits
# for this list, and finds it when its turn comes (:func:`fire`).
_LOCK_GAME = select(Game).where(col(Game.id) == bindparam("game_id")).with_for_update()


def _store(ctx: Context, token: object, change: Any, *, checks: bool = True) -> dict[str, Any]:
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, _ = seat_and_game(session, token)
        game = session.exec(_LOCK_GAME, params={"game_id": game.id},
                            execution_options={"populate_existing": True}).one()
        refuse_computer_seat(seat)
        if game.status == GameStatus.INVITED:
            raise errors.Conflict(N_("the game starts when every player has accepted"), code="not-started")
        if game.status != GameStatus.ACTIVE:
            raise errors.Conflict(N_("the game is over"), code="game-over")
        if game.turn_seat == seat.position:
            raise errors.Conflict(N_("it is your turn: make your move now"), code="your-turn")
        row = session.get(PremoveList, seat.id)
        current = [Premove.from_json(m) for m in json.loads(row.moves)] if row is not None and row.moves else []
        premoves: list[Premove] = change(current)
        if checks:
            position = rules_game(game)
            assert position is not None  # an active game has a position
            for p in premoves:
                try:
                    check_ahead(position, p.move, list(p.order) if p.order is not None else None)
                except RulesError as e:
                    raise errors.MoveRefused(e) from e
        if row is None:
            assert seat.id is not None
            row = PremoveList(seat_id=seat.id, updated_at=now)
        row.moves = json.dumps([p.to_json() for p in premoves]) if premoves else None
        row.updated_at = now
        session.add(row)
        session.flush()
        # What this transaction's look-up knew of the seat's list is no more.
        session.info.get(SET_LISTS, {}).pop(seat.id, None)
        return premoves_view(row)


# -- when the turn comes -------------------------------------------------------------------

# Asked on every move whose next player is a person: built once (as
# pbem.games.lookup's statements are), and it mostly finds nothing.
_LIST_OF_SEAT = select(PremoveList).where(col(PremoveList.seat_id) == bindparam("seat_id")).with_for_update()


#: Seats' lists a transaction has read already (``session.info[KNOWN][seat_id]``:
#: the row, or ``None`` for none), e.g. with the rest of a mail's reader
#: (:mod:`pbem.mail.reader`).
KNOWN = "pbem.premoves_known"


def may_fire(session: Session, seats: Sequence[Seat], position: rules.Game) -> bool:
    """Whether the player to move in ``position`` may have a pre-move to fire:
    not the computer's seat, nor one the transaction's look-up found without a
    list (:data:`pbem.core.premove_tables.SET_LISTS`)."""
    turn = position.turn
    if turn is None:
        return False
    seat = seats[turn]
    if seat.bot is not None:
        return False
    return session.info.get(SET_LISTS, {}).get(seat.id) is not False


def fire(session: Session, seats: Sequence[Seat], position: rules.Game,
         now: datetime) -> tuple[Seat, Move, list[int] | None] | None:
    """The turn of ``position.turn`` has come (the position just stored): play
    the first of its pre-moves that is legal now on ``position`` and return
    ``(seat, move, order)`` for the caller to store, or ``None`` (no list, or none
    legal: the list is cleared either way, and what became of it is kept for
    the seat's next mail).  An entry whose order does not match the villages
    its move founds now is not legal."""
    turn = position.turn
    if turn is None:
        return None
    seat = seats[turn]
    if seat.bot is not None or seat.id is None:
        return None
    row = session.exec(_LIST_OF_SEAT, params={"seat_id": seat.id}).first()
    if row is None or not row.moves:
        return None
    entries = json.loads(row.moves)
    ply = position.ply
    chosen: tuple[Move, list[int] | None] | None = None
    chosen_rank = 0
    for rank, entry in enumerate(entries, 1):
        premove = Premove.from_json(entry)
        order = list(premove.order) if premove.order is not None else None
        try:
            position.push(premove.move, order)
        except RulesError:
            continue  # it became illegal since it was set: the next one
        chosen, chosen_rank = (premove.move, order), rank
        row.fired = json.dumps({"ply": ply, "move": str(premove.move), "order": order, "rank": rank,
                                "of": len(entries)})
        break
    # The operator's log says that a list was used, never what it held.
    log.info("game %s: seat %d's pre-moves at move %d: %s", seat.game_id, seat.position, ply + 1,
             f"choice {chosen_rank} of {len(entries)} played" if chosen else "none legal")
    if chosen is None:
        row.missed = json.dumps({"ply": ply, "moves": entries})
    row.moves, row.updated_at = None, now
    session.add(row)
    if chosen is None:
        return None
    return seat, chosen[0], chosen[1]


def news_of(session: Session, seat: Seat, view: dict[str, Any]) -> dict[str, Any]:
    """What a mail to ``seat`` says of its pre-moves, from its own row and its own
    view: the one that was played as its last move (``fired``), and the list of
    which none was legal when this turn came (``missed``, while the turn is
    still theirs)."""
    if seat.id is None or seat.bot is not None:
        return {}
    known = session.info.get(KNOWN, {})
    row = known[seat.id] if seat.id in known else session.get(PremoveList, seat.id)
    if row is None or (row.fired is None and row.missed is None):
        return {}
    news: dict[str, Any] = {}
    own = [h["ply"] for h in view.get("history", []) if h.get("seat") == seat.position]
    if row.fired is not None and own:
        fired = json.loads(row.fired)
        if fired["ply"] + 1 == own[-1]:  # the history counts moves from 1
            news["fired"] = fired
    if row.missed is not None and view.get("your_turn"):
        missed = json.loads(row.missed)
        if missed["ply"] == view.get("ply"):
            news["missed"] = missed
    return news
