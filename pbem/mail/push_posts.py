"""What a Web Push says, and its encryption: built when it is delivered, for a
``push`` row (``pbem.games.push_turn``), while it is still that seat's turn.

The payload is JSON the service worker (``pbem/static/sw.js``) shows:
``{"title", "body", "url", "tag", "game", "ply", "lang"}`` — the seat's name
and game in the seat's language, and the seat page to open.  A nudge's push
(event ``nudge:ID``, ``pbem.games.nudges``) says who is waiting, instead, and
goes while the turn nudged about is still theirs.  It is encrypted
for the subscription's browser per RFC 8291 (``aes128gcm``, http-ece) and
signed with the service's VAPID key per RFC 8292 (py-vapid): no crypto of our
own.  Sending it is :mod:`pbem.mail.push_http`'s job."""

from __future__ import annotations

import binascii
import json
import re
import time
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02
from sqlmodel import Session

from pbem import games
from ..core import events, links, vapid
from ..core.context import Context
from ..core.events import Event
from ..core.models import Game, GameStatus, Outbox, Seat
from ..games.push_turn import seat_id_of, subscription_of
from ..table import watching
from ..words import Words

#: How long a push service keeps a push for a browser that is offline (seconds):
#: a turn lasts days; a day-old push still says something useful.
TTL = 86400
#: How long the VAPID signature is good for (RFC 8292: at most a day).
VAPID_HOURS = 12
_TOPIC = re.compile(r"[A-Za-z0-9_-]{1,32}")


@dataclass(frozen=True)
class PushPost:
    """One encrypted push to one browser's push service."""

    seat_id: int
    endpoint: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


def payload(name: str, game: str, ply: int, link: str, language: str) -> bytes:
    """What the notification says, in the seat's language."""
    w = Words(language)
    return json.dumps({
        "title": w._("Your turn"),
        "body": w._("%(name)s: it is your turn in game %(game)s (move %(number)d).", name=name, game=game,
                    number=ply + 1),
        "url": link, "tag": f"pbem-{game}", "game": game, "ply": ply, "lang": w.tag,
    }, ensure_ascii=False, separators=(",", ":")).encode()


def nudge_payload(name: str, nudger: str, game: str, ply: int, since: datetime | None, link: str,
                  w: Words) -> bytes:
    """What the notification of a nudge says, in the mover's language: who
    waits, and since when the turn is theirs (nothing of anyone's clan)."""
    return json.dumps({
        "title": w._("%(nudger)s is waiting for your move", nudger=nudger),
        "body": w._("%(name)s: it has been your turn in game %(game)s since %(since)s (move %(number)d).",
                    name=name, game=game, since=w.when(since), number=ply + 1),
        "url": link, "tag": f"pbem-{game}", "game": game, "ply": ply, "lang": w.tag,
    }, ensure_ascii=False, separators=(",", ":")).encode()


def encrypt(plain: bytes, p256dh: str, auth: str) -> bytes:
    """The body RFC 8291 asks for: aes128gcm to the browser's key and secret,
    from a key pair made for this push alone."""
    return bytes(http_ece.encrypt(plain, private_key=ec.generate_private_key(ec.SECP256R1()),
                                  dh=vapid.b64url_decode(p256dh), auth_secret=vapid.b64url_decode(auth),
                                  version="aes128gcm"))


def vapid_headers(key: ec.EllipticCurvePrivateKey, endpoint: str, subject: str) -> dict[str, str]:
    """``Authorization: vapid t=JWT,k=PUBLIC`` for the push service at ``endpoint``."""
    parts = urlsplit(endpoint)
    claims = {"sub": subject, "aud": f"{parts.scheme}://{parts.netloc}",
              "exp": int(time.time()) + VAPID_HOURS * 3600}
    signed: dict[str, str] = Vapid02(private_key=key).sign(claims)
    return {"Authorization": signed["Authorization"]}


def _nudge_plain(ctx: Context, session: Session, row: Outbox, game: Game, seats: list[Seat],
                 seat: Seat) -> bytes | None:
    """A nudge's notification, while the turn nudged about is still the seat's
    (as its mail, ``pbem.mail.kinds.NudgeMail``); it goes even while they are on
    their page, as the mail does: someone is waiting on them."""
    sent = games.nudge_of(session, row.event)
    if sent is None or sent.ply != game.ply or sent.mover_id != seat.id:
        return None  # they moved since (and may have their turn again): nothing to nudge about
    nudger = next((s.name for s in seats if s.id == sent.seat_id), "")
    return nudge_payload(seat.name, nudger, game.public_id, game.ply, games.turn_started(session, game),
                         links.seat_link(ctx, seat), Words(seat.language, seat.time_zone or "UTC"))


def compose_push(ctx: Context, session: Session, row: Outbox) -> PushPost | None:
    """The push for a ``push`` row as the world now stands, or ``None`` if it
    should no longer go: push turned off, no subscription, the turn over, the
    computer playing the seat, or (a turn's) its player on their page right now."""
    key = vapid.configured(ctx.config)
    seat_id = seat_id_of(row.recipient)
    subscription = subscription_of(session, seat_id)
    if key is None or subscription is None:
        return None
    game, seats = games.game_and_seats(session, row.game_id)
    seat = next((s for s in seats if s.id == seat_id), None)
    if (game is None or seat is None or seat.bot is not None or game.status != GameStatus.ACTIVE
            or game.turn_seat != seat.position):
        return None
    if events.cause_of(row.event) == Event.NUDGE:
        plain = _nudge_plain(ctx, session, row, game, seats, seat)
        if plain is None:
            return None
    else:
        if row.event != events.key(Event.PLY, game.ply):
            return None
        if watching.present_until(ctx, seat) is not None:
            return None  # the page in front of them says it already
        plain = payload(seat.name, game.public_id, game.ply, links.seat_link(ctx, seat), seat.language)
    try:
        body = encrypt(plain, subscription.p256dh, subscription.auth)
    except (ValueError, binascii.Error):
        return None  # keys checked when stored; one that cannot be used is no push
    headers = {"Content-Type": "application/octet-stream", "Content-Encoding": "aes128gcm",
               "TTL": str(TTL), "Urgency": "high", "User-Agent": "ClansByMail-Push/1",
               **vapid_headers(key, subscription.endpoint, vapid.subject(ctx.config))}
    if _TOPIC.fullmatch(f"pbem-{game.public_id}"):
        # A newer push about the game replaces one the browser has not fetched yet.
        headers["Topic"] = f"pbem-{game.public_id}"
    return PushPost(seat_id=seat.id or 0, endpoint=subscription.endpoint, body=body, headers=headers)
