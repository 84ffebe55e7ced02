"""The floor of the move benchmark: a bare endpoint on the same stack (gunicorn, Flask,
SQLAlchemy with pbem's engine settings, psycopg, the same PostgreSQL) that inserts one row
per POST and answers a small JSON object.

    gunicorn "bench.floor_app:create_app()"   # with PBEM_DATABASE_URL set
"""

from __future__ import annotations

import os
from typing import Any

from flask import Flask, jsonify, request
from sqlalchemy import text

TABLE = "bench_floor"
DDL = f"CREATE TABLE IF NOT EXISTS {TABLE} (id serial PRIMARY KEY, n integer NOT NULL, note text, " \
      "created_at timestamptz NOT NULL DEFAULT now())"


def create_app() -> Flask:
    from pbem.core.db import make_engine

    engine = make_engine(os.environ["PBEM_DATABASE_URL"])
    app = Flask(__name__)

    @app.post("/insert")
    def insert() -> Any:
        body = request.get_json(silent=True) or {}
        with engine.begin() as conn:
            new_id = conn.execute(text(f"INSERT INTO {TABLE} (n, note) VALUES (:n, :note) RETURNING id"),
                                  {"n": int(body.get("n", 0)), "note": str(body.get("note", ""))}).scalar_one()
        return jsonify(id=new_id)

    @app.get("/")
    def index() -> Any:
        return jsonify(ok=True)

    return app


def create_table(database_url: str) -> None:
    from pbem.core.db import make_engine

    engine = make_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text(DDL))
    engine.dispose()
