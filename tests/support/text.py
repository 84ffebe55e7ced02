"""The text a person reads in a page or a mail, and the English left in a translation."""

from __future__ import annotations

import html.parser
import re

#: Text that stays the same in every language (the service's name).
SAME_IN_EVERY_LANGUAGE = {"Clans by Mail"}


def text_pieces(document: str) -> list[str]:
    """The pieces of text a person reads in an HTML document (text nodes, alt,
    title, aria-label, placeholder) or, for plain text, its lines; white space folded."""
    if "<" not in document:
        chunks = document.splitlines()
    else:
        chunks = []

        class Reader(html.parser.HTMLParser):
            skip = 0

            def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
                if tag in ("script", "style"):
                    self.skip += 1
                chunks.extend(v or "" for k, v in attrs if k in ("alt", "title", "aria-label", "placeholder"))

            def handle_endtag(self, tag: str) -> None:
                if tag in ("script", "style"):
                    self.skip -= 1

            def handle_data(self, data: str) -> None:
                if not self.skip:
                    chunks.append(data)

        Reader().feed(document)
    return [" ".join(c.split()) for c in chunks if c.strip() and re.sub(r"\W", "", c)]


def english_left(english: str, translated: str) -> list[str]:
    """The sentences of ``english`` (three words or more) that ``translated``
    still shows word for word: English left in a translated page or mail."""
    def sentences(document: str) -> set[str]:
        out = set()
        for piece in text_pieces(document):
            # Addresses, and the pieces of one a page lets wrap before its slashes ("/games").
            words = re.sub(r"https?://\S+|\S+@\S+|\S*/\S*", "", piece)
            for name in SAME_IN_EVERY_LANGUAGE:
                words = words.replace(name, "")
            if len(re.findall(r"[A-Za-z]{2,}", words)) >= 3:
                out.add(piece)
        return out

    there = set(text_pieces(translated))
    return sorted(s for s in sentences(english) if s in there)
