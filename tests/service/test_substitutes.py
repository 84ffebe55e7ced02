"""Substitutes through the service: an away seat of a lobby game is offered, a
volunteer's accepted invitation takes it over (the away player is told and their
link opens nothing), refusals change nothing, no address reaches anyone else."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlmodel import select

from pbem import games
from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.models import Seat
from pbem.games.lobby import Joiner
from tests.service.test_quick_match import ask
from tests.support.messages import caught, parts


def quick_game(ctx: Any) -> tuple[str, dict[str, str]]:
    """A quick-match game of Ann, Bea and Cy; their links by name."""
    links = {n: ask(ctx, n) for n in ("Ann", "Bea", "Cy")}
    for token in links.values():
        games.accept(ctx, token)
    with session_scope(ctx.engine) as session:
        return games.seat_and_game(session, links["Ann"])[1].public_id, links


def away(ctx: Any, token: str, streak: int = 3) -> None:
    """The autopilot moved for this seat ``streak`` times running (as games.autopilot counts)."""
    with session_scope(ctx.engine) as session:
        seat = games.seat_and_game(session, token)[0]
        seat.autopilot_streak = streak
        session.add(seat)


def link_of(mail: Any) -> str:
    found = re.search(r"https://clans\.example/play/(\S+)", parts(mail)["text"])
    assert found
    return found.group(1)


def test_a_volunteer_takes_over_an_away_seat(ctx: Any) -> None:
    game_id, links = quick_game(ctx)
    assert games.substitutes.substitutes(ctx) == []
    away(ctx, links["Cy"])
    (offered,) = games.substitutes.substitutes(ctx)
    assert offered["id"] == game_id and offered["name"] == "Cy" and "@" not in repr(offered)
    assert games.substitutes.volunteer(ctx, game_id, Joiner("Dan", "dan@example.org", "pt")) == game_id
    # Offered once: a second volunteer finds no seat while Dan's invitation is out.
    assert games.substitutes.substitutes(ctx) == []
    with pytest.raises(errors.Conflict) as e:
        games.substitutes.volunteer(ctx, game_id, Joiner("Eve", "eve@example.org"))
    assert e.value.code == "no-substitute-seat"
    (invitation,) = caught(ctx, "dan@example.org", kind="substitute")
    text = parts(invitation)["text"] + parts(invitation)["html"]
    assert "Cy" in text and "Ann" in text and not any(f"{n}@example.org" in text for n in ("ann", "bea", "cy"))
    dan = link_of(invitation)
    view = games.accept(ctx, dan)
    assert view["game"] == game_id and view["status"] in ("active", "waiting")
    with session_scope(ctx.engine) as session:
        seat, game, _ = games.seat_and_game(session, dan)
        assert seat.email == "dan@example.org" and seat.autopilot_streak == 0 and seat.clan is not None
        assert seat.language == "pt"
    with pytest.raises(errors.Unauthorized):
        games.seat_view(ctx, links["Cy"])
    (told,) = caught(ctx, "cy@example.org", kind="substituted")
    body = parts(told)["text"] + parts(told)["html"]
    assert "Dan" in body and "dan@example.org" not in body and dan not in body and f"/games/{game_id}" in body


def test_the_offer_lapses_when_the_player_comes_back(ctx: Any) -> None:
    game_id, links = quick_game(ctx)
    away(ctx, links["Bea"])
    games.substitutes.volunteer(ctx, game_id, Joiner("Dan", "dan@example.org"))
    dan = link_of(caught(ctx, "dan@example.org", kind="substitute")[0])
    away(ctx, links["Bea"], 0)  # Bea moved again
    with pytest.raises(errors.Conflict) as e:
        games.accept(ctx, dan)
    assert e.value.code == "substitute-not-needed"
    with session_scope(ctx.engine) as session:
        assert games.seat_and_game(session, links["Bea"])[0].name == "Bea"


def test_refusals_change_nothing(ctx: Any) -> None:
    game_id, links = quick_game(ctx)
    with session_scope(ctx.engine) as session:
        before = [(s.name, s.email, s.token_hash) for s in session.exec(select(Seat))]
    with pytest.raises(errors.Conflict) as e:
        games.substitutes.volunteer(ctx, game_id, Joiner("Dan", "dan@example.org"))
    assert e.value.code == "no-substitute-seat"
    away(ctx, links["Cy"])
    for joiner, code in ((Joiner("Ann", "other@example.org"), "invalid-name"),
                         (Joiner("Zed", "bea@example.org"), "already-seated")):
        with pytest.raises(errors.ServiceError) as e:
            games.substitutes.volunteer(ctx, game_id, joiner)
        assert e.value.code == code
    with pytest.raises(errors.NotFound):
        games.substitutes.volunteer(ctx, "nosuchgame000", Joiner("Dan", "dan@example.org"))
    with session_scope(ctx.engine) as session:
        assert [(s.name, s.email, s.token_hash) for s in session.exec(select(Seat))] == before


def test_an_unaccepted_offer_lapses_after_the_hold(ctx: Any) -> None:
    from tests.support.clock import frozen_clock

    clock = frozen_clock(ctx)
    game_id, links = quick_game(ctx)
    away(ctx, links["Cy"])
    games.substitutes.volunteer(ctx, game_id, Joiner("Dan", "dan@example.org"))
    assert games.substitutes.substitutes(ctx) == []
    clock.advance(hours=int(ctx.config["LOBBY_HOLD_HOURS"]) + 1)
    assert [s["name"] for s in games.substitutes.substitutes(ctx)] == ["Cy"]
    games.substitutes.volunteer(ctx, game_id, Joiner("Eve", "eve@example.org"))
    eve = link_of(caught(ctx, "eve@example.org", kind="substitute")[0])
    games.accept(ctx, eve)
    # Dan comes back too late: the seat is Eve's.
    dan = link_of(caught(ctx, "dan@example.org", kind="substitute")[0])
    with pytest.raises(errors.Conflict) as e:
        games.accept(ctx, dan)
    assert e.value.code == "substitute-not-needed"
    with session_scope(ctx.engine) as session:
        assert games.seat_and_game(session, eve)[0].name == "Eve"
