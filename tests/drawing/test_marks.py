"""Colour is never the only sign of a clan: each clan's huts have a shape of their
own in the SVG and the PNG, and the high-contrast style draws what it promises."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from PIL import Image, ImageChops

from pbem.drawing.layout import lay_out
from pbem.drawing.picture import board_png, render
from pbem.drawing.style import (
    CLAN_COLOURS,
    CLAN_MARKS,
    CONTRAST,
    MARK_GLYPHS,
    STANDARD,
    TERRAIN_COLOURS,
    TERRAIN_PATTERNS,
    TOKEN_R,
    board_style,
    clan_glyph,
)
from pbem.drawing.svg import board_svg, clan_icon
from pbem.rules.board import Board, classic_board
from pbem.rules.tables import CLANS
from tests.support.views import MID_GAME, board_part

NS = "{http://www.w3.org/2000/svg}"
SIDES = {"circle": 0, "square": 4, "diamond": 4, "triangle": 3, "hexagon": 6}


@pytest.fixture(scope="module")
def board() -> Board:
    return classic_board()


def huts(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(NS + "g") if g.attrib.get("class") == "hut"]


def shape_of(hut: ET.Element) -> ET.Element:
    """The clan's coloured shape of a token (the last circle or polygon)."""
    return [e for e in hut if e.tag in (NS + "circle", NS + "polygon")][-1]


def corners(polygon: ET.Element) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (c.split(",") for c in polygon.attrib["points"].split())]


def test_five_clans_five_shapes_and_glyphs() -> None:
    assert set(CLAN_MARKS) == set(CLANS)
    assert len(set(CLAN_MARKS.values())) == len(CLANS)
    assert len({clan_glyph(c) for c in CLANS}) == len(CLANS)
    assert set(MARK_GLYPHS) == set(SIDES)


def test_svg_tokens_have_their_clans_shapes(board: Board) -> None:
    root = ET.fromstring(board_svg(board, MID_GAME))
    seen = set()
    for hut in huts(root):
        clan = hut.attrib["data-clan"]
        mark = hut.attrib["data-mark"]
        assert mark == CLAN_MARKS[clan]
        shape = shape_of(hut)
        assert shape.attrib["fill"] == CLAN_COLOURS[clan]
        if SIDES[mark] == 0:
            assert shape.tag == NS + "circle"
        else:
            assert shape.tag == NS + "polygon" and len(corners(shape)) == SIDES[mark]
        if mark in ("square", "diamond"):
            # The square's edges are level; the diamond stands on a corner.
            xs = sorted({round(x, 1) for x, _ in corners(shape)})
            assert len(xs) == (2 if mark == "square" else 3)
        # The count is still there, on the shape.
        text = hut.find(NS + "text")
        assert text is not None and text.text and text.text.isdigit()
        seen.add(clan)
    assert seen == set(CLANS)  # MID_GAME has every clan somewhere


def test_legend_icons_have_the_same_shapes() -> None:
    for clan in CLANS:
        icon = ET.fromstring(clan_icon(clan))
        assert icon.attrib["data-mark"] == CLAN_MARKS[clan]
        assert icon.attrib["aria-hidden"] == "true"
        assert shape_of(icon).attrib["fill"] == CLAN_COLOURS[clan]


def test_contrast_svg_has_patterns_strong_borders_and_bigger_counts(board: Board) -> None:
    plain = ET.fromstring(board_svg(board, MID_GAME))
    strong = ET.fromstring(board_svg(board, MID_GAME, style="contrast"))
    assert (plain.attrib["data-board-style"], strong.attrib["data-board-style"]) == ("standard", "contrast")
    assert not list(plain.iter(NS + "pattern"))
    patterns = {p.attrib["id"] for p in strong.iter(NS + "pattern")}
    assert patterns == {f"pattern-{t}" for t in TERRAIN_PATTERNS}
    patterned = [p for p in strong.iter(NS + "path") if p.attrib.get("fill", "").startswith("url(#pattern-")]
    expected = [t for t in board if board.terrain(t) in TERRAIN_PATTERNS]
    assert sorted(int(p.attrib["data-for"]) for p in patterned) == sorted(expected)
    for p in patterned:
        assert p.attrib["fill"] == f"url(#pattern-{board.terrain(int(p.attrib['data-for']))})"

    def layer(root: ET.Element) -> ET.Element:
        return next(g for g in root.iter(NS + "g") if g.attrib.get("class") == "territories")

    assert float(layer(strong).attrib["stroke-width"]) >= 2 * float(layer(plain).attrib["stroke-width"])
    assert layer(strong).attrib["stroke"] == "#000000"
    # Same tokens, each with a black ring and a bigger count for the same shape.
    for a, b in zip(huts(plain), huts(strong), strict=True):
        assert a.attrib["data-clan"] == b.attrib["data-clan"]
        assert [e for e in b if e.tag != NS + "text"][0].attrib["fill"] == "#000000"
        ta, tb = a.find(NS + "text"), b.find(NS + "text")
        assert ta is not None and tb is not None and ta.text == tb.text
        assert float(tb.attrib["font-size"]) > float(ta.attrib["font-size"])


def test_unknown_style_is_refused(board: Board) -> None:
    assert board_style(None) is STANDARD and board_style("contrast") is CONTRAST
    with pytest.raises(ValueError):
        board_svg(board, MID_GAME, style="neon")
    with pytest.raises(ValueError):
        board_png(board, MID_GAME, style="neon")


def _lone_token(board: Board, clan: str, tid: int) -> tuple[Image.Image, tuple[float, float]]:
    view = board_part({str(tid): {clan: 3}})
    (token,) = lay_out(board, view).layouts[tid].tokens
    return render(board, view), token.centre


def _silhouette(img: Image.Image, centre: tuple[float, float], terrain: str) -> Image.Image:
    """The pixels around a token that are not its territory's colour (1-bit)."""
    s = img.width / 1000
    x, y = centre
    # Wide enough for every mark and its ring, short of the territory number above.
    box = tuple(round(v * s) for v in (x - 17, y - 17, x + 17, y + 17))
    crop = img.crop(box)
    ground = Image.new("RGB", crop.size, TERRAIN_COLOURS[terrain])
    r, g, b = ImageChops.difference(crop, ground).split()
    most = ImageChops.lighter(ImageChops.lighter(r, g), b)  # the largest difference of a channel
    return most.point(lambda v: 255 if v > 40 else 0).convert("1")


def test_png_tokens_have_their_clans_shapes(board: Board) -> None:
    tid = next(t for t in board if board.terrain(t) == "grassland")
    shapes = {}
    for clan in CLANS:
        img, centre = _lone_token(board, clan, tid)
        shapes[clan] = _silhouette(img, centre, "grassland")
        assert shapes[clan].getbbox() is not None
    # Every two clans' tokens differ in outline, not only in colour: the pixels
    # inside one silhouette and outside the other are many.
    for a in CLANS:
        for b in CLANS:
            if a < b:
                differ = ImageChops.logical_xor(shapes[a], shapes[b])
                assert differ.convert("L").histogram()[255] >= 60, (a, b)
    # Spot checks of the geometry, in picture pixels from the token's centre: the
    # square fills its corners, the circle does not; the diamond reaches further
    # left than the square; the triangle's apex is narrow.
    s = 1.2
    mid = round(17 * s)

    def on(clan: str, dx: float, dy: float) -> bool:
        return bool(shapes[clan].getpixel((mid + round(dx * s), mid + round(dy * s))))

    corner = TOKEN_R * 0.85
    assert on("blue", corner, corner) and not on("yellow", corner, corner)
    assert on("red", -TOKEN_R * 1.15, 0) and not on("blue", -TOKEN_R * 1.15, 0)
    assert on("green", 0, -TOKEN_R * 0.9) and not on("green", -TOKEN_R * 0.6, -TOKEN_R * 0.8)


def _near(img: Image.Image, colour: str, tolerance: int = 12) -> int:
    r0, g0, b0 = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return sum(n for n, (r, g, b) in img.getcolors(maxcolors=1 << 20) or []
               if abs(r - r0) <= tolerance and abs(g - g0) <= tolerance and abs(b - b0) <= tolerance)


def test_contrast_png_is_patterned_and_differs(board: Board) -> None:
    plain = render(board, MID_GAME)
    strong = render(board, MID_GAME, style="contrast")
    assert board_png(board, MID_GAME) != board_png(board, MID_GAME, style="contrast")
    assert ImageChops.difference(plain, strong).getbbox() is not None
    # The patterned terrains lose much of their flat colour to the pattern; the
    # plain grassland only a little (to the thicker borders).
    for terrain, colour in TERRAIN_COLOURS.items():
        before, after = _near(plain, colour), _near(strong, colour)
        if terrain in TERRAIN_PATTERNS:
            assert after < 0.8 * before, terrain
        else:
            assert after > 0.85 * before, terrain

