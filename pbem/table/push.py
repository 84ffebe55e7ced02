"""A seat's Web Push: its subscription (the browser's ``PushSubscription``
JSON, checked strictly) and how its turn is announced (``Seat.push_mode``:
mail always, push first then mail after N minutes, push only).  What goes
out when it becomes the seat's turn is ``pbem.games.push_turn``'s.

The push service's address goes through the webhooks' address guard
(:mod:`.webhook_targets`): https to public addresses only, hosts in
``PBEM_WEBHOOK_ALLOW`` exempt; a browser's real push service (FCM, Mozilla's,
Apple's) always passes.  Without a VAPID key (``PBEM_VAPID_PRIVATE_KEY``)
push is off: the key is not offered and nothing subscribes (404 ``push-off``)."""

from __future__ import annotations

import binascii
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import bindparam, delete, update
from sqlmodel import col, select

from ..core import errors, tokens, vapid
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import GameStatus, Outbox, OutboxStatus, PushMode, Seat, table_of
from ..core.outbox import OutboxKind
from ..core.push_tables import MAX_ENDPOINT, PushSubscription
from ..words import N_
from pbem.games.lookup import refuse_computer_seat, seat_and_game
from pbem.games.push_turn import subscription_of
from .webhook_targets import Unresolvable, allowed_hosts, parse_target, resolve

#: The waits "push first" offers before the mail goes (minutes); 30 by default.
MINUTES = (10, 30, 60, 120, 240)
MODES = tuple(PushMode)
#: The fields of a ``PushSubscription``'s JSON (``toJSON()``); nothing else is taken.
FIELDS = ("endpoint", "expirationTime", "keys")
_P256DH_BYTES = 65
_AUTH_BYTES = 16


@dataclass(frozen=True)
class PushSettings:
    """What the seat page and the API say of a seat's push."""

    #: Push is on for this service (a VAPID key is configured).
    available: bool
    subscribed: bool
    mode: str
    minutes: int

    def json(self) -> dict[str, Any]:
        return {"subscribed": self.subscribed, "mode": self.mode, "minutes": self.minutes}


@dataclass(frozen=True)
class Subscription:
    endpoint: str
    p256dh: str
    auth: str


def _push_off() -> errors.NotFound:
    return errors.NotFound(N_("push notifications are not offered by this service"), code="push-off")


def public_key(ctx: Context) -> str:
    """The VAPID public key browsers subscribe with (404 ``push-off`` without one)."""
    key = vapid.configured(ctx.config)
    if key is None:
        raise _push_off()
    return vapid.public_key(key)


def _refuse(message: str, where: str, **params: Any) -> errors.Invalid:
    """A refusal whose message names the field (``%(where)s``)."""
    return errors.Invalid(message, code="invalid-push-subscription", field=where, where=where, **params)


def _key_bytes(value: object, field: str, size: int) -> bytes:
    if not isinstance(value, str) or len(value) > 200:
        raise _refuse(N_("%(where)s must be a base64url string"), field)
    try:
        raw = vapid.b64url_decode(value)
    except (binascii.Error, ValueError):
        raise _refuse(N_("%(where)s must be a base64url string"), field) from None
    if len(raw) != size:
        raise _refuse(N_("%(where)s must be %(size)d bytes once decoded"), field, size=size)
    return raw


def parse_subscription(ctx: Context, body: dict[str, Any]) -> Subscription:
    """The browser's ``PushSubscription`` JSON, checked field by field (422
    ``invalid-push-subscription``, its message naming the field)."""
    for name in body:
        if name not in FIELDS:
            raise _refuse(N_("%(where)s is not a field of a push subscription"), str(name)[:40])
    expiration = body.get("expirationTime")
    if expiration is not None and (isinstance(expiration, bool) or not isinstance(expiration, (int, float))
                                   or expiration < 0):
        raise _refuse(N_("%(where)s must be null or a time in milliseconds"), "expirationTime")
    endpoint = body.get("endpoint")
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > MAX_ENDPOINT:
        raise _refuse(N_("%(where)s must be the push service's https:// address"), "endpoint")
    try:
        target = parse_target(endpoint, allowed_hosts(ctx.config))
    except errors.Invalid:
        raise _refuse(N_("%(where)s must be an https:// address of a push service on the public internet"),
                      "endpoint") from None
    keys = body.get("keys")
    if not isinstance(keys, dict):
        raise _refuse(N_("%(where)s must be an object with p256dh and auth"), "keys")
    for name in keys:
        if name not in ("p256dh", "auth"):
            raise _refuse(N_("%(where)s is not a field of a push subscription"), f"keys.{str(name)[:30]}")
    point = _key_bytes(keys.get("p256dh"), "keys.p256dh", _P256DH_BYTES)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise _refuse(N_("%(where)s is not a point of the P-256 curve"), "keys.p256dh") from None
    _key_bytes(keys.get("auth"), "keys.auth", _AUTH_BYTES)
    # Last, the look-up of the host (it may take seconds): where the address leads.
    try:
        resolve(target)
    except Unresolvable:
        raise _refuse(N_("%(where)s: the push service's host cannot be found"), "endpoint") from None
    except errors.Invalid:
        raise _refuse(N_("%(where)s must be an https:// address of a push service on the public internet"),
                      "endpoint") from None
    return Subscription(endpoint=endpoint, p256dh=str(keys["p256dh"]).rstrip("="), auth=str(keys["auth"]).rstrip("="))


# A seat's push settings and whether it has a subscription, by its token's digest.
_SETTINGS = (select(Seat.push_mode, Seat.push_minutes, PushSubscription.id)
             .outerjoin(PushSubscription, col(PushSubscription.seat_id) == col(Seat.id))
             .where(Seat.token_hash == bindparam("digest")))


def _settings(ctx: Context, seat: Seat, subscribed: bool) -> PushSettings:
    return PushSettings(available=vapid.configured(ctx.config) is not None, subscribed=subscribed,
                        mode=str(seat.push_mode), minutes=seat.push_minutes)


def settings_of(ctx: Context, token: object) -> PushSettings:
    """The seat's push, as its page shows it: one query (none while push is off)."""
    if vapid.configured(ctx.config) is None:
        return PushSettings(available=False, subscribed=False, mode=str(PushMode.MAIL), minutes=30)
    if not tokens.well_formed(token):
        raise errors.Unauthorized(N_("this seat link is not valid: check that you copied the whole link"))
    with session_scope(ctx.engine) as session:
        found = session.exec(_SETTINGS, params={"digest": tokens.digest(str(token))}).first()
    if found is None:
        raise errors.Unauthorized(N_("this seat link is not valid: check that you copied the whole link"))
    mode, minutes, subscription = found
    return PushSettings(available=True, subscribed=subscription is not None, mode=str(mode), minutes=minutes)


def subscribe(ctx: Context, token: object, body: dict[str, Any]) -> PushSettings:
    """Store the seat's subscription (replacing the one it had: the newest device)."""
    if vapid.configured(ctx.config) is None:
        raise _push_off()
    with session_scope(ctx.engine) as session:
        seat, game, _seats = seat_and_game(session, token)
        refuse_computer_seat(seat)
        if game.status not in (GameStatus.INVITED, GameStatus.ACTIVE):
            raise errors.Conflict(N_("this game is over: there are no more turns to announce"), code="game-over")
    # Checked outside the transaction: the look-up of the host may take seconds.
    subscription = parse_subscription(ctx, body)
    with session_scope(ctx.engine) as session:
        seat, game, _seats = seat_and_game(session, token)
        found = subscription_of(session, seat.id)
        if found is None:
            assert seat.id is not None
            found = PushSubscription(seat_id=seat.id, endpoint="", p256dh="", auth="", created_at=ctx.now())
        found.endpoint, found.p256dh, found.auth = subscription.endpoint, subscription.p256dh, subscription.auth
        found.created_at = ctx.now()
        session.add(found)
        return _settings(ctx, seat, True)


def unsubscribe(ctx: Context, token: object) -> PushSettings:
    """Forget the seat's subscription (removing none is no error)."""
    with session_scope(ctx.engine) as session:
        seat, _game, _seats = seat_and_game(session, token)
        found = subscription_of(session, seat.id)
        if found is not None:
            session.delete(found)
        return _settings(ctx, seat, False)


def set_mode(ctx: Context, token: object, mode: object, minutes: object) -> PushSettings:
    """How the seat's turn is announced while it has a subscription."""
    if mode not in MODES:
        raise errors.Invalid(N_("choose how we tell you of your turn: mail, push first, or push only"),
                             code="invalid-push-mode")
    if minutes is None:
        minutes = 30
    if isinstance(minutes, bool) or minutes not in MINUTES:
        raise errors.Invalid(N_("choose how many minutes the mail waits: %(choices)s"),
                             code="invalid-push-minutes", field="minutes",
                             choices=", ".join(map(str, MINUTES)))
    with session_scope(ctx.engine) as session:
        seat, _game, _seats = seat_and_game(session, token)
        refuse_computer_seat(seat)
        seat.push_mode, seat.push_minutes = PushMode(str(mode)), int(minutes)
        session.add(seat)
        return _settings(ctx, seat, subscription_of(session, seat.id) is not None)


_OUTBOX = table_of(Outbox)
_FORGET = delete(table_of(PushSubscription)).where(
    table_of(PushSubscription).c.seat_id == bindparam("seat"),
    table_of(PushSubscription).c.endpoint == bindparam("endpoint"))
# The turn mail "push first" holds back goes now: the push did not arrive.
_MAIL_NOW = (update(_OUTBOX).where(_OUTBOX.c.seat_id == bindparam("seat"), _OUTBOX.c.kind == OutboxKind.TURN,
                                   _OUTBOX.c.status == OutboxStatus.PENDING,
                                   _OUTBOX.c.next_attempt_at > bindparam("now"))
             .values(next_attempt_at=bindparam("now")))


def gone(ctx: Context, seat_id: int, endpoint: str) -> None:
    """The push service says the subscription is no more (404/410): forget it
    (unless the seat subscribed anew since), and let a turn mail held back for
    the push go now.  ("Push only" sends no mail for this turn: the page says
    the subscription is gone, and the next turn is mailed.)"""
    with session_scope(ctx.engine) as session:
        conn = session.connection()
        done = conn.execute(_FORGET, {"seat": seat_id, "endpoint": endpoint})
        if done.rowcount:
            conn.execute(_MAIL_NOW, {"seat": seat_id, "now": ctx.now()})

