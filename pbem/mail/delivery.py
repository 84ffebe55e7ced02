"""Delivering one outbox row: claim it, check the world still wants it, build
it, send it, and mark it sent only once the server has accepted it."""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

from sqlalchemy import or_, update
from sqlmodel import Session, col, select

from .. import services
from ..context import Context
from ..db import as_utc, session_scope
from ..models import Game, Login, Outbox, Seat
from ..rules import classic_board
from ..rules.tables import EPOCHS
from ..rules.views import describe_history
from . import messages
from .transport import PermanentFailure, Transport

log = logging.getLogger(__name__)

#: How long a claimed row is left alone before a sweep may try it again.
LEASE = timedelta(minutes=5)
MAX_ATTEMPTS = 12


def claim(ctx: Context, outbox_id: int) -> bool:
    """Take the row for this worker unless another holds it or it is done."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        got = session.execute(
            update(Outbox)
            .where(col(Outbox.id) == outbox_id, col(Outbox.status) == "pending",
                   col(Outbox.next_attempt_at) <= now)
            .values(next_attempt_at=now + LEASE, attempts=Outbox.attempts + 1)
        )
        return got.rowcount == 1  # type: ignore[attr-defined]


def deliver(ctx: Context, outbox_id: int, transport: Transport) -> str:
    """Deliver one message; returns what became of it: ``sent``, ``skipped``
    (the world moved on), ``busy`` (someone else has it), ``retry`` (a passing
    failure, tried again later) or ``failed`` (refused for good)."""
    if not claim(ctx, outbox_id):
        return "busy"
    with session_scope(ctx.engine) as session:
        row = session.get(Outbox, outbox_id)
        assert row is not None
        message = compose(ctx, session, row)
        if message is None:
            row.status = "skipped"
            session.add(row)
            return "skipped"
        attempts = row.attempts
    try:
        transport.send(message)
    except PermanentFailure as e:
        _finish(ctx, outbox_id, "failed", str(e))
        log.warning("outbox %s refused for good: %s", outbox_id, e)
        return "failed"
    except Exception as e:  # noqa: BLE001 - any other failure is worth another try
        status = "failed" if attempts >= MAX_ATTEMPTS else "pending"
        _finish(ctx, outbox_id, status, f"{e.__class__.__name__}: {e}"[:500],
                retry_at=ctx.now() + backoff(attempts))
        log.warning("outbox %s not delivered (attempt %s): %s", outbox_id, attempts, e)
        return "retry" if status == "pending" else "failed"
    _finish(ctx, outbox_id, "sent", None)
    return "sent"


def backoff(attempts: int) -> timedelta:
    """Exponential with jitter: about 30 s, 1 min, 2 min, ... capped at an hour."""
    base = min(3600.0, 30.0 * 2 ** max(attempts - 1, 0))
    return timedelta(seconds=base * random.uniform(0.75, 1.25))


def _finish(ctx: Context, outbox_id: int, status: str, error: str | None,
            retry_at: datetime | None = None) -> None:
    with session_scope(ctx.engine) as session:
        values: dict[str, Any] = {"status": status, "last_error": error}
        if status == "sent":
            values["sent_at"] = ctx.now()
        if retry_at is not None:
            values["next_attempt_at"] = retry_at
        session.execute(update(Outbox).where(col(Outbox.id) == outbox_id).values(**values))


def due(ctx: Context, limit: int = 200) -> list[int]:
    """Pending rows whose time has come (for the sweep)."""
    with session_scope(ctx.engine) as session:
        rows = session.exec(
            select(Outbox.id).where(Outbox.status == "pending", col(Outbox.next_attempt_at) <= ctx.now())
            .order_by(col(Outbox.id)).limit(limit)
        ).all()
        return [r for r in rows if r is not None]


# -- composing -----------------------------------------------------------------


def compose(ctx: Context, session: Session, row: Outbox) -> EmailMessage | None:
    """The message for a row as the world now stands, or ``None`` if it no longer
    should go (a turn that is over, a spent sign-in link)."""
    envelope = dict(sender=ctx.config["MAIL_FROM"], recipient=row.recipient,
                    message_id=row.message_id, kind=row.kind, game_id=row.game_id)
    if row.kind == "login":
        login = session.get(Login, row.login_id)
        if login is None or login.used_at is not None or as_utc(login.expires_at) <= ctx.now():  # type: ignore[operator]
            return None
        context = {"link": services.login_link(ctx, login), "minutes": ctx.config["LOGIN_MINUTES"]}
        return messages.build(messages.Envelope(**envelope), context)
    game = session.get(Game, row.game_id)
    seat = session.get(Seat, row.seat_id)
    if game is None or seat is None:
        return None
    seats = list(session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.position))))
    if row.kind == "turn" and not _still_their_turn(game, seat, row.event):
        return None
    view = services.game_view(ctx, game, seats, seat)
    link = services.seat_link(ctx, seat)
    context = mail_context(view, seat_name=seat.name, link=link, since_ply=_last_turn_ply(view, seat.position))
    picture = None
    if row.kind in ("turn", "game-over", "reminder", "deadline") and view.get("huts"):
        picture = _picture(view)
    unsubscribe = f"{ctx.base_url}/unsubscribe/{services.seat_token(ctx, seat)}" if row.kind != "invite" else None
    return messages.build(messages.Envelope(**envelope, unsubscribe=unsubscribe), context, picture=picture)


def _still_their_turn(game: Game, seat: Seat, event: str) -> bool:
    return (game.status == "active" and event == f"ply:{game.ply}"
            and game.turn_seat == seat.position and seat.mail == "every")


def _last_turn_ply(view: dict[str, Any], position: int) -> int:
    """The ply after this seat's last own move (0 if they have not moved)."""
    last = 0
    for h in view.get("history", []):
        if h["seat"] == position:
            last = h["ply"]
    return last


def _picture(view: dict[str, Any]) -> bytes | None:
    try:
        from .picture import board_png
    except ImportError:  # Pillow missing: the text part stands alone
        return None
    return board_png(classic_board(), view)


def mail_context(view: dict[str, Any], *, seat_name: str, link: str, since_ply: int) -> dict[str, Any]:
    """What the templates need, derived from the viewer's view only."""
    history = describe_history(view)
    others = [p["name"] for p in view["players"] if p["name"] != seat_name]
    board_lines = [
        f"{tid:>2}: " + ", ".join(f"{clan} {n}" for clan, n in huts.items())
        for tid, huts in sorted(((int(k), v) for k, v in view.get("huts", {}).items()))
    ]
    finals = []
    if view.get("finished") and view.get("final_scores"):
        for p in view["players"]:
            finals.append({"name": p["name"], "clan": p["clan"], "chips": p["chips"],
                           "clan_score": view["clan_scores"].get(p["clan"], 0), "final": p["final_score"]})
    return {
        "view": view,
        "game": view["game"],
        "name": seat_name,
        "link": link,
        "others": ", ".join(others[:-1]) + (" and " if len(others) > 1 else "") + (others[-1] if others else ""),
        "inviter_line": "",
        "turn_hours": view.get("turn_hours"),
        "since": history[since_ply:] if since_ply < len(history) else [],
        "history": history,
        "board_lines": board_lines,
        "scores": ", ".join(f"{c} {s}" for c, s in view.get("clan_scores", {}).items()),
        "epoch_roman": EPOCHS[view.get("epoch", 1) - 1].roman,
        "deadline": view.get("deadline"),
        "finals": finals,
        "winners": " and ".join(view.get("winners") or []),
        "end_reason": {"twelfth-village": "the twelfth village was founded",
                       "no-legal-move": "no move was left"}.get(view.get("end") or "", ""),
    }


def pending_for_game(ctx: Context, game_id: int) -> list[Outbox]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.game_id == game_id,
                                                      or_(col(Outbox.status) == "pending"))))
