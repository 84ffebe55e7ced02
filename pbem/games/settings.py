"""A seat's own settings: its mail, language, time zone and board style, its pause,
its link, and "never email me again"."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy.exc import IntegrityError

from ..core import errors, tokens
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core import events
from ..core.events import Event
from ..core.models import GameStatus, MailChoice, Suppression
from ..core.outbox import OutboxKind, enqueue
from ..drawing.style import BOARD_STYLES
from ..people import vacation
from ..people.players import mailbox_hash
from ..people.reachability import is_suppressed
from ..people.signin import end_sessions
from ..rules.views import SeatView
from ..words import N_, n_
from ..words.language import LANGUAGES, UnknownLanguage, UnknownTimeZone, clean_language, clean_time_zone
from .lookup import refuse_computer_seat, seat_and_game
from .views import game_view


MAIL_CHOICES = tuple(MailChoice)


def never_mail(ctx: Context, token: object) -> None:
    """"Never email me again", from an invitation's link: the seat's address goes
    on the suppression list (no later game can name it, no mail goes to it) and
    the seat's mail is turned off."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, _, _ = seat_and_game(session, token)
        if not is_suppressed(session, seat.email):
            try:
                with session.begin_nested():  # two clicks at once: the second finds the row
                    session.add(Suppression(address_hash=mailbox_hash(seat.email), created_at=now))
            except IntegrityError:
                pass
        seat.mail = MailChoice.NONE
        session.add(seat)


def set_mail(ctx: Context, token: object, choice: object) -> SeatView:
    """Choose turn mail: every turn, a daily digest, or none."""
    if choice not in MAIL_CHOICES:
        raise errors.Invalid(N_("mail must be one of %(choices)s"), choices=", ".join(MAIL_CHOICES),
                             code="invalid-mail")
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        if choice != MailChoice.NONE:  # an old mail's unsubscribe link still works
            refuse_computer_seat(seat)
        seat.mail = MailChoice(str(choice))
        session.add(seat)
        return game_view(ctx, game, seats, seat)


def set_language(ctx: Context, token: object, language: object, time_zone: object = None) -> SeatView:
    """Choose the language of this seat's page and mail and, if given, its time
    zone (an empty one leaves it as it is)."""
    try:
        code = clean_language(language)
    except UnknownLanguage:
        raise errors.Invalid(N_("the language must be one of %(languages)s"), languages=", ".join(LANGUAGES),
                             code="invalid-language", field="language") from None
    try:
        zone_name = clean_time_zone(time_zone) if time_zone else None
    except UnknownTimeZone:
        raise errors.Invalid(N_("the time zone must be an IANA name such as Europe/Budapest"),
                             code="invalid-time-zone", field="time_zone") from None
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        seat.language = code
        if zone_name:
            seat.time_zone = zone_name
        session.add(seat)
        return game_view(ctx, game, seats, seat)


def set_board_style(ctx: Context, token: object, style: object) -> SeatView:
    """Choose how this seat's page and the picture in its mail draw the board."""
    if not isinstance(style, str) or style not in BOARD_STYLES:
        raise errors.Invalid(N_("the board style must be one of %(choices)s"), choices=", ".join(BOARD_STYLES),
                             code="invalid-style", field="style")
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        seat.board_style = style
        session.add(seat)
        return game_view(ctx, game, seats, seat)


def replace_seat_link(ctx: Context, token: object, *, keep_login: object = None) -> str:
    """A leaked seat link can be replaced: the seat gets a new token, the old one
    stops working at once, and the new link is mailed to the seat's own address
    (never shown to whoever holds the old one).  Whoever had the link may have
    had more: every browser session signed in with the seat's address ends too
    (and its sign-in links not yet used), but ``keep_login``, the session of
    the browser asking, if it is one.  Returns the game's public id."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, _ = seat_and_game(session, token)
        # Counted per seat, not per token: each new link is a new token.
        ctx.limit("LIMIT_NEW_LINK", [f"seat:{seat.id}"])
        end_sessions(session, seat.email, now, keep=keep_login)
        seat.token_salt = tokens.new_salt()
        seat.token_hash = tokens.digest(tokens.derive(ctx.secret_key, "seat", seat.token_salt))
        session.add(seat)
        session.flush()
        row = enqueue(session, kind=OutboxKind.LINK, event=events.key(Event.LINK, uuid.uuid4().hex),
                      recipient=seat.email, base_url=ctx.base_url, now=now, game_id=game.id, seat_id=seat.id)
        public_id = game.public_id
    ctx.relay([row])
    return public_id


def pause_clock(ctx: Context, token: object, days: object) -> SeatView:
    """Pause this player's own clock for ``days`` days (from their vacation
    bank, which is theirs across all their games: ``pbem.people.vacation``).  If it is their turn the deadline moves back by the
    pause; a turn that reaches them while paused starts its clock when the pause
    ends.  Everyone sees the pause (``paused_until`` in the view)."""
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise errors.Invalid(N_("days must be a whole number of days, at least 1"), code="invalid-days")
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        refuse_computer_seat(seat)
        if game.status != GameStatus.ACTIVE:
            raise errors.Conflict(N_("the clock runs only while the game is being played"),
                                  code="not-started" if game.status == GameStatus.INVITED else "game-over")
        if not vacation.spend(session, seat.email, days, now, ctx.config):
            left = int(vacation.days_left(session, seat.email, now, ctx.config))
            raise errors.Invalid(n_("you have %(num)d vacation day left",
                                    "you have %(num)d vacation days left"),
                                 num=left, code="invalid-days")
        pause = timedelta(days=days)
        paused = as_utc(seat.paused_until)
        seat.paused_until = (paused if paused and paused > now else now) + pause
        session.add(seat)
        current = as_utc(game.deadline)
        if game.turn_seat == seat.position and current is not None:
            # The deadline moves with the pause, and a new deadline deserves a new
            # reminder; a clock's bank is not spent while paused.
            game.deadline = current + pause
            game.reminded_for = None
            started = as_utc(game.turn_started_at)
            if started is not None:
                game.turn_started_at = started + pause
            session.add(game)
        session.flush()
        return game_view(ctx, game, seats, seat)
