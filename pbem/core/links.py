"""A seat's link and token, derived from the secret key and the seat's salt."""

from __future__ import annotations

from . import tokens
from .context import Context
from .models import Seat


def seat_link(ctx: Context, seat: Seat) -> str:
    return f"{ctx.base_url}/play/{seat_token(ctx, seat)}"


def seat_token(ctx: Context, seat: Seat) -> str:
    return tokens.derive(ctx.secret_key, "seat", seat.token_salt)
