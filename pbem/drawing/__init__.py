"""The look of the board, once: the palette and sizes (:mod:`.style`), and the two
renderers that read them, SVG for the web pages (:mod:`.svg`) and PNG for the mails
(:mod:`.picture`, written by :mod:`.png`); the shapes of the clans' hut tokens
(:mod:`.marks`), and the colour science that checks the palette for colour-blind
players (:mod:`.vision`).  Drawing reads :mod:`pbem.rules`; the rules
never import drawing.

May import: rules, words."""
