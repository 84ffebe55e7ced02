"""Web Push at the edges: the key, subscribing and unsubscribing a seat with its
bearer token (strict 422s that change nothing, 401 without a token, 404
``push-off`` without a key), the manifest, its icons and the service worker
with their content types, the pages linking the manifest, and the seat page's
push section and its CSRF-protected setting."""

from __future__ import annotations

import json
import re
from typing import Any

from pbem.core import vapid
from pbem.core.models import PushMode
from pbem.drawing.style import PAGE_PROPERTIES, THEME
from tests.support.games import new_game
from tests.support.push import Browser
from tests.support.receiver import Receiver
from tests.support.web import csrf_token, snapshot
from pbem.table import push


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_key_is_the_configured_ones_public_key(push_app: Any, pctx: Any) -> None:
    answer = push_app.test_client().get("/api/v1/push/key")
    assert answer.status_code == 200
    assert answer.get_json() == {"public_key": vapid.public_key(vapid.configured(pctx.config))}  # type: ignore[arg-type]
    raw = vapid.b64url_decode(answer.get_json()["public_key"])
    assert len(raw) == 65 and raw[0] == 4


def test_a_seat_subscribes_and_unsubscribes_with_its_token(push_app: Any, pctx: Any, receiver: Receiver) -> None:
    client = push_app.test_client()
    _, toks = new_game(pctx, 2)
    body = Browser(receiver.url).subscription()
    answer = client.post("/api/v1/seat/push", json=body, headers=_bearer(toks[0]))
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json() == {"subscribed": True, "mode": PushMode.MAIL, "minutes": 30}
    assert push.settings_of(pctx, toks[0]).subscribed and not push.settings_of(pctx, toks[1]).subscribed
    answer = client.delete("/api/v1/seat/push", headers=_bearer(toks[0]))
    assert answer.status_code == 200 and answer.get_json()["subscribed"] is False
    assert not push.settings_of(pctx, toks[0]).subscribed
    assert client.delete("/api/v1/seat/push", headers=_bearer(toks[0])).status_code == 200  # none is no error
    # No token, or a wrong one: 401 with the scheme.
    refused = client.post("/api/v1/seat/push", json=body)
    assert refused.status_code == 401 and "Bearer" in refused.headers["WWW-Authenticate"]
    assert client.delete("/api/v1/seat/push", headers=_bearer("x" * 43)).status_code == 401


def test_a_bad_subscription_is_422_naming_the_field_and_changes_nothing(push_app: Any, pctx: Any) -> None:
    client = push_app.test_client()
    _, toks = new_game(pctx, 2)
    good = Browser("https://push.clans.example/x").subscription()
    before = snapshot(pctx)
    for body, field in [({**good, "keys": {"p256dh": good["keys"]["p256dh"]}}, "keys.auth"),
                        ({**good, "endpoint": "https://192.168.1.2/x"}, "endpoint"),
                        ({"endpoint": good["endpoint"], "keys": good["keys"], "foo": 1}, "foo")]:
        answer = client.post("/api/v1/seat/push", json=body, headers=_bearer(toks[0]))
        assert answer.status_code == 422
        error = answer.get_json()["error"]
        assert error["code"] == "invalid-push-subscription" and error["message"].startswith(field), error
    assert client.post("/api/v1/seat/push", data="[]", content_type="application/json",
                       headers=_bearer(toks[0])).get_json()["error"]["code"] == "bad-json"
    assert snapshot(pctx) == before


def test_without_a_key_push_is_off(client: Any, ctx: Any) -> None:
    _, toks = new_game(ctx, 2)
    answer = client.get("/api/v1/push/key")
    assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "push-off"
    answer = client.post("/api/v1/seat/push", json=Browser("https://push.clans.example/x").subscription(),
                         headers=_bearer(toks[0]))
    assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "push-off"
    page = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    assert 'id="push"' not in page and "push.js" not in page
    assert 'rel="manifest"' in page  # the app installs all the same


def test_the_manifest_its_icons_and_the_service_worker(push_app: Any) -> None:
    client = push_app.test_client()
    answer = client.get("/manifest.webmanifest")
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "application/manifest+json"
    manifest = json.loads(answer.get_data())
    assert manifest["name"] == "Clans by Mail" and manifest["display"] == "standalone"
    assert manifest["start_url"] == "/" and manifest["theme_color"] == THEME
    assert manifest["background_color"] == PAGE_PROPERTIES["--bg"]
    sizes = set()
    for icon in manifest["icons"]:
        png = client.get(icon["src"])
        assert png.status_code == 200 and png.headers["Content-Type"] == "image/png"
        assert png.get_data().startswith(b"\x89PNG\r\n\x1a\n")
        sizes.add((icon["sizes"], icon["purpose"]))
    assert sizes == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    assert client.get("/icons/100.png").status_code == 404
    worker = client.get("/sw.js")
    assert worker.status_code == 200 and worker.headers["Content-Type"].startswith("text/javascript")
    assert worker.headers["Service-Worker-Allowed"] == "/" and worker.headers["Cache-Control"] == "no-cache"
    text = worker.get_data(as_text=True)
    assert "showNotification" in text and "openWindow" in text
    assert 'rel="manifest" href="/manifest.webmanifest"' in client.get("/").get_data(as_text=True)


def _section(page: str) -> str:
    found = re.search(r'<section class="card settings push-settings" id="push".*?</section>', page, re.S)
    assert found, "no push section on the page"
    return found.group(0)


def test_the_seat_page_offers_push_and_saves_its_mode(push_app: Any, pctx: Any) -> None:
    client = push_app.test_client()
    _, toks = new_game(pctx, 2)
    section = _section(client.get(f"/play/{toks[0]}").get_data(as_text=True))
    assert 'data-key="/api/v1/push/key"' in section and 'data-worker="/sw.js"' in section
    assert 'value="mail" checked' in section
    token = csrf_token(client, f"/play/{toks[0]}")
    answer = client.post(f"/play/{toks[0]}/push", data={"csrf_token": token, "mode": "push-first", "minutes": "60"})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("#push")
    settings = push.settings_of(pctx, toks[0])
    assert (settings.mode, settings.minutes) == (PushMode.PUSH_FIRST, 60)
    page = client.get(f"/play/{toks[0]}").get_data(as_text=True)
    assert 'value="push-first" checked' in _section(page) and '<option value="60" selected>' in _section(page)
    # Refused: a mode or a wait it does not offer, and a form without its token.
    before = snapshot(pctx)
    answer = client.post(f"/play/{toks[0]}/push", data={"csrf_token": token, "mode": "loud", "minutes": "60"})
    assert answer.status_code == 422 and "Nothing was changed" in answer.get_data(as_text=True)
    answer = client.post(f"/play/{toks[0]}/push", data={"csrf_token": token, "mode": "mail", "minutes": "7"})
    assert answer.status_code == 422
    assert client.post(f"/play/{toks[0]}/push", data={"mode": "mail", "minutes": "30"}).status_code == 400
    assert snapshot(pctx) == before
