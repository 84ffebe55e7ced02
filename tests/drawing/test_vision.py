"""The palette as colour-blind players see it (pbem.drawing.vision): the colour
science checked against published values, then every pair of clan colours apart
for normal vision and each dichromacy, and the text on tokens legible."""

from __future__ import annotations

import pytest

from pbem.drawing import vision
from pbem.drawing.style import (
    BOARD_STYLES,
    CLAN_COLOURS,
    CLAN_TEXT,
    NUMBER_COLOUR,
    NUMBER_HALO,
    UNKNOWN_CLAN,
    UNKNOWN_CLAN_TEXT,
    VILLAGE_FILL,
    VILLAGE_TEXT,
)

# Sharma, Wu and Dalal (2005), table 1: pairs of CIELAB colours and their CIEDE2000,
# including the pairs that exercise the hue-angle wrap-around.
SHARMA = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 3.1571, -77.2803), (50.0, 0.0, -82.7485), 2.8615),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0009), 7.1792),
    ((50.0, 2.49, -0.001), (50.0, -2.49, 0.001), 7.1792),
    ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0011), 7.2195),
    ((50.0, -0.001, 2.49), (50.0, 0.0009, -2.49), 4.8045),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((90.8027, -2.0831, 1.441), (91.1528, -1.6435, 0.0447), 1.4441),
    ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize(("lab1", "lab2", "expected"), SHARMA)
def test_ciede2000_matches_sharmas_table(lab1, lab2, expected) -> None:
    assert vision.delta_e_lab(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert vision.delta_e_lab(lab2, lab1) == pytest.approx(expected, abs=1e-4)


def test_cielab_of_srgb_primaries() -> None:
    # The usual D65 values (e.g. Lindbloom's calculator) to a hundredth.
    assert vision.lab("#ffffff") == pytest.approx((100.0, 0.0, 0.0), abs=0.01)
    assert vision.lab("#ff0000") == pytest.approx((53.24, 80.09, 67.20), abs=0.02)
    assert vision.lab("#0000ff") == pytest.approx((32.30, 79.19, -107.86), abs=0.02)


def test_simulation_keeps_greys_and_merges_the_confusion_colours() -> None:
    for deficiency in vision.DEFICIENCIES:
        for grey in ("#000000", "#777777", "#ffffff"):
            assert vision.delta_e(vision.simulate(grey, deficiency), grey) < 1.0
    # Pure red and green are far apart for normal vision and come closest for a
    # deuteranope (a protanope still sees red as much darker); blue and green come
    # closest for a tritanope, who tells red from green well.
    red, green, blue = "#ff0000", "#00ff00", "#0000ff"

    def seen(a: str, b: str, deficiency: str) -> float:
        return vision.delta_e(vision.simulate(a, deficiency), vision.simulate(b, deficiency))

    assert vision.delta_e(red, green) > 80 and vision.delta_e(blue, green) > 80
    assert seen(red, green, "deuteranopia") < 25
    assert seen(red, green, "protanopia") < vision.delta_e(red, green) / 1.5
    assert seen(red, green, "tritanopia") > 70
    assert seen(blue, green, "tritanopia") < min(seen(blue, green, d) for d in ("protanopia", "deuteranopia")) - 30


def test_every_pair_of_clan_colours_is_apart_for_every_vision() -> None:
    assert vision.confusable(CLAN_COLOURS) == []
    # Each of the four visions is checked, over all ten pairs of five clans.
    for v in vision.VISIONS:
        pairs = vision.closest_pairs(CLAN_COLOURS, v)
        assert len(pairs) == 10 and pairs[0][0] >= vision.MIN_CLAN_DISTANCE


@pytest.mark.parametrize(("clan", "bad", "vision_name"), [
    ("green", "#2fa84f", "deuteranopia"),   # the plain red/green pair the palette had before
    ("black", "#6b1d14", "protanopia"),     # a dark red next to the red, for a protanope
    ("green", "#2e8f9a", "tritanopia"),     # a teal green next to the blue, for a tritanope
])
def test_a_confusable_palette_fails_the_check(clan, bad, vision_name) -> None:
    palette = dict(CLAN_COLOURS, **{clan: bad})
    if clan == "green" and vision_name == "deuteranopia":
        palette["red"] = "#d7263d"
    found = vision.confusable(palette)
    assert found, palette
    assert any(v == vision_name and clan in (a, b) for v, a, b, _ in found), found


def test_text_on_every_token_meets_wcag_aa() -> None:
    # Counts on tokens are small bold text (13-19 board units): 4.5:1, not the 3:1 of
    # large text; the same colours are used by both board styles and the mails' chips.
    assert set(BOARD_STYLES) == {"standard", "contrast"}
    for clan, colour in CLAN_COLOURS.items():
        assert vision.contrast_ratio(colour, CLAN_TEXT[clan]) >= 4.5, clan
    assert vision.contrast_ratio(UNKNOWN_CLAN, UNKNOWN_CLAN_TEXT) >= 3.0
    assert vision.contrast_ratio(NUMBER_COLOUR, NUMBER_HALO) >= 7.0
    assert vision.contrast_ratio(VILLAGE_FILL, VILLAGE_TEXT) >= 4.5


def test_the_contrast_ratio_is_wcags() -> None:
    assert vision.contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert vision.contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert vision.contrast_ratio("#abcdef", "#abcdef") == pytest.approx(1.0)
