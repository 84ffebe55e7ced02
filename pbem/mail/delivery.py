"""Delivering one outbox row: claim it, check the world still wants it, build
it, send it, and mark it sent only once the server has accepted it."""

from __future__ import annotations

import logging
import random
import time
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from .. import services
from ..context import Context
from ..db import as_utc, session_scope
from ..models import Game, Login, Outbox, Seat
from ..queries import digest_news
from ..rules import classic_board
from ..rules.svg import clan_colour, clan_text_colour
from ..rules.tables import EPOCHS
from ..rules.views import describe_history, describe_village, names_text
from . import messages
from .picture import board_png
from .transport import PermanentFailure, Transport

log = logging.getLogger(__name__)

#: How long a claimed row is left alone before a sweep may try it again.
LEASE = timedelta(minutes=5)
MAX_ATTEMPTS = 12
#: Pauses between tries to record a message as sent (seconds; well inside the
#: lease and the task's time limit).
MARK_SENT_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)


_OUTBOX = Outbox.__table__  # type: ignore[attr-defined]
# Built once: every message runs them.
_CLAIM = (
    update(_OUTBOX)
    .where(_OUTBOX.c.id == bindparam("row_id"), _OUTBOX.c.status == "pending",
           _OUTBOX.c.next_attempt_at <= bindparam("now"))
    .values(next_attempt_at=bindparam("lease_until"), attempts=_OUTBOX.c.attempts + 1)
    .returning(*_OUTBOX.c)
)
_UPDATE_ROW = update(_OUTBOX).where(_OUTBOX.c.id == bindparam("row_id"))


def _claim(session: Session, outbox_id: int, now: datetime) -> Outbox | None:
    """Lease the row unless another worker holds it or it is done: the row with
    this attempt counted, or ``None``."""
    got = session.connection().execute(
        _CLAIM, {"row_id": outbox_id, "now": now, "lease_until": now + LEASE}).first()
    return None if got is None else Outbox(**got._mapping)


def deliver(ctx: Context, outbox_id: int, transport: Transport) -> str:
    """Deliver one message; returns what became of it: ``sent``, ``skipped``
    (the world moved on), ``busy`` (someone else has it), ``retry`` (a passing
    failure, tried again later) or ``failed`` (refused for good).

    The claim and the reading that builds the message share one transaction,
    committed before the message goes: the lease is taken whenever it is sent."""
    attempts: int | None = None
    leased = False
    try:
        with session_scope(ctx.engine) as session:
            row = _claim(session, outbox_id, ctx.now())
            if row is None:
                return "busy"
            attempts = row.attempts
            # Building the message is inside the try too: a database that went away
            # (or a message that cannot be built) is retried, and given up on after
            # MAX_ATTEMPTS like a server that keeps refusing.
            message = compose(ctx, session, row)
            if message is None:
                _mark(session.connection(), outbox_id, status="skipped")
                return "skipped"
        leased = True
        transport.send(message)
    except PermanentFailure as e:
        _finish(ctx, outbox_id, "failed", str(e))
        log.warning("outbox %s refused for good: %s", outbox_id, e)
        return "failed"
    except Exception as e:  # noqa: BLE001 - any other failure is worth another try
        if attempts is None:
            raise  # not even claimed (the database is down): the task retries
        status = "failed" if attempts >= MAX_ATTEMPTS else "pending"
        # Failing before the commit undid the claim: count the attempt here.
        _finish(ctx, outbox_id, status, f"{e.__class__.__name__}: {e}"[:500],
                retry_at=ctx.now() + backoff(attempts), count_attempt=not leased)
        log.warning("outbox %s not delivered (attempt %s): %s", outbox_id, attempts, e)
        return "retry" if status == "pending" else "failed"
    _mark_sent(ctx, outbox_id)
    return "sent"


def _mark_sent(ctx: Context, outbox_id: int) -> None:
    """The server has the message: record it, trying again through a short database
    outage (a restart, a fail-over).  Given up, the row would stay leased and the
    sweep would send the message a second time once the lease is over."""
    for delay in (*MARK_SENT_DELAYS, None):
        try:
            _finish(ctx, outbox_id, "sent", None)
            return
        except OperationalError as e:
            if delay is None:
                raise
            log.warning("outbox %s sent, but not yet marked (%s); trying again in %s s", outbox_id, e, delay)
            time.sleep(delay)


def backoff(attempts: int) -> timedelta:
    """Exponential with jitter: about 30 s, 1 min, 2 min, ... capped at an hour."""
    base = min(3600.0, 30.0 * 2 ** max(attempts - 1, 0))
    return timedelta(seconds=base * random.uniform(0.75, 1.25))


def _mark(conn: Connection, outbox_id: int, **values: Any) -> None:
    conn.execute(_UPDATE_ROW.values(**values), {"row_id": outbox_id})


def _finish(ctx: Context, outbox_id: int, status: str, error: str | None,
            retry_at: datetime | None = None, *, count_attempt: bool = False) -> None:
    values: dict[str, Any] = {"status": status, "last_error": error}
    if status == "sent":
        values["sent_at"] = ctx.now()
    if retry_at is not None:
        values["next_attempt_at"] = retry_at
    if count_attempt:
        values["attempts"] = _OUTBOX.c.attempts + 1
    # One statement: a transaction on the engine, without an ORM session around it.
    with ctx.engine.begin() as conn:
        _mark(conn, outbox_id, **values)


def due(ctx: Context, limit: int = 200) -> list[int]:
    """Pending rows whose time has come (for the sweep)."""
    with session_scope(ctx.engine) as session:
        rows = session.exec(
            select(Outbox.id).where(Outbox.status == "pending", col(Outbox.next_attempt_at) <= ctx.now())
            .order_by(col(Outbox.id)).limit(limit)
        ).all()
        return [r for r in rows if r is not None]


# -- composing -----------------------------------------------------------------

#: Kinds that show the board (as text, and as the inline PNG in the HTML part).
BOARD_KINDS = ("turn", "reminder", "deadline", "game-over", "digest")


def compose(ctx: Context, session: Session, row: Outbox) -> EmailMessage | None:
    """The message for a row as the world now stands, or ``None`` if it no longer
    should go (a turn that is over, a spent sign-in link, mail turned off)."""
    envelope: dict[str, Any] = dict(sender=ctx.config["MAIL_FROM"], recipient=row.recipient,
                                    message_id=row.message_id, kind=row.kind)
    if services.is_suppressed(session, row.recipient):
        return None  # they asked never to be mailed again
    if row.kind == "login":
        login = _login_of(ctx, session, row)
        if login is None or login.used_at is not None or as_utc(login.expires_at) <= ctx.now():  # type: ignore[operator]
            return None
        context = {"link": services.login_link(ctx, login), "minutes": ctx.config["LOGIN_MINUTES"],
                   "base_url": ctx.base_url, "kind": row.kind}
        return messages.build(messages.Envelope(**envelope), context)
    game, seats = services.game_and_seats(session, row.game_id)
    seat = next((s for s in seats if s.id == row.seat_id), None)
    if game is None or seat is None:
        return None
    if not _still_wanted(ctx, row, game, seat):
        return None
    envelope["game_id"] = game.public_id
    # The one view of the game for this recipient: mail shows nothing else.
    view = services.game_view(ctx, game, seats, seat)
    link = services.seat_link(ctx, seat)
    if row.kind == "digest":
        since = _digest_since_ply(session, row, seat, game)
    elif row.kind == "deadline":
        since = len(view.get("history", []))
    else:
        since = _last_turn_ply(view, seat.position)
    context = mail_context(view, seat_name=seat.name, link=link, since_ply=since, now=ctx.now())
    context.update(kind=row.kind, base_url=ctx.base_url,
                   unsubscribe=f"{ctx.base_url}/unsubscribe/{services.seat_token(ctx, seat)}")
    if row.kind == "deadline":
        context.update(_autopilot_context(view, context["history"], _event_ply(row.event), seat.position))
    if row.kind == "invite":
        # Who asked: the one who started the game sits at 0 until it starts.
        creator = seats[0]
        context.update(confirming=seat.position == 0, inviter=creator.name, inviter_email=creator.email,
                       never=f"{ctx.base_url}/never/{services.seat_token(ctx, seat)}")
    picture = None
    if row.kind in BOARD_KINDS and view.get("huts"):
        picture = board_png(classic_board(), view)
    context["has_board"] = picture is not None
    return messages.build(messages.Envelope(**envelope, unsubscribe=context["unsubscribe"]), context,
                          picture=picture)


def _login_of(ctx: Context, session: Session, row: Outbox) -> Login | None:
    """The sign-in link a ``login`` row sends: written on its first attempt, if
    the address has games (the request itself did the same work for every
    address), and kept with the row for later attempts."""
    if row.login_id is not None:
        return session.get(Login, row.login_id)
    login = services.new_login(ctx, session, row.recipient)
    if login is not None:
        _mark(session.connection(), row.id, login_id=login.id)  # type: ignore[arg-type]
    return login


def _event_ply(event: str) -> int:
    """The ply in an event key such as ``ply:12``, ``remind:12:1700000000``."""
    try:
        return int(event.split(":")[1])
    except (IndexError, ValueError):
        return -1


def _still_wanted(ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
    """Whether the world still calls for this message (checked just before sending)."""
    if row.kind == "invite":
        # Late (e.g. the broker was down) but still useful unless they accepted already.
        return game.status in ("invited", "active") and seat.accepted_at is None
    if row.kind == "game-over":
        # The result goes to every player, even one who turned turn mail off.
        return game.status == "finished"
    if row.kind == "link":
        # They asked for it; only the newest link works, and it is built now.
        return True
    if seat.mail == "none":
        return False
    if row.kind == "turn":
        return _still_their_turn(game, seat, row.event)
    if row.kind == "reminder":
        deadline = as_utc(game.deadline)
        return (game.status == "active" and game.ply == _event_ply(row.event)
                and game.turn_seat == seat.position and deadline is not None and ctx.now() < deadline)
    if row.kind == "digest":
        return seat.mail == "digest"
    return True  # deadline: news about a move that stays made


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


def _digest_since_ply(session: Session, row: Outbox, seat: Seat, game: Game) -> int:
    """The first ply made after this seat's previous digest (its news)."""
    first = session.exec(digest_news(session, seat, game, before_id=row.id).limit(1)).first()
    return game.ply if first is None else int(first)


def _autopilot_context(view: dict[str, Any], lines: list[str], ply: int, position: int) -> dict[str, Any]:
    """What the deadline mail says about the autopilot's move at ``ply`` (``lines``:
    the history in words)."""
    history = view.get("history", [])
    entry = history[ply] if 0 <= ply < len(history) else None
    absent = entry is not None and view["players"][entry["seat"]].get("absent", False)
    return {
        "autopilot_for": entry["player"] if entry else "",
        "autopilot_you": entry is not None and entry["seat"] == position,
        "autopilot_move": entry["move"].replace("-", " → ") if entry else "",
        "autopilot_line": lines[ply] if entry else "",
        "autopilot_absent": absent,
        "autopilot_ply": ply + 1,
    }


def when_text(when: datetime | None) -> str:
    """A time as people read it in mail: ``Thu 3 Dec 2026, 14:00 UTC``."""
    if when is None:
        return ""
    when = when.astimezone(timezone.utc)
    return f"{when:%a} {when.day} {when:%b %Y, %H:%M} UTC"


def left_text(delta: timedelta) -> str:
    """A time left, roughly: ``3 days``, ``23 hours``, ``40 minutes``."""
    seconds = max(0, int(delta.total_seconds()))
    if seconds >= 2 * 86400:
        n, unit = round(seconds / 86400), "day"
    elif seconds >= 2 * 3600:
        n, unit = round(seconds / 3600), "hour"
    else:
        n, unit = max(1, round(seconds / 60)), "minute"
    return f"{n} {unit}{'' if n == 1 else 's'}"


def board_text(view: dict[str, Any], width: int = 72) -> list[str]:
    """The occupied territories that are not villages, compactly and wrapped
    between territories: ``12 (2 red, 1 blue); 13 (1 green); ...``."""
    villages = {v["territory"] for v in view.get("villages", [])}
    entries = [
        f"{tid} (" + ", ".join(f"{n} {clan}" for clan, n in huts.items() if n) + ")"
        for tid, huts in sorted(((int(k), v) for k, v in view.get("huts", {}).items()))
        if tid not in villages
    ]
    lines: list[str] = []
    for i, entry in enumerate(entries):
        piece = entry + (";" if i < len(entries) - 1 else "")
        if lines and len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += " " + piece
        else:
            lines.append(piece)
    return lines


def mail_context(view: dict[str, Any], *, seat_name: str, link: str, since_ply: int,
                 now: datetime | None = None) -> dict[str, Any]:
    """What the templates need, derived from the viewer's view only (so a mail
    can show nothing its recipient may not see)."""
    history = describe_history(view)
    others = [p["name"] for p in view["players"] if p["name"] != seat_name]
    finals = []
    if view.get("finished") and view.get("final_scores"):
        winners = set(view.get("winners") or [])
        for p in view["players"]:
            clan = p["clan"]
            finals.append({"name": p["name"], "clan": clan, "chips": p["chips"],
                           "clan_score": view["clan_scores"].get(clan, 0), "final": p["final_score"],
                           "winner": p["name"] in winners, "you": p["name"] == seat_name,
                           "bg": clan_colour(clan or ""), "fg": clan_text_colour(clan or "")})
        finals.sort(key=lambda f: -(f["final"] or 0))
    deadline = view.get("deadline")
    deadline_at = datetime.fromisoformat(deadline) if deadline else None
    clan = view.get("clan")
    players = []
    for p in view["players"]:
        paused = p.get("paused_until")
        players.append({
            "name": p["name"], "chips": p["chips"], "to_move": p.get("to_move", False),
            "you": p["name"] == seat_name, "absent": p.get("absent", False),
            "paused_until": when_text(datetime.fromisoformat(paused)) if paused else "",
        })
    villages = [f"#{v['number']}: {describe_village(v)}" for v in view.get("villages", [])]
    return {
        "view": view,
        "game": view["game"],
        "name": seat_name,
        "link": link,
        "others": names_text(others),
        "turn_hours": view.get("turn_hours"),
        "since": history[since_ply:] if since_ply < len(history) else [],
        "history": history,
        "board_lines": board_text(view),
        "villages_lines": villages,
        "scores": ", ".join(f"{c} {s}" for c, s in view.get("clan_scores", {}).items()),
        "score_chips": [{"clan": c, "score": s, "bg": clan_colour(c), "fg": clan_text_colour(c),
                         "mine": c == clan}
                        for c, s in view.get("clan_scores", {}).items()],
        "players": players,
        "clan": clan,
        "clan_bg": clan_colour(clan) if clan else "",
        "clan_fg": clan_text_colour(clan) if clan else "",
        "epoch_roman": EPOCHS[view.get("epoch", 1) - 1].roman,
        "deadline": deadline,
        "deadline_text": when_text(deadline_at),
        "time_left": left_text(deadline_at - now) if deadline_at and now else "",
        "next_name": view.get("next") or "",
        "your_turn": bool(view.get("your_turn")),
        "finals": finals,
        "winners": " and ".join(view.get("winners") or []),
        "end_reason": {"twelfth-village": "the twelfth village was founded",
                       "no-legal-move": "no move was left"}.get(view.get("end") or "", ""),
    }


def next_attempt(ctx: Context, outbox_id: int) -> datetime | None:
    """When a pending row is to be tried again (``None`` once it is done)."""
    with session_scope(ctx.engine) as session:
        row = session.get(Outbox, outbox_id)
        if row is None or row.status != "pending":
            return None
        return as_utc(row.next_attempt_at)
