"""People: what a player gives us (name, address), signing in, whether an address
may be mailed, ratings and stats.

May import: core, words, rules."""
