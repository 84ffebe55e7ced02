"""The text of a received message as its writer wrote it: the first text part
that has any (attachments and attached messages never read), decoded whatever
its charset and transfer encoding claim, ``format=flowed`` joined, HTML made
text; and every text cleaned alike (one kind of newline, no control or
invisible characters, plain spaces).  What of that text is the person's own is
:mod:`pbem.inbound.quotes`' question.

Pure: standard library only, no I/O."""

from __future__ import annotations

import codecs
import re
import unicodedata
from email.message import Message
from html.parser import HTMLParser

#: ``reply_text`` decodes at most this many bytes of a part.
MAX_PART_BYTES = 1_000_000
#: ``html_to_text`` reads at most this much of an HTML part: what the person wrote is
#: at its top, and parsing costs about a second a megabyte of tags.
MAX_HTML = 200_000


# --------------------------------------------------------------------------
# Cleaning: one newline, no control or invisible characters, plain spaces.

_NEWLINES = re.compile(r"\r\n?|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_DROP = dict.fromkeys(
    [*range(0x00, 0x09), *range(0x0E, 0x1C), 0x1F, *range(0x7F, 0x85), *range(0x86, 0xA0),
     0x00AD, 0x061C, 0x200B, 0x200E, 0x200F, *range(0x202A, 0x202F), 0x2060,
     *range(0x2066, 0x206A), 0xFEFF, 0xFFFE]
)
_SPACES = dict.fromkeys([0x00A0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000], " ")
_TRANSLATE: dict[int, str | None] = {**_DROP, **_SPACES}


def clean(text: str) -> str:
    """``\\n`` line ends; controls, bidi marks and zero-width characters removed;
    odd spaces made plain; NFC."""
    text = _NEWLINES.sub("\n", text).translate(_TRANSLATE)
    return unicodedata.normalize("NFC", text)


# --------------------------------------------------------------------------
# The text of a message.

def reply_text(message: Message) -> str:
    """The text the person wrote: the first text/plain part that has any text,
    else the first text/html part as text.  Attachments and attached messages
    are never read; bad charsets and encodings are replaced, never raised.

    >>> from email.message import EmailMessage
    >>> m = EmailMessage()
    >>> m.set_content("12-13\\r\\nHajr\\u00e1!", charset="iso-8859-2", cte="quoted-printable")
    >>> reply_text(m)
    '12-13\\nHajrá!\\n'
    """
    plain: str | None = None
    html: str | None = None
    for part in _text_parts(message):
        kind = part.get_content_type()
        if kind == "text/plain" and plain is None:
            text = clean(_decode(part))
            if _param(part, "format") == "flowed":
                text = _unflow(text, delsp=_param(part, "delsp") == "yes")
            if text.strip():
                plain = text
        elif kind == "text/html" and html is None:
            text = html_to_text(_decode(part))
            if text.strip():
                html = text
    if plain is not None:
        return plain
    return html or ""


def _text_parts(message: Message) -> list[Message]:
    """The leaf parts that are not attachments, in order; never inside an
    attached message (``message/rfc822``)."""
    out: list[Message] = []
    todo: list[Message] = [message]
    while todo and len(out) < 100:
        part = todo.pop(0)
        if part.is_multipart():
            if part.get_content_maintype() == "message":
                continue
            children = part.get_payload()
            if isinstance(children, list):
                todo[0:0] = [c for c in children if isinstance(c, Message)]
            continue
        if part.get_content_disposition() == "attachment" or part.get_filename() is not None:
            continue
        if part.get_content_maintype() == "text":
            out.append(part)
    return out


def _param(part: Message, name: str) -> str:
    value = part.get_param(name)
    return value.strip().lower() if isinstance(value, str) else ""


_SURROGATES = re.compile("[\ud800-\udfff]")
_ENCODED = {"base64", "quoted-printable", "x-uuencode", "uuencode", "x-uue", "uue"}


def _decode(part: Message) -> str:
    """A leaf part's text, in its declared charset (UTF-8 when none or unknown)."""
    payload = part.get_payload()
    encoding = str(part.get("content-transfer-encoding", "")).strip().lower()
    if isinstance(payload, str) and encoding not in _ENCODED and not _SURROGATES.search(payload):
        return payload[:MAX_PART_BYTES]       # already text (built in memory, or 7-bit)
    try:
        raw = part.get_payload(decode=True)
    except Exception:                         # a malformed body must not stop the reading
        raw = None
    if not isinstance(raw, bytes):
        return payload[:MAX_PART_BYTES] if isinstance(payload, str) else ""
    charset = part.get_content_charset() or "utf-8"
    try:
        codec = codecs.lookup(charset).name
    except LookupError:
        codec = "utf-8"
    if codec == "ascii":
        codec = "utf-8"                       # a superset; undeclared 8-bit text is mostly UTF-8
    return raw[:MAX_PART_BYTES].decode(codec, errors="replace")


def _unflow(text: str, *, delsp: bool) -> str:
    """Join the soft line breaks of ``format=flowed`` text (RFC 3676); quoted
    lines keep their ``>``."""
    out: list[str] = []
    open_: tuple[int, str] | None = None      # (quote depth, text) of a paragraph going on

    def emit(depth: int, content: str) -> None:
        out.append(">" * depth + " " + content if depth else content)

    for raw in text.split("\n"):
        depth = len(raw) - len(raw.lstrip(">"))
        own = raw[depth:]
        if own.startswith(" "):
            own = own[1:]                     # space-stuffing
        content = own
        if open_ is not None:
            if open_[0] == depth:
                content = open_[1] + own
            else:
                emit(*open_)
            open_ = None
        if own.endswith(" ") and own != "-- ":
            open_ = (depth, content[:-1] if delsp else content)
        else:
            emit(depth, content)
    if open_ is not None:
        emit(*open_)
    return "\n".join(out)


# --------------------------------------------------------------------------
# HTML to text.

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
         "source", "track", "wbr"}
_BLOCK = {"address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "fieldset",
          "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
          "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "tbody", "thead",
          "tfoot", "tr", "ul"}
#: Elements whose contents are not what the person wrote.
_DROP_TAGS = {"script", "style", "head", "title", "template", "noscript", "blockquote", "svg",
              "math", "object", "iframe", "select", "textarea"}
#: Classes of the clients' quotes and signatures (Gmail, Yahoo, Thunderbird, Proton).
_DROP_CLASSES = {"gmail_quote", "gmail_quote_container", "gmail_signature", "yahoo_quoted",
                 "moz-cite-prefix", "moz-signature", "protonmail_quote"}
#: Ids after which everything is the original (Outlook on the web, new Outlook).
_STOP_IDS = {"appendonsend", "divrplyfwdmsg", "mail-editor-reference-message-container"}
_HTML_SPACE = re.compile(r"[ \t\n\r\f]+")


class _HtmlText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.stack: list[tuple[str, bool]] = []   # open elements: (tag, drops its contents)
        self.open_count: dict[str, int] = {}
        self.dropping = 0
        self.pre = 0
        self.stopped = False

    def _at_line_start(self) -> bool:
        return not self.parts or self.parts[-1].endswith("\n")

    def _line_break(self, always: bool = False) -> None:
        if not self.dropping and (always or not self._at_line_start()):
            self.parts.append("\n")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.stopped:
            return
        values = {name: value or "" for name, value in attrs}
        ident = values.get("id", "").lower().removeprefix("x_")
        classes = set(values.get("class", "").lower().split())
        if ident in _STOP_IDS:
            self.stopped = True
            return
        if tag in _VOID:
            if tag == "br":
                self._line_break(always=True)
            elif tag in _BLOCK:
                self._line_break()
            return
        if tag in _BLOCK:
            self._line_break()
        elif tag in {"td", "th"} and not self._at_line_start() and not self.dropping:
            self.parts.append(" ")
        drops = tag in _DROP_TAGS or bool(classes & _DROP_CLASSES)
        self.stack.append((tag, drops))
        self.open_count[tag] = self.open_count.get(tag, 0) + 1
        self.dropping += drops
        self.pre += tag == "pre"

    def handle_endtag(self, tag: str) -> None:
        if self.stopped or not self.open_count.get(tag):
            return
        at = len(self.stack) - 1
        while self.stack[at][0] != tag:
            at -= 1
        for name, drops in self.stack[at:]:
            self.open_count[name] -= 1
            self.dropping -= drops
            self.pre -= name == "pre"
        del self.stack[at:]
        if tag in _BLOCK:
            self._line_break()

    def handle_data(self, data: str) -> None:
        if self.stopped or self.dropping:
            return
        if not self.pre:
            data = _HTML_SPACE.sub(" ", data)
            if self._at_line_start():
                data = data.lstrip(" ")
        if data:
            self.parts.append(data)


#: A "<" that opens no tag closed before the next "<" is text.  Python's HTMLParser
#: scans again from each unfinished tag, so a body of half-tags ("<a<a<a…") cost
#: it seconds per 64 KB, quadratic in their number; checked here each "<" looks
#: at most 2,000 characters ahead.
_LONE_LT = re.compile(r"<(?![A-Za-z/!?][^<>]{0,2000}>)")


def html_to_text(html: str) -> str:
    """The text of an HTML body as the person wrote it: line breaks for ``<br>``
    and blocks, entities decoded, no scripts, styles or quoted originals
    (``<blockquote>``, the clients' quote containers).

    >>> html_to_text('<div dir="ltr">12&nbsp;-&nbsp;13<div><br></div><div>Bonne chance&#33;</div></div>'
    ...              '<blockquote>Your turn</blockquote><script>alert(1)</script>')
    '12 - 13\\n\\nBonne chance!'
    """
    if len(html) > MAX_HTML:                  # cut, but not in the middle of a tag
        html = html[:MAX_HTML]
        if html.rfind("<") > html.rfind(">"):
            html = html[:html.rfind("<")]
    html = _LONE_LT.sub("&lt;", html)
    parser = _HtmlText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:                         # HTMLParser is lenient; this is belt and braces
        pass
    text = clean("".join(parser.parts))
    lines = [line.strip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
