"""A game's stored position is written with ``json.dumps``'s bytes, however it is
written (pbem/games/snapshots.py), and reads back as the same position."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pbem.games import snapshots
from pbem.rules.deal import deal_game

# People's words where the fast writer must not touch them: the separators it
# puts spaces after, a quote, a backslash, letters past ASCII.
NAMES = ["Ann, the: first", 'Bo "B" \\ Ö', "Čeněk: ő", "d,:,:"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_position_of_played_games_is_written_as_json_dumps_writes_it(players: int) -> None:
    rng = random.Random(players)
    positions = 0
    for _ in range(12):
        game = deal_game(tuple(NAMES[:players]), rng).game()
        while True:
            text = snapshots.write(game)
            assert text == json.dumps(game.to_json()), f"ply {game.ply}"
            assert snapshots.read(text).to_json() == game.to_json()
            positions += 1
            moves = list(game.legal_moves())
            if not moves:
                break
            game.push(rng.choice(moves))
        assert game.is_over() and game.villages and game.end in ("twelfth-village", "no-legal-move")
    assert positions > 12 * 30


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_position_written_on_its_earlier_snapshot_is_json_dumps_of_it(players: int) -> None:
    # A move's writes hand over the snapshot the position was read from
    # (pbem.games.moves): its head and history are kept, and the text must be
    # the one a whole write makes, however many moves were played since.
    rng = random.Random(10 + players)
    reused = 0
    for _ in range(6):
        game = deal_game(tuple(NAMES[:players]), rng).game()
        earlier = [snapshots.write(game)]
        while True:
            expected = json.dumps(game.to_json())
            for gap in (1, 2, 3, 7):
                if gap <= len(earlier):
                    previous = earlier[-gap]
                    assert snapshots.write(game, previous) == expected, f"ply {game.ply}, {gap} back"
                    reused += snapshots._write_on(game, previous) is not None
            earlier.append(expected)
            moves = list(game.legal_moves())
            if not moves:
                break
            game.push(rng.choice(moves))
    assert reused > 6 * 30 * 3  # the kept parts were used, not the whole write every time


def test_a_text_of_a_point_the_position_has_not_passed_is_not_built_on() -> None:
    rng = random.Random(7)
    game = deal_game(("ann", "bob", "cy"), rng).game()
    for _ in range(6):
        game.push(rng.choice(list(game.legal_moves())))
    expected = json.dumps(game.to_json())
    ahead = game.copy()
    ahead.push(rng.choice(list(ahead.legal_moves())))
    # Another line of play from the same deal: as many moves, the last one different.
    other = game.copy()
    other.history[-1] = other.history[-1]._replace(move=next(m for m in other.legal_moves()
                                                              if m != game.history[-1].move))
    texts = {"a later point": snapshots.write(ahead), "another last move": json.dumps(other.to_json()),
             "not a snapshot": "{}", "nothing": "", "no head": json.dumps({"history": [], "end": None}),
             "another format": expected.replace('"clans-state/1"', '"clans-state/0"', 1)}
    for what, previous in texts.items():
        assert snapshots._write_on(game, previous) is None, what
        assert snapshots.write(game, previous) == expected, what


class _Written:
    """A snapshot the rules would never make: a word JSON escapes where only
    the rules' words are expected."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def to_json(self) -> dict[str, Any]:
        return self.data


@pytest.mark.parametrize("clan", ["grün", "a\\b", 'q"', "tab\t", "a, b", "a:b", "a,:b", ":", 10**20])
def test_a_part_with_words_json_escapes_or_separators_is_still_json_dumps(clan: Any) -> None:
    data = {"format": "clans-state/1", "board": "classic", "players": ["x, y: z"], "clans": [clan, None],
            "history": [{"seat": 0, "move": "1-2", "order": [clan], "villages": [], "explicit": False}]}
    assert snapshots.write(_Written(data)) == json.dumps(data)  # type: ignore[arg-type]


def test_a_snapshot_orjson_refuses_is_read_by_json() -> None:
    game = deal_game(("ann", "bob"), random.Random(1)).game()
    data = game.to_json()
    # A lone surrogate's escape: valid JSON that orjson refuses, in a player's name.
    text = json.dumps(data).replace('"ann"', '"\\ud800ann"')
    assert snapshots.read(text).players == ("\ud800ann", "bob")


def test_postgresql_compresses_a_stored_position_with_lz4(postgresql_url: str) -> None:
    # Migration 0023: the cheaper compression for the value every move writes
    # (this machine's PostgreSQL is 15, built with lz4, as production's).
    from sqlalchemy import text

    from pbem.core.db import make_engine

    engine = make_engine(postgresql_url)
    with engine.connect() as conn:
        method = conn.execute(text("SELECT attcompression FROM pg_attribute "
                                   "WHERE attrelid = 'game'::regclass AND attname = 'state'")).scalar_one()
    engine.dispose()
    assert method == "l"
