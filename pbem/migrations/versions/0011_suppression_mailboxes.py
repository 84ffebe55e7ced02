"""the never-mail list keys on mailboxes (issue 27): old rows also stop their mailbox

Rows written before hold the SHA-256 of the address as it was written
(``victim+0@example.org``); the list now keeps the SHA-256 of the mailbox
(``victim@example.org``, pbem.players.mailbox).  A hash cannot be turned back
into its address, but the addresses the database still holds (seats, sign-ins,
outbox rows) can be hashed again: each whose old hash is on the list puts its
mailbox's hash there too.  An old row whose address is gone from the database
keeps stopping that exact address only (the service checks both hashes).
Only adds rows; the downgrade leaves them (they stop nobody who did not ask).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 14:15:00
"""
from datetime import datetime, timezone
import hashlib

from alembic import op
import sqlalchemy as sa


revision = '0011'
down_revision = "0010"
branch_labels = None
depends_on = None

# As pbem.players.DOTLESS_DOMAINS and mailbox() today (a migration keeps its own copy: those may change later).
DOTLESS_DOMAINS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}


def mailbox(address: str) -> str:
    local, at, domain = address.strip().lower().rpartition("@")
    if not at:
        return address.strip().lower()
    base = local.split("+", 1)[0] or local
    if domain in DOTLESS_DOMAINS:
        base, domain = base.replace(".", "") or base, DOTLESS_DOMAINS[domain]
    return f"{base}@{domain}"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def upgrade() -> None:
    conn = op.get_bind()
    listed = {row[0] for row in conn.execute(sa.text("SELECT address_hash FROM suppression"))}
    if not listed:
        return
    held = sa.text("SELECT email FROM seat WHERE email <> '' UNION SELECT email FROM login "
                   "UNION SELECT recipient FROM outbox WHERE recipient LIKE '%@%'")
    new = set()
    for (address,) in conn.execute(held):
        if _sha256(address.strip().lower()) in listed:
            new.add(_sha256(mailbox(address)))
    rows = [{"address_hash": h, "created_at": datetime.now(timezone.utc)} for h in sorted(new - listed)]
    if rows:
        table = sa.table("suppression", sa.column("address_hash", sa.String), sa.column("created_at", sa.DateTime))
        op.bulk_insert(table, rows)


def downgrade() -> None:
    pass
