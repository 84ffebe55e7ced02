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


def clan_colour(clan: str) -> str:
    return CLAN_COLOURS.get(clan, UNKNOWN_CLAN)


def clan_text_colour(clan: str) -> str:
    return CLAN_TEXT.get(clan, UNKNOWN_CLAN_TEXT)


def terrain_colour(terrain: str) -> str:
    return TERRAIN_COLOURS.get(terrain, TERRAIN_FALLBACK)

