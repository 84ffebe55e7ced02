"""The pieces of a message's bytes written directly, as the email package's
generator writes them: its header folding (cached), its choice and writing of a
text part's transfer encoding, its base64 lines.

Building a turn notice in the email package's model and flattening it cost 4-5 ms
of CPU, most of it in objects made and thrown away (a parsed header for every
Content-Type, a part for every picture, a generator for every part); what has to
be done (folding the headers that vary, quoted-printable, base64) is a fraction.
:meth:`pbem.mail.messages.Mail.wire` puts these pieces together in the shape
:meth:`~pbem.mail.messages.Mail.to_message` gives the email package; the two are
held byte for byte equal by tests/mail/test_wire.py."""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass
from email.headerregistry import BaseHeader
from email.policy import EmailPolicy
from functools import lru_cache
from typing import Any

CRLF = b"\r\n"
#: What the email package takes for a line end when it writes a body.
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class TextPart:
    """A text part as ``set_content`` makes it: its Content-Transfer-Encoding,
    its body on the wire (CRLF line ends) and its text as a reader decodes it."""

    cte: str
    wire: bytes
    content: str


def text_part(text: str, max_line_length: int) -> TextPart:
    """The email package's heuristic (``contentmanager._encode_text`` for UTF-8,
    under a policy with ``\\n`` line ends and 8-bit bodies allowed): 7bit or 8bit
    when every line fits, else quoted-printable unless base64 is shorter for the
    first ten lines."""
    lines = text.encode("utf-8").splitlines()
    body = b"\n".join(lines) + b"\n"
    content = body.decode("utf-8")
    if max((len(x) for x in lines), default=0) <= max_line_length:
        return TextPart("7bit" if body.isascii() else "8bit", body.replace(b"\n", CRLF), content)
    sniff = b"\n".join(lines[:10]) + b"\n"
    sniff_qp = quoted_printable(sniff.decode("latin-1"), max_line_length)
    if len(sniff_qp) > len(binascii.b2a_base64(sniff)):
        return TextPart("base64", base64_lines(body, max_line_length), content)
    if len(lines) <= 10:
        return TextPart("quoted-printable", _crlf(sniff_qp).encode("ascii"), content)
    encoded = quoted_printable(body.decode("latin-1"), max_line_length, "\r\n")
    return TextPart("quoted-printable", encoded.encode("ascii"), content)


#: What quoted-printable writes as it is (RFC 2045 6.7): printable ASCII but
#: ``=``, space and tab, and the line ends it keeps.
_QP_SAFE = frozenset(map(chr, range(33, 127))) - {"="} | {" ", "\t", "\r", "\n"}


def quoted_printable(body: str, max_line_length: int, eol: str = "\n") -> str:
    """``email.quoprimime.body_encode(body, max_line_length, eol)``, the same
    text: ``body`` holds one byte a character (latin-1).  The email package quotes
    with ``str.translate``, which leaves its fast path at the first ``=`` (an
    HTML mail has hundreds) and took 0.25 ms for a notice's HTML; here each
    character to quote is replaced throughout at once, ``=`` first (the others'
    quotes hold one)."""
    if max_line_length < 4:
        raise ValueError("maxlinelen must be at least 4")
    if not body:
        return body
    quoted = set(body).difference(_QP_SAFE)
    if "=" in quoted:
        body = body.replace("=", "=3D")
        quoted.discard("=")
    for char in quoted:
        body = body.replace(char, f"={ord(char):02X}")
    # From here on, body_encode's own lines.
    soft_break = "=" + eol
    longest = max_line_length - 1
    out: list[str] = []
    for line in body.splitlines():
        start = 0
        last_start = len(line) - 1 - max_line_length
        while start <= last_start:
            stop = start + longest
            # Never inside an escape sequence.
            if line[stop - 2] == "=":
                out.append(line[start:stop - 1])
                start = stop - 2
            elif line[stop - 1] == "=":
                out.append(line[start:stop])
                start = stop - 1
            else:
                out.append(line[start:stop] + "=")
                start = stop
        if line and line[-1] in " \t":
            # White space at the end of a line is quoted (or followed by a soft break).
            room = start - last_start
            if room >= 3:
                end = f"={ord(line[-1]):02X}"
            elif room == 2:
                end = line[-1] + soft_break
            else:
                end = soft_break + f"={ord(line[-1]):02X}"
            out.append(line[start:-1] + end)
        else:
            out.append(line[start:])
    if body[-1] in "\r\n":
        out.append("")
    return eol.join(out)


def content(text: str) -> str:
    """The text of a part made of ``text`` as a reader's program decodes it."""
    return (b"\n".join(text.encode("utf-8").splitlines()) + b"\n").decode("utf-8")


def base64_lines(data: bytes, max_line_length: int) -> bytes:
    """``data`` in base64 lines as ``set_content`` writes them (``max_line_length
    // 4 * 3`` bytes a line), each ended by CRLF: the lines of one encoding, cut
    every ``max_line_length // 4 * 4`` characters (a line's bytes are a multiple
    of three, so no padding falls inside one)."""
    if not data:
        return b""
    encoded = binascii.b2a_base64(data, newline=False)
    per_line = max_line_length // 4 * 4
    return CRLF.join([encoded[i:i + per_line] for i in range(0, len(encoded), per_line)]) + CRLF


def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n") if "\r" not in text else _LINE_END.sub("\r\n", text)


class Folder:
    """Header lines on the wire, folded as ``policy`` (the message's, with CRLF
    line ends) folds them.  A line is folded once per value: most of a notice's
    are the same in every message (its kind, the content types, the sender)."""

    def __init__(self, policy: EmailPolicy[Any]) -> None:
        self.policies = {utf8: policy.clone(linesep="\r\n", utf8=utf8) for utf8 in (False, True)}
        self.line = lru_cache(maxsize=1024)(self._line)

    def _line(self, name: str, key: str, header: BaseHeader, utf8: bool) -> bytes:
        # Called with the header the message holds for ``name: key``; the cache
        # keys on the value it was made from (two values can read the same, an
        # encoded word and its text, and fold differently).
        folded = header.fold(policy=self.policies[utf8])
        return folded.encode("utf-8" if utf8 else "ascii", "surrogateescape")
