"""The emailed PNG board picture (pbem.drawing.picture)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from pbem.drawing.picture import board_png
from pbem.rules.board import Board, classic_board
from pbem.drawing.layout import lay_out
from pbem.drawing.style import CLAN_COLOURS, LAST_MOVE, TERRAIN_COLOURS, TOKEN_R
from tests.support.views import EMPTY, MID_GAME, start_view





@pytest.fixture(scope="module")
def board() -> Board:
    return classic_board()


def decode(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    img = Image.open(io.BytesIO(data))
    assert img.format == "PNG"
    return img.convert("RGB")


def rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))


def close(a: tuple[int, ...], b: tuple[int, ...], tolerance: int = 40) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def pixel(img: Image.Image, x: float, y: float) -> tuple[int, int, int]:
    value = img.getpixel((round(x), round(y)))
    assert isinstance(value, tuple)
    return (value[0], value[1], value[2])


def test_mid_game_png_is_1200_wide_and_small(board: Board) -> None:
    data = board_png(board, MID_GAME)
    img = decode(data)
    assert img.size == (1200, 840)
    assert len(data) < 150_000


def test_start_position_png_is_small(board: Board) -> None:
    data = board_png(board, start_view(board))
    assert decode(data).size == (1200, 840)
    assert len(data) < 150_000


def test_width_sets_the_size_by_aspect_ratio(board: Board) -> None:
    assert decode(board_png(board, MID_GAME, width=600)).size == (600, 420)
    with pytest.raises(ValueError):
        board_png(board, MID_GAME, width=0)


def test_an_empty_board(board: Board) -> None:
    assert decode(board_png(board, EMPTY)).size == (1200, 840)


def test_terrain_colours_from_the_shared_palette(board: Board) -> None:
    img = decode(board_png(board, EMPTY))
    s = 1.2
    # A point between territory 1's label and its outline: plain grassland.
    pic = lay_out(board, EMPTY)
    x, y = pic.drawing.territories[0].label
    assert close(pixel(img, x * s, (y + 25) * s), rgb(TERRAIN_COLOURS["grassland"]))


def test_last_move_is_marked(board: Board) -> None:
    plain = decode(board_png(board, {**MID_GAME, "last_move": None}))
    moved = decode(board_png(board, MID_GAME))
    pic = lay_out(board, MID_GAME)
    assert pic.arrow is not None
    s = 1.2
    # The arrow, halfway along its shaft, is drawn in the last-move colour.
    (x0, y0), (x1, y1) = pic.arrow.start, pic.arrow.shaft_end
    mid = ((x0 + x1) / 2 * s, (y0 + y1) / 2 * s)
    assert close(pixel(moved, *mid), rgb(LAST_MOVE))
    assert not close(pixel(plain, *mid), rgb(LAST_MOVE))
    # The arrowhead (its centroid) lies inside territory 32, just off its label block.
    hx = sum(p[0] for p in pic.arrow.head) / 3 * s
    hy = sum(p[1] for p in pic.arrow.head) / 3 * s
    assert close(pixel(moved, hx, hy), rgb(LAST_MOVE))
    assert pixel(moved, hx, hy) != pixel(plain, hx, hy)
    # The outline of the territory moved from (33) is highlighted: take the middle of
    # its border edge nearest to territory 25's label.
    shapes = {t.id: t for t in pic.drawing.territories}
    outline = shapes[33].outline
    lx, ly = shapes[25].label
    mids = [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in zip(outline, outline[1:] + outline[:1])]
    mx, my = min(mids, key=lambda m: (m[0] - lx) ** 2 + (m[1] - ly) ** 2)
    edge = (mx * s, my * s)
    assert close(pixel(moved, *edge), rgb(LAST_MOVE))
    assert not close(pixel(plain, *edge), rgb(LAST_MOVE))


def test_label_point_differs_between_empty_board_and_last_move(board: Board) -> None:
    empty = decode(board_png(board, EMPTY))
    moved = decode(board_png(board, MID_GAME))
    s = 1.2
    x, y = next(t.label for t in lay_out(board, EMPTY).drawing.territories if t.id == 32)
    box = (round((x - 45) * s), round((y - 45) * s), round((x + 45) * s), round((y + 45) * s))
    highlight = rgb(LAST_MOVE)

    def marked(img: Image.Image) -> int:
        colours = img.crop(box).getcolors(maxcolors=1 << 16) or []
        return sum(n for n, c in colours if isinstance(c, tuple) and close(c, highlight, 30))

    assert pixel(empty, x * s, y * s) != pixel(moved, x * s, y * s) or marked(empty) != marked(moved)
    assert marked(empty) == 0
    assert marked(moved) > 50  # the arrowhead ends next to 32's huts


def test_hut_tokens_show_the_clan_colours(board: Board) -> None:
    img = decode(board_png(board, MID_GAME))
    pic = lay_out(board, MID_GAME)
    s = 1.2
    tokens = pic.layouts[43].tokens
    assert [(t.clan, t.count) for t in tokens] == [("red", 4), ("yellow", 1), ("blue", 2), ("black", 1)]
    for t in tokens:
        # Left of the digit, inside the disc: the clan colour.
        x, y = t.centre
        assert close(pixel(img, (x - TOKEN_R * 0.65) * s, y * s), rgb(CLAN_COLOURS[t.clan]))
    # An empty territory has no token: its label area keeps the terrain colour.
    x, y = pic.layouts[1].number_at
    assert close(pixel(img, x * s, (y + 25) * s), rgb(TERRAIN_COLOURS["grassland"]))


def test_deterministic(board: Board) -> None:
    assert board_png(board, MID_GAME) == board_png(board, dict(MID_GAME))
