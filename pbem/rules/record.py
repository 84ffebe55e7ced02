"""Game records (``clans-record/1``) and their replay (``clans-result/1``).

>>> record = {"format": "clans-record/1", "players": ["ann", "bob"],
...           "clans": {"ann": "red", "bob": "blue"},
...           "board": {"territories": [{"id": 1, "terrain": "mountain", "neighbours": [2]},
...                                     {"id": 2, "terrain": "forest", "neighbours": [1]}]},
...           "setup": {"1": ["red", "red"], "2": "blue"}, "moves": ["2-1"]}
>>> result = replay(record)
>>> result["villages"][0]["points"], result["end"], result["winners"]
(0, 'no-legal-move', ['ann'])
>>> replay(dict(record, moves=["1-1"]))["error"]["code"]
'not-adjacent'
"""

from __future__ import annotations

import json
from typing import Any

from . import errors
from .board import load_board
from .game import Game
from .views import village_json
from .move import Move
from .tables import CLANS, MAX_PLAYERS, MIN_PLAYERS

FORMAT = "clans-record/1"
RESULT_FORMAT = "clans-result/1"


class RecordRefused(errors.RulesError):
    """A record's move was refused: wraps the rules' error with its index."""

    def __init__(self, error: errors.RulesError, move_index: int, move: Any) -> None:
        super().__init__(f"move {move_index} ({_show(move)}): {error.message}", move=error.move)
        self.code = error.code
        self.error = error
        self.move_index = move_index
        self.raw_move = move


def load_record(record: Any) -> Game:
    """A game set up from a record, before any of its moves."""
    if not isinstance(record, dict):
        raise errors.InvalidRecord("record: expected a JSON object")
    if record.get("format") != FORMAT:
        raise errors.InvalidRecord(f"record: format must be {FORMAT!r}, not {_show(record.get('format'))}")
    for key in ("board", "players", "clans", "setup", "moves"):
        if key not in record:
            raise errors.InvalidRecord(f"record: missing {key!r}")
    board = load_board(record["board"])
    players = record["players"]
    if (
        not isinstance(players, list)
        or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS
        or not all(isinstance(p, str) and p for p in players)
    ):
        raise errors.InvalidRecord(
            f"record: players must be {MIN_PLAYERS} to {MAX_PLAYERS} non-empty names, not {_show(players)}"
        )
    if len(set(players)) != len(players):
        raise errors.InvalidRecord("record: player names must be distinct")
    clans = record["clans"]
    if not isinstance(clans, dict) or set(clans) != set(players):
        raise errors.InvalidRecord("record: clans must name a clan for every player and no one else")
    for name, clan in clans.items():
        if clan not in CLANS:
            raise errors.InvalidRecord(f"record: {_show(clan)} (for {name}) is not a clan: {', '.join(CLANS)}")
    if len(set(clans.values())) != len(players):
        raise errors.InvalidRecord("record: every player needs a clan of their own")
    setup = record["setup"]
    if not isinstance(setup, dict):
        raise errors.InvalidRecord("record: setup must be an object")
    parsed: dict[int, list[str]] = {}
    for key, huts in setup.items():
        if not (isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 12):
            raise errors.InvalidRecord(f"record: setup key {_show(key)} is not a territory id")
        tid = int(key)
        if tid not in board:
            raise errors.InvalidRecord(f"record: setup names territory {tid}, which the board lacks")
        if tid in parsed:
            raise errors.InvalidRecord(f"record: setup names territory {tid} twice")
        if isinstance(huts, str):
            huts = [huts]
        if not isinstance(huts, list) or not huts or not all(isinstance(h, str) for h in huts):
            raise errors.InvalidRecord(f"record: setup of {tid} must be a colour or a non-empty list of colours")
        parsed[tid] = huts
    if not isinstance(record["moves"], list):
        raise errors.InvalidRecord("record: moves must be a list")
    return Game(board, players, parsed, clans=[clans[p] for p in players])


def parse_record_move(raw: Any) -> tuple[Move, Any]:
    """A record's move entry: ``"FROM-TO"`` or ``{"move": "FROM-TO", "order": [ids]}``.
    The order is returned as found: the game checks it last, as ``record.md``'s
    table orders the checks."""
    if isinstance(raw, dict):
        return Move.parse(raw.get("move")), raw.get("order")
    return Move.parse(raw), None


def play_record(record: Any) -> Game:
    """Replay a whole record; raises :class:`errors.InvalidRecord` or :class:`RecordRefused`."""
    game = load_record(record)
    for n, raw in enumerate(record["moves"]):
        try:
            if game.end is not None:
                raise errors.GameOver(f"the game is already over ({game.end})", move=_show(raw))
            move, order = parse_record_move(raw)
            game.push(move, order)
        except errors.IllegalMove as e:
            raise RecordRefused(e, n, raw) from e
    return game


def result(game: Game) -> dict[str, Any]:
    """The ``clans-result/1`` of a game (clans must be known)."""
    outcome = game.outcome()
    return {
        "format": RESULT_FORMAT,
        "huts": {str(tid): h for tid, h in game.position().items()},
        "villages": [village_json(v, game.players) for v in game.villages],
        "clan_scores": game.scores(),
        "chips": dict(zip(game.players, game.chips)),
        "epoch": game.epoch,
        "next": None if game.turn is None else game.players[game.turn],
        "finished": game.end is not None,
        "end": game.end,
        "final_scores": dict(zip(game.players, outcome.final_scores)) if outcome else None,
        "winners": list(outcome.winners) if outcome else None,
    }


def refusal(error: errors.RulesError) -> dict[str, Any]:
    """The refusal JSON of ``record.md``."""
    if isinstance(error, RecordRefused):
        return {"error": {"code": error.code, "move_index": error.move_index,
                          "move": _jsonable(error.raw_move), "message": error.message}}
    return {"error": {"code": error.code, "move_index": None, "move": None, "message": error.message}}


def replay(record: Any) -> dict[str, Any]:
    """Replay a record to its result, or to its refusal."""
    try:
        return result(play_record(record))
    except errors.RulesError as e:
        return refusal(e)


def replay_text(text: str | bytes) -> tuple[dict[str, Any], int]:
    """What ``pbem replay`` prints and its exit status, for any input at all."""
    try:
        record = json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError) as e:
        return refusal(errors.InvalidRecord(f"record: not valid JSON ({e.__class__.__name__})")), 2
    try:
        out = replay(record)
    except RecursionError:  # absurdly nested input that slipped past the checks
        out = refusal(errors.InvalidRecord("record: nested too deeply"))
    return out, 2 if "error" in out else 0


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def export_record(game: Game, *, reveal: bool = True) -> dict[str, Any]:
    """The ``clans-record/1`` of a game.  Seats are rotated so that the first
    player is ``players[0]``, as the format requires.  With ``reveal=False``
    (a game still in progress) the clans are left out."""
    n = len(game.players)
    order = [(game.first + k) % n for k in range(n)]
    moves: list[Any] = []
    for p in game.history:
        if p.explicit_order or len(p.order) > 1:
            moves.append({"move": str(p.move), "order": list(p.order)})
        else:
            moves.append(str(p.move))
    out: dict[str, Any] = {
        "format": FORMAT,
        "board": game.board.to_data(),
        "players": [game.players[i] for i in order],
        "setup": {str(k): (v[0] if len(v) == 1 else list(v)) for k, v in game.setup.items()},
        "moves": moves,
    }
    if reveal and all(c is not None for c in game.clans):
        out["clans"] = {game.players[i]: game.clans[i] for i in order}
    return out


def _show(value: Any) -> str:
    text = json.dumps(value) if _is_json(value) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def _jsonable(value: Any) -> Any:
    return value if _is_json(value) and len(json.dumps(value)) <= 200 else _show(value)
