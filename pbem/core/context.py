"""What the service layer needs from the outside world, handed in explicitly."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, Sequence

from sqlalchemy.engine import Engine

from .models import utcnow


@dataclass
class Context:
    engine: Engine
    config: dict[str, Any]
    #: Called after a commit with what ``enqueue`` returned for it: the new
    #: outbox rows' ids (``None`` for a message that was there already).
    relay: Callable[[Iterable[int | None]], None] = lambda ids: None
    #: Called after a commit that left the computer to move: ``(game id, ply)``
    #: (a worker moves for it; if none does, the clock does at its deadline).
    computer: Callable[[int, int], None] = lambda game_id, ply: None
    now: Callable[[], datetime] = field(default=utcnow)
    #: ``limit(name, keys)`` counts one more of what the configured limit
    #: ``name`` (e.g. ``LIMIT_INVITES``) bounds, for each key (e.g. addresses),
    #: and raises :class:`pbem.core.errors.RateLimited` if that went over.
    limit: Callable[[str, Sequence[str]], None] = lambda name, keys: None

    @property
    def secret_key(self) -> str:
        return str(self.config["SECRET_KEY"])

    @property
    def base_url(self) -> str:
        return str(self.config["BASE_URL"])
