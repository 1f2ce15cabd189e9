"""The campaign file's schema (``campaign.yaml``): its fields, the delvers' starting sheets, the seats, the
bestiary, prepared encounters, rooms and quests, and the rules its house rules make (``campaign_rules``).
Standard library only."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from typing import Any, Iterable, Iterator

from ...statecheck import MAX_NAME
from ...names import look_alike, text_problem
from ..prepared import encounter_problems, id_problem, table_chains, table_cycles, table_problems
from .data import _check_name
from .words import (CAMPAIGN_FIELDS, ENCOUNTER_FIELDS, FOE_REQUIRED, FORMAT_VERSION, PLACE_FIELDS,
                    SHEET_FIELDS, SHEET_MAX_HEARTS, Problem, RulesError, _Problems, _WORDS, _data_items, _is_int,
                    _is_text, field_name, show)

__all__ = ["campaign_rules", "check_campaign"]


_CAMPAIGN_RULES: dict[str, tuple[Any, Any, tuple]] = {}
"""Recent campaign_rules results by the text of (house rules, bestiary): the store's check and the campaign's
open ask for the same rules one after the other, and Rules never change, so the second asks for nothing."""


def campaign_rules(campaign: Mapping, base: Any) -> tuple[Any, list[Problem]]:
    """The rules a campaign plays by: ``base`` (a ``Rules``) with the campaign's house rules, then its own bestiary,
    laid over, and its prepared encounters and roll tables laid in (``Rules.with_campaign``). Returns (the Rules, or
    None if they do not hold, and the problems at campaign-file paths)."""
    key = repr((campaign.get("house_rules"), campaign.get("bestiary")))
    hit = _CAMPAIGN_RULES.get(key)
    if hit is not None and hit[0] is base:
        rules, problems = hit[1], list(hit[2])
    else:
        rules, problems = _campaign_rules(campaign, base)
        if len(_CAMPAIGN_RULES) >= 16:
            _CAMPAIGN_RULES.clear()
        _CAMPAIGN_RULES[key] = (base, rules, tuple(problems))
    if rules is not None:
        encounters, tables = campaign.get("encounters"), campaign.get("tables")
        rules = rules.with_campaign(encounters if isinstance(encounters, Mapping) else None,
                                    tables if isinstance(tables, Mapping) else None)
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
        elif id_problem(foe_id, "a foe id") is not None:
            problems.append(Problem(("bestiary", foe_id), id_problem(foe_id, "a foe id")))
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
        if isinstance(v, str) and len(v) > MAX_NAME:
            p.add(path + (i,), f"a name of {len(v):,} characters; at most {MAX_NAME}")
        elif not _is_text(v):
            p.add(path + (i,), f"expected {what} (text), got {show(v)}")
        elif v in seen:
            p.add(path + (i,), f"{v!r} is listed twice (first at {field_name(path + (seen[v],))})")
        elif (other := look_alike(v, seen)) is not None:
            p.add(path + (i,), f"{v!r} reads the same as {other!r} (at {field_name(path + (seen[other],))}): "
                               f"names need to read differently")
        elif _check_name(p, path + (i,), v, "a name"):
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
        elif id_problem(entry_id, f"a {what} id") is not None:
            p.add((key, entry_id), id_problem(entry_id, f"a {what} id"))
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
    for path, reason in _text_problems(campaign):
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
        p.items += encounter_problems(enc, foes, ("encounters", enc_id), ENCOUNTER_FIELDS)
    tables = _table(p, campaign, "tables", "roll table")
    ids = set(tables) | set(known.roll_tables)
    for table_id, table in tables.items():
        p.items += table_problems(table, ("tables", table_id), ids)
    laid = {**{k: v for k, v in known.roll_tables.items()}, **tables}
    p.items += table_cycles(laid, ("tables",)) + table_chains(laid, ("tables",))

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


def _text_problems(data: Any) -> Iterator[tuple[tuple, str]]:
    """Text (keys too) that cannot be written back as UTF-8 (lone surrogates, the escapes Python gives bytes that
    were not UTF-8: a name taken from a file name, a byte typed in a terminal), or that is not what it shows (a
    character that turns the text around, draws nothing or is a control character: ``names.text_problem``), in
    any field. Iterative."""
    stack = [((), data)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, str):
            if not v.isascii() and _SURROGATES.search(v):
                shown = v.encode("utf-8", "backslashreplace").decode("utf-8")[:60]
                yield path, f"holds characters that are not UTF-8 text ({shown}); write it in UTF-8"
            elif text_problem(v) is not None:
                yield path, text_problem(v, show(v))
        elif isinstance(v, Mapping):
            for k, x in v.items():
                if isinstance(k, str) and not k.isascii() and _SURROGATES.search(k):
                    yield path + (k,), "this key holds characters that are not UTF-8 text; write it in UTF-8"
                elif isinstance(k, str) and text_problem(k, "this key") is not None:
                    yield path + (k,), text_problem(k, "this key")
                stack.append((path + (k,), x))
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                stack.append((path + (i,), x))


_SURROGATES = re.compile("[\ud800-\udfff]")


def _check_delvers(p: _Problems, delvers: Any, rules: Any, players: list[str] | None, pending: set) -> list[str]:
    """Check the starting sheets against the rules the campaign plays by; returns the delvers' names.

    ``pending``: class ids the house rules add but that did not hold (reported there, not as unknown here)."""
    names: dict[str, int] = {}
    played: dict[str, int] = {}  # the players the sheets name, and the first sheet naming each
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
            other = look_alike(d["name"], names)
            if other == d["name"]:
                p.add(here + ("name",), f"two delvers are named {d['name']!r} (the other is "
                                        f"delvers[{names[d['name']]}]); names must differ")
            elif other is not None:
                p.add(here + ("name",), f"{d['name']!r} reads the same as {other!r} (delvers[{names[other]}]); "
                                        f"names need to read differently")
            elif _check_name(p, here + ("name",), d["name"], "a delver's name"):
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
        if isinstance(d.get("player"), str) and len(d["player"]) > MAX_NAME:
            p.add(here + ("player",), f"a name of {len(d['player']):,} characters; at most {MAX_NAME}")
        elif d.get("player") is not None and p.kind(here + ("player",), d["player"], "text") \
                and _check_name(p, here + ("player",), d["player"], "a player's name"):
            other = look_alike(d["player"], played)
            if other is not None and other != d["player"]:
                p.add(here + ("player",), f"{d['player']!r} reads the same as {other!r}, the player of "
                                          f"delvers[{played[other]}]: one player, or names that read differently")
            played.setdefault(d["player"], i)
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
