"""The pieces of the "cost of a game" benchmark (bench/cost.py) on PostgreSQL, at a tiny
scale: games played with their mail delivered, their copies (reply tokens included), the
sizes and the per-game breakdown, and what the retention deletes.  No timings here."""

from __future__ import annotations

import random
from typing import Any

import pytest
from sqlalchemy import text

COPIES = 20


def test_the_cost_measurement_counts_a_copys_rows_and_the_retention_deletes_its_mail(bench_db: Any) -> None:
    from bench import cost

    postgresql_url, ctx, count = bench_db.url, bench_db.ctx, bench_db.count
    outcomes = cost.delivering(ctx)
    (finished,), (active,) = cost.make_templates(ctx, 1, 1, random.Random(3))
    assert set(outcomes) == {"sent"}  # every message went as it was decided
    with bench_db.engine.connect() as conn:
        status, ply = conn.execute(text("SELECT status, ply FROM game WHERE id = :g"), {"g": finished}).one()
    assert status == "finished"
    assert cost.ACTIVE_PLIES[0] <= count("SELECT ply FROM game WHERE id = :g", g=active) <= cost.ACTIVE_PLIES[1]
    template = {t: count(f"SELECT count(*) FROM {t} WHERE game_id = :g", g=finished)
                for t in ("seat", "move", "outbox", "reply_token")}
    # A turn mail per move, each delivered with its reply token.
    assert template["move"] == ply == template["reply_token"] and template["seat"] == 4
    assert template["outbox"] > ply

    cost.spare_from_retention(postgresql_url, [finished, active])
    cost.vacuum(postgresql_url)
    base, base_rows = cost.sizes(postgresql_url), cost.row_counts(postgresql_url)
    copies = cost.add_copies(postgresql_url, [finished], COPIES)
    cost.vacuum(postgresql_url)
    grown, grown_rows = cost.sizes(postgresql_url), cost.row_counts(postgresql_url)

    rows = cost.rows_per_game(base_rows, grown_rows, COPIES)
    assert rows == {"game": 1, **{t: float(n) for t, n in template.items()}}
    breakdown = cost.per_game(base, grown, COPIES)
    assert set(breakdown) <= set(rows)
    assert all(v["total"] == v["heap"] + v["index"] + v["toast"] for v in breakdown.values())
    grown_by = cost.total(grown) - cost.total(base)
    assert sum(v["total"] for v in breakdown.values()) * COPIES == pytest.approx(grown_by)
    assert breakdown["outbox"]["total"] > 0 and breakdown["reply_token"]["heap"] > 0
    # Each copy's reply tokens name its own seats, with hashes of their own.
    assert count("SELECT count(*) FROM reply_token r JOIN seat s ON s.id = r.seat_id "
                 "WHERE r.game_id = ANY(:c) AND s.game_id = r.game_id", c=copies) == COPIES * template["reply_token"]
    assert count("SELECT count(DISTINCT token_hash) FROM reply_token") == grown_rows["reply_token"]

    pruned = cost.retention(ctx)
    # The copies' delivered mail and reply tokens go (the templates' mail, dated
    # ahead, stays), their moves and seats stay: the retention deletes nothing else.
    assert pruned["outbox_deleted"] == COPIES * template["outbox"]
    assert pruned["reply_tokens_deleted"] >= COPIES * template["reply_token"]
    after_rows = cost.row_counts(postgresql_url)
    assert after_rows == {**grown_rows, "outbox": base_rows["outbox"], "reply_token": after_rows["reply_token"]}
    assert count("SELECT count(*) FROM outbox WHERE game_id = ANY(:c)", c=copies) == 0
    assert count("SELECT count(*) FROM reply_token WHERE game_id = ANY(:c)", c=copies) == 0
    again = cost.retention(ctx)
    assert again["outbox_deleted"] == 0 and again["reply_tokens_deleted"] == 0
