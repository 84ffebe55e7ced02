"""What a message says: the message for an outbox row as the world now stands
(or none, if the world moved on), built from the recipient's view of the game
and the words in :mod:`pbem.words`.  Sending it is :mod:`pbem.mail.delivery`'s job."""

from __future__ import annotations

from datetime import datetime
from email.message import EmailMessage
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import bindparam, update
from sqlmodel import Session

from ..inbound import answers, reply_tokens, sent_mail
from ..games import unsubscribing
from ..table import watching, webhooks
from ..core.context import Context
from ..core.db import as_utc
from ..core import events
from ..core.events import Event
from ..core.models import (RUNNING, Game, GameStatus, Login, MailChoice, Outbox, Seat, TableMessage, Webhook,
                           table_of)
from ..core.queries import digest_news, table_news, table_seen_at
from ..rules import classic_board
from ..drawing.style import clan_colour, clan_glyph, clan_text_colour
from ..rules.tables import EPOCHS
from ..rules.views import SeatView
from ..rules.effects import MoveEffect, move_effects
from ..words import (Words, board_text, describe_history, end_text, epoch_terrain_text, joins_text, left_text,
                     move_groups, move_text, only_joins, names_text, scores_text, village_line, when_text)
from . import messages
from ..drawing.picture import board_pngs
from ..people import signin
from ..core import links
from ..people import reachability
from .. import games

_OUTBOX = table_of(Outbox)
# Built once: a sign-in row keeps the link it sends.
_KEEP_LOGIN = (update(_OUTBOX).where(_OUTBOX.c.id == bindparam("row_id"))
               .values(login_id=bindparam("the_login")))

#: Kinds someone asks for on a page, sent even to an address that bounces: the
#: one asking is there now, and it is their way back to their seats.
ASKED_FOR = ("login", "link")
#: Kinds that show the board (as text, and as the inline PNG in the HTML part).
BOARD_KINDS = ("turn", "reminder", "deadline", "game-over", "digest", "reply-accepted", "reply-refused")
#: Kinds that offer the reader's legal moves with their effects, this epoch's
#: terrains and close-ups of the board legible on a phone: enough to decide.
MOVE_KINDS = ("turn", "reminder")
#: Kinds that show the table talk written since the reader last had it.
TABLE_KINDS = ("turn", "digest")
#: The most table messages one mail shows (the page has them all).
TABLE_IN_MAIL = 20
#: Kinds that wait while their reader is on their seat page (``pbem.table.watching``):
#: the page says it is their turn already.  The result of a game is not among
#: them: it is the game's record, and goes once to every player.
WAIT_WHILE_PRESENT = ("turn", "reminder")


class Postponed(Exception):
    """The message is wanted, but not yet: its reader is on their page now.
    Delivery tries it again at ``until`` (when they will have been gone long
    enough), and it goes then if the world still wants it."""

    def __init__(self, until: datetime) -> None:
        super().__init__(f"reader present until {until.isoformat()}")
        self.until = until


def compose(ctx: Context, session: Session, row: Outbox) -> EmailMessage | None:
    """The message for a row as the world now stands, or ``None`` if it no longer
    should go (a turn that is over, a spent sign-in link, mail turned off).
    Raises :class:`Postponed` for a turn mail whose reader is on their page."""
    envelope: dict[str, Any] = dict(sender=ctx.config["MAIL_FROM"], recipient=row.recipient,
                                    message_id=row.message_id, kind=row.kind)
    if reachability.is_suppressed(session, row.recipient):
        return None  # they asked never to be mailed again
    if row.kind not in ASKED_FOR and reachability.is_unreachable(session, row.recipient):
        return None  # their mail bounces (pbem.inbound.bounces)
    if row.kind == "login":
        login = _login_of(ctx, session, row)
        if login is None or login.used_at is not None or as_utc(login.expires_at) <= ctx.now():
            return None
        w = Words(row.language or "en")
        context = {"link": signin.login_link(ctx, login), "minutes": ctx.config["LOGIN_MINUTES"],
                   "base_url": ctx.base_url, "kind": row.kind, "w": w}
        return messages.build(messages.Envelope(**envelope), context, language=w.language)
    game, seats = games.game_and_seats(session, row.game_id)
    seat = next((s for s in seats if s.id == row.seat_id), None)
    if game is None or seat is None:
        return None
    if not _still_wanted(ctx, row, game, seat):
        return None
    if row.kind in WAIT_WHILE_PRESENT:
        present = watching.present_until(ctx, seat)
        if present is not None:
            raise Postponed(present)
    envelope["game_id"] = game.public_id
    # The one view of the game for this recipient: mail shows nothing else.
    view = games.game_view(ctx, game, seats, seat)
    link = links.seat_link(ctx, seat)
    # The recipient's own language and time zone, for this message only.
    w = Words(seat.language, seat.time_zone or "UTC")
    answer: dict[str, Any] = {}
    if row.kind in answers.ANSWER_KINDS:
        found = answers.answer(ctx, session, _event_id(row.event), seat, game, w)
        if found is None:
            return None  # the message it answers is gone
        answer = found
        envelope["in_reply_to"] = answer["in_reply_to"]
    reply_ply = _reply_ply(row, answer)
    if reply_ply is not None:
        envelope.update(_reply_address(ctx, session, row, seat, reply_ply))
    elif row.kind == "talk":
        # An answer to the talk goes back to the table (talk+TOKEN@), never played.
        envelope.update(_reply_address(ctx, session, row, seat, game.ply, talk=True))
    if row.kind == "reply-accepted":
        since = answer["token_ply"]
    elif row.kind == "digest":
        since = _digest_since_ply(session, row, seat, game)
    elif row.kind == "deadline":
        since = len(view["history"])
    else:
        since = _last_turn_ply(view, seat.position)
    context = mail_context(view, seat_name=seat.name, link=link, since_ply=since, now=ctx.now(), w=w)
    context.update(kind=row.kind, base_url=ctx.base_url,
                   unsubscribe=unsubscribing.link(ctx, game, seat),  # a token that only stops mail
                   reply_to=envelope.get("reply_to"), seat_email=seat.email, **answer)
    effects = _effects(view) if row.kind in MOVE_KINDS or row.kind == "reply-refused" else []
    if row.kind == "reply-refused":
        context.update(legal_moves=legal_moves_text(view, w, effects))
    if row.kind in MOVE_KINDS:
        context.update(move_context(view, w, effects))
    context.update(_table_context(session, row, seat, w))
    if row.kind == "talk":
        said = _talk_of(session, row, game, seat)
        if said is None:
            return None
        author = next((s.name for s in seats if s.id == said.seat_id), "")
        # What the author typed and their name: nothing that could tell a clan.
        context.update(author=author, said=said.text, said_at=w.when(as_utc(said.created_at)),
                       # Unsubscribing from the chatter must not stop the turn mail.
                       unsubscribe=context["unsubscribe"] + "/talk")
    if row.kind == "deadline":
        context.update(_autopilot_context(view, context["history"], _event_ply(row.event), seat.position))
    if row.kind == "invite":
        # Who asked: the one who started the game sits at 0 until it starts.
        creator = seats[0]
        context.update(confirming=seat.position == 0, inviter=creator.name, inviter_email=creator.email,
                       # Nobody is invited after the confirmation when the others are computers.
                       only_computers=all(s.bot for s in seats if s.id != seat.id),
                       never=f"{ctx.base_url}/never/{links.seat_token(ctx, seat)}")
    if row.kind == "unreachable":
        bouncing = next((s for s in seats if row.event == events.key(Event.UNREACHABLE, s.id)), None)
        if bouncing is None:
            return None
        context.update(unreachable=bouncing.name, starting=game.status == GameStatus.INVITED)
    if row.kind == "webhook-off":
        hook = session.get(Webhook, _event_id(row.event))
        if hook is None or hook.game_id != game.id:
            return None  # removed since: nothing to tell
        shown = webhooks.shown_error(hook.last_error)
        context.update(webhook_host=urlsplit(hook.url).hostname or "", webhook_kind=hook.kind,
                       webhook_error=w._(shown) if shown else "")
    picture = None
    close_ups: list[bytes] = []
    if row.kind in BOARD_KINDS and view["huts"]:
        # Close-ups of where the reader can move, in the mails that ask for a move.
        focus = sorted({t for e in effects for t in e.move}) if row.kind in MOVE_KINDS else []
        picture, pieces = board_pngs(classic_board(), view, focus=focus, style=seat.board_style)
        close_ups = [p.png for p in pieces]
        context["close_ups"] = [
            {"cid": f"close-up-{i}", "width": p.size[0], "height": p.size[1],
             "alt": w._("Close-up of the board: territories %(territories)s",
                        territories=", ".join(map(str, p.territories)))}
            for i, p in enumerate(pieces, 1)]
    context["has_board"] = picture is not None
    message = messages.build(messages.Envelope(**envelope, unsubscribe=context["unsubscribe"]), context,
                             picture=picture, close_ups=close_ups, language=w.language)
    if envelope.get("reply_to"):
        # What it says is kept as a fingerprint: a reply posts none of it to the table.
        sent_mail.remember(ctx, session, row.id, message)
    return message


def _login_of(ctx: Context, session: Session, row: Outbox) -> Login | None:
    """The sign-in link a ``login`` row sends: written on its first attempt, if
    the address has games (the request itself did the same work for every
    address), and kept with the row for later attempts."""
    if row.login_id is not None:
        return session.get(Login, row.login_id)
    login = signin.new_login(ctx, session, row.recipient)
    if login is not None:
        session.connection().execute(_KEEP_LOGIN, {"row_id": row.id, "the_login": login.id})
    return login


def _event_id(event: str) -> int:
    """The id in an event key such as ``inbound:12`` (-1 for none)."""
    found = events.id_of(event)
    return -1 if found is None else found


def _reply_ply(row: Outbox, answer: dict[str, Any]) -> int | None:
    """The turn (its ply) whose reply address a mail carries, if it carries one:
    a turn mail and its reminders, and a refusal while the turn is still open."""
    if row.kind in ("turn", "reminder"):
        return _event_ply(row.event)
    if row.kind == "reply-refused" and answer.get("retry"):
        return int(answer["token_ply"])
    return None


def _reply_address(ctx: Context, session: Session, row: Outbox, seat: Seat, ply: int,
                   *, talk: bool = False) -> dict[str, str]:
    """The ``Reply-To`` that carries the turn's reply token.  The Message-ID
    stays the row's own random one: it travels in every forwarded header, so
    it holds no token (a client that drops the ``+tag`` still answers it, and
    :func:`pbem.inbound.reply_tokens.find_turn_by_ids` finds the row)."""
    token = reply_tokens.reply_token(ctx, session, seat, ply)
    address = reply_tokens.talk_address(ctx, token) if talk else reply_tokens.reply_address(ctx, token)
    return {"reply_to": address}


def _effects(view: SeatView) -> list[MoveEffect]:
    """The reader's legal moves with what each would do (none when it is not
    their turn), from their view only."""
    return move_effects(classic_board(), view) if view.get("your_turn") else []


def legal_moves_text(view: SeatView, w: Words, effects: list[MoveEffect] | None = None) -> list[str]:
    """The moves the seat may play now with what they would do (``12 → 13, 19:
    joins 1 hut``), by the territory they leave: the lines of
    :func:`move_context`'s groups.  ``effects``: :func:`pbem.rules.effects.move_effects`
    of the view, if already made."""
    if effects is None:
        effects = _effects(view)
    return [line["text"] for g in move_groups(effects, view["epoch"], w) for line in g["lines"]]


def move_context(view: SeatView, w: Words, effects: list[MoveEffect] | None = None) -> dict[str, Any]:
    """What a mail asking for a move offers: the legal moves with their effects,
    grouped by the territory they leave, and this epoch's terrains."""
    if effects is None:
        effects = _effects(view)
    # The moves that found a village, end an epoch or the game, each with what it
    # would do; those that only join other huts, all in one short paragraph.
    return {"move_groups": move_groups([e for e in effects if not only_joins(e)], view["epoch"], w),
            "joins": joins_text([e for e in effects if only_joins(e)]),
            "epoch_terrain": epoch_terrain_text(view["epoch"], w)}


def _event_ply(event: str) -> int:
    """The ply in an event key such as ``ply:12``, ``remind:12:1700000000`` (-1 for none)."""
    found = events.ply_of(event)
    return -1 if found is None else found


def _still_wanted(ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
    """Whether the world still calls for this message (checked just before sending)."""
    if row.kind == "invite":
        # Late (e.g. the broker was down) but still useful unless they accepted already.
        return game.status in RUNNING and seat.accepted_at is None
    if row.kind == "game-over":
        # The result goes to every player, even one who turned turn mail off.
        return game.status == GameStatus.FINISHED
    if row.kind == "cancelled":
        # Like the result, the end of a game goes to every player.
        return game.status == GameStatus.CANCELLED
    if row.kind == "link":
        # They asked for it; only the newest link works, and it is built now.
        return True
    if row.kind in answers.ANSWER_KINDS:
        # The answer to mail they sent: it goes whatever their turn-mail setting.
        return True
    if seat.mail == MailChoice.NONE:
        return False
    if row.kind == "unreachable":
        return game.status in RUNNING
    if row.kind == "turn":
        return _still_their_turn(game, seat, row.event)
    if row.kind == "reminder":
        deadline = as_utc(game.deadline)
        return (game.status == GameStatus.ACTIVE and game.ply == _event_ply(row.event)
                and game.turn_seat == seat.position and deadline is not None and ctx.now() < deadline)
    if row.kind == "digest":
        return seat.mail == MailChoice.DIGEST
    if row.kind == "talk":
        return seat.talk_mail  # they may have turned it off since
    return True  # deadline: news about a move that stays made


def _talk_of(session: Session, row: Outbox, game: Game, seat: Seat) -> TableMessage | None:
    """The table message a ``talk`` row (event ``talk:ID``) sends, if it is still
    this game's and someone else's."""
    message_id = events.id_of(row.event)
    if message_id is None:
        return None
    said = session.get(TableMessage, message_id)
    if said is None or said.game_id != game.id or said.seat_id == seat.id:
        return None
    return said


def _table_context(session: Session, row: Outbox, seat: Seat, w: Words) -> dict[str, Any]:
    """The table talk a turn mail or digest shows: the others' messages since the
    reader last had the table (see :func:`pbem.core.queries.table_seen_at`)."""
    if row.kind not in TABLE_KINDS:
        return {"table": [], "table_more": 0}
    news, more = table_news(session, seat, table_seen_at(session, seat, before_id=row.id), TABLE_IN_MAIL)
    return {"table": [{"author": author, "text": text, "when": w.when(at)} for author, text, at in news],
            "table_more": more}


def _still_their_turn(game: Game, seat: Seat, event: str) -> bool:
    return (game.status == GameStatus.ACTIVE and event == events.key(Event.PLY, game.ply)
            and game.turn_seat == seat.position and seat.mail == MailChoice.EVERY)


def _last_turn_ply(view: SeatView, position: int) -> int:
    """The ply after this seat's last own move (0 if they have not moved)."""
    last = 0
    for h in view["history"]:
        if h["seat"] == position:
            last = h["ply"]
    return last


def _digest_since_ply(session: Session, row: Outbox, seat: Seat, game: Game) -> int:
    """The first ply made after this seat's previous digest (its news)."""
    first = session.exec(digest_news(session, seat, game, before_id=row.id).limit(1)).first()
    return game.ply if first is None else int(first)


def _autopilot_context(view: SeatView, lines: list[str], ply: int, position: int) -> dict[str, Any]:
    """What the deadline mail says about the autopilot's move at ``ply`` (``lines``:
    the history in words)."""
    history = view["history"]
    entry = history[ply] if 0 <= ply < len(history) else None
    absent = entry is not None and view["players"][entry["seat"]]["absent"]
    return {
        "autopilot_for": entry["player"] if entry else "",
        "autopilot_you": entry is not None and entry["seat"] == position,
        "autopilot_move": move_text(entry["move"]) if entry else "",
        "autopilot_line": lines[ply] if entry else "",
        "autopilot_absent": absent,
        "autopilot_ply": ply + 1,
    }


def mail_context(view: SeatView, *, seat_name: str, link: str, since_ply: int,
                 now: datetime | None = None, w: Words = Words()) -> dict[str, Any]:
    """What the templates need, derived from the viewer's view only (so a mail
    can show nothing its recipient may not see), worded for its reader ``w``."""
    history = describe_history(view, w)
    others = [w._("%(name)s (computer)", name=p["name"]) if p.get("bot") else p["name"]
              for p in view["players"] if p["name"] != seat_name]
    finals: list[dict[str, Any]] = []
    if view.get("finished") and view.get("final_scores"):
        winners = set(view.get("winners") or [])
        for p in view["players"]:
            clan = p["clan"]
            finals.append({"name": p["name"], "clan": clan, "chips": p["chips"],
                           "clan_score": view["clan_scores"].get(clan or "", 0), "final": p["final_score"],
                           "winner": p["name"] in winners, "you": p["name"] == seat_name,
                           "bg": clan_colour(clan or ""), "fg": clan_text_colour(clan or ""),
                           "glyph": clan_glyph(clan or "")})
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
            "paused_until": when_text(datetime.fromisoformat(paused), w) if paused else "",
        })
    villages = [village_line(v, w) for v in view.get("villages", [])]
    return {
        "view": view,
        "w": w,
        "game": view["game"],
        "name": seat_name,
        "link": link,
        "others": names_text(others, w),
        "turn_hours": view.get("turn_hours"),
        "since": history[since_ply:] if since_ply < len(history) else [],
        "history": history,
        "board_lines": board_text(view, w=w),
        "villages_lines": villages,
        "scores": scores_text(view.get("clan_scores", {}), w),
        "score_chips": [{"clan": c, "score": s, "bg": clan_colour(c), "fg": clan_text_colour(c),
                         "glyph": clan_glyph(c), "mine": c == clan}
                        for c, s in view.get("clan_scores", {}).items()],
        "players": players,
        "clan": clan,
        "clan_bg": clan_colour(clan) if clan else "",
        "clan_fg": clan_text_colour(clan) if clan else "",
        # The shape of the clan's huts on the board picture (colour is never the only sign).
        "clan_glyph": clan_glyph(clan) if clan else "",
        "epoch_roman": EPOCHS[view.get("epoch", 1) - 1].roman,
        "deadline": deadline,
        "deadline_text": when_text(deadline_at, w),
        "time_left": left_text(deadline_at - now, w) if deadline_at and now else "",
        "next_name": view.get("next") or "",
        "your_turn": bool(view.get("your_turn")),
        "finals": finals,
        "winners": names_text(list(view.get("winners") or []), w),
        "end_reason": end_text(view.get("end"), w),
        # The table talk since the reader last had it (compose fills it in).
        "table": [],
        "table_more": 0,
        # The legal moves and this epoch's terrains (compose fills them in for MOVE_KINDS).
        "move_groups": [],
        "epoch_terrain": "",
        "close_ups": [],
    }
