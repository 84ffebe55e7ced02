"""A local SMTP sink for the mail benchmark: accepts every message on loopback and drops
it, counting.  Runs in its own process:

    python -m bench.smtp_sink PORT
"""

from __future__ import annotations

import signal
import sys
from typing import Any


class Sink:
    def __init__(self) -> None:
        self.messages = 0
        self.bytes = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages += 1
        self.bytes += len(envelope.content or b"")
        return "250 OK"


def main(argv: list[str]) -> int:
    from aiosmtpd.controller import Controller

    port = int(argv[0]) if argv else 8025
    sink = Sink()
    # A generous size limit: the board picture makes turn mail about 100 KB.
    controller = Controller(sink, hostname="127.0.0.1", port=port, data_size_limit=10 * 1024 * 1024,
                            ready_timeout=10)
    controller.start()
    print(f"smtp sink on 127.0.0.1:{port}", flush=True)
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
        print(f"smtp sink: {sink.messages} messages, {sink.bytes} bytes", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
