"""The records many kinds of event share (``declared.Record``s): a damage and a healing entry with its dealer (``by``,
a role), a counter-attack, the odds of an attack, an XP award and a level reached. Each kind's own records are
declared with its command (``engine``); these are here because the core reads them too (``roles``, ``collect``).

Standard library only: part of the pure core.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Iterator, Literal, Union

from .declared import Chance, Record, Text, field

__all__ = ["Dv", "Added", "Damage", "Healing", "Chances", "Counter", "Ammo", "XpAward", "LevelUp", "Result",
           "damage_in", "healing_in"]

Result = Literal["hit", "tie", "miss"]
"""How one attack roll went against its resist roll."""


class Dv(Record):
    """A piece of armor a hit wore down: its DV left, and whether that broke it."""

    piece: str
    dv: int
    broken: bool


class Added(Record):
    """An on-hit choice's own dice on a hit (a smite's), rolled apart from the weapon's."""

    option: str
    expr: str
    total: int


class Damage(Record):
    """Damage dealt (``by``: who or what dealt it, a role; ``source``: with what) and what it did to ``target``:
    the raw amount (what a reducer took off first is declared where it plugs in: a Dodge's ``dodged``), the armor's
    AV and what it absorbed, the hearts dealt, before and after; a death save it made due, a foe vanquished, a
    familiar lost. Which hit of an attack (``attack``), its damage roll (``expr``; ``rolled`` before a save
    ``halved`` it), and a Magic Missile's dart (``dart``; ``wasted`` on a target already down, which then records
    nothing else)."""

    target: str
    by: str
    source: Text | None = None
    raw: int = None  # (each of these absent only from a wasted dart)
    av: int = None
    absorbed: int = None
    dealt: int = None
    hearts_before: int = None
    hearts_after: int = None
    dv: list[Dv] = field(())
    attack: int | None = None
    expr: str | None = None
    max_damage: bool = False
    added: list[Added] = field(())
    rolled: int | None = None
    halved: bool = False
    dart: int | None = None
    wasted: bool = False
    death_save_due: bool = False
    vanquished: bool = False
    lost: bool = False


class Healing(Record):
    """Hearts restored to ``who`` by ``by`` (a role) with ``source``: the amount, and the hearts before and after
    (the maximum may hold some back)."""

    who: str
    by: str
    source: Text | None = None
    amount: int
    hearts_before: int
    hearts_after: int


class Chances(Record):
    """An attack's exact odds against its resist roll: to win, to tie, to lose."""

    win: Chance
    tie: Chance
    lose: Chance


class Ammo(Record):
    """Ammunition an attack spent: the item, how many, how many are left."""

    item: str
    spent: int
    left: int


class Counter(Record):
    """The target's counter-attack (``by``), when every attack failed: whether it could (``why`` not), with which
    weapon, its damage and the ammunition it spent."""

    by: str
    possible: bool
    why: Text | None = None
    weapon: str | None = None
    damage: Damage | None = None
    ammo: Ammo | None = None


class XpAward(Record):
    """XP awarded: the amount and why (``source``: room, quest, vanquished, coins, keeper), each delver's share,
    and the party's pool before and after (what does not divide waits there)."""

    amount: int
    reason: Text
    source: str
    shares: dict[str, int]
    pool_before: int
    pool_after: int


class LevelUp(Record):
    """A level reached: who, the level, the maximum hearts then and what it gained (``hearts_held_back``: the
    hearts a level-up without the XP leaves to the keeper's word), the choices it asks, and the spells and true
    names it learned (a mage's new spells, a namer's new names)."""

    who: str
    level: int
    max_hearts: int | None = None
    hearts_gained: int | None = None
    hearts_held_back: Text | None = None
    choices: list[str] = field(())
    spells_learned: list[str] = field(())
    true_names_learned: list[str] = field(())


# ---------------------------------------------------------------- where an event records harm and healing

_PLACES: dict[type, tuple] = {}


def _arms(tp: Any) -> list:
    """The types a field may hold, a list's item type for a list."""
    out = []
    for arm in (typing.get_args(tp) if typing.get_origin(tp) in (Union, types.UnionType) else (tp,)):
        if typing.get_origin(arm) is list and typing.get_args(arm):
            arm = typing.get_args(arm)[0]
        out.append(arm)
    return out


def _places(cls: type) -> tuple:
    """Where a declaration records damage and healing entries, from its fields' declared types: (field key, the
    record, the key of the field inside it that holds it (a counter-attack's damage) or None)."""
    found = _PLACES.get(cls)
    if found is not None and found[0] is cls.FIELDS:
        return found[1]
    places = []
    for key, f in cls.FIELDS.items():
        for arm in _arms(f.type):
            if arm in (Damage, Healing):
                places.append((key, arm, None))
            elif isinstance(arm, type) and issubclass(arm, Record):
                for inner_key, g in arm.FIELDS.items():
                    for inner in _arms(g.type):
                        if inner in (Damage, Healing):
                            places.append((key, inner, inner_key))
    _PLACES[cls] = (cls.FIELDS, tuple(places))
    return tuple(places)


def _entries(value: Any) -> tuple:
    return value if isinstance(value, tuple) else (value,) if value is not None else ()


def damage_in(event: Record) -> Iterator[tuple[Damage, bool]]:
    """(entry, is a counter-attack's) for every damage entry an event read through its declaration records, found
    by the declared types of its fields (``damage``, a counter-attack's ``counter.damage``...)."""
    for key, record, inner in _places(type(event)):
        if record is not Damage:
            continue
        for held in _entries(event.FIELDS[key].read(event)):
            if inner is None:
                if isinstance(held, Damage):
                    yield held, False
            elif isinstance(held, Record):
                for d in _entries(held.FIELDS[inner].read(held)):
                    if isinstance(d, Damage):
                        yield d, True


def healing_in(event: Record) -> Iterator[Healing]:
    """Every healing entry an event read through its declaration records."""
    for key, record, inner in _places(type(event)):
        if record is Healing and inner is None:
            for h in _entries(event.FIELDS[key].read(event)):
                if isinstance(h, Healing):
                    yield h
