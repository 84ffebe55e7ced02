"""Background work: the Celery tasks and the clock they run.

May import: mail, inbound, table, games, people, core, words, drawing, rules."""
