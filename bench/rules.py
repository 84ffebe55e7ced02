"""4. Rules: random playouts per second of ``pbem.rules`` against the plain reference in
:mod:`bench.reference_rules` (same deals, same policy: a uniformly random legal move,
default village order), after checking that the two agree on whole games."""

from __future__ import annotations

from typing import Any, Callable

from .common import Figure
from .reference_rules import agreement, conformance
from .reference_rules import bench_playouts as reference_playouts


def run(*, quick: bool, say: Callable[[str], None]) -> tuple[list[Figure], dict[str, Any]]:
    from pbem.rules.playout import bench_playouts

    problems = agreement(range(1, 6)) + agreement(range(6, 9), ("ann", "bob")) + \
        agreement(range(9, 11), ("ann", "bob", "cid", "dee"))
    cases, wrong = conformance()
    if problems or wrong:
        raise RuntimeError("the reference rules disagree with pbem: " + "; ".join(problems + wrong))
    say(f"rules: the reference agrees with pbem.rules on 10 whole random games (every ply's legal moves and "
        f"villages) and with the {cases} rules cases of tests/conformance_data")
    seconds = 1.5 if quick else 5.0
    ours = bench_playouts(seconds)
    n, elapsed, moves = reference_playouts(seconds)
    ref = n / elapsed
    say(f"rules: pbem {ours.per_second:.0f} playouts/s ({ours.moves / ours.playouts:.1f} moves each), "
        f"reference {ref:.0f} playouts/s ({moves / n:.1f} moves each)")
    figure = Figure("rules: random playouts", ours.per_second, "playouts/s", 10.0, "min-ratio", ref,
                    "plain reference", note=f"{seconds:g} s each, 3 players, classic board")
    return [figure], {"rules": {"pbem": {"playouts": ours.playouts, "seconds": ours.seconds, "moves": ours.moves},
                                "reference": {"playouts": n, "seconds": elapsed, "moves": moves},
                                "agreement_games": 10, "conformance_cases": cases}}
