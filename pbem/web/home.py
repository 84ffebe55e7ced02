"""The home page and its two forms (start a game with people and the computer,
play against the computer alone), and a game's public page: what anyone may see
of it, and the confirmation after starting one."""

from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, request, url_for

from ..core.app_context import context
from ..core.errors import Invalid
from ..games.clock_options import VACATION_OFF
from ..rules.tables import MAX_PLAYERS, MIN_PLAYERS
from ..table import rematch as rematches, watching
from ..words import LEVELS, error_text, sentence
from ..words.language import LANGUAGES, NATIVE_NAMES
from .game_parts import game_parts
from .limits import limits
from .locale import language, words
from .pages import WHOLE, bp, signed_in_email
from .. import games

#: Rows of the "start a game" form (the ones after MIN_PLAYERS are optional).
FORM_ROWS = MAX_PLAYERS
#: A row of the form that a person plays (the others name the computer's level,
#: or leave the seat open to anyone in the lobby).
PERSON = "person"
OPEN = "open"
#: The tables waiting for players that the home page shows (the lobby has them all).
HOME_TABLES = 3


def _blank_rows() -> list[dict[str, str]]:
    return [{"name": "", "email": "", "language": language(), "who": PERSON} for _ in range(FORM_ROWS)]


def _blank_solo() -> dict[str, str]:
    return {"name": "", "email": "", "language": language(), "opponents": "3", "level": "medium"}


#: The start form's time fields beside ``turn_hours`` (``pbem.games.clock_options``).
CLOCK_FIELDS = ("clock_days", "clock_increment_hours", "clock_max_days", "weekends_off", "vacation_off")


def _home(rows: list[dict[str, str]] | None = None, turn_hours: str | None = None,
          error: str | None = None, status: int = 200, *, bad_row: int | None = None,
          bad_field: str | None = None, solo: dict[str, str] | None = None,
          solo_error: str | None = None, time: dict[str, str] | None = None) -> Any:
    hours = turn_hours if turn_hours is not None else str(context().config["TURN_HOURS"])
    return render_template("home.html", rows=rows or _blank_rows(), turn_hours=hours,
                           time=time or {k: "" for k in CLOCK_FIELDS}, max_clock_days=games.MAX_CLOCK_DAYS,
                           max_increment_hours=games.MAX_INCREMENT_HOURS, max_bank_days=games.MAX_BANK_DAYS,
                           error=sentence(error) if error else None, bad_row=bad_row, bad_field=bad_field,
                           solo=solo or _blank_solo(), solo_error=sentence(solo_error) if solo_error else None,
                           min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, levels=LEVELS,
                           languages=[(c, NATIVE_NAMES[c]) for c in LANGUAGES],
                           max_hours=games.MAX_TURN_HOURS,
                           waiting=games.lobby.tables(context(), per_page=HOME_TABLES)[0],
                           native_names=NATIVE_NAMES), status


@bp.get("/")
def home() -> Any:
    return _home()


def _start(players: list[dict[str, Any]], hours: int | None,
           options: games.TimeOptions = games.TimeOptions()) -> Any:
    """Start a game from a form's players, or raise the service's refusal."""
    limits().per_ip("LIMIT_NEW_GAMES")
    parsed = games.parse_players(players, default_language=language())
    # Signed in as the first player: they confirm by starting it.
    confirmed = signed_in_email() == parsed[0].email
    game_id = games.start_game(context(), parsed, hours, confirmed=confirmed, options=options)
    if confirmed:
        # Against the computer only, a game started signed in has begun: straight to the seat.
        mine = next((g for g in games.games_of(context(), parsed[0].email)[0] if g["game"] == game_id), None)
        if mine is not None and mine["status"] == games.SeatStatus.ACTIVE:
            flash(words()._("Your game against the computer has started."), "ok")
            return redirect(url_for(".play", token=str(mine["link"]).rpartition("/")[2]), 303)
    return redirect(url_for(".game", game_id=game_id, new="confirmed" if confirmed else "1"), 303)


@bp.post("/games")
def create_game() -> Any:
    if request.form.get("against") == "computer":
        return _create_against_computer()
    rows = [{"name": request.form.get(f"name{i}", "")[:200], "email": request.form.get(f"email{i}", "")[:300],
             "language": request.form.get(f"language{i}", "")[:20] or language(),
             "who": request.form.get(f"who{i}", PERSON)[:20] if i else PERSON}
            for i in range(FORM_ROWS)]
    hours_text = request.form.get("turn_hours", "")[:20]
    # The first MIN_PLAYERS rows are always players; later rows only when filled
    # in or given to the computer.
    used = [i for i, r in enumerate(rows)
            if i < MIN_PLAYERS or r["name"].strip() or r["email"].strip() or r["who"] != PERSON]
    # A row given to the computer is its seat, whatever its boxes hold.
    players: list[dict[str, Any]] = [rows[i] if rows[i]["who"] == PERSON else {"open": True}
                                     if rows[i]["who"] == OPEN else {"bot": rows[i]["who"]} for i in used]
    time = {k: request.form.get(k, "")[:20] for k in CLOCK_FIELDS}
    hours: int | None = None
    if hours_text.strip():
        m = WHOLE.fullmatch(hours_text)
        if m is None:
            return _home(rows, hours_text, words()._("The turn time must be a whole number of hours, e.g. 72."), 422,
                         bad_field="turn_hours", time=time)
        hours = int(m.group(1))
    try:
        return _start(players, hours, _time_options(time))
    except Invalid as e:
        # Point at the field the message is about (players count the rows in use).
        row = used[e.player - 1] if e.player is not None else None
        field = "who" if e.field in ("bot", "open") else e.field
        return _home(rows, hours_text, error_text(e, words()), e.status, bad_row=row, bad_field=field, time=time)


def _time_options(time: dict[str, str]) -> games.TimeOptions:
    """The form's clock (when its days are filled in), weekends and vacation,
    checked by the service as the API's are (a number that is not one is
    passed on as text, for the service to refuse naming its field)."""
    def number(text: str) -> int | str | None:
        m = WHOLE.fullmatch(text)
        return int(m.group(1)) if m else (text if text.strip() else None)

    clock: dict[str, Any] | None = None
    if time["clock_days"].strip():
        clock = {k: v for k, v in (("days", number(time["clock_days"])),
                                   ("increment_hours", number(time["clock_increment_hours"])),
                                   ("max_days", number(time["clock_max_days"]))) if v is not None}
    return games.parse_time_options(clock, bool(time["weekends_off"]), VACATION_OFF if time["vacation_off"] else None)


def _create_against_computer() -> Any:
    """The "Play against the computer" form: one person and 1-3 computers of one level."""
    solo = {"name": request.form.get("name", "")[:200], "email": request.form.get("email", "")[:300],
            "language": request.form.get("language", "")[:20] or language(),
            "opponents": request.form.get("opponents", "")[:20], "level": request.form.get("level", "")[:20]}
    m = WHOLE.fullmatch(solo["opponents"])
    opponents = int(m.group(1)) if m else 0
    if not 1 <= opponents <= MAX_PLAYERS - 1:
        return _home(solo=solo, solo_error=words()._("Choose 1 to %(max)d computer opponents.",
                                                      max=MAX_PLAYERS - 1), status=422)
    you = {k: solo[k] for k in ("name", "email", "language")}
    try:
        return _start([you, *[{"bot": solo["level"]} for _ in range(opponents)]], None)
    except Invalid as e:
        return _home(solo=solo, solo_error=error_text(e, words()), status=e.status)


@bp.get("/games/<game_id>")
def game(game_id: str) -> Any:
    """The public page of a game: what anyone may see (and the confirmation
    after starting one: the invitations are on their way).  It is the game's
    watch link: with its version, it refreshes itself (``watch.version``)."""
    view, version = watching.watched_game(context(), game_id)
    new = request.args.get("new")
    again = rematches.public_rematch(context(), game_id) if view["status"] == games.SeatStatus.FINISHED else None
    return render_template("game.html", view=view, new=new in ("1", "confirmed"), confirmed=new == "confirmed",
                           version=version, rematch_game=again, **game_parts(view, None))
