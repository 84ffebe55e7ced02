"""Nothing of what the service sent reaches the table from a reply: the mail
answered, a link with a token, a secret clan.  Quote headers are a help
(:mod:`pbem.inbound.quotes`); this is the guarantee.

A mail with a reply address keeps a :func:`fingerprint` of what it said (keyed
hashes of its runs of words, no text); the fresh text of a reply is cut at the
first run of them, and loses the service's links and addresses that hold a
token and any line that tells a secret clan (:func:`guard`).

Pure: standard library only, no I/O."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Iterable

from pbem.inbound.quotes import header_line

#: Words in a shingle of a fingerprint.  Two shingles in a row that the
#: service sent (five words) end the talk; so does one at the very end.
SHINGLE = 4
#: Bytes kept of each shingle's keyed hash (a fingerprint holds no text).
SHINGLE_BYTES = 4
#: The most words of one text fingerprinted (a turn mail has a few hundred).
MAX_WORDS = 5000
#: The guard reads at most this much of the fresh text (the talk is cut far sooner).
MAX_GUARDED = 8000

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Sent:
    """What the service sent the one replying, to keep out of their talk:
    the shingles of the mails they may be answering (``fingerprint``), the
    key they were hashed with, the service's hosts (its links and addresses
    hold tokens), the clan names in every language and the "your secret
    clan" sentences the mail uses."""

    key: bytes = b""
    shingles: frozenset[bytes] = frozenset()
    hosts: tuple[str, ...] = ()
    clans: tuple[str, ...] = ()
    markers: tuple[str, ...] = field(default=())


def _words(text: str) -> list[str]:
    """The words of a text as they are compared: letters and digits only
    (no ``>``, ``*``, punctuation or line breaks), case folded."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def _shingle(key: bytes, words: list[str]) -> bytes:
    # Keyed BLAKE2b (a MAC by design, and one call: a turn mail has a few hundred shingles).
    return hashlib.blake2b(" ".join(words).encode(), digest_size=SHINGLE_BYTES, key=key[:64]).digest()


def fingerprint(texts: Iterable[str], key: bytes) -> bytes:
    """A compact fingerprint of a mail the service sends (its subject, text
    and HTML as text): the keyed hash of every run of :data:`SHINGLE` words,
    :data:`SHINGLE_BYTES` bytes each, sorted.  It holds no text (a seat link
    or a clan cannot be read back from it) and is blind to how a mail client
    wraps, quotes or re-spaces the lines.

    >>> len(fingerprint(["Your secret clan: green. Make your move"], b"k")) // SHINGLE_BYTES
    4
    """
    # Each run hashed once (a mail's text and HTML say much the same: half its
    # runs repeat), from a hash already keyed: what _shingle gives each.
    runs: set[str] = set()
    for text in texts:
        words = _words(text)[:MAX_WORDS]
        runs.update(map(" ".join, zip(*(words[at:] for at in range(SHINGLE)))))
    keyed = hashlib.blake2b(digest_size=SHINGLE_BYTES, key=key[:64])
    found: set[bytes] = set()
    for run in runs:
        one = keyed.copy()
        one.update(run.encode())
        found.add(one.digest())
    return b"".join(sorted(found))


def shingles(fingerprints: Iterable[bytes]) -> frozenset[bytes]:
    """The shingles of stored fingerprints, for :class:`Sent`."""
    return frozenset(f[at:at + SHINGLE_BYTES] for f in fingerprints
                     for at in range(0, len(f) - SHINGLE_BYTES + 1, SHINGLE_BYTES))


def _first_sent_line(lines: list[str], sent: Sent) -> int | None:
    """The line where the first run of words the service sent begins, after
    the first line (the move: "12-13 order 14 15" is the turn mail's example)."""
    words: list[tuple[str, int]] = []
    for index, line in enumerate(lines):
        words += [(word, index) for word in _words(line)]
    hits = [_shingle(sent.key, [w for w, _ in words[at:at + SHINGLE]]) in sent.shingles
            for at in range(len(words) - SHINGLE + 1)]
    for at, hit in enumerate(hits):
        if hit and words[at][1] > 0 and (at + 1 == len(hits) or hits[at + 1]):
            return words[at][1]
    return None


def _cut_sent(lines: list[str], sent: Sent) -> tuple[list[str], bool]:
    """The lines before the first run that comes from the service's mail, and
    before the header lines the mail client wrote above it (never the first
    line: that is the move)."""
    if not sent.shingles:
        return lines, False
    cut = _first_sent_line(lines, sent)
    if cut is None:
        return lines, False
    start = cut
    at = cut - 1
    while at >= 1 and (not lines[at].strip() or header_line(lines[at])):
        if lines[at].strip():
            start = at
        at -= 1
    return lines[:start], True


_TOKENISH = r"[A-Za-z0-9_-]"
#: A token on its own (seat, sign-in, reply tokens are 43 characters).
#: A percent-escape ends a word too: a link copied as ``…%2Fplay%2F<token>`` (a mail
#: program's link checker) still shows the token.
_BARE_TOKEN = re.compile(rf"(?:(?<!{_TOKENISH})|(?<=%[0-9A-Fa-f]{{2}})){_TOKENISH}{{43}}(?!{_TOKENISH})")
_LONG_SEGMENT = re.compile(rf"{_TOKENISH}{{20,}}")


def _link_patterns(hosts: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    names = "|".join(re.escape(h) for h in hosts if h)
    if not names:
        return None
    return (
        # A link on the service's host; group 1 is its path, checked for a token.
        re.compile(rf"(?:[a-z][a-z0-9+.-]{{0,15}}://)?(?:www\.)?(?:{names})(?::[0-9]{{1,5}})?"
                   r"(/[^\s<>\"'()\[\]]*)", re.IGNORECASE),
        # A reply or bounce address of the service (its tag is a token or a row).
        re.compile(rf"(?:mailto:)?(?:move|talk|bounce)\+[^\s@<>]{{0,200}}@(?:{names})\b", re.IGNORECASE),
    )


def _drop_links(text: str, sent: Sent) -> tuple[str, bool]:
    """The text without the service's links that hold a token (``/play/…``,
    sign-in, unsubscribe …), its reply addresses, or a bare token."""
    dropped = False

    def drop(found: re.Match[str]) -> str:
        nonlocal dropped
        dropped = True
        return ""

    def drop_tokened(found: re.Match[str]) -> str:
        return drop(found) if _LONG_SEGMENT.search(found.group(1)) else found.group(0)

    patterns = _link_patterns(sent.hosts)
    if patterns is not None:
        text = patterns[0].sub(drop_tokened, text)
        text = patterns[1].sub(drop, text)
    return _BARE_TOKEN.sub(drop, text), dropped


_SECRET = re.compile(r"\b(?:secret\w*|titk\w*|tajn\w*|geheim\w*|segret\w*|sekret\w*)", re.IGNORECASE)
_CLAN_WORD = re.compile(r"\b(?:clan\w*|klan\w*|klán\w*|clã\w*)", re.IGNORECASE)


def _secret_clan(line: str, sent: Sent) -> bool:
    """Whether a line says whose secret clan is whose, the way a mail does."""
    folded = line.casefold()
    return (any(marker in folded for marker in sent.markers)
            or (_SECRET.search(line) is not None and _CLAN_WORD.search(line) is not None))


def _names_clan(line: str, clans: re.Pattern[str] | None) -> bool:
    return clans is not None and clans.search(unicodedata.normalize("NFKC", line).casefold()) is not None


def _drop_clans(lines: list[str], sent: Sent) -> tuple[list[str], bool]:
    """The lines without any that tells a clan next to "your secret clan"
    (in any language), nor the line after such a sentence that names one."""
    names = [c.casefold() for c in sent.clans if c]
    clans = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b") if names else None
    drop: set[int] = set()
    for at, line in enumerate(lines):
        # The sentence may be broken over two lines ("Your secret\nclan: green"),
        # and the clan may stand on the next line that has any text.
        following = next((i for i in range(at + 1, len(lines)) if lines[i].strip()), None)
        split = (following is not None and not _secret_clan(lines[following], sent)
                 and (_SECRET.search(line) is not None or _CLAN_WORD.search(line) is not None)
                 and _secret_clan(f"{line} {lines[following]}", sent))
        if not (_secret_clan(line, sent) or split):
            continue
        if _names_clan(line, clans):
            drop.add(at)
        if following is not None and _names_clan(lines[following], clans):
            drop.update((at, following))
    return [line for at, line in enumerate(lines) if at not in drop], bool(drop)


def guard(text: str, sent: Sent) -> tuple[str, bool]:
    """Fresh text (``fresh_text``) with nothing of what the service sent the
    one replying: cut at the first run of words from the mail it answers (and
    the header lines above it), without links or addresses of the service that
    hold a token, without a line that tells a secret clan.  Also whether
    anything was left out.

    >>> sent = Sent(key=b"k", shingles=shingles([fingerprint(["Hello Anna, it is your turn. "
    ...             "Your secret clan: green. Make your move: https://x.example/play/" + "t" * 43], b"k")]),
    ...             hosts=("x.example",), clans=("green",), markers=("your secret clan:",))
    >>> guard("12-13\\nGood luck!\\n\\nVon: Clans\\nBetreff: Hi\\n\\nHello Anna, it is your turn.\\n"
    ...       "Your secret clan: green.", sent)
    ('12-13\\nGood luck!', True)
    >>> guard("12-13\\nmy page: https://x.example/play/" + "t" * 43 + " and https://x.example/rules",
    ...       Sent(hosts=("x.example",)))
    ('12-13\\nmy page:  and https://x.example/rules', True)
    >>> guard("12-13\\nPetr's secret clan is surely green", sent)
    ('12-13', True)
    >>> guard("12-13\\nGreen leads, I follow", sent)
    ('12-13\\nGreen leads, I follow', False)
    """
    if len(text) > MAX_GUARDED:
        text = text[:MAX_GUARDED].rpartition("\n")[0]
    lines, cut = _cut_sent(text.split("\n"), sent)
    joined, linked = _drop_links("\n".join(lines), sent)
    lines, clans = _drop_clans(joined.split("\n"), sent)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in lines)).strip()
    return text, cut or linked or clans
