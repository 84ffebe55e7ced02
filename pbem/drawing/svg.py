"""The board as a standalone SVG picture, and the drawing data both renderers share.

:func:`board_svg` is a pure function of a board and a *view*
(``huts``, ``villages``, ``last_move``); the PNG renderer (``pbem.drawing.picture``) imports
the palette and the label layout from here, so colours and geometry live in one place.

>>> from pbem.rules.board import Board
>>> b = Board.from_data({"territories": [{"id": 1, "terrain": "forest", "neighbours": [2]},
...                                      {"id": 2, "terrain": "steppe", "neighbours": [1]}]})
>>> svg = board_svg(b, {"huts": {"2": {"red": 2}}, "last_move": "1-2"})
>>> svg.startswith("<svg") and 'data-territory="2"' in svg and "red 2" in svg
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from pbem.rules.board import Board
from pbem.rules.tables import CLANS, EPOCHS

# --------------------------------------------------------------------------------------
# Palette: the one place for the picture's colours (the PNG renderer imports these).
# --------------------------------------------------------------------------------------

TERRAIN_COLOURS: dict[str, str] = {
    "mountain": "#9a9a9a",
    "forest": "#2f6b34",
    "steppe": "#d4a84b",
    "grassland": "#a5d46f",
}
TERRAIN_FALLBACK = "#cfcfcf"
BORDER = "#3a3a3a"
WATER = "#5b9bd5"
WATER_EDGE = "#2c6aa6"
RIVER = "#3c82c8"
BACKGROUND = "#5b9bd5"

CLAN_COLOURS: dict[str, str] = {
    "red": "#d7263d",
    "yellow": "#ffd60a",
    "green": "#2fa84f",
    "blue": "#1f5ed6",
    "black": "#1c1c1c",
}
#: Text drawn on a clan's colour (board tokens, the mails' clan chips): light on
#: dark clans, dark on yellow and green (white on this green is 3.1:1, under
#: WCAG AA's 4.5:1; dark is 5.5:1).
CLAN_TEXT: dict[str, str] = {
    "red": "#ffffff",
    "yellow": "#1c1c1c",
    "green": "#1c1c1c",
    "blue": "#ffffff",
    "black": "#ffffff",
}
UNKNOWN_CLAN = "#8c8c8c"
UNKNOWN_CLAN_TEXT = "#ffffff"
TOKEN_EDGE = "#ffffff"
TOKEN_SHADOW = "#1c1c1c"

NUMBER_COLOUR = "#161616"
NUMBER_HALO = "#ffffff"
EMPTY_NUMBER_COLOUR = "#3c3c3c"

LAST_MOVE = "#e6007e"
LAST_MOVE_HALO = "#ffffff"
SELECTED = "#00e5ff"
TARGET = "#ffffff"

VILLAGE_FILL = "#4a2c0a"
VILLAGE_EDGE = "#fff3d1"
VILLAGE_TEXT = "#fff3d1"
#: The outline of a village's territory.
VILLAGE_OUTLINE = "#4a2c0a"

# --------------------------------------------------------------------------------------
# Geometry, in board units (the classic board is 1000 x 700).
# --------------------------------------------------------------------------------------

TOKEN_R = 13.0
TOKEN_GAP = 3.0
TOKENS_PER_ROW = 3
TOKEN_FONT = 17.0
NUMBER_FONT = 15.0
NUMBER_LINE = 16.0
LINE_GAP = 3.0
BADGE_FONT = 13.0
BADGE_H = 19.0
BADGE_PAD = 5.0
BADGE_GAP = 4.0
#: Rough advance width of a character, as a fraction of the font size.
CHAR_EM = 0.6
BORDER_W = 1.2
RIVER_W = 4.5
HIGHLIGHT_W = 5.0
VILLAGE_W = 3.0
#: Label blocks are kept this far inside the board's edges.
EDGE_MARGIN = 2.0
SELECTED_W = 6.0
TARGET_W = 4.0
ARROW_W = 7.0
ARROW_HALO_W = 2.5
ARROW_HEAD_LEN = 22.0
ARROW_HEAD_W = 26.0
ARROW_CLEARANCE = 4.0

FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"

Point = tuple[float, float]
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Shape:
    """A territory as drawn: its outline polygon and its label point."""

    id: int
    terrain: str
    label: Point
    outline: tuple[Point, ...]


@dataclass(frozen=True)
class Drawing:
    """What the renderers draw for a board, independent of any position."""

    size: Point
    territories: tuple[Shape, ...]
    lakes: tuple[tuple[Point, ...], ...]
    rivers: tuple[tuple[Point, ...], ...]


@dataclass(frozen=True)
class VillageMark:
    number: int | None
    points: int | None

    @property
    def text(self) -> str:
        n = f"V{self.number}" if self.number is not None else "V"
        return n if self.points is None else f"{n} · {self.points} pts"


@dataclass(frozen=True)
class Scene:
    """The parts of a view the pictures show, read defensively."""

    huts: dict[int, tuple[tuple[str, int], ...]]
    villages: dict[int, VillageMark]
    last_move: tuple[int, int] | None


@dataclass(frozen=True)
class Token:
    clan: str
    count: int
    centre: Point


@dataclass(frozen=True)
class Badge:
    text: str
    centre: Point
    width: float
    height: float


@dataclass(frozen=True)
class LabelLayout:
    """Where a territory's number, village badge and hut tokens go."""

    number: str
    number_at: Point
    tokens: tuple[Token, ...]
    badge: Badge | None
    box: Box


@dataclass(frozen=True)
class Arrow:
    start: Point
    shaft_end: Point
    head: tuple[Point, Point, Point]


def clan_colour(clan: str) -> str:
    return CLAN_COLOURS.get(clan, UNKNOWN_CLAN)


def clan_text_colour(clan: str) -> str:
    return CLAN_TEXT.get(clan, UNKNOWN_CLAN_TEXT)


def terrain_colour(terrain: str) -> str:
    return TERRAIN_COLOURS.get(terrain, TERRAIN_FALLBACK)


# --------------------------------------------------------------------------------------
# Board drawing data
# --------------------------------------------------------------------------------------


def _point(value: Any) -> Point | None:
    if (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        and all(math.isfinite(v) for v in value)
    ):
        return (float(value[0]), float(value[1]))
    return None


def _points(value: Any) -> tuple[Point, ...] | None:
    if not isinstance(value, list):
        return None
    out = [_point(v) for v in value]
    if any(p is None for p in out):
        return None
    return tuple(p for p in out if p is not None)


def _grid_drawing(board: Board) -> Drawing:
    """A plain grid of squares, for boards without drawing data."""
    n = len(board)
    cols = max(1, math.ceil(math.sqrt(n * 10 / 7)))
    rows = max(1, math.ceil(n / cols))
    w, h = 1000.0, 700.0
    cw, ch = w / cols, h / rows
    shapes = []
    for i, tid in enumerate(board.ids):
        x0, y0 = (i % cols) * cw, (i // cols) * ch
        outline = ((x0, y0), (x0 + cw, y0), (x0 + cw, y0 + ch), (x0, y0 + ch))
        shapes.append(Shape(tid, board.terrains[i], (x0 + cw / 2, y0 + ch / 2), outline))
    return Drawing((w, h), tuple(shapes), (), ())


@lru_cache(maxsize=32)
def drawing(board: Board) -> Drawing:
    """The drawing data of a board: its outlines, lakes and rivers (or a grid)."""
    data = board.data
    if not isinstance(data, dict) or not isinstance(data.get("territories"), list):
        return _grid_drawing(board)
    size = _point(data.get("size"))
    if size is None or size[0] <= 0 or size[1] <= 0:
        return _grid_drawing(board)
    by_id: dict[int, dict[str, Any]] = {}
    for t in data["territories"]:
        if isinstance(t, dict) and isinstance(t.get("id"), int):
            by_id[t["id"]] = t
    shapes = []
    for i, tid in enumerate(board.ids):
        t = by_id.get(tid, {})
        outline = _points(t.get("outline"))
        label = _point(t.get("label"))
        if not outline or len(outline) < 3:
            return _grid_drawing(board)
        if label is None:
            label = (
                sum(p[0] for p in outline) / len(outline),
                sum(p[1] for p in outline) / len(outline),
            )
        shapes.append(Shape(tid, board.terrains[i], label, outline))
    lakes = []
    for lake in data.get("lakes") or ():
        pts = _points(lake.get("outline")) if isinstance(lake, dict) else None
        if pts and len(pts) >= 3:
            lakes.append(pts)
    rivers = []
    for river in data.get("rivers") or ():
        pts = _points(river.get("line")) if isinstance(river, dict) else None
        if pts and len(pts) >= 2:
            rivers.append(pts)
    return Drawing(size, tuple(shapes), tuple(lakes), tuple(rivers))


# --------------------------------------------------------------------------------------
# Reading the view
# --------------------------------------------------------------------------------------


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _parse_move(value: Any) -> tuple[int, int] | None:
    if not isinstance(value, str):
        return None
    parts = value.split("-")
    if len(parts) != 2:
        return None
    a, b = _as_int(parts[0]), _as_int(parts[1])
    if a is None or b is None:
        return None
    return (a, b)


def read_view(board: Board, view: Mapping[str, Any]) -> Scene:
    """The huts, villages and last move of ``view`` that concern ``board``'s territories.

    Missing or malformed parts are treated as empty; clans come in the canonical order
    (red, yellow, green, blue, black), then any unknown clan names sorted."""
    huts: dict[int, tuple[tuple[str, int], ...]] = {}
    raw_huts = view.get("huts")
    if isinstance(raw_huts, Mapping):
        for key, counts in raw_huts.items():
            tid = _as_int(key)
            if tid is None or tid not in board or not isinstance(counts, Mapping):
                continue
            clean: dict[str, int] = {}
            for clan, count in counts.items():
                n = _as_int(count)
                if isinstance(clan, str) and n is not None and n > 0:
                    clean[clan] = clean.get(clan, 0) + n
            if clean:
                order = [c for c in CLANS if c in clean]
                order += sorted(c for c in clean if c not in CLANS)
                huts[tid] = tuple((c, clean[c]) for c in order)
    villages: dict[int, VillageMark] = {}
    raw_villages = view.get("villages")
    if isinstance(raw_villages, (list, tuple)):
        for v in raw_villages:
            if not isinstance(v, Mapping):
                continue
            tid = _as_int(v.get("territory"))
            if tid is None or tid not in board:
                continue
            villages[tid] = VillageMark(_as_int(v.get("number")), _as_int(v.get("points")))
    last = _parse_move(view.get("last_move"))
    if last is not None and (last[0] not in board or last[1] not in board):
        last = None
    return Scene(huts, villages, last)


# --------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------


def text_width(text: str, size: float) -> float:
    """An estimate of a text's width; enough to centre a line without font metrics."""
    return len(text) * size * CHAR_EM


def _rows(n: int) -> list[int]:
    if n <= TOKENS_PER_ROW:
        return [n] if n else []
    if n == 4:
        return [2, 2]
    rows = []
    while n > 0:
        rows.append(min(TOKENS_PER_ROW, n))
        n -= TOKENS_PER_ROW
    return rows


def label_layout(
    shape: Shape,
    huts: Sequence[tuple[str, int]],
    village: VillageMark | None,
    bounds: Point | None = None,
) -> LabelLayout:
    """Lay out a territory's label block, centred on its label point: the number
    (with the village badge beside it) above rows of hut tokens; the block is moved
    inside ``bounds`` (the board size) if it would stick out."""
    lx, ly = shape.label
    unshifted = _label_layout(shape.id, (lx, ly), huts, village)
    if bounds is None:
        return unshifted
    x0, y0, x1, y1 = unshifted.box
    dx = _nudge(x0, x1, bounds[0])
    dy = _nudge(y0, y1, bounds[1])
    if not dx and not dy:
        return unshifted
    return _label_layout(shape.id, (lx + dx, ly + dy), huts, village)


def _nudge(lo: float, hi: float, limit: float) -> float:
    if lo < EDGE_MARGIN:
        return EDGE_MARGIN - lo
    if hi > limit - EDGE_MARGIN:
        return max(limit - EDGE_MARGIN - hi, EDGE_MARGIN - lo)
    return 0.0


def _label_layout(
    tid: int, centre: Point, huts: Sequence[tuple[str, int]], village: VillageMark | None
) -> LabelLayout:
    lx, ly = centre
    number = str(tid)
    rows = _rows(len(huts))
    height = NUMBER_LINE
    if rows:
        height += LINE_GAP + len(rows) * 2 * TOKEN_R + (len(rows) - 1) * TOKEN_GAP
    top = ly - height / 2
    line_y = top + NUMBER_LINE / 2
    number_w = text_width(number, NUMBER_FONT)
    badge: Badge | None = None
    if village is not None:
        badge_w = text_width(village.text, BADGE_FONT) + 2 * BADGE_PAD
        line_w = number_w + BADGE_GAP + badge_w
        x0 = lx - line_w / 2
        number_at = (x0 + number_w / 2, line_y)
        badge = Badge(village.text, (x0 + number_w + BADGE_GAP + badge_w / 2, line_y), badge_w, BADGE_H)
    else:
        line_w = number_w
        number_at = (lx, line_y)
    tokens: list[Token] = []
    widest = line_w
    y = top + NUMBER_LINE + LINE_GAP + TOKEN_R
    i = 0
    for count in rows:
        row_w = count * 2 * TOKEN_R + (count - 1) * TOKEN_GAP
        widest = max(widest, row_w)
        x = lx - row_w / 2 + TOKEN_R
        for _ in range(count):
            clan, n = huts[i]
            tokens.append(Token(clan, n, (x, y)))
            x += 2 * TOKEN_R + TOKEN_GAP
            i += 1
        y += 2 * TOKEN_R + TOKEN_GAP
    box = (lx - widest / 2, top, lx + widest / 2, top + height)
    return LabelLayout(number, number_at, tuple(tokens), badge, box)


def _exit_distance(centre: Point, direction: Point, box: Box) -> float:
    """How far from ``centre`` along the unit ``direction`` the ray leaves ``box``."""
    cx, cy = centre
    dx, dy = direction
    best = math.inf
    if dx:
        best = min(best, ((box[2] if dx > 0 else box[0]) - cx) / dx)
    if dy:
        best = min(best, ((box[3] if dy > 0 else box[1]) - cy) / dy)
    return max(0.0, best) if math.isfinite(best) else 0.0


def arrow_geometry(source: LabelLayout, target: LabelLayout, a: Point, b: Point) -> Arrow | None:
    """The last-move arrow from label ``a`` to label ``b``, trimmed so it ends at the
    edge of each territory's label block rather than on top of it."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    if length < 1e-6:
        return None
    ux, uy = dx / length, dy / length
    trim_a = _exit_distance(a, (ux, uy), source.box) + ARROW_CLEARANCE + ARROW_W / 2 + ARROW_HALO_W
    trim_b = _exit_distance(b, (-ux, -uy), target.box) + ARROW_CLEARANCE
    room = length - ARROW_HEAD_LEN * 1.8
    if trim_a + trim_b > room:
        scale = max(0.0, room) / (trim_a + trim_b)
        trim_a, trim_b = trim_a * scale, trim_b * scale
    start = (a[0] + ux * trim_a, a[1] + uy * trim_a)
    tip = (b[0] - ux * trim_b, b[1] - uy * trim_b)
    base = (tip[0] - ux * ARROW_HEAD_LEN, tip[1] - uy * ARROW_HEAD_LEN)
    px, py = -uy * ARROW_HEAD_W / 2, ux * ARROW_HEAD_W / 2
    head = (tip, (base[0] + px, base[1] + py), (base[0] - px, base[1] - py))
    shaft_end = (tip[0] - ux * ARROW_HEAD_LEN * 0.7, tip[1] - uy * ARROW_HEAD_LEN * 0.7)
    return Arrow(start, shaft_end, head)


@dataclass(frozen=True)
class Picture:
    """A view laid out on a board: everything both renderers need."""

    drawing: Drawing
    scene: Scene
    layouts: dict[int, LabelLayout]
    arrow: Arrow | None


def lay_out(board: Board, view: Mapping[str, Any]) -> Picture:
    d = drawing(board)
    scene = read_view(board, view)
    layouts = {
        s.id: label_layout(s, scene.huts.get(s.id, ()), scene.villages.get(s.id), d.size)
        for s in d.territories
    }
    arrow = None
    if scene.last_move is not None:
        a, b = scene.last_move
        arrow = arrow_geometry(layouts[a], layouts[b], _centre(layouts[a].box), _centre(layouts[b].box))
    return Picture(d, scene, layouts, arrow)


def _centre(box: Box) -> Point:
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def territory_title(shape: Shape, scene: Scene) -> str:
    """E.g. ``12 · forest · red 2, blue 1`` (plus the village, if any)."""
    huts = scene.huts.get(shape.id, ())
    contents = ", ".join(f"{clan} {n}" for clan, n in huts) if huts else "empty"
    text = f"{shape.id} · {shape.terrain} · {contents}"
    village = scene.villages.get(shape.id)
    if village is not None:
        text += " · village"
        if village.number is not None:
            text += f" {village.number}"
            if 1 <= village.number <= sum(e.villages for e in EPOCHS):
                text += f" (epoch {_epoch_roman(village.number)})"
        if village.points is not None:
            text += f", {village.points} points"
    return text


def _epoch_roman(number: int) -> str:
    for e in EPOCHS:
        if number <= e.villages:
            return e.roman
        number -= e.villages
    return ""


# --------------------------------------------------------------------------------------
# SVG
# --------------------------------------------------------------------------------------


def _f(v: float) -> str:
    s = f"{v:.1f}"
    if s.endswith(".0"):
        s = s[:-2]
    return "0" if s == "-0" else s


def _path(points: Iterable[Point], close: bool = True) -> str:
    parts = [f"{_f(x)} {_f(y)}" for x, y in points]
    return "M" + "L".join(parts) + ("Z" if close else "")


def _ints(values: Iterable[int]) -> set[int]:
    out = set()
    for v in values:
        n = _as_int(v)
        if n is not None:
            out.add(n)
    return out


_STYLE = (
    ".clans-board .territory.selectable,.clans-board .territory.target{cursor:pointer}"
    ".clans-board .territory.selectable:hover,.clans-board .territory.target:hover"
    "{filter:brightness(1.15)}"
    ".clans-board .overlay,.clans-board .labels{pointer-events:none}"
)


def board_svg(
    board: Board,
    view: Mapping[str, Any],
    *,
    width: int | None = None,
    selectable: Iterable[int] = (),
    targets: Iterable[int] = (),
    selected: int | None = None,
    title: str | None = None,
) -> str:
    """A standalone ``<svg>`` of the board in the position ``view``.

    Each territory is a ``<path id="t-ID" data-territory="ID">`` with a ``<title>``;
    those in ``selectable``/``targets`` and ``selected`` get the classes ``selectable``,
    ``target`` and ``selected``.  Labels and overlays ignore pointer events, so a click
    anywhere on a territory reaches its path."""
    pic = lay_out(board, view)
    d, scene = pic.drawing, pic.scene
    w, h = d.size
    sel = _ints(selectable)
    tgt = _ints(targets)
    chosen = _as_int(selected) if selected is not None else None
    if width is None:
        size_attrs = 'width="100%"'
    else:
        size_attrs = f'width="{int(width)}" height="{round(int(width) * h / w)}"'
    label = title if title is not None else "Clans board"
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_f(w)} {_f(h)}" {size_attrs} '
        f'class="clans-board" role="img" aria-label={quoteattr(label)} '
        f'font-family={quoteattr(FONT_FAMILY)}>'
    ]
    if title is not None:
        out.append(f"<title>{escape(title)}</title>")
    out.append(f"<style>{_STYLE}</style>")
    out.append(f'<rect width="{_f(w)}" height="{_f(h)}" fill="{BACKGROUND}"/>')

    # Territories: the clickable layer.
    out.append(f'<g class="territories" stroke="{BORDER}" stroke-width="{_f(BORDER_W)}" '
               'stroke-linejoin="round">')
    for s in d.territories:
        classes = ["territory", s.terrain]
        if s.id in sel:
            classes.append("selectable")
        if s.id in tgt:
            classes.append("target")
        if s.id == chosen:
            classes.append("selected")
        if s.id in scene.villages:
            classes.append("village")
        if s.id not in scene.huts:
            classes.append("empty")
        out.append(
            f'<path id="t-{s.id}" data-territory="{s.id}" class="{" ".join(classes)}" '
            f'fill="{terrain_colour(s.terrain)}" d="{_path(s.outline)}">'
            f"<title>{escape(territory_title(s, scene))}</title></path>"
        )
    out.append("</g>")

    # Water and highlights: never in the way of a click.
    out.append('<g class="overlay">')
    if d.rivers:
        out.append(f'<g class="rivers" fill="none" stroke="{RIVER}" stroke-width="{_f(RIVER_W)}" '
                   'stroke-linecap="round" stroke-linejoin="round">')
        out.extend(f'<path d="{_path(r, close=False)}"/>' for r in d.rivers)
        out.append("</g>")
    if d.lakes:
        out.append(f'<g class="lakes" fill="{WATER}" stroke="{WATER_EDGE}" stroke-width="1.5">')
        out.extend(f'<path d="{_path(lake)}"/>' for lake in d.lakes)
        out.append("</g>")
    shapes = {s.id: s for s in d.territories}
    for tid in sorted(scene.villages):
        out.append(f'<path class="hl-village" data-for="{tid}" d="{_path(shapes[tid].outline)}" '
                   f'fill="none" stroke="{VILLAGE_OUTLINE}" stroke-width="{_f(VILLAGE_W)}" '
                   'stroke-dasharray="10 5" stroke-linejoin="round"/>')
    for s in d.territories:
        if s.id in tgt:
            out.append(f'<path class="hl-target" data-for="{s.id}" d="{_path(s.outline)}" fill="none" '
                       f'stroke="{TARGET}" stroke-width="{_f(TARGET_W)}" stroke-dasharray="9 6" '
                       'stroke-linejoin="round"/>')
    if scene.last_move is not None:
        for role, tid in zip(("from", "to"), scene.last_move):
            out.append(f'<path class="hl-last-move hl-{role}" data-for="{tid}" '
                       f'd="{_path(shapes[tid].outline)}" fill="none" stroke="{LAST_MOVE}" '
                       f'stroke-width="{_f(HIGHLIGHT_W)}" stroke-linejoin="round"/>')
    if chosen is not None and chosen in shapes:
        out.append(f'<path class="hl-selected" data-for="{chosen}" d="{_path(shapes[chosen].outline)}" '
                   f'fill="none" stroke="{SELECTED}" stroke-width="{_f(SELECTED_W)}" '
                   'stroke-linejoin="round"/>')
    if pic.arrow is not None and scene.last_move is not None:
        a = pic.arrow
        shaft = _path((a.start, a.shaft_end), close=False)
        head = _path(a.head)
        out.append(
            f'<g id="last-move" class="last-move-arrow" data-move="{scene.last_move[0]}-{scene.last_move[1]}" '
            'stroke-linecap="round" stroke-linejoin="round">'
            f'<path d="{shaft}" fill="none" stroke="{LAST_MOVE_HALO}" '
            f'stroke-width="{_f(ARROW_W + 2 * ARROW_HALO_W)}"/>'
            f'<path d="{head}" fill="{LAST_MOVE_HALO}" stroke="{LAST_MOVE_HALO}" '
            f'stroke-width="{_f(2 * ARROW_HALO_W)}"/>'
            f'<path d="{shaft}" fill="none" stroke="{LAST_MOVE}" stroke-width="{_f(ARROW_W)}"/>'
            f'<path d="{head}" fill="{LAST_MOVE}" stroke="{LAST_MOVE}" stroke-width="1"/>'
            "</g>"
        )
    out.append("</g>")

    # Labels: numbers, village badges, hut tokens.
    out.append('<g class="labels">')
    for s in d.territories:
        lay = pic.layouts[s.id]
        empty = s.id not in scene.huts
        colour = EMPTY_NUMBER_COLOUR if empty else NUMBER_COLOUR
        out.append(f'<g class="label" data-for="{s.id}">')
        out.append(
            f'<text class="number" x="{_f(lay.number_at[0])}" y="{_f(lay.number_at[1])}" dy=".35em" '
            f'text-anchor="middle" font-size="{_f(NUMBER_FONT)}" font-weight="700" fill="{colour}" '
            f'stroke="{NUMBER_HALO}" stroke-width="3" stroke-linejoin="round" paint-order="stroke">'
            f"{escape(lay.number)}</text>"
        )
        if lay.badge is not None:
            b = lay.badge
            out.append(
                f'<g class="village-badge"><rect x="{_f(b.centre[0] - b.width / 2)}" '
                f'y="{_f(b.centre[1] - b.height / 2)}" width="{_f(b.width)}" height="{_f(b.height)}" '
                f'rx="{_f(b.height / 2)}" fill="{VILLAGE_FILL}" stroke="{VILLAGE_EDGE}" stroke-width="2"/>'
                f'<text x="{_f(b.centre[0])}" y="{_f(b.centre[1])}" dy=".35em" text-anchor="middle" '
                f'font-size="{_f(BADGE_FONT)}" font-weight="700" fill="{VILLAGE_TEXT}">'
                f"{escape(b.text)}</text></g>"
            )
        for t in lay.tokens:
            cx, cy = _f(t.centre[0]), _f(t.centre[1])
            digits = str(t.count)
            font = TOKEN_FONT if len(digits) < 2 else TOKEN_FONT * 0.85
            out.append(
                f'<g class="hut" data-clan={quoteattr(t.clan)}>'
                f'<circle cx="{cx}" cy="{cy}" r="{_f(TOKEN_R + 1.5)}" fill="{TOKEN_SHADOW}"/>'
                f'<circle cx="{cx}" cy="{cy}" r="{_f(TOKEN_R)}" fill="{clan_colour(t.clan)}" '
                f'stroke="{TOKEN_EDGE}" stroke-width="1.8"/>'
                f'<text x="{cx}" y="{cy}" dy=".35em" text-anchor="middle" font-size="{_f(font)}" '
                f'font-weight="700" fill="{clan_text_colour(t.clan)}">{digits}</text></g>'
            )
        out.append("</g>")
    out.append("</g>")
    out.append("</svg>")
    return "".join(out)
