"""The signed-in player's games ("My games"): each titled by the other players'
names, saying whose turn it is or how it ended, and — once over — offering
"Play again" (or the way into the rematch) as the seat page does; and the score
card, which after the reveal no longer says that owners are secret."""

from __future__ import annotations

import html
import re

from pbem import games
from tests.support.games import finish, new_game, to_move
from tests.support.web import csrf_from, sign_in


def item(page: str, game_id: str) -> str:
    """The text of the list item of one game, tags and all."""
    m = re.search(rf'<li class="card game-item[^"]*" data-game="{game_id}".*?</li>', page, re.S)
    assert m, f"game {game_id} is not listed"
    return html.unescape(m.group(0))


def test_each_game_names_the_others_and_whose_turn_or_the_result(client, ctx):
    over, over_toks = new_game(ctx)
    finish(ctx, over, over_toks)
    playing, toks = new_game(ctx, 2)
    sign_in(client, ctx, "ann@example.org")
    page = client.get("/games").get_data(as_text=True)

    now = item(page, playing)
    assert re.search(r'<h2><a href="[^"]+">Bob</a></h2>', now)  # the other player, not the id
    view = games.public_game(ctx, playing)
    mover, _ = to_move(ctx, toks)
    if games.seat_view(ctx, mover)["you"] == "Ann":
        assert "<strong>Your turn</strong>" in now
    else:
        assert f"{view['next']} is to move" in now
    # Nothing of a game in play tells a clan.
    assert "data-result" not in now and "clan" not in re.sub(r"<[^>]+>", " ", now).lower()
    assert "Play again" not in now

    ended = item(page, over)
    final = games.public_game(ctx, over)
    others = [p["name"] for p in final["players"] if p["name"] != "Ann"]  # in seat order, drawn at the start
    assert re.search(rf'<h2><a href="[^"]+">{others[0]} and {others[1]}</a></h2>', ended)
    ann = next(p for p in final["players"] if p["name"] == "Ann")
    winners = final["winners"]
    assert (f"Winner: {winners[0]}" if len(winners) == 1 else f"Winners: {winners[0]}") in ended
    assert (f"Ann (you), clan {ann['clan']}: {ann['final_score']} = "
            f"{final['clan_scores'][ann['clan']]} + {ann['chips']}") in ended
    assert f"Game {over}" in ended  # the id still matches the mail's subject line
    ann_token = next(t for t in over_toks if games.seat_view(ctx, t)["you"] == "Ann")
    assert f'action="/play/{ann_token}/rematch"' in ended and ">Play again</button>" in ended


def test_play_again_from_the_list(client, ctx):
    over, toks = new_game(ctx)
    finish(ctx, over, toks)
    sign_in(client, ctx, "ann@example.org")
    page = client.get("/games").get_data(as_text=True)
    action = re.search(r'action="(/play/[^"]+/rematch)"', item(page, over)).group(1)
    response = client.post(action, data={"csrf_token": csrf_from(page)})
    assert response.status_code == 303 and "/play/" in response.headers["Location"]
    page = client.get("/games").get_data(as_text=True)
    ended = item(page, over)
    assert "Play again</button>" not in ended
    link = re.search(r'<a class="button button-primary" href="([^"]+)" data-rematch-seat>', ended).group(1)
    rematch = next(g for g in re.findall(r'data-game="(\w+)"', page) if g != over)
    # The link is Ann's own seat in the rematch.
    seat = games.seat_view(ctx, link.rsplit("/", 1)[1])
    assert seat["game"] == rematch and seat["you"] == "Ann"


def test_the_score_card_after_the_reveal(client, ctx):
    game_id, toks = new_game(ctx)
    page = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    assert "who owns which clan is not" in page and "data-owner" not in page
    finish(ctx, game_id, toks)
    view = games.public_game(ctx, game_id)
    for path in (f"/play/{toks[0]}", f"/games/{game_id}"):
        page = client.get(path).get_data(as_text=True)
        assert "who owns which clan is not" not in page
        assert "The game is over, so every clan is shown." in page
        card = page[page.index('id="scores-title"'):]
        card = card[:card.index("</section>")]
        owners = [(clan, owner[0]) for clan, row in re.findall(r'data-track="(\w+)">(.*?)</li>', card, re.S)
                  if (owner := re.findall(r"data-owner>([^<]+)<", row))]
        assert sorted(owners) == sorted((p["clan"], p["name"]) for p in view["players"])



def test_the_list_speaks_the_readers_language(client, ctx):
    over, toks = new_game(ctx)
    finish(ctx, over, toks)
    playing, _ = new_game(ctx, 2)
    sign_in(client, ctx, "ann@example.org")
    page = client.get("/games", headers={"Accept-Language": "hu"}).get_data(as_text=True)
    ended, now = item(page, over), item(page, playing)
    assert re.search(r"<strong>Győztes(ek)?: ", ended) and "Ann (te), " in ended
    assert "Winner" not in ended and "is to move" not in now and "Your turn" not in now
    assert "következik" in now or "Te következel" in now
