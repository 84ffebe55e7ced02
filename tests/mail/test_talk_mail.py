"""Table talk by mail: each message to the players who asked for it (through a
real SMTP server), the new messages in the turn mail and the digest, escaped in
HTML, and never anything of a clan."""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import col, select

from pbem.workers import clock
from pbem.table import talk
from pbem.games import unsubscribing
from pbem.core.db import session_scope
from pbem.mail.compose import compose
from pbem.core.models import Game, Outbox, Seat, Suppression
from pbem.people.players import address_hash
from pbem.rules.tables import CLANS
from tests.support.clock import frozen_clock
from tests.support.config import BASE_URL
from tests.support.games import redeal_others, new_game, play, to_move
from tests.support.messages import caught, parts
from pbem import games

NASTY = '<script>alert("x")</script> & <b>bold</b>'


def email_of(ctx: Any, token: str) -> str:
    with session_scope(ctx.engine) as session:
        return games.seat_and_game(session, token)[0].email


def name_of(ctx: Any, token: str) -> str:
    return str(games.seat_view(ctx, token)["you"])


def test_each_message_goes_by_mail_to_the_players_who_asked(sctx: Any, smtp: Any) -> None:
    ctx = sctx
    game_id, toks = new_game(ctx)
    talk.set_talk_mail(ctx, toks[1], True)
    talk.talk(ctx, toks[0], f"Hello table!\n{NASTY}")
    (got,) = smtp.collector.wait_for(1, kind="talk")
    assert got.to == email_of(ctx, toks[1])
    msg = got.message
    ann = name_of(ctx, toks[0])
    assert msg["Subject"] == f"{ann} at the table of Clans game {game_id}"
    assert msg["X-PBEM-Game"] == game_id and msg["Auto-Submitted"] == "auto-generated"
    stop = re.fullmatch(rf"<{re.escape(BASE_URL)}/unsubscribe/({game_id}\.[\w-]+)/talk>", msg["List-Unsubscribe"])
    assert stop and unsubscribing.view(ctx, stop.group(1))["name"] == name_of(ctx, toks[1])  # talk mail only
    p = parts(msg)
    p["text"] = p["text"].replace("\r\n", "\n")  # as SMTP carried it
    assert f"{ann} wrote at the table of game {game_id}" in p["text"]
    assert f"Hello table!\n{NASTY}\n" in p["text"]  # plain text as typed
    assert f"{BASE_URL}/play/{toks[1]}#talk" in p["text"]
    html = p["html"]
    assert "<script" not in html and "<b>bold" not in html
    # (the CSS inliner writes the quotes of a text as they are: harmless outside a tag)
    assert "Hello table!\r\n&lt;script&gt;alert(\"x\")&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;</div>" in html
    assert f'href="{BASE_URL}/play/{toks[1]}#talk"' in html
    assert p["images"] == {}  # no board in a talk mail
    # Nobody else was mailed: not the author, not the player who did not ask.
    assert [r.to for r in smtp.collector.messages(kind="talk")] == [got.to]


def test_unsubscribing_from_a_talk_mail_stops_talk_mail_only(smtp_app: Any, sctx: Any, smtp: Any) -> None:
    """A player tired of the chatter presses their mail client's button: the
    talk mail stops, the turn mail goes on (else the autopilot plays for them)."""
    ctx = sctx
    _, toks = new_game(ctx)
    talk.set_talk_mail(ctx, toks[1], True)
    talk.talk(ctx, toks[0], "chatter")
    (got,) = smtp.collector.wait_for(1, kind="talk")
    path = str(got.message["List-Unsubscribe"]).strip("<>").removeprefix(BASE_URL)
    client = smtp_app.test_client()
    page = client.get(path)
    assert page.status_code == 200 and b"<form" in page.data and b"Your turn emails do not change" in page.data
    assert talk.table(ctx, toks[1]).talk_mail  # GET changed nothing
    mail_client = smtp_app.test_client()  # no session, no form token
    done = mail_client.post(path, data="List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert done.status_code == 200 and "no more table talk mail" in done.get_data(as_text=True)
    assert not talk.table(ctx, toks[1]).talk_mail
    assert games.seat_view(ctx, toks[1])["mail"] == "every"
    # From the page's button (a browser with a session): the same, with a page that says so.
    talk.set_talk_mail(ctx, toks[1], True)
    assert b"Table talk mail stopped" in client.post(path, data={}).data
    assert not talk.table(ctx, toks[1]).talk_mail
    # A bad token changes nothing.
    assert mail_client.post("/unsubscribe/" + "x" * 43 + "/talk", data="List-Unsubscribe=One-Click",
                            content_type="application/x-www-form-urlencoded").status_code == 401


def test_a_talk_mail_is_not_sent_once_its_reader_turned_it_off(ctx: Any) -> None:
    _, toks = new_game(ctx)
    talk.set_talk_mail(ctx, toks[1], True)
    ctx.relay = lambda ids: None  # hold the mail back: it is built when it goes
    talk.talk(ctx, toks[0], "hi")
    talk.set_talk_mail(ctx, toks[1], False)
    with session_scope(ctx.engine) as session:
        row = session.exec(select(Outbox).where(Outbox.kind == "talk")).one()
        assert compose(ctx, session, row) is None
        # Nor to an address that asked never to be mailed.
        seat = session.get(Seat, row.seat_id)
        seat.talk_mail = True
        session.add(seat)
        session.flush()
        assert compose(ctx, session, row) is not None
        session.add(Suppression(address_hash=address_hash(row.recipient)))
        session.flush()
        assert compose(ctx, session, row) is None


def test_the_turn_mail_shows_the_others_messages_since_the_last_one(ctx: Any) -> None:
    now = frozen_clock(ctx)
    _, toks = new_game(ctx, 2)
    mover, _ = to_move(ctx, toks)
    (other,) = [t for t in toks if t != mover]
    m_name, o_name = name_of(ctx, mover), name_of(ctx, other)
    now.advance(minutes=1)
    talk.talk(ctx, other, "from the other, 1")
    talk.talk(ctx, mover, f"from the mover {NASTY}")
    now.advance(minutes=1)
    play(ctx, toks, 1)  # the other's first turn mail
    turn = caught(ctx, email_of(ctx, other), kind="turn")[-1]
    p = parts(turn)
    assert "At the table:" in p["text"]
    assert re.search(rf"^{m_name} \([^)]*UTC\): from the mover {re.escape(NASTY)}$", p["text"], re.M)
    assert "from the other" not in p["text"]  # their own words are not news to them
    assert re.search(r"<h2[^>]*>At the table</h2>", p["html"]) and f"<strong>{m_name}</strong>" in p["html"]
    assert "&lt;script&gt;" in p["html"] and "<script" not in p["html"]
    now.advance(minutes=1)
    talk.talk(ctx, other, "from the other, 2")
    now.advance(minutes=1)
    play(ctx, toks, 1)  # the mover's second turn mail: everything since their first
    text = parts(caught(ctx, email_of(ctx, mover), kind="turn")[-1])["text"]
    table = text.split("At the table:")[1].split("\n\n")[0]
    assert [line.split(": ", 1)[1] for line in table.strip().splitlines()] == [
        "from the other, 1", "from the other, 2"]
    assert all(line.startswith(f"{o_name} (") for line in table.strip().splitlines())
    now.advance(minutes=1)
    play(ctx, toks, 1)  # the other's second: nothing new was said
    assert "At the table" not in parts(caught(ctx, email_of(ctx, other), kind="turn")[-1])["text"]


def test_a_long_table_is_cut_short_in_the_mail(ctx: Any, monkeypatch: Any) -> None:
    from pbem.mail import compose as compose_module

    monkeypatch.setattr(compose_module, "TABLE_IN_MAIL", 2)
    now = frozen_clock(ctx)
    _, toks = new_game(ctx, 2)
    mover, _ = to_move(ctx, toks)
    now.advance(minutes=1)
    for n in range(5):
        talk.talk(ctx, mover, f"line {n}\nsecond line")
    now.advance(minutes=1)
    play(ctx, toks, 1)
    (other,) = [t for t in toks if t != mover]
    text = parts(caught(ctx, email_of(ctx, other), kind="turn")[-1])["text"]
    assert "line 2" not in text and "line 3\n  second line" in text and "line 4\n  second line" in text
    assert "(and 3 earlier messages: see them all on your seat page)" in text


def test_the_digest_shows_the_messages_of_the_day(ctx: Any) -> None:
    now = frozen_clock(ctx)
    now.at = now.at.replace(hour=3, minute=0)
    _, toks = new_game(ctx)
    games.set_mail(ctx, toks[0], "digest")
    play(ctx, toks, 2)
    now.advance(minutes=5)
    talk.talk(ctx, toks[1], f"see you tomorrow {NASTY}")
    now.at = now.at.replace(hour=ctx.config["DIGEST_HOUR"], minute=5)
    clock.tick(ctx)
    (digest,) = caught(ctx, kind="digest")
    p = parts(digest)
    assert re.search(rf"^{name_of(ctx, toks[1])} \([^)]*\): see you tomorrow {re.escape(NASTY)}$", p["text"], re.M)
    assert "see you tomorrow &lt;script&gt;" in p["html"]




def test_a_talk_mail_never_depends_on_a_clan(ctx: Any) -> None:
    """Non-interference: the talk mail is the same whatever the others' clans
    (the author's among them), and names no clan, not even its reader's."""
    frozen_clock(ctx)
    game_id, toks = new_game(ctx)
    play(ctx, toks, 2)
    talk.set_talk_mail(ctx, toks[1], True)
    ctx.relay = lambda ids: None
    talk.talk(ctx, toks[0], "a fine move")
    viewer = games.seat_view(ctx, toks[1])["seat"]

    def built() -> tuple[str, str, str]:
        with session_scope(ctx.engine) as session:
            row = session.exec(select(Outbox).where(Outbox.kind == "talk").order_by(col(Outbox.id))).one()
            message = compose(ctx, session, row)
            assert message is not None
            p = parts(message.to_message())
            return message.subject, p["text"], p["html"]

    before = built()
    redeal_others(ctx, game_id, viewer)
    assert built() == before
    subject, text, html = before
    for clan in CLANS:
        assert not re.search(rf"\b{clan}\b", subject + text), clan
    assert "class=\"clan\"" not in html and "chip" not in html
