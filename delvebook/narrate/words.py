"""The small words every teller uses: chances, counts, money, names in a list, the story an event makes.

Plain text only: every caller sets it with ``textContent`` or escapes it where it writes HTML.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Mapping, NamedTuple

from ..core.distribution import percent
from ..core.model import format_purse

__all__ = ["pct", "plural", "money", "fight_name", "names", "hearts", "duration", "story", "verdict", "Teller",
           "TELLERS", "UNTOLD", "tells", "said", "untold", "spaced", "skill_name", "paid", "rules_of"]


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
