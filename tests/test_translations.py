"""The translation catalogs: current with the code, complete, and faithful to
the English placeholders; plurals and dates as each language writes them."""

from __future__ import annotations

import gettext
import io
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from pbem.words.language import BABEL_LOCALES, CATALOGS, LANGUAGES
from pbem.words import Words, left_text

REPO = Path(__file__).resolve().parents[1]
TRANSLATED = [code for code in LANGUAGES if code != "en"]
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def catalog(path: Path, locale: str | None = None):
    with path.open("rb") as fh:
        return read_po(fh, locale=locale)


def keys(cat) -> set[tuple[str | None, str]]:
    return {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in cat if m.id}


def po(code: str) -> Path:
    return CATALOGS / BABEL_LOCALES[code] / "LC_MESSAGES" / "messages.po"


def test_the_template_is_current(tmp_path):
    """Extracting again finds exactly the messages of messages.pot."""
    out = tmp_path / "fresh.pot"
    subprocess.run([sys.executable, "-c", "from babel.messages.frontend import main; main()", "extract",
                    "-F", str(CATALOGS / "babel.cfg"), "-k", "N_", "-k", "n_:1,2", "-k", "p_:1c,2",
                    "-k", "NP_:1c,2", "--no-location", "-o", str(out), "."],
                   cwd=REPO, check=True, capture_output=True)
    fresh, stored = keys(catalog(out)), keys(catalog(CATALOGS / "messages.pot"))
    assert fresh - stored == set(), "new sentences: run `make catalog`"
    assert stored - fresh == set(), "sentences no longer used: run `make catalog`"


@pytest.mark.parametrize("code", TRANSLATED)
def test_each_language_has_every_message_translated_and_none_fuzzy(code):
    cat = catalog(po(code), BABEL_LOCALES[code])
    assert keys(cat) == keys(catalog(CATALOGS / "messages.pot"))
    untranslated = [m.id for m in cat if m.id and not (all(m.string) if isinstance(m.string, tuple) else m.string)]
    fuzzy = [m.id for m in cat if m.id and m.fuzzy]
    assert untranslated == [] and fuzzy == []


@pytest.mark.parametrize("code", TRANSLATED)
def test_placeholders_match_the_english(code):
    cat = catalog(po(code), BABEL_LOCALES[code])
    wrong = []
    for m in cat:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        wanted = set(PLACEHOLDER.findall(ids[-1])) | set(PLACEHOLDER.findall(ids[0]))
        for s in strings:
            if not s:
                continue  # untranslated: the test above says so
            got = set(PLACEHOLDER.findall(s))
            # A plural form may leave out the number (Czech "jeden den"), and a greeting the
            # reader's name (Czech would need its vocative, which no program makes of any
            # name: "Ahoj," alone); nothing else may go or come.
            may_go = {"num"} | ({"name"} if ids[0].startswith("Hello %(name)s") else set())
            if got - wanted or (wanted - got) - may_go:
                wrong.append((ids[0], s))
            # Every % is a placeholder or a literal %% (newstyle gettext formats them all).
            if re.sub(r"%%|%\(\w+\)[sd]", "", s).count("%"):
                wrong.append((ids[0], s))
    assert wrong == []


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_compiled_catalogs_match_their_sources(code):
    """The .mo files served are compiled from the .po files as they are now
    (`make catalog` compiles them)."""
    cat = catalog(po(code), BABEL_LOCALES[code])
    fresh = io.BytesIO()
    write_mo(fresh, cat)
    fresh.seek(0)
    compiled = po(code).with_suffix(".mo")
    with compiled.open("rb") as fh:
        assert gettext.GNUTranslations(fh)._catalog == gettext.GNUTranslations(fresh)._catalog  # type: ignore[attr-defined]


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_translation_differs_from_the_english_where_it_should(code):
    """A sentence "translated" as its English twin is a sentence left in English
    (single words such as names of places are allowed to agree)."""
    cat = catalog(po(code), BABEL_LOCALES[code])
    same = [m.id for m in cat if isinstance(m.id, str) and m.id and m.string == m.id
            and len(re.findall(r"[A-Za-z]{3,}", PLACEHOLDER.sub("", m.id))) >= 3]
    assert same == []


@pytest.mark.parametrize("num, expected", [(1, "1 den"), (3, "3 dny"), (5, "5 dní"), (22, "22 dní")])
def test_czech_has_three_plural_forms(num, expected):
    """1 / 2–4 / 5 and more (22 too: Czech is not Russian)."""
    assert Words("cs").n_("%(num)d day", "%(num)d days", num) == expected
    assert left_text(timedelta(days=num), Words("cs")) == (expected if num > 1 else "24 hodin")


@pytest.mark.parametrize("code, one, many", [("en", "1 minute", "5 minutes"), ("hu", "1 perc", "5 perc"),
                                             ("pt", "1 minuto", "5 minutos")])
def test_plurals_in_the_other_languages(code, one, many):
    assert left_text(timedelta(minutes=1), Words(code)) == one
    assert left_text(timedelta(minutes=5), Words(code)) == many


AT = datetime(2026, 12, 3, 22, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize("code, zone, expected", [
    ("en", "UTC", "Thursday 3 Dec 2026, 22:30 UTC"),
    ("en", "America/New_York", "Thursday 3 Dec 2026, 17:30 EST"),
    # Past midnight in Budapest and Prague: the date moves on too.
    ("hu", "Europe/Budapest", "2026. dec. 3., csütörtök 23:30 CET"),
    ("cs", "Europe/Prague", "čtvrtek 3. 12. 2026 23:30 SEČ"),
    ("pt", "Europe/Lisbon", "quinta-feira, 3/12/2026, 22:30 WET"),
    ("hu", "Asia/Tokyo", "2026. dec. 4., péntek 07:30 +0900"),
])
def test_dates_as_each_language_writes_them_in_the_readers_zone(code, zone, expected):
    assert Words(code, zone).when(AT) == expected


@pytest.mark.parametrize("code", ["en", *TRANSLATED])
def test_dates_name_the_weekday_in_full(code):
    """A one-letter weekday ("V" is Sunday in Hungarian, "ne" in Czech) is cryptic:
    every day of a week is written with its whole name, as the language has it."""
    from babel.dates import get_day_names

    names = get_day_names("wide", locale=BABEL_LOCALES[code])
    for day in range(7):
        at = AT + timedelta(days=day)
        written = Words(code).when(at)
        assert names[at.weekday()] in written, written


def test_a_unknown_zone_falls_back_to_utc():
    assert Words("en", "No/Where").when(AT) == "Thursday 3 Dec 2026, 22:30 UTC"


# -- what a native speaker stumbled on (issue 28), where a rule can be checked -------


def _strings(code):
    """Each translated entry's English and its translations (every plural form)."""
    for m in catalog(po(code), BABEL_LOCALES[code]):
        if m.id:
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            yield m.context, ids[0], m.string if isinstance(m.string, tuple) else (m.string,)


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_reply_keyword_a_mail_teaches_is_one_the_reader_takes(code):
    """A mail tells the reader to type the villages' order after a word: in their
    language, and one the reply reader understands ("sorrend", never "order", in Hungarian)."""
    from pbem.inbound.reading import read_reply
    from pbem.rules.effects import MoveEffect, VillageEffect
    from pbem.rules.move import Move
    from pbem.words import effect_phrase, order_keyword

    w = Words(code)
    keyword = order_keyword(w)
    assert keyword != "order" and read_reply(f"12-13 {keyword} 14 15").order == (14, 15)
    taught = [s for ctx, mid, strings in _strings(code) if "12-13 order 14 15" in mid for s in strings]
    assert taught and all(f"12-13 {keyword} 14 15" in s and not re.search(r"\border\b", s) for s in taught)
    village = [VillageEffect(n, t, "forest", 1, "favourable", (), 2, ("red",), 2) for n, t in ((1, 14), (2, 15))]
    line = effect_phrase(MoveEffect(Move(12, 13), 2, 0, tuple(village), None, None), 1, w)
    assert f"12-13 {keyword} 14 15" in line and not re.search(r"\border\b", line), line


def test_hungarian_never_calls_a_host_the_computer_player():
    """"gép" is the computer player in Hungarian: a server is a "kiszolgáló"."""
    hosts = {mid: strings for ctx, mid, strings in _strings("hu") if re.search(r"\bhost\b", mid)}
    assert hosts and all("gép" not in s for strings in hosts.values() for s in strings)
    assert Words("hu")._("host not found") == "a kiszolgáló nem található"


@pytest.mark.parametrize("code", TRANSLATED)
def test_cancelled_is_one_word_in_each_language(code):
    stems = {"hu": "leállít", "cs": "zruš", "pt": "cancel"}[code]
    cancelled = [s for ctx, mid, strings in _strings(code)
                 if re.search(r"\bcancelled\b", mid) and "to cancel" not in mid for s in strings]
    assert cancelled and all(stems in s.lower() for s in cancelled), cancelled


def test_czech_clans_are_masculine_like_klan():
    cs = Words("cs")
    assert [cs.clan(c) for c in ("red", "yellow", "green", "blue", "black")] == [
        "červený", "žlutý", "zelený", "modrý", "černý"]
    assert cs._("Your secret clan: %(clan)s", clan=cs.clan("blue")) == "Tvůj tajný klan: modrý"


def test_czech_history_is_in_the_past_with_the_name_standing_alone():
    assert Words("cs")._("%(name)s moved %(move)s", name="Petr", move="11 → 19") == "Petr: tah 11 → 19"


def test_czech_time_left_agrees_with_one_minute():
    """"máš ještě 1 minuta" is wrong (an accusative after "máš"): a time left stands
    where the nominative is right, for 1, 3 and 5 minutes alike."""
    cs = Words("cs")
    one = left_text(timedelta(minutes=1), cs)
    assert one == "1 minuta"
    assert cs._("%(left)s left for your move", left=one) == "Zbývající čas na tah: 1 minuta"
    for ctx, mid, strings in _strings("cs"):
        if "%(left)s" in mid:
            assert all(not re.search(r"\b(máš|mít)( ještě)? %\(left\)s", s) for s in strings), strings


def test_czech_names_never_follow_a_preposition():
    """Czech would decline a name after "za", "pro", "od"…: no program can, so a
    name stands alone ("Petr: …") or as a subject."""
    bad = [s for ctx, mid, strings in _strings("cs") for s in strings
           if re.search(r"\b(za|pro|od|k|ke|s|se|u|o|po|bez|osoby|hráče)\s+%\((name|other|names|winners|author|inviter)\)s", s)]
    assert bad == []


def test_czech_greetings_use_no_name():
    cs = Words("cs")
    assert cs._("Hello %(name)s,", name="Petr") == "Ahoj,"
    greetings = [s for ctx, mid, strings in _strings("cs") if mid.startswith("Hello %(name)s") for s in strings]
    # Never "Ahoj, Petr," (the nominative where the vocative belongs), in a greeting or anywhere.
    assert greetings and not [s for ctx, mid, strings in _strings("cs") for s in strings
                              if re.search(r"Ahoj, %\(|, %\(name\)s$|%\(name\)s, (pořád )?jsi", s)]


def test_czech_says_herni_mapa_as_the_rulebook_does():
    assert not [s for ctx, mid, strings in _strings("cs") for s in strings if re.search(r"\bplán", s)]


def test_portuguese_tells_the_winners_in_the_past():
    pt = Words("pt")
    assert pt.n_("%(winners)s wins!", "%(winners)s win!", 1, winners="Rita") == "Rita ganhou!"
    assert pt.n_("%(winners)s wins!", "%(winners)s win!", 2, winners="Rita e Anna") == "Rita e Anna ganharam!"
    told = [s for ctx, mid, strings in _strings("pt") if "%(winners)s win" in mid or mid == "%(name)s wins"
            for s in strings]
    assert told and not any(re.search(r"\bganham?\b", s) for s in told)
