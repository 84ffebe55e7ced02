"""What a message says: the message for an outbox row as the world now stands
(or none, if the world moved on), built from the recipient's view of the game
and the words in :mod:`pbem.words`.  Sending it is :mod:`pbem.mail.delivery`'s job."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from ..games.clock_options import VACATION_OFF
from ..words.banks import bank_text
from ..inbound import answers, reply_tokens
from ..games import daily, unsubscribing
from ..table import watching
from ..core.context import Context
from ..core.models import Outbox, Seat
from ..core.queries import table_news_unseen
from ..rules import classic_board
from ..drawing.style import clan_colour, clan_glyph, clan_text_colour
from ..rules.tables import EPOCHS
from ..rules.views import SeatView
from ..rules.effects import MoveEffect, move_effects
from ..words import (Words, move_text, board_text, describe_history, end_text, epoch_terrain_text, joins_text, left_text,
                     move_groups, only_joins, names_text, scores_text, village_line, when_text)
from . import kinds, messages, reader
from ..drawing.picture import board_pngs
from ..core import links
from .. import games

#: The most table messages one mail shows (the page has them all).
TABLE_IN_MAIL = 20


class Postponed(Exception):
    """The message is wanted, but not yet: its reader is on their page now.
    Delivery tries it again at ``until`` (when they will have been gone long
    enough), and it goes then if the world still wants it."""

    def __init__(self, until: datetime) -> None:
        super().__init__(f"reader present until {until.isoformat()}")
        self.until = until


def compose(ctx: Context, session: Session, row: Outbox) -> messages.Mail | None:
    """The message for a row as the world now stands, or ``None`` if it no longer
    should go (a turn that is over, a spent sign-in link, mail turned off).
    Raises :class:`Postponed` for a turn mail whose reader is on their page.
    What each kind shows and needs is its record (:mod:`pbem.mail.kinds`)."""
    record = kinds.record_of(row.kind)
    envelope: dict[str, Any] = dict(sender=ctx.config["MAIL_FROM"], recipient=row.recipient,
                                    message_id=row.message_id, kind=row.kind)
    if reader.read(session, row.recipient, row.seat_id, bounces_count=not record.asked_for):
        return None  # they asked never to be mailed again, or their mail bounces (pbem.inbound.bounces)
    if isinstance(record, kinds.SignInMail):
        w = Words(row.language or "en")
        signing_in = record.context(ctx, session, row, w)
        if signing_in is None:
            return None
        return messages.mail(messages.Envelope(**envelope), signing_in, language=w.language)
    if isinstance(record, kinds.DailyListMail):
        listing = record.context(ctx, session, row)
        if listing is None:
            return None
        return messages.mail(messages.Envelope(**envelope, unsubscribe=listing["unsubscribe"]), listing,
                             language=listing["w"].language)
    game, seats = games.game_and_seats(session, row.game_id)
    seat = next((s for s in seats if s.id == row.seat_id), None)
    if game is None or seat is None:
        return None
    if not record.still_wanted(ctx, row, game, seat):
        return None
    if record.replaced_by_daily and daily.replaces_turn_mail(session, seat.email):
        return None  # their daily mail lists this game instead
    if record.waits_while_present:
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
    if record.answers_reply:
        found = answers.answer(ctx, session, kinds.event_id(row.event), seat, game, w)
        if found is None:
            return None  # the message it answers is gone
        answer = found
        envelope["in_reply_to"] = answer["in_reply_to"]
    mailing = kinds.Mailing(ctx, session, row, game, seats, seat, view, w, answer)
    reply_ply = record.reply_ply(mailing)
    if reply_ply is not None:
        envelope.update(_reply_address(ctx, session, row, seat, reply_ply, talk=record.replies_to_table))
    context = mail_context(view, seat_name=seat.name, link=link, since_ply=record.since_ply(mailing),
                           now=ctx.now(), w=w)
    context.update(kind=row.kind, base_url=ctx.base_url,
                   unsubscribe=unsubscribing.link(ctx, game, seat),  # a token that only stops mail
                   reply_to=envelope.get("reply_to"), seat_email=seat.email, **answer)
    effects = _effects(view) if record.offers_moves or record.lists_legal_moves else []
    if record.lists_legal_moves:
        context.update(legal_moves=legal_moves_text(view, w, effects))
    if record.offers_moves:
        context.update(move_context(view, w, effects))
    if record.shows_table:
        context.update(_table_context(session, row, seat, w))
    if record.tells_premoves:
        context["premoves"] = _premove_news(session, seat, view)
    own = record.context(mailing, context)
    if own is None:
        return None
    context.update(own)
    picture = None
    close_ups: list[bytes] = []
    if record.shows_board and view["huts"]:
        # Close-ups of where the reader can move, in the mails that ask for a move.
        focus = sorted({t for e in effects for t in e.move}) if record.offers_moves else []
        picture, pieces = board_pngs(classic_board(), view, focus=focus, style=seat.board_style)
        close_ups = [p.png for p in pieces]
        context["close_ups"] = [
            {"cid": f"close-up-{i}", "width": p.size[0], "height": p.size[1],
             "alt": w._("Close-up of the board: territories %(territories)s",
                        territories=", ".join(map(str, p.territories)))}
            for i, p in enumerate(pieces, 1)]
    context["has_board"] = picture is not None
    return messages.mail(messages.Envelope(**envelope, unsubscribe=context["unsubscribe"]), context,
                         picture=picture, close_ups=close_ups, language=w.language)


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


def _premove_news(session: Session, seat: Seat, view: SeatView) -> dict[str, Any]:
    """What became of the reader's pre-moves (theirs only: read from their own row)."""
    news = games.premove_news(session, seat, dict(view))
    out: dict[str, Any] = {}
    if "fired" in news:
        fired = news["fired"]
        out["fired"] = {"move": move_text(fired["move"]), "rank": fired["rank"], "of": fired["of"],
                        "ply": fired["ply"] + 1}
    if "missed" in news:
        out["missed"] = {"moves": ", ".join(move_text(m["move"]) for m in news["missed"]["moves"])}
    return out


def _table_context(session: Session, row: Outbox, seat: Seat, w: Words) -> dict[str, Any]:
    """The table talk a turn mail or digest shows: the others' messages since the
    reader last had the table (see :func:`pbem.core.queries.table_seen_at`)."""
    news, more = table_news_unseen(session, seat, before_id=row.id, limit=TABLE_IN_MAIL)
    return {"table": [{"author": author, "text": text, "when": w.when(at)} for author, text, at in news],
            "table_more": more}


def mail_context(view: SeatView, *, seat_name: str, link: str, since_ply: int,
                 now: datetime | None = None, w: Words = Words()) -> dict[str, Any]:
    """What the templates need, derived from the viewer's view only (so a mail
    can show nothing its recipient may not see), worded for its reader ``w``."""
    history = describe_history(view, w)
    # An open seat nobody has joined yet has no name (pbem.games.open_seats).
    others = [w._("%(name)s (computer)", name=p["name"]) if p.get("bot") else p["name"] or w._("a seat for anyone")
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
            "bank": bank_text(p.get("bank_hours"), w),
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
        # The legal moves and this epoch's terrains (compose fills them in for a kind that offers moves).
        "move_groups": [],
        "epoch_terrain": "",
        "close_ups": [],
        # What became of the reader's pre-moves (compose fills it in for a kind that tells it).
        "premoves": {},
        # The reader's vacation days (a person's), and whether this game spends them.
        "vacation_left": view.get("vacation_days_left"),
        "vacation_on": view.get("vacation") != VACATION_OFF,
    }
