"""What each viewer may see of a game: the only functions that turn a game into
something shown (pages, API answers, emails).  Views are data only; the words
people read are made from them in ``pbem/words.py``.

Nobody's clan appears before the end, except a player's own clan in that
player's own view.

The shape of every view is written down once, below, as ``TypedDict``: the
rules' own (:class:`PublicView`, :class:`PlayerView`) and the service's, which
adds what only the service knows (:class:`View`, :class:`SeatView`, made by
``pbem.games.views.game_view``).  The API's document is derived from these types
(``pbem/web/schema.py``); ``Annotated`` :class:`Schema` notes say what a type
alone does not (bounds, patterns, descriptions).

>>> import random
>>> from pbem.rules.deal import deal_game
>>> game = deal_game(["ann", "bob"], random.Random(3)).game()
>>> [p["clan"] for p in public_view(game)["players"]]
[None, None]
>>> mine = player_view(game, 0)
>>> mine["clan"] == game.clans[0], [p["clan"] for p in mine["players"]]
(True, [None, None])
"""

from __future__ import annotations

from typing import Annotated, Sequence, TypedDict, TypeGuard

from .game import Game
from .history import End, Played, Village
from .tables import CLANS, MAX_PLAYERS, MIN_PLAYERS

Viewer = int | None


class Schema:
    """JSON Schema keywords for what a key's type alone does not say, as
    ``Annotated`` metadata: ``Annotated[int, Schema(minimum=0)]``.  (Not a dict:
    ``typing`` hashes the metadata of a type in a union.)"""

    __slots__ = ("keywords",)

    def __init__(self, **keywords: object) -> None:
        self.keywords = keywords

    def __repr__(self) -> str:
        return f"Schema(**{self.keywords!r})"


# -- the shapes -----------------------------------------------------------------

Clan = Annotated[str, Schema(enum=list(CLANS))]
#: Huts by clan (clans with none left out).
Counts = dict[Clan, Annotated[int, Schema(minimum=1)]]
#: A move as the views write it: ``12-13``.
MoveText = Annotated[str, Schema(pattern="^[0-9]+-[0-9]+$")]
SeatNumber = Annotated[int, Schema(minimum=0, maximum=MAX_PLAYERS - 1)]
#: A time in ISO 8601, or none.
When = Annotated[str | None, Schema(format="date-time")]


class VillageEntry(TypedDict):
    """A founded village as ``record.md``'s result shows it (founder by name)."""

    number: Annotated[int, Schema(minimum=1)]
    territory: int
    epoch: Annotated[int, Schema(minimum=1)]
    founder: str
    terrain: str
    huts: Counts
    removed: Counts
    clans: list[Clan]
    points: int


class HistoryEntry(TypedDict):
    """One move of the history."""

    ply: Annotated[int, Schema(minimum=1)]
    seat: Annotated[int, Schema(minimum=0)]
    player: str
    move: MoveText
    villages: list[int]


class PlayerEntry(TypedDict):
    """A seat as the rules show it to everyone."""

    seat: SeatNumber
    name: str
    chips: Annotated[int, Schema(minimum=0)]
    clan: Annotated[Clan | None, Schema(description="everyone's clan once the game is over, nobody's before")]
    to_move: bool
    final_score: int | None


class BoardPart(TypedDict):
    """What the board pictures show of a view (``pbem.drawing`` reads only this):
    every view below has it."""

    huts: dict[str, Counts]
    villages: list[VillageEntry]
    last_move: MoveText | None


class BaseView(TypedDict):
    """What every view holds but its players (whose entries the service extends)."""

    board: str
    ply: Annotated[int, Schema(minimum=0, description="the number of moves made")]
    epoch: Annotated[int, Schema(minimum=1)]
    villages_founded: Annotated[int, Schema(minimum=0)]
    huts: Annotated[dict[str, Counts], Schema(description="the huts on each territory (by id) of each clan")]
    villages: list[VillageEntry]
    clan_scores: dict[Clan, int]
    next: Annotated[str | None, Schema(description="the name of the player to move")]
    next_seat: Annotated[int | None, Schema(minimum=0)]
    finished: bool
    end: End | None
    final_scores: dict[str, int] | None
    winners: list[str] | None
    last_move: MoveText | None
    history: list[HistoryEntry]


class PublicView(BaseView):
    """The rules' view for anyone (:func:`public_view`)."""

    players: list[PlayerEntry]


class SeatPart(TypedDict):
    """What only the player in a seat may know, added to their view."""

    seat: SeatNumber
    you: Annotated[str, Schema(description="your name")]
    clan: Annotated[Clan | None, Schema(description="your clan (none before the game starts)")]
    your_turn: bool
    legal_moves: list[MoveText]
    founding: Annotated[dict[str, list[int]],
                        Schema(description="for each legal move that founds villages, their territories")]


class PlayerView(PublicView, SeatPart):
    """The rules' view for the player in a seat (:func:`player_view`)."""


class ViewPlayer(PlayerEntry):
    """A seat in the service's view: the rules' entry and the seat's standing."""

    accepted: Annotated[bool, Schema(description="has accepted the invitation")]
    absent: Annotated[bool, Schema(description="the autopilot moved for them three times running")]
    paused_until: Annotated[When, Schema(description="their clock is paused until then")]
    unreachable: Annotated[bool, Schema(description="mail to them bounces, so the service no longer mails them "
                                                    "(seat views only: always false in the public view)")]
    bot: Annotated[str | None, Schema(enum=["easy", "medium", "hard", None],
                                      description="the computer plays this seat, at this level; none for a person")]
    bot_from: Annotated[int | None, Schema(minimum=0, description="the move from which the computer plays it")]
    bank_hours: Annotated[float | None, Schema(minimum=0, description="with a clock: the hours in their bank (for "
                                                                      "the player to move, what is left of it now); "
                                                                      "none without a clock")]


class ClockEntry(TypedDict):
    """A game's correspondence clock."""

    days: Annotated[int, Schema(minimum=1, description="the days each player's bank starts with")]
    increment_hours: Annotated[int, Schema(minimum=0, description="the hours each move adds")]
    max_days: Annotated[int, Schema(minimum=1, description="the most days a bank holds")]


class GamePart(TypedDict):
    """What the service adds to every view: the game's id, status and clock."""

    game: Annotated[str, Schema(description="the game's public id")]
    status: Annotated[str, Schema(description="`waiting` (seat views only): you accepted, others have not yet")]
    turn_hours: Annotated[int, Schema(minimum=1)]
    deadline: Annotated[When, Schema(description="when the player to move runs out of time")]
    clock: Annotated[ClockEntry | None, Schema(description="the correspondence clock; none: `turn_hours` a move")]
    weekends_off: Annotated[bool, Schema(description="players' clocks stop on Saturday and Sunday in their own "
                                                     "time zones")]
    vacation: Annotated[str, Schema(enum=["on", "off"], description="`off`: no vacation is spent when a deadline "
                                                                    "lapses")]


class View(BaseView, GamePart):
    """The service's view of a game for anyone (``pbem.games.views.game_view``)."""

    players: Annotated[list[ViewPlayer], Schema(minItems=MIN_PLAYERS, maxItems=MAX_PLAYERS)]


class SeatView(View, SeatPart):
    """The service's view of a game for the player in a seat."""

    mail: str
    vacation_days_left: Annotated[int, Schema(minimum=0, description="your vacation days (yours in all your "
                                                                     "games): pauses and lapsing deadlines spend "
                                                                     "them")]
    language: Annotated[str, Schema(description="the language of this seat's page and mail")]
    time_zone: Annotated[str | None, Schema(description="the seat's IANA time zone; none until chosen")]
    board_style: Annotated[str, Schema(description="how this seat's page and mail draw the board: `standard` "
                                                   "or `contrast` (high contrast, terrain patterns)")]


class NewGameView(View):
    """A new game's view, and its id (the API's answer to starting one)."""

    id: str


def seated(view: View) -> TypeGuard[SeatView]:
    """Whether ``view`` is a seat's (it has what only that seat may know)."""
    return "seat" in view


# -- the views ------------------------------------------------------------------


def public_view(game: Game) -> PublicView:
    """The game as anyone may see it: a spectator, the public API, every email."""
    finished = game.end is not None
    outcome = game.outcome()
    turn = game.turn
    return {
        "board": game.board.name,
        "ply": game.ply,
        "epoch": game.epoch,
        "villages_founded": len(game.villages),
        "players": [
            {
                "seat": i,
                "name": name,
                "chips": game.chips[i],
                "clan": game.clans[i] if finished else None,
                "to_move": turn == i,
                "final_score": outcome.final_scores[i] if outcome else None,
            }
            for i, name in enumerate(game.players)
        ],
        "huts": {str(tid): h for tid, h in game.position().items()},
        "villages": [village_json(v, game.players) for v in game.villages],
        "clan_scores": game.scores(),
        "next": None if turn is None else game.players[turn],
        "next_seat": turn,
        "finished": finished,
        "end": game.end,
        "final_scores": dict(zip(game.players, outcome.final_scores)) if outcome else None,
        "winners": list(outcome.winners) if outcome else None,
        "last_move": str(game.history[-1].move) if game.history else None,
        "history": [_history_entry(game, p) for p in game.history],
    }


def player_view(game: Game, seat: int) -> PlayerView:
    """The public view plus what only the player in ``seat`` may know: their own
    clan, and on their turn the legal moves (with the villages each would found,
    so a client can ask for their order)."""
    yours = game.turn == seat
    moves = game.legal_moves_with_villages() if yours else []
    legal = [str(m) for m, _ in moves]
    founding = {str(m): list(villages) for m, villages in moves if villages}
    return {
        **public_view(game),
        "seat": seat,
        "you": game.players[seat],
        "clan": game.clans[seat],
        "your_turn": yours,
        "legal_moves": legal,
        "founding": founding,
    }


def view_for(game: Game, viewer: Viewer) -> PublicView:
    """``player_view`` for a seat, ``public_view`` for anyone else (``None``)."""
    return public_view(game) if viewer is None else player_view(game, viewer)


def village_json(v: Village, players: Sequence[str]) -> VillageEntry:
    """A village as ``record.md``'s result shows it (founder by name)."""
    return {
        "number": v.number,
        "territory": v.territory,
        "epoch": v.epoch,
        "founder": players[v.founder],
        "terrain": v.terrain,
        "huts": dict(v.huts),
        "removed": dict(v.removed),
        "clans": list(v.clans),
        "points": v.points,
    }


def _history_entry(game: Game, p: Played) -> HistoryEntry:
    return {
        "ply": p.ply + 1,
        "seat": p.seat,
        "player": game.players[p.seat],
        "move": str(p.move),
        "villages": list(p.villages),
    }
