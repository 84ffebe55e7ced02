"""Games: finding them, each viewer's view, starting, moving, what a new position
announces, the computer's seats and the autopilot, a seat's own settings.

What the rest of the house calls is named here; the modules behind it import
each other directly (never this package), so that it imports in one pass.

May import: people, core, words, drawing, rules."""

from .autopilot import autopilot_move
from .computer import (CLOCK_BOT_SECONDS, HARD_MOVES_PER_HOUR, HARD_SMALL_BUDGET, autopilot_seed, computer_move,
                       hand_to_computer, hard_moves_spent)
from . import lobby
from .lookup import game_and_seats, game_by_public_id, refuse_computer_seat, rules_game, seat_and_game
from .mine import GAMES_PER_PAGE, games_of
from .practice import Origin, Practice, origin_of, practice_from_replay, practice_from_seat
from .moves import read_move, submit_move
from .premoves import (MAX_PREMOVES, add_premove, clear_premoves, news_of as premove_news, parse_premoves, premoves_of,
                       remove_premove, set_premoves)
from .notes import MAX_NOTES, Notes, notes, read_notes, set_notes
from .nudges import NudgeOffer, NudgeSent, nudge, nudge_of, nudge_offer, turn_started
from .open_seats import Requirements, parse_requirements
from .announcing import COMPUTER_GRACE, game_clock
from .clock_options import (MAX_BANK_DAYS, MAX_DAYS as MAX_CLOCK_DAYS, MAX_INCREMENT_HOURS, TimeOptions,
                            parse_time_options)
from .settings import (MAIL_CHOICES, never_mail, pause_clock, replace_seat_link, set_board_style, set_language,
                       set_mail)
from .starting import COMPUTER_NAMES, LEVELS, MAX_TURN_HOURS, NewPlayer, parse_players, start_game
# Accepting is accepting an invitation, or confirming a quick-match request.
from .quick_match import accept
from . import quick_match, substitutes
from .views import SeatStatus, export_game, game_view, public_game, seat_view, status_for

__all__ = [
    "MAX_PREMOVES", "add_premove", "clear_premoves", "parse_premoves", "premove_news", "premoves_of", "remove_premove",
    "set_premoves",
    "CLOCK_BOT_SECONDS", "COMPUTER_GRACE", "COMPUTER_NAMES", "GAMES_PER_PAGE", "HARD_MOVES_PER_HOUR",
    "HARD_SMALL_BUDGET", "LEVELS", "MAIL_CHOICES", "MAX_NOTES", "MAX_TURN_HOURS", "Notes", "NudgeOffer", "NudgeSent",
    "notes", "nudge", "nudge_of", "nudge_offer", "read_notes", "set_notes", "turn_started", "NewPlayer", "SeatStatus",
    "accept", "Origin", "Practice", "Requirements", "lobby", "quick_match", "substitutes", "parse_requirements",
    "MAX_BANK_DAYS", "MAX_CLOCK_DAYS", "MAX_INCREMENT_HOURS", "TimeOptions",
    "autopilot_move", "autopilot_seed", "computer_move", "export_game", "game_and_seats", "game_by_public_id",
    "game_clock", "game_view", "games_of",
    "hand_to_computer", "hard_moves_spent", "never_mail", "origin_of", "parse_players", "parse_time_options", "pause_clock",
    "practice_from_replay", "practice_from_seat", "public_game",
    "read_move", "refuse_computer_seat", "replace_seat_link", "rules_game", "seat_and_game", "seat_view",
    "set_board_style", "set_language", "set_mail", "start_game", "status_for", "submit_move",
]
