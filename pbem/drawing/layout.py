"""Where things go on the board picture: the board's drawing data, the parts of a
view the picture shows, and the layout of each territory's label block and of the
last-move arrow.  Both renderers draw a :class:`Picture` from :func:`lay_out`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pbem.rules.board import Board
from pbem.rules.move import Move
from pbem.rules.tables import CLANS
from pbem.rules.views import BoardPart

from .style import (
    ARROW_CLEARANCE,
    ARROW_HALO_W,
    ARROW_HEAD_LEN,
    ARROW_HEAD_W,
    ARROW_W,
    BADGE_FONT,
    BADGE_GAP,
    BADGE_H,
    BADGE_PAD,
    CHAR_EM,
    EDGE_MARGIN,
    LINE_GAP,
    NUMBER_FONT,
    NUMBER_LINE,
    TOKEN_GAP,
    TOKEN_R,
    TOKENS_PER_ROW,
)

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
    number: int
    points: int

    @property
    def text(self) -> str:
        return f"V{self.number} · {self.points} pts"


@dataclass(frozen=True)
class Scene:
    """The parts of a view the pictures show, by territory id."""

    huts: dict[int, tuple[tuple[str, int], ...]]
    villages: dict[int, VillageMark]
    last_move: Move | None


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


def read_view(board: Board, view: BoardPart) -> Scene:
    """The huts, villages and last move of ``view`` on ``board``'s territories (any
    other territory is left out: a view of another board draws nothing there).

    The view is the rules' own (:class:`pbem.rules.views.BoardPart`), so its parts
    are trusted; its last move is JSON text (``12-13``) and is parsed here, once,
    by the rules.  Clans come in the canonical order (red, yellow, green, blue,
    black), then any unknown clan names sorted."""
    huts: dict[int, tuple[tuple[str, int], ...]] = {}
    for key, counts in view["huts"].items():
        tid = int(key)
        if tid in board and counts:
            order = [c for c in CLANS if c in counts] + sorted(c for c in counts if c not in CLANS)
            huts[tid] = tuple((c, counts[c]) for c in order)
    villages = {v["territory"]: VillageMark(v["number"], v["points"])
                for v in view["villages"] if v["territory"] in board}
    last = Move.parse(view["last_move"]) if view["last_move"] is not None else None
    if last is not None and (last.source not in board or last.target not in board):
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


def lay_out(board: Board, view: BoardPart) -> Picture:
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

