"""The state's shape: every place in a campaign's state, what it may hold, and the checks built on it.

``SHAPE`` is the one table. Each entry of a record names a field and what it holds; ``"key?"`` is a field that
may be absent. A value is written as:

- a leaf kind: ``"text"``, ``"name"`` (text that is not blank), ``"int"``, ``"count"`` (0 or more),
  ``"posint"`` (1 or more), ``"bool"``, ``"status"`` (alive / dying / dead), ``"side"`` (party / foes),
  ``"dice"`` (notation like ``d6+1``, or a whole number), ``"hearts"`` (the rules' hearts floor or more),
  ``"level"`` (1 up to the rules' level cap), ``"any"`` (any JSON data, bounded);
- ``"@record"``: another record of the table; a trailing ``?`` allows null (``"@encounter?"``, ``"count?"``);
- ``{"*": kind}``: a mapping of names to kind (``"#"`` bounds how many); ``[kind]``: a list of kind.

To add a field to the state, add one line to its record here (``new_state`` and the table are checked against
each other by a test). The checks that read the table:

- ``Shape.change_problem(path, value)``: one ``[path, value]`` change of an event, without the state: the path
  is a place in the table and the value fits it (the writer runs it before an event is acknowledged, the reader
  on every event it reads);
- ``Shape.state_problems(state)``: a whole state, with what the table cannot say alone (seats name delvers, the
  fight's order names its foes, ...): after a log is read, and after every event the writer records;
- ``value_problem(event)``: the JSON limits every event keeps (finite numbers a browser reads exactly, text
  that is UTF-8, bounded nesting); ``rolls_problem(rolls)``: roll records that are rolls of their dice.

The package: ``limits`` (the limits and how a refusal shows a value), ``kinds`` (each kind's readable
``problem``, the reference), ``compiled`` (each kind written out as a yes-or-no predicate, held to ``problem`` by
a differential test), ``rolls`` (roll records). Standard library only: part of the pure core.
"""

from __future__ import annotations

from typing import Any, Mapping

from .compiled import predicate
from .kinds import Kind, records
from .limits import (MAX_DEPTH, MAX_FOES, MAX_INT, MAX_ITEMS, MAX_NAME, MAX_TEXT, dotted_path, event_problems, show,
                     value_problem)
from .rolls import roll_problem, rolls_problem

__all__ = [
    "SHAPE",
    "MAX_INT",
    "MAX_TEXT",
    "MAX_NAME",
    "MAX_ITEMS",
    "MAX_FOES",
    "MAX_DEPTH",
    "Shape",
    "shape_for",
    "DEFAULT",
    "event_problems",
    "roll_problem",
    "rolls_problem",
    "value_problem",
    "dotted_path",
]

_SHEET: dict[str, Any] = {                       # a foe's sheet, in a fight or kept outside one
    "name": "name",
    "kind": "name",
    "hearts": "hearts",
    "max_hearts": "count",
    "status": "status",
    "attack_bonus": "dice",
    "damage": "dice",
    "multi_attack": "posint",
    "ranged": "bool",
    "armor": ["@armor"],
    "tags": ["text"],
    "skills": {"*": "text"},
    "counters?": "bool",                         # false: it never counter-attacks (a wisp, a swarm)
}

SHAPE: dict[str, dict] = {
    "state": {
        "name": "text",
        "seed": "int?",
        "clock": "count",                       # game time in seconds
        "session": {"number": "count", "active": "bool"},
        "seats": ["name"],                      # delver names, clockwise
        "delvers": {"*": "@delver"},
        "luck": {"*": "count"},                 # player -> luck dice left this session
        "xp_pool": "count",
        "coin_pool": "count",
        "xp_awarded": "count",
        "encounter": "@encounter?",
        "encounters_fought": "count",
        "conditions": ["@condition"],
        "next_condition": "posint",
        "creatures": {"*": "@creature"},         # NPCs and familiars outside the party and the fight's foes
        "quests": ["text"],
        "rooms": ["text"],
        "prepared?": "@prepared",               # what the table prepared over campaign.yaml (rules.prepared)
    },
    "prepared": {                               # by id: an entry, or null where the table removed one
        "foes": {"*": "@foe_type?"},
        "encounters": {"*": "@plan?"},
        "tables": {"*": "@roll_table?"},
        "drawn": {"*": ["count"]},              # a table drawn without replacement: the entries drawn
    },
    "foe_type": {
        "name": "name",
        "hearts": "posint",
        "attack_bonus": "dice",
        "damage": "dice",
        "tags": ["text"],
        "multi_attack?": "posint",
        "ranged?": "bool",
        "armor?": "any",
        "counters?": "bool",
        "note?": "text",
    },
    "plan": {                                   # a prepared encounter
        "name": "text",
        "foes": ["any"],
        "note?": "text",
        "dark?": "bool",                        # fought in darkness
    },
    "roll_table": {
        "name": "text",
        "dice": "dice",
        "entries": ["@table_entry"],
        "without_replacement?": "bool",
        "note?": "text",
    },
    "table_entry": {
        "range": "any",
        "result?": "text",
        "roll?": "name",
    },
    "delver": {
        "name": "name",
        "player": "name",
        "class_id": "name",
        "class_name": "text",
        "level": "level",
        "xp": "count",
        "hearts": "hearts",
        "max_hearts": "count",
        "status": "status",
        "died_at": "count?",
        "skills": {"*": "text"},
        "resources": {"*": "int"},
        "resource_max": {"*": "int"},
        "weapons": ["@weapon"],
        "armor": ["@armor"],
        "items": ["@item"],
        "purse": "int",                         # talons
        "choices": {"*": "text"},
        "abilities": ["name"],
        "spells": ["name"],
        "spellbook_used": ["name"],
        "true_names": ["name"],
        "pending_choices": ["any"],
        "familiar?": "any",
        "signature_spell?": "any",
        "written_spells?": "any",                # spells in the book the rules do not hold (a namer's), by id
        "death_save_repeated?": "count?",        # the death Lay on Hands repeated the save for (its died_at)
        "armor_bonus?": "any",
        "free_reload?": "text",
        "retired?": "bool",                     # off the table, kept in the history
    },
    "weapon": {
        "item": "text?",                         # a gear id, or null for a weapon described when given
        "name": "text",
        "damage": "dice",
        "skill": "text?",
        "ranged": "bool",
        "bonus": "int",
        "conjured?": "any",
        "ammo?": "text",                         # the ammunition it shoots (arrow, bolt)
        "reload_action?": "bool",                # reloading takes an action (a crossbow)
        "loaded?": "bool",
        "attack_bonus?": "dice",                 # a magic weapon's bonus to hit
        "tags?": ["text"],
    },
    "armor": {
        "item": "text?",
        "name": "text",
        "av": "int",
        "dv": "count",
        "dv_max": "count",
        "shield": "bool",
        "bonus_av": "int",
        "bonus_dv?": "int",                      # DV a specialty added as it was fitted (the Armorer's +5)
        "kind?": "text",
        "tags?": ["text"],
    },
    "item": {
        "item": "text?",                         # a gear id, or null for an item described when given
        "name": "text",
        "count?": "count",
        "instrument?": "bool",
        "tags?": ["text"],
        "note?": "text",
        "spells?": ["name"],                     # spells written in it (a scroll, a book)
        "written?": "any",                       # the words of those the rules do not hold (a namer's), by id
    },
    "encounter": {
        "number": "posint",
        "name": "text",
        "foes": {"*": "@foe", "#": MAX_FOES},
        "round": "count",
        "side": "side?",
        "turn": "count",
        "first": "side?",
        "order": {"party": ["name"], "foes": ["name"]},
        "started_at": "count",
        "vanquished": ["name"],
        "acted?": ["name"],                      # who has had their turn this round
        "dark?": "bool",                         # the fight is in darkness (core.sight)
        "used?": {"*": "any"},                   # what each combatant used of its turn
    },
    "foe": {
        **_SHEET,
        "npc?": "bool",                          # a named creature who joined the fight
        "role?": "text",
        "note?": "text",
        "owner?": "name",
    },
    "creature": {                                # a foe's sheet, kept outside a fight
        **_SHEET,
        "role": "text",                          # npc, familiar
        "note?": "text",
        "owner?": "name",                        # a familiar's mage
        "form?": "text",
        "range_ft?": "count",
        "died_at?": "count?",
    },
    "condition": {
        "id": "posint",
        "kind": "name",
        "who": "name",
        "source": "text?",
        "start": "count",
        "ends_at": "count?",
        "ends_on": "text?",
        "ends_when": ["text"],
        "data": "any",
    },
}
"""The state's shape, one record per kind of thing. ``state`` is the top (``model.new_state``)."""

_RECORDS = records(SHAPE)


# ---------------------------------------------------------------- the shape with the rules' bounds


class Shape:
    """The table with the bounds a campaign's rules set (the hearts floor, the level cap).

    ``shape_for(rules)`` makes one; ``DEFAULT`` has the shipped rules' bounds and is used where no rules are at
    hand (a store opened on a bare log)."""

    def __init__(self, hearts_floor: int = 0, level_cap: int = 100):
        self.hearts_floor = hearts_floor
        self.level_cap = level_cap
        self.state = _RECORDS["state"]
        self._places: dict[tuple, Any] = {}
        self._compiled: dict[Kind, Any] = {}  # each kind's predicate with this shape's bounds
        self._fits_at: dict[tuple, Any] = {}  # a place's path -> the predicate of what it holds (the quick check)

    def __repr__(self) -> str:
        return f"<Shape: hearts from {self.hearts_floor}, levels 1..{self.level_cap}>"

    # one change
    def _resolve(self, path: Any) -> Kind | str:
        if path.__class__ is not list or not path:
            return f"a change's path is a non-empty list of keys and indexes, got {show(path)}"
        kind: Any = self.state
        for i, part in enumerate(path):
            if part.__class__ is not str and part.__class__ is not int:
                return f"{dotted_path(path[:i]) if i else 'the path'}: expected a key or an index, got {show(part)}"
            kind = kind.child(part)
            if isinstance(kind, str):
                return f"{dotted_path(path[:i + 1])}: {kind}"
        return kind

    def _place(self, path: Any) -> tuple:
        """(kind or reason, fits): what the place holds and its predicate (``compiled.predicate``; None for a path that
        is no place), for the quick check."""
        try:
            key = tuple(path) if path.__class__ is list else None
            hit = self._places.get(key) if key is not None else None
        except TypeError:  # an unhashable part (a list inside the path)
            key, hit = None, None
        if hit is not None:
            return hit
        kind = self._resolve(path)
        fits = predicate(kind, self, self._compiled) if isinstance(kind, Kind) else None
        hit = (kind, fits)
        if key is not None:
            if len(self._places) > 8192:
                self._places.clear()
                self._fits_at.clear()
            self._places[key] = hit
            if fits is not None:
                self._fits_at[key] = fits
        return hit

    def place(self, path: Any) -> Kind | str:
        """What the place at ``path`` holds, or why ``path`` is no place in the state."""
        return self._place(path)[0]

    def change_problem(self, path: Any, value: Any) -> str | None:
        """Why ``[path, value]`` cannot be a change of the state (the path is no place in the table, or the
        value does not fit it), or None."""
        kind, fits = self._place(path)
        if fits is None:
            return kind
        if fits(value):
            return None
        found = kind.problem(value, self)
        if found is None:
            return None
        inside, why = found
        return f"{dotted_path(list(path) + list(inside))}: {why}"

    def changes_problem(self, changes: Any) -> tuple[int | None, str] | None:
        """The first bad change of an event's ``changes`` as (its index, reason), or None."""
        if changes.__class__ is not list:
            return None, f"expected a list of [path, value] changes, got {show(changes)}"
        if len(changes) > MAX_ITEMS:
            return None, f"{len(changes):,} changes; at most {MAX_ITEMS:,}"
        fits_at = self._fits_at
        for change in changes:  # change_problem written out for the common change: a known place, a fitting value
            if change.__class__ is list and len(change) == 2:
                path, value = change
                if path.__class__ is list:
                    try:
                        fits = fits_at.get(tuple(path))
                    except TypeError:  # an unhashable part: no place
                        break
                    if fits is None:
                        fits = self._place(path)[1]  # a place met for the first time (a new room, a new foe)
                    if fits is not None and fits(value):
                        continue
            break
        else:
            return None
        for i, change in enumerate(changes):  # the slow path: every change again, the first bad one named
            if change.__class__ is not list or len(change) != 2:
                return i, f"expected a change as [path, value], got {show(change)}"
            why = self.change_problem(change[0], change[1])
            if why is not None:
                return i, why
        return None

    # a whole state
    def state_problems(self, state: Any) -> list[tuple[tuple, str]]:
        """Every problem of a whole state: its shape, then what ties its parts together."""
        if predicate(self.state, self, self._compiled)(state):
            return self.link_problems(state)
        found = self.state.problem(state, self)
        if found is not None:
            return [found]
        return self.link_problems(state)

    def link_problems(self, state: Mapping) -> list[tuple[tuple, str]]:
        """What ties a state of the right shape together: seats name delvers (each once), names are filed
        under themselves, the fight's order names its side, conditions' ids are unique. Cheap: the check after
        each event of a replay whose changes were each checked against the table."""
        out: list[tuple[tuple, str]] = []
        delvers = state["delvers"]
        for name, d in delvers.items():
            if d["name"] != name:
                out.append((("delvers", name, "name"), f"the delver filed as {name!r} is named {d['name']!r}"))
        seen: set = set()
        for i, seat in enumerate(state["seats"]):
            if seat not in delvers:
                out.append((("seats", i), f"{seat!r} is not a delver (the party: {', '.join(delvers) or 'none'})"))
            elif seat in seen:
                out.append((("seats", i), f"{seat!r} sits twice"))
            seen.add(seat)
        for name, d in delvers.items():
            if name not in seen and not (d.__class__ is dict and d.get("retired")):
                out.append((("delvers", name), "has no seat (every delver sits in seats but the retired)"))
            elif name in seen and d.__class__ is dict and d.get("retired"):
                out.append((("seats",), f"{name!r} has retired and sits no more"))
        ids: set = set()
        for i, c in enumerate(state["conditions"]):
            if c["id"] in ids:
                out.append((("conditions", i, "id"), f"condition {c['id']} is listed twice"))
            elif c["id"] >= state["next_condition"]:
                out.append((("conditions", i, "id"), f"condition {c['id']} is not below next_condition "
                                                      f"({state['next_condition']})"))
            ids.add(c["id"])
        enc = state["encounter"]
        if enc is not None:
            foes = enc["foes"]
            for name, f in foes.items():
                if f["name"] != name:
                    out.append((("encounter", "foes", name, "name"), f"the foe filed as {name!r} is named "
                                                                     f"{f['name']!r}"))
                if name in delvers:
                    out.append((("encounter", "foes", name), f"{name!r} is both a delver and a foe"))
            for side, known in (("party", delvers), ("foes", foes)):
                for i, n in enumerate(enc["order"][side]):
                    if n not in known:
                        out.append((("encounter", "order", side, i), f"{n!r} is not one of the {side} here"))
        return out


_SHAPES: dict[tuple, Shape] = {}


def shape_for(rules: Any) -> Shape:
    """The shape with ``rules``' bounds (``core.hearts.floor``, ``core.levels.cap``); the default bounds for
    rules that do not give them."""
    try:
        core = rules.core
        floor = core["hearts"]["floor"]
        cap = core["levels"]["cap"]
    except (AttributeError, KeyError, TypeError):
        return DEFAULT
    if not (floor.__class__ is int and cap.__class__ is int):
        return DEFAULT
    key = (floor, cap)
    shape = _SHAPES.get(key)
    if shape is None:
        shape = _SHAPES[key] = Shape(floor, cap)
    return shape


DEFAULT = Shape()
"""The shape where no rules are at hand: hearts from 0, levels up to 100."""
