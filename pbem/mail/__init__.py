"""Mail that goes out: what each kind of mail is (kinds), what each message says
(compose, messages), delivering an outbox row, the one SMTP adapter, and posting
to webhooks (what a post says, the one HTTP client).

May import: inbound, table, games, people, core, words, drawing, rules."""
