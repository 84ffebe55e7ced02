"""Playing by replying to the turn mail (pbem/inbound/replies.py).

Each reply is a real message built with the email package, stored as an
``Inbound`` row as the receiver stores it (raw bytes, envelope sender and
recipient), and handled by ``replies.handle_reply``; the answers are the mails
the service really sends (caught by the mailbox), built from the outbox."""

from __future__ import annotations

import html
import re
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.workers import clock
from pbem.inbound import replies, reply_tokens
from pbem.core import tokens
from pbem.core.db import session_scope
from pbem.core.models import Game, Inbound, MoveRecord, Outbox, ReplyToken, TableMessage
from tests.support.clock import frozen_clock
from tests.support.games import EMAILS, db_id, deadline, new_game, set_huts, to_move, two_village_position
from tests.support.messages import caught, caught_count, newest, parts
from tests.support.replies import ANSWERS, answers, reply_and_handle, reply_message, store, turn_mail
from tests.support.web import csrf_from



def ply_of(ctx: Any, game_id: str) -> int:
    return int(games.public_game(ctx, game_id)["ply"])


def mover(ctx: Any, toks: list[str]) -> tuple[str, dict[str, Any], str]:
    token, view = to_move(ctx, toks)
    return token, view, EMAILS[view["you"]]


def move_line(view: dict[str, Any], move: str) -> str:
    villages = view["founding"].get(move) or []
    return f"{move} order {' '.join(map(str, villages))}" if len(villages) > 1 else move


def text_of(message: EmailMessage) -> str:
    return str(parts(message)["text"])


def html_of(message: EmailMessage) -> str:
    return html.unescape(str(parts(message)["html"]))


# -- the turn mail -----------------------------------------------------------------------------


def test_a_turn_mail_carries_its_reply_address_in_reply_to_and_not_in_its_message_id(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    turn = turn_mail(ctx, address)
    reply_to = str(turn["Reply-To"])
    m = re.fullmatch(r"move\+([a-z0-9_-]{43})@clans\.example", reply_to)
    assert m, reply_to
    token = m.group(1)
    # The Message-ID travels in every forwarded header: a random value of its own, no token.
    message_id = str(turn["Message-ID"])
    assert re.fullmatch(r"<[0-9a-f]{32}\.turn@clans\.example>", message_id), message_id
    assert token not in message_id.lower()
    with session_scope(ctx.engine) as session:
        (row,) = session.exec(select(Outbox).where(Outbox.kind == "turn")).all()
        assert row.message_id == message_id and row.fingerprint  # what it said is kept, as hashes only
        assert token.encode() not in row.fingerprint
    for part in (text_of(turn), html_of(turn)):
        assert "Reply to this email with your move on the first line, e.g. 12-13" in part
    with session_scope(ctx.engine) as session:
        (row,) = session.exec(select(ReplyToken)).all()
        # Only the salt and the digest are stored; the salt has 128 random bits.
        assert row.ply == view["ply"] and row.token_hash == tokens.digest(token) and len(row.token_salt) == 32
        assert token not in (row.token_salt, row.token_hash)
        assert reply_tokens.find_turn(session, f"move+{token.upper()}") is not None  # a folded case still finds it
        assert reply_tokens.find_turn(session, f"move+{token[:-1]}x") is None
        assert reply_tokens.is_reply_address(session, reply_to) and not reply_tokens.is_reply_address(session, "move@clans.example")


# -- a whole game --------------------------------------------------------------------------------


def test_a_whole_two_player_game_played_only_by_replies(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    moves = 0
    while games.public_game(ctx, game_id)["status"] == "active":
        _, view, address = mover(ctx, toks)
        move = view["legal_moves"][0]
        before = caught_count(ctx, address, "reply-accepted")
        outcome, _ = reply_and_handle(ctx, address, move_line(view, move))
        assert outcome == "accepted", (moves, outcome)
        moves += 1
        assert ply_of(ctx, game_id) == view["ply"] + 1
        assert caught_count(ctx, address, "reply-accepted") == before + 1
        accepted = newest(ctx, address, "reply-accepted")
        assert accepted is not None
        assert f"played your move {move.replace('-', ' → ')}" in text_of(accepted)
        assert parts(accepted)["images"] or not games.public_game(ctx, game_id)["huts"]
        assert moves < 200
    assert games.public_game(ctx, game_id)["status"] == "finished"
    assert caught(ctx, kind="game-over")
    with session_scope(ctx.engine) as session:
        assert len(session.exec(select(MoveRecord)).all()) == moves
        assert all(i.status == "done" and i.outcome == "accepted" for i in session.exec(select(Inbound)))


# -- what the reply says --------------------------------------------------------------------------

SERVICE = "Clans by Mail <clans@localhost>"
QUOTES = {
    "en": ("Good luck, everyone!", f"On Tue, 1 Dec 2026 at 10:00, {SERVICE} wrote:", "gmail"),
    "hu": ("Sok sikert mindenkinek!", "Clans by Mail írta 2026.12.01 10:00-kor:", "thunderbird"),
    "cs": ("Hodně štěstí všem!", f"1. 12. 2026 v 10:00, {SERVICE} napsal/a:", "apple"),
    "pt": ("Boa sorte a todos!", "-----Mensagem original-----", "outlook"),
}
SIGNATURES = {"en": "-- \nAnn", "hu": "iPhone-ról küldve", "cs": "Odesláno z mého iPhonu",
              "pt": "Enviado do meu iPhone"}


def _quoted_reply(language: str, move: str, original: str) -> str:
    talk, header, client = QUOTES[language]
    signature = SIGNATURES[language]
    if client == "outlook":  # the original follows unquoted, below Outlook's header block
        return (f"{move}\n{talk}\n\n{signature}\n\n{header}\nDe: {SERVICE}\nEnviado: terça-feira, 1 de dezembro "
                f"de 2026 10:00\nPara: x@example.org\nAssunto: É a sua vez\n\n{original}\n")
    quoted = "\n".join(f"> {line}".rstrip() for line in original.split("\n"))
    return f"{move}\n\n{talk}\n\n{signature}\n\n{header}\n{quoted}\n"


@pytest.mark.parametrize("language", ["en", "hu", "cs", "pt"])
def test_a_reply_under_a_quoted_original_in_each_language(ctx: Any, language: str) -> None:
    game_id, toks = new_game(ctx, 2)
    token, view, address = mover(ctx, toks)
    games.set_language(ctx, token, language)
    # The turn mail they answer, in their language now; its text holds moves that must not be read.
    games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    other, other_view, other_address = mover(ctx, toks)
    games.submit_move(ctx, other, other_view["legal_moves"][0], None, other_view["ply"])
    _, view, address = mover(ctx, toks)
    move = view["legal_moves"][-1]
    original = text_of(turn_mail(ctx, address))
    outcome, _ = reply_and_handle(ctx, address, _quoted_reply(language, move_line(view, move), original))
    assert outcome == "accepted:talk"
    with session_scope(ctx.engine) as session:
        record = session.exec(select(MoveRecord).where(MoveRecord.ply == view["ply"])).one()
        (talk,) = session.exec(select(TableMessage)).all()
    assert record.move == move and not record.by_autopilot
    assert talk.text == QUOTES[language][0] and talk.source == "reply"
    (accepted,) = caught(ctx, address, kind="reply-accepted")
    assert str(accepted["Content-Language"]).startswith(language)
    assert QUOTES[language][0] in text_of(accepted) and QUOTES[language][0] in html_of(accepted)


def test_an_html_only_reply(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    move = view["legal_moves"][0]
    turn = turn_mail(ctx, address)
    body = (f'<div dir="ltr"><div>{move}</div><div><br></div><div>See you on the board&nbsp;!</div></div>'
            f'<div class="gmail_quote"><blockquote>{html.escape(text_of(turn))}</blockquote></div>')
    outcome, _ = reply_and_handle(ctx, address, "", html_body=body)
    assert outcome == "accepted:talk"
    assert ply_of(ctx, game_id) == 1
    with session_scope(ctx.engine) as session:
        assert [t.text for t in session.exec(select(TableMessage))] == ["See you on the board !"]


def test_a_reply_found_only_through_in_reply_to_is_confirmed_on_the_page_not_played(ctx: Any) -> None:
    """The Message-ID it answers travels in every forwarded header: a From
    anyone can write plus that header moves nothing without INBOUND_TRUST."""
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    outcome, _ = reply_and_handle(ctx, address, view["legal_moves"][0], to="move@clans.example")
    assert outcome == "confirm:headers" and ply_of(ctx, game_id) == 0
    (confirm,) = caught(ctx, address, kind="reply-confirm")
    assert "not sent to the reply address of that mail" in text_of(confirm).replace("\n", " ")
    assert "not sent to the reply address of that mail" in html_of(confirm).replace("\n", " ")
    # With our server vouching for the sender, the same reply is the seat's.
    ctx.config["INBOUND_TRUST"] = TRUST
    message = reply_message(turn_mail(ctx, address), view["legal_moves"][0], sender=address,
                            to="move@clans.example",
                            headers={"Authentication-Results": "mx.clans.example; dmarc=pass header.from=example.org"})
    assert replies.handle_reply(ctx, store(ctx, message)) == "accepted" and ply_of(ctx, game_id) == 1
    ctx.config["INBOUND_TRUST"] = ""
    # Without the tag and without the thread, nothing tells which turn it was: nobody is answered.
    _, view, address = mover(ctx, toks)
    outcome, _ = reply_and_handle(ctx, address, view["legal_moves"][0], to="move@clans.example", threaded=False)
    assert outcome == "ignored-unknown" and ply_of(ctx, game_id) == 1
    assert not caught(ctx, address, kind="reply-refused")


def test_a_reply_to_a_turn_mail_sent_before_message_ids_had_their_own_value(ctx: Any) -> None:
    """Mail sent before carried the token in its Message-ID: a reply to it still
    plays by its +tag address, and one found only by that Message-ID is confirmed."""
    game_id, toks = new_game(ctx, 2)
    for expected in ("accepted", "confirm:headers"):
        _, view, address = mover(ctx, toks)
        turn = turn_mail(ctx, address)
        token = str(turn["Reply-To"]).partition("+")[2].partition("@")[0]
        turn.replace_header("Message-ID", f"<{token}.turn.7@clans.example>")
        to = None if expected == "accepted" else "move@clans.example"
        message = reply_message(turn, view["legal_moves"][0], sender=address, to=to)
        assert replies.handle_reply(ctx, store(ctx, message)) == expected
    assert ply_of(ctx, game_id) == 1


def test_the_talk_after_the_move_goes_to_the_table_and_the_answer_says_so(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    move = view["legal_moves"][0]
    outcome, _ = reply_and_handle(ctx, address, f"{move}\n\nNice board.\n<b>Not a tag</b>\n\n-- \nAnn")
    assert outcome == "accepted:talk"
    with session_scope(ctx.engine) as session:
        (talk,) = session.exec(select(TableMessage)).all()
        assert talk.text == "Nice board.\n<b>Not a tag</b>" and talk.source == "reply"
        assert talk.game_id == db_id(session, game_id)
    (accepted,) = caught(ctx, address, kind="reply-accepted")
    assert "posted to the table" in text_of(accepted) and "Nice board." in text_of(accepted)
    assert "&lt;b&gt;Not a tag&lt;/b&gt;" in str(parts(accepted)["html"])  # escaped in the HTML


# -- who sent it ----------------------------------------------------------------------------------


def test_a_reply_from_another_address_is_not_played_and_the_seat_confirms_on_its_page(ctx: Any, client: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    token, view, address = mover(ctx, toks)
    huts, move, villages = two_village_position()
    set_huts(ctx, game_id, huts)
    view = games.seat_view(ctx, token)
    order = list(reversed(villages))
    body = f"{move} order {' '.join(map(str, order))}"
    outcome, _ = reply_and_handle(ctx, address, body, sender_header="Ann <ann@elsewhere.example>",
                                  sender="ann@elsewhere.example")
    assert outcome == "confirm:sender"
    assert ply_of(ctx, game_id) == 0
    (confirm,) = caught(ctx, address, kind="reply-confirm")
    assert answers(ctx, "ann@elsewhere.example") == []  # the answer goes to the seat, never to the sender
    text = text_of(confirm)
    assert "ann@elsewhere.example" in text and "nothing was played" in text
    link = re.search(r"https://clans\.example(/play/\S+\?move=\S+)", text)
    assert link, text
    assert f"?move={move}&order={order[0]}%2C{order[1]}" in link.group(1)
    # Opening the link plays nothing: the page has the move filled in, to confirm.
    page = client.get(link.group(1))
    assert page.status_code == 200 and ply_of(ctx, game_id) == 0
    body_html = page.get_data(as_text=True)
    assert f'value="{move}" selected' in body_html and f'value="{order[0]}, {order[1]}"'.replace(", ", ",") in \
        body_html.replace(", ", ",")
    confirmed = client.post(f"/play/{token}/move", data={"csrf_token": csrf_from(body_html), "ply": "0",
                                                         "move": move, "order": f"{order[0]},{order[1]}"})
    assert confirmed.status_code == 303 and ply_of(ctx, game_id) == 1


def test_the_envelope_sender_must_be_the_seat_too(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    outcome, _ = reply_and_handle(ctx, address, view["legal_moves"][0], sender="someone@spoof.example")
    assert outcome == "confirm:sender" and ply_of(ctx, game_id) == 0
    # The address's case does not matter.
    outcome, _ = reply_and_handle(ctx, address, view["legal_moves"][0], sender_header=address.upper(),
                                  sender=address.upper())
    assert outcome == "accepted" and ply_of(ctx, game_id) == 1


TRUST = "authres:mx.clans.example"


@pytest.mark.parametrize("results, played", [
    (["mx.clans.example; spf=pass smtp.mailfrom=example.org; dmarc=pass (p=reject) header.from=example.org"], True),
    (["mx.clans.example 1; dkim=pass (2048-bit key) header.d=example.org header.s=s1"], True),
    (["MX.Clans.Example; spf=pass smtp.mailfrom=ann@mail.example.org"], True),
    (["mx.clans.example; dmarc=fail header.from=example.org"], False),
    (["mx.clans.example; spf=pass smtp.mailfrom=other.example; dkim=pass header.d=other.example"], False),
    (["mx.clans.example; dmarc=pass header.from=other.example"], False),
    ([], False),
    # Anyone may write an Authentication-Results header: only our server's count ...
    (["evil.example; dmarc=pass header.from=example.org"], False),
    (["mx.clans.example.evil.example; dmarc=pass header.from=example.org"], False),
    (["(mx.clans.example) evil.example; dmarc=pass header.from=example.org"], False),
    # ... and one forged with our server's name cannot outvote our server's own.
    (["mx.clans.example; dmarc=pass header.from=example.org", "mx.clans.example; dmarc=fail header.from=example.org"],
     False),
    (["mx.clans.example; dmarc=pass header.from=example.org", "evil.example; dmarc=fail"], True),
])
def test_with_inbound_trust_an_authentication_result_from_our_server_is_needed(ctx: Any, results: list[str],
                                                                                 played: bool) -> None:
    ctx.config["INBOUND_TRUST"] = TRUST
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    turn = turn_mail(ctx, address)
    message = reply_message(turn, view["legal_moves"][0], sender=address)
    for value in results:
        message["Authentication-Results"] = value
    outcome = replies.handle_reply(ctx, store(ctx, message))
    assert outcome == ("accepted" if played else "confirm:trust")
    assert ply_of(ctx, game_id) == (1 if played else 0)
    if not played:
        (confirm,) = caught(ctx, address, kind="reply-confirm")
        assert "could not confirm that it was sent by ann@example.org" in text_of(confirm).replace("\n", " ") \
            or "could not confirm that it was sent by" in text_of(confirm).replace("\n", " ")


# -- too late, twice, wrong ------------------------------------------------------------------------


def test_two_replies_for_one_turn_play_once(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    turn = turn_mail(ctx, address)
    first, second = view["legal_moves"][0], view["legal_moves"][1]
    both = [store(ctx, reply_message(turn, m, sender=address)) for m in (first, second)]
    assert [replies.handle_reply(ctx, i) for i in both] == ["accepted", "refused:used"]
    assert ply_of(ctx, game_id) == 1
    with session_scope(ctx.engine) as session:
        (record,) = session.exec(select(MoveRecord)).all()
        assert record.move == first
    refused = caught(ctx, address, kind="reply-refused")[-1]
    assert "We already had a reply from you for this turn" in text_of(refused).replace("\n", " ")
    assert refused["Reply-To"] is None  # the turn is over: nothing to answer
    # The same reply sent twice (two Message-IDs): played once.
    _, view, address = mover(ctx, toks)
    turn = turn_mail(ctx, address)
    twice = [store(ctx, reply_message(turn, view["legal_moves"][0], sender=address)) for _ in range(2)]
    assert [replies.handle_reply(ctx, i) for i in twice] == ["accepted", "refused:used"]
    assert ply_of(ctx, game_id) == 2
    # Handling a message again does nothing more.
    assert replies.handle_reply(ctx, twice[0]) == "accepted"
    assert len(caught(ctx, address, kind="reply-accepted")) == 1


def test_a_reply_to_a_turn_already_played_on_the_page_or_by_the_autopilot_is_refused_kindly(ctx: Any) -> None:
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx, 2)
    token, view, address = mover(ctx, toks)
    turn = turn_mail(ctx, address)
    games.submit_move(ctx, token, view["legal_moves"][0], None, view["ply"])
    outcome = replies.handle_reply(ctx, store(ctx, reply_message(turn, view["legal_moves"][1], sender=address)))
    assert outcome == "refused:moved" and ply_of(ctx, game_id) == 1
    text = text_of(caught(ctx, address, kind="reply-refused")[-1]).replace("\n", " ")
    assert f"You had already played {view['legal_moves'][0].replace('-', ' → ')} for this turn" in text
    # The autopilot moves for the next player; their reply comes too late.
    _, view, address = mover(ctx, toks)
    turn = turn_mail(ctx, address)
    now.at = deadline(ctx, game_id)
    now.advance(seconds=1)
    clock.expire_deadlines(ctx)
    assert ply_of(ctx, game_id) == 2
    outcome = replies.handle_reply(ctx, store(ctx, reply_message(turn, view["legal_moves"][0], sender=address)))
    assert outcome == "refused:autopilot"
    text = text_of(caught(ctx, address, kind="reply-refused")[-1]).replace("\n", " ")
    assert "the autopilot had already played" in text


def test_a_refused_move_says_why_and_what_can_be_played_and_a_corrected_reply_plays(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    outcome, _ = reply_and_handle(ctx, address, "12-99\n\nHere goes!")
    assert outcome == "refused:rules:unknown-territory" and ply_of(ctx, game_id) == 0
    (refused,) = caught(ctx, address, kind="reply-refused")
    text = text_of(refused)
    assert "there is no territory 99" in text
    assert "Nothing of your reply was posted to the table" in text
    first = view["legal_moves"][0]
    source, _, target = first.partition("-")
    assert re.search(rf"^  {source} → .*\b{target}\b", text, re.MULTILINE), text
    # The refusal can be answered like the turn mail.
    assert str(refused["Reply-To"]) == str(turn_mail(ctx, address)["Reply-To"])
    assert str(refused["In-Reply-To"]).startswith("<") and "client.example" in str(refused["In-Reply-To"])
    message = reply_message(refused, first, sender=address)
    assert replies.handle_reply(ctx, store(ctx, message)) == "accepted"
    assert ply_of(ctx, game_id) == 1
    with session_scope(ctx.engine) as session:
        assert session.exec(select(TableMessage)).all() == []


@pytest.mark.parametrize("body, problem, words", [
    ("I will move tomorrow", "no-move", "We found no move on the first line"),
    ("Hi!\n12-13", "move-not-first", "The move must be on the first line"),
    ("12-13 14-15", "two-moves", "more than one move"),
    ("12-13 order 14 14", "bad-order", "could not read the order of the villages"),
])
def test_a_reply_without_a_readable_move_is_refused_with_the_reason(ctx: Any, body: str, problem: str,
                                                                   words: str) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    outcome, _ = reply_and_handle(ctx, address, body)
    assert outcome == f"refused:{problem}" and ply_of(ctx, game_id) == 0
    (refused,) = caught(ctx, address, kind="reply-refused")
    assert words in text_of(refused).replace("\n", " ") and words in html_of(refused).replace("\n", " ")
    with session_scope(ctx.engine) as session:
        assert session.exec(select(ReplyToken.used_at)).one() is None  # the turn can still be answered


def test_a_move_interrupted_after_the_token_was_taken_is_finished_once(ctx: Any) -> None:
    """A worker dies after taking the token (and perhaps after the move): run
    again, the handler finishes it, and the move is there once."""
    game_id, toks = new_game(ctx, 2)
    token, view, address = mover(ctx, toks)
    move = view["legal_moves"][0]
    inbound_id = store(ctx, reply_message(turn_mail(ctx, address), move, sender=address))
    games.submit_move(ctx, token, move, None, view["ply"])  # played ... and the worker dies here
    with session_scope(ctx.engine) as session:
        row = session.get(Inbound, inbound_id)
        assert row is not None
        row.outcome = replies.APPLYING
        for t in session.exec(select(ReplyToken)):
            t.used_at = ctx.now()
            session.add(t)
        session.add(row)
    assert replies.handle_reply(ctx, inbound_id) == "accepted"
    assert ply_of(ctx, game_id) == 1
    assert len(caught(ctx, address, kind="reply-accepted")) == 1


# -- mail that is never answered --------------------------------------------------------------------


@pytest.mark.parametrize("headers, sender", [
    ({"Auto-Submitted": "auto-replied"}, None),
    ({"Auto-Submitted": "auto-generated; owner-email=ann@example.org"}, None),
    ({"Precedence": "bulk"}, None),
    ({"Precedence": "junk"}, None),
    ({"X-Autoreply": "yes"}, None),
    ({"X-PBEM-Kind": "turn"}, None),  # our own mail, back again
    ({}, ""),  # the null sender
])
def test_automatic_mail_is_never_answered(ctx: Any, headers: dict[str, str], sender: str | None) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    options: dict[str, Any] = {"headers": headers}
    if sender is not None:
        options["sender"] = sender
    outcome, _ = reply_and_handle(ctx, address, f"{view['legal_moves'][0]}\n\nI am away until Monday.", **options)
    assert outcome == "ignored-auto"
    assert ply_of(ctx, game_id) == 0 and answers(ctx) == []


def test_auto_submitted_no_is_a_person_writing(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    outcome, _ = reply_and_handle(ctx, address, view["legal_moves"][0], headers={"Auto-Submitted": "No"})
    assert outcome == "accepted" and ply_of(ctx, game_id) == 1


def test_a_bounce_is_never_answered(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    turn = turn_mail(ctx, address)
    bounce = EmailMessage()
    bounce["From"] = "Mail Delivery System <MAILER-DAEMON@example.org>"
    bounce["To"] = str(turn["Reply-To"])
    bounce["Subject"] = "Undelivered Mail Returned to Sender"
    bounce["Message-ID"] = make_msgid("bounce", domain="example.org")
    bounce["In-Reply-To"] = str(turn["Message-ID"])
    bounce.set_content(f"{view['legal_moves'][0]}\n\nThis is the mail system at host example.org.")
    bounce.add_attachment("Reporting-MTA: dns; example.org\n\nFinal-Recipient: rfc822; x@example.org\n"
                          "Action: failed\nStatus: 5.1.1\n", subtype="delivery-status")
    bounce.replace_header("Content-Type", bounce["Content-Type"].replace("multipart/mixed", "multipart/report"))
    assert replies.handle_reply(ctx, store(ctx, bounce, sender="")) == "ignored-auto"
    # Not even with a sender, from the mail system.
    bounce.replace_header("Message-ID", make_msgid("bounce2", domain="example.org"))
    assert replies.handle_reply(ctx, store(ctx, bounce, sender="MAILER-DAEMON@example.org")) == "ignored-auto"
    assert ply_of(ctx, game_id) == 0 and answers(ctx) == []
    with session_scope(ctx.engine) as session:
        assert session.exec(select(ReplyToken.used_at)).one() is None
        game = session.exec(select(Game).where(col(Game.public_id) == game_id)).one()
        assert game.ply == 0


def test_answers_to_replies_are_rate_limited_per_seat(app: Any, ctx: Any) -> None:
    """Anyone who saw a reply address could send replies in the player's name;
    beyond LIMIT_REPLY_ANSWERS the replies are still handled, only not answered."""
    app.config["LIMIT_REPLY_ANSWERS"] = "2 per hour"
    game_id, toks = new_game(ctx, 2)
    _, view = to_move(ctx, toks)
    address = EMAILS[view["you"]]
    outcomes = [reply_and_handle(ctx, address, "nothing to see here")[0] for _ in range(4)]
    assert outcomes == ["refused:no-move"] * 4
    assert len(answers(ctx, address)) == 2


def test_received_mail_is_kept_for_the_retention_days_only(ctx: Any) -> None:
    """Replies hold players' own words: handled ones go after RETENTION_DAYS,
    unless the answer worded from them is still waiting to be sent."""
    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx, 2)
    _, view = to_move(ctx, toks)
    address = EMAILS[view["you"]]
    _, kept_id = reply_and_handle(ctx, address, "no move at all")
    _, gone_id = reply_and_handle(ctx, address, "still no move")
    with session_scope(ctx.engine) as session:
        waiting = session.exec(select(Outbox).where(Outbox.event == f"inbound:{kept_id}")).one()
        waiting.status = "pending"  # say its answer could not be sent yet
        session.add(waiting)
    now.advance(days=ctx.config["RETENTION_DAYS"] - 1)
    assert clock.prune(ctx)["inbound_deleted"] == 0
    now.advance(days=2)
    assert clock.prune(ctx)["inbound_deleted"] == 1
    with session_scope(ctx.engine) as session:
        assert [r.id for r in session.exec(select(Inbound))] == [kept_id]


def test_no_move_again_in_answer_to_our_refusal_is_not_answered(ctx: Any) -> None:
    """An out-of-office robot that answers without saying so (no Auto-Submitted,
    a real sender) gets one refusal, not an endless exchange."""
    game_id, toks = new_game(ctx, 2)
    _, view = to_move(ctx, toks)
    address = EMAILS[view["you"]]
    assert reply_and_handle(ctx, address, "I am out of the office until Monday.")[0] == "refused:no-move"
    (refusal,) = answers(ctx, address)
    robot = reply_message(refusal, "I am out of the office until Monday.", sender=address)
    assert replies.handle_reply(ctx, store(ctx, robot)) == "refused:no-move:unanswered"
    assert len(answers(ctx, address)) == 1
    # A person correcting their reply to the refusal is still played.
    _, view = to_move(ctx, toks)
    move = next(m for m in view["legal_moves"] if len(view["founding"].get(m, [])) <= 1)
    fixed = reply_message(refusal, move, sender=address)
    assert replies.handle_reply(ctx, store(ctx, fixed)).startswith("accepted")


def test_reply_addresses_go_with_retention_once_the_game_is_over(ctx: Any) -> None:
    """A game's reply addresses stay while it is played (table talk answers through
    the token of the turn its mail was written at, however long ago), and go
    RETENTION_DAYS after the game is over: they are most of what a finished game
    would keep for ever (bench "cost")."""
    from tests.support.games import play

    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx, 2)
    play(ctx, toks, 3)

    def plies() -> list[int]:
        with session_scope(ctx.engine) as session:
            return sorted(r.ply for r in session.exec(select(ReplyToken).where(ReplyToken.game_id == db_id(ctx, game_id))))

    assert plies() == [0, 1, 2, 3]
    now.advance(days=ctx.config["RETENTION_DAYS"] + 1)
    assert clock.prune(ctx)["reply_tokens_deleted"] == 0  # still being played
    with session_scope(ctx.engine) as session:
        game = session.exec(select(Game).where(Game.public_id == game_id)).one()
        game.status = "finished"
        session.add(game)
    assert clock.prune(ctx)["reply_tokens_deleted"] == 4 and plies() == []
    assert clock.prune(ctx)["reply_tokens_deleted"] == 0


def test_talk_to_an_old_mail_of_a_running_game_still_posts_after_retention(ctx: Any) -> None:
    """The talk address of a mail written more than RETENTION_DAYS ago still reaches
    the table while the game goes on."""
    from pbem.table import talk as table_talk
    from pbem.inbound import handling
    from tests.support.games import play

    now = frozen_clock(ctx)
    game_id, toks = new_game(ctx, 2)
    for t in toks:
        table_talk.set_talk_mail(ctx, t, True)
    table_talk.talk(ctx, toks[0], "Shall we play fast tonight?")
    (talk_mail,) = caught(ctx, kind="talk")
    play(ctx, toks, 2)  # the turn the talk mail was written at is long past
    now.advance(days=ctx.config["RETENTION_DAYS"] + 1)
    clock.prune(ctx)
    address = str(talk_mail["To"])
    outcome = handling.handle(ctx, store(ctx, reply_message(talk_mail, "Yes, a month on\n", sender=address)))
    with session_scope(ctx.engine) as session:
        texts = list(session.exec(select(TableMessage.text).order_by(col(TableMessage.id))).all())
    assert texts[-1].startswith("Yes, a month on"), (outcome, texts)


# -- nothing of the mail answered reaches the table (issue 27) --------------------------------------

from pbem.words import Words  # noqa: E402
from tests.inbound.mail_programs import FINGERPRINT_ONLY, OWN_WORDS, STYLES, Answered  # noqa: E402
from pbem import games

LEFT_OUT = "We left out of the table talk what came from our own mail to you"


def answered(turn: EmailMessage) -> Answered:
    found = parts(turn)
    return Answered(subject=str(turn["Subject"]), text=str(found["text"]), html=str(found["html"]),
                    to=str(turn["To"]))


def clan_names(clan: str) -> list[str]:
    return [Words(language).clan(clan) for language in ("en", "hu", "cs", "pt")]


def assert_nothing_of(text: str, seat_token: str, reply_token: str, clan: str) -> None:
    """Nothing of a turn mail in ``text``: no token, no link holding one, no
    secret-clan line, no clan name."""
    folded = text.casefold()
    assert seat_token not in text and reply_token not in text and "/play/" not in text
    assert "/unsubscribe/" not in text and "move+" not in folded
    assert "secret clan" not in folded and "your turn" not in folded
    for name in clan_names(clan):
        assert name.casefold() not in folded, name


@pytest.mark.parametrize("style", sorted(STYLES))
def test_a_reply_with_the_original_below_posts_only_the_players_own_words(ctx: Any, style: str) -> None:
    game_id, toks = new_game(ctx, 2)
    token, view, address = mover(ctx, toks)
    language, write = STYLES[style]
    move = move_line(view, view["legal_moves"][0])
    turn = turn_mail(ctx, address)
    reply_token = re.fullmatch(r"move\+(\S+)@clans\.example", str(turn["Reply-To"])).group(1)  # type: ignore[union-attr]
    assert f"/play/{token}" in text_of(turn) and "Your secret clan" in text_of(turn)
    body = write(move, answered(turn))
    message = reply_message(turn, body.text or "", sender=address, html_body=body.html)
    if body.flowed:
        message.set_content(body.text, params={"format": "flowed"})
    outcome = replies.handle_reply(ctx, store(ctx, message))
    # The move is played, and the player's own words, only they, go to the table.
    assert outcome == "accepted:talk"
    assert ply_of(ctx, game_id) == view["ply"] + 1
    with session_scope(ctx.engine) as session:
        (talk,) = session.exec(select(TableMessage)).all()
    assert talk.text == OWN_WORDS[language]
    assert_nothing_of(talk.text, token, reply_token, view["clan"])
    # The answer says when something was left out that no quote header gave away.
    (accepted,) = caught(ctx, address, kind="reply-accepted")
    said = style in FINGERPRINT_ONLY
    assert (LEFT_OUT in text_of(accepted).replace("\n", " ")) == said and (LEFT_OUT in html_of(accepted)) == said


def test_a_token_link_or_a_secret_clan_is_left_out_without_a_fingerprint_too(ctx: Any) -> None:
    """A turn mail sent before fingerprints were kept (or one pruned since):
    the links with a token and the secret-clan lines still never reach the table."""
    game_id, toks = new_game(ctx, 2)
    token, view, address = mover(ctx, toks)
    with session_scope(ctx.engine) as session:
        for row in session.exec(select(Outbox)):
            row.fingerprint = None
            session.add(row)
    clan = Words("en").clan(view["clan"])
    move = view["legal_moves"][0]
    body = (f"{move}\nHere is my seat: https://clans.example/play/{token} have fun\n"
            f"My secret clan: {clan}\nSee you!\n")
    outcome, _ = reply_and_handle(ctx, address, body)
    assert outcome == "accepted:talk" and ply_of(ctx, game_id) == 1
    with session_scope(ctx.engine) as session:
        (talk,) = session.exec(select(TableMessage)).all()
    assert talk.text == "Here is my seat:  have fun\nSee you!"
    (accepted,) = caught(ctx, address, kind="reply-accepted")
    assert LEFT_OUT in text_of(accepted).replace("\n", " ")


def test_a_plain_reply_leaves_nothing_out_and_says_nothing_of_it(ctx: Any) -> None:
    game_id, toks = new_game(ctx, 2)
    _, view, address = mover(ctx, toks)
    outcome, _ = reply_and_handle(ctx, address, f"{view['legal_moves'][0]}\nThe red huts look lonely, and "
                                                f"it is your turn next, Bob.\n")
    assert outcome == "accepted:talk"
    with session_scope(ctx.engine) as session:
        (talk,) = session.exec(select(TableMessage)).all()
    assert talk.text == "The red huts look lonely, and it is your turn next, Bob."
    (accepted,) = caught(ctx, address, kind="reply-accepted")
    assert LEFT_OUT not in text_of(accepted).replace("\n", " ")


def test_a_reply_to_a_talk_mail_posts_nothing_of_that_mail(ctx: Any) -> None:
    from pbem.table import talk as table_talk
    from pbem.inbound import handling

    game_id, toks = new_game(ctx, 2)
    for t in toks:
        table_talk.set_talk_mail(ctx, t, True)
    table_talk.talk(ctx, toks[0], "Shall we play fast tonight?")
    (talk_mail,) = caught(ctx, kind="talk")
    address = str(talk_mail["To"])
    seat = next(t for t in toks if f"/play/{t}" in text_of(talk_mail))
    body = STYLES["outlook-de"][1]("Ja, gern!", answered(talk_mail)).text or ""
    outcome = handling.handle(ctx, store(ctx, reply_message(talk_mail, body, sender=address)))
    with session_scope(ctx.engine) as session:
        texts = list(session.exec(select(TableMessage.text).order_by(col(TableMessage.id))).all())
    assert texts[-1] == "Ja, gern!\n" + OWN_WORDS["de"], (outcome, texts)
    assert seat not in texts[-1] and "Shall we play" not in texts[-1]


def test_talk_found_only_through_in_reply_to_is_not_posted_without_trust(ctx: Any) -> None:
    from pbem.table import talk as table_talk
    from pbem.inbound import handling

    game_id, toks = new_game(ctx, 2)
    for t in toks:
        table_talk.set_talk_mail(ctx, t, True)
    table_talk.talk(ctx, toks[0], "Shall we play fast tonight?")
    (talk_mail,) = caught(ctx, kind="talk")
    address = str(talk_mail["To"])
    forged = reply_message(talk_mail, "I give up, take my seat\n", sender=address, to="talk@clans.example")
    assert handling.handle(ctx, store(ctx, forged)) == "ignored-headers"
    with session_scope(ctx.engine) as session:
        assert list(session.exec(select(TableMessage.text))) == ["Shall we play fast tonight?"]
