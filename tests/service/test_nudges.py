"""Nudges through the service layer, on a frozen clock: after waiting on the same
mover for NUDGE_AFTER_HOURS a player may nudge them once a day per game; too
soon, on your own turn, to a computer, to an address that cannot be mailed or to
a mover who is away (their clock paused) is refused and changes nothing; the mail
goes only while the turn is still theirs."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.models import Bounce, Game, MailChoice, Outbox, Seat, Suppression
from pbem.core.outbox import OutboxKind
from pbem.core.seat_extras_tables import Nudge
from pbem.core.config import UnsafeConfig, check_safe, load_config
from pbem.mail import kinds
from pbem.people.players import address_hash, mailbox_hash
from pbem.words import Words, error_text
from tests.support.clock import frozen_clock
from tests.support.games import db_id, finish, new_game, to_move
from tests.support.web import snapshot
from pbem import games


def waiting(ctx: Any, toks: list[str]) -> tuple[str, str, dict[str, Any]]:
    """The token of the seat to move, of one waiting on it, and the mover's view."""
    mover, view = to_move(ctx, toks)
    other = next(t for t in toks if t != mover)
    return mover, other, view


def nudge_rows(ctx: Any) -> list[Outbox]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.kind == OutboxKind.NUDGE).order_by(col(Outbox.id))))


def mover_seat(ctx: Any, token: str) -> Seat:
    with session_scope(ctx.engine) as session:
        seat, _, _ = games.seat_and_game(session, token)
        return seat


def test_a_nudge_before_the_wait_is_refused_with_when_to_try_again(ctx: Any) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    _, other, _ = waiting(ctx, toks)
    now.advance(hours=23)
    before = snapshot(ctx)
    with pytest.raises(errors.RateLimited) as refused:
        games.nudge(ctx, other)
    assert refused.value.code == "nudge-too-soon" and refused.value.status == 429
    assert 3500 <= refused.value.retry_after <= 3601  # the hour left of the 24
    assert snapshot(ctx) == before and nudge_rows(ctx) == []


def test_after_the_wait_one_nudge_goes_to_the_mover_and_the_next_a_day_later(ctx: Any) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other, view = waiting(ctx, toks)
    now.advance(hours=24)
    sent = games.nudge(ctx, other)
    assert sent["nudged"] == view["you"]
    (row,) = nudge_rows(ctx)
    assert row.recipient == mover_seat(ctx, mover).email and row.seat_id == mover_seat(ctx, mover).id
    # Once a day per game: a second click is refused, and sends nothing.
    now.advance(hours=23)
    with pytest.raises(errors.RateLimited) as refused:
        games.nudge(ctx, other)
    assert refused.value.code == "nudge-too-soon" and refused.value.retry_after <= 3601
    assert len(nudge_rows(ctx)) == 1
    now.advance(hours=1)
    games.nudge(ctx, other)
    assert len(nudge_rows(ctx)) == 2
    # Each waiting player has their own day.
    third = next(t for t in toks if t not in (mover, other))
    games.nudge(ctx, third)
    assert len(nudge_rows(ctx)) == 3


def test_the_wait_starts_again_with_each_new_mover(ctx: Any) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other, view = waiting(ctx, toks)
    now.advance(hours=30)
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    _, other, _ = waiting(ctx, toks)
    with pytest.raises(errors.RateLimited) as refused:
        games.nudge(ctx, other)
    assert refused.value.retry_after > 23 * 3600


def test_on_your_own_turn_there_is_nobody_to_nudge(ctx: Any) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, _, _ = waiting(ctx, toks)
    now.advance(days=3)
    with pytest.raises(errors.Conflict) as refused:
        games.nudge(ctx, mover)
    assert refused.value.code == "your-turn" and refused.value.status == 409
    assert nudge_rows(ctx) == []


def test_a_game_not_running_cannot_be_nudged(ctx: Any) -> None:
    frozen_clock(ctx)
    _, invited = new_game(ctx, start=False)
    with pytest.raises(errors.Conflict) as refused:
        games.nudge(ctx, invited[0])
    assert refused.value.code == "not-started"
    game_id, toks = new_game(ctx)
    finish(ctx, game_id, toks)
    with pytest.raises(errors.Conflict) as refused:
        games.nudge(ctx, toks[0])
    assert refused.value.code == "game-over" and nudge_rows(ctx) == []


def _change_mover(ctx: Any, token: str, **values: Any) -> None:
    with session_scope(ctx.engine) as session:
        seat, _, _ = games.seat_and_game(session, token)
        for k, v in values.items():
            setattr(seat, k, v)
        session.add(seat)


def test_the_computer_is_never_nudged(ctx: Any) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other, _ = waiting(ctx, toks)
    _change_mover(ctx, mover, bot="easy", bot_from=0)  # made up: its move has not come yet
    now.advance(days=2)
    before = snapshot(ctx)
    with pytest.raises(errors.Conflict) as refused:
        games.nudge(ctx, other)
    assert refused.value.code == "computer-turn"
    assert snapshot(ctx) == before and nudge_rows(ctx) == []
    # Nor can a seat the computer plays nudge anyone.
    _change_mover(ctx, mover, bot=None, bot_from=None)
    _change_mover(ctx, other, bot="easy", bot_from=0)
    with pytest.raises(errors.Conflict) as refused:
        games.nudge(ctx, other)
    assert refused.value.code == "computer-seat"


@pytest.mark.parametrize("why", ["suppressed", "bouncing", "no-mail"])
def test_a_mover_who_cannot_be_mailed_is_not_nudged_and_nobody_learns_why(ctx: Any, why: str) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other, _ = waiting(ctx, toks)
    email = mover_seat(ctx, mover).email
    with session_scope(ctx.engine) as session:
        if why == "suppressed":
            session.add(Suppression(address_hash=mailbox_hash(email)))
        elif why == "bouncing":
            session.add(Bounce(address_hash=address_hash(email), bouncing_at=now.at))
    if why == "no-mail":
        games.set_mail(ctx, mover, MailChoice.NONE)
    now.advance(days=2)
    offer_before = _offer(ctx, other)
    with pytest.raises(errors.Conflict) as refused:
        games.nudge(ctx, other)
    assert refused.value.code == "cannot-nudge" and nudge_rows(ctx) == []
    assert offer_before is None  # the page offers no button either


def _offer(ctx: Any, token: str) -> games.NudgeOffer | None:
    with session_scope(ctx.engine) as session:
        seat, game, seats = games.seat_and_game(session, token)
        return games.nudge_offer(ctx, session, game, seats, seat)


def test_the_page_says_from_when_a_nudge_may_go(ctx: Any) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other, view = waiting(ctx, toks)
    offer = _offer(ctx, other)
    assert offer is not None and offer.mover == view["you"] and not offer.allowed(now.at)
    assert offer.at == now.at + timedelta(hours=24)
    assert _offer(ctx, mover) is None  # your own turn
    now.advance(hours=24)
    assert _offer(ctx, other).allowed(now.at)  # type: ignore[union-attr]


def test_a_mover_who_is_away_is_not_nudged_until_they_are_back(ctx: Any) -> None:
    ctx.config["VACATION_DAYS"] = 7  # the bank pauses spend from
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other, view = waiting(ctx, toks)
    now.advance(hours=25)  # past the wait: only the pause stands in the way
    games.pause_clock(ctx, mover, 3)
    back = now.at + timedelta(days=3)
    before = snapshot(ctx)
    with pytest.raises(errors.Conflict) as refused:
        games.nudge(ctx, other)
    assert refused.value.code == "mover-away" and refused.value.status == 409
    assert refused.value.message == (f"{view['you']} is away until {back.isoformat(timespec='minutes')}; "
                                     "you can nudge them after that")
    assert snapshot(ctx) == before and nudge_rows(ctx) == []
    # Said in each reader's language, with the name and the time in it.
    english = error_text(refused.value)
    for language in ("hu", "cs", "pt"):
        said = error_text(refused.value, Words(language))
        assert said != english and view["you"] in said and back.isoformat(timespec="minutes") in said
    # The page offers no button, but says until when they are away.
    offer = _offer(ctx, other)
    assert offer is not None and offer.away(now.at) and not offer.allowed(now.at)
    assert offer.away_until == back and offer.at == back
    # Back from the pause: the nudge goes.
    now.advance(days=3, seconds=1)
    offer = _offer(ctx, other)
    assert offer is not None and not offer.away(now.at) and offer.allowed(now.at)
    games.nudge(ctx, other)
    assert len(nudge_rows(ctx)) == 1


def test_an_away_mover_who_cannot_be_mailed_is_refused_as_cannot_nudge(ctx: Any) -> None:
    """Away passes with time; no mail never does: the page offers nothing at all."""
    ctx.config["VACATION_DAYS"] = 7
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other, _ = waiting(ctx, toks)
    games.pause_clock(ctx, mover, 2)
    games.set_mail(ctx, mover, MailChoice.NONE)
    now.advance(days=1)
    with pytest.raises(errors.Conflict) as refused:
        games.nudge(ctx, other)
    assert refused.value.code == "cannot-nudge" and _offer(ctx, other) is None


def test_the_mail_is_dropped_if_the_mover_moved_meanwhile(ctx: Any) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other, view = waiting(ctx, toks)
    now.advance(hours=25)
    games.nudge(ctx, other)
    (row,) = nudge_rows(ctx)
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    with session_scope(ctx.engine) as session:
        row = session.get(Outbox, row.id)
        game = session.exec(select(Game).where(Game.id == row.game_id)).one()
        seat = session.get(Seat, row.seat_id)
        record = kinds.record_of(row.kind)
        assert isinstance(record, kinds.NudgeMail)
        assert not record.still_wanted(ctx, row, game, seat)
        sent = games.nudge_of(session, row.event)
        assert sent is not None and sent.ply == view["ply"]
        assert session.exec(select(Nudge)).one().mover_id == seat.id


@pytest.mark.parametrize("value", ["soon", "0", "0.5", "721", "nan", "inf"])
def test_start_up_refuses_a_malformed_nudge_wait(value: str) -> None:
    with pytest.raises((UnsafeConfig, ValueError), match="PBEM_NUDGE_AFTER_HOURS"):
        check_safe(load_config({"DEMO": True}, environ={"PBEM_NUDGE_AFTER_HOURS": value}))


def test_the_wait_is_a_setting(ctx: Any) -> None:
    now = frozen_clock(ctx)
    ctx.config["NUDGE_AFTER_HOURS"] = 2.0
    try:
        _, toks = new_game(ctx)
        _, other, _ = waiting(ctx, toks)
        now.advance(hours=2)
        games.nudge(ctx, other)
        assert len(nudge_rows(ctx)) == 1
    finally:
        ctx.config["NUDGE_AFTER_HOURS"] = 24.0
