"""The shared fakes and helpers of the tests, one module for each kind of thing:

- ``config``: where the test services are, the test secret, ``app_config``;
- ``games``: the players, new games, moves, seat tokens, deadlines, made-up positions;
- ``messages``: the mail the mailbox caught, a message's parts, a built sign-in message;
- ``clock``: the frozen clock (``ctx.now`` moved by hand);
- ``smtp``: a real SMTP server that collects what it accepts;
- ``views``: board views for the picture tests;
- ``rules``: inline boards, rules games and records, the refusal codes, the ``pbem`` command;
- ``web``: form tokens, sign-in links, page markup, database snapshots;
- ``browser``: Chromium's flags and a page in a fresh browser context.
- ``text``: the text a person reads in a page or mail, and English left in a translation.
- ``replies``: replies to the service's mail as a mail client writes them, stored as received.

Fixtures are not here: they are defined in the conftest.py files (tests/conftest.py
for the shared ones, a layer's own conftest.py for the ones only that layer uses).
Test modules import helpers from here, never from another test module or a conftest."""
