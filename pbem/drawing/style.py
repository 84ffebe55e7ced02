"""The look of the house, once: every colour, size and font of the board picture,
and the colours and fonts of the pages, the mails and the brand mark.

Both board renderers read it, the SVG board of the pages (:mod:`pbem.drawing.svg`)
and the PNG board of the mails (:mod:`pbem.drawing.picture`).  The web pages get it
as template globals and, for ``static/style.css`` and ``static/play.js``, as CSS
custom properties (:func:`css_properties`, written into every page by
``templates/base.html``); the mails' templates (which mail clients need with
literal values) and the page templates get the named colours of :data:`LOOK`.
No colour of it is written anywhere else (tests/drawing/test_palette.py).
Sizes of the board are in board units (the classic board is 1000 x 700).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

# --------------------------------------------------------------------------------------
# Palette
# --------------------------------------------------------------------------------------

WHITE = "#ffffff"
#: Two terrains' colours are the mails' too: the forest their button and links,
#: the steppe the edge of their deadline box.
FOREST = "#2f6b34"
STEPPE = "#d4a84b"
TERRAIN_COLOURS: dict[str, str] = {
    "mountain": "#9a9a9a",
    "forest": FOREST,
    "steppe": STEPPE,
    "grassland": "#a5d46f",
}
TERRAIN_FALLBACK = "#cfcfcf"
BORDER = "#3a3a3a"
WATER = "#5b9bd5"
WATER_EDGE = "#2c6aa6"
RIVER = "#3c82c8"
BACKGROUND = "#5b9bd5"

#: Checked for colour-blind players by tests/drawing/test_vision.py (every pair
#: apart as seen with protanopia, deuteranopia and tritanopia): the red is darker
#: and the green bluer than the plain ones, which a deuteranope could not tell apart.
CLAN_COLOURS: dict[str, str] = {
    "red": "#b51f24",
    "yellow": "#ffd60a",
    "green": "#2ea866",
    "blue": "#1f5ed6",
    "black": "#1c1c1c",
}
#: The shape of each clan's hut tokens, so that colour is never the only sign of a
#: clan: the same in every language, and legible at any size of the mailed picture.
#: Clans whose colours dichromats confuse most (red-green, red-black, green-yellow,
#: green-blue) get the least alike shapes; the two rounder ones, circle and hexagon,
#: go to yellow and black, which nobody confuses.
CLAN_MARKS: dict[str, str] = {
    "red": "diamond",
    "yellow": "circle",
    "green": "triangle",
    "blue": "square",
    "black": "hexagon",
}
#: The marks as characters, for legends written in text (the mails' score chips).
MARK_GLYPHS: dict[str, str] = {
    "diamond": "\u25c6",
    "circle": "\u25cf",
    "triangle": "\u25b2",
    "square": "\u25a0",
    "hexagon": "\u2b22",
}
UNKNOWN_MARK = "circle"
#: Text drawn on a clan's colour (board tokens, the mails' clan chips): light on
#: dark clans, dark on yellow and green (white on this green is 3.0:1, under
#: WCAG AA's 4.5:1; dark is 5.6:1; tests/drawing/test_vision.py checks every pair).
CLAN_TEXT: dict[str, str] = {
    "red": WHITE,
    "yellow": "#1c1c1c",
    "green": "#1c1c1c",
    "blue": WHITE,
    "black": WHITE,
}
UNKNOWN_CLAN = "#8c8c8c"
UNKNOWN_CLAN_TEXT = WHITE
TOKEN_EDGE = WHITE
TOKEN_SHADOW = "#1c1c1c"

NUMBER_COLOUR = "#161616"
NUMBER_HALO = WHITE
EMPTY_NUMBER_COLOUR = "#3c3c3c"

LAST_MOVE = "#e6007e"
LAST_MOVE_HALO = WHITE
SELECTED = "#00e5ff"
TARGET = WHITE

VILLAGE_FILL = "#4a2c0a"
#: The light edge and text of a village badge; the brand mark's roof line too.
CREAM = "#fff3d1"
VILLAGE_EDGE = CREAM
VILLAGE_TEXT = CREAM
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
#: Label blocks are kept this far inside the board's edges: the blocks are laid
#: out with round tokens of TOKEN_R, and the corners of the pointed marks (the
#: diamond's and the triangle's, with their ring) reach 2.8 further.
EDGE_MARGIN = 3.5
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


# --------------------------------------------------------------------------------------
# The site: the pages, the mails, the brand mark
# --------------------------------------------------------------------------------------

#: The site's dark green (the page header, the favicon's tile) and its yellow
#: (the brand mark's house, the turn badges and the chosen move's buttons).
BRAND = "#213f2b"
ACCENT = "#f2c14e"
#: The phone browser's bar (``theme-color``) and the door of the header's brand mark.
THEME = "#24452f"
#: The favicon's red dot that says it is your turn (``static/favicon-turn.svg``).
TURN_DOT = "#b3261e"

PAGE_FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
#: The mails' fonts (and the unsubscribe page's, which looks like a mail).
MAIL_FONT = '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif'

#: The pages' colours, sizes and font, as the CSS custom properties ``static/style.css``
#: reads (its component colours stay there, each written once).
PAGE_PROPERTIES: dict[str, str] = {
    "--bg": "#f4efe4",
    "--surface": WHITE,
    "--surface-2": "#faf7f0",
    "--ink": "#1d2320",
    "--muted": "#555e58",
    "--line": "#ddd5c4",
    "--brand": BRAND,
    "--brand-ink": "#fff6df",
    "--primary": "#2b6a3c",
    "--primary-hover": "#22562f",
    "--primary-ink": WHITE,
    "--accent": ACCENT,
    "--accent-soft": "#fdf1cf",
    "--danger": "#a3231b",
    "--danger-soft": "#fdecea",
    "--ok": "#1f6b36",
    "--ok-soft": "#e5f4e8",
    "--focus": "#1558d6",
    "--white": WHITE,
    "--radius": "14px",
    "--radius-sm": "10px",
    "--shadow": "0 1px 2px rgba(33, 30, 20, .06), 0 4px 16px rgba(33, 30, 20, .06)",
    "--font": PAGE_FONT,
    "--touch": "44px",
}

#: The named colours (and the font) templates write as literal values, as ``look.NAME``:
#: the mails' (mail clients ignore custom properties; ``pbem.mail.messages`` gives every
#: mail template this dict), the unsubscribe page's (which looks like a mail), and the
#: brand mark's (``templates/base.html``; the favicons are checked against it by
#: tests/drawing/test_palette.py).
LOOK: dict[str, str] = {
    # The brand mark.
    "brand": BRAND,
    "accent": ACCENT,
    "cream": CREAM,
    "theme": THEME,
    "turn_dot": TURN_DOT,
    "white": WHITE,
    # The mails.
    "paper": "#efe8da",
    "ink": "#2b2118",
    "heading": "#7a5b3a",
    "game": "#78654f",
    "card": "#fffdf8",
    "rule": "#e0d3bb",
    "meta": "#6b5a48",
    "button": FOREST,
    "button_text": WHITE,
    "link": FOREST,
    "due": "#fff4d6",
    "due_edge": STEPPE,
    "alert": "#fde8ea",
    "alert_edge": "#d7263d",
    "note": "#766552",
    "line": "#efe6d6",
    "quote": "#faf6ee",
    "font": MAIL_FONT,
}

#: The look for the web pages' CSS and JavaScript, as custom properties on ``:root``:
#: the pages' own (:data:`PAGE_PROPERTIES`) and the board's.  ``templates/base.html``
#: writes them in a ``<style>`` block, so ``static/style.css`` and ``static/play.js``
#: never type one of these colours or sizes.
CSS_PROPERTIES: dict[str, str] = {
    **PAGE_PROPERTIES,
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
    """The ``:root`` rule of :data:`CSS_PROPERTIES` (no ``<`` in any value, so it is
    safe inside a ``<style>`` element).

    >>> css_properties().startswith(":root{--bg:#f4efe4;--surface:#ffffff;")
    True
    >>> "<" in css_properties()
    False
    >>> CSS_PROPERTIES["--board-selected-fill"]
    'rgba(0, 229, 255, .14)'
    """
    return ":root{" + "".join(f"{k}:{v};" for k, v in CSS_PROPERTIES.items()) + "}"


#: :func:`css_properties`, made once (every page writes it).
CSS_ROOT = css_properties()


# --------------------------------------------------------------------------------------
# Board styles: a player may choose high contrast on their seat page (Seat.board_style)
# --------------------------------------------------------------------------------------


class StyleName(StrEnum):
    """The board styles a player may choose (stored as ``Seat.board_style``)."""

    STANDARD = "standard"
    CONTRAST = "contrast"


@dataclass(frozen=True)
class BoardStyle:
    """What differs between the standard board and the high-contrast one."""

    name: StyleName
    border: str
    border_w: float
    #: The dark ring around a hut token (outside its shape) and the light edge inside it.
    token_shadow: str
    token_shadow_w: float
    token_edge_w: float
    token_font: float
    number_halo_w: float
    number_halo_png_w: float
    #: Terrains drawn with a pattern as well as a colour (TERRAIN_PATTERNS).
    patterns: bool


STANDARD = BoardStyle(StyleName.STANDARD, BORDER, BORDER_W, TOKEN_SHADOW, TOKEN_SHADOW_W, TOKEN_EDGE_W,
                      TOKEN_FONT, NUMBER_HALO_W, NUMBER_HALO_PNG_W, patterns=False)
#: High contrast: black borders twice as thick, black token rings, a wider light
#: edge, bigger counts (the marks scale them to what each shape holds), wider
#: halos, and a pattern on each terrain but grassland (steppe and grassland are
#: only 5.8 CIEDE2000 apart for a deuteranope).  The ring stays within
#: TOKEN_GAP / 2, so that round neighbours still only touch.
CONTRAST = BoardStyle(StyleName.CONTRAST, "#000000", 2.6, "#000000", TOKEN_GAP / 2, 2.2,
                      19.0, 4.5, 2.0, patterns=True)
BOARD_STYLES: dict[str, BoardStyle] = {s.name: s for s in (STANDARD, CONTRAST)}

#: The patterns of the high-contrast board, in board units: (kind, spacing, colour,
#: opacity, width).  Light marks on the dark forest, dark ones on the light terrains.
TERRAIN_PATTERNS: dict[str, tuple[str, float, str, float, float]] = {
    "mountain": ("diagonal", 9.0, "#000000", 0.45, 1.6),
    "forest": ("dots", 9.0, WHITE, 0.6, 1.7),
    "steppe": ("horizontal", 7.0, "#000000", 0.35, 1.4),
}


def board_style(name: str | BoardStyle | None) -> BoardStyle:
    """The style called ``name`` (``None``: standard); an unknown name is a ValueError."""
    if isinstance(name, BoardStyle):
        return name
    if name is None:
        return STANDARD
    try:
        return BOARD_STYLES[name]
    except KeyError:
        raise ValueError(f"unknown board style {name!r}") from None


def clan_mark(clan: str) -> str:
    return CLAN_MARKS.get(clan, UNKNOWN_MARK)


def clan_glyph(clan: str) -> str:
    return MARK_GLYPHS[clan_mark(clan)]


def clan_colour(clan: str) -> str:
    return CLAN_COLOURS.get(clan, UNKNOWN_CLAN)


def clan_text_colour(clan: str) -> str:
    return CLAN_TEXT.get(clan, UNKNOWN_CLAN_TEXT)


def terrain_colour(terrain: str) -> str:
    return TERRAIN_COLOURS.get(terrain, TERRAIN_FALLBACK)

