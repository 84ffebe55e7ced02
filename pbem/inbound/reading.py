"""Reading a player's reply to a turn email: the text they wrote, the part of it
that is theirs (no quoted original, no signature), and the move on its first line.

Pure: standard library and ``pbem.rules`` only, no I/O.  Nothing here decides
whether a move is legal or whom a reply is from; it only reads.

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

import codecs
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from email.message import Message
from typing import Iterable
from html.parser import HTMLParser

from pbem.rules import Move

#: Talk longer than this is cut (and ``Reply.talk_cut`` says so).
MAX_TALK = 2000
#: ``read_reply`` reads at most this much text; the move and the talk are at its top.
MAX_TEXT = 100_000
#: ``reply_text`` decodes at most this many bytes of a part.
MAX_PART_BYTES = 1_000_000
#: ``html_to_text`` reads at most this much of an HTML part: what the person wrote is
#: at its top, and parsing costs about a second a megabyte of tags.
MAX_HTML = 200_000
#: A line longer than this is never a move line nor a quote header.
MAX_LINE = 500
#: At most this many villages in an order (there are 12 village chips).
MAX_ORDER = 12

#: The problems ``read_reply`` may report, for the answer mail to explain.
PROBLEMS = ("empty", "no-move", "move-not-first", "two-moves", "bad-order")


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


def _clean(text: str) -> str:
    """``\\n`` line ends; controls, bidi marks and zero-width characters removed;
    odd spaces made plain; NFC."""
    text = _NEWLINES.sub("\n", text).translate(_TRANSLATE)
    return unicodedata.normalize("NFC", text)


# --------------------------------------------------------------------------
# 1. The text of a message.

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
            text = _clean(_decode(part))
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
    text = _clean("".join(parser.parts))
    lines = [line.strip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# --------------------------------------------------------------------------
# 2. The fresh text: no quote, no quote header, no signature.

_VERB_END = re.compile(
    r"(?:\bwrote|\b(?:ezt\s+)?írta|\bnapsal(?:a|\(a\)|/a)?|\bescreveu|\bschrieb|\ba\s+écrit|"
    r"\bescribió|\bha\s+scritto|\bschreef|\bpisze|\bnapisał(?:a|\(a\)|/a)?)\s*:$"
    # The verb before the name: de "Am … schrieb Anna <a@x>:", nl "Op … schreef Anna <a@x>:".
    r"|\b(?:schrieb|schreef|írta)\b.{0,120}:$",
    re.IGNORECASE,
)
#: How a wrapped quote header begins: "On …", "Dne …", "Em …", "No dia …", "2026. dec. 1.", "01/12/2026",
#: de "Am …", fr "Le …", es "El …", it "Il giorno …", nl "Op …", pl "W dniu …".
_HEADER_START = re.compile(
    r"(?:on|dne|em|no\s+dia|am|le|el|il|op|w\s+dniu)\s|\d{4}\.\s|\d{1,2}[./]\s?\d{1,2}[./]\s?\d{2,4}\b",
    re.IGNORECASE,
)
_EVIDENCE = re.compile(r"[0-9@]")
#: The fields of an Outlook header block (en, hu, cs, pt; de "Von:/Gesendet:/An:/Betreff:",
#: fr "De :/Envoyé :/À :/Objet :", it "Da:/Inviato:/A:/Oggetto:", es "De:/Enviado:/Para:/Asunto:",
#: nl "Van:/Verzonden:/Aan:/Onderwerp:", pl "Od:/Wysłano:/Do:/Temat:").
_FROM_FIELD = re.compile(r"\s*\*?(?:from|feladó|od|de|von|da|van)\*?\s*:\s*\S", re.IGNORECASE)
_SENT_NAMES = (r"sent|date|elküldve|dátum|odesláno|datum|enviado|enviada|enviado\s+el|data|gesendet|"
               r"envoyé|envoyé\s+le|inviato|verzonden|wysłano|fecha")
_OTHER_FIELD = re.compile(
    rf"\s*\*?(?:{_SENT_NAMES}|to|subject|cc|küldve|címzett|tárgy|másolatot\s+kap|"
    r"komu|předmět|kopie|para|assunto|an|betreff|à|objet|a|oggetto|asunto|aan|onderwerp|do|temat|"
    r"dw|kopie\s+an|cci?)\*?\s*:",
    re.IGNORECASE,
)
_FIELD_ON_LINE = re.compile(rf"\s\*?(?:{_SENT_NAMES})\*?\s*:", re.IGNORECASE)
_SEPARATOR = re.compile(
    r"_{10,}"
    r"|-{2,}\s*[^\W\d_][^-]{0,60}?-{2,}"                     # -----Original Message----- and its kin
    r"|(?:begin\s+forwarded\s+message|továbbított\s+üzenet\s+kezdete|"
    r"začátek\s+přeposlané\s+zprávy|início\s+da\s+mensagem\s+(?:re)?encaminhada)\s*:",
    re.IGNORECASE,
)
_PGP_BEGIN = re.compile(r"-----BEGIN PGP SIGNED MESSAGE-----")
_PGP_END = re.compile(r"-----BEGIN PGP SIGNATURE-----")
#: The mobile clients' signatures, as the whole line ("Sent from my iPhone",
#: hu "iPhone-ról küldve", cs "Odesláno z mého iPhonu", pt "Enviado do meu iPad", …) …
_SENT_FROM = re.compile(
    r"(?:"
    r"sent\s+(?:from|with|via|using)\s.{1,60}"
    r"|get\s+outlook\s+for\s.{1,60}"
    r"|.{1,50}r[óo]l\s+k[üu]ldve"
    r"|(?:el)?k[üu]ldve\s.{1,60}"
    r"|.{0,20}outlook.{0,30}beszerzése.{0,30}"
    r"|(?:odesl|posl)[áa]no\s+(?:z|ze|pomoc[íi])\s.{1,60}"
    r"|z[íi]skat\s+outlook\s+pro\s.{1,30}"
    r"|enviad[oa]\s+(?:do|da|de|pelo|pela|via|a\s+partir\s+d[oa])\s.{1,60}"
    r"|(?:obter|baixe|baixar)\s+o\s+outlook\s+para\s.{1,30}"
    # de, fr, it, es, nl, pl: "Gesendet von meinem iPhone", "Envoyé de mon iPhone", "Inviato da iPhone",
    # "Enviado desde mi iPhone", "Verzonden met mijn iPhone", "Wysłane z iPhone'a".
    r"|gesendet\s+(?:von|mit|aus)\s.{1,60}|envoyé\s+(?:de|depuis|avec)\s.{1,60}"
    r"|inviato\s+da\s.{1,60}|enviado\s+desde\s.{1,60}|verzonden\s+(?:met|vanaf|van)\s.{1,60}"
    r"|wysłan[eoa]\s+z\s.{1,60}"
    r")[.!]?",
    re.IGNORECASE,
)
#: … and only when they name a device or a mail program ("Sent from my heart" is talk).
_DEVICE = re.compile(
    r"iphon|ipad|ipod|android|mobil|celular|telemóvel|telefon|phone|tablet|samsung|galaxy|"
    r"huawei|xiaomi|pixel|blackberry|outlook|mail|yahoo|proton|correio|pošt|windows|ios\b|"
    r"zařízení|készülék",
    re.IGNORECASE,
)


def _quoted(line: str) -> bool:
    return line.lstrip(" \t").startswith(">")


def _signature(line: str) -> bool:
    stripped = line.strip()
    return stripped == "--" or (len(stripped) <= 80 and _SENT_FROM.fullmatch(stripped) is not None
                                and _DEVICE.search(stripped) is not None)


def _header_block(lines: list[str], at: int) -> bool:
    """An Outlook header block begins here: ``From:`` and, within the next few
    lines, ``Sent:``/``To:``/``Subject:`` (or their translations)."""
    line = lines[at]
    if len(line) > MAX_LINE or not _FROM_FIELD.match(line):
        return False
    if _FIELD_ON_LINE.search(line):
        return True
    seen = 0
    for following in lines[at + 1:at + 8]:
        if not following.strip():
            continue
        if _OTHER_FIELD.match(following):
            return True
        seen += 1
        if seen == 2:                         # a wrapped address may push it down one line
            break
    return False


def _quote_header(previous: str | None, line: str) -> int:
    """0 when ``line`` is no quote header ("On … X wrote:"); 1 when it is one;
    2 when it is the second half of one that ``previous`` begins."""
    stripped = line.strip()
    if len(stripped) > MAX_LINE or not _VERB_END.search(stripped):
        return 0
    if (previous and previous.strip() and len(previous) <= MAX_LINE and not _quoted(previous)
            and _HEADER_START.match(previous.strip()) and not _HEADER_START.match(stripped)
            and _EVIDENCE.search(previous + stripped)):
        return 2
    return 1 if _EVIDENCE.search(stripped) else 0


def fresh_text(text: str) -> str:
    """What is the person's own in a reply: no quoted (``>``) lines, nothing
    from a quote header or an Outlook header block on, no signature.

    A "… wrote:" header followed by quoted lines only hides those lines, so a
    reply written below the quote keeps its text; a header followed by the
    original unquoted, a separator or an Outlook block ends the fresh text.

    >>> fresh_text("12-13\\r\\nGood luck\\r\\n\\r\\nSent from my iPhone\\r\\n\\r\\n"
    ...            "On 1 Dec 2026, at 10:00, Clans by Mail <m@x.example> wrote:\\r\\n\\r\\n> Your turn")
    '12-13\\nGood luck'
    >>> fresh_text("On 01/12/2026 10:00, Clans by Mail wrote:\\n> Your turn\\n\\n12-13\\n-- \\nAnna")
    '12-13'
    >>> fresh_text("Petr wrote: 12-13, I wrote 3 letters to 13.")
    'Petr wrote: 12-13, I wrote 3 letters to 13.'
    """
    lines = _clean(text).split("\n")
    kept: list[str] = []
    at = 0
    while at < len(lines):
        line = lines[at]
        if _quoted(line):
            at += 1
            continue
        if _PGP_BEGIN.fullmatch(line.strip()):
            at += 1                           # the armour's header lines, up to the blank line
            while at < len(lines) and lines[at].strip():
                at += 1
            continue
        if (_signature(line) or _header_block(lines, at) or _PGP_END.fullmatch(line.strip())
                or (len(line) <= MAX_LINE and _SEPARATOR.fullmatch(line.strip()))):
            break
        header = _quote_header(kept[-1] if kept else None, line)
        if header:
            if header == 2:
                kept.pop()
            after = at + 1
            while after < len(lines) and not lines[after].strip():
                after += 1
            if after == len(lines) or not _quoted(lines[after]):
                break                         # the original follows unquoted, or nothing does
            while after < len(lines) and (_quoted(lines[after]) or not lines[after].strip()):
                after += 1
            at = after
            continue
        kept.append(line.rstrip())
        at += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


# --------------------------------------------------------------------------
# 2b. Nothing of what the service sent: the mail answered, a link with a
# token, a secret clan.  Quote headers are a help; this is the guarantee.

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
    found: set[bytes] = set()
    for text in texts:
        words = _words(text)[:MAX_WORDS]
        for at in range(len(words) - SHINGLE + 1):
            found.add(_shingle(key, words[at:at + SHINGLE]))
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


def _header_line(line: str) -> bool:
    """A line of what a mail client writes above an original: a header field,
    a separator, an attribution."""
    line = line.strip()
    return len(line) <= MAX_LINE and bool(
        _FROM_FIELD.match(line) or _OTHER_FIELD.match(line) or _SEPARATOR.fullmatch(line)
        or _VERB_END.search(line))


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
    while at >= 1 and (not lines[at].strip() or _header_line(lines[at])):
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


# --------------------------------------------------------------------------
# 3. The move.

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
    return _with_talk(move, order, "\n".join(rest).strip(), problem or None, left_out)


def _with_talk(move: Move | None, order: tuple[int, ...] | None, talk: str,
               problem: str | None, left_out: bool = False) -> Reply:
    cut = len(talk) > MAX_TALK
    return Reply(move, order, talk[:MAX_TALK].rstrip() if cut else talk, problem, cut, left_out)
