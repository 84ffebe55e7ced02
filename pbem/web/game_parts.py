"""What the game templates show besides the view itself: the board drawn, the
move options and what play.js needs to pick a move on the board, the epochs and
the score bars.  A game's public page, a seat's page and the replay use them."""

from __future__ import annotations

from typing import Any, Mapping

from markupsafe import Markup

from .. import games
from ..drawing.svg import board_svg
from ..rules import Board, Move, classic_board
from ..rules.tables import CLANS, EPOCHS, TERRAINS, VILLAGE_CHIPS
from ..rules.views import View, seated
from ..words import Words, board_style_labels, describe_history, end_text, mail_labels, names_text
from .locale import words


def _board() -> Board:
    return classic_board()


def _moves_by_source(view: View) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for source, target in map(Move.parse, view["legal_moves"]) if seated(view) else ():
        out.setdefault(source, []).append(target)
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


def game_parts(view: View, token: str | None) -> dict[str, Any]:
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
            text = str(Move(source, target))
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
        # An open seat nobody has joined has no name yet (pbem.games.open_seats).
        "not_accepted": [p["name"] or w._("a seat for anyone") for p in players if not p["accepted"]],
        "others": names_text([p["name"] or w._("a seat for anyone") for p in players
                              if p["seat"] != view.get("seat")], w),
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
