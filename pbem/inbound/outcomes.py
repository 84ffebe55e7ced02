"""What became of a received message: the ``outcome`` stored with its
:class:`pbem.core.models.Inbound` row, a word and perhaps details after colons
(``refused:not-your-turn``, ``refused:rules:not-adjacent``,
``talk-refused:too-long``).  Outcomes are made and read back here only.

>>> outcome(Outcome.REFUSED, RULES, "not-adjacent")
'refused:rules:not-adjacent'
>>> parts("refused:rules:not-adjacent"), parts("accepted"), word_of("failed:time-limit")
(('refused', 'rules:not-adjacent'), ('accepted', ''), 'failed')
"""

from __future__ import annotations

from enum import StrEnum

#: The longest outcome the row keeps.
MAX_OUTCOME = 64


class Outcome(StrEnum):
    """An outcome's first word."""

    #: A reply's move was played (``accepted:talk``: its talk posted too;
    #: ``accepted:talk-refused``: the talk could not be).
    ACCEPTED = "accepted"
    #: A reply's move was not played: ``refused:<why>`` (a reading problem, a
    #: stale turn, ``rules:<code>``); ``…:unanswered`` when no answer went.
    REFUSED = "refused"
    #: Not played: the seat is asked to confirm on its page (``confirm:sender``,
    #: ``confirm:trust``, ``confirm:headers``).
    CONFIRM = "confirm"
    #: A reply to table talk was posted (``talk-refused:<code>``: it could not be).
    TALK = "talk"
    TALK_REFUSED = "talk-refused"
    #: Automatic mail (an auto-responder, a delivery report not to a return path).
    IGNORED_AUTO = "ignored-auto"
    #: For no turn or row of ours.
    IGNORED_UNKNOWN = "ignored-unknown"
    #: Talk not from the seat's own address, or found only by its headers.
    IGNORED_SENDER = "ignored-sender"
    IGNORED_HEADERS = "ignored-headers"
    #: To an address of ours that is not one (only a changed configuration).
    UNKNOWN_RECIPIENT = "unknown-recipient"
    #: A delivery report (``pbem.inbound.bounces``).
    BOUNCE_HARD = "bounce-hard"
    BOUNCE_SOFT = "bounce-soft"
    BOUNCE_UNKNOWN = "bounce-unknown"
    #: It kept failing, or ran out of time (``failed:time-limit``), and was given up on.
    FAILED = "failed"
    #: Stored while a reply's move is being played: a second try resumes it.
    APPLYING = "applying"
    #: Never stored: what kept a message from being handled now
    #: (:func:`pbem.inbound.handling.handle`).
    MISSING = "missing"
    DONE = "done"
    BUSY = "busy"
    RETRY = "retry"


#: The detail of a refusal by the rules (``refused:rules:<code>``).
RULES = "rules"
#: The detail of a reply that set pre-moves (``accepted:premoves``,
#: ``refused:premoves:<code>``).
PREMOVES = "premoves"
#: The detail of a refusal that was not answered (``refused:<why>:unanswered``).
UNANSWERED = "unanswered"
#: The detail of a message too complex to read (``refused:structure:<why>``).
STRUCTURE = "structure"
#: The detail of a message that ran out of time (``failed:time-limit``).
TIME_LIMIT = "time-limit"


def outcome(word: Outcome, *details: str) -> str:
    """``word:detail:…``, cut to :data:`MAX_OUTCOME`."""
    return ":".join([word.value, *details])[:MAX_OUTCOME]


def parts(text: str) -> tuple[str, str]:
    """An outcome's word and the rest (``refused:rules:x``: ``refused``, ``rules:x``)."""
    word, _, rest = text.partition(":")
    return word, rest


def word_of(text: str) -> str:
    """The word alone, for a metric's label (the details stay in the log)."""
    return parts(text)[0].split(" ", 1)[0][:32]
