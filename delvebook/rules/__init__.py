"""The game's rules as data: core numbers, classes, spells, true names, gear and a default bestiary.

The numbers and tables live in the YAML files beside this module (each documents its schema at the top);
``delvebook.rules.load.load_rules()`` reads them. This module is pure (standard library only, no YAML):
``Rules`` wraps already-parsed data, so the engine, a script or a test can build one from plain dicts.

A campaign's house rules are a nested dict laid over the shipped rules with ``Rules.with_overrides``:
any number or table can change, gear, foes, spells, classes (and a few other open tables) can be added, and
anything else (an unknown key, a wrong type) is refused with a ``RulesError`` naming the key path.
Every entry says where it came from (``source: text`` or ``source: assumed`` with a ``reason``);
``Rules.assumptions()`` lists what delvebook assumed where the text is silent, for the keeper to review.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Iterator, NamedTuple

from ..dice import DiceError, parse as _parse_dice

__all__ = [
    "RulesError",
    "Rules",
    "Assumption",
    "FILES",
    "PROVENANCE_KEYS",
    "SOURCES",
    "OPEN_TABLES",
]

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


class RulesError(ValueError):
    """Rules data (shipped or a campaign's house rules) that has the wrong shape; names the key path."""


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


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(v) for v in value]
    return value


def _path(parts: tuple) -> str:
    return ".".join(str(p) for p in parts)


def _matches(parts: tuple, patterns: tuple) -> bool:
    for pattern in patterns:
        if len(pattern) == len(parts) and all(p == "*" or p == k for p, k in zip(pattern, parts)):
            return True
    return False


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_dice(value: Any) -> bool:
    if _is_int(value):
        return True
    if not isinstance(value, str) or not value.strip():
        return False
    try:
        _parse_dice(value)
    except DiceError:
        return False
    return True


def _show(value: Any) -> str:
    return repr(_thaw(value)) if not isinstance(value, str) else repr(value)


def _data_items(node: Mapping) -> Iterator[tuple[Any, Any]]:
    """The entries of a mapping without its provenance keys."""
    for key, value in node.items():
        if key not in PROVENANCE_KEYS:
            yield key, value


def _expected(base: Any, key: Any) -> str:
    if key in _DICE_KEYS or (isinstance(base, str) and _is_dice(base) and not base.isalpha()):
        return "a dice expression or an integer"
    if isinstance(base, bool):
        return "true or false"
    if _is_int(base):
        return "an integer"
    if isinstance(base, str):
        return "a string"
    if isinstance(base, (list, tuple)):
        return "a list"
    if isinstance(base, Mapping):
        return "a mapping"
    return "a value"


def _type_ok(base: Any, new: Any, key: Any) -> bool:
    if new is None:
        return base is None or key in _NULLABLE_KEYS
    if base is None:
        return isinstance(new, (str, int, float, bool, list, tuple, Mapping))
    if key in _DICE_KEYS or (isinstance(base, str) and _is_dice(base) and not base.isalpha()):
        return _is_dice(new)
    if isinstance(base, bool):
        return isinstance(new, bool)
    if _is_int(base):
        return _is_int(new)
    if isinstance(base, str):
        return isinstance(new, str)
    if isinstance(base, (list, tuple)):
        if not isinstance(new, (list, tuple)):
            return False
        if base and all(isinstance(b, str) for b in base):
            return all(isinstance(n, str) for n in new)
        if base and all(isinstance(b, Mapping) for b in base):
            return all(isinstance(n, Mapping) for n in new)
        return True
    if isinstance(base, Mapping):
        return isinstance(new, Mapping)
    return True


def _check_provenance_value(key: str, value: Any, where: str) -> None:
    if key == "source":
        if value not in SOURCES:
            raise RulesError(f"{where}: expected one of {', '.join(SOURCES)}, got {_show(value)}")
    elif key == "assumed":
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in value.items()
        ):
            raise RulesError(f"{where}: expected a mapping of field to reason, got {_show(value)}")
    elif not isinstance(value, str):
        raise RulesError(f"{where}: expected a string, got {_show(value)}")


def _merge(base: Mapping, override: Any, parts: tuple, prefix: str, changed: list) -> dict:
    """Lay ``override`` over ``base`` (both mappings), checking keys and types; returns a new plain dict."""
    where = f"{prefix}{_path(parts)}" if parts else prefix.rstrip(": ")
    if not isinstance(override, Mapping):
        raise RulesError(f"{where}: expected a mapping, got {_show(override)}")
    merged = _thaw(base)
    for raw_key, value in override.items():
        key = raw_key
        if key not in base and isinstance(key, str) and key.strip().lstrip("-").isdigit():
            # "2" typed as a string where the table's keys are integers (levels, D66 results)
            if int(key) in base or any(_is_int(k) for k in base):
                key = int(key)
        here = parts + (key,)
        here_s = f"{prefix}{_path(here)}"
        if key in PROVENANCE_KEYS:
            _check_provenance_value(key, value, here_s)
            merged[key] = _thaw(value)
            changed.append(_path(here))
            continue
        if key not in base:
            if not _matches(parts, OPEN_TABLES):
                known = ", ".join(str(k) for k, _ in _data_items(base)) or "none"
                raise RulesError(f"{here_s}: unknown key (known here: {known})")
            new = _thaw(value)
            if isinstance(new, dict) and parts and parts[-1] != "max" and "source" not in new:
                if not _matches(parts, (("core", "levels", "thresholds"), ("core", "durations"))):
                    new["source"] = "house"
            merged[key] = new
            changed.append(_path(here))
            continue
        old = base[key]
        if _matches(here, _REPLACED_WHOLE):
            if not isinstance(value, Mapping):
                raise RulesError(f"{here_s}: expected a mapping with one of {', '.join(_HEARTS_KINDS)}, "
                                 f"got {_show(value)}")
            merged[key] = _thaw(value)
            changed.append(_path(here))
            continue
        if isinstance(old, Mapping):
            merged[key] = _merge(old, value, here, prefix, changed)
            continue
        if not _type_ok(old, value, key):
            raise RulesError(f"{here_s}: expected {_expected(old, key)}, got {_show(value)}")
        merged[key] = _thaw(value)
        changed.append(_path(here))
    return merged


# ---------------------------------------------------------------- validation


class _Errors:
    def __init__(self, prefix: str):
        self.prefix = prefix
        self.items: list[str] = []

    def add(self, parts: tuple, message: str) -> None:
        self.items.append(f"{self.prefix}{_path(parts)}: {message}")

    def raise_if_any(self) -> None:
        if self.items:
            if len(self.items) == 1:
                raise RulesError(self.items[0])
            raise RulesError(f"{len(self.items)} problems:\n  " + "\n  ".join(self.items))


def _need(errors: _Errors, node: Any, parts: tuple, key: Any, kind: str, *, optional: bool = False) -> Any:
    """Check ``node[key]`` has ``kind`` (str, int, posint, nonneg, bool, dice, mapping, list, str_list,
    str_or_none, dice_or_none); returns the value or None."""
    if not isinstance(node, Mapping):
        errors.add(parts, f"expected a mapping, got {_show(node)}")
        return None
    if key not in node:
        if not optional:
            errors.add(parts + (key,), "missing")
        return None
    value = node[key]
    ok = {
        "str": lambda v: isinstance(v, str) and bool(v.strip()),
        "int": _is_int,
        "posint": lambda v: _is_int(v) and v > 0,
        "nonneg": lambda v: _is_int(v) and v >= 0,
        "bool": lambda v: isinstance(v, bool),
        "dice": _is_dice,
        "mapping": lambda v: isinstance(v, Mapping),
        "list": lambda v: isinstance(v, (list, tuple)),
        "str_list": lambda v: isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v),
        "str_or_none": lambda v: v is None or isinstance(v, str),
        "dice_or_none": lambda v: v is None or _is_dice(v),
    }[kind](value)
    if not ok:
        words = {
            "str": "a non-empty string", "int": "an integer", "posint": "a positive integer",
            "nonneg": "an integer of 0 or more", "bool": "true or false",
            "dice": "a dice expression or an integer", "mapping": "a mapping", "list": "a list",
            "str_list": "a list of strings", "str_or_none": "a string or null",
            "dice_or_none": "a dice expression, an integer or null",
        }[kind]
        errors.add(parts + (key,), f"expected {words}, got {_show(value)}")
        return None
    return value


def _check_provenance(node: Any, parts: tuple, inherited: str | None, errors: _Errors) -> None:
    if isinstance(node, Mapping):
        source = node.get("source", inherited)
        if "source" in node and node["source"] not in SOURCES:
            errors.add(parts + ("source",), f"expected one of {', '.join(SOURCES)}, got {_show(node['source'])}")
        if node.get("source") == "assumed" and not (isinstance(node.get("reason"), str) and node["reason"].strip()):
            errors.add(parts, "source: assumed needs a reason")
        for key in ("quote", "reason", "note"):
            if key in node and not isinstance(node[key], str):
                errors.add(parts + (key,), f"expected a string, got {_show(node[key])}")
        if "assumed" in node:
            assumed = node["assumed"]
            if not isinstance(assumed, Mapping):
                errors.add(parts + ("assumed",), "expected a mapping of field to reason")
            else:
                for field, reason in assumed.items():
                    if field not in node:
                        errors.add(parts + ("assumed", field), "names a field that is not in this entry")
                    if not (isinstance(reason, str) and reason.strip()):
                        errors.add(parts + ("assumed", field), "needs a reason")
        for key, value in _data_items(node):
            _check_provenance(value, parts + (key,), source, errors)
    elif isinstance(node, (list, tuple)):
        for i, value in enumerate(node):
            _check_provenance(value, parts + (i,), inherited, errors)
    elif inherited is None:
        errors.add(parts, "no source: say source: text (with a quote) or source: assumed (with a reason)")


def _check_choice(choice: Any, parts: tuple, errors: _Errors, ability_ids: set, skill_ids: set,
                  gear_ids: set) -> set:
    """Check one choice; returns the ids of its options (nested choices' options included)."""
    options_seen: set = set()
    if not isinstance(choice, Mapping):
        errors.add(parts, "expected a mapping")
        return options_seen
    _need(errors, choice, parts, "prompt", "str")
    _need(errors, choice, parts, "pick", "posint")
    if "from_skills" in choice:
        _need(errors, choice, parts, "from_skills", "mapping")
        raise_to = choice.get("raise_to")
        if raise_to not in _SKILL_LEVELS:
            errors.add(parts + ("raise_to",), f"expected one of {', '.join(_SKILL_LEVELS)}, got {_show(raise_to)}")
        return options_seen
    options = _need(errors, choice, parts, "options", "mapping")
    for oid, option in _data_items(options or {}):
        op = parts + ("options", oid)
        options_seen.add(oid)
        if not isinstance(option, Mapping):
            errors.add(op, "expected a mapping")
            continue
        _need(errors, option, op, "name", "str")
        effects = _need(errors, option, op, "effects", "mapping", optional=True) or {}
        for sid, level in _data_items(effects.get("skills") or {}):
            if sid not in skill_ids:
                errors.add(op + ("effects", "skills", sid), "not a skill of this class (add it to skills)")
            if level not in _SKILL_LEVELS:
                errors.add(op + ("effects", "skills", sid), f"expected proficient or expert, got {_show(level)}")
        bonus = effects.get("armor_bonus")
        if bonus is not None:
            _need(errors, bonus, op + ("effects", "armor_bonus"), "av", "int")
            _need(errors, bonus, op + ("effects", "armor_bonus"), "dv", "int")
        for i, aid in enumerate(_need(errors, option, op, "grants", "str_list", optional=True) or ()):
            if aid not in ability_ids:
                errors.add(op + ("grants", i), f"no ability {aid!r} in this class's abilities")
        _check_items(option.get("items"), op + ("items",), errors, gear_ids, optional=True)
        for cid, sub in _data_items(option.get("choices") or {}):
            options_seen |= _check_choice(sub, op + ("choices", cid), errors, ability_ids, skill_ids, gear_ids)
    return options_seen


def _check_items(items: Any, parts: tuple, errors: _Errors, gear_ids: set, *, optional: bool = False) -> None:
    if items is None:
        if not optional:
            errors.add(parts, "missing")
        return
    if not isinstance(items, (list, tuple)):
        errors.add(parts, f"expected a list of {{item, count}}, got {_show(items)}")
        return
    for i, entry in enumerate(items):
        item = _need(errors, entry, parts + (i,), "item", "str")
        _need(errors, entry, parts + (i,), "count", "posint")
        if item is not None and item not in gear_ids:
            errors.add(parts + (i, "item"), f"no gear item {item!r} in gear")


def _check_purse(purse: Any, parts: tuple, errors: _Errors, units: set) -> None:
    if purse is None:
        return
    if not isinstance(purse, Mapping):
        errors.add(parts, f"expected a mapping of currency unit to count, got {_show(purse)}")
        return
    for unit, count in _data_items(purse):
        if unit not in units:
            errors.add(parts + (unit,), f"not a currency unit (known: {', '.join(sorted(units))})")
        elif not (_is_int(count) and count >= 0):
            errors.add(parts + (unit,), f"expected an integer of 0 or more, got {_show(count)}")


def _validate(data: Mapping, prefix: str) -> None:
    errors = _Errors(prefix)
    for name in FILES:
        if not isinstance(data.get(name), Mapping):
            errors.add((name,), "missing or not a mapping")
    for key in data:
        if key not in FILES:
            errors.add((key,), f"unknown rules file (known: {', '.join(FILES)})")
    errors.raise_if_any()
    for name in FILES:
        _check_provenance(data[name], (name,), None, errors)

    # core
    core = data["core"]
    c = ("core",)
    for block, fields in {
        "check": {"die": "dice", "rule": "str"},
        "opposed_check": {"die": "dice", "tie": "str"},
        "save": {"die": "dice", "rule": "str"},
        "skill_bonus": {"proficient": "dice", "expert": "dice", "expert_replaces_proficient": "bool"},
        "luck_dice": {"per_session": "nonneg", "die": "dice", "stack": "bool", "may_add": "bool",
                      "may_subtract": "bool", "reset": "str"},
        "hearts": {"floor": "int"},
        "death_save": {"die": "dice", "target": "int", "retrigger_below": "int", "success_hearts": "nonneg",
                       "after": "str"},
        "unarmed": {"damage": "dice"},
        "advantage": {"dice": "dice"},
        "initiative": {"die": "dice", "by": "str", "tie": "str", "party_order": "str"},
        "turns": {"actions": "posint", "enforced": "bool", "unmarked": "str", "checks": "str", "orders_last": "str",
                  "companions": "str"},
        "ammunition": {"per_attack": "nonneg", "loaded_when_gained": "bool", "reload_uses": "str", "thrown": "str"},
        "spell_damage": {"armor": "bool", "per_dart": "bool"},
        "level_up": {"hearts_gained_heal": "bool"},
        "attack": {"die": "dice", "resist_die": "dice", "hit_on": "str", "tie": "str",
                   "counter_attack_on_miss": "bool"},
        "multi_attack": {"bonus_rolled_once": "bool", "counter_only_if_all_fail": "bool", "target_rolls": "posint"},
        "armor": {"dv_per_hit": "nonneg", "broken_at_dv": "nonneg", "damage_floor": "int"},
        "levels": {"thresholds": "mapping", "cap": "posint"},
        "xp": {"per_heart_vanquished": "nonneg", "per_crown": "nonneg", "per_quest": "nonneg",
               "per_room": "nonneg", "split": "str", "remainder": "str"},
        "currency": {"base": "str", "units": "mapping"},
        "time": {"round_seconds": "posint", "rest_hours": "nonneg"},
        "durations": {"minute": "posint", "hour": "posint", "day": "posint"},
        "rest": {"restores": "str_list", "ends": "str_list"},
        "session": {"luck_dice_reset": "bool"},
    }.items():
        node = _need(errors, core, c, block, "mapping")
        if node is not None:
            for field, kind in fields.items():
                _need(errors, node, c + (block,), field, kind)
    for block, field, allowed in (("death_save", "after", ("any_harm", "attack")),
                                  ("turns", "unmarked", ("action", "free")),
                                  ("turns", "orders_last", ("side_turn", "until_next_turn"))):
        node = core.get(block)
        if isinstance(node, Mapping) and field in node and node[field] not in allowed:
            errors.add(c + (block, field), f"expected one of {', '.join(allowed)}, got {_show(node[field])}")
    cap = 3
    levels = core.get("levels")
    if isinstance(levels, Mapping) and _is_int(levels.get("cap")) and isinstance(levels.get("thresholds"), Mapping):
        cap = levels["cap"]
        thresholds = dict(_data_items(levels["thresholds"]))
        if sorted(thresholds) != list(range(1, cap + 1)):
            errors.add(c + ("levels", "thresholds"), f"expected levels 1..{cap}, got {sorted(thresholds, key=str)}")
        else:
            xps = [thresholds[lv] for lv in range(1, cap + 1)]
            if not all(_is_int(x) and x >= 0 for x in xps) or xps != sorted(xps) or xps[0] != 0:
                errors.add(c + ("levels", "thresholds"), f"expected rising XP from 0, got {xps}")
    for did, seconds in _data_items(core.get("durations") or {}):
        if not (_is_int(seconds) and seconds > 0):
            errors.add(c + ("durations", did), f"expected a positive number of seconds, got {_show(seconds)}")
    units: set = set()
    currency = core.get("currency")
    if isinstance(currency, Mapping) and isinstance(currency.get("units"), Mapping):
        for uid, unit in _data_items(currency["units"]):
            up = c + ("currency", "units", uid)
            _need(errors, unit, up, "name", "str")
            _need(errors, unit, up, "symbol", "str")
            _need(errors, unit, up, "talons", "posint")
            units.add(uid)
        if currency.get("base") not in units:
            errors.add(c + ("currency", "base"), f"not one of the units {sorted(units)}")

    # gear
    gear_ids: set = set()
    for table, items in _data_items(data["gear"]):
        tp = ("gear", table)
        if not isinstance(items, Mapping):
            errors.add(tp, "expected a mapping of item id to item")
            continue
        for iid, item in _data_items(items):
            ip = tp + (iid,)
            if iid in gear_ids:
                errors.add(ip, "item id used in two gear tables")
            gear_ids.add(iid)
            _need(errors, item, ip, "name", "str")
            if not isinstance(item, Mapping):
                continue
            if "price" not in item:
                errors.add(ip + ("price",), "missing (null when the text gives no price)")
            elif item["price"] is not None:
                _check_purse(item["price"], ip + ("price",), errors, units)
            _need(errors, item, ip, "bundle", "posint", optional=True)
            if table == "weapons" or "damage" in item:
                _need(errors, item, ip, "damage", "dice")
                _need(errors, item, ip, "skill", "str_or_none", optional=True)
                _need(errors, item, ip, "ranged", "bool", optional=True)
                _need(errors, item, ip, "reload_action", "bool", optional=True)
            if table == "armor" or "av" in item:
                _need(errors, item, ip, "av", "nonneg")
                _need(errors, item, ip, "dv", "nonneg")
                if item.get("kind") not in ("worn", "shield"):
                    errors.add(ip + ("kind",), f"expected worn or shield, got {_show(item.get('kind'))}")
    for table, items in _data_items(data["gear"]):
        for iid, item in _data_items(items if isinstance(items, Mapping) else {}):
            ammo = item.get("ammo") if isinstance(item, Mapping) else None
            if ammo is not None and ammo not in gear_ids:
                errors.add(("gear", table, iid, "ammo"), f"no gear item {ammo!r}")

    # spells
    for lid, spell_list in _data_items(data["spells"]):
        lp = ("spells", lid)
        _need(errors, spell_list, lp, "name", "str")
        spells = _need(errors, spell_list, lp, "spells", "mapping")
        if not isinstance(spell_list, Mapping) or spells is None:
            continue
        cost = _need(errors, spell_list, lp, "cost", "mapping", optional=True) or {}
        for rid, n in _data_items(cost):
            if not _is_int(n):
                errors.add(lp + ("cost", rid), f"expected an integer, got {_show(n)}")
        pick = _need(errors, spell_list, lp, "random_pick", "dice_or_none", optional=True)
        numbers = []
        for sid, spell in _data_items(spells):
            sp = lp + ("spells", sid)
            _need(errors, spell, sp, "name", "str")
            _need(errors, spell, sp, "effect", "str")
            for field in ("damage", "heal"):
                _need(errors, spell, sp, field, "dice", optional=True)
            if pick is not None:
                n = _need(errors, spell, sp, "number", "posint")
                if n is not None:
                    numbers.append(n)
        if pick is not None and sorted(numbers) != list(range(1, len(numbers) + 1)):
            errors.add(lp + ("spells",), f"numbers must run 1..{len(numbers)} once each, got {sorted(numbers)}")

    # true names
    tn = data["true_names"]
    names = _need(errors, tn, ("true_names",), "names", "mapping")
    if names is not None:
        keys = sorted((k for k, _ in _data_items(names)), key=str)
        if sorted(keys, key=str) != sorted(_D66, key=str):
            errors.add(("true_names", "names"), f"expected the 36 D66 results 11..66, got {keys}")
        values = [v for _, v in _data_items(names)]
        for k, v in _data_items(names):
            if not (isinstance(v, str) and v.strip()):
                errors.add(("true_names", "names", k), f"expected a name, got {_show(v)}")
        if len(set(values)) != len(values):
            errors.add(("true_names", "names"), "a name appears twice")

    # bestiary
    for fid, foe in _data_items(data["bestiary"]):
        fp = ("bestiary", fid)
        _need(errors, foe, fp, "name", "str")
        _need(errors, foe, fp, "hearts", "posint")
        _need(errors, foe, fp, "attack_bonus", "dice")
        _need(errors, foe, fp, "damage", "dice")
        _need(errors, foe, fp, "multi_attack", "posint", optional=True)
        _need(errors, foe, fp, "ranged", "bool", optional=True)
        _need(errors, foe, fp, "tags", "str_list")
        armor = foe.get("armor") if isinstance(foe, Mapping) else None
        if armor is not None:
            _need(errors, armor, fp + ("armor",), "av", "nonneg")
            _need(errors, armor, fp + ("armor",), "dv", "nonneg")

    # classes
    resources_all = set()
    for cid, klass in _data_items(data["classes"]):
        kp = ("classes", cid)
        if not isinstance(klass, Mapping):
            errors.add(kp, "expected a mapping")
            continue
        _need(errors, klass, kp, "name", "str")
        skills = _need(errors, klass, kp, "skills", "mapping") or {}
        skill_ids = {k for k, _ in _data_items(skills)}
        for sid, skill in _data_items(skills):
            _need(errors, skill, kp + ("skills", sid), "name", "str")
            _need(errors, skill, kp + ("skills", sid), "weapon", "bool")
        resources = _need(errors, klass, kp, "resources", "mapping") or {}
        resource_ids = {k for k, _ in _data_items(resources)}
        resources_all |= resource_ids
        for rid, res in _data_items(resources):
            rp = kp + ("resources", rid)
            _need(errors, res, rp, "name", "str")
            _need(errors, res, rp, "restores_on", "str")
            mx = _need(errors, res, rp, "max", "mapping")
            if mx is not None:
                for lv in range(1, cap + 1):
                    if not (_is_int(mx.get(lv)) and mx[lv] >= 0):
                        errors.add(rp + ("max", lv), f"expected an integer of 0 or more, got {_show(mx.get(lv))}")
        abilities = _need(errors, klass, kp, "abilities", "mapping") or {}
        ability_ids = {k for k, _ in _data_items(abilities)}
        option_ids: set = set()
        levels_node = _need(errors, klass, kp, "levels", "mapping")
        level_keys = sorted((k for k, _ in _data_items(levels_node or {})), key=str)
        if levels_node is None:
            levels_node = {}
        elif level_keys != [lv for lv in range(1, cap + 1)]:
            errors.add(kp + ("levels",), f"expected levels 1..{cap}, got {level_keys}")
        for lv, level in _data_items(levels_node):
            lp = kp + ("levels", lv)
            hearts = _need(errors, level, lp, "hearts", "mapping")
            if hearts is not None:
                kinds = [k for k in _HEARTS_KINDS if k in hearts]
                extra = [k for k, _ in _data_items(hearts) if k not in _HEARTS_KINDS]
                if len(kinds) != 1 or extra:
                    errors.add(lp + ("hearts",), f"expected exactly one of {', '.join(_HEARTS_KINDS)}, "
                                                 f"got {sorted(str(k) for k, _ in _data_items(hearts))}")
                else:
                    kind = kinds[0]
                    if lv == 1 and kind == "gain":
                        errors.add(lp + ("hearts",), "level 1 sets or rolls hearts; there is nothing to gain on")
                    _need(errors, hearts, lp + ("hearts",), kind, "posint" if kind == "set" else "dice")
            for sid, bonus in _data_items(level.get("skills") or {} if isinstance(level, Mapping) else {}):
                if sid not in skill_ids:
                    errors.add(lp + ("skills", sid), "not a skill of this class (add it to skills)")
                if bonus not in _SKILL_LEVELS:
                    errors.add(lp + ("skills", sid), f"expected proficient or expert, got {_show(bonus)}")
            if isinstance(level, Mapping):
                for chid, choice in _data_items(level.get("choices") or {}):
                    option_ids |= _check_choice(choice, lp + ("choices", chid), errors, ability_ids, skill_ids,
                                                gear_ids)
        gear = _need(errors, klass, kp, "starting_gear", "mapping")
        if gear is not None:
            _check_items(gear.get("items"), kp + ("starting_gear", "items"), errors, gear_ids)
            _check_purse(gear.get("purse"), kp + ("starting_gear", "purse"), errors, units)
            for chid, choice in _data_items(gear.get("choices") or {}):
                _check_choice(choice, kp + ("starting_gear", "choices", chid), errors, ability_ids, skill_ids,
                              gear_ids)
        for aid, ability in _data_items(abilities):
            ap = kp + ("abilities", aid)
            if not isinstance(ability, Mapping):
                errors.add(ap, "expected a mapping")
                continue
            _need(errors, ability, ap, "name", "str")
            _need(errors, ability, ap, "effect", "str")
            lv = _need(errors, ability, ap, "level", "posint")
            if lv is not None and lv > cap:
                errors.add(ap + ("level",), f"above the level cap {cap}")
            cost = _need(errors, ability, ap, "cost", "mapping")
            for rid, n in _data_items(cost or {}):
                if rid not in resource_ids and rid != "hearts" and rid not in units:
                    errors.add(ap + ("cost", rid), "not a resource of this class, hearts, or a currency unit")
                if not (_is_int(n) and n >= 0):
                    errors.add(ap + ("cost", rid), f"expected an integer of 0 or more, got {_show(n)}")
            variable = _need(errors, ability, ap, "variable_cost", "mapping", optional=True)
            if variable is not None and variable.get("resource") not in resource_ids:
                errors.add(ap + ("variable_cost", "resource"), "not a resource of this class")
            requires = _need(errors, ability, ap, "requires", "mapping", optional=True)
            if requires is not None and requires.get("option") not in option_ids:
                errors.add(ap + ("requires", "option"), f"no option {requires.get('option')!r} in this class's "
                                                        "level choices")
            mech = _need(errors, ability, ap, "mechanics", "mapping", optional=True) or {}
            for field in ("roll_bonus", "damage_reduction", "heal", "damage", "extra_damage", "attack_bonus",
                          "blessing_die"):
                _need(errors, mech, ap + ("mechanics",), field, "dice", optional=True)
        known = _need(errors, klass, kp, "true_names_known", "mapping", optional=True)
        if known is not None:
            mx = _need(errors, known, kp + ("true_names_known",), "max", "mapping") or {}
            for lv in range(1, cap + 1):
                if not (_is_int(mx.get(lv)) and 0 <= mx[lv] <= len(_D66)):
                    errors.add(kp + ("true_names_known", "max", lv), f"expected 0..36, got {_show(mx.get(lv))}")
    for i, rid in enumerate(core.get("rest", {}).get("restores", ()) if isinstance(core.get("rest"), Mapping)
                            else ()):
        if rid not in resources_all:
            errors.add(c + ("rest", "restores", i), f"no class has a resource {rid!r}")
    errors.raise_if_any()


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
    so one ``Rules`` can be shared; ``to_dict()`` gives a plain, mutable copy."""

    def __init__(self, data: Mapping, *, house_paths: tuple[str, ...] = ()):
        self._data = _freeze(data)
        self._house_paths = tuple(house_paths)

    # the tables
    @property
    def data(self) -> Mapping:
        return self._data

    @property
    def core(self) -> Mapping:
        return self._data["core"]

    @property
    def classes(self) -> Mapping:
        """Class id -> class (provenance keys left out)."""
        return MappingProxyType(dict(_data_items(self._data["classes"])))

    @property
    def spells(self) -> Mapping:
        """Every spell by id, across lists; each entry is the spell's data. See ``spell_lists`` for the lists."""
        out = {}
        for _, spell_list in _data_items(self._data["spells"]):
            out.update(_data_items(spell_list["spells"]))
        return MappingProxyType(out)

    @property
    def spell_lists(self) -> Mapping:
        return MappingProxyType(dict(_data_items(self._data["spells"])))

    @property
    def true_names(self) -> Mapping:
        """D66 result (11..66) -> true name."""
        return MappingProxyType(dict(_data_items(self._data["true_names"]["names"])))

    @property
    def gear(self) -> Mapping:
        """Every gear item by id, across tables (weapons, ammo, armor, items, a campaign's own)."""
        out = {}
        for _, table in _data_items(self._data["gear"]):
            out.update(_data_items(table))
        return MappingProxyType(out)

    @property
    def gear_tables(self) -> Mapping:
        return MappingProxyType(dict(_data_items(self._data["gear"])))

    @property
    def bestiary(self) -> Mapping:
        return MappingProxyType(dict(_data_items(self._data["bestiary"])))

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

    @property
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

    def validate(self) -> "Rules":
        """Check the data's shape; raises RulesError naming every bad key path. Returns self."""
        _validate(self._data, "rules: ")
        return self

    def with_overrides(self, house_rules: Mapping | None) -> "Rules":
        """A new Rules with a campaign's house rules laid over these (validated; RulesError names the path)."""
        if not house_rules:
            return self
        changed: list[str] = []
        merged = _merge(self._data, house_rules, (), "house rules: ", changed)
        _validate(merged, "house rules: ")
        return Rules(merged, house_paths=self._house_paths + tuple(changed))

    def to_dict(self) -> dict:
        return _thaw(self._data)

    def __repr__(self) -> str:
        extra = f", {len(self._house_paths)} house rules" if self._house_paths else ""
        return f"<Rules: {len(self.classes)} classes, {len(self.spells)} spells, {len(self.gear)} gear items, " \
               f"{len(self.bestiary)} foes{extra}>"
