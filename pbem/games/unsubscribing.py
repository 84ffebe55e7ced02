"""The links that stop a seat's mail: List-Unsubscribe (RFC 8058) and the
"stop" line of every game mail.

Their token can do nothing but stop mail.  It is ``<game public id>.<mac>``,
the mac an HMAC-SHA256 under the secret key of the purpose and the seat's id
(:func:`pbem.core.tokens.derive`): nothing is stored, the seat is found among its
game's few seats, and replacing the seat link leaves old mails' unsubscribe
links working.  Mail programs, scanners and whatever else reads a header get
this token, never the seat token (which plays the seat).

Links in mail sent before there was such a token carry the seat token: that
still stops mail (its holder could do that and more on the seat page), so old
mails keep their one-click unsubscribe.

>>> import re
>>> bool(re.fullmatch(r"[a-z0-9]{14}\\.[A-Za-z0-9_-]{43}", token_for("key", "k3vx9q2mtr7hwa", 12)))
True
>>> token_for("key", "k3vx9q2mtr7hwa", 12) == token_for("other", "k3vx9q2mtr7hwa", 12)
False
"""

from __future__ import annotations

import hmac
from typing import NoReturn, TypedDict

from sqlmodel import Session, select

from ..core import errors, tokens
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import Game, MailChoice, Seat
from ..words import N_
from .lookup import game_and_seats, seat_and_game

PURPOSE = "unsubscribe"


class StopView(TypedDict):
    """What an unsubscribe page may show: the game, the seat's name, its mail
    settings and language; nothing of the seat's clan, link or address."""

    game: str
    name: str
    mail: str
    talk_mail: bool
    language: str
    time_zone: str | None
    #: The link held the seat token (a mail from before unsubscribe tokens): the
    #: page may link to the seat, which its holder can open anyway.
    seat_token: bool


def token_for(secret_key: str, game_public_id: str, seat_id: int) -> str:
    """The unsubscribe token of a seat."""
    return f"{game_public_id}.{tokens.derive(secret_key, PURPOSE, str(seat_id))}"


def link(ctx: Context, game: Game, seat: Seat) -> str:
    """The address whose POST stops the seat's turn mail (``/talk`` after it: its talk mail)."""
    assert seat.id is not None
    return f"{ctx.base_url}/unsubscribe/{token_for(ctx.secret_key, game.public_id, seat.id)}"


def _refuse() -> NoReturn:
    raise errors.Unauthorized(N_("this seat link is not valid: check that you copied the whole link"))


def _seat(ctx: Context, session: Session, token: object) -> tuple[Seat, Game, bool]:
    """The seat an unsubscribe token (or an old mail's seat token) names, its
    game, and whether it was a seat token.  401 for anything else."""
    if isinstance(token, str) and "." in token:
        public_id, _, mac = token.partition(".")
        if not tokens.is_public_id(public_id) or not tokens.well_formed(mac):
            _refuse()
        game = session.exec(select(Game).where(Game.public_id == public_id)).first()
        if game is not None:
            _, seats = game_and_seats(session, game.id)
            for seat in seats:
                if seat.id is not None and hmac.compare_digest(
                        tokens.derive(ctx.secret_key, PURPOSE, str(seat.id)).encode(), mac.encode()):
                    return seat, game, False
        _refuse()
    seat, game, _ = seat_and_game(session, token)  # 401 for a bad token
    return seat, game, True


def _view(seat: Seat, game: Game, seat_token: bool) -> StopView:
    return StopView(game=game.public_id, name=seat.name, mail=seat.mail, talk_mail=seat.talk_mail,
                    language=seat.language, time_zone=seat.time_zone, seat_token=seat_token)


def view(ctx: Context, token: object) -> StopView:
    """What the unsubscribe page shows; changes nothing."""
    with session_scope(ctx.engine) as session:
        return _view(*_seat(ctx, session, token))


def stop(ctx: Context, token: object, *, talk: bool = False) -> tuple[StopView, StopView]:
    """Stop the seat's turn mail (``mail = "none"``), or with ``talk`` its table
    talk mail only.  The view before and after."""
    with session_scope(ctx.engine) as session:
        seat, game, seat_token = _seat(ctx, session, token)
        before = _view(seat, game, seat_token)
        if talk:
            seat.talk_mail = False
        else:
            seat.mail = MailChoice.NONE
        session.add(seat)
        return before, _view(seat, game, seat_token)
