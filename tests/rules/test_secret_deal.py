"""The secret clans depend on nothing public: not on the set-up, not on any seed."""

from __future__ import annotations

import random

from pbem.rules.deal import deal_game

NAMES = ["ann", "bob", "cid", "dee"]


def test_the_same_public_seed_deals_the_same_huts_and_different_clans() -> None:
    seed = 12345
    deals = [deal_game(NAMES, random.Random(seed), secret=random.SystemRandom()) for _ in range(30)]
    assert len({d.setup for d in deals}) == 1  # the public set-up follows the seed
    assert len({d.first for d in deals}) == 1
    # 4 of 5 clans in order: 120 deals possible; 30 draws from an independent
    # source all equal would happen with probability 120**-29.
    assert len({d.clans for d in deals}) > 1


def test_without_a_secret_source_the_deal_is_reproducible() -> None:
    """Playouts and the bench keep their seeded, repeatable deals."""
    assert deal_game(NAMES, random.Random(7)) == deal_game(NAMES, random.Random(7))
