"""The browser tests' fixtures: one live server and one headless Chromium per
test module (tests/support/browser.py opens a page in a fresh browser context)."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterator

import pytest
from werkzeug.serving import make_server

from pbem.core.db import upgrade
from tests.support.browser import ARGS
from tests.support.config import app_config, unavailable
from tests.support.push import vapid_key


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The real app on 127.0.0.1 and a free port, on a fresh SQLite database
    (one per test module: each test makes the games it needs), with the mailbox
    on, and Web Push on (a VAPID key; push services allowed on 127.0.0.1, where
    the push tests' receiver stands for one), so the pages show its section."""
    from pbem.web import create_app

    url = f"sqlite:///{tmp_path_factory.mktemp('e2e') / 'e2e.sqlite3'}"
    upgrade(url)
    holder: dict[str, Any] = {}

    def dispatch(environ: Any, start_response: Any) -> Any:
        return holder["app"](environ, start_response)

    server = make_server("127.0.0.1", 0, dispatch, threaded=True)
    base = f"http://127.0.0.1:{server.server_port}"
    app = create_app(app_config(url, BASE_URL=base, MAILBOX=True, VAPID_PRIVATE_KEY=vapid_key(),
                                WEBHOOK_ALLOW="127.0.0.1"))
    holder["app"] = app
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield SimpleNamespace(base=base, app=app, ctx=app.extensions["pbem"])
    finally:
        server.shutdown()
        thread.join(timeout=10)
        app.extensions["pbem"].engine.dispose()


@pytest.fixture(scope="session")
def chromium() -> str:
    path = os.environ.get("PBEM_CHROMIUM", "/usr/bin/chromium")
    if not Path(path).exists():
        unavailable("Chromium", f"no browser at {path} (apt-get install chromium)")
    return path


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def bench_db(postgresql_url: str) -> Iterator[Any]:
    """The session's PostgreSQL database emptied for a benchmark helper's test: its
    ``url``, an ``engine``, a benchmark context ``ctx`` (bench/gamedata.py) and
    ``count(sql, **params)``, the one number a query answers."""
    from sqlalchemy import text

    from bench import gamedata
    from pbem.core.db import make_engine
    from tests.support.config import TABLES

    engine = make_engine(postgresql_url)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE"))

    def count(sql: str, **params: Any) -> int:
        with engine.connect() as conn:
            return int(conn.execute(text(sql), params).scalar_one())

    ctx = gamedata.context(postgresql_url)
    try:
        yield SimpleNamespace(url=postgresql_url, engine=engine, ctx=ctx, count=count)
    finally:
        ctx.engine.dispose()
        engine.dispose()
