"""The board as a standalone SVG picture, for the web pages.

:func:`board_svg` is a pure function of a board and a *view* (its
:class:`~pbem.rules.views.BoardPart`: ``huts``, ``villages``, ``last_move``); it
draws the layout of :mod:`pbem.drawing.layout` in the look of :mod:`pbem.drawing.style`,
as the PNG renderer (:mod:`pbem.drawing.picture`) does.

>>> from pbem.rules.board import Board
>>> b = Board.from_data({"territories": [{"id": 1, "terrain": "forest", "neighbours": [2]},
...                                      {"id": 2, "terrain": "steppe", "neighbours": [1]}]})
>>> svg = board_svg(b, {"huts": {"2": {"red": 2}}, "villages": [], "last_move": "1-2"})
>>> svg.startswith("<svg") and 'data-territory="2"' in svg and "red 2" in svg
True
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.sax.saxutils import escape, quoteattr

from pbem.rules.board import Board
from pbem.rules.views import BoardPart
from pbem.rules.tables import EPOCHS
from pbem.words import ENGLISH, Words

from .layout import Point, Scene, Shape, lay_out
from .marks import font_scale, outline, text_at
from .style import (
    ARROW_HALO_W,
    ARROW_HEAD_EDGE_W,
    ARROW_W,
    BACKGROUND,
    BADGE_EDGE_W,
    BADGE_FONT,
    BOARD_CSS,
    EMPTY_NUMBER_COLOUR,
    FONT_FAMILY,
    FONT_WEIGHT,
    HIGHLIGHT_W,
    LAKE_EDGE_W,
    LAST_MOVE,
    LAST_MOVE_HALO,
    NUMBER_COLOUR,
    NUMBER_FONT,
    NUMBER_HALO,
    RIVER,
    RIVER_W,
    SELECTED,
    SELECTED_W,
    TARGET,
    TARGET_DASH,
    TARGET_W,
    TERRAIN_PATTERNS,
    TOKEN_EDGE,
    TOKEN_R,
    VILLAGE_DASH,
    VILLAGE_EDGE,
    VILLAGE_FILL,
    VILLAGE_OUTLINE,
    VILLAGE_TEXT,
    VILLAGE_W,
    WATER,
    WATER_EDGE,
    BoardStyle,
    board_style,
    clan_colour,
    clan_mark,
    clan_text_colour,
    terrain_colour,
)


def territory_title(shape: Shape, scene: Scene, w: Words = ENGLISH) -> str:
    """E.g. ``12 · forest · red 2, blue 1`` (plus the village, if any), in the
    reader's words."""
    huts = scene.huts.get(shape.id, ())
    contents = ", ".join(f"{w.clan(clan)} {n}" for clan, n in huts) if huts else w.p_("territory", "empty")
    text = f"{shape.id} · {w.terrain(shape.terrain)} · {contents}"
    village = scene.villages.get(shape.id)
    if village is not None:
        if 1 <= village.number <= sum(e.villages for e in EPOCHS):
            text += " · " + w._("village %(number)s (epoch %(epoch)s)", number=village.number,
                                epoch=_epoch_roman(village.number))
        else:
            text += " · " + w._("village %(number)s", number=village.number)
        text += ", " + w.n_("%(num)d point", "%(num)d points", village.points)
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


def _shape(mark: str, centre: Point, grow: float, attrs: str) -> str:
    """The mark's outline as an SVG element (a circle, or a polygon)."""
    corners = outline(mark, centre, TOKEN_R, grow)
    if not corners:
        return (f'<circle cx="{_f(centre[0])}" cy="{_f(centre[1])}" r="{_f(TOKEN_R + grow)}" {attrs}/>')
    points = " ".join(f"{_f(x)},{_f(y)}" for x, y in corners)
    return f'<polygon points="{points}" {attrs}/>'


def _token(clan: str, count: int, centre: Point, look: BoardStyle) -> str:
    """A hut token: the dark ring, the clan's shape with its light edge inside it,
    and the count."""
    mark = clan_mark(clan)
    digits = str(count)
    font = look.token_font * font_scale(mark, len(digits))
    tx, ty = text_at(mark, centre, TOKEN_R)
    edge = look.token_edge_w
    return (
        f'<g class="hut" data-clan={quoteattr(clan)} data-mark="{mark}">'
        # The ring: round at the corners, so that it reaches no further there than along the edges.
        + (_shape(mark, centre, look.token_shadow_w, f'fill="{look.token_shadow}"') if mark == "circle" else
           _shape(mark, centre, 0.0, f'fill="{look.token_shadow}" stroke="{look.token_shadow}" '
                  f'stroke-width="{_f(2 * look.token_shadow_w)}" stroke-linejoin="round"'))
        # The edge's stroke is centred on the outline: half an edge in, it lies inside.
        + _shape(mark, centre, -edge / 2, f'fill="{clan_colour(clan)}" stroke="{TOKEN_EDGE}" '
                 f'stroke-width="{_f(edge)}"')
        + f'<text x="{_f(tx)}" y="{_f(ty)}" dy=".35em" text-anchor="middle" font-size="{_f(font)}" '
        f'font-weight="{FONT_WEIGHT}" fill="{clan_text_colour(clan)}">{digits}</text></g>'
    )


def clan_icon(clan: str, *, css_class: str = "swatch") -> str:
    """The clan's hut token without a count, as a small inline ``<svg>`` for legends
    and score lists (sized by CSS; decorative: the clan's name goes next to it)."""
    look = board_style(None)
    reach = TOKEN_R * 1.45 + look.token_shadow_w
    edge = look.token_edge_w
    mark = clan_mark(clan)
    box = f"{_f(-reach)} {_f(-reach)} {_f(2 * reach)} {_f(2 * reach)}"
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" data-mark="{mark}" viewBox="{box}" '
            'aria-hidden="true" focusable="false">'
            + _shape(mark, (0.0, 0.0), look.token_shadow_w + 1.0, f'fill="{look.token_shadow}"')
            + _shape(mark, (0.0, 0.0), -edge / 2, f'fill="{clan_colour(clan)}" stroke="{TOKEN_EDGE}" '
                     f'stroke-width="{_f(edge)}"')
            + "</svg>")


def _patterns(territories: Iterable[Shape]) -> list[str]:
    """The high-contrast board's terrain patterns: a pattern per terrain, and each
    territory of a patterned terrain filled with it (over its colour)."""
    out = ['<defs>']
    for terrain, (kind, gap, colour, opacity, width) in TERRAIN_PATTERNS.items():
        g = _f(gap)
        if kind == "dots":
            body = (f'<circle cx="{_f(gap / 2)}" cy="{_f(gap / 2)}" r="{_f(width)}" fill="{colour}" '
                    f'fill-opacity="{opacity:g}"/>')
        else:
            d = f"M0 {g}L{g} 0" if kind == "diagonal" else f"M0 {_f(gap / 2)}H{g}"
            body = (f'<path d="{d}" stroke="{colour}" stroke-opacity="{opacity:g}" '
                    f'stroke-width="{_f(width)}" stroke-linecap="square"/>')
        out.append(f'<pattern id="pattern-{terrain}" patternUnits="userSpaceOnUse" width="{g}" '
                   f'height="{g}">{body}</pattern>')
    out.append('</defs><g class="terrain-patterns" stroke="none">')
    out.extend(f'<path data-for="{s.id}" fill="url(#pattern-{s.terrain})" d="{_path(s.outline)}"/>'
               for s in territories if s.terrain in TERRAIN_PATTERNS)
    out.append("</g>")
    return out


def board_svg(
    board: Board,
    view: BoardPart,
    *,
    width: int | None = None,
    selectable: Iterable[int] = (),
    targets: Iterable[int] = (),
    selected: int | None = None,
    title: str | None = None,
    w: Words = ENGLISH,
    style: str | BoardStyle | None = None,
) -> str:
    """A standalone ``<svg>`` of the board in the position ``view``.

    Each territory is a ``<path id="t-ID" data-territory="ID">`` with a ``<title>``;
    those in ``selectable``/``targets`` and ``selected`` get the classes ``selectable``,
    ``target`` and ``selected``.  Labels and overlays ignore pointer events, so a click
    anywhere on a territory reaches its path.  The titles people read are in ``w``'s
    language (English by default).  ``style`` is a name of ``style.BOARD_STYLES``
    (``None``: standard); each hut token has its clan's shape (``data-mark``)."""
    look = board_style(style)
    pic = lay_out(board, view)
    d, scene = pic.drawing, pic.scene
    box_w, h = d.size
    sel = set(selectable)
    tgt = set(targets)
    chosen = selected
    if width is None:
        size_attrs = 'width="100%"'
    else:
        size_attrs = f'width="{int(width)}" height="{round(int(width) * h / box_w)}"'
    label = title if title is not None else w._("Clans board")
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_f(box_w)} {_f(h)}" {size_attrs} '
        f'class="clans-board" data-board-style="{look.name}" role="img" aria-label={quoteattr(label)} '
        f'font-family={quoteattr(FONT_FAMILY)}>'
    ]
    if title is not None:
        out.append(f"<title>{escape(title)}</title>")
    out.append(f"<style>{BOARD_CSS}</style>")
    out.append(f'<rect width="{_f(box_w)}" height="{_f(h)}" fill="{BACKGROUND}"/>')

    # Territories: the clickable layer.
    out.append(f'<g class="territories" stroke="{look.border}" stroke-width="{_f(look.border_w)}" '
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
            f"<title>{escape(territory_title(s, scene, w))}</title></path>"
        )
    out.append("</g>")

    # Water and highlights: never in the way of a click.
    out.append('<g class="overlay">')
    if look.patterns:
        out.extend(_patterns(d.territories))
    if d.rivers:
        out.append(f'<g class="rivers" fill="none" stroke="{RIVER}" stroke-width="{_f(RIVER_W)}" '
                   'stroke-linecap="round" stroke-linejoin="round">')
        out.extend(f'<path d="{_path(r, close=False)}"/>' for r in d.rivers)
        out.append("</g>")
    if d.lakes:
        out.append(f'<g class="lakes" fill="{WATER}" stroke="{WATER_EDGE}" '
                   f'stroke-width="{_f(LAKE_EDGE_W)}">')
        out.extend(f'<path d="{_path(lake)}"/>' for lake in d.lakes)
        out.append("</g>")
    shapes = {s.id: s for s in d.territories}
    for tid in sorted(scene.villages):
        out.append(f'<path class="hl-village" data-for="{tid}" d="{_path(shapes[tid].outline)}" '
                   f'fill="none" stroke="{VILLAGE_OUTLINE}" stroke-width="{_f(VILLAGE_W)}" '
                   f'stroke-dasharray="{VILLAGE_DASH}" stroke-linejoin="round"/>')
    for s in d.territories:
        if s.id in tgt:
            out.append(f'<path class="hl-target" data-for="{s.id}" d="{_path(s.outline)}" fill="none" '
                       f'stroke="{TARGET}" stroke-width="{_f(TARGET_W)}" stroke-dasharray="{TARGET_DASH}" '
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
            f'<g id="last-move" class="last-move-arrow" data-move="{scene.last_move}" '
            'stroke-linecap="round" stroke-linejoin="round">'
            f'<path d="{shaft}" fill="none" stroke="{LAST_MOVE_HALO}" '
            f'stroke-width="{_f(ARROW_W + 2 * ARROW_HALO_W)}"/>'
            f'<path d="{head}" fill="{LAST_MOVE_HALO}" stroke="{LAST_MOVE_HALO}" '
            f'stroke-width="{_f(2 * ARROW_HALO_W)}"/>'
            f'<path d="{shaft}" fill="none" stroke="{LAST_MOVE}" stroke-width="{_f(ARROW_W)}"/>'
            f'<path d="{head}" fill="{LAST_MOVE}" stroke="{LAST_MOVE}" stroke-width="{_f(ARROW_HEAD_EDGE_W)}"/>'
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
            f'text-anchor="middle" font-size="{_f(NUMBER_FONT)}" font-weight="{FONT_WEIGHT}" fill="{colour}" '
            f'stroke="{NUMBER_HALO}" stroke-width="{_f(look.number_halo_w)}" stroke-linejoin="round" '
            'paint-order="stroke">'
            f"{escape(lay.number)}</text>"
        )
        if lay.badge is not None:
            b = lay.badge
            out.append(
                f'<g class="village-badge"><rect x="{_f(b.centre[0] - b.width / 2)}" '
                f'y="{_f(b.centre[1] - b.height / 2)}" width="{_f(b.width)}" height="{_f(b.height)}" '
                f'rx="{_f(b.height / 2)}" fill="{VILLAGE_FILL}" stroke="{VILLAGE_EDGE}" '
                f'stroke-width="{_f(BADGE_EDGE_W)}"/>'
                f'<text x="{_f(b.centre[0])}" y="{_f(b.centre[1])}" dy=".35em" text-anchor="middle" '
                f'font-size="{_f(BADGE_FONT)}" font-weight="{FONT_WEIGHT}" fill="{VILLAGE_TEXT}">'
                f"{escape(b.text)}</text></g>"
            )
        out.extend(_token(t.clan, t.count, t.centre, look) for t in lay.tokens)
        out.append("</g>")
    out.append("</g>")
    out.append("</svg>")
    return "".join(out)
