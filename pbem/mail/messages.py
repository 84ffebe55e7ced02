"""Pure builders: a message from its kind, its envelope and what it says.

Each kind has paired templates, ``templates/mail/KIND.txt`` (its first line is
the subject) and, where it exists, ``templates/mail/KIND.html``.  No I/O here
but reading templates; the caller gathers the view and the picture."""

from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import dataclass
from email import _header_value_parser as _parser
from email import errors, policy
from email.headerregistry import Address, AddressHeader, BaseHeader, HeaderRegistry
from email.message import EmailMessage
from email.policy import Policy
from email.utils import formatdate
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import css_inline
import jinja2

from ..words.language import DEFAULT_LANGUAGE, TAGS, translations
from ..words import Words
from ..core.outbox import OutboxKind
from ..drawing.style import LOOK
from . import mime

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "mail"


@dataclass(frozen=True)
class Envelope:
    sender: str
    recipient: str
    message_id: str
    kind: str
    #: The game's public id.
    game_id: str | None = None
    #: https link whose POST turns this player's turn mail off (RFC 8058).
    unsubscribe: str | None = None
    #: Where a reply goes: one plain address (a turn's ``move+TOKEN@`` address).
    reply_to: str | None = None
    #: The Message-ID of the mail this one answers (a player's reply); one that
    #: is not a plain ``<id@host>`` of printable ASCII is left out.
    in_reply_to: str | None = None


class _Verbatim(BaseHeader):
    """A header written as it is given, never RFC 2047-encoded: the stock class
    takes an unknown header for text and, once its line is long, encodes it, which
    for List-Unsubscribe leaves a mail client no ``<URL>`` to unsubscribe with.
    Hence a value must be printable ASCII (else ``ValueError``); a long one is
    folded only between its items, never inside one."""

    max_count = 1
    #: The whole value: words of printable ASCII, single spaces between them.
    value_pattern: ClassVar[re.Pattern[str]] = re.compile(r"[!-~]+(?: [!-~]+)*")
    #: The items it may be folded between (here, the value is one item).
    item_pattern: ClassVar[re.Pattern[str]] = re.compile(r".+")

    @classmethod
    def parse(cls, value: str, kwds: dict[str, Any]) -> None:
        if not cls.value_pattern.fullmatch(value):
            raise ValueError(f"not a value to write as it is: {value!r}")
        kwds["decoded"] = value
        kwds["parse_tree"] = None  # only BaseHeader.fold reads it

    def fold(self, *, policy: Policy) -> str:
        items = self.item_pattern.findall(str(self))
        return f"{self.name}: {(',' + policy.linesep + ' ').join(items)}{policy.linesep}"


#: One ``<URL>`` of a List-Unsubscribe header: printable ASCII, no angle brackets.
_URL = r"<[!-;=?-~]+>"


class _UrlList(_Verbatim):
    """List-Unsubscribe (RFC 2369, RFC 8058): ``<URL>`` items separated by commas."""

    value_pattern = re.compile(rf"{_URL}(?:[ \t]*,[ \t]*{_URL})*")
    item_pattern = re.compile(_URL)


#: One Message-ID: printable ASCII, no angle brackets or spaces inside.
MESSAGE_ID = r"<[!-;=?-~]{1,250}>"


class _IdList(_Verbatim):
    """Message-ID, In-Reply-To and References (RFC 5322): Message-IDs separated
    by spaces, never encoded (the stock class would encode a long one into words
    no client can match) and folded only between them."""

    value_pattern = re.compile(rf"{MESSAGE_ID}(?: {MESSAGE_ID})*")
    item_pattern = re.compile(MESSAGE_ID)

    def fold(self, *, policy: Policy) -> str:
        items = self.item_pattern.findall(str(self))
        return f"{self.name}: {(policy.linesep + ' ').join(items)}{policy.linesep}"


class _Headers(HeaderRegistry):
    """The email package parses every header value it is given, and most of a
    notice's (content types, encodings, the kind) are the same in every message:
    each such text is parsed once.  Parsed headers are immutable strings."""

    def __init__(self) -> None:
        super().__init__()
        self.map_to_type("list-unsubscribe", _UrlList)
        self.map_to_type("list-unsubscribe-post", _Verbatim)
        self.map_to_type("message-id", _IdList)  # one, unfolded: a reply token makes it long
        self.map_to_type("in-reply-to", _IdList)
        self.map_to_type("references", _IdList)

    def __call__(self, name: str, value: object) -> BaseHeader:
        if type(value) is str:
            return _parsed(self, name, value)
        return super().__call__(name, value)


@lru_cache(maxsize=512)
def _parsed(registry: HeaderRegistry, name: str, value: str) -> BaseHeader:
    # Outside the class, so that a message and its policy can still be pickled.
    return HeaderRegistry.__call__(registry, name, value)


#: The default policy (``\n`` line ends; the SMTP adapter writes ``\r\n``).
POLICY = policy.default.clone(header_factory=_Headers())
_MAX_LINE = POLICY.max_line_length or 78
_FOLDER = mime.Folder(POLICY)
CRLF = mime.CRLF


@lru_cache(maxsize=256)
def _part_line(name: str, value: str, utf8: bool) -> bytes:
    """A header line of a part (its content type, encoding, ...), as the message's."""
    return _FOLDER.line(name, value, POLICY.header_factory(name, value), utf8)


#: What :func:`_boundary` draws: a boundary of this shape folds as any other.
_BOUNDARY = re.compile(r"=_pbem_[0-9a-f]{32}")
_SOME_BOUNDARY = "=_pbem_" + "0" * 32


def _multipart_line(subtype: str, boundary: str, utf8: bool) -> bytes:
    """The Content-Type of a multipart part with its boundary (``set_param``'s
    value): folded once, the boundary put in (every message draws a new one)."""
    if not _BOUNDARY.fullmatch(boundary):
        value = f'multipart/{subtype}; boundary="{boundary}"'
        return _FOLDER.line("Content-Type", value, POLICY.header_factory("Content-Type", value), utf8)
    line = _part_line("Content-Type", f'multipart/{subtype}; boundary="{_SOME_BOUNDARY}"', utf8)
    return line.replace(_SOME_BOUNDARY.encode("ascii"), boundary.encode("ascii"))


@lru_cache(maxsize=None)
def _environment(language: str = DEFAULT_LANGUAGE) -> jinja2.Environment:
    """One environment per language, its catalog installed once: a worker that
    builds a Czech mail after a Hungarian one switches nothing that could stay
    behind (no shared locale, no thread-local state)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.policies["ext.i18n.trimmed"] = True  # as the pages: one catalog entry per sentence
    env.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]
    # The reader's words when a context brings none (its language, in UTC).
    env.globals["w"] = Words(language)
    # The colours and font of the mails, from the one palette (mail clients need literal values).
    env.globals["look"] = LOOK
    # Kinds are compared with their enum, never with a string of their own.
    env.globals["OutboxKind"] = OutboxKind
    return env


def render_text(kind: str, context: Mapping[str, Any], language: str = DEFAULT_LANGUAGE) -> tuple[str, str]:
    """The subject and the plain-text body of a message."""
    text = _environment(language).get_template(f"{kind}.txt").render(**context)
    subject, _, body = text.partition("\n")
    return subject.strip(), body.lstrip("\n")


def render_html(kind: str, context: Mapping[str, Any], language: str = DEFAULT_LANGUAGE) -> str | None:
    try:
        template = _environment(language).get_template(f"{kind}.html")
    except jinja2.TemplateNotFound:
        return None
    return template.render(**context)


@dataclass(frozen=True)
class Inline:
    """A picture the HTML shows (``cid:``), sent with it."""

    data: bytes
    #: The Content-ID, in angle brackets.
    cid: str
    filename: str


@dataclass(frozen=True)
class Mail:
    """A message as built: its headers (parsed, as the email package keeps
    them), its text, its HTML with its inline pictures, and the boundaries drawn
    for it.  The SMTP adapter sends :meth:`wire`, written directly
    (:mod:`pbem.mail.mime`); :meth:`to_message` is the email package's message
    (the mailbox, the tests).  Both are the same bytes: tests/mail/test_wire.py."""

    #: The message's own headers, in order: (name, value as given, parsed header).
    headers: tuple[tuple[str, "str | Address", BaseHeader], ...]
    text: str
    html: str | None
    #: Pictures of the HTML (none without it): a multipart/related part.
    inline: tuple[Inline, ...]
    #: The multipart/alternative boundary, then the multipart/related one.
    boundaries: tuple[str, ...]
    #: The Content-Language tag.
    language: str

    def get(self, name: str) -> BaseHeader | None:
        """The header ``name`` (any case), or ``None``."""
        name = name.lower()
        return next((h for n, _, h in self.headers if n.lower() == name), None)

    @property
    def subject(self) -> str:
        return str(self.get("Subject") or "")

    @property
    def sender(self) -> str:
        """The ``From`` address."""
        found = self.get("From")
        assert isinstance(found, AddressHeader)
        return found.addresses[0].addr_spec

    @property
    def recipients(self) -> list[str]:
        """The ``To`` addresses."""
        found = self.get("To")
        assert isinstance(found, AddressHeader)
        return [a.addr_spec for a in found.addresses]

    def text_content(self) -> str:
        """The text as a reader's program decodes it (``get_content()`` of its part)."""
        return mime.content(self.text)

    def html_content(self) -> str | None:
        return None if self.html is None else mime.content(self.html)

    def wire(self, *, utf8: bool = False) -> bytes:
        """The message as it goes over SMTP (CRLF line ends; ``utf8``: headers in
        UTF-8, for an SMTPUTF8 server): what the email package's generator writes
        for :meth:`to_message`, header for header and part for part."""
        out = [_FOLDER.line(name, value if isinstance(value, str) else str(header), header, utf8)
               for name, value, header in self.headers]
        mime_version = _part_line("MIME-Version", "1.0", utf8)
        language = _part_line("Content-Language", self.language, utf8)
        text = mime.text_part(self.text, _MAX_LINE)
        text_head = [_part_line("Content-Type", 'text/plain; charset="utf-8"', utf8),
                     _part_line("Content-Transfer-Encoding", text.cte, utf8)]
        if self.html is None:
            out += [*text_head, mime_version, language, CRLF, text.wire]
            return b"".join(out)
        alternative = self.boundaries[0].encode("ascii")
        out += [mime_version, _multipart_line("alternative", self.boundaries[0], utf8), language, CRLF,
                b"--" + alternative + CRLF, *text_head, CRLF, text.wire, CRLF + b"--" + alternative + CRLF]
        html = mime.text_part(self.html, _MAX_LINE)
        html_head = [_part_line("Content-Type", 'text/html; charset="utf-8"', utf8),
                     _part_line("Content-Transfer-Encoding", html.cte, utf8)]
        if not self.inline:
            out += [*html_head, mime_version, CRLF, html.wire]
        else:
            related = self.boundaries[1].encode("ascii")
            out += [mime_version, _multipart_line("related", self.boundaries[1], utf8), CRLF,
                    b"--" + related + CRLF, *html_head, CRLF, html.wire]
            for picture in self.inline:
                out += [CRLF + b"--" + related + CRLF, _part_line("Content-Type", "image/png", utf8),
                        _part_line("Content-Transfer-Encoding", "base64", utf8),
                        _part_line("Content-Disposition", f'inline; filename="{picture.filename}"', utf8),
                        _part_line("Content-ID", picture.cid, utf8), mime_version, CRLF,
                        mime.base64_lines(picture.data, _MAX_LINE)]
            out.append(CRLF + b"--" + related + b"--" + CRLF)
        out.append(CRLF + b"--" + alternative + b"--" + CRLF)
        return b"".join(out)

    def to_message(self) -> EmailMessage:
        """The message in the email package's model (a new one at each call)."""
        msg = EmailMessage(policy=POLICY)
        for name, _, header in self.headers:
            msg[name] = header
        msg.set_content(self.text)
        if self.html is not None:
            msg.make_alternative(boundary=self.boundaries[0])
            msg.add_alternative(self.html, subtype="html")
            if self.inline:
                html_part = list(msg.iter_parts())[1]
                html_part.make_related(boundary=self.boundaries[1])
                for picture in self.inline:
                    html_part.add_related(picture.data, maintype="image", subtype="png", cid=picture.cid,
                                          filename=picture.filename, disposition="inline")
        # Last: setting the content drops (and make_alternative moves) Content-* headers.
        msg["Content-Language"] = self.language
        return msg


def build(envelope: Envelope, context: Mapping[str, Any], *, picture: bytes | None = None,
          close_ups: Sequence[bytes] = (), language: str = DEFAULT_LANGUAGE) -> EmailMessage:
    """:func:`mail`, in the email package's model."""
    return mail(envelope, context, picture=picture, close_ups=close_ups, language=language).to_message()


def mail(envelope: Envelope, context: Mapping[str, Any], *, picture: bytes | None = None,
         close_ups: Sequence[bytes] = (), language: str = DEFAULT_LANGUAGE) -> Mail:
    """The whole message in the recipient's ``language``: plain text, plus HTML
    (with the board as an inline PNG when ``picture`` is given) when the kind has
    an HTML template; ``close_ups`` are more inline PNGs, ``cid:close-up-1`` ... in
    the HTML (pieces of the board, legible on a phone).  ``ValueError`` for a
    header that cannot be written (see :func:`_only_address`)."""
    subject, text = render_text(envelope.kind, context, language)
    subject = _one_line(subject)
    headers: list[tuple[str, str | Address]] = [
        ("Subject", subject),
        ("From", _one_line(envelope.sender)),
        ("To", _only_address(envelope.recipient)),
        ("Message-ID", _one_line(envelope.message_id)),
        ("Date", formatdate(localtime=False)),
        ("X-PBEM-Kind", _one_line(envelope.kind)),
        # Automatic mail: out-of-office replies should not answer it (RFC 3834).
        ("Auto-Submitted", "auto-generated"),
    ]
    if envelope.reply_to:
        headers.append(("Reply-To", _only_address(envelope.reply_to)))
    references = []
    if envelope.game_id is not None:
        game = _one_line(str(envelope.game_id))
        headers.append(("X-PBEM-Game", game))
        # One thread per game in mail clients that thread by reference.
        references.append(_one_line(f"<game-{game}@{_domain(envelope.message_id)}>"))
    if envelope.in_reply_to and re.fullmatch(MESSAGE_ID, envelope.in_reply_to):
        # An answer threads under the mail it answers.
        headers.append(("In-Reply-To", envelope.in_reply_to))
        references.append(envelope.in_reply_to)
    references = [r for r in references if re.fullmatch(MESSAGE_ID, r)]
    if references:
        headers.append(("References", " ".join(references)))
    if envelope.unsubscribe:
        link = f"<{envelope.unsubscribe}>"
        # One link: a ``>`` in it would end it early and start a second.
        if not re.fullmatch(_URL, link):
            raise ValueError(f"not an unsubscribe link to write as it is: {envelope.unsubscribe!r}")
        headers.append(("List-Unsubscribe", link))
        headers.append(("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"))
    # Parsed here, as assigning them to a message would: a value that cannot be
    # written fails the build, never the sending.
    parsed = tuple((name, value, POLICY.header_store_parse(name, value)[1]) for name, value in headers)
    html = render_html(envelope.kind, {**context, "subject": subject, "picture_cid": "board" if picture else None},
                       language)
    boundaries: tuple[str, ...] = ()
    inline: tuple[Inline, ...] = ()
    if html is not None:
        html = _inline_css(html)
        boundaries = (_boundary(),)
        if picture is not None:
            boundaries += (_boundary(),)
            inline = (Inline(picture, "<board>", "board.png"),
                      *(Inline(piece, f"<close-up-{i}>", f"board-{i}.png") for i, piece in enumerate(close_ups, 1)))
    return Mail(headers=parsed, text=text, html=html, inline=inline, boundaries=boundaries, language=TAGS[language])


#: What no header value may carry: control characters (NUL, CR, LF, VT, U+0085 ...),
#: format characters (bidi overrides, zero widths), line and paragraph separators
#: (which Python's email package takes for line ends), and lone surrogates.
_NOT_IN_HEADERS = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def _one_line(text: str) -> str:
    """``text`` fit for a header value, whatever it holds: the characters above as
    spaces, runs of white space as one.  Subjects carry players' names, stored as
    they were typed: one such character made every mail of a game fail to build
    (or, as a line end, could have started a header of its own)."""
    if not text.isprintable():  # the common case, all printable, costs one scan
        text = "".join(" " if unicodedata.category(c) in _NOT_IN_HEADERS else c for c in text)
    return " ".join(text.split())


def _only_address(recipient: str) -> Address:
    """The To header: the envelope recipient and nothing else (no display name).
    It must read back as exactly the same text: a local part of encoded words,
    ``=?utf-8?q?a=40b.example=2c_c=40d.example?=@x.example``, would otherwise be
    decoded into what a mail client shows as several addresses.  ``ValueError``
    when it is not one plain address (delivery retries, then gives up)."""
    try:
        spec, rest = _parser.get_addr_spec(recipient)
        # A local part beyond ASCII is fine: it goes with SMTPUTF8 (see transport).
        defects = [d for d in spec.all_defects if not isinstance(d, errors.NonASCIILocalPartDefect)]
        address = Address(username=spec.local_part, domain=spec.domain)
    except (errors.HeaderParseError, ValueError, IndexError) as e:  # IndexError: "" and other empty parts
        raise ValueError(f"the recipient is not one plain mail address: {recipient!r}") from e
    if rest or defects or address.addr_spec != recipient:
        raise ValueError(f"the recipient is not one plain mail address: {recipient!r}")
    return address


def _boundary() -> str:
    # Left to itself, the generator picks a boundary when it writes the message and
    # searches the whole text (100 KB with the picture) for it: 2 ms a message.  A
    # boundary drawn before any part is written cannot occur in one.
    return f"=_pbem_{secrets.token_hex(16)}"


def domain_of(message_id: str) -> str:
    """The host part of a Message-ID."""
    return message_id.strip("<>").rpartition("@")[2] or "localhost"


_domain = domain_of


def _inline_css(html: str) -> str:
    return str(css_inline.inline(html))
