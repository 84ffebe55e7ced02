"""`pbem replay` and `replay_text` answer any input at all with a result or a refusal
of record.md's list, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.rules.record import replay, replay_text
from pbem.rules.tables import CLANS, TERRAINS

from tests.support.rules import CODES, RESULT_KEYS, board_data, path_adjacency, run_cli, strict_json

BOARD = board_data(path_adjacency(3))
VALID: dict[str, Any] = {
    "format": "clans-record/1",
    "board": BOARD,
    "players": ["ann", "bob"],
    "clans": {"ann": "red", "bob": "blue"},
    "setup": {"1": "red", "2": "blue", "3": "green"},
    "moves": [],
}


def rec(**changes: Any) -> str:
    data = dict(VALID)
    for key, value in changes.items():
        if value is _DROP:
            data.pop(key)
        else:
            data[key] = value
    return json.dumps(data)


_DROP = object()


def nested(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def with_raw(key: str, raw: str) -> str:
    """The valid record with one field's JSON text replaced by ``raw``."""
    marker = "__RAW__"
    return rec(**{key: marker}).replace(json.dumps(marker), raw)


def check_refusal(out: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert status == 2
    assert isinstance(out, dict) and set(out) == {"error"}, out
    error: dict[str, Any] = out["error"]
    assert set(error) >= {"code", "move_index", "move", "message"}
    assert error["code"] in CODES
    if code is not None:
        assert error["code"] == code, error
    assert error["move_index"] is None or (isinstance(error["move_index"], int) and error["move_index"] >= 0)
    if error["move_index"] is None:
        assert error["move"] is None
    assert isinstance(error["message"], str) and error["message"]
    json.dumps(out)  # printable
    return error


HOSTILE: dict[str, tuple[str | bytes, str]] = {
    # not JSON, or not an object
    "empty-bytes": (b"", "invalid-record"),
    "empty": ("", "invalid-record"),
    "blank": ("  \n ", "invalid-record"),
    "text": ("not json", "invalid-record"),
    "truncated": ('{"format": "clans-record/1", "players": [', "invalid-record"),
    "trailing": (rec() + " x", "invalid-record"),
    "null": ("null", "invalid-record"),
    "true": ("true", "invalid-record"),
    "number": ("12", "invalid-record"),
    "string": ('"clans-record/1"', "invalid-record"),
    "list": ("[]", "invalid-record"),
    "list-of-record": ("[" + rec() + "]", "invalid-record"),
    "empty-object": ("{}", "invalid-record"),
    "non-utf8": (b"\xff\xfe\xfd\x80", "invalid-record"),
    "non-utf8-in-string": (rec().encode().replace(b'"ann"', b'"\xe9ann"'), "invalid-record"),
    "nul-bytes": (b"\x00" * 16, "invalid-record"),
    "lone-surrogate-format": ('{"format": "\\ud800"}', "invalid-record"),
    "huge-int-literal": ('{"format": ' + "1" * 5000 + "}", "invalid-record"),
    # format
    "format-missing": (rec(format=_DROP), "invalid-record"),
    "format-2": (rec(format="clans-record/2"), "invalid-record"),
    "format-number": (rec(format=1), "invalid-record"),
    "format-list": (rec(format=["clans-record/1"]), "invalid-record"),
    # missing keys
    **{f"missing-{k}": (rec(**{k: _DROP}), "invalid-record") for k in ("board", "players", "clans", "setup", "moves")},
    # board
    "board-null": (rec(board=None), "invalid-record"),
    "board-number": (rec(board=5), "invalid-record"),
    "board-name": (rec(board="Classic"), "invalid-record"),
    "board-list": (rec(board=[1, 2]), "invalid-record"),
    "board-territories-string": (rec(board={"territories": "x"}), "invalid-record"),
    "board-territories-numbers": (rec(board={"territories": [1, 2]}), "invalid-record"),
    "board-huge-id": (rec(board={"territories": [{"id": 10**30, "terrain": "forest", "neighbours": []}]}),
                      "invalid-record"),
    "board-huge-neighbour": (rec(board={"territories": [{"id": 1, "terrain": "forest", "neighbours": [10**30]}]}),
                             "invalid-record"),
    "board-terrain-object": (rec(board={"territories": [{"id": 1, "terrain": {}, "neighbours": []}]}),
                             "invalid-record"),
    "board-neighbours-nested": (rec(board={"territories": [{"id": 1, "terrain": "forest", "neighbours": [[1]]}]}),
                                "invalid-record"),
    # players
    "players-dict": (rec(players={"ann": 0, "bob": 1}), "invalid-record"),
    "players-string": (rec(players="ann,bob"), "invalid-record"),
    "players-empty": (rec(players=[]), "invalid-record"),
    "players-one": (rec(players=["ann"], clans={"ann": "red"}), "invalid-record"),
    "players-five": (rec(players=list("abcde"), clans=dict(zip("abcde", CLANS))), "invalid-record"),
    "players-duplicate": (rec(players=["ann", "ann"], clans={"ann": "red"}), "invalid-record"),
    "players-blank": (rec(players=["ann", ""], clans={"ann": "red", "": "blue"}), "invalid-record"),
    "players-numbers": (rec(players=[1, 2]), "invalid-record"),
    "players-null": (rec(players=[None, "bob"]), "invalid-record"),
    "players-bools": (rec(players=[True, False]), "invalid-record"),
    "players-nested": (rec(players=[["ann"], "bob"]), "invalid-record"),
    # clans
    "clans-list": (rec(clans=["red", "blue"]), "invalid-record"),
    "clans-string": (rec(clans="red"), "invalid-record"),
    "clans-null": (rec(clans=None), "invalid-record"),
    "clans-missing-player": (rec(clans={"ann": "red"}), "invalid-record"),
    "clans-extra-player": (rec(clans={"ann": "red", "bob": "blue", "cid": "green"}), "invalid-record"),
    "clans-shared": (rec(clans={"ann": "red", "bob": "red"}), "invalid-record"),
    "clans-unknown": (rec(clans={"ann": "white", "bob": "blue"}), "invalid-record"),
    "clans-number": (rec(clans={"ann": 1, "bob": "blue"}), "invalid-record"),
    "clans-list-value": (rec(clans={"ann": ["red"], "bob": "blue"}), "invalid-record"),
    "clans-object-value": (rec(clans={"ann": {"red": 1}, "bob": "blue"}), "invalid-record"),
    # setup
    "setup-list": (rec(setup=["red", "blue"]), "invalid-record"),
    "setup-number": (rec(setup=5), "invalid-record"),
    "setup-string": (rec(setup="1:red"), "invalid-record"),
    "setup-value-number": (rec(setup={"1": 5, "2": "blue"}), "invalid-record"),
    "setup-value-numbers": (rec(setup={"1": [1, 2], "2": "blue"}), "invalid-record"),
    "setup-value-empty": (rec(setup={"1": [], "2": "blue"}), "invalid-record"),
    "setup-value-null": (rec(setup={"1": None, "2": "blue"}), "invalid-record"),
    "setup-value-object": (rec(setup={"1": {"red": 1}, "2": "blue"}), "invalid-record"),
    "setup-value-bool": (rec(setup={"1": True, "2": "blue"}), "invalid-record"),
    "setup-colour-unknown": (rec(setup={"1": "white", "2": "blue"}), "invalid-record"),
    "setup-key-word": (rec(setup={"one": "red", "2": "blue"}), "invalid-record"),
    "setup-key-zero": (rec(setup={"0": "red", "2": "blue"}), "invalid-record"),
    "setup-key-negative": (rec(setup={"-1": "red", "2": "blue"}), "invalid-record"),
    "setup-key-float": (rec(setup={"1.0": "red", "2": "blue"}), "invalid-record"),
    "setup-key-spaced": (rec(setup={" 1": "red", "2": "blue"}), "invalid-record"),
    "setup-key-plus": (rec(setup={"+1": "red", "2": "blue"}), "invalid-record"),
    "setup-key-arabic-digit": (rec(setup={"١": "red", "2": "blue"}), "invalid-record"),
    "setup-key-unknown": (rec(setup={"9": "red", "2": "blue"}), "invalid-record"),
    "setup-key-huge": (rec(setup={"9" * 30: "red", "2": "blue"}), "invalid-record"),
    "setup-key-twice": (rec(setup={"1": "red", "01": "red", "2": "blue"}), "invalid-record"),
    "setup-lonely": (rec(setup={"1": "red"}), "invalid-record"),
    "setup-too-many-huts": (rec(setup={"1": ["red"] * 70000, "2": "blue"}), "invalid-record"),
    # moves
    "moves-string": (rec(moves="1-2"), "invalid-record"),
    "moves-number": (rec(moves=12), "invalid-record"),
    "moves-object": (rec(moves={"0": "1-2"}), "invalid-record"),
    "moves-null": (rec(moves=None), "invalid-record"),
    "move-number": (rec(moves=[12]), "malformed-move"),
    "move-null": (rec(moves=[None]), "malformed-move"),
    "move-bool": (rec(moves=[True]), "malformed-move"),
    "move-list": (rec(moves=[["1-2"]]), "malformed-move"),
    "move-list-of-ints": (rec(moves=[[1, 2]]), "malformed-move"),
    "move-object-without-move": (rec(moves=[{"mov": "1-2"}]), "malformed-move"),
    "move-object-empty": (rec(moves=[{}]), "malformed-move"),
    "move-object-number": (rec(moves=[{"move": 12}]), "malformed-move"),
    "move-object-nested": (rec(moves=[{"move": {"move": "1-2"}}]), "malformed-move"),
    "move-spaces": (rec(moves=["1 - 2"]), "malformed-move"),
    "move-surrogate": (rec(moves=["\ud800"]), "malformed-move"),
    "move-long": (rec(moves=["1" * 10000 + "-2"]), "malformed-move"),
    "move-huge-source": (rec(moves=["99999999999999999999999-1"]), "unknown-territory"),
    "move-huge-target": (rec(moves=["1-99999999999999999999999"]), "unknown-territory"),
    "move-huge-both": (rec(moves=["9" * 150 + "-" + "9" * 45]), "unknown-territory"),
    "move-zero": (rec(moves=["0-1"]), "unknown-territory"),
    "order-string": (rec(moves=[{"move": "1-2", "order": "1"}]), "bad-order"),
    "order-object": (rec(moves=[{"move": "1-2", "order": {"1": 1}}]), "bad-order"),
    "order-nulls": (rec(moves=[{"move": "1-2", "order": [None]}]), "bad-order"),
    "order-bools": (rec(moves=[{"move": "1-2", "order": [True]}]), "bad-order"),
    "order-strings": (rec(moves=[{"move": "1-2", "order": ["1"]}]), "bad-order"),
    "order-huge": (rec(moves=[{"move": "1-2", "order": [10**30]}]), "bad-order"),
    "order-floats": (rec(moves=[{"move": "1-2", "order": [1.0]}]), "bad-order"),
    # deeply nested JSON, as a whole and inside each field
    "deep-list": (nested(100000), "invalid-record"),
    "deep-object": ('{"a":' * 100000 + "1" + "}" * 100000, "invalid-record"),
    "deep-players": (with_raw("players", nested(900)), "invalid-record"),
    "deeper-players": (with_raw("players", nested(50000)), "invalid-record"),
    "deep-clans": (with_raw("clans", '{"ann": ' + nested(900, '"red"') + ', "bob": "blue"}'), "invalid-record"),
    "deep-setup": (with_raw("setup", '{"1": ' + nested(900, '"red"') + ', "2": "blue"}'), "invalid-record"),
    "deep-board": (with_raw("board", '{"territories": ' + nested(900) + "}"), "invalid-record"),
    "deep-format": (with_raw("format", nested(900)), "invalid-record"),
    "deep-move": (with_raw("moves", "[" + nested(900) + "]"), "malformed-move"),
    "deep-move-object": (with_raw("moves", '[{"move": ' + nested(900) + "}]"), "malformed-move"),
    "deep-order": (with_raw("moves", '[{"move": "1-2", "order": ' + nested(900) + "}]"), "bad-order"),
    "deeper-move": (with_raw("moves", "[" + nested(50000) + "]"), "invalid-record"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_is_refused(name: str) -> None:
    text, code = HOSTILE[name]
    out, status = replay_text(text)
    error = check_refusal(out, status, code)
    if code != "invalid-record":
        assert error["move_index"] == 0


def test_the_valid_base_record_replays() -> None:
    out, status = replay_text(rec())
    assert status == 0 and out["format"] == "clans-result/1"
    out, status = replay_text(rec(moves=["1-2", "3-2"]))
    assert status == 0 and out["finished"] is True


CLI_CASES = ["non-utf8", "deep-list", "deeper-players", "players-dict", "move-huge-source",
             "order-bools", "empty-bytes", "moves-string"]


@pytest.mark.parametrize("name", CLI_CASES)
def test_cli_refuses_hostile_input(name: str, tmp_path: Path) -> None:
    text, code = HOSTILE[name]
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    file = tmp_path / "record.json"
    file.write_bytes(data)
    for proc in (run_cli("replay", str(file)), run_cli("replay", "-", stdin=data)):
        assert proc.returncode == 2, proc.stderr.decode(errors="replace")
        assert b"Traceback" not in proc.stderr
        assert proc.stdout.count(b"\n") == 1
        check_refusal(json.loads(proc.stdout), 2, code)


def test_cli_refuses_a_directory(tmp_path: Path) -> None:
    proc = run_cli("replay", str(tmp_path))
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    check_refusal(json.loads(proc.stdout), 2, "invalid-record")


@pytest.mark.parametrize("raw", ["[NaN]", "[Infinity]", '[{"move": "1-2", "order": [-Infinity]}]'])
def test_cli_output_is_strict_json(raw: str) -> None:
    out, status = replay_text(with_raw("moves", raw))
    check_refusal(out, status)
    strict_json(json.dumps(out))


# -- fuzzing ----------------------------------------------------------------------------------

FUZZ = settings(max_examples=150, deadline=None, database=None)

json_leaves = st.none() | st.booleans() | st.integers() | st.integers(-(10**40), 10**40) | \
    st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
json_values = st.recursive(
    json_leaves,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)
small_ids = st.integers(min_value=-1, max_value=8)
names = st.sampled_from(["ann", "bob", "cid", "dee", "", " "])
territory = st.fixed_dictionaries(
    {"id": small_ids | json_values,
     "terrain": st.sampled_from(TERRAINS) | json_values,
     "neighbours": st.lists(small_ids, max_size=4) | json_values},
)
boards = st.just("classic") | st.just(BOARD) | st.fixed_dictionaries(
    {"territories": st.lists(territory, max_size=6)}) | json_values
move_texts = st.builds(lambda a, b, sep: f"{a}{sep}{b}", st.integers(0, 62), st.integers(0, 62),
                       st.sampled_from(["-", "-", "-", "--", " ", ">"])) | st.text(max_size=8)
moves = st.lists(
    move_texts
    | st.fixed_dictionaries({"move": move_texts | json_values},
                            optional={"order": st.lists(st.integers(0, 62), max_size=3) | json_values})
    | json_values,
    max_size=8,
)
colours = st.sampled_from(CLANS + ("white",))
records = st.fixed_dictionaries(
    {},
    optional={
        "format": st.just("clans-record/1") | json_values,
        "board": boards,
        "players": st.lists(names, max_size=5) | json_values,
        "clans": st.dictionaries(names, colours | json_values, max_size=5) | json_values,
        "setup": st.dictionaries(st.integers(0, 62).map(str) | st.text(max_size=3),
                                 colours | st.lists(colours, max_size=3) | json_values,
                                 max_size=8) | json_values,
        "moves": moves | json_values,
        "extra": json_values,
    },
)


def check_any_answer(record: Any, text: str | bytes) -> None:
    out, status = replay_text(text)
    assert isinstance(out, dict)
    json.dumps(out)
    if "error" in out:
        error = check_refusal(out, status)
        if error["move_index"] is not None:
            assert isinstance(record, dict) and error["move_index"] < len(record["moves"])
    else:
        assert status == 0
        assert out["format"] == "clans-result/1"
        assert set(out) >= RESULT_KEYS
        assert sum(out["chips"].values()) == len(out["villages"]) <= 12
    assert replay(json.loads(text)) == out


@FUZZ
@given(records)
def test_fuzzed_records(record: dict[str, Any]) -> None:
    check_any_answer(record, json.dumps(record))


GRID = board_data({r * 3 + c + 1: [r * 3 + c + 2] * (c < 2) + [r * 3 + c + 4] * (r < 2)
                   for r in range(3) for c in range(3)})
GRID_PAIRS = [f"{t['id']}-{o}" for t in GRID["territories"] for o in t["neighbours"]]
grid_move_texts = st.sampled_from(GRID_PAIRS) | st.builds(lambda a, b: f"{a}-{b}", st.integers(0, 10), st.integers(0, 10))
grid_moves = st.lists(
    grid_move_texts
    | st.fixed_dictionaries({"move": grid_move_texts},
                            optional={"order": st.lists(st.integers(1, 9), max_size=3, unique=True) | st.none()}),
    max_size=12,
)


@FUZZ
@given(
    st.fixed_dictionaries({str(t): st.sampled_from(CLANS) | st.lists(st.sampled_from(CLANS), min_size=1, max_size=4)
                           for t in range(1, 10)}),
    grid_moves,
)
def test_fuzzed_moves_on_valid_records(setup: dict[str, Any], moves: list[Any]) -> None:
    record = dict(VALID, board=GRID, setup=setup, moves=moves)
    check_any_answer(record, json.dumps(record))
    # the record is valid: any refusal names a move
    out = replay(record)
    if "error" in out:
        assert out["error"]["code"] != "invalid-record"
        assert out["error"]["move"] == moves[out["error"]["move_index"]]


@FUZZ
@given(json_values)
def test_fuzzed_json(value: Any) -> None:
    text = json.dumps(value)
    out, status = replay_text(text)
    check_refusal(out, status, "invalid-record")


@FUZZ
@given(st.binary(max_size=300) | st.text(max_size=300))
def test_fuzzed_bytes_and_text(data: bytes | str) -> None:
    out, status = replay_text(data)
    check_refusal(out, status, "invalid-record")
