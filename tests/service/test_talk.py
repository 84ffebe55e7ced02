"""Table talk through the service layer: posting from the page and from a reply,
what a message keeps, the limits (a refused message changes nothing), who gets
it by mail, and that the table never shows a clan."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from sqlmodel import col, select

from pbem.core import errors
from pbem.table import talk
from pbem.core.db import session_scope
from pbem.core.models import Game, Outbox, Seat, TableMessage
from pbem.core.queries import table_news, table_news_unseen, table_seen_at
from tests.support.clock import frozen_clock
from tests.support.games import db_id, redeal_others, new_game, play, to_move
from tests.support.web import snapshot
from pbem import games


def seat_of(ctx, token) -> int:
    return games.seat_view(ctx, token)["seat"]


def talk_rows(ctx) -> list[Outbox]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.kind == "talk").order_by(col(Outbox.id))))


def post_from_reply(ctx, token, text, outbox=None) -> int:
    """What the reply worker does: post in its own transaction, as the seat."""
    with session_scope(ctx.engine) as session:
        seat, _, _ = games.seat_and_game(session, token)
        return talk.post_talk(ctx, session, seat, text, source="reply", outbox=outbox)


def test_a_message_from_the_page_is_at_every_players_table(ctx):
    game_id, toks = new_game(ctx)
    view = talk.talk(ctx, toks[0], "  Good luck, everyone!  ")
    assert view["you"] == games.seat_view(ctx, toks[0])["you"]
    author = view["you"]
    for n, t in enumerate(toks):
        table = talk.table(ctx, t)
        assert [(m["author"], m["text"], m["you"]) for m in table.messages] == [
            (author, "Good luck, everyone!", n == 0)]
        assert table.open and table.earlier == 0 and not table.talk_mail
    with session_scope(ctx.engine) as session:
        (row,) = session.exec(select(TableMessage)).all()
        assert row.source == "page" and row.game_id == db_id(session, game_id)


def test_messages_are_in_order_newest_last_with_their_time(ctx):
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    first = now.at
    talk.talk(ctx, toks[0], "one")
    now.advance(minutes=5)
    talk.talk(ctx, toks[1], "two")
    now.advance(minutes=5)
    talk.talk(ctx, toks[0], "three")
    messages = talk.table(ctx, toks[2]).messages
    assert [m["text"] for m in messages] == ["one", "two", "three"]
    assert datetime.fromisoformat(messages[0]["at"]) == first
    assert [m["id"] for m in messages] == sorted(m["id"] for m in messages)


def test_a_message_is_plain_text_without_controls_or_bidi_overrides(ctx):
    _, toks = new_game(ctx)
    talk.talk(ctx, toks[0], "\u202eevil\u202c <b>bold</b>\r\n\r\n\r\n\r\nline\x00\x1b[31m two\u2066\t ")
    (message,) = talk.table(ctx, toks[1]).messages
    # Kept as typed (escaping is the pages' and the mail's job), less what hides or reorders text.
    assert message["text"] == "evil <b>bold</b>\n\nline[31m two"
    # Emoji sequences keep their joiners.
    assert talk.clean_talk("👩\u200d👩\u200d👧 ok") == "👩\u200d👩\u200d👧 ok"


@pytest.mark.parametrize("text", ["", "   ", "\u202e\u200b\n\t", None, 42])
def test_an_empty_message_is_refused_and_changes_nothing(ctx, text):
    _, toks = new_game(ctx)
    before = snapshot(ctx)
    with pytest.raises(errors.Invalid) as e:
        talk.talk(ctx, toks[0], text)
    assert e.value.code == "empty-talk" and e.value.status == 422
    assert snapshot(ctx) == before


def test_from_the_page_a_message_over_the_limit_is_refused(ctx):
    _, toks = new_game(ctx)
    talk.talk(ctx, toks[0], "x" * talk.MAX_TALK)  # exactly the limit is fine
    before = snapshot(ctx)
    with pytest.raises(errors.Invalid) as e:
        talk.talk(ctx, toks[0], "y" * (talk.MAX_TALK + 1))
    assert e.value.code == "talk-too-long" and e.value.status == 422
    assert "at most 1000 characters" in e.value.message and "1001" in e.value.message
    assert snapshot(ctx) == before


def test_from_a_reply_a_long_message_is_cut_and_the_cut_marked(ctx):
    _, toks = new_game(ctx)
    text = "word " * 400
    assert len(talk.clean_talk(text)) > talk.MAX_TALK  # how the reply's answer knows it was cut
    post_from_reply(ctx, toks[1], text)
    (message,) = talk.table(ctx, toks[0]).messages
    assert len(message["text"]) <= talk.MAX_TALK and message["text"].endswith(talk.CUT_MARK)
    assert message["text"].startswith("word word")
    with session_scope(ctx.engine) as session:
        assert session.exec(select(TableMessage.source)).one() == "reply"


def test_a_seat_that_writes_too_much_is_held_back_and_changes_nothing(app, ctx):
    app.config["LIMIT_TALK"] = "3 per hour"
    _, toks = new_game(ctx)
    for n in range(3):
        talk.talk(ctx, toks[0], f"message {n}")
    before = snapshot(ctx)
    with pytest.raises(errors.RateLimited) as e:
        talk.talk(ctx, toks[0], "one too many")
    assert e.value.status == 429 and e.value.retry_after >= 1
    assert "many messages" in e.value.message
    assert snapshot(ctx) == before
    # A reply's talk over the limit is dropped the same way (its answer says so).
    with pytest.raises(errors.RateLimited):
        post_from_reply(ctx, toks[0], "by mail")
    assert snapshot(ctx) == before
    # The limit is per seat: the others still talk.
    talk.talk(ctx, toks[1], "my turn to talk")
    assert [m["text"] for m in talk.table(ctx, toks[2]).messages][-1] == "my turn to talk"


def email_of(ctx, token) -> str:
    with session_scope(ctx.engine) as session:
        return games.seat_and_game(session, token)[0].email


def test_each_message_is_mailed_only_to_the_players_who_asked(ctx):
    _, toks = new_game(ctx)
    talk.set_talk_mail(ctx, toks[1], True)
    talk.set_talk_mail(ctx, toks[0], True)  # the author: never mailed their own message
    assert talk.table(ctx, toks[1]).talk_mail and not talk.table(ctx, toks[2]).talk_mail
    talk.talk(ctx, toks[0], "hello")
    (message,) = talk.table(ctx, toks[0]).messages
    assert [(r.event, r.recipient) for r in talk_rows(ctx)] == [(f"talk:{message['id']}", email_of(ctx, toks[1]))]
    # Mail turned off altogether: no talk mail either, whatever the box says.
    games.set_mail(ctx, toks[1], "none")
    talk.talk(ctx, toks[0], "anyone?")
    assert len(talk_rows(ctx)) == 1
    # The box unticked: nothing more for Bob; Ann, who asked, gets Cid's message.
    games.set_mail(ctx, toks[1], "every")
    talk.set_talk_mail(ctx, toks[1], False)
    talk.talk(ctx, toks[2], "quiet")
    assert [r.recipient for r in talk_rows(ctx)] == [email_of(ctx, toks[1]), email_of(ctx, toks[0])]


def test_a_replys_talk_mail_is_handed_to_the_caller_to_relay(ctx):
    _, toks = new_game(ctx)
    talk.set_talk_mail(ctx, toks[0], True)
    talk.set_talk_mail(ctx, toks[2], True)
    ids: list[int | None] = []
    post_from_reply(ctx, toks[1], "by mail", outbox=ids)
    assert sorted(i for i in ids if i is not None) == sorted(r.id for r in talk_rows(ctx)) and len(ids) == 2


def test_only_the_players_at_the_table_may_write(ctx):
    game_id, toks = new_game(ctx, start=False)  # Ann accepted; Bob and Cid not yet
    talk.talk(ctx, toks[0], "waiting for you two")
    before = snapshot(ctx)
    with pytest.raises(errors.Conflict) as e:
        talk.talk(ctx, toks[1], "hi")
    assert e.value.code == "table-closed"
    assert not talk.table(ctx, toks[1]).open
    assert snapshot(ctx) == before
    # An expired game's table is closed to everyone.
    with session_scope(ctx.engine) as session:
        game = session.get(Game, db_id(session, game_id))
        game.status = "expired"
        session.add(game)
    with pytest.raises(errors.Conflict):
        talk.talk(ctx, toks[0], "anyone?")
    with pytest.raises(errors.Unauthorized):
        talk.talk(ctx, "not-a-token", "hi")
    with pytest.raises(errors.Unauthorized):
        talk.table(ctx, "not-a-token")


def test_the_table_is_open_after_the_game_ends(ctx):
    from tests.support.games import finish

    game_id, toks = new_game(ctx)
    finish(ctx, game_id, toks)
    talk.talk(ctx, toks[1], "well played")
    assert talk.table(ctx, toks[0]).messages[-1]["text"] == "well played"


def test_the_public_view_has_no_table(ctx):
    game_id, toks = new_game(ctx)
    talk.talk(ctx, toks[0], "our little secret")
    assert "our little secret" not in json.dumps(games.public_game(ctx, game_id))


def test_a_seat_page_shows_the_newest_messages_and_counts_the_rest(ctx, monkeypatch):
    monkeypatch.setattr(talk, "TABLE_SHOWN", 3)
    _, toks = new_game(ctx)
    for n in range(5):
        talk.talk(ctx, toks[n % 3], f"m{n}")
    table = talk.table(ctx, toks[0])
    assert [m["text"] for m in table.messages] == ["m2", "m3", "m4"] and table.earlier == 2




def test_the_table_never_depends_on_anyones_clan(ctx):
    game_id, toks = new_game(ctx)
    play(ctx, toks, 2)
    for n, t in enumerate(toks):
        talk.talk(ctx, t, f"hello from seat {n}")
    viewer = toks[0]
    before = talk.table(ctx, viewer)
    redeal_others(ctx, game_id, seat_of(ctx, viewer))
    assert talk.table(ctx, viewer) == before
    # Nor the author's own: nothing of a clan is in a message but what was typed.
    for m in before.messages:
        assert set(m) == {"id", "author", "text", "at", "you"}


def test_the_news_of_a_seat_are_the_others_messages_since_it_last_had_the_table(ctx):
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    mover, _ = to_move(ctx, toks)  # their turn mail went when the game started
    started = now.at
    others = [t for t in toks if t != mover]
    now.advance(minutes=1)
    talk.talk(ctx, others[0], "before your move")
    talk.talk(ctx, mover, "my own words")
    now.advance(minutes=1)
    play(ctx, toks, 1)
    moved = now.at
    now.advance(minutes=1)
    talk.talk(ctx, others[1], "after your move")
    with session_scope(ctx.engine) as session:
        seat, _, _ = games.seat_and_game(session, mover)
        # The last turn mail that went: its reader may have moved by reply, without the page.
        assert table_seen_at(session, seat) == started
        news, more = table_news(session, seat, table_seen_at(session, seat))
        assert [text for _, text, _ in news] == ["before your move", "after your move"] and more == 0
        newest, more = table_news(session, seat, None, limit=1)
        assert [text for _, text, _ in newest] == ["after your move"] and more == 1
        # No mail went to them (mail off): since their own last move.
        for row in session.exec(select(Outbox).where(Outbox.seat_id == seat.id)):
            row.status = "skipped"
            session.add(row)
        session.flush()
        assert table_seen_at(session, seat) == moved
        news, _ = table_news(session, seat, moved)
        assert [text for _, text, _ in news] == ["after your move"]


def test_a_mails_news_are_the_news_since_the_seat_last_had_the_table(ctx):
    """What a mail shows (``table_news_unseen`` of its row, asked in one
    statement built once) is ``table_news`` since ``table_seen_at`` that row:
    after a mail that went, after a move without one, and more than it shows."""
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    mover, _ = to_move(ctx, toks)
    others = [t for t in toks if t != mover]

    def same(before_id, limit=20):
        with session_scope(ctx.engine) as session:
            seat, _, _ = games.seat_and_game(session, mover)
            expected = table_news(session, seat, table_seen_at(session, seat, before_id), limit=limit)
            assert table_news_unseen(session, seat, before_id=before_id, limit=limit) == expected
            return [text for _, text, _ in expected[0]], expected[1]

    def newest_row():
        with session_scope(ctx.engine) as session:
            return max(r.id for r in session.exec(select(Outbox)))

    for n in range(3):
        now.advance(minutes=1)
        talk.talk(ctx, others[n % 2], f"message {n}")
    assert same(newest_row() + 1) == (["message 0", "message 1", "message 2"], 0)
    assert same(newest_row() + 1, limit=2) == (["message 1", "message 2"], 1)
    assert same(1) == (["message 0", "message 1", "message 2"], 0)  # before any mail: every message
    now.advance(minutes=1)
    play(ctx, toks, 1)
    now.advance(minutes=1)
    talk.talk(ctx, others[0], "after the move")
    assert same(newest_row() + 1)[0][-1] == "after the move"
    with session_scope(ctx.engine) as session:
        seat, _, _ = games.seat_and_game(session, mover)
        for row in session.exec(select(Outbox).where(Outbox.seat_id == seat.id)):
            row.status = "skipped"
            session.add(row)
    assert same(newest_row() + 1) == (["after the move"], 0)  # since their own move
