"""Mail in its reader's language: four players, four languages, every kind;
the same message in English shares no sentence with the translation."""

from __future__ import annotations

import json
import re
from email.message import EmailMessage
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.inbound import replies
from pbem.table import talk as table_talk
from pbem.core.db import session_scope
from pbem.words.language import TAGS
from pbem.mail.compose import compose
from pbem.core.models import Bounce, Game, Outbox, Seat
from pbem.core.outbox import enqueue
from pbem.people.players import address_hash
from pbem.rules.tables import CLANS
from pbem.words import Words
from tests.support.clock import frozen_clock
from tests.support.games import db_id, play, seat_tokens, to_move
from tests.support.messages import parts
from tests.support.replies import reply_message, store, turn_mail
from tests.support.text import english_left
from pbem.people import signin
from pbem import games

FOUR = [
    {"name": "Anna", "email": "anna@example.org", "language": "hu", "time_zone": "Europe/Budapest"},
    {"name": "Petr", "email": "petr@example.org", "language": "cs", "time_zone": "Europe/Prague"},
    {"name": "Rita", "email": "rita@example.org", "language": "pt", "time_zone": "Europe/Lisbon"},
    {"name": "Tom", "email": "tom@example.org", "language": "en"},
]
LANGUAGE_OF = {p["email"]: p["language"] for p in FOUR}


def _build(ctx: Any, row_id: int, language: str | None = None) -> EmailMessage:
    """The message for an outbox row; with ``language``, as if its reader had
    chosen that language (the seat is put back afterwards)."""
    with session_scope(ctx.engine) as session:
        row = session.get(Outbox, row_id)
        assert row is not None
        seat = session.get(Seat, row.seat_id) if row.seat_id else None
        kept = (seat.language if seat else row.language)
        if language is not None:
            if seat:
                seat.language = language
                session.add(seat)
            else:
                row.language = language
                session.add(row)
            session.flush()
        message = compose(ctx, session, row)
        if seat:
            seat.language = kept  # type: ignore[assignment]
        else:
            row.language = kept
        assert message is not None, (row.kind, row.recipient)
        return message.to_message()


def _rows(ctx: Any, kind: str) -> list[tuple[int, str]]:
    with session_scope(ctx.engine) as session:
        return [(r.id, r.recipient) for r in session.exec(
            select(Outbox).where(Outbox.kind == kind).order_by(col(Outbox.id))).all()]


def _started(ctx: Any, check_invites: bool = False) -> tuple[str, list[str]]:
    """A started game of the four; ``check_invites``: each invitation is checked
    while it is still wanted (before its reader accepts)."""
    game_id = games.start_game(ctx, games.parse_players(FOUR))
    toks = seat_tokens(ctx, game_id)
    games.accept(ctx, toks[0])  # the creator confirms: the others are invited
    if check_invites:
        invites = _rows(ctx, "invite")
        assert {r for _, r in invites} == set(LANGUAGE_OF)
        for row_id, recipient in invites[1:]:
            _check(ctx, row_id, recipient)
    for t in toks[1:]:
        games.accept(ctx, t)
    return game_id, toks


def _check(ctx: Any, row_id: int, recipient: str) -> EmailMessage:
    """The message speaks its reader's language, says so, and keeps no English sentence."""
    message = _build(ctx, row_id)
    language = LANGUAGE_OF.get(recipient, "en")
    assert message["Content-Language"] == TAGS[language]
    got = parts(message)
    if got["html"] is not None:
        assert re.search(rf'<html[^>]* lang="{TAGS[language]}"', got["html"])
    if language != "en":
        english = _build(ctx, row_id, "en")
        english_parts = parts(english)
        assert str(english["Subject"]) != str(message["Subject"])
        assert english_left(english_parts["text"], got["text"]) == []
        if got["html"] is not None:
            assert english_left(english_parts["html"], got["html"]) == []
    return message


def test_the_creators_confirmation_in_their_language(ctx):
    games.start_game(ctx, games.parse_players(FOUR))
    (row_id, recipient), = _rows(ctx, "invite")
    assert recipient == "anna@example.org"
    _check(ctx, row_id, recipient)


def test_invitations_turns_and_the_end_each_in_the_readers_language(ctx):
    game_id, toks = _started(ctx, check_invites=True)
    # Each turn mail while it is still that player's turn.
    for _ in range(4):
        row_id, recipient = _rows(ctx, "turn")[-1]
        _check(ctx, row_id, recipient)
        play(ctx, toks, 1)
    assert {r for _, r in _rows(ctx, "turn")} == set(LANGUAGE_OF)
    while games.public_game(ctx, game_id)["status"] == "active":
        play(ctx, toks, 1)
    overs = _rows(ctx, "game-over")
    assert {r for _, r in overs} == set(LANGUAGE_OF)
    for row_id, recipient in overs:
        message = _check(ctx, row_id, recipient)
        text = parts(message)["text"]
        # The reveal names every clan, in the reader's words.
        w = Words(LANGUAGE_OF[recipient])
        for p in games.public_game(ctx, game_id)["players"]:
            assert w.clan(p["clan"]) in text


@pytest.mark.parametrize("kind", ["reminder", "deadline", "digest", "link"])
def test_the_other_kinds_in_every_language(ctx, kind):
    now = frozen_clock(ctx)
    game_id, toks = _started(ctx)
    play(ctx, toks, 4)
    token, view = to_move(ctx, toks)
    ply = view["ply"]
    if kind == "deadline":
        now.advance(hours=view["turn_hours"] + 1)
        assert games.autopilot_move(ctx, db_id(ctx, game_id), ply) is not None
    with session_scope(ctx.engine) as session:
        seats = session.exec(select(Seat).where(Seat.game_id == db_id(session, game_id))).all()
        ids = []
        for seat in seats:
            if kind == "digest":
                seat.mail = "digest"
                session.add(seat)
            event = {"reminder": f"remind:{ply}:0", "deadline": f"autopilot:{ply}", "digest": "digest:test",
                     "link": "link:test"}[kind]
            new = enqueue(session, kind=kind, event=event, recipient=seat.email, base_url=ctx.base_url,
                          now=ctx.now(), game_id=seat.game_id, seat_id=seat.id)
            if new is None:  # the autopilot wrote its deadline mail already
                new = session.exec(select(Outbox.id).where(Outbox.seat_id == seat.id, Outbox.kind == kind,
                                                           Outbox.event == event)).one()
            ids.append((new, seat.email))
    for row_id, recipient in ids:
        if kind == "reminder" and recipient != next(p["email"] for p in FOUR if p["name"] == view["you"]):
            continue  # a reminder goes to the player to move only
        assert row_id is not None
        _check(ctx, row_id, recipient)


@pytest.mark.parametrize("language", ["hu", "cs", "pt"])
def test_the_sign_in_mail_in_the_language_it_was_asked_in(ctx, language):
    _started(ctx)
    signin.request_login(ctx, "anna@example.org", language)
    (row_id, recipient), = _rows(ctx, "login")
    message = _build(ctx, row_id)
    assert message["Content-Language"] == TAGS[language]
    english = _build(ctx, row_id, "en")
    assert english_left(parts(english)["text"], parts(message)["text"]) == []
    assert english_left(parts(english)["html"], parts(message)["html"]) == []


def test_a_worker_building_mail_in_turn_keeps_each_readers_language(ctx):
    """One process builds Hungarian, then Czech, then Hungarian again: nothing of
    one message's locale or time zone stays for the next."""
    games.start_game(ctx, games.parse_players(FOUR), confirmed=True)
    first = {r: i for i, r in _rows(ctx, "invite")}
    order = ["petr@example.org", "rita@example.org", "petr@example.org", "tom@example.org", "rita@example.org"]
    seen = [(_build(ctx, first[r])["Content-Language"], r) for r in order]
    assert seen == [(TAGS[LANGUAGE_OF[r]], r) for r in order]
    alone = parts(_build(ctx, first["petr@example.org"]))["text"]
    _build(ctx, first["rita@example.org"])
    assert parts(_build(ctx, first["petr@example.org"]))["text"] == alone


def test_no_turn_mail_depends_on_another_players_clan(ctx):
    """Non-interference, in every language: deal the others other clans and each
    player's turn mail is the same."""
    game_id, toks = _started(ctx)
    for _ in range(4):
        _redealt_turn_mail_is_the_same(ctx, game_id)
        play(ctx, toks, 1)


def _redealt_turn_mail_is_the_same(ctx: Any, game_id: str) -> None:
    row_id, recipient = _rows(ctx, "turn")[-1]
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(Game.public_id == game_id)).one()
        state = json.loads(game.state)
        seats = {s.email: s.position for s in session.exec(select(Seat).where(Seat.game_id == game.id))}
    before = parts(_build(ctx, row_id))
    mine = seats[recipient]
    changed = dict(state)
    unused = [c for c in CLANS if c not in state["clans"]]
    others = [i for i in range(4) if i != mine]
    changed["clans"] = list(state["clans"])
    # Four players, five clans: rotate the others' clans through the unused one.
    pool = [state["clans"][i] for i in others] + unused
    for k, i in enumerate(others):
        changed["clans"][i] = pool[k + 1]
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(Game.public_id == game_id)).one()
        game.state = json.dumps(changed)
        session.add(game)
    after = parts(_build(ctx, row_id))
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(Game.public_id == game_id)).one()
        game.state = json.dumps(state)
        session.add(game)
    assert (before["text"], before["html"], before["images"]) == (after["text"], after["html"], after["images"])


def _seat_email(ctx: Any, game_id: str, name: str) -> str:
    return next(p["email"] for p in FOUR if p["name"] == name)


@pytest.mark.parametrize("kind", ["reply-accepted", "reply-refused", "reply-confirm"])
def test_the_answers_to_replies_in_every_language(ctx, kind):
    game_id, toks = _started(ctx)
    for _ in range(4):  # one reply of each kind from each player, on their turn
        token, view = to_move(ctx, toks)
        address = _seat_email(ctx, game_id, view["you"])
        body = {"reply-accepted": view["legal_moves"][0], "reply-refused": "no move here",
                "reply-confirm": view["legal_moves"][0]}[kind]
        sender = "someone.else@example.org" if kind == "reply-confirm" else address
        reply = reply_message(turn_mail(ctx, address), body, sender=sender)
        replies.handle_reply(ctx, store(ctx, reply))
        (row_id, recipient), = [r for r in _rows(ctx, kind) if r[1] == address][-1:]
        _check(ctx, row_id, recipient)
        if kind != "reply-accepted":
            play(ctx, toks, 1)


def test_table_talk_and_unreachable_mail_in_every_language(ctx):
    game_id, toks = _started(ctx)
    for t in toks:
        table_talk.set_talk_mail(ctx, t, True)
    table_talk.talk(ctx, toks[0], "Hello, everyone!")
    talks = _rows(ctx, "talk")
    assert len(talks) == 3
    for row_id, recipient in talks:
        _check(ctx, row_id, recipient)
    # Tom's address bounces: the others are told, each in their own language.
    with session_scope(ctx.engine) as session:
        tom = session.exec(select(Seat).where(Seat.email == "tom@example.org")).one()
        session.add(Bounce(address_hash=address_hash("tom@example.org"), bouncing_at=ctx.now(), soft=0))
        ids = [enqueue(session, kind="unreachable", event=f"unreachable:{tom.id}", recipient=seat.email,
                       base_url=ctx.base_url, now=ctx.now(), game_id=seat.game_id, seat_id=seat.id)
               for seat in session.exec(select(Seat).where(Seat.game_id == tom.game_id, Seat.id != tom.id))]
        pairs = [(i, s) for i, s in zip(ids, [s.email for s in session.exec(
            select(Seat).where(Seat.game_id == tom.game_id, Seat.id != tom.id))])]
    for row_id, recipient in pairs:
        _check(ctx, row_id, recipient)
