"""Several hosts at once: two gunicorn servers, two Celery workers and two beat processes
(each beat thinks it is the clock) against one PostgreSQL and one Redis, and games played
to the end by players who move when their turn mail arrives, as players by mail do.

Some turns are left to the clock: the harness does not move there but brings that turn's
deadline a few seconds near (an UPDATE of ``game.deadline``: the time that would pass),
so the clock's reminder and then its autopilot act, from both beats at once.  Mid-run one
worker host is killed with SIGKILL (its pool too: the host is gone) and one beat is
restarted.  Afterwards the outbox, the move history and what the SMTP sink accepted are
compared:

- every game finished, every turn mail of every game arrived;
- a message came twice only with the same Message-ID, and at most once per kill;
- each turn left to the clock got exactly one autopilot move, at most one reminder and
  one deadline mail per player; no other turn was moved by the autopilot.

:func:`play` runs it and :func:`problems` lists what went wrong (``tests/e2e`` runs a short
one); :func:`run` is the bench section."""

from __future__ import annotations

import json
import queue
import random
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable

from . import gamedata
from .arrivals import Arrival, MailWatch, turn_ply
from .common import Figure, percentile
from .infra import Infra, dbapi_url
from .load import Client, legal_moves
from .stack import Stack, outbox, wait_sent


@dataclass
class Table:
    """One game as its players see it."""

    game_id: int
    tokens: list[str]
    huts: dict[str, dict[str, int]]
    ply: int
    next_seat: int | None
    absent: set[int]  # plies at which the player to move stays away
    mail_ply: int = -1  # the latest ply whose turn mail arrived
    finished: bool = False
    waiting: bool = False  # an absent turn: the clock's to play
    busy: bool = False  # a player thread has it


@dataclass
class Settings:
    games: int = 200
    player_counts: tuple[int, ...] = (2, 3, 4)
    absent_per_game: int = 2
    #: how far the deadline of a turn left to the clock is brought (seconds): longer than
    #: the mail's wait when 200 games are played flat out, so that the reminder can go
    deadline_seconds: float = 8.0
    clock_seconds: float = 1.0
    lease_seconds: float = 15.0
    threads: int = 12
    #: kill worker B and restart beat B after about these shares of the expected moves
    kill_at: float = 0.3
    restart_beat_at: float = 0.5
    expected_plies: int = 30
    timeout: float = 600.0
    seed: int = 16


@dataclass
class Outcome:
    settings: Settings
    tables: list[Table]
    absent: set[tuple[int, int]]  # (game id, ply) left to the clock
    moves: dict[tuple[int, int], float]  # (game id, ply after the move) -> time of its 200
    arrivals: list[Arrival]
    rows: list[dict[str, Any]]
    autopilot: list[tuple[int, int]]
    finished: dict[int, int]  # game id -> final ply (finished games)
    kills: int
    beat_restarts: int
    moves_at_kill: int
    errors: list[str]
    seconds: float
    drained: bool
    notes: dict[str, Any] = field(default_factory=dict)

    def latencies(self) -> list[float]:
        """Seconds from each player's move (its 200) to the next player's turn mail."""
        first: dict[tuple[int, int], float] = {}
        for a in self.arrivals:
            p = turn_ply(a)
            if p is not None and a.game_id is not None:
                key = (a.game_id, p)
                first[key] = min(first.get(key, a.at), a.at)
        return [first[k] - t for k, t in self.moves.items() if k in first]


def _templates(ctx: Any, counts: tuple[int, ...]) -> list[int]:
    return [gamedata.new_game(ctx, n)[0] for n in counts]


class _Web:
    """A player's way to the web hosts: each request to one of them at random."""

    def __init__(self, bases: list[str], rng: random.Random) -> None:
        self.clients = [Client(b) for b in bases]
        self.rng = rng

    def call(self, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
        status, payload = self.rng.choice(self.clients).request(method, path, body,
                                                                {"Authorization": f"Bearer {token}"})
        return status, json.loads(payload) if payload else None


def play(infra: Infra, settings: Settings, say: Callable[[str], None] = print) -> Outcome:
    """Set up the hosts and the games, play every game to the end, and gather what
    happened (the caller checks it with :func:`problems`)."""
    import psycopg

    from pbem import games
    from pbem.rules import classic_board

    rng = random.Random(settings.seed)
    url = infra.database("hosts")
    ctx = gamedata.context(url)
    templates = _templates(ctx, settings.player_counts)
    views = {t: games.public_game(ctx, gamedata.public_id_of(ctx, t)) for t in templates}
    # The copies start where the templates are, their first turn mail waiting.
    copies = gamedata.clone_games(url, templates, settings.games, history=True, pending_turn_mail=True)
    gamedata.retire(url, templates)
    ctx.engine.dispose()
    with psycopg.connect(dbapi_url(url)) as conn:
        # The copied history was "sent" before the run: only what the run writes is checked.
        history = {r[0] for r in conn.execute("SELECT id FROM outbox WHERE status <> 'pending'")}
    neighbours = {tid: sorted(classic_board().neighbours(tid)) for tid in classic_board().ids}
    tables: dict[int, Table] = {}
    for k, (gid, toks) in enumerate(copies):
        v = views[templates[k % len(templates)]]
        absent = set(rng.sample(range(1, settings.expected_plies), settings.absent_per_game))
        tables[gid] = Table(gid, toks, v["huts"], v["ply"], v["next_seat"], absent)

    stack = Stack(infra, url, {
        "PBEM_CLOCK_SECONDS": str(settings.clock_seconds),
        # The turns left to the clock are the autopilot's at once, not a vacation day's.
        "PBEM_VACATION_DAYS": "0",
        "PBEM_MAIL_LEASE_SECONDS": str(settings.lease_seconds),
        # Links point at no one here; a loopback base URL allows the short lease (a public
        # one refuses a lease shorter than a delivery may take).
        "PBEM_BASE_URL": "http://127.0.0.1",
    })
    stack.start_sink()
    web = [stack.web("web-a"), stack.web("web-b")]
    stack.worker("worker-a")
    stack.worker("worker-b")
    stack.beat("beat-a")
    stack.beat("beat-b")
    stack.wait_ready()
    say(f"hosts: {settings.games} games on 2 web, 2 worker and 2 beat hosts; clock every "
        f"{settings.clock_seconds:g} s, lease {settings.lease_seconds:g} s")

    jobs: queue.Queue[tuple[str, Table] | None] = queue.Queue()
    lock = threading.Lock()
    moves: dict[tuple[int, int], float] = {}
    absent_done: set[tuple[int, int]] = set()
    errors: list[str] = []
    counter = {"moves": 0}

    def on_arrival(a: Arrival) -> None:
        table = tables.get(a.game_id) if a.game_id is not None else None
        if table is None:
            return
        with lock:
            if a.kind == "game-over":
                if not table.finished:
                    jobs.put(("refresh", table))
                return
            p = turn_ply(a)
            if p is None or p <= table.mail_ply:
                return
            table.mail_ply = p
            if table.busy or table.finished:
                return
            table.busy = True
            # A turn mail for a later ply than we know: the clock moved meanwhile.
            jobs.put(("refresh" if p > table.ply else "turn", table))

    watch = MailWatch(url, stack.record, on_arrival).start()
    db = psycopg.connect(dbapi_url(url), autocommit=True)
    db_lock = threading.Lock()

    def leave_to_clock(table: Table) -> None:
        with db_lock:
            db.execute("UPDATE game SET deadline = now() + make_interval(secs => %s) "
                       "WHERE id = %s AND ply = %s AND status = 'active'",
                       [settings.deadline_seconds, table.game_id, table.ply])
        absent_done.add((table.game_id, table.ply))

    def player(n: int) -> None:
        client = _Web([h.base_url for h in web], random.Random(settings.seed * 1000 + n))
        prng = random.Random(settings.seed * 7 + n)
        while True:
            job = jobs.get()
            if job is None:
                return
            what, table = job
            try:
                if what == "refresh":
                    status, view = client.call("GET", "/api/v1/seat", table.tokens[0])
                    if status != 200:
                        raise RuntimeError(f"GET seat: {status} {view}")
                    with lock:
                        table.huts, table.ply, table.next_seat = view["huts"], view["ply"], view["next_seat"]
                        table.finished = view["status"] == "finished"
                        table.waiting = False
                        ready = not table.finished and table.mail_ply >= table.ply
                        table.busy = ready
                    if ready:
                        jobs.put(("turn", table))
                    continue
                if table.ply in table.absent and (table.game_id, table.ply) not in absent_done:
                    leave_to_clock(table)
                    with lock:
                        table.waiting, table.busy = True, False
                    continue
                assert table.next_seat is not None
                move = prng.choice(legal_moves(table.huts, neighbours))
                status, view = client.call("POST", "/api/v1/seat/moves", table.tokens[table.next_seat],
                                           {"move": move, "ply": table.ply})
                done = time.time()
                if status != 200:
                    raise RuntimeError(f"move {move} at ply {table.ply} of game {table.game_id}: {status} {view}")
                with lock:
                    counter["moves"] += 1
                    table.huts, table.ply, table.next_seat = view["huts"], view["ply"], view["next_seat"]
                    table.finished = bool(view["finished"]) or view["next_seat"] is None
                    if not table.finished:
                        moves[(table.game_id, table.ply)] = done
                    # The next player moves when their mail comes (it may have come already).
                    ready = not table.finished and table.mail_ply >= table.ply
                    table.busy = ready
                if ready:
                    jobs.put(("turn", table))
            except Exception as e:  # noqa: BLE001 - counted; the game stalls and the run reports it
                with lock:
                    errors.append(f"{e.__class__.__name__}: {e}"[:300])
                    table.busy = False

    threads = [threading.Thread(target=player, args=(n,), daemon=True) for n in range(settings.threads)]
    for t in threads:
        t.start()
    start = time.monotonic()
    kills = restarts = moves_at_kill = 0
    expected = settings.games * settings.expected_plies
    try:
        while time.monotonic() - start < settings.timeout:
            with lock:
                left = sum(1 for t in tables.values() if not t.finished)
                done_moves = counter["moves"]
            if not left:
                break
            if not kills and done_moves >= settings.kill_at * expected:
                stack.kill("worker-b")
                kills, moves_at_kill = 1, done_moves
                say(f"hosts: worker-b killed (SIGKILL) after {done_moves} moves")
            if kills and not restarts and done_moves >= settings.restart_beat_at * expected:
                stack.restart("beat-b")
                restarts = 1
                say(f"hosts: beat-b restarted after {done_moves} moves")
            time.sleep(0.2)
        seconds = time.monotonic() - start
        # Everything written is sent: the killed worker's claims wait out their lease, the
        # tasks it had taken but not begun the sweep's grace (a lease here).
        drained = wait_sent(url, 2 * settings.lease_seconds + 30, list(tables))
        time.sleep(1.0)
    finally:
        for _ in threads:
            jobs.put(None)
        for t in threads:
            t.join(10)
        watch.stop()
        db.close()
    rows = [r for r in outbox(url, list(tables)) if r["id"] not in history]
    with psycopg.connect(dbapi_url(url)) as conn:
        autopilot = [(g, p) for g, p in conn.execute(
            "SELECT game_id, ply FROM move WHERE by_autopilot AND game_id = ANY(%s)", [list(tables)]).fetchall()]
        finished = {g: p for g, p in conn.execute(
            "SELECT id, ply FROM game WHERE status = 'finished' AND id = ANY(%s)", [list(tables)]).fetchall()}
        histories = {g: n for g, n in conn.execute(
            "SELECT game_id, count(*) FROM move WHERE game_id = ANY(%s) GROUP BY game_id", [list(tables)]).fetchall()}
    for name in ("web-a", "web-b", "worker-a", "beat-a", "beat-b"):
        if not stack.alive(name):
            errors.append(f"{name} is not running at the end")
    out = Outcome(settings, list(tables.values()), absent_done, moves, watch.arrivals, rows, autopilot, finished,
                  kills, restarts, moves_at_kill, errors, seconds, drained,
                  notes={"histories": histories, "unresolved_mail": len(watch.unresolved)})
    for h in list(stack.hosts):
        if h.proc.poll() is None:
            infra.stop(h.proc)
    return out


def not_sent(o: Outcome) -> list[dict[str, Any]]:
    """Messages that never went, except a reminder or turn mail whose turn the
    autopilot had played by the time a worker took it: delivery skips mail for a
    turn that is over.  A turn left to the clock has 8 s, and a worker killed
    holding its mail gives it back only after the lease (15 s).  A skipped message
    that reached the server went: a worker killed after the server took it and
    before it marked the row leaves it to the sweep, which finds the turn played
    by then (its reader moved on the mail) and skips it."""
    played = set(o.autopilot)
    arrived = {a.message_id for a in o.arrivals}
    return [r for r in o.rows if r["status"] != "sent"
            and not (r["status"] == "skipped" and r["message_id"] in arrived)
            and not (r["kind"] in ("reminder", "turn") and r["status"] == "skipped"
                     and (r["game_id"], int(r["event"].split(":")[1])) in played)]


def problems(o: Outcome) -> list[str]:
    """What went wrong, in words; empty when the run kept every promise."""
    out = list(o.errors[:10])
    if len(o.errors) > 10:
        out.append(f"... and {len(o.errors) - 10} more errors")
    unfinished = [t.game_id for t in o.tables if t.game_id not in o.finished]
    if unfinished:
        out.append(f"{len(unfinished)} games did not finish, e.g. {unfinished[:5]}")
    if not o.drained:
        out.append("mail was still pending at the end")
    # Every ply of every game had a turn mail (all seats chose mail for every turn) that arrived.
    by_id: dict[str, dict[str, Any]] = {r["message_id"]: r for r in o.rows}
    got = Counter(a.message_id for a in o.arrivals)
    turns = defaultdict(set)
    for r in o.rows:
        if r["kind"] == "turn":
            turns[r["game_id"]].add(int(r["event"][4:]))
    start_ply = {t.game_id: min(turns[t.game_id], default=0) for t in o.tables}
    lost = [(g, p) for g, last in o.finished.items() for p in range(start_ply[g], last) if p not in turns[g]]
    if lost:
        out.append(f"{len(lost)} turn mails were never written, e.g. {lost[:5]}")
    unsent = not_sent(o)
    if unsent:
        out.append(f"{len(unsent)} messages not sent: " + ", ".join(
            f"{r['kind']} {r['event']} {r['status']}" for r in unsent[:5]))
    missing = [r for r in o.rows if r["status"] == "sent" and got[r["message_id"]] == 0]
    if missing:
        out.append(f"{len(missing)} messages marked sent never reached the SMTP server, e.g. "
                   + ", ".join(f"{r['kind']} {r['event']}" for r in missing[:5]))
    twice = {mid: n for mid, n in got.items() if n > 1}
    extra = sum(n - 1 for n in twice.values())
    if extra > o.kills:
        out.append(f"{extra} messages came twice or more ({len(twice)} Message-IDs), more than one per kill "
                   f"({o.kills}): " + ", ".join(f"{by_id.get(m, {}).get('kind')} x{n}" for m, n in
                                                  list(twice.items())[:5]))
    strangers = [a for a in o.arrivals if a.game_id is not None and a.game_id not in {t.game_id for t in o.tables}]
    if strangers:
        out.append(f"{len(strangers)} messages of other games arrived")
    # The clock: one autopilot move for each turn left to it, and none elsewhere.
    autopilot = Counter(o.autopilot)
    doubled = [k for k, n in autopilot.items() if n > 1]
    if doubled:
        out.append(f"the autopilot moved twice at {doubled[:5]}")
    stray = sorted(set(autopilot) - o.absent)
    if stray:
        out.append(f"the autopilot moved {len(stray)} times where the player was there, e.g. {stray[:5]}")
    skipped = sorted(o.absent - set(autopilot))
    if skipped:
        out.append(f"{len(skipped)} turns left to the clock were not played by the autopilot, e.g. {skipped[:5]}")
    gaps = [g for g, last in o.finished.items() if o.notes["histories"].get(g, 0) != last]
    if gaps:
        out.append(f"{len(gaps)} games' histories do not have one move per ply, e.g. {gaps[:5]}")
    reminders = Counter((r["game_id"], int(r["event"].split(":")[1])) for r in o.rows if r["kind"] == "reminder")
    if any(n > 1 for n in reminders.values()):
        out.append(f"reminded twice for one turn: {[k for k, n in reminders.items() if n > 1][:5]}")
    if set(reminders) - o.absent:
        out.append(f"reminders for turns not left to the clock: {sorted(set(reminders) - o.absent)[:5]}")
    if o.absent and not reminders:
        out.append("no reminder was sent for any turn left to the clock")
    deadline_mail = Counter((r["game_id"], r["event"], r["recipient"]) for r in o.rows if r["kind"] == "deadline")
    for g, p in sorted(o.absent):
        people = len(next(t for t in o.tables if t.game_id == g).tokens)
        n = sum(1 for (gg, ev, _), k in deadline_mail.items() if gg == g and ev == f"autopilot:{p}")
        if n != people:
            out.append(f"game {g} ply {p}: {n} deadline mails for {people} players")
            break
    if o.kills and o.moves_at_kill == 0:
        out.append("the worker was not killed mid-run")
    return out


def summary(o: Outcome) -> dict[str, Any]:
    got = Counter(a.message_id for a in o.arrivals)
    lat = o.latencies()
    kinds = Counter(r["kind"] for r in o.rows)
    reminders = sum(1 for r in o.rows if r["kind"] == "reminder")
    late = sum(1 for r in o.rows if r["kind"] == "reminder" and r["status"] == "skipped")
    return {
        "games": len(o.tables), "finished": len(o.finished), "seconds": round(o.seconds, 1),
        "moves_by_players": len(o.moves), "autopilot_moves": len(o.autopilot), "turns_left_to_clock": len(o.absent),
        "reminders": reminders, "reminders_too_late": late, "messages": dict(kinds), "arrivals": len(o.arrivals),
        "duplicates": sum(n - 1 for n in got.values() if n > 1), "kills": o.kills, "beat_restarts": o.beat_restarts,
        "moves_at_kill": o.moves_at_kill, "errors": o.errors[:5],
        "move_to_mail_p50_s": round(percentile(lat, 50), 3) if lat else None,
        "move_to_mail_p99_s": round(percentile(lat, 99), 3) if lat else None,
        "unresolved_mail": o.notes.get("unresolved_mail"),
    }


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    settings = Settings(games=30 if quick else 200, timeout=240 if quick else 900)
    o = play(infra, settings, say)
    found = problems(o)
    s = summary(o)
    say(f"hosts: {s['finished']}/{s['games']} games finished in {s['seconds']:.0f} s; {s['moves_by_players']} moves "
        f"by players, {s['autopilot_moves']} by the autopilot ({s['turns_left_to_clock']} turns left to the clock), "
        f"{s['reminders']} reminders ({s['reminders_too_late']} too late to send); {s['arrivals']} messages at the sink, {s['duplicates']} twice; "
        f"move to mail p50 {s['move_to_mail_p50_s']} s, p99 {s['move_to_mail_p99_s']} s")
    for p in found:
        say(f"hosts: PROBLEM: {p}")
    lost = sum(1 for r in o.rows if r["status"] == "sent" and r["message_id"] not in {a.message_id for a in o.arrivals})
    lost += len(not_sent(o))
    doubled_clock = (sum(1 for k, n in Counter(o.autopilot).items() if n > 1) + len(set(o.autopilot) - o.absent)
                     + sum(1 for n in Counter((r["game_id"], r["event"].split(":")[1]) for r in o.rows
                                              if r["kind"] == "reminder").values() if n > 1))
    note = (f"{settings.games} games, 2 gunicorn + 2 workers + 2 beats, worker SIGKILLed after "
            f"{o.moves_at_kill} moves, a beat restarted; problems: {len(found)}")
    figures = [
        Figure("hosts: games finished", len(o.finished) / max(len(o.tables), 1), "share", 1.0, "min-value",
               note=note, extra={"summary": s, "problems": found}),
        Figure("hosts: mail lost", lost, "messages", 1, "max-value"),
        Figure("hosts: mail twice beyond one per kill", max(0, s["duplicates"] - o.kills), "messages", 1, "max-value",
               note=f"{s['duplicates']} came twice, {o.kills} kill(s)"),
        Figure("hosts: clock actions doubled or stray", doubled_clock, "actions", 1, "max-value"),
        Figure("hosts: reminders sent before the autopilot", s["reminders"] - s["reminders_too_late"], "reminders",
               0, "info", note=f"of {s['turns_left_to_clock']} turns left to the clock (deadline "
                               f"{settings.deadline_seconds:g} s on); the rest came too late and were skipped"),
    ]
    return figures, {"hosts": s, "hosts_problems": found}


__all__ = ["Settings", "Outcome", "play", "problems", "summary", "run"]
