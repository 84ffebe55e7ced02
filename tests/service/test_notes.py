"""A seat's private notes through the service layer: kept as typed up to 4,000
characters, longer or unstorable refused with nothing changed, read only by
their own seat (never another seat's view, the public view, the record, a
webhook post or anyone else's mail), at the foot of the seat's own turn mail
when it asks, and erased with the seat by ``pbem admin forget``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.models import Outbox
from pbem.core.outbox import OutboxKind
from pbem.core.seat_extras_tables import SeatNote
from pbem.mail.compose import compose
from pbem.ops import admin
from pbem.table import webhooks
from tests.support.games import new_game, play, to_move
from tests.support.messages import parts
from tests.support.receiver import Receiver
from tests.support.web import snapshot
from pbem import games

SECRET_PLAN = "Plan: keep green out of the north (Zq7-private)"
MARK = "Zq7-private"


def test_notes_are_kept_and_read_back_by_their_own_seat(ctx: Any) -> None:
    _, toks = new_game(ctx)
    assert games.notes(ctx, toks[0]) == {"text": "", "in_turn_mail": False, "updated_at": None}
    kept = games.set_notes(ctx, toks[0], "line one\r\nline two  \n\n", True)
    assert kept["text"] == "line one\nline two" and kept["in_turn_mail"] and kept["updated_at"]
    assert games.notes(ctx, toks[0]) == kept
    # Replaced, the mail choice as it was when not given; empty is no notes.
    assert games.set_notes(ctx, toks[0], "")["text"] == "" and games.notes(ctx, toks[0])["in_turn_mail"]
    assert games.notes(ctx, toks[1])["text"] == ""


def test_four_thousand_characters_fit_and_one_more_is_refused_whole(ctx: Any) -> None:
    _, toks = new_game(ctx)
    games.set_notes(ctx, toks[0], "x" * 4000)
    # A browser's CR LF counts as one character, as its text box counted it.
    games.set_notes(ctx, toks[0], "a\r\n" * 2000)
    assert len(games.notes(ctx, toks[0])["text"]) == 3999
    before = snapshot(ctx)
    with pytest.raises(errors.Invalid) as refused:
        games.set_notes(ctx, toks[0], "y" * 4001)
    assert refused.value.code == "notes-too-long" and refused.value.status == 422
    assert snapshot(ctx) == before


@pytest.mark.parametrize("text, code", [("a\x00b", "bad-text"), ("a\ud800b", "bad-text"), (42, "invalid-notes"),
                                        (None, "invalid-notes")])
def test_text_that_cannot_be_stored_is_refused_and_changes_nothing(ctx: Any, text: Any, code: str) -> None:
    _, toks = new_game(ctx)
    games.set_notes(ctx, toks[0], "kept")
    before = snapshot(ctx)
    with pytest.raises(errors.Invalid) as refused:
        games.set_notes(ctx, toks[0], text)
    assert refused.value.code == code and snapshot(ctx) == before


def test_nobody_else_ever_sees_the_notes(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    games.set_notes(ctx, toks[0], SECRET_PLAN, True)
    play(ctx, toks, 4)
    seen = [games.seat_view(ctx, t) for t in toks] + [games.public_game(ctx, game_id),
                                                      games.export_game(ctx, game_id)]
    # Not even the seat's own view: the notes are only where they are asked for.
    assert all(MARK not in json.dumps(v, ensure_ascii=False) for v in seen)
    # Every mail to anyone else, whatever its kind.
    with session_scope(ctx.engine) as session:
        rows = list(session.exec(select(Outbox).where(col(Outbox.kind) != OutboxKind.WEBHOOK)))
        mine = games.seat_and_game(session, toks[0])[0]
        others = [r for r in rows if r.seat_id != mine.id]
        assert others
        for row in others:
            message = compose(ctx, session, row)
            assert message is None or MARK not in message.to_message().as_string(), row.kind


def test_the_turn_mail_shows_them_only_when_asked_and_only_to_their_seat(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    mover, _ = to_move(ctx, toks)
    games.set_notes(ctx, mover, SECRET_PLAN, False)

    def turn_mail() -> str:
        with session_scope(ctx.engine) as session:
            seat = games.seat_and_game(session, mover)[0]
            row = session.exec(select(Outbox).where(Outbox.kind == OutboxKind.TURN, Outbox.seat_id == seat.id)
                               .order_by(col(Outbox.id).desc())).first()
            assert row is not None
            message = compose(ctx, session, row)
            assert message is not None
            got = parts(message.to_message())
            return str(got["text"]) + str(got["html"])

    assert MARK not in turn_mail()
    games.set_notes(ctx, mover, SECRET_PLAN + "\n<b>bold</b>", True)
    mail = turn_mail()
    assert mail.count(MARK) == 2 and "&lt;b&gt;bold&lt;/b&gt;" in mail  # text and HTML, escaped in HTML


def test_no_webhook_post_holds_the_notes(hctx: Any, receiver: Receiver) -> None:
    game_id, toks = new_game(hctx, start=False)
    webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    webhooks.add_webhook(hctx, toks[0], "discord", receiver.url)
    for token in toks[1:]:
        games.accept(hctx, token)
    for t in toks:
        games.set_notes(hctx, t, SECRET_PLAN, True)
    play(hctx, toks, 3)
    assert receiver.posts
    assert all(MARK.encode() not in p.body for p in receiver.posts)


def test_forget_erases_the_notes_with_the_seat(ctx: Any) -> None:
    _, toks = new_game(ctx)
    games.set_notes(ctx, toks[0], SECRET_PLAN, True)
    games.set_notes(ctx, toks[1], "Bob's own", False)
    with session_scope(ctx.engine) as session:
        email = games.seat_and_game(session, toks[0])[0].email
    done = admin.forget(ctx, email)
    assert done.details["notes"] == 1
    with session_scope(ctx.engine) as session:
        assert [n.text for n in session.exec(select(SeatNote))] == ["Bob's own"]
    assert admin.forget(ctx, email).details["notes"] == 0  # twice: nothing left
