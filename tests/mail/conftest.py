"""The mail tests' fixtures: an app that mails through the real SMTP server."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from tests.support.smtp import SmtpServer


@pytest.fixture
def smtp_app(database_url: str, smtp: SmtpServer) -> Iterator[Any]:
    """The app on each database backend, mailing through the real SMTP server."""
    from pbem.web import create_app

    app = create_app(smtp.config(database_url))
    yield app
    app.extensions["pbem"].engine.dispose()


@pytest.fixture
def sctx(smtp_app: Any) -> Any:
    return smtp_app.extensions["pbem"]
