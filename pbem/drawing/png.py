"""PNG files of palette images, compressed with ISA-L.

Pillow writes PNGs with the system's zlib and offers no other deflate: for the
emailed board (1200 x 840 palette pixels) that took 3.6-6.4 ms, the largest single
cost of a turn notice.  ISA-L's deflate takes 0.9 ms for a file of about the same
size (80 KB against 75).  Around the compressed pixels go four chunks (RFC 2083):

>>> import io
>>> from PIL import Image
>>> data = palette_png(Image.new("RGB", (3, 2), "red").quantize(2))
>>> data[:8] == SIGNATURE, Image.open(io.BytesIO(data)).size
(True, (3, 2))
"""

from __future__ import annotations

import struct
import zlib

from isal import isal_zlib
from PIL import Image

SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: ISA-L levels run 0-3; 1 is the fastest that still finds repeats (level 3
#: is four times slower for a file 2 % smaller).
LEVEL = 1


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def palette_png(image: Image.Image, box: tuple[int, int, int, int] | None = None) -> bytes:
    """``image`` (mode ``P``, 8 bits a pixel, an opaque RGB palette) as PNG bytes;
    ``box`` (left, top, right, bottom): only that part of it, as ``image.crop(box)``
    would be.  Its pixels must index its palette, as ``quantize`` makes them:
    checking would read every pixel again (0.5 ms for the board)."""
    if image.mode != "P":
        raise ValueError(f"palette_png needs a palette (P) image, not mode {image.mode}")
    if "transparency" in image.info or (image.palette is not None and image.palette.mode != "RGB"):
        raise ValueError("palette_png writes opaque pictures: this palette has transparency")
    left, top, right, bottom = box if box is not None else (0, 0, *image.size)
    width, height = right - left, bottom - top
    if width < 1 or height < 1 or left < 0 or top < 0 or right > image.width or bottom > image.height:
        raise ValueError(f"palette_png: {box} is not a part of a picture of {image.size}")
    palette = bytes(image.getpalette() or [])
    if not palette:
        raise ValueError("palette_png: the image has no palette")
    # Every row starts with its filter type; 0 (none) suits palette images.  The
    # rows are pasted once into a picture one column wider whose first column is
    # that 0: its bytes are the filtered rows (joining 840 rows in Python cost
    # three times as much).
    rows = Image.new("P", (width + 1, height), 0)
    rows.paste(image, (1 - left, -top))
    rows.paste(0, (0, 0, 1, height))  # the paste put the column left of the box there
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return b"".join((SIGNATURE, _chunk(b"IHDR", header), _chunk(b"PLTE", palette),
                     _chunk(b"IDAT", isal_zlib.compress(rows.tobytes(), LEVEL)), _chunk(b"IEND", b"")))
