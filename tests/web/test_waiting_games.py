"""All your games at once (issue 31) on the signed-in dashboard: the games
waiting on you, the longest waiting first, "next game" walking them from seat
page to seat page, and the daily mail setting."""

from __future__ import annotations

import re
from typing import Any

from pbem import games
from pbem.core.links import seat_link
from pbem.games import daily
from pbem.games.waiting import waiting_of
from tests.support.clock import frozen_clock
from tests.support.games import seat_tokens
from tests.support.web import csrf_from, sign_in, snapshot


def ann_first(ctx: Any, game_id: str) -> list[str]:
    """The seat tokens of a two-player game, Ann's first (seats are drawn at the start)."""
    return sorted(seat_tokens(ctx, game_id), key=lambda t: games.seat_view(ctx, t)["you"] != "Ann")


def waiting_on_ann(ctx: Any, count: int) -> list[str]:
    """``count`` two-player games with Ann to move, made ten minutes apart."""
    made = []
    for n in range(count):
        players = [{"name": "Ann", "email": "ann@example.org"}, {"name": f"Bo{'b' * (n + 1)}", "email": f"b{n}@example.org"}]
        game_id = games.start_game(ctx, games.parse_players(players))
        for t in seat_tokens(ctx, game_id):
            games.accept(ctx, t)
        ann, other = ann_first(ctx, game_id)
        if not games.seat_view(ctx, ann)["your_turn"]:
            view = games.seat_view(ctx, other)
            games.submit_move(ctx, other, view["legal_moves"][0], None, view["ply"])
        assert games.seat_view(ctx, ann)["your_turn"]
        made.append(game_id)
        ctx.now.advance(minutes=10)
    return made


def test_the_dashboard_lists_the_games_waiting_on_you_the_longest_waiting_first(client: Any, ctx: Any) -> None:
    frozen_clock(ctx)
    made = waiting_on_ann(ctx, 3)
    # Ann moves in the second, and the other player answers: it waits on her again, the least long.
    token, other = ann_first(ctx, made[1])
    view = games.seat_view(ctx, token)
    games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    view = games.seat_view(ctx, other)
    games.submit_move(ctx, other, view["legal_moves"][0], None, view["ply"])  # back to Ann, now the newest wait
    sign_in(client, ctx, "ann@example.org")
    page = client.get("/games").get_data(as_text=True)
    section = re.search(r'<section class="card waiting".*?</section>', page, re.S).group(0)
    listed = re.findall(r'data-waiting="([a-z0-9]+)"', section)
    assert listed == [made[0], made[2], made[1]]
    assert 'href="/games/next"' in section and "3 games are waiting on you" in section
    # Each is a link to Ann's own seat; no address shows.
    for x in waiting_of(ctx, "ann@example.org"):
        assert seat_link(ctx, x.seat) in section
    assert "@example.org" not in section


def test_next_game_walks_the_waiting_games_and_changes_nothing(client: Any, ctx: Any) -> None:
    frozen_clock(ctx)
    made = waiting_on_ann(ctx, 3)
    sign_in(client, ctx, "ann@example.org")
    links = {x.game: seat_link(ctx, x.seat) for x in waiting_of(ctx, "ann@example.org")}
    before = snapshot(ctx)
    seen = []
    answer = client.get("/games/next")
    for _ in range(3):
        assert answer.status_code == 303
        target = answer.headers["Location"]
        game = next(g for g, link in links.items() if link == target)
        seen.append(game)
        page = client.get("/" + target.split("/", 3)[3]).get_data(as_text=True)
        nxt = re.search(r'<a class="button button-quiet" href="([^"]+)" data-next-game>', page)
        assert nxt is not None and "2 more games are waiting on you." in page
        answer = client.get(nxt.group(1).replace("&amp;", "&"))
    assert seen == made
    assert answer.headers["Location"] == links[made[0]]  # round again
    assert snapshot(ctx) == before  # walking opened pages and changed nothing
    # Ann plays the first: the walk from it goes on to the next still waiting.
    token = ann_first(ctx, made[0])[0]
    view = games.seat_view(ctx, token)
    games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    assert client.get(f"/games/next?after={made[0]}").headers["Location"] == links[made[1]]


def test_next_game_with_nothing_waiting_and_signed_out(client: Any, ctx: Any) -> None:
    frozen_clock(ctx)
    assert client.get("/games/next").headers["Location"].endswith("/login")
    # A game that has not started: nothing waits on Ann.
    games.start_game(ctx, games.parse_players([{"name": "Ann", "email": "ann@example.org"},
                                               {"name": "Bob", "email": "bob@example.org"}]))
    sign_in(client, ctx, "ann@example.org")
    answer = client.get("/games/next")
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/games")
    assert "No other game is waiting on you." in client.get("/games").get_data(as_text=True)
    # No "next game" on a seat page of a game when nothing else waits.
    made = waiting_on_ann(ctx, 1)
    page = client.get(f"/play/{ann_first(ctx, made[0])[0]}").get_data(as_text=True)
    assert "data-next-game" not in page


def test_the_daily_mail_setting_on_the_dashboard(client: Any, ctx: Any) -> None:
    players = [{"name": "Ann", "email": "ann@example.org", "time_zone": "Europe/Lisbon"},
               {"name": "Bob", "email": "bob@example.org"}]
    games.start_game(ctx, games.parse_players(players))
    sign_in(client, ctx, "ann@example.org")
    page = client.get("/games").get_data(as_text=True)
    assert "time zone: Europe/Lisbon." in page
    token = csrf_from(page)
    answer = client.post("/games/daily", data={"csrf_token": token, "on": "1", "hour": "7", "time_zone": ""})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("#daily")
    setting = daily.setting_of(ctx, "ann@example.org")
    assert (setting.on, setting.hour, setting.time_zone, setting.chosen_zone) == (True, 7, "Europe/Lisbon", False)
    client.post("/games/daily", data={"csrf_token": token, "on": "1", "hour": "21", "time_zone": "Asia/Tokyo"})
    assert daily.setting_of(ctx, "ann@example.org").time_zone == "Asia/Tokyo"
    before = snapshot(ctx)
    for bad in ({"hour": "24"}, {"hour": "x"}, {"hour": "7", "time_zone": "Mars/Olympus"}):
        answer = client.post("/games/daily", data={"csrf_token": token, "on": "1", **bad})
        assert answer.status_code == 422
    assert snapshot(ctx) == before
    # Without the form token, or signed out: refused, nothing changed.
    assert client.post("/games/daily", data={"on": "0", "hour": "7"}).status_code == 400
    client.post("/logout", data={"csrf_token": token})
    assert client.post("/games/daily", data={"csrf_token": token, "on": "0", "hour": "7"}).status_code in (400, 401)
    assert daily.setting_of(ctx, "ann@example.org").on is True
