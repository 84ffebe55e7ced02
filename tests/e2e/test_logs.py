"""The logs of a whole game: one line per event, JSON when asked for, and never
a seat token, a reply token, a person's address or a clan in any of them.

The game is played the ways players play: replies by SMTP to the real
receiver (one to an address that does not exist), the API, the pages."""

from __future__ import annotations

import json
import logging
import re
import smtplib
from typing import Any

import pytest

from pbem import games
from pbem.core.logs import JsonFormatter, TextFormatter, configure, redact
from pbem.rules.tables import CLANS
from pbem.inbound.receiver import receiver
from tests.support.clock import wait_until
from tests.support.games import EMAILS, new_game, to_move
from tests.support.messages import caught, caught_count
from tests.support.replies import reply_message, turn_mail
from tests.support.smtp import free_port

CLAN_WORD = re.compile(r"\b(" + "|".join(CLANS) + r")\b", re.IGNORECASE)


def _send(port: int, message: Any, sender: str, to: str | None = None) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        smtp.send_message(message, from_addr=sender, to_addrs=[to or str(message["To"])])


def _reply_tokens(ctx: Any) -> set[str]:
    found = set()
    for message in caught(ctx, kind="turn"):
        m = re.search(r"move\+([A-Za-z0-9]+)@", str(message["Reply-To"]))
        if m:
            found.add(m.group(1))
    return found


def test_a_whole_games_logs_name_no_token_address_or_clan(app: Any, ctx: Any, client: Any,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    game_id, toks = new_game(ctx, 2)
    clans = {games.seat_view(ctx, t)["clan"] for t in toks}
    port = free_port()
    controller = receiver(ctx, app.extensions["celery"].relay_inbound, host="127.0.0.1", port=port, lmtp=False)
    controller.start()
    try:
        for turn in range(3):
            _, mine = to_move(ctx, toks)
            address = EMAILS[mine["you"]]
            mail = turn_mail(ctx, address)
            _send(port, reply_message(mail, mine["legal_moves"][0] + "\n", sender=address), address)
            wait_until(lambda: caught_count(ctx, "@", "reply-accepted") == turn + 1)
        # A reply address that is not (or no longer) live is refused at RCPT, and logged.
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            _send(port, reply_message(mail, "1-2\n", sender=address), address,
                  to="move+notalivetoken0000@" + str(mail["Reply-To"]).rpartition("@")[2].rstrip(">"))
    finally:
        controller.stop()
    for token in toks:
        assert client.get(f"/play/{token}").status_code == 200
    while games.public_game(ctx, game_id)["status"] == "active":
        token, view = to_move(ctx, toks)
        move = view["legal_moves"][0]
        order = view["founding"].get(move) or None
        answer = client.post("/api/v1/seat/moves", headers={"Authorization": f"Bearer {token}"},
                             json={"move": move, "order": order, "ply": view["ply"]})
        assert answer.status_code == 200, answer.get_json()
    # Hand-overs and the computer's moves are logged with the game's id.
    records = list(caplog.records)
    assert any("inbound" in r.getMessage() for r in records)  # the receiver did log
    assert any("refused recipient" in r.getMessage() for r in records)

    json_lines = [JsonFormatter().format(r) for r in records]
    text_lines = [TextFormatter().format(r) for r in records]
    for line in json_lines:
        entry = json.loads(line)  # one object a line, and nothing around it
        assert {"time", "level", "logger", "message"} <= set(entry)
        assert "\n" not in line
    secrets = set(toks) | _reply_tokens(ctx)
    addresses = {EMAILS[name] for name in EMAILS}
    assert secrets and addresses
    for line in json_lines + text_lines:
        for secret in secrets:
            assert secret not in line, line
        for address in addresses:
            assert address not in line and address.partition("@")[0] + "@" not in line, line
    # No clan, not even in the words of a line (the clans were {clans} here).
    for record in records:
        message = record.getMessage()
        assert not CLAN_WORD.search(message), (clans, message)


def test_lines_about_a_game_carry_its_id_in_both_formats() -> None:
    record = logging.LogRecord("pbem.services", logging.INFO, __file__, 1, "the computer (%s) played move %d",
                               ("hard", 3), None)
    record.game = "Xy12ab"
    assert json.loads(JsonFormatter().format(record))["game"] == "Xy12ab"
    assert TextFormatter().format(record).endswith("[game Xy12ab]")


def test_a_librarys_words_are_masked_all_the_same() -> None:
    # An SMTP refusal quotes the address; a development server logs the paths it served.
    said = "(550, b'5.1.1 <zoe.smith+x@mail.example> unknown') GET /play/AbCdEfGhIjKlMnOp0123 /signin/QwErTyUiOpAsDfGh"
    shown = redact(said)
    assert "zoe.smith" not in shown and "AbCdEfGhIjKlMnOp0123" not in shown and "QwErTyUiOpAsDfGh" not in shown
    assert "@mail.example" in shown and "/play/***" in shown
    assert redact("Authorization: Bearer s3cr3t-t0ken") == "Authorization: Bearer ***"


def test_json_logs_from_a_process(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        assert configure({"LOG_FORMAT": "json"}, force=True)
        configure({"LOG_FORMAT": "json"}, force=True)  # twice is once: one handler of ours
        logging.getLogger("pbem.test").info("sent to %s", "ann@example.org", extra={"game": "G1"})
        lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
        assert len(lines) == 1, lines
        entry = json.loads(lines[0])
        assert entry["game"] == "G1" and entry["message"] == "sent to ***@example.org"
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])


def test_a_failed_delivery_is_logged_with_its_games_id(database_url: str, caplog: pytest.LogCaptureFixture) -> None:
    from pbem.web import create_app
    from tests.support.config import app_config

    # An SMTP server that is not there: every delivery fails, and says so.
    app = create_app(app_config(database_url, SMTP_HOST="127.0.0.1", SMTP_PORT=free_port(), SMTP_TIMEOUT=2.0))
    ctx = app.extensions["pbem"]
    try:
        caplog.set_level(logging.WARNING, logger="pbem.mail.delivery")
        game_id, _ = new_game(ctx, 2)
        failed = [r for r in caplog.records if "not delivered" in r.getMessage()]
        assert failed and all(getattr(r, "game", None) == game_id for r in failed)
        assert all(json.loads(JsonFormatter().format(r))["game"] == game_id for r in failed)
    finally:
        ctx.engine.dispose()
