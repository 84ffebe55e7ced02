"""The rules of Clans as a pure library: standard library only, no I/O but the
shipped map.  Everything the service shows of a game comes from here.

May import: nothing (the standard library only)."""

from .board import Board, classic_board, load_board
from .errors import IllegalMove, InvalidRecord, RulesError
from .game import Game
from .history import Outcome, Played, Village
from .move import Move
from .tables import CLANS, TERRAINS

__all__ = [
    "Board", "classic_board", "load_board", "IllegalMove", "InvalidRecord", "RulesError",
    "Game", "Outcome", "Played", "Village", "Move", "CLANS", "TERRAINS",
]
