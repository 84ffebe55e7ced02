"""The words people read (pbem/words.py): the history in sentences, and one
wording of times and end reasons for pages and mail alike."""

from __future__ import annotations

from datetime import datetime, timezone

from pbem.mail.compose import mail_context
from pbem.rules.move import Move
from pbem.rules.tables import CLANS
from pbem.rules.views import public_view
from pbem.web.pages import when
from pbem.words import describe_history, describe_village, end_text, when_text
from tests.support.rules import huts, make_board, make_game, pairs_adjacency, path_adjacency


# -- the history in words -----------------------------------------------------------------


def test_describe_history() -> None:
    board = make_board({1: [2], 3: [4], 5: [6]}, {1: "forest", 2: "forest", 4: "mountain", 6: "steppe"})
    game = make_game(board, {1: huts(yellow=1, red=1), 2: huts(blue=3), 3: ["red"], 4: ["blue"],
                             5: huts(blue=1, yellow=1, green=1), 6: huts(black=4, red=2)})
    game.push(Move(1, 2))
    game.push(Move(3, 4))
    game.push(Move(5, 6))
    lines = describe_history(public_view(game))
    assert lines == [
        "ann moved 1 → 2; village on 2 (forest, epoch I): 6 points to blue, red, yellow",
        "bob moved 3 → 4; village on 4 (mountain, epoch I): 0 points to blue, red",
        "ann moved 5 → 6; village on 6 (steppe, epoch I): 6 points to black, red "
        "(strife removed blue, green, yellow)",
    ]


def test_describe_history_without_villages_and_across_epochs() -> None:
    board = make_board({**pairs_adjacency(5), 11: [12], 12: [13]}, {10: "mountain"})
    game = make_game(board, {**{t: ["red"] for t in range(1, 11)}, 11: ["blue"], 12: ["blue"], 13: ["blue"]})
    game.push(Move(11, 12))
    for j in range(1, 6):
        game.push(Move(2 * j - 1, 2 * j))
    lines = describe_history(public_view(game))
    assert lines[0] == "ann moved 11 → 12"
    assert lines[5] == "bob moved 9 → 10; village on 10 (mountain, epoch II): 4 points to red"
    assert len(lines) == 6


def test_describe_village_of_nobody() -> None:
    text = describe_village({"territory": 3, "terrain": "steppe", "epoch": 5, "points": 5,
                             "clans": [], "removed": {c: 1 for c in CLANS}})
    assert text == ("village on 3 (steppe, epoch V): 5 points to nobody "
                    "(strife removed black, blue, green, red, yellow)")


def test_describe_history_of_nothing() -> None:
    game = make_game(make_board(path_adjacency(2)), {1: ["red"], 2: ["blue"]})
    assert describe_history(public_view(game)) == []


# -- one wording for pages and mail ---------------------------------------------------


def test_pages_and_mail_write_times_alike() -> None:
    at = datetime(2026, 12, 3, 14, 0, tzinfo=timezone.utc)
    view = {"game": "g", "players": [], "deadline": at.isoformat()}
    mailed = mail_context(view, seat_name="Ann", link="", since_ply=0)["deadline_text"]
    assert when(at.isoformat()) == when_text(at) == mailed == "Thu 3 Dec 2026, 14:00 UTC"


def test_pages_and_mail_give_the_same_end_reason() -> None:
    view = {"game": "g", "players": [], "finished": True, "end": "no-legal-move"}
    mailed = mail_context(view, seat_name="Ann", link="", since_ply=0)["end_reason"]
    assert mailed == end_text("no-legal-move") == "no legal move was left"
    assert end_text("twelfth-village") == "the twelfth village was founded"
