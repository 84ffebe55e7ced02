"""Run inside a virtualenv that has the built wheel installed (see
tests/e2e/test_wheel.py), from a working directory outside the checkout: the
installed package must find its templates, static files, catalogs, board and
migrations by itself.  Prints one JSON object with what it saw.

This file is executed by path, never imported by the tests."""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta
from email import message_from_string, policy
from pathlib import Path

import pbem
from pbem.ops import admin
from pbem.workers import clock
from pbem.table import talk
from pbem.core.db import session_scope
from pbem.mail import messages
from pbem.core.models import CaughtMail, Game, Seat
from pbem.core.outbox import OutboxKind
from pbem.web import create_app
from sqlalchemy import update
from sqlmodel import col, select
from pbem.people import signin
from pbem import games

PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"},
           {"name": "Cid", "email": "cid@example.org", "language": "hu"}]


def main() -> None:
    url = os.environ["PBEM_DATABASE_URL"]
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": os.environ["PBEM_SECRET_KEY"],
                      "BASE_URL": "https://clans.example", "BROKER_URL": "", "SMTP_HOST": "", "MAILBOX": False,
                      "TESTING": True, "BOT_DELAY": 0, "DIGEST_HOUR": 0,
                      "VACATION_DAYS": 0})
    ctx = app.extensions["pbem"]
    client = app.test_client()
    pages = {path: client.get(path).status_code for path in ("/", "/static/style.css", "/healthz", "/readyz")}
    css = client.get("/static/style.css").get_data(as_text=True)

    # A game through every step that mails someone.
    game_id = games.start_game(ctx, games.parse_players(PLAYERS))  # invite
    tokens = seat_tokens(ctx, game_id)
    for token in tokens:
        games.accept(ctx, token)  # the others' invites, then the first turn
    talk.set_talk_mail(ctx, tokens[1], True)
    talk.set_talk_mail(ctx, tokens[2], True)
    talk.talk(ctx, tokens[0], "Good luck, all")  # talk
    signin.request_login(ctx, PLAYERS[0]["email"])  # login
    games.replace_seat_link(ctx, tokens[0])  # link
    tokens = seat_tokens(ctx, game_id)
    with session_scope(ctx.engine) as session:
        session.exec(update(Game).where(col(Game.public_id) == game_id)
                     .values(deadline=ctx.now() + timedelta(hours=1), reminded_for=None))
    clock.send_reminders(ctx)  # reminder
    with session_scope(ctx.engine) as session:
        session.exec(update(Game).where(col(Game.public_id) == game_id)
                     .values(deadline=ctx.now() - timedelta(minutes=1)))
    clock.expire_deadlines(ctx)  # deadline, and the next turn
    with session_scope(ctx.engine) as session:
        session.exec(update(Seat).where(col(Seat.email) == PLAYERS[2]["email"]).values(mail="digest"))
    play(ctx, tokens, 3)
    clock.send_digests(ctx)  # digest
    admin.cancel(ctx, game_id)  # cancelled
    over = games.start_game(ctx, games.parse_players(PLAYERS[:2]))
    over_tokens = seat_tokens(ctx, over)
    for token in over_tokens:
        games.accept(ctx, token)
    while games.public_game(ctx, over)["status"] == "active":
        play(ctx, over_tokens, 1)  # ... to the end: game-over

    built: dict[str, dict[str, object]] = {}
    with session_scope(ctx.engine) as session:
        for mail in session.exec(select(CaughtMail).order_by(col(CaughtMail.id))):
            message = message_from_string(mail.raw, policy=policy.default)
            types = [part.get_content_type() for part in message.walk()]
            seen = built.setdefault(mail.kind, {"count": 0, "picture": False, "html": False, "languages": [],
                                                "subjects": {}})
            subjects = seen["subjects"]
            assert isinstance(subjects, dict)
            subjects[mail.recipient] = [str(message["Content-Language"]), str(message["Subject"])]
            seen["count"] = int(str(seen["count"])) + 1
            seen["picture"] = bool(seen["picture"]) or "image/png" in types
            seen["html"] = bool(seen["html"]) or "text/html" in types
            languages = seen["languages"]
            assert isinstance(languages, list)
            languages.append(str(message["Content-Language"]))
    # Every mail template the package has, loaded from the installed files in each language.
    folder = Path(messages.TEMPLATES)
    templates = sorted(p.stem for p in folder.glob("*.txt") if not p.name.startswith("_"))
    for kind in templates:
        for language in ("en", "hu", "cs", "pt"):
            environment = messages._environment(language)
            environment.get_template(f"{kind}.txt")
            if (folder / f"{kind}.html").exists():
                environment.get_template(f"{kind}.html")
    print(json.dumps({
        "package": pbem.__file__, "cwd": os.getcwd(), "path": sys.path, "pages": pages, "css": len(css),
        "mail": built, "templates": templates, "kinds": list(OutboxKind),
    }))


def seat_tokens(ctx: object, game_id: str) -> list[str]:
    from pbem.core import tokens

    with session_scope(ctx.engine) as session:  # type: ignore[attr-defined]
        seats = session.exec(select(Seat).join(Game, col(Game.id) == col(Seat.game_id))
                             .where(Game.public_id == game_id).order_by(col(Seat.position))).all()
        return [tokens.derive(ctx.config["SECRET_KEY"], "seat", s.token_salt) for s in seats]  # type: ignore[attr-defined]


def play(ctx: object, tokens: list[str], moves: int) -> None:
    for _ in range(moves):
        for token in tokens:
            view = games.seat_view(ctx, token)  # type: ignore[arg-type]
            if view["your_turn"]:
                games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])  # type: ignore[arg-type]
                break


if __name__ == "__main__":
    main()
