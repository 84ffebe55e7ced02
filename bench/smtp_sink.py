"""A local SMTP sink for the benchmarks: accepts every message on loopback and drops it,
counting; with ``--record FILE``, also appends one line per accepted message to ``FILE``
(``<unix time>\\t<Message-ID>\\t<recipient>``, flushed at once), so that another process
can tell when each message arrived and whether one came twice.  Runs in its own process:

    python -m bench.smtp_sink PORT [--record FILE]
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
import time
from pathlib import Path
from typing import IO, Any, NamedTuple

_MESSAGE_ID = re.compile(rb"^message-id:[ \t]*(<[^>\r\n]*>)", re.IGNORECASE | re.MULTILINE)


class Received(NamedTuple):
    at: float  # time.time() when the sink accepted it
    message_id: str
    recipient: str


def message_id(content: bytes) -> str:
    """The Message-ID of a message as sent (its header block only).

    >>> message_id(b"From: a@b\\r\\nMessage-ID: <x.turn@c>\\r\\n\\r\\nMessage-ID: <no>")
    '<x.turn@c>'
    >>> message_id(b"Subject: none\\r\\n\\r\\n")
    ''
    """
    head = content.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    found = _MESSAGE_ID.search(head)
    return found.group(1).decode("ascii", "replace") if found else ""


def read_record(path: Path) -> list[Received]:
    """What a ``--record`` sink wrote (a last line cut short by a kill is left out)."""
    out = []
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) == 3:
            out.append(Received(float(parts[0]), parts[1], parts[2]))
    return out


class Sink:
    def __init__(self, record: IO[str] | None = None) -> None:
        self.messages = 0
        self.bytes = 0
        self.record = record

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages += 1
        content = envelope.content or b""
        self.bytes += len(content)
        if self.record is not None:
            mid = message_id(content)
            # Before the 250: a message the sender saw accepted is always in the record.
            for rcpt in envelope.rcpt_tos:
                self.record.write(f"{time.time():.6f}\t{mid}\t{rcpt}\n")
            self.record.flush()
        return "250 OK"


def main(argv: list[str]) -> int:
    from aiosmtpd.controller import Controller

    parser = argparse.ArgumentParser(prog="python -m bench.smtp_sink")
    parser.add_argument("port", type=int, nargs="?", default=8025)
    parser.add_argument("--record", type=Path, default=None)
    args = parser.parse_args(argv)
    record = open(args.record, "a", encoding="utf-8") if args.record else None
    sink = Sink(record)
    # A generous size limit: the board picture makes turn mail about 100 KB.
    controller = Controller(sink, hostname="127.0.0.1", port=args.port, data_size_limit=10 * 1024 * 1024,
                            ready_timeout=10)
    controller.start()
    print(f"smtp sink on 127.0.0.1:{args.port}", flush=True)
    done = {"flag": False}

    def finish(*_: Any) -> None:
        done["flag"] = True

    signal.signal(signal.SIGTERM, finish)
    signal.signal(signal.SIGINT, finish)
    try:
        while not done["flag"]:
            signal.pause()
    finally:
        controller.stop()
        if record is not None:
            record.close()
        print(f"smtp sink: {sink.messages} messages, {sink.bytes} bytes", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
