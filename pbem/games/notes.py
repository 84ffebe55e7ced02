"""A seat's private notes: plain text its player keeps with the game ("plan:
block green in the north").  Only the seat itself reads them: its own page, its
own ``GET /api/v1/seat/notes`` and, if it asks, the foot of its own turn mail.
They are in no view (``game_view`` never reads them), no webhook post, no
record; ``pbem admin forget`` deletes them with the seat's address."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from typing import TypedDict

from sqlmodel import Session, select

from ..core import errors
from ..core.context import Context
from ..core.db import as_utc, session_scope
from ..core.models import Seat
from ..core.seat_extras_tables import SeatNote
from ..words import N_
from .lookup import seat_and_game

#: The longest notes, in characters.
MAX_NOTES = 4000
#: What neither database can store (NUL; lone surrogates): the request's
#: refusal (``bad-text``) comes first on the web, this one for any other caller.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_LINE_ENDS = re.compile(r"\r\n?")


def clean_notes(text: str) -> str:
    """Notes as they are kept: as typed, in NFC, with ``\\n`` line ends and no
    trailing blank space (the reader's own words; escaping is the page's job).

    >>> clean_notes("  plan:\\r\\nblock green  \\n")
    '  plan:\\nblock green'
    """
    return unicodedata.normalize("NFC", _LINE_ENDS.sub("\n", text)).rstrip()


class Notes(TypedDict):
    """A seat's notes as its own API call shows them."""

    text: str
    #: Shown at the foot of the seat's own turn mail.
    in_turn_mail: bool
    #: ISO 8601, UTC; ``None`` until first saved.
    updated_at: str | None


#: Seats' notes a transaction has read already (``session.info[KNOWN][seat_id]``:
#: the row, or ``None`` for none), e.g. with the rest of a mail's reader
#: (:mod:`pbem.mail.reader`): read again, they cost no statement.
KNOWN = "pbem.notes_known"


def read_notes(session: Session, seat: Seat) -> Notes:
    """The seat's notes in the caller's transaction (empty when it has none)."""
    known = session.info.get(KNOWN, {})
    if seat.id in known:
        note = known[seat.id]
    else:
        note = session.exec(select(SeatNote).where(SeatNote.seat_id == seat.id)).first()
    if note is None:
        return {"text": "", "in_turn_mail": False, "updated_at": None}
    updated: datetime | None = as_utc(note.updated_at)
    return {"text": note.text, "in_turn_mail": note.in_turn_mail,
            "updated_at": updated.isoformat() if updated else None}


def notes(ctx: Context, token: object) -> Notes:
    with session_scope(ctx.engine) as session:
        seat, _, _ = seat_and_game(session, token)
        return read_notes(session, seat)


def set_notes(ctx: Context, token: object, text: object, in_turn_mail: object = None) -> Notes:
    """Keep ``text`` as the seat's notes (empty: none) and, if given, whether its
    turn mail shows them.  Longer than :data:`MAX_NOTES` is refused, whole."""
    if not isinstance(text, str):
        raise errors.Invalid(N_("the notes must be text"), code="invalid-notes", field="text")
    if in_turn_mail is not None and not isinstance(in_turn_mail, bool):
        raise errors.Invalid(N_("in_turn_mail must be true or false"), code="invalid-notes",
                             field="in_turn_mail")
    if _UNSTORABLE.search(text):
        raise errors.Invalid(N_("The request contains a character that cannot be stored (such as NUL)."),
                             code="bad-text", field="text")
    # Counted as typed (a browser's line ends as one each), before NFC, which may lengthen some text.
    length = len(_LINE_ENDS.sub("\n", text))
    if length > MAX_NOTES:
        raise errors.Invalid(N_("your notes are %(length)d characters long: at most %(max)d fit"),
                             length=length, max=MAX_NOTES, code="notes-too-long", field="text")
    cleaned = clean_notes(text)
    with session_scope(ctx.engine) as session:
        seat, _, _ = seat_and_game(session, token)
        note = session.exec(select(SeatNote).where(SeatNote.seat_id == seat.id)).first()
        if note is None:
            assert seat.id is not None
            note = SeatNote(seat_id=seat.id, text=cleaned, updated_at=ctx.now())
        note.text = cleaned
        note.updated_at = ctx.now()
        if in_turn_mail is not None:
            note.in_turn_mail = bool(in_turn_mail)
        session.add(note)
        session.flush()
        return read_notes(session, seat)
