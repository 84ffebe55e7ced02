"""``make bench`` / ``python -m bench``: the service's performance, each figure measured as a
ratio against a floor measured in the same run, on the real stack (gunicorn, PostgreSQL,
Redis, Celery, an SMTP sink on loopback).

Modules: :mod:`bench.moves` (move submission), :mod:`bench.mail` (turn mail),
:mod:`bench.reading` (reading a game), :mod:`bench.rules` (random playouts against
:mod:`bench.reference_rules`); :mod:`bench.infra` starts and always cleans up the servers and
databases; :mod:`bench.common` holds the pure helpers (percentiles, the table, the JSON).
"""
