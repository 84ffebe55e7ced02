"""Web Push through the service: a subscribed seat gets, when its turn comes, a
push that a real decryptor with the subscription's private key reads (at a
real HTTP server on 127.0.0.1 standing for the push service), signed with the
service's VAPID key; 404/410 drop the subscription; "push first" mails only
when the seat page was not opened in time (frozen clock); "push only" mails
nothing; a subscription is checked strictly, and push is off without a key.  A
nudge is pushed beside its mail, in the mover's language, unless they moved."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from py_vapid import Vapid02
from sqlmodel import col, select

from pbem.core import errors, vapid
from pbem.core.db import as_utc, session_scope
from pbem.core.models import Outbox, OutboxStatus, PushMode
from pbem.core.outbox import OutboxKind
from pbem.core.push_tables import PushSubscription
from pbem.table import push, watching
from pbem.words import Words
from pbem.workers.clock import sweep_outbox
from tests.support.clock import frozen_clock, wait_until
from tests.support.games import email_of, new_game, play, to_move
from tests.support.messages import caught_count
from tests.support.push import Browser
from tests.support.receiver import Receiver
from pbem import games


def _next_seat(ctx: Any, toks: list[str]) -> str:
    """The token of the seat whose turn comes next (a game of two)."""
    moving, _ = to_move(ctx, toks)
    return next(t for t in toks if t != moving)


def _rows(ctx: Any, kind: OutboxKind) -> list[Outbox]:
    with session_scope(ctx.engine) as session:
        rows = session.exec(select(Outbox).where(Outbox.kind == kind).order_by(col(Outbox.id))).all()
        session.expunge_all()
        return list(rows)


def _subscribed(ctx: Any) -> int:
    with session_scope(ctx.engine) as session:
        return len(session.exec(select(PushSubscription)).all())


def test_a_subscribed_seat_gets_a_push_its_browser_can_read(pctx: Any, receiver: Receiver) -> None:
    receiver.status = 201
    _, toks = new_game(pctx, 2)
    token = _next_seat(pctx, toks)
    browser = Browser(receiver.url)
    assert push.subscribe(pctx, token, browser.subscription()).subscribed
    play(pctx, toks, 1)
    got = wait_until(lambda: receiver.posts)[-1]
    said = browser.read(got.body)
    view = games.seat_view(pctx, token)
    assert said["title"] == "Your turn"
    assert said["body"] == f"{view['you']}: it is your turn in game {view['game']} (move 2)."
    assert said["url"] == f"{pctx.base_url}/play/{token}" and said["tag"] == f"pbem-{view['game']}"
    assert got.headers["content-encoding"] == "aes128gcm" and int(got.headers["ttl"]) > 0
    # Signed with the service's key (RFC 8292), for this push service.
    assert Vapid02.verify(got.headers["authorization"])
    key = vapid.public_key(vapid.configured(pctx.config))  # type: ignore[arg-type]
    assert got.headers["authorization"].endswith(f"k={key}")
    # Beside it, the turn mail as always (the default mode), and the row is done.
    assert caught_count(pctx, email_of(games.seat_view(pctx, token)), OutboxKind.TURN) == 1
    assert [r.status for r in _rows(pctx, OutboxKind.PUSH)] == [OutboxStatus.SENT]
    assert _rows(pctx, OutboxKind.PUSH)[0].recipient.startswith("push:")


def test_the_push_is_in_the_seats_language(pctx: Any, receiver: Receiver) -> None:
    receiver.status = 201
    _, toks = new_game(pctx, 2)
    token = _next_seat(pctx, toks)
    games.set_language(pctx, token, "hu", "Europe/Budapest")
    browser = Browser(receiver.url)
    push.subscribe(pctx, token, browser.subscription())
    play(pctx, toks, 1)
    said = browser.read(wait_until(lambda: receiver.posts)[-1].body)
    assert said["lang"] == "hu" and said["title"] != "Your turn"


@pytest.mark.parametrize("status", [404, 410])
def test_an_expired_subscription_is_dropped_and_the_held_mail_goes_now(pctx: Any, receiver: Receiver,
                                                                       status: int) -> None:
    receiver.status = status
    _, toks = new_game(pctx, 2)
    token = _next_seat(pctx, toks)
    push.subscribe(pctx, token, Browser(receiver.url).subscription())
    push.set_mode(pctx, token, PushMode.PUSH_FIRST, 30)
    play(pctx, toks, 1)
    wait_until(lambda: receiver.posts)
    assert _subscribed(pctx) == 0
    assert [r.status for r in _rows(pctx, OutboxKind.PUSH)] == [OutboxStatus.FAILED]
    # The turn mail held back for the push is due at once.
    (turn,) = _rows(pctx, OutboxKind.TURN)[-1:]
    assert turn.status == OutboxStatus.PENDING and as_utc(turn.next_attempt_at) <= pctx.now()  # type: ignore[operator]
    # The next turn is mailed at once, and no push is written.
    play(pctx, toks, 2)
    assert len(_rows(pctx, OutboxKind.PUSH)) == 1


def test_push_first_mails_only_when_the_page_was_not_opened_in_time(pctx: Any, receiver: Receiver) -> None:
    receiver.status = 201
    clock = frozen_clock(pctx)
    _, toks = new_game(pctx, 2)
    token = _next_seat(pctx, toks)
    email = email_of(games.seat_view(pctx, token))
    push.subscribe(pctx, token, Browser(receiver.url).subscription())
    push.set_mode(pctx, token, PushMode.PUSH_FIRST, 30)
    # Their turn: the push goes at once, the mail waits 30 minutes.
    play(pctx, toks, 1)
    assert len(wait_until(lambda: receiver.posts)) == 1
    assert caught_count(pctx, email, OutboxKind.TURN) == 0
    clock.advance(minutes=29)
    sweep_outbox(pctx)
    assert caught_count(pctx, email, OutboxKind.TURN) == 0
    # Not opened within the 30 minutes: the mail goes.
    clock.advance(minutes=2)
    sweep_outbox(pctx)
    assert caught_count(pctx, email, OutboxKind.TURN) == 1
    # Their move, the other's, and their turn again: this time they open the page.
    play(pctx, toks, 2)
    assert wait_until(lambda: len(receiver.posts) == 2)
    clock.advance(minutes=5)
    watching.mark_present(pctx, token)
    clock.advance(minutes=26)  # gone from the page long since, and the 30 minutes are over
    sweep_outbox(pctx)
    assert caught_count(pctx, email, OutboxKind.TURN) == 1
    assert _rows(pctx, OutboxKind.TURN)[-1].status == OutboxStatus.SKIPPED


def test_push_only_mails_no_turn_but_a_seat_without_subscription_is_mailed(pctx: Any, receiver: Receiver) -> None:
    receiver.status = 201
    _, toks = new_game(pctx, 2)
    token = _next_seat(pctx, toks)
    email = email_of(games.seat_view(pctx, token))
    push.set_mode(pctx, token, PushMode.PUSH_ONLY, None)
    play(pctx, toks, 1)  # no subscription yet: the mail, whatever the mode
    assert caught_count(pctx, email, OutboxKind.TURN) == 1
    push.subscribe(pctx, token, Browser(receiver.url).subscription())
    play(pctx, toks, 2)
    wait_until(lambda: receiver.posts)
    assert caught_count(pctx, email, OutboxKind.TURN) == 1
    # Off again: mail as before.
    assert not push.unsubscribe(pctx, token).subscribed
    play(pctx, toks, 2)
    assert caught_count(pctx, email, OutboxKind.TURN) == 2 and len(receiver.posts) == 1


def test_a_push_is_not_sent_once_the_turn_is_over(pctx: Any, receiver: Receiver) -> None:
    receiver.status = 201
    _, toks = new_game(pctx, 2)
    token = _next_seat(pctx, toks)
    push.subscribe(pctx, token, Browser(receiver.url).subscription())
    receiver.stop()  # the push service is down: the push waits for a retry
    play(pctx, toks, 1)
    assert _rows(pctx, OutboxKind.PUSH)[0].status == OutboxStatus.PENDING
    play(pctx, toks, 1)  # they moved meanwhile (on the page)
    clock = frozen_clock(pctx)
    clock.advance(hours=2)
    sweep_outbox(pctx)
    assert _rows(pctx, OutboxKind.PUSH)[0].status == OutboxStatus.SKIPPED


def _refused(ctx: Any, token: str, body: dict[str, Any]) -> str:
    with pytest.raises(errors.Invalid) as refused:
        push.subscribe(ctx, token, body)
    assert refused.value.code == "invalid-push-subscription"
    return refused.value.message


def test_a_subscription_is_checked_strictly_and_a_refused_one_stores_nothing(pctx: Any) -> None:
    _, toks = new_game(pctx, 2)
    good = Browser("https://push.clans.example/send/abc").subscription()
    point = good["keys"]["p256dh"]
    for body, field in [
        ({**good, "extra": 1}, "extra"),
        ({**good, "endpoint": None}, "endpoint"),
        ({**good, "endpoint": "http://push.example.org/x"}, "endpoint"),
        ({**good, "endpoint": "https://10.0.0.1/x"}, "endpoint"),
        ({**good, "endpoint": "https://localhost:8443/x"}, "endpoint"),
        ({**good, "expirationTime": "soon"}, "expirationTime"),
        ({**good, "keys": "no"}, "keys"),
        ({**good, "keys": {**good["keys"], "other": "x"}}, "keys.other"),
        ({**good, "keys": {**good["keys"], "p256dh": point[:-4]}}, "keys.p256dh"),
        ({**good, "keys": {**good["keys"], "p256dh": point[:20] + ("A" if point[20] != "A" else "B") + point[21:]}}, "keys.p256dh"),
        ({**good, "keys": {**good["keys"], "p256dh": "not base64!"}}, "keys.p256dh"),
        ({**good, "keys": {"p256dh": point}}, "keys.auth"),
        ({**good, "keys": {**good["keys"], "auth": "AAAA"}}, "keys.auth"),
    ]:
        assert _refused(pctx, toks[0], body).startswith(field), (body, field)
    assert _subscribed(pctx) == 0


def test_push_is_off_without_a_key(ctx: Any) -> None:
    _, toks = new_game(ctx, 2)
    with pytest.raises(errors.NotFound) as off:
        push.public_key(ctx)
    assert off.value.code == "push-off"
    with pytest.raises(errors.NotFound):
        push.subscribe(ctx, toks[0], Browser("https://push.clans.example/x").subscription())
    assert not push.settings_of(ctx, toks[0]).available


def _nudged(ctx: Any, clock: Any, toks: list[str], browser: Browser | None) -> tuple[str, str]:
    """A nudge to the mover (subscribed with ``browser``, if one), after the wait:
    the mover's token and the nudger's."""
    mover, _ = to_move(ctx, toks)
    other = next(t for t in toks if t != mover)
    if browser is not None:
        assert push.subscribe(ctx, mover, browser.subscription()).subscribed
    clock.advance(hours=25)
    games.nudge(ctx, other)
    return mover, other


def _turn_began(ctx: Any, token: str) -> Any:
    with session_scope(ctx.engine) as session:
        _, game, _ = games.seat_and_game(session, token)
        return games.turn_started(session, game)


def test_a_nudge_is_pushed_beside_its_mail_to_a_subscribed_mover(pctx: Any, receiver: Receiver) -> None:
    receiver.status = 201
    clock = frozen_clock(pctx)
    _, toks = new_game(pctx, 2)
    browser = Browser(receiver.url)
    mover, other = _nudged(pctx, clock, toks, browser)
    # Written with the nudge's mail, of the same event, to the mover's seat.
    (pushed,) = _rows(pctx, OutboxKind.PUSH)
    (mailed,) = _rows(pctx, OutboxKind.NUDGE)
    assert pushed.event == mailed.event and pushed.event.startswith("nudge:")
    assert pushed.recipient == f"push:{mailed.seat_id}" and pushed.seat_id == mailed.seat_id
    got = wait_until(lambda: receiver.posts)[-1]
    said = browser.read(got.body)
    view, nudger = games.seat_view(pctx, mover), games.seat_view(pctx, other)["you"]
    since = Words().when(_turn_began(pctx, mover))
    assert said == {
        "title": f"{nudger} is waiting for your move",
        "body": f"{view['you']}: it has been your turn in game {view['game']} since {since} (move {view['ply'] + 1}).",
        "url": f"{pctx.base_url}/play/{mover}", "tag": f"pbem-{view['game']}", "game": view["game"],
        "ply": view["ply"], "lang": "en"}
    # Nothing hidden: not the mover's clan, nor anyone else's.
    assert view["clan"] and view["clan"] not in said["title"] + said["body"]
    assert Vapid02.verify(got.headers["authorization"]) and got.headers["content-encoding"] == "aes128gcm"
    assert [r.status for r in _rows(pctx, OutboxKind.PUSH)] == [OutboxStatus.SENT]
    assert len(receiver.posts) == 1


@pytest.mark.parametrize("language", ["hu", "cs", "pt"])
def test_a_nudges_push_is_in_the_movers_language(pctx: Any, receiver: Receiver, language: str) -> None:
    receiver.status = 201
    clock = frozen_clock(pctx)
    _, toks = new_game(pctx, 2)
    mover, _ = to_move(pctx, toks)
    zone = {"hu": "Europe/Budapest", "cs": "Europe/Prague", "pt": "Europe/Lisbon"}[language]
    games.set_language(pctx, mover, language, zone)
    browser = Browser(receiver.url)
    _, other = _nudged(pctx, clock, toks, browser)
    said = browser.read(wait_until(lambda: receiver.posts)[-1].body)
    w, nudger = Words(language, zone), games.seat_view(pctx, other)["you"]
    assert said["lang"] == w.tag
    assert said["title"] == w._("%(nudger)s is waiting for your move", nudger=nudger)
    assert said["title"] != f"{nudger} is waiting for your move"
    assert w.when(_turn_began(pctx, mover)) in said["body"] and "your turn" not in said["body"]


def test_a_nudge_to_a_mover_without_a_subscription_writes_no_push(pctx: Any, receiver: Receiver) -> None:
    clock = frozen_clock(pctx)
    _, toks = new_game(pctx, 2)
    mover, _ = to_move(pctx, toks)
    # The one waiting has a subscription; the mover, who is nudged, has none.
    waiter = next(t for t in toks if t != mover)
    assert push.subscribe(pctx, waiter, Browser(receiver.url).subscription()).subscribed
    _nudged(pctx, clock, toks, None)
    assert len(_rows(pctx, OutboxKind.NUDGE)) == 1
    assert _rows(pctx, OutboxKind.PUSH) == [] and receiver.posts == []


def test_a_nudges_push_is_not_sent_once_the_mover_moved(pctx: Any, receiver: Receiver) -> None:
    clock = frozen_clock(pctx)
    _, toks = new_game(pctx, 2)
    receiver.stop()  # the push service is down: the push waits for a retry
    mover, _ = _nudged(pctx, clock, toks, Browser(receiver.url))
    (pushed,) = _rows(pctx, OutboxKind.PUSH)
    assert pushed.status == OutboxStatus.PENDING
    # They move, the other moves, and it is their turn again: that nudge was about the turn they took.
    play(pctx, toks, 2)
    assert to_move(pctx, toks)[0] == mover
    clock.advance(hours=2)
    sweep_outbox(pctx)
    nudge_push = next(r for r in _rows(pctx, OutboxKind.PUSH) if r.id == pushed.id)
    assert nudge_push.status == OutboxStatus.SKIPPED
    assert receiver.posts == []
