"""The conformance vectors (tests/conformance_data): each record must replay to its
expected result or refusal, through the library and through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbem.rules.record import RESULT_FORMAT, replay, replay_text

from tests.support.rules import CODES, RESULT_KEYS, run_cli

DATA = Path(__file__).resolve().parents[1] / "conformance_data"
VECTORS = sorted(DATA.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    assert set(data) >= {"name", "about", "record", "expect"}, path.name
    return data


def check_against(out: dict[str, Any], expect: dict[str, Any]) -> None:
    if "error" in expect:
        assert "error" in out, f"expected refusal {expect['error']}, got a result"
        assert out["error"]["code"] == expect["error"]["code"]
        assert out["error"]["move_index"] == expect["error"]["move_index"]
        assert isinstance(out["error"]["message"], str) and out["error"]["message"]
    else:
        assert "error" not in out, f"expected a result, got {out.get('error')}"
        for key, value in expect.items():
            assert key in out, key
            assert out[key] == value, f"{key}: {out[key]!r} != {value!r}"


def test_the_vectors_are_there() -> None:
    assert len(VECTORS) >= 20
    codes = set()
    for path in VECTORS:
        expect = load(path)["expect"]
        if "error" in expect:
            codes.add(expect["error"]["code"])
    # The vectors exercise every refusal code of record.md.
    assert codes == set(CODES)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector(path: Path) -> None:
    data = load(path)
    expect = data["expect"]
    out = replay(data["record"])
    check_against(out, expect)
    if "error" not in expect:
        assert out["format"] == RESULT_FORMAT
        assert set(out) >= RESULT_KEYS
    else:
        assert out["error"]["code"] in CODES


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector_through_replay_text(path: Path) -> None:
    data = load(path)
    text = json.dumps(data["record"])
    out, status = replay_text(text)
    check_against(out, data["expect"])
    assert status == (2 if "error" in data["expect"] else 0)
    # bytes in, the same answer
    assert replay_text(text.encode("utf-8")) == (out, status)


CLI_VECTORS = [
    "rulebook-scoring",
    "mid-game",
    "classic-random-1",
    "twelfth-and-thirteenth",
    "bad-order",
    "asymmetric-board",
    "move-after-end",
]


@pytest.mark.parametrize("name", CLI_VECTORS)
def test_vector_through_cli(name: str, tmp_path: Path) -> None:
    data = load(DATA / f"{name}.json")
    file = tmp_path / "record.json"
    file.write_text(json.dumps(data["record"]), "utf-8")
    proc = run_cli("replay", str(file))
    expected_status = 2 if "error" in data["expect"] else 0
    assert proc.returncode == expected_status, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    out = json.loads(proc.stdout)
    check_against(out, data["expect"])
    # the CLI prints exactly what the library gives
    assert out == json.loads(json.dumps(replay(data["record"])))


def test_cli_reads_standard_input() -> None:
    data = load(DATA / "rulebook-strife.json")
    proc = run_cli("replay", "-", stdin=json.dumps(data["record"]).encode())
    assert proc.returncode == 0, proc.stderr.decode()
    check_against(json.loads(proc.stdout), data["expect"])


def test_cli_missing_file_is_a_refusal(tmp_path: Path) -> None:
    proc = run_cli("replay", str(tmp_path / "no-such-record.json"))
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    out = json.loads(proc.stdout)
    assert out["error"]["code"] == "invalid-record"
    assert out["error"]["move_index"] is None
