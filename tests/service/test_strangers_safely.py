"""Strangers, safely, through the service: blocking hides the blocked person's
talk from the blocker (page, talk mail, the talk in turn mail), blocked people
are never seated together by a rematch, a reported message reaches the
operator's list, and a hidden profile is as good as none.  Every refusal
changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import col, select

from pbem import games
from pbem.cli import main
from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.models import Game, Outbox, Seat
from pbem.core.outbox import OutboxKind
from pbem.core.people_tables import Block, Profile, TalkReport
from pbem.core.queries import table_news, table_news_unseen
from pbem.ops.reports import list_reports
from pbem.people import blocks, profiles
from pbem.table import blocking, rematch, reports, talk
from tests.support.games import PLAYERS, finish, new_game, seat_tokens
from tests.support.web import snapshot

ANN, BOB, CID = (p["email"] for p in PLAYERS)


def talk_mail_to(ctx: Any) -> list[str]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(Outbox.recipient).where(Outbox.kind == OutboxKind.TALK)
                                 .order_by(col(Outbox.id))))


def seat_of(ctx: Any, token: str) -> Seat:
    with session_scope(ctx.engine) as session:
        seat, _, _ = games.seat_and_game(session, token)
        return seat


def pos(ctx: Any, token: str) -> int:
    """The seat number of a token now (the start draws who plays first)."""
    return int(games.seat_view(ctx, token)["seat"])


def rows(ctx: Any, model: Any) -> list[Any]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(model)))


def test_a_blocked_players_talk_is_hidden_from_the_blocker_only(ctx: Any) -> None:
    _, toks = new_game(ctx)
    talk.set_talk_mail(ctx, toks[0], True)
    talk.set_talk_mail(ctx, toks[2], True)
    before = talk.talk(ctx, toks[1], "before the block")
    assert before["you"] == "Bob"
    bob = pos(ctx, toks[1])
    done = blocking.block_player(ctx, toks[0], seat=bob)
    assert (done.seat, done.name, done.blocked, done.changed) == (bob, "Bob", True, True)
    # Blocking again is blocking once.
    assert not blocking.block_player(ctx, toks[0], seat=bob).changed
    mail_before = len(talk_mail_to(ctx))
    talk.talk(ctx, toks[1], "after the block")
    talk.talk(ctx, toks[2], "Cid speaks")

    ann_table = talk.table(ctx, toks[0])
    assert [m["text"] for m in ann_table.messages] == ["Cid speaks"]
    assert ann_table.hides_blocked
    # Cid, who blocked nobody, reads everyone; Bob reads Cid.
    assert [m["text"] for m in talk.table(ctx, toks[2]).messages] == ["before the block", "after the block",
                                                                      "Cid speaks"]
    # Talk mail: Bob's message went to Cid only, Cid's to Ann.
    assert talk_mail_to(ctx)[mail_before:] == [CID, ANN]
    # The talk a turn mail shows.
    with session_scope(ctx.engine) as session:
        ann, _, _ = games.seat_and_game(session, toks[0])
        news, _ = table_news(session, ann, None)
        assert [text for _, text, _ in news] == ["Cid speaks"]
        unseen, _ = table_news_unseen(session, ann, before_id=10**9)
        assert [text for _, text, _ in unseen] == ["Cid speaks"]
        cid, _, _ = games.seat_and_game(session, toks[2])
        assert [text for _, text, _ in table_news(session, cid, None)[0]] == ["before the block", "after the block"]
    # The page's version still follows the game's newest message (shown or not).
    assert ann_table.newest == max(m["id"] for m in talk.table(ctx, toks[2]).messages)

    undone = blocking.unblock_player(ctx, toks[0], seat=bob)
    assert (undone.blocked, undone.changed) == (False, True)
    assert [m["text"] for m in talk.table(ctx, toks[0]).messages] == ["before the block", "after the block",
                                                                      "Cid speaks"]


def test_a_block_holds_in_every_game_and_names_no_address(ctx: Any) -> None:
    _, first = new_game(ctx)
    said = talk.talk(ctx, first[1], "hello")
    message = talk.table(ctx, first[0]).messages[0]["id"]
    assert said["you"] == "Bob"
    done = blocking.block_player(ctx, first[0], message=message)
    assert (done.seat, done.name) == (pos(ctx, first[1]), "Bob")
    _, second = new_game(ctx)
    talk.talk(ctx, second[1], "new game, same Bob")
    assert talk.table(ctx, second[0]).messages == []
    with session_scope(ctx.engine) as session:
        listed = blocks.blocks(session, ANN)
        assert [b.name for b in listed] == ["Bob"]
        assert all("@" not in str(v) for b in listed for v in vars(b).values())
        assert blocks.any_blocked(session, BOB, [CID, ANN]) and blocks.any_blocked(session, ANN, [BOB])
        assert not blocks.any_blocked(session, CID, [ANN, BOB])


@pytest.mark.parametrize("how, kind, code", [
    ({"seat": "own"}, errors.Conflict, "own-seat"),
    ({"seat": 7}, errors.Invalid, "invalid-seat"),
    ({"seat": True}, errors.Invalid, "invalid-seat"),
    ({"seat": "1"}, errors.Invalid, "invalid-seat"),
    ({}, errors.Invalid, "no-target"),
    ({"seat": 1, "message": 1}, errors.Invalid, "no-target"),
    ({"message": 99999}, errors.NotFound, "no-message"),
])
def test_refused_blocks_change_nothing(ctx: Any, how: dict[str, Any], kind: type, code: str) -> None:
    _, toks = new_game(ctx)
    if how.get("seat") == "own":
        how = {"seat": pos(ctx, toks[0])}
    before = snapshot(ctx)
    with pytest.raises(kind) as refused:
        blocking.block_player(ctx, toks[0], **how)
    assert refused.value.code == code
    assert snapshot(ctx) == before


def test_the_computer_and_messages_of_another_game_cannot_be_blocked(ctx: Any) -> None:
    game_id = games.start_game(ctx, games.parse_players([PLAYERS[0], {"bot": "easy"}]))
    (ann, _) = seat_tokens(ctx, game_id)
    games.accept(ctx, ann)
    with pytest.raises(errors.Conflict) as refused:
        blocking.block_player(ctx, ann, seat=1 - pos(ctx, ann))
    assert refused.value.code == "not-a-person"
    _, other = new_game(ctx)
    talk.talk(ctx, other[1], "elsewhere")
    elsewhere = talk.table(ctx, other[1]).messages[0]["id"]
    with pytest.raises(errors.NotFound):
        blocking.block_player(ctx, ann, message=elsewhere)
    assert rows(ctx, Block) == []


def test_blocked_people_get_no_rematch(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    finish(ctx, game_id, toks)
    blocking.block_player(ctx, toks[2], seat=pos(ctx, toks[1]))  # Cid blocks Bob: Ann asks for the rematch
    before = snapshot(ctx)
    with pytest.raises(errors.Conflict) as refused:
        rematch.play_again(ctx, toks[0])
    assert refused.value.code == "blocked"
    assert "Bob" not in refused.value.message and "Cid" not in refused.value.message
    assert snapshot(ctx) == before
    with session_scope(ctx.engine) as session:
        assert session.exec(select(Game).where(col(Game.rematch_of).is_not(None))).first() is None
    # Unblocked, the rematch seats them all.
    blocking.unblock_player(ctx, toks[2], seat=pos(ctx, toks[1]))
    assert rematch.play_again(ctx, toks[0]).created


def test_a_report_is_stored_once_and_the_operator_lists_it(ctx: Any, operator_env: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    game_id, toks = new_game(ctx)
    talk.talk(ctx, toks[1], "you are all terrible\nand so is your clan")
    message = talk.table(ctx, toks[0]).messages[0]["id"]
    first = reports.report_talk(ctx, toks[0], message, "  insults  ")
    assert (first.message, first.created) == (message, True)
    assert not reports.report_talk(ctx, toks[0], message).created  # twice is once
    (row,) = rows(ctx, TalkReport)
    assert (row.message_id, row.reason, row.seat_id) == (message, "insults", seat_of(ctx, toks[0]).id)
    (listed,) = list_reports(ctx)
    assert (listed.game, listed.text, listed.reporter_seat, listed.reporter, listed.author) == (
        game_id, "you are all terrible\nand so is your clan", pos(ctx, toks[0]), "Ann", "Bob")

    capsys.readouterr()
    assert main(["admin", "reports"]) == 0
    out = capsys.readouterr().out
    assert game_id in out and "you are all terrible" in out and f"seat {pos(ctx, toks[0])} (Ann)" in out and "insults" in out
    assert "@" not in out


@pytest.mark.parametrize("case, kind, code", [
    ("own", errors.Conflict, "own-message"),
    ("elsewhere", errors.NotFound, "no-message"),
    ("unknown", errors.NotFound, "no-message"),
    ("not-a-number", errors.NotFound, "no-message"),
    ("long-reason", errors.Invalid, "reason-too-long"),
    ("reason-not-text", errors.Invalid, "bad-reason"),
])
def test_refused_reports_change_nothing(ctx: Any, case: str, kind: type, code: str) -> None:
    _, toks = new_game(ctx)
    _, other = new_game(ctx)
    talk.talk(ctx, toks[0], "mine")
    talk.talk(ctx, toks[1], "Bob's")
    talk.talk(ctx, other[1], "elsewhere")
    mine, bobs = (m["id"] for m in talk.table(ctx, toks[0]).messages)
    elsewhere = talk.table(ctx, other[0]).messages[0]["id"]
    message, reason = {"own": (mine, None), "elsewhere": (elsewhere, None), "unknown": (10**6, None),
                       "not-a-number": ("1", None), "long-reason": (bobs, "x" * 501),
                       "reason-not-text": (bobs, ["x"])}[case]
    before = snapshot(ctx)
    with pytest.raises(kind) as refused:
        reports.report_talk(ctx, toks[0], message, reason)
    assert refused.value.code == code
    assert snapshot(ctx) == before


def test_reports_are_rate_limited_per_seat(ctx: Any, app: Any) -> None:
    app.config["LIMIT_REPORTS"] = "2 per hour"
    _, toks = new_game(ctx)
    for n in range(3):
        talk.talk(ctx, toks[1], f"message {n}")
    ids = [m["id"] for m in talk.table(ctx, toks[0]).messages]
    reports.report_talk(ctx, toks[0], ids[0])
    reports.report_talk(ctx, toks[0], ids[1])
    with pytest.raises(errors.RateLimited):
        reports.report_talk(ctx, toks[0], ids[2])
    assert len(rows(ctx, TalkReport)) == 2
    # Another seat has its own count.
    assert reports.report_talk(ctx, toks[2], ids[2]).created


def test_profiles_are_random_and_a_hidden_one_is_not_there(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    finish(ctx, game_id, toks)
    with session_scope(ctx.engine) as session:
        ids = profiles.public_ids(session, [ANN, "Bob@Example.org"])
        assert set(ids) == {ANN, BOB} and len(set(ids.values())) == 2
        assert profiles.public_ids(session, [ANN]) == {ANN: ids[ANN]}  # made once
    shown = profiles.public_profile(ctx, ids[BOB])
    assert (shown.name, shown.reliability.games, shown.rating) == ("Bob", 1, None)
    assert "@" not in repr(shown)
    own = profiles.set_profile(ctx, BOB, hidden=True, show_rating=False)
    assert own.hidden and own.public_id == ids[BOB]
    with session_scope(ctx.engine) as session:
        assert profiles.hidden(session, BOB) and not profiles.hidden(session, ANN)
    for unknown in (ids[BOB], "k3vx9q2mtr7hwa", "../etc", None):
        with pytest.raises(errors.NotFound) as refused:
            profiles.public_profile(ctx, unknown)
        assert refused.value.code == "no-profile"
    profiles.set_profile(ctx, BOB, hidden=False, show_rating=False)
    assert profiles.public_profile(ctx, ids[BOB]).name == "Bob"


def test_forget_erases_profile_and_blocks(ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    _, toks = new_game(ctx)
    blocking.block_player(ctx, toks[0], seat=pos(ctx, toks[1]))
    blocking.block_player(ctx, toks[1], seat=pos(ctx, toks[2]))
    with session_scope(ctx.engine) as session:
        profiles.public_ids(session, [BOB, CID])
    assert main(["admin", "forget", BOB]) == 0
    assert [p.email for p in rows(ctx, Profile)] == [CID]
    assert rows(ctx, Block) == []


def test_talk_mail_written_before_a_block_is_not_sent_after_it(ctx: Any) -> None:
    from pbem.mail import delivery
    from pbem.mail.transport import transport_for

    _, toks = new_game(ctx)
    talk.set_talk_mail(ctx, toks[0], True)
    with session_scope(ctx.engine) as session:  # as a reply would: the mail waits for the sweep
        bob, _, _ = games.seat_and_game(session, toks[1])
        talk.post_talk(ctx, session, bob, "said before the block", source="reply")
    with session_scope(ctx.engine) as session:
        (row_id,) = session.exec(select(Outbox.id).where(Outbox.kind == OutboxKind.TALK,
                                                         Outbox.recipient == ANN)).all()
    blocking.block_player(ctx, toks[0], seat=pos(ctx, toks[1]))
    assert row_id is not None
    assert delivery.deliver(ctx, row_id, transport_for(ctx.config, ctx.engine)) == "skipped"
