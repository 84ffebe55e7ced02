"""The seat page's nudge button and notes form, and the API's ``/seat/nudge`` and
``/seat/notes``: the button shows only when a nudge may go (else when it may, or
that the mover is away until when),
every refusal changes nothing, and the notes are on no page but their own seat's."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from pbem.core.db import session_scope
from pbem.core.models import Outbox
from pbem.core.outbox import OutboxKind
from tests.support.clock import frozen_clock
from tests.support.games import new_game, play, to_move
from tests.support.web import csrf_token, snapshot
from pbem import games

PLAN = "Keep blue away from 12 (plan-Xw9)"


def _nudges(ctx: Any) -> int:
    with session_scope(ctx.engine) as session:
        return len(session.exec(select(Outbox.id).where(Outbox.kind == OutboxKind.NUDGE)).all())


def _waiting(ctx: Any, toks: list[str]) -> tuple[str, str, str]:
    mover, view = to_move(ctx, toks)
    return mover, next(t for t in toks if t != mover), view["you"]


def test_the_page_says_when_a_nudge_may_go_then_offers_the_button(client: Any, ctx: Any) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other, name = _waiting(ctx, toks)
    page = client.get(f"/play/{other}").get_data(as_text=True)
    assert 'id="nudge"' in page and "data-nudge-at=" in page and f"/play/{other}/nudge" not in page
    assert 'id="nudge"' not in client.get(f"/play/{mover}").get_data(as_text=True)  # own turn
    now.advance(hours=24)
    page = client.get(f"/play/{other}").get_data(as_text=True)
    assert f'action="/play/{other}/nudge"' in page and f"Nudge {name}" in page
    sent = client.post(f"/play/{other}/nudge", data={"csrf_token": csrf_token(client, f"/play/{other}")})
    assert sent.status_code == 303 and sent.headers["Location"].endswith(f"/play/{other}#nudge")
    assert _nudges(ctx) == 1
    page = client.get(f"/play/{other}").get_data(as_text=True)
    assert f"We emailed {name} that you are waiting for their move." in page and "data-nudge-at=" in page
    # Again at once: refused on the page, with when to try again, and nothing sent.
    before = snapshot(ctx)
    again = client.post(f"/play/{other}/nudge", data={"csrf_token": csrf_token(client, f"/play/{other}")})
    assert again.status_code == 429 and int(again.headers["Retry-After"]) > 23 * 3600
    assert 'data-code="nudge-too-soon"' in again.get_data(as_text=True) or "too soon" in again.get_data(as_text=True)
    assert snapshot(ctx) == before


def test_a_nudge_on_your_own_turn_or_without_the_form_token_is_refused(client: Any, ctx: Any) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other, _ = _waiting(ctx, toks)
    now.advance(days=2)
    before = snapshot(ctx)
    own = client.post(f"/play/{mover}/nudge", data={"csrf_token": csrf_token(client, f"/play/{mover}")})
    assert own.status_code == 409 and "nobody is waiting on you" in own.get_data(as_text=True)
    assert client.post(f"/play/{other}/nudge", data={}).status_code == 400
    assert snapshot(ctx) == before


def test_the_api_nudges_once_and_answers_too_soon_with_retry_after(client: Any, ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    mover, other, name = _waiting(ctx, toks)
    early = client.post("/api/v1/seat/nudge", headers={"Authorization": f"Bearer {other}"})
    assert early.status_code == 429 and early.get_json()["error"]["code"] == "nudge-too-soon"
    assert int(early.headers["Retry-After"]) == 24 * 3600
    own = client.post("/api/v1/seat/nudge", headers={"Authorization": f"Bearer {mover}"})
    assert own.status_code == 409 and own.get_json()["error"]["code"] == "your-turn"
    now.advance(hours=24)
    sent = client.post("/api/v1/seat/nudge", headers={"Authorization": f"Bearer {other}"})
    assert sent.status_code == 202 and sent.get_json()["nudged"] == name and sent.get_json()["game"] == game_id
    assert _nudges(ctx) == 1
    bad = client.post("/api/v1/seat/nudge", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and bad.headers["WWW-Authenticate"].startswith("Bearer")


def test_a_mover_who_is_away_gets_no_button_and_no_nudge_from_the_api(client: Any, ctx: Any) -> None:
    ctx.config["VACATION_DAYS"] = 7  # the bank pauses spend from
    now = frozen_clock(ctx)
    _, toks = new_game(ctx)
    mover, other, name = _waiting(ctx, toks)
    now.advance(hours=24)
    games.pause_clock(ctx, mover, 2)
    # The page says why instead of offering the button.
    page = client.get(f"/play/{other}").get_data(as_text=True)
    assert f'action="/play/{other}/nudge"' not in page and "data-away-until=" in page
    assert f"{name} is away until " in page and "; you can nudge them after that." in page
    games.set_language(ctx, other, "hu", "Europe/Budapest")
    page = client.get(f"/play/{other}").get_data(as_text=True)
    assert f"{name} szabadságon van (vége: " in page and "you can nudge them" not in page
    before = snapshot(ctx)
    api = client.post("/api/v1/seat/nudge", headers={"Authorization": f"Bearer {other}"})
    assert api.status_code == 409 and api.get_json()["error"]["code"] == "mover-away"
    assert api.get_json()["error"]["message"].startswith(f"{name} is away until ")
    # The form sent anyway (a page left open): refused on the page, in its reader's language.
    form = client.post(f"/play/{other}/nudge", data={"csrf_token": csrf_token(client, f"/play/{other}")})
    assert form.status_code == 409 and f"{name} szabadságon van" in form.get_data(as_text=True)
    assert snapshot(ctx) == before and _nudges(ctx) == 0
    # Back: the button, and the nudge goes.
    now.advance(days=2, minutes=1)
    assert f'action="/play/{other}/nudge"' in client.get(f"/play/{other}").get_data(as_text=True)
    sent = client.post("/api/v1/seat/nudge", headers={"Authorization": f"Bearer {other}"})
    assert sent.status_code == 202 and _nudges(ctx) == 1


def test_notes_are_kept_from_the_page_and_shown_on_no_other(client: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx)
    play(ctx, toks, 2)
    saved = client.post(f"/play/{toks[0]}/notes", data={
        "csrf_token": csrf_token(client, f"/play/{toks[0]}"), "notes": PLAN + "\r\n<script>x</script>",
        "in_turn_mail": "1"})
    assert saved.status_code == 303 and saved.headers["Location"].endswith("#notes")
    own = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    assert PLAN in own and "&lt;script&gt;x&lt;/script&gt;" in own and "<script>x</script>" not in own
    assert 'id="notes-in-mail" name="in_turn_mail" value="1" checked' in own
    assert games.notes(ctx, toks[0])["in_turn_mail"]
    others = [client.get(f"/play/{t}").get_data(as_text=True) for t in toks[1:]]
    others += [client.get(f"/games/{game_id}").get_data(as_text=True),
               client.get(f"/api/v1/games/{game_id}").get_data(as_text=True),
               client.get(f"/api/v1/games/{game_id}/record").get_data(as_text=True),
               client.get(f"/games/{game_id}/record.json").get_data(as_text=True),
               client.get(f"/play/{toks[0]}/board.svg").get_data(as_text=True)]
    assert all("plan-Xw9" not in p for p in others)
    for t in toks:
        assert "plan-Xw9" not in client.get("/api/v1/seat", headers={"Authorization": f"Bearer {t}"}).get_data(
            as_text=True)


def test_notes_too_long_are_refused_on_the_page_keeping_what_was_typed(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    games.set_notes(ctx, toks[0], "kept")
    before = snapshot(ctx)
    refused = client.post(f"/play/{toks[0]}/notes", data={
        "csrf_token": csrf_token(client, f"/play/{toks[0]}"), "notes": "z" * 4001})
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "4001 characters long" in page and "z" * 4001 in page
    assert snapshot(ctx) == before
    assert client.post(f"/play/{toks[0]}/notes", data={"notes": "x"}).status_code == 400  # no form token


def test_the_api_keeps_and_reads_the_notes_of_its_own_seat_only(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    put = client.put("/api/v1/seat/notes", json={"text": PLAN, "in_turn_mail": True},
                     headers={"Authorization": f"Bearer {toks[1]}"})
    assert put.status_code == 200 and put.get_json()["text"] == PLAN and put.get_json()["in_turn_mail"] is True
    got = client.get("/api/v1/seat/notes", headers={"Authorization": f"Bearer {toks[1]}"}).get_json()
    assert got == put.get_json()
    assert client.get("/api/v1/seat/notes", headers={"Authorization": f"Bearer {toks[0]}"}).get_json()["text"] == ""
    too_long = client.put("/api/v1/seat/notes", json={"text": "x" * 4001}, headers={"Authorization": f"Bearer {toks[1]}"})
    assert too_long.status_code == 422 and too_long.get_json()["error"]["code"] == "notes-too-long"
    nul = client.put("/api/v1/seat/notes", json={"text": "a\u0000b"}, headers={"Authorization": f"Bearer {toks[1]}"})
    assert nul.status_code == 422 and nul.get_json()["error"]["code"] == "bad-text"
    assert client.get("/api/v1/seat/notes", headers={"Authorization": f"Bearer {toks[1]}"}).get_json() == got
    assert client.get("/api/v1/seat/notes").status_code == 401
