"""Mail the service receives: replies that move, table talk, bounces.

May import: table, games, people, core, words, drawing, rules."""
