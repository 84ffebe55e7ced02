"""States, kinds and outcomes are enums (``GameStatus``, ``SeatStatus``,
``OutboxStatus``, ``MailChoice``, ``core.events.Event``,
``inbound.outcomes.Outcome`` ...), never string literals compared by hand:
this reads ``pbem/`` (Python and templates) for a comparison with one of their
values, and for an event key or outcome built or taken apart outside the one
module that does it, so that the strings cannot quietly come back."""

from __future__ import annotations

import re
from pathlib import Path

PBEM = Path(__file__).resolve().parent.parent / "pbem"

#: The values of the enums: a game's and a view's status, an outbox row's and a
#: received message's, a seat's mail, a board style, a webhook's state and kind,
#: an address's kind, a delivery attempt's outcome, a probe's state.
STATES = {
    "invited", "waiting", "active", "finished", "expired", "cancelled",
    "pending", "sent", "skipped", "failed", "done",
    "every", "digest", "none",
    "standard", "contrast",
    "live", "failing", "off",
    "discord", "slack", "json",
    "move", "talk", "bounce",
    "retry", "postponed", "busy", "missing",
    "ok", "not configured",
    "accepted", "refused", "confirm", "talk-refused", "applying", "unknown-recipient",
    "ignored-auto", "ignored-unknown", "ignored-sender", "ignored-headers",
    "bounce-hard", "bounce-soft", "bounce-unknown",
}
#: The mail kinds (``Outbox.kind``) are records of their own (one per kind), not
#: this test's: a comparison of ``kind`` with one of them is theirs to guard.
MAIL_KINDS = {
    "invite", "turn", "reminder", "deadline", "game-over", "login", "digest", "link", "reply-accepted",
    "reply-refused", "reply-confirm", "talk", "unreachable", "webhook", "webhook-off", "cancelled",
}
#: Comparisons with a word that happens to be one of the values, and what it is there.
NOT_STATES = {
    ("inbound/bounces.py", 'action == "failed"'): "a delivery report's Action field (RFC 3464)",
    ("inbound/structure.py", '== "digest"'): "a MIME subtype (multipart/digest)",
    ("core/logs.py", 'name == "json"'): "the log format setting",
    ("templates/_webhooks.html", 'answer.where == "discord"'): "the form an error belongs to",
}

_WORD = r"""["']([a-z][a-z -]*)["']"""
#: ``x == "word"``, ``"word" != x``, ``x in ("word", ...)``, ``x not in ["word", ...]``.
_COMPARED = [
    re.compile(rf"(?:==|!=)\s*{_WORD}"),
    re.compile(rf"{_WORD}\s*(?:==|!=)"),
    re.compile(r"""\bin\s*[(\[]((?:\s*["'][a-z][a-z -]*["']\s*,?)+)[)\]]"""),
]
_KIND_BEFORE = re.compile(r"kind\)?\s*(?:==|!=|(?:not\s+)?in)\s*[(\[]?\s*$")
#: An event key or outcome written by hand (``f"ply:{...}"``) or taken apart.
_BUILT = re.compile(r"""f["'](?:ply|remind|autopilot|digest|talk|inbound|unreachable|webhook-off|login|link|"""
                    r"""refused|accepted|confirm|talk-refused|failed|rules):\{""")
_TAKEN_APART = re.compile(r"""\.(?:r?partition|r?split)\(["']:["']""")
#: The modules that take apart text at a colon, and what they take apart.
TAKE_APART = {
    "core/events.py": "event keys",
    "inbound/outcomes.py": "outcomes",
    "games/webhook_events.py": "a webhook post's recipient, webhook:ID",
    "inbound/senders.py": "the INBOUND_TRUST setting, method:server",
    "ops/probes.py": "a URL's user:password",
}


def _files() -> list[Path]:
    return sorted(p for p in PBEM.rglob("*") if p.suffix in (".py", ".html", ".txt")
                  and "migrations" not in p.parts and "rules" not in p.relative_to(PBEM).parts[:1])


def _state_comparisons(line: str) -> list[str]:
    found = []
    for pattern in _COMPARED:
        for match in pattern.finditer(line):
            words = re.findall(r"""["']([a-z][a-z -]*)["']""", match.group(0))
            before = line[:match.start()]
            for word in words:
                if word not in STATES:
                    continue
                if word in MAIL_KINDS and _KIND_BEFORE.search(before + match.group(0).split(word)[0].rstrip("\"'")):
                    continue
                found.append(word)
    return found


def test_no_state_is_compared_as_a_string():
    found = []
    for path in _files():
        name = path.relative_to(PBEM).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(name == where and text in line for where, text in NOT_STATES):
                continue
            for word in _state_comparisons(line):
                found.append(f"pbem/{name}:{number}: {word!r} in {line.strip()[:100]}")
    assert not found, "compare with the enum's member, not its string:\n" + "\n".join(found)


def test_event_keys_and_outcomes_are_made_in_one_place():
    found = []
    for path in _files():
        name = path.relative_to(PBEM).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _BUILT.search(line) or (_TAKEN_APART.search(line) and name not in TAKE_APART):
                found.append(f"pbem/{name}:{number}: {line.strip()[:100]}")
    assert not found, "use pbem.core.events or pbem.inbound.outcomes:\n" + "\n".join(found)


def test_the_guard_sees_a_comparison():
    # The patterns themselves: what they must catch, and what they must leave.
    assert _state_comparisons('if game.status == "active":') == ["active"]
    assert _state_comparisons("{% if status in ('invited', 'waiting') %}") == ["invited", "waiting"]
    assert _state_comparisons('if "finished" != view["status"]:') == ["finished"]
    assert _state_comparisons('if row.kind == "digest":') == []
    assert _state_comparisons('if seat.mail == "digest":') == ["digest"]
    assert _state_comparisons("status = GameStatus.ACTIVE") == []
