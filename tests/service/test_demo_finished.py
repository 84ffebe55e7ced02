"""The demo's finished game: played to its natural end by the seeding, so that
``make demo`` offers a replay (its record replays to where it ended), and nobody
was mailed a turn of it."""

from __future__ import annotations

from sqlmodel import col, select

from pbem.table import replays
from pbem.core.db import session_scope
from pbem.demo import DEMO_PLAYERS, seed_finished
from pbem.core.models import Outbox
from pbem.rules.record import play_record
from pbem.rules.views import public_view
from tests.support.games import db_id
from pbem import games


def test_the_demo_seeds_a_finished_game_to_replay(ctx):
    game_id = seed_finished(ctx)
    view = games.public_game(ctx, game_id)
    assert view["status"] == "finished"
    assert {p["name"] for p in view["players"]} == {p["name"] for p in DEMO_PLAYERS}
    record = games.export_game(ctx, game_id)
    end = replays.replay(ctx, game_id, len(record["moves"]))
    assert end.position == public_view(play_record(record))
    assert end.position["huts"] == view["huts"]
    with session_scope(ctx.engine) as session:
        kinds = set(session.exec(select(Outbox.kind).where(col(Outbox.game_id) == db_id(session, game_id))).all())
    assert "turn" not in kinds and "reminder" not in kinds
