"""A turn mail is enough to decide: the reader's legal moves with what each would
do, this epoch's terrains, in the reader's language, and close-ups of the board
legible on a phone."""

from __future__ import annotations

import email
import email.policy
import html as html_lib
import io
import re
from typing import Any, Iterator

import pytest
from PIL import Image

from pbem import games
from pbem.core.db import session_scope
from pbem.core.models import CaughtMail
from pbem.drawing.marks import font_scale
from pbem.drawing.picture import DEFAULT_WIDTH, close_up_windows
from pbem.drawing.style import CLAN_MARKS, NUMBER_FONT, TOKEN_FONT
from pbem.mail.compose import legal_moves_text
from pbem.rules import classic_board
from pbem.rules.effects import move_effects
from pbem.words import Words, effect_phrase, effect_text, epoch_terrain_text, joins_text, move_groups, only_joins
from tests.support.config import app_config
from tests.support.games import email_of, new_game, play, to_move
from tests.support.messages import newest, parts

#: The width of a phone's mail client, in CSS px, and the smallest legible label.
PHONE = 360
SMALLEST = 11


def _turn_mail(ctx: Any, language: str, moves: int = 4) -> tuple[dict[str, Any], dict[str, Any]]:
    """A game whose players read ``language``, ``moves`` moves in: the mover's
    view and the parts of their turn mail."""
    _, toks = new_game(ctx)
    for t in toks:
        games.set_language(ctx, t, language)
    play(ctx, toks, moves)
    _, view = to_move(ctx, toks)
    message = newest(ctx, email_of(view), "turn")
    assert message is not None
    return view, parts(message)


@pytest.mark.parametrize("language", ["en", "hu", "cs", "pt"])
def test_the_turn_mail_names_every_legal_move_with_its_effect(ctx: Any, language: str) -> None:
    view, got = _turn_mail(ctx, language)
    w = Words(language)
    effects = move_effects(classic_board(), view)
    assert [str(e.move) for e in effects] == view["legal_moves"] and effects
    text, html = got["text"], html_lib.unescape(got["html"])
    terrain = epoch_terrain_text(view["epoch"], w)
    assert terrain in text and terrain in html
    groups = move_groups(effects, view["epoch"], w)
    # One group per territory moved from, headed by it; every legal move in one
    # line of its group, and that line says what the move would do.
    assert [g["source"] for g in groups] == sorted({e.move.source for e in effects},
                                                   key=classic_board().index.__getitem__)
    lines = {m: line["text"] for g in groups for line in g["lines"] for m in line["moves"]}
    assert sorted(lines) == sorted(view["legal_moves"])
    # The mail lists each move that founds a village (or ends an epoch or the game)
    # on its own line; the moves that only join other huts share one paragraph.
    joins = joins_text([e for e in effects if only_joins(e)])
    assert joins
    for e in (e for e in effects if only_joins(e)):
        assert re.search(rf"(^|; ){e.move.source} → ([0-9]+, )*{e.move.target}(,|;|$)", joins), e.move
    assert "  " + joins + "\n" in text and joins in html
    assert w._("Moves that only join other huts:") in text and w._("Moves that only join other huts:") in html
    noted = move_groups([e for e in effects if not only_joins(e)], view["epoch"], w)
    for g in noted:
        assert g["heading"] in text and g["heading"] in html
        for line in g["lines"]:
            assert "  " + line["text"] + "\n" in text and line["text"] in html
    # A phone's screen, not many: far fewer lines than one per territory moved from.
    assert text.count("\n") < 160, text.count("\n")
    for e in effects:
        line = lines[str(e.move)]
        source, _, rest = line.partition(" → ")
        targets, _, phrase = rest.partition(": ")
        assert int(source) == e.move.source and str(e.move.target) in targets.split(", ")
        assert phrase == effect_phrase(e, view["epoch"], w)
    if language != "en":
        assert terrain != epoch_terrain_text(view["epoch"])
        assert effect_text(effects[0], view["epoch"], w) != effect_text(effects[0], view["epoch"])


def test_the_lines_are_the_same_whoever_reads_them(ctx: Any) -> None:
    """The effect lines read only what everyone sees: two seats with different
    clans get the same lines for the same position."""
    _, toks = new_game(ctx)
    play(ctx, toks, 3)
    mover, view = to_move(ctx, toks)
    other = games.seat_view(ctx, next(t for t in toks if t != mover))
    assert other["clan"] != view["clan"]
    as_if_theirs: Any = {**other, "your_turn": True}
    assert legal_moves_text(as_if_theirs, Words()) == legal_moves_text(view, Words())
    assert legal_moves_text(other, Words()) == []  # not their turn: no moves offered


def test_the_close_ups_are_legible_on_a_phone(ctx: Any) -> None:
    view, got = _turn_mail(ctx, "en")
    images = got["images"]
    close = sorted(k for k in images if k.startswith("close-up-"))
    assert close, "no close-ups"
    board = Image.open(io.BytesIO(images["board"][1]))
    scale = board.width / 1000  # the classic board is 1000 units wide
    assert board.width == DEFAULT_WIDTH
    number_px = max(8, round(NUMBER_FONT * scale))
    # The whole board alone is not legible at a phone's width ...
    assert number_px * PHONE / board.width < SMALLEST
    smallest_count = min(font_scale(mark, 1) for mark in CLAN_MARKS.values()) * TOKEN_FONT * scale
    for cid in close:
        piece = Image.open(io.BytesIO(images[cid][1]))
        # ... each close-up is: territory numbers and one-digit hut counts.
        assert number_px * PHONE / piece.width >= SMALLEST, (cid, piece.size)
        assert smallest_count * PHONE / piece.width >= SMALLEST, (cid, piece.size)
        assert f'src="cid:{cid}"' in got["html"]
    # Every territory of a legal move is shown whole in one of them.
    wanted = {int(t) for m in view["legal_moves"] for t in m.split("-")}
    windows = close_up_windows(classic_board(), view, sorted(wanted))
    assert len(windows) == len(close)
    assert set().union(*(set(shown) for _, shown in windows)) == wanted
    for (_, shown), cid in zip(windows, close):
        assert "territories " + ", ".join(map(str, shown)) in html_lib.unescape(got["html"])


@pytest.fixture
def mailbox_app(database_url: str) -> Iterator[Any]:
    """The demo's mailbox (it exists only on a loopback base URL)."""
    from pbem.web import create_app

    app = create_app(app_config(database_url, BASE_URL="http://127.0.0.1:5000", MAILBOX=True))
    yield app
    app.extensions["pbem"].engine.dispose()


def test_the_demo_mailbox_shows_the_close_ups(mailbox_app: Any) -> None:
    ctx = mailbox_app.extensions["pbem"]
    client = mailbox_app.test_client()
    _, toks = new_game(ctx)
    _, view = to_move(ctx, toks)
    ids = [int(i) for i in re.findall(r'href="/mailbox/(\d+)"', client.get("/mailbox/").get_data(as_text=True))]
    turn = next(i for i in ids if 'cid:close-up-1' in parts(_raw(ctx, i))["html"])
    html = client.get(f"/mailbox/{turn}/html").get_data(as_text=True)
    shown = re.findall(r'src="(/mailbox/\d+/close-up-\d+\.png)"', html)
    assert shown and "cid:" not in html
    for src in shown:
        picture = client.get(src)
        assert picture.status_code == 200 and picture.mimetype == "image/png"
        assert picture.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert client.get(f"/mailbox/{turn}/close-up-99.png").status_code == 404


def _raw(ctx: Any, mail_id: int) -> Any:
    with session_scope(ctx.engine) as session:
        mail = session.get(CaughtMail, mail_id)
        assert mail is not None
        return email.message_from_string(mail.raw, policy=email.policy.default)
