"""Playing by replying to the turn mail.

A turn mail's ``Reply-To`` is ``move+TOKEN@{INBOUND_DOMAIN}``, a reply token
tied to one seat and one ply (:mod:`pbem.inbound.reply_tokens`, which also
finds the turn of a reply whose client dropped the ``+tag``).  A turn found
only through ``In-Reply-To``/``References`` moves nothing without
``INBOUND_TRUST``: anyone who saw the headers could write it, so the seat is
asked to confirm (``confirm:headers``).  Nothing of what the service sent
reaches the table from a reply (:mod:`pbem.inbound.sent_mail`,
:mod:`pbem.inbound.guard`); the answer says so.

:func:`handle_reply` handles one stored :class:`~pbem.core.models.Inbound` message:
automatic mail is never answered; a reply from the seat's own address (and,
with ``INBOUND_TRUST=authres:<id>``, with a DMARC or aligned SPF/DKIM pass from
that server) has its first line played through :func:`games.submit_move`,
the page's own call, guarded by the token's ply; the rest of its fresh text
goes to the table talk.  Every other reply is answered: ``reply-accepted``,
``reply-refused`` (why, and what can be played now) or, when the sender is not
sure to be the seat, ``reply-confirm`` (a link to confirm the move on the page;
nothing is played).  What the answer says is worked out again from the stored
message when it is built (:func:`pbem.inbound.answers.answer`): the reading is
pure, and the outcome stored with the message says what was done.

Who sent a reply is :mod:`pbem.inbound.senders`' question; table talk by mail
(``talk+TOKEN@``) is handled here too (:func:`handle_talk`)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from sqlalchemy import update
from sqlmodel import Session, select

from ..core import errors, events
from ..core.context import Context
from ..core.db import session_scope
from ..core.events import Event
from ..core.models import Game, GameStatus, Inbound, InboundStatus, MoveRecord, ReplyToken, Seat, table_of
from ..core.outbox import OutboxKind, enqueue
from ..table.talk import post_talk
from ..core import links
from .. import games
from ..rules import Move
from . import guard, message_text, quotes
from .reading import looks_like_moves, read_premoves
from .outcomes import PREMOVES, RULES, UNANSWERED, Outcome, outcome
from .received import header, parse, read
from .reply_tokens import turn_of
from .senders import is_automatic, sender_problem, trusting
from .sent_mail import sent_to

log = logging.getLogger(__name__)

#: An inbound message whose move is being played (its token taken): run again
#: after a crash, the handler plays it again, which the ply guard makes a no-op.
APPLYING = Outcome.APPLYING

#: Our own answers to a reply, by their Message-ID (``<HEX.reply-refused@host>``; before, ``<TOKEN.reply-refused.ID@host>``).
_REFUSAL_ID = re.compile(r"\.reply-refused[.@]", re.IGNORECASE)


# -- handling a reply ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Done:
    outcome: str
    outbox: list[int | None]


@dataclass(frozen=True)
class _Premoves:
    """A reply whose first line sets the seat's pre-moves (``then 12-13, 4-5``)."""

    seat_token: str
    #: ``None``: a first line of pre-moves that could not be read (refused as such).
    moves: list[dict[str, object]] | None


@dataclass(frozen=True)
class _Plan:
    seat_token: str
    token_id: int
    ply: int
    move: Move
    order: list[int] | None


def handle_reply(ctx: Context, inbound_id: int) -> str:
    """Handle one received message; returns its outcome (also stored with it):
    ``ignored-auto``, ``ignored-unknown`` (no turn of ours), ``confirm:sender``
    ``confirm:trust`` or ``confirm:headers`` (not played; the seat is asked
    to confirm on the page), ``refused:<why>``, or ``accepted`` (``accepted:talk`` with talk
    posted, ``accepted:talk-refused`` when the talk could not be).  Handling a
    message again returns what it did the first time."""
    with session_scope(ctx.engine) as session:
        step = _check(ctx, session, inbound_id)
    if isinstance(step, _Done):
        ctx.relay(step.outbox)
        return step.outcome
    if isinstance(step, _Premoves):
        return _set_premoves(ctx, inbound_id, step)
    refused: errors.ServiceError | None = None
    try:
        games.submit_move(ctx, step.seat_token, step.move, step.order, step.ply, strict=False)
    except errors.ServiceError as e:
        refused = e
    with session_scope(ctx.engine) as session:
        done = _after_move(ctx, session, inbound_id, step, refused)
    ctx.relay(done.outbox)
    return done.outcome


def _set_premoves(ctx: Context, inbound_id: int, step: _Premoves) -> str:
    """Set the pre-moves a reply gives, through the page's own call, and answer
    it (``accepted:premoves``, or ``refused:premoves:<code>``).  Nothing of such
    a reply goes to the table: the list is private, and so is what came with it."""
    refused: errors.ServiceError | None = None
    try:
        games.set_premoves(ctx, step.seat_token, step.moves)
    except errors.ServiceError as e:
        refused = e
    with session_scope(ctx.engine) as session:
        inbound = session.get(Inbound, inbound_id, with_for_update=True)
        if inbound is None:
            return Outcome.MISSING
        if inbound.status == InboundStatus.DONE:
            return inbound.outcome or Outcome.DONE
        token, _ = turn_of(session, inbound, parse(inbound.raw))
        seat = session.get(Seat, token.seat_id) if token is not None else None
        if refused is None:
            done = _finish(ctx, session, inbound, outcome(Outcome.ACCEPTED, PREMOVES), OutboxKind.REPLY_ACCEPTED,
                           seat)
        else:
            done = _finish(ctx, session, inbound, outcome(Outcome.REFUSED, PREMOVES, refused.code),
                           OutboxKind.REPLY_REFUSED, seat)
    ctx.relay(done.outbox)
    return done.outcome


def _check(ctx: Context, session: Session, inbound_id: int) -> _Done | _Plan | _Premoves:
    """Everything before the move, in one transaction: what the message is,
    whose turn it answers, and whether its move may be played (then its token
    is taken, so that a second reply for the turn is not)."""
    # Locked (where the database can): a message handed to two workers is handled by one at a time.
    inbound = session.get(Inbound, inbound_id, with_for_update=True)
    if inbound is None:
        return _Done(Outcome.MISSING, [])
    if inbound.status == InboundStatus.DONE:
        return _Done(inbound.outcome or Outcome.DONE, [])
    # (Attempts are counted by pbem.inbound.handling, which claims the message.)
    message = parse(inbound.raw)
    resuming = inbound.outcome == APPLYING
    if not resuming and is_automatic(ctx, message, inbound.sender):
        return _finish(ctx, session, inbound, Outcome.IGNORED_AUTO)
    token, by_header = turn_of(session, inbound, message)
    game, seats = games.game_and_seats(session, token.game_id if token else None)
    seat = next((s for s in seats if token and s.id == token.seat_id), None)
    if token is None or game is None or seat is None:
        return _finish(ctx, session, inbound, Outcome.IGNORED_UNKNOWN)
    reply = read(message, sent_to(ctx, session, seat, inbound.received_at))
    if not resuming:
        problem = sender_problem(ctx, message, inbound.sender, seat)
        if problem is None and by_header and not trusting(ctx):
            # Found only by the Message-ID it answers, which travels in every
            # forwarded header: a From anyone can write is not enough.
            problem = "headers"
        if problem:
            return _finish(ctx, session, inbound, outcome(Outcome.CONFIRM, problem), OutboxKind.REPLY_CONFIRM, seat)
        if reply.premoves is not None:
            # Pre-moves are for a later turn: the token only said whose they are.
            return _Premoves(links.seat_token(ctx, seat), [
                {"move": str(move), "order": list(order) if order is not None else None}
                for move, order in reply.premoves])
        if reply.problem:
            if _REFUSAL_ID.search(header(message, "In-Reply-To")):
                # No move again, in answer to our own refusal: most likely an
                # auto-responder that does not say it is one. Answering would loop.
                return _finish(ctx, session, inbound, outcome(Outcome.REFUSED, reply.problem, UNANSWERED))
            return _finish(ctx, session, inbound, outcome(Outcome.REFUSED, reply.problem), OutboxKind.REPLY_REFUSED,
                           seat)
        stale = "used" if token.used_at is not None else _stale(session, game, seat, token)
        if stale:
            return _finish(ctx, session, inbound, outcome(Outcome.REFUSED, stale), OutboxKind.REPLY_REFUSED, seat)
        taken = session.connection().execute(
            update(table_of(ReplyToken)).where(table_of(ReplyToken).c.id == token.id,
                                               table_of(ReplyToken).c.used_at.is_(None))
            .values(used_at=ctx.now()))
        if taken.rowcount != 1:
            return _finish(ctx, session, inbound, outcome(Outcome.REFUSED, "used"), OutboxKind.REPLY_REFUSED, seat)
        inbound.outcome = APPLYING
    assert reply.move is not None and token.id is not None
    return _Plan(links.seat_token(ctx, seat), token.id, token.ply, reply.move,
                 list(reply.order) if reply.order is not None else None)


def _after_move(ctx: Context, session: Session, inbound_id: int, plan: _Plan,
                refused: errors.ServiceError | None) -> _Done:
    inbound = session.get(Inbound, inbound_id, with_for_update=True)
    token = session.get(ReplyToken, plan.token_id)
    assert inbound is not None and token is not None
    if inbound.status == InboundStatus.DONE:
        return _Done(inbound.outcome or Outcome.DONE, [])
    game, seats = games.game_and_seats(session, token.game_id)
    seat = next(s for s in seats if s.id == token.seat_id)
    assert game is not None
    if refused is None:
        done_as = outcome(Outcome.ACCEPTED)
        talk = read(parse(inbound.raw), sent_to(ctx, session, seat, inbound.received_at)).talk
        talk_mail: list[int | None] = []
        if talk:
            try:
                with session.begin_nested():
                    post_talk(ctx, session, seat, talk, source="reply", outbox=talk_mail)
                done_as = outcome(Outcome.ACCEPTED, Outcome.TALK)
            except errors.ServiceError:
                done_as = outcome(Outcome.ACCEPTED, Outcome.TALK_REFUSED)
                talk_mail = []
        done = _finish(ctx, session, inbound, done_as, OutboxKind.REPLY_ACCEPTED, seat)
        # The others' talk mail goes with the answer, not at the next sweep.
        return _Done(done.outcome, done.outbox + talk_mail)
    if isinstance(refused, errors.MoveRefused):
        # The rules said no: the turn is still theirs, and a corrected reply may use the token.
        session.connection().execute(update(table_of(ReplyToken)).where(table_of(ReplyToken).c.id == token.id)
                                     .values(used_at=None))
        why: tuple[str, ...] = (RULES, refused.code)
    else:
        why = (_stale(session, game, seat, token) or refused.code,)
    return _finish(ctx, session, inbound, outcome(Outcome.REFUSED, *why), OutboxKind.REPLY_REFUSED, seat)


def _stale(session: Session, game: Game, seat: Seat, token: ReplyToken) -> str | None:
    """Why the turn a token was for can no longer be played: ``moved`` (the
    seat moved, on the page or by another reply), ``autopilot``, ``game-over``,
    ``stale`` (the game has moved on), ``not-your-turn``; ``None`` if it can."""
    if game.ply != token.ply:
        record = move_record(session, game, token.ply)
        if record is not None and record.position == seat.position:
            return "autopilot" if record.by_autopilot else "moved"
        return "game-over" if game.status != GameStatus.ACTIVE else "stale"
    if game.status != GameStatus.ACTIVE:
        return "game-over"
    if game.turn_seat != seat.position:
        return "not-your-turn"
    return None


def move_record(session: Session, game: Game, ply: int) -> MoveRecord | None:
    return session.exec(select(MoveRecord).where(MoveRecord.game_id == game.id, MoveRecord.ply == ply)).first()


def _finish(ctx: Context, session: Session, inbound: Inbound, outcome: str, answer: OutboxKind | None = None,
            seat: Seat | None = None) -> _Done:
    """The message is handled: its outcome stored and its answer (if any) in
    the outbox, in the same transaction."""
    now = ctx.now()
    inbound.status, inbound.outcome, inbound.handled_at = InboundStatus.DONE, outcome, now
    session.add(inbound)
    outbox: list[int | None] = []
    if answer is not None and seat is not None and _may_answer(ctx, seat):
        outbox.append(enqueue(session, kind=answer, event=events.key(Event.INBOUND, inbound.id), recipient=seat.email,
                              base_url=ctx.base_url, now=now, game_id=seat.game_id, seat_id=seat.id))
    return _Done(outcome, outbox)


def _may_answer(ctx: Context, seat: Seat) -> bool:
    """Whether this seat may get one more answer mail now (``LIMIT_REPLY_ANSWERS``):
    beyond it the reply is still handled (a move still plays), only unanswered."""
    try:
        ctx.limit("LIMIT_REPLY_ANSWERS", [f"seat:{seat.id}"])
    except errors.RateLimited:
        log.warning("seat %s: too many answers to replies; this one is not mailed", seat.id)
        return False
    return True


# -- answers to table talk ------------------------------------------------------------------


def handle_talk(ctx: Context, inbound_id: int) -> str:
    """A reply to a table-talk mail (``talk+TOKEN@``, or ``talk@`` answering
    its Message-ID): its fresh text is posted to the seat's table, never read
    as a move.  Automatic mail and mail not from the seat's own address are
    ignored (nothing is posted in a player's name that they did not write);
    no answer mail (the post shows on the page and in the others' mail).
    A message that finds its seat only by the Message-ID it answers is posted
    only with ``INBOUND_TRUST`` (anyone who saw the headers could forge it).
    Nothing of what the service sent is posted (:func:`sent_to`).
    A first line of pre-moves (``then 12-13, 4-5``) sets the seat's list
    instead, and is answered (:func:`_set_premoves`): nothing of it is posted.
    Outcomes: ``talk``, ``talk-refused:<code>``, ``ignored-auto``,
    ``ignored-unknown``, ``ignored-sender``, ``ignored-headers``,
    ``accepted:premoves``, ``refused:premoves:<code>``."""
    outbox: list[int | None] = []
    with session_scope(ctx.engine) as session:
        inbound = session.get(Inbound, inbound_id, with_for_update=True)
        if inbound is None:
            return Outcome.MISSING
        if inbound.status == InboundStatus.DONE:
            return inbound.outcome or Outcome.DONE
        message = parse(inbound.raw)
        if is_automatic(ctx, message, inbound.sender):
            return _finish(ctx, session, inbound, Outcome.IGNORED_AUTO).outcome
        token, by_header = turn_of(session, inbound, message)
        _, seats = games.game_and_seats(session, token.game_id if token else None)
        seat = next((s for s in seats if token and s.id == token.seat_id), None)
        if token is None or seat is None:
            return _finish(ctx, session, inbound, Outcome.IGNORED_UNKNOWN).outcome
        if sender_problem(ctx, message, inbound.sender, seat):
            return _finish(ctx, session, inbound, Outcome.IGNORED_SENDER).outcome
        if by_header and not trusting(ctx):
            return _finish(ctx, session, inbound, Outcome.IGNORED_HEADERS).outcome
        text, _ = guard.guard(quotes.fresh_text(message_text.reply_text(message)),
                                sent_to(ctx, session, seat, inbound.received_at))
        then = read_premoves(text.split("\n", 1)[0]) if text else None
        premoves = None
        if then is not None and not then[0]:
            # "then 12-13, 4-5" answering table talk sets the pre-moves: never posted (they are private).
            premoves = _Premoves(links.seat_token(ctx, seat), [
                {"move": str(move), "order": list(order) if order is not None else None} for move, order in then[1]])
        elif then is not None and looks_like_moves(text.split("\n", 1)[0]):
            # Pre-moves we cannot read ("then 12-13 or 4-5"): refused and answered, never posted either.
            premoves = _Premoves(links.seat_token(ctx, seat), None)
        if premoves is None:
            try:
                post_talk(ctx, session, seat, text, source="reply", outbox=outbox)
                done_as = outcome(Outcome.TALK)
            except errors.ServiceError as e:
                done_as = outcome(Outcome.TALK_REFUSED, e.code)
            _finish(ctx, session, inbound, done_as)
    if premoves is not None:
        return _set_premoves(ctx, inbound_id, premoves)
    ctx.relay(outbox)
    return done_as
