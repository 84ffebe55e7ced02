"""Web Push in a real browser (headless Chromium on the live server).

Chromium's own push service (Google's FCM) cannot be reached here, so the test
stands in for it at one point only: ``PushManager.prototype.subscribe`` is
replaced (before the page loads) by one that returns a subscription whose
endpoint is a local HTTP server and whose keys are a key pair the test made.
Everything else is the browser's and the page's own:

- the seat page offers the switch; ``navigator.serviceWorker.register('/sw.js')``
  succeeds and the worker activates with the whole site as its scope;
- clicking "Turn notifications on" asks for permission (granted by the test),
  fetches the VAPID key, calls ``subscribe`` with it as ``applicationServerKey``
  (checked: the key the API gives), and posts the subscription's JSON with the
  seat token (``POST /api/v1/seat/push``): the service stores it;
- the other player's move sends an encrypted push to the local endpoint, which
  the test's key decrypts;
- that payload, handed to the service worker as a push message through the
  DevTools protocol (``ServiceWorker.deliverPushMessage``: what the browser does
  with a push it received), makes ``sw.js`` show a notification with its title,
  body and the seat page's address;
- back on the seat page it shows "on" (the browser's subscription), and "Turn
  notifications off" unsubscribes and removes it (``DELETE``).

What it does not prove: that FCM, Mozilla's or Apple's push service accept our
requests (their real endpoints are https on the public internet: only the
address guard and the RFC 8291/8292 formats, tested against http-ece and
py-vapid, stand for them)."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import expect

from sqlalchemy import update

from pbem import games
from pbem.core.db import session_scope
from pbem.core.models import Seat, table_of
from pbem.table import push
from tests.support.clock import wait_until
from tests.support.games import new_game, to_move
from tests.support.push import Browser
from tests.support.receiver import Receiver

#: Put before the page's scripts: subscribe() answers with the test's subscription.
FAKE_SUBSCRIBE = """
(subscription) => {
  function made() {
    return { endpoint: subscription.endpoint, expirationTime: null,
             toJSON: function () { return subscription; },
             unsubscribe: function () {
               localStorage.removeItem("fake-push"); window.__unsubscribed = true; return Promise.resolve(true);
             } };
  }
  window.__pushKeys = [];
  PushManager.prototype.subscribe = function (options) {
    window.__pushKeys.push(Array.from(new Uint8Array(options.applicationServerKey)));
    localStorage.setItem("fake-push", "1");  // the browser keeps its subscription across pages
    return Promise.resolve(made());
  };
  PushManager.prototype.getSubscription = function () {
    return Promise.resolve(localStorage.getItem("fake-push") ? made() : null);
  };
}
"""


def test_the_page_registers_the_worker_and_subscribes(live: Any, browser: Any, receiver: Receiver) -> None:
    receiver.status = 201
    ctx = live.ctx
    _, toks = new_game(ctx, 2)
    moving, view = to_move(ctx, toks)
    waiting = next(t for t in toks if t != moving)
    device = Browser(receiver.url)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
    context.grant_permissions(["notifications"], origin=live.base)
    context.add_init_script(script=f"({FAKE_SUBSCRIBE})({json.dumps(device.subscription())})")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{live.base}/play/{waiting}")
        toggle = page.locator("#push-toggle")
        toggle.wait_for(state="visible")
        assert page.locator("#push-state").inner_text() == "Notifications are off for this device."
        worker = page.evaluate("navigator.serviceWorker.ready.then(r => [r.active.scriptURL, r.scope])")
        assert worker == [f"{live.base}/sw.js", f"{live.base}/"]
        toggle.click()
        expect(page.locator("#push-state")).to_have_text("Notifications are on for this device.")
        assert toggle.inner_text() == "Turn notifications off"
        # subscribe() was given the service's key, and the service has the subscription.
        key = bytes(page.evaluate("window.__pushKeys[0]"))
        assert key == push_key_bytes(live)
        assert push.settings_of(ctx, waiting).subscribed
        # They leave the page (a push never goes to a player looking at their page),
        # long enough ago that they no longer count as present.
        page.goto(f"{live.base}/")
        with session_scope(ctx.engine) as session:
            session.connection().execute(update(table_of(Seat)).values(seen_at=None))
        # The other player moves: the push reaches the endpoint, and the device reads it.
        games.submit_move(ctx, moving, view["legal_moves"][0], None, view["ply"])
        said = device.read(wait_until(lambda: receiver.posts)[0].body)
        assert said["url"] == f"{live.base}/play/{waiting}"
        # The browser hands the push to the service worker, which shows it.
        cdp = context.new_cdp_session(page)
        registrations: list[dict[str, Any]] = []
        cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
        cdp.send("ServiceWorker.enable")
        for _ in range(50):  # the events arrive while Playwright waits (not while Python sleeps)
            ours = [r for r in registrations if r["scopeURL"] == f"{live.base}/" and not r["isDeleted"]]
            if ours:
                break
            page.wait_for_timeout(100)
        assert ours, registrations
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")  # the worker is active
        shown: list[Any] = []
        for k in range(150):
            if k % 30 == 0:
                # Handed again if nothing shows: the first may reach a worker still starting.
                ours = [r for r in registrations if r["scopeURL"] == f"{live.base}/" and not r["isDeleted"]]
                cdp.send("ServiceWorker.deliverPushMessage", {"origin": live.base, "registrationId":
                                                              ours[-1]["registrationId"], "data": json.dumps(said)})
            shown = page.evaluate("navigator.serviceWorker.ready.then(r => r.getNotifications())"
                                  ".then(ns => ns.map(n => [n.title, n.body, n.data.url, n.tag]))")
            if shown:
                break
            page.wait_for_timeout(100)
        assert shown == [[said["title"], said["body"], said["url"], said["tag"]]]
        # Off again: unsubscribed in the browser, removed in the service.
        page.goto(f"{live.base}/play/{waiting}")
        expect(page.locator("#push-state")).to_have_text("Notifications are on for this device.")
        toggle.click()
        expect(page.locator("#push-state")).to_have_text("Notifications are off for this device.")
        assert page.evaluate("window.__unsubscribed === true")
        assert not push.settings_of(ctx, waiting).subscribed
        assert not errors, errors
    finally:
        context.close()


def push_key_bytes(live: Any) -> bytes:
    from pbem.core import vapid

    return vapid.b64url_decode(push.public_key(live.ctx))
