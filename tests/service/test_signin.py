"""Sign-in links go only to the exact address that has games."""

from pbem import games
from pbem.people import signin
from tests.support.games import new_game
from tests.support.messages import caught


def test_wildcards_in_an_address_match_nobody_else(ctx):
    new_game(ctx)
    for probe in ("a_n@example.org", "%@example.org", "ANN@EXAMPLE.ORG"):
        signin.request_login(ctx, probe)
    logins = caught(ctx, kind="login")
    # Addresses are compared (and mailed) in lower case.
    assert [str(m["To"]) for m in logins] == ["ann@example.org"]
    assert games.games_of(ctx, "a_n@example.org") == ([], False)
    assert len(games.games_of(ctx, "Ann@Example.org")[0]) == 1
