"""Each seat's language and time zone: chosen when the game is started (form or
API), changed by the player, kept for the mail the worker builds later."""

from __future__ import annotations

import pytest
from sqlmodel import col, select

from pbem.core import errors
from pbem.core.db import session_scope
from pbem.core.models import Outbox, Seat
from tests.support.games import seat_tokens
from pbem.people import signin
from pbem import games

FOUR = [
    {"name": "Anna", "email": "anna@example.org", "language": "hu", "time_zone": "Europe/Budapest"},
    {"name": "Petr", "email": "petr@example.org", "language": "cs", "time_zone": "Europe/Prague"},
    {"name": "Rita", "email": "rita@example.org", "language": "pt"},
    {"name": "Tom", "email": "tom@example.org"},
]


def _seats(ctx, game_id):
    with session_scope(ctx.engine) as session:
        rows = session.exec(select(Seat).order_by(col(Seat.game_id).desc(), col(Seat.position))).all()
        return [(s.name, s.language, s.time_zone) for s in rows][:4]


def test_players_keep_their_language_and_time_zone(ctx):
    game_id = games.start_game(ctx, games.parse_players(FOUR))
    assert _seats(ctx, game_id) == [("Anna", "hu", "Europe/Budapest"), ("Petr", "cs", "Europe/Prague"),
                                    ("Rita", "pt", None), ("Tom", "en", None)]
    view = games.seat_view(ctx, seat_tokens(ctx, game_id)[0])
    assert (view["language"], view["time_zone"]) == ("hu", "Europe/Budapest")
    # Anyone's view says nothing of the seats' settings.
    assert "language" not in games.public_game(ctx, game_id)


def test_the_page_language_is_the_default_for_players_without_one(ctx):
    players = games.parse_players([{"name": "A", "email": "a@example.org"},
                                      {"name": "B", "email": "b@example.org", "language": "en"}],
                                     default_language="cs")
    assert [p.language for p in players] == ["cs", "en"]


@pytest.mark.parametrize("given, expected", [("pt-PT", "pt"), ("HU", "hu"), ("pt_PT", "pt"), ("cs-CZ", "cs")])
def test_language_tags_are_read_leniently(given, expected):
    players = games.parse_players([{"name": "A", "email": "a@example.org", "language": given},
                                      {"name": "B", "email": "b@example.org"}])
    assert players[0].language == expected


@pytest.mark.parametrize("field, value, code", [
    ("language", "xx", "invalid-language"),
    ("language", "de", "invalid-language"),
    ("time_zone", "Mars/Olympus", "invalid-time-zone"),
    ("time_zone", "../../etc/passwd", "invalid-time-zone"),
])
def test_unknown_languages_and_zones_are_refused_and_point_at_the_field(field, value, code):
    with pytest.raises(errors.Invalid) as caught:
        games.parse_players([{"name": "A", "email": "a@example.org"},
                                {"name": "B", "email": "b@example.org", field: value}])
    assert (caught.value.code, caught.value.player, caught.value.field) == (code, 2, field)


def test_a_player_changes_their_language_and_time_zone(ctx):
    game_id = games.start_game(ctx, games.parse_players(FOUR[2:]))
    token = seat_tokens(ctx, game_id)[0]
    view = games.set_language(ctx, token, "cs", "Europe/Lisbon")
    assert (view["language"], view["time_zone"]) == ("cs", "Europe/Lisbon")
    # An empty time zone leaves the chosen one alone.
    view = games.set_language(ctx, token, "hu", "")
    assert (view["language"], view["time_zone"]) == ("hu", "Europe/Lisbon")
    with pytest.raises(errors.Invalid) as caught:
        games.set_language(ctx, token, "hu", "Nowhere/Special")
    assert caught.value.code == "invalid-time-zone"
    with pytest.raises(errors.Invalid) as caught:
        games.set_language(ctx, token, "klingon", "")
    assert caught.value.code == "invalid-language"
    # A refused change changes nothing.
    assert games.seat_view(ctx, token)["language"] == "hu"
    with pytest.raises(errors.Unauthorized):
        games.set_language(ctx, "not-a-token", "hu", "")


def test_a_sign_in_mail_remembers_the_language_it_was_asked_in(ctx):
    signin.request_login(ctx, "someone@example.org", "pt")
    with session_scope(ctx.engine) as session:
        row = session.exec(select(Outbox).where(Outbox.kind == "login")).one()
        assert row.language == "pt"
