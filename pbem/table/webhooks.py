"""A game's webhooks, as its players set them: Discord, Slack or plain signed
JSON, told of the start, each person's turn and the end (``pbem.games.webhook_events``
writes the posts, ``pbem.mail.webhook_posts`` says what they say, from the public
view only).  A player adds one from their seat (page or API), sees the game's
webhooks, removes their own, and may give their Discord user id so that the
game's Discord posts mention them on their turn.

A json webhook's signing secret is HMAC-derived from the secret key and a
stored salt, like a seat token: shown once when it is made, never stored.  A
webhook that keeps failing for :data:`FAILING_FOR` is switched off, and the
player who set it is told by mail (``webhook-off``)."""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Literal, Sequence, TypedDict
from urllib.parse import urlsplit

from sqlalchemy import func
from sqlmodel import Session, col, select

from ..core import errors, tokens
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core import events
from ..core.events import Event
from ..core.models import RUNNING, Game, Seat, Webhook, WebhookKind
from ..core.outbox import OutboxKind, enqueue
from pbem.games.lookup import refuse_computer_seat, seat_and_game
from .webhook_targets import Target, check_target
from ..words import N_
from ..games.webhook_events import LIVE_WEBHOOKS

log = logging.getLogger(__name__)

#: Webhooks one game may have, from all its players together.
MAX_PER_GAME = 5
#: A webhook failing this long without one post getting through is switched off.
FAILING_FOR = timedelta(days=1)
#: A Discord user id ("snowflake"): digits only.
_DISCORD_ID = re.compile(r"[0-9]{15,20}", re.ASCII)
#: The statuses of a game in which webhooks may be added.
_OPEN = RUNNING


class HookState(StrEnum):
    """Whether a webhook's posts get through."""

    #: Posts go through.
    LIVE = "live"
    #: The last one did not (since ``failing_since``).
    FAILING = "failing"
    #: Switched off after failing for :data:`FAILING_FOR`.
    OFF = "off"


class WebhookLine(TypedDict):
    """One webhook as a player of its game sees it.  Its address (which lets
    anyone who has it post to the channel) and its errors only to whoever set it."""

    id: int
    kind: WebhookKind
    host: str
    url: str | None
    set_by: str
    yours: bool
    status: HookState
    failing_since: str | None
    last_error: str | None


class Webhooks(TypedDict):
    """A seat's webhook settings: the game's webhooks, and its Discord user id."""

    webhooks: list[WebhookLine]
    discord_id: str | None


@dataclass(frozen=True)
class NewWebhook:
    webhook: WebhookLine
    #: The json webhook's signing secret: shown this once (``None`` for the others).
    secret: str | None


SIGNATURE_HEADER = "X-PBEM-Signature"
#: Beside it (a receiver may check either): the signature of ``<timestamp>.<body>``,
#: with the time in ``X-PBEM-Timestamp`` and the post's id in ``X-PBEM-Delivery``,
#: so that a receiver can refuse an old post sent again (a replay).
TIMESTAMPED_HEADER = "X-PBEM-Signature-256-Timestamped"
TIMESTAMP_HEADER = "X-PBEM-Timestamp"
DELIVERY_HEADER = "X-PBEM-Delivery"

#: What the setter of a webhook is told of a failed post (its ``last_error``):
#: one of these (translated where shown) or ``HTTP <status>``, never what the
#: receiver said (pbem.mail.webhook_http.category).
TIMED_OUT = N_("timed out")
TLS_ERROR = N_("TLS error")
REFUSED = N_("connection refused")
NOT_ALLOWED = N_("address not allowed")
REDIRECT = N_("redirect refused")
NOT_FOUND = N_("host not found")
BAD_ANSWER = N_("invalid answer")
NO_CONNECTION = N_("connection failed")
ERRORS = (TIMED_OUT, TLS_ERROR, REFUSED, NOT_ALLOWED, REDIRECT, NOT_FOUND, BAD_ANSWER, NO_CONNECTION)
_HTTP_STATUS = re.compile(r"HTTP [1-5][0-9]{2}", re.ASCII)


def shown_error(stored: str | None) -> str | None:
    """The ``last_error`` a setter may see: a category; anything else (written
    before there were categories) as "connection failed".

    >>> shown_error("HTTP 404"), shown_error("timed out"), shown_error("HTTP 500 from x: <html>"), shown_error(None)
    ('HTTP 404', 'timed out', 'connection failed', None)
    """
    if not stored:
        return None
    return stored if stored in ERRORS or _HTTP_STATUS.fullmatch(stored) else NO_CONNECTION


def delivery_id(secret_key: str, outbox_id: int | None) -> str:
    """The ``X-PBEM-Delivery`` of a post: the same for every try of one post (a
    receiver can drop a repeat), and derived (HMAC) from the secret key and the
    outbox row, so that it tells no row id: a receiver cannot count the
    service's mail by it.

    >>> a = delivery_id("key", 41)
    >>> len(a), a == delivery_id("key", 41), a == delivery_id("key", 42), "41" in a
    (32, True, False, False)
    """
    return tokens.derive(secret_key, "webhook-delivery", str(outbox_id))[:32]


def signing_secret(secret_key: str, hook: Webhook) -> str:
    return tokens.derive(secret_key, "webhook", hook.secret_salt)


def signature(secret: str, body: bytes) -> str:
    """The ``X-PBEM-Signature`` value of a json webhook's body.

    >>> signature("secret", b'{"game":"x"}')
    'sha256=043dc8eb163f79ef1f027f0f2158ea86aaa32ee50683ff7f20750bf463d09bce'
    """
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def timestamped_signature(secret: str, timestamp: int, body: bytes) -> str:
    """The ``X-PBEM-Signature-256-Timestamped`` value: the HMAC of the timestamp,
    a dot and the body.

    >>> timestamped_signature("secret", 1700000000, b'{}') == signature("secret", b'1700000000.{}')
    True
    """
    return signature(secret, f"{timestamp}.".encode() + body)


def signed_by_game(ctx: Context, public_id: object, body: bytes, header: str) -> bool:
    """Whether ``header`` is the signature of ``body`` by one of the json
    webhooks of the game with this public id (the demo's catcher checks with it)."""
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(col(Game.public_id) == str(public_id))).first()
        if game is None:
            return False
        hooks = session.exec(select(Webhook).where(col(Webhook.game_id) == game.id,
                                                   col(Webhook.kind) == WebhookKind.JSON)).all()
        return any(hmac.compare_digest(signature(signing_secret(ctx.secret_key, h), body), header) for h in hooks)


def _line(hook: Webhook, seat: Seat, names: dict[int | None, str]) -> WebhookLine:
    assert hook.id is not None  # a stored row
    yours = hook.seat_id == seat.id
    failing = as_utc(hook.first_failure_at)
    status = (HookState.OFF if hook.disabled_at is not None else HookState.FAILING if failing is not None
              else HookState.LIVE)
    return {"id": hook.id, "kind": hook.kind, "host": urlsplit(hook.url).hostname or "",
            "url": hook.url if yours else None, "set_by": names.get(hook.seat_id, ""), "yours": yours,
            "status": status, "failing_since": failing.isoformat() if failing else None,
            "last_error": shown_error(hook.last_error) if yours else None}


def listing(session: Session, seat: Seat, seats: Sequence[Seat]) -> Webhooks:
    """:func:`webhooks_of` for a seat the caller has loaded, in the caller's transaction."""
    names = {s.id: s.name for s in seats}
    hooks = session.exec(select(Webhook).where(col(Webhook.game_id) == seat.game_id)
                         .order_by(col(Webhook.id))).all()
    return {"webhooks": [_line(h, seat, names) for h in hooks], "discord_id": seat.discord_id}


def webhooks_of(ctx: Context, token: object) -> Webhooks:
    """The webhooks of the token's game, and the seat's Discord user id."""
    with session_scope(ctx.engine) as session:
        seat, _, seats = seat_and_game(session, token)
        return listing(session, seat, seats)


def _refuse_closed(game: Game, seat: Seat) -> None:
    refuse_computer_seat(seat)
    if game.status not in _OPEN:
        raise errors.Conflict(N_("webhooks can be added only until the game is over"), code="game-over")
    if seat.accepted_at is None:
        raise errors.Conflict(N_("accept the invitation first: then you can add a webhook"), code="not-accepted")


def add_webhook(ctx: Context, token: object, kind: object, url: object) -> NewWebhook:
    """Add a webhook to the token's game.  Refused, storing nothing: an unknown
    kind or an address that is not https on a public host (``Invalid``), a game
    that is over, a seat that has not accepted or that the computer plays, or a game that has
    :data:`MAX_PER_GAME` (``Conflict``), more than ``LIMIT_WEBHOOKS`` from this
    seat (``RateLimited``)."""
    with session_scope(ctx.engine) as session:
        seat, game, _ = seat_and_game(session, token)
        if kind not in tuple(WebhookKind):
            raise errors.Invalid(N_("the kind of webhook must be one of %(kinds)s"), kinds=", ".join(WebhookKind),
                                 code="invalid-webhook-kind", field="kind")
        _refuse_closed(game, seat)
        _refuse_full(session, game)
        seat_id = seat.id
    # Counted before the look-up: resolving a name is work someone could ask for at will.
    ctx.limit("LIMIT_WEBHOOKS", [f"seat:{seat_id}"])
    # The name is looked up outside the transaction (it may take seconds).
    target, _ = check_target(url, ctx.config)
    return _store(ctx, token, WebhookKind(str(kind)), target)


def _refuse_full(session: Session, game: Game) -> None:
    count = session.exec(select(func.count()).select_from(Webhook).where(Webhook.game_id == game.id)).one()
    if int(count) >= MAX_PER_GAME:
        raise errors.Conflict(N_("this game has %(max)d webhooks already: remove one first"), max=MAX_PER_GAME,
                              code="too-many-webhooks")


def _store(ctx: Context, token: object, kind: WebhookKind, target: Target) -> NewWebhook:
    """The second half of :func:`add_webhook`, once the address is checked: the
    game is checked again and counted again with its row locked (on SQLite the
    write transaction, BEGIN IMMEDIATE, is the lock), so that adds at the same
    time cannot pass :data:`MAX_PER_GAME` between them."""
    with session_scope(ctx.engine) as session:
        seat, game, seats = seat_and_game(session, token)
        # Read again under the lock: its status as it is now, not as first loaded.
        game = session.exec(select(Game).where(col(Game.id) == game.id).with_for_update()
                            .execution_options(populate_existing=True)).one()
        _refuse_closed(game, seat)
        _refuse_full(session, game)
        assert game.id is not None and seat.id is not None  # stored rows
        hook = Webhook(game_id=game.id, seat_id=seat.id, kind=kind, url=target.url,
                       secret_salt=tokens.new_salt(), created_at=ctx.now())
        session.add(hook)
        session.flush()
        # What this transaction's first query knew of the game's webhooks is no more.
        session.info.get(LIVE_WEBHOOKS, {}).pop(game.id, None)
        # Not the host: a receiver's name may be a person's own machine.
        log.info("webhook %s (%s) added to game %s by seat %s", hook.id, hook.kind, game.public_id, seat.position,
                 extra={"game": game.public_id})
        secret = signing_secret(ctx.secret_key, hook) if hook.kind == WebhookKind.JSON else None
        return NewWebhook(_line(hook, seat, {s.id: s.name for s in seats}), secret)


def remove_webhook(ctx: Context, token: object, webhook_id: object) -> Webhooks:
    """Remove one of the seat's own webhooks (posts not yet sent are dropped)."""
    with session_scope(ctx.engine) as session:
        seat, _, seats = seat_and_game(session, token)
        hook = None
        if isinstance(webhook_id, int) and not isinstance(webhook_id, bool):
            hook = session.get(Webhook, webhook_id)
        if hook is None or hook.game_id != seat.game_id or hook.seat_id != seat.id:
            raise errors.NotFound(N_("you have no webhook %(id)s in this game"), id=str(webhook_id)[:20])
        session.delete(hook)
        session.flush()
        return listing(session, seat, seats)


def set_discord_id(ctx: Context, token: object, discord_id: object) -> Webhooks:
    """The seat's Discord user id (digits, as Discord's "Copy User ID" gives
    it), or none (``None`` or empty)."""
    value = discord_id
    with session_scope(ctx.engine) as session:
        seat, _, seats = seat_and_game(session, token)
        refuse_computer_seat(seat)
        if value is not None and value != "" and not (isinstance(value, str) and _DISCORD_ID.fullmatch(value)):
            raise errors.Invalid(N_("a Discord user id is 15 to 20 digits (in Discord: Copy User ID)"),
                                 code="invalid-discord-id", field="discord_id")
        seat.discord_id = value or None
        session.add(seat)
        session.flush()
        return listing(session, seat, seats)


# -- the worker's side: how posts went ---------------------------------------------


def delivered(ctx: Context, webhook_id: int) -> None:
    """A post got through: the webhook is not failing."""
    with session_scope(ctx.engine) as session:
        hook = session.get(Webhook, webhook_id)
        if hook is not None and hook.first_failure_at is not None:
            hook.first_failure_at = None
            hook.last_error = None
            session.add(hook)


def failed(ctx: Context, webhook_id: int, error: str) -> bool:
    """A post did not get through: note it, and switch the webhook off once it
    has failed for :data:`FAILING_FOR` (its setter is mailed, once).  Returns
    whether it is off."""
    now = ctx.now()
    row: int | None = None
    with session_scope(ctx.engine) as session:
        hook = session.get(Webhook, webhook_id)
        if hook is None:
            return True
        if hook.disabled_at is not None:
            return True
        first = as_utc(hook.first_failure_at)
        if first is None:
            hook.first_failure_at = first = now
        hook.last_error = error[:300]
        off = now - first >= FAILING_FOR
        if off:
            hook.disabled_at = now
            seat = session.get(Seat, hook.seat_id)
            # Not to a seat the computer plays now, nor to no address.
            if seat is not None and seat.bot is None and seat.email:
                row = enqueue(session, kind=OutboxKind.WEBHOOK_OFF, event=events.key(Event.WEBHOOK_OFF, webhook_id),
                              recipient=seat.email, base_url=ctx.base_url, now=now, game_id=hook.game_id,
                              seat_id=seat.id)
            public_id = session.exec(select(Game.public_id).where(col(Game.id) == hook.game_id)).first()
            log.warning("webhook %s of game %s switched off: failing since %s (%s)", webhook_id, public_id,
                        first.isoformat(), error[:200], extra={"game": public_id})
        session.add(hook)
    ctx.relay([row])
    return off
