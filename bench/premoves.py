"""Pre-moves: the move → next-turn-mail latency with the next player's pre-moves
set, against the same without them, in the same run on PostgreSQL.

A three-player game, in process: a move through ``games.submit_move``, then every
message it wrote to the outbox built and handed to a transport that keeps it
(``mail.delivery.deliver``), until the next person's turn mail is in hand.  With
pre-moves, the next player holds a list whose first entry the move itself makes
illegal and whose second is played at once: the turn mail then goes to the third
player, one stored move later.  The floor is the same without any list (the mail
goes to the next player)."""

from __future__ import annotations

import random
import time
from typing import Any, Callable

from . import gamedata
from .common import Figure, median, percentile
from .infra import Infra

#: The most that a move whose next player's pre-move fires may take, as a
#: multiple of a plain move (it stores two moves; the turn mail is built once).
GOAL = 2.5


class _Keep:
    """A transport that keeps what it is given (the measure ends at the mail in hand)."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    def send(self, message: Any, *, return_path: str | None = None) -> None:
        self.sent.append(message)


def _apart(legal: list[str], *avoid: str) -> str | None:
    used = {int(t) for m in avoid for t in m.split("-")}
    return next((m for m in legal if not {int(t) for t in m.split("-")} & used), None)


def _one(ctx: Any, with_premoves: bool, rng: random.Random) -> float | None:
    from pbem import games
    from pbem.mail.delivery import deliver

    _, toks = gamedata.new_game(ctx, 3)
    gamedata.play(ctx, toks, rng.randrange(3, 12), rng)
    mover = next((t for t in toks if games.seat_view(ctx, t)["your_turn"]), None)
    if mover is None:
        return None
    view = games.seat_view(ctx, mover)
    if not view["legal_moves"]:
        return None
    move = rng.choice(view["legal_moves"])
    if with_premoves:
        kept = _apart(view["legal_moves"], move)
        if kept is None:
            return None
        nxt = toks[(toks.index(mover) + 1) % 3]
        games.set_premoves(ctx, nxt, [move, kept])  # the first becomes illegal, the second fires
    written: list[int | None] = []
    ctx.relay = written.extend
    transport = _Keep()
    started = time.perf_counter()
    games.submit_move(ctx, mover, move, None, view["ply"])
    for row in written:
        if row is not None:
            deliver(ctx, row, transport)
    took = time.perf_counter() - started
    if not any(str(m.get("X-PBEM-Kind")) == "turn" for m in transport.sent):
        return None  # the game ended with this move: no turn mail to time
    return took


def run(infra: Infra, *, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    url = infra.database("premoves")
    ctx = gamedata.context(url)
    rounds = 12 if quick else 60
    rng = random.Random(33)
    plain: list[float] = []
    ahead: list[float] = []
    for i in range(rounds * 2):
        # Interleaved, so that both see the same database as it grows.
        took = _one(ctx, i % 2 == 1, rng)
        if took is not None:
            (ahead if i % 2 else plain).append(took * 1000)
    ctx.engine.dispose()
    if not plain or not ahead:
        raise RuntimeError("premoves: no move was timed")
    value, floor = median(ahead), median(plain)
    say(f"premoves: move → next turn mail {value:.1f} ms with a pre-move firing, {floor:.1f} ms without "
        f"({len(ahead)} and {len(plain)} moves)")
    figure = Figure("move → next turn mail, next player's pre-move fires (median)", round(value, 2), "ms", GOAL,
                    "max-ratio", floor=round(floor, 2), floor_what="the same move, no pre-moves",
                    note="in process on PostgreSQL; two moves stored instead of one, one turn mail built",
                    extra={"p90_ms": round(percentile(ahead, 90), 2), "floor_p90_ms": round(percentile(plain, 90), 2)})
    return [figure], {"premoves": {"with": ahead, "without": plain}}
