"""Webhook posts, delivered by the outbox to a real HTTP receiver: a whole game's
signed posts (the start, every person's turn, the end), once each and never a
clan; the Discord and Slack bodies; nothing to a private address when it is not
allowed (checked again at delivery); a dead receiver retried, then switched off
after a day, its setter told by mail."""

from __future__ import annotations

import email
import email.policy
import hashlib
import hmac
import json
import re
import socket
import threading
import time
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.ops import admin
from pbem.workers import clock
from pbem.core import errors
from pbem.table import webhooks
from pbem.mail import webhook_http
from pbem.mail.webhook_posts import Post
from pbem.table.webhook_targets import allowed_hosts, parse_target
from pbem.core.db import session_scope
from pbem.core.models import CaughtMail, Outbox, Webhook
from pbem.rules.tables import CLANS
from tests.support.clock import frozen_clock
from tests.support.games import finish, new_game, play, seat_tokens, to_move
from tests.support.receiver import Receiver, Tarpit
from pbem import games

#: A whole game of first legal moves ends well within this.
MAX_MOVES = 300
_CLAN_WORD = re.compile(r"\b(" + "|".join(CLANS) + r")\b", re.I)


def _sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _webhook_rows(ctx: Any) -> list[Outbox]:
    with session_scope(ctx.engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.kind == "webhook").order_by(col(Outbox.id))))


def test_a_whole_game_is_posted_signed_once_each_and_without_a_clan(hctx: Any, receiver: Receiver) -> None:
    game_id, toks = new_game(hctx, start=False)  # the first player has accepted
    made = webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    assert made.secret and made.webhook["kind"] == "json" and made.webhook["url"] == receiver.url
    for token in toks[1:]:
        games.accept(hctx, token)
    for _ in range(MAX_MOVES):
        if games.public_game(hctx, game_id)["status"] == "finished":
            break
        play(hctx, toks, 1)
    final = games.public_game(hctx, game_id)
    assert final["status"] == "finished"

    bodies = [p.json() for p in receiver.posts]
    for post in receiver.posts:
        assert post.headers["content-type"] == "application/json"
        assert post.headers["x-pbem-signature"] == _sign(made.secret, post.body)
        assert post.path == "/hook"
    for body in bodies:
        assert set(body) == {"game", "event", "ply", "to_move", "url"}
        assert body["game"] == game_id and body["url"] == f"https://clans.example/games/{game_id}"
        assert body["to_move"] not in CLANS
    # Never a clan, nor a seat's link or token, in any post.
    raw = b"".join(p.body for p in receiver.posts).decode()
    assert not any(t in raw for t in toks) and "/play/" not in raw
    assert [b["event"] for b in bodies] == ["start"] + ["turn"] * (final["ply"] - 1) + ["over"]
    assert [b["ply"] for b in bodies] == list(range(final["ply"])) + [final["ply"]]
    names = [h["player"] for h in final["history"]]
    # Each turn names the player who then moved; the end names nobody.
    assert [b["to_move"] for b in bodies[:-1]] == names and bodies[-1]["to_move"] is None
    # Once per event and webhook, all sent.
    rows = _webhook_rows(hctx)
    assert len(rows) == len(bodies) and {r.status for r in rows} == {"sent"}


def test_discord_posts_mention_the_player_to_move_and_attach_the_board(hctx: Any, receiver: Receiver) -> None:
    game_id, toks = new_game(hctx)
    webhooks.add_webhook(hctx, toks[0], "discord", receiver.url)
    token, view = to_move(hctx, toks)
    nxt = [t for t in toks if t != token]
    for t in nxt:
        webhooks.set_discord_id(hctx, t, "123456789012345678")
    games.submit_move(hctx, token, view["legal_moves"][0], None, view["ply"])
    post = receiver.posts[-1]
    assert post.headers["content-type"].startswith("multipart/form-data; boundary=")
    parsed = email.message_from_bytes(b"Content-Type: " + post.headers["content-type"].encode() + b"\r\n\r\n"
                                      + post.body, policy=email.policy.default)
    parts = {p.get_param("name", header="content-disposition"): p for p in parsed.iter_parts()}
    payload = json.loads(parts["payload_json"].get_content())
    picture = parts["files[0]"].get_content()
    assert picture.startswith(b"\x89PNG")
    now = games.public_game(hctx, game_id)
    assert payload["content"] == (f"<@123456789012345678> It's {now['next']}'s turn (move 2).\n"
                                  f"https://clans.example/games/{game_id}")
    # Nobody else can be pinged, whatever a name says.
    assert payload["allowed_mentions"] == {"parse": [], "users": ["123456789012345678"]}
    assert not _CLAN_WORD.search(payload["content"])


def test_slack_posts_escape_what_slack_would_read_as_a_mention(hctx: Any, receiver: Receiver) -> None:
    game_id, toks = new_game(hctx)
    webhooks.add_webhook(hctx, toks[1], "slack", receiver.url)
    finish(hctx, game_id, toks)
    body = receiver.posts[-1].json()
    assert set(body) == {"text"}
    assert body["text"].startswith(f"Game {game_id} is over: ")
    assert body["text"].endswith(f"\n<https://clans.example/games/{game_id}>")
    assert "Final scores: " in body["text"] and not _CLAN_WORD.search(body["text"])


def test_the_setters_language_is_the_posts(hctx: Any, receiver: Receiver) -> None:
    game_id, toks = new_game(hctx)
    games.set_language(hctx, toks[0], "hu")
    webhooks.add_webhook(hctx, toks[0], "slack", receiver.url)
    play(hctx, toks, 1)
    # Untranslated sentences fall back to English until the catalog has them;
    # the game's link is there in any language.
    assert receiver.posts[-1].json()["text"].endswith(f"<https://clans.example/games/{game_id}>")


def test_no_post_goes_to_a_private_address_at_delivery(hctx: Any, receiver: Receiver) -> None:
    """Allowed when it was set, not when it is sent (the setting changed, or the
    name now resolves elsewhere): checked again, and nothing is sent."""
    _, toks = new_game(hctx)
    hctx.config["WEBHOOK_ALLOW"] = "localhost"
    webhooks.add_webhook(hctx, toks[0], "json", f"https://localhost:{receiver.port}/hook")
    hctx.config["WEBHOOK_ALLOW"] = ""
    play(hctx, toks, 1)
    assert receiver.posts == []
    [row] = _webhook_rows(hctx)
    # Refused at delivery (here for its port, which only an allowed host may choose).
    assert row.status == "failed" and "the address is refused now" in (row.last_error or "")
    assert webhooks.webhooks_of(hctx, toks[0])["webhooks"][0]["last_error"] == "address not allowed"


def test_a_dead_receiver_is_retried_then_switched_off_after_a_day(hctx: Any) -> None:
    dead = Receiver().start()
    url = dead.url
    dead.stop()  # nothing listens there now
    now = frozen_clock(hctx)
    game_id, toks = new_game(hctx)
    webhooks.add_webhook(hctx, toks[2], "json", url)
    setter = games.seat_view(hctx, toks[2])["you"]
    play(hctx, toks, 1)
    [row] = _webhook_rows(hctx)
    assert row.status == "pending" and row.attempts == 1
    now.advance(hours=2)
    clock_sweep(hctx)
    [row] = _webhook_rows(hctx)
    assert row.status == "pending" and row.attempts == 2
    listing = webhooks.webhooks_of(hctx, toks[2])["webhooks"]
    assert listing[0]["status"] == "failing" and listing[0]["last_error"] == "connection refused"
    # The other players see that it fails, not its address or its errors.
    other = webhooks.webhooks_of(hctx, toks[0])["webhooks"][0]
    assert other["status"] == "failing" and other["url"] is None and other["last_error"] is None
    now.advance(hours=21, minutes=59)  # 23 h 59 min of failures
    clock_sweep(hctx)
    assert webhooks.webhooks_of(hctx, toks[2])["webhooks"][0]["status"] == "failing"
    now.advance(hours=2)
    clock_sweep(hctx)
    [row] = _webhook_rows(hctx)
    assert row.status == "failed"
    assert webhooks.webhooks_of(hctx, toks[2])["webhooks"][0]["status"] == "off"
    with session_scope(hctx.engine) as session:
        told = session.exec(select(CaughtMail).where(CaughtMail.kind == "webhook-off")).all()
        assert [m.recipient for m in told] == [f"{setter.lower()}@example.org"]
        text = email.message_from_string(told[0].raw, policy=email.policy.default)
        body = text.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
        assert "127.0.0.1" in body and f"game {game_id}" in body
        hook = session.exec(select(Webhook)).one()
        assert hook.disabled_at is not None
    # Once off, no more posts are written for it; the mail went once.
    play(hctx, toks, 1)
    assert len(_webhook_rows(hctx)) == 1
    clock_sweep(hctx)
    with session_scope(hctx.engine) as session:
        assert len(session.exec(select(CaughtMail).where(CaughtMail.kind == "webhook-off")).all()) == 1


def test_a_post_that_gets_through_ends_a_run_of_failures(hctx: Any, receiver: Receiver) -> None:
    now = frozen_clock(hctx)
    _, toks = new_game(hctx)
    webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    receiver.status = 503
    play(hctx, toks, 1)
    assert webhooks.webhooks_of(hctx, toks[0])["webhooks"][0]["status"] == "failing"
    receiver.status = 204
    now.advance(hours=1)
    clock_sweep(hctx)
    assert webhooks.webhooks_of(hctx, toks[0])["webhooks"][0]["status"] == "live"
    assert [r.status for r in _webhook_rows(hctx)] == ["sent"]
    # The receiver got the same post twice (one refused, one taken): at most once *taken*.
    assert len(receiver.posts) == 2 and receiver.posts[0].body == receiver.posts[1].body


def test_a_lasting_refusal_is_not_retried(hctx: Any, receiver: Receiver) -> None:
    _, toks = new_game(hctx)
    webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    receiver.status = 404  # e.g. the channel's webhook was deleted
    play(hctx, toks, 1)
    [row] = _webhook_rows(hctx)
    assert row.status == "failed" and "HTTP 404" in (row.last_error or "")


def test_the_setter_sees_a_category_never_what_the_receiver_said(hctx: Any, receiver: Receiver) -> None:
    _, toks = new_game(hctx)
    webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    receiver.status, receiver.answer = 404, b"<html>internal build 7.3 at db-03.corp</html>"
    play(hctx, toks, 1)
    assert webhooks.webhooks_of(hctx, toks[0])["webhooks"][0]["last_error"] == "HTTP 404"
    receiver.status = 301  # a redirect is not followed
    play(hctx, toks, 1)
    assert webhooks.webhooks_of(hctx, toks[0])["webhooks"][0]["last_error"] == "redirect refused"
    receiver.status = 503
    play(hctx, toks, 1)
    assert webhooks.webhooks_of(hctx, toks[0])["webhooks"][0]["last_error"] == "HTTP 503"
    with session_scope(hctx.engine) as session:
        assert "db-03" not in (session.exec(select(Webhook)).one().last_error or "")


def test_a_slow_receiver_is_given_up_on_at_the_deadline(hctx: Any) -> None:
    """A receiver that dribbles a header line now and then, each well inside the
    time-out of a read, is cut off at the post's deadline."""
    tarpit = Tarpit(every=0.3).start()
    try:
        post = Post(1, tarpit.url, b"{}", {"Content-Type": "application/json"})
        began = time.monotonic()
        with pytest.raises(webhook_http.WebhookRefused) as refused:
            webhook_http.send(post, {"WEBHOOK_ALLOW": "127.0.0.1"}, deadline=2.0)
        assert time.monotonic() - began < 2.0 + 1.0
        assert refused.value.category == "timed out"
    finally:
        tarpit.stop()


def test_a_post_that_ran_out_of_time_fails_the_webhook_and_is_not_retried(hctx: Any,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    tarpit = Tarpit(every=0.3).start()
    try:
        monkeypatch.setattr(webhook_http, "DEADLINE", 1.5)
        _, toks = new_game(hctx)
        webhooks.add_webhook(hctx, toks[0], "json", tarpit.url)
        began = time.monotonic()
        play(hctx, toks, 1)
        assert time.monotonic() - began < 1.5 + 5.0
    finally:
        tarpit.stop()
    [row] = _webhook_rows(hctx)
    assert row.status == "failed" and row.attempts == 1  # not tried 36 times
    line = webhooks.webhooks_of(hctx, toks[0])["webhooks"][0]
    assert line["status"] == "failing" and line["last_error"] == "timed out"


def test_json_posts_carry_a_timestamped_signature_too(hctx: Any, receiver: Receiver) -> None:
    _, toks = new_game(hctx)
    made = webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    assert made.secret
    play(hctx, toks, 1)
    [row] = _webhook_rows(hctx)
    post = receiver.posts[-1]
    stamp = post.headers["x-pbem-timestamp"]
    assert stamp.isdigit() and abs(int(stamp) - hctx.now().timestamp()) < 60
    assert post.headers["x-pbem-delivery"] == webhooks.delivery_id(hctx.secret_key, row.id) != str(row.id)
    # The body's signature as before; beside it the timestamp's and the body's.
    assert post.headers["x-pbem-signature"] == _sign(made.secret, post.body)
    assert post.headers["x-pbem-signature-256-timestamped"] == _sign(made.secret, stamp.encode() + b"." + post.body)


def test_adds_at_the_same_time_never_pass_the_games_limit(hctx: Any, receiver: Receiver) -> None:
    """The count is made again, under the game's lock, where the webhook is stored."""
    _, toks = new_game(hctx)
    for _ in range(webhooks.MAX_PER_GAME - 1):
        webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    target = parse_target(receiver.url, allowed_hosts(hctx.config))
    racers = 6
    barrier = threading.Barrier(racers)
    outcomes: list[str] = []

    def add(token: str) -> None:
        barrier.wait()
        try:
            webhooks._store(hctx, token, "json", target)
            outcomes.append("added")
        except errors.Conflict as e:
            outcomes.append(e.code)

    threads = [threading.Thread(target=add, args=(toks[i % len(toks)],)) for i in range(racers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == ["added"] + ["too-many-webhooks"] * (racers - 1)
    with session_scope(hctx.engine) as session:
        assert len(session.exec(select(Webhook)).all()) == webhooks.MAX_PER_GAME


def test_a_seat_the_computer_plays_adds_no_webhook_and_gets_no_webhook_mail(hctx: Any, receiver: Receiver) -> None:
    now = frozen_clock(hctx)
    _, toks = new_game(hctx)
    made = webhooks.add_webhook(hctx, toks[1], "json", receiver.url)
    games.hand_to_computer(hctx, toks[1], "medium")
    for attempt in (lambda: webhooks.add_webhook(hctx, toks[1], "json", receiver.url),
                    lambda: webhooks.set_discord_id(hctx, toks[1], "123456789012345678")):
        with pytest.raises(errors.Conflict) as refused:
            attempt()
        assert refused.value.code == "computer-seat" and refused.value.status == 409
    # Its webhook fails for a day: switched off, but no mail to the computer's seat.
    hook_id = made.webhook["id"]
    assert not webhooks.failed(hctx, hook_id, "timed out")
    now.advance(days=1, minutes=1)
    assert webhooks.failed(hctx, hook_id, "timed out")
    with session_scope(hctx.engine) as session:
        assert session.exec(select(Outbox).where(Outbox.kind == "webhook-off")).all() == []
        assert session.exec(select(Webhook)).one().disabled_at is not None


def test_a_removed_webhook_gets_nothing_more(hctx: Any, receiver: Receiver) -> None:
    _, toks = new_game(hctx)
    made = webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    play(hctx, toks, 1)
    assert len(receiver.posts) == 1
    webhooks.remove_webhook(hctx, toks[0], made.webhook["id"])
    play(hctx, toks, 1)
    assert len(receiver.posts) == 1


def test_the_computers_turns_are_not_posted(hctx: Any, receiver: Receiver) -> None:
    game_id = games.start_game(hctx, games.parse_players(
        [{"name": "Ann", "email": "ann@example.org"}, {"bot": "easy"}]), confirmed=True)
    toks = seat_tokens(hctx, game_id)
    ann = next(t for t in toks if games.seat_view(hctx, t)["you"] == "Ann")
    webhooks.add_webhook(hctx, ann, "json", receiver.url)
    for _ in range(3):
        view = games.seat_view(hctx, ann)
        if view["your_turn"]:
            games.submit_move(hctx, ann, view["legal_moves"][0], None, view["ply"])
    bodies = [p.json() for p in receiver.posts]
    assert bodies and {(b["event"], b["to_move"]) for b in bodies} == {("turn", "Ann")}
    assert games.public_game(hctx, game_id)["ply"] >= 4  # the computer moved in between


def clock_sweep(ctx: Any) -> None:
    """What beat's sweep does: deliver every pending row that is due."""
    clock.sweep_outbox(ctx)


# -- what a receiver says reaches the operator harmless (issue 27 §4) ----------------------------------

#: An answer that would clear the operator's terminal, set its title, colour it and
#: reverse the text after it, were it printed as it came.
HOSTILE = b"\x1b[2J\x1b[H\x1b]0;pwned\x07gone\x9b31m red\r\nsecond line\x00\x08\x7f\xe2\x80\xae!"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class _RawAnswer:
    """A server on 127.0.0.1 that answers every request with the bytes given."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(self.answer)

    def stop(self) -> None:
        self.listener.close()


def test_control_characters_of_a_receivers_answer_never_reach_logs_or_the_outbox(
        hctx: Any, receiver: Receiver, caplog: pytest.LogCaptureFixture) -> None:
    _, toks = new_game(hctx)
    webhooks.add_webhook(hctx, toks[0], "json", receiver.url)
    receiver.status, receiver.answer = 404, HOSTILE
    bad_line = _RawAnswer(b"HTTP/1.1 2" + HOSTILE + b"\r\n\r\n")  # a status line http.client cannot read
    try:
        with caplog.at_level("INFO"):
            play(hctx, toks, 1)
            post = Post(1, bad_line.url, b"{}", {"Content-Type": "application/json"})
            with pytest.raises(webhook_http.WebhookUnavailable) as unreadable:
                webhook_http.send(post, {"WEBHOOK_ALLOW": "127.0.0.1"})
    finally:
        bad_line.stop()
    [row] = _webhook_rows(hctx)
    assert row.status == "failed" and "gone" in (row.last_error or "") and "second line" in (row.last_error or "")
    assert not _CONTROL.search(row.last_error or "")
    said = str(unreadable.value)
    assert "BadStatusLine" in said and "gone" in said and not _CONTROL.search(said)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "gone" in logged and not _CONTROL.search(logged.replace("\n", " "))
    # As `pbem admin outbox` shows it.
    shown, _ = admin.outbox_rows(hctx)
    assert any("gone" in (r["last_error"] or "") for r in shown)
    assert not any(_CONTROL.search(r["last_error"] or "") for r in shown)


# -- the circuit breaker (issue 27 §2) ---------------------------------------------------------------------


def _json_post(url: str) -> Post:
    return Post(1, url, b"{}", {"Content-Type": "application/json"})


@pytest.mark.parametrize("store", ["process", "redis"])
def test_a_receiver_that_keeps_timing_out_is_skipped_for_a_while(store: str, redis_url: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """After BREAKER_FAILURES posts in a row that found no answer in time, a
    receiver is not connected to for BREAKER_PAUSE: its posts fail at once (and
    are tried again later). Another receiver is not affected."""
    import redis

    from tests.support.config import redis_db

    config: dict[str, Any] = {"WEBHOOK_ALLOW": "127.0.0.1"}
    if store == "redis":
        config["BROKER_URL"] = redis_db(4)
        redis.Redis.from_url(config["BROKER_URL"]).flushdb()
    monkeypatch.setattr(webhook_http, "DEADLINE", 0.5)
    slow, other = Tarpit(every=0.2).start(), Receiver().start()
    try:
        for _ in range(webhook_http.BREAKER_FAILURES):
            with pytest.raises(webhook_http.WebhookRefused) as refused:
                webhook_http.send(_json_post(slow.url), config)
            assert refused.value.category == "timed out"
        assert slow.connections == webhook_http.BREAKER_FAILURES
        with pytest.raises(webhook_http.WebhookUnavailable) as skipped:
            webhook_http.send(_json_post(slow.url), config)
        assert skipped.value.category == "timed out" and "skipped" in str(skipped.value)
        assert slow.connections == webhook_http.BREAKER_FAILURES  # not connected to
        webhook_http.send(_json_post(other.url), config)  # another receiver is posted to
        assert len(other.posts) == 1
    finally:
        slow.stop()
        other.stop()
    if store == "redis":
        client = redis.Redis.from_url(config["BROKER_URL"])
        keys = [k.decode() for k in client.keys("pbem:webhook-breaker:*")]
        assert keys and all("127.0.0.1" not in k for k in keys)  # a hash of the receiver, not its name
        (opened,) = [k for k in keys if k.endswith(":open")]
        assert 0 < client.ttl(opened) <= webhook_http.BREAKER_PAUSE
        client.flushdb()


def test_an_answer_ends_a_run_of_slow_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only failures in a row open the breaker: a receiver that answers (even
    with a refusal or a 5xx) between slow posts is never skipped."""
    monkeypatch.setattr(webhook_http, "DEADLINE", 0.5)
    config = {"WEBHOOK_ALLOW": "127.0.0.1"}
    key = webhook_http.Breaker.key(parse_target("http://127.0.0.1:1/hook", frozenset({"127.0.0.1"})))
    circuit = webhook_http.breaker(None)
    for _ in range(webhook_http.BREAKER_FAILURES - 1):
        assert not circuit.failed(key, "timed out")
    circuit.answered(key)
    for _ in range(webhook_http.BREAKER_FAILURES - 1):
        assert not circuit.failed(key, "timed out")
    assert circuit.skipped(key) is None
    assert circuit.failed(key, "timed out") and circuit.skipped(key) == "timed out"
    # Through send: a 503 answer resets the count of a receiver.
    receiver = Receiver().start()
    try:
        receiver.status = 503
        target_key = webhook_http.Breaker.key(parse_target(receiver.url, frozenset({"127.0.0.1"})))
        for _ in range(webhook_http.BREAKER_FAILURES - 1):
            circuit.failed(target_key, "timed out")
        with pytest.raises(webhook_http.WebhookUnavailable):
            webhook_http.send(_json_post(receiver.url), config)
        for _ in range(webhook_http.BREAKER_FAILURES - 1):
            circuit.failed(target_key, "timed out")
        assert circuit.skipped(target_key) is None
    finally:
        receiver.stop()
