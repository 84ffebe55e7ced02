"""Headless Chromium for the browser tests: its command-line flags and a page
opened in a fresh browser context.  The ``live`` server and ``browser``
fixtures are in tests/e2e/conftest.py."""

from __future__ import annotations

from typing import Any

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def open_page(browser: Any, url: str, *, width: int = 1280, height: int = 900, js: bool = True,
              timezone: str = "UTC", status: int | None = 200, locale: str = "en-GB") -> Any:
    """A new context and page at ``url``; ``status`` is the answer expected
    (``None``: any); ``locale`` is the browser's language (its ``Accept-Language``)."""
    context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=js,
                                  device_scale_factor=2 if width < 600 else 1, timezone_id=timezone,
                                  locale=locale)
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
    response = page.goto(url)
    assert response is not None
    if status is not None:
        assert response.status == status, (url, response.status)
    return page
