"""The benchmark's pure helpers (``bench/``): percentile math, the pass/miss verdicts, the
move client's legal moves, and the reference rules' agreement with pbem; and, on PostgreSQL,
the benchmark's games and their copies against the schema and services of this commit.
No timings here: ``python -m bench --quick`` is the smoke run of the measurements themselves."""

from __future__ import annotations

import doctest
import random
from typing import Any

import pytest

import bench.arrivals
import bench.common
import bench.load
import bench.smtp_sink
from bench.common import Figure, percentile, table
from bench.load import legal_moves
from bench.reference_rules import RefBoard, agreement, conformance, from_deal, pbem_summary, play_randomly
from pbem.rules import classic_board
from pbem.rules.deal import deal_game
from pbem.rules.playout import random_game
from pbem.rules.views import public_view
from pbem import games


def test_the_doctests_of_the_helpers_pass() -> None:
    for module in (bench.common, bench.load, bench.arrivals, bench.smtp_sink):
        failed, _ = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert failed == 0, module.__name__


def test_percentiles_interpolate_between_ranks() -> None:
    values = [float(v) for v in range(1, 101)]  # 1..100
    assert percentile(values, 0) == 1 and percentile(values, 100) == 100
    assert percentile(values, 50) == pytest.approx(50.5)
    assert percentile(values, 99) == pytest.approx(99.01)
    assert percentile(list(reversed(values)), 99) == percentile(values, 99)
    assert percentile([7.0], 50) == 7.0
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def test_figures_judge_their_goals() -> None:
    more = Figure("throughput", 50, "req/s", 0.4, "min-ratio", floor=100, floor_what="floor")
    assert more.ratio == 0.5 and more.passed
    assert not Figure("t", 30, "req/s", 0.4, "min-ratio", floor=100).passed
    assert Figure("read", 12, "ms", 1.3, "max-ratio", floor=10).passed
    assert not Figure("read", 13, "ms", 1.3, "max-ratio", floor=10).passed
    assert Figure("p99", 49, "ms", 50, "max-value").passed
    assert Figure("p99", 60, "ms", 50, "max-value", floor=20).passed is False
    assert Figure("no floor", 1, "x", 2, "min-ratio").passed is None
    assert Figure("wins", 65, "%", 65, "min-value").passed
    assert not Figure("wins", 64.9, "%", 65, "min-value").passed
    assert Figure("wins", 70, "%", 65, "min-value").goal_text() == ">= 65 %"
    text = table([more, Figure("p99", 60, "ms", 50, "max-value")])
    assert "| what" in text and "pass" in text and "MISS" in text and "0.50" in text


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_move_client_finds_the_same_legal_moves_as_pbem(seed: int) -> None:
    board = classic_board()
    neighbours = {tid: sorted(board.neighbours(tid)) for tid in board.ids}
    rng = random.Random(seed)
    game = deal_game(["ann", "bob"], rng).game()
    while not game.is_over():
        view = public_view(game)
        assert sorted(legal_moves(view["huts"], neighbours)) == sorted(str(m) for m in game.legal_moves())
        game.push(game.random_move(rng))  # type: ignore[arg-type]


def test_the_reference_rules_agree_with_pbem_on_whole_games() -> None:
    assert agreement(range(1, 4)) == []
    assert agreement(range(4, 6), ("ann", "bob")) == []
    assert agreement(range(6, 8), ("ann", "bob", "cid", "dee")) == []


def test_the_reference_rules_give_the_conformance_results() -> None:
    """The fixed move sequences of tests/conformance_data: same results, same refusals."""
    checked, problems = conformance()
    assert problems == []
    assert checked >= 15


def test_a_reference_game_replayed_in_pbem_ends_the_same() -> None:
    """The other way round: the reference chooses the moves, pbem replays them."""
    board = RefBoard.classic()
    for seed in (21, 22):
        deal = deal_game(["ann", "bob", "cid"], random.Random(seed))
        ref = from_deal(board, deal)
        rng = random.Random(seed)
        moves = []
        while not ref.end:
            s, t = rng.choice(ref.legal_moves())
            moves.append(f"{s}-{t}")
            ref.play(s, t)
        game = deal.game()
        for text in moves:
            game.push_text(text)
        assert pbem_summary(game) == ref.summary()


def test_a_reference_playout_reaches_an_end() -> None:
    board = RefBoard.classic()
    game = from_deal(board, deal_game(["ann", "bob", "cid"], random.Random(5)))
    play_randomly(game, random.Random(5))
    assert game.end in ("twelfth-village", "no-legal-move")
    assert game.final_scores() is not None and len(game.villages) <= 12
    # pbem's own random game from the same deal ends too (the policies are alike, the draws not).
    assert random_game(random.Random(5)).is_over()


def test_cpu_seconds_counts_a_busy_process_and_nothing_for_one_that_is_gone() -> None:
    """The CPU-per-request figures read /proc: this process's own time grows while it
    works, and a pid that cannot exist (above Linux's largest pid_max) counts 0."""
    import os
    import time

    from bench.infra import cpu_seconds

    before = cpu_seconds([os.getpid()])
    started = time.process_time()
    spins = 0
    while time.process_time() - started < 0.3:
        spins += 1
    assert cpu_seconds([os.getpid()]) - before >= 0.2
    assert cpu_seconds([(1 << 22) + 1]) == 0


def test_the_bench_games_and_their_copies_work_with_this_schema(bench_db: Any) -> None:
    """bench/gamedata.py against the real schema and services, so that a change to either
    (a column, an id, a start-up check) shows here and not only in ``python -m bench``:
    games made and played through the service layer, copies written with COPY (fresh public
    ids, seat tokens that open their seats, a pending turn mail that can be composed) and
    copies written inside PostgreSQL; the benchmark servers' settings pass the start-up checks."""
    from sqlalchemy import text

    from bench import gamedata
    from bench.infra import service_env
    from pbem.core import tokens
    from pbem.core.config import check_safe, load_config
    from pbem.core.db import session_scope
    from pbem.mail.compose import compose
    from pbem.core.models import Outbox

    postgresql_url, ctx = bench_db.url, bench_db.ctx
    running, toks = gamedata.new_game(ctx, 3)
    ply = gamedata.play(ctx, toks, 6, random.Random(3))
    invited, _ = gamedata.new_game(ctx, 2, start=False)
    template = games.public_game(ctx, gamedata.public_id_of(ctx, running))
    copies = gamedata.clone_games(postgresql_url, [running, invited], 4, pending_turn_mail=True)
    for game_id, copy_toks in copies[::2]:  # the copies of the running game
        view = games.public_game(ctx, gamedata.public_id_of(ctx, game_id))
        assert (view["huts"], view["ply"]) == (template["huts"], ply)
        assert games.seat_view(ctx, copy_toks[0])["ply"] == ply
    game_id, copy_toks = copies[0]
    seat = template["next_seat"]
    mine = games.seat_view(ctx, copy_toks[seat])
    assert games.submit_move(ctx, copy_toks[seat], mine["legal_moves"][0], None, ply)["ply"] == ply + 1
    gamedata.clone_games_in_db(postgresql_url, [running, invited], 20)
    with session_scope(ctx.engine) as session:
        pending = session.exec(text("SELECT id FROM outbox WHERE status = 'pending' AND kind = 'turn' "
                                    "AND game_id = :g"), params={"g": copies[2][0]}).all()
        assert len(pending) == 1  # the copy nobody moved in waits for its turn mail
        row = session.get(Outbox, pending[0][0])
        assert row is not None and compose(ctx, session, row) is not None
    with bench_db.engine.connect() as conn:
        ids = [r[0] for r in conn.execute(text("SELECT public_id FROM game"))]
    assert len(ids) == 2 + 4 + 20 == len(set(ids))
    assert all(tokens.is_public_id(i) for i in ids), ids
    check_safe(load_config({}, environ=service_env(postgresql_url, "redis://127.0.0.1:6379/0")))


def test_a_computer_match_scores_a_win_a_shared_win_or_a_loss() -> None:
    from bench.bots import _match

    scores = {_match(("hard", "easy", seed, 16)) for seed in range(4)}
    assert scores <= {0.0, 0.5, 1.0} and scores
    # The same seed plays the same game (no time box in the matches).
    assert _match(("medium", "easy", 5, 16)) == _match(("medium", "easy", 5, 16))


def test_the_a_b_tool_runs_two_trees_in_turns(tmp_path: Any) -> None:
    """``python -m bench.ab`` (the changes' A/B under the move load), briefly: both
    servers take their windows and the medians are printed; a folder that is not
    a checkout is refused before anything starts."""
    import subprocess
    import sys

    from tests.support.rules import REPO

    run = [sys.executable, "-m", "bench.ab", "--b", str(REPO), "--rounds", "1", "--seconds", "1"]
    refused = subprocess.run([*run, "--a", str(tmp_path)], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "is not a checkout" in refused.stderr
    done = subprocess.run([*run, "--a", str(REPO), "--b-args", "-w 2"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines if line.startswith("window")] == ["window 1 A", "window 1 B"]
    assert all("errors 0" in line for line in lines if line.startswith("window"))
    assert any(line.startswith("B (") and "-w 2" in line and "moves/s" in line for line in lines)
