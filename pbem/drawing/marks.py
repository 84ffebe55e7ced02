"""The shapes of hut tokens (``style.CLAN_MARKS``), as polygons both renderers draw.

A mark is drawn around a token's centre at the token radius ``r``: a circle, or a
regular polygon sized so that every shape looks about as big as the circle and holds
the hut count.  ``grow`` offsets a polygon's edges outwards (the dark ring) or, when
negative, inwards (inside the light edge).

>>> [(round(x, 1), round(y, 1)) for x, y in outline("square", (0.0, 0.0), 10.0)]
[(9.0, 9.0), (-9.0, 9.0), (-9.0, -9.0), (9.0, -9.0)]
>>> outline("circle", (0.0, 0.0), 10.0)
()
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .layout import Point


@dataclass(frozen=True)
class Mark:
    #: 0 for a circle.
    sides: int
    #: The angle of the first corner, in degrees, clockwise from the x axis (y points down).
    rotation: float
    #: The circumradius as a fraction of the token radius.
    size: float
    #: The shape's centre, below the token's centre by this fraction of the radius
    #: (the triangle's, so that its box is centred on the token).
    drop: float = 0.0
    #: Where the count goes, below the centre by this fraction of the radius, and how
    #: much smaller a two-digit count is drawn.
    text_drop: float = 0.0
    one_digit: float = 1.0
    two_digit: float = 0.85


MARKS: dict[str, Mark] = {
    "circle": Mark(0, 0.0, 1.0),
    # Half-side 0.9 r: about the circle's area.
    "square": Mark(4, 45.0, 0.9 * math.sqrt(2)),
    # 1.1 r keeps the corners (and their ring) within the label margin; two digits smaller.
    "diamond": Mark(4, 0.0, 1.1, one_digit=0.85, two_digit=0.62),
    "hexagon": Mark(6, -90.0, 1.05, two_digit=0.78),
    # Point up; the count sits low, where the triangle is wide (two digits smaller).
    "triangle": Mark(3, -90.0, 1.27, drop=0.317, text_drop=0.2, one_digit=0.85, two_digit=0.6),
}


def mark(name: str) -> Mark:
    return MARKS.get(name, MARKS["circle"])


def outline(name: str, centre: Point, r: float, grow: float = 0.0) -> tuple[Point, ...]:
    """The corners of the mark ``name`` at ``centre`` (``()`` for the circle: draw a
    circle of radius ``r + grow``)."""
    m = mark(name)
    if m.sides == 0:
        return ()
    # Moving every edge out by ``grow`` moves the corners out by grow / cos(pi / n).
    radius = m.size * r + grow / math.cos(math.pi / m.sides)
    cx, cy = centre[0], centre[1] + m.drop * r
    out = []
    for k in range(m.sides):
        a = math.radians(m.rotation + 360 * k / m.sides)
        out.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    return tuple(out)


def text_at(name: str, centre: Point, r: float) -> Point:
    """Where the hut count of a token of mark ``name`` is centred."""
    return centre[0], centre[1] + mark(name).text_drop * r


def font_scale(name: str, digits: int) -> float:
    """How much smaller than the token font a count of ``digits`` digits is drawn."""
    m = mark(name)
    return m.one_digit if digits < 2 else m.two_digit


def reach(name: str, r: float, ring: float) -> tuple[float, float]:
    """How far from the token's centre a mark with a ring of width ``ring`` (round at
    the corners) reaches, horizontally and vertically."""
    corners = outline(name, (0.0, 0.0), r)
    if not corners:
        return r + ring, r + ring
    return max(abs(x) for x, _ in corners) + ring, max(abs(y) for _, y in corners) + ring
