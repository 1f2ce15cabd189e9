"""The rules data's schema: the shipped rules files (core numbers, classes, spells, gear, bestiary) and any rules
set a house rule makes, each problem a ``Problem(path, reason)``. Standard library only."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from ...names import NameIndex, name_problem, text_problem
from ...statecheck import MAX_NAME
from .bounds import ARMOR_MAX, FOE_MAX_HEARTS, MAX_TAGS, MULTI_ATTACK, number_shown
from .words import (ALL, NUMBERED,
                    FILES, FOE_FIELDS, FOE_REQUIRED, SOURCES, Problem, _D66, _HEARTS_KINDS, _Problems, _SKILL_LEVELS,
                    _WORDS, _data_items, _is_int, _is_text, show)

__all__ = ["rules_problems", "bestiary_problems", "foe_problems"]


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
        elif key in _FOE_MOST and type(value) is int and value > _FOE_MOST[key]:
            p.add(path + (key,), f"at most {_FOE_MOST[key]:,}, not {number_shown(value)}")
        elif p.kind(path + (key,), value, kind):
            if key == "name":
                _check_name(p, path + (key,), value, "a foe type's name")
            else:
                _check_foe_limit(p, path + (key,), key, value)


_FOE_MOST = {"hearts": FOE_MAX_HEARTS, "multi_attack": MULTI_ATTACK}


def _check_foe_limit(p: _Problems, path: tuple, key: str, value: Any) -> None:
    """A foe's armor or tags past their limits (``bounds``; its hearts and multi-attack are checked first)."""
    if key == "armor" and isinstance(value, Mapping):
        for k, most in ARMOR_MAX.items():
            if isinstance(value.get(k), int) and value[k] > most:
                p.add(path + (k,), f"at most {most:,}, not {number_shown(value[k])}")
    elif key == "tags":
        if len(value) > MAX_TAGS:
            p.add(path, f"{len(value):,} tags; a foe type has at most {MAX_TAGS}")
        for i, tag in enumerate(value[:MAX_TAGS]):
            problem = (f"a tag of {len(tag):,} characters; at most {MAX_NAME}" if len(tag) > MAX_NAME
                       else text_problem(tag, "a tag"))
            if problem is not None:
                p.add(path + (i,), problem)


def _check_name(p: _Problems, path: tuple, name: str, what: str) -> bool:
    """A name written by hand is a name a command would make (``names.name_problem``): said at its path."""
    problem = name_problem(name, what)
    if problem is not None:
        p.add(path, problem)
    return problem is None


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
        for marks in ("assumed", "reading"):  # (assumptions; fields that only document a reading: no house rules)
            if marks not in node:
                continue
            fields = node[marks]
            if not isinstance(fields, Mapping):
                p.add(parts + (marks,), "expected a mapping of field to reason")
                continue
            for field, reason in fields.items():
                if field not in node:
                    p.add(parts + (marks, field), "names a field that is not in this entry")
                elif marks == "reading" and isinstance(reason, Mapping) and isinstance(node[field], Mapping):
                    # marks on the fields of a table keyed by numbers, written in the mapping above it
                    for key, why in reason.items():
                        if key not in node[field]:
                            p.add(parts + (marks, field, key), "names a field that is not in this entry")
                        if not _is_text(why):
                            p.add(parts + (marks, field, key), "needs a reason")
                    continue
                if not _is_text(reason):
                    p.add(parts + (marks, field), "needs a reason")
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
    "roll_tables": {"past_ends": "text", "between": "text", "without_replacement": "text"},
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
        pick = spell_list.get("random_pick")
        if pick != NUMBERED:  # a die, or one face for each numbered spell
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
    _check_foes(p, data["bestiary"])

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
        known = mech.get("spells_known", 0)
        if known != ALL and not (_is_int(known) and known >= 0):
            p.add(ap + ("mechanics", "spells_known"), f"expected a count of spells or {ALL} (every one of the "
                                                     f"list), got {show(known)}")
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
    _check_foes(p, bestiary)
    return p.items


def _check_foes(p: _Problems, bestiary: Mapping) -> None:
    """Every foe of a bestiary, and no two foe types whose names read the same ("Goblin" beside "goblin" or a
    Cyrillic "Gоblin"): their foes would be told apart by nothing a keeper can see."""
    named = NameIndex()  # by their keys: each new name asked of all before it in one lookup, not one by one
    for fid, foe in _data_items(bestiary):
        _check_foe(p, foe, ("bestiary", fid))
        name = foe.get("name") if isinstance(foe, Mapping) else None
        if not isinstance(name, str) or name_problem(name) is not None:
            continue
        other = named.find(name)
        if other is not None:
            p.add(("bestiary", fid, "name"), f"{name!r} reads the same as {other!r}, the name of foe "
                                             f"{named.what(other)!r}: foe types need names that read differently")
        else:
            named.add(name, fid)
