"""The session cookie (pbem/web/cookie_session.py): Flask's own, its signer built
only for a request that brings a cookie."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from pbem.web.cookie_session import CookieSession
from tests.support.web import csrf_token


@pytest.fixture
def signers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the session's signer was built."""
    built: list[int] = []
    real: Callable[..., Any] = CookieSession.get_signing_serializer

    def counted(self: CookieSession, app: Any) -> Any:
        built.append(1)
        return real(self, app)

    monkeypatch.setattr(CookieSession, "get_signing_serializer", counted)
    return built


def test_a_request_without_a_cookie_builds_no_signer_and_a_session_still_works(app: Any, signers: list[int]) -> None:
    assert isinstance(app.session_interface, CookieSession)
    browser = app.test_client()
    assert browser.get("/healthz").status_code == 200
    assert browser.post("/api/v1/seat/moves", json={"move": "1-2", "ply": 0},
                        headers={"Authorization": "Bearer " + "x" * 40}).status_code == 401
    assert signers == []
    # A page's form token lives in the session: the cookie is written, then read.
    token = csrf_token(browser, "/")
    assert browser.get_cookie("session") is not None
    switched = browser.post("/language", data={"language": "hu", "csrf_token": token, "next": "/"})
    assert switched.status_code == 303
    assert 'lang="hu"' in browser.get("/").get_data(as_text=True)
    assert signers


def test_a_forged_session_cookie_opens_an_empty_session(app: Any) -> None:
    browser = app.test_client()
    browser.set_cookie("session", "eyJsYW5ndWFnZSI6Imh1In0.forged.signature")
    page = browser.get("/")
    assert page.status_code == 200 and 'lang="en"' in page.get_data(as_text=True)
