"""What the service layer refuses, with the code and HTTP status the edges use."""

from __future__ import annotations

from pbem.rules.errors import RulesError


class ServiceError(Exception):
    code = "error"
    status = 400

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class BadRequest(ServiceError):
    code = "bad-request"
    status = 400


class Unauthorized(ServiceError):
    code = "unauthorized"
    status = 401


class NotFound(ServiceError):
    code = "not-found"
    status = 404


class Conflict(ServiceError):
    """stale / not-your-turn / game-over / not-started / already-accepted."""

    code = "conflict"
    status = 409


class Invalid(ServiceError):
    code = "invalid"
    status = 422

    def __init__(self, message: str, *, code: str | None = None, player: int | None = None,
                 field: str | None = None) -> None:
        super().__init__(message, code=code)
        #: What the message is about, for a form to point at: the player (counted
        #: from 1, as the message says) and the field (``name``, ``email``, ``turn_hours``).
        self.player, self.field = player, field


class RateLimited(ServiceError):
    """Too many of something that sends mail or costs work; try again later."""

    code = "rate-limited"
    status = 429

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        #: Seconds until the limit allows it again (the ``Retry-After`` header).
        self.retry_after = max(1, int(retry_after))


class MoveRefused(ServiceError):
    """The rules refused a move; ``code`` is one of ``record.md``'s codes."""

    status = 422

    def __init__(self, error: RulesError) -> None:
        super().__init__(error.message, code=error.code)
        self.error = error
