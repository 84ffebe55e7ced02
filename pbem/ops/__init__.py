"""The operator's toolbox (``pbem admin``) and the probes of the services the processes need.

May import: games, people, core, words, rules."""
