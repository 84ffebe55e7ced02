"""What each kind of mail is, in one record per kind: whether the world still
wants it when it is about to go, what it shows (the board, the reader's moves,
the table talk), whether it carries a reply address or answers a reply, and what
its templates need beyond the reader's view of the game.

:func:`pbem.mail.compose.compose` builds every mail through its record, so a new
kind is an :class:`~pbem.core.outbox.OutboxKind`, a record here and its pair of
templates, ``templates/mail/KIND.txt`` (the first line is the subject) and
``KIND.html``.  The kinds that are no mail, ``webhook`` and ``push``, are posts
(:mod:`pbem.mail.webhook_posts`, :mod:`pbem.mail.push_posts`) and have no record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence
from urllib.parse import urlsplit

from sqlalchemy import bindparam, update
from sqlmodel import Session, col, select

from ..core import events, links
from ..core.context import Context
from ..core.db import as_utc
from ..core.events import Event
from ..core.models import (RUNNING, Game, GameStatus, Login, MailChoice, Outbox, PushMode, Seat, TableMessage,
                           Webhook, table_of)
from ..core.match_tables import MatchRequest
from ..core.outbox import OutboxKind
from ..core.queries import digest_news
from ..games import lobby
from ..games import daily
from ..games.waiting import waiting_in
from ..people import blocks, signin
from ..rules.views import SeatView
from ..table import webhooks
from ..words import Words, left_text, move_text, names_text
from .. import games

_OUTBOX = table_of(Outbox)
# Built once: a sign-in row keeps the link it sends.
_KEEP_LOGIN = (update(_OUTBOX).where(_OUTBOX.c.id == bindparam("row_id"))
               .values(login_id=bindparam("the_login")))


@dataclass(frozen=True)
class Mailing:
    """What a mail about a game is built from: its row, the game and its seats as
    they stand, the reader's seat, their view of the game and their words, and
    (for an answer to a reply) what the answer says."""

    ctx: Context
    session: Session
    row: Outbox
    game: Game
    seats: Sequence[Seat]
    seat: Seat
    view: SeatView
    w: Words
    answer: dict[str, Any]


class SignInMail:
    """The one mail about no game: a sign-in link someone asked for on a page."""

    kind: ClassVar[OutboxKind] = OutboxKind.LOGIN
    #: Sent even to an address that bounces: the one asking is there now, and
    #: it is their way back to their seats.
    asked_for: ClassVar[bool] = True

    def context(self, ctx: Context, session: Session, row: Outbox, w: Words) -> dict[str, Any] | None:
        """What the templates say, or ``None`` once the link is spent or
        expired (or the address has no games)."""
        login = _login_of(ctx, session, row)
        if login is None or login.used_at is not None or as_utc(login.expires_at) <= ctx.now():
            return None
        return {"link": signin.login_link(ctx, login), "minutes": ctx.config["LOGIN_MINUTES"],
                "base_url": ctx.base_url, "kind": row.kind, "w": w}


class GameMail:
    """A mail about a game to one of its seats.  The defaults are the plainest
    such mail (news about a move that stays made); each kind says what differs."""

    kind: ClassVar[OutboxKind]
    #: Sent even to an address that bounces (see :class:`SignInMail`).
    asked_for: ClassVar[bool] = False
    #: Stopped by the seat's "no mail" setting: news of play.  The others go
    #: whatever it says (the result of a game, an answer to their own mail, ...).
    heeds_mail_setting: ClassVar[bool] = True
    #: Waits while its reader is on their seat page (``pbem.table.watching``):
    #: the page says it is their turn already.
    waits_while_present: ClassVar[bool] = False
    #: Shows the board: as text, and as the inline PNG in the HTML part.
    shows_board: ClassVar[bool] = False
    #: Offers the reader's legal moves with their effects, this epoch's terrains
    #: and close-ups of the board legible on a phone: enough to decide.
    offers_moves: ClassVar[bool] = False
    #: Lists, a line each, the moves the seat may play now.
    lists_legal_moves: ClassVar[bool] = False
    #: Shows the table talk written since the reader last had it.
    shows_table: ClassVar[bool] = False
    #: Answers a mail the service received, and threads under it
    #: (what it says: :func:`pbem.inbound.answers.answer`).
    answers_reply: ClassVar[bool] = False
    #: Carries a reply address (a seat's reply token) and keeps a fingerprint of
    #: what it said: ``pbem.inbound.reply_tokens.REMEMBERED_KINDS``, which finds the
    #: token again by its Message-ID, names the same kinds.
    carries_token: ClassVar[bool] = False
    #: A reply to it goes to the table (``talk+TOKEN@``) and is never played.
    replies_to_table: ClassVar[bool] = False
    #: Tells the reader what became of their pre-moves: the one played as their
    #: last move, or that none could be played when this turn came.
    tells_premoves: ClassVar[bool] = False
    #: Not sent while the reader's daily mail is on (:mod:`pbem.games.daily`):
    #: the daily one lists the game instead.
    replaced_by_daily: ClassVar[bool] = False

    def still_wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        """Whether the world still calls for this message (checked just before sending)."""
        if self.heeds_mail_setting and seat.mail == MailChoice.NONE:
            return False
        return self.wanted(ctx, row, game, seat)

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        """The kind's own part of :meth:`still_wanted`."""
        return True

    def reply_ply(self, m: Mailing) -> int | None:
        """The turn (its ply) whose reply token the mail carries, if it carries one now."""
        return None

    def since_ply(self, m: Mailing) -> int:
        """The first ply of the history the mail calls new: by default, the one
        after the reader's own last move."""
        return _last_turn_ply(m.view, m.seat.position)

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        """What the kind's templates need beyond the reader's view (``context``,
        built so far), or ``None`` if what it tells of is gone."""
        return {}


class InviteMail(GameMail):
    kind = OutboxKind.INVITE
    heeds_mail_setting = False

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        # Late (e.g. the broker was down) but still useful unless they accepted already.
        return game.status in RUNNING and seat.accepted_at is None

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        # Who asked: the one who started the game sits at 0 until it starts.
        creator = m.seats[0]
        # Strangers who met in the lobby never learn each other's address ("Play again" after such a game).
        shown = "" if lobby.from_lobby(m.session, m.game) else creator.email
        return dict(confirming=m.seat.position == 0, inviter=creator.name, inviter_email=shown,
                    # Nobody is invited after the confirmation when the others are computers.
                    only_computers=all(s.bot for s in m.seats if s.id != m.seat.id),
                    never=f"{m.ctx.base_url}/never/{links.seat_token(m.ctx, m.seat)}")


class TableInviteMail(GameMail):
    """A stranger's invitation to the lobby table they joined (event
    ``join:LOBBY_SEAT:UNTIL``): their seat link, and the people seated there by
    name with their reliability, never an address."""

    kind = OutboxKind.TABLE_INVITE
    heeds_mail_setting = False
    asked_for = True  # they asked for it on the lobby's page a moment ago

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        # Still theirs (a lapsed hold may have gone to someone else) and not yet accepted.
        return game.status == GameStatus.INVITED and seat.accepted_at is None and seat.email == row.recipient

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        return dict(strangers=lobby.strangers(m.session, m.game, m.seats, m.seat),
                    open_seats=sum(1 for s in m.seats if s.accepted_at is None),
                    never=f"{m.ctx.base_url}/never/{links.seat_token(m.ctx, m.seat)}")


class MatchConfirmMail(GameMail):
    """"Confirm your quick match": the request's seat link (``pbem.games.quick_match``),
    which shows the game once they are seated."""

    kind = OutboxKind.MATCH_CONFIRM
    heeds_mail_setting = False
    asked_for = True  # they asked for it on the lobby's page a moment ago

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        return game.status == GameStatus.INVITED and seat.accepted_at is None and seat.email == row.recipient

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        found = m.session.exec(select(MatchRequest).where(col(MatchRequest.game_id) == m.game.id)).first()
        return dict(counts=found.counts() if found is not None else [],
                    never=f"{m.ctx.base_url}/never/{links.seat_token(m.ctx, m.seat)}")


class SubstituteInviteMail(GameMail):
    """A volunteer's invitation to take over an away seat (``pbem.games.substitutes``):
    the link is their holding seat's, which becomes the away seat's on accepting."""

    kind = OutboxKind.SUBSTITUTE_INVITE
    heeds_mail_setting = False
    asked_for = True  # they asked for it in the lobby a moment ago

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        return game.status == GameStatus.INVITED and seat.accepted_at is None and seat.email == row.recipient

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        offered = games.substitutes.offered_game(m.session, m.game.id or 0)
        if offered is None:
            return None
        game, away = offered
        _, seats = games.game_and_seats(m.session, game.id)
        return dict(game=game.public_id, away_name=away.name, ply=game.ply,
                    strangers=lobby.strangers(m.session, game, seats, away),
                    never=f"{m.ctx.base_url}/never/{links.seat_token(m.ctx, m.seat)}")


class SubstitutedMail(GameMail):
    """"Your seat passed to a substitute", to the away player: the game's public
    page, never the seat's link (it is the substitute's now)."""

    kind = OutboxKind.SUBSTITUTED
    heeds_mail_setting = False

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        offered = games.substitutes.offered_game(m.session, m.game.id or 0)
        if offered is None:
            return None
        game, seat = offered
        return dict(game=game.public_id, substitute=seat.name, link=f"{m.ctx.base_url}/games/{game.public_id}")


class TurnMail(GameMail):
    """Your turn (event ``ply:PLY``): sent while it still is, with everything
    needed to decide and a reply address to answer with the move."""

    kind = OutboxKind.TURN
    tells_premoves = True
    waits_while_present = True
    shows_board = True
    offers_moves = True
    shows_table = True
    carries_token = True
    #: Not sent to a person whose daily mail is on: that is their turn mail.
    replaced_by_daily = True

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        return (game.status == GameStatus.ACTIVE and row.event == events.key(Event.PLY, game.ply)
                and game.turn_seat == seat.position and seat.mail == MailChoice.EVERY
                and not _seen_after_push(row, seat))

    def reply_ply(self, m: Mailing) -> int | None:
        return event_ply(m.row.event)

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        # The seat's own notes at the foot, if it asked: this mail goes to that seat only.
        kept = games.read_notes(m.session, m.seat)
        return {"notes": kept["text"] if kept["in_turn_mail"] else ""}


class ReminderMail(GameMail):
    """The turn mail again as the deadline comes near (event ``remind:PLY:...``):
    the same moves, and the reply token of the same turn."""

    kind = OutboxKind.REMINDER
    tells_premoves = True
    waits_while_present = True
    shows_board = True
    offers_moves = True
    carries_token = True

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        deadline = as_utc(game.deadline)
        return (game.status == GameStatus.ACTIVE and game.ply == event_ply(row.event)
                and game.turn_seat == seat.position and deadline is not None and ctx.now() < deadline)

    def reply_ply(self, m: Mailing) -> int | None:
        return event_ply(m.row.event)


class DeadlineMail(GameMail):
    """The autopilot moved for someone whose time ran out (event ``autopilot:PLY``):
    news about a move that stays made."""

    kind = OutboxKind.DEADLINE
    shows_board = True

    def since_ply(self, m: Mailing) -> int:
        return len(m.view["history"])

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        return _autopilot_context(m.view, context["history"], event_ply(m.row.event), m.seat.position)


class GameOverMail(GameMail):
    """The result: the game's record, which goes once to every player (it never
    waits while they are on their page)."""

    kind = OutboxKind.GAME_OVER
    tells_premoves = True
    heeds_mail_setting = False  # even to one who turned turn mail off
    shows_board = True

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        return game.status == GameStatus.FINISHED


class CancelledMail(GameMail):
    kind = OutboxKind.CANCELLED
    heeds_mail_setting = False  # like the result, the end of a game goes to every player

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        return game.status == GameStatus.CANCELLED


class DigestMail(GameMail):
    kind = OutboxKind.DIGEST
    tells_premoves = True
    shows_board = True
    shows_table = True

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        return seat.mail == MailChoice.DIGEST

    def since_ply(self, m: Mailing) -> int:
        """The first ply made after this seat's previous digest (its news)."""
        first = m.session.exec(digest_news(m.session, m.seat, m.game, before_id=m.row.id).limit(1)).first()
        return m.game.ply if first is None else int(first)


class LinkMail(GameMail):
    """A seat's new link: they asked for it; only the newest link works, and it
    is built now."""

    kind = OutboxKind.LINK
    asked_for = True
    heeds_mail_setting = False


class AnswerMail(GameMail):
    """An answer to a reply: it goes whatever their turn-mail setting."""

    heeds_mail_setting = False
    answers_reply = True


class ReplyAcceptedMail(AnswerMail):
    kind = OutboxKind.REPLY_ACCEPTED
    shows_board = True

    def since_ply(self, m: Mailing) -> int:
        return int(m.answer["token_ply"])


class ReplyRefusedMail(AnswerMail):
    kind = OutboxKind.REPLY_REFUSED
    shows_board = True
    lists_legal_moves = True
    carries_token = True

    def reply_ply(self, m: Mailing) -> int | None:
        # While the turn is still open, a corrected reply may use the token again.
        return int(m.answer["token_ply"]) if m.answer.get("retry") else None


class ReplyConfirmMail(AnswerMail):
    kind = OutboxKind.REPLY_CONFIRM


class TalkMail(GameMail):
    """What another player said at the table (event ``talk:ID``)."""

    kind = OutboxKind.TALK
    carries_token = True
    replies_to_table = True

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        return seat.talk_mail  # they may have turned it off since

    def reply_ply(self, m: Mailing) -> int | None:
        # An answer to the talk goes back to the table (talk+TOKEN@), never played.
        return m.game.ply

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        said = _talk_of(m.session, m.row, m.game, m.seat)
        if said is None:
            return None
        writer = next((s for s in m.seats if s.id == said.seat_id), None)
        if writer is not None and writer.email and blocks.is_blocked(m.session, m.seat.email, writer.email):
            return None  # the reader blocked its author since it was written
        author = writer.name if writer is not None else ""
        # What the author typed and their name: nothing that could tell a clan.
        return dict(author=author, said=said.text, said_at=m.w.when(as_utc(said.created_at)),
                    # Unsubscribing from the chatter must not stop the turn mail.
                    unsubscribe=context["unsubscribe"] + "/talk")


class UnreachableMail(GameMail):
    """Mail to another player of the game bounces (event ``unreachable:SEAT``)."""

    kind = OutboxKind.UNREACHABLE

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        return game.status in RUNNING

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        bouncing = next((s for s in m.seats if m.row.event == events.key(Event.UNREACHABLE, s.id)), None)
        if bouncing is None:
            return None
        return dict(unreachable=bouncing.name, starting=m.game.status == GameStatus.INVITED)


class WebhookOffMail(GameMail):
    """The webhook a seat set was switched off (event ``webhook-off:ID``)."""

    kind = OutboxKind.WEBHOOK_OFF

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        hook = m.session.get(Webhook, event_id(m.row.event))
        if hook is None or hook.game_id != m.game.id:
            return None  # removed since: nothing to tell
        shown = webhooks.shown_error(hook.last_error)
        return dict(webhook_host=urlsplit(hook.url).hostname or "", webhook_kind=hook.kind,
                    webhook_error=m.w._(shown) if shown else "")


class NudgeMail(GameMail):
    """"Anna is waiting for your move" (event ``nudge:ID``): sent while the turn
    nudged about is still the reader's."""

    kind = OutboxKind.NUDGE

    def wanted(self, ctx: Context, row: Outbox, game: Game, seat: Seat) -> bool:
        return game.status == GameStatus.ACTIVE and game.turn_seat == seat.position and seat.bot is None

    def context(self, m: Mailing, context: dict[str, Any]) -> dict[str, Any] | None:
        sent = games.nudge_of(m.session, m.row.event)
        if sent is None or sent.ply != m.game.ply or sent.mover_id != m.seat.id:
            return None  # they moved since (and may have their turn again): nothing to nudge about
        nudger = next((s.name for s in m.seats if s.id == sent.seat_id), "")
        started = games.turn_started(m.session, m.game)
        return dict(nudger=nudger, waiting_since=m.w.when(started) if started else "")
class DailyListMail:
    """A person's daily mail (event ``daily:DAY``, no game of its own): every
    game where it is their turn as it stands when it goes, in the language of
    their newest seat and the zone of their setting.  Its List-Unsubscribe
    switches the daily mail off (:mod:`pbem.games.daily`)."""

    kind: ClassVar[OutboxKind] = OutboxKind.DAILY
    asked_for: ClassVar[bool] = False

    def context(self, ctx: Context, session: Session, row: Outbox) -> dict[str, Any] | None:
        """What the templates say (their ``w`` the reader's words), or ``None``
        once the daily mail is off or no game waits on them any more."""
        setting = daily.row_of(session, row.recipient)
        if setting is None or not setting.on or setting.id is None:
            return None
        # A game whose turn mail they stopped (its own setting) stays out of it too.
        waiting = [x for x in waiting_in(session, row.recipient) if x.seat.mail != MailChoice.NONE]
        if not waiting:
            return None
        w = Words(row.language or daily.seats_language(session, row.recipient),
                  daily.setting_in(session, row.recipient).time_zone)
        now = ctx.now()
        listed = [{"game": x.game, "link": links.seat_link(ctx, x.seat), "name": x.seat.name,
                   "others": names_text(x.others, w), "deadline": w.when(x.deadline) if x.deadline else "",
                   "left": left_text(x.deadline - now, w) if x.deadline else ""}
                  for x in waiting]
        return {"games": listed, "unsubscribe": daily.unsubscribe_link(ctx, setting.id),
                "dashboard": f"{ctx.base_url}/games", "base_url": ctx.base_url, "kind": row.kind, "w": w}


#: Every kind of mail by its kind.
RECORDS: dict[OutboxKind, SignInMail | GameMail | DailyListMail] = {
    record.kind: record for record in (
        SignInMail(), DailyListMail(), InviteMail(), TableInviteMail(), MatchConfirmMail(), SubstituteInviteMail(), SubstitutedMail(), TurnMail(), ReminderMail(), DeadlineMail(),
        GameOverMail(), CancelledMail(),
        DigestMail(), LinkMail(), ReplyAcceptedMail(), ReplyRefusedMail(), ReplyConfirmMail(), TalkMail(),
        UnreachableMail(), WebhookOffMail(), NudgeMail())}


def record_of(kind: str) -> SignInMail | GameMail | DailyListMail:
    """The record of an outbox row's kind (``KeyError`` for one that is no mail)."""
    return RECORDS[OutboxKind(kind)]


def event_ply(event: str) -> int:
    """The ply in an event key such as ``ply:12``, ``remind:12:1700000000`` (-1 for none)."""
    found = events.ply_of(event)
    return -1 if found is None else found


def event_id(event: str) -> int:
    """The id in an event key such as ``inbound:12`` (-1 for none)."""
    found = events.id_of(event)
    return -1 if found is None else found


def _seen_after_push(row: Outbox, seat: Seat) -> bool:
    """"Push first" (``pbem.games.push_turn``): the turn mail waited, and the seat
    page said its player was there since the turn began, so they know."""
    seen, began = as_utc(seat.seen_at), as_utc(row.created_at)
    return (seat.push_mode == PushMode.PUSH_FIRST and seen is not None and began is not None
            and seen >= began)


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


def _last_turn_ply(view: SeatView, position: int) -> int:
    """The ply after this seat's last own move (0 if they have not moved)."""
    last = 0
    for h in view["history"]:
        if h["seat"] == position:
            last = h["ply"]
    return last


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
