"""3. Reading a game: the play page ``GET /play/{token}`` and ``GET /api/v1/games/{id}`` on
gunicorn, one keep-alive client, median latency.  Compared: a game at ply 1 against one at
ply 45 (the service reads a snapshot, it never replays the history), and the same game in
a database of 10 games against one of 100,000 (every query indexed).

The 10-game database is made through the service layer; the big one starts as a copy of
it (``CREATE DATABASE ... TEMPLATE``, so the measured games are the same rows) and is
filled with COPY from those real games."""

from __future__ import annotations

import random
import time
from typing import Any, Callable

from . import gamedata
from .common import Figure, median
from .infra import Infra, psycopg_url, service_env, sqlalchemy_url, POSTGRES_ADMIN
from .load import Client


def _templates(ctx: Any) -> dict[str, tuple[int, list[str]]]:
    """The real games: one at ply 1, one at ply 45, and others at every stage."""
    rng = random.Random(11)
    out: dict[str, tuple[int, list[str]]] = {}
    out["invited"] = gamedata.new_game(ctx, 3, start=False)
    for name, players, plies in (("ply1", 2, 1), ("ply45", 2, 45), ("ply10", 3, 10), ("ply20", 4, 20),
                                 ("ply30", 3, 30), ("finished", 2, 10_000), ("ply5", 2, 5)):
        if name == "finished":
            game_id, toks = gamedata.new_game(ctx, players)
            gamedata.play(ctx, toks, plies, rng)
            out[name] = (game_id, toks)
        else:
            out[name] = gamedata.game_at(ctx, players, plies, rng)
    return out


def _has_play_page(client: Client, token: str) -> bool:
    """Whether ``/play/{token}`` exists; if not, the API's seat view is timed instead
    (the same service call, ``seat_view``)."""
    status, _ = client.request("GET", f"/play/{token}")
    return status == 200


def _timed(client: Client, path: str, headers: dict[str, str], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        status, payload = client.request("GET", path, headers=headers)
        out.append(time.perf_counter() - t0)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {payload[:200]!r}")
    return out


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    import psycopg

    big_count = 10_000 if quick else 100_000
    small_url = infra.database("read10")
    ctx = gamedata.context(small_url)
    games = _templates(ctx)
    public_ids = {name: gamedata.public_id_of(ctx, game_id) for name, (game_id, _) in games.items()}
    ctx.engine.dispose()
    have = gamedata.count_games(small_url)
    gamedata.clone_games(small_url, [g for g, _ in games.values()], 10 - have)
    assert gamedata.count_games(small_url) == 10

    big_name = f"pbem_bench_{infra.run_id}_read{big_count // 1000}k"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{big_name}" TEMPLATE "{small_url.rsplit("/", 1)[1]}"')
    infra.databases.append(big_name)
    big_url = sqlalchemy_url(big_name)
    start = time.perf_counter()
    gamedata.clone_games_in_db(big_url, [g for g, _ in games.values()], big_count - 10)
    gamedata.analyze(big_url)
    gamedata.analyze(small_url)
    sizes = {}
    with psycopg.connect(psycopg_url(big_name)) as conn:
        for table in ("game", "seat", "move", "outbox"):
            sizes[table] = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[index]
    say(f"read: {big_count} games written in {time.perf_counter() - start:.1f} s ({sizes})")

    servers = {}
    for label, url in (("small", small_url), ("big", big_url)):
        servers[label] = infra.gunicorn(f"read-{label}", "pbem.web:create_app()", service_env(url, infra.redis),
                                        workers=2, worker_class="gthread", threads=2)
    clients = {label: Client(base) for label, base in servers.items()}
    has_pages = _has_play_page(clients["small"], games["ply1"][1][0])
    play_name = "play page" if has_pages else "seat view (GET /api/v1/seat; no /play page)"

    def requests(game: str) -> dict[str, tuple[str, dict[str, str]]]:
        _, toks = games[game]
        page = (f"/play/{toks[0]}", {}) if has_pages else \
            ("/api/v1/seat", {"Authorization": f"Bearer {toks[0]}"})
        return {"play": page, "api": (f"/api/v1/games/{public_ids[game]}", {})}

    # Interleaved rounds, so that a change in the machine's load hits every case alike.
    rounds, per_round = (4, 15) if quick else (10, 25)
    cases = [(db, game, kind) for db in ("small", "big") for game in ("ply1", "ply45") for kind in ("play", "api")]
    times: dict[tuple[str, str, str], list[float]] = {c: [] for c in cases}
    for db, game, kind in cases:  # warm-up
        path, headers = requests(game)[kind]
        _timed(clients[db], path, headers, 10)
    for _ in range(rounds):
        for db, game, kind in cases:
            path, headers = requests(game)[kind]
            times[(db, game, kind)] += _timed(clients[db], path, headers, per_round)
    for c in clients.values():
        c.close()
    med = {c: median(v) * 1000 for c, v in times.items()}
    for (db, game, kind), ms in med.items():
        say(f"  {db:5} {game:5} {kind:4}: median {ms:.2f} ms")
    n = rounds * per_round
    plans = explain_reads(big_url, games["ply45"])
    for line in plans:
        say(f"  plan: {line}")
    seq = sum(p.startswith("SEQ SCAN") for p in plans)
    planned = f"EXPLAIN of the {len(plans)} distinct statements of reading and moving: " + \
        (f"{seq} sequential scan(s)" if seq else "all use indexes")
    figures = [
        Figure(f"read: {play_name}, ply 45 vs 1", med[("small", "ply45", "play")], "ms", 1.3, "max-ratio",
               med[("small", "ply1", "play")], "ply 1", note=f"median of {n}, 10-game database"),
        Figure("read: GET /api/v1/games/{id}, ply 45 vs 1", med[("small", "ply45", "api")], "ms", 1.3,
               "max-ratio", med[("small", "ply1", "api")], "ply 1", note=f"median of {n}, 10-game database"),
        Figure(f"read: {play_name}, {big_count:,} games vs 10", med[("big", "ply45", "play")], "ms", 1.3,
               "max-ratio", med[("small", "ply45", "play")], "10 games",
               note=f"median of {n}, the ply-45 game; {planned}"),
        Figure(f"read: GET /api/v1/games/{{id}}, {big_count:,} games vs 10", med[("big", "ply45", "api")], "ms",
               1.3, "max-ratio", med[("small", "ply45", "api")], "10 games", note=f"median of {n}, the ply-45 game"),
    ]
    return figures, {"read": {"medians_ms": {"/".join(k): v for k, v in med.items()}, "big_rows": sizes,
                              "play_path": "play" if has_pages else "api", "plans": plans}}


def explain_reads(database_url: str, game: tuple[int, list[str]]) -> list[str]:
    """Every statement the read and move paths send, with whether PostgreSQL plans a
    sequential scan for it on the big database."""
    from sqlalchemy import event

    from pbem import games

    ctx = gamedata.context(database_url)
    seen: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        if statement.lstrip().upper().startswith(("SELECT", "UPDATE", "INSERT", "DELETE")):
            seen.append((statement, parameters))

    game_id, toks = game
    public_id = gamedata.public_id_of(ctx, game_id)  # not a statement of the read path
    event.listen(ctx.engine, "before_cursor_execute", record)
    games.public_game(ctx, public_id)
    view = games.seat_view(ctx, toks[0])
    seat = view["next_seat"]
    if view["status"] == "active" and seat is not None:
        mine = games.seat_view(ctx, toks[seat])
        # One real move (the timings are done), to see the statements of the write path too.
        games.submit_move(ctx, toks[seat], mine["legal_moves"][0], None, mine["ply"])
    event.remove(ctx.engine, "before_cursor_execute", record)
    out = []
    with ctx.engine.connect() as conn:
        for statement, params in seen:
            if "pg_catalog" in statement or statement.strip() == "SELECT 1":
                continue
            raw = conn.connection.dbapi_connection
            assert raw is not None
            with raw.cursor() as cur:
                cur.execute("EXPLAIN " + statement, params)
                plan = " / ".join(r[0].strip() for r in cur.fetchall())
            kind = "SEQ SCAN" if "Seq Scan" in plan else "indexed"
            out.append(f"{kind}: {' '.join(statement.split())[:90]}")
        conn.rollback()
    ctx.engine.dispose()
    return sorted(set(out))
