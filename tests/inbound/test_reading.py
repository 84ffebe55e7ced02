"""Reading a reply to a turn email (pbem/inbound/reading.py, and the text, quotes and
guard it reads with: message_text.py, quotes.py, guard.py).

Real-looking replies as Gmail, Outlook, Apple Mail and Thunderbird write them in
English, Hungarian, Czech and Portuguese, plain and HTML-only, in the charsets and
transfer encodings those clients use, each through bytes and the parser as the
service would receive it; the move forms and orders; what is not a move; and
hostile input."""

from __future__ import annotations

import ast
import html
import time
from email import message_from_bytes, policy
from email.message import EmailMessage, Message
from pathlib import Path
from typing import Callable

import pytest

from pbem.inbound import guard, message_text
from pbem.inbound.message_text import html_to_text, reply_text
from pbem.inbound.quotes import fresh_text
from pbem.inbound.reading import MAX_TALK, Reply, read_reply
from pbem.rules import Move

ADDRESS = "move+k3y@clans.example"
SERVICE = f"Clans by Mail <{ADDRESS}>"
LANGUAGES = ["en", "hu", "cs", "pt"]

#: What each player writes below the move: two lines, with the letters of their language.
TALK = {
    "en": "Good luck, everyone!\nThe forest is mine.",
    "hu": "Sok sikert mindenkinek!\nAz erdő az enyém, ő tűnődik.",
    "cs": "Hodně štěstí všem!\nLes je můj, příští tah bude těžší.",
    "pt": "Boa sorte a todos!\nA floresta é minha, não é?",
}
NAME = {"en": "Ann Smith", "hu": "Kovács Anna", "cs": "Petr Novák", "pt": "Rita Sousa"}
#: The turn mail they answer; it holds a move (the last one played) that must never be read.
ORIGINAL = ["4-5", "Anna, it is your turn in game 7.", "", "-- ", "Clans by Mail"]

#: The quote headers, as each client writes them in each language.
GMAIL = {
    "en": f"On Tue, 1 Dec 2026 at 10:00, {SERVICE} wrote:",
    "hu": f"2026. dec. 1., K 10:00 időpontban {SERVICE} ezt írta:",
    "cs": f"Dne út 1. 12. 2026 10:00 uživatel {SERVICE} napsal:",
    "pt": f"No dia ter., 1/12/2026 às 10:00, {SERVICE} escreveu:",
}
GMAIL_BR = f"Em ter., 1 de dez. de 2026 às 10:00, {SERVICE} escreveu:"
APPLE = {
    "en": f"On 1 Dec 2026, at 10:00, {SERVICE} wrote:",
    "hu": f"2026. dec. 1. dátummal, 10:00 időpontban {SERVICE} ezt írta:",
    "cs": f"1. 12. 2026 v 10:00, {SERVICE} napsal/a:",
    "pt": f"A 1/12/2026, às 10:00, {SERVICE} escreveu:",
}
THUNDERBIRD = {
    "en": "On 01/12/2026 10:00, Clans by Mail wrote:",
    "hu": "Clans by Mail írta 2026.12.01 10:00-kor:",
    "cs": "Dne 01.12.2026 v 10:00 Clans by Mail napsal(a):",
    "pt": "Em 01/12/2026 10:00, Clans by Mail escreveu:",
}
OUTLOOK = {
    "en": [f"From: {SERVICE}", "Sent: Tuesday, December 1, 2026 10:00 AM",
           "To: Ann Smith <ann@example.org>", "Subject: Your turn in game 7"],
    "hu": [f"Feladó: {SERVICE}", "Elküldve: 2026. december 1., kedd 10:00",
           "Címzett: Kovács Anna <anna@example.org>", "Tárgy: Te következel"],
    "cs": [f"Od: {SERVICE}", "Odesláno: úterý 1. prosince 2026 10:00",
           "Komu: Petr Novák <petr@example.org>", "Předmět: Jste na tahu"],
    "pt": [f"De: {SERVICE}", "Enviado: terça-feira, 1 de dezembro de 2026 10:00",
           "Para: Rita Sousa <rita@example.org>", "Assunto: É a sua vez"],
}
ORIGINAL_MESSAGE = {"en": "-----Original Message-----", "hu": "-----Eredeti üzenet-----",
                    "cs": "-----Původní zpráva-----", "pt": "-----Mensagem original-----"}
IPHONE = {"en": ["Sent from my iPhone"],
          "hu": ["iPhone-ról küldve", "Elküldve iPhone-ról", "Küldve az iPhone-omról"],
          "cs": ["Odesláno z iPhonu", "Odesláno z mého iPhonu"],
          "pt": ["Enviado do meu iPhone", "Enviado do meu iPad"]}
ANDROID = {"en": "Sent from my Android", "hu": "Samsung Galaxy okostelefonról küldve",
           "cs": "Odesláno z mého telefonu Samsung", "pt": "Enviado do meu smartphone Samsung Galaxy"}
GET_OUTLOOK = {"en": "Get Outlook for Android", "hu": "Outlook beszerzése iOS rendszerre",
               "cs": "Získat Outlook pro iOS", "pt": "Obter o Outlook para iOS"}


def quoted(lines: list[str]) -> str:
    return "\n".join(f"> {line}".rstrip() for line in lines)


def html_lines(text: str) -> str:
    return "<br>".join(html.escape(line) for line in text.split("\n"))


def esc(text: str) -> str:
    return html.escape(text)


# -- the clients, plain --------------------------------------------------------------------


def gmail_plain(lang: str) -> str:
    return f"12-13\n\n{TALK[lang]}\n\n{GMAIL[lang]}\n\n{quoted(ORIGINAL)}\n"


def outlook_plain(lang: str) -> str:
    return (f"12-13\n{TALK[lang]}\n\n{GET_OUTLOOK[lang]}\n________________________________\n"
            + "\n".join(OUTLOOK[lang]) + "\n\n" + "\n".join(ORIGINAL) + "\n")


def outlook_desktop_plain(lang: str) -> str:
    return (f"12-13\n\n{TALK[lang]}\n\n{ORIGINAL_MESSAGE[lang]}\n"
            + "\n".join(OUTLOOK[lang]) + "\n\n" + "\n".join(ORIGINAL) + "\n")


def apple_plain(lang: str) -> str:
    return f"12-13\n\n{TALK[lang]}\n\n{IPHONE[lang][0]}\n\n{APPLE[lang]}\n\n{quoted(ORIGINAL)}\n"


def apple_ios_plain(lang: str) -> str:
    """iOS Mail quotes its own header."""
    return f"12-13\n{TALK[lang]}\n\n{IPHONE[lang][-1]}\n\n{quoted([APPLE[lang], '', *ORIGINAL])}\n"


def thunderbird_plain(lang: str) -> str:
    return f"12-13\n\n{TALK[lang]}\n\n-- \n{NAME[lang]}\n\n{THUNDERBIRD[lang]}\n{quoted(ORIGINAL)}\n"


# -- the clients, HTML ---------------------------------------------------------------------


def gmail_html(lang: str) -> str:
    return (f'<div dir="ltr"><div>12-13</div><div><br></div><div>{html_lines(TALK[lang])}</div></div>'
            f'<br><div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">'
            f'{esc(GMAIL[lang])}<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px '
            f'0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">'
            f'<div>{html_lines(chr(10).join(ORIGINAL))}</div></blockquote></div>\r\n')


def outlook_html(lang: str) -> str:
    """Outlook for Windows: Word's HTML, the original unquoted below a header block."""
    paragraphs = "".join(f'<p class="MsoNormal">{esc(line)}<o:p></o:p></p>'
                         for line in ["12-13", "", *TALK[lang].split("\n")])
    fields = "<br>\r\n".join(f"<b>{esc(f.split(':', 1)[0])}:</b>{esc(f.split(':', 1)[1])}"
                             for f in OUTLOOK[lang])
    return ('<html xmlns:o="urn:schemas-microsoft-com:office:office"><head>'
            '<meta http-equiv="Content-Type" content="text/html; charset=utf-8">'
            '<style><!--\r\np.MsoNormal {margin:0cm; font-size:11.0pt;}\r\n--></style>'
            '<!--[if gte mso 9]><xml><o:shapedefaults v:ext="edit" spidmax="1026" /></xml><![endif]-->'
            f'</head><body lang="{lang.upper()}"><div class="WordSection1">{paragraphs}'
            '<p class="MsoNormal"><o:p>&nbsp;</o:p></p><div><div style="border:none;border-top:solid '
            '#E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm"><p class="MsoNormal">'
            f'{fields}<o:p></o:p></p></div></div><p class="MsoNormal">'
            f'{html_lines(chr(10).join(ORIGINAL))}</p></div></body></html>')


def outlook_web_html(lang: str) -> str:
    """Outlook on the web and for phones: the original after #appendonsend."""
    return (f'<div dir="ltr" class="elementToProof">12-13</div>'
            f'<div class="elementToProof">{html_lines(TALK[lang])}</div>'
            f'<div dir="ltr">{esc(GET_OUTLOOK[lang])}</div>'
            '<div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1">'
            '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt">'
            + "<br>".join(esc(f) for f in OUTLOOK[lang])
            + f'</font><div>&nbsp;</div></div><div>{html_lines(chr(10).join(ORIGINAL))}</div>')


def apple_html(lang: str) -> str:
    return ('<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head>'
            f'<body dir="auto"><div dir="ltr">12-13</div><div dir="ltr"><br></div>'
            f'<div dir="ltr">{html_lines(TALK[lang])}</div><div dir="ltr">'
            f'<br id="lineBreakAtBeginningOfSignature"><div dir="ltr">{esc(IPHONE[lang][0])}</div>'
            f'<div dir="ltr"><br><blockquote type="cite">{esc(APPLE[lang])}<br><br></blockquote></div>'
            f'<blockquote type="cite"><div dir="ltr">{html_lines(chr(10).join(ORIGINAL))}</div>'
            '</blockquote></div></body></html>')


def thunderbird_html(lang: str) -> str:
    return ('<!DOCTYPE html>\n<html>\n  <head>\n    <meta http-equiv="Content-Type" '
            'content="text/html; charset=UTF-8">\n  </head>\n  <body>\n    <p>12-13</p>\n'
            f'    <p>{html_lines(TALK[lang])}</p>\n'
            f'    <pre class="moz-signature" cols="72">-- \n{esc(NAME[lang])}</pre>\n'
            f'    <div class="moz-cite-prefix">{esc(THUNDERBIRD[lang])}<br>\n    </div>\n'
            '    <blockquote type="cite" cite="mid:turn-7@clans.example">'
            f'{html_lines(chr(10).join(ORIGINAL))}</blockquote>\n  </body>\n</html>\n')


PLAIN: dict[str, Callable[[str], str]] = {
    "gmail": gmail_plain, "outlook": outlook_plain, "outlook-desktop": outlook_desktop_plain,
    "apple": apple_plain, "apple-ios": apple_ios_plain, "thunderbird": thunderbird_plain,
}
HTML: dict[str, Callable[[str], str]] = {
    "gmail": gmail_html, "outlook": outlook_html, "outlook-web": outlook_web_html,
    "apple": apple_html, "thunderbird": thunderbird_html,
}
#: The charsets and transfer encodings the clients use for each language.
ENCODINGS = {
    "en": [("utf-8", "quoted-printable"), ("iso-8859-1", "base64"), ("us-ascii", "7bit")],
    "hu": [("iso-8859-2", "quoted-printable"), ("iso-8859-2", "base64"), ("utf-8", "8bit")],
    "cs": [("iso-8859-2", "base64"), ("utf-8", "quoted-printable"), ("utf-8", "8bit")],
    "pt": [("iso-8859-1", "quoted-printable"), ("utf-8", "base64"), ("utf-8", "8bit")],
}


def received(message: EmailMessage) -> Message:
    """The message as the service receives it: CRLF bytes through the parser."""
    message["From"] = "Player <player@example.org>"
    message["To"] = ADDRESS
    message["Subject"] = "Re: Your turn in game 7"
    return message_from_bytes(message.as_bytes(policy=policy.SMTP), policy=policy.default)


def mail(plain: str | None, html_body: str | None, charset: str = "utf-8",
         cte: str = "quoted-printable", **params: str) -> Message:
    message = EmailMessage()
    if plain is not None:
        message.set_content(plain, charset=charset, cte=cte, params=params or None)
        if html_body is not None:
            message.add_alternative(html_body, subtype="html", charset=charset, cte=cte)
    else:
        message.set_content(html_body or "", subtype="html", charset=charset, cte=cte)
    return received(message)


def expected(lang: str) -> Reply:
    return Reply(move=Move(12, 13), order=None, talk=TALK[lang], problem=None, talk_cut=False)


# -- every client, every language ----------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("client", PLAIN)
def test_plain_replies(client: str, lang: str) -> None:
    text = PLAIN[client](lang)
    assert read_reply(text) == expected(lang)
    assert fresh_text(text) == "12-13\n\n" + TALK[lang] or fresh_text(text) == "12-13\n" + TALK[lang]
    for charset, cte in ENCODINGS[lang]:
        message = mail(text.replace("\n", "\r\n") if cte == "base64" else text, None, charset, cte)
        assert read_reply(reply_text(message)) == expected(lang), (charset, cte)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("client", HTML)
def test_html_only_replies(client: str, lang: str) -> None:
    body = HTML[client](lang)
    for charset, cte in ENCODINGS[lang]:
        if charset == "us-ascii":
            continue
        message = mail(None, body, charset, cte)
        text = reply_text(message)
        fresh = fresh_text(text)
        assert "4-5" not in fresh and "Clans by Mail" not in fresh, (charset, cte, text)
        assert read_reply(text) == expected(lang), (charset, cte, text)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plain_and_html_together_read_the_plain_part(lang: str) -> None:
    message = mail(gmail_plain(lang), "<p>99-98</p>", "utf-8", "base64")
    assert read_reply(reply_text(message)) == expected(lang)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("split", ["before-verb", "in-address"])
def test_gmail_quote_header_wrapped_over_two_lines(lang: str, split: str) -> None:
    header = GMAIL[lang]
    cut = header.rindex(">") + 1 if split == "before-verb" else header.index("<") + 1
    text = f"12-13\n{TALK[lang]}\n\n{header[:cut].rstrip()}\n{header[cut:].strip()}\n\n{quoted(ORIGINAL)}\n"
    assert read_reply(text) == expected(lang)


def test_gmail_brazilian_header() -> None:
    text = f"12-13\n\n{TALK['pt']}\n\n{GMAIL_BR}\n\n{quoted(ORIGINAL)}"
    assert read_reply(text) == expected("pt")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_phone_signature_ends_the_fresh_text(lang: str) -> None:
    for signature in [*IPHONE[lang], ANDROID[lang], GET_OUTLOOK[lang]]:
        text = f"12-13\n{TALK[lang]}\n\n{signature}\n\n{quoted(ORIGINAL)}"
        assert read_reply(text) == expected(lang), signature


@pytest.mark.parametrize("lang", LANGUAGES)
def test_outlook_header_block_without_separator(lang: str) -> None:
    text = f"12-13\n{TALK[lang]}\n\n" + "\n".join(OUTLOOK[lang]) + "\n\n" + "\n".join(ORIGINAL)
    assert read_reply(text) == expected(lang)
    bold = "\n".join(f"*{f.split(':', 1)[0]}:*{f.split(':', 1)[1]}" for f in OUTLOOK[lang])
    assert read_reply(f"12-13\n{TALK[lang]}\n\n{bold}\n\n4-5") == expected(lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_reply_written_below_the_quote(lang: str) -> None:
    text = f"{THUNDERBIRD[lang]}\n{quoted(ORIGINAL)}\n\n12-13\n{TALK[lang]}\n\n-- \n{NAME[lang]}\n"
    assert read_reply(text) == expected(lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_nothing_but_a_quote_is_no_move(lang: str) -> None:
    for text in [f"\n\n{GMAIL[lang]}\n\n{quoted(ORIGINAL)}\n", quoted(ORIGINAL),
                 f"{IPHONE[lang][0]}\n\n{APPLE[lang]}\n\n{quoted(ORIGINAL)}",
                 "\n".join(OUTLOOK[lang]) + "\n\n" + "\n".join(ORIGINAL), ""]:
        assert read_reply(text) == Reply(None, None, "", "empty", False)


def test_crlf_line_ends_inside_the_body() -> None:
    body = "\r\n".join(["12-13", *TALK["hu"].split("\n"), "", GMAIL["hu"], "", quoted(ORIGINAL), ""])
    body = body.replace("\n>", "\r\n>").replace("\r\r", "\r")
    assert "\r\n" in body and "\n" not in body.replace("\r\n", "")
    for charset in ["utf-8", "iso-8859-2"]:
        message = EmailMessage()
        message.set_content(body.encode(charset), maintype="text",
                            subtype="plain", cte="base64", params={"charset": charset})
        text = reply_text(received(message))
        assert "\r" not in text
        assert read_reply(text) == expected("hu")
    assert read_reply(f"12-13\r\nGood luck\r\n\r\n{GMAIL['en']}\r\n> 4-5\r\n") == Reply(
        Move(12, 13), None, "Good luck", None, False)


def test_raw_received_bytes_in_latin_2() -> None:
    body = "\r\n".join(["12 - 13", *TALK["cs"].split("\n"), "", THUNDERBIRD["cs"], "> 4-5", ""])
    raw = (b"From: Petr <petr@example.org>\r\nTo: " + ADDRESS.encode() + b"\r\n"
           b"Subject: Re: =?iso-8859-2?q?Jste_na_tahu?=\r\nMIME-Version: 1.0\r\n"
           b"Content-Type: text/plain; charset=ISO-8859-2; format=flowed\r\n"
           b"Content-Transfer-Encoding: 8bit\r\n\r\n" + body.encode("iso-8859-2"))
    for parse in (policy.default, policy.compat32):
        message = message_from_bytes(raw, policy=parse)
        assert read_reply(reply_text(message)) == expected("cs")


def test_format_flowed_is_unwrapped() -> None:
    body = ("12-13\n\nThis is a rather long line of table talk that \nthe client wrapped softly.\n"
            "-- \nAnna\n")
    message = mail(body, None, "utf-8", "8bit", format="flowed")
    assert read_reply(reply_text(message)).talk == (
        "This is a rather long line of table talk that the client wrapped softly.")
    message = mail("12-13\n\nwrapped with \ndelsp\n", None, "utf-8", "8bit", format="flowed", delsp="yes")
    assert read_reply(reply_text(message)).talk == "wrapped withdelsp"
    message = mail("> quoted line that \n> wraps\n12-13\n", None, "utf-8", "8bit", format="flowed")
    assert read_reply(reply_text(message)) == Reply(Move(12, 13), None, "", None, False)


# -- reply_text: which part, which charset -------------------------------------------------


def test_reply_text_falls_back_to_html_when_the_plain_part_is_blank() -> None:
    assert reply_text(mail(" \n", "<p>12-13</p><p>Hi &amp; bye</p>")) == "12-13\nHi & bye"


def test_reply_text_never_reads_attachments_or_attached_messages() -> None:
    message = EmailMessage()
    message.set_content("<div>12-13</div>", subtype="html")
    message.add_attachment("1-2\nattached notes", filename="notes.txt")
    forwarded = EmailMessage()
    forwarded["Subject"] = "old"
    forwarded.set_content("3-4")
    message.add_attachment(forwarded)
    message.add_attachment(b"\x89PNG...", maintype="image", subtype="png", filename="board.png")
    assert reply_text(received(message)) == "12-13"

    only_attachment = EmailMessage()
    only_attachment.set_content("")
    only_attachment.add_attachment("5-6", filename="move.txt")
    text = reply_text(received(only_attachment))
    assert "5-6" not in text and read_reply(text).problem == "empty"


def test_reply_text_survives_bad_charsets_and_encodings() -> None:
    def raw(headers: bytes, body: bytes) -> Message:
        return message_from_bytes(b"From: a@example.org\r\n" + headers + b"\r\n\r\n" + body,
                                  policy=policy.default)

    assert reply_text(raw(b"Content-Type: text/plain; charset=x-klingon", b"12-13\r\n")) == "12-13\n"
    undeclared = reply_text(raw(b"Content-Type: text/plain", "12-13\r\nHajrá\r\n".encode("iso-8859-2")))
    assert undeclared.startswith("12-13\nHajr") and "\ufffd" in undeclared
    bad_base64 = raw(b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64",
                     b"MTItMTM=!!!not*base64@@@\r\n")
    assert isinstance(reply_text(bad_base64), str)
    bad_utf8 = raw(b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit",
                   b"12-13\r\n\xff\xfe\xc3(\r\n")
    assert read_reply(reply_text(bad_utf8)).move == Move(12, 13)
    rfc2231 = raw(b"Content-Type: text/plain; charset*=utf-8''utf-8", "12-13\r\nÁ\r\n".encode())
    assert reply_text(rfc2231) == "12-13\nÁ\n"
    assert reply_text(raw(b"Content-Type: multipart/mixed; boundary=x", b"no parts here")) == ""
    assert reply_text(raw(b"Content-Type: application/pdf", b"12-13")) == ""
    no_type = message_from_bytes(b"From: a@example.org\r\n\r\n12-13\r\n", policy=policy.default)
    assert reply_text(no_type) == "12-13\n"                     # no Content-Type: text/plain


def test_html_to_text() -> None:
    assert html_to_text("<p>12-13</p><p>a&nbsp;&amp;&#160;b &lt;c&gt;</p>") == "12-13\na & b <c>"
    assert html_to_text("12-13<br/>x<br><br>y") == "12-13\nx\n\ny"
    assert html_to_text("<style>p{}</style><script>var a='12-13';</script><title>t</title>ok") == "ok"
    assert html_to_text("<blockquote><blockquote>in</blockquote>still in</blockquote>out") == "out"
    assert html_to_text("<div>a</div>\n   <div>b</div>") == "a\nb"
    assert html_to_text("<pre>12-13\n  indented</pre>") == "12-13\nindented"
    assert html_to_text("<table><tr><td>12</td><td>13</td></tr></table>") == "12 13"
    assert html_to_text("<b>12-13</b><i>unclosed <u>tags") == "12-13unclosed tags"
    assert html_to_text("</div></blockquote>12-13<!-- comment 1-2 -->") == "12-13"


# -- move forms ----------------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    "12-13", "12 - 13", "12 13", "12  13", "12\t13", "12 to 13", "12 TO 13", "12→13", "12 → 13",
    "12 > 13", "12>13", "12->13", "12 -> 13", "12 --> 13", "12=>13", "12–13", "12 — 13", "12−13",
    "12 na 13", "12 para 13", "12-13.", "12-13!", "  12-13  ", "*12-13*", "012-013",
    "move: 12-13", "Move 12 13", "lépés: 12-13", "Lépés 12 to 13", "tah: 12 na 13",
    "jogada: 12 para 13", "12\u00a0-\u00a013", "12\u202f13", "\ufeff12-13", "12-13\u200b",
])
def test_move_forms(line: str) -> None:
    assert read_reply(line + "\nthanks") == Reply(Move(12, 13), None, "thanks", None, False)


@pytest.mark.parametrize("line,order", [
    ("12-13 order 14 15", (14, 15)), ("12-13 order: 14, 15", (14, 15)),
    ("12-13, order 15 14", (15, 14)), ("12 13 ORDER 14;15", (14, 15)),
    ("12-13 sorrend: 14, 15", (14, 15)), ("12-13 pořadí 15 14", (15, 14)),
    ("12-13 poradi 15 14", (15, 14)), ("12 para 13 ordem 14 15", (14, 15)),
    ("12-13 (14, 15)", (14, 15)), ("12-13 (15 14)", (15, 14)), ("12-13 (order: 14, 15).", (14, 15)),
    ("12-13 (14)", (14,)), ("12-13 order " + " ".join(str(n) for n in range(1, 13)), tuple(range(1, 13))),
])
def test_orders(line: str, order: tuple[int, ...]) -> None:
    assert read_reply(f"{line}\n\nGL") == Reply(Move(12, 13), order, "GL", None, False)


def test_order_on_the_next_line() -> None:
    assert read_reply("12-13\n\nsorrend: 15, 14\nHajrá!") == Reply(Move(12, 13), (15, 14), "Hajrá!", None, False)
    assert read_reply("12-13\nordem 14 15") == Reply(Move(12, 13), (14, 15), "", None, False)
    assert read_reply("12-13 (14, 15)\norder 15 14").problem == "bad-order"
    assert read_reply("12-13\norder 14 14").problem == "bad-order"
    # only the line right after the move, and only with the word
    assert read_reply("12-13\nhi\norder 14 15").order is None
    assert read_reply("12-13\n14 15").problem == "two-moves"


@pytest.mark.parametrize("text", [
    "12-13 order", "12-13 order 14 14", "12-13 (14, x)", "12-13 (14 15", "12-13 ()",
    "12-13 order 14-15", "12-13 ordem: catorze",
    "12-13 order " + " ".join(str(n) for n in range(1, 14)),
])
def test_bad_orders(text: str) -> None:
    reply = read_reply(text + "\ntalk")
    assert (reply.move, reply.order, reply.problem, reply.talk) == (None, None, "bad-order", "talk")


@pytest.mark.parametrize("text", [
    "12-13 14-15", "12-13, 14-15", "12-13 then 14 to 15", "12 13 14 15", "12-13\n14-15",
    "12-13\nGood luck\n\n14 - 15",
])
def test_two_moves(text: str) -> None:
    reply = read_reply(text)
    assert (reply.move, reply.order, reply.problem) == (None, None, "two-moves")


@pytest.mark.parametrize("text", [
    "I'll move in 2 or 3 days", "2 or 3 days, sorry", "12-13 please", "12 13 days from now",
    "12:13", "12.13", "12,13", "12/13", "12-13-14", "12 - 13 - 14", "-12-13", "12-", "- 13",
    "12345-1", "1-12345", "2026-12-01", "12 to", "to 13", "12 tonight 13", "12 na13",
    "Hi!", "Move: soon", "1. 12-13", "a 12-13", "12-13 a", "12 - 13 :)",
    "١٢-١٣", "١٢ ١٣", "12-١٣", "１２-１３", "¹²-¹³", "𝟏𝟐-𝟏𝟑", "১২-১৩", "12\u0663-13",
])
def test_not_moves(text: str) -> None:
    reply = read_reply(text + "\nmore talk")
    assert (reply.move, reply.order, reply.problem) == (None, None, "no-move")
    assert reply.talk == (text + "\nmore talk").strip()


def test_a_move_not_on_the_first_line_is_named() -> None:
    text = "Hi all,\n\n12-13\n\nAnna"
    assert read_reply(text) == Reply(None, None, text, "move-not-first", False)
    assert read_reply("Hi all,\nI'll move in 2 or 3 days").problem == "no-move"


def test_talk_keeps_the_rest_and_its_blank_lines() -> None:
    text = "12-13\n\n\nFirst paragraph\nsecond line\n\n\n\nSecond paragraph   \n"
    assert read_reply(text).talk == "First paragraph\nsecond line\n\nSecond paragraph"


# -- fresh_text: cut what is not theirs, and nothing else ----------------------------------


@pytest.mark.parametrize("line", [
    "12-13", "I wrote to Petr yesterday at 10:00 about 12-13.", "Petr wrote: 12-13 is better",
    "Petr wrote:", "As Anna wrote: the forest!", "Anna írta, hogy 12-13 jó lépés.",
    "Petr napsal, že 12-13 je dobrý tah.", "A Rita escreveu 3 cartas.",
    "From the forest to the river", "From: me", "Sent from my heart", "Enviado do Brasil com amor",
    "Budapestről küldve, szeretettel", "On Tuesday I move.", "-> 13 is mine", "----",
    "I was sent from 12 to 13 by the rules",
])
def test_normal_sentences_stay(line: str) -> None:
    text = f"12-13\n{line}\nbye"
    assert fresh_text(text) == text


def test_quoted_lines_are_dropped_anywhere() -> None:
    assert fresh_text("> what now?\n12-13\n>> old\nbecause\n  > indented quote\nok") == "12-13\nbecause\nok"


def test_signature_dash_dash_with_and_without_space() -> None:
    assert fresh_text("12-13\n-- \nAnna\n+36 1 234 5678") == "12-13"
    assert fresh_text("12-13\n--\nAnna") == "12-13"


def test_forwarded_and_pgp() -> None:
    assert fresh_text("12-13\n\nBegin forwarded message:\n\nFrom: x") == "12-13"
    assert fresh_text("12-13\n---------- Forwarded message ---------\nFrom: x") == "12-13"
    signed = ("-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n12-13\nGL\n"
              "-----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEE\n-----END PGP SIGNATURE-----\n")
    assert read_reply(signed) == Reply(Move(12, 13), None, "GL", None, False)


# -- hostile input -------------------------------------------------------------------------


def quick(seconds: float, work: Callable[[], object]) -> object:
    start = time.perf_counter()
    result = work()
    assert time.perf_counter() - start < seconds
    return result


def test_huge_talk_is_cut_and_flagged() -> None:
    text = "12-13\n" + ("blah " * 40 + "\n") * 50_000             # 10 MB
    reply = quick(10, lambda: read_reply(text))
    assert isinstance(reply, Reply)
    assert reply.move == Move(12, 13) and reply.talk_cut and len(reply.talk) <= MAX_TALK
    exact = read_reply("12-13\n" + "x" * MAX_TALK)
    assert (len(exact.talk), exact.talk_cut) == (MAX_TALK, False)
    over = read_reply("12-13\n" + "x" * (MAX_TALK + 1))
    assert (len(over.talk), over.talk_cut) == (MAX_TALK, True)


def test_huge_lines_and_quotes() -> None:
    assert quick(10, lambda: read_reply("1" * 2_000_000).problem) == "no-move"
    assert quick(10, lambda: read_reply("12-13 " + "1 " * 1_000_000).problem) == "no-move"
    long_quote = "12-13\n\n" + GMAIL["en"] + "\n" + "> " + "y" * 1_000 + "\n"
    assert quick(10, lambda: read_reply(long_quote + ("> q\n" * 500_000)).move) == Move(12, 13)
    header_like = ("On " + "1 " * 100_000 + "wrote:\n") * 3
    assert quick(10, lambda: fresh_text(header_like)) is not None
    dashes = ("-" * 100_000 + "a") + "\n" + "From: " + "x" * 100_000
    assert quick(10, lambda: fresh_text(dashes)) is not None


def test_huge_and_broken_html() -> None:
    nested = "<div>" * 30_000 + "12-13" + "</div>" * 30_000   # the move within message_text.MAX_HTML
    assert quick(20, lambda: html_to_text(nested)) == "12-13"
    unclosed = "<b>" * 50_000 + "<div>12-13" + "</div>" * 50_000 + "</i>" * 50_000
    assert quick(20, lambda: html_to_text(unclosed)) == "12-13"
    for broken in ["<!-- never closed 12-13", "<div <p>12-13", "<![CDATA[12-13", "<scr<script>ipt>",
                   "<a href='x>12-13", "&#xdfff;&#0;&#x110000;&#99999999999;12-13", "<" * 100_000]:
        assert isinstance(quick(20, lambda: html_to_text(broken)), str)
    big = mail(None, "<p>12-13</p>" + "<p>" + "talk " * 400_000 + "</p>", "utf-8", "base64")
    reply = quick(20, lambda: read_reply(reply_text(big)))
    assert isinstance(reply, Reply) and reply.move == Move(12, 13) and reply.talk_cut


def test_nul_controls_and_invisible_characters_never_reach_the_talk() -> None:
    reply = read_reply("12-13\x00\nhi\x00 there\x07\x1b[31m red\u202e\u2066evil\u2069\ufeff\u200b")
    assert reply == Reply(Move(12, 13), None, "hi there[31m redevil", None, False)
    assert read_reply("\x00" * 1000).problem == "empty"
    assert read_reply("1\x002-13").move == Move(12, 13)                # a NUL is nothing, not a separator


def test_reply_is_frozen() -> None:
    reply = read_reply("12-13")
    with pytest.raises(AttributeError):
        reply.move = "1-2"  # type: ignore[misc]


# -- the modules stay pure -----------------------------------------------------------------

#: Reading a reply: its text, the person's own part of it, the guard, the move.
PURE = ("message_text", "quotes", "guard", "reading")


@pytest.mark.parametrize("module", PURE)
def test_reading_imports_only_the_standard_library_and_the_rules(module: str) -> None:
    path = Path(message_text.__file__).with_name(f"{module}.py")
    allowed = {"__future__", "codecs", "dataclasses", "email", "hashlib", "html", "re", "typing",
               "unicodedata", "pbem"}
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0
            names = [node.module or ""]
        else:
            continue
        for name in names:
            assert name.split(".")[0] in allowed, name
            if name.startswith("pbem"):
                assert (name == "pbem.rules" or name.startswith("pbem.rules.")
                        or name.removeprefix("pbem.inbound.") in PURE), name


# -- nothing of the mail answered (issue 27) -------------------------------------------------------

from tests.inbound.mail_programs import FINGERPRINT_ONLY, OWN_WORDS, STYLES, Answered  # noqa: E402

SEAT_TOKEN = "Zq3" + "x" * 38 + "Kp"
TURN_TEXT = (
    "Hello Ann,\n\n"
    "it is your turn in game k3vx9q2mtr7hwa. Your secret clan: green.\n"
    "Move by Thursday 3 December 2026, 10:00 (2 days left); after that the autopilot\nmoves for you.\n\n"
    f"Make your move:\nhttps://clans.example/play/{SEAT_TOKEN}\n\n"
    "Reply to this email with your move on the first line, e.g. 12-13; if it founds several villages, "
    "add their order: 12-13 order 14 15.\n"
    "Anything else you write in your reply goes to the other players as table talk.\n\n"
    "Since your last turn:\n- Bob moved 4 → 5.\n\n"
    "The board (territories with huts, villages apart):\n  4: 2 huts (forest)\n  5: 3 huts (plains)\n\n"
    "Clan scores: red 0, yellow 3, green 0, blue 1, black 0\n\n-- \n"
    "Your seat in game k3vx9q2mtr7hwa (keep this link to yourself):\n"
    f"https://clans.example/play/{SEAT_TOKEN}\n"
    f"Stop turn mail for this game: https://clans.example/unsubscribe/{SEAT_TOKEN}\n"
)
TURN_HTML = (
    "<html><head><style>p {color: red}</style></head><body><h1>Your turn in game k3vx9q2mtr7hwa</h1>"
    "<p>Hello Ann, it is your turn in game k3vx9q2mtr7hwa.</p><p>Your secret clan: <strong>green</strong>.</p>"
    f'<p><a href="https://clans.example/play/{SEAT_TOKEN}">Make your move</a></p>'
    "<p>Reply to this email with your move on the first line, e.g. 12-13; if it founds several villages, "
    "add their order: 12-13 order 14 15.</p></body></html>"
)
TURN = Answered(subject="Your turn in Clans game k3vx9q2mtr7hwa (move 3)", text=TURN_TEXT, html=TURN_HTML,
                to="ann@example.org")
KEY = b"fingerprint key"
SENT = guard.Sent(key=KEY, shingles=guard.shingles([guard.fingerprint(
    [TURN.subject, TURN_TEXT, html_to_text(TURN_HTML)], KEY)]), hosts=("clans.example",),
    clans=("red", "yellow", "green", "blue", "black", "zöld", "zelený", "verde"),
    markers=("your secret clan:", "a titkos klánod:"))


def _reply_body(style: str) -> str:
    body = STYLES[style][1]("12-13", TURN)
    message = EmailMessage()
    message.set_content(body.text, params={"format": "flowed"} if body.flowed else None) if body.text else None
    if body.html is not None:
        if body.text:
            message.add_alternative(body.html, subtype="html")
        else:
            message.set_content(body.html, subtype="html")
    return reply_text(message_from_bytes(message.as_bytes(), policy=policy.default))


@pytest.mark.parametrize("style", sorted(STYLES))
def test_the_original_below_a_reply_in_each_mail_programs_style_is_never_talk(style: str) -> None:
    reply = read_reply(_reply_body(style), SENT)
    assert reply.move == Move(12, 13) and reply.problem is None
    assert reply.talk == OWN_WORDS[STYLES[style][0]] and reply.left_out == (style in FINGERPRINT_ONLY)
    assert SEAT_TOKEN not in reply.talk and "secret clan" not in reply.talk.casefold()
    assert "green" not in reply.talk.casefold() and "/play/" not in reply.talk


@pytest.mark.parametrize("style", sorted(set(STYLES) - FINGERPRINT_ONLY))
def test_the_quote_headers_of_more_languages_end_the_fresh_text_on_their_own(style: str) -> None:
    """A help, not the guarantee: each mail program's header (or quote) ends
    the fresh text even without knowing what was sent."""
    reply = read_reply(_reply_body(style))
    assert reply.move == Move(12, 13) and reply.talk == OWN_WORDS[STYLES[style][0]]


def test_a_pasted_original_is_cut_even_mid_reply_and_the_header_lines_above_it_go_too() -> None:
    text = ("12-13\nGood luck!\nMy plan: the forest.\n\nGesendet: heute 10:00\nAn: ann@example.org\n\n"
            + TURN_TEXT.replace("\n", "\n\n", 3))
    reply = read_reply(text, SENT)
    assert reply.talk == "Good luck!\nMy plan: the forest." and reply.left_out


def test_the_move_line_is_never_taken_for_the_mail_even_when_it_is_the_mails_example() -> None:
    reply = read_reply("12-13 order 14 15\nThanks for the example!", SENT)
    assert reply.move == Move(12, 13) and reply.order == (14, 15) and reply.talk == "Thanks for the example!"


def test_the_players_own_words_that_share_a_few_words_with_the_mail_stay() -> None:
    talk = ("Your turn, Bob: make your move quickly.\nGreen and red are level, yellow leads.\n"
            "Anything else? Reply to me on the page.")
    reply = read_reply(f"12-13\n{talk}", SENT)
    assert reply.talk == talk and not reply.left_out


@pytest.mark.parametrize("line", [
    "my secret clan is green", "Your secret clan: Green.", "A titkos klánod: zöld.", "Tvůj tajný klan: zelený",
    "O teu clã secreto: verde", "Dein geheimer Clan: green",
])
def test_a_secret_clan_line_is_left_out_in_any_language(line: str) -> None:
    reply = read_reply(f"12-13\nHi all\n{line}\nBye", guard.Sent(clans=SENT.clans, markers=SENT.markers))
    assert reply.talk == "Hi all\nBye" and reply.left_out


@pytest.mark.parametrize("lines", [
    "Your secret clan:\n\nGreen",              # a blank line before the clan
    "Your secret\nclan: green",                 # the sentence broken between its words
    "Your clan's huts are green; the last move is outlined.",   # the HTML mail's board caption
    "Green 5 · yours",                          # its score chip
])
def test_the_turn_mails_clan_lines_are_left_out_however_they_are_pasted(lines: str) -> None:
    from pbem.inbound.sent_mail import _MARKERS

    reply = read_reply(f"12-13\nHi all\n{lines}\nBye", guard.Sent(clans=SENT.clans, markers=_MARKERS))
    assert [line for line in reply.talk.split("\n") if line.strip()] == ["Hi all", "Bye"] and reply.left_out


def test_a_secret_clan_sentence_wrapped_before_the_clan_is_left_out_with_it() -> None:
    reply = read_reply("12-13\nHi all\nit is your turn. Your secret clan:\ngreen.\nBye",
                       guard.Sent(clans=SENT.clans, markers=SENT.markers))
    assert reply.talk == "Hi all\nBye"


@pytest.mark.parametrize("link", [
    f"https://clans.example/play/{SEAT_TOKEN}", f"http://CLANS.example/play/{SEAT_TOKEN}/move",
    f"clans.example/signin/{SEAT_TOKEN}", f"https://clans.example/unsubscribe/{SEAT_TOKEN}/talk",
    f"https://clans.example/never/{SEAT_TOKEN}", f"<https://clans.example:8443/play/{SEAT_TOKEN}>",
    f"move+{SEAT_TOKEN.lower()}@clans.example", SEAT_TOKEN,
    # As a mail program's link checker rewrites it, and percent-encoded.
    f"https://eur01.safelinks.example/?url=https%3A%2F%2Fclans.example%2Fplay%2F{SEAT_TOKEN}&data=1",
    f"mailto:move%2B{SEAT_TOKEN.lower()}%40clans.example",
])
def test_the_services_links_with_a_token_are_left_out(link: str) -> None:
    reply = read_reply(f"12-13\nsee {link} now", guard.Sent(hosts=("clans.example",)))
    assert SEAT_TOKEN not in reply.talk and SEAT_TOKEN.lower() not in reply.talk and reply.left_out
    assert reply.talk.startswith("see ") and reply.talk.endswith(" now")


def test_links_without_a_token_and_other_sites_stay() -> None:
    talk = "rules: https://clans.example/games/k3vx9q2mtr7hwa and https://example.org/a/" + "b" * 30
    reply = read_reply(f"12-13\n{talk}", guard.Sent(hosts=("clans.example",)))
    assert reply.talk == talk and not reply.left_out


def test_a_fingerprint_is_the_sorted_hashes_of_every_run_of_words_once() -> None:
    """What a sent mail keeps (and a reply is read against): each run of
    SHINGLE words of each text, hashed as the guard hashes a reply's runs."""
    texts = [TURN.subject, TURN_TEXT, html_to_text(TURN_HTML), "", "one two three",
             "Árvíztűrő tükörfúrógép ÁRVÍZTŰRŐ TÜKÖRFÚRÓGÉP " * 3]
    runs = {guard._shingle(KEY, words[at:at + guard.SHINGLE]) for words in map(guard._words, texts)
            for at in range(len(words) - guard.SHINGLE + 1)}
    got = guard.fingerprint(texts, KEY)
    assert got == b"".join(sorted(runs)) and len(got) == len(runs) * guard.SHINGLE_BYTES
    assert guard.shingles([got]) == runs


def test_the_guard_costs_little_on_a_long_hostile_reply() -> None:
    text = "12-13\n" + ("word " * 20 + "\n") * 5000
    started = time.process_time()
    reply = read_reply(text, SENT)
    assert reply.move == Move(12, 13) and len(reply.talk) <= MAX_TALK
    assert time.process_time() - started < 2.0


@pytest.mark.parametrize("body", ["<a" * 200_000, "</" * 200_000, "<!" * 200_000, "<a>" * 200_000])
def test_the_html_parser_is_given_only_finished_tags_and_a_bounded_amount(body: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's HTMLParser scans again from every unfinished tag (quadratic: a
    hostile reply of half-tags held a worker for minutes).  What it is fed is
    at most MAX_HTML characters, and every "<" in it opens a tag that closes."""
    import re as regex

    fed: list[str] = []
    real = message_text._HtmlText.feed

    def feed(self: message_text._HtmlText, data: str) -> None:
        fed.append(data)
        real(self, data)

    monkeypatch.setattr(message_text._HtmlText, "feed", feed)
    html_to_text(body)
    (data,) = fed
    assert len(data.replace("&lt;", "<")) <= message_text.MAX_HTML
    assert all(regex.match(r"<[A-Za-z/!?][^<>]*>", data[m.start():]) for m in regex.finditer("<", data))
