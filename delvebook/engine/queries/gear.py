"""Gear in play: the armor that meets damage, ammunition and reloading, what a delver carries, and the coin that
earns XP.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple

from ...core.model import combatant
from ...core.rules import Rules, RulesError
from .. import effects
from ..base import Reader, data_items

__all__ = ["armor_in", "armor_value", "ammo_of", "reloads", "ammo_left", "free_reload", "attack_ready", "Reload", "reloadable", "Carried", "carried", "coin_talons"]


def armor_in(r: Reader, who: str, c: Mapping) -> tuple[int, list[int]]:
    """The armor that meets damage reaching ``who`` now: the AV of its intact pieces as worn (an Armorer's bonus
    included) and what conditions add (Hold the line), and the intact pieces' indexes (each loses DV on a hit)."""
    intact = []
    av = 0
    broken_at = r.core["armor"]["broken_at_dv"]
    for i, a in enumerate(c.get("armor", ())):
        if a["dv"] > broken_at:
            intact.append(i)
            av += a["av"] + a.get("bonus_av", 0)
    for bonus in effects.ARMOR_BONUSES.now(r.state):
        av += bonus(r, who)
    return av, intact


def armor_value(state: dict, rules: Rules, who: str) -> int | None:
    """The AV that applies to damage reaching ``who`` now (``armor_in``); None when no one is called that."""
    found = combatant(state, who)
    if found is None:
        return None
    return armor_in(Reader(state, rules), who, found[1])[0]


def ammo_of(rules: Rules, w: Mapping) -> str | None:
    """The ammunition a weapon shoots (``arrow``, ``bolt``), from the weapon or its gear entry; None if none."""
    if "ammo" in w:
        return w["ammo"]
    item = w.get("item")
    if item is None:  # a foe's own attack
        return None
    found = rules.gear.get(item)
    return found.get("ammo") if found is not None else None


def reloads(rules: Rules, w: Mapping) -> bool:
    """Whether reloading the weapon takes an action (a crossbow)."""
    if "reload_action" in w:
        return bool(w["reload_action"])
    item = w.get("item")
    if item is None:  # a foe's own attack
        return False
    found = rules.gear.get(item)
    return bool(found.get("reload_action")) if found is not None else False


def ammo_left(c: Mapping, ammo: str | None) -> int:
    """How many of ``ammo`` a delver carries."""
    if ammo is None:
        return 0
    return sum(int(it.get("count", 1)) for it in c.get("items", ()) if it.get("item") == ammo)


def free_reload(c: Mapping, w: Mapping) -> bool:
    """The Crossbows specialty: reloading is part of firing a weapon of its skill."""
    skill = c.get("free_reload")
    return bool(skill) and skill in (w.get("skill"), w.get("item"))


def attack_ready(state: dict, rules: Rules, who: str, w: Mapping, shots: int = 1) -> str | None:
    """Why ``who`` cannot shoot ``w`` ``shots`` times now (no arrows left, a crossbow not loaded or shooting more
    than once before a reload), or None. A foe's attack needs nothing."""
    found = combatant(state, who)
    if found is None or "class_id" not in found[1] or w.get("conjured"):
        return None
    c = found[1]
    if reloads(rules, w) and not free_reload(c, w):
        if not w.get("loaded", rules.core["ammunition"]["loaded_when_gained"]):
            return f"{who}'s {w['name']} is not loaded: reloading it takes an action (reload)"
        if shots > 1:
            return f"a {w['name']} shoots once before it must be reloaded (the Crossbows specialty reloads as it fires)"
    ammo = ammo_of(rules, w)
    if ammo is not None:
        need = shots * int(rules.core["ammunition"]["per_attack"])
        have = ammo_left(c, ammo)
        if have < need:
            gear = rules.gear
            name = gear[ammo]["name"].lower() if ammo in gear else ammo
            plural = name if name.endswith("s") else name + "s"
            if have == 0:
                return f"{who} has no {plural} left for the {w['name']}"
            return f"{who} has {have} {name if have == 1 else plural}; {shots} shots need {need}"
    return None


class Reload(NamedTuple):
    """A weapon of ``who``'s that reloading is for (a crossbow): its index among the delver's weapons (what
    ``reload`` takes), its name, whether it is loaded, and why it cannot be reloaded now (None when it can):
    ``overridable`` when that is a rule of play the keeper may waive (nothing to load it with)."""

    weapon: int
    name: str
    loaded: bool
    why: str | None
    overridable: bool = False


def reloadable(state: dict, rules: Rules, who: str) -> list[Reload]:
    """The weapons ``who`` carries that take an action to reload (a crossbow), each with why it cannot be
    reloaded now: already loaded, the Crossbows specialty reloads it as it fires, no bolts left. The reload
    command refuses by the same answers (the turn economy aside: ``turn_problem``)."""
    d = state["delvers"].get(who)
    if d is None:
        return []
    out = []
    for i, w in enumerate(d["weapons"]):
        if not reloads(rules, w):
            continue
        loaded = bool(w.get("loaded", rules.core["ammunition"]["loaded_when_gained"]))
        why, overridable = None, False
        if loaded:
            why = f"{who}'s {w['name']} is already loaded"
        elif free_reload(d, w):
            why = f"{who} reloads the {w['name']} as part of firing it (the Crossbows specialty)"
        else:
            ammo = ammo_of(rules, w)
            if ammo is not None and ammo_left(d, ammo) < 1:
                why, overridable = f"{who} has no {ammo}s left to load the {w['name']} with", True
        out.append(Reload(i, w["name"], loaded, why, overridable))
    return out


class Carried(NamedTuple):
    """Gear on a delver's sheet, as ``take`` and ``drop`` name it: where it is on the sheet (``weapons``,
    ``armor``, ``items``), its name (what ``take``/``drop`` take), how many, and a label ('Arrows x20')."""

    kind: str
    name: str
    count: int
    label: str


def carried(state: dict, rules: Rules, who: str) -> list[Carried]:
    """What ``who`` carries that can be taken or dropped: weapons, armor and items by name, with their counts
    (an empty quiver is left out)."""
    d = state["delvers"].get(who)
    if d is None:
        return []
    out = []
    for kind in ("weapons", "armor", "items"):
        counts: dict[str, int] = {}
        for e in d.get(kind, ()):
            counts[e["name"]] = counts.get(e["name"], 0) + (int(e.get("count", 1)) if kind == "items" else 1)
        out += [Carried(kind, name, n, f"{name} x{n}" if n > 1 else name) for name, n in counts.items() if n > 0]
    return out


class Priced(NamedTuple):
    """Gear the rules price, as ``buy`` takes it: its id, name, how many a purchase brings (a bundle: 20 arrows),
    its price in talons, and whether ``who`` can pay it now."""

    item: str
    name: str
    bundle: int
    talons: int
    affordable: bool


def priced(state: dict, rules: Rules, who: str) -> list[Priced]:
    """Every piece of gear with a price (the text prices ammunition and a few weapons), and whether ``who``'s purse
    pays for one now."""
    d = state["delvers"].get(who)
    purse = d["purse"] if d is not None else 0
    out = []
    for iid, item in rules.gear.items():
        talons = rules.price_talons(iid)
        if talons is not None:
            out.append(Priced(iid, item["name"], int(item.get("bundle", 1)), talons, talons <= purse))
    return out


def coin_talons(rules: Rules) -> int:
    """Talons in the coin that earns XP (``core.xp.coin``, a unit of the currency table); a RulesError names it
    when the currency table has no such unit."""
    coin = rules.core["xp"]["coin"]
    units = dict(data_items(rules.core["currency"]["units"]))
    if coin not in units:
        raise RulesError(f"core.xp.coin: {coin!r} is not a currency unit (units: {', '.join(units)})")
    return units[coin]["talons"]
