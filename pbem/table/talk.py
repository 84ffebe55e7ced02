"""Table talk: what the players of a game say to each other at its table.

A message is plain text, as its author typed it (cleaned of what could hide or
reorder text), shown with their name and its time and nothing else: never a
clan, a colour or a seat that could tie a player to a clan.  Only the game's
players see the table (the public game page does not show it: talk is among
players, and may mention plans).  Messages come from the seat page
(:func:`talk`) or from a reply by mail (:func:`post_talk`, in the reply's
transaction).  Players who asked for it get each message by mail (``talk``
mail); everyone finds the new ones in their next turn mail or digest
(:func:`pbem.core.queries.table_news`)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Sequence, TypedDict

from sqlalchemy import and_, exists, func
from sqlmodel import Session, col, select

from ..core import errors
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core import events
from ..core.events import Event
from ..core.models import Game, GameStatus, MailChoice, Seat, TableMessage
from ..core.people_tables import Block, Profile
from ..core.outbox import OutboxKind, enqueue
from ..rules.views import SeatView
from pbem.games.lookup import seat_and_game, game_and_seats
from pbem.games.views import game_view
from ..people import blocks, profiles
from ..words import N_

#: The longest message, in characters.  A longer one is refused on the page
#: (the player can shorten it) and cut from a reply (which cannot be sent back).
MAX_TALK = 1000
#: What ends a message cut to :data:`MAX_TALK`.
CUT_MARK = "…"
#: Where a message comes from.
SOURCES = ("page", "reply")
#: The newest messages a seat page shows (the older ones are counted).
TABLE_SHOWN = 100

#: Characters a message keeps although their category would drop them: the
#: joiners that emoji sequences and some scripts (Persian, Indic) need.
_KEEP = frozenset({"\u200c", "\u200d"})
#: Dropped: control characters (but the line end), format characters (bidi
#: overrides and isolates, marks, zero widths, tag characters) and lone surrogates.
_DROP = frozenset({"Cc", "Cf", "Cs"})
_LINE_ENDS = re.compile(r"\r\n|[\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_BLANK_LINES = re.compile(r"\n{3,}")


class TalkLine(TypedDict):
    """One message as a seat sees it: who, what, when; nothing of any clan."""

    id: int
    author: str
    text: str
    #: ISO 8601, UTC.
    at: str
    #: Written by the viewer.
    you: bool


@dataclass(frozen=True)
class Table:
    """A game's table as one of its seats sees it."""

    #: The newest :data:`TABLE_SHOWN` messages, newest last.
    messages: list[TalkLine]
    #: How many older messages there are besides.
    earlier: int
    #: Whether this seat gets each message by mail.
    talk_mail: bool
    #: Whether this seat may write (it accepted, and the game was not given up).
    open: bool
    #: The game's newest message, shown or not (what the page's version follows).
    newest: int | None = None
    #: Whether messages of people this seat's player blocked were left out.
    hides_blocked: bool = False
    #: The public profile id of each other player's message's author, by message
    #: id (none yet for someone who never wrote: writing makes it).
    profiles: dict[int, str] = field(default_factory=dict)


def clean_talk(text: object) -> str:
    """A message as it is kept: plain text in NFC, line ends as ``\\n``, no
    control or format characters (a right-to-left override could make a
    message read as something else), tabs as spaces, no trailing spaces, at
    most one blank line in a row, nothing around it.

    >>> clean_talk("  hi\\u202e there\\r\\n\\r\\n\\r\\n\\tbye \\x00 ")
    'hi there\\n\\n bye'
    """
    if not isinstance(text, str):
        return ""
    text = unicodedata.normalize("NFC", _LINE_ENDS.sub("\n", text)).replace("\t", " ")
    if not text.isprintable():  # the common case, all printable, costs one scan
        text = "".join(c for c in text if c == "\n" or c in _KEEP or unicodedata.category(c) not in _DROP)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", text).strip()


def cut_talk(text: str) -> str:
    """A cleaned message cut to :data:`MAX_TALK` characters, the cut marked.

    >>> len(cut_talk("a" * 2000)), cut_talk("a" * 2000)[-2:]
    (1000, 'a…')
    """
    if len(text) <= MAX_TALK:
        return text
    return text[:MAX_TALK - len(CUT_MARK)].rstrip() + CUT_MARK


def is_open(game_status: str, seat: Seat) -> bool:
    """Whether a seat may talk at its table: once it accepted (an invited person
    is not at the table yet), while the game is being set up, played, or is
    over (players like to say "well played"); not once it expired."""
    return seat.accepted_at is not None and game_status in (GameStatus.INVITED, GameStatus.ACTIVE, GameStatus.FINISHED)


def post_talk(ctx: Context, session: Session, seat: Seat, text: str, *, source: str,
              outbox: list[int | None] | None = None) -> int:
    """Post ``text`` at the seat's table in the caller's transaction; returns the
    new message's id.  The other players who asked for it (``talk_mail``, and
    mail not off) get it by mail: those outbox rows' ids are added to ``outbox``
    when given, for the caller to relay after its commit (else the sweep sends them).

    Refused, changing nothing: an empty message (``Invalid``, ``empty-talk``);
    from the page, one longer than :data:`MAX_TALK` (``Invalid``,
    ``talk-too-long``; from a reply it is cut instead: compare
    ``len(clean_talk(text)) > MAX_TALK`` to say so); a seat that is not at the
    table (``Conflict``, ``table-closed``); more than ``LIMIT_TALK`` allows for
    this seat (``RateLimited``: a reply's talk is then dropped, and its answer
    says so)."""
    if source not in SOURCES:
        raise ValueError(f"unknown source of table talk: {source!r}")
    game, seats = game_and_seats(session, seat.game_id)
    if game is None or not is_open(game.status, seat):
        raise errors.Conflict(N_("you can talk at the table once you have accepted the invitation, "
                                 "until the game expires"), code="table-closed")
    cleaned = clean_talk(text)
    if not cleaned:
        raise errors.Invalid(N_("write a message first"), code="empty-talk", field="text")
    if len(cleaned) > MAX_TALK:
        if source == "page":
            raise errors.Invalid(N_("a message may be at most %(max)d characters long; yours has %(length)d"),
                                 max=MAX_TALK, length=len(cleaned), code="talk-too-long", field="text")
        cleaned = cut_talk(cleaned)
    # Counted once every check has passed: a refused message costs nothing.
    try:
        ctx.limit("LIMIT_TALK", [f"seat:{seat.id}"])
    except errors.RateLimited as e:
        raise errors.RateLimited(N_("you have written many messages in a short time: "
                                    "please wait a while before the next one"),
                                 retry_after=e.retry_after) from e
    now = ctx.now()
    assert game.id is not None and seat.id is not None  # stored rows
    message = TableMessage(game_id=game.id, seat_id=seat.id, text=cleaned, source=source, created_at=now)
    session.add(message)
    session.flush()
    assert message.id is not None  # the flush gave it one
    # Nobody gets by mail the talk of someone they blocked.
    blocking = blocks.blockers_of(session, seat.email, [s.email for s in seats]) if seat.email else set()
    if seat.email:  # their name now links to their profile beside what they write
        profiles.public_ids(session, [seat.email])
    rows = [enqueue(session, kind=OutboxKind.TALK, event=events.key(Event.TALK, message.id), recipient=s.email,
                    base_url=ctx.base_url, now=now, game_id=game.id, seat_id=s.id)
            for s in seats if s.id != seat.id and wants_talk_mail(s) and s.email not in blocking]
    if outbox is not None:
        outbox.extend(rows)
    return message.id


def wants_talk_mail(seat: Seat) -> bool:
    """Whether a seat gets each message by mail (checked when it is written and
    again when it is sent; a suppressed address gets nothing, which the mail checks)."""
    return seat.talk_mail and seat.mail != MailChoice.NONE and seat.accepted_at is not None


def talk(ctx: Context, token: object, text: object) -> SeatView:
    """Post a message from the seat page (see :func:`post_talk`)."""
    outbox: list[int | None] = []
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        post_talk(ctx, session, seat, text if isinstance(text, str) else "", source="page", outbox=outbox)
        view = game_view(ctx, game, seats, seat)
    ctx.relay(outbox)
    return view


def table(ctx: Context, token: object) -> Table:
    """The table of the seat a token opens: its newest messages, newest last.
    (There is no public table: talk is among players.)"""
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        return table_of(session, seat, game, seats)


def table_of(session: Session, seat: Seat, game: Game, seats: Sequence[Seat]) -> Table:
    """:func:`table` for a seat the caller has loaded, in the caller's transaction,
    in one query: of the newest :data:`TABLE_SHOWN` messages, those of people
    this seat's player blocked are left out; each other player's carries their
    profile's id, if they have one (a read makes none)."""
    names = {s.id: s.name for s in seats}
    hidden = exists().where(col(Block.blocker) == seat.email, col(Block.blocked) == col(Seat.email))
    rows = list(session.exec(
        select(TableMessage, Profile.public_id, hidden.label("hidden"))
        .join(Seat, col(Seat.id) == col(TableMessage.seat_id))
        # A hidden profile is as good as none: no link to it.
        .outerjoin(Profile, and_(col(Profile.email) == col(Seat.email), col(Profile.hidden).is_(False)))
        .where(TableMessage.game_id == game.id)
        .order_by(col(TableMessage.id).desc()).limit(TABLE_SHOWN)))
    earlier = 0
    if len(rows) == TABLE_SHOWN:
        total = session.exec(select(func.count()).select_from(TableMessage)
                             .where(TableMessage.game_id == game.id)).one()
        earlier = int(total) - TABLE_SHOWN
    own = {s.id for s in seats if s.id == seat.id or (seat.email and s.email == seat.email)}
    messages: list[TalkLine] = []
    linked: dict[int, str] = {}
    for m, profile, blocked in reversed(rows):
        if blocked and seat.email:
            continue
        at = as_utc(m.created_at)
        assert m.id is not None and at is not None  # stored rows
        messages.append({"id": m.id, "author": names.get(m.seat_id, ""), "text": m.text,
                         "at": at.isoformat(), "you": m.seat_id == seat.id})
        if profile is not None and m.seat_id not in own:
            linked[m.id] = profile
    return Table(messages=messages, earlier=earlier, talk_mail=seat.talk_mail,
                 open=is_open(game.status, seat), newest=rows[0][0].id if rows else None,
                 hides_blocked=bool(seat.email) and any(blocked for _, _, blocked in rows), profiles=linked)


def set_talk_mail(ctx: Context, token: object, on: bool) -> SeatView:
    """Whether this seat gets each table message by mail (otherwise the new ones
    come with its next turn mail or digest)."""
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        seat.talk_mail = bool(on)
        session.add(seat)
        return game_view(ctx, game, seats, seat)
