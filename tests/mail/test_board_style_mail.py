"""The board picture in a seat's mail is drawn in that seat's board style."""

from __future__ import annotations

from typing import Any

from pbem import games
from pbem.drawing.picture import board_png
from pbem.drawing.style import clan_glyph
from pbem.rules import classic_board
from pbem.rules.tables import CLANS
from tests.support.games import email_of, new_game, to_move
from tests.support.messages import newest, parts


def picture_in(ctx: Any, address: str) -> bytes:
    message = newest(ctx, address, "turn")
    assert message is not None
    images = parts(message)["images"]
    # The whole board, and close-ups of where the reader can move.
    assert "board" in images and all(k == "board" or k.startswith("close-up-") for k in images)
    ctype, data = images["board"]
    assert ctype == "image/png"
    return bytes(data)


def test_the_turn_mail_picture_follows_the_seats_style(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    # The first turn mail, standard as every seat starts.
    assert picture_in(ctx, email_of(view)) == board_png(classic_board(), view)
    for t in toks:
        if t != mover:
            games.set_board_style(ctx, t, "contrast")
    games.submit_move(ctx, mover, view["legal_moves"][0], None, view["ply"])
    nxt, next_view = to_move(ctx, toks)
    assert nxt != mover and next_view["board_style"] == "contrast"
    got = picture_in(ctx, email_of(next_view))
    assert got == board_png(classic_board(), next_view, style="contrast")
    assert got != board_png(classic_board(), next_view, style="standard")


def test_the_mails_clan_chips_carry_the_huts_shapes(ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    message = newest(ctx, email_of(view), "turn")
    assert message is not None
    html = parts(message)["html"]
    for clan in CLANS:
        # The score chip: the shape (hidden from screen readers) before the clan's name.
        assert f'<span aria-hidden="true">{clan_glyph(clan)}</span> {clan}' in html, clan
    # The reader's own clan, in the sentence that tells it, has its shape too.
    assert f'<span aria-hidden="true">{clan_glyph(view["clan"])}</span> {view["clan"]}</span>' in html
