"""Reading a player's reply to a turn email: the text they wrote, the part of it
that is theirs (no quoted original, no signature), and the move on its first line.
This module reads the move and the talk; the text of a message is
:mod:`pbem.inbound.message_text`'s, the person's own part of it
:mod:`pbem.inbound.quotes`' and what the service sent is kept out by
:mod:`pbem.inbound.guard`.

Pure: standard library, ``pbem.rules`` and those modules only, no I/O.  Nothing
here decides whether a move is legal or whom a reply is from; it only reads.

The move is the first line of the fresh text, and that line holds nothing but
the move (two whole ASCII numbers) and optionally the order of the villages:

>>> read_reply("12-13").move
Move(12, 13)
>>> [str(read_reply(t).move) for t in ["12 - 13", "12 13", "12 to 13", "12\\u219213", "12 > 13",
...                                    "12\\u201313", "12 -> 13", "12 na 13", "12 para 13", "012-013."]]
['12-13', '12-13', '12-13', '12-13', '12-13', '12-13', '12-13', '12-13', '12-13', '12-13']
>>> [str(read_reply(t).move) for t in ["Move: 12-13", "l\\u00e9p\\u00e9s: 12 13", "tah: 12-13", "jogada: 12 para 13"]]
['12-13', '12-13', '12-13', '12-13']
>>> [read_reply(t).order for t in ["12-13 order 14 15", "12-13 sorrend 14, 15",
...                                "12-13 po\\u0159ad\\u00ed: 15 14", "12-13 ordem 14 15", "12-13 (14, 15)",
...                                "12-13\\norder 15 14"]]
[(14, 15), (14, 15), (15, 14), (14, 15), (14, 15), (15, 14)]
>>> read_reply("12-13\\n\\nGood luck!\\n\\nOn Tue, 1 Dec 2026 at 10:00, Clans by Mail <m@x.example> wrote:\\n> Your turn")
Reply(move=Move(12, 13), order=None, talk='Good luck!', problem=None, talk_cut=False, left_out=False)

What is not a move is not read as one:

>>> read_reply("I'll move in 2 or 3 days")
Reply(move=None, order=None, talk="I'll move in 2 or 3 days", problem='no-move', talk_cut=False, left_out=False)
>>> [read_reply(t).problem for t in ["12-13 14-15", "12-13 order 14 14", "12-13 (14, x)", "2 or 3",
...                                  "\\u0661\\u0662-\\u0661\\u0663", "> 12-13", "Hi!\\n12-13"]]
['two-moves', 'bad-order', 'bad-order', 'no-move', 'no-move', 'empty', 'move-not-first']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pbem.inbound.guard import Sent, guard
from pbem.inbound.quotes import fresh_text
from pbem.rules import Move

#: Talk longer than this is cut (and ``Reply.talk_cut`` says so).
MAX_TALK = 2000
#: ``read_reply`` reads at most this much text; the move and the talk are at its top.
MAX_TEXT = 100_000
#: At most this many villages in an order (there are 12 village chips).
MAX_ORDER = 12

#: At most this many pre-moves on a reply's first line (``pbem.games.MAX_PREMOVES``).
MAX_PREMOVES = 10

#: The problems ``read_reply`` may report, for the answer mail to explain.
PROBLEMS = ("empty", "no-move", "move-not-first", "two-moves", "bad-order", "bad-premoves", "then-not-first")


@dataclass(frozen=True)
class Reply:
    """What a reply says.  ``problem`` is None exactly when ``move`` is read.

    ``move`` is the rules' :class:`Move`, read once here; ``order`` the villages in the
    mover's order, if given; ``talk`` the fresh text but the move (and order)
    line, for the table talk, at most ``MAX_TALK`` characters (``talk_cut``
    says it was cut)."""

    move: Move | None
    order: tuple[int, ...] | None
    talk: str
    problem: str | None
    talk_cut: bool = False
    #: Something was left out of the talk because it came from the service's
    #: own mail (the mail answered, a link with a token, a secret clan).
    left_out: bool = False
    #: The pre-moves of a first line such as ``then 12-13, 4-5`` (``move`` is
    #: then None, and so is ``problem``): each move with its order, if given.
    premoves: tuple[tuple[Move, tuple[int, ...] | None], ...] | None = field(default=None, repr=False)


# --------------------------------------------------------------------------
# The move.

_ID = r"[0-9]{1,4}(?![0-9])"
_SEP = r"(?:[ \t]*(?:-+>|=+>|[>→⟶➔➜]|[-‐‑‒–—−])[ \t]*|[ \t]+(?:to|na|para)[ \t]+|[ \t]+)"
_LEAD = r"(?:(?:move|lépés|lepes|tah|jogada)[ \t]*:?[ \t]*)?"
_MOVE_HEAD = re.compile(rf"{_LEAD}({_ID}){_SEP}({_ID})", re.IGNORECASE)
_ANY_MOVE = re.compile(rf"(?<![0-9]){_ID}{_SEP}{_ID}", re.IGNORECASE)
_KEYWORD = r"(?:order|sorrend|pořadí|poradi|ordem)"
_IDS = rf"{_ID}(?:(?:[ \t]*[,;][ \t]*|[ \t]+){_ID})*"
_ORDER = re.compile(
    rf"{_KEYWORD}[ \t]*:?[ \t]*({_IDS})|\([ \t]*(?:{_KEYWORD}[ \t]*:?[ \t]*)?({_IDS})[ \t]*\)",
    re.IGNORECASE,
)
_ORDER_LINE = re.compile(rf"{_KEYWORD}[ \t]*:?[ \t]*({_IDS})[ \t]*\.?", re.IGNORECASE)
_ORDER_START = re.compile(rf"{_KEYWORD}\b|\(", re.IGNORECASE)


#: The word before a reply's pre-moves (``then 12-13, 4-5``), in the four
#: languages, with and without accents: hu "aztán", "majd"; cs "pak", "potom";
#: pt "depois", "então" (``pbem.words.then_keyword`` names each reader's own).
_THEN = r"(?:then|azt[aá]n|majd|pak|potom|depois|ent[aã]o)"
_THEN_LINE = re.compile(rf"{_THEN}[ \t]*:?[ \t]+(.+)", re.IGNORECASE)
#: Pre-moves are separated by commas or semicolons (outside an order's brackets).
_PREMOVE_SEP = re.compile(r"[,;](?![^()]*\))")


def read_premoves(line: str) -> tuple[str, tuple[tuple[Move, tuple[int, ...] | None], ...]] | None:
    """The pre-moves of a line such as ``then 12-13, 4-5 order 6 7`` (or
    ``aztán 12-13; 4-5 (6, 7)``): ``("", entries)``, ``("bad-premoves", ())`` when
    the words after "then" are not moves, or ``None`` when it is no such line.

    >>> read_premoves("then 12-13, 4-5 order 6 7")
    ('', ((Move(12, 13), None), (Move(4, 5), (6, 7))))
    >>> [read_premoves(t)[1][0][0] for t in ["Aztán: 12-13", "majd 12 13", "pak 12-13", "potom 12-13",
    ...                                      "depois 12-13", "Então 12-13", "entao 12 > 13", "aztan 12-13"]]
    [Move(12, 13), Move(12, 13), Move(12, 13), Move(12, 13), Move(12, 13), Move(12, 13), Move(12, 13), Move(12, 13)]
    >>> read_premoves("then 12-13, later"), read_premoves("Then we will see"), read_premoves("12-13")
    (('bad-premoves', ()), ('bad-premoves', ()), None)
    """
    found = _THEN_LINE.fullmatch(line.strip().strip("*").strip())
    if found is None:
        return None
    entries: list[tuple[Move, tuple[int, ...] | None]] = []
    for piece in _PREMOVE_SEP.split(found.group(1)):
        if not piece.strip():
            continue
        problem, move, order = _move_line(piece)
        if problem or move is None:
            return "bad-premoves", ()
        entries.append((move, order))
    if not entries or len(entries) > MAX_PREMOVES:
        return "bad-premoves", ()
    return "", tuple(entries)


def looks_like_moves(line: str) -> bool:
    """Whether a line holds something written like a move (``12-13``, ``12 to 13``)."""
    return _ANY_MOVE.search(line) is not None


def _ids(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"[0-9]+", text))


def _good_order(order: tuple[int, ...]) -> bool:
    return len(order) <= MAX_ORDER and len(set(order)) == len(order)


def _move_line(line: str) -> tuple[str, Move | None, tuple[int, ...] | None]:
    """(problem or "", move, order) read from what should be a move line."""
    text = line.strip().strip("*").strip()
    head = _MOVE_HEAD.match(text) if len(text) <= 200 else None
    if head is None:
        return "no-move", None, None
    move = Move(int(head.group(1)), int(head.group(2)))
    rest = text[head.end():].strip().rstrip(".!").strip().lstrip(",;").strip()
    if not rest:
        return "", move, None
    found = _ORDER.fullmatch(rest)
    if found:
        order = _ids(found.group(1) or found.group(2))
        return ("", move, order) if _good_order(order) else ("bad-order", None, None)
    if _ORDER_START.match(rest):
        return "bad-order", None, None
    if _ANY_MOVE.search(rest):
        return "two-moves", None, None
    return "no-move", None, None


def read_reply(text: str, sent: Sent | None = None) -> Reply:
    """Read the move, the order and the talk of a reply (its text, as
    ``reply_text`` gives it; the quote and signature are cut here).

    The move is the first line of the fresh text and nothing else: two ASCII
    numbers, separated by a dash, an arrow, ``>``, spaces or "to" (cs "na",
    pt "para"), perhaps after "move:" (hu "lépés:", cs "tah:", pt "jogada:"),
    perhaps followed by the villages' order ("order 14 15", hu "sorrend",
    cs "pořadí", pt "ordem", or "(14, 15)"), which may also stand alone on
    the next line.  Problems: ``empty`` (no fresh text), ``no-move``,
    ``move-not-first`` (a later line is a move), ``two-moves``, ``bad-order``
    (repeated villages, more than twelve, or not numbers).  With a problem
    ``move`` and ``order`` are None.

    With ``sent`` (what the service sent the one replying), nothing of it is
    read (:func:`guard`), and ``left_out`` says whether anything was dropped.
    """
    fresh = fresh_text(text[:MAX_TEXT])
    left_out = False
    if sent is not None:
        fresh, left_out = guard(fresh, sent)
    if not fresh:
        return Reply(None, None, "", "empty", left_out=left_out)
    lines = fresh.split("\n")
    then = read_premoves(lines[0])
    if then is not None:
        # Pre-moves: the rest is the talk (which the reply handler does not post: the list is private).
        talk = "\n".join(lines[1:]).strip()
        return _with_talk(None, None, talk, then[0] or None, left_out, premoves=then[1] if not then[0] else None)
    problem, move, order = _move_line(lines[0])
    if problem == "no-move":
        if any(_move_line(line)[0] != "no-move" for line in lines[1:] if line.strip()):
            problem = "move-not-first"
        return _with_talk(None, None, fresh, problem, left_out)
    rest = lines[1:]
    following = next((i for i, line in enumerate(rest) if line.strip()), None)
    if following is not None:
        alone = _ORDER_LINE.fullmatch(rest[following].strip())
        if alone:
            del rest[following]
            second = _ids(alone.group(1))
            if problem == "" and (order is not None or not _good_order(second)):
                problem, move = "bad-order", None
            order = second if problem == "" else None
    if problem == "" and any(_MOVE_HEAD.fullmatch(line.strip()) for line in rest):
        problem, move, order = "two-moves", None, None
    if problem == "" and any(read_premoves(line) is not None for line in rest):
        # Pre-moves below a move would otherwise be posted to the table: they are private.
        problem, move, order = "then-not-first", None, None
    return _with_talk(move, order, "\n".join(rest).strip(), problem or None, left_out)


def _with_talk(move: Move | None, order: tuple[int, ...] | None, talk: str,
               problem: str | None, left_out: bool = False,
               premoves: tuple[tuple[Move, tuple[int, ...] | None], ...] | None = None) -> Reply:
    cut = len(talk) > MAX_TALK
    return Reply(move, order, talk[:MAX_TALK].rstrip() if cut else talk, problem, cut, left_out, premoves)
