"""The lobby: ``GET /api/v1/lobby`` (the first page, and a page filtered by players, speed
and language) on gunicorn, one keep-alive client, p99 latency, with 10,000 open tables
against the same request with 250 (enough for both pages to be full: the same answer's size).

10 tables are made through the service layer (a game with open seats, confirmed by its
creator) and copied, inside PostgreSQL (their games, seats, lobby rows), to 250; the big
database starts as a copy of that one (``CREATE DATABASE ... TEMPLATE``) and is filled the same way.
Every statement of the listing is EXPLAINed for sequential scans."""

from __future__ import annotations

import time
from typing import Any, Callable

from . import gamedata
from .common import Figure, median, percentile
from .infra import Infra, POSTGRES_ADMIN, dbapi_url, service_env, sqlalchemy_url
from .load import Client

PATHS = {"first page": "/api/v1/lobby", "filtered": "/api/v1/lobby?players=3&max_turn_hours=48&language=hu"}


def _tables(ctx: Any) -> list[int]:
    """Ten lobby tables of every shape (2-4 seats, 1-3 open, four speeds, four languages)."""
    from pbem import games
    from pbem.words.language import LANGUAGES

    out = []
    for n in range(10):
        seats = 2 + n % 3
        players = [{"name": "Ann", "email": f"ann{n}@bench.example", "language": LANGUAGES[n % len(LANGUAGES)]},
                   *([{"bot": "easy"}] if seats == 4 and n % 2 else []), ]
        players += [{"open": True}] * (seats - len(players))
        public_id = games.start_game(ctx, games.parse_players(players), (12, 24, 48, 72)[n % 4])
        game_id = gamedata.game_id_of(ctx, public_id)
        games.accept(ctx, gamedata._seat_tokens(ctx, game_id)[0])
        out.append(game_id)
    return out


def _clone_tables(database_url: str, templates: list[int], count: int) -> None:
    """``count`` copies of the template tables: game, seats (fresh addresses and token hashes)
    and lobby rows, each copy a second older than the one before."""
    import psycopg

    game_cols = [c for c in gamedata.GAME_COLUMNS if c not in ("id", "public_id", "created_at")]
    seat_cols = [c for c in gamedata.SEAT_COLUMNS if c not in ("id", "game_id", "email", "token_salt", "token_hash")]
    with psycopg.connect(dbapi_url(database_url)) as conn:
        base = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM game").fetchone()[0]  # type: ignore[index]
        conn.execute("CREATE TEMP TABLE clone_map (new_id integer PRIMARY KEY, template integer NOT NULL, "
                     "age integer NOT NULL) ON COMMIT DROP")
        conn.execute("INSERT INTO clone_map SELECT %s + g, (%s::integer[])[1 + g %% %s], g + 1 "
                     "FROM generate_series(0, %s - 1) AS g", [base, templates, len(templates), count])
        conn.execute(f"INSERT INTO game (id, public_id, created_at, {', '.join(game_cols)}) "
                     "SELECT c.new_id, translate(substr(md5(random()::text || c.new_id), 1, 14), '01', 'wx'), "
                     f"t.created_at - c.age * interval '1 second', {', '.join('t.' + c for c in game_cols)} "
                     "FROM clone_map c JOIN game t ON t.id = c.template ORDER BY c.new_id")
        conn.execute(f"INSERT INTO seat (game_id, email, token_salt, token_hash, {', '.join(seat_cols)}) "
                     "SELECT c.new_id, CASE WHEN s.email = '' THEN '' "
                     "ELSE 'p' || c.new_id || '-' || s.position || '@bench.example' END, "
                     "md5('salt-' || c.new_id || '-' || s.position), "
                     "encode(sha256(convert_to('lobby-' || c.new_id || '-' || s.position, 'UTF8')), 'hex'), "
                     f"{', '.join('s.' + c for c in seat_cols)} "
                     "FROM clone_map c JOIN seat s ON s.game_id = c.template ORDER BY c.new_id, s.position")
        conn.execute("INSERT INTO lobby_table (game_id, seats, turn_hours, language, min_in_time, min_rating, "
                     "max_rating, created_at) SELECT c.new_id, t.seats, t.turn_hours, t.language, t.min_in_time, "
                     "t.min_rating, t.max_rating, t.created_at - c.age * interval '1 second' "
                     "FROM clone_map c JOIN lobby_table t ON t.game_id = c.template ORDER BY c.new_id")
        conn.execute("INSERT INTO lobby_seat (game_id, seat_id) SELECT c.new_id, ns.id FROM clone_map c "
                     "JOIN lobby_seat l ON l.game_id = c.template JOIN seat ts ON ts.id = l.seat_id "
                     "JOIN seat ns ON ns.game_id = c.new_id AND ns.position = ts.position ORDER BY c.new_id")
        for table in ("game", "seat", "lobby_table", "lobby_seat"):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                         f"(SELECT coalesce(max(id), 1) FROM {table}))")
        conn.commit()


def _timed(client: Client, path: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        status, payload = client.request("GET", path)
        out.append(time.perf_counter() - t0)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {payload[:200]!r}")
    return out


def explain_listing(database_url: str) -> list[str]:
    """The listing's statements (first page and filtered), each with whether PostgreSQL
    plans a sequential scan for it on the big database."""
    from sqlalchemy import event

    from pbem import games

    ctx = gamedata.context(database_url)
    seen: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    event.listen(ctx.engine, "before_cursor_execute", record)
    games.lobby.tables(ctx)
    games.lobby.tables(ctx, games.lobby.LobbyFilter(players=3, max_turn_hours=48, language="hu"))
    event.remove(ctx.engine, "before_cursor_execute", record)
    out = []
    with ctx.engine.connect() as conn:
        raw = conn.connection.dbapi_connection
        assert raw is not None
        for statement, params in seen:
            with raw.cursor() as cur:
                cur.execute("EXPLAIN " + statement, params)
                plan = " / ".join(r[0].strip() for r in cur.fetchall())
            kind = "SEQ SCAN" if "Seq Scan" in plan else "indexed"
            out.append(f"{kind}: {' '.join(statement.split())[:100]}")
        conn.rollback()
    ctx.engine.dispose()
    return sorted(set(out))


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    import psycopg

    big_count, small_count = 10_000, 250
    small_url = infra.database("lobby250")
    ctx = gamedata.context(small_url)
    templates = _tables(ctx)
    ctx.engine.dispose()
    _clone_tables(small_url, templates, small_count - len(templates))
    big_name = f"pbem_bench_{infra.run_id}_lobby10k"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{big_name}" TEMPLATE "{small_url.rsplit("/", 1)[1]}"')
    infra.databases.append(big_name)
    big_url = sqlalchemy_url(big_name)
    start = time.perf_counter()
    _clone_tables(big_url, templates, big_count - small_count)
    gamedata.analyze(big_url)
    gamedata.analyze(small_url)
    say(f"lobby: {big_count} open tables written in {time.perf_counter() - start:.1f} s")

    servers = {label: infra.gunicorn(f"lobby-{label}", "pbem.web:create_app()", service_env(url, infra.redis),
                                     workers=2, worker_class="gthread", threads=2)
               for label, url in (("small", small_url), ("big", big_url))}
    clients = {label: Client(base) for label, base in servers.items()}
    rounds, per_round = (4, 25) if quick else (10, 50)
    cases = [(db, kind) for db in ("small", "big") for kind in PATHS]
    times: dict[tuple[str, str], list[float]] = {c: [] for c in cases}
    for db, kind in cases:  # warm-up
        _timed(clients[db], PATHS[kind], 10)
    for _ in range(rounds):  # interleaved: a change in the machine's load hits every case alike
        for db, kind in cases:
            times[(db, kind)] += _timed(clients[db], PATHS[kind], per_round)
    for c in clients.values():
        c.close()
    p99 = {c: percentile(v, 99) * 1000 for c, v in times.items()}
    med = {c: median(v) * 1000 for c, v in times.items()}
    for (db, kind), ms in p99.items():
        say(f"  {db:5} {kind:10}: p99 {ms:.2f} ms, median {med[(db, kind)]:.2f} ms")
    plans = explain_listing(big_url)
    for line in plans:
        say(f"  plan: {line}")
    seq = sum(p.startswith("SEQ SCAN") for p in plans)
    planned = f"EXPLAIN of the {len(plans)} distinct statements: " + \
        (f"{seq} sequential scan(s)" if seq else "all use indexes")
    n = rounds * per_round
    figures = [
        Figure(f"lobby: GET /api/v1/lobby {kind} p99, {big_count:,} open tables vs {small_count}", p99[("big", kind)], "ms",
               1.3, "max-ratio", p99[("small", kind)], f"{small_count} tables",
               note=f"p99 of {n} (medians {med[('big', kind)]:.1f} vs {med[('small', kind)]:.1f} ms); {planned}")
        for kind in PATHS]
    return figures, {"lobby": {"p99_ms": {"/".join(k): v for k, v in p99.items()},
                               "medians_ms": {"/".join(k): v for k, v in med.items()}, "plans": plans}}
