"""One palette: every colour of pbem/drawing/style.py is written there only.

The pages' CSS reads it as custom properties (``templates/base.html`` writes them),
the mails and the brand mark as ``look.NAME``; a colour of the palette typed again
in a stylesheet, a script or a template would drift from it unseen.  The favicons
are static files (served with the other static files, cached): they are checked
to draw with the brand mark's colours only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.drawing import style
from pbem.drawing.style import CSS_PROPERTIES, LOOK, css_properties

PBEM = Path(style.__file__).resolve().parents[1]
#: A hex colour: not an HTML character reference (``&#160;``), nor part of a word.
HEX = re.compile(r"(?<![&\w])#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})(?![0-9a-zA-Z_-])")
FAVICONS = ("favicon.svg", "favicon-turn.svg")


def normal(colour: str) -> str:
    """``#FFF`` and ``#ffffff`` are one colour: ``#ffffff``."""
    digits = colour.lstrip("#").lower()
    return "#" + ("".join(c * 2 for c in digits) if len(digits) == 3 else digits)


def colours_in(text: str) -> set[str]:
    return {normal(m.group(0)) for m in HEX.finditer(text)}


def palette() -> set[str]:
    """Every colour written in style.py."""
    return colours_in(Path(style.__file__).read_text(encoding="utf-8"))


def written_files() -> list[Path]:
    """The stylesheets, scripts and templates (page and mail), but the favicons."""
    files = [*(PBEM / "static").glob("*.css"), *(PBEM / "static").glob("*.js"),
             *(PBEM / "templates").rglob("*.html"), *(PBEM / "templates").rglob("*.txt")]
    assert files
    return sorted(files)


def test_the_palette_is_read_from_style_py() -> None:
    # A sanity check of the scan itself: it sees the board's and the site's colours.
    found = palette()
    assert {style.WHITE, style.BRAND, style.ACCENT, style.FOREST, LOOK["paper"], LOOK["note"]} <= found
    assert normal("#FFF") == "#ffffff" and colours_in("&#160; #main #fed;") == {"#ffeedd"}


@pytest.mark.parametrize("path", written_files(), ids=lambda p: str(p.relative_to(PBEM)))
def test_no_colour_of_the_palette_is_written_again(path: Path) -> None:
    again = colours_in(path.read_text(encoding="utf-8")) & palette()
    assert not again, (f"{path.relative_to(PBEM)} writes {sorted(again)}: use the palette "
                       "(var(--…) in CSS, look.NAME in templates)")


def test_no_colour_is_written_in_two_files() -> None:
    # A colour the pages and the mails share belongs in the palette, written once.
    where: dict[str, set[str]] = {}
    for path in written_files():
        for colour in colours_in(path.read_text(encoding="utf-8")):
            where.setdefault(colour, set()).add(str(path.relative_to(PBEM)))
    shared = {c: sorted(files) for c, files in where.items() if len(files) > 1}
    assert not shared


@pytest.mark.parametrize("name", FAVICONS)
def test_favicons_use_the_brand_marks_colours(name: str) -> None:
    used = colours_in((PBEM / "static" / name).read_text(encoding="utf-8"))
    assert used and used <= {LOOK[k] for k in ("brand", "accent", "cream", "turn_dot", "white")}
    assert {LOOK["brand"], LOOK["accent"], LOOK["cream"]} <= used


def test_turn_favicon_has_its_dot() -> None:
    assert LOOK["turn_dot"] in colours_in((PBEM / "static" / "favicon-turn.svg").read_text(encoding="utf-8"))


def test_every_custom_property_the_css_reads_is_written() -> None:
    css = "\n".join(p.read_text(encoding="utf-8") for p in (PBEM / "static").glob("*.css"))
    js = "\n".join(p.read_text(encoding="utf-8") for p in (PBEM / "static").glob("*.js"))
    read = set(re.findall(r"var\((--[\w-]+)", css)) | set(re.findall(r"['\"](--board-[\w-]+)['\"]", js))
    # Some properties are set on the element itself (a clan's --c, a terrain's --t).
    local = {"--c", "--t"}
    assert read - local <= set(CSS_PROPERTIES), sorted(read - local - set(CSS_PROPERTIES))
    assert "<" not in css_properties()
