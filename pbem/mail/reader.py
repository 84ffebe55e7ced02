"""What a mail needs to know of its reader, read in one statement before it is
built: whether their address may be mailed (the never-mail list, bounces), and
their own rows that a game mail shows (their daily-mail switch, vacation bank,
pre-moves and notes).  Each row is left where its module looks first
(``session.info``), so the modules read it as before, without a statement of
their own: a turn notice costs the pool eight statements, not twelve."""

from __future__ import annotations

from functools import lru_cache

from sqlalchemy import Select, bindparam, literal, select as select_rows
from sqlmodel import Session, col, select

from ..core.daily_tables import DailyMail
from ..core.models import Bounce, Seat, Suppression
from ..core.premove_tables import PremoveList
from ..core.seat_extras_tables import SeatNote
from ..core.vacation_tables import VacationBank
from ..games.daily import KNOWN as DAILY_KNOWN
from ..games.notes import KNOWN as NOTES_KNOWN
from ..games.premoves import KNOWN as PREMOVES_KNOWN
from ..games.waiting import address_of
from ..people.vacation import KNOWN as VACATION_KNOWN
from ..people.players import address_hash, mailbox_hash, suppression_hashes


def read(session: Session, recipient: str, seat_id: int | None, *, bounces_count: bool) -> bool:
    """Read the reader's facts into the session; whether mail to them must not go
    (as :func:`pbem.people.reachability.mail_stopped`)."""
    bank = mailbox_hash(recipient)
    stopped, bounced, switch, banked, listed, noted = session.execute(_reader(), {
        "suppressions": suppression_hashes(recipient), "address": address_hash(recipient),
        "email": address_of(recipient), "bank": bank, "seat": seat_id}).one()
    session.info.setdefault(DAILY_KNOWN, {})[address_of(recipient)] = switch is not None and switch.on
    session.info.setdefault(VACATION_KNOWN, {})[bank] = banked
    if seat_id is not None:
        session.info.setdefault(PREMOVES_KNOWN, {})[seat_id] = listed
        session.info.setdefault(NOTES_KNOWN, {})[seat_id] = noted
    return bool(stopped or (bounces_count and bounced))


@lru_cache(maxsize=1)
def _reader() -> Select[bool, bool, DailyMail, VacationBank, PremoveList, SeatNote]:
    """The statement, built once with its values as parameters: building it
    again for every mail cost more CPU than running it."""
    suppressed = select(Suppression.id).where(
        col(Suppression.address_hash).in_(bindparam("suppressions", expanding=True))).exists()
    bouncing = select(Bounce.id).where(col(Bounce.address_hash) == bindparam("address"),
                                       col(Bounce.bouncing_at).is_not(None)).exists()
    anchor = literal(1).label("one")
    return (select_rows(suppressed.label("suppressed"), bouncing.label("bouncing"), DailyMail, VacationBank,
                        PremoveList, SeatNote)
            .select_from(select(anchor).subquery())
            .outerjoin(DailyMail, col(DailyMail.email) == bindparam("email"))
            .outerjoin(VacationBank, col(VacationBank.address_hash) == bindparam("bank"))
            .outerjoin(Seat, col(Seat.id) == bindparam("seat"))
            .outerjoin(PremoveList, col(PremoveList.seat_id) == col(Seat.id))
            .outerjoin(SeatNote, col(SeatNote.seat_id) == col(Seat.id)))
