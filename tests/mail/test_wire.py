"""The bytes the SMTP adapter sends, written directly (``Mail.wire``), are the
bytes the email package wrote for the same message before: every kind of mail
in four languages from a whole game, and made-up messages with long, non-ASCII
and odd subjects, names, addresses and bodies, with and without pictures.

The reference is the message as :func:`pbem.mail.messages.build` assembled it in
the email package's model before ``Mail`` (kept here as it was), flattened by
:func:`pbem.mail.transport.wire_bytes` (what the adapter sent): given the same
date and boundaries, it must be byte for byte what ``Mail.wire`` writes, for an
ASCII server and an SMTPUTF8 one; ``Mail.to_message`` must be the same message;
and what the fingerprint of a sent mail reads (its subject, text and HTML) the
same as what it read from the reference."""

from __future__ import annotations

import re
import string
from email.message import EmailMessage
from typing import Any, Callable, Mapping, Sequence

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from sqlmodel import select

from pbem import games
from pbem.core.db import session_scope
from pbem.core.models import Outbox, Seat
from pbem.core.outbox import enqueue
from pbem.mail import messages
from pbem.mail.compose import compose
from pbem.mail.messages import MESSAGE_ID, POLICY, TAGS, Envelope, Mail
from pbem.mail.transport import wire_bytes
from pbem.people import signin
from pbem.table import talk
from tests.support.clock import frozen_clock
from tests.support.games import db_id, play, seat_tokens, to_move


def reference(envelope: Envelope, context: Mapping[str, Any], *, picture: bytes | None, close_ups: Sequence[bytes],
              language: str, date: str, boundaries: Sequence[str]) -> EmailMessage:
    """``messages.build`` as it was before ``Mail``, with the date and the
    boundaries the message under test drew."""
    drawn = iter(boundaries)
    subject, text = messages.render_text(envelope.kind, context, language)
    subject = messages._one_line(subject)
    msg = EmailMessage(policy=POLICY)
    msg["Subject"] = subject
    msg["From"] = messages._one_line(envelope.sender)
    msg["To"] = messages._only_address(envelope.recipient)
    msg["Message-ID"] = messages._one_line(envelope.message_id)
    msg["Date"] = date
    msg["X-PBEM-Kind"] = messages._one_line(envelope.kind)
    msg["Auto-Submitted"] = "auto-generated"
    if envelope.reply_to:
        msg["Reply-To"] = messages._only_address(envelope.reply_to)
    references = []
    if envelope.game_id is not None:
        game = messages._one_line(str(envelope.game_id))
        msg["X-PBEM-Game"] = game
        references.append(messages._one_line(f"<game-{game}@{messages.domain_of(envelope.message_id)}>"))
    if envelope.in_reply_to and re.fullmatch(MESSAGE_ID, envelope.in_reply_to):
        msg["In-Reply-To"] = envelope.in_reply_to
        references.append(envelope.in_reply_to)
    references = [r for r in references if re.fullmatch(MESSAGE_ID, r)]
    if references:
        msg["References"] = " ".join(references)
    if envelope.unsubscribe:
        link = f"<{envelope.unsubscribe}>"
        if not re.fullmatch(messages._URL, link):
            raise ValueError(f"not an unsubscribe link to write as it is: {envelope.unsubscribe!r}")
        msg["List-Unsubscribe"] = link
        msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    msg.set_content(text)
    html = messages.render_html(envelope.kind, {**context, "subject": subject,
                                                "picture_cid": "board" if picture else None}, language)
    if html is not None:
        msg.make_alternative(boundary=next(drawn))
        msg.add_alternative(messages._inline_css(html), subtype="html")
        if picture is not None:
            html_part = list(msg.iter_parts())[1]
            html_part.make_related(boundary=next(drawn))
            html_part.add_related(picture, maintype="image", subtype="png", cid="<board>",
                                  filename="board.png", disposition="inline")
            for i, piece in enumerate(close_ups, 1):
                html_part.add_related(piece, maintype="image", subtype="png", cid=f"<close-up-{i}>",
                                      filename=f"board-{i}.png", disposition="inline")
    msg["Content-Language"] = TAGS[language]
    return msg


def _outcome(write: Callable[[], bytes]) -> bytes | str:
    try:
        return write()
    except Exception as e:  # noqa: BLE001 - failing alike is the same outcome
        return f"{type(e).__name__}: {e}"


def assert_same(mail: Mail, envelope: Envelope, context: Mapping[str, Any], *, picture: bytes | None = None,
                close_ups: Sequence[bytes] = (), language: str = "en") -> None:
    date = next(str(value) for name, value, _ in mail.headers if name == "Date")
    before = reference(envelope, context, picture=picture, close_ups=close_ups, language=language,
                       date=date, boundaries=mail.boundaries)
    for utf8 in (False, True):
        old = _outcome(lambda: wire_bytes(before, utf8=utf8))
        assert _outcome(lambda: mail.wire(utf8=utf8)) == old, (envelope.kind, language, utf8)
        assert _outcome(lambda: wire_bytes(mail.to_message(), utf8=utf8)) == old, (envelope.kind, language, utf8)
    assert mail.to_message().as_string() == before.as_string()
    # What the sent mail's fingerprint reads, and the envelope the adapter takes.
    plain, html = before.get_body(("plain",)), before.get_body(("html",))
    assert isinstance(plain, EmailMessage)
    assert (mail.subject, mail.text_content()) == (str(before.get("Subject", "")), plain.get_content())
    assert mail.html_content() == (html.get_content() if isinstance(html, EmailMessage) else None)
    assert (mail.get("Reply-To") is None) == (before["Reply-To"] is None)
    assert mail.sender == before["From"].addresses[0].addr_spec
    assert mail.recipients == [a.addr_spec for a in before["To"].addresses]


# -- every kind, from a game in four languages -----------------------------------------

#: Names as long as a name may be, beyond ASCII: subjects that fold and need encoded words.
FOUR = [
    {"name": "Árvíztűrő Tükörfúrógép Ödönné Kovács", "email": "anna@example.org", "language": "hu",
     "time_zone": "Europe/Budapest"},
    {"name": "Příliš Žluťoučký Kůň Úpěl Ďábelské Ódy", "email": "petr@example.org", "language": "cs",
     "time_zone": "Europe/Prague"},
    {"name": "João Conceição Magalhães da Silva", "email": "joao@example.org", "language": "pt",
     "time_zone": "Europe/Lisbon"},
    {"name": "Tom \"=?utf-8?q?x?=\" O'Brien", "email": "tom@example.org", "language": "en"},
]


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every message the service builds is checked against the reference as it is
    built; the kinds and languages checked."""
    seen: list[tuple[str, str]] = []
    real = messages.mail

    def mail_and_check(envelope: Envelope, context: Mapping[str, Any], *, picture: bytes | None = None,
                       close_ups: Sequence[bytes] = (), language: str = "en") -> Mail:
        got = real(envelope, context, picture=picture, close_ups=close_ups, language=language)
        assert_same(got, envelope, context, picture=picture, close_ups=close_ups, language=language)
        seen.append((envelope.kind, language))
        return got

    monkeypatch.setattr(messages, "mail", mail_and_check)
    return seen


def _compose_each(ctx: Any, game_id: str, kind: str, event: str) -> None:
    with session_scope(ctx.engine) as session:
        for seat in session.exec(select(Seat).where(Seat.game_id == db_id(session, game_id))).all():
            if kind == "digest":
                seat.mail = "digest"
                session.add(seat)
            new = enqueue(session, kind=kind, event=event, recipient=seat.email, base_url=ctx.base_url,
                          now=ctx.now(), game_id=seat.game_id, seat_id=seat.id)
            row = session.get(Outbox, new) if new is not None else session.exec(
                select(Outbox).where(Outbox.seat_id == seat.id, Outbox.kind == kind, Outbox.event == event)).one()
            assert row is not None
            compose(ctx, session, row)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_every_kind_of_a_whole_game_is_written_as_the_email_package_wrote_it(
        ctx: Any, checked: list[tuple[str, str]]) -> None:
    now = frozen_clock(ctx)
    game_id = games.start_game(ctx, games.parse_players(FOUR))
    toks = seat_tokens(ctx, game_id)
    for token in toks:
        games.accept(ctx, token)
    for token in toks:
        talk.set_talk_mail(ctx, token, True)
    talk.talk(ctx, toks[1], "Jó játékot! Příjemnou hru. Boa sorte, all — " + "long talk " * 30)
    for player in FOUR:
        signin.request_login(ctx, player["email"], player["language"])
    play(ctx, toks, 5)
    token, view = to_move(ctx, toks)
    ply = view["ply"]
    for kind, event in (("reminder", f"remind:{ply}:0"), ("digest", "digest:test"), ("link", "link:test")):
        _compose_each(ctx, game_id, kind, event)
    now.advance(hours=view["turn_hours"] + 1)
    games.autopilot_move(ctx, db_id(ctx, game_id), ply)
    while games.public_game(ctx, game_id)["status"] == "active":
        play(ctx, toks, 1)
    kinds = {kind for kind, _ in checked}
    assert {"invite", "turn", "talk", "login", "reminder", "digest", "link", "deadline", "game-over"} <= kinds
    assert {language for _, language in checked} == set(TAGS)


# -- made-up messages: every shape, odd headers and bodies ---------------------------------

#: Pieces of words: ASCII, letters of the four languages, what headers quote or
#: encode, encoded words' delimiters, white space the headers turn into spaces.
_WORDS = st.lists(st.sampled_from(list(string.ascii_letters + string.digits + " .,:;!?'\"()<>@=_-/")
                                  + list("éáőűčřžšůãçÖ€→·—") + ["=?utf-8?q?", "?=", "\t", "\u2028", "x" * 30]),
                  max_size=40).map("".join)
_LINE = st.lists(_WORDS, max_size=8).map(" ".join)
_BODY = st.lists(_LINE, max_size=25).map("\n".join)
_ADDRESSES = st.sampled_from(["zoe@example.org", "zoë@example.org", "a.b+c-d@sub.example.org",
                              "x" * 60 + "@" + "long-domain-" * 5 + "example.org", "ann.214@bench.example"])
_PNG = st.binary(min_size=0, max_size=600)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(subject=st.one_of(_LINE, st.lists(_LINE, max_size=6).map(" ".join)), text=_BODY,
       html=st.one_of(st.none(), _BODY.map(lambda b: f"<html><body><p>{b}</p></body></html>")),
       recipient=_ADDRESSES, reply_to=st.one_of(st.none(), _ADDRESSES),
       game_id=st.one_of(st.none(), st.text(alphabet="abcdefghjk0123456789", min_size=1, max_size=40)),
       in_reply_to=st.sampled_from([None, "<a@b.example>", "<" + "r" * 240 + "@x.example>", "not an id"]),
       unsubscribe=st.sampled_from([None, "https://clans.example/u/t0k-en", "https://clans.example/"
                                    + "/a-rather-long-path-segment" * 8 + "/unsubscribe/AbC"]),
       picture=st.one_of(st.none(), _PNG), close_ups=st.lists(_PNG, max_size=3),
       language=st.sampled_from(sorted(TAGS)), sender=st.sampled_from(
           ["Clans by Mail <clans@localhost>", "Clans <clans@clans.example>",
            "Klánok levélben — Árvíztűrő <clans@clans.example>"]))
def test_made_up_messages_are_written_as_the_email_package_wrote_them(
        monkeypatch: pytest.MonkeyPatch, subject: str, text: str, html: str | None, recipient: str,
        reply_to: str | None, game_id: str | None, in_reply_to: str | None, unsubscribe: str | None,
        picture: bytes | None, close_ups: list[bytes], language: str, sender: str) -> None:
    monkeypatch.setattr(messages, "render_text", lambda kind, context, language: (subject, text))
    monkeypatch.setattr(messages, "render_html", lambda kind, context, language: html)
    envelope = Envelope(sender=sender, recipient=recipient, message_id="<0e8d7c6e.turn@clans.example>",
                        kind="turn", game_id=game_id, reply_to=reply_to, in_reply_to=in_reply_to,
                        unsubscribe=unsubscribe)
    try:
        mail = messages.mail(envelope, {}, picture=picture, close_ups=close_ups, language=language)
    except ValueError:
        # Refused alike: a header the reference cannot write either.
        with pytest.raises(ValueError):
            reference(envelope, {}, picture=picture, close_ups=close_ups, language=language,
                      date="Mon, 02 Mar 2026 09:00:00 -0000", boundaries=["=_pbem_" + "1" * 32] * 2)
        return
    assert_same(mail, envelope, {}, picture=picture, close_ups=close_ups, language=language)


def test_a_boundary_of_another_shape_is_folded_as_the_email_package_folds_it() -> None:
    mail = messages.mail(Envelope(sender="Clans <clans@clans.example>", recipient="zoe@example.org",
                                  message_id="<1.login@clans.example>", kind="login"),
                         {"link": "https://clans.example/login/x", "minutes": 30,
                          "base_url": "https://clans.example", "kind": "login"}, picture=b"png")
    odd = Mail(**{**mail.__dict__, "boundaries": ("b" * 70, "=_pbem_" + "Z" * 40)})
    assert odd.wire() == wire_bytes(odd.to_message())


#: Bodies one byte a character (latin-1), as a text part's bytes are quoted: every byte,
#: with lines about as long as a quoted-printable line and white space at their ends.
_LATIN1 = st.lists(st.one_of(st.characters(min_codepoint=0, max_codepoint=255),
                             st.sampled_from(["=", " ", "\t", "\n", "\r\n", "x" * 70, "=" * 5, "é".encode().decode("latin-1")])),
                   max_size=120).map("".join)


@settings(max_examples=400, deadline=None)
@given(body=_LATIN1, max_line_length=st.integers(min_value=4, max_value=80), eol=st.sampled_from(["\n", "\r\n"]))
def test_quoted_printable_is_the_email_packages(body: str, max_line_length: int, eol: str) -> None:
    from email import quoprimime

    from pbem.mail import mime

    assert mime.quoted_printable(body, max_line_length, eol) == quoprimime.body_encode(body, max_line_length, eol)


@pytest.mark.parametrize("max_line_length", [4, 5, 6, 10, 76, 78])
def test_quoted_printable_breaks_lines_as_the_email_package_does(max_line_length: int) -> None:
    """Every length of line around the breaks, ending in white space or not,
    with quoted bytes falling on every place of a break."""
    from email import quoprimime

    from pbem.mail import mime

    lines = []
    for length in range(1, 2 * max_line_length + 6):
        for end in ("", " ", "\t", "=", "\xe9", "\xe9 "):
            for fill in ("a", "\xe9", "a\xe9", "aa="):
                lines.append((fill * length)[:length] + end)
    for eol in ("\n", "\r\n"):
        for line in lines:
            for body in (line, line + "\n"):
                assert mime.quoted_printable(body, max_line_length, eol) == \
                    quoprimime.body_encode(body, max_line_length, eol), (body, eol)
