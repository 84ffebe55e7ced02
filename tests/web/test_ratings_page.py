"""Rating and stats on the signed-in "My games" page: off until the player opts
in (a form POST, signed in only), provisional before ratings.SHOWN_AFTER rated
games, figures of finished games only."""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import col, select

from pbem.people import ratings
from pbem.core.db import session_scope
from pbem.core.models import Game, Seat
from tests.support.games import finish, new_game, play
from tests.support.web import csrf_from, sign_in, snapshot


def dashboard(client: Any) -> str:
    response = client.get("/games")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def stat(page: str, name: str) -> str:
    m = re.search(rf'data-stat="{name}">(.*?)</dd>', page, re.S)
    assert m, name
    return m.group(1)


def clans_of(ctx: Any, email: str, status: str) -> set[str]:
    with session_scope(ctx.engine) as session:
        return {c for c in session.exec(select(Seat.clan).join(Game, col(Game.id) == col(Seat.game_id))
                                        .where(col(Seat.email) == email, col(Game.status) == status)) if c}


def test_opting_in_shows_the_stats_and_a_provisional_rating(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    play(ctx, toks, 2)  # each has moved, on time
    finish(ctx, game_id, toks)
    new_game(ctx, 3)  # running: its clans are nobody's figures yet
    sign_in(client, ctx, "ann@example.org")
    page = dashboard(client)
    assert "Show my rating and stats" in page and "data-stat=" not in page
    before = snapshot(ctx)
    assert client.post("/games/ratings", data={"show": "1"}).status_code == 400  # no form token
    assert snapshot(ctx) == before

    response = client.post("/games/ratings", data={"csrf_token": csrf_from(page), "show": "1"})

    assert response.status_code == 303 and response.headers["Location"].endswith("/games#ratings")
    page = dashboard(client)
    assert "Saved: your rating and stats are shown here." in page
    assert "Provisional: 1 rated game so far. Your rating is shown after 5." in page
    assert stat(page, "games") == "1"
    assert stat(page, "wins") in ("0", "1")
    assert set(re.findall(r'class="stat-clan" data-clan="(\w+)"', page)) == clans_of(ctx, "ann@example.org",
                                                                                      "finished")
    assert stat(page, "reliability").startswith("100% (")

    response = client.post("/games/ratings", data={"csrf_token": csrf_from(page), "show": "0"})
    assert response.status_code == 303
    page = dashboard(client)
    assert "Show my rating and stats" in page and "data-stat=" not in page


def test_the_rating_is_shown_after_five_rated_games(client: Any, ctx: Any) -> None:
    for _ in range(ratings.SHOWN_AFTER):
        game_id, toks = new_game(ctx, 2)
        finish(ctx, game_id, toks)
    ratings.set_opt_in(ctx, "ann@example.org", True)
    sign_in(client, ctx, "ann@example.org")
    page = dashboard(client)
    shown = ratings.shown_rating(ctx, "ann@example.org")
    assert shown.rating is not None
    assert f'data-rating="{shown.rating}"' in page and "Provisional" not in page
    assert f"From {ratings.SHOWN_AFTER} rated games." in page
    # Bob has not opted in: his page shows nothing of his, though his games were rated too.
    other = client.application.test_client()
    sign_in(other, ctx, "bob@example.org")
    page = dashboard(other)
    assert "data-rating=" not in page and "Show my rating and stats" in page


def test_not_signed_in_is_refused(client: Any, ctx: Any) -> None:
    new_game(ctx, 2)
    token = csrf_from(client.get("/login").get_data(as_text=True))
    before = snapshot(ctx)
    response = client.post("/games/ratings", data={"csrf_token": token, "show": "1"})
    assert response.status_code == 401
    assert "Sign in first" in response.get_data(as_text=True)
    assert snapshot(ctx) == before
