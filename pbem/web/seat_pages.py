"""A player's own page of their game (``/play/<token>``: the board, the move
controls, the table talk, the seat's settings) and its forms, each a POST.

The page is read in one transaction from one look-up of the seat
(``table.seat_page``).  A form the service refuses shows the page again with
the refusal, its status and what was typed, all through one handler
(:func:`refused`): a view says beforehand how its refusals read
(:func:`answer_refusals`); a refusal it does not answer, a seat link that opens
nothing, and any refusal on a page that is not a seat's are the error page, as
everywhere else (``errors.service_error``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Mapping

from flask import flash, g, redirect, render_template, request, session, url_for

from ..core.app_context import context
from ..drawing.style import StyleName
from ..core.errors import Conflict, Invalid, RateLimited, ServiceError, Unauthorized
from ..rules.computer import Level
from ..rules.views import SeatView
from ..table import rematch as rematches, talk as table_talk
from ..table.seat_page import SeatPage, seat_page
from ..words import LEVELS, N_, Words, error_text, mail_labels, move_text
from ..words.language import LANGUAGES, NATIVE_NAMES, time_zones
from .errors import service_error
from .game_parts import game_parts
from .limits import limits
from .locale import seat_words
from .pages import WHOLE, bp, signed_in_email, when
from .dashboard_pages import seat_parts
from .. import games

_ORDER_SEP = re.compile(r"[\s,;]+")


class Box(StrEnum):
    """Where a refusal is said: at the top of the page, under the talk box, or by the
    webhook form it answers (adding one, the Discord user id, the list's remove buttons)."""

    PAGE = "page"
    TALK = "talk"
    ADD = "add"
    DISCORD = "discord"
    REMOVE = "remove"


#: What the webhook section shows when no webhook form was sent.
_NO_WEBHOOK_ANSWER: dict[str, Any] = {"error": None, "code": None, "form": {}, "made": None, "where": None}


@dataclass(frozen=True)
class Refusal:
    """How the seat page answers a refusal of the form a view handles."""

    #: What became of the request, around ``%(error)s`` (marked with ``N_``);
    #: ``None``: the refusal alone.
    sentence: str | None = None
    #: What the form shows again (what was typed).
    form: Mapping[str, str] = field(default_factory=dict)
    box: Box = Box.PAGE
    #: The refusals the page answers; any other is the error page.
    answers: tuple[type[ServiceError], ...] = (ServiceError,)

    def said(self, e: ServiceError, w: Words, view: SeatView) -> tuple[str, Mapping[str, str]]:
        """The refusal in the seat's words, and the form to show again."""
        text = error_text(e, w)
        return (w._(self.sentence, error=text) if self.sentence else text), self.form


@dataclass(frozen=True)
class MoveRefusal(Refusal):
    """A refused move.  When the game has moved on (or it is over, or not this
    player's turn) the page shows the position as it is now with an empty form:
    the move typed was for another position."""

    def said(self, e: ServiceError, w: Words, view: SeatView) -> tuple[str, Mapping[str, str]]:
        if e.code == "stale":
            # Counted as the page's header counts ("Move 4": the move to be played now).
            return w._("The game has moved on since you loaded the page: it is now at move %(ply)s. "
                       "Here is the fresh position — nothing was played.", ply=int(view.get("ply") or 0) + 1), {}
        if e.status == 409:
            return error_text(e, w), {}
        return w._("%(error)s Nothing was played.", error=error_text(e, w)), self.form


def answer_refusals(how: Refusal) -> None:
    """Say how this request's refusals read on the seat page (before asking the service)."""
    g.refusal = how


def refused(e: ServiceError) -> Any:
    """The one answer to a refused seat form: the page again, with the refusal
    where the view said and its status; nothing was changed.  (The handler of
    ``ServiceError`` on the pages' blueprint and the webhook forms'.)"""
    how = g.get("refusal")
    token = (request.view_args or {}).get("token")
    if (not isinstance(how, Refusal) or not isinstance(token, str) or isinstance(e, Unauthorized)
            or not isinstance(e, how.answers)):
        return service_error(e)
    try:
        page = seat_page(context(), token)
    except ServiceError as gone:  # the link stopped working meanwhile
        return service_error(gone)
    message, form = how.said(e, seat_words(page.view), page.view)
    if how.box == Box.PAGE:
        shown, status = play_page(token, page, error=message, error_code=e.code, status=e.status, form=form)
    elif how.box == Box.TALK:
        shown, status = play_page(token, page, talk_error=message, error_code=e.code, status=e.status, form=form)
    else:
        shown, status = play_page(token, page, status=e.status,
                                  webhook_answer={"error": message, "code": e.code, "form": form, "where": how.box})
    if isinstance(e, RateLimited):
        return shown, status, {"Retry-After": str(e.retry_after)}
    return shown, status


bp.register_error_handler(ServiceError, refused)


def play_page(token: str, page: SeatPage | None = None, *, error: str | None = None,
              error_code: str | None = None, status: int = 200, form: Mapping[str, str] | None = None,
              talk_error: str | None = None, webhook_answer: Mapping[str, Any] | None = None) -> Any:
    """The seat page.  ``page``: what ``table.seat_page`` read, if the caller read
    it already (for the seat's words); else it is read here.  ``webhook_answer``:
    what a webhook form came to (a refusal, or a webhook just made with its
    secret, shown this once)."""
    ctx = context()
    if page is None:
        page = seat_page(ctx, token)
    view = page.view
    w = seat_words(view)
    return render_template("play.html", view=view, error=error, error_code=error_code, rematch=page.rematch,
                           form=form or {}, languages=[(c, NATIVE_NAMES[c]) for c in LANGUAGES],
                           time_zones=time_zones(), table=page.table, talk_error=talk_error,
                           max_talk=table_talk.MAX_TALK, levels=LEVELS, default_level=Level.MEDIUM,
                           version=page.version, nudge=page.nudge, notes=page.notes, now=ctx.now(),
                           max_notes=games.MAX_NOTES, practice=page.practice,
                           webhooks=page.webhooks, webhook_answer={**_NO_WEBHOOK_ANSWER, **(webhook_answer or {})},
                           premoves=page.premoves,
                           seat_data=_seat_data(view, page.table, w, ctx.config["PRESENCE_SECONDS"]),
                           **seat_parts(page),
                           **game_parts(view, token)), status


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


@bp.get("/play/<token>")
def play(token: str) -> Any:
    # ``?move=12-13&order=14,15`` (the link of a reply by mail we could not be sure
    # of) fills in the move form; as every GET, it plays nothing.
    form = {"move": request.args.get("move", "")[:200].strip(), "order": request.args.get("order", "")[:500].strip()}
    return play_page(token, form={k: v for k, v in form.items() if v})


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
    if len(parts) > 64 or not all(WHOLE.fullmatch(p) for p in parts):
        raise Invalid(N_("the order of the villages must be territory numbers separated by commas, "
                         "e.g. 20, 21"), code="bad-order")
    return [int(p) for p in parts]


@bp.post("/play/<token>/move")
def move(token: str) -> Any:
    moves = [m.strip() for m in request.form.getlist("move") if m.strip()]
    text = moves[0][:200] if moves else ""
    order_text = request.form.get("order", "")[:500]
    answer_refusals(MoveRefusal(form={"move": text, "order": order_text}))
    m = WHOLE.fullmatch(request.form.get("ply", "")[:20])
    ply: object = int(m.group(1)) if m else None
    if not text:
        raise Invalid(N_("choose a move first: pick one from the list, or type it like 12-13"), code="no-move")
    order = _parse_order(order_text)
    # Parsed once, here where it comes in: the service and the flash take the move.
    played = games.read_move(text, strict=False)
    view = games.submit_move(context(), token, played, order, ply)
    shown = move_text(played)
    flash(seat_words(view)._("Your move %(move)s was played.", move=shown), "ok")
    return redirect(url_for(".play", token=token), 303)


@bp.post("/play/<token>/mail")
def mail(token: str) -> Any:
    answer_refusals(Refusal(answers=(Invalid,)))
    choice = request.form.get("mail", "")
    view = games.set_mail(context(), token, choice)
    w = seat_words(view)
    flash(w._("Saved: %(choice)s.", choice=mail_labels(w)[choice].lower()), "ok")
    return redirect(url_for(".play", token=token) + "#settings", 303)


@bp.post("/play/<token>/talk")
def talk(token: str) -> Any:
    """Write at the table.  A refused message (empty, too long, too many) is
    shown back in its box with the reason, and nothing is posted."""
    # A little over the limit is kept, so that the page can say how long it was.
    text = request.form.get("text", "")[:table_talk.MAX_TALK * 4]
    answer_refusals(Refusal(form={"talk": text}, box=Box.TALK))
    view = table_talk.talk(context(), token, text)
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
    answer_refusals(Refusal(answers=(Invalid,)))
    view = games.set_language(context(), token, request.form.get("language", "")[:20],
                              request.form.get("time_zone", "")[:64].strip())
    w = seat_words(view)
    flash(w._("Saved: this page and your emails now use the language you chose."), "ok")
    return redirect(url_for(".play", token=token) + "#settings", 303)


@bp.post("/play/<token>/style")
def board_style(token: str) -> Any:
    """How this seat's page and the picture in its mail draw the board."""
    answer_refusals(Refusal(N_("%(error)s Nothing was changed."), answers=(Invalid,)))
    view = games.set_board_style(context(), token, request.form.get("style", "")[:20])
    w = seat_words(view)
    flash(w._("Saved: the board is drawn in high contrast.") if view["board_style"] == StyleName.CONTRAST
          else w._("Saved: the board is drawn in the standard style."), "ok")
    return redirect(url_for(".play", token=token) + "#style-title", 303)


@bp.post("/play/<token>/pause")
def pause(token: str) -> Any:
    answer_refusals(Refusal(answers=(Invalid, Conflict)))
    text = request.form.get("days", "")[:20]
    m = WHOLE.fullmatch(text)
    view = games.pause_clock(context(), token, int(m.group(1)) if m else text)
    w = seat_words(view)
    until = when(view["players"][view["seat"]]["paused_until"])
    flash(w._("Your clock is paused until %(when)s.", when=until), "ok")
    return redirect(url_for(".play", token=token) + "#settings", 303)


@bp.post("/play/<token>/computer")
def computer(token: str) -> Any:
    """Hand a seat to the computer for the rest of the game: your own (the box
    must be ticked: it cannot be taken back), or an absent player's (``seat``)."""
    answer_refusals(Refusal(N_("%(error)s Nothing was changed.")))
    level = request.form.get("level", "")[:20]
    m = WHOLE.fullmatch(request.form.get("seat", "")[:20])
    seat: int | None = int(m.group(1)) if m else None
    if seat is None and request.form.get("confirm") != "1":
        raise Invalid(N_("tick the box to confirm: the computer plays your seat to the end of the game"),
                      code="not-confirmed", field="confirm")
    view = games.hand_to_computer(context(), token, level, seat)
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
    answer_refusals(Refusal(N_("%(error)s No game was started."), answers=(Conflict,)))
    made = rematches.play_again(ctx, token, before_start=lambda: limits().per_ip("LIMIT_NEW_GAMES"))
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
