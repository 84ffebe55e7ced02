"""The pages people use: the home page and its form, the seat page (a player's view
of their game, with the move controls), the sign-in flow and the list of a player's
games.

Views only translate requests into service calls and service errors into pages.
What a page shows of a game comes from ``games.seat_view`` / ``games.public_game``
and nothing else.  GET and HEAD never change anything (mail scanners open links);
every change is a POST from a page's form, checked against forgery by ``csrf``."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any, Mapping

from flask import Blueprint, flash, g, redirect, render_template, request, session, url_for
from markupsafe import Markup, escape

from ..people import ratings, stats as player_stats
from ..table import rematch as rematches, talk as table_talk, watching
from ..table.webhooks import HookState
from ..core.models import MailChoice
from ..core.errors import Conflict, Invalid, RateLimited, ServiceError, Unauthorized
from ..rules import Board, Move, classic_board
from ..drawing.style import (CLAN_COLOURS, CSS_ROOT, TERRAIN_COLOURS, StyleName, clan_colour, clan_glyph,
                             clan_mark, clan_text_colour, terrain_colour)
from ..drawing.svg import board_svg, clan_icon
from ..rules.tables import CLANS, EPOCHS, MAX_PLAYERS, MIN_PLAYERS, TERRAINS, VILLAGE_CHIPS
from ..rules.views import SeatView, View, seated
from ..core.app_context import context
from ..words.language import LANGUAGES, NATIVE_NAMES, time_zones
from ..words import (LEVELS, N_, Words, board_style_labels, describe_history, end_text, error_text, mail_labels,
                     move_text, names_text, sentence, when_text)
from .limits import limits
from .locale import language, seat_words, words
from ..people import signin
from .. import games

bp = Blueprint("pages", __name__)

#: Rows of the "start a game" form (the ones after MIN_PLAYERS are optional).
FORM_ROWS = MAX_PLAYERS
#: A row of the form that a person plays (the others name the computer's level).
PERSON = "person"
_WHOLE = re.compile(r"\s*(\d{1,9})\s*", re.ASCII)
_ORDER_SEP = re.compile(r"[\s,;]+")


# -- shared -------------------------------------------------------------------


@bp.app_template_filter("autolink")
def autolink(text: object) -> Markup:
    """Escape ``text`` first, then make its http(s) addresses clickable."""
    escaped = str(escape("" if text is None else str(text)))

    def link(m: re.Match[str]) -> str:
        url = m.group(0)
        trail = ""
        while url and url[-1] in ".,;:!?)]":
            trail = url[-1] + trail
            url = url[:-1]
        return f'<a href="{url}" rel="noopener noreferrer">{url}</a>{trail}'

    return Markup(_URL.sub(link, escaped))


# After escaping, quotes and angle brackets are entities: a URL stops there.
_URL = re.compile(r"https?://(?:(?!&#34;|&#39;|&quot;|&lt;|&gt;)[^\s])+")


@bp.app_template_filter("when")
def when(value: object) -> str:
    """An ISO time in words, in the page's language and time zone."""
    return when_text(_parse_time(value), words())


@bp.app_template_filter("iso")
def iso(value: object) -> str:
    at = _parse_time(value)
    return at.replace(microsecond=0).isoformat().replace("+00:00", "Z") if at else ""


def _parse_time(value: object) -> datetime | None:
    if isinstance(value, datetime):
        at = value
    elif isinstance(value, str):
        try:
            at = datetime.fromisoformat(value)
        except ValueError:
            return None
    else:
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    return at.astimezone(timezone.utc)


def signed_in_email() -> str | None:
    """The address this browser is signed in as, if its session is still good
    (not signed out, not too old); a session that is not is forgotten."""
    if "signed_in" not in g:
        email, login_id = session.get("email"), session.get("login")
        ok = email is not None and signin.signed_in(context(), email, login_id)
        if email is not None and not ok:
            session.pop("email", None)
            session.pop("login", None)
        g.signed_in = email if ok else None
    signed_in: str | None = g.signed_in
    return signed_in


@bp.app_context_processor
def _globals() -> dict[str, Any]:
    return {
        "signed_in": signed_in_email() if "email" in session else None,
        "clan_colours": CLAN_COLOURS,
        "terrain_colours": TERRAIN_COLOURS,
        "clan_colour": clan_colour,
        "clan_mark": clan_mark,
        "clan_icon": lambda clan: Markup(clan_icon(str(clan))),
        "board_clans": CLANS,
        "clan_glyph": clan_glyph,
        "clan_text_colour": clan_text_colour,
        "terrain_colour": terrain_colour,
        "board_css_properties": CSS_ROOT,
        # The states templates test: a view's status, a seat's mail, a webhook's.
        "Status": games.SeatStatus,
        "Mail": MailChoice,
        "HookState": HookState,
    }


# -- home and starting a game ------------------------------------------------


def _blank_rows() -> list[dict[str, str]]:
    return [{"name": "", "email": "", "language": language(), "who": PERSON} for _ in range(FORM_ROWS)]


def _blank_solo() -> dict[str, str]:
    return {"name": "", "email": "", "language": language(), "opponents": "3", "level": "medium"}


def _home(rows: list[dict[str, str]] | None = None, turn_hours: str | None = None,
          error: str | None = None, status: int = 200, *, bad_row: int | None = None,
          bad_field: str | None = None, solo: dict[str, str] | None = None,
          solo_error: str | None = None) -> Any:
    hours = turn_hours if turn_hours is not None else str(context().config["TURN_HOURS"])
    return render_template("home.html", rows=rows or _blank_rows(), turn_hours=hours,
                           error=sentence(error) if error else None, bad_row=bad_row, bad_field=bad_field,
                           solo=solo or _blank_solo(), solo_error=sentence(solo_error) if solo_error else None,
                           min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, levels=LEVELS,
                           languages=[(c, NATIVE_NAMES[c]) for c in LANGUAGES],
                           max_hours=games.MAX_TURN_HOURS), status


@bp.get("/")
def home() -> Any:
    return _home()


def _start(players: list[dict[str, Any]], hours: int | None) -> Any:
    """Start a game from a form's players, or raise the service's refusal."""
    limits().per_ip("LIMIT_NEW_GAMES")
    parsed = games.parse_players(players, default_language=language())
    # Signed in as the first player: they confirm by starting it.
    confirmed = signed_in_email() == parsed[0].email
    game_id = games.start_game(context(), parsed, hours, confirmed=confirmed)
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
    players: list[dict[str, Any]] = [rows[i] if rows[i]["who"] == PERSON else {"bot": rows[i]["who"]}
                                     for i in used]
    hours: int | None = None
    if hours_text.strip():
        m = _WHOLE.fullmatch(hours_text)
        if m is None:
            return _home(rows, hours_text, words()._("The turn time must be a whole number of hours, e.g. 72."), 422,
                         bad_field="turn_hours")
        hours = int(m.group(1))
    try:
        return _start(players, hours)
    except Invalid as e:
        # Point at the field the message is about (players count the rows in use).
        row = used[e.player - 1] if e.player is not None else None
        field = "who" if e.field == "bot" else e.field
        return _home(rows, hours_text, error_text(e, words()), e.status, bad_row=row, bad_field=field)


def _create_against_computer() -> Any:
    """The "Play against the computer" form: one person and 1-3 computers of one level."""
    solo = {"name": request.form.get("name", "")[:200], "email": request.form.get("email", "")[:300],
            "language": request.form.get("language", "")[:20] or language(),
            "opponents": request.form.get("opponents", "")[:20], "level": request.form.get("level", "")[:20]}
    m = _WHOLE.fullmatch(solo["opponents"])
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
                           version=version, rematch_game=again, **_game_parts(view, None))


bp.add_app_template_filter(sentence, "sentence")


# -- the seat page -----------------------------------------------------------


def _board() -> Board:
    return classic_board()


def _moves_by_source(view: View) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for text in view["legal_moves"] if seated(view) else ():
        source, _, target = str(text).partition("-")
        out.setdefault(int(source), []).append(int(target))
    return {s: sorted(t) for s, t in sorted(out.items())}


def epoch_rows(view: View) -> list[dict[str, Any]]:
    rows = []
    first = 1
    current = view["epoch"]
    founded = view["villages_founded"]
    for e in EPOCHS:
        last = first + e.villages - 1
        rows.append({
            "number": e.number, "roman": e.roman,
            "villages": f"{first}" if first == last else f"{first}–{last}",
            "favourable": list(e.favourable), "every_terrain": set(e.favourable) == set(TERRAINS),
            "bonus": e.bonus, "hostile": list(e.hostile),
            "current": e.number == current and not view["finished"],
            "past": last <= founded,
        })
        first = last + 1
    return rows


def score_rows(scores: Mapping[str, int], owners: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The score bars: each clan's score, its bar's width (of the best score, at
    least 20), and its owner's name where the game is over and ``owners`` say."""
    top = max([20, *[int(v) for v in scores.values()]])
    return [{"clan": c, "score": int(scores.get(c, 0)), "width": round(100 * int(scores.get(c, 0)) / top, 1),
             "owner": (owners or {}).get(c)} for c in CLANS]


def _game_parts(view: View, token: str | None) -> dict[str, Any]:
    """What the game templates show besides the view itself."""
    board = _board()
    moves = _moves_by_source(view)
    started = view["status"] in (games.SeatStatus.ACTIVE, games.SeatStatus.FINISHED)
    w = words()
    svg = None
    if started:
        # A seat's own page draws the style it chose; every other page the standard one.
        style = view.get("board_style")
        svg = Markup(board_svg(board, view, selectable=moves.keys(),
                               title=w._("The board after move %(ply)s", ply=view["ply"]), w=w,
                               style=style if isinstance(style, str) else None))
    history = list(zip(view["history"], describe_history(view, w)))
    players = view["players"]
    founding = view["founding"] if seated(view) else {}
    options = []
    for source, targets in moves.items():
        group = []
        for target in targets:
            text = f"{source}-{target}"
            villages = founding.get(text) or []
            label = f"{source} → {target}"
            if len(villages) == 1:
                label = w._("%(move)s (founds a village on %(territory)s)", move=label, territory=villages[0])
            elif villages:
                label = w._("%(move)s (founds villages on %(territories)s: give their order)",
                            move=label, territories=", ".join(map(str, villages)))
            group.append({"value": text, "label": label})
        options.append({"source": source, "moves": group})
    play_data = {
        "ply": view["ply"],
        "moves": {str(s): t for s, t in moves.items()},
        "founding": founding,
        "terrains": {str(t): terrain for t, terrain in zip(board.ids, board.terrains)},
        "words": _play_words(founding, w),
    }
    return {
        "token": token,
        "svg": svg,
        "move_options": options,
        "play_data": play_data,
        "epochs": epoch_rows(view),
        # Once the game is over the clans are revealed: each score names its owner.
        "scores": score_rows(view["clan_scores"], {p["clan"]: p["name"] for p in players if p["clan"]}
                             if view["finished"] else None),
        "history": history,
        "chips_total": VILLAGE_CHIPS,
        "not_accepted": [p["name"] for p in players if not p["accepted"]],
        "others": names_text([p["name"] for p in players if p["seat"] != view.get("seat")], w),
        "mail_labels": mail_labels(w),
        "board_style_labels": board_style_labels(w),
        "end_reason": end_text(view["end"], w),
        "winners_text": names_text(list(view.get("winners") or []), w),
    }


def _play_words(founding: Mapping[str, list[int]], w: Words) -> dict[str, Any]:
    """What play.js says, in the page's language: ``{name}`` placeholders are
    filled in by the script (territory numbers, the move)."""
    return {
        "hint": w._("Tap a territory to move all its huts."),
        "from": w._("From %(source)s: tap one of the highlighted neighbours (tap %(source)s again to cancel).",
                    source="{source}"),
        "chosen": w._("Move %(move)s: confirm below.", move="{move}"),
        "stuck": w._("The huts on %(territory)s cannot move: pick a territory with a legal move.",
                     territory="{territory}"),
        "source_label": w._("Territory %(territory)s: move its huts", territory="{territory}"),
        "target_label": w._("Move the huts of %(source)s onto %(target)s", source="{source}", target="{target}"),
        "founds_one": w._("founds a village on %(territory)s", territory="{territory}"),
        # One sentence per number of villages a move on this page founds (Czech has three forms).
        "founds_many": {str(n): w.n_("founds %(num)d village", "founds %(num)d villages", n)
                        for n in sorted({len(v) for v in founding.values() if len(v) > 1})},
        "village": w._("Village on %(territory)s", territory="{territory}"),
        "earlier": w._("Found the village on %(territory)s earlier", territory="{territory}"),
        "later": w._("Found the village on %(territory)s later", territory="{territory}"),
        "playing": w._("Playing…"),
        "confirm": w._("Confirm move"),
        "terrains": {t: w.terrain(t) for t in TERRAINS},
    }


def play_page(token: str, view: SeatView | None, *, error: str | None = None,
              error_code: str | None = None, status: int = 200,
              form: Mapping[str, str] | None = None, talk_error: str | None = None) -> Any:
    """The seat page.  ``view``: the seat's view if the caller read it (for its
    words); the page reads it again with its version, in one transaction, so
    that the version its script polls is the version of what it shows."""
    ctx = context()
    view, version = watching.watched_seat(ctx, token)
    w = seat_words(view)
    again = rematches.rematch_for_seat(ctx, token) if view["status"] == games.SeatStatus.FINISHED else None
    table = table_talk.table(ctx, token)
    return render_template("play.html", view=view, error=error, error_code=error_code, rematch=again,
                           form=form or {}, languages=[(c, NATIVE_NAMES[c]) for c in LANGUAGES],
                           time_zones=time_zones(), table=table, talk_error=talk_error,
                           max_talk=table_talk.MAX_TALK, levels=LEVELS, version=version,
                           seat_data=_seat_data(view, table, w, ctx.config["PRESENCE_SECONDS"]),
                           **_game_parts(view, token)), status


def _seat_data(view: SeatView, table: table_talk.Table, w: Words, presence: float) -> dict[str, Any]:
    """What seat.js needs besides the page: how often to say the player is there
    (a third of the presence time), and "N new messages" for each number of the
    others' messages the page shows (the script counts those not yet read)."""
    others = [m["id"] for m in table.messages if not m["you"]]
    return {
        "game": view["game"], "seat": view["seat"],
        "here_every": round(presence * 1000 / 3),
        "talk": others,
        "unread": {str(n): w.n_("%(num)d new message at the table", "%(num)d new messages at the table", n)
                   for n in range(1, len(others) + 1)},
    }


def _refused(token: str, e: ServiceError, sentence: str) -> Any:
    """The seat page again with a refusal, in the seat's words: ``sentence``
    (marked with ``N_``) says what became of the request around ``%(error)s``."""
    view = games.seat_view(context(), token)
    w = seat_words(view)
    return play_page(token, view, error=w._(sentence, error=error_text(e, w)), error_code=e.code, status=e.status)


@bp.get("/play/<token>")
def play(token: str) -> Any:
    # ``?move=12-13&order=14,15`` (the link of a reply by mail we could not be sure
    # of) fills in the move form; as every GET, it plays nothing.
    form = {"move": request.args.get("move", "")[:200].strip(), "order": request.args.get("order", "")[:500].strip()}
    return play_page(token, None, form={k: v for k, v in form.items() if v})


@bp.post("/play/<token>/accept")
def accept(token: str) -> Any:
    view = games.accept(context(), token)  # accepting twice is accepting once
    w = seat_words(view)
    if view.get("status") == games.SeatStatus.ACTIVE:
        flash(w._("You accepted — everyone is in, so the game has started. Your clan has been dealt."), "ok")
    else:
        flash(w._("You accepted the invitation. The game starts when everyone has accepted."), "ok")
    return redirect(url_for(".play", token=token), 303)


def _parse_order(text: str) -> list[int] | None:
    text = text.strip().strip(",;")
    if not text:
        return None
    parts = [p for p in _ORDER_SEP.split(text) if p]
    if len(parts) > 64 or not all(_WHOLE.fullmatch(p) for p in parts):
        raise Invalid(N_("the order of the villages must be territory numbers separated by commas, "
                         "e.g. 20, 21"), code="bad-order")
    return [int(p) for p in parts]


@bp.post("/play/<token>/move")
def move(token: str) -> Any:
    ctx = context()
    moves = [m.strip() for m in request.form.getlist("move") if m.strip()]
    text = moves[0][:200] if moves else ""
    order_text = request.form.get("order", "")[:500]
    ply_text = request.form.get("ply", "")[:20]
    form = {"move": text, "order": order_text}
    m = _WHOLE.fullmatch(ply_text)
    ply: object = int(m.group(1)) if m else None
    try:
        if not text:
            raise Invalid(N_("choose a move first: pick one from the list, or type it like 12-13"),
                          code="no-move")
        order = _parse_order(order_text)
        view = games.submit_move(ctx, token, text, order, ply, strict=False)
    except Unauthorized:
        raise
    except ServiceError as e:
        view = games.seat_view(ctx, token)
        w = seat_words(view)
        if e.code == "stale":
            # Counted as the page's header counts ("Move 4": the move to be played now).
            message = w._("The game has moved on since you loaded the page: it is now at move %(ply)s. "
                          "Here is the fresh position — nothing was played.", ply=int(view.get("ply") or 0) + 1)
            form = {}
        elif e.status == 409:
            message = error_text(e, w)
            form = {}
        else:
            message = w._("%(error)s Nothing was played.", error=error_text(e, w))
        return play_page(token, view, error=message, error_code=e.code, status=e.status, form=form)
    played = Move.parse(text, strict=False)
    shown = move_text(str(played))
    flash(seat_words(view)._("Your move %(move)s was played.", move=shown), "ok")
    return redirect(url_for(".play", token=token), 303)


@bp.post("/play/<token>/mail")
def mail(token: str) -> Any:
    ctx = context()
    choice = request.form.get("mail", "")
    try:
        view = games.set_mail(ctx, token, choice)
    except Invalid as e:
        view = games.seat_view(ctx, token)
        return play_page(token, view, error=error_text(e, seat_words(view)), error_code=e.code, status=e.status)
    w = seat_words(view)
    flash(w._("Saved: %(choice)s.", choice=mail_labels(w)[choice].lower()), "ok")
    return redirect(url_for(".play", token=token) + "#settings", 303)


@bp.post("/play/<token>/talk")
def talk(token: str) -> Any:
    """Write at the table.  A refused message (empty, too long, too many) is
    shown back in its box with the reason, and nothing is posted."""
    ctx = context()
    # A little over the limit is kept, so that the page can say how long it was.
    text = request.form.get("text", "")[:table_talk.MAX_TALK * 4]
    try:
        view = table_talk.talk(ctx, token, text)
    except Unauthorized:
        raise
    except ServiceError as e:
        view = games.seat_view(ctx, token)
        page, status = play_page(token, view, talk_error=error_text(e, seat_words(view)), error_code=e.code,
                                  status=e.status, form={"talk": text})
        if isinstance(e, RateLimited):
            return page, status, {"Retry-After": str(e.retry_after)}
        return page, status
    flash(seat_words(view)._("Your message is at the table."), "ok")
    return redirect(url_for(".play", token=token) + "#talk", 303)


@bp.post("/play/<token>/talk-mail")
def talk_mail(token: str) -> Any:
    """The "Email me each message" box (unticked, a checkbox sends nothing)."""
    on = request.form.get("talk_mail") == "1"
    view = table_talk.set_talk_mail(context(), token, on)
    w = seat_words(view)
    flash(w._("Saved: you get each message at the table by email.") if on
          else w._("Saved: new messages at the table come with your next turn email or digest."), "ok")
    return redirect(url_for(".play", token=token) + "#talk", 303)


@bp.post("/play/<token>/language")
def seat_language(token: str) -> Any:
    """The seat's language and time zone: its page and its mail from now on."""
    ctx = context()
    try:
        view = games.set_language(ctx, token, request.form.get("language", "")[:20],
                                     request.form.get("time_zone", "")[:64].strip())
    except Invalid as e:
        view = games.seat_view(ctx, token)
        return play_page(token, view, error=error_text(e, seat_words(view)), error_code=e.code, status=e.status)
    w = seat_words(view)
    flash(w._("Saved: this page and your emails now use the language you chose."), "ok")
    return redirect(url_for(".play", token=token) + "#settings", 303)


@bp.post("/play/<token>/style")
def board_style(token: str) -> Any:
    """How this seat's page and the picture in its mail draw the board."""
    ctx = context()
    try:
        view = games.set_board_style(ctx, token, request.form.get("style", "")[:20])
    except Invalid as e:
        return _refused(token, e, N_("%(error)s Nothing was changed."))
    w = seat_words(view)
    flash(w._("Saved: the board is drawn in high contrast.") if view["board_style"] == StyleName.CONTRAST
          else w._("Saved: the board is drawn in the standard style."), "ok")
    return redirect(url_for(".play", token=token) + "#style-title", 303)


@bp.post("/play/<token>/pause")
def pause(token: str) -> Any:
    ctx = context()
    text = request.form.get("days", "")[:20]
    m = _WHOLE.fullmatch(text)
    try:
        view = games.pause_clock(ctx, token, int(m.group(1)) if m else text)
    except (Invalid, Conflict) as e:
        view = games.seat_view(ctx, token)
        return play_page(token, view, error=error_text(e, seat_words(view)), error_code=e.code, status=e.status)
    w = seat_words(view)
    until = when(view["players"][view["seat"]]["paused_until"])
    flash(w._("Your clock is paused until %(when)s.", when=until), "ok")
    return redirect(url_for(".play", token=token) + "#settings", 303)


@bp.post("/play/<token>/computer")
def computer(token: str) -> Any:
    """Hand a seat to the computer for the rest of the game: your own (the box
    must be ticked: it cannot be taken back), or an absent player's (``seat``)."""
    ctx = context()
    level = request.form.get("level", "")[:20]
    m = _WHOLE.fullmatch(request.form.get("seat", "")[:20])
    seat: int | None = int(m.group(1)) if m else None
    try:
        if seat is None and request.form.get("confirm") != "1":
            raise Invalid(N_("tick the box to confirm: the computer plays your seat to the end of the game"),
                          code="not-confirmed", field="confirm")
        view = games.hand_to_computer(ctx, token, level, seat)
    except Unauthorized:
        raise
    except ServiceError as e:
        return _refused(token, e, N_("%(error)s Nothing was changed."))
    w = seat_words(view)
    players = {p["seat"]: p for p in view["players"]}
    if seat is None or seat == view["seat"]:
        flash(w._("The computer (%(level)s) plays your seat from now on.", level=w.level(level)), "ok")
    else:
        flash(w._("The computer (%(level)s) plays %(name)s’s seat from now on.", level=w.level(level),
                  name=players[seat]["name"]), "ok")
    return redirect(url_for(".play", token=token), 303)


@bp.post("/play/<token>/rematch")
def rematch(token: str) -> Any:
    """"Play again" after the end: a new game with the same players, or the one
    a click (this player's or another's) started already; either way, on to
    this player's own seat in it."""
    ctx = context()
    try:
        made = rematches.play_again(ctx, token, before_start=lambda: limits().per_ip("LIMIT_NEW_GAMES"))
    except Conflict as e:
        return _refused(token, e, N_("%(error)s No game was started."))
    if made.token is None:
        return redirect(url_for(".game", game_id=made.game), 303)
    fresh = games.seat_view(ctx, made.token)
    w = seat_words(fresh)
    if not made.created:
        flash(w._("The rematch had started already: here is your seat."), "ok")
    elif fresh["status"] == games.SeatStatus.ACTIVE:
        # Only the computer to play against: it accepted at once, and the game is on.
        flash(w._("You started a rematch against the computer: it has begun."), "ok")
    else:
        flash(w._("You started a rematch. The others have been invited by email; it begins when they have all "
                  "accepted."), "ok")
    return redirect(url_for(".play", token=made.token), 303)


@bp.post("/play/<token>/new-link")
def new_link(token: str) -> Any:
    """Replace a leaked seat link: the new one goes by mail to the seat's own
    address, and this one stops working at once."""
    ctx = context()
    seat_words(games.seat_view(ctx, token))  # the page speaks the seat's language
    # The other sessions of the seat's address end; this browser's (if it is one of them) stays.
    games.replace_seat_link(ctx, token, keep_login=session.get("login") if signed_in_email() else None)
    return render_template("new_link.html")


# -- signing in ---------------------------------------------------------------


@bp.get("/login")
def login() -> Any:
    return render_template("login.html", email="", error=None)


@bp.post("/login")
def login_post() -> Any:
    limits().per_ip("LIMIT_LOGIN")
    email = request.form.get("email", "")[:300]
    try:
        again = signin.request_login(context(), email, language())
    except Invalid as e:
        return render_template("login.html", email=email, error=error_text(e, words())), e.status
    # Asked again too soon: nothing is sent, and the page says so (the same for every address).
    return render_template("login_sent.html", email=email.strip(), again=again)


@bp.get("/signin/<token>", endpoint="signin")
def signin_page(token: str) -> Any:
    email = signin.check_login(context(), token)
    return render_template("signin.html", email=email, token=token)


@bp.post("/signin/<token>")
def signin_post(token: str) -> Any:
    opened = signin.use_login(context(), token)
    _fresh_session()  # a fresh session (and form token) for the signed-in player
    session["email"] = opened.email
    session["login"] = opened.login_id
    return redirect(url_for(".games"), 303)


def _fresh_session() -> None:
    """Forget the session, but not the language this browser chose with the switch."""
    chosen = session.get("language")
    session.clear()
    if chosen is not None:
        session["language"] = chosen


@bp.get("/games", endpoint="games")
def my_games() -> Any:
    email = signed_in_email()
    if not email:
        return redirect(url_for(".login"), 303)
    m = _WHOLE.fullmatch(request.args.get("page", "1")[:12])
    page = max(1, int(m.group(1))) if m else 1
    rows, more = games.games_of(context(), email, page)
    w = words()
    for row in rows:
        row["title"] = names_text(row["others"], w)
        row["winners_text"] = names_text(list(row["winners"] or []), w)
        row["rematch_action"] = url_for(".rematch", token=row["token"])
    shown = ratings.shown_rating(context(), email)
    stats = player_stats.stats_of(context(), email) if shown.opted_in else None
    return render_template("games.html", email=email, games=rows, page=page, more=more, rating=shown,
                           stats=stats, shown_after=ratings.SHOWN_AFTER)


@bp.post("/games/ratings")
def ratings_choice() -> Any:
    """Opt in to (or out of) seeing your rating and stats: signed in only."""
    email = signed_in_email()
    if not email:
        raise Unauthorized(N_("sign in first: ask for a sign-in link by email"), code="not-signed-in")
    on = request.form.get("show") == "1"
    ratings.set_opt_in(context(), email, on)
    w = words()
    flash(w._("Saved: your rating and stats are shown here.") if on
          else w._("Saved: your rating and stats are no longer shown."), "ok")
    return redirect(url_for(".games") + "#ratings", 303)


@bp.post("/logout/everywhere")
def logout_everywhere() -> Any:
    """End every session signed in with this address, this one too (on the
    signed-in dashboard): a browser left signed in elsewhere opens nothing more."""
    email = signed_in_email()
    if not email:
        raise Unauthorized(N_("sign in first: ask for a sign-in link by email"), code="not-signed-in")
    signin.sign_out_everywhere(context(), email)
    _fresh_session()
    flash(words()._("You are signed out everywhere: on every device and in every browser."), "ok")
    return redirect(url_for(".home"), 303)


@bp.post("/logout")
def logout() -> Any:
    signin.sign_out(context(), session.get("login"))
    _fresh_session()
    flash(words()._("You are signed out."), "ok")
    return redirect(url_for(".home"), 303)

