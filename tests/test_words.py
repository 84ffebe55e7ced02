"""The words people read (pbem/words.py): the history in sentences, and one
wording of times and end reasons for pages and mail alike."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from pbem.core.errors import Invalid, MoveRefused
from pbem.mail.compose import mail_context
from pbem.people.players import BadName
from pbem.rules import Game
from pbem.rules.errors import EmptySource, IllegalMove, RulesError
from pbem.rules.move import Move
from pbem.rules.tables import CLANS
from pbem.rules.views import public_view
from pbem.web.pages import when
from pbem.games.starting import parse_players
from pbem.words import (Words, describe_history, describe_village, end_text, error_text, refusal_text, sentence,
                        when_text)
from tests.support.rules import CODES, huts, make_board, make_game, pairs_adjacency, path_adjacency


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
    assert when(at.isoformat()) == when_text(at) == mailed == "Thursday 3 Dec 2026, 14:00 UTC"


def test_pages_and_mail_give_the_same_end_reason() -> None:
    view = {"game": "g", "players": [], "finished": True, "end": "no-legal-move"}
    mailed = mail_context(view, seat_name="Ann", link="", since_ply=0)["end_reason"]
    assert mailed == end_text("no-legal-move") == "no legal move was left"
    assert end_text("twelfth-village") == "the twelfth village was founded"


# -- errors in words ----------------------------------------------------------------


def _refusals() -> list[RulesError]:
    """One refusal of each code, as the rules give them."""
    found: list[RulesError] = []

    def refused(game: Game, move: Move, order: list[int] | None = None) -> None:
        with pytest.raises(RulesError) as info:
            game.push(move, order)
        found.append(info.value)

    for text, strict in (("12 13", True), ("north", False), (5, False)):
        with pytest.raises(RulesError) as info:
            Move.parse(text, strict=strict)
        found.append(info.value)
    path = make_board(path_adjacency(5))
    setup = {1: ["red"], 2: ["blue"], 4: ["green"], 5: ["yellow"]}  # 3 is empty
    for move in (Move(9, 1), Move(3, 2), Move(1, 4), Move(2, 3)):
        refused(make_game(path, setup), move)
    refused(make_game(make_board(path_adjacency(2)), {1: huts(red=7), 2: huts(blue=1)}), Move(1, 2))
    refused(make_game(make_board(path_adjacency(4)), {t: ["red"] for t in range(1, 5)}), Move(1, 2), [2])
    pair = make_board(path_adjacency(2))
    refused(make_game(pair, {1: ["red"], 2: ["blue"]}), Move(2, 1), [7])
    refused(make_game(pair, {1: ["red"], 2: ["blue"]}), Move(2, 1), [True])  # type: ignore[list-item]
    over = make_game(pair, {1: ["red"], 2: ["blue"]})
    over.push(Move(2, 1))
    refused(over, Move(1, 2))
    return found


def test_every_refusal_reads_in_english_as_the_rules_write_it() -> None:
    refusals = _refusals()
    assert {e.code for e in refusals} == set(CODES) - {"invalid-record"}
    for e in refusals:
        assert e.params, e.code  # the facts its sentence needs, not only the English
        assert refusal_text(e) == e.message
        assert error_text(MoveRefused(e)) == sentence(e.message)


def test_a_refusal_without_its_facts_is_told_in_english() -> None:
    odd = IllegalMove("12-13: something new", move="12-13")
    bare = EmptySource("12-13: nothing there")
    assert refusal_text(odd, Words("hu")) == odd.message
    assert refusal_text(bare, Words("cs")) == bare.message


def test_service_errors_keep_their_sentence_and_its_english() -> None:
    with pytest.raises(Invalid) as info:
        parse_players([{"name": "Ann", "email": "ann@example.org"}, {"name": "x" * 41, "email": "b@example.org"}])
    e = info.value
    assert e.message == "player 2: a name may have at most 40 characters"
    assert e.template == "player %(number)d: %(problem)s" and isinstance(e.params["problem"], BadName)
    assert error_text(e) == "Player 2: a name may have at most 40 characters."
    many = Invalid(("you have %(num)d vacation day left in this game",
                    "you have %(num)d vacation days left in this game"), num=1)
    assert error_text(many) == "You have 1 vacation day left in this game."
    assert error_text(ValueError("plain")) == "Plain."
