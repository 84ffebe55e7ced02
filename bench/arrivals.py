"""What the SMTP sink accepted, as it arrives: a thread tails the sink's record and looks
each Message-ID up in the outbox, so that a benchmark player can wait for their turn mail
before moving (as a player by mail does) and the time from a move to the next player's
mail can be measured."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .infra import dbapi_url


@dataclass(frozen=True)
class Arrival:
    at: float  # time.time() at the sink
    message_id: str
    recipient: str
    game_id: int | None
    kind: str
    event: str


class MailWatch:
    """Tails ``record`` (see :mod:`bench.smtp_sink`) every ``every`` seconds; each new
    line becomes an :class:`Arrival` in :attr:`arrivals` and is passed to ``on_arrival``.
    Message-IDs are looked up in the outbox after the fact: a mail with a reply address
    gets its final Message-ID when it is built, just before it goes."""

    def __init__(self, database_url: str, record: Path, on_arrival: Callable[[Arrival], None] | None = None,
                 every: float = 0.02) -> None:
        self.url = dbapi_url(database_url)
        self.record = record
        self.on_arrival = on_arrival
        self.every = every
        self.arrivals: list[Arrival] = []
        self.unresolved: list[tuple[float, str, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mail-watch", daemon=True)
        self._offset = 0
        self._lock = threading.Lock()
        self._conn: Any = None

    def start(self) -> "MailWatch":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.poll()  # what came in last
        if self._conn is not None:
            self._conn.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.poll()
            time.sleep(self.every)

    def poll(self) -> int:
        """Read what the sink wrote since the last call; returns how many arrived."""
        import psycopg

        with self._lock:
            try:
                with open(self.record, "rb") as f:
                    f.seek(self._offset)
                    chunk = f.read()
            except FileNotFoundError:
                return 0
            end = chunk.rfind(b"\n") + 1  # a line still being written waits for the next call
            lines = chunk[:end].decode().splitlines()
            self._offset += end
            pending = self.unresolved + [(float(t), mid, rcpt) for t, mid, rcpt in
                                         (line.split("\t") for line in lines if line.count("\t") == 2)]
            if not pending:
                return 0
            if self._conn is None:
                self._conn = psycopg.connect(self.url, autocommit=True)
            rows = self._conn.execute("SELECT message_id, game_id, kind, event FROM outbox WHERE message_id = ANY(%s)",
                                      [[mid for _, mid, _ in pending]]).fetchall()
            known = {r[0]: r[1:] for r in rows}
            self.unresolved = []
            new = []
            for at, mid, rcpt in pending:
                if mid not in known:
                    # Not yet visible (the worker's commit of the new Message-ID is after the
                    # SMTP answer): looked up again next time.
                    self.unresolved.append((at, mid, rcpt))
                    continue
                game_id, kind, event = known[mid]
                new.append(Arrival(at, mid, rcpt, game_id, kind, event))
            self.arrivals += new
        for a in new:
            if self.on_arrival is not None:
                self.on_arrival(a)
        return len(new)


def turn_ply(arrival: Arrival) -> int | None:
    """The ply a turn mail is for (its outbox event is ``ply:N``).

    >>> turn_ply(Arrival(0.0, "<m>", "a@b", 1, "turn", "ply:7")), turn_ply(Arrival(0.0, "<m>", "a@b", 1, "talk", "x"))
    (7, None)
    """
    if arrival.kind != "turn" or not arrival.event.startswith("ply:"):
        return None
    return int(arrival.event[4:])


__all__ = ["Arrival", "MailWatch", "turn_ply"]
