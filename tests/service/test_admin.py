"""``pbem admin …``, the operator's toolbox, run as the command line runs it,
on SQLite and on the real PostgreSQL: every command twice (the second run
finds the work done), and an unknown game or row is a clear error."""

from __future__ import annotations

import logging
import re
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from pbem.core import errors, tokens
from pbem.table import rematch
from pbem.cli import main
from pbem.core.db import as_utc, session_scope
from pbem.core.errors import Invalid
from pbem.core.models import CaughtMail, Game, Inbound, Login, MoveRecord, Outbox, Rating, Seat, Suppression, Webhook
from pbem.people.players import address_hash
from pbem.rules.record import replay
from pbem.rules.tables import CLANS
from tests.support.games import PLAYERS, db_id, deadline, new_game, play, play_to_end, seat_tokens
from pbem.people import signin
from pbem import games

ANN = PLAYERS[0]["email"]


def admin(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["admin", *args])
    out, err = capsys.readouterr()
    return code, out, err


def twice(capsys: pytest.CaptureFixture[str], *args: str) -> list[tuple[int, str, str]]:
    return [admin(capsys, *args), admin(capsys, *args)]


def outbox(ctx: Any, **where: Any) -> list[Outbox]:
    with session_scope(ctx.engine) as session:
        query = select(Outbox).order_by(col(Outbox.id))
        for key, value in where.items():
            query = query.where(getattr(Outbox, key) == value)
        return list(session.exec(query))


def caught(ctx: Any, kind: str | None = None) -> list[CaughtMail]:
    with session_scope(ctx.engine) as session:
        query = select(CaughtMail).order_by(col(CaughtMail.id))
        if kind is not None:
            query = query.where(CaughtMail.kind == kind)
        return list(session.exec(query))


def make_stuck(ctx: Any, game_id: str) -> None:
    """As if nothing happened in the game for four days and the clock never ran."""
    long_ago = ctx.now() - timedelta(days=4)
    gid = db_id(ctx, game_id)
    with session_scope(ctx.engine) as session:
        session.exec(update(Game).where(col(Game.id) == gid).values(
            started_at=long_ago, created_at=long_ago, deadline=long_ago + timedelta(hours=72)))
        session.exec(update(MoveRecord).where(col(MoveRecord.game_id) == gid).values(created_at=long_ago))
        session.exec(update(Outbox).where(col(Outbox.game_id) == gid).values(sent_at=long_ago))


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("games", "game", "outbox", "resend", "cancel", "extend", "forget", "check"):
        with pytest.raises(SystemExit) as done:
            main(["admin", command, "--help"])
        assert done.value.code == 0
        assert f"usage: pbem admin {command}" in capsys.readouterr().out


def test_games_lists_and_filters(ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    running, toks = new_game(ctx, 2)
    play(ctx, toks, 2)
    stuck, _ = new_game(ctx, 2)
    make_stuck(ctx, stuck)
    waiting = games.start_game(ctx, games.parse_players(PLAYERS[:2]))
    for code, out, _ in twice(capsys, "games"):
        assert code == 0
        assert {running, stuck, waiting} <= set(re.findall(r"^(\w{14}) ", out, re.M))
        assert re.search(rf"^{stuck} .*STUCK$", out, re.M) and not re.search(rf"^{running} .*STUCK", out, re.M)
    for code, out, _ in twice(capsys, "games", "--stuck"):
        assert code == 0 and stuck in out and running not in out and waiting not in out
    code, out, _ = admin(capsys, "games", "--active")
    assert code == 0 and running in out and stuck in out and waiting not in out
    code, out, _ = admin(capsys, "games", "--finished")
    assert code == 0 and out.strip() == "no finished games"


def test_a_player_on_holiday_is_not_stuck(ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    game_id, _ = new_game(ctx, 2)
    make_stuck(ctx, game_id)
    with session_scope(ctx.engine) as session:  # their pause moved the deadline on
        session.exec(update(Game).where(col(Game.public_id) == game_id)
                     .values(deadline=ctx.now() + timedelta(days=2)))
    assert game_id not in admin(capsys, "games", "--stuck")[1]


def test_game_shows_seats_deadline_and_mail_but_no_clan_while_it_runs(
        ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 1)
    clans = [games.seat_view(ctx, t)["clan"] for t in toks]
    for code, out, _ in twice(capsys, "game", game_id):
        assert code == 0
        assert f"game {game_id}: active, 1 moves" in out and "to move by" in out
        for p in PLAYERS:
            assert p["name"] in out and p["email"] in out
        assert re.search(r"^\d+ +\S+ +invite +sent", out, re.M) and re.search(r" turn +sent", out)
        assert out.count("(secret)") == 3
        for word in CLANS:
            assert not re.search(rf"\b{word}\b", out), word
    assert set(clans) <= set(CLANS)  # each seat has one, and the output above showed none of them
    code, _, err = admin(capsys, "game", "abcdefghijkmnp")
    assert code == 1 and "no game abcdefghijkmnp" in err
    code, _, err = admin(capsys, "game", "../../etc")
    assert code == 1 and "no game" in err


def test_game_over_shows_the_clans(ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.support.games import finish

    game_id, toks = new_game(ctx, 2)
    finish(ctx, game_id, toks)
    code, out, _ = admin(capsys, "game", game_id)
    assert code == 0 and "(secret)" not in out
    assert sum(1 for word in CLANS if re.search(rf"\b{word}\b", out)) == 2


def test_outbox_by_status_and_kind(ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    game_id, toks = new_game(ctx, 2)
    turn = outbox(ctx, kind="turn")[0]
    with session_scope(ctx.engine) as session:
        session.exec(update(Outbox).where(col(Outbox.id) == turn.id)
                     .values(status="failed", last_error="550 mailbox unavailable", attempts=12))
    for code, out, _ in twice(capsys, "outbox"):
        assert code == 0
        assert re.search(r"^invite +2$", out, re.M) or re.search(r"^invite +\S* *2", out, re.M)
        assert re.search(r"^turn +1 ", out, re.M)  # the failed column comes first
        assert "550 mailbox unavailable" in out
    code, out, _ = admin(capsys, "outbox", "--failed")
    assert code == 0 and re.search(rf"^{turn.id} +{game_id} +turn +failed +12", out, re.M)
    assert " invite " not in out.split("\n\n", 1)[1]
    code, out, _ = admin(capsys, "outbox", "--pending")
    assert code == 0 and out.rstrip().endswith("no rows")
    code, out, _ = admin(capsys, "outbox", "--kind", "invite")
    assert code == 0 and " turn " not in out and out.count(" invite ") == 2


def test_resend_is_a_new_attempt_with_the_same_message_id(
        ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    new_game(ctx, 2)
    turn = outbox(ctx, kind="turn")[0]
    assert [m.message_id for m in caught(ctx, "turn")] == [turn.message_id]
    with session_scope(ctx.engine) as session:
        session.exec(update(Outbox).where(col(Outbox.id) == turn.id)
                     .values(status="failed", last_error="timed out", attempts=12))
    code, out, _ = admin(capsys, "resend", str(turn.id))
    assert code == 0 and turn.message_id in out and "was failed" in out and out.rstrip().endswith("now sent")
    again = outbox(ctx, id=turn.id)[0]
    assert (again.status, again.attempts, again.last_error) == ("sent", 1, None)
    # "My friend never got it": a sent row goes again too, still the same message.
    code, out, _ = admin(capsys, "resend", str(turn.id))
    assert code == 0 and "was sent" in out
    assert [m.message_id for m in caught(ctx, "turn")] == [turn.message_id] * 3
    code, _, err = admin(capsys, "resend", "99999")
    assert code == 1 and "no outbox row 99999" in err


def test_resend_leaves_a_row_already_waiting_alone(ctx: Any, operator_env: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    new_game(ctx, 2)
    turn = outbox(ctx, kind="turn")[0]
    with session_scope(ctx.engine) as session:
        session.exec(update(Outbox).where(col(Outbox.id) == turn.id)
                     .values(status="pending", attempts=0, next_attempt_at=ctx.now() - timedelta(minutes=1)))
    code, out, _ = admin(capsys, "resend", str(turn.id))
    assert code == 0 and "already waiting to go; nothing changed" in out
    assert len(caught(ctx, "turn")) == 1


def test_cancel_tells_every_player_once(ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    game_id, toks = new_game(ctx, 3)
    play(ctx, toks, 2)
    first, second = twice(capsys, "cancel", game_id)
    assert first[0] == 0 and "cancelled; 3 player(s) told by mail" in first[1]
    assert second[0] == 0 and "cancelled already; nothing changed" in second[1]
    notices = caught(ctx, "cancelled")
    assert sorted(m.recipient for m in notices) == sorted(p["email"] for p in PLAYERS)
    assert all(game_id in m.subject and "cancelled" in m.subject for m in notices)
    for m in notices:
        for word in CLANS:  # the notice tells no clan
            assert f"clan: {word}" not in m.raw and f"clan {word}" not in m.raw
    assert games.public_game(ctx, game_id)["status"] == "cancelled"
    assert games.seat_view(ctx, toks[0])["status"] == "cancelled"
    assert not [r for r in outbox(ctx, game_id=db_id(ctx, game_id)) if r.status == "pending"]
    finished, ftoks = new_game(ctx, 2)
    from tests.support.games import finish

    finish(ctx, finished, ftoks)
    code, _, err = admin(capsys, "cancel", finished)
    assert code == 1 and "is finished: only a running game can be cancelled" in err
    assert admin(capsys, "cancel", "abcdefghijkmnp")[0] == 1


def test_cancel_of_a_game_still_gathering_tells_only_who_heard_of_it(
        ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    game_id = games.start_game(ctx, games.parse_players(PLAYERS))  # only Ann was asked to confirm
    code, out, _ = admin(capsys, "cancel", game_id)
    assert code == 0 and "1 player(s) told" in out
    assert [m.recipient for m in caught(ctx, "cancelled")] == [ANN]
    with pytest.raises(Exception) as refused:
        games.accept(ctx, seat_tokens(ctx, game_id)[1])
    assert "cancelled" in str(refused.value)


def test_extend_moves_the_running_deadline(ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    game_id, toks = new_game(ctx, 2)
    before = deadline(ctx, game_id)
    first, second = twice(capsys, "extend", game_id, "24")
    assert first[0] == 0 and second[0] == 0
    # Each run adds its hours, and says from when to when.
    assert deadline(ctx, game_id) == before + timedelta(hours=48)
    assert (before + timedelta(hours=24)).isoformat(timespec="minutes") in second[1]
    # A deadline that has passed is moved on from now, not from then.
    with session_scope(ctx.engine) as session:
        session.exec(update(Game).where(col(Game.public_id) == game_id)
                     .values(deadline=ctx.now() - timedelta(days=3)))
    assert admin(capsys, "extend", game_id, "5")[0] == 0
    assert deadline(ctx, game_id) >= ctx.now() + timedelta(hours=4, minutes=59)
    code, _, err = admin(capsys, "extend", game_id, "0")
    assert code == 1 and "1 to 720" in err
    waiting = games.start_game(ctx, games.parse_players(PLAYERS[:2]))
    code, _, err = admin(capsys, "extend", waiting, "5")
    assert code == 1 and "is invited" in err
    assert admin(capsys, "extend", "abcdefghijkmnp", "5")[0] == 1


def add_webhook(ctx: Any, game_id: str, email: str, url: str) -> int:
    """A webhook set by the seat of ``email`` in the game, with a post waiting for it."""
    with session_scope(ctx.engine) as session:
        gid = db_id(session, game_id)
        seat = session.exec(select(Seat).where(Seat.game_id == gid, Seat.email == email)).one()
        assert seat.id is not None
        hook = Webhook(game_id=gid, seat_id=seat.id, kind="discord", url=url, secret_salt=tokens.new_salt())
        session.add(hook)
        session.flush()
        assert hook.id is not None
        session.add(Outbox(game_id=gid, kind="webhook", event="test:1", recipient=f"webhook:{hook.id}",
                           message_id=f"<hook{hook.id}@test>"))
        return hook.id


def add_inbound(ctx: Any, key: str, sender: str, raw: bytes) -> int:
    with session_scope(ctx.engine) as session:
        row = Inbound(message_key=key, recipient="play@pbem.example", sender=sender, raw=raw, received_at=ctx.now())
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id


def test_forget_erases_a_person(ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str],
                                caplog: pytest.LogCaptureFixture) -> None:
    over, over_toks = new_game(ctx, 2)
    play_to_end(ctx, over_toks)
    record_before = games.export_game(ctx, over)
    running, run_toks = new_game(ctx, 3)
    play(ctx, run_toks, 1)
    waiting = games.start_game(ctx, games.parse_players([PLAYERS[1], PLAYERS[0]]))
    games.accept(ctx, seat_tokens(ctx, waiting)[0])  # Bob confirms: Ann is invited
    signin.request_login(ctx, ANN)
    assert caught(ctx) and any(m.recipient == ANN for m in caught(ctx))
    # Her webhook (its address opens her chat channel) and Bob's, each with a post waiting.
    hers = add_webhook(ctx, running, ANN, "https://93.184.215.14/api/webhooks/1/hers")
    bobs = add_webhook(ctx, running, PLAYERS[1]["email"], "https://93.184.215.14/api/webhooks/2/bobs")
    with session_scope(ctx.engine) as session:
        session.exec(update(Seat).where(col(Seat.email) == ANN).values(discord_id="123456789012345678"))
        session.exec(update(Seat).where(col(Seat.email) == PLAYERS[1]["email"]).values(discord_id="876543210987654321"))
        assert session.exec(select(Rating).where(Rating.address_hash == address_hash(ANN))).one()
    # Mail she sent, a bounce quoting her address (in another case), and Bob's mail, which stays.
    add_inbound(ctx, "<from-ann@test>", "Ann@Example.org", b"From: Ann <Ann@Example.org>\r\n\r\nmove 3\r\n")
    add_inbound(ctx, "<bounce@test>", "", b"From: MAILER-DAEMON@mx.test\r\n\r\n"
                b"<ANN@EXAMPLE.ORG>: mailbox unavailable\r\n")
    bob_mail = add_inbound(ctx, "<from-bob@test>", PLAYERS[1]["email"], b"From: Bob\r\n\r\nmove 4\r\n")
    caplog.set_level(logging.INFO)

    first, second = twice(capsys, "forget", "  Ann@Example.ORG ")
    assert first[0] == 0 and "erased: 3 seats, 1 games cancelled, 1 seats to computer" in first[1]
    assert all(f"{n} {what}" in first[1] for n, what in ((2, "inbound"), (1, "webhooks"), (1, "rating")))
    assert second[0] == 0 and "nothing left to erase" in second[1]
    # The second run found each of them gone: its log line counts nothing.
    erased_logs = [r.getMessage() for r in caplog.records if "erased by the operator" in r.getMessage()]
    assert len(erased_logs) == 2 and not re.search(r" [1-9]", erased_logs[1])

    with session_scope(ctx.engine) as session:
        assert not session.exec(select(Seat).where(Seat.email == ANN)).all()
        assert not session.exec(select(Outbox).where(Outbox.recipient == ANN)).all()
        assert not session.exec(select(Login).where(Login.email == ANN)).all()
        assert not [m for m in session.exec(select(CaughtMail)) if ANN in m.raw or m.recipient == ANN]
        assert session.exec(select(Suppression).where(Suppression.address_hash == address_hash(ANN))).one()
        assert not session.exec(select(Rating).where(Rating.address_hash == address_hash(ANN))).all()
        assert [h.id for h in session.exec(select(Webhook))] == [bobs]
        # (The computer's move since then posted to Bob's webhook too: to hers, nothing.)
        assert {o.recipient for o in session.exec(select(Outbox).where(Outbox.kind == "webhook"))} == {
            f"webhook:{bobs}"}
        assert [i.id for i in session.exec(select(Inbound))] == [bob_mail]
        assert sorted((s.name, s.discord_id) for s in session.exec(select(Seat)) if s.discord_id) == [
            ("Bob", "876543210987654321")] * 3
        names = {g.public_id: [s.name for s in session.exec(select(Seat).where(Seat.game_id == g.id)
                                                           .order_by(col(Seat.position)))]
                 for g in session.exec(select(Game))}
    assert all("Ann" not in seat_names for seat_names in names.values())
    assert all("former player" in seat_names for seat_names in names.values())
    # The finished game's record is still valid and replays to its result, with the new name.
    record = games.export_game(ctx, over)
    assert "Ann" not in str(record) and "former player" in record["players"]
    scores, scores_before = replay(record)["final_scores"], replay(record_before)["final_scores"]
    assert scores["former player"] == scores_before["Ann"] and scores["Bob"] == scores_before["Bob"]
    # The running game goes on, the computer playing for her; the one gathering is cancelled.
    view = games.public_game(ctx, running)
    assert view["status"] == "active"
    assert [p["bot"] for p in view["players"] if p["name"] == "former player"] == ["medium"]
    assert games.public_game(ctx, waiting)["status"] == "cancelled"
    assert [m.recipient for m in caught(ctx, "cancelled")] == [PLAYERS[1]["email"]]
    # Her old seat links open nothing, and no new game may name her.
    with pytest.raises(Exception):
        games.seat_view(ctx, over_toks[[p["email"] for p in PLAYERS].index(ANN)])
    with pytest.raises(Invalid):
        games.start_game(ctx, games.parse_players([PLAYERS[1], PLAYERS[0]]))
    # Nor can a rematch of the finished game invite her: a clear refusal, not a missing address.
    with pytest.raises(errors.Conflict) as refused:
        rematch.play_again(ctx, over_toks[[p["email"] for p in PLAYERS].index(PLAYERS[1]["email"])])
    assert refused.value.status == 409 and refused.value.code == "erased"
    assert refused.value.params["name"] == "former player" and "former player has been erased" in refused.value.message
    # The log says what was done, never to whom.
    assert caplog.records and not [r for r in caplog.records if "ann@" in r.getMessage().lower()]


def test_forget_when_it_was_her_turn_hands_the_move_to_the_computer(
        ctx: Any, operator_env: str, capsys: pytest.CaptureFixture[str]) -> None:
    game_id, toks = new_game(ctx, 2)
    turn = games.public_game(ctx, game_id)["next_seat"]
    with session_scope(ctx.engine) as session:
        email = session.exec(select(Seat.email).where(Seat.game_id == db_id(session, game_id),
                                                      Seat.position == turn)).one()
    assert admin(capsys, "forget", email)[0] == 0
    # The computer (in-process here) has moved for the former player.
    view = games.public_game(ctx, game_id)
    assert view["ply"] == 1 and view["players"][turn]["name"] == "former player"


def test_check_says_what_is_wrong(operator_env: str, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    for code, out, _ in twice(capsys, "check"):
        assert code == 0, out
        assert re.search(r"^ok +database: ", out, re.M) and re.search(r"^ok +schema: at the newest", out, re.M)
        assert re.search(r"^skipped +broker: ", out, re.M) and re.search(r"^skipped +smtp: ", out, re.M)
        assert out.rstrip().endswith("all good")
    from tests.support.smtp import free_port

    monkeypatch.setenv("PBEM_SECRET_KEY", "short")
    monkeypatch.setenv("PBEM_DATABASE_URL", f"postgresql+psycopg://pbem:hunter2-secret@127.0.0.1:{free_port()}/pbem")
    monkeypatch.setenv("PBEM_BROKER_URL", f"redis://127.0.0.1:{free_port()}/0")
    monkeypatch.setenv("PBEM_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("PBEM_SMTP_PORT", str(free_port()))
    for code, out, _ in twice(capsys, "check"):
        assert code == 1
        assert re.search(r"^FAIL +configuration: .*PBEM_SECRET_KEY is 5 characters long", out, re.M)
        for name in ("database", "broker", "smtp"):
            assert re.search(rf"^FAIL +{name}: ", out, re.M), name
        assert "schema" not in out  # not asked of a database that does not answer
        assert "hunter2-secret" not in out
        assert out.rstrip().endswith("4 problem(s)")
    monkeypatch.setenv("PBEM_SMTP_PORT", "not-a-port")
    code, out, _ = admin(capsys, "check")
    assert code == 1 and "PBEM_SMTP_PORT='not-a-port': expected a whole number" in out


def test_check_finds_a_schema_behind(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    from tests.support.config import SECRET

    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{tmp_path / 'old.sqlite3'}")
    monkeypatch.setenv("PBEM_SECRET_KEY", SECRET)
    monkeypatch.setenv("PBEM_BASE_URL", "http://127.0.0.1:5000")
    from pbem.core.db import upgrade

    upgrade(f"sqlite:///{tmp_path / 'old.sqlite3'}", "0005")
    code, out, _ = admin(capsys, "check")
    assert code == 1 and re.search(r"^FAIL +schema: at revision 0005, this code needs \S+: run pbem db upgrade",
                                   out, re.M)


def test_admin_refuses_an_unsafe_configuration(operator_env: str, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PBEM_SECRET_KEY", "short")
    code, _, err = admin(capsys, "games")
    assert code == 2 and "refusing to start" in err and "PBEM_SECRET_KEY" in err


def test_stuck_needs_the_deadline_passed_and_the_quiet_longer_than_a_turn() -> None:
    from datetime import datetime, timezone

    from pbem.ops.admin import is_stuck

    now = datetime(2030, 1, 10, tzinfo=timezone.utc)
    quiet = now - timedelta(hours=73)
    assert is_stuck("active", 72, now - timedelta(hours=1), quiet, now)
    assert is_stuck("active", 72, None, quiet, now)
    assert not is_stuck("active", 72, now + timedelta(hours=1), quiet, now)  # on holiday
    assert not is_stuck("active", 72, now - timedelta(hours=1), now - timedelta(hours=71), now)
    assert not is_stuck("finished", 72, None, quiet, now)
    assert as_utc(now) == now
