"""The replay of a finished game: every position from the set-up to the end,
rebuilt from the game's record (``clans-record/1``, the export is the source)
by the rules, move by move, with each village's scoring explained.

Only a finished game has a replay: before the end its record has no clans, and
each village's scorers would give them away."""

from __future__ import annotations

import json
from dataclasses import dataclass


from ..core import errors
from .. import rules
from ..core.context import Context
from ..core.db import session_scope
from ..core.models import GameStatus
from ..rules import Village
from ..rules.record import export_record, load_record, parse_record_move
from ..rules.tables import EPOCHS
from ..rules.views import PublicView, View, public_view
from pbem.games.lookup import game_and_seats, game_by_public_id
from pbem.games.views import game_view
from ..words import N_


@dataclass(frozen=True)
class Scored:
    """A clan that scored a village, and the player who holds it (``None``: nobody's)."""

    clan: str
    player: str | None


@dataclass(frozen=True)
class VillageScoring:
    """Why a village scored what it did (rules.md, "Villages")."""

    number: int
    territory: int
    terrain: str
    epoch: int
    founder: str
    #: The huts there when it was founded, by clan (before strife), and their number.
    huts: dict[str, int]
    total: int
    #: Strife: all five colours were there, and these clans' lone huts were removed.
    strife: tuple[str, ...]
    #: The huts that count once strife is over.
    counted: int
    #: ``favourable`` (plus ``bonus``), ``hostile`` (worth nothing) or ``plain``.
    terrain_rule: str
    bonus: int
    points: int
    scored: tuple[Scored, ...]


@dataclass(frozen=True)
class Replay:
    """One position of a finished game's replay."""

    #: The game as it ended (clans revealed), for the results and the history.
    final: View
    #: The number of moves; positions run from 0 (the set-up) to ``moves``.
    moves: int
    ply: int
    #: The position after move ``ply``, as anyone sees it (for the board and the scores).
    position: PublicView
    #: The villages move ``ply`` founded, explained.
    villages: tuple[VillageScoring, ...]


def explain(village: Village, founder: str, owners: dict[str, str]) -> VillageScoring:
    """A village's scoring in the terms of the rules: strife, then its value on
    its terrain in its epoch, scored in full by every clan left in it."""
    epoch = EPOCHS[village.epoch - 1]
    total = sum(village.huts.values())
    if village.terrain in epoch.hostile:
        rule, bonus = "hostile", 0
    elif village.terrain in epoch.favourable:
        rule, bonus = "favourable", epoch.bonus
    else:
        rule, bonus = "plain", 0
    return VillageScoring(
        number=village.number, territory=village.territory, terrain=village.terrain, epoch=village.epoch,
        founder=founder, huts=dict(village.huts), total=total, strife=tuple(sorted(village.removed)),
        counted=total - sum(village.removed.values()), terrain_rule=rule, bonus=bonus, points=village.points,
        scored=tuple(Scored(c, owners.get(c)) for c in village.clans),
    )


def replay(ctx: Context, public_id: object, ply: object = 0) -> Replay:
    """The position after move ``ply`` (0: the set-up) of a finished game."""
    with session_scope(ctx.engine) as session:
        game = game_by_public_id(session, public_id)
        if game.status != GameStatus.FINISHED or not game.state:
            raise errors.NotFound(N_("game %(game)s has no replay yet: it opens when the game is over"),
                                  game=str(public_id), code="not-finished")
        _, seats = game_and_seats(session, game.id)
        ended = rules.Game.from_json(json.loads(game.state))
        final = game_view(ctx, game, seats, None, position=ended)
    record = export_record(ended, reveal=True)
    moves = len(record["moves"])
    if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply <= moves:
        raise errors.NotFound(N_("game %(game)s has no position %(ply)s: they run from 0 to %(last)s"),
                              game=str(public_id), ply=str(ply)[:12], last=moves, code="no-such-position")
    position = load_record(record)
    for raw in record["moves"][:ply]:
        move, order = parse_record_move(raw)
        position.push(move, order)
    owners = {p["clan"]: p["name"] for p in final["players"] if p["clan"]}
    made = position.history[-1].villages if position.history else ()
    villages = tuple(explain(v, position.players[v.founder], owners)
                     for v in position.villages if v.number in made)
    return Replay(final=final, moves=moves, ply=ply, position=public_view(position), villages=villages)
