"""What the service layer refuses, with the code and HTTP status the edges use.

An error keeps its sentence untranslated: the ``template`` (marked ``N_`` or
``n_`` where it is raised) and its ``params``, which may hold other errors (a
player's :class:`~pbem.people.players.BadName`).  ``message`` is the English sentence
(what the JSON API answers); :func:`pbem.words.error_text` says it in the
reader's language.

>>> e = Invalid("turn time must be 1 to %(max)d hours", max=720)
>>> e.message, e.template, e.params
('turn time must be 1 to 720 hours', 'turn time must be 1 to %(max)d hours', {'max': 720})
>>> Invalid(("you have %(num)d day left", "you have %(num)d days left"), num=2).message
'you have 2 days left'
"""

from __future__ import annotations

from typing import Any, Union

from pbem.rules.errors import RulesError

#: A sentence to translate: one, or a singular and a plural (then ``num`` picks).
Template = Union[str, tuple[str, str]]


def english(template: Template, params: dict[str, object]) -> str:
    """The English sentence of a template with its parameters."""
    if isinstance(template, tuple):
        singular, plural = template
        template = singular if params.get("num") == 1 else plural
    return template % params if params else template


class Worded(Exception):
    """An exception whose sentence is a template and parameters (see above)."""

    def __init__(self, template: Template, **params: Any) -> None:
        self.template, self.params = template, params
        self.message = english(template, params)
        super().__init__(self.message)


class ServiceError(Worded):
    code = "error"
    status = 400

    def __init__(self, message: Template, *, code: str | None = None, **params: Any) -> None:
        super().__init__(message, **params)
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

    def __init__(self, message: Template, *, code: str | None = None, player: int | None = None,
                 field: str | None = None, **params: Any) -> None:
        super().__init__(message, code=code, **params)
        #: What the message is about, for a form to point at: the player (counted
        #: from 1, as the message says) and the field (``name``, ``email``, ``turn_hours``).
        self.player, self.field = player, field


class RateLimited(ServiceError):
    """Too many of something that sends mail or costs work; try again later."""

    code = "rate-limited"
    status = 429

    def __init__(self, message: Template, *, retry_after: int, clear_after: int | None = None,
                 **params: Any) -> None:
        super().__init__(message, **params)
        #: Seconds until the limit allows it again (the ``Retry-After`` header).
        self.retry_after = max(1, int(retry_after))
        #: Seconds until every window that is full has passed (a longer one may be
        #: full too): when asking again is sure to be allowed.
        self.clear_after = max(self.retry_after, int(clear_after or 0))


class MoveRefused(ServiceError):
    """The rules refused a move; ``code`` is one of ``record.md``'s codes.  Its
    words are the rules error's (:func:`pbem.words.refusal_text` translates them)."""

    status = 422

    def __init__(self, error: RulesError) -> None:
        super().__init__(error.message, code=error.code)
        self.error = error
