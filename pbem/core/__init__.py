"""The house's ground floor: the tables, the database, configuration, the context the
services are handed, tokens and links, the refusals, the outbox writer, logs and metrics.

May import: rules."""
