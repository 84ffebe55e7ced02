"""Fixtures shared by the service, web, mail and end-to-end tests.

Every database test runs twice: on SQLite and on a real PostgreSQL database
that the session creates and drops.  A service that cannot be reached makes
its tests skip with the reason, unless PBEM_REQUIRE_SERVICES=1 (set by .ci/run),
which makes that a failure."""

from __future__ import annotations

import uuid
from typing import Any, Iterator

import pytest
from sqlalchemy import text

from pbem.core.db import make_engine, upgrade
from tests.support.config import POSTGRES_ADMIN, REDIS_URL, TABLES, app_config, unavailable
from tests.support.receiver import Receiver
from tests.support.smtp import SmtpServer


@pytest.fixture(autouse=True)
def _joinable_results() -> Iterator[None]:
    """Celery's eager ``apply`` marks "inside a task" in one process-wide flag
    and puts back what it found when it ends.  Eager tasks of two threads (a
    test's receiver or relay thread and the test itself) can interleave so that
    the flag stays set, and every later ``result.get()`` then refuses.  Each
    test starts with it clear."""
    from celery._state import _set_task_join_will_block

    _set_task_join_will_block(False)
    yield


@pytest.fixture(autouse=True)
def _webhook_breakers() -> Iterator[None]:
    """The webhook circuit breaker kept in the process (no Redis broker) starts
    closed for each test: a port a test's failing receiver had is given to the
    next test's."""
    from pbem.mail.webhook_http import breaker

    breaker.cache_clear()
    yield


@pytest.fixture(scope="session")
def postgresql_url() -> Iterator[str]:
    import psycopg

    name = f"pbem_test_{uuid.uuid4().hex[:10]}"
    admin = POSTGRES_ADMIN.replace("postgresql+psycopg://", "postgresql://")
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as e:
        unavailable("PostgreSQL", e)
    url = POSTGRES_ADMIN.rsplit("/", 1)[0] + f"/{name}"
    upgrade(url)
    yield url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'pbem.sqlite3'}"
    upgrade(url)
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str:
    """A migrated, empty database on each backend."""
    url: str = request.getfixturevalue(f"{request.param}_url")
    engine = make_engine(url)
    with engine.begin() as conn:
        if request.param == "postgresql":
            conn.execute(text(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE"))
        else:
            for table in TABLES:
                conn.execute(text(f"DELETE FROM {table}"))
    engine.dispose()
    return url


@pytest.fixture
def app(database_url: str) -> Iterator[Any]:
    from pbem.web import create_app

    app = create_app(app_config(database_url))
    yield app
    app.extensions["pbem"].engine.dispose()


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def ctx(app: Any) -> Any:
    return app.extensions["pbem"]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A real HTTP server on 127.0.0.1 that keeps the posts it gets (webhooks)."""
    server = Receiver().start()
    yield server
    server.stop()


@pytest.fixture
def hook_app(database_url: str) -> Iterator[Any]:
    """The app on each backend, with webhooks allowed to 127.0.0.1 (the receiver)."""
    from pbem.web import create_app

    app = create_app(app_config(database_url, WEBHOOK_ALLOW="127.0.0.1"))
    yield app
    app.extensions["pbem"].engine.dispose()


@pytest.fixture
def hctx(hook_app: Any) -> Any:
    return hook_app.extensions["pbem"]


@pytest.fixture
def push_app(database_url: str) -> Iterator[Any]:
    """The app on each backend with Web Push on (a VAPID key) and push services
    allowed at 127.0.0.1 (the receiver stands for one)."""
    from pbem.web import create_app
    from tests.support.push import vapid_key

    app = create_app(app_config(database_url, WEBHOOK_ALLOW="127.0.0.1", VAPID_PRIVATE_KEY=vapid_key(),
                                VAPID_SUBJECT="mailto:operator@clans.example"))
    yield app
    app.extensions["pbem"].engine.dispose()


@pytest.fixture
def pctx(push_app: Any) -> Any:
    return push_app.extensions["pbem"]


@pytest.fixture(scope="session")
def redis_url() -> str:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.exceptions.ConnectionError as e:
        unavailable("Redis", e)
    return REDIS_URL


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    """A real SMTP server on a free port for the test (the mail and Celery tests)."""
    server = SmtpServer()
    server.start()
    yield server
    server.stop()
