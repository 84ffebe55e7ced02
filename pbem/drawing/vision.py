"""How colours look to people: colour-vision deficiency, colour differences and
text contrast, for checking the board's palette (:mod:`pbem.drawing.style`).

- :func:`simulate` — the colour as seen with protanopia, deuteranopia or tritanopia:
  the matrices of Machado, Oliveira and Fernandes, "A Physiologically-based Model for
  Simulation of Color Vision Deficiency" (IEEE TVCG 15(6), 2009), at severity 1.0,
  applied to linear RGB.
- :func:`delta_e` — CIEDE2000 between two colours, in CIELAB (D65): Sharma, Wu and
  Dalal, "The CIEDE2000 Color-Difference Formula" (Color Res. Appl. 30(1), 2005).
- :func:`contrast_ratio` — WCAG 2's contrast ratio of two colours.

Standard library only; colours are ``#rrggbb``.

>>> round(delta_e_lab((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485)), 4)  # Sharma's pair 1
2.0425
>>> round(contrast_ratio("#ffffff", "#000000"), 1)
21.0
"""

from __future__ import annotations

import math
from itertools import combinations

Rgb = tuple[float, float, float]
Lab = tuple[float, float, float]
Matrix = tuple[Rgb, Rgb, Rgb]

#: Machado et al. 2009, severity 1.0 (the full dichromacies), for linear RGB.
DEFICIENCIES: dict[str, Matrix] = {
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779),
                   (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}

# sRGB (linear) to CIE XYZ, D65 white (IEC 61966-2-1).
_TO_XYZ: Matrix = ((0.4124564, 0.3575761, 0.1804375),
                   (0.2126729, 0.7151522, 0.0721750),
                   (0.0193339, 0.1191920, 0.9503041))
_WHITE = (0.95047, 1.0, 1.08883)


def parse(colour: str) -> Rgb:
    """``#rrggbb`` as sRGB components in 0..1."""
    if len(colour) != 7 or not colour.startswith("#"):
        raise ValueError(f"not a #rrggbb colour: {colour!r}")
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return r, g, b


def to_hex(rgb: Rgb) -> str:
    """sRGB components (clipped to 0..1) as ``#rrggbb``."""
    return "#" + "".join(f"{round(min(1.0, max(0.0, c)) * 255):02x}" for c in rgb)


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _gamma(c: float) -> float:
    c = min(1.0, max(0.0, c))
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def _apply(m: Matrix, v: Rgb) -> Rgb:
    return (m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
            m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
            m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2])


def linear_rgb(colour: str) -> Rgb:
    r, g, b = parse(colour)
    return _linear(r), _linear(g), _linear(b)


def simulate(colour: str, deficiency: str) -> str:
    """``colour`` as someone with ``deficiency`` (a key of :data:`DEFICIENCIES`) sees it.

    >>> simulate("#ffffff", "deuteranopia"), simulate("#000000", "tritanopia")
    ('#ffffff', '#000000')
    """
    seen = _apply(DEFICIENCIES[deficiency], linear_rgb(colour))
    r, g, b = (_gamma(c) for c in seen)
    return to_hex((r, g, b))


def lab(colour: str) -> Lab:
    """CIELAB (D65) of an sRGB colour."""
    x, y, z = _apply(_TO_XYZ, linear_rgb(colour))

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x / _WHITE[0]), f(y / _WHITE[1]), f(z / _WHITE[2])
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e_lab(lab1: Lab, lab2: Lab) -> float:
    """CIEDE2000 (kL = kC = kH = 1) between two CIELAB colours."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl = l2 - l1
    dc = c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    else:
        dh = h2p - h1p
        if dh > 180:
            dh -= 360
        elif dh < -180:
            dh += 360
    d_hue = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh) / 2)
    l_bar = (l1 + l2) / 2
    cp_bar = (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6)) - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (d_hue / s_h) ** 2
                     + r_t * (dc / s_c) * (d_hue / s_h))


def delta_e(colour1: str, colour2: str) -> float:
    """CIEDE2000 between two sRGB colours."""
    return delta_e_lab(lab(colour1), lab(colour2))


def closest_pairs(colours: dict[str, str], deficiency: str | None = None) -> list[tuple[float, str, str]]:
    """Every pair of ``colours`` (name -> ``#rrggbb``) with its CIEDE2000 distance as
    seen with ``deficiency`` (``None``: normal vision), closest first."""
    seen = {name: (simulate(c, deficiency) if deficiency else c) for name, c in colours.items()}
    pairs = [(delta_e(seen[a], seen[b]), a, b) for a, b in combinations(sorted(seen), 2)]
    return sorted(pairs)


#: The least CIEDE2000 difference between two clans' colours, for every kind of
#: vision.  A difference of about 1 is just noticeable for large patches side by
#: side; hut tokens are small marks (about 1 degree of view on a phone, less in the
#: mailed picture), seen apart and over terrain, and the difference people notice
#: grows steeply as marks shrink (Szafir, "Modeling Color Difference for
#: Visualization Design", IEEE TVCG 24(1), 2018); a player must moreover tell the
#: clans apart at a glance, not just notice that two differ.  So the floor is well
#: above a JND: 15, which the classic red and green (7.1 for a deuteranope) fail
#: and the palette passes with a margin; the clans' shapes carry the rest.
MIN_CLAN_DISTANCE = 15.0
#: The kinds of vision checked: normal, and each full dichromacy.
VISIONS: tuple[str | None, ...] = (None, *DEFICIENCIES)


def confusable(colours: dict[str, str], threshold: float = MIN_CLAN_DISTANCE) -> list[tuple[str, str, str, float]]:
    """The pairs of ``colours`` closer than ``threshold`` for some vision in
    :data:`VISIONS`: ``(vision, name, name, distance)``, "normal" for normal vision.

    >>> confusable({"red": "#d7263d", "green": "#2fa84f"})  # the classic red and green
    [('deuteranopia', 'green', 'red', 7.1)]
    """
    out = []
    for vision in VISIONS:
        for distance, a, b in closest_pairs(colours, vision):
            if distance < threshold:
                out.append((vision or "normal", a, b, round(distance, 1)))
    return out


def luminance(colour: str) -> float:
    """WCAG 2's relative luminance."""
    r, g, b = linear_rgb(colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(colour1: str, colour2: str) -> float:
    """WCAG 2's contrast ratio, 1 to 21."""
    hi, lo = sorted((luminance(colour1), luminance(colour2)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
