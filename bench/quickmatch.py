"""Quick match: 1,000 people ask (``games.quick_match.request``), then confirm one after
another in a shuffled order (``games.accept`` with their mailed link), on PostgreSQL
through the service layer: each confirmation seats them at once if it can (with the
people waiting, nearest ratings first).  Measured: the time to seat everyone (all the
confirmations, the matching inside them), the p99 of one confirmation, and how close the
ratings at each new table are (the median and p90 of a table's spread, highest minus
lowest rating, against the same tables drawn at random from the pool).

The people have varied ratings (a ``rating`` row each: mu 5-45, sigma 2-8), accept
one to three player counts, and want one of two speeds and one of four languages."""

from __future__ import annotations

import random
import time
from typing import Any, Callable

from . import gamedata
from .common import Figure, median, percentile
from .infra import Infra

PEOPLE = 1_000


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    from sqlmodel import col, select

    from pbem import games
    from pbem.core.db import session_scope
    from pbem.core.match_tables import MatchRequest
    from pbem.core.models import Rating, Seat
    from pbem.games.lobby import Joiner
    from pbem.games.quick_match import Wish
    from pbem.people.players import address_hash
    from pbem.words.language import LANGUAGES

    people = PEOPLE
    ctx = gamedata.context(infra.database("quickmatch"))
    rng = random.Random(30)
    start = time.perf_counter()
    with session_scope(ctx.engine) as session:
        for n in range(people):
            session.add(Rating(address_hash=address_hash(f"q{n}@bench.example"), mu=rng.uniform(5, 45),
                               sigma=rng.uniform(2, 8), games=5))
    for n in range(people):
        counts = tuple(sorted(rng.sample((2, 3, 4), rng.choice((1, 1, 2, 3)))))
        games.quick_match.request(ctx, Wish(Joiner(f"P{n}", f"q{n}@bench.example", LANGUAGES[n % len(LANGUAGES)]),
                                            counts, rng.choice((24, 72))))
    with session_scope(ctx.engine) as session:
        salts = list(session.exec(select(Seat.token_salt).join(MatchRequest, col(MatchRequest.seat_id) == col(Seat.id))))
    say(f"quick match: {people} requests made in {time.perf_counter() - start:.1f} s")
    rng.shuffle(salts)
    each = []
    start = time.perf_counter()
    for salt in salts:
        t0 = time.perf_counter()
        games.accept(ctx, gamedata.seat_token(salt))
        each.append(time.perf_counter() - t0)
    total = time.perf_counter() - start
    with session_scope(ctx.engine) as session:
        rows = session.exec(select(MatchRequest.seated_game_id, MatchRequest.rating)).all()
    tables: dict[int, list[float]] = {}
    for game_id, rating in rows:
        if game_id is not None:
            tables.setdefault(game_id, []).append(rating or 0.0)
    spreads = [max(r) - min(r) for r in tables.values()]
    ratings = [r or 0.0 for _, r in rows]
    # The floor: the same tables drawn at random from the pool (what seating by arrival alone gives).
    drawn = [max(d) - min(d) for d in (rng.sample(ratings, len(r)) for r in tables.values())]
    pool = median(drawn)
    seated = sum(len(r) for r in tables.values())
    ctx.engine.dispose()
    med, p90 = median(spreads), percentile(spreads, 90)
    say(f"  {seated} of {people} seated at {len(tables)} tables in {total:.1f} s "
        f"(p99 of a confirmation {percentile(each, 99) * 1000:.1f} ms); rating spread per table: "
        f"median {med:.1f}, p90 {p90:.1f} (tables drawn at random: median {pool:.1f})")
    figures = [
        Figure(f"quick match: {people:,} people confirm, time to seat them all", total, "s", 60.0, "max-value",
               note=f"{seated} seated at {len(tables)} tables; the rest wait for people who accept their counts "
                    f"and speed; p99 of one confirmation {percentile(each, 99) * 1000:.1f} ms"),
        Figure("quick match: median rating spread per table (highest - lowest)", med, "points", 0.0, "info",
               pool, "tables drawn at random",
               note=f"p90 {p90:.1f}; ratings are mu - 3 sigma; people are seated as soon as a table can start, "
                    "so the nearest ratings are chosen among those waiting at that moment"),
    ]
    return figures, {"quickmatch": {"seconds": total, "seated": seated, "tables": len(tables),
                                    "spread_median": med, "spread_p90": p90, "random_spread": pool,
                                    "confirm_p99_ms": percentile(each, 99) * 1000}}
