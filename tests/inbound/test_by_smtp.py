"""End to end by SMTP: a real receiver on a free port, a real SMTP client, the
service's own handlers — a whole game played by replies, and a reply to a
table-talk mail posted to the table."""

from __future__ import annotations

import smtplib
from typing import Any

from sqlmodel import col, select

from pbem import games
from pbem.table import talk as table_talk
from pbem.core.db import session_scope
from pbem.inbound.receiver import receiver
from pbem.core.models import TableMessage
from tests.support.clock import wait_until
from tests.support.games import EMAILS, new_game, to_move
from tests.support.messages import caught, caught_count
from tests.support.replies import reply_message, turn_mail
from tests.support.smtp import free_port




def _send(port: int, message: Any, sender: str) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        smtp.send_message(message, from_addr=sender, to_addrs=[str(message["To"])])


def test_a_whole_game_played_only_by_replies_over_smtp(app: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    port = free_port()
    controller = receiver(ctx, app.extensions["celery"].relay_inbound, host="127.0.0.1", port=port, lmtp=False)
    controller.start()
    try:
        for turn in range(200):
            view = games.public_game(ctx, game_id)
            if view["status"] != "active":
                break
            _, mine = to_move(ctx, toks)
            address = EMAILS[mine["you"]]
            move = mine["legal_moves"][0]
            villages = mine["founding"].get(move, [])
            line = move + (" order " + " ".join(map(str, villages)) if len(villages) > 1 else "")
            _send(port, reply_message(turn_mail(ctx, address), line + "\n", sender=address), address)
            # Played, and answered: the next turn's mail is out by then.
            wait_until(lambda: caught_count(ctx, "@", "reply-accepted") == turn + 1)
            assert games.public_game(ctx, game_id)["ply"] == mine["ply"] + 1
        assert games.public_game(ctx, game_id)["status"] == "finished"
    finally:
        controller.stop()
    assert len(_accepted(ctx)) == games.public_game(ctx, game_id)["ply"]


def _accepted(ctx: Any) -> list[Any]:
    # By the stored kind (the X-PBEM-Kind header): parsing every caught mail,
    # board pictures and all, on each poll made this test slower with each move.
    return caught(ctx, kind="reply-accepted")


def test_a_reply_to_a_talk_mail_is_posted_to_the_table(app: Any, ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    for t in toks:
        table_talk.set_talk_mail(ctx, t, True)
    table_talk.talk(ctx, toks[0], "Shall we play fast tonight?")
    (talk_mail,) = caught(ctx, kind="talk")
    assert str(talk_mail["Reply-To"]).startswith("talk+")
    address = str(talk_mail["To"])
    port = free_port()
    controller = receiver(ctx, app.extensions["celery"].relay_inbound, host="127.0.0.1", port=port, lmtp=False)
    controller.start()
    try:
        _send(port, reply_message(talk_mail, "Yes, 12-13 is my plan\n", sender=address), address)

        def posted() -> list[str]:
            with session_scope(ctx.engine) as session:
                return list(session.exec(select(TableMessage.text).order_by(col(TableMessage.id))).all())

        texts = wait_until(lambda: (lambda t: t if len(t) == 2 else None)(posted()))
    finally:
        controller.stop()
    assert texts == ["Shall we play fast tonight?", "Yes, 12-13 is my plan"]
    # Talk is never read as a move.
    assert games.public_game(ctx, game_id)["ply"] == 0


def test_a_turn_mail_sent_back_whole_under_a_german_outlook_header_posts_only_the_players_words(
        app: Any, ctx: Any) -> None:
    """Issue 27: Outlook's German plain-text reply (``Von:``/``Gesendet:``/``An:``/
    ``Betreff:`` above the unquoted original) once posted the whole turn mail,
    secret clan and seat link, to the table and into the others' mail."""
    from tests.inbound.mail_programs import OWN_WORDS, Answered, outlook
    from tests.support.messages import parts

    game_id, toks = new_game(ctx, 3)
    for t in toks:
        table_talk.set_talk_mail(ctx, t, True)
    token, mine = to_move(ctx, toks)
    address = EMAILS[mine["you"]]
    turn = turn_mail(ctx, address)
    text = str(parts(turn)["text"])
    assert f"/play/{token}" in text and "Your secret clan:" in text
    move = mine["legal_moves"][0]
    villages = mine["founding"].get(move, [])
    line = move + (" order " + " ".join(map(str, villages)) if len(villages) > 1 else "")
    body = outlook("de")(line, Answered(subject=str(turn["Subject"]), text=text, html="", to=address)).text
    port = free_port()
    controller = receiver(ctx, app.extensions["celery"].relay_inbound, host="127.0.0.1", port=port, lmtp=False)
    controller.start()
    try:
        _send(port, reply_message(turn, body or "", sender=address), address)
        wait_until(lambda: caught_count(ctx, "@", "reply-accepted") == 1)
    finally:
        controller.stop()
    assert games.public_game(ctx, game_id)["ply"] == mine["ply"] + 1
    with session_scope(ctx.engine) as session:
        posted = list(session.exec(select(TableMessage.text)).all())
    assert posted == [OWN_WORDS["de"]]
    # The others got the talk by mail: the words, nothing of the replier's turn mail.
    others = [EMAILS[p["name"]] for p in mine["players"] if p["name"] != mine["you"]]
    talk_mails = wait_until(lambda: (lambda m: m if len(m) == 2 else None)(
        [m for a in others for m in caught(ctx, a, kind="talk")]))
    for mail in talk_mails:
        text_part, html_part = str(parts(mail)["text"]), str(parts(mail)["html"])
        assert "Viel Glück euch allen!" in text_part and "Viel Glück euch allen!" in html_part
        for part in (text_part, html_part):
            assert token not in part and "Betreff" not in part and "secret clan" not in part.casefold()
    # Nor does any mail the others got since (the next player's turn mail among them).
    for other in others:
        for mail in caught(ctx, other):
            assert token not in mail.as_string()
