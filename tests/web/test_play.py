"""The seat page: what it shows in each state, and the forms that change a game."""

from __future__ import annotations

import json
import re

import pytest

from pbem import games
from tests.support.games import db_id, finish, new_game, play, set_huts, to_move, two_village_position
from tests.support.messages import caught
from tests.support.web import clan_marks, csrf_from, csrf_token, snapshot


def page_of(client, token):
    response = client.get(f"/play/{token}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def play_data(page):
    m = re.search(r'<script type="application/json" id="play-data">(.*?)</script>', page, re.S)
    assert m, "no move data on the page"
    return json.loads(m.group(1))


def test_invited_page_shows_the_invitation_and_an_accept_button(client, ctx):
    game_id, toks = new_game(ctx, start=False)
    page = page_of(client, toks[1])
    assert 'data-status="invited"' in page
    assert "A game of Clans with Ann and Cid" in page
    assert f'action="/play/{toks[1]}/accept"' in page and "Accept the invitation" in page
    assert "<svg" not in page.split("<main", 1)[1].split("</main>")[0].replace('class="brand-mark"', "")
    assert clan_marks(page) == {"yours": [], "players": []}


def test_accept_via_the_page_then_waiting_then_started(client, ctx):
    game_id, toks = new_game(ctx, start=False)
    token = csrf_from(page_of(client, toks[0]))
    response = client.post(f"/play/{toks[0]}/accept", data={"csrf_token": token})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/play/{toks[0]}")
    page = page_of(client, toks[0])
    assert 'data-status="waiting"' in page
    assert "You accepted the invitation" in page  # the flash
    assert "Still waiting for <strong>Bob, Cid</strong>" in page
    # A second click on an old page is harmless.
    assert client.post(f"/play/{toks[0]}/accept", data={"csrf_token": token}).status_code == 303
    for t in toks[1:]:
        assert client.post(f"/play/{t}/accept", data={"csrf_token": token}).status_code == 303
    view = games.public_game(ctx, game_id)
    assert view["status"] == "active"
    # Accepting again after the start changes nothing and just shows the game.
    before = snapshot(ctx)
    assert client.post(f"/play/{toks[0]}/accept", data={"csrf_token": token}).status_code == 303
    assert snapshot(ctx) == before


def test_active_page_shows_board_chart_scores_chips_deadline_and_history(client, ctx):
    game_id, toks = new_game(ctx)
    play(ctx, toks, 4)
    mover, view = to_move(ctx, toks)
    page = page_of(client, mover)
    assert 'data-status="active"' in page and ">Your turn<" in page
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in page and 'class="clans-board"' in page
    # The sources of the legal moves are selectable; their targets are in the data.
    data = play_data(page)
    assert data["ply"] == view["ply"] == 4
    sources = {m.split("-")[0] for m in view["legal_moves"]}
    assert set(data["moves"]) == sources
    assert sorted(f"{s}-{t}" for s, ts in data["moves"].items() for t in ts) == sorted(view["legal_moves"])
    for s in sources:
        assert re.search(rf'data-territory="{s}" class="territory [a-z]+ selectable', page), s
    # Epoch chart with the current epoch marked, all five clans' scores, chips per player.
    assert page.count('aria-current="true"') == 1
    assert re.search(r'<tr class="is-current"[^>]*aria-current="true">\s*<th scope="row"><span class="roman">I</span>', page)
    for clan in ("red", "yellow", "green", "blue", "black"):
        assert f'data-track="{clan}"' in page
    assert page.count('class="chips"') == 3
    # The deadline, in UTC without JavaScript, with its ISO time for the script.
    deadline = view["deadline"][:19]
    assert re.search(rf'<time datetime="{deadline}Z" data-local data-relative>[^<]+UTC</time>', page)
    # The history in words, newest first.
    assert re.findall(r'<li data-ply="(\d+)"', page) == ["4", "3", "2", "1"]
    first = view["history"][0]
    source, target = first["move"].split("-")
    assert f"{first['player']} moved {source} → {target}" in page
    # The no-JS move form and the confirm bar both post to the move URL.
    assert page.count(f'action="/play/{mover}/move"') == 2
    assert 'name="ply" value="4"' in page
    assert response_headers_private(client, mover)


def response_headers_private(client, token):
    response = client.get(f"/play/{token}")
    return "no-store" in response.headers["Cache-Control"] and "noindex" in response.headers["X-Robots-Tag"]


def test_waiting_players_page_has_no_move_controls(client, ctx):
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    other = next(t for t in toks if t != mover)
    page = page_of(client, other)
    assert f"{view['you']} is to move" in page
    assert "/move" not in page and "play-data" not in page
    assert 'class="clans-board"' in page


def test_absent_and_paused_players_are_marked(client, ctx):
    from datetime import timedelta

    from sqlmodel import col, select

    from pbem.core.db import session_scope
    from pbem.core.models import Seat
    game_id, toks = new_game(ctx)
    with session_scope(ctx.engine) as session:
        seats = session.exec(select(Seat).where(Seat.game_id == db_id(ctx, game_id)).order_by(col(Seat.position))).all()
        seats[1].autopilot_streak = 3
        seats[2].paused_until = ctx.now() + timedelta(days=2)
    page = page_of(client, toks[0])
    assert re.search(r'data-seat="1".*?badge-away[^>]*>away<', page, re.S)
    assert re.search(r'data-seat="2".*?on holiday until <time', page, re.S)


def test_get_and_head_of_a_seat_link_change_nothing(client, ctx):
    game_id, toks = new_game(ctx, start=False)
    games.accept(ctx, toks[0])
    pages = []
    before = snapshot(ctx)
    public = games.public_game(ctx, game_id)
    for t in toks:
        assert client.get(f"/play/{t}").status_code == 200
        head = client.head(f"/play/{t}")
        assert head.status_code == 200 and head.data == b""
        pages.append(t)
    assert snapshot(ctx) == before
    assert games.public_game(ctx, game_id) == public
    for t in toks:
        games.accept(ctx, t) if not games.seat_view(ctx, t)["status"] == "waiting" else None
    play(ctx, toks, 2)
    before = snapshot(ctx)
    public = games.public_game(ctx, game_id)
    for t in toks:
        assert client.get(f"/play/{t}").status_code == 200
        assert client.head(f"/play/{t}").status_code == 200
    assert client.get(f"/games/{game_id}").status_code == 200
    assert snapshot(ctx) == before
    assert games.public_game(ctx, game_id) == public


@pytest.mark.parametrize("path", ["accept", "move", "mail"])
def test_posts_without_the_form_token_are_refused_and_change_nothing(client, ctx, path):
    game_id, toks = new_game(ctx, start=path != "accept")
    token = toks[0]
    if path == "move":
        token, view = to_move(ctx, toks)
    page = page_of(client, token)
    good = csrf_from(page)
    data = {"move": "", "ply": "0", "mail": "none"}
    if path == "move":
        data["move"] = view["legal_moves"][0]
    before = snapshot(ctx)
    for sent in ({}, {"csrf_token": "wrong"}, {"csrf_token": good[:-1]}):
        response = client.post(f"/play/{token}/{path}", data={**data, **sent})
        assert response.status_code == 400
        assert "did not come from this site" in response.get_data(as_text=True)
    assert snapshot(ctx) == before
    # A request from another browser (no session) fails even with a token from a page.
    other = client.application.test_client()
    assert other.post(f"/play/{token}/{path}", data={**data, "csrf_token": good}).status_code == 400
    assert snapshot(ctx) == before


def test_a_legal_move_from_the_form_is_played_and_redirects(client, ctx):
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    token = csrf_from(page_of(client, mover))
    move = view["legal_moves"][-1]
    response = client.post(f"/play/{mover}/move", data={"csrf_token": token, "move": move, "order": "", "ply": "0"})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/play/{mover}")
    after = games.public_game(ctx, game_id)
    assert after["ply"] == 1 and after["last_move"] == move
    page = page_of(client, mover)
    assert f"Your move {move.replace('-', ' → ')} was played." in page
    assert ">Your turn<" not in page


@pytest.mark.parametrize("typed", ["{s} to {t}", " {s} {t} ", "{s}-{t}", "{s}>{t}"])
def test_moves_may_be_typed_as_people_write_them(client, ctx, typed):
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    token = csrf_from(page_of(client, mover))
    s, t = view["legal_moves"][0].split("-")
    response = client.post(f"/play/{mover}/move",
                           data={"csrf_token": token, "move": ["", typed.format(s=s, t=t)], "ply": "0"})
    assert response.status_code == 303
    assert games.public_game(ctx, game_id)["last_move"] == f"{s}-{t}"


@pytest.mark.parametrize("move, status, message", [
    ("", 422, "Choose a move first"),
    ("twelve to thirteen", 422, "is not a move"),
    ("1-60", 422, "Nothing was played."),
])
def test_bad_moves_are_refused_with_a_message_and_change_nothing(client, ctx, move, status, message):
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    token = csrf_from(page_of(client, mover))
    before = snapshot(ctx)
    response = client.post(f"/play/{mover}/move", data={"csrf_token": token, "move": move, "ply": "0"})
    assert response.status_code == status
    page = response.get_data(as_text=True)
    assert 'role="alert"' in page and message in page
    assert "Traceback" not in page
    # The page is the fresh position, still ready for a move.
    assert "play-data" in page and ">Your turn<" in page
    if move and move not in view["legal_moves"]:
        assert f'value="{move}"' in page  # what was typed is kept
    assert snapshot(ctx) == before


def test_bad_order_text_is_refused(client, ctx):
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    token = csrf_from(page_of(client, mover))
    before = snapshot(ctx)
    response = client.post(f"/play/{mover}/move",
                           data={"csrf_token": token, "move": view["legal_moves"][0], "order": "first, then", "ply": "0"})
    assert response.status_code == 422
    assert "territory numbers separated by commas" in response.get_data(as_text=True)
    assert snapshot(ctx) == before


def test_a_stale_move_shows_that_the_game_moved_on(client, ctx):
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    token = csrf_from(page_of(client, mover))
    # Meanwhile the position moves on by a whole round (someone's other tab).
    play(ctx, toks, 3)
    mover_view = games.seat_view(ctx, mover)
    assert mover_view["your_turn"] and mover_view["ply"] == 3
    stale = next(m for m in view["legal_moves"] if m in mover_view["legal_moves"])
    before = snapshot(ctx)
    response = client.post(f"/play/{mover}/move", data={"csrf_token": token, "move": stale, "ply": "0"})
    assert response.status_code == 409
    page = response.get_data(as_text=True)
    # The move to be played now, as the page's header counts it (3 moves made: move 4).
    assert "The game has moved on" in page and "it is now at move 4" in page and ">Move 4<" in page
    assert 'data-code="stale"' in page
    assert 'name="ply" value="3"' in page  # the fresh position, ready to play
    assert snapshot(ctx) == before


def test_not_your_turn_and_missing_ply_are_refused(client, ctx):
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    other = next(t for t in toks if t != mover)
    token = csrf_from(page_of(client, other))
    before = snapshot(ctx)
    response = client.post(f"/play/{other}/move", data={"csrf_token": token, "move": view["legal_moves"][0], "ply": "0"})
    assert response.status_code == 409
    assert "turn, not yours" in response.get_data(as_text=True)
    response = client.post(f"/play/{mover}/move", data={"csrf_token": token, "move": view["legal_moves"][0], "ply": "x"})
    assert response.status_code == 400
    assert "Ply must be the number of moves you saw" in response.get_data(as_text=True)
    assert snapshot(ctx) == before


def test_repeating_an_accepted_move_does_not_play_it_twice(client, ctx):
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    token = csrf_from(page_of(client, mover))
    data = {"csrf_token": token, "move": view["legal_moves"][0], "ply": "0"}
    assert client.post(f"/play/{mover}/move", data=data).status_code == 303
    assert client.post(f"/play/{mover}/move", data=data).status_code == 303
    assert games.public_game(ctx, game_id)["ply"] == 1


def test_a_move_founding_two_villages_asks_for_their_order(client, ctx):
    game_id, toks = new_game(ctx)
    huts, move, villages = two_village_position()
    set_huts(ctx, game_id, huts)
    mover, view = to_move(ctx, toks)
    assert view["founding"][move] == villages
    page = page_of(client, mover)
    data = play_data(page)
    assert data["founding"][move] == villages
    # Without JavaScript the list says which moves need an order.
    assert re.search(rf'<option value="{move}">[^<]*founds villages on {villages[0]}, {villages[1]}: give their order',
                     page)
    assert 'name="order"' in page and 'id="order-list"' in page
    token = csrf_from(page)
    order = list(reversed(villages))
    response = client.post(f"/play/{mover}/move", data={
        "csrf_token": token, "move": move, "order": f"{order[0]}, {order[1]}", "ply": str(view["ply"])})
    assert response.status_code == 303
    after = games.public_game(ctx, game_id)
    assert after["last_move"] == move
    assert [v["territory"] for v in after["villages"]] == order
    assert after["history"][-1]["villages"] == [1, 2]


def test_an_order_that_does_not_match_is_refused(client, ctx):
    game_id, toks = new_game(ctx)
    huts, move, villages = two_village_position()
    set_huts(ctx, game_id, huts)
    mover, view = to_move(ctx, toks)
    token = csrf_from(page_of(client, mover))
    before = snapshot(ctx)
    response = client.post(f"/play/{mover}/move", data={
        "csrf_token": token, "move": move, "order": f"{villages[0]}", "ply": str(view["ply"])})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "Nothing was played." in page and 'data-code="bad-order"' in page
    assert snapshot(ctx) == before


def test_finished_game_reveals_clans_scores_and_winners(client, ctx):
    game_id, toks = new_game(ctx)
    finish(ctx, game_id, toks)
    view = games.public_game(ctx, game_id)
    for t in toks:
        page = page_of(client, t)
        assert ">Game over<" in page
        marks = clan_marks(page)
        clans = [p["clan"] for p in view["players"]]
        # In the players list and in the results table.
        assert sorted(marks["players"]) == sorted(clans * 2)
        for p in view["players"]:
            assert re.search(rf'data-reveal-seat="{p["seat"]}" data-player-clan="{p["clan"]}"', page)
            assert f"<strong>{p['final_score']}</strong>" in page
        winners = view["winners"]
        assert ("share the win" if len(winners) > 1 else f"{winners[0]} wins") in page
        assert "no legal move was left" in page
        assert "/move" not in page and "Turn emails" not in page
    public = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert sorted(clan_marks(public)["players"]) == sorted([p["clan"] for p in view["players"]] * 2)


def test_a_move_after_the_end_is_refused(client, ctx):
    game_id, toks = new_game(ctx)
    finish(ctx, game_id, toks)
    token = csrf_token(client, "/")
    before = snapshot(ctx)
    response = client.post(f"/play/{toks[0]}/move", data={"csrf_token": token, "move": "1-2", "ply": "1"})
    assert response.status_code == 409
    assert "The game is over." in response.get_data(as_text=True)
    assert snapshot(ctx) == before


@pytest.mark.parametrize("token", ["x", "not-a-real-token-" + "a" * 30, "%00", "a" * 500])
def test_forged_or_unknown_seat_links_get_a_401_page(client, ctx, token):
    new_game(ctx, start=False)
    response = client.get(f"/play/{token}")
    assert response.status_code == 401
    page = response.get_data(as_text=True)
    assert "This seat link is not valid" in page and "Traceback" not in page
    assert 'href="/login"' in page
    before = snapshot(ctx)
    csrf = csrf_token(client)
    for path in ("accept", "move", "mail"):
        response = client.post(f"/play/{token}/{path}", data={"csrf_token": csrf, "move": "1-2", "ply": "0", "mail": "none"})
        assert response.status_code == 401, path
    assert snapshot(ctx) == before


def test_mail_setting_via_the_page(client, ctx):
    game_id, toks = new_game(ctx)
    page = page_of(client, toks[0])
    assert re.search(r'name="mail" value="every" checked', page)
    token = csrf_from(page)
    response = client.post(f"/play/{toks[0]}/mail", data={"csrf_token": token, "mail": "digest"})
    assert response.status_code == 303
    assert games.seat_view(ctx, toks[0])["mail"] == "digest"
    page = page_of(client, toks[0])
    assert re.search(r'name="mail" value="digest" checked', page)
    before = snapshot(ctx)
    response = client.post(f"/play/{toks[0]}/mail", data={"csrf_token": token, "mail": "hourly"})
    assert response.status_code == 422
    assert "mail must be one of" in response.get_data(as_text=True).lower()
    assert snapshot(ctx) == before


def test_turn_mail_follows_a_move_made_on_the_page(client, ctx):
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    token = csrf_from(page_of(client, mover))
    turns = len(caught(ctx, kind="turn"))
    client.post(f"/play/{mover}/move", data={"csrf_token": token, "move": view["legal_moves"][0], "ply": "0"})
    assert len(caught(ctx, kind="turn")) == turns + 1


def test_pause_the_clock_via_the_page(client, ctx):
    ctx.config["VACATION_DAYS"] = 7  # the bank pauses spend from (a person's, a year's)
    game_id, toks = new_game(ctx)
    mover, view = to_move(ctx, toks)
    page = page_of(client, mover)
    assert f'action="/play/{mover}/pause"' in page
    token = csrf_from(page)
    before = snapshot(ctx)
    for bad in ("0", "abc", str(view["vacation_days_left"] + 1)):
        response = client.post(f"/play/{mover}/pause", data={"csrf_token": token, "days": bad})
        assert response.status_code == 422, bad
        assert 'role="alert"' in response.get_data(as_text=True)
    assert snapshot(ctx) == before
    response = client.post(f"/play/{mover}/pause", data={"csrf_token": token, "days": "2"})
    assert response.status_code == 303
    after = games.seat_view(ctx, mover)
    assert after["vacation_days_left"] == view["vacation_days_left"] - 2
    assert after["deadline"] > view["deadline"]
    page = page_of(client, mover)
    assert "Your clock is paused until" in page
    assert re.search(rf'data-seat="{after["seat"]}".*?on holiday until <time', page, re.S)
