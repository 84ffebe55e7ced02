"""Webhooks on the seat page and in the API: adding one (the json secret shown
once), the list, removing one's own, the Discord user id; refusals with their
status and nothing stored; a forged token is 401; the demo's catcher."""

from __future__ import annotations

import html

import re
from typing import Any

from pbem.table import webhooks
from tests.support.games import new_game, play
from tests.support.receiver import Receiver
from tests.support.web import csrf_token, snapshot
from pbem import games


def _section(page: str) -> str:
    m = re.search(r'<section class="card webhooks" id="webhooks".*?</section>', page, re.S)
    assert m, "no webhooks on the page"
    return m.group(0)


def _post(client: Any, token: str, path: str, **data: str) -> Any:
    return client.post(f"/play/{token}{path}", data={"csrf_token": csrf_token(client, f"/play/{token}"), **data})


def test_a_player_adds_a_json_webhook_on_the_page_and_sees_its_secret_once(hook_app: Any, hctx: Any,
                                                                           receiver: Receiver) -> None:
    client = hook_app.test_client()
    _, toks = new_game(hctx)
    assert "No webhooks yet." in _section(client.get(f"/play/{toks[0]}").get_data(as_text=True))
    response = _post(client, toks[0], "/webhooks", kind="json", url=f"  {receiver.url} ")
    assert response.status_code == 200
    section = _section(response.get_data(as_text=True))
    secret = re.search(r'<code class="webhook-secret" data-webhook-secret>([^<]+)</code>', section)
    assert secret, section
    assert "127.0.0.1" in section and "set by you" in section
    # The secret is the one the posts are signed with, and it is never shown again.
    play(hctx, toks, 1)
    assert receiver.posts[-1].headers["x-pbem-signature"] == webhooks.signature(secret.group(1),
                                                                                 receiver.posts[-1].body)
    again = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    assert secret.group(1) not in again and "data-webhook-secret" not in again
    # Another player sees that there is one, and who set it, but not its address.
    other = _section(hook_app.test_client().get(f"/play/{toks[1]}").get_data(as_text=True))
    name = games.seat_view(hctx, toks[0])["you"]
    assert f"set by {name}" in other and receiver.url not in other and "Remove" not in other


def test_a_bad_address_on_the_page_is_refused_and_stores_nothing(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    token = csrf_token(client, f"/play/{toks[0]}")
    before = snapshot(ctx)
    for url, why in [("http://example.org/hook", "must start with https://"),
                     ("https://127.0.0.1/hook", "private or local network"),
                     ("https://localhost:8443/hook", "private or local network"),
                     ("not a url", "ASCII without spaces")]:
        response = client.post(f"/play/{toks[0]}/webhooks", data={"csrf_token": token, "kind": "json", "url": url})
        assert response.status_code == 422, url
        section = _section(response.get_data(as_text=True))
        assert why in section and 'aria-invalid="true"' in section
        assert 'data-code="invalid-webhook-url"' in section
    response = client.post(f"/play/{toks[0]}/webhooks", data={"csrf_token": token, "kind": "irc",
                                                              "url": "https://93.184.215.14/"})
    assert response.status_code == 422 and 'data-code="invalid-webhook-kind"' in response.get_data(as_text=True)
    assert snapshot(ctx) == before


def test_the_forms_need_their_token_and_a_real_seat(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    before = snapshot(ctx)
    no_form_token = client.post(f"/play/{toks[0]}/webhooks", data={"kind": "json", "url": "https://93.184.215.14/"})
    assert no_form_token.status_code == 400
    token = csrf_token(client, f"/play/{toks[0]}")
    forged = client.post(f"/play/{'x' * 43}/webhooks",
                         data={"csrf_token": token, "kind": "json", "url": "https://93.184.215.14/"})
    assert forged.status_code == 401
    assert snapshot(ctx) == before


def test_a_player_removes_their_own_webhook_and_only_theirs(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    made = webhooks.add_webhook(ctx, toks[0], "discord", "https://93.184.215.14/api/webhooks/1/x")
    hook_id = made.webhook["id"]
    assert made.secret is None  # only json webhooks sign
    refused = _post(client, toks[1], f"/webhooks/{hook_id}/remove")
    assert refused.status_code == 404
    assert len(webhooks.webhooks_of(ctx, toks[0])["webhooks"]) == 1
    removed = _post(client, toks[0], f"/webhooks/{hook_id}/remove")
    assert removed.status_code == 303 and removed.headers["Location"].endswith("#webhooks")
    assert webhooks.webhooks_of(ctx, toks[0])["webhooks"] == []


def test_the_discord_user_id_is_saved_digits_only(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    saved = _post(client, toks[0], "/discord", discord_id=" 123456789012345678 ")
    assert saved.status_code == 303
    assert webhooks.webhooks_of(ctx, toks[0])["discord_id"] == "123456789012345678"
    page = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    assert 'value="123456789012345678"' in _section(page)
    for bad in ("@ann", "12345", "1234567890123456789012", "<@123456789012345678>"):
        refused = _post(client, toks[0], "/discord", discord_id=bad)
        assert refused.status_code == 422, bad
        # The reason stands in the Discord form, by its field, with what was typed.
        section = _section(refused.get_data(as_text=True))
        discord_form = section[section.index('class="discord-form"'):]
        assert 'id="discord-error"' in discord_form and 'aria-invalid="true"' in discord_form, bad
        assert 'id="webhook-error"' not in section and f'value="{html.escape(bad)}"' in discord_form, bad
    assert webhooks.webhooks_of(ctx, toks[0])["discord_id"] == "123456789012345678"
    assert _post(client, toks[0], "/discord", discord_id="").status_code == 303
    assert webhooks.webhooks_of(ctx, toks[0])["discord_id"] is None


def test_a_game_takes_five_webhooks_and_a_seat_a_few_per_hour(ctx: Any) -> None:
    _, toks = new_game(ctx)
    for n in range(webhooks.MAX_PER_GAME):
        webhooks.add_webhook(ctx, toks[n % 3], "slack", f"https://93.184.215.14/hooks/{n}")
    try:
        webhooks.add_webhook(ctx, toks[0], "slack", "https://93.184.215.14/hooks/more")
    except Exception as e:  # noqa: BLE001 - the refusal is what is checked
        assert getattr(e, "code", None) == "too-many-webhooks" and getattr(e, "status", None) == 409
    else:
        raise AssertionError("a sixth webhook was taken")


def test_webhooks_wait_for_acceptance_and_stop_at_the_end(ctx: Any) -> None:
    from tests.support.games import finish

    game_id, toks = new_game(ctx, start=False)
    for token, code in [(toks[1], "not-accepted")]:
        try:
            webhooks.add_webhook(ctx, token, "json", "https://93.184.215.14/")
        except Exception as e:  # noqa: BLE001
            assert getattr(e, "code", None) == code
        else:
            raise AssertionError("taken")
    for t in toks[1:]:
        games.accept(ctx, t)
    finish(ctx, game_id, toks)
    try:
        webhooks.add_webhook(ctx, toks[0], "json", "https://93.184.215.14/")
    except Exception as e:  # noqa: BLE001
        assert getattr(e, "code", None) == "game-over"
    else:
        raise AssertionError("taken after the end")


# -- the API -----------------------------------------------------------------------


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_api_adds_lists_and_removes_webhooks(hook_app: Any, hctx: Any, receiver: Receiver) -> None:
    client = hook_app.test_client()
    _, toks = new_game(hctx)
    made = client.post("/api/v1/seat/webhooks", json={"kind": "json", "url": receiver.url}, headers=_bearer(toks[0]))
    assert made.status_code == 201
    body = made.get_json()
    assert body["secret"] and body["webhook"]["url"] == receiver.url and body["webhook"]["status"] == "live"
    listing = client.get("/api/v1/seat/webhooks", headers=_bearer(toks[1])).get_json()
    assert [h["id"] for h in listing["webhooks"]] == [body["webhook"]["id"]]
    assert listing["webhooks"][0]["url"] is None and listing["discord_id"] is None
    assert "secret" not in str(listing)
    discord = client.post("/api/v1/seat/discord", json={"discord_id": "123456789012345678"},
                          headers=_bearer(toks[1]))
    assert discord.status_code == 200 and discord.get_json()["discord_id"] == "123456789012345678"
    not_theirs = client.delete(f"/api/v1/seat/webhooks/{body['webhook']['id']}", headers=_bearer(toks[1]))
    assert not_theirs.status_code == 404 and not_theirs.get_json()["error"]["code"] == "not-found"
    gone = client.delete(f"/api/v1/seat/webhooks/{body['webhook']['id']}", headers=_bearer(toks[0]))
    assert gone.status_code == 200 and gone.get_json()["webhooks"] == []


def test_the_api_refuses_forged_tokens_and_bad_addresses_storing_nothing(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx)
    before = snapshot(ctx)
    forged = client.post("/api/v1/seat/webhooks", json={"kind": "json", "url": "https://93.184.215.14/"},
                         headers=_bearer("x" * 43))
    assert forged.status_code == 401 and forged.headers["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/api/v1/seat/webhooks", headers=_bearer("y" * 43)).status_code == 401
    assert client.delete("/api/v1/seat/webhooks/1").status_code == 401
    for body, code in [({"kind": "json", "url": "https://10.0.0.1/hook"}, "invalid-webhook-url"),
                       ({"kind": "json", "url": "http://93.184.215.14/"}, "invalid-webhook-url"),
                       ({"kind": "json", "url": "https://[::ffff:127.0.0.1]/"}, "invalid-webhook-url"),
                       ({"kind": "teams", "url": "https://93.184.215.14/"}, "invalid-webhook-kind"),
                       ({"kind": "json"}, "invalid-webhook-url")]:
        refused = client.post("/api/v1/seat/webhooks", json=body, headers=_bearer(toks[0]))
        assert refused.status_code == 422 and refused.get_json()["error"]["code"] == code, body
    assert client.post("/api/v1/seat/discord", json={"discord_id": 5}, headers=_bearer(toks[0])).status_code == 422
    assert snapshot(ctx) == before


def test_new_webhooks_are_rate_limited_per_seat(database_url: str) -> None:
    from pbem.web import create_app
    from tests.support.config import app_config

    app = create_app(app_config(database_url, LIMIT_WEBHOOKS="2 per hour"))
    try:
        ctx = app.extensions["pbem"]
        client = app.test_client()
        _, toks = new_game(ctx)
        answers = [client.post("/api/v1/seat/webhooks", json={"kind": "slack", "url": f"https://93.184.215.14/{n}"},
                               headers=_bearer(toks[0])) for n in range(3)]
        assert [a.status_code for a in answers] == [201, 201, 429]
        assert answers[2].get_json()["error"]["code"] == "rate-limited" and answers[2].headers["Retry-After"]
        assert len(webhooks.webhooks_of(ctx, toks[0])["webhooks"]) == 2
    finally:
        app.extensions["pbem"].engine.dispose()


# -- the demo's catcher ----------------------------------------------------------


def test_the_catcher_exists_only_with_the_mailbox_and_checks_signatures(database_url: str, client: Any) -> None:
    from pbem.web import create_app
    from tests.support.config import app_config

    assert client.get("/webhook-catcher/").status_code == 404
    app = create_app(app_config(database_url, MAILBOX=True, BASE_URL="http://127.0.0.1:5000"))
    try:
        ctx = app.extensions["pbem"]
        demo = app.test_client()
        game_id, toks = new_game(ctx)
        made = webhooks.add_webhook(ctx, toks[0], "json", "https://93.184.215.14/")
        assert made.secret
        body = ('{"game":"%s","event":"turn","ply":1,"to_move":"Ann","url":"x"}' % game_id).encode()
        good = demo.post("/webhook-catcher/", data=body, content_type="application/json",
                         headers={"X-PBEM-Signature": webhooks.signature(made.secret, body)})
        bad = demo.post("/webhook-catcher/", data=body, content_type="application/json",
                        headers={"X-PBEM-Signature": "sha256=00"})
        assert good.status_code == bad.status_code == 204
        page = demo.get("/webhook-catcher/").get_data(as_text=True)
        assert page.count('data-signed="yes"') == 1 and page.count('data-signed="no"') == 1
    finally:
        app.extensions["pbem"].engine.dispose()


def test_a_seat_the_computer_plays_gets_409_for_webhooks_and_discord(hook_app: Any, hctx: Any,
                                                                      receiver: Receiver) -> None:
    client = hook_app.test_client()
    _, toks = new_game(hctx)
    games.hand_to_computer(hctx, toks[1], "medium")
    before = snapshot(hctx)
    added = _post(client, toks[1], "/webhooks", kind="json", url=receiver.url)
    assert added.status_code == 409 and 'data-code="computer-seat"' in added.get_data(as_text=True)
    assert _post(client, toks[1], "/discord", discord_id="123456789012345678").status_code == 409
    assert snapshot(hctx) == before


def test_the_page_shows_the_category_of_the_last_error_only(hook_app: Any, hctx: Any, receiver: Receiver) -> None:
    client = hook_app.test_client()
    _, toks = new_game(hctx)
    webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    receiver.status, receiver.answer = 404, b"<b>stack trace from db-03.corp</b>"
    play(hctx, toks, 1)
    section = _section(client.get(f"/play/{toks[0]}").get_data(as_text=True))
    assert "Last error: HTTP 404" in section and "db-03" not in section
