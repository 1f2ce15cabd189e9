"""Spells written down: a scroll or a book a delver carries (an item holding ``spells``), a spell that is no spell
of the rules (a namer's signature spell, written "as a mage spell onto a scroll or spell book": its words travel
with it, ``written``), and what a delver may copy, trace or read from them.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple

from ...core.model import combatant
from ...core.rules import Rules
from ..base import data_items

__all__ = ["SCROLL", "spell_spec", "Writing", "writings", "copyable", "traceable", "scrolls_of"]

SCROLL = "scroll"
"""The gear id of a scroll: a spell written on it is destroyed when a mage copies it (Continued Research) or reads
it (casting it from the scroll)."""


def spell_spec(rules: Rules, spell: str, *holders: Mapping) -> Mapping | None:
    """A spell's data: the rules' own, else the words written with it on a holder (a delver's ``written_spells``,
    an item's ``written``, a condition's ``written``); None when nothing knows it."""
    found = rules.spells.get(spell)
    if found is not None:
        return found
    for h in holders:
        for key in ("written_spells", "written"):
            w = (h.get(key) or {}).get(spell) if isinstance(h, Mapping) else None
            if w is not None:
                return w
    return None


class Writing(NamedTuple):
    """A spell written in something a delver carries: the spell, its name, the item (its index in ``items`` and
    name), whether the item is a scroll (destroyed when copied or read) or a book, and the spell's data."""

    spell: str
    name: str
    item: int
    item_name: str
    scroll: bool
    spec: Mapping


def writings(state: Mapping, rules: Rules, who: str) -> list[Writing]:
    """Every spell written in the books and scrolls ``who`` carries, in the order carried."""
    found = combatant(state, who)
    if found is None or "class_id" not in found[1]:
        return []
    out = []
    for i, it in enumerate(found[1].get("items", ())):
        if it.get("count", 1) < 1:
            continue
        for sid in it.get("spells", ()):
            spec = spell_spec(rules, sid, it)
            if spec is not None:
                out.append(Writing(sid, spec["name"], i, it["name"], it.get("item") == SCROLL, spec))
    return out


def copyable(state: Mapping, rules: Rules, who: str) -> list[Writing]:
    """What Continued Research may copy into ``who``'s book now: each spell not in it yet, from a book carried if
    one holds it (a book is not destroyed), else from a scroll (which is)."""
    d = state["delvers"].get(who)
    if d is None:
        return []
    best: dict[str, Writing] = {}
    for w in writings(state, rules, who):
        if w.spell in d["spells"]:
            continue
        if w.spell not in best or (best[w.spell].scroll and not w.scroll):
            best[w.spell] = w
    return list(best.values())


def traceable(state: Mapping, rules: Rules, who: str, sources: tuple) -> list[tuple[str, str]]:
    """(spell id, label) of what Blood Magic may trace on the sword: the spell lists it names (``spells_from``:
    the mage spell list), and each spell in a book or a scroll carried (``spellbook``, ``scroll``)."""
    out: dict[str, str] = {}
    for src in sources:
        if src in rules.spell_lists:
            for sid, s in data_items(rules.spell_lists[src]["spells"]):
                out.setdefault(sid, s["name"])
    for w in writings(state, rules, who):
        if (SCROLL if w.scroll else "spellbook") in sources:
            out.setdefault(w.spell, f"{w.name} (from the {w.item_name})")
    return list(out.items())


def scrolls_of(state: Mapping, rules: Rules, who: str) -> list[Writing]:
    """The spells on scrolls ``who`` carries (a mage may read one: the scroll is used up)."""
    return [w for w in writings(state, rules, who) if w.scroll]
