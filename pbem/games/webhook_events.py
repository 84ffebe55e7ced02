"""What a game's webhooks are told, written to the outbox in the transaction of
the change that causes it: one row per event and webhook (recipient
``webhook:ID``), so that the outbox's unique key makes each post at most once.
What a post says is decided when it is delivered (``pbem.mail.webhook_posts``),
from the public view only."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Sequence

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from ..core import events
from ..core.events import Event
from ..core.models import Game, Seat, Webhook
from ..core.outbox import OutboxKind, insert_row, row_values


class WebhookEvent(StrEnum):
    """The events a webhook hears of, as the JSON body names them."""

    START = "start"
    TURN = "turn"
    OVER = "over"


def recipient(webhook_id: int | None) -> str:
    return f"webhook:{webhook_id}"


def webhook_id_of(recipient_text: str) -> int | None:
    """The webhook a row's recipient names (``None`` if it names none)."""
    prefix, _, number = recipient_text.partition(":")
    return int(number) if prefix == "webhook" and number.isdigit() else None


def event_of(ply: int, over: bool, seats: Sequence[Seat], turn: int | None) -> str | None:
    """The event a new position is for a webhook: the start (which says whose
    turn it is), a person's turn, or the end; ``None`` for the computer's turn
    (it moves within seconds: a post for it would only be noise)."""
    if over:
        return Event.OVER
    if ply == 0:
        return Event.START
    if turn is None or seats[turn].bot is not None:
        return None
    return events.key(Event.PLY, ply)


# A game's live webhooks: asked on every move, and most games have none.  Built
# once (as pbem.games.lookup's statements are): building and keying it anew
# cost more than the query that finds nothing.
_LIVE_WEBHOOKS = select(Webhook.id).where(col(Webhook.game_id) == bindparam("game_id"),
                                          col(Webhook.disabled_at).is_(None))


#: Where the transaction's first query left whether a game has live webhooks
#: (``session.info[LIVE_WEBHOOKS][game_id]``, see :mod:`.lookup`): a move then
#: asks nothing more of a game that has none.
LIVE_WEBHOOKS = "pbem.live_webhooks"

_HAS_LIVE_WEBHOOKS = select(Webhook.id).where(col(Webhook.game_id) == col(Game.id),
                                              col(Webhook.disabled_at).is_(None)).exists()


def has_live_webhooks() -> Any:
    """The column ``EXISTS (a live webhook of the row's game)``, for a query of games."""
    return _HAS_LIVE_WEBHOOKS


def planned_posts(session: Session, game: Game, event: str, *, base_url: str, now: datetime) -> list[dict[str, Any]]:
    """The outbox rows (:func:`pbem.core.outbox.row_values`) of one post per live
    webhook of the game for ``event``."""
    if session.info.get(LIVE_WEBHOOKS, {}).get(game.id) is False:
        return []
    hooks = session.exec(_LIVE_WEBHOOKS, params={"game_id": game.id}).all()
    return [row_values(kind=OutboxKind.WEBHOOK, event=event, recipient=recipient(hook_id), base_url=base_url,
                       now=now, game_id=game.id)
            for hook_id in hooks]


def enqueue_posts(session: Session, game: Game, event: str, *, base_url: str, now: datetime) -> list[int | None]:
    """One outbox row per live webhook of the game for ``event``."""
    return [insert_row(session, values)
            for values in planned_posts(session, game, event, base_url=base_url, now=now)]
