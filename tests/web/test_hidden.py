"""Hidden information: a seat page shows its own clan and nothing about anyone
else's; the public page and API show no clan at all until the end."""

from __future__ import annotations

import re

from pbem import games
from pbem.rules.tables import CLANS
from tests.support.games import finish, game_state, new_game, play, set_state, to_move
from tests.support.web import clan_marks


def _players_section(page: str) -> str:
    m = re.search(r'<ul class="players" data-section="players">(.*?)</ul>', page, re.S)
    assert m
    return m.group(1)


#: The value of a form's hidden CSRF field.
_FORM_TOKEN = re.compile(r'(name="csrf_token" value=")[^"]*(")')


def _main(page: str) -> str:
    """The page's <main>, with the CSRF field's value blanked out: the token is
    signed at each render (Flask-WTF puts the time in it), so it changes from one
    request to the next, and it is the browser session's, carrying no game
    information."""
    main = page.split('<main', 1)[1].split('</main>', 1)[0]
    return _FORM_TOKEN.sub(r"\1\2", main)


def test_each_seat_sees_its_own_clan_and_no_one_elses(client, ctx):
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 5)
    clans = game_state(ctx, game_id)["clans"]
    for token in toks:
        seat = games.seat_view(ctx, token)["seat"]
        page = client.get(f"/play/{token}").get_data(as_text=True)
        marks = clan_marks(page)
        assert marks == {"yours": [clans[seat]], "players": []}
        assert re.search(rf'data-your-clan="{clans[seat]}"[^>]*>.*?Your clan: <strong class="your-clan-name">'
                         rf'{clans[seat]}</strong>\s*<span class="secret-note">— only you can see this', page, re.S)
        # No clan word next to any player, not even the viewer's own.
        players = _players_section(page)
        for clan in CLANS:
            assert clan not in players, (seat, clan)
        # The clan is not in the title or the move data either.
        title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
        assert not any(c in title for c in CLANS)


def test_a_seat_page_does_not_depend_on_the_other_seats_clans(client, ctx):
    """Non-interference: deal the other players different clans and the page is
    byte for byte the same; change the viewer's own and it is not."""
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 4)
    mover, _ = to_move(ctx, toks)
    state = game_state(ctx, game_id)
    clans = state["clans"]
    unused = [c for c in CLANS if c not in clans]
    # Seats are numbered from the first player once the game starts.
    by_seat = {games.seat_view(ctx, t)["seat"]: t for t in toks}

    def pages() -> list[str]:
        out = [_main(client.get(f"/play/{by_seat[s]}").get_data(as_text=True)) for s in range(3)]
        out.append(_main(client.get(f"/games/{game_id}").get_data(as_text=True)))
        out.append(client.get(f"/api/v1/games/{game_id}").get_data(as_text=True))
        # The watch page's poll, and the replay a running game does not have.
        out.append(client.get(f"/games/{game_id}/version").get_data(as_text=True))
        out.append(_main(client.get(f"/games/{game_id}/replay").get_data(as_text=True)))
        out.append(_main(client.get(f"/games/{game_id}/replay?ply=2&part=step").get_data(as_text=True)))
        return out

    original = pages()
    for viewer in range(3):
        others = [i for i in range(3) if i != viewer]
        for dealt in ([clans[others[1]], clans[others[0]]], [unused[0], unused[1]]):
            changed = list(clans)
            changed[others[0]], changed[others[1]] = dealt
            set_state(ctx, game_id, {**state, "clans": changed})
            now = pages()
            assert now[viewer] == original[viewer], (viewer, changed)
            assert now[3:] == original[3:]
            # The viewer's own clan is the one thing that shows.
            assert now[others[0]] != original[others[0]]
    set_state(ctx, game_id, state)
    assert pages() == original


def test_public_pages_and_api_show_no_clan_before_the_end(client, ctx):
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 3)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert clan_marks(page) == {"yours": [], "players": []}
    assert "Your clan" not in page
    api = client.get(f"/api/v1/games/{game_id}").get_json()
    assert all(p["clan"] is None for p in api["players"])
    # The watch page polls a version made of public facts only, and a running
    # game's replay (which would name each village's scorers) is refused.
    assert set(client.get(f"/games/{game_id}/version").get_json()) == {"game", "status", "ply", "version"}
    for url in (f"/games/{game_id}/replay", f"/games/{game_id}/replay?ply=1&part=step"):
        answer = client.get(url)
        assert answer.status_code == 404
        assert clan_marks(answer.get_data(as_text=True)) == {"yours": [], "players": []}


def test_after_the_end_every_clan_is_shown_to_everyone(client, ctx):
    game_id, toks = new_game(ctx, 3)
    finish(ctx, game_id, toks)
    clans = game_state(ctx, game_id)["clans"]
    view = games.public_game(ctx, game_id)
    for token in toks:
        seat = games.seat_view(ctx, token)["seat"]
        page = client.get(f"/play/{token}").get_data(as_text=True)
        marks = clan_marks(page)
        assert marks["yours"] == [clans[seat]]
        for s, clan in enumerate(clans):
            assert re.search(rf'data-seat="{s}" data-player-clan="{clan}"', page)
            assert re.search(rf'data-reveal-seat="{s}" data-player-clan="{clan}"', page)
    api = client.get(f"/api/v1/games/{game_id}").get_json()
    assert [p["clan"] for p in api["players"]] == clans == [p["clan"] for p in view["players"]]
