"""The lobby through the service: open seats, the listing, joining (its holds and
refusals), requirements and reliability."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import col, select

from pbem import games
from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.lobby_tables import LobbySeat
from pbem.core.models import Outbox, Seat
from pbem.core.outbox import OutboxKind
from pbem.games.lobby import Joiner, LobbyFilter
from pbem.people.reliability import reliability_of
from tests.support.clock import frozen_clock
from tests.support.games import db_id, play_to_end, seat_tokens


def open_table(ctx: Any, players: int = 3, confirm: bool = True, **body: Any) -> str:
    """A table by Ann with ``players - 1`` open seats, confirmed unless told not to."""
    entries = [{"name": "Ann", "email": "ann@example.org", "language": "hu"}] + [{"open": True}] * (players - 1)
    game_id = games.start_game(ctx, games.parse_players(entries), body.get("turn_hours"),
                               requirements=games.parse_requirements(body.get("requirements")))
    if confirm:
        games.accept(ctx, seat_tokens(ctx, game_id)[0])
    return game_id


def token_of(ctx: Any, game_id: str, email: str) -> str:
    seats = seat_tokens(ctx, game_id)
    with session_scope(ctx.engine) as session:
        emails = [s.email for s in session.exec(select(Seat).where(Seat.game_id == db_id(session, game_id))
                                                 .order_by(col(Seat.position)))]
    return seats[emails.index(email)]


def snapshot(ctx: Any) -> tuple[list[Any], list[Any], int]:
    with session_scope(ctx.engine) as session:
        seats = [(s.name, s.email, s.token_hash, s.accepted_at) for s in session.exec(select(Seat).order_by(col(Seat.id)))]
        held = [(h.mailbox, h.held_until) for h in session.exec(select(LobbySeat).order_by(col(LobbySeat.id)))]
        mail = len(session.exec(select(Outbox.id)).all())
    return seats, held, mail


def test_an_open_seat_is_listed_once_confirmed(ctx: Any) -> None:
    unconfirmed = open_table(ctx, confirm=False)
    assert games.lobby.tables(ctx)[0] == []
    games.accept(ctx, seat_tokens(ctx, unconfirmed)[0])
    found, more = games.lobby.tables(ctx)
    assert not more and [t["id"] for t in found] == [unconfirmed]
    table = found[0]
    assert table["seats"] == 3 and table["open_seats"] == 2 and table["language"] == "hu"
    assert [p["name"] for p in table["players"]] == ["Ann"]
    assert table["players"][0]["reliability"] == {"games": 0, "in_time": None, "median_hours": None, "left": 0}
    assert "@" not in repr(found)


def test_the_listing_filters(ctx: Any) -> None:
    fast = open_table(ctx, players=2, turn_hours=12)
    slow = open_table(ctx, players=3, turn_hours=96)
    assert [t["id"] for t in games.lobby.tables(ctx, LobbyFilter(players=2))[0]] == [fast]
    assert [t["id"] for t in games.lobby.tables(ctx, LobbyFilter(max_turn_hours=24))[0]] == [fast]
    assert [t["id"] for t in games.lobby.tables(ctx, LobbyFilter(language="hu"))[0]] == [slow, fast]
    assert games.lobby.tables(ctx, LobbyFilter(language="cs"))[0] == []
    assert [t["id"] for t in games.lobby.tables(ctx, per_page=1)[0]] == [slow]
    assert [t["id"] for t in games.lobby.tables(ctx, page=2, per_page=1)[0]] == [fast]
    with pytest.raises(errors.BadRequest):
        games.lobby.parse_filter("9", None, None, None)


def test_two_strangers_join_accept_and_the_game_starts(ctx: Any) -> None:
    game_id = open_table(ctx)
    games.lobby.join(ctx, game_id, Joiner("Bea", "bea@example.org", "cs"))
    games.lobby.join(ctx, game_id, Joiner("Cy", "cy@example.org"))
    with pytest.raises(errors.Conflict) as full:
        games.lobby.join(ctx, game_id, Joiner("Dot", "dot@example.org"))
    assert full.value.code == "seat-taken"
    assert games.lobby.tables(ctx)[0] == []  # held seats are not open
    games.accept(ctx, token_of(ctx, game_id, "bea@example.org"))
    view = games.accept(ctx, token_of(ctx, game_id, "cy@example.org"))
    assert view["status"] in ("active", "waiting")
    assert games.public_game(ctx, game_id)["status"] == "active"
    with pytest.raises(errors.Conflict) as started:
        games.lobby.join(ctx, game_id, Joiner("Dot", "dot@example.org"))
    assert started.value.code == "full"
    with session_scope(ctx.engine) as session:
        kinds = [r.kind for r in session.exec(select(Outbox).where(Outbox.recipient == "bea@example.org"))]
    assert OutboxKind.TABLE_INVITE in kinds


def test_a_lapsed_hold_goes_to_the_next_joiner(ctx: Any) -> None:
    clock = frozen_clock(ctx)
    game_id = open_table(ctx, players=2)
    games.lobby.join(ctx, game_id, Joiner("Bea", "bea@example.org"))
    first = token_of(ctx, game_id, "bea@example.org")
    clock.advance(hours=ctx.config["LOBBY_HOLD_HOURS"] + 1)
    assert [t["open_seats"] for t in games.lobby.tables(ctx)[0]] == [1]
    games.lobby.join(ctx, game_id, Joiner("Cy", "cy@example.org"))
    with pytest.raises(errors.Unauthorized):
        games.accept(ctx, first)  # the seat is Cy's now
    games.accept(ctx, token_of(ctx, game_id, "cy@example.org"))
    assert games.public_game(ctx, game_id)["status"] == "active"


@pytest.mark.parametrize("joiner, code", [
    (Joiner("Ann", "ann+2@example.org"), "already-seated"),
    (Joiner("ann", "zed@example.org"), "invalid-name"),
])
def test_refused_joins_change_nothing(ctx: Any, joiner: Joiner, code: str) -> None:
    game_id = open_table(ctx)
    before = snapshot(ctx)
    with pytest.raises(errors.ServiceError) as refused:
        games.lobby.join(ctx, game_id, joiner)
    assert refused.value.code == code
    assert snapshot(ctx) == before


def test_an_unknown_or_unconfirmed_table_is_not_found(ctx: Any) -> None:
    hidden = open_table(ctx, confirm=False)
    for table in (hidden, "nosuchtable", games.start_game(ctx, games.parse_players(
            [{"name": "Ann", "email": "ann@example.org"}, {"bot": "easy"}]))):
        with pytest.raises(errors.NotFound):
            games.lobby.join(ctx, table, Joiner("Bea", "bea@example.org"))


def test_one_mailbox_holds_three_unaccepted_joins(ctx: Any) -> None:
    tables = [open_table(ctx, players=2) for _ in range(4)]
    for table in tables[:3]:
        games.lobby.join(ctx, table, Joiner("Bea", "bea+x@example.org"))
    before = snapshot(ctx)
    with pytest.raises(errors.Conflict) as refused:
        games.lobby.join(ctx, tables[3], Joiner("Bea", "Bea@example.org"))
    assert refused.value.code == "too-many-joins" and snapshot(ctx) == before
    games.accept(ctx, token_of(ctx, tables[0], "bea+x@example.org"))
    games.lobby.join(ctx, tables[3], Joiner("Bea", "bea@example.org"))  # one accepted: room for another


def test_requirements_refuse_who_does_not_meet_them(ctx: Any) -> None:
    strict = open_table(ctx, players=2, requirements={"min_in_time": 0.5})
    ranged = open_table(ctx, players=2, requirements={"min_rating": 5, "max_rating": 40})
    before = snapshot(ctx)
    # Bea has no finished game: no record meets a minimum share.
    with pytest.raises(errors.Conflict) as no_record:
        games.lobby.join(ctx, strict, Joiner("Bea", "bea@example.org"))
    assert no_record.value.code == "in-time-required"
    # A newcomer's rating is 0: outside 5-40.
    with pytest.raises(errors.Conflict) as rating:
        games.lobby.join(ctx, ranged, Joiner("Bea", "bea@example.org"))
    assert rating.value.code == "rating-out-of-range" and snapshot(ctx) == before
    assert games.lobby.tables(ctx)[0][0]["requirements"] == {"min_in_time": None, "min_rating": 5.0,
                                                             "max_rating": 40.0}
    with pytest.raises(errors.Invalid):
        games.parse_requirements({"min_in_time": 2})
    with pytest.raises(errors.Invalid):
        games.parse_players([{"name": "Ann", "email": "ann@example.org"}, {"open": True, "name": "Bob"}])


def test_reliability_counts_finished_games(ctx: Any) -> None:
    game_id = open_table(ctx, players=2)
    games.lobby.join(ctx, game_id, Joiner("Bea", "bea@example.org"))
    games.accept(ctx, token_of(ctx, game_id, "bea@example.org"))
    play_to_end(ctx, seat_tokens(ctx, game_id))
    with session_scope(ctx.engine) as session:
        found = reliability_of(session, ["Bea@example.org", "ann@example.org", "nobody@example.org"])
    assert found["bea@example.org"].games == 1 and found["bea@example.org"].in_time_share == 1.0
    assert found["bea@example.org"].median_hours is not None and found["bea@example.org"].left_to_computer == 0
    assert found["nobody@example.org"].games == 0
    strict = open_table(ctx, players=2, requirements={"min_in_time": 0.9})
    games.lobby.join(ctx, strict, Joiner("Bea", "bea@example.org"))  # now she has a record


def test_blocked_people_are_never_seated_together(ctx: Any) -> None:
    """Either way round: the joiner blocked someone seated, or was blocked by them;
    the refusal names nobody, and nothing changes."""
    from pbem.people import blocks

    for blocker, blocked in (("bea@example.org", "ann@example.org"), ("ann@example.org", "bea@example.org")):
        game_id = open_table(ctx)
        with session_scope(ctx.engine) as session:
            blocks.block(session, blocker, blocked, "someone", ctx.now())
        before = snapshot(ctx)
        with pytest.raises(errors.Conflict) as refused:
            games.lobby.join(ctx, game_id, Joiner("Bea", "Bea@Example.org"))
        assert refused.value.code == "blocked" and "Ann" not in refused.value.message
        assert snapshot(ctx) == before
        with session_scope(ctx.engine) as session:
            blocks.unblock(session, blocker, blocked)
        games.lobby.join(ctx, game_id, Joiner("Bea", "bea@example.org"))  # unblocked: she may


def test_a_hidden_profile_joins_only_tables_without_requirements(ctx: Any) -> None:
    from pbem.people import profiles

    profiles.set_profile(ctx, "bea@example.org", hidden=True, show_rating=False)
    strict = open_table(ctx, requirements={"min_rating": -50})
    before = snapshot(ctx)
    with pytest.raises(errors.Conflict) as refused:
        games.lobby.join(ctx, strict, Joiner("Bea", "bea@example.org"))
    assert refused.value.code == "profile-hidden" and snapshot(ctx) == before
    games.lobby.join(ctx, open_table(ctx), Joiner("Bea", "bea@example.org"))
    profiles.set_profile(ctx, "bea@example.org", hidden=False, show_rating=False)
    games.lobby.join(ctx, strict, Joiner("Bea", "bea@example.org"))
