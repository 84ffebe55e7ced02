"""The lobby page's quick match form: a request by mail, confirmed on the
mailed link's page; a bad form is shown again with its refusal, nothing changed."""

from __future__ import annotations

import re
from typing import Any

from tests.support.messages import caught, parts
from tests.support.web import csrf_from, csrf_token, snapshot


def ask(client: Any, name: str, email: str, **extra: Any) -> Any:
    form = {"csrf_token": csrf_token(client, "/lobby"), "name": name, "email": email, "players": ["3"],
            "turn_hours": "24", "language": "hu", **extra}
    return client.post("/lobby/quick", data=form)


def test_three_people_on_the_form_confirm_on_their_links_and_play(client: Any, ctx: Any) -> None:
    page = client.get("/lobby").get_data(as_text=True)
    assert 'action="/lobby/quick"' in page and 'name="players"' in page
    links = []
    for name in ("Ann", "Bea", "Cy"):
        r = ask(client, name, f"{name.lower()}@example.org")
        assert r.status_code == 202 and f"{name.lower()}@example.org" in r.get_data(as_text=True)
        (mail,) = caught(ctx, f"{name.lower()}@example.org", kind="match-confirm")
        assert mail["Content-Language"].startswith("hu")
        links.append(re.search(r"https://clans\.example(/play/\S+)", parts(mail)["text"]).group(1))  # type: ignore[union-attr]
    for path in links:
        seat_page = client.get(path).get_data(as_text=True)
        r = client.post(f"{path}/accept", data={"csrf_token": csrf_from(seat_page)})
        assert r.status_code in (200, 303), r.status_code
    pages = [client.get(path).get_data(as_text=True) for path in links]
    assert all("Ann" in p and "Bea" in p and "Cy" in p for p in pages)
    assert not any("bea@example.org" in p for p in pages[0:1])


def test_a_bad_form_is_refused_on_the_lobby_page_and_changes_nothing(client: Any, ctx: Any) -> None:
    before = snapshot(ctx)
    r = ask(client, "Ann", "ann@example.org", players=[])
    assert r.status_code == 422
    page = r.get_data(as_text=True)
    assert 'id="quick-error"' in page and 'aria-invalid="true"' in page and 'value="ann@example.org"' in page
    assert ask(client, "Ann", "not an address").status_code == 422
    assert snapshot(ctx) == before


def test_a_substitute_seat_is_marked_in_the_lobby_and_taken_by_its_form(client: Any, ctx: Any) -> None:
    from pbem import games
    from tests.service.test_quick_match import ask as ask_service
    from tests.service.test_substitutes import away

    links = [ask_service(ctx, n) for n in ("Ann", "Bea", "Cy")]
    for token in links:
        games.accept(ctx, token)
    away(ctx, links[1])
    page = client.get("/lobby").get_data(as_text=True)
    game = games.seat_view(ctx, links[0])["game"]
    assert f'id="substitute-{game}"' in page and "Seats waiting for a substitute" in page
    assert "bea@example.org" not in page
    form = {"csrf_token": csrf_from(page), "name": "Dan", "email": "nope"}
    r = client.post(f"/lobby/{game}/substitute", data=form)
    assert r.status_code == 422 and 'id="substitute-error"' in r.get_data(as_text=True)
    r = client.post(f"/lobby/{game}/substitute", data={**form, "email": "dan@example.org"})
    assert r.status_code == 202
    assert caught(ctx, "dan@example.org", kind="substitute")
