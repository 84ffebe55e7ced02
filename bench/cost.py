"""The cost of a game: bytes in PostgreSQL (heap, TOAST and indexes of every table) per
finished 4-player game, before and after the retention (``pbem.clock.prune``), and per
active one (ply 20 to 30).

A few games are played through the service layer with their mail delivered as it is
decided (a discarding transport stands in for SMTP), so the rows are what a running
service writes: a reply token per turn mail, Message-IDs rewritten to carry it.  They
are copied many times with COPY (``gamedata.clone_games``, plus their reply tokens, which
it does not copy), and the figure is the growth of the database over the copies,
divided by their number: an empty table's pages then do not count.

Every size is taken after a plain ``VACUUM (ANALYZE)``, what autovacuum leaves on a live
database (a live database does not run ``VACUUM FULL``).  Plain VACUUM gives back only the
empty pages at a table's end; what it frees elsewhere is reused by later rows.  So the
figure after the retention is measured after churn: a batch of finished copies, prune,
VACUUM; then a second batch, prune, VACUUM.  The second batch's growth is what a finished
game holds for good once the mail pages freed before are reused, as on a service that
keeps playing.  The active copies go in first, into pages nobody freed, so they hold all
their rows' bytes.  The ``VACUUM FULL`` figure (a copy of the database rewritten, its
indexes rebuilt) is given beside it as the lower bound.

Not counted: a rating row per player (one per address, not per game), table talk,
webhooks and their posts (none in these games), sign-ins and received mail (no game)."""

from __future__ import annotations

import dataclasses
import random
from datetime import timedelta
from email.message import EmailMessage
from typing import Any, Callable, Sequence

from . import gamedata
from .common import Figure
from .infra import Infra, dbapi_url

KB = 1024
GOAL_KB = 16
PARTS = ("heap", "index", "toast")
#: Where the active copies stand: mid-way through a 4-player game (they last 45 moves and more).
ACTIVE_PLIES = (20, 30)

Sizes = dict[str, dict[str, int]]


class DiscardingTransport:
    """Accepts every message and keeps none: delivery still does all its database work."""

    def send(self, message: EmailMessage, *, return_path: str | None = None) -> None:
        pass


def delivering(ctx: Any) -> dict[str, int]:
    """Make ``ctx`` deliver each message right after the commit that wrote it (as the
    relay to the workers does); returns the tally of the outcomes, filled as it goes."""
    from pbem.mail.delivery import deliver

    outcomes: dict[str, int] = {}
    transport = DiscardingTransport()

    def relay(ids: Any) -> None:
        for outbox_id in ids:
            if outbox_id is not None:
                outcome = deliver(ctx, outbox_id, transport)
                outcomes[outcome] = outcomes.get(outcome, 0) + 1

    ctx.relay = relay
    return outcomes


def make_templates(ctx: Any, finished: int, active: int, rng: random.Random) -> tuple[list[int], list[int]]:
    """``finished`` 4-player games played to the end and ``active`` ones stopped at a
    ply within ACTIVE_PLIES, through the service layer; returns their ids."""
    done: list[int] = []
    for _ in range(finished):
        game_id, toks = gamedata.new_game(ctx, 4)
        gamedata.play(ctx, toks, 10_000, rng)
        done.append(game_id)
    running: list[int] = []
    while len(running) < active:
        game_id, toks = gamedata.new_game(ctx, 4)
        target = rng.randint(*ACTIVE_PLIES)
        if gamedata.play(ctx, toks, target, rng) == target:
            running.append(game_id)  # one that ended before its target stays, unused
    return done, running


def add_copies(database_url: str, templates: Sequence[int], count: int) -> list[int]:
    """``count`` copies of the templates (round robin) with their history, mail and reply
    tokens; returns the copies' ids."""
    import psycopg

    copies = [game_id for game_id, _ in gamedata.clone_games(database_url, templates, count, history=True)]
    with psycopg.connect(dbapi_url(database_url)) as conn:
        conn.execute("CREATE TEMP TABLE copy_of (new_id integer PRIMARY KEY, template integer NOT NULL) "
                     "ON COMMIT DROP")
        with conn.cursor().copy("COPY copy_of (new_id, template) FROM STDIN") as copy:
            for k, game_id in enumerate(copies):
                copy.write_row((game_id, templates[k % len(templates)]))
        # A fresh salt and hash per token, as reply_tokens.reply_token makes them (32 and 64 hex digits).
        conn.execute(
            "INSERT INTO reply_token (game_id, seat_id, ply, token_salt, token_hash, created_at, used_at) "
            "SELECT c.new_id, ns.id, r.ply, md5(random()::text || r.id || '-' || c.new_id), "
            "encode(sha256(convert_to(random()::text || r.id || '-' || c.new_id, 'UTF8')), 'hex'), "
            "r.created_at, r.used_at "
            "FROM copy_of c JOIN reply_token r ON r.game_id = c.template "
            "JOIN seat ts ON ts.id = r.seat_id "
            "JOIN seat ns ON ns.game_id = c.new_id AND ns.position = ts.position "
            "ORDER BY c.new_id, r.ply")
        conn.execute("SELECT setval(pg_get_serial_sequence('reply_token', 'id'), "
                     "(SELECT coalesce(max(id), 1) FROM reply_token))")
        conn.commit()
    return copies


def spare_from_retention(database_url: str, games: Sequence[int]) -> None:
    """Date the templates' own mail far ahead, so that the retention leaves it: the
    copies made after a prune copy it too.  (Their rows are in every state measured, so
    they cancel out.)"""
    import psycopg

    with psycopg.connect(dbapi_url(database_url)) as conn:
        conn.execute("UPDATE outbox SET sent_at = sent_at + interval '100 years' WHERE game_id = ANY(%s)",
                     [list(games)])


def compacted(infra: Infra, database_url: str, waits: list[float], *, without: Sequence[int] = ()) -> Sizes:
    """The sizes of a copy of the database, the games ``without`` deleted, after
    ``VACUUM FULL`` (every table rewritten, its indexes rebuilt); the database itself
    stays as it was."""
    import time

    import psycopg

    from .infra import POSTGRES_ADMIN, sqlalchemy_url

    source = database_url.rsplit("/", 1)[1]
    name = f"{source}_full"
    for attempt in range(20):
        try:
            with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{source}"')
            break
        except psycopg.errors.ObjectInUse:  # autovacuum is on it for a moment
            if attempt == 19:
                raise
            time.sleep(0.5)
    infra.databases.append(name)
    url = sqlalchemy_url(name)
    try:
        _delete_games(url, without)
        waits.append(quiet(url))
        vacuum(url, full=True)
        vacuum(url)
        return sizes(url)
    finally:
        infra.drop_database(url)


def _delete_games(database_url: str, games: Sequence[int]) -> None:
    import psycopg

    with psycopg.connect(dbapi_url(database_url)) as conn:
        for table in ("reply_token", "outbox", "move", "seat", "game"):
            conn.execute(f"DELETE FROM {table} WHERE {'id' if table == 'game' else 'game_id'} = ANY(%s)",
                         [list(games)])


#: How long VACUUM waits for older transactions elsewhere on the server to end.
QUIET_SECONDS = 120.0


def settle(database_url: str, waits: list[float]) -> None:
    """VACUUM after a prune, twice: an index page emptied by one pass is recycled only
    once no transaction can still see it, and the next pass (autovacuum's, on a live
    database) is what records it as free for new entries."""
    waits.append(quiet(database_url))
    vacuum(database_url)
    vacuum(database_url)


def quiet(database_url: str, timeout: float = QUIET_SECONDS) -> float:
    """Wait until no session on the server (in any database: a btree page's recycling
    looks at them all) has a transaction or snapshot older than now, so that VACUUM may
    remove what was just deleted; returns the seconds waited, ``-1`` if it gave up (the
    sizes then keep rows and pages that a quiet server would have freed)."""
    import time

    import psycopg

    started = time.monotonic()
    with psycopg.connect(dbapi_url(database_url), autocommit=True) as conn:
        mark = conn.execute("SELECT txid_current() % 4294967296").fetchone()[0]  # type: ignore[index]
        while True:
            older = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
                "AND backend_type = 'client backend' "
                "AND greatest(age(backend_xid), age(backend_xmin)) >= age(%s::text::xid)",
                [mark]).fetchone()[0]  # type: ignore[index]
            waited = time.monotonic() - started
            if not older:
                return waited
            if waited > timeout:
                return -1.0
            time.sleep(0.2)


def vacuum(database_url: str, *, full: bool = False) -> None:
    import psycopg

    with psycopg.connect(dbapi_url(database_url), autocommit=True) as conn:
        conn.execute("VACUUM (FULL, ANALYZE)" if full else "VACUUM (ANALYZE)")


def sizes(database_url: str) -> Sizes:
    """Bytes of every table of the public schema: its heap (with the free-space and
    visibility maps), its indexes, its TOAST table (with the TOAST index).  Their sum
    is ``pg_total_relation_size``."""
    import psycopg

    with psycopg.connect(dbapi_url(database_url)) as conn:
        rows = conn.execute(
            "SELECT c.relname, pg_table_size(c.oid) - coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0), "
            "pg_indexes_size(c.oid), coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0), "
            "pg_total_relation_size(c.oid) "
            "FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'").fetchall()
    out = {}
    for name, heap, index, toast, total in rows:
        assert heap + index + toast == total, name
        out[str(name)] = {"heap": int(heap), "index": int(index), "toast": int(toast)}
    return out


def message_id_widths(database_url: str, templates: Sequence[int]) -> dict[str, float]:
    """The mean length of a Message-ID in the templates' mail (as delivery rewrote it, with
    the reply token) and in the copies' (``clone_games`` writes shorter ones)."""
    import psycopg

    with psycopg.connect(dbapi_url(database_url)) as conn:
        mine, copied = conn.execute(
            "SELECT avg(length(message_id)) FILTER (WHERE game_id = ANY(%s)), "
            "avg(length(message_id)) FILTER (WHERE NOT game_id = ANY(%s)) FROM outbox",
            [list(templates), list(templates)]).fetchone()  # type: ignore[misc]
    return {"templates": float(mine or 0), "copies": float(copied or 0)}


def row_counts(database_url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(dbapi_url(database_url)) as conn:
        names = [r[0] for r in conn.execute(
            "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'")]
        return {n: int(conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0]) for n in names}  # type: ignore[index]


def total(s: Sizes) -> int:
    return sum(sum(parts.values()) for parts in s.values())


def per_game(before: Sizes, after: Sizes, games: int) -> dict[str, dict[str, float]]:
    """Bytes per game by table and part, for the tables that grew or shrank."""
    out = {}
    for table in sorted(after):
        parts = {p: (after[table][p] - before.get(table, {}).get(p, 0)) / games for p in PARTS}
        if any(parts.values()):
            out[table] = {**parts, "total": sum(parts.values())}
    return out


def rows_per_game(before: dict[str, int], after: dict[str, int], games: int) -> dict[str, float]:
    return {t: (after[t] - before.get(t, 0)) / games for t in sorted(after) if after[t] != before.get(t, 0)}


def retention(ctx: Any) -> dict[str, int]:
    """pbem's retention as it runs a day after RETENTION_DAYS have passed."""
    from pbem.workers.clock import prune

    now = ctx.now() + timedelta(days=int(ctx.config["RETENTION_DAYS"]) + 1)
    return prune(dataclasses.replace(ctx, now=lambda: now))


def _plies(database_url: str, games: Sequence[int]) -> list[int]:
    import psycopg

    with psycopg.connect(dbapi_url(database_url)) as conn:
        return [int(r[0]) for r in conn.execute("SELECT ply FROM game WHERE id = ANY(%s) ORDER BY id", [list(games)])]


def _kb(breakdown: dict[str, dict[str, float]]) -> float:
    return sum(t["total"] for t in breakdown.values()) / KB


def _biggest(breakdown: dict[str, dict[str, float]], n: int = 3) -> str:
    top = sorted(breakdown.items(), key=lambda kv: -kv[1]["total"])[:n]
    return ", ".join(f"{t} {v['total'] / KB:.1f}" for t, v in top)


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    templates_each, batch, active_count = (2, 200, 200) if quick else (4, 2000, 2000)
    url = infra.database("cost")
    ctx = gamedata.context(url)
    outcomes = delivering(ctx)
    finished, active = make_templates(ctx, templates_each, templates_each, random.Random(16))
    plies = {kind: _plies(url, ids) for kind, ids in (("finished", finished), ("active", active))}
    say(f"cost: templates played, plies {plies}, mail {outcomes}")

    spare_from_retention(url, finished + active)
    waits = [quiet(url)]
    vacuum(url, full=True)  # the templates compact: the baseline of the VACUUM FULL figure too
    vacuum(url)
    base, base_rows = sizes(url), row_counts(url)
    # The active copies first, into pages nobody freed: they hold all their rows' bytes.
    active_copies = add_copies(url, active, active_count)
    vacuum(url)
    running, running_rows = sizes(url), row_counts(url)
    add_copies(url, finished, batch)
    vacuum(url)
    fresh, fresh_rows = sizes(url), row_counts(url)
    widths = message_id_widths(url, finished)
    pruned_first = retention(ctx)
    settle(url, waits)
    first, first_rows = sizes(url), row_counts(url)
    add_copies(url, finished, batch)
    pruned = retention(ctx)
    settle(url, waits)
    second, second_rows = sizes(url), row_counts(url)
    ctx.engine.dispose()
    compact = compacted(infra, url, waits, without=active_copies)

    playing = per_game(base, running, active_count)
    before = per_game(running, fresh, batch)
    after = per_game(first, second, batch)
    after_full = per_game(base, compact, 2 * batch)
    held = "" if min(waits) >= 0 else \
        f"; VACUUM gave up waiting {QUIET_SECONDS:.0f} s for another session's transaction: overstated"
    figures = [
        Figure("cost: finished 4-player game, after retention", _kb(after), "KB", GOAL_KB, "max-value",
               note=f"plain VACUUM after churn, mean of {batch} copies; biggest (KB): {_biggest(after)}{held}"),
        Figure("cost: finished 4-player game, after retention (VACUUM FULL)", _kb(after_full), "KB", 0, "info",
               note=f"every table rewritten: the lower bound, mean of {2 * batch} copies{held}"),
        Figure("cost: finished 4-player game, before retention", _kb(before), "KB", 0, "info",
               note=f"mail kept; mean of {batch} copies; biggest (KB): {_biggest(before)}"),
        Figure(f"cost: active 4-player game (ply {ACTIVE_PLIES[0]}-{ACTIVE_PLIES[1]})", _kb(playing), "KB", 0,
               "info", note=f"mean of {active_count} copies; biggest (KB): {_biggest(playing)}"),
    ]
    for f in figures:
        say(f"  {f.what}: {f.value:.2f} KB")
    details = {"cost": {
        "unit": "bytes per game (KB = 1024 bytes)",
        "template_plies": plies,
        "template_mail": outcomes,
        "finished_before_retention": before,
        "finished_after_retention": after,
        "finished_after_retention_vacuum_full": after_full,
        "active": playing,
        "rows_per_game": {
            "finished_before_retention": rows_per_game(running_rows, fresh_rows, batch),
            "finished_after_retention": rows_per_game(first_rows, second_rows, batch),
            "active": rows_per_game(base_rows, running_rows, active_count),
        },
        "outbox_message_id_chars": widths,
        "vacuum_waited_s": waits,
        "prune": {"first_batch": pruned_first, "second_batch": pruned},
    }}
    return figures, details
