"""One schema for the rules data, a campaign's house rules and the campaign file (``campaign.yaml``).

Every check reports structured problems, each a ``Problem(path, reason)``: ``path`` is the tuple of keys and
list indexes from the top of the data (``("delvers", 1, "class")``), ``reason`` says what was wrong and what was
expected. Whoever parsed the YAML maps a path to its file and line (the store does, through the node tree); no
one parses the text of a message. ``delvebook validate`` and ``Campaign.open`` both go through
``check_campaign``, so they cannot disagree.

Fields are checked for what the engine reads: a luck die is one die (``d6``, not ``2d4``), a die that is rolled
against a target or re-rolled on a tie must roll dice, a delver's starting choices must be choices the class
offers. Standard library only: part of the pure core.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import json
import re
from collections.abc import Mapping
from typing import Any, Iterable, Iterator, NamedTuple

from ..dice import DiceError, parse as _parse_dice
from .fixed import fixed_reason
from ..statecheck import MAX_INT, MAX_NAME, MAX_TEXT

__all__ = [
    "Problem",
    "RulesError",
    "FORMAT_VERSION",
    "FILES",
    "PROVENANCE_KEYS",
    "SOURCES",
    "OPEN_TABLES",
    "CAMPAIGN_FIELDS",
    "SHEET_FIELDS",
    "FOE_FIELDS",
    "FOE_REQUIRED",
    "ENCOUNTER_FIELDS",
    "ENCOUNTER_MAX_FOES",
    "SHEET_MAX_HEARTS",
    "PLACE_FIELDS",
    "rules_problems",
    "bestiary_problems",
    "foe_problems",
    "merge_overrides",
    "campaign_rules",
    "check_campaign",
    "field_name",
    "dotted",
    "show",
]

FORMAT_VERSION = 1
"""The campaign file and event format this delvebook writes; older ones are upgraded on read."""

FILES = ("core", "classes", "spells", "true_names", "gear", "bestiary")
"""The rules files, in load order; each becomes the top-level key of the same name."""

PROVENANCE_KEYS = frozenset({"source", "quote", "reason", "assumed", "note"})
"""Keys that say where data came from; allowed in any mapping, never game data themselves."""

SOURCES = ("text", "assumed", "house")

OPEN_TABLES = (
    ("gear",),
    ("gear", "*"),
    ("bestiary",),
    ("spells",),
    ("spells", "*", "spells"),
    ("classes",),
    ("classes", "*", "skills"),
    ("classes", "*", "abilities"),
    ("classes", "*", "resources"),
    ("classes", "*", "resources", "*", "max"),
    ("classes", "*", "levels"),
    ("classes", "*", "levels", "*", "choices"),
    ("classes", "*", "levels", "*", "choices", "*", "options"),
    ("core", "levels", "thresholds"),
    ("core", "durations"),
    ("core", "currency", "units"),
)
"""Paths (``*`` matches any key) where house rules may add new keys; everywhere else an unknown key is an error."""

CAMPAIGN_FIELDS = ("format", "name", "seed", "seats", "players", "delvers", "bestiary", "encounters", "rooms",
                   "quests", "house_rules", "notes")
"""The top-level fields of ``campaign.yaml``, in the order delvebook writes them; any other key is an error."""

SHEET_FIELDS = ("name", "class", "player", "hearts", "choices", "spells", "true_names", "purse")
"""The fields of a delver's starting sheet in ``campaign.yaml``; ``name`` and ``class`` are required."""

FOE_FIELDS = {
    "name": "text", "hearts": "posint", "attack_bonus": "dice", "damage": "dice", "tags": "texts",
    "multi_attack": "posint", "ranged": "bool", "armor": "armor",
}
"""What a foe's fields hold, in the shipped bestiary, in house rules and in a campaign's own bestiary alike."""

FOE_REQUIRED = ("name", "hearts", "attack_bonus", "damage", "tags")
"""The fields every new foe must give (an entry over a shipped foe changes only what it names)."""

ENCOUNTER_FIELDS = ("foes", "name", "note", "dark")
"""The fields of a prepared encounter; ``foes`` is required."""

ENCOUNTER_MAX_FOES = 100
"""Foes in one prepared encounter, counts added up (a table fights a handful; 20,000 took the engine 100 s)."""

SHEET_MAX_HEARTS = 10_000
"""A delver's starting hearts on a sheet at most (the text's delvers start with a dozen or two)."""

PLACE_FIELDS = ("name", "note")
"""The fields of a room or a quest; ``name`` is required."""

_REPLACED_WHOLE = (
    ("classes", "*", "levels", "*", "hearts"),
)
"""Paths whose mapping an override replaces instead of merging (hearts: one of set / roll / gain)."""

_DICE_KEYS = frozenset({
    "damage", "heal", "extra_damage", "attack_bonus", "roll_bonus", "damage_reduction", "blessing_die",
    "dice", "die", "proficient", "expert", "gain", "roll",
})
"""Fields that hold a dice expression or a flat integer."""

_NULLABLE_KEYS = frozenset({"price", "ammo", "skill", "armor", "random_pick"})

_SKILL_LEVELS = ("proficient", "expert")
_HEARTS_KINDS = ("set", "roll", "gain")
_D66 = tuple(10 * a + b for a in range(1, 7) for b in range(1, 7))

_WORDS = {
    "text": "text", "int": "a whole number", "posint": "a whole number of 1 or more",
    "nonneg": "a whole number of 0 or more", "bool": "true or false",
    "dice": "dice (like d6+1) or a whole number", "roll": "dice to roll (like d20 or 2d6), not a flat number",
    "die": "a single die (like d6 or d4)", "mapping": "a mapping", "list": "a list", "texts": "a list of text",
    "text_or_null": "text or null", "roll_or_null": "dice to roll (like d6) or null",
    "armor": "armor as {av: N, dv: N}, or null",
}


class Problem(NamedTuple):
    """One thing wrong: where (keys and list indexes from the top of the data), and what was expected."""

    path: tuple
    reason: str


class RulesError(ValueError):
    """Rules data (shipped or a campaign's house rules) that has the wrong shape.

    ``problems`` holds every ``Problem`` found (paths from the top of the rules data), so a caller can say where
    each one sits in its file; the message lists them with ``prefix``."""

    def __init__(self, message: str, problems: Iterable[Problem] = (), prefix: str = ""):
        self.problems = tuple(problems)
        self.prefix = prefix
        super().__init__(message)

    @classmethod
    def of(cls, problems: Iterable[Problem], prefix: str = "rules: ") -> "RulesError":
        """A RulesError whose message lists ``problems``, each as ``<prefix><dotted path>: <reason>``."""
        problems = tuple(problems)
        lines = [f"{prefix}{dotted(p.path)}: {p.reason}" if p.path else f"{prefix.rstrip(': ')}: {p.reason}"
                 for p in problems]
        message = lines[0] if len(lines) == 1 else f"{len(lines)} problems:\n  " + "\n  ".join(lines)
        return cls(message, problems, prefix)

    def __reduce__(self):
        return (type(self), (str(self), self.problems, self.prefix))


# ---------------------------------------------------------------- words and small helpers


def show(value: Any) -> str:
    """A value as a problem's reason shows it: text quoted, true/false and null in YAML's words."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing (null)"
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57] + "...")
    if isinstance(value, Mapping):
        return "a mapping" if value else "an empty mapping"
    if isinstance(value, (list, tuple)):
        return "a list" if value else "an empty list"
    if isinstance(value, (_dt.date, _dt.datetime)):
        return f"a date ({value})"
    return repr(value)


def dotted(path: Iterable) -> str:
    """A rules path as the rules' messages write it: ``core.luck_dice.die``."""
    return ".".join(str(p) for p in path)


def field_name(path: Iterable, data: Any = None) -> str:
    """A path as a campaign file's errors write it: ``delvers[1].class``, ``house_rules.core.luck_dice.die``.

    With ``data``, an index into a list is written ``[i]`` and a number key of a mapping ``.i``; without it,
    every number is taken for a list index."""
    out = ""
    node = data
    for p in path:
        in_list = isinstance(node, (list, tuple)) if data is not None else isinstance(p, int)
        out += f"[{p}]" if in_list and isinstance(p, int) else (f".{p}" if out else str(p))
        if isinstance(node, Mapping):
            node = node.get(p)
        elif isinstance(node, (list, tuple)) and isinstance(p, int) and 0 <= p < len(node):
            node = node[p]
        else:
            node = None
    return out


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(v) for v in value]
    return value


def _matches(parts: tuple, patterns: tuple) -> bool:
    for pattern in patterns:
        if len(pattern) == len(parts) and all(p == "*" or p == k for p, k in zip(pattern, parts)):
            return True
    return False


def _is_int(value: Any) -> bool:
    """A whole number (not true/false) within what a browser reads exactly (``statecheck.MAX_INT``)."""
    return isinstance(value, int) and not isinstance(value, bool) and -MAX_INT <= value <= MAX_INT


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip()) and len(value) <= MAX_TEXT


def _data_items(node: Mapping) -> Iterator[tuple[Any, Any]]:
    """The entries of a mapping without its provenance keys."""
    for key, value in node.items():
        if key not in PROVENANCE_KEYS:
            yield key, value


def _dice_problem(value: Any, kind: str) -> str | None:
    """None if ``value`` is what the engine reads for a ``dice``, ``roll`` or ``die`` field; else the reason."""
    words = _WORDS[kind]
    if _is_int(value):
        return None if kind == "dice" else f"expected {words}, got {show(value)}"
    if not isinstance(value, str) or not value.strip():
        return f"expected {words}, got {show(value)}"
    try:
        expr = _parse_dice(value)
    except DiceError as err:
        return f"expected {words}, got {show(value)}: {err}"
    if kind == "roll" and all(t.is_constant for t in expr.terms):
        return f"expected {words}, got {show(value)}: it rolls no dice"
    if kind == "die":
        terms = expr.terms
        one = len(terms) == 1 and terms[0].count == 1 and terms[0].sign > 0 and not terms[0].keep \
            and not terms[0].d66
        if not one:
            return (f"expected {words}, got {show(value)}: the engine rolls one die here, written dN "
                    f"(no count, modifier, keep or d66)")
    return None


def _is_dice(value: Any) -> bool:
    return _dice_problem(value, "dice") is None


_CHECKS = {
    "text": _is_text,
    "int": _is_int,
    "posint": lambda v: _is_int(v) and v > 0,
    "nonneg": lambda v: _is_int(v) and v >= 0,
    "bool": lambda v: isinstance(v, bool),
    "mapping": lambda v: isinstance(v, Mapping),
    "list": lambda v: isinstance(v, (list, tuple)),
    "texts": lambda v: isinstance(v, (list, tuple)) and all(_is_text(x) for x in v),
    "text_or_null": lambda v: v is None or isinstance(v, str),
}


class _Problems:
    """Problems found so far, each a Problem(path, reason)."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, path: tuple, reason: str) -> None:
        self.items.append(Problem(tuple(path), reason))

    def kind(self, path: tuple, value: Any, kind: str) -> bool:
        """Check ``value`` is of ``kind``; add a problem saying what was expected if not."""
        if kind in ("dice", "roll", "die"):
            reason = _dice_problem(value, kind)
        elif kind == "roll_or_null":
            reason = None if value is None else _dice_problem(value, "roll")
            if reason is not None:
                reason = f"expected {_WORDS[kind]}, got {show(value)}"
        elif kind == "armor":
            return self.armor(path, value)
        else:
            reason = None if _CHECKS[kind](value) else f"expected {_WORDS[kind]}, got {show(value)}"
        if reason is not None:
            self.add(path, reason)
            return False
        return True

    def armor(self, path: tuple, value: Any) -> bool:
        if value is None:
            return True
        if not isinstance(value, Mapping):
            self.add(path, f"expected {_WORDS['armor']}, got {show(value)}")
            return False
        good = True
        for k in ("av", "dv"):
            if k not in value:
                self.add(path + (k,), "missing: armor has av (armor value) and dv (durability) as whole numbers")
                good = False
            elif not (_is_int(value[k]) and value[k] >= 0):
                self.add(path + (k,), f"expected {_WORDS['nonneg']}, got {show(value[k])}")
                good = False
        for k, _ in _data_items(value):
            if k not in ("av", "dv"):
                self.add(path + (k,), "unknown armor field; armor has av and dv")
                good = False
        return good

    def need(self, node: Any, path: tuple, key: Any, kind: str, *, optional: bool = False) -> Any:
        """Check ``node[key]`` is of ``kind``; returns the value, or None if it is missing or wrong."""
        if not isinstance(node, Mapping):
            self.add(path, f"expected a mapping, got {show(node)}")
            return None
        if key not in node:
            if not optional:
                self.add(path + (key,), "missing")
            return None
        value = node[key]
        return value if self.kind(path + (key,), value, kind) else None


# ---------------------------------------------------------------- the rules data


def foe_problems(foe: Any, path: tuple = ()) -> list[Problem]:
    """Every problem in one bestiary entry (shipped, house rule or campaign file alike), at ``path``."""
    p = _Problems()
    _check_foe(p, foe, path)
    return p.items


def _check_foe(p: _Problems, foe: Any, path: tuple) -> None:
    if not isinstance(foe, Mapping):
        p.add(path, f"expected a mapping describing the foe ({', '.join(FOE_REQUIRED)}), got {show(foe)}")
        return
    for key in FOE_REQUIRED:
        if key not in foe:
            extra = "; [] for none" if key == "tags" else ""
            p.add(path + (key,), f"missing: a foe has {key} ({_WORDS[FOE_FIELDS[key]]}{extra})")
    for key, value in _data_items(foe):
        kind = FOE_FIELDS.get(key)
        if kind is None:
            close = difflib.get_close_matches(str(key), list(FOE_FIELDS), n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            p.add(path + (key,), f"unknown field; {hint}a foe has {', '.join(FOE_FIELDS)}")
        else:
            p.kind(path + (key,), value, kind)


def _check_provenance(p: _Problems, node: Any, parts: tuple, inherited: str | None) -> None:
    if isinstance(node, Mapping):
        source = node.get("source", inherited)
        if "source" in node and node["source"] not in SOURCES:
            p.add(parts + ("source",), f"expected one of {', '.join(SOURCES)}, got {show(node['source'])}")
        if node.get("source") == "assumed" and not _is_text(node.get("reason")):
            p.add(parts, "source: assumed needs a reason")
        for key in ("quote", "reason", "note"):
            if key in node and not isinstance(node[key], str):
                p.add(parts + (key,), f"expected text, got {show(node[key])}")
        if "assumed" in node:
            assumed = node["assumed"]
            if not isinstance(assumed, Mapping):
                p.add(parts + ("assumed",), "expected a mapping of field to reason")
            else:
                for field, reason in assumed.items():
                    if field not in node:
                        p.add(parts + ("assumed", field), "names a field that is not in this entry")
                    if not _is_text(reason):
                        p.add(parts + ("assumed", field), "needs a reason")
        for key, value in _data_items(node):
            _check_provenance(p, value, parts + (key,), source)
    elif isinstance(node, (list, tuple)):
        for i, value in enumerate(node):
            _check_provenance(p, value, parts + (i,), inherited)
    elif inherited is None:
        p.add(parts, "no source: say source: text (with a quote) or source: assumed (with a reason)")


def _check_choice(p: _Problems, choice: Any, parts: tuple, ability_ids: set, skill_ids: set,
                  gear_ids: set) -> set:
    """Check one choice; returns the ids of its options (nested choices' options included)."""
    options_seen: set = set()
    if not isinstance(choice, Mapping):
        p.add(parts, "expected a mapping")
        return options_seen
    p.need(choice, parts, "prompt", "text")
    p.need(choice, parts, "pick", "posint")
    if "from_skills" in choice:
        p.need(choice, parts, "from_skills", "mapping")
        raise_to = choice.get("raise_to")
        if raise_to not in _SKILL_LEVELS:
            p.add(parts + ("raise_to",), f"expected one of {', '.join(_SKILL_LEVELS)}, got {show(raise_to)}")
        return options_seen
    options = p.need(choice, parts, "options", "mapping")
    for oid, option in _data_items(options or {}):
        op = parts + ("options", oid)
        options_seen.add(oid)
        if not isinstance(option, Mapping):
            p.add(op, "expected a mapping")
            continue
        p.need(option, op, "name", "text")
        effects = p.need(option, op, "effects", "mapping", optional=True) or {}
        for sid, level in _data_items(effects.get("skills") or {}):
            if sid not in skill_ids:
                p.add(op + ("effects", "skills", sid), "not a skill of this class (add it to skills)")
            if level not in _SKILL_LEVELS:
                p.add(op + ("effects", "skills", sid), f"expected proficient or expert, got {show(level)}")
        bonus = effects.get("armor_bonus")
        if bonus is not None:
            p.need(bonus, op + ("effects", "armor_bonus"), "av", "int")
            p.need(bonus, op + ("effects", "armor_bonus"), "dv", "int")
        for i, aid in enumerate(p.need(option, op, "grants", "texts", optional=True) or ()):
            if aid not in ability_ids:
                p.add(op + ("grants", i), f"no ability {aid!r} in this class's abilities")
        _check_items(p, option.get("items"), op + ("items",), gear_ids, optional=True)
        for cid, sub in _data_items(option.get("choices") or {}):
            options_seen |= _check_choice(p, sub, op + ("choices", cid), ability_ids, skill_ids, gear_ids)
    return options_seen


def _check_items(p: _Problems, items: Any, parts: tuple, gear_ids: set, *, optional: bool = False) -> None:
    if items is None:
        if not optional:
            p.add(parts, "missing")
        return
    if not isinstance(items, (list, tuple)):
        p.add(parts, f"expected a list of {{item, count}}, got {show(items)}")
        return
    for i, entry in enumerate(items):
        item = p.need(entry, parts + (i,), "item", "text")
        p.need(entry, parts + (i,), "count", "posint")
        if item is not None and item not in gear_ids:
            p.add(parts + (i, "item"), f"no gear item {item!r} in gear")


def _check_purse(p: _Problems, purse: Any, parts: tuple, units: set) -> None:
    if purse is None:
        return
    if not isinstance(purse, Mapping):
        p.add(parts, f"expected a mapping of currency unit to count, got {show(purse)}")
        return
    for unit, count in _data_items(purse):
        if unit not in units:
            p.add(parts + (unit,), f"not a currency unit (known: {', '.join(sorted(units))})")
        elif not (_is_int(count) and count >= 0):
            p.add(parts + (unit,), f"expected {_WORDS['nonneg']}, got {show(count)}")


_CORE_BLOCKS = {
    "check": {"die": "roll", "rule": "text"},
    "opposed_check": {"die": "roll", "tie": "text"},
    "save": {"die": "roll", "rule": "text"},
    "skill_bonus": {"proficient": "dice", "expert": "dice", "expert_replaces_proficient": "bool"},
    "luck_dice": {"per_session": "nonneg", "die": "die", "stack": "bool", "may_add": "bool",
                  "may_subtract": "bool"},
    "hearts": {"floor": "int"},
    "death_save": {"die": "roll", "target": "int", "retrigger_below": "int", "success_hearts": "nonneg",
                   "after": "text", "heal_dying": "bool"},
    "unarmed": {"damage": "dice"},
    "advantage": {"dice": "roll"},
    "disadvantage": {"dice": "roll"},
    "sight": {"blind_attacker": "text", "against_blind": "text", "melee_ft": "nonneg", "light_ends_darkness": "bool"},
    "initiative": {"die": "roll", "by": "text", "tie": "text", "party_order": "text"},
    "turns": {"actions": "posint", "enforced": "bool", "unmarked": "text", "checks": "text", "orders_last": "text",
              "companions": "text"},
    "ammunition": {"per_attack": "nonneg", "loaded_when_gained": "bool", "reload_uses": "text", "thrown": "text"},
    "spell_damage": {"armor": "bool", "per_dart": "bool"},
    "level_up": {"hearts_gained_heal": "bool"},
    "attack": {"die": "roll", "resist_die": "roll", "tie": "text", "counter_attack_on_miss": "bool"},
    "multi_attack": {"bonus_rolled_once": "bool", "counter_only_if_all_fail": "bool", "target_rolls": "posint"},
    "armor": {"dv_per_hit": "nonneg", "broken_at_dv": "nonneg", "damage_floor": "int"},
    "levels": {"thresholds": "mapping", "cap": "posint"},
    "xp": {"per_heart_vanquished": "nonneg", "per_crown": "nonneg", "per_quest": "nonneg",
           "per_room": "nonneg", "split": "text", "remainder": "text"},
    "currency": {"base": "text", "units": "mapping"},
    "time": {"round_seconds": "posint", "rest_hours": "nonneg"},
    "durations": {"minute": "posint", "hour": "posint", "day": "posint"},
    "rest": {"restores": "texts"},
}
"""The core blocks and what each field holds; every field is required (the engine reads each one)."""

_CORE_CHOICES = (("death_save", "after", ("any_harm", "attack")),
                 ("turns", "unmarked", ("action", "free")),
                 ("turns", "orders_last", ("side_turn", "until_next_turn")),
                 ("attack", "tie", ("both_hit", "attacker", "defender")),
                 ("sight", "blind_attacker", ("disadvantage", "normal")),
                 ("sight", "against_blind", ("advantage", "normal")))
"""Core fields that name one reading among a few (the keeper's choice where the text is doubtful)."""


def rules_problems(data: Mapping) -> list[Problem]:
    """Every problem in a whole rules data set (the shipped rules, or them with house rules laid over)."""
    p = _Problems()
    for name in FILES:
        if not isinstance(data.get(name), Mapping):
            p.add((name,), "missing or not a mapping")
    for key in data:
        if key not in FILES:
            p.add((key,), f"unknown rules file (known: {', '.join(FILES)})")
    if p.items:
        return p.items
    for name in FILES:
        _check_provenance(p, data[name], (name,), None)

    # core
    core = data["core"]
    c = ("core",)
    for block, fields in _CORE_BLOCKS.items():
        node = p.need(core, c, block, "mapping")
        if node is not None:
            for field, kind in fields.items():
                p.need(node, c + (block,), field, kind)
    for block, field, allowed in _CORE_CHOICES:
        node = core.get(block)
        if isinstance(node, Mapping) and field in node and node[field] not in allowed:
            p.add(c + (block, field), f"expected one of {', '.join(allowed)}, got {show(node[field])}")
    luck = core.get("luck_dice")
    if isinstance(luck, Mapping) and luck.get("may_add") is False and luck.get("may_subtract") is False:
        p.add(c + ("luck_dice",), "a luck die is added or subtracted: may_add and may_subtract cannot both be false")
    cap = 3
    levels = core.get("levels")
    if isinstance(levels, Mapping) and _is_int(levels.get("cap")) and isinstance(levels.get("thresholds"), Mapping):
        cap = levels["cap"]
        thresholds = dict(_data_items(levels["thresholds"]))
        if sorted(thresholds, key=str) != sorted(range(1, cap + 1), key=str):
            p.add(c + ("levels", "thresholds"), f"expected levels 1..{cap}, got {sorted(thresholds, key=str)}")
        else:
            xps = [thresholds[lv] for lv in range(1, cap + 1)]
            if not all(_is_int(x) and x >= 0 for x in xps) or xps != sorted(xps) or xps[0] != 0:
                p.add(c + ("levels", "thresholds"), f"expected rising XP from 0, got {xps}")
    for did, seconds in _data_items(core.get("durations") or {}):
        if not (_is_int(seconds) and seconds > 0):
            p.add(c + ("durations", did), f"expected a positive number of seconds, got {show(seconds)}")
    units: set = set()
    currency = core.get("currency")
    if isinstance(currency, Mapping) and isinstance(currency.get("units"), Mapping):
        for uid, unit in _data_items(currency["units"]):
            up = c + ("currency", "units", uid)
            p.need(unit, up, "name", "text")
            p.need(unit, up, "symbol", "text")
            p.need(unit, up, "talons", "posint")
            units.add(uid)
        if currency.get("base") not in units:
            p.add(c + ("currency", "base"), f"not one of the units {sorted(units)}")

    # gear
    gear_ids: set = set()
    for table, items in _data_items(data["gear"]):
        tp = ("gear", table)
        if not isinstance(items, Mapping):
            p.add(tp, "expected a mapping of item id to item")
            continue
        for iid, item in _data_items(items):
            ip = tp + (iid,)
            if iid in gear_ids:
                p.add(ip, "item id used in two gear tables")
            gear_ids.add(iid)
            p.need(item, ip, "name", "text")
            if not isinstance(item, Mapping):
                continue
            if "price" not in item:
                p.add(ip + ("price",), "missing (null when the text gives no price)")
            elif item["price"] is not None:
                _check_purse(p, item["price"], ip + ("price",), units)
            p.need(item, ip, "bundle", "posint", optional=True)
            if table == "weapons" or "damage" in item:
                p.need(item, ip, "damage", "dice")
                p.need(item, ip, "skill", "text_or_null", optional=True)
                p.need(item, ip, "ranged", "bool", optional=True)
                p.need(item, ip, "reload_action", "bool", optional=True)
            if table == "armor" or "av" in item:
                p.need(item, ip, "av", "nonneg")
                p.need(item, ip, "dv", "nonneg")
                if item.get("kind") not in ("worn", "shield"):
                    p.add(ip + ("kind",), f"expected worn or shield, got {show(item.get('kind'))}")
    for table, items in _data_items(data["gear"]):
        for iid, item in _data_items(items if isinstance(items, Mapping) else {}):
            ammo = item.get("ammo") if isinstance(item, Mapping) else None
            if ammo is not None and ammo not in gear_ids:
                p.add(("gear", table, iid, "ammo"), f"no gear item {ammo!r}")

    # spells
    for lid, spell_list in _data_items(data["spells"]):
        lp = ("spells", lid)
        p.need(spell_list, lp, "name", "text")
        spells = p.need(spell_list, lp, "spells", "mapping")
        if not isinstance(spell_list, Mapping) or spells is None:
            continue
        cost = p.need(spell_list, lp, "cost", "mapping", optional=True) or {}
        for rid, n in _data_items(cost):
            if not _is_int(n):
                p.add(lp + ("cost", rid), f"expected {_WORDS['int']}, got {show(n)}")
        pick = p.need(spell_list, lp, "random_pick", "roll_or_null", optional=True)
        numbers = []
        for sid, spell in _data_items(spells):
            sp = lp + ("spells", sid)
            p.need(spell, sp, "name", "text")
            p.need(spell, sp, "effect", "text")
            for field in ("damage", "heal"):
                p.need(spell, sp, field, "dice", optional=True)
            if pick is not None:
                n = p.need(spell, sp, "number", "posint")
                if n is not None:
                    numbers.append(n)
        if pick is not None and sorted(numbers) != list(range(1, len(numbers) + 1)):
            p.add(lp + ("spells",), f"numbers must run 1..{len(numbers)} once each, got {sorted(numbers)}")

    # true names
    names = p.need(data["true_names"], ("true_names",), "names", "mapping")
    if names is not None:
        keys = sorted((k for k, _ in _data_items(names)), key=str)
        if keys != sorted(_D66, key=str):
            p.add(("true_names", "names"), f"expected the 36 D66 results 11..66, got {keys}")
        values = [v for _, v in _data_items(names)]
        for k, v in _data_items(names):
            if not _is_text(v):
                p.add(("true_names", "names", k), f"expected a name, got {show(v)}")
        if len(set(map(str, values))) != len(values):
            p.add(("true_names", "names"), "a name appears twice")

    # bestiary
    for fid, foe in _data_items(data["bestiary"]):
        _check_foe(p, foe, ("bestiary", fid))

    # classes
    resources_all: set = set()
    for cid, klass in _data_items(data["classes"]):
        resources_all |= _check_class(p, klass, ("classes", cid), cap, units, gear_ids)
    rest = core.get("rest")
    for i, rid in enumerate(rest.get("restores", ()) if isinstance(rest, Mapping) else ()):
        if rid not in resources_all:
            p.add(c + ("rest", "restores", i), f"no class has a resource {rid!r}")
    return p.items


def _check_class(p: _Problems, klass: Any, kp: tuple, cap: int, units: set, gear_ids: set) -> set:
    """Check one class; returns its resource ids."""
    if not isinstance(klass, Mapping):
        p.add(kp, "expected a mapping")
        return set()
    p.need(klass, kp, "name", "text")
    skills = p.need(klass, kp, "skills", "mapping") or {}
    skill_ids = {k for k, _ in _data_items(skills)}
    for sid, skill in _data_items(skills):
        p.need(skill, kp + ("skills", sid), "name", "text")
        p.need(skill, kp + ("skills", sid), "weapon", "bool")
    resources = p.need(klass, kp, "resources", "mapping") or {}
    resource_ids = {k for k, _ in _data_items(resources)}
    for rid, res in _data_items(resources):
        rp = kp + ("resources", rid)
        p.need(res, rp, "name", "text")
        p.need(res, rp, "restores_on", "text")
        mx = p.need(res, rp, "max", "mapping")
        if mx is not None:
            for lv in range(1, cap + 1):
                if not (_is_int(mx.get(lv)) and mx[lv] >= 0):
                    p.add(rp + ("max", lv), f"expected {_WORDS['nonneg']}, got {show(mx.get(lv))}")
    abilities = p.need(klass, kp, "abilities", "mapping") or {}
    ability_ids = {k for k, _ in _data_items(abilities)}
    option_ids: set = set()
    levels_node = p.need(klass, kp, "levels", "mapping")
    level_keys = sorted((k for k, _ in _data_items(levels_node or {})), key=str)
    if levels_node is None:
        levels_node = {}
    elif level_keys != [lv for lv in range(1, cap + 1)]:
        p.add(kp + ("levels",), f"expected levels 1..{cap}, got {level_keys}")
    for lv, level in _data_items(levels_node):
        lp = kp + ("levels", lv)
        hearts = p.need(level, lp, "hearts", "mapping")
        if hearts is not None:
            kinds = [k for k in _HEARTS_KINDS if k in hearts]
            extra = [k for k, _ in _data_items(hearts) if k not in _HEARTS_KINDS]
            if len(kinds) != 1 or extra:
                p.add(lp + ("hearts",), f"expected exactly one of {', '.join(_HEARTS_KINDS)}, "
                                        f"got {sorted(str(k) for k, _ in _data_items(hearts))}")
            else:
                kind = kinds[0]
                if lv == 1 and kind == "gain":
                    p.add(lp + ("hearts",), "level 1 sets or rolls hearts; there is nothing to gain on")
                p.need(hearts, lp + ("hearts",), kind, {"set": "posint", "roll": "roll", "gain": "dice"}[kind])
        for sid, bonus in _data_items(level.get("skills") or {} if isinstance(level, Mapping) else {}):
            if sid not in skill_ids:
                p.add(lp + ("skills", sid), "not a skill of this class (add it to skills)")
            if bonus not in _SKILL_LEVELS:
                p.add(lp + ("skills", sid), f"expected proficient or expert, got {show(bonus)}")
        if isinstance(level, Mapping):
            for chid, choice in _data_items(level.get("choices") or {}):
                option_ids |= _check_choice(p, choice, lp + ("choices", chid), ability_ids, skill_ids, gear_ids)
    gear = p.need(klass, kp, "starting_gear", "mapping")
    if gear is not None:
        _check_items(p, gear.get("items"), kp + ("starting_gear", "items"), gear_ids)
        _check_purse(p, gear.get("purse"), kp + ("starting_gear", "purse"), units)
        for chid, choice in _data_items(gear.get("choices") or {}):
            _check_choice(p, choice, kp + ("starting_gear", "choices", chid), ability_ids, skill_ids, gear_ids)
    for aid, ability in _data_items(abilities):
        ap = kp + ("abilities", aid)
        if not isinstance(ability, Mapping):
            p.add(ap, "expected a mapping")
            continue
        p.need(ability, ap, "name", "text")
        p.need(ability, ap, "effect", "text")
        lv = p.need(ability, ap, "level", "posint")
        if lv is not None and lv > cap:
            p.add(ap + ("level",), f"above the level cap {cap}")
        cost = p.need(ability, ap, "cost", "mapping")
        for rid, n in _data_items(cost or {}):
            if rid not in resource_ids and rid != "hearts" and rid not in units:
                p.add(ap + ("cost", rid), "not a resource of this class, hearts, or a currency unit")
            if not (_is_int(n) and n >= 0):
                p.add(ap + ("cost", rid), f"expected {_WORDS['nonneg']}, got {show(n)}")
        variable = p.need(ability, ap, "variable_cost", "mapping", optional=True)
        if variable is not None and variable.get("resource") not in resource_ids:
            p.add(ap + ("variable_cost", "resource"), "not a resource of this class")
        requires = p.need(ability, ap, "requires", "mapping", optional=True)
        if requires is not None and requires.get("option") not in option_ids:
            p.add(ap + ("requires", "option"), f"no option {requires.get('option')!r} in this class's level choices")
        mech = p.need(ability, ap, "mechanics", "mapping", optional=True) or {}
        for field in ("roll_bonus", "damage_reduction", "heal", "damage", "extra_damage", "attack_bonus",
                      "blessing_die"):
            p.need(mech, ap + ("mechanics",), field, "dice", optional=True)
    known = p.need(klass, kp, "true_names_known", "mapping", optional=True)
    if known is not None:
        mx = p.need(known, kp + ("true_names_known",), "max", "mapping") or {}
        for lv in range(1, cap + 1):
            if not (_is_int(mx.get(lv)) and 0 <= mx[lv] <= len(_D66)):
                p.add(kp + ("true_names_known", "max", lv), f"expected 0..36, got {show(mx.get(lv))}")
    return resource_ids


def bestiary_problems(data: Mapping) -> list[Problem]:
    """The problems ``rules_problems`` would find in the bestiary alone: its provenance and every foe.

    Nothing else in the rules refers to a foe, so rules known to hold, with only their bestiary changed, need only
    this check (a campaign's own bestiary, laid over the rules at every open)."""
    p = _Problems()
    bestiary = data.get("bestiary")
    if not isinstance(bestiary, Mapping):
        p.add(("bestiary",), "missing or not a mapping")
        return p.items
    _check_provenance(p, bestiary, ("bestiary",), None)
    for fid, foe in _data_items(bestiary):
        _check_foe(p, foe, ("bestiary", fid))
    return p.items


# ---------------------------------------------------------------- house rules


def _expected(base: Any, key: Any) -> str:
    if key in _DICE_KEYS or (isinstance(base, str) and _is_dice(base) and not base.isalpha()):
        return _WORDS["dice"]
    if isinstance(base, bool):
        return _WORDS["bool"]
    if _is_int(base):
        return _WORDS["int"]
    if isinstance(base, str):
        return _WORDS["text"]
    if isinstance(base, (list, tuple)):
        return _WORDS["list"]
    if isinstance(base, Mapping):
        return _WORDS["mapping"]
    return "a value"


def _type_problem(base: Any, new: Any, key: Any) -> str | None:
    """None if ``new`` may replace ``base`` (same kind of value); else the reason."""
    if new is None:
        ok = base is None or key in _NULLABLE_KEYS
    elif base is None:
        ok = isinstance(new, (str, int, float, bool, list, tuple, Mapping))
    elif key in _DICE_KEYS or (isinstance(base, str) and _is_dice(base) and not base.isalpha()):
        return _dice_problem(new, "dice")
    elif isinstance(base, bool):
        ok = isinstance(new, bool)
    elif _is_int(base):
        ok = _is_int(new)
    elif isinstance(base, str):
        ok = isinstance(new, str)
    elif isinstance(base, (list, tuple)):
        ok = isinstance(new, (list, tuple))
        if ok and base and all(isinstance(b, str) for b in base):
            ok = all(isinstance(n, str) for n in new)
        elif ok and base and all(isinstance(b, Mapping) for b in base):
            ok = all(isinstance(n, Mapping) for n in new)
    elif isinstance(base, Mapping):
        ok = isinstance(new, Mapping)
    else:
        ok = True
    return None if ok else f"expected {_expected(base, key)}, got {show(new)}"


def _fixed(path: tuple) -> str | None:
    """A house rule changing a field that is no house rule (``rules.fixed``): refused, saying why."""
    why = fixed_reason(path)
    return None if why is None else f"not overridable: {why}"


def _provenance_value_problem(key: str, value: Any) -> str | None:
    if key == "source":
        return None if value in SOURCES else f"expected one of {', '.join(SOURCES)}, got {show(value)}"
    if key == "assumed":
        ok = isinstance(value, Mapping) and all(isinstance(k, str) and _is_text(v) for k, v in value.items())
        return None if ok else f"expected a mapping of field to reason, got {show(value)}"
    return None if isinstance(value, str) else f"expected text, got {show(value)}"


def merge_overrides(base: Mapping, overrides: Any) -> tuple[dict, list[str], list[Problem]]:
    """Lay ``overrides`` over ``base`` (a whole rules data set), checking keys and types as it goes.

    Returns (the merged data, the dotted paths changed or added, the problems). A key that is unknown or a value
    of the wrong kind is left out of the merge and reported; the merged data still needs ``rules_problems``
    (a new class or foe must be whole)."""
    p = _Problems()
    changed: list[str] = []
    merged = _merge(base, overrides, (), changed, p)
    return merged, changed, p.items


def _merge(base: Mapping, override: Any, parts: tuple, changed: list, p: _Problems) -> dict:
    merged = _thaw(base)
    if not isinstance(override, Mapping):
        p.add(parts, f"expected a mapping, got {show(override)}")
        return merged
    for raw_key, value in override.items():
        key = raw_key
        if key not in base and isinstance(key, str) and key.strip().lstrip("-").isdigit():
            # "2" typed as text where the table's keys are whole numbers (levels, D66 results)
            if int(key) in base or any(_is_int(k) for k in base):
                key = int(key)
        here = parts + (key,)
        if key in PROVENANCE_KEYS:
            reason = _provenance_value_problem(key, value)
            if reason is not None:
                p.add(here, reason)
                continue
            merged[key] = _thaw(value)
            changed.append(dotted(here))
            continue
        if key not in base:
            if not _matches(parts, OPEN_TABLES):
                known = ", ".join(str(k) for k, _ in _data_items(base)) or "none"
                p.add(here, f"unknown key (known here: {known})")
                continue
            new = _thaw(value)
            if isinstance(new, dict) and parts and parts[-1] != "max" and "source" not in new:
                if not _matches(parts, (("core", "levels", "thresholds"), ("core", "durations"))):
                    new["source"] = "house"
            merged[key] = new
            changed.append(dotted(here))
            continue
        old = base[key]
        if _matches(here, _REPLACED_WHOLE):
            if not isinstance(value, Mapping):
                p.add(here, f"expected a mapping with one of {', '.join(_HEARTS_KINDS)}, got {show(value)}")
                continue
            merged[key] = _thaw(value)
            changed.append(dotted(here))
            continue
        if isinstance(old, Mapping):
            merged[key] = _merge(old, value, here, changed, p)
            continue
        reason = _type_problem(old, value, key) or (_fixed(here) if _thaw(value) != _thaw(old) else None)
        if reason is not None:
            p.add(here, reason)
            continue
        merged[key] = _thaw(value)
        changed.append(dotted(here))
    return merged


# ---------------------------------------------------------------- the campaign file


_CAMPAIGN_RULES: dict[str, tuple[Any, Any, tuple]] = {}
"""Recent campaign_rules results by the text of (house rules, bestiary): the store's check and the campaign's
open ask for the same rules one after the other, and Rules never change, so the second asks for nothing."""


def campaign_rules(campaign: Mapping, base: Any) -> tuple[Any, list[Problem]]:
    """The rules a campaign plays by: ``base`` (a ``Rules``) with the campaign's house rules, then its own bestiary,
    laid over. Returns (the Rules, or None if they do not hold, and the problems at campaign-file paths)."""
    key = repr((campaign.get("house_rules"), campaign.get("bestiary")))
    hit = _CAMPAIGN_RULES.get(key)
    if hit is not None and hit[0] is base:
        return hit[1], list(hit[2])
    rules, problems = _campaign_rules(campaign, base)
    if len(_CAMPAIGN_RULES) >= 16:
        _CAMPAIGN_RULES.clear()
    _CAMPAIGN_RULES[key] = (base, rules, tuple(problems))
    return rules, problems


def _campaign_rules(campaign: Mapping, base: Any) -> tuple[Any, list[Problem]]:
    problems: list[Problem] = []
    rules = base
    house = campaign.get("house_rules")
    if house is not None and not isinstance(house, Mapping):
        problems.append(Problem(("house_rules",), f"expected a mapping of rules to change, got {show(house)}"))
        rules = None
    elif house:
        house, misplaced = _own_foes_in_house_rules(house, campaign.get("bestiary"), base)
        problems += misplaced
        try:
            rules = base.with_overrides(house)
        except RulesError as err:
            problems += [Problem(("house_rules",) + q.path, q.reason) for q in err.problems]
            rules = None
    bestiary = campaign.get("bestiary")
    if bestiary is not None and not isinstance(bestiary, Mapping):
        problems.append(Problem(("bestiary",), f"expected a mapping of foe id -> foe, got {show(bestiary)}"))
        return None, problems
    entries = {}
    for foe_id, foe in (bestiary or {}).items():
        if not _is_text(foe_id):
            problems.append(Problem(("bestiary", str(foe_id)), f"foe ids are text: quote it "
                                                               f"({json.dumps(str(foe_id))})"))
        elif not isinstance(foe, Mapping):
            problems.append(Problem(("bestiary", foe_id), f"expected a mapping describing the foe "
                                                          f"({', '.join(FOE_REQUIRED)}), got {show(foe)}"))
        else:
            entries[foe_id] = foe
    if entries:
        under = rules if rules is not None else base
        try:
            laid = under.with_overrides({"bestiary": entries}, origin="campaign bestiary")
        except RulesError as err:
            problems += list(err.problems)  # the paths are the campaign file's: bestiary.<id>...
            rules = None
        else:
            rules = laid if rules is not None else None
    if problems:
        rules = None
    return rules, problems


def _own_foes_in_house_rules(house: Mapping, own: Any, base: Any) -> tuple[Mapping, list[Problem]]:
    """House rules change the shipped rules; a ``house_rules.bestiary`` entry naming one of the campaign's own
    foes (under ``bestiary:``) is not a new foe missing its fields but a change made in the wrong place: said so
    once, and left out of the merge."""
    table = house.get("bestiary")
    if not isinstance(table, Mapping) or not isinstance(own, Mapping):
        return house, []
    misplaced = [fid for fid in table if fid in own and fid not in base.bestiary]
    if not misplaced:
        return house, []
    problems = [Problem(("house_rules", "bestiary", fid),
                        f"{fid!r} is this campaign's own foe (under bestiary:), not a shipped one: house_rules change "
                        f"the shipped rules; change {fid} under bestiary: instead") for fid in misplaced]
    house = dict(house)
    house["bestiary"] = {k: v for k, v in table.items() if k not in misplaced}
    return house, problems


def _unique_texts(p: _Problems, path: tuple, value: Any, what: str) -> list[str]:
    if not isinstance(value, list):
        p.add(path, f"expected a list of {what} (text), got {show(value)}")
        return []
    seen: dict[str, int] = {}
    for i, v in enumerate(value):
        if not _is_text(v):
            p.add(path + (i,), f"expected {what} (text), got {show(v)}")
        elif v in seen:
            p.add(path + (i,), f"{v!r} is listed twice (first at {field_name(path + (seen[v],))})")
        else:
            seen[v] = i
    return list(seen)


def _table(p: _Problems, data: Mapping, key: str, what: str) -> dict:
    """A mapping of id -> entry mapping (encounters, rooms, quests); the well-formed entries."""
    table = data.get(key)
    if table is None:
        return {}
    if not isinstance(table, Mapping):
        p.add((key,), f"expected a mapping of {what} id -> {what}, got {show(table)}")
        return {}
    good = {}
    for entry_id, entry in table.items():
        if not _is_text(entry_id):
            p.add((key, str(entry_id)), f"{what} ids are text: quote it ({json.dumps(str(entry_id))})")
        elif not isinstance(entry, Mapping):
            p.add((key, entry_id), f"expected a mapping describing the {what}, got {show(entry)}")
        else:
            good[entry_id] = entry
    return good


def _unknown_fields(p: _Problems, path: tuple, entry: Mapping, allowed: Iterable[str], what: str) -> None:
    allowed = tuple(allowed)
    for key in entry:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            p.add(path + (str(key),), f"unknown field; {hint}{what} has {', '.join(allowed)}")


def check_campaign(campaign: Any, base: Any) -> tuple[Any, list[Problem]]:
    """Every problem in a parsed ``campaign.yaml``, and the rules it plays by.

    ``base`` is the shipped ``Rules``. Returns (the campaign's Rules, or None when there are problems, and the
    problems, each at its path in the file)."""
    p = _Problems()
    if not isinstance(campaign, Mapping):
        p.add((), f"expected a mapping of campaign fields (format, name, seats, delvers, ...), got {show(campaign)}")
        return None, p.items
    for path, reason in _unwritable_text(campaign):
        p.add(path, reason)
    if p.items:
        return None, p.items
    for key in campaign:
        if key not in CAMPAIGN_FIELDS:
            close = difflib.get_close_matches(str(key), CAMPAIGN_FIELDS, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            p.add((str(key),), f"unknown field; {hint}allowed: {', '.join(CAMPAIGN_FIELDS)}")
    if "format" not in campaign:
        p.add(("format",), f"missing: the format version (add `format: {FORMAT_VERSION}` at the top)")
    elif not _is_int(campaign["format"]) or campaign["format"] < 1:
        p.add(("format",), f"expected the format version (a whole number, {FORMAT_VERSION}), "
                           f"got {show(campaign['format'])}")
    elif campaign["format"] > FORMAT_VERSION:
        p.add(("format",), f"written by a newer delvebook (format {campaign['format']}); this one reads format "
                           f"{FORMAT_VERSION}: upgrade delvebook to open it")
    if "name" not in campaign:
        p.add(("name",), "missing: the campaign's name (text)")
    else:
        p.kind(("name",), campaign["name"], "text")
    if campaign.get("seed") is not None:
        p.kind(("seed",), campaign["seed"], "int")
    seats = None
    if campaign.get("seats") is not None:
        seats = _unique_texts(p, ("seats",), campaign["seats"], "delver names in clockwise order")
    players = None
    if campaign.get("players") is not None:
        players = _unique_texts(p, ("players",), campaign["players"], "player names")
    if campaign.get("notes") is not None and not isinstance(campaign["notes"], str):
        p.add(("notes",), f"expected text, got {show(campaign['notes'])}")

    rules, rule_problems = campaign_rules(campaign, base)
    p.items += rule_problems
    known = rules if rules is not None else base

    house = campaign.get("house_rules")
    house_classes = house.get("classes") if isinstance(house, Mapping) else None
    pending = set(house_classes) if rules is None and isinstance(house_classes, Mapping) else set()
    names = _check_delvers(p, campaign.get("delvers"), known, players, pending)
    if seats:
        listed = ", ".join(names) or "none listed"
        for i, seat in enumerate(campaign["seats"]):
            if seat in seats and seat not in names and campaign["seats"].index(seat) == i:
                p.add(("seats", i), f"{seat!r} is not one of the delvers ({listed}); seats name delvers listed "
                                    f"under delvers")

    foes = set(known.bestiary)
    if rules is None:  # what the file adds counts as known: its problems are reported above, not again here
        for table in (campaign.get("bestiary"), house.get("bestiary") if isinstance(house, Mapping) else None):
            if isinstance(table, Mapping):
                foes |= {f for f in table if _is_text(f)}
    for enc_id, enc in _table(p, campaign, "encounters", "encounter").items():
        here = ("encounters", enc_id)
        _unknown_fields(p, here, enc, ENCOUNTER_FIELDS, "a prepared encounter")
        listed = enc.get("foes")
        if "foes" not in enc:
            p.add(here + ("foes",), "missing: the list of foes (bestiary ids, or {foe: id, count: N})")
        elif not isinstance(listed, list) or not listed:
            p.add(here + ("foes",), f"expected a list of at least one bestiary id or {{foe: id, count: N}}, "
                                    f"got {show(listed)}")
        else:
            total = 0
            for i, f in enumerate(listed):
                at = here + ("foes", i)
                if isinstance(f, Mapping):
                    _unknown_fields(p, at, f, ("foe", "count"), "a foe entry")
                    if "count" in f and p.kind(at + ("count",), f["count"], "posint"):
                        total += f["count"] - 1
                        if total + i + 1 > ENCOUNTER_MAX_FOES:
                            p.add(at + ("count",), f"{f['count']:,} foes; a prepared encounter holds at most "
                                                   f"{ENCOUNTER_MAX_FOES} foes, counts added up")
                    if "foe" not in f:
                        p.add(at + ("foe",), "missing: the bestiary id of the foe")
                        continue
                    f, at = f["foe"], at + ("foe",)
                if not _is_text(f):
                    p.add(at, f"expected a bestiary id (text), got {show(f)}")
                elif f not in foes:
                    p.add(at, f"no foe {f!r} in the bestiary (known: {', '.join(sorted(foes))})")
        for key in ("note", "name"):
            if enc.get(key) is not None and not isinstance(enc[key], str):
                p.add(here + (key,), f"expected text, got {show(enc[key])}")
        if "dark" in enc and not isinstance(enc["dark"], bool):
            p.add(here + ("dark",), f"expected true or false (fought in darkness), got {show(enc['dark'])}")

    for key, what in (("rooms", "room"), ("quests", "quest")):
        for entry_id, entry in _table(p, campaign, key, what).items():
            here = (key, entry_id)
            _unknown_fields(p, here, entry, PLACE_FIELDS, f"a {what}")
            if "name" not in entry:
                p.add(here + ("name",), f"missing: the {what}'s name (text)")
            else:
                p.kind(here + ("name",), entry["name"], "text")
            if entry.get("note") is not None and not isinstance(entry["note"], str):
                p.add(here + ("note",), f"expected text, got {show(entry['note'])}")
    return (rules if not p.items else None), p.items


def _unwritable_text(data: Any) -> Iterator[tuple[tuple, str]]:
    """Text (keys too) that cannot be written back as UTF-8: lone surrogates, the escapes Python gives bytes that
    were not UTF-8 (a name taken from a file name, a byte typed in a terminal). Iterative."""
    stack = [((), data)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, str):
            if not v.isascii() and _SURROGATES.search(v):
                shown = v.encode("utf-8", "backslashreplace").decode("utf-8")[:60]
                yield path, f"holds characters that are not UTF-8 text ({shown}); write it in UTF-8"
        elif isinstance(v, Mapping):
            for k, x in v.items():
                if isinstance(k, str) and not k.isascii() and _SURROGATES.search(k):
                    yield path + (k,), "this key holds characters that are not UTF-8 text; write it in UTF-8"
                stack.append((path + (k,), x))
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                stack.append((path + (i,), x))


_SURROGATES = re.compile("[\ud800-\udfff]")


def _check_delvers(p: _Problems, delvers: Any, rules: Any, players: list[str] | None, pending: set) -> list[str]:
    """Check the starting sheets against the rules the campaign plays by; returns the delvers' names.

    ``pending``: class ids the house rules add but that did not hold (reported there, not as unknown here)."""
    names: dict[str, int] = {}
    if delvers is None:
        return []
    if not isinstance(delvers, list):
        p.add(("delvers",), f"expected a list of delvers' starting sheets, got {show(delvers)}")
        return []
    classes = rules.classes
    for i, d in enumerate(delvers):
        here = ("delvers", i)
        if not isinstance(d, Mapping):
            p.add(here, f"expected a delver's sheet (a mapping with name and class), got {show(d)}")
            continue
        _unknown_fields(p, here, d, SHEET_FIELDS, "a delver's sheet")
        if "name" not in d:
            p.add(here + ("name",), "missing: the delver's name (text)")
        elif isinstance(d["name"], str) and len(d["name"]) > MAX_NAME:
            p.add(here + ("name",), f"a name of {len(d['name']):,} characters; at most {MAX_NAME}")
        elif p.kind(here + ("name",), d["name"], "text"):
            if d["name"] in names:
                p.add(here + ("name",), f"two delvers are named {d['name']!r} (the other is "
                                        f"delvers[{names[d['name']]}]); names must differ")
            else:
                names[d["name"]] = i
        klass = None
        if "class" not in d:
            p.add(here + ("class",), "missing: the delver's class id (text)")
        elif not _is_text(d["class"]):
            p.add(here + ("class",), f"expected a class id (text), got {show(d['class'])}")
        elif d["class"] not in classes:
            if d["class"] not in pending:
                p.add(here + ("class",), f"unknown class {d['class']!r} (known: {', '.join(classes)})")
        else:
            klass = classes[d["class"]]
        if d.get("player") is not None and p.kind(here + ("player",), d["player"], "text"):
            if players is not None and d["player"] not in players:
                p.add(here + ("player",), f"{d['player']!r} is not one of the players "
                                          f"({', '.join(players) or 'none listed'})")
        if "hearts" in d and p.kind(here + ("hearts",), d["hearts"], "posint") and d["hearts"] > SHEET_MAX_HEARTS:
            p.add(here + ("hearts",), f"expected at most {SHEET_MAX_HEARTS:,} starting hearts, got {d['hearts']:,}")
        if "purse" in d:
            _check_sheet_purse(p, here + ("purse",), d["purse"], rules)
        if "spells" in d:
            _check_known(p, here + ("spells",), d["spells"], list(rules.spells), "spell id")
        if "true_names" in d:
            _check_known(p, here + ("true_names",), d["true_names"], list(rules.true_names.values()), "true name")
        if "choices" in d and klass is not None:
            _check_sheet_choices(p, here + ("choices",), d["choices"], klass)
        elif "choices" in d and not isinstance(d["choices"], Mapping):
            p.add(here + ("choices",), f"expected a mapping of choice -> option, got {show(d['choices'])}")
    return list(names)


def _check_sheet_purse(p: _Problems, path: tuple, purse: Any, rules: Any) -> None:
    units = [k for k, _ in _data_items(rules.core["currency"]["units"])]
    if _is_int(purse):
        if purse < 0:
            p.add(path, f"expected {_WORDS['nonneg']} (talons), got {purse}")
        return
    if not isinstance(purse, Mapping):
        p.add(path, f"expected a number of talons or a mapping of currency units ({', '.join(units)}) to "
                    f"counts, got {show(purse)}")
        return
    for unit, count in purse.items():
        if unit not in units:
            p.add(path + (str(unit),), f"not a currency unit (known: {', '.join(units)})")
        elif not (_is_int(count) and count >= 0):
            p.add(path + (unit,), f"expected {_WORDS['nonneg']}, got {show(count)}")


def _check_known(p: _Problems, path: tuple, value: Any, known: list, what: str) -> None:
    if not isinstance(value, list):
        p.add(path, f"expected a list of {what}s, got {show(value)}")
        return
    seen = set()
    for i, v in enumerate(value):
        if not isinstance(v, str) or v not in known:
            shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
            p.add(path + (i,), f"expected a {what} (one of {shown}), got {show(v)}")
        elif v in seen:
            p.add(path + (i,), f"{v!r} is listed twice")
        else:
            seen.add(v)


def _check_sheet_choices(p: _Problems, path: tuple, choices: Any, klass: Mapping) -> None:
    """Starting choices are the ones a new delver of the class makes: its starting gear's, and its level 1's."""
    if not isinstance(choices, Mapping):
        p.add(path, f"expected a mapping of choice -> option, got {show(choices)}")
        return
    offered: dict = {}
    gear = klass.get("starting_gear") or {}
    for cid, choice in _data_items(gear.get("choices") or {}):
        offered[cid] = choice
    levels = klass.get("levels") or {}
    level1 = levels.get(1) or {}
    for cid, choice in _data_items(level1.get("choices") or {}):
        offered.setdefault(cid, choice)
    for cid, option in choices.items():
        here = path + (str(cid),)
        if cid not in offered:
            p.add(here, f"not a choice a new {klass.get('name', 'delver')} makes "
                        f"(choices: {', '.join(map(str, offered)) or 'none'})")
            continue
        choice = offered[cid]
        if "from_skills" in choice:
            p.add(here, "this choice is made in play (camp.choose), not on the starting sheet")
            continue
        options = [k for k, _ in _data_items(choice.get("options") or {})]
        if option not in options:
            p.add(here, f"expected one of {', '.join(map(str, options))}, got {show(option)}")
