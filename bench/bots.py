"""5. Computer players: how strong each level is (two-player matches, seats
alternated, on every core), how long the hard player thinks at its default time
box (the floor: the medium player on the same positions), and how long a person
playing three computers waits for their next turn's mail on the production
stack (PostgreSQL, Redis, a Celery worker, an SMTP sink), against the same wait
in a game of two people."""

from __future__ import annotations

import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable

from .common import Figure, median, percentile
from .infra import BASE_URL, BIN, HOST, SECRET, Infra, dbapi_url, free_port, service_env, wait_port

WORKER_APP = "worker:celery"
#: The hard player's budget in the strength matches: a fixed number of playouts and no
#: time box, so that a match plays the same on any machine (and 200 games fit the run).
MATCH_PLAYOUTS = 600


def _match(args: tuple[str, str, int, int]) -> float:
    """One two-player game of level ``a`` against ``b``: 1 if ``a`` wins, 0.5 if
    they share the win, else 0.  Odd seeds give ``a`` the other seat."""
    from pbem.rules.computer import Budget, Level, computer_move
    from pbem.rules.deal import deal_game
    from pbem.rules.views import player_view, public_view

    a, b, seed, playouts = args
    game = deal_game(["p0", "p1"], random.Random(seed)).game()
    levels = [Level(a), Level(b)] if seed % 2 == 0 else [Level(b), Level(a)]
    budget = Budget(playouts=playouts, seconds=None)
    ply = 0
    while not game.is_over():
        seat = game.turn
        assert seat is not None
        move, order = computer_move(player_view(game, seat), levels[seat], random.Random(seed * 1000 + ply), budget)
        game.push(move, order)
        ply += 1
    winners = public_view(game)["winners"] or []
    mine = "p0" if seed % 2 == 0 else "p1"
    return 1.0 if winners == [mine] else 0.5 if mine in winners else 0.0


def win_rate(a: str, b: str, games: int, playouts: int = MATCH_PLAYOUTS) -> tuple[float, float]:
    """``a``'s share of the points against ``b`` over ``games`` games, and the seconds taken."""
    start = time.perf_counter()
    with ProcessPoolExecutor(os.cpu_count() or 1) as pool:
        points = list(pool.map(_match, [(a, b, seed, playouts) for seed in range(games)]))
    return sum(points) / games, time.perf_counter() - start


def _positions(count: int) -> list[dict[str, Any]]:
    """Views of the player to move, from two-player games the medium player plays
    (every third position, so that openings, middles and ends all count)."""
    from pbem.rules.bots import choose_move
    from pbem.rules.deal import deal_game
    from pbem.rules.views import player_view

    views: list[dict[str, Any]] = []
    seed = 100
    while len(views) < count:
        game = deal_game(["p0", "p1"], random.Random(seed)).game()
        rng = random.Random(seed)
        while not game.is_over() and len(views) < count:
            seat = game.turn
            assert seat is not None
            if game.ply % 3 == 0:
                views.append(dict(player_view(game, seat)))
            game.push(*choose_move(game, rng))
        seed += 1
    return views


def move_times(level: str, views: list[dict[str, Any]], seconds: float | None = None) -> list[float]:
    """Seconds each decision took, at the default budget (``seconds``: its time box)."""
    from pbem.rules.computer import Budget, Level, computer_move

    budget = Budget() if seconds is None else Budget(seconds=seconds)
    out = []
    for n, view in enumerate(views):
        start = time.perf_counter()
        computer_move(view, Level(level), random.Random(n), budget)  # type: ignore[arg-type]
        out.append(time.perf_counter() - start)
    return out


def playouts_per_second(views: list[dict[str, Any]]) -> float:
    """The hard player's search speed, so that the matches' budget can be put
    beside what its time box reaches."""
    from pbem.rules.computer import Budget, Level, computer_move

    start = time.perf_counter()
    for n, view in enumerate(views):
        computer_move(view, Level.HARD, random.Random(n), Budget(playouts=MATCH_PLAYOUTS, seconds=None))  # type: ignore[arg-type]
    return MATCH_PLAYOUTS * len(views) / (time.perf_counter() - start)


def _turn_mail_waits(ctx: Any, url: str, players: list[dict[str, Any]], turns: int, timeout: float) -> list[float]:
    """Start a game, and for up to ``turns`` of the person's turns: seconds from
    their move (its commit and hand-off included) to the moment the worker marked
    the next turn mail to a person sent."""
    import psycopg

    from pbem import games

    from . import gamedata

    game_id = games.start_game(ctx, games.parse_players(players), confirmed=True)
    people = [p for p in players if "bot" not in p]
    with psycopg.connect(dbapi_url(url), autocommit=True) as conn:
        rows = conn.execute("SELECT s.token_salt, s.email FROM seat s JOIN game g ON g.id = s.game_id "
                            "WHERE g.public_id = %s", [game_id]).fetchall()
        tokens = {email: gamedata.seat_token(salt) for salt, email in rows}
        for p in people[1:]:
            games.accept(ctx, tokens[p["email"]])
        waits: list[float] = []
        while len(waits) < turns:
            view = _wait_turn(ctx, [tokens[p["email"]] for p in people], timeout)
            if view is None:
                break  # the game is over
            token, seen = view
            start = time.perf_counter()
            games.submit_move(ctx, token, seen["legal_moves"][0], None, seen["ply"])
            after = games.seat_view(ctx, token)
            if after["finished"]:
                break
            # The next person's turn mail: the first turn row for a person after this move.
            while True:
                sent = conn.execute(
                    "SELECT count(*) FROM outbox o JOIN game g ON g.id = o.game_id WHERE g.public_id = %s "
                    "AND o.kind = 'turn' AND o.status = 'sent' AND o.event LIKE 'ply:%%' "
                    "AND substr(o.event, 5)::int > %s", [game_id, seen["ply"]]).fetchone()
                if sent and sent[0]:
                    waits.append(time.perf_counter() - start)
                    break
                over = conn.execute("SELECT status = 'finished' FROM game WHERE public_id = %s",
                                    [game_id]).fetchone()
                if over and over[0]:
                    return waits  # the computers played the last move
                if time.perf_counter() - start > timeout:
                    raise RuntimeError(f"no turn mail within {timeout:.0f} s of move {seen['ply'] + 1}")
                time.sleep(0.01)
    return waits


def _wait_turn(ctx: Any, tokens: list[str], timeout: float) -> tuple[str, dict[str, Any]] | None:
    from pbem import games

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for token in tokens:
            view = games.seat_view(ctx, token)
            if view["finished"]:
                return None
            if view["your_turn"]:
                return token, dict(view)
        time.sleep(0.01)
    raise RuntimeError(f"nobody's turn within {timeout:.0f} s")


def stack_waits(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[float], list[float]]:
    """The waits against three computers, and (the floor) in games of two people."""
    from pbem.web import create_app

    url = infra.database("bots")
    port = free_port()
    sink = infra.spawn("bots-smtp-sink", [sys.executable, "-m", "bench.smtp_sink", str(port)])
    wait_port(HOST, port, sink, 15)
    env = service_env(url, infra.redis, PBEM_SMTP_HOST=HOST, PBEM_SMTP_PORT=str(port), PBEM_BOT_DELAY="0")
    worker = infra.spawn("bots-celery", [
        str(BIN / "celery"), "-A", WORKER_APP, "worker", "-c", "2", "-P", "prefork",
        "-n", f"bots-{infra.run_id}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat",
        "--loglevel", os.environ.get("BENCH_CELERY_LOGLEVEL", "WARNING")], env)
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": SECRET, "BASE_URL": BASE_URL, "BROKER_URL": infra.redis,
                      "SMTP_HOST": HOST, "SMTP_PORT": port, "MAILBOX": False, "BOT_DELAY": 0})
    ctx = app.extensions["pbem"]
    games = 1 if quick else 2
    turns = 3 if quick else 12
    bots: list[float] = []
    people: list[float] = []
    try:
        for n in range(games):
            ann = {"name": "Ann", "email": f"ann{n}@example.org"}
            bob = {"name": "Bob", "email": f"bob{n}@example.org"}
            people += _turn_mail_waits(ctx, url, [ann, bob], turns, 60)
            bots += _turn_mail_waits(ctx, url, [dict(ann, email=f"ann-solo{n}@example.org"), {"bot": "easy"},
                                                {"bot": "medium"}, {"bot": "hard"}], turns, 60)
            if worker.poll() is not None:
                raise RuntimeError("the Celery worker exited; see bench/data/logs/bots-celery.log")
    finally:
        ctx.engine.dispose()
        infra.stop(worker)
        infra.stop(sink)
    say(f"bots: turn mail after a move: {len(bots)} waits against three computers, median "
        f"{median(bots):.2f} s; {len(people)} between two people, median {median(people):.2f} s")
    return bots, people


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    hard_games = 20 if quick else 200
    easy_games = 40 if quick else 200
    hard, hard_took = win_rate("hard", "medium", hard_games)
    say(f"bots: hard ({MATCH_PLAYOUTS} playouts a move) against medium: {hard:.1%} of {hard_games} games "
        f"({hard_took:.0f} s)")
    medium, medium_took = win_rate("medium", "easy", easy_games)
    say(f"bots: medium against easy: {medium:.1%} of {easy_games} games ({medium_took:.0f} s)")
    views = _positions(6 if quick else 40)
    hard_times = move_times("hard", views)
    medium_times = move_times("medium", views)
    speed = playouts_per_second(views[:4])
    reached = min(2400, speed * 0.8)
    say(f"bots: hard move median {median(hard_times):.2f} s, p99 {percentile(hard_times, 99):.2f} s over "
        f"{len(views)} positions; about {speed:.0f} playouts/s, so its 0.8 s box reaches about {reached:.0f}")
    bots, people = stack_waits(infra, quick=quick, say=say)
    floor_move = median(medium_times)
    figures = [
        Figure("bots: hard vs medium, wins", hard * 100, "%", 65, "min-value",
               note=f"{hard_games} two-player games, seats alternated; hard at {MATCH_PLAYOUTS} playouts a move "
                    f"(its default 0.8 s box reaches about {reached:.0f} here)"),
        Figure("bots: medium vs easy, wins", medium * 100, "%", 80, "min-value",
               note=f"{easy_games} two-player games, seats alternated"),
        Figure("bots: hard move, median", median(hard_times), "s", 1.0, "max-value", floor_move, "medium move",
               note=f"{len(views)} positions, default budget (0.8 s box), one core"),
        Figure("bots: hard move, p99", percentile(hard_times, 99), "s", 2.0, "max-value",
               percentile(medium_times, 99), "medium move"),
        Figure("bots: move to next turn mail vs 3 computers, p50", median(bots), "s", 3.0, "max-value",
               median(people), "2 people",
               note=f"PBEM_BOT_DELAY=0; easy, medium, hard; PostgreSQL, Redis, celery -c 2, SMTP sink; "
                    f"{len(bots)} turns, p90 {percentile(bots, 90):.2f} s"),
    ]
    return figures, {"bots": {"hard_vs_medium": {"games": hard_games, "share": hard, "seconds": hard_took,
                                                 "playouts": MATCH_PLAYOUTS},
                              "medium_vs_easy": {"games": easy_games, "share": medium, "seconds": medium_took},
                              "hard_move_seconds": hard_times, "medium_move_seconds": medium_times,
                              "playouts_per_second": speed, "waits_vs_computers": bots, "waits_two_people": people}}
