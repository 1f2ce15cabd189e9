"""The small words every teller uses: chances, counts, money, names in a list, the story an event makes.

Plain text only: every caller sets it with ``textContent`` or escapes it where it writes HTML.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Mapping, NamedTuple

from ..core.declared import Rolled
from ..core.distribution import percent
from ..core.model import format_purse
from ..core.records import Damage, Healing
from ..core.roles import KEEPER

__all__ = ["pct", "plural", "money", "fight_name", "names", "hearts", "duration", "story", "verdict", "Teller",
           "TELLERS", "UNTOLD", "tells", "said", "untold", "spaced", "skill_name", "spell_name", "paid", "rules_of",
           "roll_title", "dealer"]


# ---------------------------------------------------------------- the story of an event

def story(text: str, lines: list | None = None, verdict: dict | None = None) -> dict:
    """What telling an event gives: one sentence, more lines, and a verdict ({"word", "good"}) or None."""
    return {"text": text, "lines": list(lines or ()), "verdict": verdict}


def verdict(word: str, good: bool | None) -> dict:
    return {"word": word, "good": good}


class Teller(NamedTuple):
    """How one kind of event is told, given the event read through its declaration (``declared.view``):
    ``tell(event, ctx, prefix, hidden) -> story``, and ``title(event, ctx)``, the action as a noun phrase (None: the
    kind in words)."""
    tell: Callable[..., dict]
    title: Callable[[Any, Any], str] | None
    ended: bool = False  # it says the conditions its event ended itself (else the one teller adds a line)


TELLERS: dict[type, Teller] = {}
"""Every kind of event told, by the class that declares it (``core.declared``): a new kind is told where it
registers here (``tells``), and a kind with no teller is found by a test."""

UNTOLD: dict[type, dict[str, str]] = {}
"""Fields of a declaration (an event's or a record's) that no telling says, each with why (``untold``). A test tells
every event of the bundled campaigns and of a walk through the rules and fails on a declared field that is neither
read by its teller nor said here."""


def tells(*classes: type, title: Callable[[Any, Any], str] | None = None, untold: Mapping[str, str] | None = None,
          ended: bool = False):
    """Register a teller for the events ``classes`` declare (and the title of such an action); ``untold``: its
    fields the teller does not say, with why; ``ended``: it says the conditions its event ended itself."""
    def register(fn: Callable[..., dict]) -> Callable[..., dict]:
        for cls in classes:
            if not isinstance(cls, type):
                raise TypeError(f"a teller is found by the event's class (its declaration), not {cls!r}")
            TELLERS[cls] = Teller(fn, title, ended)
            if untold:
                UNTOLD.setdefault(cls, {}).update(untold)
        return fn
    return register


def said(cls: type, text: Callable[[Any, Any], str], title: Callable[[Any, Any], str] | None = None,
         untold: Mapping[str, str] | None = None, ended: bool = False) -> None:
    """Register a kind told in one sentence, ``text(event, ctx)``, with no more lines and no verdict."""
    tells(cls, title=title, untold=untold, ended=ended)(lambda e, ctx, pre, hidden: story(text(e, ctx)))


def untold(cls: type, **why: str) -> None:
    """Say which fields of ``cls`` (a record many events hold: a damage entry) no telling says, and why."""
    UNTOLD.setdefault(cls, {}).update(why)


# ---------------------------------------------------------------- words

@lru_cache(maxsize=1024)  # a handful of distinct chances recur all session; parsing a Fraction is not free
def _percent(chance: str) -> str:
    return percent(Fraction(chance), 0)


def pct(chance: Any) -> str:
    """A chance as the table shows it: '72%' (never 0% for a possible outcome, never 100% for a miss)."""
    if chance in (None, ""):
        return ""
    return _percent(str(chance))


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def spaced(ident: Any) -> str:
    """An id in words: 'hold_the_line' reads 'hold the line'."""
    return str(ident).replace("_", " ")


def money(rules, talons: int) -> str:
    """Money as the table counts it: in crowns (the coin XP is counted in, ``core.xp.coin``), and what is left
    in smaller coins ('30C', '3C 5T'), not in bars or a pile of talons. Without rules: the text's coins."""
    if rules is None:
        return format_purse(talons)
    units = rules.core["currency"]["units"]
    coin = units.get(rules.core["xp"]["coin"])
    if not isinstance(coin, Mapping) or talons < 0:
        return format_purse(talons, units)
    n, rest = divmod(talons, coin["talons"])
    parts = [f"{n}{coin['symbol']}"] if n else []
    if rest:
        parts.append(format_purse(rest, units))
    return " ".join(parts) or f"0{coin['symbol']}"


def fight_name(name: Any, ctx: Any = None) -> str:
    """A fight's name as said: a prepared encounter's name where the fight was started from one that has a name
    (``ctx``: a campaign or a Reader), else its id in words ('causeway_ambush' reads 'Causeway ambush')."""
    state, rules = getattr(ctx, "state", None), rules_of(ctx)
    if state is not None and rules is not None and isinstance(name, str):
        from ..engine.queries import encounter
        found = encounter(state, rules, name)
        if found is not None and found.get("name"):
            return str(found["name"])
    name = str(name)
    return name.replace("_", " ").capitalize() if "_" in name or name.islower() else name


def names(items: Any) -> str:
    """Names in a sentence: 'A', 'A and B', 'A, B and C'."""
    items = [str(n) for n in items]
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def hearts(before: Any, after: Any) -> str:
    return f"({before} -> {after} hearts)"


def duration(secs: int) -> str:
    h, rest = divmod(int(secs), 3600)
    m, s = divmod(rest, 60)
    bits = [plural(h, "hour")] if h else []
    bits += [plural(m, "minute")] if m else []
    bits += [plural(s, "second")] if s and not h else []
    return " ".join(bits) or "no time"


_ROLLS = {"attack": "attack roll", "resist": "roll to resist", "bonus": "attack bonus roll", "damage": "damage roll",
          "counter_damage": "damage roll hitting back", "hearts": "hearts roll", "spell": "random spell roll",
          "true_name": "true name roll", "keep": "keep roll", "check": "check", "save": "save",
          "opposed": "opposed roll", "death_save": "death save", "dodge": "Dodge roll", "heal": "healing roll",
          "table": "roll on the table", "entry": "roll in the entry", "initiative_party": "initiative roll",
          "initiative_foes": "initiative roll", "roll": "roll"}
"""Each roll a command names, in the game's words (a roll named otherwise is said by why it was rolled)."""

_SAID_BY_WHY = frozenset({"check", "save", "roll"})
"""Rolls whose why says them best ('save against a falling block', 'check (stealth)')."""

_WHOSE = {None: "the keeper's", "keeper": "the keeper's", "party": "the party's", "foes": "the foes'"}


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def roll_title(name: str, rec: Rolled | Mapping | None = None) -> str:
    """One roll of an action as a noun phrase, whose and what, never its id: 'Bog goblin 2's damage roll hitting
    back (Spear)', "Mira's 2nd random spell roll" (``rec``: the roll's record, its ``who`` and ``why``; a mapping
    is read as a ``declared.Rolled``)."""
    if isinstance(rec, Mapping):
        rec = Rolled(rec)
    who, why = (rec.who, rec.why) if isinstance(rec, Rolled) else (None, None)
    why = why if isinstance(why, str) else None
    base, _, nth = str(name).partition("#")
    if base in _SAID_BY_WHY and why:  # 'check (stealth)' reads 'Stealth check'
        made = why.endswith(")") and why.split(" (", 1)
        words = f"{spaced(made[1][:-1]).capitalize()} {made[0]}" if made and made[0] in _SAID_BY_WHY else why
    elif base == "table" and why:  # 'Loot table' reads 'roll on the Loot table'
        words = f"roll on the {why}"
    else:
        words = _ROLLS.get(base) or why or f"{spaced(base)} roll"
    if nth.isdigit():
        words = f"{_ordinal(int(nth))} {words}"
    if base in _ROLLS and base not in _SAID_BY_WHY and why and why.endswith(")") and " (" in why:
        made_with = why.rsplit(" (", 1)[1][:-1]  # what it was made with: 'Spear' (a foe's own 'attack' says nothing)
        if made_with.lower() not in words.lower():
            words += f" ({made_with})"
    return f"{_WHOSE.get(who) or str(who) + chr(39) + 's'} {words}"


def dealer(entry: Damage | Healing | Mapping) -> str:
    """Who or what dealt a damage or healing entry, as the story credits it: what the keeper named for damage by
    hand ('a collapsing floor'), a hazard, or the combatant; 'the keeper' only where nothing was named (a mapping
    is read as a ``records.Damage``)."""
    if isinstance(entry, Mapping):
        entry = Damage(entry)
    by, source = entry.by, entry.source
    if by in (None, KEEPER):
        return str(source) if source not in (None, "", KEEPER) else "the keeper"
    return str(by)


# ---------------------------------------------------------------- what telling asks its context

def rules_of(ctx: Any):
    """The rules a teller names things by (a campaign's, a Reader's), or None."""
    return getattr(ctx, "rules", None)


def skill_name(ctx: Any, who: str | None, sid: str | None) -> str | None:
    """A skill by its name in the delver's class ('Stealth'); an id in words where the class is not at hand."""
    if not sid:
        return None
    rules = rules_of(ctx)
    d = getattr(ctx, "state", {}).get("delvers", {}).get(who) if who and rules is not None else None
    if d is not None:
        spec = rules.class_(d["class_id"])["skills"].get(sid)
        if spec is not None:
            return spec["name"]
    return spaced(sid).capitalize()


def spell_name(ctx: Any, sid: Any) -> str:
    """A spell by its name in the rules ('Magic Missile'); its id in words where the rules are not at hand or do not
    hold it (a namer's own spell is named by its id)."""
    rules = rules_of(ctx)
    spec = rules.spells.get(sid) if rules is not None and isinstance(sid, str) else None
    return str(spec["name"]) if spec is not None else spaced(sid)


def paid(ctx: Any, costs: Mapping | None) -> str:
    """What an ability or spell cost: '2 grit', '1C'."""
    if not costs:
        return ""
    rules = rules_of(ctx)
    units = dict(rules.core["currency"]["units"]) if rules is not None else {}
    out = []
    for res, n in costs.items():
        if res in units:
            out.append(money(rules, n * units[res]["talons"]))
            continue
        name = spaced(res)
        if n == 1 and name.endswith("s") and not name.endswith("ss"):
            name = name[:-1]
        out.append(f"{n} {name}")
    return ", ".join(out)
