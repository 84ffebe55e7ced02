"""Several hosts at once (bench/hosts.py): two gunicorn servers, two Celery workers and two
beats on one PostgreSQL and one Redis, games played to the end while a worker is killed
with SIGKILL and a beat restarted.  The short run is marked ``hosts``; the checker that
judges it is tested first on outcomes made up to hold each kind of failure."""

from __future__ import annotations

import dataclasses
import shutil
from typing import Any

import pytest

from bench.arrivals import Arrival
from bench.hosts import Outcome, Settings, Table, play, problems, summary
from bench.infra import POSTGRES_ADMIN, Infra
from tests.support.config import unavailable


def _row(n: int, kind: str, event: str, recipient: str = "ann@x.example", status: str = "sent") -> dict[str, Any]:
    return {"id": n, "game_id": 1, "kind": kind, "event": event, "recipient": recipient, "status": status,
            "message_id": f"<{n}@clans.test>", "attempts": 1}


def _kept_promises() -> Outcome:
    """A two-player game of three moves: the player moved twice, the clock once (after a
    reminder), every message arrived once."""
    rows = [_row(1, "turn", "ply:0"), _row(2, "turn", "ply:1", "bob@x.example"), _row(3, "turn", "ply:2"),
            _row(4, "reminder", "remind:1:1700000000", "bob@x.example"),
            _row(5, "deadline", "autopilot:1"), _row(6, "deadline", "autopilot:1", "bob@x.example"),
            _row(7, "game-over", "over", "ann@x.example")]
    arrivals = [Arrival(100.0 + r["id"], r["message_id"], r["recipient"], 1, r["kind"], r["event"]) for r in rows]
    table = Table(1, ["ta", "tb"], {}, 3, None, {1}, mail_ply=2, finished=True)
    return Outcome(Settings(games=1), [table], {(1, 1)}, {(1, 1): 101.5, (1, 3): 104.0}, arrivals, rows,
                   [(1, 1)], {1: 3}, kills=1, beat_restarts=1, moves_at_kill=1, errors=[], seconds=5.0,
                   drained=True, notes={"histories": {1: 3}})


def test_an_outcome_that_kept_every_promise_has_no_problems() -> None:
    o = _kept_promises()
    assert problems(o) == []
    s = summary(o)
    assert s["duplicates"] == 0 and s["autopilot_moves"] == 1 and s["reminders"] == 1
    assert s["move_to_mail_p50_s"] == pytest.approx(0.5)  # ply 1's 200 at 101.5, ply 1's mail at 102


def test_a_lost_or_doubled_mail_is_a_problem() -> None:
    o = _kept_promises()
    never_came = dataclasses.replace(o, arrivals=[a for a in o.arrivals if a.message_id != "<2@clans.test>"])
    assert any("never reached the SMTP server" in p for p in problems(never_came))
    unsent = dataclasses.replace(o, rows=[dict(r, status="failed") if r["id"] == 3 else r for r in o.rows])
    assert any("not sent" in p for p in problems(unsent))
    skipped = dataclasses.replace(o, rows=[dict(r, status="skipped") if r["id"] == 3 else r for r in o.rows],
                                  arrivals=[a for a in o.arrivals if a.message_id != "<3@clans.test>"])
    assert any("not sent" in p for p in problems(skipped))
    # Skipped once it had reached the server (a worker killed before it marked the
    # row, the sweep finding the turn played on that very mail): it went.
    went = dataclasses.replace(o, rows=[dict(r, status="skipped") if r["id"] == 3 else r for r in o.rows])
    assert problems(went) == []
    # A reminder that a worker took after the autopilot had played its turn is skipped, rightly.
    too_late = dataclasses.replace(o, rows=[dict(r, status="skipped") if r["id"] == 4 else r for r in o.rows],
                                   arrivals=[a for a in o.arrivals if a.message_id != "<4@clans.test>"])
    assert problems(too_late) == []
    unwritten = dataclasses.replace(o, rows=[r for r in o.rows if r["id"] != 2])
    assert any("never written" in p for p in problems(unwritten))
    once_more = dataclasses.replace(o, arrivals=o.arrivals + [o.arrivals[1]])
    assert problems(once_more) == []  # one per kill is allowed: the killed worker's message
    twice_more = dataclasses.replace(o, arrivals=o.arrivals + [o.arrivals[1], o.arrivals[2]])
    assert any("more than one per kill" in p for p in problems(twice_more))
    assert any("more than one per kill" in p for p in problems(dataclasses.replace(once_more, kills=0)))


def test_a_doubled_or_stray_clock_action_is_a_problem() -> None:
    o = _kept_promises()
    assert any("autopilot moved twice" in p for p in problems(dataclasses.replace(o, autopilot=[(1, 1), (1, 1)])))
    assert any("where the player was there" in p
               for p in problems(dataclasses.replace(o, autopilot=[(1, 1), (1, 2)])))
    assert any("not played by the autopilot" in p for p in problems(dataclasses.replace(o, autopilot=[])))
    reminded_twice = dataclasses.replace(o, rows=o.rows + [_row(8, "reminder", "remind:1:1700000001")])
    assert any("reminded twice" in p for p in problems(reminded_twice))
    assert any("deadline mails" in p for p in problems(dataclasses.replace(o, rows=[r for r in o.rows if r["id"] != 6])))
    unfinished = dataclasses.replace(o, finished={})
    assert any("did not finish" in p for p in problems(unfinished))


@pytest.mark.hosts
def test_several_hosts_keep_every_promise_through_a_kill_and_a_restart() -> None:
    import psycopg

    try:
        psycopg.connect(POSTGRES_ADMIN, connect_timeout=3).close()
    except psycopg.OperationalError as e:
        unavailable("PostgreSQL", e)
    if not shutil.which("redis-server"):
        unavailable("redis-server", "not on PATH")
    # 16 games: about 500 moves, long enough for the kill at 30% and the restart at 50%.
    settings = Settings(games=16, deadline_seconds=4.0, timeout=90.0)
    with Infra() as infra:
        o = play(infra, settings, print)
    s = summary(o)
    assert problems(o) == [], s
    assert o.kills == 1 and o.beat_restarts == 1 and o.moves_at_kill > 0
    assert s["finished"] == 16 and s["reminders"] > 0 and s["autopilot_moves"] == 2 * 16
    assert s["arrivals"] >= s["moves_by_players"]  # a turn mail for every move, and more
