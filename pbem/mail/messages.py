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
from email.headerregistry import Address, BaseHeader, HeaderRegistry
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


def build(envelope: Envelope, context: Mapping[str, Any], *, picture: bytes | None = None,
          close_ups: Sequence[bytes] = (), language: str = DEFAULT_LANGUAGE) -> EmailMessage:
    """The whole message in the recipient's ``language``: plain text, plus HTML
    (with the board as an inline PNG when ``picture`` is given) when the kind has
    an HTML template; ``close_ups`` are more inline PNGs, ``cid:close-up-1`` ... in
    the HTML (pieces of the board, legible on a phone)."""
    subject, text = render_text(envelope.kind, context, language)
    subject = _one_line(subject)
    msg = EmailMessage(policy=POLICY)
    msg["Subject"] = subject
    msg["From"] = _one_line(envelope.sender)
    msg["To"] = _only_address(envelope.recipient)
    msg["Message-ID"] = _one_line(envelope.message_id)
    msg["Date"] = formatdate(localtime=False)
    msg["X-PBEM-Kind"] = _one_line(envelope.kind)
    # Automatic mail: out-of-office replies should not answer it (RFC 3834).
    msg["Auto-Submitted"] = "auto-generated"
    if envelope.reply_to:
        msg["Reply-To"] = _only_address(envelope.reply_to)
    references = []
    if envelope.game_id is not None:
        game = _one_line(str(envelope.game_id))
        msg["X-PBEM-Game"] = game
        # One thread per game in mail clients that thread by reference.
        references.append(_one_line(f"<game-{game}@{_domain(envelope.message_id)}>"))
    if envelope.in_reply_to and re.fullmatch(MESSAGE_ID, envelope.in_reply_to):
        # An answer threads under the mail it answers.
        msg["In-Reply-To"] = envelope.in_reply_to
        references.append(envelope.in_reply_to)
    references = [r for r in references if re.fullmatch(MESSAGE_ID, r)]
    if references:
        msg["References"] = " ".join(references)
    if envelope.unsubscribe:
        link = f"<{envelope.unsubscribe}>"
        # One link: a ``>`` in it would end it early and start a second.
        if not re.fullmatch(_URL, link):
            raise ValueError(f"not an unsubscribe link to write as it is: {envelope.unsubscribe!r}")
        msg["List-Unsubscribe"] = link
        msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    msg.set_content(text)
    html = render_html(envelope.kind, {**context, "subject": subject, "picture_cid": "board" if picture else None},
                       language)
    if html is not None:
        msg.make_alternative(boundary=_boundary())
        msg.add_alternative(_inline_css(html), subtype="html")
        if picture is not None:
            html_part = list(msg.iter_parts())[1]
            html_part.make_related(boundary=_boundary())
            html_part.add_related(picture, maintype="image", subtype="png", cid="<board>",
                                  filename="board.png", disposition="inline")
            for i, piece in enumerate(close_ups, 1):
                html_part.add_related(piece, maintype="image", subtype="png", cid=f"<close-up-{i}>",
                                      filename=f"board-{i}.png", disposition="inline")
    # Last: setting the content drops (and make_alternative moves) Content-* headers.
    msg["Content-Language"] = TAGS[language]
    return msg


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
