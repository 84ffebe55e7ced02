"""Take it with you: a game's record and the board of any position download from
the replay page and the seat page, as attachments; the record replays with
``pbem replay``, the SVG is XML, the PNG decodes; a running game's downloads
never hold anyone's clan (a seat's own board shows only its own), positions
beyond the game are 404, and PNGs are rate-limited per client IP."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from PIL import Image

from pbem.rules.record import export_record
from tests.support.config import app_config
from tests.support.games import new_game, play, play_to_end, redeal_others
from pbem import games


def _attached(response: Any, filename: str, mimetype: str) -> bytes:
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == mimetype
    assert response.headers["Content-Disposition"] == f'attachment; filename="{filename}"'
    return bytes(response.get_data())


def test_a_finished_games_record_replays_with_pbem_replay(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    moves = play_to_end(ctx, toks)
    body = _attached(client.get(f"/games/{game_id}/record.json"), f"clans-{game_id}.json", "application/json")
    record = json.loads(body)
    assert record == games.export_game(ctx, game_id) and len(record["moves"]) == moves and "clans" in record
    done = subprocess.run([sys.executable, "-m", "pbem.cli", "replay", "-"], input=body, capture_output=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    final = games.public_game(ctx, game_id)
    assert result["finished"] and result["clan_scores"] == final["clan_scores"]


def test_a_running_games_downloads_hold_no_clan(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    play(ctx, toks, 4)
    record = json.loads(_attached(client.get(f"/games/{game_id}/record.json"), f"clans-{game_id}.json",
                                  "application/json"))
    assert "clans" not in record and record == client.get(f"/api/v1/games/{game_id}/record").get_json()
    public = {ply: client.get(f"/games/{game_id}/board/{ply}.svg").get_data() for ply in (0, 2, 4)}
    own = client.get(f"/play/{toks[0]}/board.svg").get_data()
    # Deal every other seat a clan nobody had: nothing downloaded may change (non-interference).
    redeal_others(ctx, game_id, viewer=0)
    assert own == client.get(f"/play/{toks[0]}/board.svg").get_data()
    redeal_others(ctx, game_id, viewer=1)  # and now seat 0 too
    assert public == {ply: client.get(f"/games/{game_id}/board/{ply}.svg").get_data() for ply in (0, 2, 4)}
    assert record == json.loads(client.get(f"/games/{game_id}/record.json").get_data())


def test_each_position_downloads_as_svg_and_png(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    play(ctx, toks, 3)
    for ply in (0, 1, 3):
        svg = _attached(client.get(f"/games/{game_id}/board/{ply}.svg"), f"clans-{game_id}-move-{ply}.svg",
                        "image/svg+xml")
        root = ET.fromstring(svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("width") == "1200"
        png = _attached(client.get(f"/games/{game_id}/board/{ply}.png"), f"clans-{game_id}-move-{ply}.png",
                        "image/png")
        image = Image.open(io.BytesIO(png))
        image.verify()
        assert image.format == "PNG" and image.size[0] == 1200
    # Different positions are different boards.
    assert client.get(f"/games/{game_id}/board/0.svg").get_data() != client.get(
        f"/games/{game_id}/board/3.svg").get_data()
    own = _attached(client.get(f"/play/{toks[1]}/board.svg"), f"clans-{game_id}-move-3-yours.svg", "image/svg+xml")
    ET.fromstring(own)
    Image.open(io.BytesIO(_attached(client.get(f"/play/{toks[1]}/board.png"), f"clans-{game_id}-move-3-yours.png",
                                    "image/png"))).verify()


def test_the_position_at_a_ply_is_the_replay_of_the_record_to_it(client: Any, ctx: Any) -> None:
    """A past position of a running game is rebuilt by the rules: the same board
    as the game had then (drawn from what anyone could see of it)."""
    game_id, toks = new_game(ctx)
    play(ctx, toks, 2)
    then = client.get(f"/games/{game_id}/board/2.svg").get_data()
    play(ctx, toks, 2)
    assert client.get(f"/games/{game_id}/board/2.svg").get_data() == then


@pytest.mark.parametrize("path", ["/games/{id}/board/4.svg", "/games/{id}/board/4.png", "/games/{id}/board/-1.svg",
                                  "/games/{id}/board/x.png", "/games/NOSUCHGAME0000/board/0.svg",
                                  "/games/NOSUCHGAME0000/record.json"])
def test_a_position_beyond_the_game_is_not_found(client: Any, ctx: Any, path: str) -> None:
    game_id, toks = new_game(ctx)
    play(ctx, toks, 3)
    assert client.get(path.replace("{id}", game_id)).status_code == 404


def test_a_game_not_started_has_no_board_and_no_record(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, start=False)
    assert client.get(f"/games/{game_id}/board/0.svg").status_code == 404
    assert client.get(f"/play/{toks[0]}/board.svg").status_code == 404
    assert client.get(f"/games/{game_id}/record.json").status_code == 409


def test_png_drawing_is_rate_limited_per_client(database_url: str) -> None:
    from pbem.web import create_app

    app = create_app(app_config(database_url, LIMIT_BOARD_PNG="2 per minute"))
    try:
        ctx, client = app.extensions["pbem"], app.test_client()
        game_id, toks = new_game(ctx)
        assert client.get(f"/games/{game_id}/board/0.png").status_code == 200
        assert client.get(f"/play/{toks[0]}/board.png").status_code == 200
        refused = client.get(f"/games/{game_id}/board/0.png")
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
        # SVG costs little and is not counted; another client has its own count.
        assert client.get(f"/games/{game_id}/board/0.svg").status_code == 200
        other = client.get(f"/games/{game_id}/board/0.png", environ_base={"REMOTE_ADDR": "192.0.2.7"})
        assert other.status_code == 200
    finally:
        app.extensions["pbem"].engine.dispose()


def test_the_replay_and_the_seat_page_link_their_downloads(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    play_to_end(ctx, toks)
    replay = client.get(f"/games/{game_id}/replay?ply=2").get_data(as_text=True)
    for link in (f"/games/{game_id}/record.json", f"/games/{game_id}/board/2.svg", f"/games/{game_id}/board/2.png"):
        assert f'href="{link}" download' in replay
    step = client.get(f"/games/{game_id}/replay?ply=3&part=step").get_data(as_text=True)
    assert f'href="/games/{game_id}/board/3.png" download' in step
    seat = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    for link in (f"/games/{game_id}/record.json", f"/play/{toks[0]}/board.svg", f"/play/{toks[0]}/board.png"):
        assert re.search(rf'href="{re.escape(link)}" download', seat), link


def test_a_seats_board_is_private_and_never_cached(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    response = client.get(f"/play/{toks[0]}/board.svg")
    assert response.headers["Cache-Control"] == "private, no-store"
    assert response.headers["Referrer-Policy"] == "no-referrer"


def test_the_record_download_is_the_export(ctx: Any, client: Any) -> None:
    game_id, toks = new_game(ctx)
    play(ctx, toks, 2)
    from pbem.core.db import session_scope
    with session_scope(ctx.engine) as session:
        game = games.game_by_public_id(session, game_id)
        position = games.rules_game(game)
        assert position is not None
        expected = export_record(position, reveal=False)
    assert json.loads(client.get(f"/games/{game_id}/record.json").get_data()) == expected
