"""7. The clock at scale (issue 16): with 100,000 active games, one deadline/reminder scan
(``pbem.clock.deadlines``: :func:`pbem.workers.clock.expire_deadlines` then
:func:`pbem.workers.clock.send_reminders`) and one outbox sweep each take < 200 ms, and their SQL
uses indexes.

The games are a few real ones made through the service layer, copied inside PostgreSQL.
Each copy's deadline is what a running game has: somewhere within its turn (the players'
time left is spread evenly over it), and a game whose deadline is within its reminder lead
was reminded already (the clock runs every minute).

"One scan" is one run of the deadlines task with what one minute brings at this size: a
few deadlines passed, a few dozen reminders due (re-armed before each run, on other
games each time, so every run does real autopilot moves and reminders).  Beside it, as
information: the same call with none armed (the bare scan) and once with a backlog
(0.1 % past their deadline, 0.5 % to remind: the clock was down for a while).

Clocks, weekends and vacation are in play (issue 32): half the games have a
correspondence clock (banks per seat), a third have weekends off, a sixth have
vacation off; the players live in four time zones; a third of the people have a
vacation bank row (half of them nearly empty), the rest a full year's.  So a
lapsed deadline either spends a vacation day (the deadline moves on, a bank row
is written) or lets the autopilot move, and the scan's plans include the bank's
look-ups."""

from __future__ import annotations

import json
import random
import time
from typing import Any, Callable, Iterable, Sequence

from . import gamedata
from .common import Figure, median
from .infra import Infra, dbapi_url

RUNS = 7
GOAL_MS = 200.0
#: Turn times of the template games (hours): the default 72 and players' other choices.
TURN_HOURS = (24, 48, 72, 168)
#: Mail waiting in the outbox: retries due now, and retries backing off.
PENDING = (20, 30)
#: Tables whose sequential scan grows with the number of games.
WATCHED = ("game", "seat", "outbox", "move", "vacation_bank")
#: The players' time zones (a seat's, by position; None: UTC).
ZONES = ("Europe/Budapest", "America/New_York", "Asia/Tokyo", None)


def _templates(ctx: Any, url: str) -> list[int]:
    """Active games of 2 to 4 players at various plies, each with its own turn time."""
    import psycopg

    rng = random.Random(16)
    out = []
    for players, plies, hours in ((2, 1, 24), (3, 6, 72), (4, 12, 48), (2, 25, 72), (3, 40, 168), (2, 8, 72)):
        out.append((gamedata.game_at(ctx, players, plies, rng)[0], hours))
    with psycopg.connect(url) as conn:
        for k, (game_id, hours) in enumerate(out):  # start_game's own argument; new_game takes the default
            conn.execute("UPDATE game SET turn_hours = %s WHERE id = %s", [hours, game_id])
            # Clocks, weekends and vacation as start_game would write them (issue 32).
            conn.execute("UPDATE game SET weekends_off = %s, vacation_off = %s, turn_started_at = now() "
                         "WHERE id = %s", [k % 3 == 0, k % 6 == 5, game_id])
            if k % 2 == 0:
                conn.execute("UPDATE game SET clock_days = %s, clock_increment_hours = 12, clock_max_days = %s "
                             "WHERE id = %s", [hours // 24, hours // 24 + 2, game_id])
                conn.execute("UPDATE seat SET bank_seconds = %s * 3600 - position * 5400 WHERE game_id = %s",
                             [hours, game_id])
            for position, zone in enumerate(ZONES):
                conn.execute("UPDATE seat SET time_zone = %s WHERE game_id = %s AND position = %s",
                             [zone, game_id, position])
    return [g for g, _ in out]


def _vacation(url: str) -> dict[str, int]:
    """A vacation bank row for a third of the people (half of them with less than a day
    left); the others have none yet (a full year's)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        # The key is the mailbox's SHA-256 (pbem.people.players.mailbox_hash: lower case, no
        # +tag; the bench's addresses have none).
        conn.execute("INSERT INTO vacation_bank (address_hash, days, updated_at) "
                     "SELECT encode(sha256(convert_to(lower(s.email), 'UTF8')), 'hex'), "
                     "       CASE WHEN s.id % 6 = 0 THEN 0.4 ELSE 6 END, now() "
                     "FROM seat s WHERE s.id % 3 = 0 AND s.bot IS NULL ON CONFLICT DO NOTHING")
        conn.execute("VACUUM ANALYZE vacation_bank")
        row = conn.execute("SELECT count(*), count(*) FILTER (WHERE days < 1) FROM vacation_bank").fetchone()
        games = conn.execute("SELECT count(*) FILTER (WHERE clock_days IS NOT NULL), "
                             "count(*) FILTER (WHERE weekends_off), count(*) FILTER (WHERE vacation_off) "
                             "FROM game WHERE status = 'active'").fetchone()
    assert row is not None and games is not None
    return {"banks": row[0], "banks_under_a_day": row[1], "clocked": games[0], "weekends_off": games[1],
            "vacation_off": games[2]}


def _spread(url: str, reminder_hours: float, backlog: bool) -> dict[str, int]:
    """Deadlines within each game's turn; those within their lead reminded; with ``backlog``,
    0.1 % past their deadline and 0.5 % to remind."""
    import psycopg

    lead = f"least({reminder_hours} * interval '1 hour', turn_hours * interval '30 minutes')"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE game SET deadline = now() + random() * turn_hours * interval '1 hour', "
                     "reminded_for = NULL WHERE status = 'active'")
        # Reminded for this deadline if it is within the lead, else for the last one.
        conn.execute(f"UPDATE game SET reminded_for = CASE WHEN deadline - {lead} <= now() THEN deadline "
                     "ELSE deadline - turn_hours * interval '1 hour' END WHERE status = 'active'")
        if backlog:
            conn.execute("UPDATE game SET deadline = now() - random() * interval '10 minutes' WHERE id IN "
                         "(SELECT id FROM game WHERE status = 'active' ORDER BY random() "
                         " LIMIT (SELECT count(*) / 1000 FROM game WHERE status = 'active'))")
            conn.execute("UPDATE game SET reminded_for = NULL WHERE id IN "
                         "(SELECT id FROM game WHERE status = 'active' AND deadline > now() "
                         f" AND deadline - {lead} <= now() ORDER BY random() "
                         " LIMIT (SELECT count(*) / 200 FROM game WHERE status = 'active'))")
        conn.execute("VACUUM ANALYZE game")
        row = conn.execute(
            f"SELECT count(*) FILTER (WHERE deadline <= now()), "
            f"count(*) FILTER (WHERE deadline > now() AND deadline - {lead} <= now() "
            "                  AND reminded_for IS DISTINCT FROM deadline), "
            f"count(*) FILTER (WHERE deadline > now() AND deadline - {lead} <= now()), "
            f"count(*) FILTER (WHERE deadline > now() AND deadline <= now() + {reminder_hours} * interval '1 hour') "
            "FROM game WHERE status = 'active'").fetchone()
    assert row is not None
    return {"past_deadline": row[0], "to_remind": row[1], "within_lead": row[2], "within_horizon": row[3]}


def _arm(url: str, expire: int, remind: int, reminder_hours: float) -> None:
    """Another ``expire`` games past their deadline and ``remind`` games due a reminder
    (their reminder forgotten), for the next run."""
    import psycopg

    lead = f"least({reminder_hours} * interval '1 hour', turn_hours * interval '30 minutes')"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE game SET deadline = now() - interval '30 seconds' WHERE id IN "
                     "(SELECT id FROM game WHERE status = 'active' AND deadline > now() ORDER BY random() LIMIT %s)",
                     [expire])
        conn.execute("UPDATE game SET reminded_for = NULL WHERE id IN "
                     f"(SELECT id FROM game WHERE status = 'active' AND deadline > now() + interval '1 minute' "
                     f" AND deadline - {lead} <= now() AND reminded_for = deadline ORDER BY random() LIMIT %s)",
                     [remind])


def _pending_mail(url: str, due: int, later: int) -> None:
    """A few mails waiting: ``due`` whose retry time has come, ``later`` backing off."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        # The templates' own mail had no relay to deliver it: delivered now.
        conn.execute("UPDATE outbox SET status = 'sent', sent_at = now() WHERE status = 'pending'")
        for count, when in ((due, "now() - random() * interval '5 minutes'"),
                            (later, "now() + interval '1 minute' + random() * interval '1 hour'")):
            # Written a while ago (a retry's row is no longer the relay's: the sweep's grace).
            conn.execute(f"UPDATE outbox SET status = 'pending', sent_at = NULL, attempts = 2, "
                         f"created_at = now() - interval '20 minutes', next_attempt_at = {when} WHERE id IN "
                         "(SELECT id FROM outbox WHERE status = 'sent' ORDER BY random() LIMIT %s)", [count])
        conn.execute("VACUUM ANALYZE outbox")


def _timed(call: Callable[[], Any], runs: int, before: Callable[[], None] = lambda: None) -> tuple[list[float], Any]:
    times, last = [], None
    for _ in range(runs):
        before()
        t0 = time.perf_counter()
        last = call()
        times.append((time.perf_counter() - t0) * 1000)
    return times, last


def _statements(ctx: Any, call: Callable[[], Any]) -> list[tuple[str, Any]]:
    """The distinct statements ``call`` sends (the first parameters of each)."""
    from sqlalchemy import event

    seen: dict[str, Any] = {}

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        head = statement.lstrip().upper()
        if head.startswith(("SELECT", "UPDATE", "INSERT", "DELETE", "WITH")) and "pg_catalog" not in statement \
                and statement.strip() != "SELECT 1":
            seen.setdefault(statement, parameters)

    event.listen(ctx.engine, "before_cursor_execute", record)
    try:
        call()
    finally:
        event.remove(ctx.engine, "before_cursor_execute", record)
    return list(seen.items())


def explain(url: str, statements: Iterable[tuple[str, Any]]) -> list[dict[str, Any]]:
    """EXPLAIN (ANALYZE, FORMAT JSON) of each statement, in a transaction rolled back (an
    INSERT is only planned: run again it would meet its own unique keys)."""
    import psycopg

    out = []
    with psycopg.connect(dbapi_url(url)) as conn:
        for statement, params in statements:
            analyze = not statement.lstrip().upper().startswith("INSERT")
            options = "ANALYZE, FORMAT JSON" if analyze else "FORMAT JSON"
            try:
                row = conn.execute(f"EXPLAIN ({options}) {statement}", params).fetchone()
            finally:
                conn.rollback()
            assert row is not None
            doc = row[0] if not isinstance(row[0], str) else json.loads(row[0])
            plan = doc[0]["Plan"]
            out.append({"sql": " ".join(statement.split())[:160], "nodes": nodes(plan),
                        "seq_scans": seq_scans(plan), "ms": doc[0].get("Execution Time")})
    return out


def nodes(plan: dict[str, Any]) -> list[str]:
    """A plan's nodes, one line each: type, relation and index, rows (actual when analysed)
    and rows its filter threw away."""
    line = plan["Node Type"]
    if "Relation Name" in plan:
        line += f" on {plan['Relation Name']}"
    if "Index Name" in plan:
        line += f" using {plan['Index Name']}"
    rows = plan.get("Actual Rows", plan.get("Plan Rows"))
    line += f" rows={rows}"
    if plan.get("Rows Removed by Filter"):
        line += f" removed_by_filter={plan['Rows Removed by Filter']}"
    out = [line]
    for child in plan.get("Plans", []):
        out += ["  " + n for n in nodes(child)]
    return out


def seq_scans(plan: dict[str, Any], watched: Sequence[str] = WATCHED) -> list[str]:
    """The watched tables this plan reads whole."""
    found = [plan["Relation Name"]] if plan["Node Type"] == "Seq Scan" and plan.get("Relation Name") in watched \
        else []
    for child in plan.get("Plans", []):
        found += seq_scans(child, watched)
    return found


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    from pbem.workers import clock

    count = 10_000 if quick else 100_000
    url = infra.database("clock")
    raw = dbapi_url(url)
    ctx = gamedata.context(url)
    reminder_hours = float(ctx.config["REMINDER_HOURS"])
    start = time.perf_counter()
    templates = _templates(ctx, raw)
    gamedata.clone_games_in_db(url, templates, count - len(templates))
    gamedata.analyze(url)
    backlog = _spread(raw, reminder_hours, backlog=True)
    _pending_mail(raw, *PENDING)
    mix = _vacation(raw)
    say(f"clock: {gamedata.count_games(url)} games written in {time.perf_counter() - start:.1f} s; {backlog}; {mix}")

    sweep = lambda: clock.sweep_outbox(ctx, handoff=lambda ids: None)  # noqa: E731 - the call measured
    sweep()  # warm the pool and the caches
    sweep_ms, swept = _timed(sweep, RUNS)
    if len(swept) != PENDING[0]:  # else the figure would time a query that found nothing to do
        raise RuntimeError(f"the sweep found {len(swept)} rows due, not the {PENDING[0]} made due")
    sweep_plans = explain(url, _statements(ctx, sweep))

    scan = lambda: (clock.expire_deadlines(ctx), clock.send_reminders(ctx))  # noqa: E731 - the deadlines task
    t0 = time.perf_counter()
    moved, reminded = scan()
    backlog_ms = (time.perf_counter() - t0) * 1000
    say(f"  backlog: {len(moved)} autopilot moves (the other {backlog['past_deadline'] - len(moved)} lapsed "
        f"deadlines spent a vacation day), {len(reminded)} reminders in {backlog_ms:.0f} ms")
    # Not quite nothing: deadlines and reminder leads keep arriving while it runs (no
    # player moves here), a few a minute.
    idle_ms, idle = _timed(scan, RUNS)
    # What one minute brings: each game enters its reminder lead once a turn (about 34 a
    # minute per 100,000 games with these turn times); say a tenth of turns run out.
    expire, remind = max(1, count // 30_000), max(3, count // 3_000)
    arm = lambda: _arm(raw, expire, remind, reminder_hours)  # noqa: E731
    handful_ms, last = _timed(scan, RUNS, arm)
    say(f"  handful: last run moved in {len(last[0])} games, wrote {len(last[1])} reminders")
    arm()
    scan_plans = explain(url, _statements(ctx, scan))
    ctx.engine.dispose()
    for name, runs in (("scan", handful_ms), ("none armed", idle_ms), ("sweep", sweep_ms)):
        say(f"  {name}: p50 {median(runs):.1f} ms, max {max(runs):.1f} ms ({', '.join(f'{t:.0f}' for t in runs)})")

    plans = {"sweep": sweep_plans, "deadlines": scan_plans}
    for name, found in plans.items():
        for p in found:
            say(f"  plan {name}: {'SEQ SCAN ' + ','.join(p['seq_scans']) if p['seq_scans'] else 'indexed'}: "
                f"{p['sql'][:100]}")
    indexed = {name: not any(p["seq_scans"] for p in found) for name, found in plans.items()}

    def uses(name: str) -> str:
        if indexed[name]:
            return "uses indexes: yes"
        found = [f"{','.join(p['seq_scans'])} in {p['sql'][:60]}..." for p in plans[name] if p["seq_scans"]]
        return f"uses indexes: no (Seq Scan on {'; '.join(found)})"

    figures = [
        Figure(f"clock: deadlines+reminders scan, {count:,} games", median(handful_ms), "ms", GOAL_MS, "max-value",
               note=f"median of {RUNS}, {expire} deadline(s) passed and {remind} reminders due per run; "
                    f"{uses('deadlines')}",
               extra={"p50_ms": median(handful_ms), "max_ms": max(handful_ms), "runs_ms": handful_ms}),
        Figure(f"clock: deadlines+reminders, none armed, {count:,} games", median(idle_ms), "ms", 0, "info",
               note=f"median of {RUNS}, none armed (the last run: {len(idle[0])} moves, {len(idle[1])} reminders)",
               extra={"p50_ms": median(idle_ms), "max_ms": max(idle_ms)}),
        Figure(f"clock: outbox sweep, {count:,} games", median(sweep_ms), "ms", GOAL_MS, "max-value",
               note=f"median of {RUNS}, {len(swept)} due of {PENDING[0] + PENDING[1]} pending; {uses('sweep')}",
               extra={"p50_ms": median(sweep_ms), "max_ms": max(sweep_ms), "runs_ms": sweep_ms}),
        Figure(f"clock: backlog of {len(moved)} deadlines and {len(reminded)} reminders", backlog_ms, "ms", 0,
               "info", note="one call after the clock was down (0.1 % past deadline, 0.5 % to remind)"),
    ]
    details = {"clock": {"games": count, "state": backlog, "mix": mix, "handful": {"expire": expire, "remind": remind},
                         "runs_ms": {"scan": handful_ms, "idle": idle_ms, "sweep": sweep_ms},
                         "backlog_ms": backlog_ms, "plans": plans}}
    return figures, details
