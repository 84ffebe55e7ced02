"""The demo shows the high-contrast board: one of its players chose it."""

from __future__ import annotations

from typing import Any

from pbem import games
from pbem.demo import DEMO_PLAYERS, seed
from tests.support.config import app_config
from tests.support.games import seat_tokens


def test_the_demo_game_has_a_high_contrast_player(database_url: str) -> None:
    from pbem.web import create_app

    # As pbem demo runs: on this machine, its webhook catcher allowed.
    app = create_app(app_config(database_url, BASE_URL="http://localhost:8000", WEBHOOK_ALLOW="localhost"))
    ctx: Any = app.extensions["pbem"]
    try:
        game_id = seed(ctx)
        assert game_id is not None
        views = [games.seat_view(ctx, t) for t in seat_tokens(ctx, game_id)]
    finally:
        ctx.engine.dispose()
    assert {v["you"]: v["board_style"] for v in views} == {
        p["name"]: "contrast" if p["name"] == "Petr" else "standard" for p in DEMO_PLAYERS}
