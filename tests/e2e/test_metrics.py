"""``GET /metrics`` as an operator's Prometheus reads it: gunicorn with two
workers and a Celery worker in multiprocess mode, on PostgreSQL and Redis; a
short game played over HTTP, and every process's counts (the Celery worker's
mail among them) summed in whichever web worker answers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterator

import pytest
import redis
import requests

from pbem import games
from pbem.web import create_app
from tests.support.clock import wait_until
from tests.support.config import SECRET, app_config, redis_db
from tests.support.games import new_game, to_move
from tests.support.smtp import free_port

GUNICORN = Path(sys.executable).with_name("gunicorn")
#: The scraper's bearer token (PBEM_METRICS_TOKEN).
TOKEN = "scraper-token-0123456789abcdefghij"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _value(text: str, name: str, **labels: str) -> float:
    """The sample ``name{labels}`` in an exposition (0 when it is not there)."""
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    total = 0.0
    for line in text.splitlines():
        m = re.fullmatch(r"([a-z_]+)(?:\{([^}]*)\})? (\S+)", line)
        if not m or m.group(1) != name:
            continue
        got = ",".join(sorted((m.group(2) or "").split(","))) if m.group(2) else ""
        if not labels or all(part in got.split(",") for part in wanted.split(",")):
            total += float(m.group(3))
    return total


@pytest.fixture
def server(database_url: str, redis_url: str, tmp_path: Path) -> Iterator[Any]:
    broker = redis_db(1)
    redis.Redis.from_url(broker).flushdb()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    folder = tmp_path / "prometheus"
    folder.mkdir()
    (folder / "stale_999999.db").write_bytes(b"from an earlier run")  # cleared when the server starts
    env = {**os.environ, "PBEM_DATABASE_URL": database_url, "PBEM_SECRET_KEY": SECRET, "PBEM_BASE_URL": base,
           "PBEM_METRICS": "1", "PBEM_METRICS_TOKEN": TOKEN, "PROMETHEUS_MULTIPROC_DIR": str(folder), "PBEM_BOT_DELAY": "0",
           "PBEM_BROKER_URL": broker}
    proc = subprocess.Popen([str(GUNICORN), "-w", "2", "-b", f"127.0.0.1:{port}", "-c", "python:pbem.gunicorn_conf",
                             "--graceful-timeout", "2", "pbem.web:create_app()"], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    worker_log = open(tmp_path / "worker.log", "w")
    worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "pbem.worker", "worker", "--pool", "solo",
                               "--loglevel", "WARNING"], env=env, cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=worker_log)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass  # not listening yet, or its workers still starting
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("gunicorn did not start: " + (proc.stderr.read() if proc.stderr else b"").decode())
            time.sleep(0.2)
        app = create_app(app_config(database_url, BASE_URL=base))
        yield base, app.extensions["pbem"], folder
        app.extensions["pbem"].engine.dispose()
    finally:
        for process in (proc, worker):
            process.terminate()
        for process in (proc, worker):
            process.wait(timeout=20)
        worker_log.close()
        redis.Redis.from_url(broker).flushdb()


# Several processes share one database, as in production: PostgreSQL.
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_short_games_counts_are_summed_over_every_process(server: Any) -> None:
    base, ctx, folder = server
    assert not (folder / "stale_999999.db").exists()
    # Only the scraper with the token reads it.
    refused = requests.get(base + "/metrics", timeout=20)
    assert refused.status_code == 401 and "pbem_" not in refused.text
    assert requests.get(base + "/metrics", headers={"Authorization": "Bearer nope"}, timeout=20).status_code == 401
    game_id, toks = new_game(ctx, 2)
    moves = 6
    for _ in range(moves):
        token, view = to_move(ctx, toks)
        answer = requests.post(base + "/api/v1/seat/moves", headers={"Authorization": f"Bearer {token}"},
                               json={"move": view["legal_moves"][0], "ply": view["ply"]}, timeout=20)
        assert answer.status_code == 200, answer.text
    # Refused: a move for a ply already gone, and one by the player not to move.
    token, view = to_move(ctx, toks)
    other = next(t for t in toks if t != token)
    stale = requests.post(base + "/api/v1/seat/moves", headers={"Authorization": f"Bearer {token}"},
                          json={"move": view["legal_moves"][0], "ply": view["ply"] - 1}, timeout=20)
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale"
    wrong = requests.post(base + "/api/v1/seat/moves", headers={"Authorization": f"Bearer {other}"},
                          json={"move": view["legal_moves"][0], "ply": view["ply"]}, timeout=20)
    assert wrong.status_code == 409 and wrong.json()["error"]["code"] == "not-your-turn"

    # Requests at once reach both workers; each writes its own count files.
    def pids() -> set[str]:
        return {m.group(1) for f in folder.glob("*.db") if (m := re.search(r"_(\d+)\.db$", f.name))}

    with ThreadPoolExecutor(8) as pool:
        for _ in range(20):
            list(pool.map(lambda _: requests.get(f"{base}/games/{game_id}", timeout=20).status_code, range(16)))
            if len(pids()) >= 2:
                break
    assert len(pids()) >= 2, pids()
    # Each move's turn mail goes through Redis to the Celery worker, which counts
    # what became of it: sent, or skipped when the game had moved on by then.
    def handled() -> float:
        text = requests.get(base + "/metrics", headers=AUTH, timeout=20).text
        return sum(_value(text, "pbem_mail_total", kind="turn", outcome=o) for o in ("sent", "skipped"))

    wait_until(lambda: handled() == moves, timeout=60)
    assert len(pids()) >= 3, pids()  # two web workers and the Celery worker
    served = games.public_game(ctx, game_id)["ply"]
    assert served == moves

    for _ in range(4):  # whichever worker answers, the sums are the same
        text = requests.get(base + "/metrics", headers=AUTH, timeout=20).text
        assert _value(text, "pbem_moves_total", outcome="accepted") == moves
        assert _value(text, "pbem_moves_total", outcome="stale") == 1
        assert _value(text, "pbem_moves_total", outcome="not-your-turn") == 1
        assert _value(text, "pbem_games_active") == 1
        assert _value(text, "pbem_request_seconds_count", route="/api/v1/seat/moves", method="POST") == moves + 2
        assert _value(text, "pbem_request_seconds_count", route="/games/<game_id>", method="GET") >= 16
        assert _value(text, "pbem_mail_total", kind="turn", outcome="retry") == 0
        # The newest turn's mail is sent; an older one the game had left behind is skipped.
        assert _value(text, "pbem_mail_total", kind="turn", outcome="sent") >= 1
        assert "pbem_outbox_pending " in text and "pbem_outbox_oldest_pending_seconds " in text
        # Labels are routes and codes: no token, no game id, no address.
        assert not any(t in text for t in toks) and game_id not in text and "@" not in text


def test_metrics_are_off_unless_asked_for(client: Any) -> None:
    assert client.get("/metrics").status_code == 404
