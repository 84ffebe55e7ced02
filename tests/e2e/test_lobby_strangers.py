"""Two strangers find a table in the lobby, join it by mail and play it to the
end, on the production stack: the API over WSGI, a Celery worker on Redis, mail
through a real SMTP server.  Nobody's mail names another person's address."""

from __future__ import annotations

import re
from typing import Any, Iterator

import pytest
from celery.contrib.testing.worker import start_worker

from tests.support.brokers import broker_db, empty
from tests.support.config import redis_db
from tests.support.games import play_to_end
from tests.support.messages import parts
from tests.support.smtp import SmtpServer

ANN, BEA, CY = "ann@example.org", "bea@example.net", "cy@example.com"


@pytest.fixture
def stack(database_url: str, smtp: SmtpServer, redis_url: str) -> Iterator[Any]:
    from pbem.web import create_app

    broker = broker_db(redis_db(3))
    app = create_app(smtp.config(database_url, BROKER_URL=broker))
    with start_worker(app.extensions["celery"], pool="solo", concurrency=1, perform_ping_check=False,
                      loglevel="WARNING", shutdown_timeout=10):
        yield app
    app.extensions["pbem"].engine.dispose()
    empty(broker)


def token_in(message: Any) -> str:
    found = re.search(r"/play/([A-Za-z0-9_-]+)", parts(message)["text"])
    assert found, parts(message)["text"]
    return found.group(1)


def accept(client: Any, token: str) -> dict[str, Any]:
    response = client.post("/api/v1/seat/accept", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.json
    return dict(response.json)


def test_two_strangers_find_a_table_join_by_mail_and_play_it_to_the_end(stack: Any, smtp: SmtpServer) -> None:
    client, ctx, box = stack.test_client(), stack.extensions["pbem"], smtp.collector
    made = client.post("/api/v1/games", json={"players": [{"name": "Ann", "email": ANN}, {"open": True},
                                                          {"open": True}], "turn_hours": 24})
    assert made.status_code == 201
    table = made.json["id"]
    # Not listed until Ann confirms from her mail.
    assert client.get("/api/v1/lobby").json["tables"] == []
    (confirm,) = box.wait_for(1, kind="invite")
    ann = token_in(confirm.message)
    accept(client, ann)

    tokens = [ann]
    for name, email, language in (("Bea", BEA, "pt"), ("Cy", CY, "cs")):
        listed = client.get("/api/v1/lobby?players=3&max_turn_hours=24").json["tables"]
        assert [t["id"] for t in listed] == [table]
        joined = client.post(f"/api/v1/lobby/{table}/join", json={"name": name, "email": email, "language": language})
        assert joined.status_code == 202
        (invitation,) = box.wait_for(1, to=email, kind="table-invite")
        text = parts(invitation.message)["text"] + parts(invitation.message)["html"]
        assert invitation.message["X-PBEM-Game"] == table
        assert "Ann" in text and ANN not in text and BEA not in text.replace(email, "")
        tokens.append(token_in(invitation.message))
        view = accept(client, tokens[-1])
    assert view["status"] == "active"
    assert client.get("/api/v1/lobby").json["tables"] == []

    moves = play_to_end(ctx, tokens)
    assert moves > 0
    for email in (ANN, BEA, CY):
        (over,) = box.wait_for(1, to=email, kind="game-over", timeout=60)
        assert over.message["X-PBEM-Game"] == table
    # Each got the first turn mail only if it was theirs; nobody's mail named another's address.
    for received in box.messages():
        body = parts(received.message)
        everything = (body["text"] or "") + (body["html"] or "")
        for address in {ANN, BEA, CY} - {received.to}:
            assert address not in everything, (received.kind, received.to)
