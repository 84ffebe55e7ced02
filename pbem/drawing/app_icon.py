"""The installed web app's icons: the brand mark of ``static/favicon.svg`` (the
green tile, the yellow house under its cream roof line, the green door) drawn
as PNG at the sizes a home screen asks for, in the brand mark's colours
(:mod:`.style`).  A *maskable* icon fills its square with the tile and keeps the
house inside the middle 80 % (the safe zone a launcher's mask never cuts)."""

from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image, ImageDraw

from .style import ACCENT, BRAND, CREAM

#: The sizes the manifest lists (pixels).
SIZES = (192, 512)
#: Drawn this much larger, then scaled down: smooth edges without our own antialiasing.
_OVERSAMPLE = 4


@lru_cache(maxsize=8)
def icon_png(size: int, maskable: bool = False) -> bytes:
    """The icon, ``size`` pixels square, as PNG bytes."""
    big = size * _OVERSAMPLE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    # The favicon's drawing is on a 32-unit square; a maskable icon draws it at 70 %.
    scale = big / 32 * (0.7 if maskable else 1.0)
    shift = (big - 32 * scale) / 2

    def at(x: float, y: float) -> tuple[float, float]:
        return shift + x * scale, shift + y * scale

    if maskable:
        draw.rectangle((0, 0, big, big), fill=BRAND)
    else:
        draw.rounded_rectangle((0, 0, big - 1, big - 1), radius=7 * scale, fill=BRAND)
    draw.polygon([at(6, 18), at(16, 9), at(26, 18), at(26, 26), at(6, 26)], fill=ACCENT)
    width = max(1, round(2.4 * scale))
    roof = [at(4.5, 18.5), at(16, 8), at(27.5, 18.5)]
    draw.line(roof, fill=CREAM, width=width, joint="curve")
    for end in (roof[0], roof[-1]):  # round caps
        draw.ellipse((end[0] - width / 2, end[1] - width / 2, end[0] + width / 2, end[1] + width / 2), fill=CREAM)
    door_from, door_to = at(13.5, 20), at(18.5, 26)
    draw.rounded_rectangle((*door_from, *door_to), radius=scale, fill=BRAND)
    out = io.BytesIO()
    image.resize((size, size), Image.Resampling.LANCZOS).save(out, format="PNG", optimize=True)
    return out.getvalue()
