"""GET /healthz and GET /readyz: what a load balancer asks every few seconds.
Readiness is tried against the real PostgreSQL and Redis, and against a
database and a broker on a local port where nothing listens."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.web import create_app
from tests.support.config import POSTGRES_ADMIN, app_config
from tests.support.smtp import free_port


def closed_postgres_url() -> str:
    """A PostgreSQL URL on a local port where nothing listens."""
    return POSTGRES_ADMIN.rsplit("@", 1)[0] + f"@127.0.0.1:{free_port()}/pbem"


def no_cookie(response: Any) -> None:
    assert "Set-Cookie" not in response.headers
    assert response.headers["Cache-Control"] == "no-store"


def test_healthz_answers_without_touching_the_database() -> None:
    # The database cannot be reached: the process is still up.
    app = create_app(app_config(closed_postgres_url()))
    response = app.test_client().get("/healthz")
    assert response.status_code == 200 and response.get_json() == {"status": "ok"}
    no_cookie(response)
    assert app.test_client().head("/healthz").status_code == 200


def test_ready_on_the_real_database_and_broker(database_url: str, redis_url: str) -> None:
    app = create_app(app_config(database_url, BROKER_URL=redis_url))
    response = app.test_client().get("/readyz")
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok"}}
    no_cookie(response)


def test_ready_without_a_broker_says_it_is_not_configured(client: Any) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json()["checks"] == {"database": "ok", "broker": "not configured"}


def test_database_down_is_503_naming_the_database(redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    app = create_app(app_config(closed_postgres_url(), BROKER_URL=redis_url))
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    body = response.get_json()
    assert body["failed"] == ["database"] and body["checks"] == {"database": "failed", "broker": "ok"}
    no_cookie(response)
    # Why is for the operator's log, not for whoever asks.
    assert "127.0.0.1" not in response.get_data(as_text=True)
    assert any("not ready: database" in r.getMessage() for r in caplog.records)


def test_a_missing_sqlite_file_is_not_ready_and_is_not_created(tmp_path: Any) -> None:
    path = tmp_path / "nowhere" / "pbem.sqlite3"
    app = create_app(app_config(f"sqlite:///{path}"))
    response = app.test_client().get("/readyz")
    assert response.status_code == 503 and response.get_json()["failed"] == ["database"]
    assert not path.exists()


def test_broker_down_is_503_naming_the_broker(database_url: str) -> None:
    app = create_app(app_config(database_url, BROKER_URL=f"redis://127.0.0.1:{free_port()}/0"))
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    body = response.get_json()
    assert body["failed"] == ["broker"] and body["checks"] == {"database": "ok", "broker": "failed"}


def test_both_down_name_both_and_answer_within_the_time_out() -> None:
    import time

    app = create_app(app_config(closed_postgres_url(), BROKER_URL=f"redis://127.0.0.1:{free_port()}/0",
                                READY_TIMEOUT=1.0))
    started = time.monotonic()
    response = app.test_client().get("/readyz")
    assert response.status_code == 503 and sorted(response.get_json()["failed"]) == ["broker", "database"]
    assert time.monotonic() - started < 5


def test_probes_are_never_rate_limited(database_url: str) -> None:
    # Even with a default limit on every route, which pages then hit.
    app = create_app(app_config(database_url, RATELIMIT_DEFAULT="3 per minute"))
    client = app.test_client()
    assert [client.get("/").status_code for _ in range(5)][-1] == 429
    assert {client.get("/healthz").status_code for _ in range(50)} == {200}
    assert {client.get("/readyz").status_code for _ in range(20)} == {200}


def test_probes_arriving_together_share_one_round_of_checks(database_url: str) -> None:
    # Each round opens a database connection of its own: an anonymous visitor
    # asking a thousand times must not cost a thousand connections.
    from sqlalchemy import event

    from pbem.ops import probes
    from pbem.web import health

    app = create_app(app_config(database_url))
    client = app.test_client()
    engine = probes._probe_engine(database_url, float(app.config["READY_TIMEOUT"]))
    opened: list[int] = []

    def count(*_: Any) -> None:
        opened.append(1)

    event.listen(engine, "connect", count)
    try:
        health._last.clear()
        assert all(client.get("/readyz").status_code == 200 for _ in range(50))
        assert len(opened) == 1
        health._last.clear()  # as when the window is over: a new round
        assert client.get("/readyz").status_code == 200 and len(opened) == 2
    finally:
        event.remove(engine, "connect", count)
        app.extensions["pbem"].engine.dispose()
