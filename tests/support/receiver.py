"""A real HTTP server on 127.0.0.1 and a free port, in a thread, that keeps
every POST it gets (the webhook tests' receiver); it can be told to answer
with an error status and body, and stopped (then nothing listens on its port).
:class:`Tarpit` is a receiver that never finishes its answer."""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Receiver:
    def __init__(self) -> None:
        self.posts: list[Received] = []
        #: The status every request is answered with.
        self.status = 204
        #: The body every request is answered with.
        self.answer = b""
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                receiver.posts.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(receiver.status)
                self.send_header("Content-Length", str(len(receiver.answer)))
                self.end_headers()
                self.wfile.write(receiver.answer)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True, name="webhook-receiver")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> "Receiver":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Tarpit:
    """A real server on 127.0.0.1 that takes a request and answers with a status
    line, then one more header line every ``every`` seconds, never ending the
    headers (a receiver that would hold a worker for as long as it is let)."""

    def __init__(self, every: float = 0.5) -> None:
        self.every = every
        #: Connections taken so far.
        self.connections = 0
        self.stopped = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.thread = threading.Thread(target=self._serve, daemon=True, name="webhook-tarpit")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> "Tarpit":
        self.thread.start()
        return self

    def _serve(self) -> None:
        self.listener.settimeout(0.2)
        while not self.stopped.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            self.connections += 1
            threading.Thread(target=self._dribble, args=(conn,), daemon=True).start()

    def _dribble(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                n = 0
                while not self.stopped.is_set():
                    time.sleep(self.every)
                    n += 1
                    conn.sendall(f"X-Wait-{n}: a little longer\r\n".encode())
            except OSError:
                return  # the client gave up

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(2)
        self.listener.close()
