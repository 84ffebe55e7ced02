"""Random playouts: the rules' throughput benchmark and a source of test games."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from typing import Callable, Sequence, TypeVar

from .bots import choose_move
from .deal import deal_game
from .game import _FIELD, _FIELD_MASK, _NCLANS, Game
from .plain import plain_playout
from .tables import BIG_GROUP, VILLAGE_CHIPS, VILLAGE_EPOCHS, VILLAGE_VALUES

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
class Finish:
    """How a random finish of a game ended: each clan's score (in ``CLANS``
    order), each seat's chips, and the moves it took."""

    clan_scores: list[int]
    chips: list[int]
    moves: int


def random_finish(game: Game, rng: random.Random) -> Finish:
    """Play ``game`` on to its end as :func:`play_randomly` would (the same draws
    of ``rng``, so the same moves and scores) and return only the scores,
    leaving ``game`` as it was.

    This is what the ``hard`` computer's search needs of a playout, and all it
    pays for: the position's arrays are copied, and no history entry, village
    record or occupancy mask is made on the way."""
    counts, packed, edges, slot, deg = (game._counts[:], game._packed[:], game._edges[:], game._slot[:],
                                        game._deg[:])
    arcs, incident = game._arcs, game._incident
    terrains, ids = game.board.terrains, game.board.ids
    scores, chips = game.clan_scores[:], game.chips[:]
    players = len(game.players)
    seat = (game.first + len(game.history)) % players
    villages = len(game.villages)
    uniform = rng.random
    moves = 0
    if game.end is not None:
        return Finish(scores, chips, 0)
    while edges:
        while True:  # a uniformly random legal move, drawn as _play_randomly draws it
            k = int(uniform() * 2 * len(edges))
            s, t = arcs[edges[k >> 1] << 1 | k & 1]
            size = counts[s]
            if size < BIG_GROUP or counts[t] >= size:
                break
        counts[t] += size
        counts[s] = 0
        packed[t] += packed[s]
        packed[s] = 0
        moves += 1
        lonely: list[int] | None = None
        for u, e in incident[s]:
            if counts[u]:
                last = edges.pop()
                if last != e:
                    k = slot[e]
                    edges[k] = last
                    slot[last] = k
                d = deg[u] - 1
                deg[u] = d
                if not d:
                    if lonely is None:
                        lonely = [u]
                    else:
                        lonely.append(u)
        if lonely is not None:
            if len(lonely) > 1:
                lonely.sort(key=ids.__getitem__)  # the default order: ascending territory id
            for i in lonely:
                villages += 1
                if villages > VILLAGE_CHIPS:
                    break
                _strife(packed, counts, i)
                factor, bonus = VILLAGE_VALUES[VILLAGE_EPOCHS[villages], terrains[i]]
                points = factor * counts[i] + bonus
                if points:
                    field = packed[i]
                    c = 0
                    while field:
                        if field & _FIELD_MASK:
                            scores[c] += points
                        field >>= _FIELD
                        c += 1
                chips[seat] += 1
            if villages >= VILLAGE_CHIPS:
                break
        seat += 1
        if seat == players:
            seat = 0
    return Finish(scores, chips, moves)


def _strife(packed: list[int], counts: list[int], i: int) -> None:
    """Strife: where all five clans meet, each clan with a single hut loses it."""
    field, present, singles = packed[i], 0, 0
    while field:
        k = field & _FIELD_MASK
        if k:
            present += 1
            singles += k == 1
        field >>= _FIELD
    if present == _NCLANS and singles:
        for c in range(_NCLANS):
            if packed[i] >> (_FIELD * c) & _FIELD_MASK == 1:
                packed[i] -= 1 << (_FIELD * c)
                counts[i] -= 1


@dataclass(frozen=True)
class BenchResult:
    playouts: int
    seconds: float
    moves: int

    @property
    def per_second(self) -> float:
        return self.playouts / self.seconds


G = TypeVar("G")


def time_playouts(starts: Sequence[G], play: Callable[[G, random.Random], int],
                  rng: random.Random, seconds: float) -> BenchResult:
    """Play each start position in turn to the end (``play`` leaves the start as
    it was and returns the moves it made) for about ``seconds``; the same loop
    times any implementation of the rules."""
    start = time.perf_counter()
    n = moves = 0
    while True:
        moves += play(starts[n % len(starts)], rng)
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return BenchResult(n, elapsed, moves)


def bench_playouts(seconds: float = 3.0, seed: int = 1) -> BenchResult:
    """Random finishes (what the search plays) of classic games for about ``seconds``."""
    rng = random.Random(seed)
    starts = [deal_game(PLAYERS, rng).game() for _ in range(64)]
    return time_playouts(starts, lambda game, r: random_finish(game, r).moves, rng, seconds)


def bench_plain(seconds: float = 3.0, seed: int = 1) -> BenchResult:
    """The floor: :func:`pbem.rules.plain.plain_playout` from the same 64 deals as
    :func:`bench_playouts` for about ``seconds``."""
    rng = random.Random(seed)
    starts = []
    for _ in range(64):
        deal = deal_game(PLAYERS, rng)
        board = deal.board
        neighbours = {tid: sorted(board.neighbours(tid)) for tid in board.ids}
        terrain = {tid: board.terrain(tid) for tid in board.ids}
        setup = {tid: {clan: 1} for tid, clan in deal.setup}
        starts.append((neighbours, terrain, setup, deal.first))

    def play(start: tuple[dict[int, list[int]], dict[int, str], dict[int, dict[str, int]], int],
             r: random.Random) -> int:
        neighbours, terrain, setup, first = start
        return plain_playout(neighbours, terrain, setup, len(PLAYERS), first, r)[2]

    return time_playouts(starts, play, rng, seconds)


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
