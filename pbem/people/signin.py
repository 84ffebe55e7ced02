"""Signing in by mail: the sign-in link, the browser session it opens, signing out."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from ..core import errors, tokens
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core import events
from ..core.events import Event
from ..core.models import Login, Outbox, OutboxStatus, Seat
from ..core.outbox import OutboxKind, enqueue
from .players import BadAddress, clean_address
from ..words import N_
from ..words.language import DEFAULT_LANGUAGE


def request_login(ctx: Context, email: object, language: str = DEFAULT_LANGUAGE) -> datetime | None:
    """Ask for a sign-in link for ``email``.  The same work whether or not the
    address has games (one outbox row, handed to the background), so neither the
    answer nor its timing tells who plays here: the worker looks the address up
    and writes the link (:func:`new_login`), or drops the row.

    A request too soon after the last one for the same address sends nothing
    and returns when the address may ask again (the page says so): that depends
    only on the requests, never on whether the address plays here."""
    try:
        address = clean_address(email)  # checked like a player's
    except BadAddress:
        raise errors.Invalid(N_("that is not an email address"), code="invalid-email") from None
    try:
        ctx.limit("LIMIT_LOGIN_MAIL", [address])
    except errors.RateLimited as e:
        # One sign-in mail per address per few minutes, whatever is asked.
        return ctx.now() + timedelta(seconds=e.clear_after)
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        row = enqueue(session, kind=OutboxKind.LOGIN, event=events.key(Event.LOGIN, uuid.uuid4().hex),
                      recipient=address, base_url=ctx.base_url, now=now, language=language)
    ctx.relay([row])
    return None


def new_login(ctx: Context, session: Session, address: str) -> Login | None:
    """A fresh sign-in link for an address that has games (``None`` otherwise),
    in the caller's transaction: the worker delivering a sign-in request."""
    # Only an address that accepted a seat or was really sent an invitation: a
    # game an anonymous visitor started (and nobody confirmed) names addresses
    # that never heard of us.
    accepted = select(Seat.id).where(col(Seat.email) == address, col(Seat.accepted_at).is_not(None))
    invited = select(Outbox.id).where(col(Outbox.recipient) == address, col(Outbox.kind) == OutboxKind.INVITE,
                                      col(Outbox.status) == OutboxStatus.SENT)
    if session.exec(accepted).first() is None and session.exec(invited).first() is None:
        return None
    now = ctx.now()
    salt = tokens.new_salt()
    login = Login(email=address, token_salt=salt, created_at=now,
                  token_hash=tokens.digest(tokens.derive(ctx.secret_key, "login", salt)),
                  expires_at=now + timedelta(minutes=ctx.config["LOGIN_MINUTES"]))
    session.add(login)
    session.flush()
    return login


def login_link(ctx: Context, login: Login) -> str:
    return f"{ctx.base_url}/signin/{tokens.derive(ctx.secret_key, 'login', login.token_salt)}"


def _login_for(session: Session, token: object, now: datetime) -> Login:
    if not tokens.well_formed(token):
        raise errors.Unauthorized(N_("this sign-in link is not valid"), code="invalid-link")
    login = session.exec(select(Login).where(Login.token_hash == tokens.digest(str(token)))).first()
    if login is None:
        raise errors.Unauthorized(N_("this sign-in link is not valid"), code="invalid-link")
    if login.used_at is not None:
        raise errors.Unauthorized(N_("this sign-in link has been used already; ask for a new one"),
                                  code="used-link")
    if as_utc(login.expires_at) <= now:
        raise errors.Unauthorized(N_("this sign-in link has expired; ask for a new one"), code="expired-link")
    if login.ended_at is not None:  # ended before it was used: signed out everywhere, or a seat link replaced
        raise errors.Unauthorized(N_("this sign-in link is not valid"), code="invalid-link")
    return login


def check_login(ctx: Context, token: object) -> str:
    """Whether a sign-in link is usable (for the page a GET shows); changes nothing."""
    with session_scope(ctx.engine) as session:
        return _login_for(session, token, ctx.now()).email


@dataclass(frozen=True)
class SignedIn:
    """A browser session opened by a sign-in link: the cookie holds both."""

    email: str
    login_id: int


def use_login(ctx: Context, token: object) -> SignedIn:
    """Spend a sign-in link (the page's POST): the session it opens."""
    now = ctx.now()
    with session_scope(ctx.engine) as session:
        login = _login_for(session, token, now)
        spent = session.exec(
            update(Login).where(col(Login.id) == login.id, col(Login.used_at).is_(None)).values(used_at=now)
        )
        if spent.rowcount != 1:
            raise errors.Unauthorized(N_("this sign-in link has been used already"), code="used-link")
        assert login.id is not None  # a stored row
        return SignedIn(login.email, login.id)


def signed_in(ctx: Context, email: object, login_id: object) -> bool:
    """Whether a browser session is still good: its sign-in was used, has not
    been signed out of, and is younger than ``SESSION_DAYS``."""
    if not isinstance(email, str) or isinstance(login_id, bool) or not isinstance(login_id, int):
        return False
    since = ctx.now() - timedelta(days=ctx.config["SESSION_DAYS"])
    with session_scope(ctx.engine) as session:
        return session.exec(select(Login.id).where(
            col(Login.id) == login_id, col(Login.email) == email, col(Login.used_at).is_not(None),
            col(Login.used_at) > since, col(Login.ended_at).is_(None))).first() is not None


def end_sessions(session: Session, email: str, now: datetime, *, keep: object = None) -> int:
    """End every browser session of ``email``, and every sign-in link for it not
    yet used, but the session ``keep`` (a login id): how many there were."""
    if not email:
        return 0
    query = update(Login).where(col(Login.email) == email, col(Login.ended_at).is_(None))
    if isinstance(keep, int) and not isinstance(keep, bool):
        query = query.where(col(Login.id) != keep)
    return int(session.exec(query.values(ended_at=now)).rowcount)


def sign_out_everywhere(ctx: Context, email: object) -> int:
    """"Sign out everywhere" on the signed-in dashboard: every session of the
    address ends (this one too), on every device, and a sign-in link not yet
    used opens nothing more.  How many there were."""
    if not isinstance(email, str):
        return 0
    with session_scope(ctx.engine) as session:
        return end_sessions(session, email, ctx.now())


def sign_out(ctx: Context, login_id: object) -> None:
    """End a browser session for good: a copy of its cookie opens nothing."""
    if isinstance(login_id, bool) or not isinstance(login_id, int):
        return
    with session_scope(ctx.engine) as session:
        session.execute(update(Login).where(col(Login.id) == login_id, col(Login.ended_at).is_(None))
                        .values(ended_at=ctx.now()))
