"""4. Rules: random playouts per second of ``pbem.rules`` (the random finish the search
plays) against the plainest playout, :mod:`pbem.rules.plain` (same deals, same policy: a
uniformly random legal move, default village order, scores only), after checking that the
reference in :mod:`bench.reference_rules` agrees with the engine on whole games."""

from __future__ import annotations

from typing import Any, Callable

from .common import Figure
from .reference_rules import agreement, conformance


def run(*, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    from pbem.rules.playout import bench_plain, bench_playouts

    problems = agreement(range(1, 6)) + agreement(range(6, 9), ("ann", "bob")) + \
        agreement(range(9, 11), ("ann", "bob", "cid", "dee"))
    cases, wrong = conformance()
    if problems or wrong:
        raise RuntimeError("the reference rules disagree with pbem: " + "; ".join(problems + wrong))
    say(f"rules: the reference agrees with pbem.rules on 10 whole random games (every ply's legal moves and "
        f"villages) and with the {cases} rules cases of tests/conformance_data")
    seconds = 1.5 if quick else 5.0
    ours = bench_playouts(seconds)
    plain = bench_plain(seconds)
    n, elapsed, moves = plain.playouts, plain.seconds, plain.moves
    ref = n / elapsed
    say(f"rules: pbem {ours.per_second:.0f} playouts/s ({ours.moves / ours.playouts:.1f} moves each), "
        f"the plain playout {ref:.0f} playouts/s ({moves / n:.1f} moves each)")
    figure = Figure("rules: random playouts", ours.per_second, "playouts/s", 10.0, "min-ratio", ref,
                    "plain playout", note=f"{seconds:g} s each, 3 players, classic board")
    return [figure], {"rules": {"pbem": {"playouts": ours.playouts, "seconds": ours.seconds, "moves": ours.moves},
                                "plain": {"playouts": n, "seconds": elapsed, "moves": moves},
                                "agreement_games": 10, "conformance_cases": cases}}
