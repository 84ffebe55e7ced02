"""Around the table: talk, rematch, replay, watching, and the game's webhooks.

May import: games, people, core, words, drawing, rules."""
