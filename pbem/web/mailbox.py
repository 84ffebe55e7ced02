"""The demo's mailbox: every caught email, as its recipient would see it."""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from typing import Any

import sqlalchemy
import smtplib
from email.utils import formatdate, make_msgid

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from sqlmodel import col, select

from ..core.db import session_scope
from ..core.models import CaughtMail
from ..core.app_context import context
from .locale import words

bp = Blueprint("mailbox", __name__, url_prefix="/mailbox")

#: The largest id an address may name: PostgreSQL's ``integer`` (a larger one
#: would be an error there, not "no such mail"); beyond it the route is a 404.
MAX_ID = 2**31 - 1


def _parse(raw: str) -> EmailMessage:
    return email.message_from_string(raw, policy=email.policy.default)


def _caught(mail_id: int) -> CaughtMail:
    with session_scope(context().engine) as session:
        mail = session.get(CaughtMail, mail_id)
    if mail is None:
        abort(404, description=words()._("there is no caught mail %(id)s", id=mail_id))
    return mail


#: How much of a raw message the list reads: its headers (X-PBEM-Game among
#: them) come first, its body and picture after.
HEAD_CHARS = 4000
_GAME_HEADER = re.compile(r"^X-PBEM-Game: *(\S+) *$", re.MULTILINE | re.IGNORECASE)


def game_of(raw: str) -> str | None:
    """The public id of the game a caught message is about (its ``X-PBEM-Game``
    header), ``None`` for a message about no game (a sign-in link)."""
    head = re.split(r"\r?\n\r?\n", raw[:HEAD_CHARS], maxsplit=1)[0]
    found = _GAME_HEADER.search(head)
    return found.group(1) if found else None


@dataclass
class Listed:
    id: int
    subject: str
    kind: str
    recipient: str
    created_at: datetime
    game: str | None


@dataclass
class Group:
    """A game's mail (or one message about no game), newest first."""

    game: str | None
    mails: list[Listed] = field(default_factory=list)


def group_mail(mails: list[Listed]) -> list[Group]:
    """Each game's mail together, the game whose mail began last first (a message
    about no game stands on its own where it was sent); newest first within each.

    >>> at = datetime(2026, 1, 1)
    >>> [(g.game, [m.id for m in g.mails]) for g in group_mail(
    ...     [Listed(i, "", "turn", "", at, game) for i, game in [(1, "A"), (2, "B"), (3, "A"), (4, None), (5, "B")]])]
    [(None, [4]), ('B', [5, 2]), ('A', [3, 1])]
    >>> [(g.game, [m.id for m in g.mails]) for g in group_mail(
    ...     [Listed(i, "", "login", "", at, game) for i, game in [(1, "A"), (2, None), (3, None)]])]
    [(None, [3, 2]), ('A', [1])]
    """
    groups: dict[str | int, Group] = {}
    for mail in sorted(mails, key=lambda m: m.id):
        key: str | int = mail.game if mail.game is not None else mail.id
        groups.setdefault(key, Group(mail.game)).mails.insert(0, mail)
    merged: list[Group] = []
    for group in sorted(groups.values(), key=lambda g: g.mails[-1].id, reverse=True):
        if merged and group.game is None and merged[-1].game is None:
            merged[-1].mails.extend(group.mails)  # messages about no game, one after another
        else:
            merged.append(group)
    return merged


#: The filters the list offers, each a query parameter.
FILTERS = ("to", "game", "kind")


@bp.get("/")
def index() -> Any:
    with session_scope(context().engine) as session:
        # The list shows no bodies: only the start of each raw message, for its headers.
        rows = list(session.connection().execute(
            sqlalchemy.select(col(CaughtMail.id), col(CaughtMail.subject), col(CaughtMail.kind),
                              col(CaughtMail.recipient), col(CaughtMail.created_at),
                              sqlalchemy.func.substr(col(CaughtMail.raw), 1, HEAD_CHARS))
            .order_by(col(CaughtMail.id).desc()).limit(500)))
    every = [Listed(int(r[0]), str(r[1]), str(r[2]), str(r[3]), r[4], game_of(str(r[5]))) for r in rows]
    chosen = {name: request.args.get(name, "")[:300] for name in FILTERS}
    shown = [m for m in every
             if (not chosen["to"] or m.recipient == chosen["to"])
             and (not chosen["game"] or m.game == chosen["game"])
             and (not chosen["kind"] or m.kind == chosen["kind"])]
    groups = group_mail(shown)
    games = [g.game for g in group_mail(every) if g.game is not None]
    return render_template("mailbox/index.html", groups=groups, count=len(shown), total=len(every),
                           chosen=chosen, filtered=any(chosen.values()),
                           recipients=sorted({m.recipient for m in every}),
                           games=games, kinds=sorted({m.kind for m in every}))


@bp.get(f"/<int(max={MAX_ID}):mail_id>")
def show(mail_id: int) -> Any:
    mail = _caught(mail_id)
    msg = _parse(mail.raw)
    text = msg.get_body(preferencelist=("plain",))
    html = msg.get_body(preferencelist=("html",))
    return render_template("mailbox/show.html", mail=mail, msg=msg,
                           text=text.get_content() if text else "",
                           has_html=html is not None)


@bp.get(f"/<int(max={MAX_ID}):mail_id>/html")
def html(mail_id: int) -> Any:
    """The HTML part, with its inline picture pointed at the part below."""
    part = _parse(_caught(mail_id).raw).get_body(preferencelist=("html",))
    if part is None:
        abort(404, description=words()._("this message has no HTML part"))
    body = part.get_content().replace("cid:board", f"/mailbox/{mail_id}/board.png")
    # The close-ups of the board a mail asking for a move carries (cid:close-up-1 ...).
    body = re.sub(r'"cid:close-up-([0-9]{1,2})"', rf'"/mailbox/{mail_id}/close-up-\1.png"', body)
    # Shown in a frame: its links should open the page itself, not inside the frame.
    body = body.replace("<head>", '<head><base target="_top">', 1)
    # Stricter than the site's policy, and like it only framed by our own pages.
    csp = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'"
    return Response(body, mimetype="text/html", headers={"Content-Security-Policy": csp})


@bp.get(f"/<int(max={MAX_ID}):mail_id>/board.png")
def picture(mail_id: int) -> Any:
    for part in _parse(_caught(mail_id).raw).walk():
        if part.get_content_type() == "image/png":
            return Response(part.get_content(), mimetype="image/png")
    abort(404, description=words()._("this message has no picture"))


@bp.get(f"/<int(max={MAX_ID}):mail_id>/close-up-<int(max=99):number>.png")
def close_up(mail_id: int, number: int) -> Any:
    for part in _parse(_caught(mail_id).raw).walk():
        if part.get_content_type() == "image/png" and str(part.get("Content-ID")) == f"<close-up-{number}>":
            return Response(part.get_content(), mimetype="image/png")
    abort(404, description=words()._("this message has no picture"))


#: The longest reply the mailbox sends (a move and a few words).
MAX_REPLY = 2000


@bp.post(f"/<int(max={MAX_ID}):mail_id>/reply")
def reply(mail_id: int) -> Any:
    """Answer a caught mail as its recipient would from their mail client: by
    SMTP to the service's own receiver (the real inbound path), quoting the
    original below, as mail clients do."""
    mail = _caught(mail_id)
    original = _parse(mail.raw)
    to = original.get("Reply-To")
    if not to:
        abort(404, description=words()._("this message cannot be answered"))
    text = request.form.get("text", "")[:MAX_REPLY].strip()
    body = original.get_body(preferencelist=("plain",))
    quoted = "\n".join("> " + line for line in (body.get_content() if body else "").splitlines())
    answer = EmailMessage()
    answer["From"] = mail.recipient
    answer["To"] = str(to)
    answer["Subject"] = "Re: " + str(original.get("Subject", ""))
    answer["Date"] = formatdate(localtime=False)
    answer["Message-ID"] = make_msgid(domain="mailbox.invalid")
    if original.get("Message-ID"):
        answer["In-Reply-To"] = str(original["Message-ID"])
        answer["References"] = str(original["Message-ID"])
    answer.set_content(f"{text}\n\nOn {original.get('Date', '')}, {original.get('From', '')} wrote:\n{quoted}\n")
    config = context().config
    try:
        with smtplib.SMTP(config["INBOUND_HOST"], int(config["INBOUND_PORT"]), timeout=10) as smtp:
            smtp.send_message(answer, from_addr=mail.recipient, to_addrs=[str(answer["To"])])
    except (OSError, smtplib.SMTPException) as e:
        flash(words()._("The reply could not be sent: %(why)s", why=str(e)[:200]), "error")
        return redirect(url_for(".show", mail_id=mail_id), 303)
    flash(words()._("Your reply went to the service by SMTP, as from a mail client; its answer lands here."), "ok")
    return redirect(url_for(".index"), 303)
