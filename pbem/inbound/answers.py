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
from ..words import N_, Words, error_text, move_text
from . import reading
from .outcomes import RULES, Outcome, outcome, parts
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
}
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
        return w._(PROBLEMS[why])
    if parts(why)[0] == RULES:
        error = _rules_error(game, token, reply)
        return error_text(errors.MoveRefused(error), w) if error is not None else w._(_RULES)
    if why in STALE:
        record = move_record(session, game, token.ply)
        if why == "used" and record is None:
            return w._(_USED_UNKNOWN)
        return w._(STALE[why], move=move_text(record.move) if record else "", ply=game.ply + 1)
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
