"""How much work a received message would be to parse, found without parsing it.

Python's ``email`` package takes time that grows with the square of a MIME
field's parameters (0.5 MB of them in one part is half a minute of CPU), and
with the nesting of multiparts (500 levels take seconds, 2,000 overflow the
stack).  :func:`problem` walks the raw message once, line by line, splitting it
as the ``email`` feed parser would (the boundaries of every enclosing
multipart, a ``message/*`` part holding a message of its own, the blocks of
fields of a ``message/delivery-status``), and says what is beyond the bounds
below before anything builds an :class:`email.message.Message` of it.  Its own
cost is linear in the message's size: each line is compared with at most
:data:`MAX_DEPTH` boundaries, and only ``Content-Type`` is parsed, by the
``compat32`` parser whose parameter splitting is linear.

The bounds are far above what a mail program writes (a reply with a quoted
picture and a signature is a handful of parts three deep; a delivery report
three parts and a few blocks) and low enough that a message at all of them
parses in a small fraction of a second.

Pure: standard library only.

>>> problem(b"Content-Type: text/plain\\r\\n\\r\\n12-13\\r\\n") is None
True
>>> problem(b"Content-Type: text/plain" + b"; a=b" * 50 + b"\\r\\n\\r\\n12-13\\r\\n")
'parameters'
>>> problem(b"".join(b"Content-Type: message/rfc822\\r\\n\\r\\n" for _ in range(20)))
'depth'
"""

from __future__ import annotations

import re
from email.message import Message

#: Multiparts and ``message/*`` parts inside one another.
MAX_DEPTH = 8
#: Parts of every kind (the message itself, containers and field blocks included).
MAX_PARTS = 32
#: Fields of one part's header block.
MAX_PART_FIELDS = 100
#: Bytes of one header block (the message's own, or a part's: a returned
#: original's header in a bounce may be a few kilobytes).
MAX_BLOCK_BYTES = 32 * 1024
#: Bytes of all the header blocks together.
MAX_HEADER_BYTES = 96 * 1024
#: Parameters (``;``) of one ``Content-*`` field: a mail program writes two or
#: three, a long file name in RFC 2231 pieces a dozen.
MAX_PARAMETERS = 16

#: What :func:`problem` may say.
PROBLEMS = ("depth", "parts", "part-fields", "header-bytes", "parameters")

# What the feed parser takes for a field's first line (else the block ends there).
_FIELD = re.compile(rb"From |[\x21-\x39\x3b-\x7e]*:")
_TRAILING = b" \t\r\n"


def problem(raw: bytes) -> str | None:
    """What makes ``raw`` too costly to parse (one of :data:`PROBLEMS`), or
    ``None`` if it is within every bound."""
    return _Scan().run(raw)


class _Level:
    """One open container: a multipart (its boundary; ``digest``: its parts are
    messages by default), a ``message/*`` part, or a delivery status's blocks."""

    __slots__ = ("boundary", "digest", "status")

    def __init__(self, boundary: bytes | None = None, *, digest: bool = False, status: bool = False) -> None:
        self.boundary = boundary
        self.digest = digest
        self.status = status


class _Scan:
    def __init__(self) -> None:
        self.parts = 0
        self.header_bytes = 0
        self.stack: list[_Level] = []
        # What the lines are: a header block's ("fields"), a body's ("body"), or
        # a delivery status block's after its fields ("status-body").
        self.mode = "fields"
        self.block: list[bytes] = []
        self.block_bytes = 0
        self.fields = 0

    def run(self, raw: bytes) -> str | None:
        for line in raw.splitlines(keepends=True):
            if line.startswith(b"--") and self.stack:
                closed = self._boundary(line.rstrip(_TRAILING)[2:])
                if closed is not None:
                    if self.block is not None and self.mode == "fields":  # a part cut short in its header
                        found = self._end_block()
                        if found:
                            return found
                    self.mode = "fields" if closed == "part" else "body"
                    self.block = []
                    continue
            if self.mode == "body":
                continue
            blank = not line.strip(b"\r\n")
            if self.mode == "status-body":
                # A block of a delivery status ends at an empty line; the next begins.
                if blank:
                    self.mode, self.block = "fields", []
                continue
            if not blank and (line[:1] in (b" ", b"\t") or _FIELD.match(line) is not None):
                self.block.append(line)
                self.block_bytes += len(line)
                self.fields += line[:1] not in (b" ", b"\t")
                if self.block_bytes > MAX_BLOCK_BYTES:
                    return "header-bytes"
                if self.fields > MAX_PART_FIELDS:
                    return "part-fields"
                continue
            found = self._end_block()
            if found:
                return found
            if not blank and self.mode == "fields":
                # A line that is no field ends a block and is its body's first
                # (as the feed parser reads it): a message that follows has no
                # fields, and a delivery status's block runs to an empty line.
                if self.stack[-1].status:
                    self.mode = "status-body"
                else:
                    found = self._end_block()
                    if found:
                        return found
                    if self.mode == "fields":
                        self.mode = "status-body" if self.stack[-1].status else "body"
        if self.mode == "fields" and self.block:
            return self._end_block()
        return None

    def _boundary(self, text: bytes) -> str | None:
        """If ``text`` (a line without its ``--`` and line end) is the boundary
        of an open multipart: ``part`` (a new part starts) or ``end`` (that
        multipart ends), and the containers inside it are closed."""
        for n in range(len(self.stack) - 1, -1, -1):
            boundary = self.stack[n].boundary
            if boundary is None:
                continue
            if text == boundary:
                del self.stack[n + 1:]
                return "part"
            if text == boundary + b"--":
                del self.stack[n:]
                return "end"
        return None

    def _end_block(self) -> str | None:
        """A header block was read: count it and open what it opens.  The
        next lines are a body, unless a message or a block of fields follows
        (``mode`` stays ``fields``)."""
        block, self.block, self.mode = self.block, [], "body"
        self.parts += 1
        self.header_bytes += self.block_bytes
        self.block_bytes = self.fields = 0
        if self.parts > MAX_PARTS:
            return "parts"
        if self.header_bytes > MAX_HEADER_BYTES:
            return "header-bytes"
        content_type = None
        for name, value in _content_fields(block):
            if value.count(b";") > MAX_PARAMETERS:
                return "parameters"
            if name == b"content-type":
                content_type = value
        parent = self.stack[-1] if self.stack else None
        if parent is not None and parent.status:
            self.mode = "fields"  # the next block of fields
            return None
        message = Message()
        if parent is not None and parent.digest:
            message.set_default_type("message/rfc822")
        if content_type is not None:
            message["Content-Type"] = content_type.decode("ascii", "surrogateescape")
        maintype = message.get_content_maintype()
        if maintype == "multipart":
            boundary = message.get_boundary()
            if boundary is None:
                return None  # read as text
            return self._open(_Level(boundary.encode("ascii", "surrogateescape"),
                                     digest=message.get_content_subtype() == "digest"))
        if maintype == "message":
            self.mode = "fields"  # a message (or blocks of fields) of its own follows
            return self._open(_Level(status=message.get_content_type() == "message/delivery-status"))
        return None

    def _open(self, level: _Level) -> str | None:
        self.stack.append(level)
        return "depth" if len(self.stack) > MAX_DEPTH else None


def _content_fields(block: list[bytes]) -> list[tuple[bytes, bytes]]:
    """The ``Content-*`` fields of a header block, unfolded: (lower-case name, value)."""
    fields: list[tuple[bytes, list[bytes]]] = []
    current: list[bytes] | None = None
    for line in block:
        if line[:1] in (b" ", b"\t"):
            if current is not None:
                current.append(line.rstrip(b"\r\n"))
            continue
        current = None
        name, colon, value = line.partition(b":")
        if colon and name[:8].lower() == b"content-":
            current = [value.rstrip(b"\r\n")]
            fields.append((name.strip().lower(), current))
    return [(name, b"".join(parts).strip()) for name, parts in fields]
