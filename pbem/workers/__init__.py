"""Background work: the Celery tasks, the clock they run, and the Redis broker they
publish through.

May import: mail, inbound, table, games, people, core, words, drawing, rules."""
