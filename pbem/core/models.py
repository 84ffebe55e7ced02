"""The database tables (SQLModel).  The schema itself is made by the Alembic
migrations in ``pbem/migrations``; these classes must match them."""

from __future__ import annotations

from datetime import datetime, timezone
from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy import (Column, DateTime, Dialect, Index, LargeBinary, String, Table, Text, TypeDecorator,
                        UniqueConstraint, inspect, text)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ColumnElement
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _when(nullable: bool = True, index: bool = False) -> Column[datetime]:
    return Column(DateTime(timezone=True), nullable=nullable, index=index)


def table_of(model: type[SQLModel]) -> Table:
    """A model's table, for Core statements (SQLModel's classes do not declare
    the ``__table__`` SQLAlchemy gives them)."""
    table = inspect(model).local_table
    assert isinstance(table, Table)
    return table


class GameStatus(StrEnum):
    """Where a game is: invited -> active -> finished; invited -> expired when
    never accepted in time; cancelled (by an admin) never happens by itself."""

    INVITED = "invited"
    ACTIVE = "active"
    FINISHED = "finished"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


#: The statuses of a game that is still being played or waits to be.
RUNNING = (GameStatus.INVITED, GameStatus.ACTIVE)


class MailChoice(StrEnum):
    """How a player wants their turns by mail (``Seat.mail``)."""

    EVERY = "every"
    DIGEST = "digest"
    NONE = "none"


class PushMode(StrEnum):
    """How a seat with a push subscription learns of its turn (``Seat.push_mode``;
    ``pbem.games.push_turn``).  Without a live subscription every mode is mail."""

    #: The turn mail as always, and the push beside it.
    MAIL = "mail"
    #: The push at once; the turn mail only if the seat page was not opened
    #: within ``Seat.push_minutes``.
    PUSH_FIRST = "push-first"
    #: The push only (reminders and the result still go by mail).
    PUSH_ONLY = "push-only"


class OutboxStatus(StrEnum):
    """pending -> sent | skipped (no longer true when its turn came) | failed"""

    PENDING = "pending"
    SENT = "sent"
    SKIPPED = "skipped"
    FAILED = "failed"


class DeliveryOutcome(StrEnum):
    """What one delivery attempt of an outbox row came to (``pbem.mail.delivery``;
    here because the metrics count them)."""

    SENT = OutboxStatus.SENT.value
    #: The world moved on: the message is no longer wanted.
    SKIPPED = OutboxStatus.SKIPPED.value
    #: Refused for good, or given up on.
    FAILED = OutboxStatus.FAILED.value
    #: A passing failure: tried again later.
    RETRY = "retry"
    #: Its reader is on their page: tried again once they have left.
    POSTPONED = "postponed"
    #: Another worker has it, or it is done.
    BUSY = "busy"


class InboundStatus(StrEnum):
    """pending -> done (its outcome says what it did)"""

    PENDING = "pending"
    DONE = "done"


class WebhookKind(StrEnum):
    """Where a webhook posts: Discord, Slack, or plain signed JSON."""

    DISCORD = "discord"
    SLACK = "slack"
    JSON = "json"


E = TypeVar("E", bound=StrEnum)


class Named(TypeDecorator[E]):
    """A ``StrEnum`` kept as its value in a plain ``VARCHAR`` (no database enum
    type, so adding a value needs no migration); rows read back give members.
    (SQLModel would make an enum field a database enum of the members' names.)
    A plain string assigned before a flush stays one until the row is read
    again: a ``StrEnum`` member compares equal to its value either way."""

    impl = String
    cache_ok = True

    def __init__(self, enum: type[E], length: int) -> None:
        super().__init__(length)
        self.enum = enum

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        return None if value is None else str(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> E | None:
        return None if value is None else self.enum(value)


#: A running game's deadline while no reminder went for it (else null): the
#: reminder scan's range over this expression is what the index serves.  The
#: planner cannot tell from the columns' statistics how few games in the next
#: day wait for a reminder (the comparison is between two columns), so it read
#: the whole table; this expression has statistics of its own.
UNREMINDED_DEADLINE = "nullif(deadline, reminded_for)"


class HalfTurnMark(ColumnElement[datetime]):
    """When half of a running game's turn is left before its unreminded
    deadline, in UTC without a zone: a reminder never goes before it (the lead
    is at most half the turn, ``pbem.workers.clock.reminder_lead``).  It is the
    second column of the reminder scan's index, so that the scan's range over
    the next ``REMINDER_HOURS`` skips short turns' games whose reminder is not
    due yet inside the index instead of reading each of them (bench "clock":
    thousands of rows a minute at 100,000 games).  Compare it with a naive UTC
    time.  Written per database, of the game table's own columns (no table
    name: an index's expression has none); PostgreSQL's in the form it gives
    the index back, so that the migrations check compares them."""

    type = DateTime()
    inherit_cache = True


@compiles(HalfTurnMark, "postgresql")
def _half_turn_postgresql(element: HalfTurnMark, compiler: SQLCompiler, **kw: Any) -> str:
    # timestamptz - interval depends on the session's zone (not indexable); a
    # timestamp in UTC minus hours does not.
    return ("(timezone('UTC'::text, nullif(deadline, reminded_for))"
            " - turn_hours::double precision * '00:30:00'::interval)")


@compiles(HalfTurnMark, "sqlite")
def _half_turn_sqlite(element: HalfTurnMark, compiler: SQLCompiler, **kw: Any) -> str:
    # datetime() drops the fraction of a second: never later than the mark.
    return "(datetime(nullif(deadline, reminded_for), '-' || (turn_hours * 30) || ' minutes'))"


class Game(SQLModel, table=True):
    __tablename__ = "game"
    __table_args__ = (
        Index("ix_game_reminder_due", text(f"({UNREMINDED_DEADLINE})"), HalfTurnMark(),
              postgresql_where=text(f"status = '{GameStatus.ACTIVE}'"),
              sqlite_where=text(f"status = '{GameStatus.ACTIVE}'")),
    )

    id: int | None = Field(default=None, primary_key=True)
    #: The game's address in links, the API and mail headers: random, so that
    #: nobody can walk from one game to the next (``tokens.public_id``).
    public_id: str = Field(max_length=24, unique=True, index=True)
    # See GameStatus.  While invited, the seat at position 0 is the player who
    # started the game: the others' invitations wait until they accept.
    status: GameStatus = Field(default=GameStatus.INVITED, sa_type=Named(GameStatus, 16), index=True)
    turn_hours: int = Field(default=72)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))
    started_at: datetime | None = Field(default=None, sa_column=_when())
    finished_at: datetime | None = Field(default=None, sa_column=_when())
    # Guards every move: a move is stored only if ply is still what the mover saw.
    ply: int = Field(default=0)
    # The rules' snapshot (Game.to_json) of the current position, so reading a
    # game never replays its history.
    state: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    # The seat to move and when its time is up (null when not running).
    turn_seat: int | None = Field(default=None)
    deadline: datetime | None = Field(default=None, sa_column=_when(index=True))
    reminded_for: datetime | None = Field(default=None, sa_column=_when())
    # Seeds the public set-up only (huts) and the autopilot; the secret clans
    # are drawn from the system's random source and depend on nothing stored.
    seed: int = Field(default=0)
    #: The finished game this one is the rematch of ("Play again"): unique, so
    #: that two clicks, or two players clicking at once, make one rematch.
    rematch_of: int | None = Field(default=None, foreign_key="game.id", unique=True, index=True)
    #: When the players' ratings took this game's result (``pbem.people.ratings``):
    #: set once, guarded like a move, so a result is never counted twice.
    rated_at: datetime | None = Field(default=None, sa_column=_when())
    #: A correspondence clock (``pbem.games.clocks``): days each player starts
    #: with, hours added after each move, the most a bank holds; all ``None``
    #: for a game of fixed ``turn_hours``.
    clock_days: int | None = Field(default=None)
    clock_increment_hours: int | None = Field(default=None)
    clock_max_days: int | None = Field(default=None)
    #: Players' clocks stop from Saturday to Monday in their own time zones.
    weekends_off: bool = Field(default=False)
    #: Started with ``"vacation": "off"``: no vacation is spent when a deadline lapses.
    vacation_off: bool = Field(default=False)
    #: When the clock of the turn now being played started to run (its bank is
    #: spent from here; after a pause, from the pause's end).
    turn_started_at: datetime | None = Field(default=None, sa_column=_when())
    #: A practice game's original (``pbem.table.practice``): never rated, never in
    #: anyone's stats; it started at move ``practice_ply`` of that game.
    practice_of: int | None = Field(default=None, foreign_key="game.id", index=True)
    practice_ply: int | None = Field(default=None)


class Seat(SQLModel, table=True):
    __tablename__ = "seat"
    __table_args__ = (UniqueConstraint("game_id", "position"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    position: int
    name: str = Field(max_length=60)
    email: str = Field(max_length=254, index=True)
    # sha256 of the seat token; the token itself is derived (HMAC) from the
    # secret key and this salt, so workers can rebuild links without storing it.
    token_salt: str = Field(max_length=64)
    token_hash: str = Field(max_length=64, unique=True)
    accepted_at: datetime | None = Field(default=None, sa_column=_when())
    clan: str | None = Field(default=None, max_length=8)
    mail: MailChoice = Field(default=MailChoice.EVERY, sa_type=Named(MailChoice, 8))
    autopilot_streak: int = Field(default=0)
    #: Unused since vacation is a person's (``pbem.core.vacation_tables``); kept
    #: so that an older release still running during an upgrade finds it.
    vacation_days_left: int = Field(default=7)
    #: A clocked game's bank of time for this seat, in seconds, as it stood when
    #: their current or last turn began (``None`` without a clock).
    bank_seconds: int | None = Field(default=None)
    paused_until: datetime | None = Field(default=None, sa_column=_when())
    #: The language of this player's mail and seat page (``pbem.words.language.LANGUAGES``).
    language: str = Field(default="en", max_length=8)
    #: Their IANA time zone for dates in mail and on their page; ``None`` until
    #: chosen (shown as UTC; the page offers the browser's).
    time_zone: str | None = Field(default=None, max_length=64)
    #: Each table-talk message by mail (otherwise they come with the next turn mail).
    talk_mail: bool = Field(default=False)
    #: The computer plays this seat at this level (``pbem.rules.computer.Level``),
    #: from move ``bot_from`` on; ``None`` for a person.  A seat made for the
    #: computer has no address, and no seat the computer plays is ever mailed.
    bot: str | None = Field(default=None, max_length=8)
    bot_from: int | None = Field(default=None)
    #: How this player's board is drawn, on their page and in their mail's picture
    #: (``pbem.drawing.style.BOARD_STYLES``: ``standard`` or ``contrast``).
    board_style: str = Field(default="standard", max_length=16)
    #: Their Discord user id (digits only), for the game's Discord webhooks to
    #: mention them when it is their turn; ``None``: no mention.
    discord_id: str | None = Field(default=None, max_length=20)
    #: The seat's result, written with the move that ends the game (the players'
    #: stats read these rather than every finished game's position).
    final_score: int | None = Field(default=None)
    won: bool | None = Field(default=None)
    #: When the player's open seat page last said they are there (its script's
    #: heartbeat, a POST: never a GET of the link, which mail scanners open).
    #: A turn mail waits while they are (``pbem.table.watching.present_until``).
    seen_at: datetime | None = Field(default=None, sa_column=_when())
    #: Turn mail beside a push, after it, or none (``PushMode``), and how many
    #: minutes "push first" waits for the page to be opened before the mail goes.
    push_mode: PushMode = Field(default=PushMode.MAIL, sa_type=Named(PushMode, 12))
    push_minutes: int = Field(default=30)


class MoveRecord(SQLModel, table=True):
    """The history of moves; (game, ply) is unique, the second guard against a
    move being stored twice."""

    __tablename__ = "move"
    __table_args__ = (UniqueConstraint("game_id", "ply"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    ply: int
    position: int
    move: str = Field(max_length=32)
    order: str | None = Field(default=None, max_length=200)
    by_autopilot: bool = Field(default=False)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))


class Outbox(SQLModel, table=True):
    """Every message the service decides to send, written in the transaction of
    the change that causes it and delivered from here."""

    __tablename__ = "outbox"
    __table_args__ = (
        UniqueConstraint("game_id", "event", "recipient", "kind", name="uq_outbox_message"),
        Index("ix_outbox_pending", "status", "next_attempt_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = Field(default=None, foreign_key="game.id", index=True)
    seat_id: int | None = Field(default=None, foreign_key="seat.id")
    login_id: int | None = Field(default=None, foreign_key="login.id")
    kind: str = Field(max_length=16)
    # What caused it, e.g. "ply:12": with the unique key, one message per cause.
    event: str = Field(max_length=64)
    recipient: str = Field(max_length=254)
    message_id: str = Field(max_length=200, unique=True)
    status: OutboxStatus = Field(default=OutboxStatus.PENDING, sa_type=Named(OutboxStatus, 16))
    attempts: int = Field(default=0)
    last_error: str | None = Field(default=None, max_length=500)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))
    next_attempt_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))
    sent_at: datetime | None = Field(default=None, sa_column=_when())
    #: The language of a message with no seat to take it from (a sign-in link:
    #: the language of the page it was asked for on).
    language: str | None = Field(default=None, max_length=8)
    #: What a mail with a reply address said, as keyed hashes of its runs of
    #: words (:func:`pbem.inbound.guard.fingerprint`): nothing of it reaches
    #: the table from a reply (:mod:`pbem.inbound.sent_mail`).  No text is kept.
    fingerprint: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))


class Login(SQLModel, table=True):
    """A sign-in link: expires, works once."""

    __tablename__ = "login"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=254, index=True)
    token_salt: str = Field(max_length=64)
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))
    expires_at: datetime = Field(sa_column=_when(False))
    used_at: datetime | None = Field(default=None, sa_column=_when())
    #: The browser session this link opened ended (signed out): the session
    #: cookie names this row, so a copied cookie stops working too.
    ended_at: datetime | None = Field(default=None, sa_column=_when())


class Suppression(SQLModel, table=True):
    """Addresses that asked never to be mailed again ("never email me again" in
    an invitation).  Only the address's SHA-256 is kept."""

    __tablename__ = "suppression"

    id: int | None = Field(default=None, primary_key=True)
    address_hash: str = Field(max_length=64, unique=True, index=True)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))


class Rating(SQLModel, table=True):
    """A player's rating (OpenSkill, Plackett-Luce) and whether they chose to see
    it and their stats, by address.  Only the address's SHA-256 is kept: the row
    is found from a signed-in address or a seat's, never listed."""

    __tablename__ = "rating"

    id: int | None = Field(default=None, primary_key=True)
    address_hash: str = Field(max_length=64, unique=True, index=True)
    #: Chosen on the signed-in dashboard; the rating is shown only then.
    opted_in: bool = Field(default=False)
    mu: float = Field(default=25.0)
    sigma: float = Field(default=25.0 / 3)
    #: Games rated (a rating is provisional before ``ratings.SHOWN_AFTER``).
    games: int = Field(default=0)
    updated_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))


class Bounce(SQLModel, table=True):
    """An address that mail to it bounces from: after a hard failure (or
    repeated soft ones) the service stops mailing it.  Only its SHA-256 is kept."""

    __tablename__ = "bounce"

    id: int | None = Field(default=None, primary_key=True)
    address_hash: str = Field(max_length=64, unique=True, index=True)
    soft: int = Field(default=0)
    #: Set once the address counts as unreachable (a hard bounce, or enough soft ones).
    bouncing_at: datetime | None = Field(default=None, sa_column=_when())
    last_status: str | None = Field(default=None, max_length=200)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))


class ReplyToken(SQLModel, table=True):
    """A turn mail's reply address ``move+TOKEN@``: one seat, one ply, used once.
    The token is derived (HMAC) from the secret key and the salt, like a seat's."""

    __tablename__ = "reply_token"
    __table_args__ = (UniqueConstraint("seat_id", "ply"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat_id: int = Field(foreign_key="seat.id")
    ply: int
    token_salt: str = Field(max_length=64)
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))
    used_at: datetime | None = Field(default=None, sa_column=_when())


class Inbound(SQLModel, table=True):
    """A message the receiver accepted, stored before it answered 250 (so a
    worker or broker that is down loses nothing: the sweep finds it)."""

    __tablename__ = "inbound"

    id: int | None = Field(default=None, primary_key=True)
    #: The Message-ID (or, without one, a digest of the message): a message
    #: delivered twice is stored once.
    message_key: str = Field(max_length=255, unique=True)
    recipient: str = Field(max_length=254)
    sender: str = Field(max_length=254)
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    received_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))
    status: InboundStatus = Field(default=InboundStatus.PENDING, sa_type=Named(InboundStatus, 16), index=True)
    outcome: str | None = Field(default=None, max_length=64)
    attempts: int = Field(default=0)
    handled_at: datetime | None = Field(default=None, sa_column=_when())


class TableMessage(SQLModel, table=True):
    """Table talk: a player's message to the others at a game's table."""

    __tablename__ = "table_message"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat_id: int = Field(foreign_key="seat.id")
    text: str = Field(sa_column=Column(Text, nullable=False))
    # page | reply
    source: str = Field(default="page", max_length=8)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))


class CaughtMail(SQLModel, table=True):
    """The demo's mailbox: what would have gone to an SMTP server."""

    __tablename__ = "caught_mail"

    id: int | None = Field(default=None, primary_key=True)
    recipient: str = Field(max_length=254, index=True)
    subject: str = Field(max_length=300)
    kind: str = Field(max_length=16)
    message_id: str = Field(max_length=200)
    raw: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))


class Webhook(SQLModel, table=True):
    """A game's webhook, set by one of its players: each turn, the start and the
    end are posted there (``pbem.table.webhooks``), from the public view only."""

    __tablename__ = "webhook"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    #: The seat that set it: told by mail if it is switched off, the only one who may remove it.
    seat_id: int = Field(foreign_key="seat.id")
    kind: WebhookKind = Field(sa_type=Named(WebhookKind, 8))
    url: str = Field(max_length=500)
    #: A json webhook's signing secret is HMAC-derived from the secret key and this
    #: salt (as seat tokens are): shown once, never stored.
    secret_salt: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_when(False))
    #: When the current run of failures began (``None`` while it delivers).
    first_failure_at: datetime | None = Field(default=None, sa_column=_when())
    last_error: str | None = Field(default=None, max_length=300)
    #: Switched off after failing for a day; nothing more goes to it.
    disabled_at: datetime | None = Field(default=None, sa_column=_when())
