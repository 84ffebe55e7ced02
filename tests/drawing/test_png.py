"""The palette PNG writer: what it writes decodes, with any PNG reader (Pillow's
here), to the very pixels and palette it was given."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from pbem.drawing.picture import _palette, render
from pbem.drawing.png import SIGNATURE, palette_png
from pbem.rules import classic_board

from tests.support.views import board_part


def _decoded(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()  # reads every chunk: a bad CRC or a short stream raises here
    return img


def test_the_board_picture_round_trips_pixel_for_pixel() -> None:
    board = classic_board()
    picture = render(board, board_part({"12": {"red": 2}})).quantize(
        palette=_palette(board, 1200), dither=Image.Dither.NONE)
    data = palette_png(picture)
    back = _decoded(data)
    assert data.startswith(SIGNATURE)
    assert back.format == "PNG" and back.mode == "P" and back.size == picture.size
    assert back.tobytes() == picture.tobytes()
    assert back.getpalette() == picture.getpalette()
    # Compressed: the raw palette pixels are about 1 MB.
    assert len(data) < 200_000


@pytest.mark.parametrize("size", [(1, 1), (7, 3), (257, 5)])
def test_odd_sizes_and_noise_round_trip(size: tuple[int, int]) -> None:
    rng = random.Random(size[0])
    img = Image.frombytes("P", size, bytes(rng.randrange(200) for _ in range(size[0] * size[1])))
    img.putpalette([rng.randrange(256) for _ in range(3 * 200)])
    back = _decoded(palette_png(img))
    assert back.size == size
    assert back.tobytes() == img.tobytes()
    assert back.getpalette() == img.getpalette()


@pytest.mark.parametrize("box", [(0, 0, 257, 5), (0, 0, 1, 1), (3, 1, 60, 5), (200, 2, 257, 3), (256, 4, 257, 5)])
def test_a_part_is_written_as_its_crop(box: tuple[int, int, int, int]) -> None:
    """A close-up: ``palette_png(image, box)`` is ``palette_png(image.crop(box))``,
    byte for byte (the first column of the rows it pastes is the filter byte,
    never a pixel left of the box)."""
    rng = random.Random(5)
    img = Image.frombytes("P", (257, 5), bytes(1 + rng.randrange(199) for _ in range(257 * 5)))
    img.putpalette([rng.randrange(256) for _ in range(3 * 200)])
    assert palette_png(img, box) == palette_png(img.crop(box))
    assert _decoded(palette_png(img, box)).tobytes() == img.crop(box).tobytes()


@pytest.mark.parametrize("box", [(0, 0, 0, 5), (-1, 0, 3, 3), (0, 0, 258, 5), (2, 2, 1, 3)])
def test_a_part_outside_the_picture_is_refused(box: tuple[int, int, int, int]) -> None:
    with pytest.raises(ValueError, match="not a part"):
        palette_png(Image.new("P", (257, 5)), box)


def test_only_palette_images_are_accepted() -> None:
    with pytest.raises(ValueError, match="mode RGB"):
        palette_png(Image.new("RGB", (2, 2)))


def test_a_transparent_palette_is_refused() -> None:
    img = Image.new("RGBA", (2, 2), (255, 0, 0, 128)).quantize(2)
    img.info["transparency"] = 0
    with pytest.raises(ValueError, match="transparency"):
        palette_png(img)
