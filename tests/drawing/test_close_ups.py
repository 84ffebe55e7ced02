"""Close-ups of the board for a phone: every territory asked for shown whole in one,
with labels legible where a phone's mail client shows the picture."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from pbem.drawing.layout import lay_out
from pbem.drawing.marks import font_scale
from pbem.drawing.picture import CLOSE_UP_W, DEFAULT_WIDTH, board_png, board_pngs, close_up_windows
from pbem.drawing.style import CLAN_MARKS, NUMBER_FONT, TOKEN_FONT
from pbem.rules import classic_board
from pbem.rules.deal import deal_game
from pbem.rules.views import player_view

#: A phone's mail client, and inside its card (the mail's margins): CSS px.
PHONE, CARD = 360, 300
SMALLEST = 11


def test_close_ups_show_every_territory_asked_for_whole_and_legibly() -> None:
    board = classic_board()
    rng = random.Random(4)
    game = deal_game(["ann", "bob", "cid"], rng).game()
    scale = DEFAULT_WIDTH / 1000
    number_px = max(8, round(NUMBER_FONT * scale))
    count_px = min(font_scale(m, 1) for m in CLAN_MARKS.values()) * TOKEN_FONT * scale
    while not game.is_over():
        seat = game.turn
        assert seat is not None
        view = player_view(game, seat)
        focus = sorted({int(t) for m in view["legal_moves"] for t in m.split("-")})
        windows = close_up_windows(board, view, focus)
        layouts = lay_out(board, view).layouts
        assert set().union(*(set(shown) for _, shown in windows)) == set(focus)
        for (x0, y0, x1, y1), shown in windows:
            assert x1 - x0 == pytest.approx(CLOSE_UP_W)
            for tid in shown:
                bx0, by0, bx1, by1 = layouts[tid].box
                assert x0 <= bx0 and bx1 <= x1 and y0 <= by0 and by1 <= y1, (tid, (x0, y0, x1, y1))
        width_px = CLOSE_UP_W * scale
        for shown_at in (PHONE, CARD):
            assert number_px * shown_at / width_px >= SMALLEST
            assert count_px * shown_at / width_px >= SMALLEST
        if game.ply in (0, 20):
            whole, pieces = board_pngs(board, view, focus=focus)
            # The whole picture is the one board_png draws; the pieces are cut from it.
            assert whole == board_png(board, view)
            assert [p.territories for p in pieces] == [shown for _, shown in windows]
            for p in pieces:
                assert Image.open(io.BytesIO(p.png)).size == p.size and p.size[0] == round(width_px)
        move = game.random_move(rng)
        assert move is not None
        game.push(move)
