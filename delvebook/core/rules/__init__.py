"""The game's rules as data: core numbers, classes, spells, true names, gear and a default bestiary.

The numbers and tables live in the YAML files beside this module (each documents its schema at the top);
``delvebook.core.rules.load.load_rules()`` reads them. This module is pure (standard library only, no YAML):
``Rules`` wraps already-parsed data, so the engine, a script or a test can build one from plain dicts.

A campaign's house rules are a nested dict laid over the shipped rules with ``Rules.with_overrides``:
any number or table can change, gear, foes, spells, classes (and a few other open tables) can be added, and
anything else (an unknown key, a wrong type) is refused with a ``RulesError`` that carries every problem as a
``Problem(path, reason)``. What a valid rules set, house rule or campaign file holds is ``rules.schema``.
Every entry says where it came from (``source: text`` or ``source: assumed`` with a ``reason``);
``Rules.assumptions()`` lists what delvebook assumed where the text is silent, for the keeper to review.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from types import MappingProxyType
from typing import Any, Iterator, NamedTuple

from .schema import _thaw  # noqa: E402 - the one copy of frozen data back to plain
from .prepared import TRUE_NAMES, true_names_table
from .schema import (
    ALL,
    NUMBERED,
    FILES,
    OPEN_TABLES,
    PROVENANCE_KEYS,
    SOURCES,
    Problem,
    RulesError,
    bestiary_problems,
    merge_overrides,
    rules_problems,
)

__all__ = [
    "ALL",
    "NUMBERED",
    "RulesError",
    "Problem",
    "Rules",
    "Assumption",
    "FILES",
    "PROVENANCE_KEYS",
    "SOURCES",
    "OPEN_TABLES",
]

_HEARTS_KINDS = ("set", "roll", "gain")


class Assumption(NamedTuple):
    """One thing delvebook assumed where the text is silent: where it sits in the rules, and why."""

    path: str
    reason: str


# ---------------------------------------------------------------- helpers


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _folded(name: Any) -> str:
    return " ".join(str(name).casefold().replace("_", " ").split())


def _path(parts: tuple) -> str:
    return ".".join(str(p) for p in parts)


def _data_items(node: Mapping) -> Iterator[tuple[Any, Any]]:
    """The entries of a mapping without its provenance keys."""
    for key, value in node.items():
        if key not in PROVENANCE_KEYS:
            yield key, value


def _assumptions(node: Any, parts: tuple, out: list) -> None:
    if isinstance(node, Mapping):
        if node.get("source") == "assumed":
            out.append(Assumption(_path(parts), str(node.get("reason", ""))))
        assumed = node.get("assumed")
        if isinstance(assumed, Mapping):
            for field, reason in assumed.items():
                out.append(Assumption(_path(parts + (field,)), str(reason)))
        for key, value in _data_items(node):
            _assumptions(value, parts + (key,), out)
    elif isinstance(node, (list, tuple)):
        for i, value in enumerate(node):
            _assumptions(value, parts + (i,), out)


# ---------------------------------------------------------------- the Rules object


class Rules:
    """The rules as data. Mappings it returns are read-only views (``MappingProxyType``) and lists are tuples,
    so one ``Rules`` can be shared; ``to_dict()`` gives a plain, mutable copy. Its data never changes, so each
    table merged from it (every gear item across tables, every spell across lists) is merged once, on first use."""

    def __init__(self, data: Mapping, *, house_paths: tuple[str, ...] = ()):
        self._data = _freeze(data)
        self._house_paths = tuple(house_paths)
        self._checked = False  # validate() or with_overrides() found the whole data set sound

    # the tables
    @property
    def data(self) -> Mapping:
        return self._data

    @cached_property
    def core(self) -> Mapping:
        """The core numbers (kept: every rule reads them, many times a simulated fight)."""
        return self._data["core"]

    @cached_property
    def classes(self) -> Mapping:
        """Class id -> class (provenance keys left out)."""
        return MappingProxyType(dict(_data_items(self._data["classes"])))

    @cached_property
    def spells(self) -> Mapping:
        """Every spell by id, across lists; each entry is the spell's data. See ``spell_lists`` for the lists."""
        out = {}
        for _, spell_list in _data_items(self._data["spells"]):
            out.update(_data_items(spell_list["spells"]))
        return MappingProxyType(out)

    @cached_property
    def spell_lists(self) -> Mapping:
        return MappingProxyType(dict(_data_items(self._data["spells"])))

    @cached_property
    def true_names(self) -> Mapping:
        """D66 result (11..66) -> true name."""
        return MappingProxyType(dict(_data_items(self._data["true_names"]["names"])))

    @cached_property
    def gear(self) -> Mapping:
        """Every gear item by id, across tables (weapons, ammo, armor, items, a campaign's own)."""
        out = {}
        for _, table in _data_items(self._data["gear"]):
            out.update(_data_items(table))
        return MappingProxyType(out)

    @cached_property
    def gear_tables(self) -> Mapping:
        return MappingProxyType(dict(_data_items(self._data["gear"])))

    @cached_property
    def bestiary(self) -> Mapping:
        return MappingProxyType(dict(_data_items(self._data["bestiary"])))

    @cached_property
    def foe_names(self) -> Mapping:
        """A foe's name as the keeper would type it (folded: 'bog goblin') -> its id: found in one step, however
        large the bestiary."""
        out: dict[str, str] = {}
        for fid, foe in self.bestiary.items():
            out.setdefault(_folded(foe.get("name", fid)), fid)
        return MappingProxyType(out)

    @cached_property
    def foe_name_index(self):
        """The bestiary's names (``names.NameIndex``, each with its id), to ask in one step whether a new foe type's
        name reads the same as one there (case, NFKC, the common confusables)."""
        from ..names import NameIndex
        return NameIndex({str(foe.get("name", fid)): fid for fid, foe in self.bestiary.items()})

    @cached_property
    def encounters(self) -> Mapping:
        """The encounters the campaign prepared in campaign.yaml, by id, as written (``{name, foes, note}``)."""
        return MappingProxyType(dict(self._data.get("encounters") or {}))

    @cached_property
    def roll_tables(self) -> Mapping:
        """Every roll table by id: the namer's true names (``true_names``, D66), then the campaign's own from
        campaign.yaml (which may replace it). See ``rules.prepared``."""
        out = {TRUE_NAMES: MappingProxyType(true_names_table(self.true_names, self._data["true_names"].get("die")
                                                             or "d66"))}
        out.update(self._data.get("tables") or {})
        return MappingProxyType(out)

    def with_campaign(self, encounters: Mapping | None, tables: Mapping | None) -> "Rules":
        """These rules with a campaign's prepared encounters and roll tables (from campaign.yaml, checked by
        ``schema.check_campaign``) laid in; the same rules when it has none."""
        if not encounters and not tables:
            return self
        data = dict(self._data)
        data["encounters"] = _freeze(dict(encounters or {}))
        data["tables"] = _freeze(dict(tables or {}))
        rules = Rules.__new__(Rules)
        rules._data = MappingProxyType(data)
        rules._house_paths = self._house_paths
        rules._checked = self._checked
        return rules

    @property
    def house_paths(self) -> tuple[str, ...]:
        """Key paths a campaign's house rules changed or added, in the order given."""
        return self._house_paths

    # lookups
    def class_(self, class_id: str) -> Mapping:
        try:
            return self.classes[class_id]
        except KeyError:
            raise RulesError(f"no class {class_id!r} (known: {', '.join(self.classes)})") from None

    def class_name(self, class_id: str) -> str:
        return self.class_(class_id)["name"]

    def level(self, class_id: str, level: int) -> Mapping:
        levels = self.class_(class_id)["levels"]
        if level not in levels:
            raise RulesError(f"class {class_id!r} has no level {level} (levels 1..{self.level_cap})")
        return levels[level]

    def hearts(self, class_id: str, level: int) -> Mapping:
        """The level's hearts rule: {set: int} | {roll: dice} | {gain: dice}."""
        return MappingProxyType({k: v for k, v in self.level(class_id, level)["hearts"].items()
                                 if k in _HEARTS_KINDS})

    def resource_max(self, class_id: str, resource: str, level: int) -> int:
        resources = self.class_(class_id)["resources"]
        if resource not in resources:
            raise RulesError(f"class {class_id!r} has no resource {resource!r} (has: {', '.join(k for k, _ in _data_items(resources))})")
        return resources[resource]["max"][level]

    def abilities(self, class_id: str) -> Mapping:
        """A class's abilities by id (provenance keys left out)."""
        if class_id not in self._abilities:
            self.class_(class_id)  # an unknown class: refused, naming the known ones
        return self._abilities[class_id]

    @cached_property
    def _abilities(self) -> Mapping:
        return {cid: MappingProxyType(dict(_data_items(c["abilities"]))) for cid, c in self.classes.items()}

    def ability(self, class_id: str, ability_id: str) -> Mapping:
        abilities = self.class_(class_id)["abilities"]
        if ability_id not in abilities or ability_id in PROVENANCE_KEYS:
            raise RulesError(f"class {class_id!r} has no ability {ability_id!r}")
        return abilities[ability_id]

    def spell(self, spell_id: str) -> Mapping:
        try:
            return self.spells[spell_id]
        except KeyError:
            raise RulesError(f"no spell {spell_id!r} (known: {', '.join(self.spells)})") from None

    def spell_by_number(self, list_id: str = "grimoire") -> Mapping:
        """Number -> spell id for a list picked at random (the grimoire: 1 Light .. 6 Minor Illusion)."""
        spells = self.spell_lists[list_id]["spells"]
        return MappingProxyType({s["number"]: sid for sid, s in _data_items(spells) if "number" in s})

    def item(self, item_id: str) -> Mapping:
        try:
            return self.gear[item_id]
        except KeyError:
            raise RulesError(f"no gear item {item_id!r}") from None

    def foe(self, foe_id: str) -> Mapping:
        try:
            return self.bestiary[foe_id]
        except KeyError:
            raise RulesError(f"no foe {foe_id!r} in the bestiary (known: {', '.join(self.bestiary)})") from None

    def talons(self, amount: Mapping[str, int]) -> int:
        """A sum of currency units ({"crown": 5}) in talons."""
        units = self.core["currency"]["units"]
        total = 0
        for unit, count in _data_items(amount):
            if unit not in units:
                raise RulesError(f"no currency unit {unit!r} (known: {', '.join(k for k, _ in _data_items(units))})")
            total += units[unit]["talons"] * count
        return total

    def price_talons(self, item_id: str) -> int | None:
        """An item's price in talons, or None when the text gives none."""
        price = self.item(item_id).get("price")
        return None if price is None else self.talons(price)

    @property
    def level_cap(self) -> int:
        return self.core["levels"]["cap"]

    @cached_property
    def level_thresholds(self) -> Mapping:
        return MappingProxyType(dict(_data_items(self.core["levels"]["thresholds"])))

    def level_for_xp(self, xp: int) -> int:
        level = 1
        for lv, needed in sorted(self.level_thresholds.items()):
            if xp >= needed:
                level = lv
        return min(level, self.level_cap)

    def duration_seconds(self, duration: str) -> int:
        if duration == "round":
            return self.core["time"]["round_seconds"]
        durations = self.core["durations"]
        if duration not in durations or duration in PROVENANCE_KEYS:
            raise RulesError(f"no duration {duration!r} (known: round, {', '.join(k for k, _ in _data_items(durations))})")
        return durations[duration]

    def duration_rounds(self, duration: str) -> int:
        """Rounds in a duration (a minute is 10 rounds of 6 seconds), rounded up."""
        seconds = self.duration_seconds(duration)
        per_round = self.core["time"]["round_seconds"]
        return -(-seconds // per_round)

    # provenance, checks and house rules
    def assumptions(self) -> list[Assumption]:
        """Every ``source: assumed`` block and ``assumed:`` field, with its key path and reason."""
        out: list[Assumption] = []
        for name in FILES:
            _assumptions(self._data[name], (name,), out)
        return out

    def problems(self) -> list[Problem]:
        """Every problem in the data's shape (``rules.schema``), each a ``Problem(path, reason)``. A clean result
        is remembered: laying only a bestiary over these rules then checks only the bestiary."""
        problems = rules_problems(self._data)
        self._checked = not problems
        return problems

    def validate(self) -> "Rules":
        """Check the data's shape; raises RulesError naming every bad key path (``err.problems``). Returns self."""
        problems = self.problems()
        if problems:
            raise RulesError.of(problems, "rules: ")
        return self

    def with_overrides(self, house_rules: Mapping | None, *, origin: str = "house rules") -> "Rules":
        """A new Rules with a campaign's house rules laid over these, checked whole. RulesError lists every
        problem (``err.problems``, paths from the top of the rules); ``origin`` names them in its message."""
        if not house_rules:
            return self
        merged, changed, problems = merge_overrides(self._data, house_rules)
        only_foes = self._checked and set(house_rules) <= {"bestiary"}
        problems += bestiary_problems(merged) if only_foes else rules_problems(merged)
        if problems:
            raise RulesError.of(problems, f"{origin}: ")
        rules = Rules(merged, house_paths=self._house_paths + tuple(changed))
        rules._checked = True
        return rules

    def to_dict(self) -> dict:
        return _thaw(self._data)

    def __repr__(self) -> str:
        extra = f", {len(self._house_paths)} house rules" if self._house_paths else ""
        return f"<Rules: {len(self.classes)} classes, {len(self.spells)} spells, {len(self.gear)} gear items, " \
               f"{len(self.bestiary)} foes{extra}>"
