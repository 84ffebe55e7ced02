"""The board as a PNG for email, drawn with Pillow.

The picture is the one :func:`pbem.drawing.svg.board_svg` draws (same style, same label
layout), sized for a phone: large clan tokens with their hut counts, the last move outlined
with an arrow, villages with a badge giving their number and value.

Work that does not depend on the position is cached per board and width: the terrain map
(drawn supersampled once, so its edges are smooth), the scaled outlines, the fonts and the
hut-token sprites.  A render copies the map and draws only what the view adds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw, ImageFont

from pbem.rules.board import Board
from pbem.rules.move import Move
from pbem.rules.views import BoardPart, VillageEntry
from pbem.rules.tables import CLANS

from .layout import Picture, Point, Shape, drawing, lay_out
from .marks import font_scale, outline, reach, text_at
from .style import (
    ARROW_HALO_W,
    ARROW_W,
    BACKGROUND,
    BADGE_EDGE_W,
    BADGE_FONT,
    EMPTY_NUMBER_COLOUR,
    HIGHLIGHT_W,
    LAKE_EDGE_W,
    LAST_MOVE,
    LAST_MOVE_HALO,
    NUMBER_COLOUR,
    NUMBER_FONT,
    NUMBER_HALO,
    RIVER,
    RIVER_W,
    TERRAIN_PATTERNS,
    TOKEN_EDGE,
    TOKEN_R,
    VILLAGE_EDGE,
    VILLAGE_FILL,
    VILLAGE_OUTLINE,
    VILLAGE_TEXT,
    VILLAGE_W,
    WATER,
    WATER_EDGE,
    STANDARD,
    BoardStyle,
    board_style,
    clan_colour,
    clan_mark,
    clan_text_colour,
    terrain_colour,
)
from .png import palette_png

DEFAULT_WIDTH = 1200
#: Supersampling factor of the cached map and token sprites.
SUPERSAMPLE = 3
#: Colours in the emailed (palette) PNG.
PALETTE_COLOURS = 96

PxPoint = tuple[float, float]


@dataclass(frozen=True)
class _Base:
    """Position-independent parts of a board's picture at one width."""

    image: Image.Image
    scale: float
    outlines: dict[int, tuple[PxPoint, ...]]


def _scaled(points: Sequence[Point], k: float) -> list[PxPoint]:
    return [(x * k, y * k) for x, y in points]


@lru_cache(maxsize=8)
def _base(board: Board, width: int, look: BoardStyle) -> _Base:
    d = drawing(board)
    scale = width / d.size[0]
    height = max(1, round(d.size[1] * scale))
    k = scale * SUPERSAMPLE
    big = Image.new("RGB", (width * SUPERSAMPLE, height * SUPERSAMPLE), BACKGROUND)
    draw = ImageDraw.Draw(big)
    for s in d.territories:
        draw.polygon(_scaled(s.outline, k), fill=terrain_colour(s.terrain))
    if look.patterns:
        _draw_patterns(big, d.territories, k)
    border = max(1, round(look.border_w * k))
    for s in d.territories:
        pts = _scaled(s.outline, k)
        draw.polygon(pts, outline=look.border, width=border)
    river = max(1, round(RIVER_W * k))
    for r in d.rivers:
        pts = _scaled(r, k)
        draw.line(pts, fill=RIVER, width=river, joint="curve")
        for x, y in (pts[0], pts[-1]):
            draw.ellipse((x - river / 2, y - river / 2, x + river / 2, y + river / 2), fill=RIVER)
    for lake in d.lakes:
        draw.polygon(_scaled(lake, k), fill=WATER, outline=WATER_EDGE, width=max(1, round(LAKE_EDGE_W * k)))
    image = big.resize((width, height), Image.Resampling.BOX)
    outlines = {s.id: tuple(_scaled(s.outline, scale)) for s in d.territories}
    return _Base(image, scale, outlines)


def _draw_patterns(img: Image.Image, territories: Sequence[Shape], k: float) -> None:
    """The high-contrast board's terrain patterns (style.TERRAIN_PATTERNS), as the
    SVG draws them: each terrain's pattern over the whole picture, kept to its
    territories by a mask."""
    for terrain, (kind, gap, colour, opacity, width) in TERRAIN_PATTERNS.items():
        shapes = [s for s in territories if s.terrain == terrain]
        if not shapes:
            continue
        mask = Image.new("L", img.size, 0)
        area = ImageDraw.Draw(mask)
        for s in shapes:
            area.polygon(_scaled(s.outline, k), fill=255)
        ink = Image.new("L", img.size, 0)
        pen = ImageDraw.Draw(ink)
        step, w = gap * k, max(1, round(width * k))
        cols, rows = int(img.width / step) + 2, int(img.height / step) + 2
        if kind == "dots":
            r = width * k
            for i in range(cols):
                for j in range(rows):
                    x, y = (i + 0.5) * step, (j + 0.5) * step
                    pen.ellipse((x - r, y - r, x + r, y + r), fill=255)
        elif kind == "diagonal":
            for i in range(cols + rows):
                x = i * step
                pen.line(((x, 0), (x - img.height, img.height)), fill=255, width=w)
        else:
            for j in range(rows):
                y = (j + 0.5) * step
                pen.line(((0, y), (img.width, y)), fill=255, width=w)
        alpha = ImageChops.multiply(mask, ink.point(lambda v: round(v * opacity)))
        img.paste(colour, (0, 0, img.width, img.height), alpha)


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=512)
def _token(clan: str, count: int, radius_px: float, look: BoardStyle) -> Image.Image:
    """A hut token sprite (RGBA), centred on the token: the dark ring, the clan's
    shape (style.CLAN_MARKS) with a light edge, the count."""
    k = SUPERSAMPLE
    u = radius_px / TOKEN_R  # pixels per board unit
    mark = clan_mark(clan)
    ring = look.token_shadow_w * u * k
    side = int(2 * max(reach(mark, radius_px, look.token_shadow_w * u)) + 3)
    img = Image.new("RGBA", (side * k, side * k), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    c = side * k / 2
    r = radius_px * k
    edge = max(1, round(look.token_edge_w * u * k))
    corners = outline(mark, (c, c), r)
    if not corners:
        ro = r + ring
        draw.ellipse((c - ro, c - ro, c + ro, c + ro), fill=look.token_shadow)
        draw.ellipse((c - r, c - r, c + r, c + r), fill=TOKEN_EDGE)
        draw.ellipse((c - r + edge, c - r + edge, c + r - edge, c + r - edge), fill=clan_colour(clan))
    else:
        # The ring is round at the corners, as the SVG's.
        draw.polygon(corners, fill=look.token_shadow)
        draw.line([*corners, corners[0], corners[1]], fill=look.token_shadow, width=round(2 * ring),
                  joint="curve")
        for x, y in corners:
            draw.ellipse((x - ring, y - ring, x + ring, y + ring), fill=look.token_shadow)
        draw.polygon(corners, fill=TOKEN_EDGE)
        draw.polygon(outline(mark, (c, c), r, -edge), fill=clan_colour(clan))
    digits = str(count)
    size = look.token_font * u * font_scale(mark, len(digits)) * k
    text_fill = clan_text_colour(clan)
    draw.text(
        text_at(mark, (c, c), r),
        digits,
        fill=text_fill,
        font=_font(round(size)),
        anchor="mm",
        stroke_width=max(1, round(size / 14)),
        stroke_fill=text_fill,
    )
    return img.resize((side, side), Image.Resampling.LANCZOS)


@lru_cache(maxsize=1024)
def _label(text: str, fill: str, halo: str, size: int, stroke: int) -> tuple[Image.Image, int, int]:
    """A text sprite (RGBA) and the offset of its top-left corner from the text's
    centre: territory numbers repeat in every picture, so each is drawn once."""
    font = _font(size)
    # Pillow types the box as floats; FreeType gives whole pixels (cached: no cost per picture).
    left, top, right, bottom = map(int, font.getbbox(text, anchor="mm", stroke_width=stroke))
    img = Image.new("RGBA", (right - left + 2, bottom - top + 2), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    at = (1 - left, 1 - top)
    draw.text(at, text, fill=halo, font=font, anchor="mm", stroke_width=stroke, stroke_fill=halo)
    draw.text(at, text, fill=fill, font=font, anchor="mm", stroke_width=1, stroke_fill=fill)
    return img, left - 1, top - 1


def _paste_label(img: Image.Image, at: PxPoint, text: str, fill: str, halo: str,
                 size: int, stroke: int) -> None:
    sprite, dx, dy = _label(text, fill, halo, size, stroke)
    img.paste(sprite, (round(at[0]) + dx, round(at[1]) + dy), sprite)


def render(board: Board, view: BoardPart, *, width: int = DEFAULT_WIDTH,
           style: str | BoardStyle | None = None, laid_out: Picture | None = None) -> Image.Image:
    """The picture as an RGB image (``board_png`` encodes it), in the board style
    ``style`` (a name of ``style.BOARD_STYLES``; ``None``: standard)."""
    look = board_style(style)
    width = int(width)
    if width < 1:
        raise ValueError("width must be positive")
    base = _base(board, width, look)
    s = base.scale
    pic = laid_out if laid_out is not None else lay_out(board, view)
    scene = pic.scene
    img = base.image.copy()
    draw = ImageDraw.Draw(img)

    vw = max(1, round(VILLAGE_W * s))
    for tid in sorted(scene.villages):
        pts = list(base.outlines[tid])
        draw.line(pts + pts[:2], fill=VILLAGE_OUTLINE, width=vw, joint="curve")
    if scene.last_move is not None:
        w = max(2, round(HIGHLIGHT_W * s))
        for tid in scene.last_move:
            pts = list(base.outlines[tid])
            draw.line(pts + pts[:2], fill=LAST_MOVE, width=w, joint="curve")
    if pic.arrow is not None:
        a = pic.arrow
        shaft = [(a.start[0] * s, a.start[1] * s), (a.shaft_end[0] * s, a.shaft_end[1] * s)]
        head = [(x * s, y * s) for x, y in a.head]
        halo = max(1, round(ARROW_HALO_W * s))
        aw = max(2, round(ARROW_W * s))
        draw.line(shaft, fill=LAST_MOVE_HALO, width=aw + 2 * halo)
        r = (aw + 2 * halo) / 2
        x0, y0 = shaft[0]
        draw.ellipse((x0 - r, y0 - r, x0 + r, y0 + r), fill=LAST_MOVE_HALO)
        draw.polygon(head, fill=LAST_MOVE_HALO, outline=LAST_MOVE_HALO, width=2 * halo)
        draw.line(shaft, fill=LAST_MOVE, width=aw)
        r = aw / 2
        draw.ellipse((x0 - r, y0 - r, x0 + r, y0 + r), fill=LAST_MOVE)
        draw.polygon(head, fill=LAST_MOVE)

    number_size = max(8, round(NUMBER_FONT * s))
    badge_font = _font(max(7, round(BADGE_FONT * s)))
    halo_w = max(1, round(look.number_halo_png_w * s))
    radius = TOKEN_R * s
    for tid, lay in pic.layouts.items():
        empty = tid not in scene.huts
        nx, ny = lay.number_at
        colour = EMPTY_NUMBER_COLOUR if empty else NUMBER_COLOUR
        _paste_label(img, (nx * s, ny * s), lay.number, colour, NUMBER_HALO, number_size, halo_w + 1)
        if lay.badge is not None:
            b = lay.badge
            bx, by = b.centre[0] * s, b.centre[1] * s
            hw, hh = b.width * s / 2, b.height * s / 2
            draw.rounded_rectangle(
                (bx - hw, by - hh, bx + hw, by + hh),
                radius=hh,
                fill=VILLAGE_FILL,
                outline=VILLAGE_EDGE,
                width=max(1, round(BADGE_EDGE_W * s)),
            )
            draw.text((bx, by), b.text, fill=VILLAGE_TEXT, font=badge_font, anchor="mm",
                      stroke_width=1 if s >= 1 else 0, stroke_fill=VILLAGE_TEXT)
        for t in lay.tokens:
            sprite = _token(t.clan, t.count, radius, look)
            half = sprite.width / 2
            img.paste(sprite, (round(t.centre[0] * s - half), round(t.centre[1] * s - half)), sprite)
    return img


def board_png(board: Board, view: BoardPart, *, width: int = DEFAULT_WIDTH,
              style: str | BoardStyle | None = None) -> bytes:
    """The board in the position ``view`` as PNG bytes, ``width`` pixels wide (height by
    the board's aspect ratio); a palette image, small enough to attach to an email.
    ``style`` as for :func:`render`."""
    look = board_style(style)
    img = render(board, view, width=width, style=look)
    # Mapping onto a palette made once per board is several times faster than
    # choosing a palette for every picture, and the pictures look the same.
    return palette_png(img.quantize(palette=_palette(board, width, look), dither=Image.Dither.NONE))


@lru_cache(maxsize=8)
def _palette(board: Board, width: int, look: BoardStyle = STANDARD) -> Image.Image:
    """A palette for every picture of this board: chosen from a picture holding
    every colour one can show (every clan's tokens, villages, the last move)."""
    ids = list(board.ids)
    huts = {str(tid): {clan: 1 + (n + k) % 12 for k, clan in enumerate(CLANS)}
            for n, tid in enumerate(ids) if n % 3}
    villages: list[VillageEntry] = [
        {"number": n + 1, "territory": tid, "epoch": 1, "founder": "", "terrain": board.terrain(tid),
         "huts": {"red": 2}, "removed": {}, "clans": list(CLANS), "points": 5}
        for n, tid in enumerate(ids[::7][:12])]
    for v in villages:
        huts[str(v["territory"])] = {"red": 2}
    first = next(t for t in ids if str(t) in huts)
    second = min(board.neighbours(first))
    sample = render(board, {"huts": huts, "villages": villages, "last_move": str(Move(second, first))},
                    width=width, style=look)
    return sample.quantize(PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


#: A close-up's width in board units.  Cut from the picture at DEFAULT_WIDTH
#: (1.2 px a unit) it is 456 px wide, and a mail on a phone 360 px wide shows it
#: about 300 px wide (inside the card's margins): territory numbers (NUMBER_FONT)
#: and one-digit hut counts are then at least 11 px, where the whole board shows
#: them at 5.  Its height is what the territories it shows need (a phone scrolls).
CLOSE_UP_W = 380.0
#: Room kept around a label block inside a close-up, in board units.
CLOSE_UP_MARGIN = 8.0


@dataclass(frozen=True)
class CloseUp:
    """A piece of the board picture, and the territories whose labels it shows whole."""

    png: bytes
    territories: tuple[int, ...]
    size: tuple[int, int]


def close_up_windows(board: Board, view: BoardPart, territories: Sequence[int], *,
                     laid_out: Picture | None = None,
                     ) -> list[tuple[tuple[float, float, float, float], tuple[int, ...]]]:
    """Windows :data:`CLOSE_UP_W` wide (board units, ``(x0, y0, x1, y1)``) that
    together show the label block of each of ``territories`` whole: few columns
    (left to right), each as tall as its territories need, each with the
    territories it shows whole."""
    d = drawing(board)
    pic = laid_out if laid_out is not None else lay_out(board, view)
    width, height = d.size
    w, m = min(CLOSE_UP_W, width), CLOSE_UP_MARGIN
    boxes = {tid: pic.layouts[tid].box for tid in territories if tid in pic.layouts}

    def across(box: tuple[float, float, float, float], x0: float) -> bool:
        return (box[0] - m >= x0 or x0 <= 0) and (box[2] + m <= x0 + w or x0 + w >= width)

    # Left to right: a column starts at the leftmost block not yet shown whole
    # (kept on the board), and shows whole every block that fits in it.
    chosen: list[tuple[float, set[int]]] = []
    left = sorted(boxes, key=lambda t: boxes[t][0])
    while left:
        x0 = max(0.0, min(width - w, boxes[left[0]][0] - m))
        shown = {t for t in left if across(boxes[t], x0)} or {left[0]}
        chosen.append((x0, shown))
        left = [t for t in left if t not in shown]
    out = []
    for x0, mine in chosen:
        y0 = max(0.0, min(boxes[t][1] for t in mine) - m)
        y1 = min(height, max(boxes[t][3] for t in mine) + m)
        out.append(((x0, y0, x0 + w, y1), tuple(sorted(t for t, box in boxes.items()
                                                        if across(box, x0) and box[1] >= y0 and box[3] <= y1))))
    return out


def board_pngs(board: Board, view: BoardPart, *, focus: Sequence[int] = (),
               width: int = DEFAULT_WIDTH, style: str | BoardStyle | None = None) -> tuple[bytes, list[CloseUp]]:
    """:func:`board_png`, and close-ups (:func:`close_up_windows`) showing the
    territories ``focus`` legibly on a phone: pieces of the same picture, drawn
    and mapped onto the palette once, so each costs only its encoding."""
    look = board_style(style)
    pic = lay_out(board, view)
    img = render(board, view, width=width, style=look, laid_out=pic)
    indexed = img.quantize(palette=_palette(board, width, look), dither=Image.Dither.NONE)
    scale = _base(board, width, look).scale
    pieces = []
    for (x0, y0, x1, y1), shown in close_up_windows(board, view, focus, laid_out=pic) if focus else ():
        left = round(x0 * scale)
        box = (left, round(y0 * scale), min(img.width, left + round((x1 - x0) * scale)),
               min(img.height, round(y1 * scale)))
        pieces.append(CloseUp(palette_png(indexed, box), shown, (box[2] - box[0], box[3] - box[1])))
    return palette_png(indexed), pieces
