"""The SVG board picture (pbem.drawing.svg)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

from pbem.rules.board import Board, classic_board
from pbem.drawing.layout import lay_out
from pbem.drawing.style import CLAN_COLOURS, LAST_MOVE, TERRAIN_COLOURS
from pbem.drawing.svg import board_svg
from pbem.rules.tables import CLANS

from tests.support.views import MID_GAME, board_part, start_view

NS = "{http://www.w3.org/2000/svg}"






@pytest.fixture(scope="module")
def board() -> Board:
    return classic_board()


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def territories(root: ET.Element) -> dict[int, ET.Element]:
    found = [e for e in root.iter() if "data-territory" in e.attrib]
    out = {int(e.attrib["data-territory"]): e for e in found}
    assert len(out) == len(found)
    return out


def title_of(element: ET.Element) -> str:
    title = element.find(NS + "title")
    assert title is not None and title.text is not None
    return title.text


def label_group(root: ET.Element, tid: int) -> ET.Element:
    for g in root.iter(NS + "g"):
        if g.attrib.get("class") == "label" and g.attrib.get("data-for") == str(tid):
            return g
    raise AssertionError(f"no label for {tid}")


def token_counts(root: ET.Element, tid: int) -> list[tuple[str, str]]:
    out = []
    for hut in label_group(root, tid).iter(NS + "g"):
        if hut.attrib.get("class") == "hut":
            text = hut.find(NS + "text")
            assert text is not None and text.text is not None
            out.append((hut.attrib["data-clan"], text.text))
    return out


def classes(element: ET.Element) -> set[str]:
    return set(element.attrib.get("class", "").split())


def test_standalone_svg_with_board_viewbox(board: Board) -> None:
    root = parse(board_svg(board, MID_GAME))
    assert root.attrib["viewBox"] == "0 0 1000 700"
    assert root.attrib["width"] == "100%"
    assert "height" not in root.attrib
    sized = parse(board_svg(board, MID_GAME, width=600))
    assert (sized.attrib["width"], sized.attrib["height"]) == ("600", "420")


def test_sixty_territories_with_ids_numbers_and_terrain_fills(board: Board) -> None:
    root = parse(board_svg(board, start_view(board)))
    terr = territories(root)
    assert sorted(terr) == list(range(1, 61))
    for tid, el in terr.items():
        assert el.attrib["id"] == f"t-{tid}"
        assert el.attrib["fill"] == TERRAIN_COLOURS[board.terrain(tid)]
        assert board.terrain(tid) in classes(el)
        assert el.attrib["d"].startswith("M") and el.attrib["d"].endswith("Z")
    numbers = {t.text for t in root.iter(NS + "text") if t.attrib.get("class") == "number"}
    assert numbers == {str(n) for n in range(1, 61)}
    assert len(root.findall(f".//{NS}g[@class='lakes']/{NS}path")) == 6
    assert len(root.findall(f".//{NS}g[@class='rivers']/{NS}path")) == 64


def test_start_position_shows_one_hut_everywhere(board: Board) -> None:
    view = start_view(board)
    root = parse(board_svg(board, view))
    terr = territories(root)
    for tid in board:
        (clan,) = view["huts"][str(tid)]
        assert token_counts(root, tid) == [(clan, "1")]
        assert title_of(terr[tid]) == f"{tid} · {board.terrain(tid)} · {clan} 1"


def test_hut_counts_in_titles_and_tokens(board: Board) -> None:
    root = parse(board_svg(board, MID_GAME))
    terr = territories(root)
    assert title_of(terr[43]) == "43 · grassland · red 4, yellow 1, blue 2, black 1"
    assert title_of(terr[3]) == "3 · grassland · red 2, yellow 1, green 2, blue 1, black 1"
    assert title_of(terr[1]) == "1 · grassland · empty"
    assert token_counts(root, 43) == [("red", "4"), ("yellow", "1"), ("blue", "2"), ("black", "1")]
    assert token_counts(root, 48) == [("red", "2"), ("yellow", "7")]
    assert token_counts(root, 1) == []
    assert "empty" in classes(terr[1]) and "empty" not in classes(terr[43])
    # Token discs use the clan colours; yellow has dark text, black light text.
    for hut in label_group(root, 43).iter(NS + "g"):
        if hut.attrib.get("class") == "hut":
            disc = [e for e in hut if e.tag in (NS + "circle", NS + "polygon")][-1]
            assert disc.attrib["fill"] == CLAN_COLOURS[hut.attrib["data-clan"]]
            text = hut.find(NS + "text")
            assert text is not None
            dark = text.attrib["fill"] != "#ffffff"
            assert dark == (hut.attrib["data-clan"] == "yellow")


def test_tokens_stay_on_the_board(board: Board) -> None:
    big = {str(t): {c: 9 for c in CLANS} for t in board}
    root = parse(board_svg(board, board_part(big)))
    for circle in root.iter(NS + "circle"):
        x, y, r = (float(circle.attrib[k]) for k in ("cx", "cy", "r"))
        assert r <= x <= 1000 - r and r <= y <= 700 - r
    # The other clans' tokens are polygons (their marks).
    polygons = list(root.iter(NS + "polygon"))
    assert polygons
    for polygon in polygons:
        ring = float(polygon.attrib.get("stroke-width", "0")) / 2
        for corner in polygon.attrib["points"].split():
            x, y = map(float, corner.split(","))
            assert ring <= x <= 1000 - ring and ring <= y <= 700 - ring


def test_selectable_target_and_selected_classes(board: Board) -> None:
    root = parse(board_svg(board, MID_GAME, selectable=[32, 43], targets=iter([31, 33]), selected=43))
    terr = territories(root)
    assert {"territory", "selectable", "selected"} <= classes(terr[43])
    assert "selectable" in classes(terr[32]) and "selected" not in classes(terr[32])
    assert "target" in classes(terr[31]) and "target" in classes(terr[33])
    assert not classes(terr[1]) & {"selectable", "target", "selected"}
    assert sum("selected" in classes(e) for e in terr.values()) == 1
    overlays = {(e.attrib["class"], e.attrib["data-for"]) for e in root.iter(NS + "path") if "data-for" in e.attrib}
    assert {("hl-selected", "43"), ("hl-target", "31"), ("hl-target", "33")} <= overlays


def test_last_move_outlined_with_an_arrow(board: Board) -> None:
    root = parse(board_svg(board, MID_GAME))
    arrow = root.find(f".//{NS}g[@id='last-move']")
    assert arrow is not None and arrow.attrib["data-move"] == "33-32"
    assert any(p.attrib.get("stroke") == LAST_MOVE for p in arrow.iter(NS + "path"))
    marked = {
        (p.attrib["class"], p.attrib["data-for"])
        for p in root.iter(NS + "path")
        if p.attrib.get("class", "").startswith("hl-last-move")
    }
    assert marked == {("hl-last-move hl-from", "33"), ("hl-last-move hl-to", "32")}
    # The arrow runs from 33's label towards 32's.
    pic = lay_out(board, MID_GAME)
    assert pic.arrow is not None
    start, tip = pic.arrow.start, pic.arrow.head[0]
    l33, l32 = pic.layouts[33].number_at, pic.layouts[32].number_at
    assert abs(start[0] - l33[0]) < abs(tip[0] - l33[0])
    assert abs(tip[0] - l32[0]) < abs(start[0] - l32[0])


@pytest.mark.parametrize("last", [None, "12-999", "999-12"])
def test_no_arrow_without_a_last_move_on_the_board(board: Board, last: Any) -> None:
    svg = board_svg(board, {**MID_GAME, "last_move": last})
    root = parse(svg)
    assert root.find(f".//{NS}g[@id='last-move']") is None
    assert "hl-last-move" not in svg


def test_villages_get_a_badge_with_number_and_points(board: Board) -> None:
    root = parse(board_svg(board, MID_GAME))
    terr = territories(root)
    badges = {}
    for g in root.iter(NS + "g"):
        if g.attrib.get("class") == "label":
            for badge in g.iter(NS + "g"):
                if badge.attrib.get("class") == "village-badge":
                    text = badge.find(NS + "text")
                    assert text is not None
                    badges[int(g.attrib["data-for"])] = text.text
    assert badges == {6: "V1 · 3 pts", 25: "V2 · 2 pts", 47: "V3 · 4 pts"}
    assert title_of(terr[47]) == "47 · steppe · green 2, blue 1 · village 3 (epoch I), 4 points"
    assert "village" in classes(terr[6]) and "village" not in classes(terr[43])


def test_territories_not_on_the_board_are_left_out(board: Board) -> None:
    # The view's parts are the rules' own and trusted (pbem.rules.views.BoardPart);
    # only territories of another board are skipped.
    view = board_part({"999": {"red": 1}, "5": {"blue": 1}}, [{"number": 1, "territory": 999, "points": 2}])
    root = parse(board_svg(board, view))
    terr = territories(root)
    assert len(terr) == 60
    assert title_of(terr[5]).endswith("blue 1")
    assert "village" not in " ".join(title_of(t) for t in terr.values())


def test_hostile_text_is_escaped(board: Board) -> None:
    hostile = '<script>alert("x")</script> & \'co\' ]]>'
    view: dict[str, Any] = {"huts": {"12": {hostile: 2, "red": 1}}, "villages": [], "last_move": None}
    svg = board_svg(board, view, title=hostile)
    assert "<script>" not in svg
    root = parse(svg)
    assert title_of(root) == hostile
    assert root.attrib["aria-label"] == hostile
    assert title_of(territories(root)[12]) == f"12 · steppe · red 1, {hostile} 2"
    assert (hostile, "2") in token_counts(root, 12)


def test_deterministic(board: Board) -> None:
    a = board_svg(board, MID_GAME, selectable={43, 32, 3}, targets=[33])
    b = board_svg(board, dict(MID_GAME), selectable=[3, 32, 43], targets=(33,))
    assert a == b


def test_board_without_drawing_data_gets_a_grid() -> None:
    inline = Board.from_data({"territories": [
        {"id": 1, "terrain": "forest", "neighbours": [2]},
        {"id": 2, "terrain": "steppe", "neighbours": [1, 3]},
        {"id": 3, "terrain": "mountain", "neighbours": [2]},
    ]})
    root = parse(board_svg(inline, board_part({"2": {"red": 3}}, last_move="1-2")))
    assert sorted(territories(root)) == [1, 2, 3]
    assert token_counts(root, 2) == [("red", "3")]
    assert root.find(f".//{NS}g[@id='last-move']") is not None
