"""What of a reply is the person's own: no quoted (``>``) lines, nothing from a
quote header ("On … X wrote:", in the languages mail programs write it) or an
Outlook header block on, no signature, no PGP armour.  Quote headers are a
help, not a guarantee: :mod:`pbem.inbound.guard` also cuts whatever the
service sent.

Pure: standard library only, no I/O."""

from __future__ import annotations

import re

from pbem.inbound.message_text import clean

#: A line longer than this is never a move line nor a quote header.
MAX_LINE = 500

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
    lines = clean(text).split("\n")
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


def header_line(line: str) -> bool:
    """A line of what a mail client writes above an original: a header field,
    a separator, an attribution."""
    line = line.strip()
    return len(line) <= MAX_LINE and bool(
        _FROM_FIELD.match(line) or _OTHER_FIELD.match(line) or _SEPARATOR.fullmatch(line)
        or _VERB_END.search(line))
