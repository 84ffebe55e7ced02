"""What the answer to a reply says (``reply-accepted``, ``reply-refused``,
``reply-confirm``): worked out again from the stored message when the mail is
built, in the reader's words.  The reading is pure, and the outcome stored
with the message (:mod:`pbem.inbound.replies`) says what was done."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from sqlmodel import Session

from .. import rules
from ..core import errors, links
from ..core.context import Context
from ..core.models import Game, GameStatus, Inbound, InboundStatus, ReplyToken, Seat
from ..rules.ahead import check_ahead
from ..words import N_, Words, error_text, move_text, order_keyword, then_keyword
from . import reading
from .outcomes import PREMOVES, RULES, Outcome, outcome, parts
from .received import message_id, parse, read
from .replies import move_record
from .reply_tokens import turn_of
from .senders import from_address
from .sent_mail import sent_to

#: What each reading problem means for the one who wrote the reply.
PROBLEMS = {
    "empty": N_("Your reply had no text of its own above the quoted mail, so there was no move to play."),
    "no-move": N_("We found no move on the first line of your reply. Write it like 12-13."),
    "move-not-first": N_("The move must be on the first line of your reply, before anything else."),
    "two-moves": N_("Your reply has more than one move. Write only one, on the first line."),
    "bad-order": N_("We could not read the order of the villages. Write it like 12-13 order 14 15, "
                    "each village once."),
    "bad-premoves": N_("We could not read your pre-moves. Write them alone on the first line, like "
                       "%(then)s 12-13, 4-5 (at most 10; an order without commas: 4-5 %(order)s 6 7)."),
    "then-not-first": N_("Pre-moves go alone on the first line of a reply (%(then)s 12-13, 4-5), never "
                         "below a move: nothing was played, and nothing was posted to the table."),
}
#: Why pre-moves set by reply were not set (``refused:premoves:<code>``).
PREMOVE_REFUSALS = {
    "your-turn": N_("It is your turn: reply with your move instead (pre-moves are for the others' turns)."),
    "game-over": N_("The game is over, so there is nothing more to play."),
    "not-started": N_("The game has not started yet."),
    "computer-seat": N_("The computer plays this seat now."),
    "too-many-premoves": N_("That is more pre-moves than the 10 you may set."),
}
_PREMOVES_NOT_SET = N_("Your pre-moves were not set: %(why)s")
#: Why a reply came too late (``%(move)s``: the move that was played for the turn).
STALE = {
    "used": N_("We already had a reply from you for this turn, and %(move)s was played. "
               "This reply changed nothing."),
    "moved": N_("You had already played %(move)s for this turn, so this reply changed nothing."),
    "autopilot": N_("Your reply came after your time ran out: the autopilot had already played "
                    "%(move)s for you."),
    "game-over": N_("The game is over, so there is nothing more to play."),
    "stale": N_("The game has moved on since that mail: it is now at move %(ply)d."),
    "not-your-turn": N_("It is not your turn."),
}
_USED_UNKNOWN = N_("We already had a reply from you for this turn. This reply changed nothing.")
_RULES = N_("The rules do not allow that move.")


def answer(ctx: Context, session: Session, inbound_id: int, seat: Seat, game: Game, w: Words) -> dict[str, Any] | None:
    """What the answer to a received message says, in the reader's words, for
    the mail templates (``None`` if the message is gone or not this seat's)."""
    inbound = session.get(Inbound, inbound_id)
    if inbound is None or not inbound.outcome or inbound.status != InboundStatus.DONE:
        return None
    message = parse(inbound.raw)
    token, _ = turn_of(session, inbound, message)
    if token is None or token.seat_id != seat.id:
        return None
    reply = read(message, sent_to(ctx, session, seat, inbound.received_at))
    said = inbound.outcome
    kind, why = parts(said)
    order = ", ".join(map(str, reply.order or ()))
    facts: dict[str, Any] = {
        "outcome": said, "move": str(reply.move) if reply.move else "",
        "played": move_text(reply.move) if reply.move else "",
        "order_text": order, "talk": reply.talk, "talk_lines": reply.talk.split("\n") if reply.talk else [],
        "talk_posted": said == outcome(Outcome.ACCEPTED, Outcome.TALK),
        "talk_refused": said == outcome(Outcome.ACCEPTED, Outcome.TALK_REFUSED),
        "reason": "", "token_ply": token.ply, "in_reply_to": message_id(message),
        "sender": "", "trust_failed": why == "trust", "headers_only": why == "headers", "confirm_link": "",
        # Something of the reply was not posted: it came from our own mail.
        "talk_left_out": reply.left_out,
        # The pre-moves a reply set (``accepted:premoves``), as people read moves.
        "premoves_set": (", ".join(move_text(m) for m, _ in reply.premoves or ())
                         if said == outcome(Outcome.ACCEPTED, PREMOVES) else ""),
        # The turn can still be answered by mail: the answer carries the reply address again.
        "retry": (token.used_at is None and game.status == GameStatus.ACTIVE and game.ply == token.ply
                  and game.turn_seat == seat.position),
    }
    if kind == Outcome.CONFIRM:
        facts["sender"] = from_address(message)[:254]
        link = links.seat_link(ctx, seat)
        if reply.move:
            query = {"move": str(reply.move), **({"order": ",".join(map(str, reply.order))} if reply.order else {})}
            link = f"{link}?{urlencode(query)}"
        facts["confirm_link"] = link
    elif kind == Outcome.REFUSED:
        facts["reason"] = _reason(session, game, token, reply, why, w)
    return facts


def _reason(session: Session, game: Game, token: ReplyToken, reply: reading.Reply, why: str, w: Words) -> str:
    if why in PROBLEMS:
        return w._(PROBLEMS[why], then=then_keyword(w), order=order_keyword(w))
    if parts(why)[0] == PREMOVES:
        return _premoves_reason(game, reply, parts(why)[1], w)
    if parts(why)[0] == RULES:
        error = _rules_error(game, token, reply)
        return error_text(errors.MoveRefused(error), w) if error is not None else w._(_RULES)
    if why in STALE:
        record = move_record(session, game, token.ply)
        if why == "used" and record is None:
            return w._(_USED_UNKNOWN)
        return w._(STALE[why], move=move_text(record.move) if record else "", ply=game.ply + 1)
    return w._(_RULES)


def _premoves_reason(game: Game, reply: reading.Reply, code: str, w: Words) -> str:
    """Why a reply's pre-moves were not set: the rules' refusal of the first that
    can never be legal, said again from the position (it only ever gets surer),
    or the reason of the code."""
    if code == "invalid-premoves":
        return w._(PROBLEMS["bad-premoves"], then=then_keyword(w), order=order_keyword(w))
    if code in PREMOVE_REFUSALS:
        return w._(PREMOVE_REFUSALS[code])
    position = rules.Game.from_json(json.loads(game.state)) if game.state else None
    for move, order in reply.premoves or ():
        try:
            if position is not None:
                check_ahead(position, move, list(order) if order is not None else None)
        except rules.RulesError as e:
            return w._(_PREMOVES_NOT_SET, why=error_text(errors.MoveRefused(e), w))
    return w._(_RULES)


def _rules_error(game: Game, token: ReplyToken, reply: reading.Reply) -> rules.RulesError | None:
    """The rules' refusal of the reply's move, said again: the position it was
    refused in is the game's while its ply has not moved."""
    if game.ply != token.ply or not game.state or reply.move is None:
        return None
    try:
        position = rules.Game.from_json(json.loads(game.state))
        position.push(reply.move, list(reply.order) if reply.order else None)
    except rules.RulesError as e:
        return e
    return None
