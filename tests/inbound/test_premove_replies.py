"""Pre-moves set by replying to a game mail: a first line such as ``then 12-13,
4-5`` (hu "aztán", cs "pak", pt "depois", with or without accents) sets the
seat's list, answered like any reply; over real SMTP, the list then fires as
the turn comes.  Nothing of such a reply reaches the table."""

from __future__ import annotations

import smtplib
from typing import Any

import pytest
from sqlmodel import select

from pbem import games
from pbem.core.db import session_scope
from pbem.core.models import TableMessage
from pbem.inbound.receiver import receiver
from tests.support.clock import wait_until
from tests.support.games import EMAILS, new_game, to_move
from tests.support.messages import caught_count, newest, parts
from tests.support.replies import reply_and_handle, reply_message, turn_mail
from tests.support.smtp import free_port


def _send(port: int, message: Any, sender: str) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        smtp.send_message(message, from_addr=sender, to_addrs=[str(message["To"])])


def _apart(legal: list[str], *avoid: str) -> str:
    used = {int(t) for m in avoid for t in m.split("-")}
    return next(m for m in legal if not {int(t) for t in m.split("-")} & used)


def _after_first_move(ctx: Any) -> tuple[str, list[str], str, dict[str, Any]]:
    """A two-player game where the first player moved on the page: their address,
    the tokens, their token and the view of the other, now to move."""
    game_id, toks = new_game(ctx, 2)
    first, view = to_move(ctx, toks)
    games.submit_move(ctx, first, view["legal_moves"][0], None, view["ply"])
    _, other = to_move(ctx, toks)
    return EMAILS[view["you"]], toks, first, other


@pytest.mark.parametrize("word", ["then", "Then:", "aztán", "aztan", "majd", "pak", "potom", "depois", "então",
                                  "entao"])
def test_each_language_s_word_sets_the_list(ctx: Any, word: str) -> None:
    address, _, first, other = _after_first_move(ctx)
    a, b = other["legal_moves"][:2]
    outcome, _ = reply_and_handle(ctx, address, f"{word} {a}, {b}\n\nsecret plan\n")
    assert outcome == "accepted:premoves"
    assert [m["move"] for m in games.premoves_of(ctx, first)["moves"]] == [a, b]
    answer = newest(ctx, address, "reply-accepted")
    assert answer is not None and "pre-moves are set" in str(answer["Subject"])
    said = parts(answer)["text"]
    assert f"{a.replace('-', ' → ')}, {b.replace('-', ' → ')}" in said
    with session_scope(ctx.engine) as session:  # nothing reached the table
        assert session.exec(select(TableMessage)).all() == []


@pytest.mark.parametrize("line, why", [
    ("then 1-99", "refused:premoves:unknown-territory"),
    ("then {x}-{x}", "refused:premoves:not-adjacent"),
    ("then 12-13, later", "refused:bad-premoves"),
])
def test_moves_that_can_never_be_legal_are_refused_with_the_reason(ctx: Any, line: str, why: str) -> None:
    address, _, first, other = _after_first_move(ctx)
    x = other["legal_moves"][0].split("-")[0]  # a territory with huts
    outcome, _ = reply_and_handle(ctx, address, line.format(x=x) + "\n")
    assert outcome == why
    assert games.premoves_of(ctx, first)["moves"] == []
    answer = newest(ctx, address, "reply-refused")
    assert answer is not None
    text = parts(answer)["text"]
    assert ("pre-moves" in text) and "did not play anything" in text


def test_on_your_own_turn_a_reply_of_pre_moves_is_refused(ctx: Any) -> None:
    _, toks = new_game(ctx, 2)
    token, view = to_move(ctx, toks)
    address = EMAILS[view["you"]]
    outcome, _ = reply_and_handle(ctx, address, f"pak {view['legal_moves'][0]}\n")
    assert outcome == "refused:premoves:your-turn"
    answer = newest(ctx, address, "reply-refused")
    assert answer is not None and "It is your turn: reply with your move instead" in parts(answer)["text"]


def test_pre_moves_below_a_move_play_nothing_and_post_nothing(ctx: Any) -> None:
    _, toks = new_game(ctx, 2)
    token, view = to_move(ctx, toks)
    address = EMAILS[view["you"]]
    outcome, _ = reply_and_handle(ctx, address, f"{view['legal_moves'][0]}\nthen {view['legal_moves'][1]}\n")
    assert outcome == "refused:then-not-first"
    assert games.seat_view(ctx, token)["ply"] == view["ply"]
    with session_scope(ctx.engine) as session:
        assert session.exec(select(TableMessage)).all() == []


def test_a_pre_move_set_by_reply_over_smtp_fires_as_the_turn_comes(app: Any, ctx: Any) -> None:
    address, toks, first, other = _after_first_move(ctx)
    other_token = next(t for t in toks if t != first)
    move = other["legal_moves"][0]
    kept = _apart(other["legal_moves"], move)
    port = free_port()
    controller = receiver(ctx, app.extensions["celery"].relay_inbound, host="127.0.0.1", port=port, lmtp=False)
    controller.start()
    try:
        # The first player answers their old turn mail: first the other's coming move (then illegal), then kept.
        _send(port, reply_message(turn_mail(ctx, address), f"aztán {move}; {kept}\n", sender=address), address)
        wait_until(lambda: caught_count(ctx, address, "reply-accepted") == 1)
    finally:
        controller.stop()
    assert [m["move"] for m in games.premoves_of(ctx, first)["moves"]] == [move, kept]
    games.submit_move(ctx, other_token, move, None, other["ply"])
    # The pre-move fired at once: the other player is to move again, and the list is cleared.
    after = games.seat_view(ctx, other_token)
    assert after["your_turn"] and after["ply"] == other["ply"] + 2 and after["last_move"] == kept
    assert games.premoves_of(ctx, first)["moves"] == []


def test_a_reply_to_table_talk_sets_pre_moves_and_posts_nothing(ctx: Any) -> None:
    from pbem.inbound import handling
    from pbem.table import talk as table_talk
    from tests.support.messages import caught
    from tests.support.replies import store

    address, toks, first, other = _after_first_move(ctx)
    other_token = next(t for t in toks if t != first)
    table_talk.set_talk_mail(ctx, first, True)
    table_talk.talk(ctx, other_token, "Your move!")
    (talk_mail,) = caught(ctx, kind="talk")
    assert str(talk_mail["To"]) == address and str(talk_mail["Reply-To"]).startswith("talk+")
    a = other["legal_moves"][0]
    inbound_id = store(ctx, reply_message(talk_mail, f"depois {a}\nsee you\n", sender=address))
    assert handling.handle(ctx, inbound_id) == "accepted:premoves"
    assert [m["move"] for m in games.premoves_of(ctx, first)["moves"]] == [a]
    with session_scope(ctx.engine) as session:  # only the other's message is at the table
        assert [m.text for m in session.exec(select(TableMessage)).all()] == ["Your move!"]
    answer = newest(ctx, address, "reply-accepted")
    assert answer is not None and a.replace("-", " → ") in parts(answer)["text"]
    # Pre-moves it cannot read are refused, and posted no more than the others.
    inbound_id = store(ctx, reply_message(talk_mail, f"then {a} or the other\n", sender=address))
    assert handling.handle(ctx, inbound_id) == "refused:premoves:invalid-premoves"
    refused = newest(ctx, address, "reply-refused")
    assert refused is not None and "We could not read your pre-moves" in parts(refused)["text"]
    # Talk that merely starts with the word is talk, as before.
    inbound_id = store(ctx, reply_message(talk_mail, "Then we will see.\n", sender=address))
    assert handling.handle(ctx, inbound_id) == "talk"
    with session_scope(ctx.engine) as session:
        assert [m.text for m in session.exec(select(TableMessage)).all()] == ["Your move!", "Then we will see."]
