"""Random playouts: the rules' throughput benchmark and a source of test games."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence, TypeVar

from .bots import choose_move
from .deal import deal_game
from .game import Game

PLAYERS = ("ann", "bob", "cid")


def random_game(rng: random.Random, players: tuple[str, ...] = PLAYERS) -> Game:
    """Deal a classic game and play uniformly random legal moves to the end."""
    game = deal_game(players, rng).game()
    play_randomly(game, rng)
    return game


def play_randomly(game: Game, rng: random.Random) -> None:
    """Play uniformly random legal moves (default village order) until the end."""
    game._play_randomly(rng)


@dataclass(frozen=True)
class BenchResult:
    playouts: int
    seconds: float
    moves: int

    @property
    def per_second(self) -> float:
        return self.playouts / self.seconds


class _Playable(Protocol):
    @property
    def ply(self) -> int: ...


G = TypeVar("G", bound=_Playable)


def time_playouts(starts: Sequence[G], copy: Callable[[G], G], play: Callable[[G, random.Random], None],
                  rng: random.Random, seconds: float) -> BenchResult:
    """Copy the start positions in turn and play each to the end for about
    ``seconds``; the same loop times any implementation of the rules."""
    start = time.perf_counter()
    n = moves = 0
    while True:
        game = copy(starts[n % len(starts)])
        play(game, rng)
        n += 1
        moves += game.ply
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return BenchResult(n, elapsed, moves)


def bench_playouts(seconds: float = 3.0, seed: int = 1) -> BenchResult:
    """Play random full games on the classic board for about ``seconds``."""
    rng = random.Random(seed)
    starts = [deal_game(PLAYERS, rng).game() for _ in range(64)]
    return time_playouts(starts, Game.copy, play_randomly, rng, seconds)


@dataclass(frozen=True)
class MatchStats:
    games: int
    wins: int
    median_ms: float
    max_ms: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.games


def autopilot_match(games: int = 400, seed: int = 1) -> MatchStats:
    """Two-player games, the autopilot against a random mover; either may
    starts (the first player is drawn at random).  A win is a strictly higher final score."""
    rng = random.Random(seed)
    wins = 0
    times: list[float] = []
    for n in range(games):
        game = deal_game(("autopilot", "random"), rng).game()
        while game.end is None:
            if game.turn == 0:
                start = time.perf_counter()
                move, order = choose_move(game, rng)
                times.append(time.perf_counter() - start)
            else:
                random_move = game.random_move(rng)
                assert random_move is not None  # the game is not over
                move, order = random_move, None
            game.push(move, order)
        finals = game.final_scores()
        assert finals is not None
        wins += finals[0] > finals[1]
    return MatchStats(games, wins, statistics.median(times) * 1000, max(times) * 1000)
