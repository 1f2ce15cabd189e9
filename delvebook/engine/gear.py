"""Gear in play: what a delver carries, found and lost (``give``, ``take``, ``drop``), armor fitted to its wearer,
ammunition spent by shots, and crossbows reloaded.

How delvebook reads the text where it is silent (``core.ammunition``):
- Each attack D20 of a shot spends one arrow or bolt (a volley of two spends two); a shot with none left is
  refused. A counter-attack with a bow or crossbow spends one too.
- A crossbow comes loaded; a shot empties it and reloading takes an action (``reload``), unless the Crossbows
  specialty reloads it as part of firing. A crossbow that must be reloaded shoots once an action.
- A thrown weapon (``attack(..., thrown=True)``) is not ammunition: whether it is lost is the keeper's call
  (``drop`` it from the sheet if it is).
- Armor is fitted to whoever wears it: the Armorer's +1 AV and +5 DV go on every worn piece however it was
  gained (starting gear, bought, given, handed over) and come off when the piece leaves the wearer.

Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..core.declared import Action, field
from ..core.dice import DiceError, parse
from ..core.events import clone
from ..core.model import is_dead
from .base import Ctx, command
from .queries import ammo_left, ammo_of, free_reload, reloadable, reloads
from . import turns

__all__ = ["items_to_gear", "add_to_sheet", "fit_armor", "refit_armor", "spend_ammo", "fired", "give", "take", "drop", "reload",
           "INSTRUMENT_WORDS", "is_instrument", "Reload", "Give", "Take", "Drop"]

INSTRUMENT_WORDS = ("instrument", "lute", "flute", "fiddle", "harp", "drum", "horn", "pipes", "lyre", "bagpipes")
"""Words in an item's name that make it an instrument to play Bard Magic on (an item may also say
``instrument: true``)."""


def is_instrument(item: Mapping) -> bool:
    """An instrument to play Bard Magic on: what the item says (``instrument: true`` or false), else its tags or a
    word in its name."""
    if "instrument" in item:
        return bool(item["instrument"])
    if "instrument" in item.get("tags", ()):
        return True
    words = f"{item.get('item', '')} {item.get('name', '')}".lower()
    return any(k in words for k in INSTRUMENT_WORDS)


# ---------------------------------------------------------------- sheets

def _weapon(ctx: Ctx, item_id: str | None, item: Mapping) -> dict:
    w = {"item": item_id, "name": item["name"], "damage": str(item["damage"]), "skill": item.get("skill"),
         "ranged": bool(item.get("ranged")), "bonus": int(item.get("bonus") or 0)}
    if item.get("ammo"):
        w["ammo"] = item["ammo"]
    if item.get("reload_action"):
        w["reload_action"] = True
        w["loaded"] = bool(item.get("loaded", ctx.core["ammunition"]["loaded_when_gained"]))
    if item.get("attack_bonus") not in (None, 0, "0", ""):
        w["attack_bonus"] = str(item["attack_bonus"])
    if item.get("tags"):
        w["tags"] = list(item["tags"])
    return w


def _armor(item_id: str | None, item: Mapping) -> dict:
    return {"item": item_id, "name": item["name"], "av": int(item["av"]), "dv": int(item["dv"]),
            "dv_max": int(item["dv"]), "shield": item.get("kind") == "shield", "bonus_av": 0}


def items_to_gear(ctx: Ctx, items) -> tuple[list, list, list]:
    """Gear entries ({item, count}) as (weapons, armor, other items), the way a delver's sheet holds them."""
    weapons, armor, other = [], [], []
    tables = ctx.rules.gear_tables
    for entry in items:
        item_id, count = entry["item"], entry["count"]
        item = ctx.rules.item(item_id)
        if "armor" in tables and item_id in tables["armor"]:
            armor += [_armor(item_id, item) for _ in range(count)]
        elif "damage" in item:
            weapons += [_weapon(ctx, item_id, item) for _ in range(count)]
        else:
            other.append({"item": item_id, "name": item["name"], "count": count,
                          **({"instrument": bool(item["instrument"])} if "instrument" in item else {})})
    return weapons, armor, other


def fit_armor(d: Mapping, piece: dict) -> dict:
    """``piece`` as ``d`` wears it: its specialty's armor bonus (the Armorer's +1 AV, +5 DV on worn armor, not
    shields) on, or off when ``d`` has none; the hits it has taken stay taken. Returns the piece (changed)."""
    bonus = d.get("armor_bonus") if d is not None else None
    applies = bool(bonus) and not (piece.get("shield") and bonus.get("excludes", "shields") == "shields")
    want_av, want_dv = (int(bonus["av"]), int(bonus["dv"])) if applies else (0, 0)
    # a piece fitted before bonus_dv was recorded carries the bonus's DV if it carries its AV
    had_dv = piece.get("bonus_dv", (int(bonus["dv"]) if bonus and piece.get("bonus_av") else 0))
    delta = want_dv - had_dv
    piece["dv_max"] = piece["dv_max"] + delta
    piece["dv"] = max(0, min(piece["dv_max"], piece["dv"] + delta))
    piece["bonus_av"] = want_av
    piece["bonus_dv"] = want_dv
    return piece


def refit_armor(d: dict) -> None:
    """Fit every piece ``d`` wears (a delver dict being changed: a specialty chosen)."""
    for piece in d.get("armor", ()):
        fit_armor(d, piece)


def add_to_sheet(delver: dict, weapons: list, armor: list, other: list) -> None:
    delver["weapons"] += weapons
    delver["armor"] += [fit_armor(delver, a) for a in armor]
    for it in other:
        same = next((x for x in delver["items"] if x.get("item") == it.get("item") and it.get("item") is not None
                     and x.get("name") == it.get("name") and x.get("spells") == it.get("spells")
                     and x.get("written") == it.get("written")), None)
        if same is not None and "count" in same:
            same["count"] = int(same.get("count", 1)) + int(it.get("count", 1))
        else:
            delver["items"].append(it)


# ---------------------------------------------------------------- ammunition and reloading

def spend_ammo(ctx: Ctx, who: str, w: Mapping, shots: int) -> dict | None:
    """Spend the arrows or bolts ``shots`` of ``w`` need (what the rules' per_attack says); what to record."""
    d = ctx.state["delvers"].get(who)
    if d is None:  # a foe shoots nothing it carries
        return None
    ammo = ammo_of(ctx.rules, w)
    if ammo is None or w.get("conjured"):
        return None
    need = shots * int(ctx.core["ammunition"]["per_attack"])
    left = need
    for i, it in enumerate(d["items"]):
        if left == 0:
            break
        if it.get("item") == ammo and it.get("count", 0) > 0:
            take_n = min(left, it["count"])
            ctx.set(["delvers", who, "items", i, "count"], it["count"] - take_n)
            left -= take_n
    return {"item": ammo, "spent": need - left, "left": ammo_left(ctx.state["delvers"][who], ammo)}


def fired(ctx: Ctx, who: str, w: Mapping) -> None:
    """A crossbow that must be reloaded is empty once it has shot."""
    d = ctx.state["delvers"].get(who)
    if d is None or not reloads(ctx.rules, w) or free_reload(d, w):
        return
    for i, x in enumerate(d["weapons"]):
        if x is w:
            ctx.set(["delvers", who, "weapons", i, "loaded"], False)
            return


class Reload(Action, kind="reload", actor="who"):
    """A crossbow reloaded."""

    who: str
    weapon: str
    loaded: bool


@command(Reload)
def reload(ctx: Ctx, who: str, weapon: Any = None) -> None:
    """Reload a crossbow (it takes an action: 'Crossbows require an action to reload')."""
    d = ctx.delver(who)
    ctx.require_able(who, "reload")
    found = [o for o in reloadable(ctx.state, ctx.rules, who)
             if weapon in (None, "") or weapon in (o.weapon, d["weapons"][o.weapon].get("item"), o.name)
             or str(weapon).lower() == o.name.lower()]
    if not found:
        ctx.refuse(f"{who} carries nothing that needs reloading" + (f" called {weapon!r}" if weapon else ""))
    empty = [o for o in found if not o.loaded]
    if not empty:
        ctx.refuse(found[0].why)
    o = empty[0]
    i, w = o.weapon, d["weapons"][o.weapon]
    if o.why is not None:
        if o.overridable:
            ctx.refuse_unless_overridden(o.why)
        else:
            ctx.refuse(o.why)
    turns.take(ctx, who, ctx.core["ammunition"]["reload_uses"], f"reloading the {w['name']}")
    ctx.set(["delvers", who, "weapons", i, "loaded"], True)
    ctx.out(who=who, weapon=w["name"], loaded=True)


# ---------------------------------------------------------------- found gear

_WEAPON_KEYS = {"name", "damage", "bonus", "attack_bonus", "skill", "ranged", "ammo", "reload_action", "loaded",
                "tags"}
_ARMOR_KEYS = {"name", "av", "dv", "kind", "tags"}
_ITEM_KEYS = {"name", "instrument", "tags", "note", "spells"}


def _check_details(ctx: Ctx, details: Mapping, allowed: set, what: str) -> None:
    unknown = sorted(k for k in details if k not in allowed)
    if unknown:
        ctx.refuse(f"{what} takes no {', '.join(map(repr, unknown))} (it takes: {', '.join(sorted(allowed))})")
    if "name" in details and not (isinstance(details["name"], str) and details["name"].strip()):
        ctx.refuse("a found item needs a name")
    for key in ("damage", "attack_bonus"):
        if key in details and details[key] is not None:
            try:
                parse(str(details[key]))
            except DiceError as err:
                ctx.refuse(f"{key}: {err}")
    for key in ("bonus",):
        if key in details and not (isinstance(details[key], int) and not isinstance(details[key], bool)):
            ctx.refuse(f"a weapon's flat bonus is a whole number (bonus=1 for a +1 sword), not {details[key]!r}")
    for key in ("av", "dv"):
        if key in details and not (isinstance(details[key], int) and not isinstance(details[key], bool)
                                   and details[key] >= 0):
            ctx.refuse(f"armor's {key.upper()} is a whole number of 0 or more, not {details[key]!r}")
    if "kind" in details and details["kind"] not in ("worn", "shield"):
        ctx.refuse(f"armor is worn or a shield, not {details['kind']!r}")
    if "tags" in details and not (isinstance(details["tags"], (list, tuple))
                                  and all(isinstance(t, str) for t in details["tags"])):
        ctx.refuse(f"tags are a list of words, not {details['tags']!r}")
    if "spells" in details:
        spells = details["spells"]
        if not (isinstance(spells, (list, tuple)) and spells and all(isinstance(s, str) for s in spells)):
            ctx.refuse(f"spells written in a book or a scroll are a list of spell ids (spells=['firebolt']), "
                       f"not {spells!r}")
        unknown = [s for s in spells if s not in ctx.rules.spells]
        if unknown:
            ctx.refuse(f"there is no spell {unknown[0]!r} in the rules (known: {', '.join(ctx.rules.spells)})")
    if "ammo" in details and details["ammo"] is not None and details["ammo"] not in ctx.rules.gear:
        ctx.refuse(f"there is no ammunition {details['ammo']!r} in the gear list")
    for key in ("ranged", "reload_action", "loaded", "instrument"):
        if key in details and not isinstance(details[key], bool):
            ctx.refuse(f"{key} is true or false, not {details[key]!r}")


def _found(ctx: Ctx, item: Any, count: int, details: Mapping) -> tuple[list, list, list, str]:
    """The gear ``item`` (a gear id, with any details changed; or a mapping describing it) as sheet entries."""
    if isinstance(item, Mapping):
        spec = dict(item)
        spec.update(details)
        item_id = spec.pop("item", None)
        base: dict = dict(ctx.rules.item(item_id)) if item_id in ctx.rules.gear else {}
        if item_id is not None and item_id not in ctx.rules.gear:
            ctx.refuse(f"there is no {item_id!r} in the gear list to describe")
        details = spec
    elif isinstance(item, str) and item in ctx.rules.gear:
        item_id, base = item, dict(ctx.rules.item(item))
    elif isinstance(item, str) and item.strip():
        if not details:
            ctx.refuse(f"there is no {item!r} in the gear list: describe it (give(who, {{'name': {item!r}, "
                       f"'damage': '2d6', 'bonus': 1}}), or armor with av and dv)")
        item_id, base = None, {"name": item}
    else:
        ctx.refuse(f"an item is a gear id like 'sword', or a description like {{'name': 'Sword +1', "
                   f"'damage': '2d6', 'bonus': 1}}; got {item!r}")
    tables = ctx.rules.gear_tables
    is_armor = (item_id is not None and "armor" in tables and item_id in tables["armor"]) \
        or "av" in details or "av" in base
    is_weapon = not is_armor and ("damage" in details or "damage" in base)
    allowed = _ARMOR_KEYS if is_armor else _WEAPON_KEYS if is_weapon else _ITEM_KEYS
    _check_details(ctx, details, allowed, "armor" if is_armor else "a weapon" if is_weapon else "an item")
    spec = {k: v for k, v in base.items() if k in allowed | {"price", "bundle"}}
    spec.update(details)
    if is_armor:
        for key in ("av", "dv"):
            if key not in spec:
                ctx.refuse(f"armor needs its {key.upper()} (av=..., dv=...)")
        spec.setdefault("kind", "worn")
        return [], [_armor(item_id, spec) for _ in range(count)], [], spec["name"]
    if is_weapon:
        return [_weapon(ctx, item_id, spec) for _ in range(count)], [], [], spec["name"]
    if "spells" in details and "name" not in details:  # "Scroll of Firebolt", "Spellbook of Light, Invisibility"
        spec["name"] = f"{spec['name']} of {', '.join(ctx.rules.spell(s)['name'] for s in details['spells'])}"
    entry = {"item": item_id, "name": spec["name"], "count": count}
    for key in ("instrument", "tags", "note", "spells"):
        if key in spec:
            entry[key] = clone(spec[key])
    return [], [], [entry], spec["name"]


class Give(Action, kind="give", targets=("who",)):
    """Gear a delver finds or is given: the item (an id, or its name when made up), its name, how many, and what
    went on the sheet as weapons, armor and other items."""

    who: str
    item: str
    name: str
    count: int
    weapons: list[str]
    armor: list[str]
    items: list[str]


@command(Give)
def give(ctx: Ctx, who: str, item: Any, count: int = 1, **details: Any) -> None:
    """Found gear joins a delver's sheet: a gear id (``"crossbow"``, ``"arrow"`` with count=20), a gear id with
    its details changed (``"sword", bonus=1, name="Sword +1"``), or an item described inline (a weapon with its
    damage dice, flat bonus, skill and tags; armor with AV and DV; an instrument; a scroll or a book with the
    spells written in it: ``"scroll", spells=["firebolt"]``). Armor is fitted to the wearer (an Armorer's bonus
    applies to it)."""
    d = ctx.delver(who)
    if is_dead(d):
        ctx.refuse(f"{who} is dead: the living may take {who}'s gear, not give {who} more")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        ctx.refuse(f"give at least one, not {count!r}")
    weapons, armor, other, name = _found(ctx, item, count, details)
    delver = clone(d)
    add_to_sheet(delver, weapons, armor, other)
    ctx.update(["delvers", who], delver)
    ctx.out(who=who, item=item if isinstance(item, str) else name, name=name, count=count,
            weapons=[w["name"] for w in weapons], armor=[a["name"] for a in armor],
            items=[it["name"] for it in other])


def _matches(entry: Mapping, item: Any) -> bool:
    if isinstance(item, str):
        return item in (entry.get("item"), entry.get("name")) or item.strip().lower() == str(entry.get("name", "")).lower()
    return False


def _remove(ctx: Ctx, who: str, item: Any, count: int, doing: str) -> tuple[dict, dict, list]:
    """Take ``count`` of ``item`` off ``who``'s sheet: (the changed delver, what was removed, the entries)."""
    d = ctx.delver(who)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        ctx.refuse(f"{doing} at least one, not {count!r}")
    delver = clone(d)
    removed: list = []
    kind = None
    for key in ("weapons", "armor"):
        hits = [i for i, e in enumerate(delver[key]) if _matches(e, item)]
        if hits:
            if len(hits) < count:
                ctx.refuse(f"{who} has {len(hits)} {delver[key][hits[0]]['name']}, not {count}")
            for i in reversed(hits[:count]):
                piece = delver[key].pop(i)
                if key == "armor":
                    fit_armor({}, piece)  # the wearer's bonus stays with the wearer
                removed.insert(0, piece)
            kind = key
            break
    if kind is None:
        stacks = [i for i, e in enumerate(delver["items"]) if _matches(e, item)]
        have = sum(int(delver["items"][i].get("count", 1)) for i in stacks)
        if not stacks:
            carried = [e["name"] for e in delver["weapons"] + delver["armor"] + delver["items"]]
            ctx.refuse(f"{who} carries no {item!r} (carries: {', '.join(carried) or 'nothing'})")
        if have < count:
            ctx.refuse(f"{who} has {have} {delver['items'][stacks[0]]['name']}, not {count}")
        left = count
        for i in stacks:
            e = delver["items"][i]
            n = min(left, int(e.get("count", 1)))
            e["count"] = int(e.get("count", 1)) - n
            part = clone(e)
            part["count"] = n
            removed.append(part)
            left -= n
            if left == 0:
                break
        ammo = set(ctx.rules.gear_tables.get("ammo", {}))  # an empty quiver stays on the sheet, at 0
        delver["items"] = [e for e in delver["items"] if e.get("count", 1) > 0 or e.get("item") in ammo]
        kind = "items"
    return delver, {"kind": kind}, removed


class Take(Action, kind="take", targets=("who", "to")):
    """Gear the keeper takes from a delver (the item asked for, by id), perhaps handed to another (``to``)."""

    who: str
    item: str | None
    count: int
    to: str | None = field(None, column="handed_to")
    taken: list[str]


@command(Take)
def take(ctx: Ctx, who: str, item: Any, count: int = 1, to: str | None = None) -> None:
    """The keeper takes gear off a delver's sheet (lost, broken, stolen), or hands it to another delver (``to``:
    looting a fallen friend's pack); armor leaves its wearer's bonus behind and takes its new wearer's."""
    delver, what, removed = _remove(ctx, who, item, count, "take")
    ctx.update(["delvers", who], delver)
    if to is not None:
        other = ctx.delver(to)
        if to == who:
            ctx.refuse(f"{who} already has it")
        if is_dead(other):
            ctx.refuse(f"{to} is dead and takes nothing")
        receiver = clone(other)
        add_to_sheet(receiver, *([removed, [], []] if what["kind"] == "weapons" else
                                  [[], removed, []] if what["kind"] == "armor" else [[], [], removed]))
        ctx.update(["delvers", to], receiver)
    ctx.out(who=who, item=item if isinstance(item, str) else None, count=count, to=to,
            taken=[e["name"] for e in removed])


class Drop(Action, kind="drop", actor="who"):
    """Gear a delver drops."""

    who: str
    item: str | None
    count: int
    dropped: list[str]


@command(Drop)
def drop(ctx: Ctx, who: str, item: Any, count: int = 1) -> None:
    """A delver drops gear (a thrown dagger that is lost, a broken shield): it leaves the sheet."""
    delver, what, removed = _remove(ctx, who, item, count, "drop")
    ctx.update(["delvers", who], delver)
    ctx.out(who=who, item=item if isinstance(item, str) else None, count=count, dropped=[e["name"] for e in removed])
