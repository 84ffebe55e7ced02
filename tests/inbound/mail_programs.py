"""How mail programs write a reply with the original below it (issue 27): the
styles in which a turn mail came back whole to the table as talk.

Each style takes the move line, the player's own words and the mail answered
(its subject, text and HTML) and gives the reply's parts: ``text`` (or
``None``), ``html`` (or ``None``) and ``flowed`` (the text is format=flowed)."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Callable

SERVICE = "Clans by Mail <clans@localhost>"


@dataclass(frozen=True)
class Answered:
    subject: str
    text: str
    html: str
    to: str


@dataclass(frozen=True)
class Body:
    text: str | None
    html: str | None = None
    flowed: bool = False


#: The player's own words in each style's language.
OWN_WORDS = {
    "de": "Viel Glück euch allen!\nDer Wald gehört mir.",
    "fr": "Bonne chance à tous !\nLa forêt est à moi.",
    "it": "Buona fortuna a tutti!\nLa foresta è mia.",
    "es": "¡Suerte a todos!\nEl bosque es mío.",
    "nl": "Veel succes allemaal!\nHet bos is van mij.",
    "pl": "Powodzenia wszystkim!\nLas jest mój.",
    "en": "Good luck, everyone!\nThe forest is mine.",
}

#: Outlook's plain-text header block, as it writes it above the unquoted
#: original (no separator line above it, as Outlook for Windows writes it).
OUTLOOK_FIELDS = {
    "de": ("Von: {service}", "Gesendet: Dienstag, 1. Dezember 2026 10:00", "An: {to}", "Betreff: {subject}"),
    "fr": ("De : {service}", "Envoyé : mardi 1 décembre 2026 10:00", "À : {to}", "Objet : {subject}"),
    "it": ("Da: {service}", "Inviato: martedì 1 dicembre 2026 10:00", "A: {to}", "Oggetto: {subject}"),
    "es": ("De: {service}", "Enviado: martes, 1 de diciembre de 2026 10:00", "Para: {to}",
           "Asunto: {subject}"),
    "nl": ("Van: {service}", "Verzonden: dinsdag 1 december 2026 10:00", "Aan: {to}", "Onderwerp: {subject}"),
    "pl": ("Od: {service}", "Wysłano: wtorek, 1 grudnia 2026 10:00", "Do: {to}", "Temat: {subject}"),
}


def outlook(language: str) -> Callable[[str, Answered], Body]:
    def write(move: str, mail: Answered) -> Body:
        fields = "\n".join(f.format(service=SERVICE, to=mail.to, subject=mail.subject)
                           for f in OUTLOOK_FIELDS[language])
        return Body(f"{move}\n{OWN_WORDS[language]}\n\n{fields}\n\n{mail.text}\n")
    return write


def gmail_polish(move: str, mail: Answered) -> Body:
    """Gmail's Polish attribution above an original it did not quote (the
    reply was written as plain text and the quote's ``>`` were lost)."""
    attribution = f"W dniu wt., 1 gru 2026 o 10:00 {SERVICE} napisał(a):"
    return Body(f"{move}\n{OWN_WORDS['pl']}\n\n{attribution}\n\n{mail.text}\n")


def thunderbird_polish(move: str, mail: Answered) -> Body:
    attribution = "W dniu 1.12.2026 o 10:00, Clans by Mail pisze:"
    return Body(f"{move}\n{OWN_WORDS['pl']}\n\n{attribution}\n{mail.text}\n")


def pasted(move: str, mail: Answered) -> Body:
    """The original pasted below the reply with no header at all."""
    return Body(f"{move}\n{OWN_WORDS['en']}\n\n{mail.text}\n")


def html_reply(move: str, mail: Answered) -> Body:
    """An HTML-only reply with the original's HTML pasted in a plain ``div``
    (no blockquote, no quote container the reader knows)."""
    own = "".join(f"<div>{html.escape(line)}</div>" for line in OWN_WORDS["fr"].split("\n"))
    return Body(None, f'<div dir="ltr"><div>{html.escape(move)}</div>{own}</div><hr><div>{mail.html}</div>')


def flowed(move: str, mail: Answered) -> Body:
    """format=flowed text (RFC 3676): the original's lines broken softly (a
    trailing space) every few words, below a Dutch Gmail attribution."""
    def soft(line: str) -> str:
        words = line.split(" ")
        return " \n".join(" ".join(words[at:at + 4]) for at in range(0, len(words), 4))

    original = "\n".join(soft(line) for line in mail.text.split("\n"))
    attribution = f"Op di 1 dec 2026 om 10:00 schreef {SERVICE}:"
    return Body(f"{move}\n{OWN_WORDS['nl']}\n\n{attribution}\n\n{original}\n", flowed=True)


def quoted_then_wrapped(move: str, mail: Answered) -> Body:
    """Quoted with ``>``, but the mail program wrapped the quoted lines at 40
    characters (between words) without quoting what it wrapped (the continuation lines lose
    their ``>``), below an Italian Gmail attribution."""
    lines = []
    for line in mail.text.split("\n"):
        cut = line.rfind(" ", 0, 40) if len(line) > 40 else -1
        first, rest = (line[:cut], line[cut + 1:]) if cut > 0 else (line, "")
        lines.append(f"> {first}".rstrip())
        if rest:
            lines.append(rest)
    attribution = f"Il giorno mar 1 dic 2026 alle ore 10:00 {SERVICE} ha scritto:"
    return Body(f"{move}\n{OWN_WORDS['it']}\n\n{attribution}\n" + "\n".join(lines) + "\n")


STYLES: dict[str, tuple[str, Callable[[str, Answered], Body]]] = {
    **{f"outlook-{language}": (language, outlook(language)) for language in OUTLOOK_FIELDS},
    "gmail-pl": ("pl", gmail_polish),
    "thunderbird-pl": ("pl", thunderbird_polish),
    "pasted": ("en", pasted),
    "html": ("fr", html_reply),
    "flowed": ("nl", flowed),
    "quoted-wrapped": ("it", quoted_then_wrapped),
}

#: The styles no quote header gives away: only what the service knows it sent
#: cuts them (and the answer then says that something was left out).
FINGERPRINT_ONLY = frozenset({"pasted", "html", "quoted-wrapped"})
