"""What the browser tests share: one live server and one headless Chromium per
test module, and a helper that opens a page in a fresh browser context."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any, Iterator

import pytest
from werkzeug.serving import make_server

from pbem.db import upgrade
from tests.support.config import app_config

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The real app on 127.0.0.1 and a free port, on a fresh SQLite database
    (one per test module: each test makes the games it needs), with the mailbox on."""
    from pbem.web import create_app

    url = f"sqlite:///{tmp_path_factory.mktemp('e2e') / 'e2e.sqlite3'}"
    upgrade(url)
    holder: dict[str, Any] = {}

    def dispatch(environ: Any, start_response: Any) -> Any:
        return holder["app"](environ, start_response)

    server = make_server("127.0.0.1", 0, dispatch, threaded=True)
    base = f"http://127.0.0.1:{server.server_port}"
    app = create_app(app_config(url, BASE_URL=base, MAILBOX=True))
    holder["app"] = app
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield SimpleNamespace(base=base, app=app, ctx=app.extensions["pbem"])
    finally:
        server.shutdown()
        thread.join(timeout=10)
        app.extensions["pbem"].engine.dispose()


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Any]:
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def open_page(browser: Any, url: str, *, width: int = 1280, height: int = 900, js: bool = True,
              timezone: str = "UTC", status: int | None = 200) -> Any:
    """A new context and page at ``url``; ``status`` is the answer expected
    (``None``: any)."""
    context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=js,
                                  device_scale_factor=2 if width < 600 else 1, timezone_id=timezone,
                                  locale="en-GB")
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
    response = page.goto(url)
    assert response is not None
    if status is not None:
        assert response.status == status, (url, response.status)
    return page
