"""Benchmark games: a few made for real through the service layer, then as many copies as a
measurement needs, written with COPY (never through the API).

A copy keeps its template's snapshot, history and mail history, with fresh seats (new
salts, so new tokens, and its own email addresses)."""

from __future__ import annotations

import random
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable, Sequence

from .infra import BASE_URL, SECRET, dbapi_url

PLAYERS = [
    {"name": "Ann", "email": "ann@bench.example"},
    {"name": "Bob", "email": "bob@bench.example"},
    {"name": "Cid", "email": "cid@bench.example"},
    {"name": "Dee", "email": "dee@bench.example"},
]

def _columns(model: str, *, without: Sequence[str] = ()) -> list[str]:
    """A table's columns as pbem's model declares them (the migrations match the models),
    so that a column added later is copied too instead of breaking or emptying the copies."""
    from sqlalchemy import inspect

    from pbem.core import models

    return [c.name for c in inspect(getattr(models, model)).local_table.columns if c.name not in without]


GAME_COLUMNS = _columns("Game")
SEAT_COLUMNS = _columns("Seat")
MOVE_COLUMNS = _columns("MoveRecord", without=("id",))
OUTBOX_COLUMNS = _columns("Outbox", without=("id",))


def context(database_url: str) -> Any:
    """A service context on the benchmark database: mail stays in the outbox (no relay)."""
    from pbem.core.config import load_config
    from pbem.core.context import Context
    from pbem.core.db import make_engine

    config = load_config({"DATABASE_URL": database_url, "SECRET_KEY": SECRET, "BASE_URL": BASE_URL,
                          "BROKER_URL": "", "SMTP_HOST": "", "MAILBOX": False}, environ={})
    return Context(engine=make_engine(database_url), config=config)


def seat_token(salt: str) -> str:
    from pbem.core import tokens

    return tokens.derive(SECRET, "seat", salt)


def game_id_of(ctx: Any, public_id: str) -> int:
    """The internal id (the one the other tables refer to) of the game with this public id."""
    from sqlmodel import select

    from pbem.core.db import session_scope
    from pbem.core.models import Game

    with session_scope(ctx.engine) as session:
        found = session.exec(select(Game.id).where(Game.public_id == public_id)).first()
        assert found is not None, public_id
        return int(found)


def public_id_of(ctx: Any, game_id: int) -> str:
    """The public id (the one in links and ``/api/v1/games/{id}``) of the game ``game_id``."""
    from pbem.core.db import session_scope
    from pbem.core.models import Game

    with session_scope(ctx.engine) as session:
        game = session.get(Game, game_id)
        assert game is not None, game_id
        return str(game.public_id)


def _seat_tokens(ctx: Any, game_id: int) -> list[str]:
    from sqlmodel import col, select

    from pbem.core.db import session_scope
    from pbem.core.models import Seat

    with session_scope(ctx.engine) as session:
        seats = session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.position))).all()
        return [seat_token(s.token_salt) for s in seats]


def new_game(ctx: Any, players: int = 2, *, start: bool = True) -> tuple[int, list[str]]:
    """A game made through the service layer, every seat accepted (so dealt) when ``start``.
    Returns the game's internal id (the copies and the outbox use it; :func:`public_id_of`
    gives the public one) and its seats' tokens in seat order."""
    from pbem import games

    game_id = game_id_of(ctx, games.start_game(ctx, games.parse_players(PLAYERS[:players])))
    toks = _seat_tokens(ctx, game_id)
    if start:
        for t in toks:  # in seat order: the first player, who started the game, confirms it first
            games.accept(ctx, t)
        toks = _seat_tokens(ctx, game_id)  # seats may be renumbered when the game starts
    return game_id, toks


def templates(ctx: Any, count: int = 8) -> list[tuple[int, dict[str, Any]]]:
    """``count`` new two-player games to copy, each with its public view (the position the
    move clients start their copies from).  Disposes of ``ctx``'s engine afterwards: the
    copies are written over a connection of their own."""
    from pbem import games

    made = []
    for _ in range(count):
        game_id, _toks = new_game(ctx, 2)
        made.append((game_id, dict(games.public_game(ctx, public_id_of(ctx, game_id)))))
    ctx.engine.dispose()
    return made


def play(ctx: Any, toks: Sequence[str], plies: int, rng: random.Random, *, long: bool = True) -> int:
    """Play random legal moves through the service layer until ``plies`` moves or the end;
    with ``long``, moves that found no village come first (games then last 45 moves and
    more).  Returns the ply reached."""
    from pbem import games

    view = games.seat_view(ctx, toks[0])
    while view["ply"] < plies and view["status"] == "active":
        seat = view["next_seat"]
        mine = games.seat_view(ctx, toks[seat])
        moves = mine["legal_moves"]
        quiet = [m for m in moves if m not in mine["founding"]]
        move = rng.choice(quiet if long and quiet else moves)
        view = games.submit_move(ctx, toks[seat], move, None, mine["ply"])
    return int(view["ply"])


def game_at(ctx: Any, players: int, plies: int, rng: random.Random, *, tries: int = 20) -> tuple[int, list[str]]:
    """A game of ``players`` played (as :func:`play` does) to ply ``plies``; one that
    ended before it stays in the database, finished, and another is tried."""
    for _attempt in range(tries):
        game_id, toks = new_game(ctx, players)
        if play(ctx, toks, plies, rng) >= plies:
            return game_id, toks
    raise RuntimeError(f"no game of {players} players reached ply {plies} in {tries} tries")


# -- copies ----------------------------------------------------------------------


def _rows(conn: Any, sql: str, args: Sequence[Any]) -> list[dict[str, Any]]:
    cur = conn.execute(sql, args)
    names = [d.name for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def clone_games(database_url: str, templates: Sequence[int], count: int, *, history: bool = True,
                pending_turn_mail: bool = False, batch: int = 20000) -> list[tuple[int, list[str]]]:
    """Write ``count`` copies of the ``templates`` games (round robin) with COPY; returns
    each copy's id and seat tokens.  ``history`` copies the move rows and the mail already
    sent too; ``pending_turn_mail`` adds, for each running copy, the turn mail of the seat
    to move, waiting to be delivered."""
    import psycopg

    from pbem.core import tokens

    url = dbapi_url(database_url)
    out: list[tuple[int, list[str]]] = []
    with psycopg.connect(url) as conn:
        games = {g["id"]: g for g in _rows(conn, f"SELECT {', '.join(GAME_COLUMNS)} FROM game WHERE id = ANY(%s)",
                                           [list(templates)])}
        seats: dict[int, list[dict[str, Any]]] = {}
        for s in _rows(conn, f"SELECT {', '.join(SEAT_COLUMNS)} FROM seat WHERE game_id = ANY(%s) ORDER BY position",
                       [list(templates)]):
            seats.setdefault(s["game_id"], []).append(s)
        moves: dict[int, list[dict[str, Any]]] = {}
        mails: dict[int, list[dict[str, Any]]] = {}
        if history:
            for m in _rows(conn, f'SELECT {", ".join(_q(MOVE_COLUMNS))} FROM move WHERE game_id = ANY(%s)',
                           [list(templates)]):
                moves.setdefault(m["game_id"], []).append(m)
            for m in _rows(conn, f"SELECT {', '.join(OUTBOX_COLUMNS)} FROM outbox WHERE game_id = ANY(%s)",
                           [list(templates)]):
                mails.setdefault(m["game_id"], []).append(m)
        next_game = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM game").fetchone()[0]  # type: ignore[index]
        next_seat = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM seat").fetchone()[0]  # type: ignore[index]
        done = 0
        while done < count:
            n = min(batch, count - done)
            game_rows, seat_rows, move_rows, mail_rows = [], [], [], []
            for k in range(done, done + n):
                template = games[templates[k % len(templates)]]
                gid = next_game + k
                game = dict(template, id=gid, public_id=tokens.public_id())
                game_rows.append([game[c] for c in GAME_COLUMNS])
                toks = []
                seat_ids: dict[int, int] = {}
                emails: dict[int, str] = {}
                for s in seats[template["id"]]:
                    salt = uuid.uuid4().hex
                    token = seat_token(salt)
                    toks.append(token)
                    sid = next_seat
                    next_seat += 1
                    seat_ids[s["id"]] = sid
                    row = dict(s, id=sid, game_id=gid, token_salt=salt,
                               token_hash=tokens.digest(token),
                               email=f"{s['name'].lower()}.{gid}@bench.example")
                    seat_rows.append([row[c] for c in SEAT_COLUMNS])
                    emails[sid] = row["email"]
                    if pending_turn_mail and template["status"] == "active" and s["position"] == template["turn_seat"]:
                        mail_rows.append(_mail_row(gid, sid, row["email"], "turn", f"ply:{template['ply']}",
                                                   "pending", template))
                out.append((gid, toks))
                for m in moves.get(template["id"], []):
                    move_rows.append([gid if c == "game_id" else m[c] for c in MOVE_COLUMNS])
                for m in mails.get(template["id"], []):
                    if pending_turn_mail and m["kind"] == "turn" and m["event"] == f"ply:{template['ply']}":
                        continue  # written above, waiting
                    sid = seat_ids.get(m["seat_id"])
                    email = emails[sid] if sid else m["recipient"]
                    mail_rows.append(_mail_row(gid, sid, email, m["kind"], m["event"], "sent", template,
                                               language=m.get("language")))
            with conn.cursor() as cur:
                _copy(cur, "game", GAME_COLUMNS, game_rows)
                _copy(cur, "seat", SEAT_COLUMNS, seat_rows)
                if move_rows:
                    _copy(cur, "move", MOVE_COLUMNS, move_rows)
                if mail_rows:
                    _copy(cur, "outbox", OUTBOX_COLUMNS, mail_rows)
            conn.commit()
            done += n
        for table in ("game", "seat", "move", "outbox"):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                         f"(SELECT coalesce(max(id), 1) FROM {table}))")
        conn.commit()
    return out


def clone_games_in_db(database_url: str, templates: Sequence[int], count: int, *, mails_per_game: int = 4) -> None:
    """Like :func:`clone_games`, for many copies whose tokens nobody needs: the rows are
    written inside PostgreSQL (``INSERT ... SELECT`` from the templates), each copy with
    its moves and its last ``mails_per_game`` messages (as sent).  Seats get salts and
    token hashes that open nothing."""
    import psycopg

    game_cols = [c for c in GAME_COLUMNS if c != "id"]
    # A fresh public id per copy, from the public alphabet (hex without 0 and 1).
    game_values = {"public_id": "translate(substr(md5(random()::text || c.new_id), 1, 14), '01', 'wx')"}
    seat_cols = [c for c in SEAT_COLUMNS if c not in ("id", "game_id", "email", "token_salt", "token_hash")]
    move_cols = [c for c in MOVE_COLUMNS if c != "game_id"]
    url = dbapi_url(database_url)
    with psycopg.connect(url) as conn:
        conn.execute("SET LOCAL synchronous_commit = off")
        base = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM game").fetchone()[0]  # type: ignore[index]
        conn.execute("CREATE TEMP TABLE clone_map (new_id integer PRIMARY KEY, template integer NOT NULL) "
                     "ON COMMIT DROP")
        conn.execute("INSERT INTO clone_map SELECT %s + g, (%s::integer[])[1 + g %% %s] "
                     "FROM generate_series(0, %s - 1) AS g", [base, list(templates), len(templates), count])
        conn.execute(f"INSERT INTO game (id, {', '.join(game_cols)}) "
                     f"SELECT c.new_id, {', '.join(game_values.get(c, 't.' + c) for c in game_cols)} "
                     "FROM clone_map c JOIN game t ON t.id = c.template ORDER BY c.new_id")
        conn.execute(f"INSERT INTO seat (game_id, email, token_salt, token_hash, {', '.join(seat_cols)}) "
                     "SELECT c.new_id, lower(s.name) || '.' || c.new_id || '@bench.example', "
                     "md5('salt-' || c.new_id || '-' || s.position), "
                     "encode(sha256(convert_to('bench-' || c.new_id || '-' || s.position, 'UTF8')), 'hex'), "
                     f"{', '.join('s.' + c for c in seat_cols)} "
                     "FROM clone_map c JOIN seat s ON s.game_id = c.template ORDER BY c.new_id, s.position")
        conn.execute(f"INSERT INTO move (game_id, {', '.join(_q(move_cols))}) "
                     f"SELECT c.new_id, {', '.join('m.' + c for c in _q(move_cols))} "
                     "FROM clone_map c JOIN move m ON m.game_id = c.template ORDER BY c.new_id, m.ply")
        mail_values = {
            "game_id": "c.new_id", "seat_id": "ns.id", "recipient": "coalesce(ns.email, o.recipient)",
            "message_id": "'<' || md5(random()::text || c.new_id || '-' || o.id) || '.' || o.kind || '@clans.bench>'",
            "status": "'sent'", "attempts": "1", "last_error": "NULL", "next_attempt_at": "o.created_at",
            "sent_at": "o.created_at"}
        conn.execute(
            f"INSERT INTO outbox ({', '.join(_q(OUTBOX_COLUMNS))}) "
            f"SELECT {', '.join(mail_values.get(c, 'o.' + c) for c in OUTBOX_COLUMNS)} "
            "FROM clone_map c "
            "JOIN (SELECT *, row_number() OVER (PARTITION BY game_id ORDER BY id DESC) AS rn FROM outbox "
            "      WHERE game_id = ANY(%s)) o ON o.game_id = c.template AND o.rn <= %s "
            "LEFT JOIN seat ts ON ts.id = o.seat_id "
            "LEFT JOIN seat ns ON ns.game_id = c.new_id AND ns.position = ts.position "
            "ORDER BY c.new_id, o.id", [list(templates), mails_per_game])
        for table in ("game", "seat", "move", "outbox"):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                         f"(SELECT coalesce(max(id), 1) FROM {table}))")
        conn.commit()


def _q(columns: Iterable[str]) -> list[str]:
    return [f'"{c}"' for c in columns]


def _copy(cur: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    with cur.copy(f'COPY {table} ({", ".join(_q(columns))}) FROM STDIN') as copy:
        for row in rows:
            copy.write_row(row)


def _mail_row(game_id: int, seat_id: int | None, recipient: str, kind: str, event: str, status: str,
              template: dict[str, Any], language: str | None = None) -> list[Any]:
    now = datetime.now(timezone.utc)
    row = {
        "game_id": game_id, "seat_id": seat_id, "login_id": None, "kind": kind, "event": event,
        "recipient": recipient, "message_id": f"<{uuid.uuid4().hex}.{kind}@clans.bench>", "status": status,
        "attempts": 1 if status == "sent" else 0, "last_error": None,
        "created_at": template["created_at"], "next_attempt_at": now - timedelta(seconds=1),
        "sent_at": now if status == "sent" else None, "language": language, "fingerprint": None,
    }
    return [row[c] for c in OUTBOX_COLUMNS]


def retire(database_url: str, game_ids: Sequence[int]) -> None:
    """Template games are the harness's, not players': no mail goes for them and the
    clock leaves them alone (a benchmark copies them first)."""
    import psycopg

    with psycopg.connect(dbapi_url(database_url)) as conn:
        conn.execute("UPDATE outbox SET status = 'skipped' WHERE game_id = ANY(%s) AND status = 'pending'",
                     [list(game_ids)])
        conn.execute("UPDATE game SET status = 'finished', deadline = NULL WHERE id = ANY(%s)", [list(game_ids)])


def analyze(database_url: str) -> None:
    """Fresh planner statistics, as autovacuum would have them on a live database."""
    import psycopg

    with psycopg.connect(dbapi_url(database_url), autocommit=True) as conn:
        conn.execute("ANALYZE")


def count_games(database_url: str) -> int:
    import psycopg

    with psycopg.connect(dbapi_url(database_url)) as conn:
        return int(conn.execute("SELECT count(*) FROM game").fetchone()[0])  # type: ignore[index]
