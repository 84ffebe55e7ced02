"""What a webhook post says: built when it is delivered, from the game's public
view (``games.game_view(..., None)``) and nothing else, so that no clan and
no seat link can reach a channel.  Sending it is :mod:`pbem.mail.webhook_http`'s job.

The sentences are in the language of the player who set the webhook (they
chose the channel, and read their seat page in it).  Per kind:

- Discord: ``{"content": ...}`` with the game's public link, a mention of the
  player to move if they gave their Discord user id (and no other mention: a
  player named ``@everyone`` pings nobody), and the board picture attached;
- Slack: ``{"text": ...}`` (``&``, ``<`` and ``>`` escaped as Slack wants);
- json: ``{"game", "event", "ply", "to_move", "url"}``, signed:
  ``X-PBEM-Signature: sha256=<hex HMAC-SHA256(secret, body)>``; beside it
  ``X-PBEM-Timestamp`` (Unix seconds), ``X-PBEM-Delivery`` (the post's id: opaque,
  the same on every retry, :func:`pbem.table.webhooks.delivery_id`) and
  ``X-PBEM-Signature-256-Timestamped: sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>``,
  for a receiver that refuses replays."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from pbem import games
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..drawing.picture import board_png
from ..core import events
from ..core.events import Event
from ..core.models import Game, GameStatus, Outbox, Seat, Webhook, WebhookKind
from ..core.outbox import OutboxKind
from ..rules import classic_board
from ..rules.views import View
from ..games.webhook_events import WebhookEvent, webhook_id_of
from ..table.webhooks import (DELIVERY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, TIMESTAMPED_HEADER, delivery_id,
                              signature, signing_secret, timestamped_signature)
from ..words import Words, names_text

USER_AGENT = "ClansByMail-Webhook/1"


@dataclass(frozen=True)
class Post:
    """One HTTP POST to a webhook."""

    webhook_id: int
    url: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


# Asked by the relay after every move, and it mostly finds none.  Built once (as
# pbem.games.lookup's statements are).
_WEBHOOK_ROWS = select(Outbox.id).where(col(Outbox.id).in_(bindparam("ids", expanding=True)),
                                        col(Outbox.kind).in_([OutboxKind.WEBHOOK, OutboxKind.PUSH]))


def webhook_rows(ctx: Context, ids: list[int]) -> list[int]:
    """Which of these outbox rows are posts over HTTP, a webhook's or a push
    (for the relay, which sends them to a queue of their own)."""
    if not ids:
        return []
    with session_scope(ctx.engine) as session:
        found = session.exec(_WEBHOOK_ROWS, params={"ids": ids}).all()
    return [i for i in found if i is not None]


def compose_post(ctx: Context, session: Session, row: Outbox) -> Post | None:
    """The post for a ``webhook`` row as the world now stands, or ``None`` if it
    should no longer go: the webhook was removed or switched off, or the turn it
    announces is over (a late post of a past turn would only mislead)."""
    webhook_id = webhook_id_of(row.recipient)
    hook = session.get(Webhook, webhook_id) if webhook_id is not None else None
    if hook is None or hook.id is None or hook.disabled_at is not None or hook.game_id != row.game_id:
        return None
    created, hook_created = as_utc(row.created_at), as_utc(hook.created_at)
    if created is not None and hook_created is not None and created < hook_created:
        return None  # for a removed webhook whose id was given again
    game, seats = games.game_and_seats(session, row.game_id)
    setter = next((s for s in seats if s.id == hook.seat_id), None)
    if game is None or setter is None:
        return None
    news = _news(game, seats, row.event)
    if news is None:
        return None
    event, to_move = news
    view = games.game_view(ctx, game, seats, None)
    url = f"{ctx.base_url}/games/{game.public_id}"
    w = Words(setter.language)
    text = _text(event, view, to_move, w)
    if hook.kind == WebhookKind.JSON:
        body = json.dumps({"game": game.public_id, "event": event,
                           "ply": 0 if event == WebhookEvent.START else game.ply,
                           "to_move": to_move.name if to_move else None, "url": url},
                          ensure_ascii=False, separators=(",", ":")).encode()
        secret = signing_secret(ctx.secret_key, hook)
        timestamp = int(ctx.now().timestamp())
        return Post(hook.id, hook.url, body, {
            "Content-Type": "application/json",
            SIGNATURE_HEADER: signature(secret, body),
            TIMESTAMP_HEADER: str(timestamp),
            DELIVERY_HEADER: delivery_id(ctx.secret_key, row.id),
            TIMESTAMPED_HEADER: timestamped_signature(secret, timestamp, body)})
    if hook.kind == WebhookKind.SLACK:
        body = json.dumps({"text": f"{_slack(text)}\n<{url}>"}, ensure_ascii=False).encode()
        return Post(hook.id, hook.url, body, {"Content-Type": "application/json"})
    return _discord(hook.id, hook.url, text, url, to_move, view)


def _news(game: Game, seats: list[Seat], event: str) -> tuple[WebhookEvent, Seat | None] | None:
    """The event's name and the seat to move then, if it is still news."""
    if event == Event.START:
        if game.status not in (GameStatus.ACTIVE, GameStatus.FINISHED) or not seats:
            return None
        # The seats were renumbered at the start: the drawn first player sits at 0.
        return WebhookEvent.START, seats[0]
    if event == Event.OVER:
        return (WebhookEvent.OVER, None) if game.status == GameStatus.FINISHED else None
    if (event == events.key(Event.PLY, game.ply) and game.status == GameStatus.ACTIVE
            and game.turn_seat is not None):
        return WebhookEvent.TURN, seats[game.turn_seat]
    return None


def _text(event: WebhookEvent, view: View, to_move: Seat | None, w: Words) -> str:
    if event == WebhookEvent.OVER:
        winners = names_text(list(view.get("winners") or []), w)
        scores = ", ".join(f"{p['name']} {p['final_score']}" for p in
                           sorted(view["players"], key=lambda p: -(p["final_score"] or 0)))
        return w._("Game %(game)s is over: %(winners)s won. Final scores: %(scores)s.", game=view["game"],
                   winners=winners, scores=scores)
    assert to_move is not None
    turn = w._("It's %(name)s's turn (move %(number)d).", name=to_move.name,
               number=(0 if event == WebhookEvent.START else view["ply"]) + 1)
    if event == WebhookEvent.START:
        names = names_text([p["name"] for p in view["players"]], w)
        return w._("A game of Clans has started: %(names)s.", names=names) + " " + turn
    return turn


def _slack(text: str) -> str:
    # Slack reads <...> as links and mentions (<!channel>): a name must not make one.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _discord(hook_id: int, hook_url: str, text: str, url: str, to_move: Seat | None, view: View) -> Post:
    mention = to_move.discord_id if to_move is not None else None
    payload: dict[str, Any] = {
        "content": (f"<@{mention}> " if mention else "") + f"{text}\n{url}",
        # Only the player to move is pinged: never @everyone, a role or a name's lookalike.
        "allowed_mentions": {"parse": [], "users": [mention] if mention else []},
    }
    if not view["huts"]:
        return Post(hook_id, hook_url, json.dumps(payload).encode(), {"Content-Type": "application/json"})
    payload["attachments"] = [{"id": 0, "filename": "board.png"}]
    picture = board_png(classic_board(), view)
    boundary = f"pbem-{secrets.token_hex(16)}"
    body = b"".join([
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"payload_json\"\r\n"
        f"Content-Type: application/json\r\n\r\n".encode(), json.dumps(payload).encode(), b"\r\n",
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"files[0]\"; filename=\"board.png\"\r\n"
        f"Content-Type: image/png\r\n\r\n".encode(), picture, f"\r\n--{boundary}--\r\n".encode(),
    ])
    return Post(hook_id, hook_url, body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
