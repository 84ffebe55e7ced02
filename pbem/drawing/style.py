"""The look of the board, once: every colour, size and font of the board picture.

Both renderers read it, the SVG board of the pages (:mod:`pbem.drawing.svg`) and the
PNG board of the mails (:mod:`pbem.drawing.picture`); the web pages get it as template
globals and, for ``static/style.css`` and ``static/play.js``, as CSS custom properties
(:func:`css_properties`).  Sizes are in board units (the classic board is 1000 x 700).
"""

from __future__ import annotations

# --------------------------------------------------------------------------------------
# Palette
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
#: The dark ring of a hut token, beyond its radius.
TOKEN_SHADOW_W = 1.5
#: The light edge of a hut token.
TOKEN_EDGE_W = 1.8
#: A hut count of two digits is drawn this much smaller.
TWO_DIGIT_FONT = 0.85
LAKE_EDGE_W = 1.5
BADGE_EDGE_W = 2.0
#: The light halo of the territory numbers: the SVG's stroke (centred on the glyphs)...
NUMBER_HALO_W = 3.0
#: ...and the PNG's (Pillow strokes outwards, one pixel more than this).
NUMBER_HALO_PNG_W = 1.2
ARROW_HEAD_EDGE_W = 1.0
VILLAGE_DASH = "10 5"
TARGET_DASH = "9 6"

#: The board's own CSS in the SVG: clickable territories brighten under the pointer;
#: labels and overlays let clicks through to the territory below.
BOARD_CSS = (
    ".clans-board .territory.selectable,.clans-board .territory.target{cursor:pointer}"
    ".clans-board .territory.selectable:hover,.clans-board .territory.target:hover"
    "{filter:brightness(1.15)}"
    ".clans-board .overlay,.clans-board .labels{pointer-events:none}"
)

#: Every text on the board is bold (the PNG thickens its default font with a stroke).
FONT_WEIGHT = 700
FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"


# --------------------------------------------------------------------------------------
# The move being chosen on the seat page (static/play.js draws it over the SVG)
# --------------------------------------------------------------------------------------

#: The dark halo around the chosen move's arrow (the arrow itself is SELECTED).
PICK_HALO = "#0b2530"
#: The halo's width on each side of the arrow (ARROW_W wide, like the last move's).
PICK_HALO_W = 3.0
PICK_HEAD_LEN = 20.0
#: The arrow starts this far from the source's label centre, its tip this far from
#: the target's; it is not drawn between labels closer than PICK_MIN_LEN.
PICK_START_GAP = 14.0
PICK_END_GAP = 16.0
PICK_MIN_LEN = 40.0
#: The head's outline is this much narrower than the line it caps.
PICK_HEAD_EDGE_INSET = 5.0
#: The tints of the chosen source (SELECTED), of its targets and of the chosen target (TARGET).
PICK_SELECTED_ALPHA = 0.14
PICK_TARGET_ALPHA = 0.16
PICK_CHOSEN_ALPHA = 0.28


def _rgba(colour: str, alpha: float) -> str:
    """``#rrggbb`` with an alpha, as CSS ``rgba()``: ``_rgba("#00e5ff", .14)`` is
    ``rgba(0, 229, 255, .14)``."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {f'{alpha:g}'.removeprefix('0')})"


def _css_number(value: float) -> str:
    return f"{value:g}"


#: The board's look for the web pages' CSS and JavaScript, as custom properties on
#: ``:root``; ``templates/base.html`` writes them in a ``<style>`` block, so
#: ``static/style.css`` and ``static/play.js`` never type a board colour or size.
#: (Mail clients ignore custom properties: mail templates get literal values.)
CSS_PROPERTIES: dict[str, str] = {
    "--board-water": BACKGROUND,
    "--board-last-move": LAST_MOVE,
    "--board-target": TARGET,
    "--board-target-fill": _rgba(TARGET, PICK_TARGET_ALPHA),
    "--board-chosen-fill": _rgba(TARGET, PICK_CHOSEN_ALPHA),
    "--board-selected": SELECTED,
    "--board-selected-fill": _rgba(SELECTED, PICK_SELECTED_ALPHA),
    "--board-village-fill": VILLAGE_FILL,
    "--board-village-edge": VILLAGE_EDGE,
    "--board-village-outline": VILLAGE_OUTLINE,
    "--board-pick-halo": PICK_HALO,
    "--board-pick-halo-w": _css_number(PICK_HALO_W),
    "--board-arrow-w": _css_number(ARROW_W),
    "--board-arrow-head-w": _css_number(ARROW_HEAD_W),
    "--board-pick-head-len": _css_number(PICK_HEAD_LEN),
    "--board-pick-start-gap": _css_number(PICK_START_GAP),
    "--board-pick-end-gap": _css_number(PICK_END_GAP),
    "--board-pick-min-len": _css_number(PICK_MIN_LEN),
    "--board-pick-head-edge-inset": _css_number(PICK_HEAD_EDGE_INSET),
}


def css_properties() -> str:
    """The ``:root`` rule of :data:`CSS_PROPERTIES` (no quotes or brackets in any value,
    so it is safe inside a ``<style>`` element).

    >>> css_properties().startswith(":root{--board-water:#5b9bd5;")
    True
    >>> CSS_PROPERTIES["--board-selected-fill"]
    'rgba(0, 229, 255, .14)'
    """
    return ":root{" + "".join(f"{k}:{v};" for k, v in CSS_PROPERTIES.items()) + "}"


#: :func:`css_properties`, made once (every page writes it).
CSS_ROOT = css_properties()


def clan_colour(clan: str) -> str:
    return CLAN_COLOURS.get(clan, UNKNOWN_CLAN)


def clan_text_colour(clan: str) -> str:
    return CLAN_TEXT.get(clan, UNKNOWN_CLAN_TEXT)


def terrain_colour(terrain: str) -> str:
    return TERRAIN_COLOURS.get(terrain, TERRAIN_FALLBACK)

