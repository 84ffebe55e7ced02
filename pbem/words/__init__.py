"""The words people read, for pages and mail alike: the history in sentences,
lists of names, why a game ended, times and time left, the board as text, the
mail settings.

Each function takes the reader's :class:`Words` (their language and time zone)
last; without one it speaks English in UTC.  The sentences are marked for
``pybabel extract`` (``w._``, ``w.n_``, ``w.p_``) and translated from
``pbem/translations``.  The rules package holds data only and never imports
this module.

May import: rules."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Sequence

from babel.dates import format_datetime, format_time, match_skeleton

from .language import DEFAULT_LANGUAGE, DEFAULT_TIME_ZONE, TAGS, locale, translations, zone
from ..rules.effects import MoveEffect, VillageEffect
from ..rules.errors import RulesError
from ..rules.move import Move
from ..rules.tables import CLANS, EPOCHS, TERRAINS
from ..rules.views import BaseView, VillageEntry


def N_(message: str) -> str:
    """Marks a sentence for the catalog where it is written, to be translated
    where it is read (``Words._``)."""
    return message


def n_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a sentence with a number (``%(num)d``) for the catalog, both its
    English forms, to be translated where it is read (``Words.n_``)."""
    return singular, plural


@dataclass(frozen=True)
class Words:
    """One reader's language and time zone.  Immutable and passed by hand, so a
    worker building one player's mail after another's never mixes them up."""

    language: str = DEFAULT_LANGUAGE
    time_zone: str = DEFAULT_TIME_ZONE

    @property
    def tag(self) -> str:
        """The IETF tag (``<html lang>``, ``Content-Language``)."""
        return TAGS[self.language]

    def _(self, message: str, **params: object) -> str:
        """``message`` in this language, its ``%(name)s`` placeholders filled.

        >>> Words()._("%(name)s moved %(move)s", name="Ann", move="1 → 2")
        'Ann moved 1 → 2'
        """
        text = translations(self.language).gettext(message)
        return text % params if params else text

    def n_(self, singular: str, plural: str, num: int, **params: object) -> str:
        """The form for ``num`` (Czech has three), with ``%(num)d`` filled in.

        >>> Words().n_("%(num)d day", "%(num)d days", 1), Words().n_("%(num)d day", "%(num)d days", 3)
        ('1 day', '3 days')
        """
        return translations(self.language).ngettext(singular, plural, num) % {"num": num, **params}

    def p_(self, context: str, message: str) -> str:
        """A word whose translation depends on what it names (``clan``, ``terrain``)."""
        return translations(self.language).pgettext(context, message)

    def clan(self, clan: str) -> str:
        """A clan's name (its colour): ``red``, ``piros``, ``červený``, ``vermelho``."""
        return self.p_("clan", clan) if clan in _CLANS else clan

    def terrain(self, terrain: str) -> str:
        return self.p_("terrain", terrain) if terrain in _TERRAINS else terrain

    def level(self, level: str) -> str:
        """A computer player's level: ``easy``, ``medium``, ``hard``."""
        return self.p_("computer level", level) if level in _LEVELS else level

    def when(self, at: datetime | None) -> str:
        """An absolute time in this reader's time zone, as their language writes it.

        The weekday is written in full: its abbreviations are a letter or two in
        some languages ("V", "ne"), which nobody reads at a glance.

        >>> Words().when(datetime(2026, 12, 3, 14, 0, tzinfo=timezone.utc))
        'Thursday 3 Dec 2026, 14:00 UTC'
        >>> Words("hu", "Europe/Budapest").when(datetime(2026, 12, 3, 14, 0, tzinfo=timezone.utc))
        '2026. dec. 3., csütörtök 15:00 CET'
        """
        if at is None:
            return ""
        if at.tzinfo is None:
            at = at.replace(tzinfo=timezone.utc)
        tz = zone(self.time_zone)
        where = locale(self.language)
        if self.language == DEFAULT_LANGUAGE:
            # British order, as the service always wrote it: "Thu 3 Dec 2026, 14:00 UTC".
            return format_datetime(at, "EEEE d MMM y, HH:mm z", tzinfo=tz, locale=where)
        day = format_datetime(at, _full_weekday(where.datetime_skeletons[match_skeleton("yMMMEd", where.datetime_skeletons)]),
                              tzinfo=tz, locale=where)
        hour = format_time(at, "HH:mm", tzinfo=tz, locale=where)
        both = str(where.datetime_formats["medium"]).format(hour, day)
        return f"{both} {format_datetime(at, 'z', tzinfo=tz, locale=where)}"


def _full_weekday(pattern: object) -> str:
    """A date pattern with its weekday written in full (``E`` → ``EEEE``), its
    quoted literals left alone.

    >>> _full_weekday("y. MMM d., E"), _full_weekday("EEE, d 'de' MMM")
    ('y. MMM d., EEEE', "EEEE, d 'de' MMM")
    """
    parts = str(pattern).split("'")
    return "'".join(re.sub(r"[Ec]+", "EEEE", p) if i % 2 == 0 else p for i, p in enumerate(parts))


def NP_(context: str, message: str) -> tuple[str, str]:
    """Marks a word with its context for the catalog (``Words.p_`` reads it)."""
    return context, message


ENGLISH = Words()
# Every clan and terrain by name, so that extraction finds them.
_CLANS = frozenset(m for _, m in (NP_("clan", "red"), NP_("clan", "yellow"), NP_("clan", "green"),
                                  NP_("clan", "blue"), NP_("clan", "black"))) & frozenset(CLANS)
_TERRAINS = frozenset(m for _, m in (NP_("terrain", "mountain"), NP_("terrain", "forest"),
                                     NP_("terrain", "steppe"), NP_("terrain", "grassland"))) & frozenset(TERRAINS)
#: The computer's levels, in the order a form offers them.
LEVELS = tuple(m for _, m in (NP_("computer level", "easy"), NP_("computer level", "medium"),
                              NP_("computer level", "hard")))
_LEVELS = frozenset(LEVELS)

# -- the game in sentences ----------------------------------------------------


def move_text(move: Move | str) -> str:
    """A move as people read it (the same in every language), from the rules'
    move or the record form of the views.

    >>> move_text("12-13"), move_text(Move(12, 13))
    ('12 → 13', '12 → 13')
    """
    return str(move).replace("-", " → ")


def describe_history(view: BaseView, w: Words = ENGLISH) -> list[str]:
    """The history in words, one line per move.

    >>> describe_history({"history": [{"ply": 1, "seat": 1, "player": "Bob", "move": "12-13", "villages": [1]}],
    ...     "villages": [{"number": 1, "territory": 20, "terrain": "forest", "epoch": 1,
    ...                   "points": 6, "clans": ["blue", "red"], "removed": {}}]})
    ['Bob moved 12 → 13; village on 20 (forest, epoch I): 6 points to blue, red']
    """
    by_number = {v["number"]: v for v in view.get("villages", [])}
    # From which move the computer played each seat it plays.
    players: list[dict[str, Any]] = view.get("players", [])  # type: ignore[assignment]
    computer = {p["seat"]: p.get("bot_from") for p in players if p.get("bot")}
    lines = []
    for h in view.get("history", []):
        name = h["player"]
        since = computer.get(h["seat"])
        if since is not None and h["ply"] > since:
            name = w._("%(name)s (computer)", name=name)
        text = w._("%(name)s moved %(move)s", name=name, move=move_text(h["move"]))
        for n in h.get("villages", []):
            text += "; " + describe_village(by_number[n], w)
        lines.append(text)
    return lines


def describe_village(v: VillageEntry, w: Words = ENGLISH) -> str:
    """One founded village: where, which epoch, who scored.

    >>> describe_village({"territory": 3, "terrain": "steppe", "epoch": 5, "points": 5,
    ...                   "clans": [], "removed": {"red": 1}})
    'village on 3 (steppe, epoch V): 5 points to nobody (strife removed red)'
    """
    roman = EPOCHS[v["epoch"] - 1].roman
    clans = [w.clan(c) for c in v["clans"]]
    if clans:
        text = w.n_("village on %(territory)s (%(terrain)s, epoch %(epoch)s): %(num)d point to %(clans)s",
                    "village on %(territory)s (%(terrain)s, epoch %(epoch)s): %(num)d points to %(clans)s",
                    v["points"], territory=v["territory"], terrain=w.terrain(v["terrain"]), epoch=roman,
                    clans=", ".join(clans))
    else:
        text = w.n_("village on %(territory)s (%(terrain)s, epoch %(epoch)s): %(num)d point to nobody",
                    "village on %(territory)s (%(terrain)s, epoch %(epoch)s): %(num)d points to nobody",
                    v["points"], territory=v["territory"], terrain=w.terrain(v["terrain"]), epoch=roman)
    if v.get("removed"):
        text += " " + w._("(strife removed %(clans)s)",
                          clans=", ".join(w.clan(c) for c in sorted(v["removed"])))
    return text


def village_line(v: VillageEntry, w: Words = ENGLISH) -> str:
    """A village in a list of them: ``#3: village on 20 (...)``."""
    return f"#{v['number']}: {describe_village(v, w)}"


def names_text(names: list[str], w: Words = ENGLISH) -> str:
    """Names as a sentence lists them.

    >>> names_text([]), names_text(["Ann"]), names_text(["Ann", "Bob"]), names_text(["Ann", "Bob", "Cid"])
    ('', 'Ann', 'Ann and Bob', 'Ann, Bob and Cid')
    """
    if len(names) <= 1:
        return "".join(names)
    return w._("%(names)s and %(last)s", names=", ".join(names[:-1]), last=names[-1])


_END_REASONS = {
    "twelfth-village": N_("the twelfth village was founded"),
    "no-legal-move": N_("no legal move was left"),
}


def end_text(end: str | None, w: Words = ENGLISH) -> str:
    """Why a game ended, to follow "The game ended because" (an unknown code is
    shown as it is).

    >>> end_text("no-legal-move"), end_text(None)
    ('no legal move was left', '')
    """
    if end is None:
        return ""
    return w._(_END_REASONS[end]) if end in _END_REASONS else end


def scores_text(clan_scores: dict[str, int], w: Words = ENGLISH) -> str:
    """The clans' scores in a line: ``red 12, blue 4``."""
    return ", ".join(f"{w.clan(c)} {s}" for c, s in clan_scores.items())


def _huts_of(count: int, clan: str, w: Words) -> str:
    """``2 red``: a clan's huts on a territory.  Its own sentence, so that a
    language whose colour would have to agree with "huts" can write ``piros: 2``."""
    # Translators: the number of a clan's huts on a territory, e.g. "2 red"; the
    # clan is its colour's name alone (agreement-free forms such as "red: 2" are fine).
    return w._("%(count)d %(clan)s", count=count, clan=w.clan(clan))


def board_text(view: BaseView, width: int = 72, w: Words = ENGLISH) -> list[str]:
    """The occupied territories that are not villages, compactly and wrapped
    between territories: ``12 (2 red, 1 blue); 13 (1 green); ...``.

    >>> board_text({"huts": {"13": {"green": 1}, "12": {"red": 2, "blue": 1}, "20": {"red": 1}},
    ...             "villages": [{"territory": 20}]})
    ['12 (2 red, 1 blue); 13 (1 green)']
    """
    villages = {v["territory"] for v in view.get("villages", [])}
    entries = [
        f"{tid} (" + ", ".join(_huts_of(n, clan, w) for clan, n in huts.items() if n) + ")"
        for tid, huts in sorted(((int(k), v) for k, v in view.get("huts", {}).items()))
        if tid not in villages
    ]
    lines: list[str] = []
    for i, entry in enumerate(entries):
        piece = entry + (";" if i < len(entries) - 1 else "")
        if lines and len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += " " + piece
        else:
            lines.append(piece)
    return lines


def epoch_terrain_text(epoch: int, w: Words = ENGLISH) -> str:
    """This epoch's terrains: which is favourable (and its bonus), which hostile.

    >>> epoch_terrain_text(2)
    'Epoch II: mountain is favourable (+2 a village), grassland is hostile (a village there scores 0).'
    >>> epoch_terrain_text(5)
    'Epoch V: every terrain is favourable (+5 a village).'
    """
    e = EPOCHS[min(max(epoch, 1), len(EPOCHS)) - 1]
    if not e.hostile:
        return w._("Epoch %(epoch)s: every terrain is favourable (+%(bonus)d a village).", epoch=e.roman,
                   bonus=e.bonus)
    return w._("Epoch %(epoch)s: %(favourable)s is favourable (+%(bonus)d a village), %(hostile)s is hostile "
               "(a village there scores 0).", epoch=e.roman, bonus=e.bonus,
               favourable=names_text([w.terrain(t) for t in e.favourable], w),
               hostile=names_text([w.terrain(t) for t in e.hostile], w))


def _standing_text(v: VillageEffect, epoch: int, w: Words) -> str:
    terrain = w.terrain(v.terrain)
    if v.standing == "neutral":
        return terrain
    roman = EPOCHS[v.epoch - 1].roman
    if v.standing == "favourable":
        if v.epoch == epoch:
            return w._("%(terrain)s, favourable now", terrain=terrain)
        return w._("%(terrain)s, favourable in epoch %(epoch)s", terrain=terrain, epoch=roman)
    if v.epoch == epoch:
        return w._("%(terrain)s, hostile now", terrain=terrain)
    return w._("%(terrain)s, hostile in epoch %(epoch)s", terrain=terrain, epoch=roman)


def effect_text(effect: MoveEffect, epoch: int, w: Words = ENGLISH) -> str:
    """What a move would do, in a line: ``12 → 13: joins 2 huts`` or ``12 → 13: founds
    a village on 13 (forest, favourable now): 6 points for red, blue``.  ``epoch``
    is the current one (a village of the next epoch says which).  Only what the
    reader's view shows: the colours on the board, never whose clan is whose.

    >>> from pbem.rules.effects import MoveEffect, VillageEffect
    >>> from pbem.rules.move import Move
    >>> village = VillageEffect(4, 13, "forest", 1, "favourable", ("green",), 5, ("red", "blue"), 6)
    >>> effect_text(MoveEffect(Move(12, 13), 3, 3, (village,), 2, None), 1)
    '12 → 13: founds a village on 13 (forest, favourable now): 6 points for red, blue; strife removes green; epoch II begins'
    >>> effect_text(MoveEffect(Move(12, 14), 3, 1, (), None, None), 1)
    '12 → 14: joins 1 hut'
    """
    return f"{move_text(str(effect.move))}: {effect_phrase(effect, epoch, w)}"


def effect_phrase(effect: MoveEffect, epoch: int, w: Words = ENGLISH) -> str:
    """:func:`effect_text` without the move."""
    parts = []
    if all(v.territory != effect.move.target for v in effect.villages):
        parts.append(w.n_("joins %(num)d hut", "joins %(num)d huts", effect.joins))
    for v in effect.villages:
        where = _standing_text(v, epoch, w)
        if v.clans:
            parts.append(w.n_("founds a village on %(territory)s (%(where)s): %(num)d point for %(clans)s",
                              "founds a village on %(territory)s (%(where)s): %(num)d points for %(clans)s",
                              v.points, territory=v.territory, where=where,
                              clans=", ".join(w.clan(c) for c in v.clans)))
        else:
            parts.append(w._("founds a village on %(territory)s (%(where)s): nobody scores",
                             territory=v.territory, where=where))
        if v.strife:
            parts.append(w._("strife removes %(clans)s", clans=", ".join(w.clan(c) for c in v.strife)))
    if len(effect.villages) > 1:
        # The example is typed in a reply: its keyword is the reader's own (order_keyword).
        example = f"{effect.move} {order_keyword(w)} " + " ".join(str(v.territory) for v in effect.villages)
        parts.append(w._("you choose their order, e.g. %(example)s", example=example))
    if effect.new_epoch is not None:
        parts.append(w._("epoch %(epoch)s begins", epoch=EPOCHS[effect.new_epoch - 1].roman))
    if effect.end is not None:
        parts.append(w._("ends the game"))
    return "; ".join(parts)


def move_groups(effects: Sequence[MoveEffect], epoch: int, w: Words = ENGLISH) -> list[dict[str, Any]]:
    """The legal moves grouped by the territory they leave: for each, a heading
    (``From 12 (3 huts):``) and its lines, moves that would do the same put
    together (``12 → 13, 19: joins 1 hut``), each line with its moves.

    >>> from pbem.rules.effects import MoveEffect
    >>> from pbem.rules.move import Move
    >>> [g["lines"] for g in move_groups([MoveEffect(Move(12, t), 3, n, (), None, None)
    ...                                   for t, n in ((13, 1), (14, 2), (19, 1))], 1)]
    [[{'moves': ['12-13', '12-19'], 'text': '12 → 13, 19: joins 1 hut'}, {'moves': ['12-14'], 'text': '12 → 14: joins 2 huts'}]]
    """
    groups: list[dict[str, Any]] = []
    for effect in effects:
        source = effect.move.source
        if not groups or groups[-1]["source"] != source:
            groups.append({"source": source,
                           "heading": w.n_("From %(territory)s (%(num)d hut):", "From %(territory)s (%(num)d huts):",
                                           effect.moved, territory=source),
                           "same": {}})
        groups[-1]["same"].setdefault(effect_phrase(effect, epoch, w), []).append(effect.move)
    for g in groups:
        g["lines"] = [{"moves": [str(m) for m in moves],
                       "text": f"{g['source']} → {', '.join(str(m.target) for m in moves)}: {phrase}"}
                      for phrase, moves in g.pop("same").items()]
    return groups


def only_joins(effect: MoveEffect) -> bool:
    """Whether a move only joins other huts: no village, no new epoch, no end."""
    return not effect.villages and effect.new_epoch is None and effect.end is None


def joins_text(effects: Sequence[MoveEffect]) -> str:
    """The moves that only join other huts, in one paragraph by the territory
    they leave: at the start of a game that is every move, and a line each
    would fill a phone's screen many times over.  How many huts each joins,
    the board shows.

    >>> from pbem.rules.effects import MoveEffect
    >>> from pbem.rules.move import Move
    >>> joins_text([MoveEffect(Move(s, t), 1, 1, (), None, None) for s, t in ((1, 2), (1, 10), (2, 3))])
    '1 → 2, 10; 2 → 3'
    """
    by_source: dict[int, list[int]] = {}
    for effect in effects:
        by_source.setdefault(effect.move.source, []).append(effect.move.target)
    return "; ".join(f"{source} → {', '.join(map(str, targets))}" for source, targets in by_source.items())


# -- times ----------------------------------------------------------------------


def when_text(when: datetime | None, w: Words = ENGLISH) -> str:
    """A time as people read it, in the reader's time zone (UTC by default).

    >>> when_text(datetime(2026, 12, 3, 14, 0, tzinfo=timezone.utc))
    'Thursday 3 Dec 2026, 14:00 UTC'
    >>> when_text(None)
    ''
    """
    return w.when(when)


def left_text(delta: timedelta, w: Words = ENGLISH) -> str:
    """A time left, roughly: ``3 days``, ``23 hours``, ``40 minutes``.

    >>> left_text(timedelta(days=3)), left_text(timedelta(hours=23)), left_text(timedelta(seconds=5))
    ('3 days', '23 hours', '1 minute')
    """
    seconds = max(0, int(delta.total_seconds()))
    if seconds >= 2 * 86400:
        return w.n_("%(num)d day", "%(num)d days", round(seconds / 86400))
    if seconds >= 2 * 3600:
        return w.n_("%(num)d hour", "%(num)d hours", round(seconds / 3600))
    return w.n_("%(num)d minute", "%(num)d minutes", max(1, round(seconds / 60)))


# -- replies ----------------------------------------------------------------------


def order_keyword(w: Words = ENGLISH) -> str:
    """The word a reply writes before the villages' order (``12-13 order 14 15``),
    in the reader's language: one that the reply reader takes
    (``pbem.inbound.reading``), so a mail never teaches a foreign keyword.

    >>> order_keyword(), order_keyword(Words("hu"))
    ('order', 'sorrend')
    """
    # Translators: typed in a reply between a move and its villages' order ("12-13 order 14 15").
    # Only hu "sorrend", cs "pořadí" and pt "ordem" are understood: use that word.
    return w.p_("reply keyword", "order")


def then_keyword(w: Words = ENGLISH) -> str:
    """The word a reply writes before its pre-moves (``then 12-13, 4-5``), in the
    reader's language: one that the reply reader takes (``pbem.inbound.reading``).

    >>> then_keyword(), then_keyword(Words("pt"))
    ('then', 'depois')
    """
    # Translators: typed at the start of a reply before pre-moves ("then 12-13, 4-5").
    # Only hu "aztán"/"majd", cs "pak"/"potom" and pt "depois"/"então" are understood: use one of them.
    return w.p_("reply keyword", "then")


# -- settings and messages ----------------------------------------------------

_MAIL_LABELS = {
    "every": N_("An email every time it is my turn"),
    "digest": N_("One daily digest"),
    "none": N_("No turn emails (I will check the page)"),
}


def mail_labels(w: Words = ENGLISH) -> dict[str, str]:
    """The turn-mail choices, each with its label, in the order they are offered."""
    return {k: w._(v) for k, v in _MAIL_LABELS.items()}


# The keys are pbem.drawing.style.BOARD_STYLES (words may not import drawing).
_BOARD_STYLE_LABELS = {
    "standard": N_("Standard"),
    "contrast": N_("High contrast, with terrain patterns"),
}


def board_style_labels(w: Words = ENGLISH) -> dict[str, str]:
    """The board styles a player may choose, each with its label."""
    return {k: w._(v) for k, v in _BOARD_STYLE_LABELS.items()}


def sentence(message: str) -> str:
    """A message as a sentence.

    >>> sentence("the game is over"), sentence("done!"), sentence("  ")
    ('The game is over.', 'Done!', '')
    """
    message = str(message).strip()
    if not message:
        return message
    message = message[0].upper() + message[1:]
    return message if message.endswith((".", "!", "?")) else message + "."


# -- errors ---------------------------------------------------------------------

#: What each rules refusal says (``record.md``'s codes), with the facts the rules
#: error carries (``RulesError.params`` and its ``move``): in English exactly the
#: rules' own message.
_REFUSALS: dict[str, str | tuple[str, str]] = {
    "game-over": N_("%(move)s: the game is over (%(end)s)"),
    "malformed-move": N_("%(shown)s is not a move: expected FROM-TO, e.g. 12-13"),
    "unknown-territory": N_("%(move)s: there is no territory %(territory)s on this board"),
    "empty-source": N_("%(move)s: territory %(territory)s has no huts to move at ply %(ply)d"),
    "not-adjacent": N_("%(move)s: territory %(target)s does not border %(source)s"),
    "empty-target": N_("%(move)s: territory %(territory)s is empty at ply %(ply)d; huts may only join huts"),
    "immovable-group": n_("%(move)s: %(num)d hut on %(source)s may only move into a group at least as big, "
                          "and %(target)s has %(target_huts)d",
                          "%(move)s: %(num)d huts on %(source)s may only move into a group at least as big, "
                          "and %(target)s has %(target_huts)d"),
}
_BAD_ORDER_TYPE = N_("%(move)s: order must be a list of territory ids, not %(given)s")
_BAD_ORDER = N_("%(move)s: the order must list exactly the villages this move founds (%(villages)s), "
                "not %(order)s")
_BAD_ORDER_NONE = N_("%(move)s: the order must list exactly the villages this move founds (none), "
                     "not %(order)s")


def refusal_text(error: RulesError, w: Words = ENGLISH) -> str:
    """Why the rules refused a move, in the reader's language (not yet a
    sentence: :func:`error_text` makes it one).  An unknown code, or an error
    without the facts its sentence needs, is told in the rules' English.

    >>> from pbem.rules.errors import NotAdjacent
    >>> refusal_text(NotAdjacent("12-30: territory 30 does not border 12", move="12-30", source=12, target=30))
    '12-30: territory 30 does not border 12'
    >>> refusal_text(NotAdjacent("no such border"))
    'no such border'
    """
    params: dict[str, Any] = {**error.params, "move": error.move}
    template: str | tuple[str, str] | None = _REFUSALS.get(error.code)
    if error.code == "bad-order":
        if "given" in params:
            template = _BAD_ORDER_TYPE
        elif "founded" in params:
            template = _BAD_ORDER if params["founded"] else _BAD_ORDER_NONE
            params["villages"] = ", ".join(map(str, params["founded"]))
    elif error.code == "immovable-group" and "huts" in params:
        params["num"] = params["huts"]
    return _worded(template, params, w, error.message)


def error_text(error: BaseException, w: Words = ENGLISH) -> str:
    """An error as a sentence in the reader's language, the way pages show it:
    a service error's template and parameters (which may be errors themselves,
    a player's bad name), a refused move (:func:`refusal_text`), else the
    error's English message.

    >>> from pbem.core.errors import Invalid
    >>> error_text(Invalid("turn time must be 1 to %(max)d hours", max=720))
    'Turn time must be 1 to 720 hours.'
    """
    return sentence(_error_words(error, w))


def _error_words(error: object, w: Words) -> str:
    rules = error if isinstance(error, RulesError) else getattr(error, "error", None)
    if isinstance(rules, RulesError):
        return refusal_text(rules, w)
    params = {name: _error_words(value, w) if isinstance(value, BaseException) else value
              for name, value in (getattr(error, "params", None) or {}).items()}
    return _worded(getattr(error, "template", None), params, w, str(getattr(error, "message", error)))


def _worded(template: str | tuple[str, str] | None, params: dict[str, Any], w: Words, english: str) -> str:
    """``template`` translated and filled in; ``english`` when there is none or
    its parameters do not fit (a page never fails for want of a word)."""
    if not template:
        return english
    try:
        if isinstance(template, tuple):
            num = params.pop("num")
            return w.n_(template[0], template[1], num, **params)
        return w._(template, **params)
    except (KeyError, TypeError, ValueError):
        return english
