"""The open-load section's players (bench/openloop.py): a game is ready only once the
turn mail of its ply has come, and an open loop's latency runs from the scheduled time,
so a slow answer is not hidden by the loop waiting for it.  No timings are judged here."""

from __future__ import annotations

import time
from typing import Any

from bench.arrivals import Arrival
from bench.openloop import Game, Table, mail_times, open_loop


def _game(game_id: int, ply: int = 4, mail_ply: int = 4) -> Game:
    return Game(game_id, ["a", "b"], {}, ply, ply % 2, mail_ply)


def _turn(game_id: int, ply: int, at: float = 100.0) -> Arrival:
    return Arrival(at, f"<{game_id}.{ply}@x>", "x@y", game_id, "turn", f"ply:{ply}")


def test_a_game_is_ready_again_when_the_next_turn_mail_has_come() -> None:
    table = Table([_game(1), _game(2, ply=4, mail_ply=3)])
    first = table.take()
    assert first is not None and first.game_id == 1 and table.take() is None  # game 2 waits for its mail
    table.moved(first, {"huts": {}, "ply": 5, "finished": False, "next_seat": 0})
    assert table.take() is None  # ply 5's mail has not come
    table.on_arrival(_turn(1, 5, at=101.0))
    table.on_arrival(_turn(2, 4, at=102.0))
    assert {table.take().game_id, table.take().game_id} == {1, 2}  # type: ignore[union-attr]
    table.on_arrival(_turn(1, 5, at=109.0))  # the same mail again: the first arrival's time counts
    assert table.arrived[(1, 5)] == 101.0
    table.on_arrival(Arrival(103.0, "<o>", "x@y", 1, "game-over", "over"))
    table.on_arrival(_turn(99, 1))  # another table's game
    assert table.take() is None


def test_a_finished_game_is_never_ready_again() -> None:
    table = Table([_game(1)])
    game = table.take()
    assert game is not None
    table.moved(game, {"huts": {}, "ply": 5, "finished": True, "next_seat": None})
    table.on_arrival(_turn(1, 5))
    assert game.finished and table.take() is None


class _SlowMover:
    """Answers every move after ``delay`` seconds, a 200 with the next ply."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def move(self, table: Table, game: Game) -> tuple[float, dict[str, Any] | None, str | None]:
        time.sleep(self.delay)
        view = {"huts": {}, "ply": game.ply + 1, "finished": False, "next_seat": 1 - game.next_seat}
        table.moved(game, view)
        return time.time(), view, None


def test_the_open_loop_times_from_the_schedule_and_counts_arrivals_that_find_no_game() -> None:
    table = Table([_game(n) for n in range(1, 4)])  # three games; no mail ever comes
    phase = open_loop(_SlowMover(0.05), table, rate=200.0, seconds=0.5, warmup=0.0, seed=1)  # type: ignore[arg-type]
    assert len(phase.latencies) == 3 == len(phase.moved)  # each game moved once, then waited for mail
    assert phase.starved > 0  # the others found no game ready and were counted, not delayed
    assert all(lat >= 0.05 for lat in phase.latencies)
    mail_times(phase, table, wait=0.0)
    assert phase.mail_missing == 3 and phase.to_mail == []
    for (game_id, ply), done in phase.moved.items():
        table.on_arrival(_turn(game_id, ply, at=done + 0.25))
    mail_times(phase, table, wait=0.0)
    assert phase.mail_missing == 0 and [round(x, 6) for x in phase.to_mail] == [0.25] * 3
