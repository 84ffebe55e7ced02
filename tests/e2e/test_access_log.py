"""gunicorn's access log, as the README starts it (``-c python:pbem.gunicorn_conf``),
writes no token (issue 27, section 4): a request for ``/play/<token>`` (or a
sign-in, unsubscribe or never-mail link, or a referer holding one) is logged
with the token masked, whatever access-log format the operator chose."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import requests

from tests.support.config import SECRET
from tests.support.smtp import free_port

GUNICORN = Path(sys.executable).with_name("gunicorn")
SEAT = "Zq3kP1x0abcdEFGH12ijklMNOP34qrstUVWX56yzAB7"
SIGNIN = "SgN1nT0kenAbCdEfGhIjKlMnOpQrStUvWxYz0123456"
UNSUBSCRIBE = "k3vx9q2mtr7hwa.UnSuBsCrIbEaBcDeFgHiJkLmNoPqRsTuVwXyZ012345678"
#: The usual format and one that writes the request's headers as well.
FORMAT = '%(h)s "%(r)s" %(s)s "%(f)s" %(U)s %({cookie}i)s %({authorization}i)s'


def test_the_access_log_masks_tokens(sqlite_url: str, tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "access.log"
    env = {**os.environ, "PBEM_DATABASE_URL": sqlite_url, "PBEM_SECRET_KEY": SECRET, "PBEM_BASE_URL": base}
    proc = subprocess.Popen([str(GUNICORN), "-w", "1", "-b", f"127.0.0.1:{port}", "-c", "python:pbem.gunicorn_conf",
                             "--access-logfile", str(log), "--access-logformat", FORMAT,
                             "pbem.web:create_app()"], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass  # not listening yet
            assert proc.poll() is None and time.monotonic() < deadline, \
                (proc.stderr.read() if proc.stderr else b"").decode()
            time.sleep(0.2)
        answers: list[Any] = [
            requests.get(f"{base}/play/{SEAT}", timeout=10),
            requests.post(f"{base}/play/{SEAT}/move", timeout=10),
            requests.get(f"{base}/signin/{SIGNIN}", timeout=10),
            requests.get(f"{base}/unsubscribe/{UNSUBSCRIBE}", timeout=10),
            requests.get(f"{base}/never/{SEAT}?again=1", timeout=10),
            requests.get(f"{base}/api/v1/seat", headers={"Authorization": f"Bearer {SEAT}",
                                                        "Cookie": f"session={SIGNIN}"}, timeout=10),
            requests.get(f"{base}/", headers={"Referer": f"https://clans.example/play/{SEAT}"}, timeout=10),
        ]
        assert [a.status_code for a in answers][:1] == [401]
        lines: list[str] = []
        deadline = time.monotonic() + 10
        while len(lines) < len(answers) + 1 and time.monotonic() < deadline:  # gunicorn writes as it goes
            lines = [line for line in log.read_text().splitlines() if line.strip()]
            time.sleep(0.05)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    text = log.read_text()
    assert len(lines) >= len(answers) + 1, text  # /healthz, then each request
    for secret in (SEAT, SIGNIN, UNSUBSCRIBE, "UnSuBsCrIbE"):
        assert secret not in text, text
    assert f'"GET /play/*** HTTP/1.1" 401' in text and "POST /play/***" in text
    assert "GET /signin/***" in text and "GET /unsubscribe/***" in text and "GET /never/***" in text
    # Whole credentials never: the session cookie and the bearer token.
    assert "session=" not in text and " *** ***" in text
