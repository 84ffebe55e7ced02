"""A finished game's replay: every position is the rules' replay of the game's
record up to that move, drawn as the board is everywhere; each village's scoring
is explained; a game that is not over has no replay; bad positions are refused."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pbem.table import replays
from pbem.drawing.svg import board_svg
from pbem.rules import classic_board
from pbem.rules.record import play_record
from pbem.rules.tables import EPOCHS
from pbem.rules.views import public_view
from tests.support.games import new_game, play, play_to_end
from tests.support.web import clan_marks, snapshot
from pbem import games

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance_data"


@pytest.fixture
def finished(ctx: Any) -> tuple[str, list[str], dict[str, Any]]:
    """A game of three played to its natural end, and its record."""
    game_id, toks = new_game(ctx, 3)
    play_to_end(ctx, toks)
    return game_id, toks, games.export_game(ctx, game_id)


def _prefix(record: dict[str, Any], ply: int) -> Any:
    """The rules' replay of the record's first ``ply`` moves."""
    return play_record({**record, "moves": record["moves"][:ply]})


def _step(client: Any, game_id: str, ply: int) -> str:
    answer = client.get(f"/games/{game_id}/replay?ply={ply}&part=step")
    assert answer.status_code == 200, (ply, answer.status_code)
    return answer.get_data(as_text=True)


def test_every_position_is_the_rules_replay_of_the_record(client, ctx, finished):
    game_id, _, record = finished
    moves = len(record["moves"])
    assert moves > 12
    board = classic_board()
    for ply in range(moves + 1):
        step = replays.replay(ctx, game_id, ply)
        expected = _prefix(record, ply)
        assert step.ply == ply and step.moves == moves
        assert step.position == public_view(expected)
        # The page draws exactly that position.
        svg = board_svg(board, public_view(expected),
                        title=f"The board after move {ply}" if ply else "The board at the set-up")
        assert svg in _step(client, game_id, ply)
    # The last position is where the game ended.
    assert replays.replay(ctx, game_id, moves).position["huts"] == games.public_game(ctx, game_id)["huts"]


def test_the_page_names_each_move_and_marks_the_controls(client, ctx, finished):
    game_id, _, record = finished
    moves = len(record["moves"])
    first = client.get(f"/games/{game_id}/replay").get_data(as_text=True)
    assert 'id="replay-first" data-step="first" disabled' in first
    assert re.search(r'<input type="range" id="replay-ply" name="ply" min="0" max="%d" step="1" value="0"' % moves,
                     first)
    assert "The set-up, before the first move" in first
    assert '/static/replay.js' in first
    middle = client.get(f"/games/{game_id}/replay?ply=5").get_data(as_text=True)
    assert f"Move 5 of {moves}" in middle
    assert re.search(r'name="ply" value="4" id="replay-back"', middle)
    assert re.search(r'name="ply" value="6" id="replay-forward"', middle)
    assert re.search(r'<li data-ply="5"[^>]*><a href="[^"]*\?ply=5" aria-current="step">', middle)
    mover = games.public_game(ctx, game_id)["history"][4]
    sentence = re.search(r'<p class="step-sentence" id="step-sentence">(.*?)</p>', middle, re.S).group(1)
    assert html.unescape(sentence).startswith(f"{mover['player']} moved {mover['move'].replace('-', ' → ')}")
    last = client.get(f"/games/{game_id}/replay?ply={moves}").get_data(as_text=True)
    assert 'id="replay-last" data-step="last" disabled' in last
    # The clans are revealed: the game is over.
    clans = record["clans"]
    assert sorted(clan_marks(last)["players"]) == sorted(list(clans.values()) * 2)


def test_each_village_is_explained(client, ctx, finished):
    game_id, _, record = finished
    final = games.public_game(ctx, game_id)
    owners = {p["clan"]: p["name"] for p in final["players"]}
    explained = 0
    for entry in final["history"]:
        if not entry["villages"]:
            continue
        page = html.unescape(_step(client, game_id, entry["ply"]))
        for number in entry["villages"]:
            v = final["villages"][number - 1]
            section = re.search(rf'<section class="card village-scoring"[^>]*data-village="{number}" '
                                rf'data-points="(\d+)">(.*?)</section>', page, re.S)
            assert section, (entry["ply"], number)
            assert int(section.group(1)) == v["points"]
            text = section.group(2)
            assert f"Village {number} of 12, on {v['territory']}" in text
            assert f"{v['founder']} founded it and takes a village chip (1 point)." in text
            epoch = EPOCHS[v["epoch"] - 1]
            rule = ("hostile" if v["terrain"] in epoch.hostile else
                    "favourable" if v["terrain"] in epoch.favourable else "plain")
            assert f'data-rule="{rule}"' in text
            assert ('data-rule="strife"' in text) == bool(v["removed"])
            for clan in v["clans"]:
                assert (f"{clan} ({owners[clan]})" if clan in owners else f"{clan} (nobody’s clan)") in text
            explained += 1
    assert explained == len(final["villages"]) > 0


@pytest.mark.parametrize("name, rule, strife", [("rulebook-strife", "plain", ("blue", "green", "yellow")),
                                                  ("hostile-terrain", "hostile", ()),
                                                  ("rulebook-scoring", "favourable", ())])
def test_the_rulebook_examples_are_explained_as_the_rules_say(name, rule, strife):
    case = json.loads((CONFORMANCE / f"{name}.json").read_text("utf-8"))
    record = case["record"]
    game = play_record(record)
    village = game.villages[0]
    owners = {c: p for p, c in record["clans"].items()}
    why = replays.explain(village, game.players[village.founder], owners)
    assert why.terrain_rule == rule
    assert why.strife == strife
    assert why.counted == why.total - len(strife)
    assert why.points == village.points
    epoch = EPOCHS[why.epoch - 1]
    value = 0 if rule == "hostile" else why.counted + (epoch.bonus if rule == "favourable" else 0)
    assert why.points == value
    assert [s.clan for s in why.scored] == list(village.clans)
    assert all(s.player == owners.get(s.clan) for s in why.scored)


def test_a_running_game_has_no_replay(client, ctx):
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 4)
    for url in (f"/games/{game_id}/replay", f"/games/{game_id}/replay?ply=2", f"/games/{game_id}/replay?part=step"):
        answer = client.get(url)
        assert answer.status_code == 404
        page = answer.get_data(as_text=True)
        assert "opens when the game is over" in page
        assert clan_marks(page) == {"yours": [], "players": []}
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "/replay" not in page


def test_bad_positions_are_refused_and_nothing_changes(client, ctx, finished):
    game_id, _, record = finished
    before = snapshot(ctx)
    for ply in ("-1", "x", str(len(record["moves"]) + 1), "99999999999999"):
        answer = client.get(f"/games/{game_id}/replay?ply={ply}")
        assert answer.status_code == 404, ply
        assert "has no position" in answer.get_data(as_text=True)
    assert client.get("/games/nosuchgame1234/replay").status_code == 404
    assert client.head(f"/games/{game_id}/replay?ply=3").status_code == 200
    assert snapshot(ctx) == before


def test_the_record_stays_the_source(ctx, finished):
    """The replay's last position is the end the service stored and shows
    (its huts, villages, scores and winners), reached from the exported record."""
    game_id, _, record = finished
    last = replays.replay(ctx, game_id, len(record["moves"])).position
    shown = games.public_game(ctx, game_id)
    for key in ("huts", "villages", "clan_scores", "final_scores", "winners", "end", "ply", "history"):
        assert last[key] == shown[key], key
